//! Identifiers from tool and property names: words, case conventions, keywords, uniqueness.
//!
//! A name is split into words at every character that is not an ASCII letter or digit and at
//! lower-to-upper case changes (`rampMs` → `ramp`, `ms`; `HTTPPort` → `http`, `port`). The
//! words are then joined in the target convention. A result that is empty, starts with a digit
//! or is a keyword gets a fixed repair (see [`Case::apply`] and [`Namer`]), and a [`Namer`]
//! hands out each identifier once: a later clash gets `_2`, `_3`, … (`2`, `3`, … in camel and
//! Pascal case), in the order the names were asked for.

use std::collections::BTreeSet;

/// A case convention.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Case {
    /// `read_temperature`.
    Snake,
    /// `readTemperature`.
    Camel,
    /// `ReadTemperature`.
    Pascal,
    /// `READ_TEMPERATURE`.
    ScreamingSnake,
}

/// The words of `name`, lower case.
pub fn words(name: &str) -> Vec<String> {
    let chars: Vec<char> = name.chars().collect();
    let mut words = Vec::new();
    let mut current = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_ascii_alphanumeric() {
            if !current.is_empty() {
                words.push(std::mem::take(&mut current));
            }
            continue;
        }
        let prev = i.checked_sub(1).and_then(|p| chars.get(p)).copied();
        let next = chars.get(i + 1).copied();
        let boundary = c.is_ascii_uppercase()
            && prev.is_some_and(|p| {
                p.is_ascii_lowercase()
                    || p.is_ascii_digit()
                    || (p.is_ascii_uppercase() && next.is_some_and(|n| n.is_ascii_lowercase()))
            });
        if boundary && !current.is_empty() {
            words.push(std::mem::take(&mut current));
        }
        current.push(c.to_ascii_lowercase());
    }
    if !current.is_empty() {
        words.push(current);
    }
    words
}

fn capitalised(word: &str) -> String {
    let mut out = String::with_capacity(word.len());
    let mut chars = word.chars();
    if let Some(first) = chars.next() {
        out.push(first.to_ascii_uppercase());
    }
    out.extend(chars);
    out
}

impl Case {
    /// `name` in this convention; `fallback` (already in this convention) when `name` has no
    /// ASCII letter or digit, and `fallback` in front when the result would start with a digit.
    pub fn apply(self, name: &str, fallback: &str) -> String {
        let words = words(name);
        if words.is_empty() {
            return fallback.to_owned();
        }
        let joined = match self {
            Self::Snake => words.join("_"),
            Self::ScreamingSnake => words.join("_").to_ascii_uppercase(),
            Self::Pascal => words.iter().map(|w| capitalised(w)).collect(),
            Self::Camel => {
                let mut out = words[0].clone();
                out.extend(words[1..].iter().map(|w| capitalised(w)));
                out
            }
        };
        if joined.starts_with(|c: char| c.is_ascii_digit()) {
            match self {
                Self::Snake | Self::ScreamingSnake => format!("{fallback}_{joined}"),
                Self::Camel | Self::Pascal => format!("{fallback}{joined}"),
            }
        } else {
            joined
        }
    }
}

/// Hands out unique identifiers in one namespace.
#[derive(Debug, Clone, Default)]
pub struct Namer {
    taken: BTreeSet<String>,
}

impl Namer {
    /// A namespace where `reserved` (helpers of the generated module, keywords) are taken.
    pub fn new(reserved: &[&str]) -> Self {
        Self {
            taken: reserved.iter().map(|s| (*s).to_owned()).collect(),
        }
    }

    /// `wanted`, or `wanted` with the smallest suffix from 2 up that is still free; the result
    /// is taken from now on. `separator` goes between the name and the suffix (`_` or ``).
    pub fn claim(&mut self, wanted: &str, separator: &str) -> String {
        let mut candidate = wanted.to_owned();
        let mut n = 2u32;
        while self.taken.contains(&candidate) {
            candidate = format!("{wanted}{separator}{n}");
            n += 1;
        }
        self.taken.insert(candidate.clone());
        candidate
    }
}

/// Whether `name` is an identifier in JavaScript, Python and Rust alike (ASCII only).
pub fn is_plain_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_split_at_separators_and_case_changes() {
        assert_eq!(words("read_temperature"), ["read", "temperature"]);
        assert_eq!(words("rampMs"), ["ramp", "ms"]);
        assert_eq!(words("HTTPPort"), ["http", "port"]);
        assert_eq!(words("bench.read-temp2"), ["bench", "read", "temp2"]);
        assert_eq!(words("v2Reading"), ["v2", "reading"]);
        assert_eq!(words("°C"), ["c"]);
        assert!(words("--").is_empty());
    }

    #[test]
    fn cases_and_repairs() {
        assert_eq!(
            Case::Camel.apply("firmware-version", "tool"),
            "firmwareVersion"
        );
        assert_eq!(Case::Pascal.apply("set_led", "Tool"), "SetLed");
        assert_eq!(Case::Snake.apply("rampMs", "field"), "ramp_ms");
        assert_eq!(Case::ScreamingSnake.apply("set_led", "T"), "SET_LED");
        assert_eq!(Case::Snake.apply("3d", "tool"), "tool_3d");
        assert_eq!(Case::Pascal.apply("3d", "Tool"), "Tool3d");
        assert_eq!(Case::Snake.apply("°", "field"), "field");
    }

    #[test]
    fn namer_suffixes_clashes_in_order() {
        let mut namer = Namer::new(&["call"]);
        assert_eq!(namer.claim("read", "_"), "read");
        assert_eq!(namer.claim("read", "_"), "read_2");
        assert_eq!(namer.claim("read", "_"), "read_3");
        assert_eq!(namer.claim("call", ""), "call2");
    }

    #[test]
    fn plain_identifiers() {
        assert!(is_plain_identifier("sensorId"));
        assert!(is_plain_identifier("_x1"));
        assert!(!is_plain_identifier("firmware-version"));
        assert!(!is_plain_identifier("1a"));
        assert!(!is_plain_identifier(""));
        assert!(!is_plain_identifier("ünit"));
    }
}
