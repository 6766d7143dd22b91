//! Newline framing of a byte stream, with a bound on line length.
//!
//! One JSON-RPC message per line: a trailing CR is stripped, empty lines are skipped, and a line
//! longer than the bound is reported as [`Frame::Overlong`] and skipped without buffering it, so
//! the next line still arrives.

use std::io::{self, ErrorKind, Read};

pub use crate::wire::DEFAULT_MAX_LINE;

/// What [`LineReader::next_frame`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Frame {
    /// One line without its terminator (never empty).
    Line(Vec<u8>),
    /// A line longer than the bound was skipped; `len` is its length in bytes.
    Overlong {
        /// Length of the skipped line, terminator excluded.
        len: usize,
    },
    /// The stream ended.
    Eof,
}

/// Splits a byte stream into lines of at most `max_line` bytes, reading it as it goes.
#[derive(Debug)]
pub struct LineReader<R> {
    inner: R,
    framer: Framer,
}

impl<R: Read> LineReader<R> {
    /// Frames `inner` with the given bound on line length (at least 1 byte).
    pub fn new(inner: R, max_line: usize) -> Self {
        Self {
            inner,
            framer: Framer::new(max_line),
        }
    }

    /// The next frame. I/O errors other than `Interrupted` are returned as they are.
    pub fn next_frame(&mut self) -> io::Result<Frame> {
        loop {
            if let Some(frame) = self.framer.next_frame() {
                return Ok(frame);
            }
            match self.inner.read(self.framer.space()) {
                Ok(n) => self.framer.filled(n),
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        }
    }
}

/// The framing of [`LineReader`] without the stream (sans-IO): the caller reads into
/// [`Framer::space`], reports the count with [`Framer::filled`] (0 at end of stream), and takes
/// frames from [`Framer::next_frame`] until it says more bytes are needed. The bridge's tokio
/// links read this way.
#[derive(Debug)]
pub struct Framer {
    buf: Box<[u8]>,
    start: usize,
    end: usize,
    line: Vec<u8>,
    /// Length of the overlong line being skipped, if any.
    skipping: Option<usize>,
    max_line: usize,
    eof: bool,
}

impl Framer {
    /// A framer with the given bound on line length (at least 1 byte).
    pub fn new(max_line: usize) -> Self {
        Self {
            buf: vec![0u8; 8192].into_boxed_slice(),
            start: 0,
            end: 0,
            line: Vec::new(),
            skipping: None,
            max_line: max_line.max(1),
            eof: false,
        }
    }

    /// The next frame of the bytes given so far; `None` when it needs more bytes (then read
    /// into [`Framer::space`]). After the end of stream, an unterminated last line is still
    /// delivered, then `Eof` on every call.
    pub fn next_frame(&mut self) -> Option<Frame> {
        loop {
            if self.start == self.end {
                return self.eof.then(|| self.finish());
            }
            let chunk = self.buf.get(self.start..self.end).unwrap_or_default();
            let newline = chunk.iter().position(|&b| b == b'\n');
            let take = newline.unwrap_or(chunk.len());
            let part = chunk.get(..take).unwrap_or_default();
            absorb(&mut self.line, &mut self.skipping, self.max_line, part);
            self.start += take;
            if newline.is_some() {
                self.start += 1;
                if let Some(frame) = self.complete() {
                    return Some(frame);
                }
            }
        }
    }

    /// Where the next read goes. Only once [`Framer::next_frame`] has returned `None` (every
    /// byte given before is framed); empty at the end of the stream.
    pub fn space(&mut self) -> &mut [u8] {
        if self.start < self.end || self.eof {
            return &mut [];
        }
        &mut self.buf
    }

    /// The next frame of the tokio stream `reader` (as [`LineReader::next_frame`] does for a
    /// blocking one): `Frame::Eof` at its end.
    pub async fn read_from<R>(&mut self, reader: &mut R) -> io::Result<Frame>
    where
        R: tokio::io::AsyncRead + Unpin + ?Sized,
    {
        use tokio::io::AsyncReadExt;
        loop {
            if let Some(frame) = self.next_frame() {
                return Ok(frame);
            }
            match reader.read(self.space()).await {
                Ok(n) => self.filled(n),
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }

    /// `n` bytes were read into [`Framer::space`]; 0 is the end of the stream.
    pub fn filled(&mut self, n: usize) {
        if n == 0 {
            self.eof = true;
        } else {
            self.start = 0;
            self.end = n.min(self.buf.len());
        }
    }

    /// Ends the current line; `None` when it is empty and skipped.
    fn complete(&mut self) -> Option<Frame> {
        if let Some(len) = self.skipping.take() {
            return Some(Frame::Overlong { len });
        }
        let mut line = std::mem::take(&mut self.line);
        if line.last() == Some(&b'\r') {
            line.pop();
        }
        if line.iter().all(u8::is_ascii_whitespace) {
            return None;
        }
        Some(Frame::Line(line))
    }

    /// At end of stream: an unterminated last line is still delivered, then `Eof`.
    fn finish(&mut self) -> Frame {
        self.complete().unwrap_or(Frame::Eof)
    }
}

/// Adds `part` to the line being read, or to the length of the overlong line being skipped.
fn absorb(line: &mut Vec<u8>, skipping: &mut Option<usize>, max_line: usize, part: &[u8]) {
    if let Some(len) = skipping.as_mut() {
        *len += part.len();
    } else if line.len() + part.len() > max_line {
        *skipping = Some(line.len() + part.len());
        *line = Vec::new();
    } else {
        line.extend_from_slice(part);
    }
}

/// Writes `line` and its newline to the tokio stream `writer`, flushed.
pub async fn write_line<W>(writer: &mut W, mut line: Vec<u8>) -> io::Result<()>
where
    W: tokio::io::AsyncWrite + Unpin + ?Sized,
{
    use tokio::io::AsyncWriteExt;
    line.push(b'\n');
    writer.write_all(&line).await?;
    writer.flush().await
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader that hands out its bytes in pieces of `step` bytes.
    struct Trickle<'a> {
        data: &'a [u8],
        step: usize,
    }

    impl Read for Trickle<'_> {
        fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
            let n = self.step.min(self.data.len()).min(out.len());
            out[..n].copy_from_slice(&self.data[..n]);
            self.data = &self.data[n..];
            Ok(n)
        }
    }

    fn frames(data: &[u8], step: usize, max: usize) -> Vec<Frame> {
        let mut r = LineReader::new(Trickle { data, step }, max);
        let mut out = Vec::new();
        loop {
            let f = r.next_frame().unwrap();
            let end = f == Frame::Eof;
            out.push(f);
            if end {
                return out;
            }
        }
    }

    #[test]
    fn splits_strips_cr_and_skips_empty_lines() {
        for step in [1, 3, 100] {
            assert_eq!(
                frames(b"{\"a\":1}\r\n\n  \r\n[2]\nlast", step, 64),
                vec![
                    Frame::Line(b"{\"a\":1}".to_vec()),
                    Frame::Line(b"[2]".to_vec()),
                    Frame::Line(b"last".to_vec()),
                    Frame::Eof
                ]
            );
        }
    }

    #[test]
    fn overlong_line_is_reported_and_the_next_one_arrives() {
        for step in [1, 5, 100] {
            assert_eq!(
                frames(b"0123456789abcdef\nok\n", step, 8),
                vec![
                    Frame::Overlong { len: 16 },
                    Frame::Line(b"ok".to_vec()),
                    Frame::Eof
                ]
            );
        }
    }

    #[test]
    fn the_framer_asks_for_bytes_only_when_it_has_framed_all_it_was_given() {
        let mut framer = Framer::new(8);
        assert_eq!(framer.next_frame(), None);
        let data = b"ab\ncd\n0123456789\nef";
        framer.space()[..data.len()].copy_from_slice(data);
        framer.filled(data.len());
        assert!(framer.space().is_empty());
        assert_eq!(framer.next_frame(), Some(Frame::Line(b"ab".to_vec())));
        assert_eq!(framer.next_frame(), Some(Frame::Line(b"cd".to_vec())));
        assert_eq!(framer.next_frame(), Some(Frame::Overlong { len: 10 }));
        assert_eq!(framer.next_frame(), None);
        assert_eq!(framer.space().len(), 8192);
        framer.filled(0);
        assert!(framer.space().is_empty());
        assert_eq!(framer.next_frame(), Some(Frame::Line(b"ef".to_vec())));
        assert_eq!(framer.next_frame(), Some(Frame::Eof));
        assert_eq!(framer.next_frame(), Some(Frame::Eof));
    }

    #[test]
    fn line_of_exactly_the_bound_passes() {
        assert_eq!(
            frames(b"12345678\n", 2, 8),
            vec![Frame::Line(b"12345678".to_vec()), Frame::Eof]
        );
    }
}
