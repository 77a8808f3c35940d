//! One pass over a sheet's cells: its used range, its top row, and per
//! column the kinds of value it holds; the header is decided from these.

use std::collections::BTreeMap;
use std::ops::ControlFlow;

use serde::Serialize;

use plumb_core::{Refusal, RefusalReason};

use crate::book::{Book, Kind};
use crate::cell::{column_letters, letters_column, Cell, KINDS};

/// Columns a sheet's facts track, from `A`: Excel's own limit (`XFD`).
/// A cell further right (only a malformed file has one) is counted in
/// `cells_beyond_columns` and left out of the column facts.
pub const SHEETS_TRACK_COLUMNS: u32 = 16_384;

/// What one pass over a sheet found.
#[derive(Debug, Default)]
pub(crate) struct Facts {
    /// The used range (cells that hold a value): first and last row and
    /// column, 0-based; `None` for a sheet with no value.
    pub(crate) range: Option<(u32, u32, u32, u32)>,
    /// Cells holding a value.
    pub(crate) cells: u64,
    /// Cells in columns past [`SHEETS_TRACK_COLUMNS`].
    pub(crate) beyond: u64,
    /// The topmost row seen and its cells.
    top_row: u32,
    top: BTreeMap<u32, Cell>,
    /// Per tracked column, values of each kind (by [`KINDS`] index).
    kinds: Vec<[u64; 8]>,
}

impl Facts {
    pub(crate) fn scan(book: &mut Book, kind: Kind, sheet: &str) -> Result<Facts, Refusal> {
        let mut facts = Facts::default();
        book.cells(kind, sheet, |row, col, cell| {
            facts.add(row, col, cell);
            ControlFlow::Continue(())
        })?;
        Ok(facts)
    }

    fn add(&mut self, row: u32, col: u32, cell: Cell) {
        if cell.is_empty() {
            return;
        }
        self.cells += 1;
        self.range = Some(match self.range {
            None => (row, row, col, col),
            Some((r0, r1, c0, c1)) => (r0.min(row), r1.max(row), c0.min(col), c1.max(col)),
        });
        if col >= SHEETS_TRACK_COLUMNS {
            self.beyond += 1;
            return;
        }
        let i = col as usize;
        if self.kinds.len() <= i {
            self.kinds.resize(i + 1, [0; 8]);
        }
        self.kinds[i][cell.kind()] += 1;
        if self.top.is_empty() || row < self.top_row {
            self.top.clear();
            self.top_row = row;
        }
        if row == self.top_row {
            self.top.insert(col, cell);
        }
    }

    /// Rows in the used range.
    pub(crate) fn rows(&self) -> u64 {
        self.range
            .map_or(0, |(r0, r1, _, _)| u64::from(r1) - u64::from(r0) + 1)
    }

    /// The tracked columns of the used range, first and last.
    pub(crate) fn columns(&self) -> Option<(u32, u32)> {
        let (_, _, c0, c1) = self.range?;
        (c0 < SHEETS_TRACK_COLUMNS).then(|| (c0, c1.min(SHEETS_TRACK_COLUMNS - 1)))
    }

    /// Whether the top row reads as a header: every column of the used
    /// range named by a non-blank text, no name twice, and rows below it.
    pub(crate) fn header_guess(&self) -> bool {
        let (Some((c0, c1)), Some((r0, r1, _, _))) = (self.columns(), self.range) else {
            return false;
        };
        if r1 == r0 || self.top_row != r0 {
            return false;
        }
        let mut seen = std::collections::HashSet::new();
        (c0..=c1).all(|c| {
            self.top
                .get(&c)
                .and_then(Cell::header_text)
                .is_some_and(|t| seen.insert(t.trim().to_owned()))
        })
    }

    /// The header chosen: the option's word, else the guess.
    pub(crate) fn header(&self, option: Option<&str>) -> bool {
        match option {
            Some("true") => self.range.is_some(),
            Some("false") => false,
            _ => self.header_guess(),
        }
    }

    /// The name each column answers to: its header text (trimmed), else
    /// its letters.
    pub(crate) fn names(&self, header: bool) -> Vec<(u32, String)> {
        let Some((c0, c1)) = self.columns() else {
            return Vec::new();
        };
        (c0..=c1)
            .map(|c| {
                let named = header
                    .then(|| self.top.get(&c).and_then(Cell::header_text))
                    .flatten();
                (
                    c,
                    named.map_or_else(|| column_letters(c), |t| t.trim().to_owned()),
                )
            })
            .collect()
    }

    /// The first data row (0-based sheet row) and how many data rows.
    pub(crate) fn body(&self, header: bool) -> (u32, u64) {
        match self.range {
            None => (0, 0),
            Some((r0, _, _, _)) => {
                let skip = u32::from(header);
                (
                    r0.saturating_add(skip),
                    self.rows().saturating_sub(u64::from(skip)),
                )
            }
        }
    }

    /// Column `c`'s facts, the header cell left out when there is one.
    pub(crate) fn column(&self, c: u32, name: String, header: bool) -> ColumnFacts {
        let mut counts = self.kinds.get(c as usize).copied().unwrap_or([0; 8]);
        if header {
            if let Some(cell) = self.top.get(&c) {
                let k = cell.kind();
                counts[k] = counts[k].saturating_sub(1);
            }
        }
        let (_, body_rows) = self.body(header);
        let filled: u64 = counts[..7].iter().sum();
        let present: Vec<usize> = (0..7).filter(|&k| counts[k] > 0).collect();
        let ty = match present.as_slice() {
            [] => "empty",
            [k] => KINDS[*k],
            [0, 1] => "number",
            _ => "mixed",
        };
        ColumnFacts {
            index: c,
            letter: column_letters(c),
            name,
            r#type: ty,
            kinds: present.iter().map(|&k| (KINDS[k], counts[k])).collect(),
            values: filled,
            empties: body_rows.saturating_sub(filled),
        }
    }
}

/// One column's facts.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct ColumnFacts {
    /// The column's 0-based index in the sheet (`A` is 0).
    pub index: u32,
    /// The column's letters.
    pub letter: String,
    /// Its header text, or its letters when the sheet has no header.
    pub name: String,
    /// The kind of its values: one of integer, number, text, boolean,
    /// date, duration, error; `mixed` for several (integer and number
    /// together are `number`); `empty` for none.
    #[serde(rename = "type")]
    pub r#type: &'static str,
    /// Values of each kind present.
    pub kinds: BTreeMap<&'static str, u64>,
    /// Data cells holding a value.
    pub values: u64,
    /// Data rows where the column holds nothing.
    pub empties: u64,
}

/// The columns `wanted` names: a column's name (its header text, or its
/// letters without a header), else letters (`C`), else digits for a
/// 0-based position in the used range; a name of digits in double quotes
/// is a name only.
pub(crate) fn projection(names: &[(u32, String)], wanted: &[&str]) -> Result<Vec<u32>, Refusal> {
    let mut out = Vec::new();
    for &w in wanted {
        let quoted = w.len() >= 2 && w.starts_with('"') && w.ends_with('"');
        let bare = if quoted { &w[1..w.len() - 1] } else { w };
        let by_name: Vec<u32> = names
            .iter()
            .filter(|(_, n)| n == bare)
            .map(|(c, _)| *c)
            .collect();
        let found = match by_name.as_slice() {
            [one] => Some(*one),
            [] if quoted => None,
            [] => letters_column(bare)
                .filter(|c| names.iter().any(|(n, _)| n == c))
                .or_else(|| {
                    (!bare.is_empty() && bare.bytes().all(|b| b.is_ascii_digit()))
                        .then(|| bare.parse::<usize>().ok())
                        .flatten()
                        .and_then(|i| names.get(i))
                        .map(|(c, _)| *c)
                }),
            _ => {
                return Err(Refusal::invalid_argument(format!(
                "column `{}` is the header of {} columns; name one by its letters (for example {})",
                plumb_core::echo(bare),
                by_name.len(),
                column_letters(by_name[0])
            )))
            }
        };
        let Some(c) = found else {
            let available: Vec<serde_json::Value> = names
                .iter()
                .take(20)
                .map(|(_, n)| serde_json::Value::from(plumb_core::echo(n)))
                .collect();
            return Err(Refusal::new(
                RefusalReason::UnknownColumn,
                format!(
                    "column `{}` is not a column of this sheet; name one of those listed in `available`, its letters, or a 0-based index",
                    plumb_core::echo(bare)
                ),
            )
            .with_extra("available", available.into())
            .with_extra("available_total", names.len().into()));
        };
        if out.contains(&c) {
            return Err(Refusal::invalid_argument(format!(
                "column `{}` is asked for twice",
                plumb_core::echo(bare)
            )));
        }
        out.push(c);
    }
    Ok(out)
}
