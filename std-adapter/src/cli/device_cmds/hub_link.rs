//! A hub's devices: `--device NAME=LINK` (repeatable), parsed and checked together.
//!
//! LINK is `serial:PATH[@BAUD]`, `tcp:HOST:PORT`, `unix:PATH`, `qemu:FIRMWARE.elf` or a remote
//! gateway's `http(s)://HOST:PORT/PATH[#token-file=PATH&ca-file=PATH]`. NAME
//! becomes the prefix of the device's tools (`NAME.tool`), so it is made of the characters a
//! tool name may hold, without the `.` that separates it: letters, digits, `_` and `-`.

use std::path::PathBuf;

use super::usage_error::UsageError;
use crate::bridge::HubDevice;
use crate::device::{Endpoint, QemuConfig, RemoteConfig, DEFAULT_BAUD};

/// Parses one `--device` value (clap's value parser: the error says what is wrong with it).
pub(super) fn parse_device(text: &str) -> Result<HubDevice, String> {
    let bad = |why: &str| why.to_owned();
    let (name, link) = text.split_once('=').ok_or_else(|| bad("use NAME=LINK"))?;
    let name_ok = !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if !name_ok {
        return Err(bad(
            "NAME must be 1 to 64 letters, digits, `_` or `-` (it prefixes tool names)",
        ));
    }
    if link.starts_with("http://") || link.starts_with("https://") {
        return Ok(HubDevice {
            name: name.to_owned(),
            endpoint: Endpoint::Remote(RemoteConfig::parse(link)?),
        });
    }
    let (kind, rest) = link.split_once(':').ok_or_else(|| {
        bad("LINK is serial:PATH[@BAUD], tcp:HOST:PORT, unix:PATH, qemu:FIRMWARE.elf or http(s)://HOST:PORT/PATH")
    })?;
    if rest.is_empty() {
        return Err(bad("the link has no address"));
    }
    let endpoint = match kind {
        "serial" => match rest.rsplit_once('@') {
            Some((path, baud)) => Endpoint::Serial {
                path: PathBuf::from(path),
                baud: baud
                    .parse()
                    .map_err(|_| bad("the baud rate is not a number"))?,
            },
            None => Endpoint::Serial {
                path: PathBuf::from(rest),
                baud: DEFAULT_BAUD,
            },
        },
        "tcp" => Endpoint::Tcp(rest.to_owned()),
        "unix" => Endpoint::Unix(PathBuf::from(rest)),
        "qemu" => Endpoint::Qemu(QemuConfig::new(rest)),
        _ => return Err(bad("LINK starts with serial:, tcp:, unix: or qemu:")),
    };
    Ok(HubDevice {
        name: name.to_owned(),
        endpoint,
    })
}

/// Checks the devices together: no two have the same NAME.
pub(super) fn check_names(devices: &[HubDevice]) -> Result<(), UsageError> {
    for (n, d) in devices.iter().enumerate() {
        if devices.iter().take(n).any(|e| e.name == d.name) {
            return Err(UsageError::SameName(d.name.clone()));
        }
    }
    Ok(())
}

/// `call NAME.tool`: the device named NAME and the tool's own name.
pub(super) fn split_tool<'a>(
    devices: &'a [HubDevice],
    tool: &'a str,
) -> Result<(&'a HubDevice, &'a str), UsageError> {
    tool.split_once('.')
        .and_then(|(name, rest)| Some((devices.iter().find(|d| d.name == name)?, rest)))
        .ok_or_else(|| UsageError::ToolWithoutDevice(tool.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn device_links() {
        let d = parse_device("m1=serial:/dev/ttyACM0@9600").unwrap();
        assert_eq!(
            (d.name.as_str(), d.endpoint),
            (
                "m1",
                Endpoint::Serial {
                    path: "/dev/ttyACM0".into(),
                    baud: 9600
                }
            )
        );
        assert_eq!(
            parse_device("b=tcp:127.0.0.1:7000").unwrap().endpoint,
            Endpoint::Tcp("127.0.0.1:7000".into())
        );
        assert_eq!(
            parse_device("lab=https://pi:8443/mcp#token-file=/t")
                .unwrap()
                .endpoint,
            Endpoint::Remote(RemoteConfig::parse("https://pi:8443/mcp#token-file=/t").unwrap())
        );
        assert!(parse_device("lab=http://pi:8080/mcp#nope=1").is_err());
        assert!(parse_device("a.b=unix:/x").is_err());
        assert!(parse_device("a b=unix:/x").is_err());
        assert!(parse_device("=unix:/x").is_err());
        assert!(parse_device("a=ftp:/x").is_err());
        assert!(parse_device("a=unix:").is_err());
        let two = [
            parse_device("a=unix:/x").unwrap(),
            parse_device("a=unix:/y").unwrap(),
        ];
        assert!(check_names(&two).is_err());
        assert!(check_names(&two[..1]).is_ok());
        assert_eq!(split_tool(&two[..1], "a.read").unwrap().1, "read");
        assert!(split_tool(&two[..1], "b.read").is_err());
        assert!(split_tool(&two[..1], "read").is_err());
    }
}
