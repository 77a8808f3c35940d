//! Decimal number literals read in one pass: [`scan_decimal`] for any
//! literal (sign, digits, fraction, exponent), [`scan_plain_number`] for
//! the plainest and commonest form. Whether a literal is an integer or a
//! fraction is said here; what class a cell of text belongs to is the
//! CSV engine's business (`plumb_csv::CellClass`).

/// A decimal number literal read in one pass: its shape, and its value
/// when that comes exactly from the digits alone.
///
/// ```
/// use plumb_core::scan_decimal;
/// let d = scan_decimal(b"-12.25").unwrap();
/// assert!(d.is_float());
/// assert_eq!(d.exact_f64(), Some(-12.25));
/// assert_eq!(scan_decimal(b"42").unwrap().small_integer(), Some(42));
/// assert!(scan_decimal(b"4x").is_none());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DecimalScan {
    negative: bool,
    /// The digits before the exponent as one number, kept while it fits.
    mantissa: u64,
    /// Digits before the exponent (integer and fraction, leading zeros too).
    digits: u32,
    /// Digits after the point.
    frac_digits: u32,
    point: bool,
    exponent: bool,
    /// The exponent's value, saturated far beyond any double's range.
    exp10: i32,
}

/// The most digits [`DecimalScan`] turns into a value by itself: fifteen
/// digits fit an `i64` and survive a double both ways.
const EXACT_DIGITS: u32 = 15;

/// Every power of ten a double holds exactly.
pub(crate) const POWERS_OF_TEN: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

impl DecimalScan {
    /// Whether the literal is a fraction: it has a point or an exponent
    /// (else it is an integer).
    #[inline]
    pub fn is_float(&self) -> bool {
        self.point || self.exponent
    }

    /// Whether the literal has at most fifteen digits and no exponent:
    /// then its value is exact as a double and it prints back unchanged,
    /// so it needs no precision check.
    #[inline]
    pub fn is_short(&self) -> bool {
        self.digits <= EXACT_DIGITS && !self.exponent
    }

    /// The value of a short integer literal (see [`DecimalScan::is_short`]).
    #[inline]
    pub fn small_integer(&self) -> Option<i64> {
        if !self.is_short() || self.point {
            return None;
        }
        // At most fifteen digits: below 10^15, so the cast is exact.
        let v = self.mantissa as i64;
        Some(if self.negative { -v } else { v })
    }

    /// The value as `(m, e)` meaning `m × 10^e`, with `m` free of trailing
    /// zeros, when the digits fit a `u64` (at most nineteen) and are not
    /// all zero. Equal pairs mean equal values.
    pub fn significand(&self) -> Option<(u64, i64)> {
        if self.digits > 19 || self.mantissa == 0 {
            return None;
        }
        let mut m = self.mantissa;
        let mut e = i64::from(self.exp10) - i64::from(self.frac_digits);
        while m.is_multiple_of(10) {
            m /= 10;
            e += 1;
        }
        Some((m, e))
    }

    /// [`DecimalScan::significand`] of the literal this scan read, when
    /// it has more than nineteen digits counting leading and trailing
    /// zeros (`0.000123456789012345678`): the text is read again, those
    /// zeros skipped. `None` past nineteen significant digits.
    #[inline]
    pub(crate) fn significand_in(&self, literal: &[u8]) -> Option<(u64, i64)> {
        if self.digits <= 19 {
            return self.significand();
        }
        let (mut m, mut sig, mut zeros) = (0u64, 0u32, 0u32);
        let mut e = i64::from(self.exp10);
        let mut fraction = false;
        for &b in literal {
            match b {
                b'.' => fraction = true,
                b'e' | b'E' => break,
                b'0'..=b'9' => {
                    e -= i64::from(fraction);
                    if b == b'0' {
                        // Leading zeros do nothing; others wait for a
                        // digit that is not zero.
                        zeros += u32::from(m != 0);
                        continue;
                    }
                    sig += zeros + 1;
                    if sig > 19 {
                        return None;
                    }
                    m = m * 10u64.pow(zeros + 1) + u64::from(b - b'0');
                    zeros = 0;
                }
                _ => {}
            }
        }
        (m != 0).then(|| (m, e + i64::from(zeros)))
    }

    /// The scan [`scan_decimal`] gives for a fraction without sign or
    /// exponent (`12.375`) that a caller has already read: its digits as
    /// one number (`12375`), how many digits there are (`5`, leading
    /// zeros included) and how many follow the point (`3`). The mantissa
    /// is exact when there are at most nineteen digits.
    ///
    /// ```
    /// use plumb_core::{scan_decimal, DecimalScan};
    /// assert_eq!(DecimalScan::plain_fraction(12375, 5, 3), scan_decimal(b"12.375").unwrap());
    /// ```
    pub fn plain_fraction(mantissa: u64, digits: u32, frac_digits: u32) -> DecimalScan {
        DecimalScan {
            negative: false,
            mantissa,
            digits,
            frac_digits,
            point: true,
            exponent: false,
            exp10: 0,
        }
    }

    /// The nearest double of a literal of at most fifteen digits with an
    /// exponent (`2.5e-3`, `6.02E23` is too far), when its digits as an
    /// integer times or over a power of ten of at most 10^22 is one
    /// correctly rounded operation (Clinger's fast path). Such a literal
    /// always survives a double both ways.
    ///
    /// ```
    /// use plumb_core::scan_decimal;
    /// assert_eq!(scan_decimal(b"-2.5e-3").unwrap().exponent_f64(), Some(-0.0025));
    /// assert_eq!(scan_decimal(b"1e300").unwrap().exponent_f64(), None);
    /// ```
    #[inline]
    pub fn exponent_f64(&self) -> Option<f64> {
        if !self.exponent || self.digits > EXACT_DIGITS {
            return None;
        }
        let q = i64::from(self.exp10) - i64::from(self.frac_digits);
        let scale = *POWERS_OF_TEN.get(q.unsigned_abs() as usize)?;
        // At most fifteen digits: below 2^53, so the cast is exact.
        let m = self.mantissa as f64;
        let v = if q < 0 { m / scale } else { m * scale };
        Some(if self.negative { -v } else { v })
    }

    /// Whether the literal is negative.
    pub fn is_negative(&self) -> bool {
        self.negative
    }

    /// A short literal (see [`DecimalScan::is_short`]) as a signed
    /// integer and the number of digits after its point: `-12.50` is
    /// `(-1250, 2)`. Comparing these needs no division, and the double
    /// of either is [`DecimalScan::exact_f64`]'s.
    #[inline]
    pub fn short_decimal(&self) -> Option<(i64, u32)> {
        if !self.is_short() {
            return None;
        }
        // At most fifteen digits: below 10^15, so the cast is exact.
        let v = self.mantissa as i64;
        Some((if self.negative { -v } else { v }, self.frac_digits))
    }

    /// The nearest double of a short literal, computed exactly: the
    /// digits as an integer below 2^53 divided by an exact power of ten
    /// is one correctly rounded operation (Clinger's fast path).
    #[inline]
    pub fn exact_f64(&self) -> Option<f64> {
        if !self.is_short() {
            return None;
        }
        let v = self.mantissa as f64 / POWERS_OF_TEN[self.frac_digits as usize];
        Some(if self.negative { -v } else { v })
    }
}

impl DecimalScan {
    /// Folds the run of digits at `i` into the mantissa; returns where
    /// the run ends.
    #[inline]
    fn take_digits(&mut self, bytes: &[u8], i: usize) -> usize {
        let run = bytes.get(i..).unwrap_or_default();
        let mut m = self.mantissa;
        let mut k = 0;
        while let Some(&b) = run.get(k) {
            let d = b.wrapping_sub(b'0');
            if d > 9 {
                break;
            }
            m = m.wrapping_mul(10).wrapping_add(u64::from(d));
            k += 1;
        }
        self.mantissa = m;
        self.digits += k as u32;
        i + k
    }
}

/// Reads a decimal number literal (optional sign, digits, optional
/// fraction, optional exponent), or `None` when the bytes are not one.
#[inline]
pub fn scan_decimal(bytes: &[u8]) -> Option<DecimalScan> {
    let mut d = DecimalScan {
        negative: false,
        mantissa: 0,
        digits: 0,
        frac_digits: 0,
        point: false,
        exponent: false,
        exp10: 0,
    };
    let mut i = 0;
    match bytes.first() {
        Some(b'-') => {
            d.negative = true;
            i = 1;
        }
        Some(b'+') => i = 1,
        _ => {}
    }
    i = d.take_digits(bytes, i);
    if bytes.get(i) == Some(&b'.') {
        d.point = true;
        let s = i + 1;
        i = d.take_digits(bytes, s);
        d.frac_digits = (i - s) as u32;
    }
    if d.digits == 0 {
        return None;
    }
    if matches!(bytes.get(i), Some(b'e' | b'E')) {
        d.exponent = true;
        i += 1;
        let negative = bytes.get(i) == Some(&b'-');
        if matches!(bytes.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        let s = i;
        while let Some(&b) = bytes.get(i).filter(|b| b.is_ascii_digit()) {
            d.exp10 = (d.exp10 * 10 + i32::from(b - b'0')).min(1 << 20);
            i += 1;
        }
        if i == s {
            return None;
        }
        if negative {
            d.exp10 = -d.exp10;
        }
    }
    (i == bytes.len()).then_some(d)
}

/// A number literal in its plainest form: ASCII digits with at most one
/// point and nothing else (`42`, `12.50`, `.5`, `7.`), at most nineteen
/// digits. This is how most numeric columns are written, so inspectors
/// try it first and fall back to [`scan_decimal`] (or their own cell
/// classification, such as `plumb_csv::scan_cell`) for anything else.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlainNumber {
    /// The digits as one number (exact: there are at most nineteen).
    pub mantissa: u64,
    /// How many digits there are, leading zeros included.
    pub digits: u32,
    /// How many digits follow the point, or `None` without a point.
    pub frac_digits: Option<u32>,
}

/// Reads a [`PlainNumber`]: `None` for anything else, including more
/// than nineteen digits; [`scan_decimal`] reads every number literal.
///
/// A byte at a time: on cells this short a word-at-a-time reading was
/// measured slower (the multiplications cost more than the loop).
///
/// ```
/// use plumb_core::{scan_plain_number, PlainNumber};
/// assert_eq!(
///     scan_plain_number(b"4115.333333333333"),
///     Some(PlainNumber { mantissa: 4115333333333333, digits: 16, frac_digits: Some(12) }),
/// );
/// assert_eq!(scan_plain_number(b"-1"), None);
/// assert_eq!(scan_plain_number(b"1.2.3"), None);
/// ```
#[inline]
pub fn scan_plain_number(cell: &[u8]) -> Option<PlainNumber> {
    let n = cell.len();
    // Nineteen digits and a point at most.
    if n > 20 {
        return None;
    }
    let mut value = 0u64;
    // Where the point is; `n` while none has been seen.
    let mut point = n;
    for (i, &b) in cell.iter().enumerate() {
        let d = b.wrapping_sub(b'0');
        if d <= 9 {
            value = value.wrapping_mul(10).wrapping_add(u64::from(d));
        } else if b == b'.' && point == n {
            point = i;
        } else {
            return None;
        }
    }
    let digits = n - usize::from(point < n);
    (1..=19).contains(&digits).then_some(PlainNumber {
        mantissa: value,
        digits: digits as u32,
        frac_digits: (point < n).then(|| (n - point - 1) as u32),
    })
}
