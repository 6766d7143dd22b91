//! The one place logs go: semihosting **stderr** of the QEMU process.
//!
//! UART0 is the MCP channel and, with `-serial stdio`, QEMU's stdout: nothing else may ever be
//! written there, so this firmware never writes to semihosting stdout.
//!
//! A line is made of parts (text, decimal numbers, [`Hex`] addresses) put into a [`Line`] and
//! written with one semihosting call, without `core::fmt`: formatting machinery would cost about
//! 3 KB of flash for a few log lines.

use core::cell::Cell;

use cortex_m::interrupt::{self, Mutex};
use cortex_m_semihosting::hio::{self, HostStream};

/// Logs one line, made of the given parts ([`Part`]s), to the host's stderr through semihosting.
///
/// Semihosting needs a debugger or QEMU: on real silicon without one, this would fault.
#[macro_export]
macro_rules! log {
    ($($part:expr),+ $(,)?) => {{
        let mut line = $crate::log::Line::new();
        $( $crate::log::Part::put($part, &mut line); )+
        line.write();
    }};
}

/// Bytes of one log line; a longer line is cut.
const LINE_BYTES: usize = 200;

/// The host's stderr, opened on the first line.
static STDERR: Mutex<Cell<Option<HostStream>>> = Mutex::new(Cell::new(None));

/// One log line being made.
pub struct Line {
    bytes: [u8; LINE_BYTES],
    len: usize,
}

impl Line {
    /// An empty line.
    pub const fn new() -> Self {
        Self {
            bytes: [0; LINE_BYTES],
            len: 0,
        }
    }

    fn push(&mut self, bytes: &[u8]) {
        // One byte is kept for the newline.
        let room = LINE_BYTES.saturating_sub(1).saturating_sub(self.len);
        let take = bytes.len().min(room);
        if let (Some(to), Some(from)) = (
            self.bytes.get_mut(self.len..self.len + take),
            bytes.get(..take),
        ) {
            // Not `copy_from_slice`: its panic path would stay (`copy_bytes` has none).
            embedded_mcp::json::copy_bytes(to, from);
            self.len += take;
        }
    }

    /// Ends the line and writes it to the host's stderr (dropped without a host stream).
    pub fn write(mut self) {
        if let Some(end) = self.bytes.get_mut(self.len) {
            *end = b'\n';
            self.len += 1;
        }
        let bytes = self.bytes.get(..self.len).unwrap_or(&[]);
        interrupt::free(|cs| {
            let stderr = STDERR.borrow(cs);
            let stream = stderr.get().or_else(|| hio::hstderr().ok());
            if let Some(mut stream) = stream {
                stderr.set(Some(stream));
                let _ = stream.write_all(bytes);
            }
        });
    }
}

/// Something a log line can show.
pub trait Part {
    /// Appends this part's text to `line`.
    fn put(self, line: &mut Line);
}

impl Part for &str {
    fn put(self, line: &mut Line) {
        line.push(self.as_bytes());
    }
}

impl Part for u64 {
    fn put(self, line: &mut Line) {
        let mut digits = [0u8; 20];
        let mut at = digits.len();
        let mut n = self;
        loop {
            at -= 1;
            let (q, r) = crate::div::div_rem(n, 10);
            if let Some(d) = digits.get_mut(at) {
                *d = b'0' + r as u8;
            }
            n = q;
            if n == 0 || at == 0 {
                break;
            }
        }
        line.push(digits.get(at..).unwrap_or(&[]));
    }
}

impl Part for u32 {
    fn put(self, line: &mut Line) {
        u64::from(self).put(line);
    }
}

impl Part for usize {
    fn put(self, line: &mut Line) {
        (self as u64).put(line);
    }
}

impl Part for i16 {
    fn put(self, line: &mut Line) {
        if self < 0 {
            line.push(b"-");
        }
        u64::from(self.unsigned_abs()).put(line);
    }
}

/// A 32-bit value shown as `0x` and eight hex digits (an address).
pub struct Hex(pub u32);

impl Part for Hex {
    fn put(self, line: &mut Line) {
        let mut text = *b"0x00000000";
        for (i, d) in text.iter_mut().skip(2).enumerate() {
            let nibble = (self.0 >> (28 - 4 * i)) & 0xf;
            *d = b"0123456789abcdef"
                .get(nibble as usize)
                .copied()
                .unwrap_or(b'?');
        }
        line.push(&text);
    }
}

impl Default for Line {
    fn default() -> Self {
        Self::new()
    }
}
