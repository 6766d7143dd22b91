//! Static tool and server definitions, and the checks they pass before they are served.

use core::fmt;

/// The longest tool name MCP allows.
pub const MAX_TOOL_NAME_LEN: usize = 128;

/// Hints about a tool's behaviour. Every hint is optional and only the hints that are set are
/// sent. When a hint is absent, clients assume the pessimistic default of the specification:
///
/// | hint | default when absent |
/// |---|---|
/// | `readOnlyHint` | `false`: the tool may modify its environment |
/// | `destructiveHint` | `true`: it may delete or overwrite (meaningful when not read-only) |
/// | `idempotentHint` | `false`: repeating a call may have further effects |
/// | `openWorldHint` | `true`: it may touch external entities |
///
/// Hints are not a security boundary: clients must not trust them from an untrusted server.
/// A sensor read should say [`Annotations::SENSOR`] (read-only, closed world). Built from
/// [`Annotations::NONE`] or a preset and the setters (`#[non_exhaustive]`, as [`Tool`] is).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub struct Annotations {
    /// `title`: a display name (the tool's own `title` takes precedence).
    pub title: Option<&'static str>,
    /// `readOnlyHint`.
    pub read_only: Option<bool>,
    /// `destructiveHint`.
    pub destructive: Option<bool>,
    /// `idempotentHint`.
    pub idempotent: Option<bool>,
    /// `openWorldHint`.
    pub open_world: Option<bool>,
}

impl Annotations {
    /// No hints at all: clients assume the pessimistic defaults.
    pub const NONE: Annotations = Annotations {
        title: None,
        read_only: None,
        destructive: None,
        idempotent: None,
        open_world: None,
    };

    /// A read-only tool of a closed world (`readOnlyHint: true, openWorldHint: false`): a sensor.
    pub const SENSOR: Annotations = Annotations::NONE.read_only(true).open_world(false);

    /// An actuator that changes the device's own state, idempotently, without destroying data
    /// (`readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false`).
    pub const SETTER: Annotations = Annotations::NONE
        .read_only(false)
        .destructive(false)
        .idempotent(true)
        .open_world(false);

    /// An actuator whose effect may not be undone or may matter outside the device (a pump, a
    /// relay, a motor), so hosts ask before they call it
    /// (`readOnlyHint: false, destructiveHint: true, openWorldHint: false`; `idempotentHint`
    /// unset: the pessimistic default, `false`).
    pub const ACTUATOR: Annotations = Annotations::NONE
        .read_only(false)
        .destructive(true)
        .open_world(false);

    /// Sets `title`.
    pub const fn title(mut self, title: &'static str) -> Self {
        self.title = Some(title);
        self
    }
    /// Sets `readOnlyHint`.
    pub const fn read_only(mut self, hint: bool) -> Self {
        self.read_only = Some(hint);
        self
    }
    /// Sets `destructiveHint`.
    pub const fn destructive(mut self, hint: bool) -> Self {
        self.destructive = Some(hint);
        self
    }
    /// Sets `idempotentHint`.
    pub const fn idempotent(mut self, hint: bool) -> Self {
        self.idempotent = Some(hint);
        self
    }
    /// Sets `openWorldHint`.
    pub const fn open_world(mut self, hint: bool) -> Self {
        self.open_world = Some(hint);
        self
    }

    /// True when no hint and no title is set (nothing to send).
    pub const fn is_empty(&self) -> bool {
        self.title.is_none()
            && self.read_only.is_none()
            && self.destructive.is_none()
            && self.idempotent.is_none()
            && self.open_world.is_none()
    }
}

/// The background an icon is drawn for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Theme {
    /// `"light"`: for a light background.
    Light,
    /// `"dark"`: for a dark background.
    Dark,
}

impl Theme {
    /// The wire name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Theme::Light => "light",
            Theme::Dark => "dark",
        }
    }
}

/// An icon (2025-11-25 and later; not sent to 2025-06-18 peers). Built with [`Icon::new`] and
/// the setters (`#[non_exhaustive]`, as [`Tool`] is).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub struct Icon {
    /// `src`: an `https:` URL or a `data:` URI; any other scheme is refused at construction.
    pub src: &'static str,
    /// `mimeType`, for example `"image/png"`.
    pub mime_type: Option<&'static str>,
    /// `sizes`, each `"WxH"` or `"any"`; omitted when empty.
    pub sizes: &'static [&'static str],
    /// `theme`.
    pub theme: Option<Theme>,
}

impl Icon {
    /// An icon with only its `src`.
    pub const fn new(src: &'static str) -> Self {
        Self {
            src,
            mime_type: None,
            sizes: &[],
            theme: None,
        }
    }
    /// Sets `mimeType`.
    pub const fn mime_type(mut self, mime_type: &'static str) -> Self {
        self.mime_type = Some(mime_type);
        self
    }
    /// Sets `sizes`.
    pub const fn sizes(mut self, sizes: &'static [&'static str]) -> Self {
        self.sizes = sizes;
        self
    }
    /// Sets `theme`.
    pub const fn theme(mut self, theme: Theme) -> Self {
        self.theme = Some(theme);
        self
    }
}

/// A tool, defined once as static data.
///
/// Schemas and `_meta` are JSON text (for example `include_str!` of a file, or a raw string);
/// they may contain whitespace and line breaks, which are removed when the tool is sent.
///
/// The fields are public to read; build a tool with [`Tool::new`] and the setters (the type is
/// `#[non_exhaustive]`, so a member MCP adds later becomes a new setter, not a breaking change).
///
/// ```
/// use embedded_mcp::server::{Annotations, Tool};
///
/// const READ_TEMPERATURE: Tool = Tool::new(
///     "read_temperature",
///     r#"{"type":"object","properties":{"sensor":{"type":"integer","minimum":0,"maximum":3}}}"#,
/// )
/// .title("Read temperature")
/// .description("Temperature of one sensor in degrees Celsius")
/// .output_schema(r#"{"type":"object","properties":{"celsius":{"type":"number"}},"required":["celsius"]}"#)
/// .annotations(Annotations::SENSOR);
///
/// // Name and icon rules can be checked at compile time:
/// const _: () = assert!(READ_TEMPERATURE.check_static().is_ok());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub struct Tool {
    /// `name`: `^[A-Za-z0-9_.-]{1,128}$`, unique in the server.
    pub name: &'static str,
    /// `title`: display name.
    pub title: Option<&'static str>,
    /// `description`: what the tool does, for the model.
    pub description: Option<&'static str>,
    /// `inputSchema`: JSON text of an object schema (`"type": "object"` at the root).
    pub input_schema: &'static str,
    /// `outputSchema`: JSON text of a schema object. Any root type: for 2025 peers a schema
    /// whose root `type` is not `"object"` is sent wrapped as
    /// `{"type":"object","properties":{"result":S},"required":["result"]}`.
    pub output_schema: Option<&'static str>,
    /// `annotations`: behaviour hints (only the set ones are sent).
    pub annotations: Annotations,
    /// `icons` (2025-11-25 and later).
    pub icons: &'static [Icon],
    /// `_meta`: JSON text of an object.
    pub meta: Option<&'static str>,
    /// `execution.taskSupport`: whether the tool runs as a task of the tasks extension (the
    /// bridge holds the tasks; unset: never as a task).
    pub task_support: Option<TaskSupport>,
}

/// How a tool runs as a task (`execution.taskSupport`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum TaskSupport {
    /// `"optional"`: as a task when the client asks for one, else an ordinary call.
    Optional,
    /// `"required"`: only as a task.
    Required,
}

impl TaskSupport {
    /// The wire value.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Optional => "optional",
            Self::Required => "required",
        }
    }
}

impl Tool {
    /// A tool with a name and an input schema; everything else unset.
    pub const fn new(name: &'static str, input_schema: &'static str) -> Self {
        Self {
            name,
            title: None,
            description: None,
            input_schema,
            output_schema: None,
            annotations: Annotations::NONE,
            icons: &[],
            meta: None,
            task_support: None,
        }
    }
    /// Sets `title`.
    pub const fn title(mut self, title: &'static str) -> Self {
        self.title = Some(title);
        self
    }
    /// Sets `description`.
    pub const fn description(mut self, description: &'static str) -> Self {
        self.description = Some(description);
        self
    }
    /// Sets `outputSchema`.
    pub const fn output_schema(mut self, schema: &'static str) -> Self {
        self.output_schema = Some(schema);
        self
    }
    /// Sets `annotations`.
    pub const fn annotations(mut self, annotations: Annotations) -> Self {
        self.annotations = annotations;
        self
    }
    /// Sets `icons`.
    pub const fn icons(mut self, icons: &'static [Icon]) -> Self {
        self.icons = icons;
        self
    }
    /// Sets `execution.taskSupport`.
    pub const fn task_support(mut self, support: TaskSupport) -> Self {
        self.task_support = Some(support);
        self
    }

    /// Sets `_meta` (JSON text of an object).
    pub const fn meta(mut self, meta: &'static str) -> Self {
        self.meta = Some(meta);
        self
    }

    /// The checks that need no JSON parsing, usable in a `const` assertion: the name rule and
    /// the icon schemes. [`Server::new`](super::Server::new) runs them again with the others.
    pub const fn check_static(&self) -> Result<(), StaticError> {
        if !is_valid_tool_name(self.name) {
            return Err(StaticError::InvalidName);
        }
        let mut icons = self.icons;
        let mut i = 0;
        while let [icon, rest @ ..] = icons {
            if !is_allowed_icon_src(icon.src) {
                return Err(StaticError::IconScheme { icon: i });
            }
            icons = rest;
            i = i.wrapping_add(1); // at most `self.icons.len()`
        }
        Ok(())
    }
}

/// What [`Tool::check_static`] found wrong.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum StaticError {
    /// The name is empty, longer than 128 bytes, or has a byte outside `A-Z a-z 0-9 _ . -`.
    InvalidName,
    /// Icon number `icon` has a `src` that is neither `https:` nor `data:`.
    IconScheme {
        /// Index of the icon in `icons`.
        icon: usize,
    },
}

impl fmt::Display for StaticError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::InvalidName => f.write_str("tool name must match ^[A-Za-z0-9_.-]{1,128}$"),
            Self::IconScheme { icon } => {
                write!(f, "icon {icon}: src must be an https: URL or a data: URI")
            }
        }
    }
}

impl core::error::Error for StaticError {}

/// True when `name` matches `^[A-Za-z0-9_.-]{1,128}$`.
pub const fn is_valid_tool_name(name: &str) -> bool {
    let mut b = name.as_bytes();
    if b.is_empty() || b.len() > MAX_TOOL_NAME_LEN {
        return false;
    }
    while let [c, rest @ ..] = b {
        if !(c.is_ascii_alphanumeric() || *c == b'_' || *c == b'.' || *c == b'-') {
            return false;
        }
        b = rest;
    }
    true
}

/// True when `src` starts with `https:` or `data:` (ASCII case-insensitive, as URI schemes are).
pub const fn is_allowed_icon_src(src: &str) -> bool {
    starts_with_ignore_case(src.as_bytes(), b"https:")
        || starts_with_ignore_case(src.as_bytes(), b"data:")
}

const fn starts_with_ignore_case(mut s: &[u8], mut prefix: &[u8]) -> bool {
    while let [p, prefix_rest @ ..] = prefix {
        let [c, rest @ ..] = s else {
            return false;
        };
        if c.to_ascii_lowercase() != *p {
            return false;
        }
        s = rest;
        prefix = prefix_rest;
    }
    true
}

/// Who the server is: sent in `initialize` (`serverInfo`) and `server/discover`
/// (`_meta["io.modelcontextprotocol/serverInfo"]`). Built with [`ServerInfo::new`] and the
/// setters (`#[non_exhaustive]`, as [`Tool`] is).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub struct ServerInfo {
    /// `name`.
    pub name: &'static str,
    /// `version`.
    pub version: &'static str,
    /// `title`.
    pub title: Option<&'static str>,
    /// `description`.
    pub description: Option<&'static str>,
    /// `websiteUrl`.
    pub website_url: Option<&'static str>,
    /// `icons` (2025-11-25 and later).
    pub icons: &'static [Icon],
    /// `instructions` for the model, sent with `initialize` and `server/discover`.
    pub instructions: Option<&'static str>,
}

impl ServerInfo {
    /// A server with a name and a version.
    pub const fn new(name: &'static str, version: &'static str) -> Self {
        Self {
            name,
            version,
            title: None,
            description: None,
            website_url: None,
            icons: &[],
            instructions: None,
        }
    }
    /// Sets `title`.
    pub const fn title(mut self, title: &'static str) -> Self {
        self.title = Some(title);
        self
    }
    /// Sets `description`.
    pub const fn description(mut self, description: &'static str) -> Self {
        self.description = Some(description);
        self
    }
    /// Sets `websiteUrl`.
    pub const fn website_url(mut self, url: &'static str) -> Self {
        self.website_url = Some(url);
        self
    }
    /// Sets `icons`.
    pub const fn icons(mut self, icons: &'static [Icon]) -> Self {
        self.icons = icons;
        self
    }
    /// Sets `instructions`.
    pub const fn instructions(mut self, instructions: &'static str) -> Self {
        self.instructions = Some(instructions);
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_icons() {
        assert!(is_valid_tool_name("read_temp.v2-x"));
        assert!(!is_valid_tool_name(""));
        assert!(!is_valid_tool_name("has space"));
        assert!(!is_valid_tool_name("é"));
        let long = "a".repeat(129);
        assert!(!is_valid_tool_name(&long));
        assert!(is_valid_tool_name(&long[..128]));
        assert!(is_allowed_icon_src("https://x/i.png"));
        assert!(is_allowed_icon_src("DATA:image/png;base64,AA=="));
        for bad in [
            "http://x",
            "javascript:alert(1)",
            "file:///x",
            "ftp://x",
            "ws://x",
            "",
        ] {
            assert!(!is_allowed_icon_src(bad), "{bad}");
        }
        const ICONS: &[Icon] = &[Icon::new("https://ok"), Icon::new("file:///etc/passwd")];
        assert_eq!(
            Tool::new("x", "{}").icons(ICONS).check_static(),
            Err(StaticError::IconScheme { icon: 1 })
        );
    }
}
