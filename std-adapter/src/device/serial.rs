//! Serial ports (`--serial PATH --baud N`) through the `serialport` crate, without libudev.
//!
//! Reads and writes wait in slices of [`POLL_SLICE`] so that closing the link (a stop flag) ends
//! a blocked reader within one slice. An unplugged port reads as an error, which ends the link.

use std::io::{self, ErrorKind, Read, Write};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use serialport::{SerialPort, TTYPort};

use super::{CloseAction, Closer, DeviceError, OpenStreams, Streams};

/// How long one blocking read or write waits before checking the stop flag.
pub const POLL_SLICE: Duration = Duration::from_millis(100);

/// Opens `path` at `baud` 8N1, no flow control, DTR asserted (USB CDC devices want it).
pub fn open(path: &Path, baud: u32) -> Result<OpenStreams, DeviceError> {
    let name = path.to_string_lossy().into_owned();
    let mut port = serialport::new(name.as_str(), baud)
        .timeout(POLL_SLICE)
        .open_native()
        .map_err(|e| DeviceError::io(format!("opening serial port {name}"), e.into()))?;
    // Ptys and some adapters have no modem lines: not having DTR is not an error.
    let _ = port.write_data_terminal_ready(true);
    let writer = port
        .try_clone_native()
        .map_err(|e| DeviceError::io(format!("cloning serial port {name}"), e.into()))?;
    let stop = Arc::new(AtomicBool::new(false));
    let mut closer = Closer::default();
    closer.push(CloseAction::Flag(Arc::clone(&stop)));
    Ok(OpenStreams {
        streams: Streams::Blocking {
            reader: Box::new(SerialReader {
                port,
                stop: Arc::clone(&stop),
            }),
            writer: Box::new(SerialWriter { port: writer, stop }),
        },
        closer,
    })
}

fn is_timeout(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        ErrorKind::TimedOut | ErrorKind::WouldBlock | ErrorKind::Interrupted
    )
}

struct SerialReader {
    port: TTYPort,
    stop: Arc<AtomicBool>,
}

impl Read for SerialReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            if self.stop.load(Ordering::SeqCst) {
                return Ok(0);
            }
            match self.port.read(buf) {
                Err(e) if is_timeout(&e) => continue,
                other => return other,
            }
        }
    }
}

struct SerialWriter {
    port: TTYPort,
    stop: Arc<AtomicBool>,
}

impl Write for SerialWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        loop {
            if self.stop.load(Ordering::SeqCst) {
                return Err(io::Error::new(ErrorKind::BrokenPipe, "serial link closed"));
            }
            match self.port.write(buf) {
                Err(e) if is_timeout(&e) => continue,
                other => return other,
            }
        }
    }

    /// Bytes are with the kernel once written; waiting for the UART to drain (tcdrain) would
    /// only add latency.
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}
