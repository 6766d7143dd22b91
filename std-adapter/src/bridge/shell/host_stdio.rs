//! The host's byte streams (stdin and stdout in the binary, any [`Read`] and [`Write`] in
//! tests): one thread frames the input into lines for the shell's inbox, one writes the lines
//! the shell hands it. They are threads because the streams are blocking ones.

use std::io::{Read, Write};
use std::thread::JoinHandle;

use tokio::sync::mpsc::{Receiver, Sender};

use super::Event;
use crate::bridge::machine::Input;
use crate::bridge::BridgeError;
use crate::device::lines::{Frame, LineReader};

/// Starts the thread that reads `host_in` into `events`.
pub(super) fn spawn_reader<R: Read + Send + 'static>(
    host_in: R,
    max_line: usize,
    events: Sender<Event>,
) -> Result<(), BridgeError> {
    std::thread::Builder::new()
        .name("host-reader".into())
        .spawn(move || {
            let mut lines = LineReader::new(host_in, max_line);
            loop {
                let input = match lines.next_frame() {
                    Ok(Frame::Line(line)) => Input::HostLine(line),
                    Ok(Frame::Overlong { len }) => Input::HostOverlong(len),
                    Ok(Frame::Eof) => Input::HostEof(None),
                    Err(e) => Input::HostEof(Some(e.to_string())),
                };
                let end = matches!(input, Input::HostEof(_));
                if events.blocking_send(Event::Input(input)).is_err() || end {
                    return;
                }
            }
        })
        .map(drop)
        .map_err(BridgeError::Thread)
}

/// Starts the thread that writes the lines of `lines` to `host_out`, each with its newline; a
/// failed write is reported to `events` and ends it.
pub(super) fn spawn_writer<W: Write + Send + 'static>(
    mut host_out: W,
    mut lines: Receiver<Vec<u8>>,
    events: Sender<Event>,
) -> Result<JoinHandle<()>, BridgeError> {
    std::thread::Builder::new()
        .name("host-writer".into())
        .spawn(move || {
            while let Some(mut line) = lines.blocking_recv() {
                line.push(b'\n');
                if let Err(e) = host_out.write_all(&line).and_then(|()| host_out.flush()) {
                    let _ = events.blocking_send(Event::HostOutputFailed(e.to_string()));
                    return;
                }
            }
        })
        .map_err(BridgeError::Thread)
}
