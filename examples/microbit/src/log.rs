//! The one place logs go: with the `qemu` feature, semihosting **stderr** of the QEMU process;
//! without it (the real board, where no debugger answers semihosting calls), nowhere.
//!
//! UART0 is the MCP channel and, with `-serial stdio`, QEMU's stdout: nothing else may ever be
//! written there, so this firmware never writes to semihosting stdout.
//!
//! A line is made of parts (text, decimal numbers, [`Hex`] addresses) put into a [`Line`] and
//! written with one semihosting call, without `core::fmt` (its machinery costs kilobytes).

/// Logs one line, made of the given parts ([`Part`]s), to the host's stderr through semihosting
/// (`qemu` feature); evaluates nothing without it.
macro_rules! log {
    ($($part:expr),+ $(,)?) => {{
        #[cfg(feature = "qemu")]
        {
            let mut line = $crate::log::Line::new();
            $( $crate::log::Part::put($part, &mut line); )+
            line.write();
        }
        // Without a host the parts are not even evaluated, yet they count as used.
        #[cfg(not(feature = "qemu"))]
        if false {
            let _ = ($($part,)+);
        }
    }};
}

/// Bytes of one log line; a longer line is cut.
#[cfg(feature = "qemu")]
const LINE_BYTES: usize = 160;

/// The host's stderr, opened on the first line.
#[cfg(feature = "qemu")]
static STDERR: critical_section::Mutex<
    core::cell::Cell<Option<cortex_m_semihosting::hio::HostStream>>,
> = critical_section::Mutex::new(core::cell::Cell::new(None));

/// One log line being made.
#[cfg(feature = "qemu")]
pub struct Line {
    bytes: [u8; LINE_BYTES],
    len: usize,
}

#[cfg(feature = "qemu")]
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

    /// Ends the line and writes it to the host's stderr.
    pub fn write(mut self) {
        use cortex_m_semihosting::hio;
        if let Some(end) = self.bytes.get_mut(self.len) {
            *end = b'\n';
            self.len += 1;
        }
        let bytes = self.bytes.get(..self.len).unwrap_or(&[]);
        critical_section::with(|cs| {
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
#[cfg(feature = "qemu")]
pub trait Part {
    /// Appends this part's text to `line`.
    fn put(self, line: &mut Line);
}

#[cfg(feature = "qemu")]
impl Part for &str {
    fn put(self, line: &mut Line) {
        line.push(self.as_bytes());
    }
}

#[cfg(feature = "qemu")]
impl Part for u32 {
    fn put(self, line: &mut Line) {
        // 32-bit division only: Cortex-M0 has no divider, and 64-bit division links a large
        // library routine.
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

#[cfg(feature = "qemu")]
impl Part for usize {
    fn put(self, line: &mut Line) {
        (self as u32).put(line);
    }
}

#[cfg(feature = "qemu")]
impl Part for i16 {
    fn put(self, line: &mut Line) {
        if self < 0 {
            line.push(b"-");
        }
        u32::from(self.unsigned_abs()).put(line);
    }
}

/// A 32-bit value shown as `0x` and eight hex digits (an address).
#[cfg_attr(not(feature = "qemu"), allow(dead_code))] // Shown only when logs go somewhere.
pub struct Hex(pub u32);

#[cfg(feature = "qemu")]
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
