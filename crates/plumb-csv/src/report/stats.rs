//! A column's statistics for inspect's `stats` option: plumb-core's
//! [`ValueStats`] fed from the cells as the column report reads them,
//! and the date range, which needs the column's date order (known only
//! at the end) to read `03/04/2024`.
//!
//! Reference (for dates read by place): splitting the date at its
//! separators. Held equal by: `stats.rs::tests::date_parts_by_place_equal_t
//! he_split_of_every_scanned_date`.

use plumb_stats::{ColumnSketch, DateSketch, DaySketch, NumberIn, StatsBudget, ValueStats};

use crate::cell::{digits, CellClass, CellScan, DateOrder};

use super::shape::{code_shaped, code_shaped_float};

/// One column's statistics.
#[derive(Clone, Debug)]
pub(crate) struct ColumnStats {
    values: ValueStats,
    /// The least and greatest date (as `yyyymmdd`), read day-first and
    /// read month-first; year-first dates count in both.
    dates: [Option<(u32, u32)>; 2],
    /// The days of its dates, for their quantiles: read day-first (with
    /// the year-first ones) and, made on the first date that reads
    /// month-first, month-first. (A column that holds month-first dates
    /// beside year-first or day-first ones has a mixed format, and no
    /// quantiles, so the month-first sketch never needs those.)
    days: [Option<Box<DaySketch>>; 2],
    /// Cells whose reading the whole column decides, held apart until
    /// it has (made on the first).
    held: Option<Box<Held>>,
    index: usize,
}

/// The cells a column reads only once it has seen them all (see
/// `ColumnAcc::settle`), each read both ways so the statistics can take
/// the reading inspect settles on: exponent-shaped floats (`608E08`),
/// numbers beside other floats but codes beside integers or text; and
/// missing-value tokens shaped like codes (`NA`), nulls unless the
/// column's text is such codes.
#[derive(Clone, Debug)]
struct Held {
    floats_as_numbers: ValueStats,
    floats_as_text: ValueStats,
    tokens_as_text: ValueStats,
}

/// How a column settled the cells [`ColumnStats`] held apart.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Settled {
    /// Exponent-shaped floats are codes (text).
    pub floats_are_text: bool,
    /// Code-shaped missing-value tokens are values (text).
    pub tokens_are_text: bool,
}

/// The three numbers of a date in the order written, read at the
/// places the cell scan found them (`YYYY-MM-DD`; else one or two
/// digits, one or two digits, four digits), or None if they are not
/// there. Read by place, not by a loop over the bytes that looks for
/// separators: that loop's branches are taken at random from cell to
/// cell, and a date column reads a date at every cell. The separators
/// were checked by the scan.
#[inline]
pub(super) fn date_parts(t: &[u8], order: DateOrder) -> Option<[u32; 3]> {
    if order == DateOrder::Ymd {
        return Some([digits(t, 0, 4)?, digits(t, 5, 2)?, digits(t, 8, 2)?]);
    }
    let width = |at: usize| {
        Some(if t.get(at + 1)?.is_ascii_digit() {
            2
        } else {
            1
        })
    };
    let first = width(0)?;
    let second = width(first + 1)?;
    Some([
        digits(t, 0, first)?,
        digits(t, first + 1, second)?,
        digits(t, first + second + 2, 4)?,
    ])
}

/// A date's day (`yyyymmdd`) read day-first and read month-first, as
/// far as its order allows each (a year-first date reads the same both
/// ways); None when its numbers are not where the scan found them.
pub(super) fn date_readings(text: &[u8], order: DateOrder) -> Option<[Option<u32>; 2]> {
    let [a, b, c] = date_parts(text, order)?;
    let key = |y: u32, m: u32, d: u32| Some(y * 10_000 + m * 100 + d);
    Some(match order {
        DateOrder::Ymd => [key(a, b, c), key(a, b, c)],
        DateOrder::Dmy => [key(c, b, a), None],
        DateOrder::Mdy => [None, key(c, a, b)],
        DateOrder::Ambiguous => [key(c, b, a), key(c, a, b)],
    })
}

impl ColumnStats {
    pub(crate) fn new(index: usize) -> ColumnStats {
        ColumnStats {
            values: ValueStats::new(StatsBudget::for_index(index)),
            dates: [None; 2],
            days: [None, None],
            held: None,
            index,
        }
    }

    fn held(&mut self) -> &mut Held {
        let index = self.index;
        self.held.get_or_insert_with(|| {
            let new = || ValueStats::new(StatsBudget::for_index(index));
            Box::new(Held {
                floats_as_numbers: new(),
                floats_as_text: new(),
                tokens_as_text: new(),
            })
        })
    }

    /// A number cell.
    #[inline]
    pub(crate) fn number(&mut self, cell: &[u8], number: NumberIn) {
        self.values.add_number_value(cell, number);
    }

    /// Any cell through the general path, `chars` characters long.
    pub(crate) fn cell(&mut self, cell: &[u8], scan: &CellScan<'_>, chars: u64) {
        match scan.class {
            CellClass::Sentinel if code_shaped(scan.trimmed) => {
                self.held().tokens_as_text.add_text_value(cell, chars);
            }
            CellClass::Empty | CellClass::Sentinel => {}
            CellClass::Float if code_shaped_float(scan.trimmed) => {
                let held = self.held();
                match &scan.number {
                    Some(d) => held
                        .floats_as_numbers
                        .add_number_value(cell, NumberIn::of_scan(d, scan.trimmed)),
                    None => held.floats_as_numbers.add_value(cell),
                }
                held.floats_as_text.add_text_value(cell, chars);
            }
            CellClass::Integer | CellClass::Float => match &scan.number {
                Some(d) => self.number(cell, NumberIn::of_scan(d, scan.trimmed)),
                None => self.values.add_value(cell),
            },
            CellClass::Boolean => self.values.add_value(cell),
            CellClass::Date => {
                self.values.add_text_value(cell, chars);
                if let Some(form) = scan.date {
                    self.date(scan.trimmed, form.order);
                }
            }
            CellClass::Timestamp | CellClass::String => self.values.add_text_value(cell, chars),
        }
    }

    /// Takes in the same column's statistics from another part of the
    /// file: exact figures add up exactly, and each estimate stays within
    /// its stated error (see [`ValueStats::merge`]).
    pub(crate) fn merge(&mut self, other: &ColumnStats) {
        self.values.merge(&other.values);
        if let Some(theirs) = &other.held {
            let mine = self.held();
            mine.floats_as_numbers.merge(&theirs.floats_as_numbers);
            mine.floats_as_text.merge(&theirs.floats_as_text);
            mine.tokens_as_text.merge(&theirs.tokens_as_text);
        }
        for (mine, theirs) in self.dates.iter_mut().zip(other.dates) {
            *mine = match (*mine, theirs) {
                (Some((lo, hi)), Some((a, b))) => Some((lo.min(a), hi.max(b))),
                (m, t) => m.or(t),
            };
        }
        for (mine, theirs) in self.days.iter_mut().zip(&other.days) {
            match (mine.as_mut(), theirs) {
                (Some(m), Some(t)) => m.merge(t),
                (None, Some(t)) => *mine = Some(t.clone()),
                (_, None) => {}
            }
        }
    }

    /// A date cell, `text` as the cell scan read it in `order`.
    fn date(&mut self, text: &[u8], order: DateOrder) {
        let Some([day_first, month_first]) = date_readings(text, order) else {
            return;
        };
        for (slot, k) in self.dates.iter_mut().zip([day_first, month_first]) {
            if let Some(k) = k {
                *slot = Some(match *slot {
                    Some((lo, hi)) => (lo.min(k), hi.max(k)),
                    None => (k, k),
                });
            }
        }
        let month_first = month_first.filter(|_| order != DateOrder::Ymd);
        let index = self.index;
        for (days, k) in self.days.iter_mut().zip([day_first, month_first]) {
            if let Some(k) = k {
                days.get_or_insert_with(|| {
                    Box::new(DaySketch::new(&StatsBudget::for_index(index)))
                })
                .add(k);
            }
        }
    }

    /// The statistics settled, given the column's cells, nulls, settled
    /// date format (the dates are kept only when the format is one) and
    /// how it settled the cells held apart: what the report is made
    /// from, and what merges with the same column's in other files.
    pub(crate) fn settle(
        mut self,
        count: u64,
        nulls: u64,
        date_format: Option<&str>,
        settled: Settled,
    ) -> ColumnSketch {
        if let Some(held) = self.held.take() {
            let floats = if settled.floats_are_text {
                &held.floats_as_text
            } else {
                &held.floats_as_numbers
            };
            self.values.merge(floats);
            if settled.tokens_are_text {
                self.values.merge(&held.tokens_as_text);
            }
        }
        let slot = match date_format {
            Some(f) if f.starts_with("YYYY") || f.starts_with("DD") => Some(0),
            Some(f) if f.starts_with("MM") => Some(1),
            _ => None,
        };
        let dates = match (slot, date_format) {
            (Some(s), Some(format)) => self.dates[s].map(|(min, max)| DateSketch {
                format: format.to_owned(),
                min,
                max,
                days: self.days[s].take().map(|d| *d),
            }),
            _ => None,
        };
        ColumnSketch {
            values: self.values,
            count,
            nulls,
            dates,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cell::scan_cell;

    /// Every date the cell scan reads (each order, separator and width
    /// of day and month, and near misses) gives by place the numbers
    /// that splitting it at its separator gives.
    #[test]
    fn date_parts_by_place_equal_the_split_of_every_scanned_date() {
        let mut checked = 0;
        for sep in ["-", "/", "."] {
            for year in [1999, 2024] {
                for (x, y) in [(1, 2), (3, 12), (12, 31), (31, 12), (13, 1), (7, 30)] {
                    for pad in [false, true] {
                        let p = |n: u32| {
                            if pad {
                                format!("{n:02}")
                            } else {
                                n.to_string()
                            }
                        };
                        let texts = [
                            format!("{year}{sep}{:02}{sep}{:02}", x.min(12), y.min(28)),
                            format!("{}{sep}{}{sep}{year}", p(x), p(y)),
                            format!("{}{sep}{}{sep}{year}1", p(x), p(y)),
                            format!("{}{sep}{}{year}", p(x), p(y)),
                        ];
                        for text in &texts {
                            let scan = scan_cell(text.as_bytes());
                            let Some(form) = scan.date.filter(|_| scan.class == CellClass::Date)
                            else {
                                continue;
                            };
                            let split: Vec<u32> = text
                                .split(char::from(form.separator))
                                .map(|n| n.parse().expect("digits"))
                                .collect();
                            let got = date_parts(text.as_bytes(), form.order);
                            assert_eq!(got.map(Vec::from), Some(split), "{text}");
                            checked += 1;
                        }
                    }
                }
            }
        }
        assert!(checked > 100, "{checked} dates");
        // Not where a date has its numbers: none, never a panic.
        assert_eq!(date_parts(b"2024-1", DateOrder::Ymd), None);
        assert_eq!(date_parts(b"1/2/20", DateOrder::Dmy), None);
        assert_eq!(date_parts(b"", DateOrder::Mdy), None);
    }
}
