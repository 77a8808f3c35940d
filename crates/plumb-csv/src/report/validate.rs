//! CSV validate: a verdict, the first issues and their count.

use std::ops::ControlFlow;

use serde::Serialize;

use plumb_core::ViewFlags;

use crate::machine::{Issue, IssueReport, Record};
use crate::scan::{RowSink, ScanSummary};

use super::{DialectReport, IssueList};

/// The answer of CSV validate.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
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
    /// The dialect read with (flattened: `delimiter`, `delimiter_note`,
    /// `quote`, `skipped_lines`, `comment`, `comment_lines`).
    #[serde(flatten)]
    pub dialect: DialectReport,
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

impl CsvValidate {
    /// The file's data rows, when it was read whole and found valid (see
    /// [`plumb_core::Answer::rows`]).
    pub fn rows_read(&self) -> Option<u64> {
        (self.valid == Some(true) && self.view.exact).then_some(self.rows_scanned)
    }
}

#[derive(Default)]
pub(crate) struct ValidateSink {
    issues: IssueList,
}

impl ValidateSink {
    /// Issues found so far.
    pub fn issue_count(&self) -> u64 {
        self.issues.total
    }

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
            dialect: s.dialect_report(),
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
