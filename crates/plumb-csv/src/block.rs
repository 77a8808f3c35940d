//! Structural bit masks of 64-byte blocks, for the parser's block path.
//!
//! A block is classified once: one `u64` per byte of interest (the
//! delimiter, the quote, LF, CR), bit `k` set when byte `k` is that byte. On
//! x86-64 this is four 16-byte compares per mask through `safe_arch`
//! (SSE2 is part of the x86-64 baseline, so no runtime check is needed);
//! elsewhere a plain loop does the same and stays the reference.
//!
//! [`prefix_xor`] turns the quote mask into the "inside quotes" mask:
//! bit `k` is set when an odd number of quotes sit at or before `k`. An
//! opening quote is inside, a closing quote outside, and a doubled quote
//! `""` inside a quoted field closes and reopens, which is exactly how
//! RFC 4180 reads it.
//!
//! Reference: `portable`, one byte at a time. Held equal by:
//! `block.rs::tests::classifier_agrees_with_the_reference`.

/// The bytes in one block.
pub(crate) const BLOCK: usize = 64;

/// Where the bytes of interest sit in one block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Masks {
    /// The delimiter.
    pub delimiter: u64,
    /// The quote (`"` unless the dialect says otherwise; no bits when
    /// the dialect has no quote, which the parser marks by passing the
    /// delimiter as the quote).
    pub quote: u64,
    /// `\n`.
    pub lf: u64,
    /// `\r`.
    pub cr: u64,
}

impl Masks {
    /// Classifies one block.
    #[inline(always)]
    pub(crate) fn of(block: &[u8; BLOCK], delimiter: u8, quote: u8) -> Masks {
        #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
        {
            sse2(block, delimiter, quote)
        }
        #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
        {
            portable(block, delimiter, quote)
        }
    }
}

/// The reference classifier: one byte at a time.
#[cfg_attr(
    all(target_arch = "x86_64", target_feature = "sse2", not(test)),
    allow(dead_code)
)]
pub(crate) fn portable(block: &[u8; BLOCK], delimiter: u8, quote: u8) -> Masks {
    let mut m = Masks {
        delimiter: 0,
        quote: 0,
        lf: 0,
        cr: 0,
    };
    for (k, &b) in block.iter().enumerate() {
        let bit = 1u64 << k;
        // A delimiter that is also special (never sensible) is the
        // delimiter, as in the byte machine's class table.
        if b == delimiter {
            m.delimiter |= bit;
        } else if b == quote {
            m.quote |= bit;
        } else if b == b'\n' {
            m.lf |= bit;
        } else if b == b'\r' {
            m.cr |= bit;
        }
    }
    m
}

#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[inline(always)]
fn sse2(block: &[u8; BLOCK], delimiter: u8, quote: u8) -> Masks {
    use safe_arch::{cmp_eq_mask_i8_m128i, m128i, move_mask_i8_m128i, set_splat_i8_m128i};

    // Bytes reinterpreted as i8 for the splat: the compare is bitwise.
    let splat = |b: u8| set_splat_i8_m128i(i8::from_ne_bytes([b]));
    let (d, q, lf, cr) = (splat(delimiter), splat(quote), splat(b'\n'), splat(b'\r'));
    let mut m = Masks {
        delimiter: 0,
        quote: 0,
        lf: 0,
        cr: 0,
    };
    for part in 0..BLOCK / 16 {
        let mut lane = [0u8; 16];
        lane.copy_from_slice(&block[part * 16..part * 16 + 16]);
        let v = m128i::from(lane);
        let bits = |c: m128i| u64::from(move_mask_i8_m128i(cmp_eq_mask_i8_m128i(v, c)) as u16);
        let shift = part * 16;
        let dm = bits(d);
        m.delimiter |= dm << shift;
        // Special bytes that are also the delimiter count as the delimiter.
        m.quote |= (bits(q) & !dm) << shift;
        m.lf |= (bits(lf) & !dm) << shift;
        m.cr |= (bits(cr) & !dm) << shift;
    }
    m
}

/// A block's structure under the quotes: which quotes open and close,
/// which delimiters and line breaks lie outside quotes, and the quotes
/// the byte machine would report.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Structure {
    /// Bytes inside quotes (an opening quote is inside, a closing one not).
    pub inside: u64,
    pub opens: u64,
    pub closes: u64,
    /// Delimiters, LFs and CRs outside quotes.
    pub delims: u64,
    pub lfs: u64,
    pub crs: u64,
    /// Where a field starts (after a separator, or at the block's start
    /// when one starts there).
    pub field_starts: u64,
    /// An opening quote not at a field's start, or a closing quote
    /// followed by text (what follows the last byte is the next block's
    /// to tell).
    pub bad_quotes: u64,
}

impl Structure {
    /// The structure of a block with masks `m`, which starts inside
    /// quotes when `quoted`, and with a field when `field_start`.
    #[inline(always)]
    pub(crate) fn of(m: &Masks, quoted: bool, field_start: bool) -> Structure {
        let inside = prefix_xor(m.quote) ^ if quoted { !0 } else { 0 };
        let opens = m.quote & inside;
        let closes = m.quote & !inside;
        let delims = m.delimiter & !inside;
        let lfs = m.lf & !inside;
        let crs = m.cr & !inside;
        let field_starts = ((delims | lfs | crs) << 1) | u64::from(field_start);
        let bad_open = opens & !(field_starts | (closes << 1));
        let bad_close = closes & !(((m.delimiter | m.lf | m.cr | m.quote) >> 1) | 1 << 63);
        Structure {
            inside,
            opens,
            closes,
            delims,
            lfs,
            crs,
            field_starts,
            bad_quotes: bad_open | bad_close,
        }
    }
}

/// Bit `k` of the result is the XOR of bits `0..=k` of `x`.
#[inline(always)]
pub(crate) fn prefix_xor(mut x: u64) -> u64 {
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    x
}

/// The bits below `k` (`k` may be 64).
#[inline(always)]
pub(crate) fn below(k: u32) -> u64 {
    if k >= 64 {
        !0
    } else {
        below_bit(k)
    }
}

/// [`below`] for a bit of the block (`k` under 64): one shift, and no
/// test for the edge, on the per-line path of a column search.
#[inline(always)]
pub(crate) fn below_bit(k: u32) -> u64 {
    debug_assert!(k < 64, "{k}");
    (1u64 << (k & 63)) - 1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block_of(bytes: &[u8]) -> [u8; BLOCK] {
        let mut b = [b'x'; BLOCK];
        b[..bytes.len()].copy_from_slice(bytes);
        b
    }

    #[test]
    fn classifier_agrees_with_the_reference() {
        // Every byte value at every lane position, for several delimiters.
        for delimiter in [b',', b'\t', b';', b'|', b'"', b'\n'] {
            // The quote: `"`, `'`, or none (passed as the delimiter).
            for quote in [b'"', b'\'', delimiter] {
                for value in 0..=255u8 {
                    for pos in [0, 1, 15, 16, 31, 47, 63] {
                        let mut b = block_of(b"a,\"b\"\r\n;|\t'");
                        b[pos] = value;
                        assert_eq!(
                            Masks::of(&b, delimiter, quote),
                            portable(&b, delimiter, quote),
                            "delimiter {delimiter} quote {quote} value {value} at {pos}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn reference_masks() {
        let b = block_of(b"a,\"b\"\r\n");
        let m = portable(&b, b',', b'"');
        assert_eq!(m.delimiter, 1 << 1);
        assert_eq!(m.quote, (1 << 2) | (1 << 4));
        assert_eq!(m.cr, 1 << 5);
        assert_eq!(m.lf, 1 << 6);
    }

    #[test]
    fn prefix_xor_marks_the_inside_of_quotes() {
        for x in [
            0u64,
            1,
            0b1001,
            0b1010_0110,
            !0,
            1 << 63,
            0x8000_0000_0000_0001,
        ] {
            let mut want = 0u64;
            let mut acc = 0u64;
            for k in 0..64 {
                acc ^= (x >> k) & 1;
                want |= acc << k;
            }
            assert_eq!(prefix_xor(x), want, "{x:b}");
        }
    }

    #[test]
    fn below_covers_the_edges() {
        assert_eq!(below(0), 0);
        assert_eq!(below(1), 1);
        assert_eq!(below(63), !0 >> 1);
        assert_eq!(below(64), !0);
        for k in 0..64 {
            assert_eq!(below_bit(k), below(k), "{k}");
        }
    }
}
