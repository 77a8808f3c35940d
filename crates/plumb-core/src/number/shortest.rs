//! The nearest double to a decimal, and whether the decimal is that
//! double's shortest round trip, in exact integer arithmetic.
//!
//! This is the fast path of [`float_value_and_precision`]
//! (crate::float_value_and_precision) for literals of 16 to 19
//! significant digits, the common output of shortest float formatting
//! (`0.1 + 0.2` prints as `0.30000000000000004`). The general path
//! parses the text and formats the double back with Ryu; this one never
//! touches text. It answers only when every quantity fits a `u128` and
//! the case is a plain one; anything else (ties, a power of two, values
//! far from 1) returns `None` and the general path decides.
//!
//! With the double `v = M × 2^E` and the literal `L = m × 10^q`, every
//! quantity is scaled by `2^s2 × 10^s10` so that it is an integer:
//!
//! - `L` is the double's rounding when `|L − v|` is below half a unit in
//!   the last place (`h`): this checks, and corrects, a first estimate;
//! - `L` is the closest decimal of its length to `v` when `|L − v|` is
//!   below half a unit of its own last digit;
//! - no shorter decimal reads back as `v` when neither multiple of
//!   `10^(q+1)` around `L` lies within `h` of `v` (bounds included when
//!   `M` is even, as round-half-even would land on `v`).
//!
//! Together these are what Ryu's output equals: the shortest decimal in
//! the rounding interval, the closest to `v` among those.
//!
//! Reference: the general tier, and ryu. Held equal by:
//! `shortest.rs::tests::the_fraction_tier_agrees_with_the_general_one` and
//! `tests::thirds_and_their_neighbours_match_ryu_and_mostly_take_the_fast_p
//! ath`.

/// The doubles nearest to 10^-k (inexact from 10^-1 on).
const F64_NEG_POW10: [f64; MAX_EXP10 as usize + 1] = [
    1e0, 1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10, 1e-11, 1e-12, 1e-13, 1e-14,
    1e-15, 1e-16, 1e-17, 1e-18, 1e-19, 1e-20, 1e-21, 1e-22,
];

/// The largest decimal exponent (either sign) the fast path takes.
const MAX_EXP10: i64 = 22;

/// How many one-ulp corrections the first estimate may need. The
/// estimate rounds twice (the integer to a double, then the scaling), so
/// it is at most about one unit off; the rest is a margin.
const MAX_STEPS: usize = 4;

/// Powers of ten as integers, up to the largest the fast path uses
/// (every one a double holds exactly, too).
pub(crate) const U128_POW10: [u128; MAX_EXP10 as usize + 1] = {
    let mut table = [1u128; MAX_EXP10 as usize + 1];
    let mut k = 1;
    while k < table.len() {
        table[k] = table[k - 1] * 10;
        k += 1;
    }
    table
};

/// `10^k` for `0 <= k <= MAX_EXP10`.
fn pow10(k: i64) -> u128 {
    U128_POW10[k as usize]
}

/// `x × 2^s`, or `None` past 2^124 (headroom for the sums below).
fn shl(x: u128, s: i64) -> Option<u128> {
    let s = u32::try_from(s).ok()?;
    (x.leading_zeros() > s + 3).then(|| x << s)
}

/// `x × 10^k`, or `None` past 2^124.
fn mul10(x: u128, k: i64) -> Option<u128> {
    x.checked_mul(pow10(k)).filter(|&p| p.leading_zeros() > 3)
}

/// For the positive decimal `m × 10^q` (`m` free of trailing zeros):
/// the nearest double and whether the decimal is its shortest round
/// trip (what Ryu prints). `None` leaves the case to the general path.
pub(crate) fn nearest_shortest(m: u64, q: i64) -> Option<(f64, bool)> {
    if (-MAX_EXP10..0).contains(&q) {
        if let Some(found) = fraction(m, q) {
            return Some(found);
        }
    }
    general(m, q)
}

/// [`nearest_shortest`] for the most common shape, a number below 2^53
/// written with a fraction (`41.666666666666664`): with `q` in `-22..0`
/// and `E < 1`, the scale is `2^(1−E) × 10^−q`, so the literal and its
/// unit are shifts, the double one product (below 2^128: `2M < 2^54`
/// and `10^22 < 2^74`) and half its unit the power of ten itself.
#[inline]
fn fraction(m: u64, q: i64) -> Option<(f64, bool)> {
    let p = U128_POW10[q.unsigned_abs() as usize];
    // A multiplication by the nearest double to 10^q is faster than the
    // division and at most a unit further off, which the loop corrects.
    // (Through i64 when it fits: one signed conversion instruction.)
    let whole = i64::try_from(m).map_or(m as f64, |m| m as f64);
    let mut v = whole * F64_NEG_POW10[q.unsigned_abs() as usize];
    for _ in 0..MAX_STEPS {
        let bits = v.to_bits();
        let fraction = bits & ((1 << 52) - 1);
        let biased = (bits >> 52) & 0x7FF;
        // Not normal, a power of two, or at least 2^53: the general path.
        if fraction == 0 || biased == 0 || biased >= 1075 {
            return None;
        }
        let big_m = fraction | (1 << 52);
        let s2 = (1075 - biased + 1) as u32;
        if m.leading_zeros() + 64 <= s2 + 3 {
            return None;
        }
        let lit = u128::from(m) << s2;
        let dbl = u128::from(big_m << 1) * p;
        let half = p;
        let dist = lit.abs_diff(dbl);
        if dist > half {
            v = f64::from_bits(if lit > dbl { bits + 1 } else { bits - 1 });
            continue;
        }
        // Half a unit of the literal's last digit is 2^(s2−1).
        let half_unit = 1u128 << (s2 - 1);
        if dist == half || dist == half_unit {
            return None;
        }
        if dist > half_unit {
            return Some((v, false));
        }
        let even = big_m.is_multiple_of(2);
        let within = |x: u128| {
            let d = x.abs_diff(dbl);
            d < half || (even && d == half)
        };
        let below = u128::from(m - m % 10) << s2;
        let above = below + (10u128 << s2);
        return Some((v, !(within(below) || within(above))));
    }
    None
}

/// [`nearest_shortest`] for any shape whose quantities fit a `u128`.
fn general(m: u64, q: i64) -> Option<(f64, bool)> {
    if m == 0 || !(-MAX_EXP10..=MAX_EXP10).contains(&q) {
        return None;
    }
    let scale = super::decimal::POWERS_OF_TEN[q.unsigned_abs() as usize];
    let mut v = if q < 0 {
        m as f64 / scale
    } else {
        m as f64 * scale
    };
    for _ in 0..MAX_STEPS {
        if !v.is_normal() {
            return None;
        }
        let bits = v.to_bits();
        let fraction = bits & ((1 << 52) - 1);
        if fraction == 0 {
            // A power of two: the gap below is half the gap above.
            return None;
        }
        let big_m = u128::from(fraction | (1 << 52));
        let big_e = ((bits >> 52) & 0x7FF) as i64 - 1075;
        let s2 = (1 - big_e).max(0);
        let s10 = (-q).max(0);
        // The literal, one unit of its last digit, the double and half
        // its unit in the last place, all times 2^s2 × 10^s10.
        let unit = shl(pow10(q + s10), s2)?;
        let lit = mul10(u128::from(m), q + s10).and_then(|x| shl(x, s2))?;
        let dbl = shl(big_m, big_e + s2).and_then(|x| mul10(x, s10))?;
        let half = shl(1, big_e - 1 + s2).and_then(|x| mul10(x, s10))?;
        let dist = lit.abs_diff(dbl);
        if dist > half {
            // The estimate is a unit off: step towards the literal.
            v = f64::from_bits(if lit > dbl { bits + 1 } else { bits - 1 });
            continue;
        }
        if dist == half || dist * 2 == unit {
            // Ties are settled by rounding rules the general path owns.
            return None;
        }
        if dist * 2 > unit {
            // Another decimal of the same length is closer to `v`.
            return Some((v, false));
        }
        let even = big_m.is_multiple_of(2);
        let within = |x: u128| {
            let d = x.abs_diff(dbl);
            d < half || (even && d == half)
        };
        let step = unit.checked_mul(10)?;
        let below = u128::from(m / 10).checked_mul(step)?;
        let shorter = within(below) || within(below.checked_add(step)?);
        return Some((v, !shorter));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::nearest_shortest;

    /// The decimal `m × 10^q` judged the slow way: std's parse, then
    /// Ryu's shortest digits compared with the literal's.
    fn oracle(m: u64, q: i64) -> (f64, bool) {
        let v: f64 = format!("{m}e{q}").parse().unwrap();
        let shortest = ryu::Buffer::new().format_finite(v).to_owned();
        let back = crate::scan_decimal(shortest.as_bytes())
            .and_then(|d| d.significand_in(shortest.as_bytes()));
        (v, back == Some((m, q)))
    }

    fn significand(text: &str) -> (u64, i64) {
        crate::scan_decimal(text.as_bytes())
            .and_then(|d| d.significand_in(text.as_bytes()))
            .unwrap()
    }

    #[test]
    fn thirds_and_their_neighbours_match_ryu_and_mostly_take_the_fast_path() {
        let (mut fast, mut all) = (0, 0);
        for i in 1..20_000u64 {
            let x = i as f64 / 3.0 * if i % 2 == 0 { 1e-3 } else { 1.0 };
            let (m, q) = significand(ryu::Buffer::new().format_finite(x));
            for (m, q) in [(m, q), (m + 1, q), (m - 1, q), (m * 10 + 1, q - 1)] {
                if m % 10 == 0 {
                    continue;
                }
                all += 1;
                if let Some(got) = nearest_shortest(m, q) {
                    fast += 1;
                    assert_eq!(got, oracle(m, q), "{m}e{q}");
                }
            }
        }
        assert!(fast * 100 >= all * 95, "fast path took {fast} of {all}");
    }

    #[test]
    fn the_fraction_tier_agrees_with_the_general_one() {
        let mut both = 0;
        for i in 1..50_000u64 {
            let x = i as f64 / 7.0 * if i % 3 == 0 { 1e-4 } else { 1.0 };
            let (m, q) = significand(ryu::Buffer::new().format_finite(x));
            for m in [m, m + 1, m - 1, m + 5] {
                if !(-super::MAX_EXP10..0).contains(&q) {
                    continue;
                }
                if let Some(fast) = super::fraction(m, q) {
                    both += 1;
                    assert_eq!(Some(fast), super::general(m, q), "{m}e{q}");
                }
            }
        }
        assert!(both > 150_000, "{both}");
    }

    #[test]
    fn known_verdicts() {
        for (text, exact) in [
            ("0.30000000000000004", true),
            ("0.30000000000000005", false),
            ("41.666666666666664", true),
            ("4115.333333333333", true),
            ("1.500000000000000055", false),
            ("0.0006666666666666666", true),
            ("17976931348.623157", false),
            ("17976931348.623158", true),
        ] {
            let (m, q) = significand(text);
            let (v, got) = nearest_shortest(m, q).expect(text);
            assert_eq!((v, got), (text.parse().unwrap(), exact), "{text}");
        }
    }

    #[test]
    fn long_literals_keep_their_significant_digits() {
        for (text, want) in [
            ("0.000123456789012345678", Some((123456789012345678, -21))),
            ("-0.0000000000000000000001e5", Some((1, -17))),
            (
                "1234567890.1234567890000000",
                Some((1234567890123456789, -9)),
            ),
            ("00000000000000000000012.5", Some((125, -1))),
            ("12345678901234567890.1", None),
            ("0.00000000000000000000", None),
        ] {
            let scan = crate::scan_decimal(text.as_bytes()).unwrap();
            assert_eq!(scan.significand_in(text.as_bytes()), want, "{text}");
        }
    }

    #[test]
    fn out_of_reach_cases_are_left_to_the_general_path() {
        // Exponent beyond ±22, a power of two, a tie between two doubles.
        assert_eq!(nearest_shortest(17976931348623157, 292), None);
        assert_eq!(nearest_shortest(5, -1), None);
        // 2^53 + 1 sits exactly halfway between two doubles.
        assert_eq!(nearest_shortest(9007199254740993, 0), None);
    }
}
