//! The hub's options: `--device NAME=LINK` (repeatable) and `--pages one|device`.
//!
//! LINK is `serial:PATH[@BAUD]`, `tcp:HOST:PORT`, `unix:PATH` or `qemu:FIRMWARE.elf`. NAME
//! becomes the prefix of the device's tools (`NAME.tool`), so it is made of the characters a
//! tool name may hold, without the `.` that separates it: letters, digits, `_` and `-`.

use std::path::PathBuf;

use super::options::OptionError;
use crate::bridge::{HubDevice, Pages};
use crate::device::{Endpoint, QemuConfig, DEFAULT_BAUD};

/// Parses one `--device` value.
pub(super) fn parse_device(text: &str) -> Result<HubDevice, OptionError> {
    let bad = |why: &str| OptionError::BadDevice {
        text: text.to_owned(),
        why: why.to_owned(),
    };
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
    let (kind, rest) = link.split_once(':').ok_or_else(|| {
        bad("LINK is serial:PATH[@BAUD], tcp:HOST:PORT, unix:PATH or qemu:FIRMWARE.elf")
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

/// Parses `--pages`.
pub(super) fn parse_pages(text: &str) -> Result<Pages, OptionError> {
    match text {
        "one" => Ok(Pages::One),
        "device" => Ok(Pages::Device),
        other => Err(OptionError::BadChoice {
            flag: "--pages",
            value: other.to_owned(),
            choices: "one or device",
        }),
    }
}

/// Checks the devices together: names are unique, and no single-device option is mixed in.
pub(super) fn check_devices(
    devices: &[HubDevice],
    single: bool,
    pages: Option<Pages>,
) -> Result<(), OptionError> {
    if devices.is_empty() {
        return Ok(());
    }
    if single {
        return Err(OptionError::DeviceAndSingle);
    }
    if pages == Some(Pages::Device) {
        return Err(OptionError::PagesWithHub);
    }
    for (n, d) in devices.iter().enumerate() {
        if devices.iter().take(n).any(|e| e.name == d.name) {
            return Err(OptionError::BadDevice {
                text: d.name.clone(),
                why: "two devices have this NAME".into(),
            });
        }
    }
    Ok(())
}

/// `call NAME.tool`: the device named NAME and the tool's own name.
pub(super) fn split_tool<'a>(
    devices: &'a [HubDevice],
    tool: &'a str,
) -> Result<(&'a HubDevice, &'a str), OptionError> {
    tool.split_once('.')
        .and_then(|(name, rest)| Some((devices.iter().find(|d| d.name == name)?, rest)))
        .ok_or_else(|| OptionError::BadDevice {
            text: tool.to_owned(),
            why: "with --device, name the tool NAME.tool (NAME one of the devices)".into(),
        })
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
        assert!(parse_device("a.b=unix:/x").is_err());
        assert!(parse_device("a b=unix:/x").is_err());
        assert!(parse_device("=unix:/x").is_err());
        assert!(parse_device("a=ftp:/x").is_err());
        assert!(parse_device("a=unix:").is_err());
        let two = [
            parse_device("a=unix:/x").unwrap(),
            parse_device("a=unix:/y").unwrap(),
        ];
        assert!(check_devices(&two, false, None).is_err());
    }
}
