//! CSV select: a window of rows, projected by name or index, whose text
//! stays within [`CSV_SELECT_BUDGET_BYTES`]; cells are cut while copied.

use std::ops::ControlFlow;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use plumb_core::{echo, Refusal, RefusalReason, TailSelectWindow, ViewFlags, COLUMN_TRACK_CAP};

use crate::machine::{Issue, IssueReport, Record};
use crate::scan::{RowSink, ScanSummary};

use super::{lossy_len, lossy_prefix, DialectReport, IssueList};

/// A column asked for in a select: by header name or by 0-based index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ColumnRef {
    /// A header name.
    Name(String),
    /// A 0-based index; negative values are refused.
    Index(i64),
}

/// What a column reference is resolved against: the header, or, in a
/// file without one, the first data row (its width is the table's).
#[derive(Clone, Copy)]
pub(crate) enum Head<'r, 'a> {
    /// The header record: names resolve against it.
    Header(&'r Record<'a>),
    /// The first data row of a file without a header: indices only.
    FirstRow(&'r Record<'a>),
}

impl<'r, 'a> Head<'r, 'a> {
    /// The table's width: the header's or the first row's field count.
    pub(crate) fn width(self) -> usize {
        match self {
            Head::Header(r) | Head::FirstRow(r) => r.len(),
        }
    }

    fn header(self) -> Option<&'r Record<'a>> {
        match self {
            Head::Header(r) => Some(r),
            Head::FirstRow(_) => None,
        }
    }
}

impl ColumnRef {
    /// Reads `0`, `2` as indices, a JSON string in double quotes
    /// (`"2019"`) as a name however it reads, and anything else as a
    /// name.
    ///
    /// ```
    /// use plumb_csv::ColumnRef;
    /// assert_eq!(ColumnRef::parse("2"), ColumnRef::Index(2));
    /// assert_eq!(ColumnRef::parse("\"2\""), ColumnRef::Name("2".into()));
    /// assert_eq!(ColumnRef::parse(" city "), ColumnRef::Name("city".into()));
    /// ```
    pub fn parse(s: &str) -> ColumnRef {
        let t = s.trim();
        if t.starts_with('"') {
            if let Ok(name) = serde_json::from_str::<String>(t) {
                return ColumnRef::Name(name);
            }
        }
        match t.parse::<i64>() {
            Ok(i) => ColumnRef::Index(i),
            Err(_) => ColumnRef::Name(t.to_owned()),
        }
    }

    /// The 0-based column this names in the table `head` begins. A name
    /// must name exactly one column. An index
    /// whose digits are also a header name (a header of years, `2019`)
    /// means that column when the index is past the last column or is
    /// that column itself; when it would mean two different columns it
    /// is refused, never guessed.
    ///
    /// # Errors
    /// `unknown-column` for a name not in the header; `invalid-argument`
    /// for a negative index, an index past the last column, a name when
    /// there is no header, a name several columns share, or digits that
    /// are one column's index and another's name.
    ///
    /// Without a header, an index past the last column whose digits are
    /// a cell of the first row (a header of years that detection read as
    /// data) is refused with the advice to pass the header option.
    pub(crate) fn resolve(&self, head: Head<'_, '_>) -> Result<usize, Refusal> {
        self.resolve_in(head, false)
    }

    /// [`ColumnRef::resolve`], but an index past the last column that
    /// names no header cell resolves to itself (below
    /// [`COLUMN_TRACK_CAP`]): rows wider than the header hold such
    /// columns, which a scan of every row (search) can judge and then
    /// tell whether any row reached.
    pub(crate) fn resolve_past_header(&self, head: Head<'_, '_>) -> Result<usize, Refusal> {
        self.resolve_in(head, true)
    }

    fn resolve_in(&self, head: Head<'_, '_>, past_header: bool) -> Result<usize, Refusal> {
        let width = head.width();
        let header = head.header();
        let named = |name: &str| -> Vec<usize> {
            header.map_or_else(Vec::new, |h| {
                (0..h.len())
                    .filter(|&i| h.get_str(i).is_some_and(|n| n == name))
                    .collect()
            })
        };
        match self {
            ColumnRef::Index(i) if *i < 0 => Err(Refusal::invalid_argument(format!(
                "column index {i} is negative; columns are counted from 0"
            ))),
            ColumnRef::Index(i) => {
                let at = usize::try_from(*i).unwrap_or(usize::MAX);
                let digits = i.to_string();
                let names = named(&digits);
                let in_first = match head {
                    Head::FirstRow(row) => row.iter().any(|c| c.trim_ascii() == digits.as_bytes()),
                    Head::Header(_) => false,
                };
                match names.as_slice() {
                    [] if at < width => Ok(at),
                    // Digits the first row holds are likely a header
                    // read as data: refused with that advice at once.
                    [] if past_header && at < COLUMN_TRACK_CAP && !in_first => Ok(at),
                    [] => {
                        let advice = if in_first {
                            format!(
                                "; the first row holds `{digits}`: if that row is the header, pass header=true"
                            )
                        } else {
                            String::new()
                        };
                        Err(Refusal::invalid_argument(format!(
                            "column index {i} is not a column; this file has {width} columns (0 to {}){advice}",
                            width.saturating_sub(1)
                        )))
                    }
                    [j] if *j == at || at >= width => Ok(*j),
                    _ if at >= width => Err(shared_name(&digits, &names)),
                    _ => Err(Refusal::invalid_argument(format!(
                        "`{i}` is column index {i} and also the name of column {}; \
                         write the index of the one you mean, or the name in double quotes (\"{i}\") for the named one",
                        list_indices(&names)
                    ))),
                }
            }
            ColumnRef::Name(name) => {
                let Some(h) = header else {
                    return Err(Refusal::invalid_argument(format!(
                        "column `{}` is a name, but this file has no header; name columns by 0-based index, or pass header=true",
                        echo(name)
                    )));
                };
                match named(name).as_slice() {
                    [] => Err(unknown_column(name, h)),
                    [j] => Ok(*j),
                    several => Err(shared_name(name, several)),
                }
            }
        }
    }
}

/// The refusal for a name several header cells share.
fn shared_name(name: &str, at: &[usize]) -> Refusal {
    Refusal::invalid_argument(format!(
        "column `{}` is the name of columns {}; name the one you mean by its 0-based index",
        echo(name),
        list_indices(at)
    ))
}

/// `0`, `0 and 2`, `0, 2 and 5` (the first ten, then how many more).
fn list_indices(at: &[usize]) -> String {
    let shown: Vec<String> = at.iter().take(10).map(usize::to_string).collect();
    let more = at.len().saturating_sub(shown.len());
    match (shown.split_last(), more) {
        (Some((last, [])), 0) => last.clone(),
        (Some((last, rest)), 0) => format!("{} and {last}", rest.join(", ")),
        _ => format!("{} and {more} more", shown.join(", ")),
    }
}

/// What one CSV select's cells may cost: each cell its text plus
/// [`CSV_SELECT_CELL_FRAME_BYTES`]. A window stops before the row that
/// would pass it, and a first row that alone passes it has its longest
/// cells cut (each saying its full length).
pub const CSV_SELECT_BUDGET_BYTES: usize = 1024 * 1024;

/// What each cell of a window costs beside its text (its quotes and
/// separator in the answer, its place in memory), so that a window of
/// many empty or one-letter cells is bounded as one of long cells is.
pub const CSV_SELECT_CELL_FRAME_BYTES: usize = 8;

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
        CSV_SELECT_CELL_FRAME_BYTES
            + match self {
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

/// Reads back what [`SelectCell`]'s serialization writes (a search part
/// of a byte range travels with its hits' cells).
impl<'de> Deserialize<'de> for SelectCell {
    fn deserialize<D: serde::Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        struct Count {
            omitted_cells: u64,
        }
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Form {
            Missing(()),
            Text(String),
            Cut {
                #[serde(rename = "$truncated")]
                kept: String,
                bytes: u64,
            },
            Omitted {
                #[serde(rename = "$summary")]
                summary: Count,
            },
        }
        Ok(match Form::deserialize(de)? {
            Form::Missing(()) => SelectCell::Missing,
            Form::Text(t) => SelectCell::Text(t),
            Form::Cut { kept, bytes } => SelectCell::Cut { kept, bytes },
            Form::Omitted { summary } => SelectCell::Omitted(summary.omitted_cells),
        })
    }
}

/// A cell's text, `null` when missing, or the placeholder of a cut cell
/// or of the cells left out, as [`SelectCell`]'s serialization writes it.
impl schemars::JsonSchema for SelectCell {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "SelectCell".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "the cell verbatim; null for a cell a short row lacks; {$truncated, bytes} for a cell cut to the budget; {$summary: {omitted_cells}} for the cells past the last kept",
            "anyOf": [
                {"type": ["string", "null"]},
                {
                    "type": "object",
                    "properties": {"$truncated": {"type": "string"}, "bytes": {"type": "integer", "minimum": 0}},
                    "required": ["$truncated", "bytes"]
                },
                {
                    "type": "object",
                    "properties": {"$summary": {
                        "type": "object",
                        "properties": {"omitted_cells": {"type": "integer", "minimum": 0}},
                        "required": ["omitted_cells"]
                    }},
                    "required": ["$summary"]
                }
            ]
        })
    }
}

/// The answer of CSV select.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct CsvSelect {
    /// Always true.
    pub ok: bool,
    /// `csv` or `tsv`.
    pub format: &'static str,
    /// Exact: the rows are verbatim and whole; cut when a row hit a cap
    /// or a cell was cut to the select budget.
    pub view: ViewFlags,
    /// The dialect read with (flattened: `delimiter`, `delimiter_note`,
    /// `quote`, `skipped_lines`, `comment`, `comment_lines`).
    #[serde(flatten)]
    pub dialect: DialectReport,
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
    /// The window (flattened): `offset`, the data rows skipped before
    /// it (null when it was counted from the end and the start was not
    /// scanned); `from_end`, the N of a negative offset (`-N`: the last
    /// N rows), else null; `counted_from_end`, whether it was found by
    /// reading back from the end, so the rows' numbers from the start
    /// are not known (false for a tail that had to be read from the
    /// start: a stream, a short file, a file whose end did not parse on
    /// its own, which has its `offset`); `limit` (clamped to 1..=1000);
    /// `returned`; `has_more`, whether rows follow.
    #[serde(flatten)]
    pub window: TailSelectWindow,
    /// Whether [`CSV_SELECT_BUDGET_BYTES`] ended the window before the
    /// limit (continue from `offset + returned`).
    pub shortened: bool,
    /// The issues of the header and of the rows returned (one per record
    /// and kind), not of the rows skipped before the window.
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
    /// The issues of the record being read, held until it is known
    /// whether that record is the header or in the window (issues come
    /// before their record).
    pending: IssueList,
    pending_record: Option<u64>,
    error: Option<Refusal>,
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
            pending: IssueList::default(),
            pending_record: None,
            error: None,
        }
    }

    pub fn finish(self, format: &'static str, s: &ScanSummary) -> CsvSelect {
        CsvSelect {
            ok: true,
            format,
            view: ViewFlags::exact().with_cut(self.cut),
            dialect: s.dialect_report(),
            header: self.header,
            columns: self.projection,
            window: TailSelectWindow {
                offset: Some(self.offset),
                from_end: None,
                counted_from_end: false,
                limit: self.limit,
                returned: self.rows.len(),
                has_more: self.has_more,
            },
            rows: self.rows,
            shortened: self.shortened,
            issues: self.issues.first,
        }
    }

    /// Resolves the wanted columns against the header record (or, with no
    /// header, against the first row's width), and keeps only the header
    /// names the answer shows.
    fn resolve(&mut self, head: Head<'_, '_>) -> Result<(), Refusal> {
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
            out.push(w.resolve(head)?);
        }
        if let Head::Header(h) = head {
            self.header = budget_cells(
                h,
                out.iter().copied(),
                Fit::Cut(CSV_SELECT_BUDGET_BYTES),
                CSV_SELECT_CELL_FRAME_BYTES,
            );
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
            Some(p) => budget_cells(row, p.iter().copied(), fit, CSV_SELECT_CELL_FRAME_BYTES)?,
            None => budget_cells(
                row,
                0..row.len().min(COLUMN_TRACK_CAP),
                fit,
                CSV_SELECT_CELL_FRAME_BYTES,
            )?,
        };
        if self.projection.is_none() && row.len() > COLUMN_TRACK_CAP {
            out.push(SelectCell::Omitted((row.len() - COLUMN_TRACK_CAP) as u64));
        }
        Some(out)
    }
}

/// How cells must fit the bytes left for them.
#[derive(Clone, Copy)]
pub(crate) enum Fit {
    /// Whole, or not at all.
    Whole(usize),
    /// Cut to fit when they must be.
    Cut(usize),
}

/// Cells `indices` of `record` as select returns them, their text and
/// `frame` bytes a cell together within `fit`: when they do not fit whole, either none is
/// returned ([`Fit::Whole`]) or the longest are cut to one common length,
/// each saying its full length ([`Fit::Cut`]). Cells past the record's
/// end are [`SelectCell::Missing`].
pub(crate) fn budget_cells(
    record: &Record<'_>,
    indices: impl Iterator<Item = usize> + Clone,
    fit: Fit,
    frame: usize,
) -> Option<Vec<SelectCell>> {
    let lens: Vec<Option<usize>> = indices
        .clone()
        .map(|i| record.get(i).map(lossy_len))
        .collect();
    let frames = lens.len().saturating_mul(frame);
    let total = lens
        .iter()
        .flatten()
        .fold(frames, |a, &l| a.saturating_add(l));
    // The longest a cell may stay so that the row fits the room.
    let cap = match fit {
        Fit::Whole(room) | Fit::Cut(room) if total <= room => usize::MAX,
        Fit::Whole(_) => return None,
        Fit::Cut(room) => {
            let mut sorted: Vec<usize> = lens.iter().flatten().copied().collect();
            sorted.sort_unstable();
            largest_cap(&sorted, room.saturating_sub(frames))
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

pub(crate) fn unknown_column(name: &str, header: &Record<'_>) -> Refusal {
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
    /// A projection that cannot be resolved (a name not in the header, an
    /// index past the last column) stopped the scan; this says why.
    fn finish(&mut self) -> Result<(), Refusal> {
        self.error.take().map_or(Ok(()), Err)
    }

    fn keep_fields(&self) -> bool {
        // Rows before the window need no content; the first row may be
        // needed for the projection width, which `len` gives anyway.
        true
    }

    fn header(&mut self, header: Option<&Record<'_>>) -> Result<(), Refusal> {
        if let Some(h) = header {
            self.keep_issues_of(h.number);
            // The projected names when columns were asked for (set by
            // `resolve`), else the first names.
            self.resolve(Head::Header(h))?;
            if self.header.is_none() {
                self.header = budget_cells(
                    h,
                    0..h.len().min(COLUMN_TRACK_CAP),
                    Fit::Cut(CSV_SELECT_BUDGET_BYTES),
                    CSV_SELECT_CELL_FRAME_BYTES,
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
            if let Err(refusal) = self.resolve(Head::FirstRow(row)) {
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
        self.keep_issues_of(row.number);
        ControlFlow::Continue(())
    }

    /// Held until its record is known to be the header or in the window.
    fn issue(&mut self, issue: &Issue) -> ControlFlow<()> {
        if self.pending_record != Some(issue.record) {
            self.pending = IssueList::default();
            self.pending_record = Some(issue.record);
        }
        self.pending.add(issue);
        ControlFlow::Continue(())
    }
}

impl SelectSink {
    /// The issues held for `record` belong to the answer.
    fn keep_issues_of(&mut self, record: u64) {
        if self.pending_record == Some(record) {
            self.pending_record = None;
            self.issues.absorb(std::mem::take(&mut self.pending));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{budget_cells, Fit, SelectCell};
    use crate::Record;

    proptest::proptest! {
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
            let frame = super::CSV_SELECT_CELL_FRAME_BYTES;
            let total: usize = lossy.iter().map(String::len).sum::<usize>() + frame * cells.len();
            let cut = budget_cells(&record, 0..cells.len() + 1, Fit::Cut(room), frame).unwrap();
            proptest::prop_assert_eq!(cut.last(), Some(&SelectCell::Missing));
            let kept: usize = cut.iter().map(SelectCell::cost).sum();
            // Cut cells still cost their frames: a row of more cells than
            // the room has frames for keeps none of their text.
            proptest::prop_assert!(kept <= room.max(frame * (cells.len() + 1)));
            for (cell, text) in cut.iter().zip(&lossy) {
                match cell {
                    SelectCell::Text(t) => proptest::prop_assert_eq!(t, text),
                    SelectCell::Cut { kept, bytes } => {
                        proptest::prop_assert!(total + frame > room);
                        proptest::prop_assert_eq!(*bytes, text.len() as u64);
                        proptest::prop_assert!(text.starts_with(kept.as_str()));
                    }
                    other => proptest::prop_assert!(false, "{:?}", other),
                }
            }
            let whole = budget_cells(&record, 0..cells.len(), Fit::Whole(room), frame);
            proptest::prop_assert_eq!(whole.is_some(), total <= room);
        }
    }
}
