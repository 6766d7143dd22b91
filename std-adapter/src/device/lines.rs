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

/// Splits a byte stream into lines of at most `max_line` bytes.
#[derive(Debug)]
pub struct LineReader<R> {
    inner: R,
    buf: Box<[u8]>,
    start: usize,
    end: usize,
    line: Vec<u8>,
    /// Length of the overlong line being skipped, if any.
    skipping: Option<usize>,
    max_line: usize,
    eof: bool,
}

impl<R: Read> LineReader<R> {
    /// Frames `inner` with the given bound on line length (at least 1 byte).
    pub fn new(inner: R, max_line: usize) -> Self {
        Self {
            inner,
            buf: vec![0u8; 8192].into_boxed_slice(),
            start: 0,
            end: 0,
            line: Vec::new(),
            skipping: None,
            max_line: max_line.max(1),
            eof: false,
        }
    }

    /// The next frame. I/O errors other than `Interrupted` are returned as they are.
    pub fn next_frame(&mut self) -> io::Result<Frame> {
        loop {
            if self.start == self.end {
                if self.eof {
                    return Ok(self.finish());
                }
                match self.inner.read(&mut self.buf) {
                    Ok(0) => {
                        self.eof = true;
                        continue;
                    }
                    Ok(n) => {
                        self.start = 0;
                        self.end = n.min(self.buf.len());
                    }
                    Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                    Err(e) => return Err(e),
                }
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
                    return Ok(frame);
                }
            }
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
    fn line_of_exactly_the_bound_passes() {
        assert_eq!(
            frames(b"12345678\n", 2, 8),
            vec![Frame::Line(b"12345678".to_vec()), Frame::Eof]
        );
    }
}
