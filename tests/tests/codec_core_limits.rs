//! Limits of `serde-json-core` that this crate's codec must not inherit, each shown on the
//! public API: borrowed `&str` comes back unescaped, `char` serialises, deep nesting is an
//! error (not a stack overflow), ignored values are checked as strictly as the rest, escaped
//! keys still name fields, non-finite floats are refused, and big integers are exact.

use std::collections::BTreeMap;

use embedded_mcp::json::{self, DecodeErrorKind as K, EncodeError};
use embedded_mcp::result::{encode_structured, Era, ResultView};
use serde::{Deserialize, Serialize};

fn encode(era: Era, value: &(impl Serialize + ?Sized)) -> Vec<u8> {
    let mut buf = vec![0u8; 4096];
    let done = encode_structured(&mut buf, era, value).unwrap();
    buf.truncate(done.len);
    buf
}

#[test]
fn borrowed_str_comes_back_unescaped() {
    #[derive(Deserialize, Debug)]
    struct Named<'a> {
        name: &'a str,
        #[serde(borrow)]
        labels: BTreeMap<&'a str, &'a str>,
    }
    let input = br#"{"name":"a\"b\\c\nd\u00e9\ud83d\ude00\/","labels":{"k\u0020ey":"v\talue","plain":"x"}}"#;
    let mut scratch = [0u8; 64];
    let n: Named<'_> = json::from_slice(input, &mut scratch).unwrap();
    assert_eq!(n.name, "a\"b\\c\ndé😀/");
    assert_eq!(
        n.labels.into_iter().collect::<Vec<_>>(),
        [("k ey", "v\talue"), ("plain", "x")]
    );
    // The same through a decoded result.
    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct Msg<'a> {
        text: &'a str,
    }
    let bytes = encode(
        Era::Stateless,
        &Msg {
            text: "line 1\nline \"2\"",
        },
    );
    let view = ResultView::parse(&bytes).unwrap();
    let mut scratch = [0u8; 32];
    let m: Msg<'_> = view.structured_as(&mut scratch).unwrap();
    assert_eq!(m.text, "line 1\nline \"2\"");
    // Not enough scratch is a clear error, not escaped text.
    let e = view.structured_as::<Msg<'_>>(&mut [0u8; 4]).unwrap_err();
    assert_eq!(e.kind, K::ScratchTooSmall);
}

#[test]
fn char_serialises_and_round_trips() {
    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct Chars {
        quote: char,
        newline: char,
        nul: char,
        astral: char,
        accent: char,
    }
    let c = Chars {
        quote: '"',
        newline: '\n',
        nul: '\0',
        astral: '😀',
        accent: 'é',
    };
    let bytes = encode(Era::Legacy, &c);
    let expected_json =
        r#"{"quote":"\"","newline":"\n","nul":"\u0000","astral":"😀","accent":"é"}"#;
    let whole: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(
        whole["structuredContent"],
        serde_json::from_str::<serde_json::Value>(expected_json).unwrap()
    );
    assert_eq!(whole["content"][0]["text"], expected_json);
    let view = ResultView::parse(&bytes).unwrap();
    let mut scratch = [0u8; 16];
    assert_eq!(view.structured_as::<Chars>(&mut scratch).unwrap(), c);
    // A char is also a valid map key.
    let keyed: BTreeMap<char, u8> = [('"', 1), ('😀', 2)].into_iter().collect();
    let bytes = encode(Era::Stateless, &keyed);
    let view = ResultView::parse(&bytes).unwrap();
    assert_eq!(view.structured().unwrap().raw(), r#"{"\"":1,"😀":2}"#);
}

/// A recursive type: serde's derived code recurses once per level.
#[derive(Deserialize, Debug)]
struct Tree {
    #[allow(dead_code)] // only its depth matters
    children: Vec<Tree>,
}

fn tree(depth: usize) -> Vec<u8> {
    let mut v = Vec::new();
    for _ in 0..depth {
        v.extend_from_slice(br#"{"children":["#);
    }
    v.extend_from_slice(br#"{"children":[]}"#);
    for _ in 0..depth {
        v.extend_from_slice(b"]}");
    }
    v
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    // Within the documented limit the recursive type decodes.
    let ok_depth = usize::from(json::DEFAULT_MAX_DEPTH) / 2 - 1; // two levels per `Tree`
    assert!(json::from_slice::<Tree>(&tree(ok_depth), &mut []).is_ok());
    // Far beyond it, on a 64 KiB stack: the checked scan refuses it before any recursion.
    let handle = std::thread::Builder::new()
        .stack_size(64 * 1024)
        .spawn(|| {
            let deep = tree(200_000);
            let e = json::from_slice::<Tree>(&deep, &mut []).unwrap_err();
            let mut result = br#"{"content":[],"structuredContent":"#.to_vec();
            result.extend_from_slice(&deep);
            result.push(b'}');
            let r = ResultView::parse(&result).map(|_| ()).unwrap_err();
            (e.kind, r.to_string())
        })
        .unwrap();
    let (kind, message) = handle.join().expect("no stack overflow");
    assert_eq!(kind, K::TooDeep);
    assert!(message.contains("nesting too deep"), "{message}");
}

#[test]
fn ignored_values_are_checked_strictly() {
    #[derive(Deserialize, Debug)]
    struct Only {
        #[allow(dead_code)] // only whether decoding succeeds matters
        a: u8,
    }
    assert!(json::from_slice::<Only>(br#"{"a":1,"junk":[1,{"x":null}]}"#, &mut []).is_ok());
    let deep_junk = {
        let mut v = br#"{"a":1,"junk":"#.to_vec();
        v.extend(std::iter::repeat_n(b'[', 40));
        v.extend(std::iter::repeat_n(b']', 40));
        v.push(b'}');
        v
    };
    let cases: &[(&[u8], K)] = &[
        (br#"{"a":1,"junk":[1,,2]}"#, K::UnexpectedByte),
        (br#"{"a":1,"junk":"\x"}"#, K::InvalidEscape),
        (br#"{"a":1,"junk":"\ud800"}"#, K::UnpairedSurrogate),
        (br#"{"a":1,"junk":tru}"#, K::UnexpectedByte),
        (br#"{"a":1,"junk":01}"#, K::InvalidNumber),
        (b"{\"a\":1,\"junk\":\"\xff\"}", K::InvalidUtf8),
        (b"{\"a\":1,\"junk\":\"\x01\"}", K::ControlCharacter),
        (&deep_junk, K::TooDeep),
    ];
    for (input, kind) in cases {
        let e = json::from_slice::<Only>(input, &mut []).unwrap_err();
        assert_eq!(e.kind, *kind, "{:?}", String::from_utf8_lossy(input));
        // Unknown members of a result and of its blocks are checked the same way.
        let mut result = br#"{"content":[{"type":"text","text":"t","x":"#.to_vec();
        result.extend_from_slice(input);
        result.extend_from_slice(b"}]}");
        assert!(ResultView::parse(&result).is_err());
    }
}

#[test]
fn escaped_keys_still_name_fields() {
    #[derive(Deserialize, Debug, PartialEq)]
    struct Point {
        x: i32,
        y_pos: i32,
    }
    let p: Point = json::from_slice(br#"{"\u0078":1,"y\u005fpos":2}"#, &mut []).unwrap();
    assert_eq!(p, Point { x: 1, y_pos: 2 });
}

#[test]
fn non_finite_floats_are_refused_not_written() {
    #[derive(Serialize)]
    struct R {
        v: f64,
    }
    let mut buf = [0u8; 256];
    for v in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        assert_eq!(
            encode_structured(&mut buf, Era::Stateless, &R { v }),
            Err(EncodeError::NonFiniteFloat)
        );
    }
}

#[test]
fn integers_are_exact_and_floats_shortest() {
    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct N {
        big: u64,
        small: i64,
        huge: u128,
        f: f32,
        d: f64,
    }
    let n = N {
        big: u64::MAX,
        small: i64::MIN,
        huge: u128::MAX,
        f: 0.1,
        d: 0.1,
    };
    let bytes = encode(Era::Stateless, &n);
    let view = ResultView::parse(&bytes).unwrap();
    assert_eq!(
        view.structured().unwrap().raw(),
        r#"{"big":18446744073709551615,"small":-9223372036854775808,"huge":340282366920938463463374607431768211455,"f":0.1,"d":0.1}"#
    );
    assert_eq!(view.structured_as::<N>(&mut []).unwrap(), n);
}

mod partial_types {
    //! The deserializer walks each nested container once and steps over the ones a type does not
    //! read; it must agree with serde_json on what it accepts and what it produces.
    use super::*;
    use proptest::prelude::*;
    use serde_json::{json, Value as Json};

    #[derive(Deserialize, Debug, PartialEq)]
    struct Partial {
        a: Option<Vec<Json>>,
        b: Option<Tagged>,
        c: Option<(Json, Vec<u8>)>,
        d: Option<BTreeMap<String, Partial>>,
        e: Option<[Option<Tagged>; 2]>,
    }

    #[derive(Deserialize, Debug, PartialEq)]
    enum Tagged {
        U,
        N(Json),
        S { x: Vec<Json> },
        T(Json, Json),
    }

    fn leaf() -> impl Strategy<Value = Json> {
        prop_oneof![
            Just(Json::Null),
            any::<bool>().prop_map(Json::Bool),
            (-1000i64..1000).prop_map(|i| json!(i)),
            (0u8..=255).prop_map(|u| json!(u)),
            Just(json!(2.5)),
            "[a-z\"\\\\\n é😀]{0,6}".prop_map(Json::String),
        ]
    }

    fn tree() -> impl Strategy<Value = Json> {
        leaf().prop_recursive(4, 48, 5, |inner| {
            let tagged = prop_oneof![
                Just(json!("U")),
                inner.clone().prop_map(|v| json!({ "N": v })),
                proptest::collection::vec(inner.clone(), 0..3).prop_map(|x| json!({"S": {"x": x}})),
                (inner.clone(), inner.clone()).prop_map(|(a, b)| json!({ "T": [a, b] })),
            ];
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..4).prop_map(Json::Array),
                tagged,
                proptest::collection::btree_map(
                    prop_oneof![
                        Just("a".to_owned()),
                        Just("b".to_owned()),
                        Just("c".to_owned()),
                        Just("d".to_owned()),
                        Just("e".to_owned()),
                        "[f-z]{1,3}"
                    ],
                    inner,
                    0..6
                )
                .prop_map(|m| Json::Object(m.into_iter().collect())),
            ]
        })
    }

    fn tagged() -> impl Strategy<Value = Json> {
        prop_oneof![
            Just(json!("U")),
            tree().prop_map(|v| json!({ "N": v })),
            proptest::collection::vec(tree(), 0..3).prop_map(|x| json!({"S": {"x": x}})),
            (tree(), tree()).prop_map(|(a, b)| json!({ "T": [a, b] })),
        ]
    }

    /// Mostly well-typed members (so most documents decode), some of any shape, plus
    /// unknown members of any shape that the type steps over.
    fn partial(depth: u32) -> BoxedStrategy<Json> {
        let d = if depth == 0 {
            Just(Json::Null).boxed()
        } else {
            proptest::collection::btree_map("[a-c]{1,2}", partial(depth - 1), 0..3)
                .prop_map(|m| Json::Object(m.into_iter().collect()))
                .boxed()
        };
        let typed = (
            proptest::option::of(proptest::collection::vec(tree(), 0..4)),
            proptest::option::of(tagged()),
            proptest::option::of((tree(), proptest::collection::vec(any::<u8>(), 0..4))),
            d,
            proptest::option::of((
                proptest::option::of(tagged()),
                proptest::option::of(tagged()),
            )),
        );
        (
            typed,
            proptest::collection::btree_map("[f-z]{1,3}", tree(), 0..4),
            proptest::option::of(("[a-e]", tree())),
        )
            .prop_map(|((a, b, c, d, e), unknown, noise)| {
                let mut m: serde_json::Map<String, Json> = unknown.into_iter().collect();
                if let Some(a) = a {
                    m.insert("a".into(), json!(a));
                }
                if let Some(b) = b {
                    m.insert("b".into(), b);
                }
                if let Some((x, y)) = c {
                    m.insert("c".into(), json!([x, y]));
                }
                m.insert("d".into(), d);
                if let Some((x, y)) = e {
                    m.insert("e".into(), json!([x, y]));
                }
                if let Some((k, v)) = noise {
                    m.insert(k, v); // a known member of any shape: often an error for both
                }
                Json::Object(m)
            })
            .boxed()
    }

    static DECODED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1024))]

        #[test]
        fn agrees_with_serde_json(doc in prop_oneof![3 => partial(3), 1 => tree()], pretty in any::<bool>()) {
            let text = if pretty {
                serde_json::to_string_pretty(&doc).unwrap()
            } else {
                serde_json::to_string(&doc).unwrap()
            };
            let theirs = serde_json::from_str::<Partial>(&text);
            let mut scratch = vec![0u8; text.len()];
            let ours = json::from_slice::<Partial>(text.as_bytes(), &mut scratch);
            match (&ours, &theirs) {
                (Ok(a), Ok(b)) => {
                    prop_assert_eq!(a, b);
                    DECODED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                }
                (Err(_), Err(_)) => {}
                _ => prop_assert!(false, "ours {:?}, serde_json {:?} on {}", ours, theirs, text),
            }
        }
    }

    #[test]
    fn most_generated_documents_decode() {
        // Runs the property above and checks it was not vacuous.
        agrees_with_serde_json();
        let decoded = DECODED.load(std::sync::atomic::Ordering::Relaxed);
        assert!(decoded > 300, "only {decoded} of 1024 documents decoded");
    }
}
