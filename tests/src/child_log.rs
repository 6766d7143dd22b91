//! A child process's standard error (a bridge under test), collected on a thread so a test can
//! read it while the child runs, and the port its `listening:` line names.

use std::io::Read;
use std::process::Child;
use std::sync::{Arc, Mutex};

/// What the front logs once it accepts (`listening: http://ADDR:PORT/mcp`).
const LISTENING: &str = "listening: http://";

/// Takes `child`'s standard error (piped) and appends everything it writes to the returned text,
/// on a thread that ends with the pipe.
///
/// # Panics
/// If the child's standard error was not piped.
pub fn collect_stderr(child: &mut Child) -> Arc<Mutex<String>> {
    let mut pipe = child.stderr.take().expect("the child's stderr is piped");
    let text = Arc::new(Mutex::new(String::new()));
    let copy = Arc::clone(&text);
    std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while let Ok(n) = pipe.read(&mut buf) {
            if n == 0 {
                return;
            }
            let chunk = String::from_utf8_lossy(&buf[..n]).into_owned();
            copy.lock()
                .unwrap_or_else(|e| e.into_inner())
                .push_str(&chunk);
        }
    });
    text
}

/// The port of the first `listening: http://ADDR:PORT/...` in `log`, once the port's digits are
/// all there (a character follows them).
pub fn listening_port(log: &str) -> Option<u16> {
    let rest = &log[log.find(LISTENING)? + LISTENING.len()..];
    // The address may be `[::1]`: the port follows the last `:` before the path.
    let authority = &rest[..rest.find('/')?];
    let digits = &authority[authority.rfind(':')? + 1..];
    digits.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::listening_port;

    #[test]
    fn the_port_is_read_once_its_line_is_complete() {
        assert_eq!(listening_port("x\nlistening: http://127.0.0.1:4"), None);
        assert_eq!(
            listening_port("listening: http://127.0.0.1:4711/mcp\n"),
            Some(4711)
        );
        assert_eq!(listening_port("listening: http://[::1]:80/mcp"), Some(80));
        assert_eq!(listening_port("nothing yet"), None);
    }
}
