//! Sum, mean and standard deviation.
//!
//! While every value is an integer or a decimal of at most
//! [`EXACT_SCALE_MAX`] digits after the point, the sum and the sum of
//! squares are kept exactly (as integers at the largest scale seen), and
//! the mean and the sample standard deviation come from them, rounded
//! to a double only at the end. A value that does not allow it (a float
//! with an exponent, a literal past an `i64`, a sum past an `i128`)
//! ends the exact sums; from then on the figures come from the double
//! precision accumulators kept all along: a compensated (Neumaier) sum
//! for the mean and Welford's update for the variance, each with a
//! stated error bound.

use plumb_core::POW10_I64;

/// The most digits after the point the exact sums follow.
pub const EXACT_SCALE_MAX: u32 = 18;

/// The unit roundoff of a double.
const UNIT: f64 = f64::EPSILON / 2.0;

/// The least positive double (2^-1074): a value read as a double is
/// within `UNIT` of itself relatively only in the normal range; below
/// it (`1e-310`, or `1e-400`, read as zero) the error is absolute, at
/// most half of this.
const TINY: f64 = 5e-324;

/// A number as the sums take it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum NumberIn {
    /// An integer.
    Int(i64),
    /// `mantissa / 10^scale`.
    Decimal {
        /// The digits, as an integer.
        mantissa: i64,
        /// Digits after the point.
        scale: u32,
    },
    /// A number known only as a double that writes it faithfully (a
    /// short literal with an exponent: `1e3`, `2.5E-4`).
    Float(f64),
    /// A number known only as the nearest double, which may misstate it
    /// (a long literal with an exponent, an integer past an `i64`).
    Rounded(f64),
}

impl NumberIn {
    /// A scanned number literal: exact when its digits fit an `i64`.
    pub fn of_scan(scan: &plumb_core::DecimalScan, literal: &[u8]) -> NumberIn {
        if let Some(v) = scan.small_integer() {
            return NumberIn::Int(v);
        }
        if let Some((mantissa, scale)) = scan.short_decimal() {
            return NumberIn::Decimal { mantissa, scale };
        }
        if let Some(n) = plain_decimal(literal) {
            return n;
        }
        if let Some(v) = scan.exponent_f64() {
            return NumberIn::Float(v);
        }
        let v = std::str::from_utf8(literal)
            .ok()
            .and_then(|t| t.parse::<f64>().ok());
        NumberIn::Rounded(v.unwrap_or(f64::NAN))
    }

    /// Whether the nearest double, written shortest, is this number
    /// (every literal of at most 15 significant digits is; past that,
    /// some are not, and none is counted as one).
    pub fn is_faithful(self) -> bool {
        match self {
            NumberIn::Int(v) => v.unsigned_abs() <= 1 << 53,
            NumberIn::Decimal { mantissa, .. } => mantissa.unsigned_abs() < 1_000_000_000_000_000,
            NumberIn::Float(_) => true,
            NumberIn::Rounded(_) => false,
        }
    }

    /// The nearest double.
    #[inline]
    pub fn to_f64(self) -> f64 {
        match self {
            NumberIn::Int(v) => v as f64,
            NumberIn::Decimal { mantissa, scale } => {
                if scale <= 22 && mantissa.unsigned_abs() < (1 << 53) {
                    // Both exact as doubles: one rounding, correct.
                    mantissa as f64 / POW10_F64[scale as usize]
                } else {
                    decimal_f64(mantissa, scale)
                }
            }
            NumberIn::Float(v) | NumberIn::Rounded(v) => v,
        }
    }
}

/// A literal of digits with at most one point and an optional sign, whose
/// digits fit an `i64`: exact, however written (`0000000000000001`,
/// `12.50000000000001`).
fn plain_decimal(literal: &[u8]) -> Option<NumberIn> {
    let (negative, body) = match literal.first() {
        Some(b'-') => (true, &literal[1..]),
        Some(b'+') => (false, &literal[1..]),
        _ => (false, literal),
    };
    let mut mantissa: i64 = 0;
    let mut scale: Option<u32> = None;
    let mut digits = 0;
    for &b in body {
        match b {
            b'0'..=b'9' => {
                mantissa = mantissa.checked_mul(10)?.checked_add(i64::from(b - b'0'))?;
                digits += 1;
                if let Some(s) = &mut scale {
                    *s += 1;
                }
            }
            b'.' if scale.is_none() => scale = Some(0),
            _ => return None,
        }
    }
    if digits == 0 {
        return None;
    }
    let mantissa = if negative { -mantissa } else { mantissa };
    Some(match scale {
        None => NumberIn::Int(mantissa),
        Some(scale) if scale <= EXACT_SCALE_MAX => NumberIn::Decimal { mantissa, scale },
        Some(_) => return None,
    })
}

/// `mantissa / 10^scale`, correctly rounded: written as `digits e -scale`
/// on the stack (no allocation) and read by the standard library's
/// exact parser.
fn decimal_f64(mantissa: i64, scale: u32) -> f64 {
    let mut buf = [0u8; 32];
    let mut at = buf.len();
    let mut scale = scale;
    loop {
        at -= 1;
        buf[at] = b'0' + (scale % 10) as u8;
        scale /= 10;
        if scale == 0 {
            break;
        }
    }
    at -= 2;
    buf[at..at + 2].copy_from_slice(b"e-");
    let mut m = mantissa.unsigned_abs();
    loop {
        at -= 1;
        buf[at] = b'0' + (m % 10) as u8;
        m /= 10;
        if m == 0 {
            break;
        }
    }
    if mantissa < 0 {
        at -= 1;
        buf[at] = b'-';
    }
    std::str::from_utf8(&buf[at..])
        .ok()
        .and_then(|t| t.parse().ok())
        .unwrap_or(f64::NAN)
}

#[derive(Clone, Copy, Debug)]
struct ExactSums {
    scale: u32,
    sum: i128,
    squares: i128,
}

/// `10^k` as an i128, `k` up to 18.
fn pow10(k: u32) -> i128 {
    i128::from(POW10_I64[k as usize])
}

impl ExactSums {
    /// Adds `m / 10^s` at another scale than the sums' (see
    /// [`Moments::add`]); None when the sums no longer fit.
    #[cold]
    fn add_rescaled(self, m: i64, s: u32) -> Option<ExactSums> {
        let mut e = self;
        if s > EXACT_SCALE_MAX {
            return None;
        }
        if s > e.scale {
            let up = s - e.scale;
            e.sum = e.sum.checked_mul(pow10(up))?;
            e.squares = e.squares.checked_mul(pow10(up))?.checked_mul(pow10(up))?;
            e.scale = s;
        }
        let m = i128::from(m).checked_mul(pow10(e.scale - s))?;
        e.sum = e.sum.checked_add(m)?;
        e.squares = e.squares.checked_add(m.checked_mul(m)?)?;
        Some(e)
    }

    fn merge(self, other: ExactSums) -> Option<ExactSums> {
        let (mut a, mut b) = (self, other);
        if a.scale < b.scale {
            std::mem::swap(&mut a, &mut b);
        }
        let up = pow10(a.scale - b.scale);
        let sum = b.sum.checked_mul(up)?;
        let squares = b.squares.checked_mul(up)?.checked_mul(up)?;
        Some(ExactSums {
            scale: a.scale,
            sum: a.sum.checked_add(sum)?,
            squares: a.squares.checked_add(squares)?,
        })
    }
}

/// Moments of the numbers of a column, mergeable.
#[derive(Clone, Debug)]
pub(crate) struct Moments {
    n: u64,
    /// The exact sums, while the values allow them.
    exact: Option<ExactSums>,
    /// The double accumulators, from when the exact sums ended (seeded
    /// from them), so the common case pays for no division per value.
    float: FloatSums,
}

/// Neumaier's compensated sum, the sum of magnitudes for its bound, and
/// Welford's mean and sum of squared deviations.
#[derive(Clone, Copy, Debug, Default)]
struct FloatSums {
    sum: f64,
    compensation: f64,
    magnitude: f64,
    mean: f64,
    m2: f64,
}

/// Powers of ten a double holds exactly.
const POW10_F64: [f64; 23] = {
    let mut t = [1.0f64; 23];
    let mut i = 1;
    while i < 23 {
        t[i] = t[i - 1] * 10.0;
        i += 1;
    }
    t
};

impl ExactSums {
    fn scale_f64(&self) -> f64 {
        POW10_F64[self.scale as usize]
    }

    /// `n * squares - sum^2` (n times the sum of squared deviations, at
    /// twice the scale), when it fits.
    fn deviation_numerator(&self, n: u64) -> Option<i128> {
        i128::from(n)
            .checked_mul(self.squares)?
            .checked_sub(self.sum.checked_mul(self.sum)?)
    }

    /// The double accumulators `n` values with these sums would have.
    fn seed(&self, n: u64) -> FloatSums {
        let nf = n as f64;
        let scale = self.scale_f64();
        let sum = self.sum as f64 / scale;
        let squares = self.squares as f64 / (scale * scale);
        let m2 = match self.deviation_numerator(n) {
            Some(num) => num as f64 / nf / (scale * scale),
            None => squares - sum * sum / nf,
        };
        FloatSums {
            sum,
            compensation: 0.0,
            // Cauchy-Schwarz: sum |x| <= sqrt(n * sum x^2).
            magnitude: (nf * squares).sqrt(),
            mean: if n == 0 { 0.0 } else { sum / nf },
            m2: m2.max(0.0),
        }
    }
}

impl FloatSums {
    #[inline]
    fn add(&mut self, v: f64, n: u64) {
        let t = self.sum + v;
        self.compensation += if self.sum.abs() >= v.abs() {
            (self.sum - t) + v
        } else {
            (v - t) + self.sum
        };
        self.sum = t;
        self.magnitude += v.abs();
        let delta = v - self.mean;
        self.mean += delta / n as f64;
        self.m2 += delta * (v - self.mean);
    }

    /// Chan's update: the accumulators of `na` and `nb` values together.
    fn merge(self, na: u64, other: FloatSums, nb: u64) -> FloatSums {
        if nb == 0 {
            return self;
        }
        if na == 0 {
            return other;
        }
        let (a, b) = (na as f64, nb as f64);
        let n = a + b;
        let delta = other.mean - self.mean;
        let t = self.sum + other.sum;
        let compensation = self.compensation
            + other.compensation
            + if self.sum.abs() >= other.sum.abs() {
                (self.sum - t) + other.sum
            } else {
                (other.sum - t) + self.sum
            };
        FloatSums {
            sum: t,
            compensation,
            magnitude: self.magnitude + other.magnitude,
            mean: self.mean + delta * b / n,
            m2: self.m2 + other.m2 + delta * delta * a * b / n,
        }
    }
}

/// The figures, each with whether it is exact and, when not, its bound.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct MomentFigures {
    /// The exact sum as a decimal literal, when kept.
    pub sum_literal: Option<String>,
    pub sum: f64,
    pub mean: f64,
    /// None when the mean is exact.
    pub mean_error: Option<f64>,
    pub stddev: Option<f64>,
    /// None when the standard deviation is exact.
    pub stddev_error: Option<f64>,
}

impl Moments {
    pub(crate) fn new() -> Moments {
        Moments {
            n: 0,
            exact: Some(ExactSums {
                scale: 0,
                sum: 0,
                squares: 0,
            }),
            float: FloatSums::default(),
        }
    }

    /// Counts a number; `v` is its nearest double (not NaN).
    #[inline]
    pub(crate) fn add(&mut self, number: NumberIn, v: f64) {
        if let Some(e) = &mut self.exact {
            // Same scale, the common case, updated in place: an i64
            // squared cannot pass an i128, so only the additions are
            // checked (a checked 128-bit multiply is a slow library
            // call). Built as a new value and moved, the sums cost a
            // store-forwarding stall per number.
            let (m, s) = match number {
                NumberIn::Int(i) => (Some(i), 0),
                NumberIn::Decimal { mantissa, scale } => (Some(mantissa), scale),
                NumberIn::Float(_) | NumberIn::Rounded(_) => (None, 0),
            };
            if let Some(m) = m {
                if s == e.scale {
                    let m = i128::from(m);
                    if let (Some(sum), Some(squares)) =
                        (e.sum.checked_add(m), e.squares.checked_add(m * m))
                    {
                        e.sum = sum;
                        e.squares = squares;
                        self.n += 1;
                        return;
                    }
                } else if let Some(next) = e.add_rescaled(m, s) {
                    *e = next;
                    self.n += 1;
                    return;
                }
            }
            let e = *e;
            self.float = e.seed(self.n);
            self.exact = None;
        }
        self.n += 1;
        self.float.add(v, self.n);
    }

    /// The double accumulators of the values so far.
    fn floats(&self) -> FloatSums {
        match &self.exact {
            Some(e) => e.seed(self.n),
            None => self.float,
        }
    }

    /// Takes in the moments of other values.
    pub(crate) fn merge(&mut self, other: &Moments) {
        if other.n == 0 {
            return;
        }
        let merged = match (self.exact, other.exact) {
            (Some(a), Some(b)) => a.merge(b),
            _ => None,
        };
        if merged.is_none() {
            self.float = self.floats().merge(self.n, other.floats(), other.n);
        }
        self.exact = merged;
        self.n += other.n;
    }

    /// The moments as written ([`crate::state`]).
    pub(crate) fn state(&self) -> crate::state::MomentsState {
        let f = self.float;
        crate::state::MomentsState {
            n: self.n,
            exact: self.exact.map(|e| crate::state::ExactState {
                scale: e.scale,
                sum: e.sum.to_string(),
                squares: e.squares.to_string(),
            }),
            float: [f.sum, f.compensation, f.magnitude, f.mean, f.m2].map(f64::to_bits),
        }
    }

    /// The moments a state describes; an error says what no moments
    /// hold.
    pub(crate) fn from_state(s: crate::state::MomentsState) -> Result<Moments, String> {
        let exact = match s.exact {
            None => None,
            Some(e) => {
                let (Ok(sum), Ok(squares)) = (e.sum.parse::<i128>(), e.squares.parse::<i128>())
                else {
                    return Err("exact sums that are not integers".into());
                };
                if e.scale > EXACT_SCALE_MAX || squares < 0 {
                    return Err(format!("exact sums at scale {}", e.scale));
                }
                Some(ExactSums {
                    scale: e.scale,
                    sum,
                    squares,
                })
            }
        };
        let [sum, compensation, magnitude, mean, m2] = s.float.map(f64::from_bits);
        Ok(Moments {
            n: s.n,
            exact,
            float: FloatSums {
                sum,
                compensation,
                magnitude,
                mean,
                m2,
            },
        })
    }

    /// The figures; None when no number was counted. `rounded`: some
    /// value was known only as a double that may misstate it (see
    /// [`NumberIn::is_faithful`]).
    pub(crate) fn figures(&self, rounded: bool) -> Option<MomentFigures> {
        if self.n == 0 {
            return None;
        }
        let n = self.n as f64;
        if let Some(e) = self.exact {
            let scale = e.scale_f64();
            let sum = e.sum as f64 / scale;
            let mean = e.sum as f64 / scale / n;
            let (stddev, stddev_error) = match e.deviation_numerator(self.n) {
                _ if self.n < 2 => (None, None),
                Some(num) => {
                    let var = num as f64 / (n * (n - 1.0)) / (scale * scale);
                    (Some(var.max(0.0).sqrt()).filter(|s| s.is_finite()), None)
                }
                None => {
                    // Past an i128: from the sums as doubles, with the
                    // bound of the textbook formula (4u times the ratio of
                    // the mean square to the variance), halved by the root.
                    let f = e.seed(self.n);
                    let var = f.m2 / (n - 1.0);
                    let squares = e.squares as f64 / (scale * scale);
                    let bound = if var > 0.0 {
                        (2.0 * UNIT * squares / ((n - 1.0) * var)).min(1.0)
                    } else {
                        1.0
                    };
                    (Some(var.max(0.0).sqrt()), Some(bound))
                }
            };
            return Some(MomentFigures {
                sum_literal: Some(decimal_literal(e.sum, e.scale)),
                sum,
                mean,
                mean_error: None,
                stddev,
                stddev_error,
            });
        }
        let f = self.float;
        let sum = f.sum + f.compensation;
        let mean = sum / n;
        // Neumaier: |error of the sum| <= 2u * sum|x| (to first order),
        // which also covers each value's reading as a double in the
        // normal range; below it each may be off by up to TINY / 2.
        let mean_error = (2.0 * UNIT * f.magnitude) / n + UNIT * mean.abs() + TINY;
        let (stddev, stddev_error) = welford_stddev(self.n, f, rounded);
        Some(MomentFigures {
            sum_literal: None,
            sum,
            mean,
            mean_error: Some(mean_error),
            stddev,
            stddev_error,
        })
    }
}

/// The sample standard deviation from Welford's accumulators, and its
/// relative error bound (to first order, halved by the square root):
/// `n * kappa * u` for the variance of the doubles (Chan, Golub and
/// LeVeque, 1983), plus what reading the values as doubles moved it.
/// A value moved by `d` moves the variance by `2 (x - mean) d / (n - 1)`;
/// with `|d| <= u |x| + TINY / 2` and Cauchy-Schwarz over the values
/// that is at most `2 sqrt(n) kappa u + TINY sqrt(n / m2)` of it.
/// `rounded`: some value was read as a double that may misstate it;
/// with all the doubles equal, the values may still differ, and a
/// standard deviation of zero is then only known to be within 100% of
/// the truth. The bound is not capped: past 1 it still says how little
/// the figure is worth.
fn welford_stddev(n: u64, f: FloatSums, rounded: bool) -> (Option<f64>, Option<f64>) {
    if n < 2 {
        return (None, None);
    }
    let n = n as f64;
    let var = f.m2 / (n - 1.0);
    if !var.is_finite() {
        return (None, None);
    }
    let var = var.max(0.0);
    let bound = if f.m2 > 0.0 {
        let kappa = (1.0 + n * f.mean * f.mean / f.m2).sqrt();
        let inputs = 2.0 * n.sqrt() * kappa * UNIT + TINY * (n / f.m2).sqrt();
        (n * kappa * UNIT + inputs) / 2.0 + UNIT
    } else if rounded {
        1.0
    } else {
        // Equal doubles read faithfully are equal values: no spread.
        n * UNIT / 2.0 + UNIT
    };
    if !bound.is_finite() {
        // A bound past a double says nothing: no figure.
        return (None, None);
    }
    (Some(var.sqrt()), Some(bound))
}

/// `value / 10^scale` written as a decimal literal.
fn decimal_literal(value: i128, scale: u32) -> String {
    let digits = value.unsigned_abs().to_string();
    let sign = if value < 0 { "-" } else { "" };
    if scale == 0 {
        return format!("{sign}{digits}");
    }
    let scale = scale as usize;
    let padded = format!("{digits:0>width$}", width = scale + 1);
    let (int, frac) = padded.split_at(padded.len() - scale);
    let frac = frac.trim_end_matches('0');
    if frac.is_empty() {
        format!("{sign}{int}")
    } else {
        format!("{sign}{int}.{frac}")
    }
}

#[cfg(test)]
mod tests {
    use super::decimal_literal;

    #[test]
    fn long_decimals_become_the_nearest_double() {
        use super::decimal_f64;
        for (m, s) in [
            (3_333_333_333_333_333i64, 13u32),
            (-9_223_372_036_854_775_807, 18),
            (i64::MIN, 3),
            (12_345, 30),
            (7, 0),
        ] {
            let text = format!("{m}e-{s}");
            assert_eq!(decimal_f64(m, s), text.parse::<f64>().unwrap(), "{text}");
        }
    }

    #[test]
    fn decimal_literals_are_written_exactly() {
        assert_eq!(decimal_literal(12345, 2), "123.45");
        assert_eq!(decimal_literal(-5, 3), "-0.005");
        assert_eq!(decimal_literal(100, 2), "1");
        assert_eq!(decimal_literal(0, 4), "0");
        assert_eq!(decimal_literal(i128::MAX, 0), i128::MAX.to_string());
    }
}
