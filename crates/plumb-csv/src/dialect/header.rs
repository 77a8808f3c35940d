//! The header decision's parts: whether a first record reads as column
//! names, the header over row names that R's `write.csv` and pandas'
//! `to_csv` (with its index) write, and the first record held while the
//! decision waits for the next one. The resolver in `scan.rs` decides.

use crate::cell::{classify_bytes, CellClass};
use crate::machine::Record;

/// Whether a record reads as column names: every cell is non-empty text
/// that is not a number, date, boolean or missing-value token.
pub(crate) fn header_looks_like_names(record: &Record<'_>) -> bool {
    record.has_fields()
        && !record.is_empty()
        && record
            .iter()
            .all(|cell| classify_bytes(cell) == CellClass::String)
}

/// The name given to the empty first cell of a row-names header (see
/// [`names_after_row_names`]), as DuckDB names an unnamed column.
pub const ROW_NAMES_COLUMN: &str = "column0";

/// Whether a record reads as the header R's `write.csv` (and pandas'
/// `to_csv` with an unnamed index) writes: an empty first cell over the
/// row names, then column names. It is a header only when the next
/// record confirms it ([`confirms_row_names`]).
pub(crate) fn names_after_row_names(record: &Record<'_>) -> bool {
    record.has_fields()
        && record.len() >= 2
        && record.get(0).is_some_and(<[u8]>::is_empty)
        && record
            .iter()
            .skip(1)
            .all(|cell| classify_bytes(cell) == CellClass::String)
}

/// Whether the record after a [`names_after_row_names`] one reads as a
/// row under it: a row name in its first cell, and some cell that is not
/// text (a number, a date, a missing value: what names never are).
pub(crate) fn confirms_row_names(record: &Record<'_>) -> bool {
    record.get(0).is_some_and(|c| !c.is_empty())
        && record
            .iter()
            .any(|cell| classify_bytes(cell) != CellClass::String)
}

/// The first record, held while the header decision waits for a second
/// one. It holds the parser's own buffers (taken in
/// [`CsvSink::adopt`](crate::CsvSink::adopt), never copied), and only while a second record
/// has not begun: the decision is made the moment one does, so the two
/// are never in memory together.
pub(crate) struct Held {
    pub(crate) number: u64,
    pub(crate) line: u64,
    pub(crate) byte_offset: u64,
    pub(crate) quoting_issues: u32,
    pub(crate) data: Vec<u8>,
    pub(crate) ends: Vec<u32>,
    /// A row-names header, waiting for the next record to confirm it.
    pub(crate) row_names: bool,
}

impl Held {
    /// The record with its empty first cell named [`ROW_NAMES_COLUMN`].
    pub(crate) fn named_row_names(mut self) -> Held {
        let name = ROW_NAMES_COLUMN.as_bytes();
        let shift = u32::try_from(name.len()).unwrap_or(0);
        self.data.splice(0..0, name.iter().copied());
        for end in &mut self.ends {
            *end += shift;
        }
        self
    }

    pub(crate) fn record(&self) -> Record<'_> {
        let mut r = Record::from_parts(
            self.number,
            self.line,
            self.byte_offset,
            &self.data,
            &self.ends,
        );
        r.quoting_issues = self.quoting_issues;
        r
    }
}
