//! Numbers compared exactly, as an ordering predicate (`> 5000.5`)
//! compares a value with its operand, in tiers from fast to general:
//! a plain decimal of at most eight bytes made a key that orders as the
//! number does (`small::decimal_key`), one of up to 18 digits read as an
//! integer and a scale (`small::small_decimal`), and anything else
//! (exponents, any number of digits) read as a `Decimal` of digits and
//! an exact power of ten. [`NumberKey`] holds the operand in every tier's
//! form, read once.
//!
//! Reference: [`compare_number_literals`] (the general tier alone).
//! Held equal by: `tests/it/predicate.rs::numeric_compare_agrees_with_the_general_comparison`
//! (and `small.rs::tests::the_word_reading_agrees_with_the_loop_on_every_short_body`
//! for the word-at-a-time reading against its byte loop).

use std::cmp::Ordering;

pub(crate) mod small;

use small::{cmp_keys, cmp_small, decimal_key, small_decimal};

use super::CompareOp;

/// Compares two decimal number literals exactly (`-1.50e2` and `-150`
/// are equal; `9007199254740993` is greater than `9007199254740992`);
/// `None` when either is not a plain decimal (`NaN`, `0x1F`, `1,5`).
/// Spaces around a literal are ignored, and a leading `+` is taken.
///
/// ```
/// use std::cmp::Ordering;
/// use plumb_core::compare_number_literals as cmp;
/// assert_eq!(cmp(b"9007199254740993", b"9007199254740992"), Some(Ordering::Greater));
/// assert_eq!(cmp(b"-1.50e2", b"-150"), Some(Ordering::Equal));
/// assert_eq!(cmp(b"0.1", b"1e-1"), Some(Ordering::Equal));
/// assert_eq!(cmp(b"-0", b"0.0"), Some(Ordering::Equal));
/// assert_eq!(cmp(b"NaN", b"1"), None);
/// ```
pub fn compare_number_literals(a: &[u8], b: &[u8]) -> Option<Ordering> {
    Some(Decimal::parse(a)?.cmp(&Decimal::parse(b)?))
}

/// Whether `text` reads as a decimal number literal, as
/// [`compare_number_literals`] reads one: an untyped cell (CSV) that
/// does is a number to an ordering predicate, which never orders a
/// number against text.
///
/// ```
/// use plumb_core::is_number_literal as n;
/// assert!(n(b"-1.50e2") && n(b" 7 ") && n(b"+3"));
/// assert!(!n(b"") && !n(b"NaN") && !n(b"1,5") && !n(b"Lyon"));
/// ```
pub fn is_number_literal(text: &[u8]) -> bool {
    Decimal::parse(text).is_some()
}

/// A predicate's numeric operand, read once: its sign, its significant
/// digits and the power of ten of the first (see [`compare_number_literals`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NumberKey {
    negative: bool,
    digits: Vec<u8>,
    /// Its magnitude (see [`Magnitude`]), the exponent's digits owned.
    exponent_negative: bool,
    exponent: Vec<u8>,
    shift: i64,
    /// The operand as a short plain decimal, when it is one.
    small: Option<(i64, u32)>,
    /// The operand's [`decimal_key`], when it is a plain decimal of at
    /// most eight bytes after its sign.
    key: Option<(bool, u128)>,
}

impl NumberKey {
    /// How the number `text` (a cell, spaces already trimmed) orders
    /// against this operand, exactly; `None` when `text` is no number.
    /// A short plain decimal (most cells) is read and compared in
    /// integer arithmetic, any other through the general comparison.
    ///
    /// ```
    /// use std::cmp::Ordering;
    /// use plumb_core::Predicate;
    /// let Predicate::Compare { number: Some(key), .. } = Predicate::parse("> 5000.5").unwrap() else {
    ///     unreachable!()
    /// };
    /// assert_eq!(key.compare(b"5000.50"), Some(Ordering::Equal));
    /// assert_eq!(key.compare(b"1e4"), Some(Ordering::Greater));
    /// assert_eq!(key.compare(b"Lyon"), None);
    /// ```
    #[inline(always)]
    pub fn compare(&self, text: &[u8]) -> Option<Ordering> {
        if let Some(k) = self.key {
            if let Some(v) = decimal_key(text) {
                return Some(cmp_keys(v, k));
            }
            // `small_decimal` refuses every text of up to eight bytes
            // that `decimal_key` does (a text column searched with a
            // numeric operand): not read twice.
            if text.len() <= 8 {
                return self.compare_general(text);
            }
        }
        if let (Some(k), Some(v)) = (self.small, small_decimal(text)) {
            return Some(cmp_small(v, k));
        }
        self.compare_general(text)
    }

    /// The key of an operand literal; `None` when it is no decimal.
    pub(super) fn of(operand: &str) -> Option<NumberKey> {
        let d = Decimal::parse(operand.as_bytes())?;
        let plain = operand.trim_ascii().as_bytes();
        Some(NumberKey {
            negative: d.negative,
            digits: [d.head, d.tail].concat(),
            exponent_negative: d.magnitude.exponent_negative,
            exponent: d.magnitude.exponent.to_vec(),
            shift: d.magnitude.shift,
            small: small_decimal(plain),
            key: decimal_key(plain),
        })
    }

    /// Whether `text` (a value that may be a number, spaces trimmed)
    /// stands in relation `op` to this operand, whose literal is
    /// `operand`: compared as numbers when `text` reads as one, else
    /// equal only as the same text, and in no order with it.
    ///
    /// ```
    /// use plumb_core::{CompareOp, Predicate};
    /// let Predicate::Compare { number: Some(key), .. } = Predicate::parse("> 5").unwrap() else {
    ///     unreachable!()
    /// };
    /// assert!(key.test(CompareOp::Gt, b"1e1", b"5"));
    /// assert!(!key.test(CompareOp::Gt, b"Lyon", b"5"));
    /// assert!(key.test(CompareOp::Ne, b"Lyon", b"5"));
    /// ```
    #[inline(always)]
    pub fn test(&self, op: CompareOp, text: &[u8], operand: &[u8]) -> bool {
        match self.compare(text) {
            Some(order) => op.holds(order),
            None => match op {
                CompareOp::Eq => text == operand,
                CompareOp::Ne => text != operand,
                _ => false,
            },
        }
    }

    /// [`NumberKey::compare`] for a cell or operand that is no short
    /// plain decimal: out of line, to keep the usual way small.
    #[inline(never)]
    fn compare_general(&self, text: &[u8]) -> Option<Ordering> {
        Some(Decimal::parse(text)?.cmp(&self.as_decimal()))
    }

    fn as_decimal(&self) -> Decimal<'_> {
        Decimal {
            negative: self.negative,
            head: &self.digits,
            tail: &[],
            magnitude: Magnitude {
                exponent_negative: self.exponent_negative,
                exponent: &self.exponent,
                shift: self.shift,
            },
        }
    }
}

/// A decimal literal read without allocating: its sign, its significant
/// digits (the integer and fraction digits with leading and trailing
/// zeros stripped, as up to two slices) and the power of ten of the
/// first of them.
#[derive(Clone, Copy, Debug)]
struct Decimal<'a> {
    negative: bool,
    /// The digits, with leading and trailing zeros stripped.
    head: &'a [u8],
    tail: &'a [u8],
    /// The position of the first significant digit: the number is
    /// `0.d1d2... × 10^magnitude`.
    magnitude: Magnitude<'a>,
}

/// The power of ten of a decimal's first significant digit, exactly:
/// its written exponent (any number of digits: `1e99999999999999999999`
/// is a number too, and larger than `1e9223372036854775807`) plus a
/// shift that the digits' position gives (at most the literal's length).
#[derive(Clone, Copy, Debug)]
struct Magnitude<'a> {
    exponent_negative: bool,
    /// The exponent's digits, leading zeros stripped (none for 0).
    exponent: &'a [u8],
    shift: i64,
}

/// The most exponent digits read into an `i128` (with any shift added,
/// it stays far inside one).
const EXPONENT_DIGITS_EXACT: usize = 36;

impl Magnitude<'_> {
    /// The exponent as an integer, when it has at most
    /// [`EXPONENT_DIGITS_EXACT`] digits.
    fn exponent_small(&self) -> Option<i128> {
        if self.exponent.len() > EXPONENT_DIGITS_EXACT {
            return None;
        }
        let v = self
            .exponent
            .iter()
            .fold(0i128, |a, &d| a * 10 + i128::from(d - b'0'));
        Some(if self.exponent_negative { -v } else { v })
    }

    fn cmp(&self, other: &Magnitude<'_>) -> Ordering {
        let shifts = i128::from(self.shift) - i128::from(other.shift);
        if let (Some(a), Some(b)) = (self.exponent_small(), other.exponent_small()) {
            return (a - b + shifts).cmp(&0);
        }
        // An exponent of more than 36 digits is at least 10^36 away from
        // any exponent of fewer, and from a larger one of its own sign by
        // at least its difference: shifts (each at most a literal's
        // length) matter only when that difference is small.
        match exponent_difference(self, other) {
            Difference::Small(d) => (d + shifts).cmp(&0),
            Difference::Huge(order) => order,
        }
    }
}

/// The difference of two exponents: exact when under 10^36, else only
/// its sign.
enum Difference {
    Small(i128),
    Huge(Ordering),
}

fn exponent_difference(a: &Magnitude<'_>, b: &Magnitude<'_>) -> Difference {
    let sign = |m: &Magnitude<'_>| match (m.exponent.is_empty(), m.exponent_negative) {
        (true, _) => Ordering::Equal,
        (false, true) => Ordering::Less,
        (false, false) => Ordering::Greater,
    };
    if sign(a) != sign(b) {
        // Opposite signs (or one zero), one of them huge: the difference
        // is huge, with the sign of the larger.
        return Difference::Huge(sign(a).cmp(&sign(b)));
    }
    // Same sign: the difference of the absolute values, negated for
    // negative exponents.
    let (x, y) = (a.exponent, b.exponent);
    let order = x.len().cmp(&y.len()).then_with(|| x.cmp(y));
    let (big, small) = match order {
        Ordering::Equal => return Difference::Small(0),
        Ordering::Greater => (x, y),
        Ordering::Less => (y, x),
    };
    // Schoolbook subtraction from the last digit; the difference is
    // wanted exactly only while it has at most 36 digits.
    let mut digits = Vec::with_capacity(big.len());
    let mut borrow = 0u8;
    for k in 0..big.len() {
        let d = big[big.len() - 1 - k] - b'0';
        let e = small
            .len()
            .checked_sub(1 + k)
            .map_or(0, |i| small[i] - b'0')
            + borrow;
        let (v, b) = if d >= e { (d - e, 0) } else { (d + 10 - e, 1) };
        digits.push(v);
        borrow = b;
    }
    while digits.last() == Some(&0) {
        digits.pop();
    }
    let negated = a.exponent_negative != (order == Ordering::Less);
    if digits.len() > EXPONENT_DIGITS_EXACT {
        let magnitude_order = if negated {
            Ordering::Less
        } else {
            Ordering::Greater
        };
        return Difference::Huge(magnitude_order);
    }
    let v = digits
        .iter()
        .rev()
        .fold(0i128, |a, &d| a * 10 + i128::from(d));
    Difference::Small(if negated { -v } else { v })
}

impl<'a> Decimal<'a> {
    fn parse(text: &'a [u8]) -> Option<Decimal<'a>> {
        let t = text.trim_ascii();
        let (negative, t) = match t.first()? {
            b'-' => (true, &t[1..]),
            b'+' => (false, &t[1..]),
            _ => (false, t),
        };
        let int_len = t.iter().take_while(|b| b.is_ascii_digit()).count();
        let (int, rest) = t.split_at(int_len);
        let (frac, rest) = match rest.strip_prefix(b".") {
            Some(r) => {
                let n = r.iter().take_while(|b| b.is_ascii_digit()).count();
                r.split_at(n)
            }
            None => (&rest[..0], rest),
        };
        if int.is_empty() && frac.is_empty() {
            return None;
        }
        let (exponent_negative, exponent) = match rest.first() {
            None => (false, &rest[..0]),
            Some(b'e' | b'E') => {
                let e = &rest[1..];
                let (neg, digits) = match e.first()? {
                    b'-' => (true, &e[1..]),
                    b'+' => (false, &e[1..]),
                    _ => (false, e),
                };
                if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
                    return None;
                }
                let lead = digits.iter().take_while(|&&d| d == b'0').count();
                (neg, &digits[lead..])
            }
            Some(_) => return None,
        };
        // Strip leading zeros across int then frac, trailing across frac then int.
        let int_lead = int.iter().take_while(|&&d| d == b'0').count();
        // A literal's length fits an i64 (it is in memory).
        let (head, tail, shift) = if int_lead < int.len() {
            let head = &int[int_lead..];
            (head, frac, head.len() as i64)
        } else {
            let frac_lead = frac.iter().take_while(|&&d| d == b'0').count();
            (&frac[frac_lead..], &frac[..0], -(frac_lead as i64))
        };
        let magnitude = Magnitude {
            exponent_negative,
            exponent,
            shift,
        };
        let (head, tail) = if tail.iter().all(|&d| d == b'0') {
            let n = head.iter().rev().take_while(|&&d| d == b'0').count();
            (&head[..head.len() - n], &tail[..0])
        } else {
            let n = tail.iter().rev().take_while(|&&d| d == b'0').count();
            (head, &tail[..tail.len() - n])
        };
        Some(Decimal {
            negative,
            head,
            tail,
            magnitude,
        })
    }

    fn is_zero(&self) -> bool {
        self.head.is_empty() && self.tail.is_empty()
    }

    fn cmp_magnitude(&self, other: &Decimal<'_>) -> Ordering {
        match (self.is_zero(), other.is_zero()) {
            (true, true) => return Ordering::Equal,
            (true, false) => return Ordering::Less,
            (false, true) => return Ordering::Greater,
            _ => {}
        }
        self.magnitude.cmp(&other.magnitude).then_with(|| {
            let a = self.head.iter().chain(self.tail);
            let b = other.head.iter().chain(other.tail);
            // Equal magnitudes: digit by digit, a shorter run padded with zeros.
            a.cmp(b)
        })
    }

    fn cmp(&self, other: &Decimal<'_>) -> Ordering {
        let sign = |d: &Decimal<'_>| {
            if d.is_zero() {
                0
            } else if d.negative {
                -1
            } else {
                1
            }
        };
        match sign(self).cmp(&sign(other)) {
            Ordering::Equal if sign(self) < 0 => other.cmp_magnitude(self),
            Ordering::Equal => self.cmp_magnitude(other),
            o => o,
        }
    }
}
