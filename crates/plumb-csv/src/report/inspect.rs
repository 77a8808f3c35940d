//! CSV inspect: per-column classes, lengths, ranges, samples and
//! precision facts, the header and a sample of rows, within caps that do
//! not grow with the column count or the cell length.
//!
//! Cells arrive one by one from the parser (from the block path as
//! slices of the input), the sample rows' too: they are copied, cut, as
//! they pass, so that no data row is ever held whole. (A record runs to
//! [`CSV_MAX_RECORD_BYTES`](crate::CSV_MAX_RECORD_BYTES) in the parser's
//! buffers; with the column state of 10,000 tracked columns beside it,
//! holding it would cost most of the memory bound.) Only a first record
//! the header decision keeps comes whole.
//!
//! A cell that `scan_plain_number` reads (most numeric cells) is folded
//! inline, with 16 to 19 digit integers and fractions
//! judged from the digits already read; every other cell goes through
//! `scan_cell`. A proptest and the `csv_inspect` fuzz target hold the two
//! paths to the same report.

use std::ops::ControlFlow;

use serde::{Deserialize, Serialize};

#[cfg(doc)]
use plumb_core::SAMPLE_TEXT_BYTES;
use plumb_core::{Refusal, ViewFlags, COLUMN_TRACK_CAP};

use crate::machine::{Issue, IssueReport, Record};
use crate::scan::{RowSink, ScanSummary};

use super::column::{text_cap, ColumnAcc, ColumnReport, ColumnState, RangeCounts};
use super::{lossy_prefix, DialectReport, IssueList};

/// The columns whose kept text (sample values, precision examples, the
/// header name, sample cells, long range ends) may each run to
/// [`SAMPLE_TEXT_BYTES`]; later tracked columns keep
/// [`INSPECT_NARROW_TEXT_BYTES`] of each. With at most
/// [`COLUMN_TRACK_CAP`] tracked columns, the text inspect keeps stays
/// within a few megabytes whatever the cells hold.
pub const INSPECT_WIDE_TEXT_COLUMNS: usize = 500;

/// What each kept text of a tracked column past
/// [`INSPECT_WIDE_TEXT_COLUMNS`] may run to.
pub const INSPECT_NARROW_TEXT_BYTES: usize = 32;

/// The most bytes of cell text inspect's `sample` rows hold together:
/// rows are added while they fit (the first always, its cells cut as
/// above), and `sample_shortened` says when the budget ended the sample.
pub const INSPECT_SAMPLE_BUDGET_BYTES: usize = 1 << 20;

/// How an inspect's columns are kept: whether `3,25` may be a number,
/// with statistics, for a later part of a split scan, and brief (the
/// scan's [`plumb_core::ScanBounds::brief`]).
#[derive(Clone, Copy, Debug)]
pub(super) struct Tracking {
    pub decimal_comma: bool,
    pub stats: bool,
    pub later: bool,
    pub brief: bool,
}

/// Grows `columns` to `n` accumulators, each made for its index.
pub(super) fn track_columns(columns: &mut Vec<ColumnAcc>, n: usize, how: Tracking) {
    // One reservation for the whole record: pushed one by one, ten
    // thousand columns would sit in room for 16,384.
    columns.reserve(n.saturating_sub(columns.len()));
    while columns.len() < n {
        columns.push(ColumnAcc::new(columns.len(), how));
    }
}

/// The first [`COLUMN_TRACK_CAP`] cells of a record, each cut to its
/// column's [`text_cap`]: what inspect keeps of a header or a sample
/// row, so that neither grows with the column count or the cell length.
fn capped_row(r: &Record<'_>) -> Vec<String> {
    let n = r.len().min(COLUMN_TRACK_CAP);
    let mut out = Vec::with_capacity(n);
    out.extend((0..n).filter_map(|i| Some(lossy_prefix(r.get(i)?, text_cap(i)))));
    out
}

/// The answer of CSV inspect.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct CsvInspect {
    /// Always true.
    pub ok: bool,
    /// `csv` or `tsv`.
    pub format: &'static str,
    /// Exact when the whole file was read and described; sampled when a
    /// row cap stopped it; cut when columns past the tracked ones, or
    /// cells a field cap cut away (`unread`), were not described.
    pub view: ViewFlags,
    /// The dialect read with (flattened: `delimiter`, `delimiter_note`,
    /// `quote`, `skipped_lines`, `comment`, `comment_lines`).
    #[serde(flatten)]
    pub dialect: DialectReport,
    /// The first lines of a detected preamble (at most 10, each cut to
    /// 256 bytes); empty when none was detected or `skip_lines` was given.
    pub preamble: Vec<String>,
    /// How consistently the detected delimiter split the sample (null when given).
    pub delimiter_confidence: Option<f64>,
    /// The header names, or null when the first record is data: the
    /// first 10,000 (the tracked columns), each cut to its column's text
    /// cap like a
    /// sample value; `untracked_columns` counts the rest.
    pub header: Option<Vec<String>>,
    /// Data rows in the file (after the header); null when sampled.
    pub row_count: Option<u64>,
    /// Data rows read.
    pub rows_scanned: u64,
    /// Per-column facts (at most 10,000 columns).
    pub columns: Vec<ColumnReport>,
    /// Columns seen beyond the tracking cap (counted, not described).
    pub untracked_columns: u64,
    /// With statistics asked for: described columns past
    /// [`plumb_stats::STATS_MAX_COLUMNS`], which keep none (the view is
    /// then cut). Left out when 0.
    #[serde(skip_serializing_if = "is_zero")]
    pub columns_without_stats: u64,
    /// Rows whose field count differs from the header's (or the first row's).
    pub ragged_rows: u64,
    /// The first issues, in order.
    pub issues: Vec<IssueReport>,
    /// All issues found.
    pub issue_count: u64,
    /// Empty lines between records.
    pub blank_lines: u64,
    /// `lf`, `crlf`, `cr`, `mixed` or `none`.
    pub line_ending: &'static str,
    /// Whether a UTF-8 BOM was stripped.
    pub bom: bool,
    /// The first rows, verbatim, each cell cut to its column's text cap
    /// (512 bytes in the first 500 columns, 32 after); cells past the
    /// tracked columns are left out (`untracked_columns` counts them).
    pub sample: Vec<Vec<String>>,
    /// Whether [`INSPECT_SAMPLE_BUDGET_BYTES`] ended the sample before the
    /// rows asked for.
    pub sample_shortened: bool,
    /// With statistics and [`plumb_core::ScanBounds::sketches`]: each
    /// named column's settled statistics, for a merge with other files'
    /// (not part of the JSON).
    #[serde(skip)]
    #[schemars(skip)]
    pub sketches: Option<plumb_stats::ColumnSketches>,
}

impl CsvInspect {
    /// The facts of [`Layout::TableColumns`](plumb_core::Layout) typed,
    /// equal to what the JSON states (see [`plumb_core::Answer::shape`]).
    pub fn shape(&self) -> Option<plumb_core::Shape> {
        Some(plumb_core::Shape {
            rows: self.row_count,
            columns: self
                .columns
                .iter()
                .filter_map(|c| {
                    Some(plumb_core::ShapeColumn {
                        name: c.name.clone()?,
                        kind: c.inferred_type.as_str().to_owned(),
                        rows: None,
                        firsts: c
                            .first_records
                            .iter()
                            .flat_map(|m| m.iter())
                            .map(|(k, n)| ((*k).to_owned(), *n))
                            .collect(),
                    })
                })
                .collect(),
            faults: self.issue_count,
            container: None,
        })
    }
}

pub(crate) struct InspectSink {
    header: Option<Vec<String>>,
    columns: Vec<ColumnAcc>,
    widest: usize,
    issues: IssueList,
    sample: Vec<Vec<String>>,
    /// The cells of the sample row being read, cut as in [`capped_row`].
    sample_cells: Vec<String>,
    sample_rows: usize,
    /// Bytes of cell text in `sample`.
    sample_bytes: usize,
    sample_shortened: bool,
    /// Whether `3,25` may be a number: the delimiter is not a comma.
    decimal_comma: bool,
    /// Whether columns keep statistics.
    stats: bool,
    /// Whether the answer keeps the columns' settled statistics.
    sketches: bool,
    /// Whether this sink reads a part of the file after the first (see
    /// [`InspectSink::later_part`]).
    later: bool,
    /// Columns given accumulators: [`COLUMN_TRACK_CAP`], or fewer in a
    /// part of a split scan (see [`InspectSink::with_column_cap`]).
    column_cap: usize,
    /// Whether a record was wider than `column_cap`.
    too_wide: bool,
    /// Whether the answer leaves out sample rows, sample values and
    /// date ends.
    brief: bool,
}

/// An inspect sink's state, as a range task hands it to the join of its
/// file's ranges (see `crate::ranges`): the first range's header and
/// sample rows, the widest row, and each tracked column's state.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct InspectState {
    header: Option<Vec<String>>,
    widest: usize,
    columns: Vec<ColumnState>,
    sample: Vec<Vec<String>>,
    sample_shortened: bool,
}

/// Whether `row` is one inspect keeps of a header or a sample row: no
/// more than the tracked columns, each cell within its column's cap.
fn capped_fits(row: &[String]) -> bool {
    row.len() <= COLUMN_TRACK_CAP && row.iter().enumerate().all(|(i, c)| c.len() <= text_cap(i))
}

impl InspectSink {
    /// This sink's state; `None` when it found issues or keeps
    /// statistics, which a range's state does not carry.
    pub fn into_state(self) -> Option<InspectState> {
        if self.issues.total > 0 || self.stats {
            return None;
        }
        let columns = self.columns.into_iter().map(ColumnAcc::into_state);
        Some(InspectState {
            header: self.header,
            widest: self.widest,
            columns: columns.collect::<Option<_>>()?,
            sample: self.sample,
            sample_shortened: self.sample_shortened,
        })
    }

    /// The sink of a range that read `rows` data rows and `records`
    /// records of a file of `len` bytes, from its `state`, kept as
    /// `self` (a new sink made for that range) keeps it; `None` when no
    /// scan of such a range makes that state (see the column's
    /// `ColumnState::into_acc`).
    pub fn with_state(
        mut self,
        state: InspectState,
        (rows, records): (u64, u64),
        len: u64,
    ) -> Option<InspectSink> {
        let sample_bytes: usize = state.sample.iter().flatten().map(String::len).sum();
        let fits = state.header.as_deref().is_none_or(capped_fits)
            && state.sample.iter().all(|r| capped_fits(r))
            && state.sample.len() <= self.sample_rows
            && (state.sample.len() <= 1 || sample_bytes <= INSPECT_SAMPLE_BUDGET_BYTES)
            && (!self.later || (state.header.is_none() && state.sample.is_empty()))
            && (!state.sample_shortened || !state.sample.is_empty())
            && u64::try_from(state.widest).is_ok_and(|w| w <= len.saturating_add(1))
            && state.columns.len() <= state.widest.min(COLUMN_TRACK_CAP);
        if !fits {
            return None;
        }
        let how = self.tracking();
        let counts = RangeCounts { rows, records };
        self.columns = (state.columns.into_iter().enumerate())
            .map(|(i, c)| c.into_acc(i, how, counts))
            .collect::<Option<_>>()?;
        self.header = state.header;
        self.widest = state.widest;
        if state.sample_shortened {
            self.sample_rows = state.sample.len();
        }
        self.sample = state.sample;
        self.sample_bytes = sample_bytes;
        self.sample_shortened = state.sample_shortened;
        Some(self)
    }

    pub fn new(sample_rows: usize, stats: bool) -> InspectSink {
        InspectSink {
            stats,
            sketches: false,
            decimal_comma: false,
            header: None,
            columns: Vec::new(),
            widest: 0,
            issues: IssueList::default(),
            sample: Vec::new(),
            sample_cells: Vec::new(),
            sample_rows,
            sample_bytes: 0,
            sample_shortened: false,
            later: false,
            column_cap: COLUMN_TRACK_CAP,
            too_wide: false,
            brief: false,
        }
    }

    /// A brief sink when `brief` ([`plumb_core::ScanBounds::brief`]):
    /// no sample rows, and columns that keep no sample values and no
    /// date ends.
    pub fn brief(self, brief: bool) -> InspectSink {
        InspectSink {
            brief,
            sample_rows: if brief { 0 } else { self.sample_rows },
            ..self
        }
    }

    /// Grows the columns to `n` accumulators.
    fn track(&mut self, n: usize) {
        let how = self.tracking();
        track_columns(&mut self.columns, n, how);
    }

    /// How this sink's columns are kept.
    fn tracking(&self) -> Tracking {
        Tracking {
            decimal_comma: self.decimal_comma,
            stats: self.stats,
            later: self.later,
            brief: self.brief,
        }
    }

    /// Tracks at most `cap` columns: a part of a split scan whose
    /// statistics were budgeted for the head's width holds no more, and
    /// a wider record marks the part [`InspectSink::too_wide`] (the scan
    /// then falls back to one thread).
    pub fn with_column_cap(self, cap: usize) -> InspectSink {
        InspectSink {
            column_cap: cap.min(COLUMN_TRACK_CAP),
            ..self
        }
    }

    /// Keeps each column's settled statistics in the answer
    /// ([`CsvInspect::sketches`]) when `keep`.
    pub fn keeping_sketches(self, keep: bool) -> InspectSink {
        InspectSink {
            sketches: keep && self.stats,
            ..self
        }
    }

    /// Whether a record was wider than the column cap set by
    /// [`InspectSink::with_column_cap`].
    pub fn too_wide(&self) -> bool {
        self.too_wide
    }

    /// The columns of a record `n` fields wide that are tracked, noting a
    /// record wider than a part's cap.
    #[inline]
    fn tracked_of(&mut self, n: usize) -> usize {
        if n > self.column_cap && self.column_cap < COLUMN_TRACK_CAP {
            self.too_wide = true;
        }
        n.min(self.column_cap)
    }

    /// A sink for a part of the file after the first, read on its own
    /// thread: it keeps no sample rows, and its columns keep what
    /// [`InspectSink::absorb`] needs to add them to the first part's
    /// (with statistics when `stats`).
    pub fn later_part(stats: bool) -> InspectSink {
        InspectSink {
            later: true,
            ..InspectSink::new(0, stats)
        }
    }

    /// Issues found.
    pub fn issue_count(&self) -> u64 {
        self.issues.total
    }

    /// Whether the sample rows are all taken (or none more could be):
    /// a later part would have added none.
    pub fn sample_settled(&self) -> bool {
        self.sample_shortened || self.sample.len() >= self.sample_rows
    }

    /// Takes in the sink of the next part of the file, as if its rows had
    /// come here; `records_before` is the records before that part. False
    /// when the two cannot be combined exactly (see
    /// [`ColumnAcc::absorb`]).
    pub fn absorb(&mut self, later: InspectSink, records_before: u64) -> bool {
        self.widest = self.widest.max(later.widest);
        for (i, theirs) in later.columns.into_iter().enumerate() {
            if i == self.columns.len() {
                let how = Tracking {
                    later: false,
                    ..self.tracking()
                };
                track_columns(&mut self.columns, i + 1, how);
            }
            if !self.columns[i].absorb(theirs, records_before) {
                return false;
            }
        }
        true
    }

    /// Adds a row's cut cells to the sample while they fit its budget.
    fn add_sample(&mut self, cells: Vec<String>) {
        let bytes: usize = cells.iter().map(String::len).sum();
        if !self.sample.is_empty() && self.sample_bytes + bytes > INSPECT_SAMPLE_BUDGET_BYTES {
            // The sample is full.
            self.sample_shortened = true;
            self.sample_rows = self.sample.len();
        } else {
            self.sample_bytes += bytes;
            self.sample.push(cells);
        }
    }

    pub fn finish(self, format: &'static str, s: &ScanSummary) -> CsvInspect {
        let how = self.tracking();
        let header = self.header;
        let width = self.widest.max(header.as_ref().map_or(0, Vec::len));
        let tracked = width.min(COLUMN_TRACK_CAP);
        let mut accs = self.columns;
        track_columns(&mut accs, tracked, how);
        let mut sketches = self.sketches.then(plumb_stats::ColumnSketches::default);
        let columns: Vec<ColumnReport> = accs
            .into_iter()
            .enumerate()
            .map(|(i, acc)| {
                let name = header.as_ref().and_then(|h| h.get(i).cloned());
                let (report, sketch) = acc.report(i, name, s.rows, sketches.is_some());
                if let (Some(all), Some(sketch), Some(name)) = (&mut sketches, sketch, &report.name)
                {
                    all.columns.push((name.clone(), sketch));
                }
                report
            })
            .collect();
        // Columns past the tracked ones are counted, not described, and
        // cells a cap cut away are counted unread: either way the answer
        // is not the whole file's.
        let unread = columns.iter().any(|c| c.unread > 0);
        let without_stats = if self.stats {
            tracked.saturating_sub(plumb_stats::STATS_MAX_COLUMNS) as u64
        } else {
            0
        };
        CsvInspect {
            ok: true,
            format,
            view: ViewFlags::of_scan(s.stopped)
                .with_cut(width > COLUMN_TRACK_CAP || unread || without_stats > 0),
            dialect: s.dialect_report(),
            preamble: s.preamble.clone(),
            delimiter_confidence: s.confidence,
            header,
            row_count: (!s.stopped).then_some(s.rows),
            rows_scanned: s.rows,
            columns,
            untracked_columns: width.saturating_sub(COLUMN_TRACK_CAP) as u64,
            columns_without_stats: without_stats,
            ragged_rows: s.ragged_rows,
            issues: self.issues.first,
            issue_count: self.issues.total,
            blank_lines: s.blank_lines,
            line_ending: s.endings.label(),
            bom: s.bom,
            sample: self.sample,
            sample_shortened: self.sample_shortened,
            sketches,
        }
    }
}

impl RowSink for InspectSink {
    fn dialect(&mut self, delimiter: u8) {
        self.decimal_comma = delimiter != b',';
    }

    fn keep_fields(&self) -> bool {
        false
    }

    fn wants_cells(&self) -> bool {
        true
    }

    #[inline]
    fn cell(&mut self, record: u64, index: usize, content: &[u8]) {
        if self.sample.len() < self.sample_rows && index < COLUMN_TRACK_CAP {
            self.sample_cells
                .push(lossy_prefix(content, text_cap(index)));
        }
        if let Some(acc) = self.columns.get_mut(index) {
            acc.add_plain(content, record);
        } else if index < self.tracked_of(index + 1) {
            self.track(index + 1);
            self.columns[index].add(content, record);
        }
    }

    fn header(&mut self, header: Option<&Record<'_>>) -> Result<(), Refusal> {
        self.header = header.map(capped_row);
        Ok(())
    }

    fn row(&mut self, _index: u64, row: &Record<'_>) -> ControlFlow<()> {
        let n = row.len();
        self.widest = self.widest.max(n);
        if row.overflow.is_some() {
            // The cells past the cut were not read: not missing.
            for acc in self.columns.iter_mut().skip(n) {
                acc.note_unread();
            }
        }
        if !row.has_fields() {
            // Its cells came one by one.
            if self.sample.len() < self.sample_rows {
                let cells = std::mem::take(&mut self.sample_cells);
                self.add_sample(cells);
            }
            return ControlFlow::Continue(());
        }
        let tracked = self.tracked_of(n);
        if self.columns.len() < tracked {
            self.track(tracked);
        }
        for (acc, cell) in self.columns.iter_mut().zip(row.iter()) {
            acc.add(cell, row.number);
        }
        if self.sample.len() < self.sample_rows {
            self.add_sample(capped_row(row));
        }
        ControlFlow::Continue(())
    }

    fn issue(&mut self, issue: &Issue) -> ControlFlow<()> {
        self.issues.add(issue);
        ControlFlow::Continue(())
    }
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}
