//! The usage texts of `embedded-mcp`, each written once: `embedded-mcp --help`, every command's
//! `--help`, every usage error and `BRIDGE.md` show these (a test checks `BRIDGE.md`).

/// Usage of the device commands (`bridge`, `tools`, `call`).
pub const DEVICE: &str = "\
usage: embedded-mcp bridge DEVICE [--timeout-ms N] [--on-invalid error|warn|pass]
                          [--reconnect-attempts N] [--startup-retry-ms N] [--pages one|device]
                          [-v|-vv]
                          [--http ADDR:PORT [--token-file PATH] [--allowed-origin ORIGIN]...]
       embedded-mcp tools  DEVICE [--protocol VERSION] [--timeout-ms N] [--json] [-v|-vv]
       embedded-mcp call   DEVICE [--protocol VERSION] [--timeout-ms N] [--json] [-v|-vv]
                          TOOL [key=value ...]
       (hub: --device NAME=LINK [--device NAME=LINK ...] in place of DEVICE; tools are
        NAME.tool, and call takes NAME.tool)

DEVICE is one of:
  --serial PATH [--baud N]      a serial port (default 115200 baud, 8N1)
  --unix PATH                   a unix stream socket
  --tcp HOST:PORT               a TCP connection
  --qemu FIRMWARE.elf           run the firmware under QEMU (stopped when we exit)
      [--machine lm3s6965evb|mps2-an386|microbit] [--qemu-serial socket|stdio] [--qemu-bin PROGRAM]
  --command \"PROGRAM ARGS\"      a child process speaking MCP on stdin/stdout
LINK is one of: serial:PATH[@BAUD]  tcp:HOST:PORT  unix:PATH  qemu:FIRMWARE.elf
  (NAME: letters, digits, _ and -)

call: values are JSON when they parse as JSON (42, true, [1], {\"a\":1}, \"quoted\"), else strings.
bridge: an MCP stdio server; stdout carries only MCP messages, logs go to stderr.
  --pages one (default) answers tools/list in one page; device keeps the device's pages.
bridge --http: MCP Streamable HTTP at http://ADDR:PORT/mcp instead (ADDR is 127.0.0.1 unless
  given; 0.0.0.0 listens on every interface); --token-file: clients must send
  Authorization: Bearer <the file's token>; --allowed-origin: a browser origin let in (repeatable).
Exit codes: 0 ok, 1 tool error or invalid result, 2 usage or transport error.";

/// Usage of the schema commands (`schema check|compile|validate|derive`).
pub const SCHEMA: &str = "\
usage: embedded-mcp schema check    SCHEMA.json
       embedded-mcp schema compile  SCHEMA.json -o PROGRAM.bin
       embedded-mcp schema validate SCHEMA.json INSTANCE.json [--engine core|full]
       embedded-mcp schema derive   SOURCE.rs TYPE [--output]

check     does the schema fit the core's dialect? Lists every refused keyword with its pointer.
compile   writes the postcard program for firmware (Program::from_postcard) and prints its size.
validate  exit 0 valid, 1 invalid (reason on stderr), 2 schema refused or file unreadable.
derive    prints the input schema (--output: the output schema) #[derive(McpSchema)] makes for
          TYPE, a struct or enum of SOURCE.rs; nested derived types must be in the same file.";

/// The command list that heads `embedded-mcp --help`.
const COMMANDS: &str = "\
usage: embedded-mcp <command> [options]

commands:
  schema check|compile|validate|derive
                                  the schema dialect tools
  tools                           list a device's tools
  call                            call one tool on a device
  bridge                          MCP stdio server forwarding to a device
  --version                       print the version";

/// `embedded-mcp --help`: the command list, then each group's usage.
pub fn top_level() -> String {
    format!("{COMMANDS}\n\n{DEVICE}\n\n{SCHEMA}")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The synopsis in `BRIDGE.md` is this usage text, verbatim.
    #[test]
    fn bridge_md_shows_the_device_usage() {
        let doc = include_str!("../../BRIDGE.md");
        let block = format!("```text\n{DEVICE}\n```");
        assert!(
            doc.contains(&block),
            "BRIDGE.md must contain the device usage text verbatim:\n{block}"
        );
    }

    /// Every option the parser knows appears in the usage text.
    #[test]
    fn usage_names_every_option() {
        for flag in super::super::device_cmds::FLAGS {
            assert!(DEVICE.contains(flag), "{flag} is missing from the usage");
        }
    }
}
