//! Diagnostics of the device tools and the bridge: `tracing` events, written as lines on stderr
//! (or any writer), never on stdout.

use std::io::Write;
use std::sync::Arc;

use tracing::Dispatch;

pub mod subscriber;

pub use subscriber::Verbosity;
use subscriber::{NOTE_TARGET, TARGET};

/// A cheap, clonable logger: each line is a `tracing` event (target `embedded_mcp`, the prefix
/// in its `prefix` field) sent to the logger's own dispatcher, which writes it to one shared
/// writer as `PREFIX: TAG: MESSAGE`.
///
/// The bridge's stdout carries only MCP messages, so everything else goes through this.
#[derive(Clone)]
pub struct Logger {
    prefix: Arc<str>,
    dispatch: Dispatch,
    /// What the dispatcher lets through, asked once (its filter does not change).
    shown: Shown,
}

/// Which of the logger's events its dispatcher writes.
#[derive(Clone, Copy, Debug)]
struct Shown {
    warn: bool,
    info: bool,
    trace: bool,
    note: bool,
}

impl Logger {
    /// A logger writing to stderr at `level`; when `RUST_LOG` is set (and not empty) its filter
    /// decides instead.
    pub fn stderr(level: Verbosity, prefix: &str) -> Self {
        let filter = subscriber::stderr_filter(level);
        let dispatch = subscriber::line_dispatch(filter, Box::new(std::io::stderr()));
        Self::with_dispatch(prefix, dispatch)
    }

    /// A logger writing to `out` at `level`, whatever `RUST_LOG` says (tests capture logs this
    /// way).
    pub fn to_writer(level: Verbosity, prefix: &str, out: Box<dyn Write + Send>) -> Self {
        let filter = tracing_subscriber::EnvFilter::new(subscriber::verbosity_filter(level));
        Self::with_dispatch(prefix, subscriber::line_dispatch(filter, out))
    }

    /// A logger sending its events to `dispatch` under `prefix`.
    pub fn with_dispatch(prefix: &str, dispatch: Dispatch) -> Self {
        let shown = tracing::dispatcher::with_default(&dispatch, || Shown {
            warn: tracing::enabled!(target: TARGET, tracing::Level::WARN),
            info: tracing::enabled!(target: TARGET, tracing::Level::INFO),
            trace: tracing::enabled!(target: TARGET, tracing::Level::TRACE),
            note: tracing::enabled!(target: NOTE_TARGET, tracing::Level::INFO),
        });
        Self {
            prefix: Arc::from(prefix),
            dispatch,
            shown,
        }
    }

    /// The same logger (filter and writer) under `prefix + ": " + name` (a hub's device).
    pub fn named(&self, name: &str) -> Self {
        Self {
            prefix: Arc::from(format!("{}: {name}", self.prefix)),
            dispatch: self.dispatch.clone(),
            shown: self.shown,
        }
    }

    /// The verbosity in force: 2 when trace lines are written, 1 when info lines are, else 0.
    pub fn level(&self) -> Verbosity {
        match self.shown {
            Shown { trace: true, .. } => 2,
            Shown { info: true, .. } => 1,
            _ => 0,
        }
    }

    /// Logged at every verbosity: something went wrong or was dropped.
    pub fn warn(&self, msg: std::fmt::Arguments<'_>) {
        if self.shown.warn {
            let prefix = &*self.prefix;
            self.emit(|| tracing::warn!(target: TARGET, prefix, "{msg}"));
        }
    }

    /// Logged with `-v`: connection and session events.
    pub fn info(&self, msg: std::fmt::Arguments<'_>) {
        if self.shown.info {
            let prefix = &*self.prefix;
            self.emit(|| tracing::info!(target: TARGET, prefix, "{msg}"));
        }
    }

    /// Logged with `-vv`: every message that passes.
    pub fn trace(&self, msg: std::fmt::Arguments<'_>) {
        if self.shown.trace {
            let prefix = &*self.prefix;
            self.emit(|| tracing::trace!(target: TARGET, prefix, "{msg}"));
        }
    }

    /// True when [`Logger::trace`] lines are written (to skip formatting work otherwise).
    pub fn tracing(&self) -> bool {
        self.shown.trace
    }

    /// Logged at every verbosity, under a tag of its own (QEMU's stdout lines, for example).
    pub fn note(&self, tag: &str, msg: std::fmt::Arguments<'_>) {
        if self.shown.note {
            let prefix = &*self.prefix;
            self.emit(|| tracing::info!(target: NOTE_TARGET, prefix, tag, "{msg}"));
        }
    }

    fn emit(&self, event: impl FnOnce()) {
        tracing::dispatcher::with_default(&self.dispatch, event);
    }
}

impl std::fmt::Debug for Logger {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Logger")
            .field("prefix", &self.prefix)
            .field("level", &self.level())
            .finish_non_exhaustive()
    }
}

/// Shows at most `max` bytes of a line for a log message, lossily decoded, control characters
/// escaped (a device's garbage must not drive the terminal).
pub fn preview(line: &[u8], max: usize) -> String {
    let shown = line.get(..max.min(line.len())).unwrap_or(line);
    let mut text: String = String::from_utf8_lossy(shown)
        .chars()
        .flat_map(|c| {
            let escaped: Vec<char> = if c.is_control() {
                c.escape_unicode().collect()
            } else {
                vec![c]
            };
            escaped
        })
        .collect();
    if line.len() > max {
        text.push_str(&format!("... ({} bytes)", line.len()));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    #[derive(Clone, Default)]
    struct Buffer(Arc<Mutex<Vec<u8>>>);

    impl Write for Buffer {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0
                .lock()
                .map_err(|_| std::io::ErrorKind::Other)?
                .extend_from_slice(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// What a logger at `level` writes for one line of each kind, and its level and tracing().
    fn written(level: Verbosity) -> (String, Verbosity, bool) {
        let out = Buffer::default();
        let log = Logger::to_writer(level, "embedded-mcp bridge", Box::new(out.clone()));
        let device = log.named("m1");
        log.warn(format_args!("w {}", 1));
        log.info(format_args!("i"));
        log.trace(format_args!("t"));
        device.note("qemu", format_args!("n"));
        device.info(format_args!("device i"));
        let text = String::from_utf8_lossy(&out.0.lock().unwrap()).into_owned();
        (text, log.level(), log.tracing())
    }

    #[test]
    fn each_level_writes_its_lines_in_the_old_format() {
        let w = "embedded-mcp bridge: warning: w 1\n";
        let i = "embedded-mcp bridge: info: i\n";
        let t = "embedded-mcp bridge: trace: t\n";
        let n = "embedded-mcp bridge: m1: qemu: n\n";
        let d = "embedded-mcp bridge: m1: info: device i\n";
        assert_eq!(written(0), (format!("{w}{n}"), 0, false));
        assert_eq!(written(1), (format!("{w}{i}{n}{d}"), 1, false));
        assert_eq!(written(2), (format!("{w}{i}{t}{n}{d}"), 2, true));
    }

    #[test]
    fn preview_escapes_and_cuts() {
        assert_eq!(preview(b"ok\x1b[2J", 10), "ok\\u{1b}[2J");
        assert_eq!(preview(b"abcdef", 3), "abc... (6 bytes)");
    }
}
