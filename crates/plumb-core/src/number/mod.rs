//! Number literals: whether a double would misstate them, and exact
//! ranges over integers of any length.
//!
//! A literal is judged against the IEEE 754 double nearest to it (the one
//! `f64::from_str` returns, correctly rounded). The kinds, tried in order:
//!
//! | kind | when | triggers | near miss |
//! |---|---|---|---|
//! | `oversized-literal` | the literal is longer than [`MAX_NUMBER_LITERAL_BYTES`] | 513 digits | 512 digits |
//! | `overflow` | the nearest double is infinite | `1e400` | `1e308` |
//! | `underflow` | the literal is not zero but the nearest double is | `1e-400` | `5e-324` |
//! | `unsafe-integer` | an integer literal (no `.`, no exponent) outside ±(2^53 − 1) | `9007199254740993` | `9007199254740991` |
//! | `excess-digits` | a fraction or exponent literal with more than 17 significant digits that the double does not give back | `0.1000000000000000000001` | `0.30000000000000004` |
//! | `inexact` | a fraction or exponent literal of at most 17 significant digits whose shortest round trip is another number | `3e-324`, `9007199254740993.0` | `0.1` |
//!
//! A literal is exact (no kind) when its shortest round trip names the
//! same decimal value as its text: `0.1`, `1.50`, `1e3`, `-0`. When two
//! shortest decimals lie equally close to the double, its shortest round
//! trip is the one with the even last digit, as Ryu and Python's `repr`
//! print it (std's formatting takes the other): `71000000000000.12` is
//! exact and `71000000000000.13` inexact, both being 71000000000000.125.

mod decimal;
mod shortest;

pub use decimal::{scan_decimal, scan_plain_number, DecimalScan, PlainNumber};

use std::cmp::Ordering;

use serde::Serialize;
use serde_json::{json, Value};

/// Powers of ten to `10^18` (the largest in an i64), for scaling short
/// decimals here and exact sums in the column statistics.
pub(crate) const POW10_I64: [i64; 19] = {
    let mut t = [1i64; 19];
    let mut i = 1;
    while i < 19 {
        t[i] = t[i - 1] * 10;
        i += 1;
    }
    t
};

/// The longest number literal kept whole. Longer literals are cut (and
/// flagged `oversized-literal`): no real measurement needs 512 digits,
/// and a runaway literal must not grow memory.
pub const MAX_NUMBER_LITERAL_BYTES: usize = 512;

/// The largest integer a double holds along with all its neighbours
/// (2^53 − 1), the edge of JavaScript's `Number.MAX_SAFE_INTEGER`.
pub const MAX_SAFE_INTEGER: u64 = 9_007_199_254_740_991;

/// How reading a literal as a double would misstate it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum PrecisionKind {
    /// An integer outside ±(2^53 − 1): a double cannot hold every such integer.
    UnsafeInteger,
    /// More significant digits than a double carries.
    ExcessDigits,
    /// A short literal that no double represents closely enough to print back.
    Inexact,
    /// Too large for a double: it would read as infinity.
    Overflow,
    /// Too small for a double: it would read as zero.
    Underflow,
    /// Longer than [`MAX_NUMBER_LITERAL_BYTES`]; cut, not judged.
    OversizedLiteral,
}

impl PrecisionKind {
    /// The kebab-case name used in JSON.
    pub const fn as_str(self) -> &'static str {
        match self {
            PrecisionKind::UnsafeInteger => "unsafe-integer",
            PrecisionKind::ExcessDigits => "excess-digits",
            PrecisionKind::Inexact => "inexact",
            PrecisionKind::Overflow => "overflow",
            PrecisionKind::Underflow => "underflow",
            PrecisionKind::OversizedLiteral => "oversized-literal",
        }
    }
}

/// The parts of a decimal literal.
struct Parts<'a> {
    int: &'a [u8],
    frac: &'a [u8],
    exp: i64,
    plain_integer: bool,
}

fn parts(lit: &str) -> Option<Parts<'_>> {
    let b = lit.as_bytes();
    let mut i = usize::from(matches!(b.first(), Some(b'+' | b'-')));
    let s = i;
    while b.get(i).is_some_and(u8::is_ascii_digit) {
        i += 1;
    }
    let int = &b[s..i];
    let mut frac: &[u8] = &[];
    let mut plain_integer = true;
    if b.get(i) == Some(&b'.') {
        plain_integer = false;
        i += 1;
        let s = i;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        frac = &b[s..i];
    }
    if int.is_empty() && frac.is_empty() {
        return None;
    }
    let mut exp: i64 = 0;
    if matches!(b.get(i), Some(b'e' | b'E')) {
        plain_integer = false;
        i += 1;
        let negative = b.get(i) == Some(&b'-');
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        let s = i;
        while let Some(d) = b.get(i).filter(|d| d.is_ascii_digit()) {
            // Saturate far beyond any double's range, so a huge exponent
            // cannot overflow the arithmetic below.
            exp = (exp * 10 + i64::from(d - b'0')).min(1 << 40);
            i += 1;
        }
        if i == s {
            return None;
        }
        if negative {
            exp = -exp;
        }
    }
    (i == b.len()).then_some(Parts {
        int,
        frac,
        exp,
        plain_integer,
    })
}

/// The significant digits of a decimal, as a view over its integer and
/// fraction digits (no copy), and where the decimal point sits relative
/// to them: the value is `0.DIGITS × 10^point`. Zero has no digits.
#[derive(Clone, Copy)]
struct Canonical<'a> {
    int: &'a [u8],
    frac: &'a [u8],
    /// The significant digits are positions `start..end` of `int ++ frac`.
    start: usize,
    end: usize,
    point: i64,
}

impl Canonical<'_> {
    fn of<'a>(p: &Parts<'a>) -> Canonical<'a> {
        let total = p.int.len() + p.frac.len();
        let at = |k: usize| {
            if k < p.int.len() {
                p.int[k]
            } else {
                p.frac[k - p.int.len()]
            }
        };
        let mut start = 0;
        while start < total && at(start) == b'0' {
            start += 1;
        }
        let mut end = total;
        while end > start && at(end - 1) == b'0' {
            end -= 1;
        }
        Canonical {
            int: p.int,
            frac: p.frac,
            start,
            end,
            point: p.int.len() as i64 + p.exp - start as i64,
        }
    }

    fn digit(&self, k: usize) -> u8 {
        if k < self.int.len() {
            self.int[k]
        } else {
            self.frac[k - self.int.len()]
        }
    }

    fn len(&self) -> usize {
        self.end - self.start
    }

    fn digits(&self) -> impl Iterator<Item = u8> + '_ {
        (self.start..self.end).map(|k| self.digit(k))
    }

    fn same_value(&self, other: &Canonical<'_>) -> bool {
        self.point == other.point && self.len() == other.len() && self.digits().eq(other.digits())
    }
}

/// Whether reading `literal` as a double would misstate its text.
///
/// Returns `None` when the literal is exact or is not a decimal number
/// literal at all. See the module docs for when each kind applies.
///
/// ```
/// use plumb_core::{number_literal_precision, PrecisionKind};
/// assert_eq!(number_literal_precision("9007199254740993"), Some(PrecisionKind::UnsafeInteger));
/// assert_eq!(number_literal_precision("9007199254740991"), None);
/// assert_eq!(number_literal_precision("1e400"), Some(PrecisionKind::Overflow));
/// assert_eq!(number_literal_precision("1e-400"), Some(PrecisionKind::Underflow));
/// assert_eq!(number_literal_precision("0.1"), None);
/// ```
pub fn number_literal_precision(literal: &str) -> Option<PrecisionKind> {
    number_precision_of(literal, None)
}

/// [`number_literal_precision`] for a caller that has already parsed the
/// literal as a double (the same value `f64::from_str` gives): the parse
/// is not repeated.
pub fn number_precision_of(literal: &str, parsed: Option<f64>) -> Option<PrecisionKind> {
    if literal.len() > MAX_NUMBER_LITERAL_BYTES {
        return Some(PrecisionKind::OversizedLiteral);
    }
    let p = parts(literal)?;
    // Fifteen significant digits or fewer, with an exponent far from the
    // edges, always survive a double both ways (DBL_DIG is 15): the common
    // case needs no float parse and no formatting.
    if p.int.len() + p.frac.len() <= 15 && p.exp.abs() <= 280 {
        return None;
    }
    if p.plain_integer {
        // An integer below 10^308 is finite and, unless zero, not zero
        // as a double: only its size matters, and no parse is needed.
        let c = Canonical::of(&p);
        if c.point <= 308 {
            return (c.len() > 0 && !integer_is_safe(&c)).then_some(PrecisionKind::UnsafeInteger);
        }
    }
    let value: f64 = match parsed {
        Some(v) => v,
        None => literal.parse().ok()?,
    };
    if value.is_infinite() {
        return Some(PrecisionKind::Overflow);
    }
    let c = Canonical::of(&p);
    if c.len() == 0 {
        return None;
    }
    if value == 0.0 {
        return Some(PrecisionKind::Underflow);
    }
    if p.plain_integer {
        return (!integer_is_safe(&c)).then_some(PrecisionKind::UnsafeInteger);
    }
    // The shortest digits that read back as the same double (Ryu, on
    // the stack); the literal survives when they are its own digits.
    let mut shortest = ryu::Buffer::new();
    let back = parts(shortest.format_finite(value.abs()));
    if back.is_some_and(|q| Canonical::of(&q).same_value(&c)) {
        None
    } else if c.len() > 17 {
        Some(PrecisionKind::ExcessDigits)
    } else {
        Some(PrecisionKind::Inexact)
    }
}

/// Whether a nonzero integer is within ±(2^53 − 1). Sixteen digits or
/// fewer before the point is below 10^16; the exact comparison settles
/// the rest.
fn integer_is_safe(c: &Canonical<'_>) -> bool {
    c.point <= 15
        || (c.point == 16 && {
            let mut padded = [b'0'; 16];
            for (slot, d) in padded.iter_mut().zip(c.digits()) {
                *slot = d;
            }
            padded.as_slice() <= b"9007199254740991".as_slice()
        })
}

/// Parses a fraction or exponent literal already read by
/// [`scan_decimal`](crate::scan_decimal) and judges it, in one go: the
/// value (as `f64::from_str` gives it) and the verdict
/// [`number_precision_of`] would give.
///
/// Literals of up to nineteen significant digits with a decimal
/// exponent within ±22 are judged in exact integer arithmetic without
/// reading text (the shortest round trip is checked against the
/// double's rounding interval); anything else, and the rare ties, take
/// the general path: parse, then format back with Ryu.
///
/// ```
/// use plumb_core::{float_value_and_precision, scan_decimal, PrecisionKind};
/// let lit = "0.30000000000000004";
/// let (v, kind) = float_value_and_precision(lit.as_bytes(), &scan_decimal(lit.as_bytes()).unwrap());
/// assert_eq!((v, kind), (Some(0.1 + 0.2), None));
/// let lit = "0.30000000000000005";
/// let (_, kind) = float_value_and_precision(lit.as_bytes(), &scan_decimal(lit.as_bytes()).unwrap());
/// assert_eq!(kind, Some(PrecisionKind::Inexact));
/// ```
#[inline]
pub fn float_value_and_precision(
    literal: &[u8],
    scan: &crate::DecimalScan,
) -> (Option<f64>, Option<PrecisionKind>) {
    let plain = literal.len() <= MAX_NUMBER_LITERAL_BYTES && scan.is_float();
    if let Some((m, q)) = scan.significand_in(literal).filter(|_| plain) {
        if let Some((v, exact)) = shortest::nearest_shortest(m, q) {
            let v = if scan.is_negative() { -v } else { v };
            let kind = if exact {
                None
            } else if m >= 100_000_000_000_000_000 {
                // More than seventeen significant digits.
                Some(PrecisionKind::ExcessDigits)
            } else {
                Some(PrecisionKind::Inexact)
            };
            return (Some(v), kind);
        }
    }
    let Ok(literal) = std::str::from_utf8(literal) else {
        return (None, None);
    };
    let parsed: Option<f64> = literal.parse().ok();
    (parsed, number_precision_of(literal, parsed))
}

/// Compares two integer literals (optional sign, ASCII digits) exactly,
/// whatever their length. `-0` equals `0`.
///
/// ```
/// use std::cmp::Ordering;
/// use plumb_core::compare_integer_literals;
/// assert_eq!(compare_integer_literals("-12", "3"), Ordering::Less);
/// assert_eq!(
///     compare_integer_literals("123456789012345678901234567890", "99999999999999999999"),
///     Ordering::Greater,
/// );
/// ```
pub fn compare_integer_literals(a: &str, b: &str) -> Ordering {
    let (an, am) = split_sign(a);
    let (bn, bm) = split_sign(b);
    let (an, bn) = (an && !am.is_empty(), bn && !bm.is_empty());
    match (an, bn) {
        (false, true) => Ordering::Greater,
        (true, false) => Ordering::Less,
        (false, false) => compare_magnitudes(am, bm),
        (true, true) => compare_magnitudes(bm, am),
    }
}

fn split_sign(s: &str) -> (bool, &[u8]) {
    let b = s.as_bytes();
    let (neg, rest) = match b.first() {
        Some(b'-') => (true, &b[1..]),
        Some(b'+') => (false, &b[1..]),
        _ => (false, b),
    };
    let zeros = rest.iter().take_while(|&&d| d == b'0').count();
    (neg, &rest[zeros..])
}

fn compare_magnitudes(a: &[u8], b: &[u8]) -> Ordering {
    a.len().cmp(&b.len()).then_with(|| a.cmp(b))
}

/// The exact range of a column's numbers: integers compared as text of
/// any length, floats as doubles.
///
/// ```
/// use plumb_core::NumericRange;
/// let mut r = NumericRange::default();
/// r.add_integer("9007199254740993");
/// r.add_integer("-4");
/// let (min, max) = r.bounds();
/// assert_eq!(min, serde_json::json!(-4));
/// assert_eq!(max["$literal"], "9007199254740993");
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct NumericRange {
    // Integers that fit an i64 stay numbers (the common case, no
    // allocation); longer ones are kept as literal text.
    small_min: Option<i64>,
    small_max: Option<i64>,
    // Short fractions (`12.5`) as exact (integer, digits after the point):
    // a double is made only of the two ends, at the end. Rounding to the
    // nearest double keeps order, so the ends are the same doubles that
    // converting every value would give.
    short_min: Option<(i64, u32)>,
    short_max: Option<(i64, u32)>,
    // Boxed: a range is kept per tracked column, and most never hold one.
    int_min: Option<Box<LongInt>>,
    int_max: Option<Box<LongInt>>,
    float_min: Option<f64>,
    float_max: Option<f64>,
    /// The longest integer literal an end keeps whole (and the most
    /// digits it keeps of a longer one).
    literal_cap: usize,
}

impl Default for NumericRange {
    fn default() -> NumericRange {
        NumericRange::with_literal_cap(MAX_NUMBER_LITERAL_BYTES)
    }
}

impl NumericRange {
    /// An empty range whose ends keep integer literals whole up to `cap`
    /// bytes (at most [`MAX_NUMBER_LITERAL_BYTES`]), and of a longer one
    /// its sign, first `cap` digits and digit count: a reader that tracks
    /// many columns gives most of them a small cap, so its memory stays
    /// bounded whatever the literals.
    ///
    /// ```
    /// use plumb_core::NumericRange;
    /// let mut r = NumericRange::with_literal_cap(8);
    /// r.add_integer("123456789012345678901");
    /// assert_eq!(r.bounds().1["$truncated"], "12345678");
    /// assert_eq!(r.bounds().1["digits"], 21);
    /// ```
    pub fn with_literal_cap(cap: usize) -> NumericRange {
        NumericRange {
            small_min: None,
            small_max: None,
            short_min: None,
            short_max: None,
            int_min: None,
            int_max: None,
            float_min: None,
            float_max: None,
            literal_cap: cap.clamp(1, MAX_NUMBER_LITERAL_BYTES),
        }
    }

    /// Adds an integer literal (optional sign, ASCII digits).
    pub fn add_integer(&mut self, literal: &str) {
        let literal = literal.trim_matches([' ', '\t']);
        match literal.parse::<i64>() {
            Ok(v) => self.add_i64(v),
            Err(_) => {
                let new = LongInt::of(literal, self.literal_cap);
                replace_if(&mut self.int_min, &new, Ordering::Less);
                replace_if(&mut self.int_max, &new, Ordering::Greater);
            }
        }
    }

    /// Adds an integer that fits an `i64`.
    #[inline]
    pub fn add_i64(&mut self, v: i64) {
        self.small_min = Some(self.small_min.map_or(v, |m| m.min(v)));
        self.small_max = Some(self.small_max.map_or(v, |m| m.max(v)));
    }

    /// The smallest and largest integer: an `i64`, or a long literal.
    fn int_bounds(&self) -> (Option<IntEnd>, Option<IntEnd>) {
        let pick =
            |small: Option<i64>, big: &Option<Box<LongInt>>, want: Ordering| match (small, big) {
                (Some(s), Some(b)) => Some(if b.cmp_i64(s) == want {
                    IntEnd::Long((**b).clone())
                } else {
                    IntEnd::Small(s)
                }),
                (Some(s), None) => Some(IntEnd::Small(s)),
                (None, b) => b.as_deref().cloned().map(IntEnd::Long),
            };
        (
            pick(self.small_min, &self.int_min, Ordering::Less),
            pick(self.small_max, &self.int_max, Ordering::Greater),
        )
    }

    /// Adds a short fraction given as a signed integer and the number of
    /// digits after its point (`(-1250, 2)` is `-12.50`), as
    /// [`DecimalScan::short_decimal`](crate::DecimalScan::short_decimal)
    /// gives it: at most fifteen digits, so compared exactly.
    ///
    /// ```
    /// use plumb_core::NumericRange;
    /// let mut r = NumericRange::default();
    /// r.add_short_decimal(125, 1);
    /// r.add_short_decimal(-3, 0);
    /// r.add_short_decimal(99, 3);
    /// assert_eq!(r.bounds(), (serde_json::json!(-3.0), serde_json::json!(12.5)));
    /// ```
    #[inline]
    pub fn add_short_decimal(&mut self, mantissa: i64, frac_digits: u32) {
        let d = (mantissa, frac_digits.min(SHORT_DIGITS));
        if self.short_min.is_none_or(|m| compare_short(d, m).is_lt()) {
            self.short_min = Some(d);
        }
        if self.short_max.is_none_or(|m| compare_short(d, m).is_gt()) {
            self.short_max = Some(d);
        }
    }

    /// Adds a float value. NaN is ignored.
    #[inline]
    pub fn add_float(&mut self, value: f64) {
        if value.is_nan() {
            return;
        }
        // Ordered as `total_cmp` orders them (`-0.0` below `0.0`), not by
        // `f64::min`, which may return either zero: ends that do not
        // depend on the order of the values are what lets ranges of parts
        // merge into the range of the whole.
        if self.float_min.is_none_or(|m| value.total_cmp(&m).is_lt()) {
            self.float_min = Some(value);
        }
        if self.float_max.is_none_or(|m| value.total_cmp(&m).is_gt()) {
            self.float_max = Some(value);
        }
    }

    /// Adds every value of `other`: the range of both, as if each value
    /// had been added here (ranges are mergeable, so scans of parts
    /// combine).
    ///
    /// ```
    /// use plumb_core::NumericRange;
    /// let (mut a, mut b) = (NumericRange::default(), NumericRange::default());
    /// a.add_i64(3);
    /// b.add_integer("-99999999999999999999");
    /// b.add_short_decimal(45, 1);
    /// a.merge(&b);
    /// assert_eq!(a.bounds().1, serde_json::json!(4.5));
    /// ```
    pub fn merge(&mut self, other: &NumericRange) {
        for v in [other.small_min, other.small_max].into_iter().flatten() {
            self.add_i64(v);
        }
        for (m, d) in [other.short_min, other.short_max].into_iter().flatten() {
            self.add_short_decimal(m, d);
        }
        for v in [other.float_min, other.float_max].into_iter().flatten() {
            self.add_float(v);
        }
        if let Some(b) = &other.int_min {
            replace_if(&mut self.int_min, b, Ordering::Less);
            replace_if(&mut self.int_max, b, Ordering::Greater);
        }
        if let Some(b) = &other.int_max {
            replace_if(&mut self.int_min, b, Ordering::Less);
            replace_if(&mut self.int_max, b, Ordering::Greater);
        }
    }

    /// Adds a JSON number literal by its value: integers of any length
    /// exactly, short fractions exactly, the rest as doubles.
    ///
    /// ```
    /// use plumb_core::NumericRange;
    /// let mut r = NumericRange::default();
    /// r.add_literal("12345678901234567890123");
    /// r.add_literal("-1.5e3");
    /// assert_eq!(r.bounds().0, serde_json::json!(-1500.0));
    /// ```
    pub fn add_literal(&mut self, literal: &str) {
        self.add_literal_bytes(literal.as_bytes());
    }

    /// [`NumericRange::add_literal`] of a literal given as bytes (a
    /// number's source text is ASCII): only the rare long or far literal
    /// is read as text.
    pub fn add_literal_bytes(&mut self, bytes: &[u8]) {
        let text = || std::str::from_utf8(bytes).unwrap_or_default();
        match crate::scan_decimal(bytes) {
            Some(n) => {
                if let Some(v) = n.small_integer() {
                    self.add_i64(v);
                } else if let Some((m, d)) = n.short_decimal() {
                    if m == 0 && n.is_negative() {
                        self.add_float(-0.0);
                    } else {
                        self.add_short_decimal(m, d);
                    }
                } else if let Some(v) = n.exponent_f64() {
                    self.add_float(v);
                } else if !n.is_float() {
                    self.add_integer(text());
                } else if let Ok(v) = text().parse::<f64>() {
                    self.add_float(v);
                }
            }
            None => {
                if let Ok(v) = text().parse::<f64>() {
                    self.add_float(v);
                }
            }
        }
    }

    /// Whether nothing was added.
    pub fn is_empty(&self) -> bool {
        self.small_min.is_none()
            && self.int_min.is_none()
            && self.float_min.is_none()
            && self.short_min.is_none()
    }

    /// The range as JSON values `(min, max)`: `null` when empty; an
    /// integer-only range is exact, with integers outside ±(2^53 − 1)
    /// given as `{"$literal": ..., "precision": "unsafe-integer"}` and
    /// those past the literal cap ([`MAX_NUMBER_LITERAL_BYTES`] unless
    /// [set](NumericRange::with_literal_cap)) as `{"$truncated": "<sign
    /// and first digits>", "digits": <count>, "precision": <kind>}`; once
    /// floats are present, both ends are doubles.
    pub fn bounds(&self) -> (Value, Value) {
        let (int_min, int_max) = self.int_bounds();
        let either = |a: Option<f64>, b: Option<f64>, pick: fn(f64, f64) -> f64| match (a, b) {
            (Some(a), Some(b)) => Some(pick(a, b)),
            (a, b) => a.or(b),
        };
        let float_min = either(self.float_min, self.short_min.map(short_f64), f64::min);
        let float_max = either(self.float_max, self.short_max.map(short_f64), f64::max);
        match (float_min, float_max) {
            (Some(fmin), Some(fmax)) => {
                let imin = int_min.map(|e| e.as_f64());
                let imax = int_max.map(|e| e.as_f64());
                let min = imin.map_or(fmin, |i| i.min(fmin));
                let max = imax.map_or(fmax, |i| i.max(fmax));
                (float_json(min), float_json(max))
            }
            _ => (
                int_min.map_or(Value::Null, IntEnd::json),
                int_max.map_or(Value::Null, IntEnd::json),
            ),
        }
    }
}

/// The most digits after the point a short fraction has.
const SHORT_DIGITS: u32 = 15;

/// Orders two short fractions exactly: at most fifteen digits each, so
/// scaling one to the other's digits fits an `i128`.
#[inline]
fn compare_short(a: (i64, u32), b: (i64, u32)) -> Ordering {
    if a.1 == b.1 {
        return a.0.cmp(&b.0);
    }
    let digits = a.1.max(b.1);
    let scaled =
        |(m, d): (i64, u32)| i128::from(m) * shortest::U128_POW10[(digits - d) as usize] as i128;
    scaled(a).cmp(&scaled(b))
}

/// The double nearest a short fraction: an integer below 2^53 over an
/// exact power of ten is one correctly rounded division.
fn short_f64((m, d): (i64, u32)) -> f64 {
    m as f64 / shortest::U128_POW10[d as usize] as f64
}

fn replace_if(slot: &mut Option<Box<LongInt>>, new: &LongInt, want: Ordering) {
    match slot {
        Some(current) if new.cmp(current) != want => {}
        _ => *slot = Some(Box::new(new.clone())),
    }
}

/// An integer literal that does not fit an `i64`, as a range end keeps
/// it. Past the range's literal cap only the sign, the first significant
/// digits and the digit count are kept, so a column of megabyte-long
/// numbers costs no more than one of short ones. Order stays exact but
/// between two literals of one sign and length whose kept digits agree:
/// the first seen stays (both show the same).
#[derive(Clone, Debug, PartialEq)]
struct LongInt {
    negative: bool,
    /// The significant digits (no sign, no leading zeros), at most
    /// [`MAX_NUMBER_LITERAL_BYTES`] of them.
    kept: String,
    /// How many significant digits there are in all.
    digits: usize,
    /// The literal as written, when it fits the cap.
    literal: Option<String>,
    /// The length of the literal as written.
    bytes: usize,
}

impl LongInt {
    /// Keeps the literal whole up to `cap` bytes, else `cap` digits.
    fn of(literal: &str, cap: usize) -> LongInt {
        let (negative, magnitude) = split_sign(literal);
        let kept = &magnitude[..magnitude.len().min(cap)];
        LongInt {
            negative: negative && !magnitude.is_empty(),
            kept: String::from_utf8_lossy(kept).into_owned(),
            digits: magnitude.len(),
            literal: (literal.len() <= cap).then(|| literal.to_owned()),
            bytes: literal.len(),
        }
    }

    /// Whether only part of the digits is kept.
    fn is_partial(&self) -> bool {
        self.kept.len() < self.digits
    }

    fn cmp(&self, other: &LongInt) -> Ordering {
        let magnitude = || {
            self.digits
                .cmp(&other.digits)
                .then_with(|| self.kept.cmp(&other.kept))
        };
        match (self.negative, other.negative) {
            (false, true) => Ordering::Greater,
            (true, false) => Ordering::Less,
            (false, false) => magnitude(),
            (true, true) => magnitude().reverse(),
        }
    }

    fn cmp_i64(&self, small: i64) -> Ordering {
        let s = small.to_string();
        self.cmp(&LongInt::of(&s, usize::MAX))
    }

    fn sign(&self) -> &'static str {
        if self.negative {
            "-"
        } else {
            ""
        }
    }
}

/// One end of the integer range.
enum IntEnd {
    Small(i64),
    Long(LongInt),
}

impl IntEnd {
    fn as_f64(&self) -> f64 {
        match self {
            IntEnd::Small(v) => *v as f64,
            // The kept digits scaled by the dropped ones: the double
            // nearest the cut literal (infinite past a double's range).
            IntEnd::Long(l) if l.is_partial() => {
                format!("{}{}e{}", l.sign(), l.kept, l.digits - l.kept.len())
                    .parse()
                    .unwrap_or(f64::NAN)
            }
            IntEnd::Long(l) => format!("{}{}", l.sign(), l.kept)
                .parse()
                .unwrap_or(f64::NAN),
        }
    }

    /// An end whose literal fits the cap as a number or `$literal`; a
    /// longer one as `{"$truncated": "<sign and first digits>", "digits":
    /// <count>, "precision": <kind>}`: `oversized-literal` past
    /// [`MAX_NUMBER_LITERAL_BYTES`], `overflow` past a double's range,
    /// else `unsafe-integer`.
    fn json(self) -> Value {
        match self {
            IntEnd::Small(v) => integer_json(&v.to_string()),
            IntEnd::Long(l) => match &l.literal {
                Some(literal) => integer_json(literal),
                None => {
                    let kind = if l.bytes > MAX_NUMBER_LITERAL_BYTES {
                        PrecisionKind::OversizedLiteral
                    } else if IntEnd::Long(l.clone()).as_f64().is_infinite() {
                        PrecisionKind::Overflow
                    } else {
                        PrecisionKind::UnsafeInteger
                    };
                    json!({
                        "$truncated": format!("{}{}", l.sign(), l.kept),
                        "digits": l.digits,
                        "precision": kind.as_str(),
                    })
                }
            },
        }
    }
}

fn float_json(v: f64) -> Value {
    serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number)
}

/// An integer literal as JSON: a number when a double holds it exactly,
/// else a `$literal` placeholder that keeps its text.
pub fn integer_json(literal: &str) -> Value {
    if number_literal_precision(literal).is_none() {
        if let Ok(v) = literal.trim_start_matches('+').parse::<i64>() {
            return Value::from(v);
        }
    }
    literal_placeholder(literal, number_literal_precision(literal))
}

/// The `$literal` placeholder for a number a double would misstate.
///
/// ```
/// use plumb_core::{literal_placeholder, PrecisionKind};
/// let v = literal_placeholder("1e400", Some(PrecisionKind::Overflow));
/// assert_eq!(v, serde_json::json!({"$literal": "1e400", "precision": "overflow"}));
/// ```
pub fn literal_placeholder(literal: &str, precision: Option<PrecisionKind>) -> Value {
    match precision {
        Some(kind) => json!({"$literal": literal, "precision": kind.as_str()}),
        None => json!({ "$literal": literal }),
    }
}
