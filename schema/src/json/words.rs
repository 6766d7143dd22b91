//! Looking at text a machine word at a time: the byte masks the scanner, the line framer and
//! the escape check use to skip runs of bytes that need no attention.

/// The word the scanner looks at several bytes at a time: the machine's own (on a 32-bit
/// target one `u64` operation is two or three instructions, and its code twice the flash).
type Word = usize;
/// Bytes in a [`Word`].
const WORD: usize = core::mem::size_of::<Word>();
const LO: Word = Word::MAX / 0xff;
const HI: Word = LO << 7;

/// Bit 7 of each byte of `word` (little-endian) is set where the byte equals `b`. Bytes above
/// the lowest flagged one may be flagged wrongly (borrows), so only the lowest flag is exact.
#[inline]
pub(super) fn equal_mask(word: Word, b: u8) -> Word {
    let x = word ^ LO.wrapping_mul(Word::from(b));
    x.wrapping_sub(LO) & !x & HI
}

/// The number of leading bytes before the first byte for which `mask` flags a match, a word
/// at a time, the tail byte by byte with `is_match`.
#[inline]
fn until(bytes: &[u8], mask: impl Fn(Word) -> Word, is_match: impl Fn(u8) -> bool) -> usize {
    let n = skip_words(bytes, 0, mask);
    let rest = bytes.get(n..).unwrap_or_default();
    // Both parts together are at most `bytes.len()`.
    n.wrapping_add(rest.iter().position(|&b| is_match(b)).unwrap_or(rest.len()))
}

/// From `i`, the position of the first byte that `mask` flags, looking a word at a time while
/// a word is left; where fewer bytes are left, `i` as it then is (the caller looks at the last
/// bytes one by one). `mask` flags a byte by bit 7 of its byte in the little-endian word; only
/// the lowest flag needs to be exact.
#[inline]
pub(super) fn skip_words(bytes: &[u8], mut i: usize, mask: impl Fn(Word) -> Word) -> usize {
    while let Some(&word) = bytes.get(i..).and_then(|r| r.first_chunk::<WORD>()) {
        // The lowest flag of an OR of masks is the lowest exact flag of one of them.
        let found = mask(Word::from_le_bytes(word));
        if found != 0 {
            // Inside the word: below `bytes.len()`.
            return i.wrapping_add((found.trailing_zeros() / 8) as usize);
        }
        i = i.wrapping_add(WORD);
    }
    i
}

/// The position of the first `b` in `bytes`, eight bytes at a time.
#[inline]
#[doc(hidden)]
pub fn find_byte(bytes: &[u8], b: u8) -> Option<usize> {
    let n = until(bytes, |word| equal_mask(word, b), |x| x == b);
    (n < bytes.len()).then_some(n)
}

/// Leading bytes of checked text before a quote, bracket or brace.
#[inline]
pub(super) fn until_structural(bytes: &[u8]) -> usize {
    until(
        bytes,
        |word| {
            // `b | 0x20` is `{` only for `{` and `[`, and `}` only for `}` and `]`.
            let folded = word | (LO * 0x20);
            equal_mask(word, b'"') | equal_mask(folded, b'{') | equal_mask(folded, b'}')
        },
        |b| matches!(b, b'"' | b'{' | b'[' | b'}' | b']'),
    )
}
