//! Schema text with holes: the derive writes a type's schema before the schemas of the derived
//! types it nests are known; the second stage fills the holes. Templates travel between the two
//! stages as tokens.

use proc_macro2::{Delimiter, Group, Literal, TokenStream, TokenTree};

/// A piece of a template.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Piece {
    /// JSON text.
    Text(String),
    /// The members of nested type `need` (its own `title`/`description` first when `own`).
    Hole { need: usize, own: bool },
    /// The schema of field `k` (a struct's own templates only).
    Field(usize),
}

/// JSON text with holes.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Template(pub(crate) Vec<Piece>);

impl Template {
    /// A template of text only.
    pub(crate) fn text(s: &str) -> Self {
        let mut t = Self::default();
        t.push(s);
        t
    }

    /// Appends text.
    pub(crate) fn push(&mut self, s: &str) {
        if let Some(Piece::Text(last)) = self.0.last_mut() {
            last.push_str(s);
        } else if !s.is_empty() {
            self.0.push(Piece::Text(s.to_owned()));
        }
    }

    /// Appends a piece.
    pub(crate) fn piece(&mut self, p: Piece) {
        match p {
            Piece::Text(s) => self.push(&s),
            other => self.0.push(other),
        }
    }

    /// Appends another template.
    pub(crate) fn append(&mut self, other: Template) {
        for p in other.0 {
            self.piece(p);
        }
    }

    /// Whether the template is empty.
    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The template as tokens: `[ "text" (need own) [field] ... ]`.
    pub(crate) fn to_tokens(&self) -> TokenTree {
        let mut ts = TokenStream::new();
        for p in &self.0 {
            let tt: TokenTree = match p {
                Piece::Text(s) => Literal::string(s).into(),
                Piece::Hole { need, own } => {
                    let inner: TokenStream = [
                        TokenTree::from(Literal::usize_unsuffixed(*need)),
                        Literal::u8_unsuffixed(u8::from(*own)).into(),
                    ]
                    .into_iter()
                    .collect();
                    Group::new(Delimiter::Parenthesis, inner).into()
                }
                Piece::Field(k) => Group::new(
                    Delimiter::Bracket,
                    TokenTree::from(Literal::usize_unsuffixed(*k)).into(),
                )
                .into(),
            };
            ts.extend([tt]);
        }
        Group::new(Delimiter::Bracket, ts).into()
    }

    /// Reads what [`Template::to_tokens`] wrote.
    pub(crate) fn from_tokens(tt: &TokenTree) -> syn::Result<Self> {
        let bad = || syn::Error::new(tt.span(), "McpSchema: malformed template");
        let TokenTree::Group(g) = tt else {
            return Err(bad());
        };
        let mut out = Template::default();
        for t in g.stream() {
            match &t {
                TokenTree::Literal(_) => {
                    let s: syn::LitStr = syn::parse2(t.into())?;
                    out.push(&s.value());
                }
                TokenTree::Group(g) => {
                    let nums: Vec<usize> = g
                        .stream()
                        .into_iter()
                        .map(|n| syn::parse2::<syn::LitInt>(n.into())?.base10_parse())
                        .collect::<syn::Result<_>>()?;
                    match (g.delimiter(), nums.as_slice()) {
                        (Delimiter::Parenthesis, [need, own]) => out.0.push(Piece::Hole {
                            need: *need,
                            own: *own == 1,
                        }),
                        (Delimiter::Bracket, [k]) => out.0.push(Piece::Field(*k)),
                        _ => return Err(bad()),
                    }
                }
                _ => return Err(bad()),
            }
        }
        Ok(out)
    }
}

/// `s` as a JSON string literal (quotes, backslashes and control characters escaped).
pub(crate) fn json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for ch in s.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if u32::from(c) < 0x20 => out.push_str(&format!("\\u{:04x}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::{json_string, Piece, Template};

    #[test]
    fn templates_survive_tokens() {
        let mut t = Template::text("{\"a\":");
        t.piece(Piece::Field(1));
        t.push(",");
        t.piece(Piece::Hole { need: 2, own: true });
        t.push("}");
        assert_eq!(Template::from_tokens(&t.to_tokens()).unwrap(), t);
    }

    #[test]
    fn strings_are_escaped() {
        assert_eq!(json_string("a\"b\\c\n\u{1}é"), "\"a\\\"b\\\\c\\n\\u0001é\"");
    }
}
