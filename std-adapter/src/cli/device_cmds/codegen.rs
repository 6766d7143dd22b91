//! `embedded-mcp codegen`: typed functions for a device's tools (the generator is
//! [`crate::codegen`]; the mapping is documented in `std-adapter/CODEGEN.md`).

use std::path::{Path, PathBuf};

use clap::builder::{PossibleValuesParser, TypedValueParser};
use clap::Args;
use serde_json::Value;

use super::args::{ClientArgs, DeviceArgs};
use super::connect::{connect, transport_error};
use super::exit_code::{FAILURE, OK};
use super::hub_link;
use super::usage_error::UsageError;
use crate::codegen::{generate, Lang, Options};
use crate::device::client::{Client, DEFAULT_PROTOCOL};

/// Notes after `codegen --help`.
const NOTES: &str = "\
TOOLS.json holds a tools/list result ({\"tools\": [...]}), a list of them, or a list of tools
(what `embedded-mcp tools --json` prints). --protocol names the revision the file was listed at.
LINK is serial:PATH[@BAUD], tcp:HOST:PORT, unix:PATH or qemu:FIRMWARE.elf; with --device the
tools are NAME.tool. The module needs: ts, ajv 8; python (3.11+), jsonschema; rust, serde,
serde_json and embedded-mcp-std. Mapping and examples: std-adapter/CODEGEN.md.
Example: embedded-mcp codegen --lang python --qemu qemu-sensors.elf -o tools.py
Exit codes: 0 ok, 2 usage, input or transport error.";

/// `embedded-mcp codegen`: typed functions for a device's tools.
#[derive(Args, Debug, Clone)]
#[command(
    override_usage = "embedded-mcp codegen --lang ts|python|rust (--from TOOLS.json | DEVICE) [OPTIONS]",
    after_help = NOTES
)]
pub struct CodegenArgs {
    /// The module's language
    #[arg(long, value_name = "ts|python|rust", hide_possible_values = true, value_parser = lang())]
    pub lang: Lang,
    /// The tools from a file instead of a device
    #[arg(long, value_name = "TOOLS.json", group = "DEVICE")]
    pub from: Option<PathBuf>,
    /// The device.
    #[command(flatten)]
    pub device: DeviceArgs,
    /// MCP revision (--from: the file's)
    #[arg(long, value_name = "VERSION", default_value = DEFAULT_PROTOCOL, help_heading = None)]
    pub protocol: String,
    /// Write the module to PATH instead of stdout
    #[arg(short = 'o', long = "output", value_name = "PATH", help_heading = None)]
    pub output: Option<PathBuf>,
}

fn lang() -> impl TypedValueParser<Value = Lang> {
    PossibleValuesParser::new(["ts", "typescript", "python", "py", "rust", "rs"])
        .try_map(|name| Lang::from_name(&name).ok_or("not a language"))
}

/// `embedded-mcp codegen ...`: writes the module; returns the exit code.
pub fn codegen_main(args: &CodegenArgs) -> Result<i32, UsageError> {
    let listed = match &args.from {
        Some(path) => read_listing(path),
        None => match args.device.endpoint() {
            Some(endpoint) => {
                let client = ClientArgs {
                    protocol: args.protocol.clone(),
                    json: false,
                };
                match connect("codegen", &endpoint, &args.device, &client) {
                    Ok(client) => list(client),
                    Err(code) => return Ok(code),
                }
            }
            None => {
                hub_link::check_names(&args.device.link.devices)?;
                list_hub(args)
            }
        },
    };
    let (listing, server_info) = match listed {
        Ok(listed) => listed,
        Err(code) => return Ok(code),
    };
    let options = Options {
        revision: args.protocol.clone(),
        server_info,
    };
    let module = match generate(args.lang, &listing, &options) {
        Ok(module) => module,
        Err(e) => {
            eprintln!("embedded-mcp codegen: {e}");
            return Ok(FAILURE);
        }
    };
    match &args.output {
        Some(path) => {
            if let Err(e) = std::fs::write(path, module) {
                eprintln!("embedded-mcp codegen: {}: {e}", path.display());
                return Ok(FAILURE);
            }
        }
        None => print!("{module}"),
    }
    Ok(OK)
}

/// A listing and the device's `serverInfo`, or the exit code (the reason printed).
type Listed = Result<(Value, Option<Value>), i32>;

fn read_listing(path: &Path) -> Listed {
    let parsed = std::fs::read_to_string(path)
        .map_err(|e| e.to_string())
        .and_then(|text| serde_json::from_str(&text).map_err(|e| e.to_string()));
    parsed.map(|listing| (listing, None)).map_err(|e| {
        eprintln!("embedded-mcp codegen: {}: {e}", path.display());
        FAILURE
    })
}

/// The tools of one device and its `serverInfo`.
fn list(mut client: Client) -> Listed {
    let tools = client
        .list_tools()
        .map_err(|e| transport_error("codegen", &e))?;
    let info = client.server.get("serverInfo").cloned().or_else(|| {
        let key = embedded_mcp::protocol::SERVER_INFO_KEY;
        client
            .server
            .pointer("/_meta")
            .and_then(|m| m.get(key))
            .cloned()
    });
    client.close();
    Ok((Value::Array(tools), info))
}

/// The tools of every `--device`, named `NAME.tool` as the hub names them.
fn list_hub(args: &CodegenArgs) -> Listed {
    let client_args = ClientArgs {
        protocol: args.protocol.clone(),
        json: false,
    };
    let mut all = Vec::new();
    for device in &args.device.link.devices {
        let client = connect("codegen", &device.endpoint, &args.device, &client_args)?;
        let (tools, _) = list(client)?;
        for mut tool in tools.as_array().cloned().unwrap_or_default() {
            let name = tool.get("name").and_then(Value::as_str).unwrap_or_default();
            let name = format!("{}.{name}", device.name);
            if let Some(object) = tool.as_object_mut() {
                object.insert("name".into(), Value::String(name));
            }
            all.push(tool);
        }
    }
    Ok((Value::Array(all), None))
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use crate::cli::Cli;

    /// `CODEGEN.md` shows clap's help of `codegen` verbatim.
    #[test]
    fn codegen_md_shows_the_help() {
        let mut cli = Cli::command();
        cli.build();
        let help = cli
            .find_subcommand_mut("codegen")
            .map(|c| c.render_help().to_string())
            .unwrap_or_default();
        let block = format!("```text\n$ embedded-mcp codegen --help\n{help}```");
        let doc = include_str!("../../../CODEGEN.md");
        assert!(doc.contains(&block), "CODEGEN.md must contain:\n{block}");
    }
}
