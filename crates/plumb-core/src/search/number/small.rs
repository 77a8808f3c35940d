//! Short plain decimals (`-12.50`, `5000.5`, `123456`) read as an integer
//! and a scale, and compared exactly in integer arithmetic: the fast way
//! a numeric search predicate judges most cells.
//!
//! A cell of at most eight bytes after its sign (nearly every amount,
//! count and identifier in real tables) is read eight bytes at once, as
//! one `u64` ("SWAR": the digits checked and combined with a handful of
//! word operations instead of a test and a multiply a byte); compared
//! to a search's operand, it is not even combined into an integer but
//! made a key that orders as the number does (`decimal_key`). Longer
//! cells, up to 18 digits, take a loop. Written here rather than taken
//! from a crate: the number parsers on crates.io (`lexical`,
//! `atoi`, `fast-float`) read to a binary integer or float and refuse or
//! round, while this needs the exact digits and their scale, and to say
//! "no plain decimal" for anything else (an exponent, a second point, a
//! letter) so the general comparison takes it.
//!
//! Reference: the byte loop (`long_body`). Held equal by: `small.rs::tests:
//! :the_word_reading_agrees_with_the_loop_on_every_short_body`.

use std::cmp::Ordering;

use crate::number::POW10_I64;

/// Every byte of a word.
const ONES: u64 = 0x0101_0101_0101_0101;

/// A plain decimal of at most 18 digits (`-12.50`), as its digits read
/// as an integer and the count of them after the point; `None` for
/// anything else (no digit, a second point, an exponent, a letter, more
/// than 18 digits).
#[inline(always)]
pub(crate) fn small_decimal(text: &[u8]) -> Option<(i64, u32)> {
    let (negative, body) = split_sign(text)?;
    let (m, scale) = if body.len() <= 8 {
        short_body(body)?
    } else {
        long_body(body)?
    };
    Some((if negative { -m } else { m }, scale))
}

/// A number's sign and the bytes after it; `None` for no byte at all.
#[inline(always)]
fn split_sign(text: &[u8]) -> Option<(bool, &[u8])> {
    Some(match text.first()? {
        b'-' => (true, &text[1..]),
        b'+' => (false, &text[1..]),
        _ => (false, text),
    })
}

/// The byte of word `x` that holds its first (lowest) point, if any: the
/// usual zero-byte test on `x ^ '.'`, whose false hits can only sit
/// above a true one.
#[inline(always)]
fn first_point(x: u64) -> Option<u32> {
    let dots = x ^ (ONES * u64::from(b'.'));
    let zero = dots.wrapping_sub(ONES) & !dots & (ONES << 7);
    (zero != 0).then(|| zero.trailing_zeros() / 8)
}

/// Whether every byte of `d` is a digit's value (below 10): a byte xor
/// '0' is exactly when it was a digit (a second point, a sign or any
/// other byte is not).
#[inline(always)]
fn all_digit_values(d: u64) -> bool {
    (d.wrapping_add(ONES * 0x76) | d) & (ONES << 7) == 0
}

/// `mask(k)`: the low `k` bytes of a word (`k` up to 8).
#[inline(always)]
fn low_bytes(k: u32) -> u64 {
    if k >= 8 {
        !0
    } else {
        (1u64 << (8 * k)) - 1
    }
}

/// One to eight bytes as a little-endian word, right-aligned: the first
/// (most significant) byte at byte `8 - len`, and '0's (value-neutral
/// leading zeros) below it. Two overlapping loads, not a copy.
#[inline(always)]
fn right_aligned(body: &[u8]) -> u64 {
    let n = body.len();
    let word = if n >= 4 {
        let first = u32::from_le_bytes([body[0], body[1], body[2], body[3]]);
        let last = u32::from_le_bytes([body[n - 4], body[n - 3], body[n - 2], body[n - 1]]);
        // `first` lands at byte 8 - n, `last` at byte 4; where they
        // overlap they hold the same bytes.
        (u64::from(first) << (8 * (8 - n))) | (u64::from(last) << 32)
    } else {
        // One to three bytes: the first, middle and last cover them.
        let three = u64::from(body[0])
            | u64::from(body[n / 2]) << (8 * (n / 2))
            | u64::from(body[n - 1]) << (8 * (n - 1));
        three << (8 * (8 - n))
    };
    // The '0's fill the low `8 - n` bytes: a word of them shifted down by
    // the body's `n` bytes, in two steps so that eight bytes (a shift by
    // 64, which a word cannot take) leave none, with no test.
    word | (ONES * u64::from(b'0')) >> (8 * n - 1) >> 1
}

/// One to eight bytes of digits with at most one point, read as a word.
#[inline(always)]
fn short_body(body: &[u8]) -> Option<(i64, u32)> {
    let n = body.len() as u32;
    if n == 0 {
        return None;
    }
    let mut x = right_aligned(body);
    let mut scale = 0;
    if let Some(q) = first_point(x) {
        if n == 1 {
            return None;
        }
        // Close the gap: the bytes before the point move up one, and a
        // '0' comes in at the bottom.
        x = ((x & low_bytes(q)) << 8) | (x & !low_bytes(q + 1)) | u64::from(b'0');
        scale = 7 - q;
    }
    let d = x ^ (ONES * u64::from(b'0'));
    if !all_digit_values(d) {
        return None;
    }
    // Eight digits to their value in three steps: pairs, then fours,
    // then the whole (each step multiplies and adds neighbours at once).
    let pairs = d.wrapping_mul(10).wrapping_add(d >> 8);
    let lo = pairs & 0x0000_00FF_0000_00FF;
    let hi = (pairs >> 16) & 0x0000_00FF_0000_00FF;
    let v = lo
        .wrapping_mul(100 + (1_000_000 << 32))
        .wrapping_add(hi.wrapping_mul(1 + (10_000 << 32)))
        >> 32;
    Some(((v & 0xFFFF_FFFF) as i64, scale))
}

/// Nine to nineteen bytes: one pass, one test a byte.
fn long_body(body: &[u8]) -> Option<(i64, u32)> {
    // At most 18 digits and a point: the digits cannot pass an i64.
    if body.is_empty() || body.len() > 19 {
        return None;
    }
    let mut m: i64 = 0;
    let mut point = None;
    for (k, &b) in body.iter().enumerate() {
        let d = b.wrapping_sub(b'0');
        if d < 10 {
            m = m.wrapping_mul(10).wrapping_add(i64::from(d));
        } else if b == b'.' && point.is_none() {
            point = Some(k);
        } else {
            return None;
        }
    }
    let digits = body.len() - usize::from(point.is_some());
    if digits == 0 || digits > 18 {
        return None;
    }
    let scale = point.map_or(0, |p| (body.len() - p - 1) as u32);
    Some((m, scale))
}

/// A plain decimal of at most eight bytes after its sign, as a key that
/// orders exactly as the number does: its sign, and its digits as one
/// unsigned integer with the point always at byte 7 (integer digits
/// above it, fraction digits below it, zeros around both). Made with a
/// byte swap and a shift, no multiplication: a search compares most
/// cells to its operand so. `None` as [`small_decimal`] gives it, and
/// for a longer body.
#[inline(always)]
pub(crate) fn decimal_key(text: &[u8]) -> Option<(bool, u128)> {
    let (negative, body) = split_sign(text)?;
    let n = body.len() as u32;
    if n == 0 || n > 8 {
        return None;
    }
    let x = right_aligned(body);
    // Digit values; the (first) point's byte cleared to a zero digit.
    let mut d = x ^ (ONES * u64::from(b'0'));
    // After the swap below, the point's byte `q` is byte `7 - q`: a
    // shift by `q` bytes brings it to byte 7. With no point, the place
    // after the last digit (past byte 0) goes there: a shift by eight
    // bytes.
    let shift = match first_point(x) {
        Some(_) if n == 1 => return None,
        Some(q) => {
            d &= !(0xFF << (8 * q));
            8 * q
        }
        None => 64,
    };
    if !all_digit_values(d) {
        return None;
    }
    // The first character to the top, the last to byte 0.
    Some((negative, u128::from(d.swap_bytes()) << shift))
}

/// Compares two keys of [`decimal_key`] exactly (`-0` equals `0`).
#[inline(always)]
pub(crate) fn cmp_keys((na, a): (bool, u128), (nb, b): (bool, u128)) -> Ordering {
    match (na && a != 0, nb && b != 0) {
        (false, false) => a.cmp(&b),
        (true, true) => b.cmp(&a),
        (false, true) => Ordering::Greater,
        (true, false) => Ordering::Less,
    }
}

/// Compares two short decimals (digits, scale) exactly.
#[inline(always)]
pub(crate) fn cmp_small((a, sa): (i64, u32), (b, sb): (i64, u32)) -> Ordering {
    if sa == sb {
        return a.cmp(&b);
    }
    // Scaled to the finer scale in i64 when that fits (the usual case:
    // a few decimals apart), else in i128.
    let (x, y) = if sa < sb {
        (a.checked_mul(POW10_I64[(sb - sa) as usize]), Some(b))
    } else {
        (Some(a), b.checked_mul(POW10_I64[(sa - sb) as usize]))
    };
    match (x, y) {
        (Some(x), Some(y)) => x.cmp(&y),
        _ => cmp_wide((a, sa), (b, sb)),
    }
}

/// [`cmp_small`] where a scaled side passes an i64.
#[cold]
fn cmp_wide((a, sa): (i64, u32), (b, sb): (i64, u32)) -> Ordering {
    // Both have at most 18 digits and 18 decimals: scaled to the finer
    // scale, each stays under 10^36, inside an i128.
    let s = sa.max(sb);
    let scale = |v: i64, by: u32| i128::from(v) * i128::from(POW10_I64[by as usize]);
    scale(a, s - sa).cmp(&scale(b, s - sb))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every text of `len` bytes over `alphabet`.
    fn every_text(alphabet: &'static [u8], len: u32) -> impl Iterator<Item = Vec<u8>> {
        (0..alphabet.len().pow(len)).map(move |mut k| {
            let mut text = Vec::with_capacity(len as usize);
            for _ in 0..len {
                text.push(alphabet[k % alphabet.len()]);
                k /= alphabet.len();
            }
            text
        })
    }

    /// Every body of up to six bytes over digits, a point, signs and
    /// other bytes, against operands of every kind: a key orders exactly
    /// as the general comparison does, and is made for every text the
    /// word reading takes.
    #[test]
    fn decimal_keys_order_as_the_numbers_on_every_short_body() {
        const ALPHABET: &[u8] = b"0159.-+ e";
        let operands: Vec<&[u8]> = vec![
            b"0",
            b"-0",
            b"5",
            b"-5",
            b"0.5",
            b"5000.5",
            b"-12.25",
            b"1.",
            b".5",
            b"99999999",
            b"0.000001",
            b"10",
            b"1",
            b"9.99",
            b"-0.001",
        ];
        let keys: Vec<_> = operands.iter().map(|o| decimal_key(o)).collect();
        let mut checked = 0u64;
        for len in 0..=6u32 {
            for text in every_text(ALPHABET, len) {
                let key = decimal_key(&text);
                assert_eq!(key.is_some(), small_decimal(&text).is_some(), "{text:?}");
                let Some(key) = key else { continue };
                for (o, ok) in operands.iter().zip(&keys) {
                    let want = crate::compare_number_literals(&text, o);
                    assert_eq!(Some(cmp_keys(key, ok.unwrap())), want, "{text:?} {o:?}");
                    checked += 1;
                }
            }
        }
        assert!(checked > 100_000, "{checked}");
        // Seven and eight bytes, on fewer letters.
        const FEW: &[u8] = b"09.-";
        for len in 7..=9u32 {
            for text in every_text(FEW, len) {
                let key = decimal_key(&text);
                if len == 9 && text[0] != b'-' {
                    assert!(key.is_none(), "{text:?}");
                } else {
                    assert_eq!(key.is_some(), small_decimal(&text).is_some(), "{text:?}");
                }
                let Some(key) = key else { continue };
                for (o, ok) in operands.iter().zip(&keys) {
                    let want = crate::compare_number_literals(&text, o);
                    assert_eq!(Some(cmp_keys(key, ok.unwrap())), want, "{text:?} {o:?}");
                }
            }
        }
    }

    /// Every body of up to six bytes over digits, a point, signs, a
    /// space and a letter: the word reading agrees with the loop.
    #[test]
    fn the_word_reading_agrees_with_the_loop_on_every_short_body() {
        const ALPHABET: &[u8] = b"0159.-+ e/:";
        let mut checked = 0;
        for len in 0..=6u32 {
            for body in every_text(ALPHABET, len) {
                let want = if body.is_empty() {
                    None
                } else {
                    long_body(&body)
                };
                assert_eq!(
                    short_body(&body),
                    want,
                    "{:?}",
                    String::from_utf8_lossy(&body)
                );
                checked += 1;
            }
        }
        assert!(checked > 1_900_000);
    }

    #[test]
    fn short_bodies_load_right_aligned_over_zeros() {
        for n in 1..=8 {
            let body: Vec<u8> = (b'A'..).take(n).collect();
            let mut want = [b'0'; 8];
            want[8 - n..].copy_from_slice(&body);
            assert_eq!(right_aligned(&body), u64::from_le_bytes(want), "{n}");
        }
    }

    #[test]
    fn eight_bytes_read_whole() {
        assert_eq!(short_body(b"99999999"), Some((99_999_999, 0)));
        assert_eq!(short_body(b"12345.67"), Some((1_234_567, 2)));
        assert_eq!(short_body(b".1234567"), Some((1_234_567, 7)));
        assert_eq!(short_body(b"1234567."), Some((1_234_567, 0)));
        assert_eq!(short_body(b"00000000"), Some((0, 0)));
        assert_eq!(short_body(b"1234.6.7"), None);
        assert_eq!(short_body(b"1234567a"), None);
        assert_eq!(small_decimal(b"-4567.89"), Some((-456_789, 2)));
        assert_eq!(small_decimal(b"+12345678.9"), Some((123_456_789, 1)));
        assert_eq!(small_decimal(b"-"), None);
        assert_eq!(small_decimal(b"."), None);
    }

    #[test]
    fn scales_far_apart_compare_in_wide_arithmetic() {
        let big = (999_999_999_999_999_999, 0);
        let tiny = (1, 18);
        assert_eq!(cmp_small(big, tiny), Ordering::Greater);
        assert_eq!(cmp_small(tiny, big), Ordering::Less);
        assert_eq!(cmp_small((-5, 1), (-50, 2)), Ordering::Equal);
    }
}
