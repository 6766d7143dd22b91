//! The two passes that write a [`GenSchema`](super::GenSchema) tree as JSON text: the first
//! records every place a `$ref` can point to, the second writes the references to them.

use super::*;

/// `root` as JSON text.
pub(super) fn to_json(root: &Node) -> String {
    let pass = |targets: &[Location]| {
        let mut w = Writer {
            out: String::new(),
            depth: 0,
            segments: Vec::new(),
            resource: None,
            data_depth: 0,
            found: Vec::new(),
            targets,
        };
        w.node(root);
        (w.out, w.found)
    };
    let (_, locations) = pass(&[]);
    let (text, again) = pass(&locations);
    debug_assert_eq!(locations, again, "references do not move locations");
    text
}

/// A place in the document a `$ref` can point to.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Location {
    /// Decoded member names and array indexes from the root.
    segments: Vec<String>,
    /// The nearest enclosing `$id` (without fragment) and how many segments lead to it.
    resource: Option<(String, usize)>,
    /// Under a non-keyword member.
    in_data: bool,
}

/// `segments` as a JSON Pointer.
fn pointer(segments: &[String]) -> String {
    let mut p = String::new();
    for s in segments {
        p.push('/');
        p.push_str(&s.replace('~', "~0").replace('/', "~1"));
    }
    p
}

/// `p` percent-encoded in `style`.
fn encode(p: &str, style: Style) -> String {
    let keep = |b: u8| match style {
        Style::Plain => true,
        Style::Percent => b.is_ascii_alphanumeric() || b"/-._~!$&'()*+,;=:@".contains(&b),
        Style::PercentAll => b == b'/',
    };
    let mut out = String::new();
    for (i, c) in p.char_indices() {
        let bytes = &p.as_bytes()[i..i + c.len_utf8()];
        if bytes.iter().all(|&b| keep(b)) {
            out.push(c);
        } else {
            for b in bytes {
                out.push_str(&format!("%{b:02X}"));
            }
        }
    }
    out
}

/// Writes a JSON string; with `unicode` every character is a `\u` escape.
fn write_str(out: &mut String, s: &str, unicode: bool) {
    out.push('"');
    for c in s.chars() {
        if unicode {
            let mut units = [0u16; 2];
            for u in c.encode_utf16(&mut units) {
                out.push_str(&format!("\\u{u:04x}"));
            }
            continue;
        }
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if u32::from(c) < 0x20 => out.push_str(&format!("\\u{:04x}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// The JSON text writer of one pass.
struct Writer<'t> {
    out: String,
    depth: usize,
    segments: Vec<String>,
    resource: Option<(String, usize)>,
    /// Non-keyword members around the value being written.
    data_depth: usize,
    /// Locations met so far (pass one records them all).
    found: Vec<Location>,
    /// The locations of pass one, which references pick from (empty in pass one).
    targets: &'t [Location],
}

impl Writer<'_> {
    fn key(&mut self, key: &str, unicode: bool) {
        write_str(&mut self.out, key, unicode);
        self.out.push(':');
    }

    fn member<F: FnOnce(&mut Self)>(&mut self, first: &mut bool, key: &str, unicode: bool, f: F) {
        if !*first {
            self.out.push(',');
        }
        *first = false;
        self.key(key, unicode);
        self.segments.push(key.to_owned());
        f(self);
        self.segments.pop();
    }

    fn node(&mut self, node: &Node) {
        self.found.push(Location {
            segments: self.segments.clone(),
            resource: self.resource.clone(),
            in_data: self.data_depth > 0,
        });
        match node {
            Node::Bool(b) => self.out.push_str(if *b { "true" } else { "false" }),
            Node::Object(members) => self.object_node(members, None),
        }
    }

    /// A schema object with these members, after a keyword with a bad value when given (its
    /// location is already recorded).
    fn object_node(&mut self, members: &[Member], bad: Option<(u8, &Bad)>) {
        if self.depth >= MAX_DEPTH {
            return self.out.push_str("true");
        }
        let outer = self.resource.clone();
        let id = members.iter().find_map(|m| match m {
            Member::Id(v) => v.text(),
            _ => None,
        });
        if let Some(id) = id {
            let id = id.split('#').next().unwrap_or_default().to_owned();
            self.resource = Some((id, self.segments.len()));
        }
        self.depth += 1;
        self.out.push('{');
        let mut first = true;
        if let Some((keyword, bad)) = bad {
            let name = if keyword < 128 {
                "type"
            } else {
                pick(&KEYWORDS, keyword)
            };
            self.member(&mut first, name, false, |w| w.bad(bad));
        }
        for m in members {
            self.schema_member(&mut first, m);
        }
        self.out.push('}');
        self.depth -= 1;
        self.resource = outer;
    }

    fn schema_member(&mut self, first: &mut bool, m: &Member) {
        match m {
            Member::Valid(v) => self.valid(first, v),
            Member::Invalid(k, bad) => {
                self.member(first, pick(&KEYWORDS, *k), false, |w| w.bad(bad))
            }
            Member::Child(k, n) => {
                self.member(first, pick(&CHILD_KEYWORDS, *k), false, |w| w.node(n))
            }
            Member::Map(k, entries) => self.member(first, pick(&MAP_KEYWORDS, *k), false, |w| {
                w.object(entries.iter().map(|(k, n)| (k, |w: &mut Self| w.node(n))))
            }),
            Member::List(k, nodes) => self.member(first, pick(&LIST_KEYWORDS, *k), false, |w| {
                w.array(nodes.iter().map(|n| |w: &mut Self| w.node(n)))
            }),
            Member::Ref(dynamic, r) => {
                let name = if *dynamic { "$dynamicRef" } else { "$ref" };
                self.member(first, name, false, |w| w.reference(r))
            }
            Member::Id(v) => self.member(first, "$id", false, |w| match (v, v.text()) {
                (IdValue::Bad(bad), _) => w.bad(bad),
                (_, Some(t)) => write_str(&mut w.out, &t, false),
                (_, None) => w.out.push_str("null"),
            }),
            Member::Anchor(dynamic, n) => {
                let name = if *dynamic {
                    "$dynamicAnchor"
                } else {
                    "$anchor"
                };
                self.member(first, name, false, |w| {
                    write_str(&mut w.out, pick(&ANCHORS, *n), false)
                })
            }
            Member::Extra(k, n) => self.member(first, &k.text(), k.escaped(), |w| {
                w.data_depth += 1;
                w.node(n);
                w.data_depth -= 1;
            }),
            Member::Data(k, d) => self.member(first, &k.text(), k.escaped(), |w| w.data(d)),
            Member::Chain(head, (c, n), tail, keyword, bad, rest, style) => {
                let long = Key::Long(*c, *n).text();
                let keys: Vec<String> = [pick(&FIRST_KEYS, *head).to_owned(), long]
                    .into_iter()
                    .chain(tail.iter().map(Key::text))
                    .collect();
                let mut target = self.segments.clone();
                target.extend(keys.iter().cloned());
                let text = format!("#{}", encode(&pointer(&target), *style));
                self.member(first, "$ref", false, |w| {
                    write_str(&mut w.out, &text, false)
                });
                self.data_depth += 1;
                self.chain(first, &keys, (*keyword, bad), rest);
                self.data_depth -= 1;
            }
        }
    }

    /// The members of a [`Member::Chain`] from `keys[0]` down, and the object at its end.
    fn chain(&mut self, first: &mut bool, keys: &[String], bad: (u8, &Bad), rest: &[Member]) {
        let Some((key, deeper)) = keys.split_first() else {
            return self.object_node(rest, Some(bad));
        };
        self.member(first, key, false, |w| {
            w.found.push(Location {
                segments: w.segments.clone(),
                resource: w.resource.clone(),
                in_data: true,
            });
            if deeper.is_empty() {
                return w.chain(&mut true, deeper, bad, rest);
            }
            if w.depth >= MAX_DEPTH {
                return w.out.push_str("true");
            }
            w.depth += 1;
            w.out.push('{');
            w.chain(&mut true, deeper, bad, rest);
            w.out.push('}');
            w.depth -= 1;
        });
    }

    fn valid(&mut self, first: &mut bool, v: &Valid) {
        match v {
            Valid::Type(t, many) => self.member(first, "type", false, |w| {
                if many.is_empty() {
                    write_str(&mut w.out, pick(&TYPES, *t), false);
                } else {
                    w.array(many.iter().map(|t| {
                        move |w: &mut Self| write_str(&mut w.out, pick(&TYPES, *t), false)
                    }));
                }
            }),
            Valid::Number(k, n) => self.member(first, pick(&NUMBER_KEYWORDS, *k), false, |w| {
                n.write(&mut w.out)
            }),
            Valid::Count(k, n) => self.member(first, pick(&COUNT_KEYWORDS, *k), false, |w| {
                w.out.push_str(&n.to_string())
            }),
            Valid::Required(keys) => self.member(first, "required", false, |w| w.keys(keys)),
            Valid::DependentRequired(entries) => {
                self.member(first, "dependentRequired", false, |w| {
                    w.object(entries.iter().map(|(k, ks)| (k, |w: &mut Self| w.keys(ks))))
                })
            }
            Valid::Enum(values) => self.member(first, "enum", false, |w| {
                w.array(values.iter().map(|d| |w: &mut Self| w.data(d)))
            }),
            Valid::Const(d) => self.member(first, "const", false, |w| w.data(d)),
            Valid::Pattern(p) => self.member(first, "pattern", false, |w| {
                w.out.push('"');
                w.out.push_str(pick(&PATTERNS, *p));
                w.out.push('"');
            }),
            Valid::UniqueItems(b) => self.member(first, "uniqueItems", false, |w| {
                w.out.push_str(if *b { "true" } else { "false" })
            }),
            Valid::Annotation(k, d) => {
                self.member(first, pick(&ANNOTATIONS, *k), false, |w| w.data(d))
            }
            Valid::Schema(u) => self.member(first, "$schema", false, |w| {
                write_str(&mut w.out, pick(&SCHEMA_URIS, *u), false)
            }),
        }
    }

    fn keys(&mut self, keys: &[Key]) {
        self.array(
            keys.iter()
                .map(|k| move |w: &mut Self| write_str(&mut w.out, &k.text(), k.escaped())),
        );
    }

    fn object<'k, F: FnOnce(&mut Self)>(&mut self, entries: impl Iterator<Item = (&'k Key, F)>) {
        if self.depth >= MAX_DEPTH {
            return self.out.push_str("{}");
        }
        self.depth += 1;
        self.out.push('{');
        let mut first = true;
        for (k, f) in entries {
            self.member(&mut first, &k.text(), k.escaped(), f);
        }
        self.out.push('}');
        self.depth -= 1;
    }

    fn array<F: FnOnce(&mut Self)>(&mut self, items: impl Iterator<Item = F>) {
        if self.depth >= MAX_DEPTH {
            return self.out.push_str("[]");
        }
        self.depth += 1;
        self.out.push('[');
        for (i, f) in items.enumerate() {
            if i > 0 {
                self.out.push(',');
            }
            self.segments.push(i.to_string());
            f(self);
            self.segments.pop();
        }
        self.out.push(']');
        self.depth -= 1;
    }

    fn data(&mut self, d: &Data) {
        match d {
            Data::Null => self.out.push_str("null"),
            Data::Bool(b) => self.out.push_str(if *b { "true" } else { "false" }),
            Data::Num(n) => n.write(&mut self.out),
            Data::Str(k) => write_str(&mut self.out, &k.text(), k.escaped()),
            Data::Arr(items) => self.array(items.iter().map(|d| |w: &mut Self| w.data(d))),
            Data::Obj(entries) => {
                self.object(entries.iter().map(|(k, d)| (k, |w: &mut Self| w.data(d))))
            }
        }
    }

    fn bad(&mut self, bad: &Bad) {
        match bad {
            Bad::Fixed(i) => self.out.push_str(pick(&BAD, *i)),
            Bad::Data(d) => self.data(d),
        }
    }

    fn target(&self, i: u16) -> Option<&Location> {
        let n = self.targets.len();
        (n > 0).then(|| &self.targets[usize::from(i) % n])
    }

    fn target_in_data(&self, i: u16) -> Option<&Location> {
        let n = self.targets.iter().filter(|t| t.in_data).count();
        let mut inside = self.targets.iter().filter(|t| t.in_data);
        (n > 0).then(|| inside.nth(usize::from(i) % n)).flatten()
    }

    fn reference(&mut self, r: &Ref) {
        let text = match r {
            Ref::Root => "#".to_owned(),
            Ref::Pointer(i, style) => match self.target(*i) {
                Some(t) => format!("#{}", encode(&pointer(&t.segments), *style)),
                None => "#".to_owned(),
            },
            Ref::Into(i, style) => match self.target_in_data(*i).or(self.target(*i)) {
                Some(t) => format!("#{}", encode(&pointer(&t.segments), *style)),
                None => "#".to_owned(),
            },
            Ref::ViaId(i, style) => match self.target(*i) {
                Some(Location {
                    segments,
                    resource: Some((id, at)),
                    ..
                }) => format!("{id}#{}", encode(&pointer(&segments[*at..]), *style)),
                Some(t) => format!("#{}", encode(&pointer(&t.segments), *style)),
                None => "#".to_owned(),
            },
            Ref::Dangling(i, k) => {
                let mut segments = self
                    .target(*i)
                    .map(|t| t.segments.clone())
                    .unwrap_or_default();
                segments.push(k.text());
                format!("#{}", pointer(&segments))
            }
            Ref::Anchor(false, a, _) => format!("#{}", pick(&ANCHORS, *a)),
            Ref::Anchor(true, a, d) => format!("d{}.json#{}", d % 8, pick(&ANCHORS, *a)),
            Ref::Resource(d) => format!("d{}.json", d % 8),
            Ref::Text(k) => k.text(),
        };
        write_str(&mut self.out, &text, false);
    }
}
