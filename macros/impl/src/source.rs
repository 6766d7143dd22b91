//! The derive run on a source file instead of by the compiler: the two stages as the proc-macro
//! runs them, except that a nested type's schema is found by its name in the same file (where
//! the compiler would call that type's hidden macro).

use std::fmt;

use proc_macro2::{Literal, TokenStream};

use crate::compose::{self, Done, Step};
use crate::derive;

/// Deepest nesting of derived types followed (a type that contains itself never ends).
const MAX_NESTING: usize = 32;

/// A type's two schemas, as the derive makes them: compact JSON, byte for byte the text of
/// `McpSchema::INPUT_SCHEMA` and `McpSchema::OUTPUT_SCHEMA`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Schemas {
    /// What serde reads (a tool's `inputSchema`).
    pub input: String,
    /// What serde writes (a tool's `outputSchema`).
    pub output: String,
}

/// Why a type's schemas could not be made from a source file.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SourceError {
    /// The file is not Rust syntax.
    Parse {
        /// Line of the error (1-based).
        line: usize,
        /// syn's message.
        message: String,
    },
    /// No struct or enum of this name in the file (also a nested type defined elsewhere: the
    /// file is read alone).
    NotFound(String),
    /// More than one struct or enum of this name in the file.
    Ambiguous(String),
    /// The derive refuses the type, as it would at build time.
    Refused {
        /// Line of the item or field the error names (1-based).
        line: usize,
        /// The derive's message.
        message: String,
    },
    /// Nested types deeper than 32 levels (a type that contains itself).
    TooDeep(String),
}

impl fmt::Display for SourceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Parse { line, message } => write!(f, "line {line}: {message}"),
            Self::NotFound(name) => write!(
                f,
                "no struct or enum named `{name}` in the file (nested types must be defined in \
                 the same file)"
            ),
            Self::Ambiguous(name) => {
                write!(
                    f,
                    "more than one struct or enum is named `{name}` in the file"
                )
            }
            Self::Refused { line, message } => write!(f, "line {line}: {message}"),
            Self::TooDeep(name) => write!(
                f,
                "`{name}`: derived types nested deeper than {MAX_NESTING} levels (does a type \
                 contain itself?)"
            ),
        }
    }
}

impl std::error::Error for SourceError {}

fn refused(e: &syn::Error) -> SourceError {
    SourceError::Refused {
        line: e.span().start().line,
        message: e.to_string(),
    }
}

/// The schemas `#[derive(McpSchema)]` makes for the struct or enum `name` of the Rust source
/// `source` (in any inline module of it), compiled by the core's compiler as at build time, so
/// that a refused constraint is the same error. Nested derived types must be in the same file;
/// they are found by the last segment of the path the field names them with.
pub fn schemas_in_file(source: &str, name: &str) -> Result<Schemas, SourceError> {
    let file = syn::parse_file(source).map_err(|e| SourceError::Parse {
        line: e.span().start().line,
        message: e.to_string(),
    })?;
    let mut types = Vec::new();
    collect(&file.items, &mut types);
    let done = run(&types, name, 0)?;
    Ok(Schemas {
        input: done.input_schema,
        output: done.output_schema,
    })
}

/// Every struct and enum of `items` and of their inline modules, as the derive sees them.
fn collect(items: &[syn::Item], out: &mut Vec<syn::DeriveInput>) {
    for item in items {
        match item {
            syn::Item::Struct(s) => out.push(s.clone().into()),
            syn::Item::Enum(e) => out.push(e.clone().into()),
            syn::Item::Mod(syn::ItemMod {
                content: Some((_, items)),
                ..
            }) => collect(items, out),
            _ => {}
        }
    }
}

fn run(types: &[syn::DeriveInput], name: &str, depth: usize) -> Result<Done, SourceError> {
    if depth > MAX_NESTING {
        return Err(SourceError::TooDeep(name.to_owned()));
    }
    let mut found = types.iter().filter(|t| t.ident == name);
    let ty = found
        .next()
        .ok_or_else(|| SourceError::NotFound(name.to_owned()))?;
    if found.next().is_some() {
        return Err(SourceError::Ambiguous(name.to_owned()));
    }
    let (_, mut stage) = derive::first_stage(ty).map_err(|e| refused(&e))?;
    loop {
        match compose::step(stage).map_err(|e| refused(&e))? {
            Step::Done(done) => return Ok(*done),
            Step::Ask { path, input } => {
                let path: syn::Path = syn::parse2(path).map_err(|e| refused(&e))?;
                let nested = path
                    .segments
                    .last()
                    .map(|s| s.ident.to_string())
                    .unwrap_or_default();
                let answer = run(types, &nested, depth + 1)?.answer;
                let mut next = input;
                next.extend(answer.iter().map(|a| {
                    let lit: TokenStream = proc_macro2::TokenTree::from(Literal::string(a)).into();
                    lit
                }));
                stage = next;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SOURCE: &str = r#"
        use embedded_mcp::McpSchema;

        mod units {
            /// Degrees Celsius.
            #[derive(McpSchema)]
            pub struct Celsius(#[mcp(minimum = -40, maximum = 125)] pub f32);
        }

        /// A reading.
        #[derive(McpSchema)]
        struct Reading {
            /// Which sensor.
            #[mcp(maximum = 3)]
            sensor: u8,
            value: units::Celsius,
            #[serde(skip_serializing_if = "Option::is_none")]
            note: Option<heapless::String<16>>,
        }

        struct Loop { next: Loop }
        struct Twice;
        mod other { struct Twice; }
    "#;

    #[test]
    fn nested_types_are_found_in_the_file() {
        let s = schemas_in_file(SOURCE, "Reading").unwrap();
        assert_eq!(
            s.input,
            r#"{"description":"A reading.","type":"object","properties":{"sensor":{"description":"Which sensor.","type":"integer","minimum":0,"maximum":3},"value":{"description":"Degrees Celsius.","type":"number","minimum":-40,"maximum":125},"note":{"type":["string","null"],"maxLength":16}},"required":["sensor","value"],"additionalProperties":false}"#
        );
        assert_eq!(
            s.output,
            r#"{"description":"A reading.","type":"object","properties":{"sensor":{"description":"Which sensor.","type":"integer","minimum":0,"maximum":3},"value":{"description":"Degrees Celsius.","type":"number","minimum":-40,"maximum":125},"note":{"type":"string","maxLength":16}},"required":["sensor","value"]}"#
        );
    }

    #[test]
    fn errors_name_the_type_and_line() {
        assert_eq!(
            schemas_in_file(SOURCE, "Missing"),
            Err(SourceError::NotFound("Missing".into()))
        );
        assert_eq!(
            schemas_in_file(SOURCE, "Twice"),
            Err(SourceError::Ambiguous("Twice".into()))
        );
        assert_eq!(
            schemas_in_file(SOURCE, "Loop"),
            Err(SourceError::TooDeep("Loop".into()))
        );
        let refused = "struct S {\n    #[mcp(minimum = 300)]\n    level: u8,\n}";
        let e = schemas_in_file(refused, "S").unwrap_err();
        assert!(
            matches!(&e, SourceError::Refused { line: 2, message } if message.contains("minimum")),
            "{e:?}"
        );
        assert!(matches!(
            schemas_in_file("struct {", "S"),
            Err(SourceError::Parse { line: 1, .. })
        ));
    }

    /// Without the `pattern` feature the derive refuses a pattern, naming the field and the
    /// feature (with it, `macros/tests/pattern.rs` checks one at run time).
    #[cfg(not(feature = "pattern"))]
    #[test]
    fn pattern_needs_the_feature() {
        let source =
            "struct Name {\n    #[mcp(pattern = \"^[a-z]+$\")]\n    name: heapless::String<8>,\n}";
        assert_eq!(
            schemas_in_file(source, "Name"),
            Err(SourceError::Refused {
                line: 3,
                message: "McpSchema: field `name`: /pattern: `pattern` is refused: regular \
                          expressions need the `pattern` feature of embedded-mcp (schema \
                          {\"type\":\"string\",\"maxLength\":8,\"pattern\":\"^[a-z]+$\"})"
                    .into()
            })
        );
    }
}
