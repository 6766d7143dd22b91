//! HMAC-SHA-256 (RFC 2104) straight on `sha2`'s compression function.
//!
//! The same MAC as RustCrypto's `hmac::Hmac<sha2::Sha256>` (the tests compare them), without
//! the `digest` crate's generic buffering, whose glue took about 460 bytes of flash on
//! qemu-sensors (`benches/SIZES.md`): one 64-byte block, a byte count and the two keyed
//! states. The key is the device's 32-byte [`Key`], zero-padded to the block as HMAC pads a
//! short key.

use sha2::block_api::compress256;

use super::Key;

/// SHA-256's initial state (FIPS 180-4, 5.3.3).
const IV: [u32; 8] = [
    0x6a09_e667,
    0xbb67_ae85,
    0x3c6e_f372,
    0xa54f_f53a,
    0x510e_527f,
    0x9b05_688c,
    0x1f83_d9ab,
    0x5be0_cd19,
];

/// SHA-256's block.
const BLOCK: usize = 64;

/// A MAC being computed: [`Mac::update`] with the input, [`Mac::finalize`] for the tag.
#[derive(Clone)]
pub(crate) struct Mac {
    /// The inner hash's state.
    inner: [u32; 8],
    /// The outer hash's state after the key block.
    outer: [u32; 8],
    /// Input not compressed yet (the first `len` bytes).
    block: [u8; BLOCK],
    len: usize,
    /// Bytes hashed by the inner hash so far, the key block included.
    total: u64,
}

/// The state after compressing `key` XOR `pad` (each byte) from the initial state.
fn keyed_state(key: &Key, pad: u8) -> [u32; 8] {
    let mut block = [pad; BLOCK];
    block
        .iter_mut()
        .zip(key.bytes())
        .for_each(|(b, k)| *b ^= *k);
    let mut state = IV;
    compress256(&mut state, &[block]);
    state
}

/// Pads the message whose last `len` bytes are in `block` (of `total` bytes in all), compresses
/// it into `state`, and gives the digest.
fn finish(mut state: [u32; 8], mut block: [u8; BLOCK], len: usize, total: u64) -> [u8; 32] {
    let mut tail = block.iter_mut().skip(len);
    if let Some(first) = tail.next() {
        *first = 0x80;
    }
    tail.for_each(|b| *b = 0);
    // The length takes the last 8 bytes: a block with no room for it goes first.
    if len >= BLOCK - 8 {
        compress256(&mut state, &[block]);
        block = [0; BLOCK];
    }
    let bits = total.wrapping_mul(8).to_be_bytes();
    block
        .iter_mut()
        .skip(BLOCK - 8)
        .zip(bits)
        .for_each(|(b, v)| *b = v);
    compress256(&mut state, &[block]);
    let mut digest = [0u8; 32];
    digest
        .chunks_exact_mut(4)
        .zip(state)
        .for_each(|(d, w)| d.iter_mut().zip(w.to_be_bytes()).for_each(|(d, b)| *d = b));
    digest
}

impl Mac {
    /// A MAC under `key`.
    pub(crate) fn new(key: &Key) -> Self {
        Self {
            inner: keyed_state(key, 0x36),
            outer: keyed_state(key, 0x5c),
            block: [0; BLOCK],
            len: 0,
            total: BLOCK as u64,
        }
    }

    /// Adds `data` to the input.
    pub(crate) fn update(&mut self, data: &[u8]) {
        for &byte in data {
            if let Some(slot) = self.block.get_mut(self.len) {
                *slot = byte;
                self.len = self.len.wrapping_add(1);
            }
            if self.len >= BLOCK {
                compress256(&mut self.inner, &[self.block]);
                self.len = 0;
            }
        }
        self.total = self.total.wrapping_add(data.len() as u64);
    }

    /// The 32-byte tag.
    pub(crate) fn finalize(self) -> [u8; 32] {
        let inner = finish(self.inner, self.block, self.len, self.total);
        let mut block = [0u8; BLOCK];
        block.iter_mut().zip(inner).for_each(|(b, d)| *b = d);
        // The outer input: the key block (64 bytes) and the inner digest (32).
        finish(self.outer, block, inner.len(), (BLOCK + 32) as u64)
    }

    /// Checks `claimed` against the tag's first `claimed.len()` bytes (1 to 32 of them), in
    /// the same time wherever they differ.
    pub(crate) fn verify_truncated_left(self, claimed: &[u8]) -> Result<(), Mismatch> {
        let tag = self.finalize();
        if claimed.is_empty() || claimed.len() > tag.len() {
            return Err(Mismatch);
        }
        let diff = claimed
            .iter()
            .zip(tag)
            .fold(0u8, |acc, (c, t)| acc | (c ^ t));
        // Kept opaque, so the optimiser does not turn the fold into an early exit.
        if core::hint::black_box(diff) == 0 {
            Ok(())
        } else {
            Err(Mismatch)
        }
    }
}

/// A tag that does not match.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Mismatch;

#[cfg(test)]
mod tests {
    use hmac::{Hmac, KeyInit, Mac as _};
    use sha2::Sha256;

    use super::*;

    /// The same tag as RustCrypto's HMAC-SHA-256, for every input length around the block
    /// boundaries and input split into pieces.
    #[test]
    fn equals_rustcrypto_hmac_sha256() {
        let key = Key::provisioned([0x5a; 32]);
        let data: [u8; 300] = core::array::from_fn(|i| (i * 7 + 3) as u8);
        for len in 0..data.len() {
            for split in [0, 1, len / 2, len] {
                let (a, b) = data[..len].split_at(split.min(len));
                let mut ours = Mac::new(&key);
                ours.update(a);
                ours.update(b);
                let mut theirs = <Hmac<Sha256> as KeyInit>::new_from_slice(key.bytes()).unwrap();
                theirs.update(&data[..len]);
                let expected = theirs.finalize().into_bytes();
                assert_eq!(ours.clone().finalize(), expected.as_slice(), "{len}");
                assert_eq!(ours.clone().verify_truncated_left(&expected[..16]), Ok(()));
                let mut wrong = expected;
                wrong[15] ^= 1;
                assert_eq!(
                    ours.clone().verify_truncated_left(&wrong[..16]),
                    Err(Mismatch)
                );
                assert_eq!(ours.verify_truncated_left(&[]), Err(Mismatch));
            }
        }
    }

    /// RFC 4231, test case 2 ("Jefe"), with the key zero-padded to 32 bytes (HMAC pads a short
    /// key with zeros, so the tag is the RFC's).
    #[test]
    fn rfc_4231_case_2() {
        let mut bytes = [0u8; 32];
        bytes[..4].copy_from_slice(b"Jefe");
        let mut mac = Mac::new(&Key::provisioned(bytes));
        mac.update(b"what do ya want for nothing?");
        let mut hex = [0u8; 64];
        super::super::put_hex(&mut hex, &mac.finalize());
        assert_eq!(
            &hex,
            b"5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
    }
}
