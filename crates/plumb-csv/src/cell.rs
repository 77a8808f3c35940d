//! Cell classification and column type inference for CSV inspect. The
//! number literals themselves are read by `plumb_core`'s
//! [`scan_decimal`], which knows nothing of cell classes.
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
//! | `date` | a calendar date: `YYYY-MM-DD`, `YYYY/MM/DD` or `YYYY.MM.DD` (month 01-12, day 01-31), or day and month before a four-digit year, `D/M/YYYY` to `DD/MM/YYYY` with `/`, `.` or `-` (day-first when the first part is over 12, month-first when the second is, ambiguous when both could be a month: see [`DateOrder`]) |
//! | `timestamp` | any of those dates followed by `T` or a space and a time `HH:MM[:SS[.fff]]` with an optional `Z` or `±HH[:MM]` offset |
//! | `string` | anything else |
//!
//! Column facts refine a few cells where the column says more than the
//! cell: see the inspect report (decimal commas, short codes that match
//! a sentinel, exponent-shaped codes).
//!
//! Reference (for `scan_decimal`'s one pass): std's parsers. Held equal by:
//! `tests/it/cell.rs::scan_decimal_agrees_with_std`.

use plumb_core::{scan_decimal, DecimalScan};
use serde::Serialize;

/// The tokens that stand for a missing value. A cell equal to one of
/// them is counted as a sentinel, by token, and never converted.
pub const SENTINEL_TOKENS: [&str; 7] = ["NA", "N/A", "NaN", "null", "NULL", "None", "-"];

/// The class of one cell's text.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, schemars::JsonSchema,
)]
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
    /// A calendar date.
    Date,
    /// A calendar date with a time of day.
    Timestamp,
    /// Any other text.
    String,
}

impl CellClass {
    /// Every class, in histogram order.
    pub const ALL: [CellClass; 8] = [
        CellClass::Empty,
        CellClass::Sentinel,
        CellClass::Integer,
        CellClass::Float,
        CellClass::Boolean,
        CellClass::Date,
        CellClass::Timestamp,
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
            CellClass::Timestamp => "timestamp",
            CellClass::String => "string",
        }
    }

    pub(crate) const fn index(self) -> usize {
        self as usize
    }
}

/// Trims the spaces and tabs that classification ignores.
#[inline]
pub(crate) fn trim_bytes(mut b: &[u8]) -> &[u8] {
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
/// use plumb_csv::{classify_cell, CellClass};
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
pub(crate) fn classify_bytes(cell: &[u8]) -> CellClass {
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
    /// For `date` and `timestamp`: how the date part is written.
    pub date: Option<DateForm>,
}

/// The order a date writes its parts in.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum DateOrder {
    /// Year, month, day (`2024-01-15`, `2024/01/15`).
    Ymd,
    /// Day first: the first part is over 12 (`15/01/2024`).
    Dmy,
    /// Month first: the second part is over 12 (`01/15/2024`).
    Mdy,
    /// Day and month both 12 or less (`03/04/2024`): either order reads.
    Ambiguous,
}

/// How one date is written: its order and the separator of its parts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DateForm {
    /// The order of day, month and year.
    pub order: DateOrder,
    /// `-`, `/` or `.`.
    pub separator: u8,
}

/// Classifies one cell, trimming it and reading a number only once
/// (the same rules as [`classify_cell`]).
///
/// ```
/// use plumb_csv::{scan_cell, CellClass, SENTINEL_TOKENS};
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
        date: None,
    };
    let Some(&first) = t.first() else {
        scan.class = CellClass::Empty;
        return scan;
    };
    // The first byte decides which few rules can apply, so most cells
    // are classified after one or two cheap checks.
    match first {
        b'0'..=b'9' | b'+' | b'-' | b'.' => {
            // A date is tried first when a separator sits where a date
            // has one, which saves reading its year as a number; a
            // number with a `-` or `.` there (`123e-45678`, `1.25`) is
            // not a date and is read below.
            if let Some((form, time)) = date_shaped(t).then(|| parse_date(t)).flatten() {
                scan.class = if time {
                    CellClass::Timestamp
                } else {
                    CellClass::Date
                };
                scan.date = Some(form);
            } else if let Some(d) = scan_decimal(t) {
                scan.class = number_class(&d);
                scan.number = Some(d);
            } else if t == b"-" {
                scan.class = CellClass::Sentinel;
                scan.sentinel = sentinel_index(t);
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

/// The class of a number literal: `Float` with a point or an exponent,
/// else `Integer`.
///
/// ```
/// use plumb_csv::{number_class, CellClass};
/// assert_eq!(number_class(&plumb_core::scan_decimal(b"1e3").unwrap()), CellClass::Float);
/// ```
#[inline]
pub fn number_class(d: &DecimalScan) -> CellClass {
    if d.is_float() {
        CellClass::Float
    } else {
        CellClass::Integer
    }
}

/// The `n` ASCII digits at `at` as a number, or None if any is missing
/// or not a digit.
pub(crate) fn digits(bytes: &[u8], at: usize, n: usize) -> Option<u32> {
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

/// Whether a date separator sits where a date has one: after a
/// four-digit year, or after a one- or two-digit day or month.
#[inline]
fn date_shaped(t: &[u8]) -> bool {
    let sep = |k: usize| matches!(t.get(k), Some(b'-' | b'/' | b'.'));
    t.len() >= 8 && (sep(4) || sep(1) || sep(2))
}

/// Reads a date, and whether a time follows it.
fn parse_date(b: &[u8]) -> Option<(DateForm, bool)> {
    let (form, rest) = if matches!(b.get(4), Some(b'-' | b'/' | b'.')) {
        let sep = b[4];
        let (_, month, day) = (digits(b, 0, 4)?, digits(b, 5, 2)?, digits(b, 8, 2)?);
        if b.get(7) != Some(&sep) || !(1..=12).contains(&month) || !(1..=31).contains(&day) {
            return None;
        }
        let form = DateForm {
            order: DateOrder::Ymd,
            separator: sep,
        };
        (form, &b[10..])
    } else {
        // One or two digits, a separator, one or two digits, the same
        // separator, four digits.
        let first_len = if b.get(1).is_some_and(u8::is_ascii_digit) {
            2
        } else {
            1
        };
        let a = digits(b, 0, first_len)?;
        let sep = *b.get(first_len)?;
        if !matches!(sep, b'-' | b'/' | b'.') {
            return None;
        }
        let at = first_len + 1;
        let second_len = if b.get(at + 1).is_some_and(u8::is_ascii_digit) {
            2
        } else {
            1
        };
        let c = digits(b, at, second_len)?;
        let at = at + second_len;
        if b.get(at) != Some(&sep) {
            return None;
        }
        digits(b, at + 1, 4)?;
        if b.get(at + 5).is_some_and(u8::is_ascii_digit) {
            return None;
        }
        let order = match (a, c) {
            (1..=12, 1..=12) => DateOrder::Ambiguous,
            (13..=31, 1..=12) => DateOrder::Dmy,
            (1..=12, 13..=31) => DateOrder::Mdy,
            _ => return None,
        };
        let form = DateForm {
            order,
            separator: sep,
        };
        (form, &b[at + 5..])
    };
    match rest {
        [] => Some((form, false)),
        [b'T' | b' ', time @ ..] if is_time(time) => Some((form, true)),
        _ => None,
    }
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
    counts: [u64; 8],
}

impl ClassHistogram {
    /// Counts one cell of `class`.
    #[inline]
    pub fn add(&mut self, class: CellClass) {
        self.counts[class.index()] += 1;
    }

    /// Moves `n` cells counted as `from` to `to` (a column fact that
    /// corrects a cell's own reading).
    pub(crate) fn shift(&mut self, from: CellClass, to: CellClass, n: u64) {
        let n = n.min(self.counts[from.index()]);
        self.counts[from.index()] -= n;
        self.counts[to.index()] += n;
    }

    /// The counts by class index (a column's state for a scan's part).
    pub(crate) fn counts(&self) -> [u64; 8] {
        self.counts
    }

    /// The histogram of these counts by class index.
    pub(crate) fn from_counts(counts: [u64; 8]) -> ClassHistogram {
        ClassHistogram { counts }
    }

    /// Adds the counts of `other` (a later part of the same column).
    pub(crate) fn absorb(&mut self, other: &ClassHistogram) {
        for (mine, theirs) in self.counts.iter_mut().zip(other.counts) {
            *mine += theirs;
        }
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

/// An object of cell counts by class name, only the classes counted.
impl schemars::JsonSchema for ClassHistogram {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "ClassHistogram".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let classes: serde_json::Map<String, serde_json::Value> = CellClass::ALL
            .iter()
            .map(|c| {
                (
                    c.as_str().to_owned(),
                    serde_json::json!({"type": "integer", "minimum": 1}),
                )
            })
            .collect();
        schemars::json_schema!({
            "description": "cells counted by class; a class no cell had is left out",
            "type": "object",
            "properties": classes,
            "additionalProperties": false
        })
    }
}

/// The type a column's cells support.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
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
    /// Every valued cell is a timestamp, or a date or timestamp with at
    /// least one timestamp.
    Timestamp,
    /// Every valued cell is other text.
    String,
    /// The valued cells disagree.
    Mixed,
}

impl InferredType {
    /// The kebab-case name used in JSON.
    ///
    /// ```
    /// use plumb_csv::InferredType::*;
    /// for t in [Empty, Integer, Float, Boolean, Date, Timestamp, String, Mixed] {
    ///     assert_eq!(serde_json::to_value(t).unwrap(), t.as_str());
    /// }
    /// ```
    pub const fn as_str(self) -> &'static str {
        match self {
            InferredType::Empty => "empty",
            InferredType::Integer => "integer",
            InferredType::Float => "float",
            InferredType::Boolean => "boolean",
            InferredType::Date => "date",
            InferredType::Timestamp => "timestamp",
            InferredType::String => "string",
            InferredType::Mixed => "mixed",
        }
    }
}

/// The type a histogram of cell classes supports.
///
/// Only typed cells vote: empties and sentinels are missing values.
/// Integers and floats together make `float`, dates and timestamps
/// `timestamp`; any other mixture is `mixed`; no votes at all is `empty`.
///
/// ```
/// use plumb_csv::{infer_column_type, CellClass, ClassHistogram, InferredType};
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
        (CellClass::Timestamp, InferredType::Timestamp),
        (CellClass::String, InferredType::String),
    ];
    // Every column of every file is judged here: the voters are held
    // in place, not in a vector of their own.
    let mut voters = [InferredType::Empty; 6];
    let mut n = 0;
    for &(c, t) in &kinds {
        if voted(c) {
            voters[n] = t;
            n += 1;
        }
    }
    match &voters[..n] {
        [] => InferredType::Empty,
        [one] => *one,
        [InferredType::Integer, InferredType::Float] => InferredType::Float,
        [InferredType::Date, InferredType::Timestamp] => InferredType::Timestamp,
        _ => InferredType::Mixed,
    }
}
