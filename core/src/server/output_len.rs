//! The output buffer's size while compiling: [`output_len`] counts, in `const` code, the bytes
//! of the responses [`Server::required_output_len`] measures by writing them, so a firmware
//! names the figure in its buffer's type (or asserts its own figure against it) and a buffer
//! that is too small fails the build. The two agree byte for byte (unit tests compare them).

use crate::protocol::{code_text, ErrorCode, Version, MAX_REQUESTED_ECHO};
use crate::protocol::{SUPPORTED_VERSIONS, UNSUPPORTED_VERSION_MESSAGE};

use super::cursor::CURSOR_LEN;
use super::handshake::{DISCOVER_CAPABILITIES_META, INITIALIZE_CAPABILITIES};
use super::reply::RESPONSE_TOO_LARGE;
use super::static_definitions::object_outputs;
use super::tool::{Annotations, Icon};
use super::typed::Toolbox;
#[cfg(doc)]
use super::Server;
use super::{Config, ServerInfo, Tool, MAX_ID_LEN};

/// The smallest output buffer with which every response of a [`Server`] of the typed tools
/// `H` fits, except a tool result larger than the buffer: [`Server::required_output_len`]
/// computed while compiling, from the server's `info` and `config`.
///
/// ```
/// # use embedded_mcp::server::{output_len, Config, Server, ServerInfo, Toolbox};
/// # struct Board;
/// # impl Toolbox<0> for Board {
/// #     const TOOLS: &'static [embedded_mcp::server::Tool; 0] = &[];
/// #     const PROGRAMS: [embedded_mcp::server::ToolSchemas<'static>; 0] = [];
/// # }
/// const INFO: ServerInfo = ServerInfo::new("thermo", "1.0.0");
/// // The buffer's length is a constant: no start-up check, no guess.
/// const OUTPUT_LEN: usize = output_len::<Board, 0>(&INFO, &Config::DEFAULT);
/// static mut OUT: [u8; OUTPUT_LEN] = [0; OUTPUT_LEN];
/// // A figure of the firmware's own choice fails the build when it is too small:
/// const _: () = assert!(512 >= OUTPUT_LEN);
/// ```
///
/// When `H`'s definitions were not checked while compiling (their check is left to run time),
/// every output schema counts as not an object, which 2025 peers get wrapped: an upper bound.
pub const fn output_len<H: Toolbox<N>, const N: usize>(
    info: &ServerInfo,
    config: &Config,
) -> usize {
    let object_output = match H::CHECKED {
        Some(Ok(object_output)) => object_output,
        _ => [false; N],
    };
    output_len_with(info, H::TOOLS, &object_output, config)
}

/// [`output_len`] for a server of hand-written `tools` ([`Server::new`],
/// [`Server::with_programs`]).
pub const fn output_len_of<const N: usize>(
    info: &ServerInfo,
    tools: &[Tool; N],
    config: &Config,
) -> usize {
    output_len_with(info, tools, &object_outputs(tools), config)
}

/// [`output_len`] for `tools` whose output schemas' roots are objects where `object_output`
/// says so.
const fn output_len_with<const N: usize>(
    info: &ServerInfo,
    tools: &[Tool; N],
    object_output: &[bool; N],
    config: &Config,
) -> usize {
    let mut largest = LONGEST_ERROR_LEN;
    let mut versions: &[Version] = &Version::ALL;
    while let [version, more @ ..] = versions {
        let version = *version;
        let handshake = if version.is_legacy() {
            initialize_len(info, version)
        } else {
            discover_len(info, config)
        };
        largest = max(largest, handshake);
        let (mut tools, mut objects): (&[Tool], &[bool]) = (tools, object_output);
        while let ([tool, more_tools @ ..], [object, more_objects @ ..]) = (tools, objects) {
            let page = sum(&[
                b"{\"tools\":[".len(),
                tool_len(tool, version, *object),
                list_tail_len(config, version),
            ]);
            largest = max(largest, page);
            (tools, objects) = (more_tools, more_objects);
        }
        versions = more;
    }
    // Envelope: `{"jsonrpc":"2.0","id":` ID `,"result":` ... `}` LF.
    sum(&[largest, 36, MAX_ID_LEN])
}

/// The longer of the two errors any request may get: -32022 echoing the longest requested
/// version it echoes, and -32603 for a response that does not fit (both without an id).
const LONGEST_ERROR_LEN: usize = {
    const HEAD: usize = sum(&[
        b"{\"jsonrpc\":\"2.0\",\"error\":{\"code\":".len(),
        b",\"message\":".len(),
    ]);
    let unsupported = sum(&[
        HEAD,
        code_text(ErrorCode::UnsupportedProtocolVersion).len(),
        string_len(UNSUPPORTED_VERSION_MESSAGE),
        b",\"data\":{\"supported\":".len(),
        SUPPORTED_VERSIONS.len(),
        b",\"requested\":\"".len(),
        MAX_REQUESTED_ECHO,
        b"\"}}}".len(),
    ]);
    let too_large = sum(&[
        HEAD,
        code_text(ErrorCode::InternalError).len(),
        string_len(RESPONSE_TOO_LARGE),
        b"}}".len(),
    ]);
    max(unsupported, too_large)
};

const fn max(a: usize, b: usize) -> usize {
    if a > b {
        a
    } else {
        b
    }
}

/// The sum of `parts` (saturating: a figure that large fits no buffer anyway).
const fn sum(parts: &[usize]) -> usize {
    let (mut total, mut rest) = (0usize, parts);
    while let [part, more @ ..] = rest {
        total = total.saturating_add(*part);
        rest = more;
    }
    total
}

/// Bytes of `s` as a JSON string, quotes included (the escapes of `json::write_string`).
const fn string_len(s: &str) -> usize {
    let mut len = 2usize;
    let mut rest = s.as_bytes();
    while let [b, more @ ..] = rest {
        let escaped: usize = match *b {
            b'"' | b'\\' | b'\n' | b'\r' | b'\t' | 0x08 | 0x0c => 2,
            0x00..=0x1f => 6,
            _ => 1,
        };
        len = len.saturating_add(escaped);
        rest = more;
    }
    len
}

/// Bytes of the JSON text `json` written compact (`json::write_compact`: whitespace outside
/// strings dropped).
const fn compact_len(json: &str) -> usize {
    let (mut len, mut in_string, mut escaped) = (0usize, false, false);
    let mut rest = json.as_bytes();
    while let [b, more @ ..] = rest {
        let b = *b;
        let kept = if in_string {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
            true
        } else {
            in_string = b == b'"';
            !matches!(b, b' ' | b'\t' | b'\n' | b'\r')
        };
        if kept {
            len = len.saturating_add(1);
        }
        rest = more;
    }
    len
}

/// A member `key` (its text up to `:`) with a string value when it is present.
const fn member_opt_len(key: &[u8], value: Option<&str>) -> usize {
    match value {
        Some(value) => key.len().saturating_add(string_len(value)),
        None => 0,
    }
}

/// Digits of `n` in decimal.
const fn digits(mut n: u32) -> usize {
    let mut len = 1usize;
    while n >= 10 {
        n /= 10;
        len = len.saturating_add(1);
    }
    len
}

/// `list::write_tool`.
pub(super) const fn tool_len(tool: &Tool, version: Version, object_output: bool) -> usize {
    let output = match tool.output_schema {
        Some(output) if version.is_legacy() && !object_output => sum(&[
            b",\"outputSchema\":{\"type\":\"object\",\"properties\":{\"result\":".len(),
            compact_len(output),
            b"},\"required\":[\"result\"]}".len(),
        ]),
        Some(output) => b",\"outputSchema\":"
            .len()
            .saturating_add(compact_len(output)),
        None => 0,
    };
    let meta = match tool.meta {
        Some(meta) => b",\"_meta\":".len().saturating_add(compact_len(meta)),
        None => 0,
    };
    let icons = if version.has_icons() {
        icons_len(tool.icons)
    } else {
        0
    };
    let execution = match tool.task_support {
        Some(support) => sum(&[
            b",\"execution\":{\"taskSupport\":\"".len(),
            support.as_str().len(),
            b"\"}".len(),
        ]),
        None => 0,
    };
    sum(&[
        b"{\"name\":".len(),
        string_len(tool.name),
        member_opt_len(b",\"title\":", tool.title),
        member_opt_len(b",\"description\":", tool.description),
        b",\"inputSchema\":".len(),
        compact_len(tool.input_schema),
        output,
        annotations_len(&tool.annotations),
        icons,
        execution,
        meta,
        b"}".len(),
    ])
}

/// `list::write_annotations`.
const fn annotations_len(a: &Annotations) -> usize {
    const KEYS: [usize; 4] = [
        b"\"readOnlyHint\":".len(),
        b"\"destructiveHint\":".len(),
        b"\"idempotentHint\":".len(),
        b"\"openWorldHint\":".len(),
    ];
    let mut len = member_opt_len(b"\"title\":", a.title);
    let mut members = if a.title.is_some() { 1usize } else { 0 };
    let hints = [a.read_only, a.destructive, a.idempotent, a.open_world];
    let (mut keys, mut hints): (&[usize], &[Option<bool>]) = (&KEYS, &hints);
    while let ([key, more_keys @ ..], [hint, more_hints @ ..]) = (keys, hints) {
        if let Some(hint) = *hint {
            len = sum(&[len, *key, if hint { 4 } else { 5 }]);
            members = members.saturating_add(1);
        }
        (keys, hints) = (more_keys, more_hints);
    }
    if members == 0 {
        return 0;
    }
    // The head, the members, the commas between them, `}`.
    sum(&[
        b",\"annotations\":{".len(),
        len,
        members.saturating_sub(1),
        1,
    ])
}

/// `list::write_icons`.
const fn icons_len(icons: &[Icon]) -> usize {
    if icons.is_empty() {
        return 0;
    }
    // `,"icons":[` once, `{"src":` per icon, `},` between icons, `}]` at the end.
    let mut len = sum(&[
        b",\"icons\":[".len(),
        icons.len().saturating_sub(1).saturating_mul(2),
        b"}]".len(),
    ]);
    let mut rest = icons;
    while let [icon, more @ ..] = rest {
        len = sum(&[
            len,
            b"{\"src\":".len(),
            string_len(icon.src),
            member_opt_len(b",\"mimeType\":", icon.mime_type),
        ]);
        if !icon.sizes.is_empty() {
            // `,"sizes":[`, a comma between sizes, `]`.
            len = sum(&[len, b",\"sizes\":[".len(), icon.sizes.len()]);
            let mut sizes = icon.sizes;
            while let [size, more_sizes @ ..] = sizes {
                len = len.saturating_add(string_len(size));
                sizes = more_sizes;
            }
        }
        if let Some(theme) = icon.theme {
            len = sum(&[len, b",\"theme\":".len(), string_len(theme.as_str())]);
        }
        rest = more;
    }
    len
}

/// `write_implementation` of the handshake.
const fn implementation_len(info: &ServerInfo, version: Version) -> usize {
    let described = if matches!(version, Version::V2025_06_18) {
        0
    } else {
        member_opt_len(b",\"description\":", info.description)
            .saturating_add(member_opt_len(b",\"websiteUrl\":", info.website_url))
    };
    let icons = if version.has_icons() {
        icons_len(info.icons)
    } else {
        0
    };
    sum(&[
        b"{\"name\":".len(),
        string_len(info.name),
        b",\"version\":".len(),
        string_len(info.version),
        member_opt_len(b",\"title\":", info.title),
        described,
        icons,
        b"}".len(),
    ])
}

/// The `initialize` result for `version`.
const fn initialize_len(info: &ServerInfo, version: Version) -> usize {
    sum(&[
        b"{\"protocolVersion\":".len(),
        string_len(version.as_str()),
        INITIALIZE_CAPABILITIES.len(),
        implementation_len(info, version),
        member_opt_len(b",\"instructions\":", info.instructions),
        b"}".len(),
    ])
}

/// The `server/discover` result.
const fn discover_len(info: &ServerInfo, config: &Config) -> usize {
    sum(&[
        b"{\"supportedVersions\":".len(),
        SUPPORTED_VERSIONS.len(),
        DISCOVER_CAPABILITIES_META.len(),
        implementation_len(info, Version::V2026_07_28),
        b"}".len(),
        member_opt_len(b",\"instructions\":", info.instructions),
        cache_tail_len(config),
        b"}".len(),
    ])
}

/// `Config::write_cache_tail`.
const fn cache_tail_len(config: &Config) -> usize {
    sum(&[
        b",\"ttlMs\":".len(),
        digits(config.ttl_ms),
        b",\"cacheScope\":".len(),
        string_len(config.cache_scope.as_str()),
        b",\"resultType\":\"complete\"".len(),
    ])
}

/// `write_list_tail` with a `nextCursor`.
const fn list_tail_len(config: &Config, version: Version) -> usize {
    let cache = if version.is_legacy() {
        0
    } else {
        cache_tail_len(config)
    };
    sum(&[
        b"]".len(),
        b",\"nextCursor\":\"".len(),
        CURSOR_LEN,
        b"\"".len(),
        cache,
        b"}".len(),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::CountingSink;
    use crate::server::list::write_tool;
    use crate::server::tool::Theme;
    use crate::server::{CacheScope, Call, Done, Output, SchemaStorage, Server, ToolError};

    type H = fn(&Call<'_>, Output<'_>) -> Result<Done, ToolError>;

    fn nothing(_: &Call<'_>, _: Output<'_>) -> Result<Done, ToolError> {
        Err(ToolError::NotImplemented)
    }

    static ICONS: [Icon; 2] = [
        Icon::new("https://example.com/a.png")
            .mime_type("image/png")
            .sizes(&["48x48", "any"])
            .theme(Theme::Dark),
        Icon::new("data:image/svg+xml,x").sizes(&["any"]),
    ];

    /// Every member a tool can have, escapes and whitespace included, and a bare one.
    static TOOLS: [Tool; 4] = [
        Tool::new("bare", r#"{"type":"object"}"#),
        Tool::new(
            "full",
            "{ \"type\" : \"object\",\n \"properties\": {\"a b\": {\"type\": \"string\"}}}",
        )
        .title("Full \"tool\"")
        .description("Line one\nline two\ttab \\ and \u{1} and é")
        .output_schema("{\"type\": \"array\", \"items\": {\"const\": \"x \\\" y\"}}")
        .annotations(
            Annotations::NONE
                .title("t")
                .read_only(false)
                .destructive(true)
                .idempotent(true)
                .open_world(false),
        )
        .icons(&ICONS)
        .meta("{ \"k\" : [1, 2] }"),
        Tool::new("object_out", r#"{"type":"object"}"#)
            .output_schema(r#"{"type":"object","properties":{}}"#)
            .annotations(Annotations::SENSOR),
        Tool::new("one_icon", r#"{"type":"object"}"#).icons(&[Icon::new("data:,")]),
    ];

    const INFOS: [ServerInfo; 3] = [
        ServerInfo::new("t", "1"),
        ServerInfo::new("thermo", "1.0.0")
            .title("Thermo \"board\"")
            .description("Sensors\nand LEDs")
            .website_url("https://example.com")
            .icons(&ICONS)
            .instructions("Call read_temperature first.\n\u{2}"),
        // Long instructions: the handshake is the largest response.
        ServerInfo::new("long", "2").instructions(
            "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\
             xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\
             xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
        ),
    ];

    fn configs() -> [Config; 3] {
        [
            Config::DEFAULT,
            Config {
                ttl_ms: 0,
                cache_scope: CacheScope::Private,
                ..Config::DEFAULT
            },
            Config {
                ttl_ms: u32::MAX,
                ..Config::DEFAULT
            },
        ]
    }

    fn measured(
        f: impl FnOnce(&mut CountingSink) -> Result<(), crate::json::EncodeError>,
    ) -> usize {
        let mut count = CountingSink::default();
        f(&mut count).unwrap();
        count.count
    }

    fn server<const N: usize>(
        info: ServerInfo,
        tools: &'static [Tool; N],
        config: Config,
    ) -> Server<'static, H, N> {
        let storage =
            std::boxed::Box::leak(std::boxed::Box::new(SchemaStorage::<N, 16, 64, 256>::new()));
        Server::with_config(info, tools, storage, nothing as H, config).unwrap()
    }

    #[test]
    fn each_part_counts_the_bytes_its_writer_writes() {
        for version in Version::ALL {
            for tool in &TOOLS {
                for object in [false, true] {
                    let written = measured(|s| write_tool(s, tool, version, object));
                    assert_eq!(tool_len(tool, version, object), written, "{}", tool.name);
                }
            }
        }
        for info in INFOS {
            for config in configs() {
                let s = server(info, &TOOLS, config);
                for version in Version::ALL {
                    let written = if version.is_legacy() {
                        measured(|c| s.write_initialize_result(c, version))
                    } else {
                        measured(|c| s.write_discover_result(c))
                    };
                    let counted = if version.is_legacy() {
                        initialize_len(&info, version)
                    } else {
                        discover_len(&info, &config)
                    };
                    assert_eq!(counted, written, "{} {version:?}", info.name);
                    let tail = measured(|c| s.write_list_tail(c, version, Some(1)));
                    assert_eq!(list_tail_len(&config, version), tail);
                }
            }
        }
    }

    #[test]
    fn the_total_is_what_the_server_measures() {
        static SMALL: [Tool; 1] = [Tool::new("a", r#"{"type":"object"}"#)];
        for info in INFOS {
            for config in configs() {
                let s = server(info, &TOOLS, config);
                assert_eq!(s.object_output, object_outputs(&TOOLS));
                let counted = output_len_of(&info, &TOOLS, &config);
                assert_eq!(counted, s.required_output_len(), "{}", info.name);
                let s = server(info, &SMALL, config);
                let counted = output_len_of(&info, &SMALL, &config);
                assert_eq!(counted, s.required_output_len(), "{}", info.name);
            }
        }
    }

    #[test]
    fn the_longest_error_is_counted_as_written() {
        use crate::protocol::{write_error, write_unsupported_version};
        let unsupported = measured(|s| write_unsupported_version(s, None, "")) + MAX_REQUESTED_ECHO;
        let too_large =
            measured(|s| write_error(s, None, ErrorCode::InternalError, RESPONSE_TOO_LARGE));
        assert_eq!(LONGEST_ERROR_LEN, unsupported.max(too_large));
    }
}
