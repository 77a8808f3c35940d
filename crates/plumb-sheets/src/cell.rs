//! A cell's value as plumb answers it: numbers exact, dates as ISO text
//! in the workbook's own date system, errors named, long text cut with
//! its length said.

use calamine::{Data, ExcelDateTime};
use serde_json::{json, Value};

use crate::book::Ref;

/// The most bytes of one cell's text an answer carries; a longer text is
/// a `$truncated` placeholder with its full length (`bytes`).
pub const SHEETS_CELL_TEXT_BYTES: usize = 4096;

/// A cell's value, owned.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Cell {
    Int(i64),
    Float(f64),
    Text(String),
    Bool(bool),
    /// A date, time or date-time, as ISO text.
    Date(String),
    /// A duration, as ISO 8601 text.
    Duration(String),
    Error(String),
    Empty,
}

/// The kinds of value a column holds, counted.
pub(crate) const KINDS: [&str; 8] = [
    "integer", "number", "text", "boolean", "date", "duration", "error", "empty",
];

impl Cell {
    pub(crate) fn of_ref(v: &Ref<'_>, is_1904: bool) -> Cell {
        match v {
            Ref::Int(i) => Cell::Int(*i),
            Ref::Float(f) => Cell::Float(*f),
            Ref::String(s) => Cell::Text(s.clone()),
            Ref::SharedString(s) => Cell::Text((*s).to_owned()),
            Ref::Bool(b) => Cell::Bool(*b),
            Ref::DateTime(d) => date_cell(d, is_1904),
            Ref::DateTimeIso(s) => Cell::Date(s.clone()),
            Ref::DurationIso(s) => Cell::Duration(s.clone()),
            Ref::Error(e) => Cell::Error(e.to_string()),
            Ref::Empty => Cell::Empty,
        }
    }

    pub(crate) fn of_data(v: &Data, is_1904: bool) -> Cell {
        match v {
            Data::Int(i) => Cell::Int(*i),
            Data::Float(f) => Cell::Float(*f),
            Data::String(s) => Cell::Text(s.clone()),
            Data::Bool(b) => Cell::Bool(*b),
            Data::DateTime(d) => date_cell(d, is_1904),
            Data::DateTimeIso(s) => Cell::Date(s.clone()),
            Data::DurationIso(s) => Cell::Duration(s.clone()),
            Data::Error(e) => Cell::Error(e.to_string()),
            Data::Empty => Cell::Empty,
        }
    }

    /// The index of the cell's kind in [`KINDS`].
    pub(crate) fn kind(&self) -> usize {
        match self {
            Cell::Int(_) => 0,
            Cell::Float(f) if f.fract() == 0.0 && f.abs() < 9_007_199_254_740_992.0 => 0,
            Cell::Float(_) => 1,
            Cell::Text(s) if s.is_empty() => 7,
            Cell::Text(_) => 2,
            Cell::Bool(_) => 3,
            Cell::Date(_) => 4,
            Cell::Duration(_) => 5,
            Cell::Error(_) => 6,
            Cell::Empty => 7,
        }
    }

    /// Whether the cell holds nothing (no value, or empty text).
    pub(crate) fn is_empty(&self) -> bool {
        self.kind() == 7
    }

    /// The cell as JSON, and whether it was cut.
    pub(crate) fn to_json(&self) -> (Value, bool) {
        match self {
            Cell::Int(i) => (plumb_core::integer_json(&i.to_string()), false),
            Cell::Float(f) => (float_json(*f), false),
            Cell::Text(s) | Cell::Date(s) | Cell::Duration(s) => text_json(s),
            Cell::Bool(b) => (Value::Bool(*b), false),
            Cell::Error(e) => (json!({ "$error": e }), false),
            Cell::Empty => (Value::Null, false),
        }
    }

    /// The text a header cell gives its column.
    pub(crate) fn header_text(&self) -> Option<&str> {
        match self {
            Cell::Text(s) if !s.trim().is_empty() => Some(s),
            _ => None,
        }
    }
}

fn float_json(f: f64) -> Value {
    if f.is_finite() {
        if f.fract() == 0.0 && f.abs() < 9_007_199_254_740_992.0 {
            // An integral double is an integer: 3, not 3.0.
            #[allow(clippy::cast_possible_truncation)]
            return Value::from(f as i64);
        }
        serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)
    } else {
        json!({ "$float": f.to_string() })
    }
}

fn text_json(s: &str) -> (Value, bool) {
    if s.len() <= SHEETS_CELL_TEXT_BYTES {
        return (Value::from(s), false);
    }
    let mut cut = SHEETS_CELL_TEXT_BYTES;
    while !s.is_char_boundary(cut) {
        cut -= 1;
    }
    (json!({ "$truncated": &s[..cut], "bytes": s.len() }), true)
}

/// A serial date as ISO text: the date alone when it has no time of day,
/// else date and time (milliseconds when there are any); a duration as
/// ISO 8601 (`PT36H0M0S`). The workbook's date system (1900 or 1904)
/// decides the epoch; 1900-02-29, the day Excel's 1900 system counts and
/// the calendar does not, is shown as Excel shows it.
fn date_cell(d: &ExcelDateTime, is_1904: bool) -> Cell {
    let serial = d.as_f64();
    if d.is_duration() {
        return Cell::Duration(duration_text(serial));
    }
    if !serial.is_finite() || !(0.0..2_958_466.0).contains(&serial) {
        // Outside Excel's calendar: the number, as Excel shows ####.
        return Cell::Float(serial);
    }
    let fixed = ExcelDateTime::new(serial, calamine::ExcelDateTimeType::DateTime, is_1904);
    let (y, m, day, h, min, s, ms) = fixed.to_ymd_hms_milli();
    Cell::Date(if serial < 1.0 {
        // A time of day with no date (in the 1904 system too, as
        // openpyxl and pandas read it).
        time_text(h, min, s, ms)
    } else if h == 0 && min == 0 && s == 0 && ms == 0 {
        format!("{y:04}-{m:02}-{day:02}")
    } else {
        format!("{y:04}-{m:02}-{day:02}T{}", time_text(h, min, s, ms))
    })
}

fn time_text(h: u8, min: u8, s: u8, ms: u16) -> String {
    if ms == 0 {
        format!("{h:02}:{min:02}:{s:02}")
    } else {
        format!("{h:02}:{min:02}:{s:02}.{ms:03}")
    }
}

fn duration_text(days: f64) -> String {
    if !days.is_finite() {
        return format!("{days}");
    }
    #[allow(clippy::cast_possible_truncation)]
    let total_ms = (days.abs() * 86_400_000.0).round() as u64;
    let sign = if days < 0.0 { "-" } else { "" };
    let (h, rest) = (total_ms / 3_600_000, total_ms % 3_600_000);
    let (m, rest) = (rest / 60_000, rest % 60_000);
    let (s, ms) = (rest / 1000, rest % 1000);
    if ms == 0 {
        format!("{sign}PT{h}H{m}M{s}S")
    } else {
        format!("{sign}PT{h}H{m}M{s}.{ms:03}S")
    }
}

/// A 0-based column index as Excel's letters (0 is `A`, 26 is `AA`).
pub fn column_letters(mut col: u32) -> String {
    let mut out = Vec::new();
    loop {
        #[allow(clippy::cast_possible_truncation)]
        out.push(b'A' + (col % 26) as u8);
        if col < 26 {
            break;
        }
        col = col / 26 - 1;
    }
    out.reverse();
    String::from_utf8(out).unwrap_or_default()
}

/// Excel's letters as a 0-based column index (`A` is 0); `None` for
/// anything else or past `XFD`, Excel's last column.
pub(crate) fn letters_column(s: &str) -> Option<u32> {
    if s.is_empty() || s.len() > 3 || !s.bytes().all(|b| b.is_ascii_uppercase()) {
        return None;
    }
    let mut n: u32 = 0;
    for b in s.bytes() {
        n = n * 26 + u32::from(b - b'A') + 1;
    }
    (n <= 16_384).then(|| n - 1)
}

/// A cell's reference, `B7` for row 6, column 1 (0-based).
pub(crate) fn cell_ref(row: u32, col: u32) -> String {
    format!("{}{}", column_letters(col), u64::from(row) + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn letters_round_trip() {
        for (n, s) in [
            (0, "A"),
            (25, "Z"),
            (26, "AA"),
            (701, "ZZ"),
            (702, "AAA"),
            (16_383, "XFD"),
        ] {
            assert_eq!(column_letters(n), s);
            assert_eq!(letters_column(s), Some(n));
        }
        for n in 0..20_000 {
            let s = column_letters(n);
            assert_eq!(letters_column(&s), (n < 16_384).then_some(n), "{s}");
        }
        assert_eq!(letters_column("XFE"), None);
        assert_eq!(letters_column("a"), None);
    }

    #[test]
    fn dates_in_both_systems() {
        let d = |v: f64, is_1904: bool| {
            date_cell(
                &ExcelDateTime::new(v, calamine::ExcelDateTimeType::DateTime, is_1904),
                is_1904,
            )
        };
        // 2021-01-01 is serial 44197 in the 1900 system, 42735 in 1904.
        assert_eq!(d(44197.0, false), Cell::Date("2021-01-01".into()));
        assert_eq!(d(42735.0, true), Cell::Date("2021-01-01".into()));
        assert_eq!(d(44197.5, false), Cell::Date("2021-01-01T12:00:00".into()));
        assert_eq!(d(0.25, false), Cell::Date("06:00:00".into()));
        assert_eq!(d(60.0, false), Cell::Date("1900-02-29".into()));
        assert_eq!(d(61.0, false), Cell::Date("1900-03-01".into()));
        assert_eq!(d(-1.0, false), Cell::Float(-1.0));
        let dur = date_cell(
            &ExcelDateTime::new(1.5, calamine::ExcelDateTimeType::TimeDelta, false),
            false,
        );
        assert_eq!(dur, Cell::Duration("PT36H0M0S".into()));
    }

    #[test]
    fn numbers_and_text() {
        assert_eq!(Cell::Float(3.0).to_json().0, json!(3));
        assert_eq!(Cell::Float(0.1).to_json().0, json!(0.1));
        assert_eq!(
            Cell::Int(9_007_199_254_740_993).to_json().0["$literal"],
            "9007199254740993"
        );
        let long = "é".repeat(3000);
        let (v, cut) = Cell::Text(long.clone()).to_json();
        assert!(cut);
        assert_eq!(v["bytes"], long.len());
        assert!(v["$truncated"].as_str().unwrap().len() <= SHEETS_CELL_TEXT_BYTES);
        assert_eq!(
            Cell::Error("#DIV/0!".into()).to_json().0,
            json!({"$error": "#DIV/0!"})
        );
    }
}
