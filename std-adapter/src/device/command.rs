//! Links to a child process speaking MCP on its stdin and stdout (`--command`, and QEMU with
//! `-serial stdio`).

use std::process::{Command, Stdio};

use super::{ChildGuard, CloseAction, Closer, DeviceError, OpenStreams, Streams};

/// Starts `argv` (program and arguments) with its stdin and stdout as the link.
pub fn open(argv: &[String]) -> Result<OpenStreams, DeviceError> {
    let (program, args) = argv
        .split_first()
        .ok_or_else(|| DeviceError::Config("--command needs a program".into()))?;
    let mut cmd = Command::new(program);
    cmd.args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    stdio_child(cmd, &format!("`{}`", argv.join(" ")))
}

/// Starts `cmd` (stdin and stdout piped) and makes its stdio the link's streams.
pub(super) fn stdio_child(mut cmd: Command, what: &str) -> Result<OpenStreams, DeviceError> {
    let guard =
        ChildGuard::spawn(&mut cmd).map_err(|e| DeviceError::io(format!("starting {what}"), e))?;
    let (stdin, stdout, _) = guard.take_stdio();
    let (Some(stdin), Some(stdout)) = (stdin, stdout) else {
        return Err(DeviceError::Config(format!("{what}: stdio not piped")));
    };
    let mut closer = Closer::default();
    closer.push(CloseAction::Child(guard));
    Ok(OpenStreams {
        streams: Streams::Pipes { stdin, stdout },
        closer,
    })
}

/// Splits a `--command` string into program and arguments: whitespace separates words, single
/// and double quotes group, a backslash escapes the next character (outside single quotes).
pub fn split_command_line(line: &str) -> Result<Vec<String>, DeviceError> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut quote: Option<char> = None;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some('\''), '\'') | (Some('"'), '"') => quote = None,
            (Some('\''), c) => word.push(c),
            (_, '\\') => {
                let next = chars
                    .next()
                    .ok_or_else(|| DeviceError::Config("--command ends with a backslash".into()))?;
                word.push(next);
                in_word = true;
            }
            (Some(_), c) => word.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                in_word = true;
            }
            (None, c) if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            (None, c) => {
                word.push(c);
                in_word = true;
            }
        }
    }
    if quote.is_some() {
        return Err(DeviceError::Config(
            "--command has an unclosed quote".into(),
        ));
    }
    if in_word {
        words.push(word);
    }
    if words.is_empty() {
        return Err(DeviceError::Config("--command is empty".into()));
    }
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_lines_split_like_a_shell() {
        assert_eq!(
            split_command_line(r#"prog -a 'b c' "d \"e\"" f\ g"#).unwrap(),
            vec!["prog", "-a", "b c", "d \"e\"", "f g"]
        );
        assert_eq!(split_command_line("  x  ''  ").unwrap(), vec!["x", ""]);
        assert!(split_command_line("a 'b").is_err());
        assert!(split_command_line("   ").is_err());
    }
}
