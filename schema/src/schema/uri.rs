//! URI reference resolution (RFC 3986 §5.2) in a fixed buffer, for `$id` and `$ref`.
//!
//! Only what identifying resources inside one document needs: splitting into components,
//! resolving a reference against a base, and removing dot segments. No normalisation beyond
//! that (no case folding, no percent-decoding): two URIs name the same resource when their
//! resolved texts are equal.

use crate::json::copy_bytes;

/// Longest URI handled, in bytes.
pub(crate) const URI_CAPACITY: usize = 256;

/// A URI in a fixed buffer.
#[derive(Clone, Copy)]
pub(crate) struct Uri {
    buf: [u8; URI_CAPACITY],
    len: usize,
}

impl Uri {
    pub(crate) const fn new() -> Self {
        Self {
            buf: [0; URI_CAPACITY],
            len: 0,
        }
    }

    pub(crate) fn as_str(&self) -> &str {
        core::str::from_utf8(self.buf.get(..self.len).unwrap_or_default()).unwrap_or_default()
    }

    fn push(&mut self, s: &str) -> Option<()> {
        let end = self.len.checked_add(s.len())?;
        copy_bytes(self.buf.get_mut(self.len..end)?, s.as_bytes());
        self.len = end;
        Some(())
    }

    /// The URI without its fragment.
    pub(crate) fn without_fragment(&self) -> &str {
        let s = self.as_str();
        s.split_once('#').map_or(s, |(a, _)| a)
    }

    /// Drops the last path segment and the `/` before it (RFC 3986 §5.2.4, step C), but never
    /// below `floor` (the end of scheme and authority).
    fn pop_segment(&mut self, floor: usize) {
        let path = self.buf.get(floor..self.len).unwrap_or_default();
        // A position in `buf[floor..len]`: below `len`, no wrap.
        self.len = floor.wrapping_add(path.iter().rposition(|&b| b == b'/').unwrap_or(0));
    }
}

/// The five components of a URI reference (RFC 3986 appendix B).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Parts<'a> {
    scheme: Option<&'a str>,
    authority: Option<&'a str>,
    path: &'a str,
    query: Option<&'a str>,
    fragment: Option<&'a str>,
}

fn split(s: &str) -> Parts<'_> {
    let (rest, fragment) = match s.split_once('#') {
        Some((a, f)) => (a, Some(f)),
        None => (s, None),
    };
    let (rest, query) = match rest.split_once('?') {
        Some((a, q)) => (a, Some(q)),
        None => (rest, None),
    };
    let scheme_end = rest
        .find(':')
        .filter(|&i| i > 0 && !rest.get(..i).unwrap_or_default().contains('/'));
    let (scheme, rest) = match scheme_end {
        Some(i) => (
            rest.get(..i),
            rest.get(i.wrapping_add(1)..).unwrap_or_default(),
        ), // i < len
        None => (None, rest),
    };
    let (authority, path) = match rest.strip_prefix("//") {
        Some(after) => {
            let end = after.find('/').unwrap_or(after.len());
            (after.get(..end), after.get(end..).unwrap_or_default())
        }
        None => (None, rest),
    };
    Parts {
        scheme,
        authority,
        path,
        query,
        fragment,
    }
}

/// Resolves `reference` against `base` (RFC 3986 §5.2.2); `None` when the result does not fit.
pub(crate) fn resolve(base: &str, reference: &str) -> Option<Uri> {
    let r = split(reference);
    let b = split(base);
    let mut out = Uri::new();
    let (scheme, authority, query);
    // The path is written after scheme and authority, then dot segments are removed in place.
    if r.scheme.is_some() {
        scheme = r.scheme;
        authority = r.authority;
        query = r.query;
        write_prefix(&mut out, scheme, authority)?;
        let floor = out.len;
        remove_dots(&mut out, floor, r.path)?;
    } else if r.authority.is_some() {
        scheme = b.scheme;
        authority = r.authority;
        query = r.query;
        write_prefix(&mut out, scheme, authority)?;
        let floor = out.len;
        remove_dots(&mut out, floor, r.path)?;
    } else {
        scheme = b.scheme;
        authority = b.authority;
        write_prefix(&mut out, scheme, authority)?;
        let floor = out.len;
        if r.path.is_empty() {
            out.push(b.path)?;
            query = r.query.or(b.query);
        } else {
            query = r.query;
            if r.path.starts_with('/') {
                remove_dots(&mut out, floor, r.path)?;
            } else {
                // Merge (§5.2.3) into a scratch URI, then remove dot segments from it.
                let mut merged = Uri::new();
                if b.authority.is_some() && b.path.is_empty() {
                    merged.push("/")?;
                } else if let Some(slash) = b.path.bytes().rposition(|c| c == b'/') {
                    // (A byte search: `str::rfind` keeps a bounds check the optimiser cannot
                    // remove.)
                    merged.push(b.path.get(..=slash).unwrap_or_default())?;
                }
                merged.push(r.path)?;
                remove_dots(&mut out, floor, merged.as_str())?;
            }
        }
    }
    if let Some(q) = query {
        out.push("?")?;
        out.push(q)?;
    }
    if let Some(f) = r.fragment {
        out.push("#")?;
        out.push(f)?;
    }
    Some(out)
}

fn write_prefix(out: &mut Uri, scheme: Option<&str>, authority: Option<&str>) -> Option<()> {
    if let Some(s) = scheme {
        out.push(s)?;
        out.push(":")?;
    }
    if let Some(a) = authority {
        out.push("//")?;
        out.push(a)?;
    }
    Some(())
}

/// Appends `input` to `out` with dot segments removed (RFC 3986 §5.2.4); `floor` is where the
/// path starts in `out`.
fn remove_dots(out: &mut Uri, floor: usize, input: &str) -> Option<()> {
    let mut rest = input;
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix("../").or_else(|| rest.strip_prefix("./")) {
            rest = r;
        } else if rest.starts_with("/./") {
            rest = rest.get(2..).unwrap_or_default();
        } else if rest == "/." {
            rest = "/";
        } else if rest.starts_with("/../") {
            rest = rest.get(3..).unwrap_or_default();
            out.pop_segment(floor);
        } else if rest == "/.." {
            rest = "/";
            out.pop_segment(floor);
        } else if rest == "." || rest == ".." {
            rest = "";
        } else {
            // Move the first segment, with its leading `/` if any.
            let start = usize::from(rest.starts_with('/'));
            let end = rest
                .get(start..)
                .and_then(|r| r.find('/'))
                .map_or(rest.len(), |i| i.wrapping_add(start)); // a position in `rest`
            out.push(rest.get(..end).unwrap_or_default())?;
            rest = rest.get(end..).unwrap_or_default();
        }
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(base: &str, reference: &str) -> std::string::String {
        std::string::String::from(resolve(base, reference).unwrap().as_str())
    }

    #[test]
    fn rfc_3986_examples() {
        // RFC 3986 §5.4.1 (normal) and §5.4.2 (abnormal) examples.
        let base = "http://a/b/c/d;p?q";
        for (reference, expected) in [
            ("g:h", "g:h"),
            ("g", "http://a/b/c/g"),
            ("./g", "http://a/b/c/g"),
            ("g/", "http://a/b/c/g/"),
            ("/g", "http://a/g"),
            ("//g", "http://g"),
            ("?y", "http://a/b/c/d;p?y"),
            ("g?y", "http://a/b/c/g?y"),
            ("#s", "http://a/b/c/d;p?q#s"),
            ("g#s", "http://a/b/c/g#s"),
            (";x", "http://a/b/c/;x"),
            ("", "http://a/b/c/d;p?q"),
            (".", "http://a/b/c/"),
            ("./", "http://a/b/c/"),
            ("..", "http://a/b/"),
            ("../", "http://a/b/"),
            ("../g", "http://a/b/g"),
            ("../..", "http://a/"),
            ("../../g", "http://a/g"),
            ("../../../g", "http://a/g"),
            ("/./g", "http://a/g"),
            ("/../g", "http://a/g"),
            ("g.", "http://a/b/c/g."),
            ("..g", "http://a/b/c/..g"),
            ("./../g", "http://a/b/g"),
            ("g/./h", "http://a/b/c/g/h"),
            ("g/../h", "http://a/b/c/h"),
        ] {
            assert_eq!(r(base, reference), expected, "{reference}");
        }
    }

    #[test]
    fn schema_identifiers() {
        assert_eq!(r("", "#/$defs/a"), "#/$defs/a");
        assert_eq!(r("", "foo.json"), "foo.json");
        assert_eq!(
            r("http://localhost:1234/draft2020-12/tree", "node"),
            "http://localhost:1234/draft2020-12/node"
        );
        assert_eq!(
            r(
                "urn:uuid:deadbeef-1234-ffff-ffff-4321feebdaed",
                "#/$defs/bar"
            ),
            "urn:uuid:deadbeef-1234-ffff-ffff-4321feebdaed#/$defs/bar"
        );
        assert_eq!(
            r("file:///c:/folder/file.json", "#/$defs/foo"),
            "file:///c:/folder/file.json#/$defs/foo"
        );
        assert_eq!(
            r("http://example.com/ref/absref.json", "/absref/foobar.json"),
            "http://example.com/absref/foobar.json"
        );
        let long = "a".repeat(300);
        assert!(resolve("http://x/", &long).is_none());
    }
}
