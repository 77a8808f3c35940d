//! Structural bit masks of 64-byte blocks, for the fast path.
//!
//! A block is classified once into three `u64`s, bit `k` for byte `k`:
//! the bytes that stop a plain run inside a string (the quote, the
//! backslash, the control characters below U+0020), the bytes that are
//! not JSON white space, and the line feeds. The fast path then crosses
//! a string body or a run of white space with a shift and a
//! `trailing_zeros` instead of a byte loop, and counts the lines it
//! crossed with `count_ones` (the technique of simdjson's first stage,
//! used here where the push parser spends its bytes: string bodies and
//! indentation). On x86-64 the compares are SSE2 through `safe_arch`
//! (part of the x86-64 baseline, so no runtime check is needed and the
//! engine holds no `unsafe`); elsewhere a plain loop does the same and
//! stays the reference, and a test holds the two equal.
//!
//! [`Scanner`] keeps the masks of the last block it classified, so the
//! short strings and gaps of one block cost one classification between
//! them.
//!
//! Reference: `portable` for the masks, byte loops for the scanner. Held
//! equal by: `block.rs::tests::classifier_agrees_with_the_reference` and
//! `block.rs::tests::scanner_matches_byte_loops`.

/// The bytes in one block.
pub(super) const BLOCK: usize = 64;

/// Where the bytes of interest sit in one block.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Masks {
    /// `"`, `\` and the bytes below 0x20: where a string's plain run stops.
    pub stop: u64,
    /// Every byte but space, tab, CR and LF.
    pub solid: u64,
    /// `\n`.
    pub lf: u64,
}

impl Masks {
    /// Classifies one block.
    #[inline(always)]
    pub(super) fn of(block: &[u8; BLOCK]) -> Masks {
        #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
        {
            sse2(block)
        }
        #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
        {
            portable(block)
        }
    }
}

/// The reference classifier: one byte at a time.
#[cfg_attr(
    all(target_arch = "x86_64", target_feature = "sse2", not(test)),
    allow(dead_code)
)]
pub(super) fn portable(block: &[u8; BLOCK]) -> Masks {
    let mut m = Masks::default();
    for (k, &b) in block.iter().enumerate() {
        let bit = 1u64 << k;
        if super::STR_STOP[usize::from(b)] {
            m.stop |= bit;
        }
        if !matches!(b, b' ' | b'\t' | b'\r' | b'\n') {
            m.solid |= bit;
        }
        if b == b'\n' {
            m.lf |= bit;
        }
    }
    m
}

#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[inline(always)]
fn sse2(block: &[u8; BLOCK]) -> Masks {
    use safe_arch::{
        cmp_eq_mask_i8_m128i, cmp_gt_mask_i8_m128i, m128i, move_mask_i8_m128i, set_splat_i8_m128i,
    };

    // Bytes reinterpreted as i8 for the splat: the compares are bitwise,
    // except the one below, which is signed on purpose.
    let splat = |b: u8| set_splat_i8_m128i(i8::from_ne_bytes([b]));
    let (quote, backslash, space, tab, cr, lf, x20) = (
        splat(b'"'),
        splat(b'\\'),
        splat(b' '),
        splat(b'\t'),
        splat(b'\r'),
        splat(b'\n'),
        splat(0x20),
    );
    let bits = |v: m128i| u64::from(move_mask_i8_m128i(v) as u16);
    let mut m = Masks::default();
    for part in 0..BLOCK / 16 {
        let mut lane = [0u8; 16];
        lane.copy_from_slice(&block[part * 16..part * 16 + 16]);
        let v = m128i::from(lane);
        let shift = part * 16;
        // Signed, `0x20 > b` holds for the controls and for every byte
        // of 0x80 and above; the high bit of each byte removes those.
        let below = bits(cmp_gt_mask_i8_m128i(x20, v)) & !bits(v);
        let quotes = cmp_eq_mask_i8_m128i(v, quote) | cmp_eq_mask_i8_m128i(v, backslash);
        let lfs = cmp_eq_mask_i8_m128i(v, lf);
        let white = cmp_eq_mask_i8_m128i(v, space)
            | cmp_eq_mask_i8_m128i(v, tab)
            | cmp_eq_mask_i8_m128i(v, cr)
            | lfs;
        m.stop |= (bits(quotes) | below) << shift;
        m.solid |= (!bits(white) & 0xFFFF) << shift;
        m.lf |= bits(lfs) << shift;
    }
    m
}

/// The bytes of a string body or a white-space gap crossed one at a
/// time before the masks are used: shorter runs are the common case,
/// and a byte loop ends them sooner than a block is classified.
const SHORT_RUN: usize = 16;

/// `Scanner::at` when no block is held: every index of a slice lies
/// more than a block's bytes after it (wrapping), so none falls in it.
const NONE: usize = usize::MAX - BLOCK;

/// The masks of the block last classified, and where it starts.
pub(super) struct Scanner {
    at: usize,
    masks: Masks,
}

impl Scanner {
    /// A scanner holding no block.
    #[inline(always)]
    pub(super) fn new() -> Scanner {
        Scanner {
            at: NONE,
            masks: Masks::default(),
        }
    }

    /// The masks of a block holding `k` as bit `k - at`, classifying
    /// one that starts at `k` when the held one does not; `None` when
    /// fewer than a block's bytes are left from `k`.
    #[inline(always)]
    fn block(&mut self, input: &[u8], k: usize) -> Option<(u32, Masks)> {
        let off = k.wrapping_sub(self.at);
        if off < BLOCK {
            return Some((off as u32, self.masks));
        }
        let block: &[u8; BLOCK] = input.get(k..k + BLOCK)?.try_into().ok()?;
        self.at = k;
        self.masks = Masks::of(block);
        Some((0, self.masks))
    }

    /// The first index from `k` holding a quote, a backslash or a control
    /// character, or `input.len()` when none does.
    #[inline(always)]
    pub(super) fn next_stop(&mut self, input: &[u8], mut k: usize) -> usize {
        // Most strings are short: a byte loop ends them before a block's
        // classification would have paid for itself.
        let near = input.len().min(k + SHORT_RUN);
        while k < near {
            if super::STR_STOP[usize::from(input[k])] {
                return k;
            }
            k += 1;
        }
        self.stop_in_blocks(input, k)
    }

    /// [`Scanner::next_stop`] past its first bytes: out of line, so the
    /// short strings' loop stays small where it is inlined.
    #[inline(never)]
    fn stop_in_blocks(&mut self, input: &[u8], mut k: usize) -> usize {
        loop {
            let Some((off, m)) = self.block(input, k) else {
                while k < input.len() && !super::STR_STOP[usize::from(input[k])] {
                    k += 1;
                }
                return k;
            };
            let stops = m.stop >> off;
            if stops != 0 {
                return k + stops.trailing_zeros() as usize;
            }
            k += BLOCK - off as usize;
        }
    }

    /// The first index from `k` holding anything but white space, or
    /// `input.len()`; with the line feeds crossed: how many, and the
    /// index after the last.
    #[inline(always)]
    pub(super) fn next_solid(&mut self, input: &[u8], mut k: usize) -> (usize, u64, Option<usize>) {
        let (mut lines, mut last) = (0u64, None);
        // Short gaps (a space, a line break and some indentation) end in
        // a byte loop, as short strings do.
        let near = input.len().min(k + SHORT_RUN);
        while k < near {
            match input[k] {
                b' ' | b'\t' | b'\r' => {}
                b'\n' => {
                    lines += 1;
                    last = Some(k + 1);
                }
                _ => return (k, lines, last),
            }
            k += 1;
        }
        self.solid_in_blocks(input, k, lines, last)
    }

    /// [`Scanner::next_solid`] past its first bytes, out of line as
    /// [`Scanner::stop_in_blocks`] is.
    #[inline(never)]
    fn solid_in_blocks(
        &mut self,
        input: &[u8],
        mut k: usize,
        mut lines: u64,
        mut last: Option<usize>,
    ) -> (usize, u64, Option<usize>) {
        loop {
            let Some((off, m)) = self.block(input, k) else {
                while k < input.len() {
                    match input[k] {
                        b' ' | b'\t' | b'\r' => {}
                        b'\n' => {
                            lines += 1;
                            last = Some(k + 1);
                        }
                        _ => break,
                    }
                    k += 1;
                }
                return (k, lines, last);
            };
            let solid = m.solid >> off;
            // Bits past the block's end read as white space: the run
            // goes on into the next block.
            let run = if solid != 0 {
                solid.trailing_zeros()
            } else {
                BLOCK as u32 - off
            };
            let lfs = (m.lf >> off) & below(run);
            if lfs != 0 {
                lines += u64::from(lfs.count_ones());
                last = Some(k + (64 - lfs.leading_zeros()) as usize);
            }
            k += run as usize;
            if solid != 0 {
                return (k, lines, last);
            }
        }
    }
}

/// The bits below `k` (`k` may be 64).
#[inline(always)]
fn below(k: u32) -> u64 {
    if k >= 64 {
        !0
    } else {
        (1u64 << k) - 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifier_agrees_with_the_reference() {
        // Every byte value at positions in every lane.
        for value in 0..=255u8 {
            for pos in [0, 1, 15, 16, 17, 31, 32, 47, 48, 62, 63] {
                let seed =
                    b"a \"b\\\r\n\t{}[]:,0123456789 truefalsenull \x01\x1f\x7f\x80\xff\xc3\xa9";
                let mut b = [b'x'; BLOCK];
                b[..seed.len()].copy_from_slice(seed);
                b[pos] = value;
                assert_eq!(Masks::of(&b), portable(&b), "value {value:#x} at {pos}");
            }
        }
    }

    /// The byte-loop answers the scanner must give.
    fn stop_ref(input: &[u8], k: usize) -> usize {
        (k..input.len())
            .find(|&j| super::super::STR_STOP[usize::from(input[j])])
            .unwrap_or(input.len())
    }

    fn solid_ref(input: &[u8], k: usize) -> (usize, u64, Option<usize>) {
        let end = (k..input.len())
            .find(|&j| !matches!(input[j], b' ' | b'\t' | b'\r' | b'\n'))
            .unwrap_or(input.len());
        let lfs: Vec<usize> = (k..end).filter(|&j| input[j] == b'\n').collect();
        (end, lfs.len() as u64, lfs.last().map(|j| j + 1))
    }

    proptest::proptest! {
        #[test]
        fn scanner_matches_byte_loops(
            input in proptest::collection::vec(
                proptest::sample::select(b"  \n\r\t\"\\ab\x01\xc3\xa9{:,".to_vec()),
                0..300,
            ),
            starts in proptest::collection::vec(0usize..300, 1..20),
        ) {
            // One scanner for a run of rising starts, as the fast path
            // uses it, and a fresh one for each start.
            let mut starts = starts;
            starts.sort_unstable();
            let mut shared = Scanner::new();
            for &k in starts.iter().filter(|&&k| k <= input.len()) {
                proptest::prop_assert_eq!(shared.next_stop(&input, k), stop_ref(&input, k));
                proptest::prop_assert_eq!(Scanner::new().next_stop(&input, k), stop_ref(&input, k));
                proptest::prop_assert_eq!(shared.next_solid(&input, k), solid_ref(&input, k));
                proptest::prop_assert_eq!(Scanner::new().next_solid(&input, k), solid_ref(&input, k));
            }
        }
    }

    #[test]
    fn long_runs_cross_blocks() {
        let mut input = vec![b'a'; 200];
        input.push(b'"');
        assert_eq!(Scanner::new().next_stop(&input, 3), 200);
        let mut ws = b"\n  \n".repeat(60);
        ws.extend_from_slice(b"x  ");
        let (end, lines, last) = Scanner::new().next_solid(&ws, 1);
        assert_eq!((end, lines, last), (240, 119, Some(240)));
    }
}
