//! The earliest and latest date or timestamp cells of a column, as
//! written, compared as instants (`plumb_core::instant_of`: ISO 8601 and
//! RFC 3339, a date alone at midnight, no offset read as UTC).

/// A date or timestamp cell's instant and its text as written.
#[derive(Clone, Debug)]
struct DateEnd {
    at: i128,
    text: String,
}

/// The ends of a column's dates and timestamps, and how many of its
/// date cells do not read as an instant (`31/12/2024`): while any do,
/// the column has no date range (a range of some of them would not be
/// the column's).
#[derive(Clone, Debug, Default)]
pub(super) struct DateRange {
    /// The earliest and the latest; the first of equal ones.
    ends: Option<Box<(DateEnd, DateEnd)>>,
    unranged: u64,
}

impl DateRange {
    /// Folds in a date or timestamp cell, its text kept to `cap` bytes.
    pub(super) fn add(&mut self, cell: &[u8], cap: usize) {
        let Some(at) = plumb_core::instant_of(cell) else {
            self.unranged += 1;
            return;
        };
        let end = || DateEnd {
            at,
            text: plumb_core::cap_text(&String::from_utf8_lossy(cell), cap)
                .0
                .to_owned(),
        };
        match &mut self.ends {
            None => self.ends = Some(Box::new((end(), end()))),
            Some(ends) => {
                if at < ends.0.at {
                    ends.0 = end();
                } else if at > ends.1.at {
                    ends.1 = end();
                }
            }
        }
    }

    /// Takes in a later part's range. An end of the later part replaces
    /// one only when strictly beyond it: the first of equal ends stays,
    /// as on one thread.
    pub(super) fn absorb(&mut self, later: DateRange) {
        self.unranged += later.unranged;
        match (&mut self.ends, later.ends) {
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

    /// The earliest and latest cells as written, when every date cell
    /// read as an instant.
    pub(super) fn ends(&self) -> Option<(&str, &str)> {
        let ends = self.ends.as_ref().filter(|_| self.unranged == 0)?;
        Some((&ends.0.text, &ends.1.text))
    }
}
