//! plumb's JSON Lines engine: a bounded, linear-time line splitter, and
//! inspect, select, validate and search that parse each record with
//! `plumb-json`'s push parser, so every fact carries its line.
//!
//! ```
//! use plumb_core::TextStream;
//! use plumb_core::ScanBounds;
//! use plumb_jsonl::validate;
//!
//! let text = "{\"a\": 1}\n\n{\"a\": 2,}\n";
//! let r = validate(TextStream::new(text.as_bytes()), &ScanBounds::default())?;
//! assert_eq!(r.valid, Some(false));
//! assert_eq!(r.first_invalid.unwrap().line, 3);
//! assert_eq!(r.blank_lines, 1);
//! # Ok::<(), plumb_core::Refusal>(())
//! ```
//!
//! Memory holds one line (at most [`JSONL_MAX_LINE_BYTES`]), the bounded
//! sample and per-key counters; a longer line is skipped as it streams
//! and reported with a hint to read the file as JSON.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod inspect;
mod ops;
mod parallel;
mod ranges;
mod reader;
mod search;
mod splitter;
mod tail;

use std::path::Path;

use plumb_core::{Refusal, ScanBounds, TextStream, Window};

pub use inspect::{
    inspect, inspect_outlined, JsonlInspect, LineDuplicate, LineDuplicates, LinePrecision,
    LinePrecisionReport, JSONL_SAMPLE_ROWS_DEFAULT, JSONL_SAMPLE_ROWS_MAX, KEY_HISTOGRAM_CAP,
};
pub use ops::{
    select, validate, InvalidLine, JsonlSelect, JsonlValidate, SelectedRecord,
    SELECT_LINE_BUDGET_BYTES,
};
pub use parallel::{
    inspect_in_parts, inspect_source, search_in_parts, search_source, validate_in_parts,
    validate_source, PARALLEL_MIN_BYTES,
};
pub use ranges::{
    join_inspect_ranges, join_search_ranges, join_validate_ranges, plan_ranges, scan_inspect_range,
    scan_search_range, scan_validate_range,
};
pub use reader::{JsonlReader, JSONL_OPTIONS};
pub use search::{search, JsonlSearch, RecordHit};
pub use splitter::{InPlace, Line, LineSink, LineSplitter, JSONL_MAX_LINE_BYTES};
pub use tail::{select_last, TAIL_READ_WHOLE_BYTES};

/// [`inspect`] over a file.
///
/// # Errors
/// `not-found`, `not-a-file`, and those of [`inspect`].
pub fn inspect_path(path: &Path, opts: &ScanBounds) -> Result<JsonlInspect, Refusal> {
    inspect(TextStream::open(path)?, opts)
}

/// [`select`] over a file.
///
/// # Errors
/// `not-found`, `not-a-file`, and those of [`select`].
pub fn select_path(path: &Path, window: &Window) -> Result<JsonlSelect, Refusal> {
    select(TextStream::open(path)?, window)
}

/// [`validate`] over a file.
///
/// # Errors
/// `not-found`, `not-a-file`, and those of [`validate`].
pub fn validate_path(path: &Path, opts: &ScanBounds) -> Result<JsonlValidate, Refusal> {
    validate(TextStream::open(path)?, opts)
}
