//! CSV search: the data rows where one column (or any) matches a pattern
//! or satisfies a predicate, verbatim, each with its row number, line
//! and byte offset, and the offset of the next hit to continue from.
//!
//! A cell is judged as [`plumb_core::Predicate`] rules say, with the CSV
//! meaning of its words: a cell of only spaces and tabs is empty, an
//! empty cell or a sentinel (`NA`, `null`, ...) is null, and a cell that
//! reads as a decimal number compares as one, exactly. A pattern sees
//! the cell's text as it is; a predicate sees it without the spaces and
//! tabs around it (`judge.rs`, with the short ways of a column search).

use std::ops::ControlFlow;

use serde::{Deserialize, Serialize};

use plumb_core::{
    Conditions, Query, Refusal, SearchProgress, SearchWindow, Subject, Verdict, ViewFlags,
    COLUMN_TRACK_CAP,
};

use crate::machine::Judged;
use crate::machine::{Issue, Record, RowRun};
use crate::parallel::Publisher;
use crate::scan::{Feed, FeedResult, Resolver, RowJudge, RowSink, ScanSummary};

mod parts;

pub(crate) use parts::ColumnProbe;

use super::judge::{cell_subject, same_bytes, trim_blanks, Quick};
use super::select::{budget_cells, Fit, Head};
use super::{ColumnRef, DialectReport, SelectCell};

/// The most bytes of cell text one hit's row carries: a wider row has
/// its longest cells cut, each saying its full length.
pub const CSV_SEARCH_ROW_BYTES: usize = 1024;

/// The most cells a hit's row, and the header, carry in a search
/// answer: the rest are counted in a closing
/// `{"$summary": {"omitted_cells": n}}`. Without it a row of thousands
/// of cells, each cut to nothing to fit [`CSV_SEARCH_ROW_BYTES`], made an
/// answer of hundreds of KiB per hit that said nothing.
pub const CSV_SEARCH_ROW_CELLS: usize = 256;

/// The most bytes of a hit's row read back for its cells; a longer row
/// is cut there (and the answer says so).
pub const CSV_SEARCH_FETCH_BYTES: usize = 4 << 20;

/// One row that matched.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RowHit {
    /// The 0-based data row (the `offset` a select of it takes).
    pub row: u64,
    /// The 1-based line it starts on.
    pub line: u64,
    /// The byte offset of its first byte.
    pub byte_offset: u64,
    /// The first column that matched (0-based).
    pub column: usize,
    /// The row's cells, verbatim (see [`SelectCell`] for cut ones), at
    /// most [`CSV_SEARCH_ROW_CELLS`] of them.
    pub cells: Vec<SelectCell>,
    /// The cell that matched, when `column` lies past the cells shown
    /// (cut like them); left out otherwise, and when the row was cut
    /// before it or lacks it (a missing cell that matched `is null`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub matched_cell: Option<SelectCell>,
}

/// The answer of CSV search.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
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
    /// The header's names (cut like a row, at most
    /// [`CSV_SEARCH_ROW_CELLS`] of them), or null.
    pub header: Option<Vec<SelectCell>>,
    /// The column searched (0-based), or null for any column (and with
    /// conditions, which name their own).
    pub column: Option<usize>,
    /// The conditions each row was judged by, when a search gave them
    /// (`{"match": "all", "of": [...]}`); left out otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub conditions: Option<Conditions>,
    /// The hits, in file order (none with `count_only`).
    pub hits: Vec<RowHit>,
    /// The window (flattened): `offset`, the data row the search started
    /// at; `limit`; `returned`, the hits returned; and how many hits were
    /// seen and where to continue (`next_offset` is the row of the next
    /// hit).
    #[serde(flatten)]
    pub window: SearchWindow,
    /// Rows read but not judged whole, none of whose judged cells
    /// matched: a cap cut the row before the searched column (before its
    /// end, searching every column), or the row is wider than the
    /// [`COLUMN_TRACK_CAP`] columns a search of every column judges.
    /// Any of them may hold a hit, so `total` is then a lower bound
    /// (`total_exact: false`). Left out when none.
    #[serde(skip_serializing_if = "is_zero")]
    pub unjudged_rows: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

pub(crate) struct SearchSink {
    query: Query,
    /// Hits still to pass over before one is kept (`Query::skip_hits`).
    skip_left: u64,
    wanted: Option<ColumnRef>,
    column: Option<usize>,
    /// With conditions: each one's column, once resolved (a row is then
    /// judged whole, its cells kept, by `judge_conditions`).
    tested: Vec<usize>,
    header: Option<Vec<SelectCell>>,
    hits: Vec<RowHit>,
    progress: SearchProgress,
    cut: bool,
    error: Option<Refusal>,
    resolved: bool,
    /// Whether a hit's cells are read afterwards from its byte range (a
    /// source with random access): cells are then judged as they pass
    /// and never copied, and a column search hands over one cell a row.
    fetch: bool,
    /// The record whose cells are passing, and the first that matched.
    cell_record: u64,
    /// Whether a cell of the record matched, and the last cell judged
    /// (the first that matched, once one did): stored as they are, so a
    /// cell's outcome costs no branch on it.
    cell_hit: bool,
    cell_column: usize,
    /// The record whose wanted cell was judged last, to tell whether a
    /// row cut by a cap had its searched cell judged.
    judged_record: u64,
    /// Rows not judged whole (see [`CsvSearch::unjudged_rows`]).
    unjudged: u64,
    /// Without `fetch`: the cells of the record being read, as they came.
    data: Vec<u8>,
    ends: Vec<u32>,
    /// Hits whose cells are to be read: (hit, first byte, next row's
    /// first byte, when one followed).
    pub(crate) to_fetch: Vec<(usize, u64, Option<u64>)>,
    open_span: Option<usize>,
    /// The predicate's short way, when it has one.
    quick: Quick,
    /// Issues seen (a search reads past them; a split search does not).
    issues: u64,
    /// In the first part of a split search: where the column it resolves
    /// is told to the later parts, which wait for it.
    publisher: Option<Publisher>,
    /// In a later part of a split search cut to the room left
    /// ([`SearchSink::keep_first`]): the row of the first hit dropped.
    stopped_at: Option<u64>,
}

impl SearchSink {
    pub fn new(query: Query, column: Option<ColumnRef>, fetch: bool) -> SearchSink {
        SearchSink {
            wanted: column,
            column: None,
            tested: Vec::new(),
            header: None,
            hits: Vec::new(),
            progress: SearchProgress::default(),
            cut: false,
            error: None,
            resolved: false,
            // Conditions judge a row by several of its cells: each row's
            // cells are kept as they pass, and judged when it ends.
            fetch: fetch && query.conditions.is_none(),
            cell_record: 0,
            cell_hit: false,
            cell_column: 0,
            judged_record: 0,
            unjudged: 0,
            data: Vec::new(),
            ends: Vec::new(),
            to_fetch: Vec::new(),
            open_span: None,
            quick: Quick::of(&query.predicate),
            skip_left: query.skip_hits,
            query,
            issues: 0,
            publisher: None,
            stopped_at: None,
        }
    }

    /// The sink of the first part of a split search: the column it
    /// resolves (or that it resolved none) goes to `publisher`.
    pub fn publishing(mut self, publisher: Publisher) -> SearchSink {
        self.publisher = Some(publisher);
        self
    }

    /// The sink of a later part of a split search, its column resolved
    /// already (`None`: any column). Cells are judged as they pass.
    pub fn later_part(query: Query, column: Option<usize>) -> SearchSink {
        SearchSink {
            column,
            resolved: true,
            ..SearchSink::new(query, None, true)
        }
    }

    /// Issues seen.
    pub fn issue_count(&self) -> u64 {
        self.issues
    }

    /// The 0-based column searched, once resolved; `None` for a search
    /// of every column.
    pub(crate) fn column_index(&self) -> Option<usize> {
        self.column
    }

    /// The columns the conditions test, once resolved (none without
    /// conditions).
    pub(crate) fn condition_columns(&self) -> &[usize] {
        &self.tested
    }

    /// Rows not judged whole (see [`CsvSearch::unjudged_rows`]).
    pub fn unjudged_count(&self) -> u64 {
        self.unjudged
    }

    /// Gives hit `hit` the cells read from its byte range.
    pub(crate) fn fill(&mut self, hit: usize, row: &Record<'_>, whole: bool) {
        let cells = row_cells(row);
        self.cut |= !whole || cut_cells(&cells);
        if let Some(h) = self.hits.get_mut(hit) {
            h.cells = cells;
            h.matched_cell = matched_cell(row, h.column);
        }
    }

    pub fn finish(mut self, format: &'static str, s: &ScanSummary) -> CsvSearch {
        // A row not judged whole may hold a hit that was not counted.
        self.progress.total_exact = !self.progress.has_more && self.unjudged == 0;
        // Stopped, and not at the limit: at the byte budget.
        let budget = s.stopped && !self.progress.has_more;
        if budget {
            self.progress.stopped_before(s.rows.max(self.query.offset));
        }
        CsvSearch {
            ok: true,
            format,
            view: ViewFlags::of_scan(budget).with_cut(self.cut),
            dialect: s.dialect_report(),
            header: self.header,
            column: self.column,
            conditions: self.query.conditions.take(),
            window: SearchWindow {
                offset: self.query.offset,
                passed_over: self.query.skip_hits,
                limit: self.query.limit,
                returned: self.hits.len(),
                progress: self.progress,
            },
            hits: self.hits,
            unjudged_rows: self.unjudged,
        }
    }

    fn resolve(&mut self, head: Head<'_, '_>) -> Result<(), Refusal> {
        self.resolved = true;
        if let Some(conditions) = &self.query.conditions {
            self.tested = conditions
                .items
                .iter()
                .map(|c| ColumnRef::parse(&c.target).resolve_past_header(head))
                .collect::<Result<_, _>>()?;
        }
        let Some(wanted) = self.wanted.take() else {
            return Ok(());
        };
        self.column = Some(wanted.resolve_past_header(head)?);
        Ok(())
    }

    /// [`SearchSink::resolve`], telling a waiting later part the column.
    fn resolve_and_tell(&mut self, head: Head<'_, '_>) -> Result<(), Refusal> {
        let resolved = self.resolve(head);
        if let Some(p) = self.publisher.take() {
            p.tell(resolved.is_ok().then_some(self.column));
        }
        resolved
    }

    /// The first column of `row` that matches, if any. A cell a cap
    /// cut away is not judged (it is there, but unread), not missing.
    fn matching_column(&self, row: &Record<'_>) -> Option<usize> {
        let test = |i: usize| match row.get(i) {
            Some(cell) => self
                .query
                .predicate
                .test(&cell_subject(cell, &self.query.predicate)),
            None if row.overflow.is_some() => false,
            None => self.query.predicate.test(&Subject::missing()),
        };
        match self.column {
            Some(c) => test(c).then_some(c),
            None => (0..row.len().min(COLUMN_TRACK_CAP)).find(|&i| test(i)),
        }
    }
}

/// The cells a hit's row (or the header) carries: verbatim, cut to fit
/// [`CSV_SEARCH_ROW_BYTES`], those past the [`CSV_SEARCH_ROW_CELLS`]th
/// counted.
fn row_cells(row: &Record<'_>) -> Vec<SelectCell> {
    let shown = row.len().min(CSV_SEARCH_ROW_CELLS);
    let mut cells =
        budget_cells(row, 0..shown, Fit::Cut(CSV_SEARCH_ROW_BYTES), 0).unwrap_or_default();
    if row.len() > shown {
        cells.push(SelectCell::Omitted((row.len() - shown) as u64));
    }
    cells
}

/// The cell at `column` when it lies past the cells [`row_cells`]
/// shows and the row holds it, cut to [`CSV_SEARCH_ROW_BYTES`].
fn matched_cell(row: &Record<'_>, column: usize) -> Option<SelectCell> {
    if column < CSV_SEARCH_ROW_CELLS || column >= row.len() {
        return None;
    }
    budget_cells(row, column..column + 1, Fit::Cut(CSV_SEARCH_ROW_BYTES), 0)?.pop()
}

fn cut_cells(cells: &[SelectCell]) -> bool {
    cells
        .iter()
        .any(|c| matches!(c, SelectCell::Cut { .. } | SelectCell::Omitted(_)))
}

impl RowSink for SearchSink {
    fn feed<R: std::io::BufRead>(
        feed: Feed<'_, R>,
        resolver: &mut Resolver<'_, Self>,
    ) -> FeedResult {
        feed.into(&mut Judged(resolver))
    }

    fn finish(&mut self) -> Result<(), Refusal> {
        self.error.take().map_or(Ok(()), Err)
    }

    fn header(&mut self, header: Option<&Record<'_>>) -> Result<(), Refusal> {
        if let Some(h) = header {
            self.resolve_and_tell(Head::Header(h))?;
            self.header = Some(row_cells(h));
        }
        Ok(())
    }

    fn keep_fields(&self) -> bool {
        false
    }

    fn wants_cells(&self) -> bool {
        true
    }

    #[inline(always)]
    fn cell(&mut self, record: u64, index: usize, content: &[u8]) {
        let fresh = self.cell_record != record;
        self.cell_record = record;
        // A new record's first cell: no cell of it matched yet.
        self.cell_hit &= !fresh;
        if !self.fetch || !self.resolved {
            if fresh {
                self.data.clear();
                self.ends.clear();
            }
            self.data.extend_from_slice(content);
            self.ends
                .push(u32::try_from(self.data.len()).unwrap_or(u32::MAX));
            return;
        }
        let wanted = match self.column {
            Some(c) => c == index,
            None => index < COLUMN_TRACK_CAP,
        };
        if !wanted || self.cell_hit {
            return;
        }
        self.judged_record = record;
        // No branch on the outcome, which is as random as the data: the
        // first matching cell is kept (none was, or this returned above).
        self.cell_hit = self.holds(content);
        self.cell_column = index;
    }

    // Into the row's path (the rare ways are out of line).
    #[inline(always)]
    fn row(&mut self, index: u64, row: &Record<'_>) -> ControlFlow<()> {
        if self.open_span.is_some() {
            // The hit before this row ends where it starts.
            self.close_span(row.byte_offset);
        }
        if self.fetch && self.resolved && !row.has_fields() {
            if row.overflow.is_some() | (self.column.is_none() & (row.len() > COLUMN_TRACK_CAP)) {
                return self.row_not_judged_whole(index, row);
            }
            // Judged as its cells passed: the short way of `judge`. A row
            // short of the searched column may hit as a missing cell (and
            // then no cell of it hit: the column's never came).
            let (hit, column) = match self.missing_hit(row.len()) {
                Some(c) => (true, c),
                None => (
                    (self.cell_record == row.number) & self.cell_hit,
                    self.cell_column,
                ),
            };
            return self.tally(index, row, column, hit);
        }
        self.row_kept(index, row)
    }

    fn issue(&mut self, _issue: &Issue) -> ControlFlow<()> {
        self.issues += 1;
        ControlFlow::Continue(())
    }

    fn part_done(&mut self) {
        // A first part that resolved no column tells the later ones so.
        self.publisher = None;
    }
}

impl RowJudge for SearchSink {
    #[inline]
    fn cell_wanted(&self, index: usize) -> bool {
        !self.fetch || !self.resolved || self.column.is_none_or(|c| c == index)
    }

    #[inline]
    fn only_cell(&self) -> Option<usize> {
        self.column.filter(|_| self.fetch && self.resolved)
    }

    // A row with its cell in the searched column (a row as wide as the
    // first, read whole in a block): judged and counted at once, with
    // none of the state that cells coming one by one keep. Any other
    // (a listed search with a hit's span still open, a search not yet
    // resolved) the usual way.
    #[inline(always)]
    fn one_cell_row(
        &mut self,
        index: u64,
        row: &Record<'_>,
        column: usize,
        cell: &[u8],
    ) -> ControlFlow<()> {
        if self.fetch & self.resolved & self.open_span.is_none() & (self.column == Some(column)) {
            let hit = self.holds(cell);
            return self.tally(index, row, column, hit);
        }
        self.cell(row.number, column, cell);
        self.row(index, row)
    }

    // Once the column is resolved and no hit's span is open, from the
    // offset on: a listed search ends its runs before each hit, which
    // comes the usual way; a count takes them in the run.
    #[inline]
    fn row_run(&self, first: u64, width: usize, most: u64) -> Option<RowRun> {
        let field = self.column?;
        let ready = self.fetch
            & self.resolved
            & self.open_span.is_none()
            & (field < width)
            & (first >= self.query.offset);
        ready.then_some(RowRun {
            field,
            width,
            most,
            stop_at_hit: !self.query.count_only,
        })
    }

    #[inline(always)]
    fn run_holds(&self, cell: &[u8]) -> bool {
        self.holds(cell)
    }

    fn run_passed(&mut self, hits: u64) -> ControlFlow<()> {
        self.progress.total += hits;
        ControlFlow::Continue(())
    }
}

impl SearchSink {
    /// A row judged as its cells passed that was not judged whole: a cap
    /// cut it, or it is wider than an any-column search looks. A cell
    /// that was judged and matched makes it a hit; else it is counted as
    /// unjudged, unless the searched column's cell was judged.
    #[cold]
    #[inline(never)]
    fn row_not_judged_whole(&mut self, index: u64, row: &Record<'_>) -> ControlFlow<()> {
        let hit = self.cell_record == row.number && self.cell_hit;
        if index < self.query.offset {
            return ControlFlow::Continue(());
        }
        if hit {
            return self.count_hit(index, row, self.cell_column, true);
        }
        let judged = self.column.is_some() && self.judged_record == row.number;
        self.unjudged += u64::from(!judged);
        ControlFlow::Continue(())
    }

    /// A row whose cells were kept, or came one by one and were copied.
    #[inline(never)]
    fn row_kept(&mut self, index: u64, row: &Record<'_>) -> ControlFlow<()> {
        if row.has_fields() {
            return self.judge(index, row);
        }
        let came = self.cell_record == row.number;
        let (data, ends) = (
            std::mem::take(&mut self.data),
            std::mem::take(&mut self.ends),
        );
        let ends_now: &[u32] = if came { &ends } else { &[] };
        let mut rec = Record::from_parts(row.number, row.line, row.byte_offset, &data, ends_now);
        rec.overflow = row.overflow;
        let flow = self.judge(index, &rec);
        (self.data, self.ends) = (data, ends);
        self.data.clear();
        self.ends.clear();
        flow
    }

    /// Counts data row `index` as a hit in `column` when `hit` (and it
    /// lies at the offset or past), keeping it when hits are listed: a
    /// count with no branch on the outcome.
    #[inline(always)]
    fn tally(&mut self, index: u64, row: &Record<'_>, column: usize, hit: bool) -> ControlFlow<()> {
        let counted = hit & (index >= self.query.offset);
        if self.query.count_only {
            self.progress.total += u64::from(counted);
            return ControlFlow::Continue(());
        }
        if counted {
            self.count_hit(index, row, column, true)
        } else {
            ControlFlow::Continue(())
        }
    }

    /// Whether the predicate holds of a cell: the short way when it has
    /// one ([`Quick`]).
    #[inline(always)]
    fn holds(&self, content: &[u8]) -> bool {
        match &self.quick {
            Quick::TextEq { operand, negated } => {
                same_bytes(trim_blanks(content), operand) != *negated
            }
            Quick::Number { op, key, operand } => key.test(*op, trim_blanks(content), operand),
            Quick::None => self
                .query
                .predicate
                .test(&cell_subject(content, &self.query.predicate)),
        }
    }

    /// The searched column, when a row of `len` cells lacks it and the
    /// predicate holds of a missing cell.
    fn missing_hit(&self, len: usize) -> Option<usize> {
        self.column
            .filter(|&c| c >= len && self.query.predicate.test(&Subject::missing()))
    }

    /// Judges data row `index` by the cells `row` holds.
    fn judge(&mut self, index: u64, row: &Record<'_>) -> ControlFlow<()> {
        if !self.resolved {
            // No header: the first data row gives the width.
            if let Err(refusal) = self.resolve_and_tell(Head::FirstRow(row)) {
                self.error = Some(refusal);
                return ControlFlow::Break(());
            }
        }
        if index < self.query.offset {
            return ControlFlow::Continue(());
        }
        if self.query.conditions.is_some() {
            return self.judge_conditions(index, row);
        }
        match self.matching_column(row) {
            Some(column) => self.count_hit(index, row, column, false),
            None => {
                // Not judged whole: the searched cell (or some cell, for
                // any column) was cut away or lies past the tracked ones.
                let whole = match self.column {
                    Some(c) => row.overflow.is_none() || c < row.len(),
                    None => row.overflow.is_none() && row.len() <= COLUMN_TRACK_CAP,
                };
                self.unjudged += u64::from(!whole);
                ControlFlow::Continue(())
            }
        }
    }

    /// Judges data row `index` by the conditions, each on its column's
    /// cell: a cell a cap cut away leaves its condition unknown, and a
    /// row whose verdict is unknown is counted as not judged whole.
    #[cold]
    fn judge_conditions(&mut self, index: u64, row: &Record<'_>) -> ControlFlow<()> {
        let Some(conditions) = &self.query.conditions else {
            return ControlFlow::Continue(());
        };
        let tested = &self.tested;
        let verdict = conditions.judge(|i, predicate| {
            let holds = match tested.get(i).and_then(|&c| row.get(c)) {
                Some(cell) => predicate.test(&cell_subject(cell, predicate)),
                None if row.overflow.is_some() => return Verdict::Unknown,
                None => predicate.test(&Subject::missing()),
            };
            if holds {
                Verdict::Holds
            } else {
                Verdict::Fails
            }
        });
        match verdict {
            Verdict::Holds => {
                let column = self.tested.first().copied().unwrap_or(0);
                self.count_hit(index, row, column, false)
            }
            Verdict::Unknown => {
                self.unjudged += 1;
                ControlFlow::Continue(())
            }
            Verdict::Fails => ControlFlow::Continue(()),
        }
    }

    /// Counts the hit in data row `index` (matched in `column`) and,
    /// unless only counting, keeps it (`fetch`: its cells are read back
    /// afterwards).
    #[inline]
    fn count_hit(
        &mut self,
        index: u64,
        row: &Record<'_>,
        column: usize,
        fetch: bool,
    ) -> ControlFlow<()> {
        self.progress.total += 1;
        if self.query.count_only {
            return ControlFlow::Continue(());
        }
        if self.skip_left > 0 {
            // Passed over (the last hits are asked for): counted only.
            self.skip_left -= 1;
            return ControlFlow::Continue(());
        }
        self.take_hit(index, row, column, fetch)
    }

    /// Keeps the hit in data row `index` (matched in `column`), or stops
    /// at the limit. Out of line: most rows are no hit, and the checks
    /// before this stay small enough to sit in the row's path.
    #[inline(never)]
    fn take_hit(
        &mut self,
        index: u64,
        row: &Record<'_>,
        column: usize,
        fetch: bool,
    ) -> ControlFlow<()> {
        if self.hits.len() >= self.query.limit {
            self.progress.has_more = true;
            self.progress.next_offset = Some(index);
            return ControlFlow::Break(());
        }
        let (cells, matched_cell) = if fetch {
            // Read afterwards from the row's bytes.
            self.to_fetch.push((self.hits.len(), row.byte_offset, None));
            self.open_span = Some(self.to_fetch.len() - 1);
            (Vec::new(), None)
        } else {
            let cells = row_cells(row);
            self.cut |= cut_cells(&cells);
            (cells, matched_cell(row, column))
        };
        self.cut |= row.overflow.is_some();
        self.hits.push(RowHit {
            row: index,
            line: row.line,
            byte_offset: row.byte_offset,
            column,
            cells,
            matched_cell,
        });
        ControlFlow::Continue(())
    }
}
