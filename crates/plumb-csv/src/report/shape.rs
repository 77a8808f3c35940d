//! The shapes of a cell's text that a column's accumulator asks about:
//! a decimal comma, a code (`US`, `0E8`), and its length in characters.
//! Apart from `column.rs`, which holds what a column accumulates.

/// A number written with a decimal comma (`3,25`, `-0,5`): the same
/// text with a point, when it is one.
pub(super) fn comma_decimal(t: &[u8]) -> Option<Vec<u8>> {
    let digits = t
        .strip_prefix(b"-")
        .or_else(|| t.strip_prefix(b"+"))
        .unwrap_or(t);
    let comma = memchr::memchr(b',', digits)?;
    let (int, frac) = (&digits[..comma], &digits[comma + 1..]);
    let all_digits = |p: &[u8]| !p.is_empty() && p.iter().all(u8::is_ascii_digit);
    (all_digits(int) && all_digits(frac)).then(|| {
        let mut v = t.to_vec();
        let at = t.len() - digits.len() + comma;
        v[at] = b'.';
        v
    })
}

/// Whether a float literal is shaped like a code: digits, `E` or `e`,
/// digits (`0E8`, `12e3`), with no sign or point.
pub(super) fn code_shaped_float(t: &[u8]) -> bool {
    match t.iter().position(|&b| b == b'e' || b == b'E') {
        Some(k) => {
            k > 0
                && k + 1 < t.len()
                && t[..k].iter().all(u8::is_ascii_digit)
                && t[k + 1..].iter().all(u8::is_ascii_digit)
        }
        None => false,
    }
}

/// Two or three capital letters: a country, currency or language code.
pub(super) fn code_shaped(t: &[u8]) -> bool {
    (2..=3).contains(&t.len()) && t.iter().all(u8::is_ascii_uppercase)
}

/// Characters in UTF-8 text: bytes that are not continuation bytes
/// (`10xxxxxx`), counted eight at a time.
pub(super) fn char_count(b: &[u8]) -> u64 {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut chunks = b.chunks_exact(8);
    let mut continuation = 0u64;
    for chunk in &mut chunks {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let w = u64::from_le_bytes(word);
        // Top bit set and the next bit clear, in every byte at once.
        continuation += u64::from((w & !(w << 1) & HIGH).count_ones());
    }
    let tail = chunks.remainder();
    continuation += tail.iter().filter(|&&c| c & 0xC0 == 0x80).count() as u64;
    b.len() as u64 - continuation
}

#[cfg(test)]
mod tests {
    use super::char_count;

    proptest::proptest! {
        /// Counted eight bytes at a time, as `chars()` counts valid text
        /// and as a byte-at-a-time count does any bytes.
        #[test]
        fn char_count_matches_chars_and_the_byte_count(
            text in "\\PC{0,40}",
            bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..40),
        ) {
            proptest::prop_assert_eq!(char_count(text.as_bytes()), text.chars().count() as u64);
            let naive = bytes.iter().filter(|&&c| c & 0xC0 != 0x80).count() as u64;
            proptest::prop_assert_eq!(char_count(&bytes), naive);
        }
    }
}
