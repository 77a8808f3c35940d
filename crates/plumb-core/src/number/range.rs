//! The exact range of a column of number literals: its least and
//! greatest values kept as written, compared exactly whatever their
//! length (short decimals in integer arithmetic, longer integers digit
//! by digit), in constant memory per column.
//!
//! Reference (for the long integers' kept ends): the whole literal's order.
//! Held equal by:
//! `tests/it/number.rs::long_integer_ends_match_the_whole_literal_order`.
//!
//! A range serializes (for a scan's parts that join in another process)
//! as its ends; read back, it is a claim: ends out of order, a fraction
//! of more digits than a short one holds, a kept integer that its own
//! literal or cap contradicts, or a NaN end are refused, as no scan
//! makes them.

use std::cmp::Ordering;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::{
    float_json, integer_json, shortest, split_sign, PrecisionKind, MAX_NUMBER_LITERAL_BYTES,
};

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
/// // It travels as its ends, and comes back equal.
/// let again: NumericRange = serde_json::from_str(&serde_json::to_string(&r).unwrap()).unwrap();
/// assert_eq!(again, r);
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "RangeState", into = "RangeState")]
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

/// A [`NumericRange`] as it serializes: each kind's two ends (a kind's
/// ends are set together), doubles as their bits (JSON has no infinity).
#[derive(Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct RangeState {
    small: Option<(i64, i64)>,
    short: Option<((i64, u32), (i64, u32))>,
    long: Option<(LongInt, LongInt)>,
    float: Option<(u64, u64)>,
    cap: usize,
}

impl From<NumericRange> for RangeState {
    fn from(r: NumericRange) -> RangeState {
        RangeState {
            small: r.small_min.zip(r.small_max),
            short: r.short_min.zip(r.short_max),
            long: r.int_min.zip(r.int_max).map(|(a, b)| (*a, *b)),
            float: r
                .float_min
                .zip(r.float_max)
                .map(|(a, b)| (a.to_bits(), b.to_bits())),
            cap: r.literal_cap,
        }
    }
}

impl TryFrom<RangeState> for NumericRange {
    type Error = String;

    fn try_from(s: RangeState) -> Result<NumericRange, String> {
        if !(1..=MAX_NUMBER_LITERAL_BYTES).contains(&s.cap) {
            return Err(format!("a literal cap of {} bytes", s.cap));
        }
        let ordered = |o: Ordering, what: &str| match o {
            Ordering::Greater => Err(format!("{what} ends out of order")),
            _ => Ok(()),
        };
        if let Some((lo, hi)) = s.small {
            ordered(lo.cmp(&hi), "integer")?;
        }
        if let Some((lo, hi)) = s.short {
            if lo.1 > SHORT_DIGITS || hi.1 > SHORT_DIGITS {
                return Err("a short fraction of more than 15 digits".into());
            }
            ordered(compare_short(lo, hi), "fraction")?;
        }
        let float = s.float.map(|(a, b)| (f64::from_bits(a), f64::from_bits(b)));
        if let Some((lo, hi)) = float {
            if lo.is_nan() || hi.is_nan() {
                return Err("a NaN end".into());
            }
            ordered(lo.total_cmp(&hi), "float")?;
        }
        if let Some((lo, hi)) = &s.long {
            lo.check(s.cap)?;
            hi.check(s.cap)?;
            ordered(lo.cmp(hi), "long integer")?;
        }
        let (long_min, long_max) = s.long.map(|(a, b)| (Box::new(a), Box::new(b))).unzip();
        Ok(NumericRange {
            small_min: s.small.map(|e| e.0),
            small_max: s.small.map(|e| e.1),
            short_min: s.short.map(|e| e.0),
            short_max: s.short.map(|e| e.1),
            int_min: long_min,
            int_max: long_max,
            float_min: float.map(|e| e.0),
            float_max: float.map(|e| e.1),
            literal_cap: s.cap,
        })
    }
}

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
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
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

    /// Whether this is what [`LongInt::of`] makes of some literal under
    /// `cap`: its own literal when it keeps one, else a sign, the first
    /// `cap` significant digits of a longer literal and their count.
    fn check(&self, cap: usize) -> Result<(), String> {
        let digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
        let fits = match &self.literal {
            Some(l) => {
                let unsigned = l.strip_prefix(['-', '+']).unwrap_or(l);
                digits(unsigned) && *self == LongInt::of(l, cap)
            }
            None => {
                self.bytes > cap
                    && self.kept.len() == self.digits.min(cap)
                    && self.digits <= self.bytes
                    && (self.kept.is_empty() || digits(&self.kept))
                    && !self.kept.starts_with('0')
                    && (self.digits > 0 || !self.negative)
            }
        };
        if fits {
            Ok(())
        } else {
            Err("a long integer end that no literal makes".into())
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
