//! plumb's JSON engine: a sans-IO push parser that reports events to a
//! sink, a value builder under a byte budget, RFC 6901 pointers, and the
//! operations inspect, select, validate and search over a
//! [`TextStream`] (validate and inspect of a large root array also split
//! across threads).
//!
//! ```
//! use plumb_core::TextStream;
//! use plumb_json::{select, JsonSelectOptions};
//!
//! let doc = br#"{"meta": {"a/b": {"~x": 9007199254740993}}, "items": [1, 2, 3]}"#;
//! let sel = JsonSelectOptions { pointer: "/meta/a~1b/~0x".into(), ..Default::default() };
//! let answer = select(TextStream::new(&doc[..]), &sel)?;
//! // A number a double would misstate keeps its text, marked.
//! assert_eq!(
//!     answer.value.unwrap().get(),
//!     r#"{"$literal":"9007199254740993","precision":"unsafe-integer"}"#
//! );
//! # Ok::<(), plumb_core::Refusal>(())
//! ```
//!
//! # Why the parser pushes
//!
//! A pull parser asks its reader for bytes, so it owns the I/O and the
//! reader must hold every byte a token might need. A push parser is
//! handed whatever bytes arrived and keeps only the state of the token it
//! is in, so one 64 KiB buffer serves a file of any size, a chunk edge
//! can fall anywhere, and the consumer (the sink) decides when to stop:
//! a select that found its target reads nothing further. Numbers keep
//! their source text, so a precision loss is reported rather than made.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod builder;
mod ops;
mod outline;
mod parallel;
mod parser;
mod pointer;
mod ranges;
mod reader;
mod sink;
mod structure;
mod subtree;

use std::path::Path;

use plumb_core::{Refusal, ScanBounds, TextStream};

pub use builder::{Built, ValueBuilder, BUILD_DEPTH_CAP};
pub use ops::{
    condition_pointer, inspect, inspect_at, inspect_outlined, search, select, type_name, validate,
    ElementHit, JsonInspect, JsonSearch, JsonSelect, JsonSelectOptions, JsonValidate, Matched,
    Probe, Probes, SyntaxError, JSON_SAMPLE_ROWS_DEFAULT, JSON_SAMPLE_ROWS_MAX, KEY_LIST_CAP,
    MATCHED_VALUE_BYTES, SAMPLE_BUDGET_BYTES, SEARCH_VALUE_BUDGET_BYTES, SELECT_BUDGET_BYTES,
    WILDCARD,
};
pub use outline::{
    same_key, Outline, OutlineOptions, OutlineState, OUTLINE_COLLAPSE_KEYS, OUTLINE_KEY_SAMPLES,
    OUTLINE_LIST_DEFAULT, OUTLINE_MAX_NODES, OUTLINE_SAMPLES, OUTLINE_SAMPLE_BYTES,
};
pub use parallel::{
    inspect_in_parts, inspect_source, validate_in_parts, validate_source, JSON_PARALLEL_MIN_BYTES,
    STATS_SPLIT_PATHS,
};
pub use parser::{
    JsonParser, RecordEnd, Scalar, ScalarKind, Status, JSON_MAX_DEPTH, KEY_CAPTURE_BYTES,
    STRING_CAPTURE_BYTES,
};
pub use pointer::{PathToken, PathTracker, Pointer};
pub use ranges::{
    join_inspect_ranges, join_validate_ranges, plan_ranges, scan_inspect_range, scan_validate_range,
};
pub use reader::{
    outline_options, outline_paths, JsonReader, FIELD_OPTION, JSON_OPTIONS, OUTLINE_PATHS_OPTION,
    STATS_OPTION,
};
pub use sink::{JsonSink, Null, Tee};
pub use structure::{
    DuplicateKey, DuplicateReport, PrecisionFact, PrecisionReport, Structure, StructureState,
    DUPLICATE_KEY_TOTAL_CAP, DUPLICATE_KEY_TRACK_CAP,
};
pub use subtree::Subtree;

/// Scans one complete JSON text held in memory (a JSON Lines record)
/// with a reusable parser. Positions in refusals are those of the file:
/// `base_offset` is the text's first byte, `line` its line.
///
/// # Errors
/// `invalid-json` or `nesting-too-deep`.
pub fn scan_text<S: JsonSink>(
    parser: &mut JsonParser,
    text: &[u8],
    base_offset: u64,
    line: u64,
    sink: &mut S,
) -> Result<Status, Refusal> {
    parser.reset(base_offset, line);
    // The whole text is here, so a fault at its end gets its column from
    // the text, rather than a column carried after every push.
    parser.set_lazy_columns(true);
    let result = match parser.push(text, sink) {
        Ok(Status::Stopped) => Ok(Status::Stopped),
        Ok(_) => parser.finish(sink),
        Err(e) => Err(e),
    };
    parser.set_lazy_columns(false);
    result.map_err(|e| place_column(e, text, base_offset))
}

/// Recomputes the column of a fault from the in-memory text.
fn place_column(e: Refusal, text: &[u8], base: u64) -> Refusal {
    let Some(at) = e
        .byte_offset()
        .and_then(|b| b.checked_sub(base))
        .and_then(|b| usize::try_from(b).ok())
    else {
        return e;
    };
    let at = at.min(text.len());
    let line_start = text[..at]
        .iter()
        .rposition(|&c| c == b'\n')
        .map_or(0, |p| p + 1);
    let col = parser::chars(&text[line_start..at]) + 1;
    match e.column() {
        Some(old) if old != col => {
            let message =
                e.message()
                    .replacen(&format!(" column {old} ("), &format!(" column {col} ("), 1);
            e.with_column(col).with_message(message)
        }
        _ => e,
    }
}

/// [`inspect`] over a file.
///
/// # Errors
/// `not-found`, `not-a-file`, and those of [`inspect`].
pub fn inspect_path(path: &Path, opts: &ScanBounds) -> Result<JsonInspect, Refusal> {
    inspect(TextStream::open(path)?, opts)
}

/// [`select`] over a file.
///
/// # Errors
/// `not-found`, `not-a-file`, and those of [`select`].
pub fn select_path(path: &Path, sel: &JsonSelectOptions) -> Result<JsonSelect, Refusal> {
    select(TextStream::open(path)?, sel)
}

/// [`validate`] over a file.
///
/// # Errors
/// `not-found`, `not-a-file`, and those of [`validate`].
pub fn validate_path(path: &Path, opts: &ScanBounds) -> Result<JsonValidate, Refusal> {
    validate(TextStream::open(path)?, opts)
}
