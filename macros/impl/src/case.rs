//! serde's `rename_all` case styles, applied to field names (written in `snake_case`) and
//! variant names (written in `PascalCase`) the way serde applies them.

/// A `rename_all` style.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Case {
    Lower,
    Upper,
    Pascal,
    Camel,
    Snake,
    ScreamingSnake,
    Kebab,
    ScreamingKebab,
}

impl Case {
    /// The style serde names `name`.
    pub(crate) fn parse(name: &str) -> Option<Case> {
        Some(match name {
            "lowercase" => Case::Lower,
            "UPPERCASE" => Case::Upper,
            "PascalCase" => Case::Pascal,
            "camelCase" => Case::Camel,
            "snake_case" => Case::Snake,
            "SCREAMING_SNAKE_CASE" => Case::ScreamingSnake,
            "kebab-case" => Case::Kebab,
            "SCREAMING-KEBAB-CASE" => Case::ScreamingKebab,
            _ => return None,
        })
    }

    /// A struct field's name in this style.
    pub(crate) fn field(self, name: &str) -> String {
        match self {
            Case::Lower | Case::Snake => name.to_owned(),
            Case::Upper | Case::ScreamingSnake => name.to_ascii_uppercase(),
            Case::Pascal => pascal(name),
            Case::Camel => {
                let p = pascal(name);
                let mut c = p.chars();
                c.next().map_or_else(String::new, |f| {
                    f.to_ascii_lowercase().to_string() + c.as_str()
                })
            }
            Case::Kebab => name.replace('_', "-"),
            Case::ScreamingKebab => name.replace('_', "-").to_ascii_uppercase(),
        }
    }

    /// An enum variant's name in this style.
    pub(crate) fn variant(self, name: &str) -> String {
        match self {
            Case::Pascal => name.to_owned(),
            Case::Lower => name.to_ascii_lowercase(),
            Case::Upper => name.to_ascii_uppercase(),
            Case::Camel => {
                let mut c = name.chars();
                c.next().map_or_else(String::new, |f| {
                    f.to_ascii_lowercase().to_string() + c.as_str()
                })
            }
            Case::Snake => snake(name),
            Case::ScreamingSnake => snake(name).to_ascii_uppercase(),
            Case::Kebab => snake(name).replace('_', "-"),
            Case::ScreamingKebab => snake(name).replace('_', "-").to_ascii_uppercase(),
        }
    }
}

fn pascal(snake: &str) -> String {
    let mut out = String::new();
    let mut upper = true;
    for ch in snake.chars() {
        if ch == '_' {
            upper = true;
        } else if upper {
            out.push(ch.to_ascii_uppercase());
            upper = false;
        } else {
            out.push(ch);
        }
    }
    out
}

fn snake(pascal: &str) -> String {
    let mut out = String::new();
    for (i, ch) in pascal.char_indices() {
        if i > 0 && ch.is_uppercase() {
            out.push('_');
        }
        out.push(ch.to_ascii_lowercase());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::Case;

    #[test]
    fn fields_and_variants_follow_serde() {
        let f = "sample_rate_hz";
        let v = "SampleRateHz";
        let expected = [
            ("lowercase", "sample_rate_hz", "sampleratehz"),
            ("UPPERCASE", "SAMPLE_RATE_HZ", "SAMPLERATEHZ"),
            ("PascalCase", "SampleRateHz", "SampleRateHz"),
            ("camelCase", "sampleRateHz", "sampleRateHz"),
            ("snake_case", "sample_rate_hz", "sample_rate_hz"),
            ("SCREAMING_SNAKE_CASE", "SAMPLE_RATE_HZ", "SAMPLE_RATE_HZ"),
            ("kebab-case", "sample-rate-hz", "sample-rate-hz"),
            ("SCREAMING-KEBAB-CASE", "SAMPLE-RATE-HZ", "SAMPLE-RATE-HZ"),
        ];
        for (style, field, variant) in expected {
            let case = Case::parse(style).unwrap();
            assert_eq!(case.field(f), field, "{style}");
            assert_eq!(case.variant(v), variant, "{style}");
        }
        assert_eq!(Case::parse("Title Case"), None);
    }
}
