//! CSV validate: a verdict, the first issues and their count.

use std::ops::ControlFlow;

use serde::Serialize;

use plumb_core::ViewFlags;

use crate::machine::{Issue, IssueReport, Record};
use crate::scan::{RowSink, ScanSummary};

use super::IssueList;

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
            delimiter: crate::scan::delimiter_name(s.delimiter, s.runs),
            delimiter_note: crate::scan::confidence_note(
                s.confidence,
                &crate::scan::delimiter_name(s.delimiter, s.runs),
            ),
            quote: crate::scan::quote_name(s.quote),
            skipped_lines: s.skipped_lines,
            comment: s.comment.map(|c| char::from(c).to_string()),
            comment_lines: s.comment_lines,
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
