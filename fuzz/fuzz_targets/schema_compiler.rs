//! The schema compiler fed generated schemas (structure-aware): the input is decoded by
//! `arbitrary` into a schema tree (`embedded_mcp_fuzz::schema_gen`), written out as JSON text
//! and compiled into a storage size the input chooses, from 1 node to the large reference
//! storage. libFuzzer mutates the tree's bytes, so every input is a JSON schema with long
//! pointers, short, escaped and non-ASCII keys, resolvable `$ref`s into non-keyword members,
//! `$defs` and `$id` resources, and wrong keyword values deep down. The byte-level target is
//! `schema_compiler_text`.
//!
//! Asserts the properties of `embedded_mcp_fuzz::schema_check`, and that the generated text is
//! JSON. With `FUZZ_PRINT_SCHEMA=1` in the environment, prints each schema it compiles (to
//! see what a reproducer stands for).
#![no_main]

use std::sync::OnceLock;

use embedded_mcp_fuzz::schema_check::check_schema_text;
use embedded_mcp_fuzz::schema_gen::GenSchema;
use embedded_mcp_fuzz::serde_json_accepts;
use libfuzzer_sys::fuzz_target;

fn print_schemas() -> bool {
    static PRINT: OnceLock<bool> = OnceLock::new();
    *PRINT.get_or_init(|| std::env::var_os("FUZZ_PRINT_SCHEMA").is_some_and(|v| v == "1"))
}

fuzz_target!(|doc: GenSchema| {
    let text = doc.to_json();
    if print_schemas() {
        eprintln!(
            "schema ({} bytes, storage choice {}): {text}",
            text.len(),
            doc.storage % 6
        );
    }
    let data = text.as_bytes();
    assert!(serde_json_accepts(data), "the generator wrote JSON: {text}");
    match doc.storage % 6 {
        0 => check_schema_text::<1, 2, 4>(data),
        1 => check_schema_text::<4, 12, 32>(data),
        2 => check_schema_text::<16, 48, 160>(data),
        3 => check_schema_text::<48, 160, 512>(data),
        4 => check_schema_text::<256, 1024, 2048>(data),
        _ => check_schema_text::<1024, 4096, 8192>(data),
    }
});
