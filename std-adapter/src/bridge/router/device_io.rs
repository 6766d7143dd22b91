//! The threads of one device link (a reader and a writer), and the connector's interruptible
//! sleep.

use std::io::{Read, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{sync_channel, SyncSender};
use std::time::{Duration, Instant};

use super::events::Event;
use super::WRITE_QUEUE;
use crate::device::lines::{Frame, LineReader};

pub(super) fn spawn_device_threads(
    gen: u64,
    link_reader: Box<dyn Read + Send>,
    mut link_writer: Box<dyn Write + Send>,
    max_line: usize,
    events: &SyncSender<Event>,
) -> std::io::Result<SyncSender<Vec<u8>>> {
    let reader_events = events.clone();
    std::thread::Builder::new()
        .name(format!("device-reader-{gen}"))
        .spawn(move || {
            let mut lines = LineReader::new(link_reader, max_line);
            loop {
                let event = match lines.next_frame() {
                    Ok(Frame::Line(line)) => Event::DeviceLine { gen, line },
                    Ok(Frame::Overlong { len }) => Event::DeviceOverlong { gen, len },
                    Ok(Frame::Eof) => Event::DeviceClosed {
                        gen,
                        why: "end of stream".into(),
                    },
                    Err(e) => Event::DeviceClosed {
                        gen,
                        why: e.to_string(),
                    },
                };
                let end = matches!(event, Event::DeviceClosed { .. });
                if reader_events.send(event).is_err() || end {
                    return;
                }
            }
        })?;
    let (tx, rx) = sync_channel::<Vec<u8>>(WRITE_QUEUE);
    let writer_events = events.clone();
    std::thread::Builder::new()
        .name(format!("device-writer-{gen}"))
        .spawn(move || {
            for mut line in rx {
                line.push(b'\n');
                if let Err(e) = link_writer
                    .write_all(&line)
                    .and_then(|()| link_writer.flush())
                {
                    let _ = writer_events.send(Event::DeviceClosed {
                        gen,
                        why: format!("writing to the device failed: {e}"),
                    });
                    return;
                }
            }
        })?;
    Ok(tx)
}

pub(super) fn sleep_unless_stopped(total: Duration, stop: &AtomicBool) -> bool {
    let end = Instant::now() + total;
    loop {
        if stop.load(Ordering::SeqCst) {
            return false;
        }
        let now = Instant::now();
        if now >= end {
            return true;
        }
        std::thread::sleep((end - now).min(Duration::from_millis(50)));
    }
}
