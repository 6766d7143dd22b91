//! The options of the device commands, parsed into [`Options`] or refused with an
//! [`OptionError`].

use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use super::hub_options;
use crate::bridge::{HubDevice, OnInvalid, Pages};
use crate::device::client::DEFAULT_PROTOCOL;
use crate::device::{
    split_command_line, DeviceError, Endpoint, Machine, QemuConfig, QemuWiring, DEFAULT_BAUD,
};

/// Every option the parser accepts and the usage text documents (`--verbose` is an alias of `-v`).
#[cfg(test)]
pub(crate) const FLAGS: [&str; 23] = [
    "--serial",
    "--baud",
    "--unix",
    "--tcp",
    "--qemu",
    "--machine",
    "--qemu-serial",
    "--qemu-bin",
    "--command",
    "--timeout-ms",
    "--on-invalid",
    "--reconnect-attempts",
    "--startup-retry-ms",
    "--protocol",
    "--device",
    "--pages",
    "--json",
    "-v",
    "-vv",
    "TOOL [key=value ...]",
    // The HTTP front of `bridge`.
    "--http",
    "--token-file",
    "--allowed-origin",
];

/// Why the command line of a device command was refused.
#[derive(Debug)]
#[non_exhaustive]
pub enum OptionError {
    /// An option that takes a value came last.
    MissingValue {
        /// The option.
        flag: String,
    },
    /// A numeric option's value is not a number.
    NotANumber {
        /// The option.
        flag: String,
        /// Its value.
        text: String,
    },
    /// An option's value is not one of its choices.
    BadChoice {
        /// The option.
        flag: &'static str,
        /// Its value.
        value: String,
        /// The choices, as the message lists them.
        choices: &'static str,
    },
    /// An option the commands do not know.
    Unknown(String),
    /// More than one device option.
    SeveralDevices,
    /// No device option.
    NoDevice,
    /// `--baud` without `--serial`.
    BaudWithoutSerial,
    /// `--machine`, `--qemu-serial` or `--qemu-bin` without `--qemu`.
    QemuOptionsWithoutQemu,
    /// `--command` could not be split into words.
    Command(DeviceError),
    /// A positional argument the command does not take.
    Unexpected(String),
    /// `call` without a tool name.
    NoTool,
    /// A `call` argument that is not `key=value`.
    NotKeyValue(String),
    /// A `call` argument with an empty key.
    EmptyKey(String),
    /// A `--device NAME=LINK` that cannot be used (or a `call` tool without a device prefix).
    BadDevice {
        /// The value.
        text: String,
        /// What is wrong with it.
        why: String,
    },
    /// `--device` together with a single-device option.
    DeviceAndSingle,
    /// `--pages device` with `--device` (a hub answers in one page).
    PagesWithHub,
}

impl fmt::Display for OptionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::MissingValue { flag } => write!(f, "{flag} needs a value"),
            Self::NotANumber { flag, text } => write!(f, "{flag} {text}: not a valid number"),
            Self::BadChoice {
                flag,
                value,
                choices,
            } => write!(f, "{flag} {value}: use {choices}"),
            Self::Unknown(flag) => write!(f, "unknown option {flag}"),
            Self::SeveralDevices => {
                f.write_str("give exactly one of --serial, --unix, --tcp, --qemu, --command")
            }
            Self::NoDevice => f.write_str(
                "say where the device is (--serial, --unix, --tcp, --qemu or --command)",
            ),
            Self::BaudWithoutSerial => f.write_str("--baud goes with --serial"),
            Self::QemuOptionsWithoutQemu => {
                f.write_str("--machine, --qemu-serial and --qemu-bin go with --qemu")
            }
            Self::Command(e) => write!(f, "{e}"),
            Self::Unexpected(arg) => write!(f, "unexpected argument {arg:?}"),
            Self::NoTool => {
                f.write_str("which tool? (embedded-mcp call DEVICE TOOL key=value ...)")
            }
            Self::NotKeyValue(pair) => write!(f, "argument {pair:?} is not key=value"),
            Self::EmptyKey(pair) => write!(f, "argument {pair:?} has an empty key"),
            Self::BadDevice { text, why } => write!(f, "--device {text}: {why}"),
            Self::DeviceAndSingle => {
                f.write_str("--device goes without --serial, --unix, --tcp, --qemu and --command")
            }
            Self::PagesWithHub => {
                f.write_str("--pages device is for one device; a hub answers in one page")
            }
        }
    }
}

impl std::error::Error for OptionError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Command(e) => Some(e),
            _ => None,
        }
    }
}

/// The options of `bridge --http`.
#[derive(Debug, Default)]
pub(super) struct HttpOptions {
    /// `--http ADDR:PORT`, as given.
    pub(super) bind: Option<String>,
    /// `--token-file PATH`.
    pub(super) token_file: Option<PathBuf>,
    /// Every `--allowed-origin ORIGIN`.
    pub(super) allowed_origins: Vec<String>,
}

/// Options shared by the three commands.
#[derive(Debug)]
pub(super) struct Options {
    pub(super) endpoint: Option<Endpoint>,
    pub(super) timeout: Duration,
    pub(super) verbosity: u8,
    pub(super) json: bool,
    pub(super) protocol: String,
    pub(super) on_invalid: OnInvalid,
    pub(super) reconnect_attempts: Option<u32>,
    pub(super) startup_retry: Option<Duration>,
    /// `-h` or `--help`: print the usage and do nothing else.
    pub(super) help: bool,
    /// `--device NAME=LINK`, in order (hub).
    pub(super) devices: Vec<HubDevice>,
    /// `--pages`.
    pub(super) pages: Option<Pages>,
    /// The HTTP front of `bridge` (`--http`, `--token-file`, `--allowed-origin`).
    pub(super) http: HttpOptions,
    pub(super) positional: Vec<String>,
}

impl Options {
    /// The device, or [`OptionError::NoDevice`].
    pub(super) fn endpoint(&self) -> Result<Endpoint, OptionError> {
        self.endpoint.clone().ok_or(OptionError::NoDevice)
    }

    /// Refuses positional arguments (`bridge` and `tools` take none).
    pub(super) fn no_positional(&self) -> Result<(), OptionError> {
        match self.positional.first() {
            Some(extra) => Err(OptionError::Unexpected(extra.clone())),
            None => Ok(()),
        }
    }
}

/// Parses `args`; `Err` says what is wrong with them.
pub(super) fn parse(args: &[String]) -> Result<Options, OptionError> {
    let mut o = Options {
        endpoint: None,
        timeout: Duration::from_secs(10),
        verbosity: 0,
        json: false,
        protocol: DEFAULT_PROTOCOL.into(),
        help: false,
        on_invalid: OnInvalid::Error,
        reconnect_attempts: None,
        startup_retry: None,
        http: HttpOptions::default(),
        positional: Vec::new(),
        devices: Vec::new(),
        pages: None,
    };
    let mut baud: Option<u32> = None;
    let mut machine: Option<Machine> = None;
    let mut wiring: Option<QemuWiring> = None;
    let mut qemu_bin: Option<String> = None;
    let mut endpoints = 0;
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f, Some(v.to_string())),
            _ => (arg.as_str(), None),
        };
        let mut value = |name: &str| -> Result<String, OptionError> {
            match &inline {
                Some(v) => Ok(v.clone()),
                None => it.next().cloned().ok_or_else(|| OptionError::MissingValue {
                    flag: name.to_owned(),
                }),
            }
        };
        match flag {
            "--serial" => {
                endpoints += 1;
                o.endpoint = Some(Endpoint::Serial {
                    path: PathBuf::from(value(flag)?),
                    baud: DEFAULT_BAUD,
                });
            }
            "--baud" => baud = Some(number(flag, &value(flag)?)?),
            "--unix" => {
                endpoints += 1;
                o.endpoint = Some(Endpoint::Unix(PathBuf::from(value(flag)?)));
            }
            "--tcp" => {
                endpoints += 1;
                o.endpoint = Some(Endpoint::Tcp(value(flag)?));
            }
            "--qemu" => {
                endpoints += 1;
                o.endpoint = Some(Endpoint::Qemu(QemuConfig::new(value(flag)?)));
            }
            "--machine" => {
                let v = value(flag)?;
                machine = Some(Machine::parse(&v).ok_or(OptionError::BadChoice {
                    flag: "--machine",
                    value: v,
                    choices: "lm3s6965evb, mps2-an386 or microbit",
                })?);
            }
            "--qemu-serial" => {
                wiring = Some(match value(flag)?.as_str() {
                    "socket" => QemuWiring::Socket,
                    "stdio" => QemuWiring::Stdio,
                    other => {
                        return Err(OptionError::BadChoice {
                            flag: "--qemu-serial",
                            value: other.to_owned(),
                            choices: "socket or stdio",
                        })
                    }
                });
            }
            "--qemu-bin" => qemu_bin = Some(value(flag)?),
            "--command" => {
                endpoints += 1;
                let line = value(flag)?;
                o.endpoint = Some(Endpoint::Command(
                    split_command_line(&line).map_err(OptionError::Command)?,
                ));
            }
            "--timeout-ms" => o.timeout = Duration::from_millis(number(flag, &value(flag)?)?),
            "--on-invalid" => {
                let v = value(flag)?;
                o.on_invalid = OnInvalid::parse(&v).ok_or(OptionError::BadChoice {
                    flag: "--on-invalid",
                    value: v,
                    choices: "error, warn or pass",
                })?;
            }
            "--reconnect-attempts" => o.reconnect_attempts = Some(number(flag, &value(flag)?)?),
            "--startup-retry-ms" => {
                o.startup_retry = Some(Duration::from_millis(number(flag, &value(flag)?)?));
            }
            "--protocol" => o.protocol = value(flag)?,
            // --- hub options (hub_options.rs) ---
            "--device" => o.devices.push(hub_options::parse_device(&value(flag)?)?),
            "--pages" => o.pages = Some(hub_options::parse_pages(&value(flag)?)?),
            // --- end of hub options ---
            // The HTTP front of `bridge`.
            "--http" => o.http.bind = Some(value(flag)?),
            "--token-file" => o.http.token_file = Some(PathBuf::from(value(flag)?)),
            "--allowed-origin" => o.http.allowed_origins.push(value(flag)?),
            "--json" => o.json = true,
            "-h" | "--help" => o.help = true,
            "-v" | "--verbose" => o.verbosity = o.verbosity.saturating_add(1),
            "-vv" => o.verbosity = o.verbosity.saturating_add(2),
            "--" => o.positional.extend(it.by_ref().cloned()),
            f if f.starts_with('-') && f.len() > 1 && o.positional.is_empty() => {
                return Err(OptionError::Unknown(f.to_owned()));
            }
            _ => o.positional.push(arg.clone()),
        }
    }
    if endpoints > 1 {
        return Err(OptionError::SeveralDevices);
    }
    hub_options::check_devices(&o.devices, endpoints > 0, o.pages)?;
    match &mut o.endpoint {
        Some(Endpoint::Serial { baud: b, .. }) => *b = baud.unwrap_or(DEFAULT_BAUD),
        Some(Endpoint::Qemu(q)) => {
            if let Some(m) = machine {
                q.machine = m;
            }
            if let Some(w) = wiring {
                q.wiring = w;
            }
            if let Some(bin) = qemu_bin {
                q.program = bin;
            }
        }
        _ => {
            if baud.is_some() {
                return Err(OptionError::BaudWithoutSerial);
            }
            if machine.is_some() || wiring.is_some() || qemu_bin.is_some() {
                return Err(OptionError::QemuOptionsWithoutQemu);
            }
        }
    }
    Ok(o)
}

fn number<T: std::str::FromStr>(flag: &str, text: &str) -> Result<T, OptionError> {
    text.parse().map_err(|_| OptionError::NotANumber {
        flag: flag.to_owned(),
        text: text.to_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(args: &[&str]) -> Vec<String> {
        args.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn options() {
        let o = parse(&strings(&[
            "--serial",
            "/dev/ttyACM0",
            "--baud=9600",
            "-vv",
            "read",
            "a=1",
        ]))
        .unwrap();
        assert_eq!(
            o.endpoint,
            Some(Endpoint::Serial {
                path: "/dev/ttyACM0".into(),
                baud: 9600
            })
        );
        assert_eq!((o.verbosity, o.positional.len()), (2, 2));
        let o = parse(&strings(&[
            "--qemu",
            "fw.elf",
            "--machine",
            "mps2-an386",
            "--qemu-serial=stdio",
        ]))
        .unwrap();
        let Some(Endpoint::Qemu(q)) = o.endpoint else {
            panic!()
        };
        assert_eq!(
            (q.machine, q.wiring),
            (Machine::Mps2An386, QemuWiring::Stdio)
        );
        assert!(parse(&strings(&["--unix", "a", "--tcp", "b:1"])).is_err());
        assert!(parse(&strings(&["--unix", "a", "--baud", "9"])).is_err());
        assert!(parse(&strings(&["--unix"])).is_err());
        assert!(parse(&strings(&["--bogus"])).is_err());
        assert!(parse(&strings(&["--on-invalid", "maybe"])).is_err());
    }

    #[test]
    fn every_documented_flag_is_known() {
        for flag in FLAGS.iter().filter(|f| f.starts_with('-')) {
            let parsed = parse(&strings(&[flag, "1"]));
            assert!(
                !matches!(parsed, Err(OptionError::Unknown(_))),
                "{flag} is not parsed"
            );
        }
        assert!(matches!(parse(&strings(&["--help"])), Ok(o) if o.help));
    }
}
