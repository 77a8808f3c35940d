//! The earliest and latest date or timestamp cells of a column, as
//! written. ISO 8601 and RFC 3339 cells are compared as instants
//! (`plumb_core::instant_of`: a date alone at midnight, no offset read
//! as UTC); dates written another way (`15/01/2024`, `2024/01/15`) as
//! their day, read both day-first and month-first until the column's
//! date format (known only at the end) says which reading is its own.

use crate::cell::DateOrder;

use super::stats::date_parts;

/// A cell's place in time and its text as written.
#[derive(Clone, Debug)]
struct DateEnd {
    at: i128,
    text: String,
}

/// The earliest and the latest cells of one reading; the first of
/// equal ones.
#[derive(Clone, Debug, Default)]
struct Ends(Option<Box<(DateEnd, DateEnd)>>);

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
                }
            }
        }
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
    }

    fn texts(&self) -> Option<(&str, &str)> {
        self.0
            .as_ref()
            .map(|e| (e.0.text.as_str(), e.1.text.as_str()))
    }
}

/// The ends of a column's dates and timestamps, and how many of its
/// date cells read neither as an instant nor as a date of three
/// numbers: while any do, the column has no date range (a range of
/// some of them would not be the column's).
#[derive(Clone, Debug, Default)]
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
        if let Some(at) = plumb_core::instant_of(cell) {
            self.instants.add(at, text);
            return;
        }
        let Some((order, [a, b, c])) = order.and_then(|o| Some((o, date_parts(cell, o)?))) else {
            self.unranged += 1;
            return;
        };
        let key = |y: u32, m: u32, d: u32| Some(i128::from(y * 10_000 + m * 100 + d));
        let (day_first, month_first) = match order {
            DateOrder::Ymd => (key(a, b, c), key(a, b, c)),
            DateOrder::Dmy => (key(c, b, a), None),
            DateOrder::Mdy => (None, key(c, a, b)),
            DateOrder::Ambiguous => (key(c, b, a), key(c, a, b)),
        };
        for (ends, at) in self.written.iter_mut().zip([day_first, month_first]) {
            if let Some(at) = at {
                ends.add(at, text);
            }
        }
        self.written_cells += 1;
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
