//! One device link in the shell: opening it (connecting, or starting QEMU or the child process,
//! as [`crate::device::Endpoint::open_streams`] does for each kind of link), and the two tasks
//! that turn its bytes into [`LinkEvent`]s and write the lines the router sends.
//!
//! Sockets (TCP, unix, QEMU's UART socket) and child pipes (`--command`, QEMU's `-serial
//! stdio`) are tokio I/O read and written by tasks of the shell's runtime, so a link costs no
//! thread; opening one (a connect, or QEMU's start, which may take seconds) runs on tokio's
//! blocking pool. A serial port is read and written by two threads of its own (see BRIDGE.md,
//! "How it is built"). QEMU and `--command` children stay under [`crate::device::ChildGuard`], which
//! kills and reaps them when the link closes, on SIGTERM, SIGINT and SIGHUP and (Linux) when the
//! bridge dies.

use std::io::{Read, Write};

use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::mpsc::{channel, error::TrySendError, Receiver, Sender};

use super::Event;
use crate::bridge::machine::{Input, LinkEvent};
use crate::bridge::remote;
use crate::device::lines::{write_line, Frame, Framer, LineReader};
use crate::device::{Closer, Endpoint, Link, TokioLink};
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

/// Opens link `gen` of device `device` on tokio's blocking pool (connecting may take seconds);
/// the result goes to `events`. Must be called inside the shell's runtime.
pub(super) fn open(
    device: usize,
    gen: u64,
    endpoint: Endpoint,
    log: Logger,
    events: Sender<Event>,
    max_line: usize,
) {
    if let Endpoint::Remote(remote) = endpoint {
        // A remote gateway: HTTP requests on this runtime (`bridge::remote`).
        tokio::spawn(async move {
            let event = match remote::connect(remote, max_line, log).await {
                Ok(link) => Event::Opened { device, gen, link },
                Err(e) => open_failed(device, gen, e),
            };
            let _ = events.send(event).await;
        });
        return;
    }
    tokio::spawn(async move {
        let opened = tokio::task::spawn_blocking(move || endpoint.open_streams(&log)).await;
        let event = match opened.map(|streams| streams.map(|s| s.into_tokio())) {
            Ok(Ok(Ok(link))) => Event::Opened { device, gen, link },
            Ok(Ok(Err(e)) | Err(e)) => open_failed(device, gen, e.to_string()),
            Err(e) => open_failed(device, gen, format!("the opening task failed: {e}")),
        };
        // If the shell is gone, dropping the link closes it.
        let _ = events.send(event).await;
    });
}

fn open_failed(device: usize, gen: u64, error: String) -> Event {
    link_event(device, LinkEvent::OpenFailed { gen, error })
}

/// Starts the reader and writer of an opened link: two tasks, or two threads for a serial port.
pub(super) fn start(
    device: usize,
    gen: u64,
    link: TokioLink,
    max_line: usize,
    events: &Sender<Event>,
) -> std::io::Result<OpenLink> {
    let (writes, queue) = channel::<Vec<u8>>(WRITE_QUEUE);
    let closer = match link {
        TokioLink::Tokio {
            reader,
            writer,
            closer,
        } => {
            tokio::spawn(read_lines(device, gen, reader, max_line, events.clone()));
            tokio::spawn(write_lines(device, gen, writer, queue, events.clone()));
            closer
        }
        TokioLink::Blocking(Link {
            reader,
            writer,
            closer,
        }) => {
            spawn_reader(device, gen, reader, max_line, events.clone())?;
            spawn_writer(device, gen, writer, queue, events.clone())?;
            closer
        }
    };
    Ok(OpenLink { writes, closer })
}

/// The link event of one frame.
fn frame_event(gen: u64, frame: std::io::Result<Frame>) -> LinkEvent {
    match frame {
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
    }
}

/// Reads the device's lines (at most `max_line` bytes buffered) until the link closes.
async fn read_lines(
    device: usize,
    gen: u64,
    mut reader: Box<dyn AsyncRead + Send + Unpin>,
    max_line: usize,
    events: Sender<Event>,
) {
    let mut framer = Framer::new(max_line);
    loop {
        let frame = framer.read_from(&mut reader).await;
        let event = frame_event(gen, frame);
        let end = matches!(event, LinkEvent::Closed { .. });
        if events.send(link_event(device, event)).await.is_err() || end {
            return;
        }
    }
}

/// Writes the queued lines to the device until the queue closes or a write fails.
async fn write_lines(
    device: usize,
    gen: u64,
    mut writer: Box<dyn AsyncWrite + Send + Unpin>,
    mut queue: Receiver<Vec<u8>>,
    events: Sender<Event>,
) {
    while let Some(line) = queue.recv().await {
        if let Err(e) = write_line(&mut writer, line).await {
            let why = format!("writing to the device failed: {e}");
            let _ = events
                .send(link_event(device, LinkEvent::Closed { gen, why }))
                .await;
            return;
        }
    }
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
                let event = frame_event(gen, lines.next_frame());
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
    mut queue: Receiver<Vec<u8>>,
    events: Sender<Event>,
) -> std::io::Result<()> {
    std::thread::Builder::new()
        .name(format!("device-writer-{device}-{gen}"))
        .spawn(move || {
            while let Some(mut line) = queue.blocking_recv() {
                line.push(b'\n');
                if let Err(e) = writer.write_all(&line).and_then(|()| writer.flush()) {
                    let why = format!("writing to the device failed: {e}");
                    let _ =
                        events.blocking_send(link_event(device, LinkEvent::Closed { gen, why }));
                    return;
                }
            }
        })
        .map(drop)
}
