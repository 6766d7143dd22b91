//! `u64` divided by a divisor below 2^16 in four 16-bit steps of 32-bit division (schoolbook
//! division: the Cortex-M3's `UDIV`, a small library routine on the Cortex-M0). A plain
//! `u64 / d` calls `__aeabi_uldivmod` (the general 64-bit divide, 866 bytes of flash) even for
//! a constant `d`.

/// `(n / d, n % d)`; `d` must not be 0 (a 0 divisor gives `(u64::MAX, 0)`).
pub const fn div_rem(n: u64, d: u16) -> (u64, u16) {
    let d = d as u32;
    if d == 0 {
        return (u64::MAX, 0);
    }
    let (mut quotient, mut rest) = (0u64, 0u32);
    let mut shift = 64;
    while shift > 0 {
        shift -= 16;
        // `rest < d < 2^16`, so `(rest << 16) | limb` fits in 32 bits.
        let part = (rest << 16) | ((n >> shift) as u32 & 0xFFFF);
        quotient = (quotient << 16) | (part / d) as u64;
        rest = part % d;
    }
    (quotient, rest as u16)
}

// Checked on every build (this crate has no host tests): the 64-bit operators agree.
const _: () = {
    let cases: [(u64, u16); 6] = [
        (0, 10),
        (9, 10),
        (u64::MAX, 10),
        (u64::MAX, 12_500),
        (123_456_789_012_345, 12_500),
        (0x0001_0000_FFFF_0000, u16::MAX),
    ];
    let mut i = 0;
    while i < cases.len() {
        let (n, d) = cases[i];
        let (q, r) = div_rem(n, d);
        assert!(q == n / d as u64 && r as u64 == n % d as u64);
        i += 1;
    }
};
