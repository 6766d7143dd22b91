//! Golden files of `embedded-mcp codegen`: each listing in `tests/codegen/listings` (QEMU
//! captures of the sensor and conformance firmware in both eras, a hand-made set of every schema
//! feature and hostile names) and the scripted fake device's tools generate exactly `tests/codegen/golden/<listing>.{ts,py,rs}`.
//! `UPDATE_GOLDEN=1` rewrites them. `tests/codegen/run.sh` checks that the golden files
//! type-check and are formatted (tsc/prettier, mypy/black, rustfmt; the Rust ones also compile
//! in `codegen_rust.rs`).

#[path = "../clients/fake_device.rs"]
mod fake_device;

use std::path::{Path, PathBuf};

use embedded_mcp_std::codegen::{generate, Lang, Options};
use serde_json::Value;

fn dir(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("codegen")
        .join(name)
}

/// The listing files: (stem, capture); and the scripted fake device's tools as `fake_device`.
fn listings() -> Vec<(String, Value)> {
    let fake = serde_json::json!({
        "serverInfo": {"name": "fake-device", "version": "1"},
        "protocolVersion": "2025-11-25",
        "listing": {"tools": fake_device::tools()},
    });
    let mut out = vec![("fake_device".to_owned(), fake)];
    for entry in std::fs::read_dir(dir("listings")).expect("listings") {
        let path = entry.expect("entry").path();
        let stem = path
            .file_stem()
            .expect("stem")
            .to_string_lossy()
            .into_owned();
        let text = std::fs::read_to_string(&path).expect("read listing");
        out.push((stem, serde_json::from_str(&text).expect("listing JSON")));
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

fn module(capture: &Value, lang: Lang) -> String {
    let options = Options {
        revision: capture["protocolVersion"]
            .as_str()
            .expect("protocolVersion")
            .to_owned(),
        server_info: capture.get("serverInfo").cloned(),
    };
    generate(lang, &capture["listing"], &options).expect("generate")
}

#[test]
fn golden_modules() {
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    let mut stale = Vec::new();
    for (stem, capture) in listings() {
        for (lang, ext) in [
            (Lang::TypeScript, "ts"),
            (Lang::Python, "py"),
            (Lang::Rust, "rs"),
        ] {
            let text = module(&capture, lang);
            let path = dir("golden").join(format!("{}.{ext}", stem.replace('-', "_")));
            if update {
                std::fs::write(&path, &text).expect("write golden");
            } else if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
                stale.push(path.display().to_string());
            }
        }
    }
    assert!(
        stale.is_empty(),
        "golden files differ (UPDATE_GOLDEN=1 rewrites them): {stale:?}"
    );
}

/// The same device listed at a legacy revision and at 2026-07-28 gives the same functions: the
/// legacy wrapper of `read_acceleration`'s array is recognised and unwrapped.
#[test]
fn both_eras_generate_the_same_functions() {
    let all = listings();
    let find = |stem: &str| &all.iter().find(|(s, _)| s == stem).expect(stem).1;
    for lang in [Lang::TypeScript, Lang::Python, Lang::Rust] {
        let strip = |text: String| -> String {
            text.lines()
                .filter(|l| !l.contains("revision 20"))
                .collect::<Vec<_>>()
                .join("\n")
        };
        let legacy = strip(module(find("qemu-sensors-2025-11-25"), lang));
        let modern = strip(module(find("qemu-sensors-2026-07-28"), lang));
        assert_eq!(legacy, modern, "{lang:?}");
    }
}
