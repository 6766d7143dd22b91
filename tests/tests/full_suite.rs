//! The official JSON-Schema-Test-Suite (draft 2020-12) against `full::FullValidator`.
//!
//! Every required case must pass: there is no expected-failure list. Remote documents are served
//! from memory under `http://localhost:1234/`, as the suite's README asks; nothing is fetched.
//! The `optional/` cases run too (with `format` asserting for `optional/format/`) and their pass
//! rate is printed.

use std::path::{Path, PathBuf};

use embedded_mcp_std::full::{FullOptions, FullValidator, Remotes};
use embedded_mcp_tests::json_schema_suite_dir;
use serde_json::Value;

/// Required draft 2020-12 cases in the pinned suite (see its `COMMIT` file).
const REQUIRED_CASES: usize = 1299;

fn remotes() -> Remotes {
    let mut remotes = Remotes::new();
    let loaded = remotes
        .load_dir(
            "http://localhost:1234/",
            &json_schema_suite_dir().join("remotes"),
        )
        .expect("suite remotes load");
    assert!(loaded > 50, "only {loaded} remote documents found");
    remotes
}

fn json_files(dir: &Path, recursive: bool) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(folder) = pending.pop() {
        for entry in std::fs::read_dir(&folder).expect("suite folder readable") {
            let path = entry.expect("suite entry").path();
            if path.is_dir() {
                if recursive {
                    pending.push(path);
                }
            } else if path.extension().and_then(|e| e.to_str()) == Some("json") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

#[derive(Default)]
struct Tally {
    cases: usize,
    passed: usize,
    failures: Vec<String>,
}

/// Runs every case of `file`; each case also checks that `is_valid`, `validate` and
/// `all_errors` agree.
fn run_file(file: &Path, options: &FullOptions, tally: &mut Tally) {
    let text = std::fs::read_to_string(file).expect("suite file readable");
    let groups: Vec<Value> = serde_json::from_str(&text).expect("suite file is JSON");
    let name = file
        .strip_prefix(json_schema_suite_dir())
        .unwrap_or(file)
        .display()
        .to_string();
    for group in &groups {
        let description = group["description"].as_str().unwrap_or("?");
        let tests = group["tests"].as_array().expect("tests array");
        let compiled = FullValidator::with_options(&group["schema"], options);
        for test in tests {
            tally.cases += 1;
            let expected = test["valid"].as_bool().expect("valid flag");
            let label = format!(
                "{name}: {description} / {}",
                test["description"].as_str().unwrap_or("?")
            );
            let validator = match &compiled {
                Ok(validator) => validator,
                Err(error) => {
                    tally
                        .failures
                        .push(format!("{label}: schema refused: {error}"));
                    continue;
                }
            };
            let data = &test["data"];
            let is_valid = validator.is_valid(data);
            let first = validator.validate(data);
            let all = validator.all_errors(data);
            if is_valid != first.is_ok() || is_valid != all.is_empty() {
                tally.failures.push(format!(
                    "{label}: APIs disagree: is_valid {is_valid}, validate {first:?}, all_errors {all:?}"
                ));
            } else if is_valid != expected {
                tally.failures.push(format!(
                    "{label}: expected valid={expected}, got {is_valid} ({first:?})"
                ));
            } else {
                tally.passed += 1;
            }
        }
    }
}

#[test]
fn every_required_draft2020_12_case_passes() {
    let options = FullOptions {
        remotes: remotes(),
        ..FullOptions::default()
    };
    let mut tally = Tally::default();
    let files = json_files(&json_schema_suite_dir().join("tests/draft2020-12"), false);
    assert!(files.len() >= 40, "only {} suite files found", files.len());
    for file in &files {
        run_file(file, &options, &mut tally);
    }
    println!(
        "draft2020-12 required: {}/{} passed",
        tally.passed, tally.cases
    );
    assert!(
        tally.failures.is_empty(),
        "{} of {} required cases failed:\n{}",
        tally.failures.len(),
        tally.cases,
        tally.failures.join("\n")
    );
    assert_eq!(
        tally.cases, REQUIRED_CASES,
        "the pinned suite has {REQUIRED_CASES} required cases"
    );
}

#[test]
fn optional_draft2020_12_cases_run_and_report_their_pass_rate() {
    let remotes = remotes();
    let mut tally = Tally::default();
    let root = json_schema_suite_dir().join("tests/draft2020-12/optional");
    for file in json_files(&root, true) {
        let options = FullOptions {
            remotes: remotes.clone(),
            validate_formats: file.starts_with(root.join("format")).then_some(true),
            ..FullOptions::default()
        };
        run_file(&file, &options, &mut tally);
    }
    let rate = 100.0 * tally.passed as f64 / tally.cases.max(1) as f64;
    println!(
        "draft2020-12 optional: {}/{} passed ({rate:.1}%)",
        tally.passed, tally.cases
    );
    for failure in &tally.failures {
        println!("  optional failure: {failure}");
    }
    assert!(
        tally.cases > 900,
        "only {} optional cases found",
        tally.cases
    );
    // Measured: 870/926 (94.0%); the misses are `idn-hostname` and `idn-email`, which need the
    // crate's `idna` feature (not enabled). A floor a little under it makes a regression show.
    assert!(rate >= 93.0, "optional pass rate fell to {rate:.1}%");
}
