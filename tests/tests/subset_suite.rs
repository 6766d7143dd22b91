//! The official JSON-Schema-Test-Suite (draft 2020-12) against the core's compiled subset
//! validator (`embedded_mcp::schema`).
//!
//! For every case the compiler either refuses the schema (counted as unsupported, with the
//! reason tallied) or the validator's verdict must equal the suite's `valid`. A wrong verdict on
//! a required file fails the test; so does coverage below 75 % of the required cases. The
//! `optional/` folder runs separately with an explicit, commented list of expected wrong
//! verdicts (every other wrong verdict fails).
//!
//! Every compiled program is also written in its postcard form and loaded back (as firmware
//! loads it from flash); the loaded program must give the same verdicts.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use embedded_mcp::schema::{compile, CompileError, Program, Storage};
use embedded_mcp_tests::json_schema_suite_dir;
use serde_json::Value;

/// Generous host-side storage: 4096 nodes, 16384 ops, 64 KiB of text.
type Big = Storage<4096, 16384, 65535>;

#[derive(Default)]
struct Tally {
    total: usize,
    right: usize,
    refused: usize,
    wrong: Vec<String>,
    reasons: BTreeMap<String, usize>,
}

fn refusal_key(e: &CompileError) -> String {
    match e {
        CompileError::Refused {
            keyword, reason, ..
        } => format!("refused `{keyword}`: {reason}"),
        CompileError::Invalid {
            keyword, reason, ..
        } => format!("invalid `{keyword}`: {reason}"),
        other => format!("{other}"),
    }
}

fn run_file(path: &Path, label: &str, tally: &mut Tally, storage: &mut Big, loaded: &mut Big) {
    let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let groups: Value = serde_json::from_str(&text).expect("suite file is JSON");
    for group in groups.as_array().expect("array of groups") {
        let schema = serde_json::to_vec(&group["schema"]).expect("schema");
        let tests = group["tests"].as_array().expect("tests");
        let desc = group["description"].as_str().unwrap_or("?");
        tally.total += tests.len();
        let program = match compile(&schema, storage) {
            Ok(p) => p,
            Err(e) => {
                tally.refused += tests.len();
                *tally.reasons.entry(refusal_key(&e)).or_default() += tests.len();
                continue;
            }
        };
        let mut bytes = vec![0u8; program.postcard_len()];
        let bytes = program.to_postcard(&mut bytes).expect("postcard");
        let reloaded = Program::from_postcard(bytes, loaded).expect("program loads back");
        for test in tests {
            let data = serde_json::to_vec(&test["data"]).expect("data");
            let expected = test["valid"].as_bool().expect("valid");
            let got = program.validate_bytes(&data);
            assert_eq!(
                reloaded.validate_bytes(&data),
                got,
                "{label} / {desc}: the postcard program disagrees"
            );
            if got.is_ok() == expected {
                tally.right += 1;
            } else {
                tally.wrong.push(format!(
                    "{label} / {desc} / {}: expected valid={expected}, got {got:?}",
                    test["description"].as_str().unwrap_or("?")
                ));
            }
        }
    }
}

fn json_files(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut files: Vec<_> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    files
}

fn print_tally(title: &str, t: &Tally) {
    let pct = 100.0 * t.right as f64 / t.total.max(1) as f64;
    println!(
        "{title}: {} / {} cases supported and right ({pct:.1} %), {} refused, {} wrong",
        t.right,
        t.total,
        t.refused,
        t.wrong.len()
    );
    let mut reasons: Vec<_> = t.reasons.iter().collect();
    reasons.sort_by(|a, b| b.1.cmp(a.1));
    for (reason, n) in reasons {
        println!("  {n:4} cases refused: {reason}");
    }
}

#[test]
fn required_draft2020_12() {
    let dir = json_schema_suite_dir().join("tests").join("draft2020-12");
    let mut storage = Box::new(Big::new());
    let mut loaded = Box::new(Big::new());
    let mut tally = Tally::default();
    for file in json_files(&dir) {
        let label = file.file_name().unwrap().to_string_lossy().into_owned();
        run_file(&file, &label, &mut tally, &mut storage, &mut loaded);
    }
    print_tally("draft2020-12 required", &tally);
    assert_eq!(
        tally.total, 1299,
        "the pinned suite has 1,299 required cases"
    );
    assert!(
        tally.wrong.is_empty(),
        "wrong verdicts:\n{}",
        tally.wrong.join("\n")
    );
    assert!(
        tally.right * 100 >= tally.total * 75,
        "coverage below 75 %: {} / {}",
        tally.right,
        tally.total
    );
}

/// Optional cases whose expected verdict the dialect deliberately does not give, with why.
/// Matched on "file / group / test" prefixes.
const OPTIONAL_EXPECTED_WRONG: &[(&str, &str)] = &[
    // `format` is an annotation in the dialect, as 2020-12 specifies by default; the files in
    // optional/format/ assume the format-assertion vocabulary and expect invalid formats to be
    // rejected, so every "invalid" case there gets "valid" from us.
    (
        "format/",
        "format is an annotation (format-assertion vocabulary not supported)",
    ),
];

#[test]
fn optional_draft2020_12() {
    let dir = json_schema_suite_dir()
        .join("tests")
        .join("draft2020-12")
        .join("optional");
    let mut storage = Box::new(Big::new());
    let mut loaded = Box::new(Big::new());
    let mut tally = Tally::default();
    let mut files = json_files(&dir);
    files.extend(json_files(&dir.join("format")));
    for file in files {
        let label = file
            .strip_prefix(&dir)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        run_file(&file, &label, &mut tally, &mut storage, &mut loaded);
    }
    print_tally("draft2020-12 optional", &tally);
    let unexpected: Vec<_> = tally
        .wrong
        .iter()
        .filter(|w| {
            !OPTIONAL_EXPECTED_WRONG
                .iter()
                .any(|(prefix, _)| w.starts_with(prefix))
        })
        .collect();
    println!(
        "  {} wrong verdicts, all under optional/format/ (format is an annotation)",
        tally.wrong.len() - unexpected.len()
    );
    assert!(
        unexpected.is_empty(),
        "unexpected wrong verdicts:\n{}",
        unexpected
            .iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    );
}
