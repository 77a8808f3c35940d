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

/// The most digits after the point the exact sums follow.
pub const EXACT_SCALE_MAX: u32 = 18;

/// The unit roundoff of a double.
const UNIT: f64 = f64::EPSILON / 2.0;

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
    /// A number known only as a double.
    Float(f64),
}

impl NumberIn {
    /// A scanned number literal: exact when its digits fit an `i64`.
    pub fn of_scan(scan: &crate::DecimalScan, literal: &[u8]) -> NumberIn {
        if let Some(v) = scan.small_integer() {
            return NumberIn::Int(v);
        }
        if let Some((mantissa, scale)) = scan.short_decimal() {
            return NumberIn::Decimal { mantissa, scale };
        }
        if let Some(n) = plain_decimal(literal) {
            return n;
        }
        let v = scan.exponent_f64().or_else(|| {
            std::str::from_utf8(literal)
                .ok()
                .and_then(|t| t.parse::<f64>().ok())
        });
        NumberIn::Float(v.unwrap_or(f64::NAN))
    }

    /// The nearest double.
    pub fn to_f64(self) -> f64 {
        match self {
            NumberIn::Int(v) => v as f64,
            NumberIn::Decimal { mantissa, scale } => {
                if scale <= 22 && mantissa.unsigned_abs() < (1 << 53) {
                    // Both exact as doubles: one rounding, correct.
                    mantissa as f64 / 10f64.powi(scale as i32)
                } else {
                    format!("{mantissa}e-{scale}").parse().unwrap_or(f64::NAN)
                }
            }
            NumberIn::Float(v) => v,
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

#[derive(Clone, Copy, Debug)]
struct ExactSums {
    scale: u32,
    sum: i128,
    squares: i128,
}

const POW10: [i128; 19] = {
    let mut t = [1i128; 19];
    let mut i = 1;
    while i < 19 {
        t[i] = t[i - 1] * 10;
        i += 1;
    }
    t
};

impl ExactSums {
    /// Adds `m / 10^s`; None when the sums no longer fit.
    fn add(self, m: i64, s: u32) -> Option<ExactSums> {
        let mut e = self;
        if s > EXACT_SCALE_MAX {
            return None;
        }
        if s > e.scale {
            let up = s - e.scale;
            e.sum = e.sum.checked_mul(POW10[up as usize])?;
            e.squares = e
                .squares
                .checked_mul(POW10[up as usize])?
                .checked_mul(POW10[up as usize])?;
            e.scale = s;
        }
        let m = i128::from(m).checked_mul(POW10[(e.scale - s) as usize])?;
        e.sum = e.sum.checked_add(m)?;
        e.squares = e.squares.checked_add(m.checked_mul(m)?)?;
        Some(e)
    }

    fn merge(self, other: ExactSums) -> Option<ExactSums> {
        let (mut a, mut b) = (self, other);
        if a.scale < b.scale {
            std::mem::swap(&mut a, &mut b);
        }
        let up = POW10[(a.scale - b.scale) as usize];
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
    exact: Option<ExactSums>,
    // Neumaier's compensated sum and the sum of magnitudes for its bound.
    sum: f64,
    compensation: f64,
    magnitude: f64,
    // Welford.
    mean: f64,
    m2: f64,
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
            sum: 0.0,
            compensation: 0.0,
            magnitude: 0.0,
            mean: 0.0,
            m2: 0.0,
        }
    }

    /// Counts a number; `v` is its nearest double (not NaN).
    #[inline]
    pub(crate) fn add(&mut self, number: NumberIn, v: f64) {
        self.n += 1;
        if let Some(e) = self.exact {
            self.exact = match number {
                NumberIn::Int(i) => e.add(i, 0),
                NumberIn::Decimal { mantissa, scale } => e.add(mantissa, scale),
                NumberIn::Float(_) => None,
            };
        }
        let t = self.sum + v;
        self.compensation += if self.sum.abs() >= v.abs() {
            (self.sum - t) + v
        } else {
            (v - t) + self.sum
        };
        self.sum = t;
        self.magnitude += v.abs();
        let delta = v - self.mean;
        self.mean += delta / self.n as f64;
        self.m2 += delta * (v - self.mean);
    }

    /// Takes in the moments of other values (Chan's update for the
    /// variance).
    pub(crate) fn merge(&mut self, other: &Moments) {
        if other.n == 0 {
            return;
        }
        let (na, nb) = (self.n as f64, other.n as f64);
        let n = na + nb;
        let delta = other.mean - self.mean;
        self.mean += delta * nb / n;
        self.m2 += other.m2 + delta * delta * na * nb / n;
        self.n += other.n;
        self.exact = match (self.exact, other.exact) {
            (Some(a), Some(b)) => a.merge(b),
            _ => None,
        };
        let t = self.sum + other.sum;
        self.compensation += if self.sum.abs() >= other.sum.abs() {
            (self.sum - t) + other.sum
        } else {
            (other.sum - t) + self.sum
        } + other.compensation;
        self.sum = t;
        self.magnitude += other.magnitude;
    }

    /// The figures; None when no number was counted.
    pub(crate) fn figures(&self) -> Option<MomentFigures> {
        if self.n == 0 {
            return None;
        }
        let n = self.n as f64;
        if let Some(e) = self.exact {
            let scale = 10f64.powi(e.scale as i32);
            let sum = e.sum as f64 / scale;
            let mean = e.sum as f64 / scale / n;
            // n * squares - sum^2, exactly when it fits.
            let numerator = i128::from(self.n)
                .checked_mul(e.squares)
                .zip(e.sum.checked_mul(e.sum))
                .and_then(|(a, b)| a.checked_sub(b));
            let (stddev, stddev_error) = match numerator {
                _ if self.n < 2 => (None, None),
                Some(num) => {
                    let denominator = n * (n - 1.0);
                    let var = num as f64 / denominator / (scale * scale);
                    (Some(var.max(0.0).sqrt()), None)
                }
                None => {
                    let (s, err) = self.welford_stddev();
                    (s, err)
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
        let sum = self.sum + self.compensation;
        let mean = sum / n;
        // Neumaier: |error of the sum| <= 2u * sum|x| (to first order).
        let mean_error = (2.0 * UNIT * self.magnitude) / n + UNIT * mean.abs();
        let (stddev, stddev_error) = self.welford_stddev();
        Some(MomentFigures {
            sum_literal: None,
            sum,
            mean,
            mean_error: Some(mean_error),
            stddev,
            stddev_error,
        })
    }

    /// The sample standard deviation from Welford's accumulators, and its
    /// relative error bound: `n * kappa * u` for the variance (Chan,
    /// Golub and LeVeque, 1983), halved by the square root.
    fn welford_stddev(&self) -> (Option<f64>, Option<f64>) {
        if self.n < 2 {
            return (None, None);
        }
        let n = self.n as f64;
        let var = (self.m2 / (n - 1.0)).max(0.0);
        let kappa = if self.m2 > 0.0 {
            (1.0 + n * self.mean * self.mean / self.m2).sqrt()
        } else {
            1.0
        };
        let bound = (n * kappa * UNIT / 2.0 + UNIT).min(1.0);
        (Some(var.sqrt()), Some(bound))
    }
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
    fn decimal_literals_are_written_exactly() {
        assert_eq!(decimal_literal(12345, 2), "123.45");
        assert_eq!(decimal_literal(-5, 3), "-0.005");
        assert_eq!(decimal_literal(100, 2), "1");
        assert_eq!(decimal_literal(0, 4), "0");
        assert_eq!(decimal_literal(i128::MAX, 0), i128::MAX.to_string());
    }
}
