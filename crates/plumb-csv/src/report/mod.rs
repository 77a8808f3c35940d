//! The three reports, each a sink over resolved rows and a typed,
//! serializable result: [`inspect`] (per-column facts and a sample),
//! [`select`] (a window of rows within a byte budget) and [`validate`]
//! (a verdict and the issues). What they share lives here: the issue
//! list and lossy text cut while it is copied.

mod column;
mod dates;
mod fetch;
mod inspect;
mod judge;
mod search;
mod select;
mod shape;
mod stats;
mod tail;
mod validate;

pub use column::{ColumnReport, PrecisionFact};
pub(crate) use fetch::fetch_hits;
pub use inspect::{
    CsvInspect, INSPECT_NARROW_TEXT_BYTES, INSPECT_SAMPLE_BUDGET_BYTES, INSPECT_WIDE_TEXT_COLUMNS,
};
pub(crate) use inspect::{InspectSink, InspectState};
pub(crate) use search::{ColumnProbe, SearchSink};
pub use search::{
    CsvSearch, RowHit, CSV_SEARCH_FETCH_BYTES, CSV_SEARCH_ROW_BYTES, CSV_SEARCH_ROW_CELLS,
};
pub(crate) use select::SelectSink;
pub use select::{
    ColumnRef, CsvSelect, SelectCell, CSV_SELECT_BUDGET_BYTES, CSV_SELECT_CELL_FRAME_BYTES,
};
pub(crate) use tail::select_last;
pub use validate::CsvValidate;
pub(crate) use validate::ValidateSink;

use serde::Serialize;

use plumb_core::FIRST_ISSUES_CAP;

use crate::machine::{Issue, IssueReport};

/// The dialect an answer was read with, as every CSV/TSV answer states
/// it (flattened into the answer).
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct DialectReport {
    /// The delimiter used (`spaces` for runs of spaces).
    pub delimiter: String,
    /// Said when the delimiter was detected with low confidence (below
    /// [`CSV_LOW_CONFIDENCE`](crate::CSV_LOW_CONFIDENCE)), with a hint to
    /// pass it; null otherwise.
    pub delimiter_note: Option<String>,
    /// The quote character used, or `none`.
    pub quote: String,
    /// Lines skipped before the table: asked with `skip_lines`, or a
    /// detected preamble.
    pub skipped_lines: u64,
    /// The comment character in effect: given, or `#` when the file
    /// opens with `#` lines; null when none.
    pub comment: Option<String>,
    /// Comment lines skipped after the table began.
    pub comment_lines: u64,
    /// Said when the header was read with a name plumb gave: an empty
    /// first cell over row names (as R's `write.csv` writes), named
    /// `column0`. Left out otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub header_note: Option<String>,
}

impl crate::scan::ScanSummary {
    /// The dialect as answers state it.
    pub(crate) fn dialect_report(&self) -> DialectReport {
        let delimiter = crate::dialect::delimiter_name(self.delimiter, self.runs);
        DialectReport {
            delimiter_note: confidence_note(
                self.confidence,
                self.partial_sample,
                &delimiter,
            ),
            delimiter,
            quote: crate::dialect::quote_name(self.quote),
            skipped_lines: self.skipped_lines,
            comment: self.comment.map(|c| char::from(c).to_string()),
            comment_lines: self.comment_lines,
            header_note: self.named_row_names.then(|| {
                format!(
                    "the header's first cell is empty, over row names (as R's write.csv writes them); the column is named {}",
                    crate::dialect::header::ROW_NAMES_COLUMN
                )
            }),
        }
    }
}

/// The first issues in full, and a count of all of them: one issue per
/// record and kind, however often it recurs in the record (the listed
/// one counts its occurrences), so the first slots never fill with
/// copies and the count is of problems, not of quote characters.
#[derive(Clone, Debug, Default)]
pub(crate) struct IssueList {
    pub first: Vec<IssueReport>,
    pub total: u64,
    pub faults: u64,
    /// The record of the last issue, and the kinds it has had (a bit per
    /// kind): issues arrive in record order.
    current: Option<(u64, u32)>,
}

impl IssueList {
    pub fn add(&mut self, issue: &Issue) {
        let bit = 1u32 << (issue.kind as u32);
        match &mut self.current {
            Some((record, kinds)) if *record == issue.record => {
                if *kinds & bit != 0 {
                    let listed = self
                        .first
                        .iter_mut()
                        .rev()
                        .take_while(|e| e.record == issue.record)
                        .find(|e| e.kind == issue.kind);
                    if let Some(entry) = listed {
                        entry.occurrences += 1;
                    }
                    return;
                }
                *kinds |= bit;
            }
            _ => self.current = Some((issue.record, bit)),
        }
        self.total += 1;
        self.faults += u64::from(issue.kind.is_fault());
        if self.first.len() < FIRST_ISSUES_CAP {
            self.first.push(IssueReport::from(issue));
        }
    }

    /// Takes in the issues of another list (of later records).
    pub fn absorb(&mut self, other: IssueList) {
        self.total += other.total;
        self.faults += other.faults;
        let room = FIRST_ISSUES_CAP.saturating_sub(self.first.len());
        self.first.extend(other.first.into_iter().take(room));
    }
}

/// The text of a cell as [`String::from_utf8_lossy`] would give it,
/// without making it: its length in bytes.
fn lossy_len(bytes: &[u8]) -> usize {
    bytes
        .utf8_chunks()
        .map(|c| c.valid().len() + if c.invalid().is_empty() { 0 } else { 3 })
        .sum()
}

pub(crate) use plumb_core::lossy_prefix;

/// What an answer says of a detected delimiter whose confidence is low
/// or that was judged from the start of the first record alone
/// (`partial`), or `None` when it is high or the delimiter was given.
fn confidence_note(confidence: Option<f64>, partial: bool, delimiter: &str) -> Option<String> {
    let c = confidence?;
    if partial && c > 0.0 {
        return Some(format!(
            "the delimiter `{delimiter}` was judged from the start of the first record alone: the first {} KiB hold no whole record; if the columns look wrong, pass the delimiter option",
            crate::detect::DELIMITER_SAMPLE_BYTES / 1024
        ));
    }
    if c >= crate::detect::CSV_LOW_CONFIDENCE {
        return None;
    }
    Some(if c == 0.0 {
        "no candidate delimiter split the sample into columns, so it was read as one column; if the file has columns, pass the delimiter option".to_owned()
    } else if delimiter == "spaces" {
        // Its confidence is scaled (`CSV_ALIGNED_CONFIDENCE`): the share
        // would overstate a layout read as columns.
        format!(
            "the columns were taken from runs of spaces that align them (a layout, not a delimiter: confidence {c:.2}, {:.0}% of the sampled records split alike); if the columns look wrong, pass the delimiter option",
            (c / crate::detect::CSV_ALIGNED_CONFIDENCE).min(1.0) * 100.0
        )
    } else {
        format!(
            "the delimiter `{delimiter}` was chosen with low confidence: {:.0}% of the sampled records share one field count; if the columns look wrong, pass the delimiter option",
            c * 100.0
        )
    })
}

#[cfg(test)]
mod tests {
    use super::{lossy_len, lossy_prefix};
    use plumb_core::cap_text;
    use proptest::strategy::Strategy;

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
    }
}
