//! [`ResultView`]: a checked, borrowed view of a `CallToolResult` of any revision.

use serde::Deserialize;

use super::ResultError;
use crate::json::{
    self, DecodeError, DecodeErrorKind, Elements, JsonStr, Kind, Limits, Scanner, Value,
};

/// One content block of a result, borrowed from the input. Strings stay escaped as in the
/// input; compare or decode them with [`JsonStr`]'s methods.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ContentBlock<'a> {
    /// `{"type":"text","text":…}`
    Text(JsonStr<'a>),
    /// `{"type":"image","data":<base64>,"mimeType":…}`
    Image {
        /// The base64 data, unchecked.
        data: JsonStr<'a>,
        /// The media type.
        mime_type: JsonStr<'a>,
    },
    /// `{"type":"audio","data":<base64>,"mimeType":…}`
    Audio {
        /// The base64 data, unchecked.
        data: JsonStr<'a>,
        /// The media type.
        mime_type: JsonStr<'a>,
    },
    /// `{"type":"resource_link","uri":…,"name":…}` with its optional string members.
    ResourceLink {
        /// The resource's URI.
        uri: JsonStr<'a>,
        /// The resource's name.
        name: JsonStr<'a>,
        /// `mimeType`, when present.
        mime_type: Option<JsonStr<'a>>,
        /// `description`, when present.
        description: Option<JsonStr<'a>>,
        /// `title`, when present.
        title: Option<JsonStr<'a>>,
    },
    /// `{"type":"resource","resource":…}`: the embedded `resource` object.
    Resource(Value<'a>),
    /// A block of a type this view does not know (a newer revision's): the whole block.
    Other(Value<'a>),
}

/// A checked `CallToolResult` of any revision, borrowed from the input.
///
/// [`ResultView::parse`] checks everything once: strict JSON (UTF-8, escapes, surrogate pairs,
/// no trailing data) with nesting bounded by [`Limits::max_depth`] (default
/// [`json::DEFAULT_MAX_DEPTH`] levels counted from the result object, checked without
/// recursion), then the shape: an object with a `content` array of block objects that each
/// have a string `type` and the members their type requires, `isError` a boolean,
/// `resultType` a string, `_meta` an object, and none of these members repeated. Unknown
/// members and unknown block types are accepted. After that no accessor can fail or panic.
///
/// ```
/// use embedded_mcp::result::{ContentBlock, ResultView};
///
/// let bytes = br#"{"content":[{"type":"text","text":"{\"t\":21.5}"}],"structuredContent":{"t":21.5}}"#;
/// let view = ResultView::parse(bytes)?;
/// assert!(!view.is_error());
/// assert_eq!(view.structured().unwrap().raw(), r#"{"t":21.5}"#);
/// let Some(ContentBlock::Text(text)) = view.content().next() else { panic!() };
/// assert!(text.eq_str(r#"{"t":21.5}"#));
///
/// #[derive(serde::Deserialize)]
/// struct Reading { t: f32 }
/// let r: Reading = view.structured_as(&mut [])?;
/// assert_eq!(r.t, 21.5);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct ResultView<'a> {
    content: Value<'a>,
    structured: Option<Value<'a>>,
    is_error: bool,
    result_type: Option<JsonStr<'a>>,
    meta: Option<Value<'a>>,
}

/// Byte offset of `v` from `base` (the start of the input).
fn offset(v: &Value<'_>, base: usize) -> usize {
    (v.raw().as_ptr() as usize).saturating_sub(base)
}

/// Stores `value` in `slot`, refusing a second occurrence of the member.
fn take<'a>(
    slot: &mut Option<Value<'a>>,
    member: &'static str,
    value: Value<'a>,
    base: usize,
) -> Result<(), ResultError> {
    if slot.is_some() {
        return Err(ResultError::DuplicateMember {
            member,
            offset: offset(&value, base),
        });
    }
    *slot = Some(value);
    Ok(())
}

/// The string in a required member.
fn required_str<'a>(
    slot: Option<Value<'a>>,
    member: &'static str,
    block: &Value<'a>,
    base: usize,
) -> Result<JsonStr<'a>, ResultError> {
    let value = slot.ok_or(ResultError::MissingMember {
        member,
        offset: offset(block, base),
    })?;
    value.as_str().ok_or(ResultError::WrongType {
        member,
        offset: offset(&value, base),
    })
}

/// The string in an optional member (`null` is not a string: the schema says `string`).
fn optional_str<'a>(
    slot: Option<Value<'a>>,
    member: &'static str,
    base: usize,
) -> Result<Option<JsonStr<'a>>, ResultError> {
    slot.map(|value| {
        value.as_str().ok_or(ResultError::WrongType {
            member,
            offset: offset(&value, base),
        })
    })
    .transpose()
}

/// The names of the block members the view reads.
const BLOCK_MEMBERS: [&str; 9] = [
    "type",
    "text",
    "data",
    "mimeType",
    "uri",
    "name",
    "description",
    "title",
    "resource",
];

/// The members of one content block that the view reads, as they are met.
#[derive(Default)]
struct BlockSlots<'a> {
    /// In the order of [`BLOCK_MEMBERS`].
    slots: [Option<Value<'a>>; 9],
}

impl<'a> BlockSlots<'a> {
    /// Records one member (ignored when the view does not read it).
    fn put(&mut self, key: JsonStr<'a>, value: Value<'a>, base: usize) -> Result<(), ResultError> {
        let index = match key.as_plain() {
            Some(plain) => BLOCK_MEMBERS.iter().position(|name| *name == plain),
            None => BLOCK_MEMBERS.iter().position(|name| key.eq_str(name)),
        };
        let Some((slot, member)) =
            index.and_then(|i| self.slots.get_mut(i).zip(BLOCK_MEMBERS.get(i)))
        else {
            return Ok(());
        };
        take(slot, member, value, base)
    }

    fn get(&self, member: usize) -> Option<Value<'a>> {
        self.slots.get(member).copied().flatten()
    }

    /// Checks the members the block's type requires and says what the block is.
    fn finish(self, block: Value<'a>, base: usize) -> Result<ContentBlock<'a>, ResultError> {
        let [ty, text, data, mime_type, uri, name, description, title, resource] =
            [0, 1, 2, 3, 4, 5, 6, 7, 8].map(|i| self.get(i));
        let ty = required_str(ty, "type", &block, base)?;
        let block = if ty.eq_str("text") {
            ContentBlock::Text(required_str(text, "text", &block, base)?)
        } else if ty.eq_str("image") || ty.eq_str("audio") {
            let data = required_str(data, "data", &block, base)?;
            let mime_type = required_str(mime_type, "mimeType", &block, base)?;
            if ty.eq_str("image") {
                ContentBlock::Image { data, mime_type }
            } else {
                ContentBlock::Audio { data, mime_type }
            }
        } else if ty.eq_str("resource_link") {
            ContentBlock::ResourceLink {
                uri: required_str(uri, "uri", &block, base)?,
                name: required_str(name, "name", &block, base)?,
                mime_type: optional_str(mime_type, "mimeType", base)?,
                description: optional_str(description, "description", base)?,
                title: optional_str(title, "title", base)?,
            }
        } else if ty.eq_str("resource") {
            let value = resource.ok_or(ResultError::MissingMember {
                member: "resource",
                offset: offset(&block, base),
            })?;
            if value.kind() != Kind::Object {
                return Err(ResultError::WrongType {
                    member: "resource",
                    offset: offset(&value, base),
                });
            }
            ContentBlock::Resource(value)
        } else {
            ContentBlock::Other(block)
        };
        Ok(block)
    }
}

/// Checks one content block (already checked JSON) and says what it is.
fn classify<'a>(block: Value<'a>, base: usize) -> Result<ContentBlock<'a>, ResultError> {
    let members = block.members().ok_or(ResultError::NotAnObject {
        offset: offset(&block, base),
    })?;
    let mut slots = BlockSlots::default();
    for (key, value) in members {
        slots.put(key, value, base)?;
    }
    slots.finish(block, base)
}

/// The members of the result object that the view reads.
#[derive(Default)]
struct RootSlots<'a> {
    content: Option<Value<'a>>,
    structured: Option<Value<'a>>,
    is_error: Option<Value<'a>>,
    result_type: Option<Value<'a>>,
    meta: Option<Value<'a>>,
}

impl<'a> RootSlots<'a> {
    fn put(&mut self, key: JsonStr<'a>, value: Value<'a>, base: usize) -> Result<(), ResultError> {
        let (slot, member) = if key.eq_str("content") {
            (&mut self.content, "content")
        } else if key.eq_str("structuredContent") {
            (&mut self.structured, "structuredContent")
        } else if key.eq_str("isError") {
            (&mut self.is_error, "isError")
        } else if key.eq_str("resultType") {
            (&mut self.result_type, "resultType")
        } else if key.eq_str("_meta") {
            (&mut self.meta, "_meta")
        } else {
            return Ok(());
        };
        take(slot, member, value, base)
    }

    /// Checks the members' presence and types (the blocks were checked while walking).
    fn finish(self, root: Value<'a>, base: usize) -> Result<ResultView<'a>, ResultError> {
        let content = self.content.ok_or(ResultError::MissingMember {
            member: "content",
            offset: offset(&root, base),
        })?;
        if content.kind() != Kind::Array {
            return Err(ResultError::WrongType {
                member: "content",
                offset: offset(&content, base),
            });
        }
        let is_error = match self.is_error {
            None => false,
            Some(v) => v.as_bool().ok_or(ResultError::WrongType {
                member: "isError",
                offset: offset(&v, base),
            })?,
        };
        let result_type = optional_str(self.result_type, "resultType", base)?;
        if let Some(m) = self.meta.filter(|m| m.kind() != Kind::Object) {
            return Err(ResultError::WrongType {
                member: "_meta",
                offset: offset(&m, base),
            });
        }
        Ok(ResultView {
            content,
            structured: self.structured,
            is_error,
            result_type,
            meta: self.meta,
        })
    }
}

/// One strict pass over a result document: checks the JSON (as [`Value::parse_with`] does) and
/// the `CallToolResult` shape together, so the text is scanned once.
///
/// JSON errors end the walk at once; the first shape problem is kept and reported only if the
/// whole document is valid JSON, so "not JSON" always wins over "not a tool result".
struct Walk<'a> {
    scan: Scanner<'a>,
    /// Address of the input's start, for shape-error offsets.
    base: usize,
    max_depth: u8,
    shape: Option<ResultError>,
}

impl<'a> Walk<'a> {
    /// Keeps the first shape problem.
    fn note<T>(&mut self, r: Result<T, ResultError>) {
        if let (Err(e), None) = (r, &self.shape) {
            self.shape = Some(e);
        }
    }

    fn since(&self, start: usize) -> Value<'a> {
        Value::from_checked(self.scan.slice_str(start, self.scan.pos))
    }

    /// Steps into a container opened at nesting `depth` (0 for the root), as the scanner does.
    fn open(&mut self, depth: u8) -> Result<(), DecodeError> {
        if depth >= self.max_depth.min(json::MAX_DEPTH_LIMIT) {
            return Err(self.scan.err(DecodeErrorKind::TooDeep));
        }
        self.scan.bump();
        Ok(())
    }

    /// Walks an object opened at `depth` (the scanner is at `{`), calling `member` with each
    /// key while the scanner is at the member's value, which `member` must scan.
    fn object(
        &mut self,
        depth: u8,
        mut member: impl FnMut(&mut Self, JsonStr<'a>) -> Result<(), DecodeError>,
    ) -> Result<(), DecodeError> {
        self.open(depth)?;
        if self.scan.peek_token()? == b'}' {
            self.scan.bump();
            return Ok(());
        }
        loop {
            if self.scan.peek_token()? != b'"' {
                return Err(self.scan.err(DecodeErrorKind::UnexpectedByte));
            }
            let key_start = self.scan.pos;
            self.scan.string()?;
            let Some(key) = self.since(key_start).as_str() else {
                return Err(self.scan.err(DecodeErrorKind::UnexpectedByte));
            };
            self.scan.expect(b':')?;
            self.scan.skip_ws();
            member(self, key)?;
            match self.scan.peek_token()? {
                b',' => self.scan.bump(),
                b'}' => {
                    self.scan.bump();
                    return Ok(());
                }
                _ => return Err(self.scan.err(DecodeErrorKind::UnexpectedByte)),
            }
        }
    }

    /// The whole document.
    fn document(&mut self) -> Result<Option<ResultView<'a>>, DecodeError> {
        self.scan.skip_ws();
        let start = self.scan.pos;
        let mut slots = RootSlots::default();
        if self.scan.peek() == Some(b'{') {
            self.object(0, |w, key| {
                let value_start = w.scan.pos;
                if w.scan.peek() == Some(b'[') && key.eq_str("content") {
                    w.content()?;
                } else {
                    w.scan.value(1, w.max_depth)?;
                }
                let r = slots.put(key, w.since(value_start), w.base);
                w.note(r);
                Ok(())
            })?;
        } else {
            self.scan.value(0, self.max_depth)?;
        }
        let root = self.since(start);
        self.scan.skip_ws();
        if self.scan.peek().is_some() {
            return Err(self.scan.err(DecodeErrorKind::TrailingData));
        }
        if root.kind() != Kind::Object {
            self.note::<()>(Err(ResultError::NotAnObject {
                offset: offset(&root, self.base),
            }));
            return Ok(None);
        }
        match slots.finish(root, self.base) {
            Ok(view) => Ok(Some(view)),
            Err(e) => {
                self.note::<()>(Err(e));
                Ok(None)
            }
        }
    }

    /// The `content` array (nesting level 1), checking each block's shape on the way.
    fn content(&mut self) -> Result<(), DecodeError> {
        self.open(1)?;
        if self.scan.peek_token()? == b']' {
            self.scan.bump();
            return Ok(());
        }
        loop {
            self.scan.skip_ws();
            let start = self.scan.pos;
            if self.scan.peek() == Some(b'{') {
                let mut slots = BlockSlots::default();
                self.object(2, |w, key| {
                    let value_start = w.scan.pos;
                    w.scan.value(3, w.max_depth)?;
                    let r = slots.put(key, w.since(value_start), w.base);
                    w.note(r);
                    Ok(())
                })?;
                let r = slots.finish(self.since(start), self.base);
                self.note(r);
            } else {
                self.scan.value(2, self.max_depth)?;
                let offset = offset(&self.since(start), self.base);
                self.note::<()>(Err(ResultError::NotAnObject { offset }));
            }
            match self.scan.peek_token()? {
                b',' => self.scan.bump(),
                b']' => {
                    self.scan.bump();
                    return Ok(());
                }
                _ => return Err(self.scan.err(DecodeErrorKind::UnexpectedByte)),
            }
        }
    }
}

/// Runs the walk over `text`, whose start is at address `base`.
fn walk(text: &str, base: usize, limits: Limits) -> Result<ResultView<'_>, ResultError> {
    let mut walk = Walk {
        scan: Scanner::new(text),
        base,
        max_depth: limits.max_depth,
        shape: None,
    };
    let view = walk.document()?;
    match (walk.shape, view) {
        (Some(e), _) => Err(e),
        (None, Some(view)) => Ok(view),
        // `document` notes a problem whenever it returns no view.
        (None, None) => Err(ResultError::NotAnObject { offset: 0 }),
    }
}

impl<'a> ResultView<'a> {
    /// Checks `bytes` as a `CallToolResult` with the default [`Limits`].
    pub fn parse(bytes: &'a [u8]) -> Result<Self, ResultError> {
        Self::parse_with(bytes, Limits::default())
    }

    /// Checks `bytes` as a `CallToolResult` with explicit limits, in one pass over the input.
    ///
    /// JSON errors (as [`Value::parse_with`] reports them) take precedence; otherwise the first
    /// shape problem in document order is reported.
    pub fn parse_with(bytes: &'a [u8], limits: Limits) -> Result<Self, ResultError> {
        let text = json::check_utf8(bytes)?;
        walk(text, bytes.as_ptr() as usize, limits)
    }

    /// Checks the shape of an already parsed value, for example the `result` member of a
    /// JSON-RPC response. Offsets in errors count from the start of `value`.
    pub fn from_value(value: Value<'a>) -> Result<Self, ResultError> {
        let limits = Limits {
            max_depth: json::MAX_DEPTH_LIMIT,
        };
        walk(value.raw(), value.raw().as_ptr() as usize, limits)
    }

    /// The content blocks, in order.
    pub fn content(&self) -> ContentBlocks<'a> {
        ContentBlocks {
            blocks: self.content.elements(),
        }
    }

    /// The content blocks as raw JSON values (to read `annotations`, `_meta`, …).
    pub fn content_values(&self) -> impl Iterator<Item = Value<'a>> + Clone + 'a {
        // `content` was checked to be an array, so this is never the empty fallback.
        self.content.elements().into_iter().flatten()
    }

    /// `structuredContent`: its exact text in the input, any JSON type.
    pub fn structured(&self) -> Option<Value<'a>> {
        self.structured
    }

    /// `isError` (`false` when absent).
    pub fn is_error(&self) -> bool {
        self.is_error
    }

    /// `resultType` (absent before 2026-07-28, where readers treat it as `"complete"`).
    pub fn result_type(&self) -> Option<JsonStr<'a>> {
        self.result_type
    }

    /// `_meta`, when present (an object).
    pub fn meta(&self) -> Option<Value<'a>> {
        self.meta
    }

    /// Deserialises `structuredContent`. Escaped strings, borrowed or owned by `T`, are decoded
    /// into `scratch`; `structured().raw().len()` bytes always suffice, and `&mut []` does when
    /// no string has escapes. Error offsets count from the start of `structuredContent`; a
    /// result without it is [`DecodeErrorKind::MissingField`].
    pub fn structured_as<T: Deserialize<'a>>(
        &self,
        scratch: &'a mut [u8],
    ) -> Result<T, DecodeError> {
        let value = self.structured.ok_or(DecodeError::new(
            DecodeErrorKind::MissingField("structuredContent"),
            0,
        ))?;
        json::from_value(value, scratch)
    }

    /// The `v` of a legacy-wrapped `structuredContent` `{"result": v}`: an object with exactly
    /// one member, named `result`. Whether a value was wrapped is known from the tool's output
    /// schema; an unwrapped object output of that shape looks the same.
    pub fn unwrap_legacy(&self) -> Option<Value<'a>> {
        let mut members = self.structured?.members()?;
        match (members.next(), members.next()) {
            (Some((key, value)), None) if key.eq_str("result") => Some(value),
            _ => None,
        }
    }
}

/// Iterator over the content blocks of a [`ResultView`].
#[derive(Debug, Clone)]
pub struct ContentBlocks<'a> {
    blocks: Option<Elements<'a>>,
}

impl<'a> Iterator for ContentBlocks<'a> {
    type Item = ContentBlock<'a>;

    fn next(&mut self) -> Option<ContentBlock<'a>> {
        let block = self.blocks.as_mut()?.next()?;
        // Every block was checked by `ResultView::check`, so `classify` succeeds here.
        Some(classify(block, 0).unwrap_or(ContentBlock::Other(block)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::DecodeErrorKind as K;

    #[test]
    fn reads_every_block_kind() {
        let bytes = br#" {"_meta":{},"resultType":"complete","isError":true,"content":[
            {"type":"text","text":"a\nb","annotations":{"priority":1}},
            {"type":"image","data":"AAEC","mimeType":"image/png"},
            {"type":"audio","data":"UklG","mimeType":"audio/wav"},
            {"type":"resource_link","uri":"file:///a","name":"a","title":"A"},
            {"type":"resource","resource":{"uri":"file:///b","text":"x"}},
            {"type":"future","x":1},
            {"\u0074ype":"text","text":"escaped key"}
        ],"structuredContent":{"result":[1,2]}} "#;
        let view = ResultView::parse(bytes).unwrap();
        assert!(view.is_error());
        assert!(view.result_type().unwrap().eq_str("complete"));
        assert_eq!(view.meta().unwrap().raw(), "{}");
        let blocks: std::vec::Vec<_> = view.content().collect();
        assert_eq!(blocks.len(), 7);
        assert!(matches!(blocks[0], ContentBlock::Text(t) if t.raw() == "a\\nb"));
        assert!(matches!(blocks[1], ContentBlock::Image { data, mime_type }
            if data.eq_str("AAEC") && mime_type.eq_str("image/png")));
        assert!(matches!(blocks[2], ContentBlock::Audio { data, .. } if data.eq_str("UklG")));
        assert!(matches!(blocks[3], ContentBlock::ResourceLink {
            uri, name, mime_type: None, description: None, title: Some(title)
        } if uri.eq_str("file:///a") && name.eq_str("a") && title.eq_str("A")));
        assert!(matches!(blocks[4], ContentBlock::Resource(r) if r.get("text").is_some()));
        assert!(matches!(blocks[5], ContentBlock::Other(v) if v.get("x").is_some()));
        assert!(matches!(blocks[6], ContentBlock::Text(t) if t.eq_str("escaped key")));
        assert_eq!(view.content_values().count(), 7);
        assert_eq!(view.structured().unwrap().raw(), r#"{"result":[1,2]}"#);
        assert_eq!(view.unwrap_legacy().unwrap().raw(), "[1,2]");
        let v: [u8; 2] = ResultView::parse(br#"{"content":[],"structuredContent":[1,2]}"#)
            .unwrap()
            .structured_as(&mut [])
            .unwrap();
        assert_eq!(v, [1, 2]);
    }

    #[test]
    fn defaults_when_absent() {
        let view = ResultView::parse(br#"{"content":[]}"#).unwrap();
        assert!(!view.is_error());
        assert!(view.result_type().is_none());
        assert!(view.structured().is_none());
        assert!(view.unwrap_legacy().is_none());
        assert_eq!(view.content().count(), 0);
        assert_eq!(
            view.structured_as::<u8>(&mut []).unwrap_err().kind,
            K::MissingField("structuredContent")
        );
        // Not a wrapper: two members, or another name.
        for s in [
            &br#"{"content":[],"structuredContent":{"result":1,"x":2}}"#[..],
            br#"{"content":[],"structuredContent":{"value":1}}"#,
            br#"{"content":[],"structuredContent":[1]}"#,
        ] {
            assert!(ResultView::parse(s).unwrap().unwrap_legacy().is_none());
        }
    }

    #[test]
    fn shape_errors_name_the_member_and_place() {
        use ResultError as E;
        let cases: &[(&str, ResultError)] = &[
            ("[]", E::NotAnObject { offset: 0 }),
            (
                r#" {"structuredContent":{}}"#,
                E::MissingMember {
                    member: "content",
                    offset: 1,
                },
            ),
            (
                r#"{"content":{}}"#,
                E::WrongType {
                    member: "content",
                    offset: 11,
                },
            ),
            (r#"{"content":[1]}"#, E::NotAnObject { offset: 12 }),
            (
                r#"{"content":[{"text":"x"}]}"#,
                E::MissingMember {
                    member: "type",
                    offset: 12,
                },
            ),
            (
                r#"{"content":[{"type":1}]}"#,
                E::WrongType {
                    member: "type",
                    offset: 20,
                },
            ),
            (
                r#"{"content":[{"type":"text"}]}"#,
                E::MissingMember {
                    member: "text",
                    offset: 12,
                },
            ),
            (
                r#"{"content":[{"type":"image","data":"x"}]}"#,
                E::MissingMember {
                    member: "mimeType",
                    offset: 12,
                },
            ),
            (
                r#"{"content":[{"type":"resource_link","uri":"u","name":"n","mimeType":null}]}"#,
                E::WrongType {
                    member: "mimeType",
                    offset: 68,
                },
            ),
            (
                r#"{"content":[{"type":"resource","resource":"x"}]}"#,
                E::WrongType {
                    member: "resource",
                    offset: 42,
                },
            ),
            (
                r#"{"content":[{"type":"text","text":"a","text":"b"}]}"#,
                E::DuplicateMember {
                    member: "text",
                    offset: 45,
                },
            ),
            (
                r#"{"content":[],"isError":"yes"}"#,
                E::WrongType {
                    member: "isError",
                    offset: 24,
                },
            ),
            (
                r#"{"content":[],"resultType":1}"#,
                E::WrongType {
                    member: "resultType",
                    offset: 27,
                },
            ),
            (
                r#"{"content":[],"_meta":[]}"#,
                E::WrongType {
                    member: "_meta",
                    offset: 22,
                },
            ),
            (
                r#"{"content":[],"structuredContent":1,"structured\u0043ontent":2}"#,
                E::DuplicateMember {
                    member: "structuredContent",
                    offset: 61,
                },
            ),
        ];
        for (input, expected) in cases {
            assert_eq!(
                ResultView::parse(input.as_bytes()).unwrap_err(),
                *expected,
                "{input}"
            );
        }
    }

    #[test]
    fn json_errors_win_over_shape_errors() {
        // The shape problem comes first in the text, the JSON error later: JSON wins.
        let e = ResultView::parse(br#"{"content":{},"x":[1,]}"#).unwrap_err();
        assert_eq!(
            e,
            ResultError::Json(DecodeError::new(K::UnexpectedByte, 21))
        );
        let e = ResultView::parse(br#"[1,2"#).unwrap_err();
        assert_eq!(e, ResultError::Json(DecodeError::new(K::UnexpectedEnd, 4)));
        // Of two shape problems, the first in the text is reported.
        let e = ResultView::parse(br#"{"content":[{"type":"text"}],"isError":1}"#).unwrap_err();
        assert_eq!(
            e,
            ResultError::MissingMember {
                member: "text",
                offset: 12
            }
        );
    }

    #[test]
    fn json_errors_are_wrapped() {
        let e = ResultView::parse(br#"{"content":[]} x"#).unwrap_err();
        assert_eq!(e, ResultError::Json(DecodeError::new(K::TrailingData, 15)));
        let mut deep = [b'['; 64];
        deep[..12].copy_from_slice(br#"{"content":["#);
        let e = ResultView::parse(&deep).unwrap_err();
        assert!(matches!(e, ResultError::Json(d) if d.kind == K::TooDeep));
        let limits = Limits { max_depth: 2 };
        let e = ResultView::parse_with(br#"{"content":[{"type":"x"}]}"#, limits).unwrap_err();
        assert!(matches!(e, ResultError::Json(d) if d.kind == K::TooDeep));
    }
}
