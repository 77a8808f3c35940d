//! CSV search: the data rows where one column (or any) matches a pattern
//! or satisfies a predicate, verbatim, each with its row number, line
//! and byte offset, and the offset of the next hit to continue from.
//!
//! A cell is judged as [`plumb_core::Predicate`] rules say, with the CSV
//! meaning of its words: a cell of only spaces and tabs is empty, an
//! empty cell or a sentinel (`NA`, `null`, ...) is null, and a cell that
//! reads as a decimal number compares as one, exactly. A pattern sees
//! the cell's text as it is; a predicate sees it without the spaces and
//! tabs around it.

use std::ops::ControlFlow;

use serde::Serialize;

use plumb_core::{
    echo, scan_decimal, Predicate, Query, Refusal, SearchProgress, Subject, SubjectKind, ViewFlags,
    COLUMN_TRACK_CAP,
};

use crate::cell::SENTINEL_TOKENS;
use crate::machine::{Issue, Record};
use crate::scan::{RowSink, ScanSummary};

use super::select::{budget_cells, unknown_column, Fit};
use super::{ColumnRef, DialectReport, SelectCell};

/// The most bytes of cell text one hit's row carries: a wider row has
/// its longest cells cut, each saying its full length.
pub const CSV_SEARCH_ROW_BYTES: usize = 1024;

/// One row that matched.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RowHit {
    /// The 0-based data row (the `offset` a select of it takes).
    pub row: u64,
    /// The 1-based line it starts on.
    pub line: u64,
    /// The byte offset of its first byte.
    pub byte_offset: u64,
    /// The first column that matched (0-based).
    pub column: usize,
    /// The row's cells, verbatim (see [`SelectCell`] for cut ones).
    pub cells: Vec<SelectCell>,
}

/// The answer of CSV search.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CsvSearch {
    /// Always true.
    pub ok: bool,
    /// `csv` or `tsv`.
    pub format: &'static str,
    /// Exact, or cut when a hit's row was cut to its budget.
    pub view: ViewFlags,
    /// The dialect read with (flattened).
    #[serde(flatten)]
    pub dialect: DialectReport,
    /// The header's names (cut like a row), or null.
    pub header: Option<Vec<SelectCell>>,
    /// The column searched (0-based), or null for any column.
    pub column: Option<usize>,
    /// The hits, in file order (none with `count_only`).
    pub hits: Vec<RowHit>,
    /// The data row the search started at.
    pub offset: u64,
    /// The limit applied.
    pub limit: usize,
    /// Hits returned.
    pub returned: usize,
    /// How many hits were seen and where to continue (`next_offset` is
    /// the row of the next hit).
    #[serde(flatten)]
    pub progress: SearchProgress,
}

pub(crate) struct SearchSink {
    query: Query,
    wanted: Option<ColumnRef>,
    column: Option<usize>,
    header: Option<Vec<SelectCell>>,
    hits: Vec<RowHit>,
    progress: SearchProgress,
    cut: bool,
    error: Option<Refusal>,
    resolved: bool,
}

impl SearchSink {
    pub fn new(query: Query, column: Option<ColumnRef>) -> SearchSink {
        SearchSink {
            query,
            wanted: column,
            column: None,
            header: None,
            hits: Vec::new(),
            progress: SearchProgress::default(),
            cut: false,
            error: None,
            resolved: false,
        }
    }

    pub fn finish(mut self, format: &'static str, s: &ScanSummary) -> CsvSearch {
        self.progress.total_exact = !self.progress.has_more;
        CsvSearch {
            ok: true,
            format,
            view: ViewFlags::exact().with_cut(self.cut),
            dialect: s.dialect_report(),
            header: self.header,
            column: self.column,
            returned: self.hits.len(),
            hits: self.hits,
            offset: self.query.offset,
            limit: self.query.limit,
            progress: self.progress,
        }
    }

    fn resolve(&mut self, width: usize, header: Option<&Record<'_>>) -> Result<(), Refusal> {
        self.resolved = true;
        let Some(wanted) = self.wanted.take() else {
            return Ok(());
        };
        self.column = Some(match wanted {
            ColumnRef::Index(i) if i < 0 || i as u64 >= width as u64 => {
                return Err(Refusal::invalid_argument(format!(
                    "column index {i} is not a column; this file has {width} columns (0 to {})",
                    width.saturating_sub(1)
                )))
            }
            ColumnRef::Index(i) => i as usize,
            ColumnRef::Name(name) => {
                let Some(h) = header else {
                    return Err(Refusal::invalid_argument(format!(
                        "column `{}` is a name, but this file has no header; name the column by 0-based index, or pass header=true",
                        echo(&name)
                    )));
                };
                match (0..h.len()).find(|&i| h.get_str(i).is_some_and(|n| n == name)) {
                    Some(i) => i,
                    None => return Err(unknown_column(&name, h)),
                }
            }
        });
        Ok(())
    }

    /// The first column of `row` that matches, if any.
    fn matching_column(&self, row: &Record<'_>) -> Option<usize> {
        let test = |i: usize| {
            let subject = match row.get(i) {
                Some(cell) => cell_subject(cell, &self.query.predicate),
                None => Subject::missing(),
            };
            self.query.predicate.test(&subject)
        };
        match self.column {
            Some(c) => test(c).then_some(c),
            None => (0..row.len().min(COLUMN_TRACK_CAP)).find(|&i| test(i)),
        }
    }
}

/// A cell as a predicate sees it.
fn cell_subject<'a>(cell: &'a [u8], predicate: &Predicate) -> Subject<'a> {
    if matches!(predicate, Predicate::Pattern(_)) {
        return Subject::new(SubjectKind::Text, cell);
    }
    let blank = |b: &u8| *b == b' ' || *b == b'\t';
    let start = cell.iter().position(|b| !blank(b)).unwrap_or(cell.len());
    let end = cell
        .iter()
        .rposition(|b| !blank(b))
        .map_or(start, |e| e + 1);
    let text = &cell[start..end];
    let numeric = matches!(predicate, Predicate::Compare { numeric: true, .. })
        && scan_decimal(text).is_some();
    let sentinel = SENTINEL_TOKENS.iter().any(|t| t.as_bytes() == text);
    Subject {
        kind: if numeric {
            SubjectKind::Number
        } else {
            SubjectKind::Text
        },
        text,
        null: text.is_empty() || sentinel,
    }
}

impl RowSink for SearchSink {
    fn finish(&mut self) -> Result<(), Refusal> {
        self.error.take().map_or(Ok(()), Err)
    }

    fn header(&mut self, header: Option<&Record<'_>>) -> Result<(), Refusal> {
        if let Some(h) = header {
            self.resolve(h.len(), Some(h))?;
            self.header = budget_cells(
                h,
                0..h.len().min(COLUMN_TRACK_CAP),
                Fit::Cut(CSV_SEARCH_ROW_BYTES),
            );
        }
        Ok(())
    }

    fn row(&mut self, index: u64, row: &Record<'_>) -> ControlFlow<()> {
        if !self.resolved {
            // No header: the first data row gives the width.
            if let Err(refusal) = self.resolve(row.len(), None) {
                self.error = Some(refusal);
                return ControlFlow::Break(());
            }
        }
        if index < self.query.offset {
            return ControlFlow::Continue(());
        }
        let Some(column) = self.matching_column(row) else {
            return ControlFlow::Continue(());
        };
        self.progress.total += 1;
        if self.query.count_only {
            return ControlFlow::Continue(());
        }
        if self.hits.len() >= self.query.limit {
            self.progress.has_more = true;
            self.progress.next_offset = Some(index);
            return ControlFlow::Break(());
        }
        let mut cells = budget_cells(
            row,
            0..row.len().min(COLUMN_TRACK_CAP),
            Fit::Cut(CSV_SEARCH_ROW_BYTES),
        )
        .unwrap_or_default();
        if row.len() > COLUMN_TRACK_CAP {
            cells.push(SelectCell::Omitted((row.len() - COLUMN_TRACK_CAP) as u64));
        }
        self.cut |= row.overflow.is_some()
            || cells
                .iter()
                .any(|c| matches!(c, SelectCell::Cut { .. } | SelectCell::Omitted(_)));
        self.hits.push(RowHit {
            row: index,
            line: row.line,
            byte_offset: row.byte_offset,
            column,
            cells,
        });
        ControlFlow::Continue(())
    }

    fn issue(&mut self, _issue: &Issue) -> ControlFlow<()> {
        ControlFlow::Continue(())
    }
}
