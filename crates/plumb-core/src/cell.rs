//! Cell classification and column type inference, shared by the CSV and
//! JSON Lines inspectors.
//!
//! A cell is classified from its text with leading and trailing spaces
//! and tabs ignored; nothing is converted, so the text stays the truth.
//! The rules, in the order they are tried:
//!
//! | class | when |
//! |---|---|
//! | `empty` | nothing but spaces and tabs |
//! | `sentinel` | exactly one of [`SENTINEL_TOKENS`] (a missing value) |
//! | `integer` | an optional `+`/`-`, then ASCII digits only |
//! | `float` | an optional sign, digits with one `.` and/or an exponent (`1.5`, `.5`, `5.`, `1e9`, `-2.5E-3`) |
//! | `boolean` | `true` or `false`, in any letter case |
//! | `date` | an ISO 8601 calendar date `YYYY-MM-DD` (month 01-12, day 01-31), optionally followed by `T` or a space and a time `HH:MM[:SS[.fff]]` with an optional `Z` or `±HH[:MM]` offset |
//! | `string` | anything else |

use serde::Serialize;

/// The tokens that stand for a missing value. A cell equal to one of
/// them is counted as a sentinel, by token, and never converted.
pub const SENTINEL_TOKENS: [&str; 7] = ["NA", "N/A", "NaN", "null", "NULL", "None", "-"];

/// The class of one cell's text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CellClass {
    /// Only spaces and tabs, or nothing at all.
    Empty,
    /// One of [`SENTINEL_TOKENS`].
    Sentinel,
    /// A decimal integer of any length.
    Integer,
    /// A decimal number with a fraction or an exponent.
    Float,
    /// `true` or `false`, any letter case.
    Boolean,
    /// An ISO 8601 date or date-time.
    Date,
    /// Any other text.
    String,
}

impl CellClass {
    /// Every class, in histogram order.
    pub const ALL: [CellClass; 7] = [
        CellClass::Empty,
        CellClass::Sentinel,
        CellClass::Integer,
        CellClass::Float,
        CellClass::Boolean,
        CellClass::Date,
        CellClass::String,
    ];

    /// The kebab-case name used in JSON.
    pub const fn as_str(self) -> &'static str {
        match self {
            CellClass::Empty => "empty",
            CellClass::Sentinel => "sentinel",
            CellClass::Integer => "integer",
            CellClass::Float => "float",
            CellClass::Boolean => "boolean",
            CellClass::Date => "date",
            CellClass::String => "string",
        }
    }

    const fn index(self) -> usize {
        self as usize
    }
}

/// Trims the spaces and tabs that classification ignores.
pub fn trim_cell(text: &str) -> &str {
    text.trim_matches([' ', '\t'])
}

/// [`trim_cell`] for bytes.
#[inline]
pub fn trim_bytes(mut b: &[u8]) -> &[u8] {
    while let [b' ' | b'\t', rest @ ..] = b {
        b = rest;
    }
    while let [rest @ .., b' ' | b'\t'] = b {
        b = rest;
    }
    b
}

/// Classifies one cell.
///
/// ```
/// use plumb_core::{classify_cell, CellClass};
/// assert_eq!(classify_cell("42"), CellClass::Integer);
/// assert_eq!(classify_cell("-1.5e3"), CellClass::Float);
/// assert_eq!(classify_cell("NA"), CellClass::Sentinel);
/// assert_eq!(classify_cell("2024-02-29"), CellClass::Date);
/// assert_eq!(classify_cell(" "), CellClass::Empty);
/// assert_eq!(classify_cell("bob"), CellClass::String);
/// ```
pub fn classify_cell(text: &str) -> CellClass {
    classify_bytes(text.as_bytes())
}

/// Classifies one cell given as bytes (the same rules as
/// [`classify_cell`]; bytes that are not UTF-8 are `string`).
#[inline]
pub fn classify_bytes(cell: &[u8]) -> CellClass {
    scan_cell(cell).class
}

/// One cell classified in one pass, with what the pass learnt on the way.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CellScan<'a> {
    /// The class.
    pub class: CellClass,
    /// The text without the leading and trailing spaces and tabs.
    pub trimmed: &'a [u8],
    /// For `integer` and `float`: the number as read.
    pub number: Option<DecimalScan>,
    /// For `sentinel`: the index of the token in [`SENTINEL_TOKENS`].
    pub sentinel: Option<usize>,
}

/// Classifies one cell, trimming it and reading a number only once
/// (the same rules as [`classify_cell`]).
///
/// ```
/// use plumb_core::{scan_cell, CellClass, SENTINEL_TOKENS};
/// let c = scan_cell(b" 12 ");
/// assert_eq!((c.class, c.trimmed), (CellClass::Integer, &b"12"[..]));
/// assert_eq!(c.number.and_then(|n| n.small_integer()), Some(12));
/// let c = scan_cell(b"NA");
/// assert_eq!(c.sentinel.map(|i| SENTINEL_TOKENS[i]), Some("NA"));
/// ```
#[inline]
pub fn scan_cell(cell: &[u8]) -> CellScan<'_> {
    let t = trim_bytes(cell);
    let mut scan = CellScan {
        class: CellClass::String,
        trimmed: t,
        number: None,
        sentinel: None,
    };
    let Some(&first) = t.first() else {
        scan.class = CellClass::Empty;
        return scan;
    };
    // The first byte decides which few rules can apply, so most cells
    // are classified after one or two cheap checks.
    match first {
        b'0'..=b'9' | b'+' | b'-' | b'.' => {
            // A date is tried first when its fifth byte is a '-', which
            // saves reading its year as a number; a number with a '-'
            // there (`123e-45678`) is not a date and is read below.
            if t.len() >= 10 && t[4] == b'-' && is_date(t) {
                scan.class = CellClass::Date;
            } else if let Some(d) = scan_decimal(t) {
                scan.class = d.class();
                scan.number = Some(d);
            } else if t == b"-" {
                scan.class = CellClass::Sentinel;
                scan.sentinel = sentinel_index(t);
            } else if is_date(t) {
                scan.class = CellClass::Date;
            }
        }
        b'N' | b'n' if t.len() <= SENTINEL_MAX_BYTES => {
            if let Some(i) = sentinel_index(t) {
                scan.class = CellClass::Sentinel;
                scan.sentinel = Some(i);
            }
        }
        b't' | b'T' | b'f' | b'F'
            if t.eq_ignore_ascii_case(b"true") || t.eq_ignore_ascii_case(b"false") =>
        {
            scan.class = CellClass::Boolean;
        }
        _ => {}
    }
    scan
}

/// The longest token in [`SENTINEL_TOKENS`], which `scan_cell` relies on.
const SENTINEL_MAX_BYTES: usize = 4;
const _: () = {
    let mut i = 0;
    while i < SENTINEL_TOKENS.len() {
        assert!(SENTINEL_TOKENS[i].len() <= SENTINEL_MAX_BYTES);
        i += 1;
    }
};

fn sentinel_index(t: &[u8]) -> Option<usize> {
    SENTINEL_TOKENS.iter().position(|s| s.as_bytes() == t)
}

/// `Integer` or `Float` when the bytes are a decimal number literal
/// (optional sign, digits, optional fraction, optional exponent).
pub fn numeric_class(bytes: &[u8]) -> Option<CellClass> {
    scan_decimal(bytes).map(|d| d.class())
}

/// A decimal number literal read in one pass: its shape, and its value
/// when that comes exactly from the digits alone.
///
/// ```
/// use plumb_core::{scan_decimal, CellClass};
/// let d = scan_decimal(b"-12.25").unwrap();
/// assert_eq!(d.class(), CellClass::Float);
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
    /// `Integer`, or `Float` when there is a point or an exponent.
    #[inline]
    pub fn class(&self) -> CellClass {
        if self.point || self.exponent {
            CellClass::Float
        } else {
            CellClass::Integer
        }
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

/// A number cell in its plainest form: ASCII digits with at most one
/// point and nothing else (`42`, `12.50`, `.5`, `7.`), at most nineteen
/// digits. This is how most numeric columns are written, so inspectors
/// try it first and fall back to [`scan_cell`] for anything else.
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

fn digits(bytes: &[u8], at: usize, n: usize) -> Option<u32> {
    let slice = bytes.get(at..at + n)?;
    let mut v = 0u32;
    for &b in slice {
        if !b.is_ascii_digit() {
            return None;
        }
        v = v * 10 + u32::from(b - b'0');
    }
    Some(v)
}

fn is_date(b: &[u8]) -> bool {
    let (Some(_), Some(month), Some(day)) = (digits(b, 0, 4), digits(b, 5, 2), digits(b, 8, 2))
    else {
        return false;
    };
    if b.get(4) != Some(&b'-') || b.get(7) != Some(&b'-') {
        return false;
    }
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) {
        return false;
    }
    if b.len() == 10 {
        return true;
    }
    if !matches!(b.get(10), Some(b'T' | b' ')) {
        return false;
    }
    is_time(&b[11..])
}

fn is_time(b: &[u8]) -> bool {
    let (Some(h), Some(m)) = (digits(b, 0, 2), digits(b, 3, 2)) else {
        return false;
    };
    if b.get(2) != Some(&b':') || h > 23 || m > 59 {
        return false;
    }
    let mut i = 5;
    if b.get(i) == Some(&b':') {
        match digits(b, i + 1, 2) {
            Some(s) if s <= 60 => i += 3,
            _ => return false,
        }
        if b.get(i) == Some(&b'.') {
            i += 1;
            let s = i;
            while b.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
            if i == s {
                return false;
            }
        }
    }
    match b.get(i) {
        None => true,
        Some(b'Z') => i + 1 == b.len(),
        Some(b'+' | b'-') => {
            let rest = &b[i + 1..];
            match rest.len() {
                2 => digits(rest, 0, 2).is_some(),
                4 => digits(rest, 0, 4).is_some(),
                5 => {
                    rest.get(2) == Some(&b':')
                        && digits(rest, 0, 2).and(digits(rest, 3, 2)).is_some()
                }
                _ => false,
            }
        }
        _ => false,
    }
}

/// A count of cells per class.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ClassHistogram {
    counts: [u64; 7],
}

impl ClassHistogram {
    /// Counts one cell of `class`.
    #[inline]
    pub fn add(&mut self, class: CellClass) {
        self.counts[class.index()] += 1;
    }

    /// How many cells of `class` were counted.
    pub fn get(&self, class: CellClass) -> u64 {
        self.counts[class.index()]
    }

    /// The classes with a non-zero count, in class order.
    pub fn iter(&self) -> impl Iterator<Item = (CellClass, u64)> + '_ {
        CellClass::ALL
            .iter()
            .map(|&c| (c, self.get(c)))
            .filter(|&(_, n)| n > 0)
    }
}

impl Serialize for ClassHistogram {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.iter().map(|(c, n)| (c.as_str(), n)))
    }
}

/// The type a column's cells support.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum InferredType {
    /// No cell carried a value (all empty or sentinel, or no cells).
    Empty,
    /// Every valued cell is an integer.
    Integer,
    /// Every valued cell is a number, at least one with a fraction or exponent.
    Float,
    /// Every valued cell is a boolean.
    Boolean,
    /// Every valued cell is a date.
    Date,
    /// Every valued cell is other text.
    String,
    /// The valued cells disagree.
    Mixed,
}

/// The type a histogram of cell classes supports.
///
/// Only typed cells vote: empties and sentinels are missing values.
/// Integers and floats together make `float`; any other mixture is
/// `mixed`; no votes at all is `empty`.
///
/// ```
/// use plumb_core::{infer_column_type, CellClass, ClassHistogram, InferredType};
/// let mut h = ClassHistogram::default();
/// h.add(CellClass::Integer);
/// h.add(CellClass::Sentinel);
/// h.add(CellClass::Float);
/// assert_eq!(infer_column_type(&h), InferredType::Float);
/// h.add(CellClass::String);
/// assert_eq!(infer_column_type(&h), InferredType::Mixed);
/// ```
pub fn infer_column_type(h: &ClassHistogram) -> InferredType {
    let voted = |c| h.get(c) > 0;
    let kinds = [
        (CellClass::Integer, InferredType::Integer),
        (CellClass::Float, InferredType::Float),
        (CellClass::Boolean, InferredType::Boolean),
        (CellClass::Date, InferredType::Date),
        (CellClass::String, InferredType::String),
    ];
    let voters: Vec<InferredType> = kinds
        .iter()
        .filter(|(c, _)| voted(*c))
        .map(|&(_, t)| t)
        .collect();
    match voters.as_slice() {
        [] => InferredType::Empty,
        [one] => *one,
        [InferredType::Integer, InferredType::Float] => InferredType::Float,
        _ => InferredType::Mixed,
    }
}
