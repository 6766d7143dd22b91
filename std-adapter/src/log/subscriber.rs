//! The `tracing` subscriber behind [`super::Logger`]: events become lines
//! `PREFIX: TAG: MESSAGE` on one shared writer (stderr, or a test's buffer), filtered by a
//! verbosity (`-v`, `-vv`) or by `RUST_LOG`.
//!
//! An event's `prefix` field heads its line (without one, its target does); its `tag` field, or
//! else its level (`warning`, `info`, `trace`, ...), comes next; other fields follow the message
//! as ` name=value`.

use std::fmt::{self, Write as _};
use std::io::Write;
use std::sync::{Arc, Mutex};

use tracing::field::{Field, Visit};
use tracing::{Dispatch, Event, Level, Subscriber};
use tracing_subscriber::layer::{Context, Layer, SubscriberExt};
use tracing_subscriber::{EnvFilter, Registry};

/// How much to log: 0 warnings and errors, 1 (`-v`) connection events, 2 (`-vv`) every message.
pub type Verbosity = u8;

/// The target of the logger's events: `RUST_LOG=embedded_mcp=info` selects them.
pub const TARGET: &str = "embedded_mcp";

/// The target of notes (lines logged at every verbosity, such as QEMU's own output).
pub const NOTE_TARGET: &str = "embedded_mcp::note";

/// The environment variable whose filter, when set, wins over the verbosity.
pub const FILTER_VARIABLE: &str = "RUST_LOG";

/// The filter a verbosity stands for: 0 warnings and notes, 1 (`-v`) connection events too,
/// 2 (`-vv`) every message. Other crates' events show from warnings up.
pub fn verbosity_filter(level: Verbosity) -> String {
    match level {
        0 => format!("warn,{NOTE_TARGET}=info"),
        1 => format!("warn,{TARGET}=info"),
        _ => format!("warn,{TARGET}=trace"),
    }
}

/// The filter of a command's stderr: `RUST_LOG` when it is set and not empty (invalid
/// directives in it are reported and skipped), else [`verbosity_filter`].
pub fn stderr_filter(level: Verbosity) -> EnvFilter {
    match std::env::var(FILTER_VARIABLE) {
        Ok(text) if !text.trim().is_empty() => EnvFilter::builder().parse_lossy(text),
        _ => EnvFilter::new(verbosity_filter(level)),
    }
}

/// A dispatcher writing the events `filter` lets through as lines to `out`.
pub fn line_dispatch(filter: EnvFilter, out: Box<dyn Write + Send>) -> Dispatch {
    let lines = LineWriter {
        out: Arc::new(Mutex::new(out)),
    };
    Dispatch::new(Registry::default().with(filter).with(lines))
}

/// Writes each event as one line, flushed at once.
struct LineWriter {
    out: Arc<Mutex<Box<dyn Write + Send>>>,
}

impl<S: Subscriber> Layer<S> for LineWriter {
    fn on_event(&self, event: &Event<'_>, _ctx: Context<'_, S>) {
        let mut fields = Fields::default();
        event.record(&mut fields);
        let metadata = event.metadata();
        let head = fields.prefix.as_deref().unwrap_or(metadata.target());
        let tag = fields
            .tag
            .as_deref()
            .unwrap_or_else(|| level_word(*metadata.level()));
        let text = format!("{head}: {tag}: {}{}\n", fields.message, fields.rest);
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

/// How a line names a level.
fn level_word(level: Level) -> &'static str {
    match level {
        Level::ERROR => "error",
        Level::WARN => "warning",
        Level::INFO => "info",
        Level::DEBUG => "debug",
        Level::TRACE => "trace",
    }
}

/// An event's fields, gathered for its line.
#[derive(Default)]
struct Fields {
    message: String,
    prefix: Option<String>,
    tag: Option<String>,
    /// The other fields, each as ` name=value`.
    rest: String,
}

impl Visit for Fields {
    fn record_str(&mut self, field: &Field, value: &str) {
        match field.name() {
            "prefix" => self.prefix = Some(value.to_owned()),
            "tag" => self.tag = Some(value.to_owned()),
            "message" => self.message.push_str(value),
            name => {
                let _ = write!(self.rest, " {name}={value}");
            }
        }
    }

    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        match field.name() {
            "message" => {
                let _ = write!(self.message, "{value:?}");
            }
            name => {
                let _ = write!(self.rest, " {name}={value:?}");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

    impl Buffer {
        fn text(&self) -> String {
            String::from_utf8_lossy(&self.0.lock().unwrap()).into_owned()
        }
    }

    #[test]
    fn events_become_lines_with_prefix_tag_and_fields() {
        let out = Buffer::default();
        let dispatch = line_dispatch(EnvFilter::new("trace"), Box::new(out.clone()));
        tracing::dispatcher::with_default(&dispatch, || {
            tracing::warn!(target: TARGET, prefix = "embedded-mcp bridge", "device gone");
            tracing::info!(target: NOTE_TARGET, prefix = "p", tag = "qemu", "booted");
            tracing::debug!(target: "other", attempt = 3, text = "x", "retry");
        });
        assert_eq!(
            out.text(),
            "embedded-mcp bridge: warning: device gone\np: qemu: booted\nother: debug: retry attempt=3 text=x\n"
        );
    }

    #[test]
    fn each_verbosity_lets_its_events_through() {
        let seen = |level: Verbosity| {
            let out = Buffer::default();
            let filter = EnvFilter::new(verbosity_filter(level));
            let dispatch = line_dispatch(filter, Box::new(out.clone()));
            tracing::dispatcher::with_default(&dispatch, || {
                tracing::warn!(target: TARGET, "w");
                tracing::info!(target: NOTE_TARGET, tag = "note", "n");
                tracing::info!(target: TARGET, "i");
                tracing::trace!(target: TARGET, "t");
                tracing::info!(target: "other", "o");
            });
            out.text()
        };
        let w = "embedded_mcp: warning: w\n";
        let n = "embedded_mcp::note: note: n\n";
        let i = "embedded_mcp: info: i\n";
        let t = "embedded_mcp: trace: t\n";
        assert_eq!(seen(0), format!("{w}{n}"));
        assert_eq!(seen(1), format!("{w}{n}{i}"));
        assert_eq!(seen(2), format!("{w}{n}{i}{t}"));
    }
}
