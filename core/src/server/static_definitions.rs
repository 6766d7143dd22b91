//! The definition checks of [`check_definitions`](super::definitions::check_definitions),
//! evaluated while compiling for a typed toolbox (its tools and programs are constants), so
//! that a firmware built with [`Server::from_tools`](super::Server::from_tools) carries no
//! checking code.
//!
//! [`check`] answers `None` wherever it is not sure to reach the run-time check's verdict (a
//! `_meta` text, which needs the full parser; a schema with whitespace outside strings, an escape
//! other than the simple ones or a `\u` surrogate, a duplicate root `type`, nesting deeper than
//! [`MAX_NESTING`]): the server then checks at run time, as for any other tools. A definite
//! answer is the run-time one: the same first error, or the same `object_output`.

use super::{DefinitionError, SchemaRole, Tool, ToolSchemas};

/// Deepest nesting the compile-time reader follows (the run-time check allows
/// [`MAX_DEPTH_LIMIT`](crate::json::MAX_DEPTH_LIMIT)).
pub const MAX_NESTING: usize = 32;

/// What the reader found at a schema's root.
#[derive(Clone, Copy)]
struct Root {
    /// The text is one JSON object.
    is_object: bool,
    /// Its `type` member is the string `"object"`.
    type_object: bool,
}

/// The definition checks of a typed toolbox, at compile time: `Some(Ok(object_output))` (per
/// tool, whether its `outputSchema`'s root type is `"object"`), `Some(Err(e))` for the error the
/// run-time check reports first, `None` when this reader cannot tell.
pub const fn check<const N: usize>(
    tools: &[Tool; N],
    programs: &[ToolSchemas<'_>; N],
) -> Option<Result<[bool; N], DefinitionError>> {
    if N > u16::MAX as usize {
        return Some(Err(DefinitionError::TooManyTools));
    }
    let mut object_output = [false; N];
    let mut slots: &mut [bool] = &mut object_output;
    let mut rest: &[Tool] = tools;
    let mut index = 0usize;
    while let ([tool, more @ ..], [slot, more_slots @ ..]) = (rest, slots) {
        if let Err(error) = tool.check_static() {
            return Some(Err(DefinitionError::Static { tool: index, error }));
        }
        if let Some(first) = position(tools, index, tool.name) {
            return Some(Err(DefinitionError::DuplicateName { tool: index, first }));
        }
        let Some(input) = root(tool.input_schema.as_bytes()) else {
            return None;
        };
        if !input.is_object || !input.type_object {
            return Some(Err(DefinitionError::SchemaNotObject {
                tool: index,
                role: SchemaRole::Input,
            }));
        }
        if let Some(output) = tool.output_schema {
            let Some(output) = root(output.as_bytes()) else {
                return None;
            };
            if !output.is_object {
                return Some(Err(DefinitionError::SchemaNotObject {
                    tool: index,
                    role: SchemaRole::Output,
                }));
            }
            *slot = output.type_object;
        }
        if tool.meta.is_some() {
            return None;
        }
        rest = more;
        slots = more_slots;
        // At most `N`, which fits (checked above).
        index = index.wrapping_add(1);
    }
    // After every tool's own checks, as `Server::with_programs` does.
    let (mut rest, mut progs): (&[Tool], &[ToolSchemas<'_>]) = (tools, programs);
    let mut index = 0usize;
    while let ([tool, more @ ..], [program, more_progs @ ..]) = (rest, progs) {
        if tool.output_schema.is_some() != program.output.is_some() {
            return Some(Err(DefinitionError::ProgramMismatch { tool: index }));
        }
        (rest, progs) = (more, more_progs);
        index = index.wrapping_add(1);
    }
    Some(Ok(object_output))
}

/// Per tool, whether its `outputSchema`'s root type is `"object"` as the run-time check finds
/// it; `false` where this reader cannot tell (2025 peers then get it wrapped: the longer form).
pub(super) const fn object_outputs<const N: usize>(tools: &[Tool; N]) -> [bool; N] {
    let mut object_output = [false; N];
    let mut slots: &mut [bool] = &mut object_output;
    let mut rest: &[Tool] = tools;
    while let ([tool, more @ ..], [slot, more_slots @ ..]) = (rest, slots) {
        if let Some(output) = tool.output_schema {
            if let Some(root) = root(output.as_bytes()) {
                *slot = root.type_object;
            }
        }
        rest = more;
        slots = more_slots;
    }
    object_output
}

/// The index of the first of `tools[..before]` named `name`.
const fn position(tools: &[Tool], before: usize, name: &str) -> Option<usize> {
    let mut rest = tools;
    let mut index = 0usize;
    while let [tool, more @ ..] = rest {
        if index >= before {
            return None;
        }
        if same(tool.name.as_bytes(), name.as_bytes()) {
            return Some(index);
        }
        rest = more;
        index = index.wrapping_add(1);
    }
    None
}

const fn same(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let (mut a, mut b) = (a, b);
    while let ([x, more_a @ ..], [y, more_b @ ..]) = (a, b) {
        if *x != *y {
            return false;
        }
        (a, b) = (more_a, more_b);
    }
    true
}

/// Reads a schema text that is one compact JSON value; `None` when it is not JSON or not sure.
const fn root(text: &[u8]) -> Option<Root> {
    let [b'{', body @ ..] = text else {
        // Not an object: JSON or not, the run-time check refuses it; this reader is only sure
        // about the JSON it can read.
        return match value(text, 0) {
            Some([]) => Some(Root {
                is_object: false,
                type_object: false,
            }),
            _ => None,
        };
    };
    let mut rest = body;
    let mut type_object = None;
    if let [b'}', after @ ..] = rest {
        return match after {
            [] => Some(Root {
                is_object: true,
                type_object: false,
            }),
            _ => None,
        };
    }
    loop {
        let [b'"', after_quote @ ..] = rest else {
            return None;
        };
        let Some(after_key) = string(after_quote) else {
            return None;
        };
        let is_type = is_word(after_quote, after_key, b"type");
        let [b':', after_colon @ ..] = after_key else {
            return None;
        };
        let Some(after_value) = value(after_colon, 1) else {
            return None;
        };
        if is_type {
            if type_object.is_some() {
                return None;
            }
            type_object = Some(match after_colon {
                // An escape in the type's name is decoded at run time: left to it.
                [b'"', word @ ..] if has_escape(word, after_value) => return None,
                [b'"', word @ ..] => is_word(word, after_value, b"object"),
                _ => false,
            });
        }
        match after_value {
            [b',', next @ ..] => rest = next,
            [b'}'] => {
                return Some(Root {
                    is_object: true,
                    type_object: matches!(type_object, Some(true)),
                })
            }
            _ => return None,
        }
    }
}

/// True when the string token that starts at `body` (after its opening quote) and ends where
/// `after` begins is exactly `"word"` (no escapes).
const fn is_word(body: &[u8], after: &[u8], word: &[u8]) -> bool {
    // `after` is a suffix of `body`; the token is `word` plus its closing quote.
    let token = body.len().wrapping_sub(after.len());
    if token != word.len().wrapping_add(1) {
        return false;
    }
    match body.split_at_checked(word.len()) {
        Some((head, _)) => same(head, word),
        None => false,
    }
}

/// True when the token from `body` to `after` (a suffix of it) has a backslash.
const fn has_escape(body: &[u8], after: &[u8]) -> bool {
    let mut rest = body;
    while let [c, more @ ..] = rest {
        if more.len() < after.len() {
            return false;
        }
        if *c == b'\\' {
            return true;
        }
        rest = more;
    }
    false
}

/// The text after one compact JSON value at the start of `b`.
const fn value(b: &[u8], depth: usize) -> Option<&[u8]> {
    // `depth` grows by one per level up to here: no wrap.
    if depth > MAX_NESTING {
        return None;
    }
    match b {
        [b'"', rest @ ..] => string(rest),
        [b'{', rest @ ..] => members(rest, depth.wrapping_add(1)),
        [b'[', rest @ ..] => items(rest, depth.wrapping_add(1)),
        [b't', b'r', b'u', b'e', rest @ ..] | [b'n', b'u', b'l', b'l', rest @ ..] => Some(rest),
        [b'f', b'a', b'l', b's', b'e', rest @ ..] => Some(rest),
        _ => number(b),
    }
}

/// The text after an object's members and its `}` (its `{` read).
const fn members(b: &[u8], depth: usize) -> Option<&[u8]> {
    if let [b'}', rest @ ..] = b {
        return Some(rest);
    }
    let mut rest = b;
    loop {
        let [b'"', key @ ..] = rest else {
            return None;
        };
        let Some([b':', after_colon @ ..]) = string(key) else {
            return None;
        };
        match value(after_colon, depth) {
            Some([b',', next @ ..]) => rest = next,
            Some([b'}', after @ ..]) => return Some(after),
            _ => return None,
        }
    }
}

/// The text after an array's items and its `]` (its `[` read).
const fn items(b: &[u8], depth: usize) -> Option<&[u8]> {
    if let [b']', rest @ ..] = b {
        return Some(rest);
    }
    let mut rest = b;
    loop {
        match value(rest, depth) {
            Some([b',', next @ ..]) => rest = next,
            Some([b']', after @ ..]) => return Some(after),
            _ => return None,
        }
    }
}

/// The text after a string's closing quote (its opening quote read).
const fn string(b: &[u8]) -> Option<&[u8]> {
    let mut rest = b;
    loop {
        match rest {
            [b'"', after @ ..] => return Some(after),
            [b'\\', b'u', a, b, c, d, after @ ..] => {
                // Surrogate escapes (D800 to DFFF) are left to the run-time check.
                let surrogate = matches!(*a, b'd' | b'D')
                    && matches!(*b, b'8' | b'9' | b'a'..=b'f' | b'A'..=b'F');
                if surrogate || !hex(*a) || !hex(*b) || !hex(*c) || !hex(*d) {
                    return None;
                }
                rest = after;
            }
            [b'\\', e, after @ ..] => {
                if !matches!(*e, b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') {
                    return None;
                }
                rest = after;
            }
            [c, after @ ..] => {
                if *c < 0x20 {
                    return None;
                }
                rest = after;
            }
            [] => return None,
        }
    }
}

const fn hex(c: u8) -> bool {
    c.is_ascii_hexdigit()
}

/// The text after a number: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
const fn number(b: &[u8]) -> Option<&[u8]> {
    let mut rest = match b {
        [b'-', after @ ..] => after,
        _ => b,
    };
    rest = match rest {
        [b'0', after @ ..] => after,
        [b'1'..=b'9', after @ ..] => digits(after),
        _ => return None,
    };
    if let [b'.', after @ ..] = rest {
        let more = digits(after);
        if more.len() == after.len() {
            return None;
        }
        rest = more;
    }
    if let [b'e' | b'E', after @ ..] = rest {
        let after = match after {
            [b'+' | b'-', signed @ ..] => signed,
            _ => after,
        };
        let more = digits(after);
        if more.len() == after.len() {
            return None;
        }
        rest = more;
    }
    Some(rest)
}

const fn digits(b: &[u8]) -> &[u8] {
    let mut rest = b;
    while let [b'0'..=b'9', after @ ..] = rest {
        rest = after;
    }
    rest
}

#[cfg(test)]
mod tests;
