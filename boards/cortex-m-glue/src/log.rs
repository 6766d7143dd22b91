//! The one place logs go: with the `semihosting` feature, semihosting **stderr** of the host
//! (QEMU or a debugger); without it (a board with no debugger, where a semihosting call would
//! fault), nowhere.
//!
//! The UART is the MCP channel and, with `-serial stdio`, QEMU's stdout: nothing else may ever
//! be written there, so this crate never writes to semihosting stdout.
//!
//! A line is made of parts (text, decimal numbers, [`Hex`] addresses) put into a [`Line`] and
//! written with one semihosting call, without `core::fmt`: formatting machinery would cost about
//! 3 KB of flash for a few log lines.

/// Logs one line, made of the given parts ([`Part`]s), to the host's stderr through semihosting.
#[cfg(feature = "semihosting")]
#[macro_export]
macro_rules! log {
    ($($part:expr),+ $(,)?) => {{
        let mut line = $crate::log::Line::new();
        $( $crate::log::Part::put($part, &mut line); )+
        line.write();
    }};
}

/// Logs nothing: without the `semihosting` feature the parts are not even evaluated, yet they
/// count as used.
#[cfg(not(feature = "semihosting"))]
#[macro_export]
macro_rules! log {
    ($($part:expr),+ $(,)?) => {{
        if false {
            let _ = ($($part,)+);
        }
    }};
}

/// Bytes of one log line; a longer line is cut.
const LINE_BYTES: usize = 200;

/// The host's stderr, opened on the first line.
#[cfg(feature = "semihosting")]
static STDERR: cortex_m::interrupt::Mutex<
    core::cell::Cell<Option<cortex_m_semihosting::hio::HostStream>>,
> = cortex_m::interrupt::Mutex::new(core::cell::Cell::new(None));

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
    #[cfg(feature = "semihosting")]
    pub fn write(mut self) {
        if let Some(end) = self.bytes.get_mut(self.len) {
            *end = b'\n';
            self.len += 1;
        }
        let bytes = self.bytes.get(..self.len).unwrap_or(&[]);
        cortex_m::interrupt::free(|cs| {
            let stderr = STDERR.borrow(cs);
            let stream = stderr
                .get()
                .or_else(|| cortex_m_semihosting::hio::hstderr().ok());
            if let Some(mut stream) = stream {
                stderr.set(Some(stream));
                let _ = stream.write_all(bytes);
            }
        });
    }

    /// Drops the line: without the `semihosting` feature there is no host to write to.
    #[cfg(not(feature = "semihosting"))]
    pub fn write(self) {}
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
        // 32-bit division: cheaper than the 64-bit steps, and the Cortex-M0 has no divider.
        let mut digits = [0u8; 10];
        let mut at = digits.len();
        let mut n = self;
        loop {
            at -= 1;
            if let Some(d) = digits.get_mut(at) {
                *d = b'0' + (n % 10) as u8;
            }
            n /= 10;
            if n == 0 || at == 0 {
                break;
            }
        }
        line.push(digits.get(at..).unwrap_or(&[]));
    }
}

impl Part for usize {
    fn put(self, line: &mut Line) {
        // usize is 32 bits on every Cortex-M.
        (self as u32).put(line);
    }
}

impl Part for i16 {
    fn put(self, line: &mut Line) {
        if self < 0 {
            line.push(b"-");
        }
        u32::from(self.unsigned_abs()).put(line);
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
