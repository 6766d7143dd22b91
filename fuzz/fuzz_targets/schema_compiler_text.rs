//! The schema compiler fed arbitrary bytes as schema text (the byte-level target; the
//! structure-aware one is `schema_compiler`).
//!
//! Asserts the properties of `embedded_mcp_fuzz::schema_check` with the chosen storage
//! `Storage<48, 160, 512>` against the large one.
#![no_main]

use embedded_mcp_fuzz::schema_check::check_schema_text;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    check_schema_text::<48, 160, 512>(data);
});
