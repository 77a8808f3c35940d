//! A column's statistics for inspect's `stats` option: plumb-core's
//! [`ValueStats`] fed from the cells as the column report reads them,
//! and the date range, which needs the column's date order (known only
//! at the end) to read `03/04/2024`.

use plumb_core::{DateRange, NumberIn, StatsBudget, StatsReport, ValueStats};

use crate::cell::{CellClass, CellScan, DateOrder};

/// One column's statistics.
#[derive(Clone, Debug)]
pub(crate) struct ColumnStats {
    values: ValueStats,
    /// The least and greatest date (as `yyyymmdd`), read day-first and
    /// read month-first; year-first dates count in both.
    dates: [Option<(u32, u32)>; 2],
}

impl ColumnStats {
    pub(crate) fn new(index: usize) -> ColumnStats {
        ColumnStats {
            values: ValueStats::new(StatsBudget::for_index(index)),
            dates: [None; 2],
        }
    }

    /// A number cell.
    #[inline]
    pub(crate) fn number(&mut self, cell: &[u8], number: NumberIn) {
        self.values.add_number_value(cell, number);
    }

    /// Any cell through the general path, `chars` characters long.
    pub(crate) fn cell(&mut self, cell: &[u8], scan: &CellScan<'_>, chars: u64) {
        match scan.class {
            CellClass::Empty | CellClass::Sentinel => {}
            CellClass::Integer | CellClass::Float => match &scan.number {
                Some(d) => self.number(cell, NumberIn::of_scan(d, scan.trimmed)),
                None => self.values.add_value(cell),
            },
            CellClass::Boolean => self.values.add_value(cell),
            CellClass::Date => {
                self.values.add_text_value(cell, chars);
                if let Some(form) = scan.date {
                    self.date(scan.trimmed, form.separator, form.order);
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
        for (mine, theirs) in self.dates.iter_mut().zip(other.dates) {
            *mine = match (*mine, theirs) {
                (Some((lo, hi)), Some((a, b))) => Some((lo.min(a), hi.max(b))),
                (m, t) => m.or(t),
            };
        }
    }

    fn date(&mut self, text: &[u8], separator: u8, order: DateOrder) {
        // One pass over the bytes (a date column reads one per cell):
        // three runs of digits between two separators, else no date; a
        // part past five digits is no date either (and keeps the key
        // below `u32::MAX`). The parts live in locals, not an array
        // indexed by the part: through the stack, each digit waited on
        // the last one's store (a tenth of a date column's statistics
        // time, measured).
        let (mut a, mut b, mut part, mut at) = (0u32, 0u32, 0u32, 0u8);
        for &byte in text {
            if byte == separator {
                match at {
                    0 => a = part,
                    1 => b = part,
                    _ => return,
                }
                at += 1;
                part = 0;
            } else if byte.is_ascii_digit() && part < 10_000 {
                part = part * 10 + u32::from(byte - b'0');
            } else {
                return;
            }
        }
        if at != 2 {
            return;
        }
        let c = part;
        let key = |y: u32, m: u32, d: u32| y * 10_000 + m * 100 + d;
        let (day_first, month_first) = match order {
            DateOrder::Ymd => (Some(key(a, b, c)), Some(key(a, b, c))),
            DateOrder::Dmy => (Some(key(c, b, a)), None),
            DateOrder::Mdy => (None, Some(key(c, a, b))),
            DateOrder::Ambiguous => (Some(key(c, b, a)), Some(key(c, a, b))),
        };
        for (slot, k) in self.dates.iter_mut().zip([day_first, month_first]) {
            if let Some(k) = k {
                *slot = Some(match *slot {
                    Some((lo, hi)) => (lo.min(k), hi.max(k)),
                    None => (k, k),
                });
            }
        }
    }

    /// The report, given the column's cells, nulls and settled date
    /// format (the date range is given only when the format is one).
    pub(crate) fn report(&self, count: u64, nulls: u64, date_format: Option<&str>) -> StatsReport {
        let mut r = self.values.report(count, nulls);
        let slot = match date_format {
            Some(f) if f.starts_with("YYYY") || f.starts_with("DD") => Some(0),
            Some(f) if f.starts_with("MM") => Some(1),
            _ => None,
        };
        if let Some((lo, hi)) = slot.and_then(|s| self.dates[s]) {
            let iso = |k: u32| format!("{:04}-{:02}-{:02}", k / 10_000, k / 100 % 100, k % 100);
            r.dates = Some(DateRange {
                min: iso(lo),
                max: iso(hi),
            });
            r.accuracy.insert("dates", plumb_core::Accuracy::Exact);
        }
        r
    }
}
