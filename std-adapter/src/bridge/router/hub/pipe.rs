//! The line pipe between the hub and one device's router: the router reads the hub's lines as
//! its host input and writes its host output into the hub's inbox, like any host would.

use std::io::{self, Read, Write};
use std::sync::mpsc::{Receiver, SyncSender};

use super::super::events::Event;

/// The device router's host input: the lines the hub sends, then EOF when the hub drops its end.
pub(super) struct LinesIn {
    pub(super) rx: Receiver<Vec<u8>>,
    pub(super) buf: Vec<u8>,
    pub(super) pos: usize,
}

impl Read for LinesIn {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        if self.pos >= self.buf.len() {
            let Ok(mut line) = self.rx.recv() else {
                return Ok(0);
            };
            line.push(b'\n');
            self.buf = line;
            self.pos = 0;
        }
        let rest = self.buf.get(self.pos..).unwrap_or_default();
        let n = rest.len().min(out.len());
        if let (Some(dst), Some(src)) = (out.get_mut(..n), rest.get(..n)) {
            dst.copy_from_slice(src);
        }
        self.pos += n;
        Ok(n)
    }
}

/// The device router's host output: each line becomes an [`Event::HubLine`] of device `device`.
pub(super) struct LinesOut {
    pub(super) device: usize,
    pub(super) events: SyncSender<Event>,
    pub(super) buf: Vec<u8>,
}

impl Write for LinesOut {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.buf.extend_from_slice(bytes);
        while let Some(end) = self.buf.iter().position(|b| *b == b'\n') {
            let mut line: Vec<u8> = self.buf.drain(..=end).collect();
            line.pop();
            let event = Event::HubLine {
                device: self.device,
                line,
            };
            if self.events.send(event).is_err() {
                return Err(io::Error::new(io::ErrorKind::BrokenPipe, "the hub stopped"));
            }
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}
