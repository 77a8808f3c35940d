//! The three reports: inspect, select and validate, each a sink over
//! resolved rows and a typed, serializable result.

use std::collections::BTreeMap;
use std::ops::ControlFlow;

use serde::Serialize;
use serde_json::Value;

use plumb_core::{
    cap_text, echo, float_value_and_precision, infer_column_type, number_precision_of, scan_cell,
    scan_plain_number, CellClass, ClassHistogram, DecimalScan, InferredType, NumericRange,
    PrecisionKind, Refusal, RefusalReason, ViewFlags, COLUMN_TRACK_CAP, FIRST_ISSUES_CAP,
    MAX_SAFE_INTEGER, SAMPLE_TEXT_BYTES, SAMPLE_VALUES_CAP, SENTINEL_TOKENS,
};

use crate::machine::{Issue, IssueReport, Record};
use crate::scan::{RowSink, ScanSummary};

/// The first issues in full, and a count of all of them.
#[derive(Clone, Debug, Default)]
pub(crate) struct IssueList {
    pub first: Vec<IssueReport>,
    pub total: u64,
    pub faults: u64,
}

impl IssueList {
    pub fn add(&mut self, issue: &Issue) {
        self.total += 1;
        self.faults += 1;
        if self.first.len() < FIRST_ISSUES_CAP {
            self.first.push(IssueReport::from(issue));
        }
    }
}

fn delimiter_name(d: u8) -> String {
    char::from(d).to_string()
}

/// A fact about the number literals of a column that a double would misstate.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PrecisionFact {
    /// How a double would misstate the literal.
    pub kind: PrecisionKind,
    /// How many cells of the column have this kind.
    pub count: u64,
    /// The first such literal, verbatim.
    pub example: String,
    /// The record of that first literal.
    pub record: u64,
}

/// What inspect reports about one column.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ColumnReport {
    /// The 0-based column index.
    pub index: usize,
    /// The header name, when there is a header.
    pub name: Option<String>,
    /// The type the valued cells support.
    pub inferred_type: InferredType,
    /// Cells that are empty (or only spaces and tabs).
    pub empty: u64,
    /// Missing-value tokens by token (`{"NA": 1}`); counted, never converted.
    pub sentinels: BTreeMap<String, u64>,
    /// Cells by class.
    pub classes: ClassHistogram,
    /// Up to five distinct non-empty values, verbatim, each cut to the
    /// column's text cap (512 bytes in the first 500 columns, 32 after).
    pub samples: Vec<String>,
    /// The fewest characters in a cell.
    pub min_length: Option<u64>,
    /// The most characters in a cell.
    pub max_length: Option<u64>,
    /// The smallest number (exact for integers of any length), or null.
    pub min: Value,
    /// The largest number (exact for integers of any length), or null.
    pub max: Value,
    /// Number literals a double would misstate, by kind.
    pub precision: Vec<PrecisionFact>,
}

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

/// The most bytes inspect keeps of one text of column `index`.
fn text_cap(index: usize) -> usize {
    if index < INSPECT_WIDE_TEXT_COLUMNS {
        SAMPLE_TEXT_BYTES
    } else {
        INSPECT_NARROW_TEXT_BYTES
    }
}

#[derive(Clone, Debug)]
struct ColumnAcc {
    classes: ClassHistogram,
    /// Sentinel cells by index in [`SENTINEL_TOKENS`].
    sentinels: [u64; SENTINEL_TOKENS.len()],
    samples: Vec<String>,
    /// `u64::MAX` and 0 until a cell is seen.
    min_len: u64,
    max_len: u64,
    range: NumericRange,
    precision: BTreeMap<PrecisionKind, PrecisionFact>,
    /// Cells looked at for new sample values. A column with fewer than
    /// five distinct values stops looking after [`SAMPLE_LOOKS`] cells
    /// instead of comparing every cell to its samples forever; a column
    /// with all its samples stops at once.
    looks: u32,
    /// The most bytes kept of one text (see [`text_cap`]).
    text_cap: usize,
}

impl ColumnAcc {
    /// The accumulator of column `index`.
    fn new(index: usize) -> ColumnAcc {
        let text_cap = text_cap(index);
        ColumnAcc {
            classes: ClassHistogram::default(),
            sentinels: [0; SENTINEL_TOKENS.len()],
            samples: Vec::new(),
            min_len: u64::MAX,
            max_len: 0,
            range: NumericRange::with_literal_cap(text_cap),
            precision: BTreeMap::new(),
            looks: 0,
            text_cap,
        }
    }
}

/// Grows `columns` to `n` accumulators, each made for its index.
fn track_columns(columns: &mut Vec<ColumnAcc>, n: usize) {
    while columns.len() < n {
        columns.push(ColumnAcc::new(columns.len()));
    }
}

/// How many cells a column compares to its samples at most.
const SAMPLE_LOOKS: u32 = 4096;

/// Characters in UTF-8 text: bytes that are not continuation bytes
/// (`10xxxxxx`), counted eight at a time.
fn char_count(b: &[u8]) -> u64 {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut chunks = b.chunks_exact(8);
    let mut continuation = 0u64;
    for chunk in &mut chunks {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let w = u64::from_le_bytes(word);
        // Top bit set and the next bit clear, in every byte at once.
        continuation += u64::from((w & !(w << 1) & HIGH).count_ones());
    }
    let tail = chunks.remainder();
    continuation += tail.iter().filter(|&&c| c & 0xC0 == 0x80).count() as u64;
    b.len() as u64 - continuation
}

impl ColumnAcc {
    /// Counts a cell of `class`, `len` characters long.
    #[inline(always)]
    fn tally(&mut self, class: CellClass, len: u64) {
        self.classes.add(class);
        self.min_len = self.min_len.min(len);
        self.max_len = self.max_len.max(len);
    }

    /// Offers a cell as a sample while the column still looks for them.
    #[inline(always)]
    fn offer_sample(&mut self, cell: &[u8]) {
        if self.looks < SAMPLE_LOOKS {
            self.add_sample(cell);
        }
    }

    /// [`ColumnAcc::add`] with the commonest cells folded inline: a
    /// plain number (no sign, no padding, no exponent, at most one
    /// point); up to fifteen digits here, sixteen to nineteen in
    /// out-of-line steps. It keeps few values live, so the cell loop
    /// stays in registers; anything else takes the full path. Both paths
    /// give the same column (a proptest holds them together).
    #[inline(always)]
    fn add_plain(&mut self, cell: &[u8], record: u64) {
        let Some(number) = scan_plain_number(cell) else {
            return self.add(cell, record);
        };
        let frac_digits = match number.frac_digits {
            Some(f) if number.digits > 15 => {
                // A long fraction, as shortest float formatting writes
                // them: judged without reading the text again.
                let scan = DecimalScan::plain_fraction(number.mantissa, number.digits, f);
                return self.add_long_plain(scan, cell, record);
            }
            None if number.digits > 15 => {
                return self.add_long_integer(number.mantissa, cell, record)
            }
            f => f,
        };
        let len = cell.len() as u64;
        // At most fifteen digits: below 10^15, so the cast is exact.
        let value = number.mantissa as i64;
        match frac_digits {
            None => {
                self.tally(CellClass::Integer, len);
                self.range.add_i64(value);
            }
            Some(f) => {
                self.tally(CellClass::Float, len);
                self.range.add_short_decimal(value, f);
            }
        }
        self.offer_sample(cell);
    }

    /// [`ColumnAcc::add_plain`] for an integer of sixteen to nineteen
    /// digits (ids, hashes, nanosecond times): exact as an `i64` when it
    /// fits, flagged when a double cannot hold it.
    #[inline(never)]
    fn add_long_integer(&mut self, value: u64, cell: &[u8], record: u64) {
        self.tally(CellClass::Integer, cell.len() as u64);
        match i64::try_from(value) {
            Ok(v) => self.range.add_i64(v),
            Err(_) => self
                .range
                .add_integer(std::str::from_utf8(cell).unwrap_or_default()),
        }
        if value > MAX_SAFE_INTEGER {
            self.note_precision(PrecisionKind::UnsafeInteger, cell, record);
        }
        self.offer_sample(cell);
    }

    /// [`ColumnAcc::add_plain`] for a fraction of sixteen to nineteen
    /// digits.
    #[inline(never)]
    fn add_long_plain(&mut self, scan: DecimalScan, cell: &[u8], record: u64) {
        self.tally(CellClass::Float, cell.len() as u64);
        self.add_long_number(scan, cell, record);
        self.offer_sample(cell);
    }

    fn add(&mut self, cell: &[u8], record: u64) {
        let scan = scan_cell(cell);
        let class = scan.class;
        // Every class but `string` is ASCII: one byte, one character.
        let len = if class == CellClass::String {
            char_count(cell)
        } else {
            cell.len() as u64
        };
        self.tally(class, len);
        match class {
            CellClass::Empty => return,
            CellClass::Sentinel => {
                if let Some(i) = scan.sentinel {
                    self.sentinels[i] += 1;
                }
            }
            CellClass::Integer | CellClass::Float => {
                // `scan_cell` reads the number of every number cell.
                if let Some(number) = scan.number {
                    if let Some(v) = number.small_integer() {
                        self.range.add_i64(v);
                    } else if let Some((m, d)) = number.short_decimal() {
                        if m == 0 && number.is_negative() {
                            // `-0.0` keeps its sign as a double.
                            self.range.add_float(-0.0);
                        } else {
                            self.range.add_short_decimal(m, d);
                        }
                    } else if let Some(v) = number.exponent_f64() {
                        // A short literal with an exponent near its digits.
                        self.range.add_float(v);
                    } else {
                        // Long literals and far exponents: the general
                        // path, with the precision check (short ones never
                        // misstate).
                        self.add_long_number(number, scan.trimmed, record);
                    }
                }
            }
            _ => {}
        }
        self.offer_sample(cell);
    }

    #[inline(never)]
    fn add_sample(&mut self, cell: &[u8]) {
        self.looks += 1;
        let lossy;
        let kept = match std::str::from_utf8(cell) {
            Ok(text) => cap_text(text, self.text_cap).0,
            Err(_) => {
                lossy = lossy_prefix(cell, self.text_cap);
                lossy.as_str()
            }
        };
        if !self.samples.iter().any(|s| s == kept) {
            self.samples.push(kept.to_owned());
            if self.samples.len() == SAMPLE_VALUES_CAP {
                self.looks = SAMPLE_LOOKS;
            }
        }
    }

    #[inline(never)]
    fn add_long_number(&mut self, number: DecimalScan, digits: &[u8], record: u64) {
        let kind = match number.class() {
            CellClass::Float => {
                let (parsed, kind) = float_value_and_precision(digits, &number);
                if let Some(v) = parsed {
                    self.range.add_float(v);
                }
                kind
            }
            _ => {
                // A number literal is ASCII, so this never falls back.
                let text = std::str::from_utf8(digits).unwrap_or_default();
                self.range.add_integer(text);
                number_precision_of(text, None)
            }
        };
        if let Some(kind) = kind {
            self.note_precision(kind, digits, record);
        }
    }

    /// Counts a literal a double would misstate; the first one of each
    /// kind is kept as the example.
    fn note_precision(&mut self, kind: PrecisionKind, literal: &[u8], record: u64) {
        self.precision
            .entry(kind)
            .and_modify(|f| f.count += 1)
            .or_insert_with(|| PrecisionFact {
                kind,
                count: 1,
                example: lossy_prefix(literal, self.text_cap),
                record,
            });
    }

    fn report(self, index: usize, name: Option<String>) -> ColumnReport {
        let empty = self.classes.get(CellClass::Empty);
        let (min, max) = self.range.bounds();
        ColumnReport {
            index,
            name,
            inferred_type: infer_column_type(&self.classes),
            empty,
            sentinels: SENTINEL_TOKENS
                .iter()
                .zip(self.sentinels)
                .filter(|&(_, n)| n > 0)
                .map(|(token, n)| ((*token).to_owned(), n))
                .collect(),
            classes: self.classes,
            samples: self.samples,
            min_length: (self.min_len != u64::MAX).then_some(self.min_len),
            max_length: (self.min_len != u64::MAX).then_some(self.max_len),
            min,
            max,
            precision: self.precision.into_values().collect(),
        }
    }
}

/// The first [`COLUMN_TRACK_CAP`] cells of a record, each cut to its
/// column's [`text_cap`]: what inspect keeps of a header or a sample
/// row, so that neither grows with the column count or the cell length.
fn capped_row(r: &Record<'_>) -> Vec<String> {
    (0..r.len().min(COLUMN_TRACK_CAP))
        .filter_map(|i| Some(lossy_prefix(r.get(i)?, text_cap(i))))
        .collect()
}

/// The answer of CSV inspect.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CsvInspect {
    /// Always true.
    pub ok: bool,
    /// `csv` or `tsv`.
    pub format: &'static str,
    /// Exact when the whole file was read; sampled when a row cap stopped it.
    pub view: ViewFlags,
    /// The delimiter used.
    pub delimiter: String,
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
}

pub(crate) struct InspectSink {
    header: Option<Vec<String>>,
    columns: Vec<ColumnAcc>,
    widest: usize,
    issues: IssueList,
    sample: Vec<Vec<String>>,
    sample_rows: usize,
    /// Bytes of cell text in `sample`.
    sample_bytes: usize,
    sample_shortened: bool,
}

impl InspectSink {
    pub fn new(sample_rows: usize) -> InspectSink {
        InspectSink {
            header: None,
            columns: Vec::new(),
            widest: 0,
            issues: IssueList::default(),
            sample: Vec::new(),
            sample_rows,
            sample_bytes: 0,
            sample_shortened: false,
        }
    }

    pub fn finish(self, format: &'static str, s: &ScanSummary) -> CsvInspect {
        let header = self.header;
        let width = self.widest.max(header.as_ref().map_or(0, Vec::len));
        let tracked = width.min(COLUMN_TRACK_CAP);
        let mut accs = self.columns;
        track_columns(&mut accs, tracked);
        let columns = accs
            .into_iter()
            .enumerate()
            .map(|(i, acc)| {
                let name = header.as_ref().and_then(|h| h.get(i).cloned());
                acc.report(i, name)
            })
            .collect();
        CsvInspect {
            ok: true,
            format,
            view: ViewFlags::of_scan(s.stopped),
            delimiter: delimiter_name(s.delimiter),
            delimiter_confidence: s.confidence,
            header,
            row_count: (!s.stopped).then_some(s.rows),
            rows_scanned: s.rows,
            columns,
            untracked_columns: width.saturating_sub(COLUMN_TRACK_CAP) as u64,
            ragged_rows: s.ragged_rows,
            issues: self.issues.first,
            issue_count: self.issues.total,
            blank_lines: s.blank_lines,
            line_ending: s.endings.label(),
            bom: s.bom,
            sample: self.sample,
            sample_shortened: self.sample_shortened,
        }
    }
}

impl RowSink for InspectSink {
    fn keep_fields(&self) -> bool {
        // The sample needs whole rows; every later row comes cell by cell.
        self.sample.len() < self.sample_rows
    }

    fn wants_cells(&self) -> bool {
        true
    }

    #[inline]
    fn cell(&mut self, record: u64, index: usize, content: &[u8]) {
        if let Some(acc) = self.columns.get_mut(index) {
            acc.add_plain(content, record);
        } else if index < COLUMN_TRACK_CAP {
            track_columns(&mut self.columns, index + 1);
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
        if !row.has_fields() {
            // Its cells came one by one.
            return ControlFlow::Continue(());
        }
        let tracked = n.min(COLUMN_TRACK_CAP);
        if self.columns.len() < tracked {
            track_columns(&mut self.columns, tracked);
        }
        for (acc, cell) in self.columns.iter_mut().zip(row.iter()) {
            acc.add(cell, row.number);
        }
        if self.sample.len() < self.sample_rows {
            let cells = capped_row(row);
            let bytes: usize = cells.iter().map(String::len).sum();
            if !self.sample.is_empty() && self.sample_bytes + bytes > INSPECT_SAMPLE_BUDGET_BYTES {
                // The sample is full: later rows come cell by cell.
                self.sample_shortened = true;
                self.sample_rows = self.sample.len();
            } else {
                self.sample_bytes += bytes;
                self.sample.push(cells);
            }
        }
        ControlFlow::Continue(())
    }

    fn issue(&mut self, issue: &Issue) -> ControlFlow<()> {
        self.issues.add(issue);
        ControlFlow::Continue(())
    }
}

/// A column asked for in a select: by header name or by 0-based index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ColumnRef {
    /// A header name.
    Name(String),
    /// A 0-based index; negative values are refused.
    Index(i64),
}

impl ColumnRef {
    /// Reads `0`, `2` as indices and anything else as a name.
    pub fn parse(s: &str) -> ColumnRef {
        let t = s.trim();
        match t.parse::<i64>() {
            Ok(i) => ColumnRef::Index(i),
            Err(_) => ColumnRef::Name(t.to_owned()),
        }
    }

    /// Parses a comma-separated list (`a,b` or `0,2`).
    pub fn parse_list(s: &str) -> Vec<ColumnRef> {
        s.split(',')
            .filter(|p| !p.trim().is_empty())
            .map(ColumnRef::parse)
            .collect()
    }
}

/// The most bytes of cell text one CSV select returns: a window stops
/// before the row that would pass it, and a first row that alone passes
/// it has its longest cells cut (each saying its full length).
pub const CSV_SELECT_BUDGET_BYTES: usize = 1024 * 1024;

/// One cell of a selected row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SelectCell {
    /// A projected cell missing from a short row: `null`.
    Missing,
    /// The cell's text, verbatim.
    Text(String),
    /// A cell cut to fit [`CSV_SELECT_BUDGET_BYTES`]:
    /// `{"$truncated": "<kept prefix>", "bytes": <full length>}`.
    Cut {
        /// The kept prefix (whole characters).
        kept: String,
        /// The cell's full length in bytes.
        bytes: u64,
    },
    /// Cells past the 10,000th, left out:
    /// `{"$summary": {"omitted_cells": <count>}}`, always last in its row.
    Omitted(u64),
}

impl SelectCell {
    /// The text of a whole cell; `None` for a missing, cut or omitted one.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            SelectCell::Text(t) => Some(t),
            _ => None,
        }
    }

    fn cost(&self) -> usize {
        match self {
            SelectCell::Text(t) => t.len(),
            SelectCell::Cut { kept, .. } => kept.len(),
            SelectCell::Missing | SelectCell::Omitted(_) => 0,
        }
    }
}

impl Serialize for SelectCell {
    fn serialize<S: serde::Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        match self {
            SelectCell::Missing => ser.serialize_none(),
            SelectCell::Text(t) => ser.serialize_str(t),
            SelectCell::Cut { kept, bytes } => {
                let mut m = ser.serialize_map(Some(2))?;
                m.serialize_entry("$truncated", kept)?;
                m.serialize_entry("bytes", bytes)?;
                m.end()
            }
            SelectCell::Omitted(n) => {
                let mut m = ser.serialize_map(Some(1))?;
                m.serialize_entry("$summary", &serde_json::json!({ "omitted_cells": n }))?;
                m.end()
            }
        }
    }
}

/// The answer of CSV select.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CsvSelect {
    /// Always true.
    pub ok: bool,
    /// `csv` or `tsv`.
    pub format: &'static str,
    /// Exact: the rows are verbatim and whole; cut when a row hit a cap
    /// or a cell was cut to the select budget.
    pub view: ViewFlags,
    /// The delimiter used.
    pub delimiter: String,
    /// The header (projected when columns were given; otherwise its first
    /// 10,000 names), or null. Names are cut like cells when together
    /// they pass [`CSV_SELECT_BUDGET_BYTES`] (a budget of their own).
    pub header: Option<Vec<SelectCell>>,
    /// The 0-based indices of the projected columns, or null for all.
    pub columns: Option<Vec<usize>>,
    /// The rows, each an array of cell text, verbatim; a projected cell
    /// missing from a short row is null; see [`SelectCell`] for the
    /// placeholders of cut and omitted cells.
    pub rows: Vec<Vec<SelectCell>>,
    /// Data rows skipped before the window.
    pub offset: u64,
    /// The limit applied (clamped to 1..=1000).
    pub limit: usize,
    /// Rows returned.
    pub returned: usize,
    /// Whether rows follow the window.
    pub has_more: bool,
    /// Whether [`CSV_SELECT_BUDGET_BYTES`] ended the window before the
    /// limit (continue from `offset + returned`).
    pub shortened: bool,
    /// Issues found up to the end of the window.
    pub issues: Vec<IssueReport>,
}

pub(crate) struct SelectSink {
    offset: u64,
    limit: usize,
    wanted: Option<Vec<ColumnRef>>,
    projection: Option<Vec<usize>>,
    header: Option<Vec<SelectCell>>,
    rows: Vec<Vec<SelectCell>>,
    used: usize,
    has_more: bool,
    shortened: bool,
    cut: bool,
    issues: IssueList,
    pub(crate) error: Option<Refusal>,
}

/// The names listed in an `unknown-column` refusal.
const LISTED_NAMES: usize = 20;

impl SelectSink {
    pub fn new(offset: u64, limit: usize, columns: Option<Vec<ColumnRef>>) -> SelectSink {
        SelectSink {
            offset,
            limit,
            wanted: columns,
            projection: None,
            header: None,
            rows: Vec::new(),
            used: 0,
            has_more: false,
            shortened: false,
            cut: false,
            issues: IssueList::default(),
            error: None,
        }
    }

    pub fn finish(self, format: &'static str, s: &ScanSummary) -> CsvSelect {
        CsvSelect {
            ok: true,
            format,
            view: ViewFlags::exact().with_cut(self.cut),
            delimiter: delimiter_name(s.delimiter),
            header: self.header,
            columns: self.projection,
            returned: self.rows.len(),
            rows: self.rows,
            offset: self.offset,
            limit: self.limit,
            has_more: self.has_more,
            shortened: self.shortened,
            issues: self.issues.first,
        }
    }

    /// Resolves the wanted columns against the header record (or, with no
    /// header, against the first row's width), and keeps only the header
    /// names the answer shows.
    fn resolve(&mut self, width: usize, header: Option<&Record<'_>>) -> Result<(), Refusal> {
        let Some(wanted) = self.wanted.take() else {
            return Ok(());
        };
        if wanted.len() > COLUMN_TRACK_CAP {
            return Err(Refusal::invalid_argument(format!(
                "{} columns were asked for; a select projects at most {COLUMN_TRACK_CAP}, so ask for fewer",
                wanted.len()
            )));
        }
        let mut out = Vec::with_capacity(wanted.len());
        for w in wanted {
            match w {
                ColumnRef::Index(i) if i < 0 => {
                    return Err(Refusal::invalid_argument(format!(
                        "column index {i} is negative; columns are counted from 0"
                    )))
                }
                ColumnRef::Index(i) => {
                    let i = usize::try_from(i).unwrap_or(usize::MAX);
                    if i >= width {
                        return Err(Refusal::invalid_argument(format!(
                            "column index {i} is past the last column; this file has {width} columns (0 to {})",
                            width.saturating_sub(1)
                        )));
                    }
                    out.push(i);
                }
                ColumnRef::Name(name) => {
                    let Some(header) = header else {
                        return Err(Refusal::invalid_argument(format!(
                            "column `{}` is a name, but this file has no header; select columns by 0-based index, or pass header=true",
                            echo(&name)
                        )));
                    };
                    match (0..header.len()).find(|&i| header.get_str(i).is_some_and(|h| h == name))
                    {
                        Some(i) => out.push(i),
                        None => return Err(unknown_column(&name, header)),
                    }
                }
            }
        }
        if let Some(h) = header {
            self.header = budget_cells(h, out.iter().copied(), Fit::Cut(CSV_SELECT_BUDGET_BYTES));
        }
        self.projection = Some(out);
        Ok(())
    }

    /// The cells of `row` this window returns, within the budget left,
    /// or `None` when the row does not fit and starts the next window.
    /// Only a row that opens the window is cut to fit; the fit is judged
    /// on lengths, before anything is copied.
    fn cells(&self, row: &Record<'_>) -> Option<Vec<SelectCell>> {
        let room = CSV_SELECT_BUDGET_BYTES.saturating_sub(self.used);
        let fit = if self.rows.is_empty() {
            Fit::Cut(room.max(1))
        } else {
            Fit::Whole(room)
        };
        let mut out = match &self.projection {
            Some(p) => budget_cells(row, p.iter().copied(), fit)?,
            None => budget_cells(row, 0..row.len().min(COLUMN_TRACK_CAP), fit)?,
        };
        if self.projection.is_none() && row.len() > COLUMN_TRACK_CAP {
            out.push(SelectCell::Omitted((row.len() - COLUMN_TRACK_CAP) as u64));
        }
        Some(out)
    }
}

/// How cells must fit the bytes left for them.
#[derive(Clone, Copy)]
enum Fit {
    /// Whole, or not at all.
    Whole(usize),
    /// Cut to fit when they must be.
    Cut(usize),
}

/// The text of a cell as [`String::from_utf8_lossy`] would give it,
/// without making it: its length in bytes.
fn lossy_len(bytes: &[u8]) -> usize {
    bytes
        .utf8_chunks()
        .map(|c| c.valid().len() + if c.invalid().is_empty() { 0 } else { 3 })
        .sum()
}

/// The first whole characters of the lossy text of `bytes`, at most
/// `cap` bytes of them: cut while copying, so a long cell is never
/// copied whole only to be cut.
fn lossy_prefix(bytes: &[u8], cap: usize) -> String {
    let mut out = String::with_capacity(cap.min(bytes.len()));
    for chunk in bytes.utf8_chunks() {
        let replacement = if chunk.invalid().is_empty() {
            ""
        } else {
            "\u{FFFD}"
        };
        for piece in [chunk.valid(), replacement] {
            let (kept, cut) = cap_text(piece, cap - out.len());
            out.push_str(kept);
            if cut {
                return out;
            }
        }
    }
    out
}

/// Cells `indices` of `record` as select returns them, their text
/// together within `fit`: when they do not fit whole, either none is
/// returned ([`Fit::Whole`]) or the longest are cut to one common length,
/// each saying its full length ([`Fit::Cut`]). Cells past the record's
/// end are [`SelectCell::Missing`].
fn budget_cells(
    record: &Record<'_>,
    indices: impl Iterator<Item = usize> + Clone,
    fit: Fit,
) -> Option<Vec<SelectCell>> {
    let lens: Vec<Option<usize>> = indices
        .clone()
        .map(|i| record.get(i).map(lossy_len))
        .collect();
    let total = lens
        .iter()
        .flatten()
        .fold(0usize, |a, &l| a.saturating_add(l));
    // The longest a cell may stay so that the row fits the room.
    let cap = match fit {
        Fit::Whole(room) | Fit::Cut(room) if total <= room => usize::MAX,
        Fit::Whole(_) => return None,
        Fit::Cut(room) => {
            let mut sorted: Vec<usize> = lens.iter().flatten().copied().collect();
            sorted.sort_unstable();
            largest_cap(&sorted, room)
        }
    };
    let cells = indices
        .zip(lens)
        .map(|(i, len)| match (record.get(i), len) {
            (Some(bytes), Some(len)) if len <= cap => SelectCell::Text(lossy_prefix(bytes, len)),
            (Some(bytes), Some(len)) => SelectCell::Cut {
                kept: lossy_prefix(bytes, cap),
                bytes: len as u64,
            },
            _ => SelectCell::Missing,
        })
        .collect();
    Some(cells)
}

/// The largest cell length `c` such that the lengths, each cut to `c`,
/// sum to at most `room` (`lens` sorted ascending).
fn largest_cap(lens: &[usize], room: usize) -> usize {
    let mut before = 0usize;
    for (k, &len) in lens.iter().enumerate() {
        let left = lens.len() - k;
        // Cells from k on are all cut to the same length.
        if before + len * left > room {
            return (room - before) / left;
        }
        before += len;
    }
    usize::MAX
}

fn unknown_column(name: &str, header: &Record<'_>) -> Refusal {
    let listed: Vec<String> = (0..header.len().min(LISTED_NAMES))
        .filter_map(|i| header.get_str(i))
        .map(|h| echo(&h))
        .collect();
    let more = header.len().saturating_sub(listed.len());
    let tail = if more > 0 {
        format!(" (and {more} more)")
    } else {
        String::new()
    };
    Refusal::new(
        RefusalReason::UnknownColumn,
        format!(
            "column `{}` is not in the header; the columns are: {}{tail}",
            echo(name),
            listed.join(", ")
        ),
    )
    .with_extra("available", Value::from(listed))
    .with_extra("available_total", Value::from(header.len()))
}

impl RowSink for SelectSink {
    fn keep_fields(&self) -> bool {
        // Rows before the window need no content; the first row may be
        // needed for the projection width, which `len` gives anyway.
        true
    }

    fn header(&mut self, header: Option<&Record<'_>>) -> Result<(), Refusal> {
        if let Some(h) = header {
            // The projected names when columns were asked for (set by
            // `resolve`), else the first names.
            self.resolve(h.len(), Some(h))?;
            if self.header.is_none() {
                self.header = budget_cells(
                    h,
                    0..h.len().min(COLUMN_TRACK_CAP),
                    Fit::Cut(CSV_SELECT_BUDGET_BYTES),
                );
            }
            let names = self.header.iter().flatten();
            self.cut |= names
                .into_iter()
                .any(|c| matches!(c, SelectCell::Cut { .. }));
        }
        Ok(())
    }

    fn row(&mut self, index: u64, row: &Record<'_>) -> ControlFlow<()> {
        if self.wanted.is_some() {
            // No header: the first data row gives the width.
            if let Err(refusal) = self.resolve(row.len(), None) {
                self.error = Some(refusal);
                return ControlFlow::Break(());
            }
        }
        if index < self.offset {
            return ControlFlow::Continue(());
        }
        if self.rows.len() >= self.limit {
            self.has_more = true;
            return ControlFlow::Break(());
        }
        let Some(cells) = self.cells(row) else {
            // This row starts the next window.
            self.has_more = true;
            self.shortened = true;
            return ControlFlow::Break(());
        };
        let cost: usize = cells.iter().map(SelectCell::cost).sum();
        if row.overflow.is_some()
            || cells
                .iter()
                .any(|c| matches!(c, SelectCell::Cut { .. } | SelectCell::Omitted(_)))
        {
            self.cut = true;
        }
        self.used += cost;
        self.rows.push(cells);
        ControlFlow::Continue(())
    }

    fn issue(&mut self, issue: &Issue) -> ControlFlow<()> {
        self.issues.add(issue);
        ControlFlow::Continue(())
    }
}

/// The answer of CSV validate.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CsvValidate {
    /// Always true (the scan ran; see `valid` for the verdict).
    pub ok: bool,
    /// `csv` or `tsv`.
    pub format: &'static str,
    /// Exact when the whole file was read; sampled when a row cap stopped it.
    pub view: ViewFlags,
    /// True: every row well formed and the whole file read. False: ragged
    /// rows or quoting or size issues. Null: stopped at the row cap with
    /// no fault found.
    pub valid: Option<bool>,
    /// The delimiter used.
    pub delimiter: String,
    /// Data rows read.
    pub rows_scanned: u64,
    /// The first issues, in order.
    pub issues: Vec<IssueReport>,
    /// All issues found.
    pub issue_count: u64,
    /// Rows whose field count differs from the header's (or the first row's).
    pub ragged_rows: u64,
    /// Empty lines between records.
    pub blank_lines: u64,
}

#[derive(Default)]
pub(crate) struct ValidateSink {
    issues: IssueList,
}

impl ValidateSink {
    pub fn finish(self, format: &'static str, s: &ScanSummary) -> CsvValidate {
        let valid = if self.issues.faults > 0 {
            Some(false)
        } else if s.stopped {
            None
        } else {
            Some(true)
        };
        CsvValidate {
            ok: true,
            format,
            view: ViewFlags::of_scan(s.stopped),
            valid,
            delimiter: delimiter_name(s.delimiter),
            rows_scanned: s.rows,
            issues: self.issues.first,
            issue_count: self.issues.total,
            ragged_rows: s.ragged_rows,
            blank_lines: s.blank_lines,
        }
    }
}

impl RowSink for ValidateSink {
    fn keep_fields(&self) -> bool {
        false
    }

    fn row(&mut self, _index: u64, _row: &Record<'_>) -> ControlFlow<()> {
        ControlFlow::Continue(())
    }

    fn issue(&mut self, issue: &Issue) -> ControlFlow<()> {
        self.issues.add(issue);
        ControlFlow::Continue(())
    }
}

#[cfg(test)]
mod tests {
    use super::{budget_cells, char_count, lossy_len, lossy_prefix, Fit, SelectCell};
    use crate::Record;
    use plumb_core::cap_text;
    use proptest::strategy::Strategy;

    proptest::proptest! {
        /// Counted eight bytes at a time, as `chars()` counts valid text
        /// and as a byte-at-a-time count does any bytes.
        #[test]
        fn char_count_matches_chars_and_the_byte_count(
            text in "\\PC{0,40}",
            bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..40),
        ) {
            proptest::prop_assert_eq!(char_count(text.as_bytes()), text.chars().count() as u64);
            let naive = bytes.iter().filter(|&&c| c & 0xC0 != 0x80).count() as u64;
            proptest::prop_assert_eq!(char_count(&bytes), naive);
        }
    }

    proptest::proptest! {
        /// Cut while copying, as cutting the whole lossy text would.
        #[test]
        fn lossy_prefix_is_the_cut_lossy_text(
            pieces in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::num::u8::ANY.prop_map(|b| vec![b]),
                    "[aé€😀]".prop_map(String::into_bytes),
                ],
                0..40,
            ),
            cap in 0usize..80,
        ) {
            let bytes = pieces.concat();
            let whole = String::from_utf8_lossy(&bytes);
            proptest::prop_assert_eq!(lossy_len(&bytes), whole.len());
            proptest::prop_assert_eq!(lossy_prefix(&bytes, cap), cap_text(&whole, cap).0);
        }

        /// Cells cut to a common length fit the room, and only when the
        /// whole row would not; whole cells are the lossy text.
        #[test]
        fn budget_cells_fit_their_room(
            cells in proptest::collection::vec(proptest::collection::vec(proptest::num::u8::ANY, 0..50), 1..8),
            room in 1usize..200,
        ) {
            let mut data = Vec::new();
            let mut ends = Vec::new();
            for c in &cells {
                data.extend_from_slice(c);
                ends.push(data.len() as u32);
            }
            let record = Record::from_parts(1, 1, 0, &data, &ends);
            let lossy: Vec<String> = cells.iter().map(|c| String::from_utf8_lossy(c).into_owned()).collect();
            let total: usize = lossy.iter().map(String::len).sum();
            let cut = budget_cells(&record, 0..cells.len() + 1, Fit::Cut(room)).unwrap();
            proptest::prop_assert_eq!(cut.last(), Some(&SelectCell::Missing));
            let kept: usize = cut.iter().map(SelectCell::cost).sum();
            proptest::prop_assert!(kept <= room);
            for (cell, text) in cut.iter().zip(&lossy) {
                match cell {
                    SelectCell::Text(t) => proptest::prop_assert_eq!(t, text),
                    SelectCell::Cut { kept, bytes } => {
                        proptest::prop_assert!(total > room);
                        proptest::prop_assert_eq!(*bytes, text.len() as u64);
                        proptest::prop_assert!(text.starts_with(kept.as_str()));
                    }
                    other => proptest::prop_assert!(false, "{:?}", other),
                }
            }
            let whole = budget_cells(&record, 0..cells.len(), Fit::Whole(room));
            proptest::prop_assert_eq!(whole.is_some(), total <= room);
        }
    }
}
