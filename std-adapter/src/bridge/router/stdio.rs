//! The host front of the bridge on a byte stream (stdio in the binary): one thread reads lines
//! into the routing loop's inbox, one writes the lines the loop emits.

use std::io::{Read, Write};
use std::sync::mpsc::{Receiver, SyncSender};
use std::thread::JoinHandle;

use super::events::Event;
use crate::bridge::BridgeError;
use crate::device::lines::{Frame, LineReader};

pub(super) fn spawn_host_reader<R: Read + Send + 'static>(
    host_in: R,
    max_line: usize,
    events: SyncSender<Event>,
) -> Result<(), BridgeError> {
    std::thread::Builder::new()
        .name("host-reader".into())
        .spawn(move || {
            let mut lines = LineReader::new(host_in, max_line);
            loop {
                let event = match lines.next_frame() {
                    Ok(Frame::Line(line)) => Event::HostLine(line),
                    Ok(Frame::Overlong { len }) => Event::HostOverlong(len),
                    Ok(Frame::Eof) => Event::HostEof(None),
                    Err(e) => Event::HostEof(Some(e.to_string())),
                };
                let end = matches!(event, Event::HostEof(_));
                if events.send(event).is_err() || end {
                    return;
                }
            }
        })
        .map(drop)
        .map_err(BridgeError::Thread)
}

pub(super) fn spawn_host_writer<W: Write + Send + 'static>(
    mut host_out: W,
    lines: Receiver<Vec<u8>>,
    events: SyncSender<Event>,
) -> Result<JoinHandle<()>, BridgeError> {
    std::thread::Builder::new()
        .name("host-writer".into())
        .spawn(move || {
            for mut line in lines {
                line.push(b'\n');
                if let Err(e) = host_out.write_all(&line).and_then(|()| host_out.flush()) {
                    let _ = events.send(Event::HostOutputFailed(e.to_string()));
                    return;
                }
            }
        })
        .map_err(BridgeError::Thread)
}
