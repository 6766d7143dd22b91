//! The line pipe between the HTTP front and the routing loop: the front is the router's one host,
//! writing request lines into [`PipeIn`] and taking every host-bound line out of [`PipeOut`].
//!
//! Toward the router it is an unbounded channel; out of it, each whole line is handed to the
//! front's sink on the router's own thread (the sink only files the line under the request it
//! belongs to and never blocks), so neither side ever waits on the other while it holds a lock
//! (what enters is bounded by the front's connection and body limits).

use std::io::{self, Read, Write};
use std::sync::mpsc::Receiver;

/// The router's input: lines sent by the front, each given its LF.
pub(super) struct PipeIn {
    lines: Receiver<Vec<u8>>,
    pending: Vec<u8>,
    at: usize,
}

impl PipeIn {
    pub(super) fn new(lines: Receiver<Vec<u8>>) -> Self {
        Self {
            lines,
            pending: Vec::new(),
            at: 0,
        }
    }
}

impl Read for PipeIn {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        if self.at >= self.pending.len() {
            // Every sender gone: end of input, the router finishes.
            let Ok(mut line) = self.lines.recv() else {
                return Ok(0);
            };
            line.push(b'\n');
            self.pending = line;
            self.at = 0;
        }
        let rest = self.pending.get(self.at..).unwrap_or_default();
        let n = rest.len().min(out.len());
        out.get_mut(..n)
            .unwrap_or_default()
            .copy_from_slice(rest.get(..n).unwrap_or_default());
        self.at += n;
        Ok(n)
    }
}

/// Where [`PipeOut`] hands each line; `false` when the front stopped.
pub(super) type LineSink = Box<dyn FnMut(Vec<u8>) -> bool + Send>;

/// The router's output: split into lines (without LF) for the front.
pub(super) struct PipeOut {
    sink: LineSink,
    partial: Vec<u8>,
}

impl PipeOut {
    pub(super) fn new(sink: LineSink) -> Self {
        Self {
            sink,
            partial: Vec::new(),
        }
    }
}

impl Write for PipeOut {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        for part in bytes.split_inclusive(|&b| b == b'\n') {
            match part.strip_suffix(b"\n") {
                Some(end) => {
                    self.partial.extend_from_slice(end);
                    let line = std::mem::take(&mut self.partial);
                    if !(self.sink)(line) {
                        return Err(io::Error::new(
                            io::ErrorKind::BrokenPipe,
                            "the front stopped",
                        ));
                    }
                }
                None => self.partial.extend_from_slice(part),
            }
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc::channel;

    #[test]
    fn lines_cross_the_pipe_both_ways() {
        let (tx, rx) = channel();
        let mut input = PipeIn::new(rx);
        tx.send(b"{\"a\":1}".to_vec()).unwrap();
        drop(tx);
        let mut text = Vec::new();
        input.read_to_end(&mut text).unwrap();
        assert_eq!(text, b"{\"a\":1}\n");

        let (tx, rx) = channel();
        let mut output = PipeOut::new(Box::new(move |line| tx.send(line).is_ok()));
        output.write_all(b"one\ntw").unwrap();
        output.write_all(b"o\n").unwrap();
        drop(output);
        assert_eq!(
            rx.iter().collect::<Vec<_>>(),
            vec![b"one".to_vec(), b"two".to_vec()]
        );
    }
}
