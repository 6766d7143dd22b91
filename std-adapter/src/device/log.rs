//! Diagnostics of the device tools: leveled lines on stderr (or any writer), never on stdout.

use std::io::Write;
use std::sync::{Arc, Mutex};

/// How much to log: 0 warnings and errors, 1 (`-v`) connection events, 2 (`-vv`) every message.
pub type Verbosity = u8;

/// A cheap, clonable logger writing whole lines to one shared writer.
///
/// The bridge's stdout carries only MCP messages, so everything else goes through this.
#[derive(Clone)]
pub struct Logger {
    level: Verbosity,
    prefix: Arc<str>,
    out: Arc<Mutex<Box<dyn Write + Send>>>,
}

impl Logger {
    /// A logger writing to stderr.
    pub fn stderr(level: Verbosity, prefix: &str) -> Self {
        Self::to_writer(level, prefix, Box::new(std::io::stderr()))
    }

    /// A logger writing to `out` (tests capture logs this way).
    pub fn to_writer(level: Verbosity, prefix: &str, out: Box<dyn Write + Send>) -> Self {
        Self {
            level,
            prefix: Arc::from(prefix),
            out: Arc::new(Mutex::new(out)),
        }
    }

    /// The same logger (level and writer) under `prefix + ": " + name` (a hub's device).
    pub fn named(&self, name: &str) -> Self {
        Self {
            level: self.level,
            prefix: Arc::from(format!("{}: {name}", self.prefix)),
            out: Arc::clone(&self.out),
        }
    }

    /// The configured verbosity.
    pub fn level(&self) -> Verbosity {
        self.level
    }

    /// Always logged: something went wrong or was dropped.
    pub fn warn(&self, msg: std::fmt::Arguments<'_>) {
        self.line("warning", msg);
    }

    /// Logged with `-v`: connection and session events.
    pub fn info(&self, msg: std::fmt::Arguments<'_>) {
        if self.level >= 1 {
            self.line("info", msg);
        }
    }

    /// Logged with `-vv`: every message that passes.
    pub fn trace(&self, msg: std::fmt::Arguments<'_>) {
        if self.level >= 2 {
            self.line("trace", msg);
        }
    }

    /// True when [`Logger::trace`] lines are written (to skip formatting work otherwise).
    pub fn tracing(&self) -> bool {
        self.level >= 2
    }

    /// Always logged, under a tag of its own (QEMU's stdout lines, for example).
    pub fn note(&self, tag: &str, msg: std::fmt::Arguments<'_>) {
        self.line(tag, msg);
    }

    fn line(&self, tag: &str, msg: std::fmt::Arguments<'_>) {
        let text = format!("{}: {tag}: {msg}\n", self.prefix);
        // A poisoned lock only means another thread panicked mid-line; logging goes on.
        let mut out = match self.out.lock() {
            Ok(out) => out,
            Err(poisoned) => poisoned.into_inner(),
        };
        // Diagnostics must never take the bridge down: write errors are ignored.
        let _ = out.write_all(text.as_bytes());
        let _ = out.flush();
    }
}

impl std::fmt::Debug for Logger {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Logger")
            .field("level", &self.level)
            .field("prefix", &self.prefix)
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
