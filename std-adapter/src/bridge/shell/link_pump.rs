//! One device link in the shell: opening it (connecting, or starting QEMU or the child process,
//! as [`crate::device::Endpoint::open`] does for each kind of link), and the two threads that
//! turn its bytes into [`LinkEvent`]s and write the lines the router sends.
//!
//! The links are blocking byte streams (serial ports through `serialport`, sockets, child
//! pipes), so each has a reader and a writer thread rather than a tokio task: a serial port is
//! read on a blocking thread with `serialport` rather than `tokio-serial`, whose `mio-serial`
//! needs the port opened in its own way and brings nothing the line rate of a device needs;
//! QEMU and `--command` children stay under [`crate::device::ChildGuard`], which kills them on
//! SIGTERM, SIGINT and SIGHUP and (Linux) when the bridge dies.

use std::io::{Read, Write};

use tokio::sync::mpsc::{channel, error::TrySendError, Sender};

use super::Event;
use crate::bridge::machine::{Input, LinkEvent};
use crate::device::lines::{Frame, LineReader};
use crate::device::{Closer, Endpoint, Link};
use crate::log::Logger;

/// Lines queued for one device's writer before the device counts as not reading.
const WRITE_QUEUE: usize = 256;

/// An open link, as the shell holds it.
pub(super) struct OpenLink {
    writes: Sender<Vec<u8>>,
    /// Dropping it closes the link and stops the process behind it.
    pub(super) closer: Closer,
}

/// What became of a write.
pub(super) enum Written {
    Queued,
    /// The device is not reading: its queue is full.
    Refused,
    /// The link's writer stopped (its closing is reported by the link's events).
    Gone,
}

impl OpenLink {
    /// Queues a line for the device.
    pub(super) fn write(&self, line: Vec<u8>) -> Written {
        match self.writes.try_send(line) {
            Ok(()) => Written::Queued,
            Err(TrySendError::Full(_)) => Written::Refused,
            Err(TrySendError::Closed(_)) => Written::Gone,
        }
    }
}

fn link_event(device: usize, event: LinkEvent) -> Event {
    Event::Input(Input::Link { device, event })
}

/// Opens link `gen` of device `device` on a thread of its own (connecting may take seconds);
/// the result goes to `events`.
pub(super) fn open(
    device: usize,
    gen: u64,
    endpoint: Endpoint,
    log: Logger,
    events: Sender<Event>,
) -> std::io::Result<()> {
    std::thread::Builder::new()
        .name(format!("device-open-{device}-{gen}"))
        .spawn(move || {
            let event = match endpoint.open(&log) {
                Ok(link) => Event::Opened { device, gen, link },
                Err(e) => link_event(
                    device,
                    LinkEvent::OpenFailed {
                        gen,
                        error: e.to_string(),
                    },
                ),
            };
            // If the shell is gone, dropping the link closes it.
            let _ = events.blocking_send(event);
        })
        .map(drop)
}

/// Starts the reader and writer threads of an opened link.
pub(super) fn start(
    device: usize,
    gen: u64,
    link: Link,
    max_line: usize,
    events: &Sender<Event>,
) -> std::io::Result<OpenLink> {
    let Link {
        reader,
        writer,
        closer,
    } = link;
    spawn_reader(device, gen, reader, max_line, events.clone())?;
    let writes = spawn_writer(device, gen, writer, events.clone())?;
    Ok(OpenLink { writes, closer })
}

fn spawn_reader(
    device: usize,
    gen: u64,
    reader: Box<dyn Read + Send>,
    max_line: usize,
    events: Sender<Event>,
) -> std::io::Result<()> {
    std::thread::Builder::new()
        .name(format!("device-reader-{device}-{gen}"))
        .spawn(move || {
            let mut lines = LineReader::new(reader, max_line);
            loop {
                let event = match lines.next_frame() {
                    Ok(Frame::Line(line)) => LinkEvent::Line { gen, line },
                    Ok(Frame::Overlong { len }) => LinkEvent::Overlong { gen, len },
                    Ok(Frame::Eof) => LinkEvent::Closed {
                        gen,
                        why: "end of stream".into(),
                    },
                    Err(e) => LinkEvent::Closed {
                        gen,
                        why: e.to_string(),
                    },
                };
                let end = matches!(event, LinkEvent::Closed { .. });
                if events.blocking_send(link_event(device, event)).is_err() || end {
                    return;
                }
            }
        })
        .map(drop)
}

fn spawn_writer(
    device: usize,
    gen: u64,
    mut writer: Box<dyn Write + Send>,
    events: Sender<Event>,
) -> std::io::Result<Sender<Vec<u8>>> {
    let (tx, mut rx) = channel::<Vec<u8>>(WRITE_QUEUE);
    std::thread::Builder::new()
        .name(format!("device-writer-{device}-{gen}"))
        .spawn(move || {
            while let Some(mut line) = rx.blocking_recv() {
                line.push(b'\n');
                if let Err(e) = writer.write_all(&line).and_then(|()| writer.flush()) {
                    let why = format!("writing to the device failed: {e}");
                    let _ =
                        events.blocking_send(link_event(device, LinkEvent::Closed { gen, why }));
                    return;
                }
            }
        })?;
    Ok(tx)
}
