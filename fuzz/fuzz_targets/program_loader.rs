//! The postcard program loader (`Program::from_postcard`) fed arbitrary bytes.
//!
//! Input: a little-endian `u16` length, that many program bytes, then an instance. Asserted:
//! - loading never panics; a program that loads validates any instance within its bounds;
//! - a loaded program re-encodes to bytes that load to an equal program giving the same
//!   verdict (the loader accepts only what the encoder can write back);
//! - a program that loads into small storage loads into large storage, equal.
#![no_main]

use embedded_mcp::schema::{Program, Storage};
use libfuzzer_sys::fuzz_target;

type Small = Storage<32, 128, 0>;
type Large = Storage<2048, 8192, 0>;

fuzz_target!(|data: &[u8]| {
    let [lo, hi, rest @ ..] = data else {
        return;
    };
    let len = usize::from(u16::from_le_bytes([*lo, *hi])).min(rest.len());
    let (bytes, instance) = rest.split_at(len);

    let mut large = Box::new(Large::new());
    let Ok(program) = Program::from_postcard(bytes, &mut large) else {
        let mut small = Box::new(Small::new());
        assert!(
            Program::from_postcard(bytes, &mut small).is_err(),
            "loads into small storage but not large"
        );
        return;
    };
    let verdict = program.validate_bytes(instance);
    if let Err(v) = &verdict {
        assert!(!v.message().is_empty());
        let _ = v.to_string();
    }
    let mut small = Box::new(Small::new());
    if let Ok(p) = Program::from_postcard(bytes, &mut small) {
        assert_eq!(p, program, "storage size changed the loaded program");
    }

    // Re-encode and load again.
    let mut buf = vec![0u8; program.postcard_len()];
    let written = program
        .to_postcard(&mut buf)
        .expect("postcard_len bytes suffice")
        .len();
    let buf = &buf[..written];
    let mut again = Box::new(Large::new());
    let reloaded = Program::from_postcard(buf, &mut again)
        .unwrap_or_else(|e| panic!("a loaded program does not load after re-encoding: {e}"));
    assert_eq!(reloaded, program, "re-encoded program differs");
    let again_verdict = reloaded.validate_bytes(instance);
    assert_eq!(again_verdict, verdict);
});
