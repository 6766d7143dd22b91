//! Fixed message texts joined into one byte string with a table of where each one ends: the
//! `Describe` impls of the error enums look a text up instead of branching once per variant
//! (each branch loads a pointer and a length and jumps: 10 to 16 bytes of flash per message on
//! a Cortex-M, against 2 for an entry of the table).

/// `N` texts joined into `T` bytes.
pub(crate) struct Messages<const T: usize, const N: usize> {
    text: [u8; T],
    /// `ends[i]` is where text `i` ends in `text` (and text `i + 1` begins).
    ends: [u16; N],
}

/// The joined length of `parts` (the `T` of [`Messages::join`]).
pub(crate) const fn joined_len(parts: &[&str]) -> usize {
    let mut total = 0usize;
    let mut rest = parts;
    while let [first, tail @ ..] = rest {
        total = total.wrapping_add(first.len());
        rest = tail;
    }
    total
}

impl<const T: usize, const N: usize> Messages<T, N> {
    /// The texts `parts`, joined at compile time; `T` must be [`joined_len`] of them (below
    /// 64 KiB), or the constant does not compile.
    pub(crate) const fn join(parts: [&str; N]) -> Self {
        let mut text = [0u8; T];
        let mut ends = [0u16; N];
        let mut at = 0usize;
        let mut dst: &mut [u8] = &mut text;
        let mut slots: &mut [u16] = &mut ends;
        let mut rest: &[&str] = &parts;
        while let [part, tail @ ..] = rest {
            let mut bytes = part.as_bytes();
            while let [b, more @ ..] = bytes {
                if let [slot, after @ ..] = dst {
                    *slot = *b;
                    dst = after;
                }
                at = at.wrapping_add(1);
                bytes = more;
            }
            if let [end, after @ ..] = slots {
                *end = at as u16;
                slots = after;
            }
            rest = tail;
        }
        assert!(
            at == T && T <= u16::MAX as usize,
            "T is not the joined length"
        );
        Self { text, ends }
    }

    /// Text `i` (empty when there is none).
    pub(crate) fn get(&self, i: usize) -> &[u8] {
        let start = match i.checked_sub(1) {
            Some(before) => self.ends.get(before).copied().unwrap_or_default(),
            None => 0,
        };
        let end = self.ends.get(i).copied().unwrap_or_default();
        self.text
            .get(usize::from(start)..usize::from(end))
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PARTS: [&str; 3] = ["one", "", "three"];
    const JOINED: Messages<{ joined_len(&PARTS) }, 3> = Messages::join(PARTS);

    #[test]
    fn each_text_comes_back_whole() {
        assert_eq!(JOINED.get(0), b"one");
        assert_eq!(JOINED.get(1), b"");
        assert_eq!(JOINED.get(2), b"three");
        assert_eq!(JOINED.get(3), b"");
    }
}
