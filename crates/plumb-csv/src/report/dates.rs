//! The earliest and latest date or timestamp cells of a column, as
//! written. ISO 8601 and RFC 3339 cells are compared as instants
//! (`plumb_core::instant_of`: a date alone at midnight, no offset read
//! as UTC); dates written another way (`15/01/2024`, `2024/01/15`) as
//! their day, read both day-first and month-first until the column's
//! date format (known only at the end) says which reading is its own.
//! Here too: the forms a column's dates are written in, counted, and the
//! date format they make.

use serde::{Deserialize, Serialize};

use crate::cell::{DateForm, DateOrder};

use super::stats::date_readings;

/// Date forms: four orders by three separators.
pub(super) const DATE_SLOTS: usize = 12;
const DATE_ORDERS: [DateOrder; 4] = [
    DateOrder::Ymd,
    DateOrder::Dmy,
    DateOrder::Mdy,
    DateOrder::Ambiguous,
];
const DATE_SEPARATORS: [u8; 3] = [b'-', b'/', b'.'];

/// The counter of a date form.
#[inline]
pub(super) fn date_slot(form: DateForm) -> usize {
    let order = match form.order {
        DateOrder::Ymd => 0,
        DateOrder::Dmy => 1,
        DateOrder::Mdy => 2,
        DateOrder::Ambiguous => 3,
    };
    let sep = match form.separator {
        b'/' => 1,
        b'.' => 2,
        _ => 0,
    };
    order * DATE_SEPARATORS.len() + sep
}

/// The date format of a column's date cells counted by form, in words.
pub(super) fn date_format(dates: &[u64; DATE_SLOTS]) -> Option<String> {
    let mut orders = [0u64; DATE_ORDERS.len()];
    let mut seps = [0u64; DATE_SEPARATORS.len()];
    for (slot, &n) in dates.iter().enumerate() {
        orders[slot / DATE_SEPARATORS.len()] += n;
        seps[slot % DATE_SEPARATORS.len()] += n;
    }
    let (sep_at, &most) = seps.iter().enumerate().max_by_key(|&(_, n)| *n)?;
    if most == 0 {
        return None;
    }
    let sep = char::from(DATE_SEPARATORS[sep_at]);
    let has = |o: DateOrder| orders[DATE_ORDERS.iter().position(|&x| x == o).unwrap_or(0)] > 0;
    let dmy = format!("DD{sep}MM{sep}YYYY");
    let mdy = format!("MM{sep}DD{sep}YYYY");
    Some(
        match (
            has(DateOrder::Ymd),
            has(DateOrder::Dmy),
            has(DateOrder::Mdy),
        ) {
            (true, false, false) if !has(DateOrder::Ambiguous) => format!("YYYY{sep}MM{sep}DD"),
            (true, _, _) => "mixed: year-first and day or month first".to_owned(),
            (false, true, true) => format!("mixed: {dmy} and {mdy}"),
            (false, true, false) => dmy,
            (false, false, true) => mdy,
            (false, false, false) => format!("ambiguous: {dmy} or {mdy}"),
        },
    )
}

/// A cell's place in time and its text as written.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct DateEnd {
    /// As text: an instant may be past what a JSON number holds exactly.
    #[serde(with = "wide")]
    at: i128,
    text: String,
}

/// An `i128` as its decimal text.
mod wide {
    use serde::{de::Error, Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(v: &i128, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(v)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<i128, D::Error> {
        String::deserialize(d)?.parse().map_err(D::Error::custom)
    }
}

/// The earliest and the latest cells of one reading; the first of
/// equal ones. It travels as its two ends (a scan's part read in
/// another process), which must be in order; the keys beside them are
/// made again.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(
    try_from = "Option<Box<(DateEnd, DateEnd)>>",
    into = "Option<Box<(DateEnd, DateEnd)>>"
)]
struct Ends(Option<Box<(DateEnd, DateEnd)>>, Option<(u64, u64, usize)>);

impl From<Ends> for Option<Box<(DateEnd, DateEnd)>> {
    fn from(e: Ends) -> Self {
        e.0
    }
}

impl TryFrom<Option<Box<(DateEnd, DateEnd)>>> for Ends {
    type Error = &'static str;

    fn try_from(ends: Option<Box<(DateEnd, DateEnd)>>) -> Result<Ends, &'static str> {
        if ends.as_ref().is_some_and(|e| e.0.at > e.1.at) {
            return Err("date ends out of order");
        }
        let mut e = Ends(ends, None);
        e.keyed();
        Ok(e)
    }
}

impl Ends {
    fn add(&mut self, at: i128, text: impl Fn() -> String) {
        let end = || DateEnd { at, text: text() };
        match &mut self.0 {
            None => self.0 = Some(Box::new((end(), end()))),
            Some(ends) => {
                if at < ends.0.at {
                    ends.0 = end();
                } else if at > ends.1.at {
                    ends.1 = end();
                } else {
                    return;
                }
            }
        }
        self.keyed();
    }

    /// Keeps the ends' plain keys (see [`plain_key`]) beside them, when
    /// both are of one plain form.
    fn keyed(&mut self) {
        self.1 = self.0.as_ref().and_then(|e| {
            let (lo, n) = plain_key(e.0.text.as_bytes())?;
            let (hi, m) = plain_key(e.1.text.as_bytes())?;
            (n == m).then_some((lo, hi, n))
        });
    }

    /// Takes in a later part's ends: one replaces only when strictly
    /// beyond, so the first of equal ends stays, as on one thread.
    fn absorb(&mut self, later: Ends) {
        match (&mut self.0, later.0) {
            (_, None) => {}
            (mine @ None, theirs) => *mine = theirs,
            (Some(mine), Some(theirs)) => {
                let (lo, hi) = *theirs;
                if lo.at < mine.0.at {
                    mine.0 = lo;
                }
                if hi.at > mine.1.at {
                    mine.1 = hi;
                }
            }
        }
        self.keyed();
    }

    /// Whether `cell` is a valid `YYYY-MM-DD` date, or a
    /// `YYYY-MM-DDTHH:MM:SSZ` timestamp, between two ends of the same
    /// form (neither replaced by it: an equal end stays), told from its
    /// digits alone: in one such form their order is the order of time.
    /// Most cells of a date or timestamp column are such, and need no
    /// instant.
    fn holds_plain(&self, cell: &[u8]) -> bool {
        let Some((lo, hi, form)) = self.1 else {
            return false;
        };
        let Some((key, len)) = plain_key(cell) else {
            return false;
        };
        if len != form || key < lo || key > hi {
            return false;
        }
        let two = |at: usize| (cell[at] - b'0') * 10 + (cell[at + 1] - b'0');
        // Past the 28th a month's length (and a leap year) decides, and
        // a 60th second is a leap second: the instant's reading does.
        (1..=12).contains(&two(5))
            && (1..=28).contains(&two(8))
            && (len == 10 || (two(11) <= 23 && two(14) <= 59 && two(17) <= 59))
    }

    fn texts(&self) -> Option<(&str, &str)> {
        self.0
            .as_ref()
            .map(|e| (e.0.text.as_str(), e.1.text.as_str()))
    }
}

/// `YYYY-MM-DD` or `YYYY-MM-DDTHH:MM:SSZ` as one number (its digits,
/// four bits each), with the text's length: within one of these forms
/// the number's order is time's. None for any other text.
fn plain_key(text: &[u8]) -> Option<(u64, usize)> {
    let key = match *text {
        [y0, y1, y2, y3, b'-', m0, m1, b'-', d0, d1] => bcd(&[y0, y1, y2, y3, m0, m1, d0, d1])?,
        [y0, y1, y2, y3, b'-', m0, m1, b'-', d0, d1, b'T', h0, h1, b':', n0, n1, b':', s0, s1, b'Z'] => {
            bcd(&[y0, y1, y2, y3, m0, m1, d0, d1, h0, h1, n0, n1, s0, s1])?
        }
        _ => return None,
    };
    Some((key, text.len()))
}

/// ASCII digits as one number of four bits a digit; None if a byte is
/// not a digit.
fn bcd(bytes: &[u8]) -> Option<u64> {
    let mut key = 0u64;
    let mut bad = 0u8;
    for b in bytes {
        let d = b.wrapping_sub(b'0');
        bad |= u8::from(d > 9);
        key = key << 4 | u64::from(d & 0x0f);
    }
    (bad == 0).then_some(key)
}

/// The ends of a column's dates and timestamps, and how many of its
/// date cells read neither as an instant nor as a date of three
/// numbers: while any do, the column has no date range (a range of
/// some of them would not be the column's).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct DateRange {
    /// ISO dates and timestamps, by instant.
    instants: Ends,
    /// Other dates by their day (`yyyymmdd`), read day-first and
    /// month-first; year-first ones count in both.
    written: [Ends; 2],
    /// How many cells `written` holds.
    written_cells: u64,
    unranged: u64,
}

impl DateRange {
    /// Folds in a date or timestamp cell, its order as the cell scan
    /// read it (for a date), its text kept to `cap` bytes.
    pub(super) fn add(&mut self, cell: &[u8], order: Option<DateOrder>, cap: usize) {
        let text = || {
            plumb_core::cap_text(&String::from_utf8_lossy(cell), cap)
                .0
                .to_owned()
        };
        if self.instants.holds_plain(cell) {
            return;
        }
        if let Some(at) = plumb_core::instant_of(cell) {
            self.instants.add(at, text);
            return;
        }
        let Some(readings) = order.and_then(|o| date_readings(cell, o)) else {
            self.unranged += 1;
            return;
        };
        for (ends, day) in self.written.iter_mut().zip(readings) {
            if let Some(day) = day {
                ends.add(i128::from(day), text);
            }
        }
        self.written_cells += 1;
    }

    /// Whether the kept texts fit `cap` bytes each and no count passes
    /// `cells` (a range read back is a claim).
    pub(super) fn fits(&self, cap: usize, cells: u64) -> bool {
        let texts_fit = |e: &Ends| {
            e.0.as_ref()
                .is_none_or(|e| e.0.text.len() <= cap && e.1.text.len() <= cap)
        };
        texts_fit(&self.instants)
            && self.written.iter().all(texts_fit)
            && self.written_cells <= cells
            && self.unranged <= cells
    }

    /// Takes in a later part's range.
    pub(super) fn absorb(&mut self, later: DateRange) {
        self.unranged += later.unranged;
        self.written_cells += later.written_cells;
        self.instants.absorb(later.instants);
        for (mine, theirs) in self.written.iter_mut().zip(later.written) {
            mine.absorb(theirs);
        }
    }

    /// The earliest and latest cells as written, when every date cell
    /// read one way: all as instants, or all as dates of the column's
    /// `date_format` (`DD/MM/YYYY`, `MM/DD/YYYY`, `YYYY/MM/DD`); none for
    /// a column of ambiguous or mixed forms.
    pub(super) fn ends(&self, date_format: Option<&str>) -> Option<(&str, &str)> {
        if self.unranged > 0 {
            return None;
        }
        if self.written_cells == 0 {
            return self.instants.texts();
        }
        if self.instants.0.is_some() {
            return None;
        }
        let slot = match date_format? {
            f if f.starts_with("YYYY") || f.starts_with("DD") => 0,
            f if f.starts_with("MM") => 1,
            _ => return None,
        };
        self.written[slot].texts()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cell::scan_cell;

    fn range(cells: &[&str], format: Option<&str>) -> Option<(String, String)> {
        let mut r = DateRange::default();
        for c in cells {
            let order = scan_cell(c.as_bytes()).date.map(|f| f.order);
            r.add(c.as_bytes(), order, 64);
        }
        r.ends(format).map(|(a, b)| (a.to_owned(), b.to_owned()))
    }

    #[test]
    fn each_date_form_has_the_range_its_format_reads() {
        let pair = |a: &str, b: &str| Some((a.to_owned(), b.to_owned()));
        let dmy = ["15/01/2024", "3/2/2023", "28/12/2023"];
        assert_eq!(
            range(&dmy, Some("DD/MM/YYYY")),
            pair("3/2/2023", "15/01/2024")
        );
        let mdy = ["01/15/2024", "2/3/2023", "12/28/2023"];
        assert_eq!(
            range(&mdy, Some("MM/DD/YYYY")),
            pair("2/3/2023", "01/15/2024")
        );
        let ymd = ["2024/01/15", "2023/02/03"];
        assert_eq!(
            range(&ymd, Some("YYYY/MM/DD")),
            pair("2023/02/03", "2024/01/15")
        );
        let iso = ["2024-01-15T10:00:00Z", "2024-01-15"];
        assert_eq!(
            range(&iso, None),
            pair("2024-01-15", "2024-01-15T10:00:00Z")
        );
        // Which of 03/04 and 04/03 is earlier depends on the reading.
        let ambiguous = ["03/04/2024", "04/03/2024"];
        assert_eq!(
            range(&ambiguous, Some("ambiguous: DD/MM/YYYY or MM/DD/YYYY")),
            None
        );
        assert_eq!(
            range(&ambiguous, Some("DD/MM/YYYY")),
            pair("04/03/2024", "03/04/2024")
        );
        // ISO beside another form, or a cell read neither way: no range.
        assert_eq!(
            range(&["2024-01-15", "15/01/2024"], Some("DD/MM/YYYY")),
            None
        );
        assert_eq!(
            range(&["15/01/2024", "not a date"], Some("DD/MM/YYYY")),
            None
        );
    }

    /// The reading by bytes agrees with the reading as instants on every
    /// date cell between two ends, valid or not.
    #[test]
    fn dates_told_by_their_bytes_agree_with_their_instants() {
        let mut ends = Ends::default();
        ends.add(plumb_core::instant_of(b"2001-03-04").unwrap(), || {
            "2001-03-04".to_owned()
        });
        ends.add(plumb_core::instant_of(b"2030-11-20").unwrap(), || {
            "2030-11-20".to_owned()
        });
        let (lo, hi) = (
            plumb_core::instant_of(b"2001-03-04").unwrap(),
            plumb_core::instant_of(b"2030-11-20").unwrap(),
        );
        let mut checked = 0;
        for year in [1999, 2000, 2001, 2004, 2023, 2030, 2031] {
            for month in 0..=13 {
                for day in 0..=32 {
                    let cell = format!("{year:04}-{month:02}-{day:02}");
                    if ends.holds_plain(cell.as_bytes()) {
                        let at = plumb_core::instant_of(cell.as_bytes());
                        assert!(at.is_some_and(|at| lo <= at && at <= hi), "{cell}");
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 1000, "{checked}");
        let mut stamps = Ends::default();
        for t in ["2010-01-01T00:00:00Z", "2020-06-30T23:59:59Z"] {
            stamps.add(plumb_core::instant_of(t.as_bytes()).unwrap(), || {
                t.to_owned()
            });
        }
        for cell in [
            "2015-02-28T23:59:59Z",
            "2015-02-29T10:00:00Z",
            "2015-03-01T24:00:00Z",
            "2015-03-01T10:60:00Z",
            "2015-03-01T10:00:60Z",
            "2015-03-01T10:00:00+01",
            "2015-03-01 10:00:00Z",
            "2009-12-31T23:59:59Z",
        ] {
            let by_bytes = stamps.holds_plain(cell.as_bytes());
            let at = plumb_core::instant_of(cell.as_bytes());
            if by_bytes {
                assert!(at.is_some(), "{cell}");
            }
        }
        assert!(stamps.holds_plain(b"2015-02-28T23:59:59Z"));
        assert!(!stamps.holds_plain(b"2009-12-31T23:59:59Z"));
        assert!(!ends.holds_plain(b"2024-02-30"));
        assert!(!ends.holds_plain(b"2024-1-015"));
        assert!(!ends.holds_plain(b"2000-01-01"));
    }

    #[test]
    fn parts_merged_in_order_give_the_whole_range() {
        let cells = [
            "15/01/2024",
            "15/01/2024",
            "3/2/2023",
            "28/12/2023",
            "03/02/2023",
        ];
        let whole = range(&cells, Some("DD/MM/YYYY"));
        for cut in 0..=cells.len() {
            let mut first = DateRange::default();
            let mut second = DateRange::default();
            for (i, c) in cells.iter().enumerate() {
                let order = scan_cell(c.as_bytes()).date.map(|f| f.order);
                let part = if i < cut { &mut first } else { &mut second };
                part.add(c.as_bytes(), order, 64);
            }
            first.absorb(second);
            let merged = first
                .ends(Some("DD/MM/YYYY"))
                .map(|(a, b)| (a.to_owned(), b.to_owned()));
            assert_eq!(merged, whole, "cut at {cut}");
        }
        assert_eq!(
            whole,
            Some(("3/2/2023".to_owned(), "15/01/2024".to_owned()))
        );
    }
}
