//! The substrate every plumb engine stands on, in three parts:
//!
//! - **Text and refusals**: a chunked text stream with absolute byte
//!   offsets and a strict UTF-8 check ([`TextStream`]), a binary sniff,
//!   typed refusals ([`Refusal`]), view flags, caps, and number literals
//!   (reading them, judging whether a double would misstate them, exact
//!   ranges).
//! - **The reader seam**: byte sources ([`Source`]), the object-safe
//!   [`FormatReader`] trait a format implements, the [`Answer`] it
//!   returns (with [`impl_answer!`] and the windows answers share:
//!   [`SelectWindow`], [`TailSelectWindow`], [`SearchWindow`]), the ops ([`Op`]) and the options every reader shares
//!   ([`COMMON_OPTIONS`], [`Request`]). A downstream crate writes a reader
//!   on this seam alone.
//! - **Search**: what a search asks, the same for every format: a
//!   pattern ([`Matcher`]), a predicate over one value ([`Predicate`],
//!   numbers compared exactly), and the [`Query`] that holds them.
//!
//! Column statistics (sketches that merge across threads) are the
//! `plumb-stats` crate's, on this crate's number literals.
//!
//! Cell classes and column types belong to the CSV engine
//! (`plumb_csv::CellClass`).
//!
//! ```
//! use plumb_core::{number_literal_precision, PrecisionKind, RefusalReason, TextStream};
//!
//! // A Latin-1 byte is refused with its absolute offset, never guessed at.
//! let mut stream = TextStream::new(&b"name,city\nJos\xe9,Lyon\n"[..]);
//! let mut text = String::new();
//! let refusal = loop {
//!     match stream.next_chunk() {
//!         Ok(Some(chunk)) => text.push_str(chunk.text),
//!         Ok(None) => unreachable!("the file is not UTF-8"),
//!         Err(refusal) => break refusal,
//!     }
//! };
//! assert_eq!(refusal.reason(), RefusalReason::InvalidUtf8);
//! assert_eq!(refusal.byte_offset(), Some(13));
//! assert_eq!(text, "name,city\nJos");
//! assert_eq!(number_literal_precision("9007199254740993"), Some(PrecisionKind::UnsafeInteger));
//! ```
//!
//! Engines (`plumb-csv`, `plumb-json`, `plumb-jsonl`) depend on this
//! crate and on nothing else of plumb's.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod answer_impl;
mod cancel;
mod caps;
mod drive;
mod file;
mod layout;
mod lines;
mod number;
mod op;
mod options;
mod parts;
pub mod ranges;
mod reader;
mod refusal;
mod search;
mod stream;
mod tail;
mod view;
mod window;

pub use cancel::CancelToken;
pub use caps::{
    cap_text, clamp_limit, echo, echo_within, lossy_prefix, zero_limit, COLUMN_TRACK_CAP,
    ECHO_MAX_BYTES, FIRST_ISSUES_CAP, SAMPLE_TEXT_BYTES, SAMPLE_VALUES_CAP, SELECT_DEFAULT_LIMIT,
    SELECT_MAX_LIMIT,
};
pub use drive::{drive, PushMachine};
pub use file::{OpenedFile, SnapshotReader};
pub use layout::{Layout, Shape, ShapeColumn};
pub use lines::{Line, Lines, LINE_MAX_BYTES};
pub use number::{
    compare_integer_literals, float_value_and_precision, integer_json, literal_placeholder,
    number_literal_precision, number_precision_of, scan_decimal, scan_plain_number, DecimalScan,
    NumericRange, PlainNumber, PrecisionKind, MAX_NUMBER_LITERAL_BYTES, MAX_SAFE_INTEGER,
    POW10_I64,
};
pub use op::Op;
pub use options::{
    OptionKind, OptionSpec, Options, Request, RowCap, ScanBounds, Window, COLUMNS_OPTION,
    COMMON_OPTIONS, HEADER_OPTION, SCAN_MAX_PARTS,
};
pub use parts::{line_cuts, CUT_SEARCH_BYTES};
pub use ranges::{RangePart, RangePlan, RANGE_MAX_PARTS};
pub use reader::{
    answer_generator, schema_by_op, text_stream, Answer, BytesSource, FileSource, FormatReader,
    SniffScore, Source, WindowCounts, FILE_HELD_BYTES, SIGNATURE_SCORE,
};
pub use refusal::{Refusal, RefusalReason};
/// The JSON Schema crate [`FormatReader::answer_schema`] speaks, so a
/// downstream reader describes its answers with the same version.
pub use schemars;
pub use search::{
    compare_number_literals, cut_around, instant_of, is_number_literal, CompareOp, Condition,
    Conditions, MatchMode, Matcher, NumberKey, Predicate, Query, SearchProgress, Subject,
    SubjectKind, Verdict, PATTERN_MAX_BYTES, REGEX_DFA_SIZE_LIMIT, REGEX_NEST_LIMIT,
    REGEX_SIZE_LIMIT, SEARCH_CONTEXT_MAX, SEARCH_DEFAULT_LIMIT, SEARCH_MAX_CONDITIONS,
    SEARCH_MAX_LIMIT, SEARCH_TEXT_BYTES,
};
pub use stream::{
    judge_head, Chunk, StreamStats, TextStream, BINARY_SNIFF_BYTES, BUFFERED_CHUNK_BYTES,
    CHUNK_BYTES, UTF8_BOM,
};
pub use tail::{
    last_lines_start, part_stream, SliceSource, TailStart, TAIL_BLOCK_BYTES, TAIL_SCAN_MAX_BYTES,
};
pub use view::{
    fit_hit_row, fit_row_to_bytes, json_len, ViewFlags, HIT_ROW_BYTES, HIT_ROW_VALUES,
    HIT_VALUE_MIN_BYTES,
};
pub use window::{AnswerWindow, SearchWindow, SelectWindow, TailSelectWindow};
