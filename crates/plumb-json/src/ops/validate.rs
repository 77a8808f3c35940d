//! JSON validate: a verdict with the first syntax error, duplicate keys
//! and precision facts, never a refusal for a syntax fault.

use std::io::BufRead;
use std::ops::ControlFlow;

use serde::Serialize;

use plumb_core::{Refusal, RefusalReason, RowCap, ScanBounds, TextStream, ViewFlags};

use crate::parser::Scalar;
use crate::sink::JsonSink;
use crate::structure::{DuplicateReport, Structure};

use super::drive;

/// The answer of JSON validate.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct JsonValidate {
    /// Always true (the scan ran; see `valid`).
    pub ok: bool,
    /// `json`.
    pub format: &'static str,
    /// Exact, or sampled when the row cap stopped the scan.
    pub view: ViewFlags,
    /// True: one well-formed JSON text. False: a syntax fault (see
    /// `syntax_error`). Null: stopped at the row cap with no fault.
    pub valid: Option<bool>,
    /// The first syntax fault, or null.
    pub syntax_error: Option<SyntaxError>,
    /// Root elements (or members) read.
    pub rows_scanned: u64,
    /// The deepest nesting.
    pub max_depth: usize,
    /// Duplicate keys: legal JSON, reported, never failed.
    pub duplicate_keys: DuplicateReport,
}

/// Where and what the first syntax fault is.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct SyntaxError {
    /// What was wrong and what to do instead.
    pub message: String,
    /// The 1-based line.
    pub line: u64,
    /// The 1-based column, in characters.
    pub column: u64,
    /// The 0-based absolute byte offset.
    pub byte_offset: u64,
}

impl SyntaxError {
    /// The syntax fault a refusal describes, when it is one.
    pub fn of(refusal: &Refusal) -> Option<SyntaxError> {
        (refusal.reason() == RefusalReason::InvalidJson).then(|| SyntaxError {
            message: refusal.message().to_owned(),
            line: refusal.line().unwrap_or(0),
            column: refusal.column().unwrap_or(0),
            byte_offset: refusal.byte_offset().unwrap_or(0),
        })
    }
}

struct ValidateSink {
    st: Structure,
    depth: usize,
    cap: RowCap,
}

impl ValidateSink {
    fn element(&mut self) -> ControlFlow<()> {
        if self.depth == 1 {
            self.cap.admit()?;
        }
        ControlFlow::Continue(())
    }
}

impl JsonSink for ValidateSink {
    fn capture_strings(&self) -> bool {
        false
    }
    fn start_object(&mut self, _: usize, _: u64) -> ControlFlow<()> {
        self.element()?;
        self.depth += 1;
        self.st.start(true);
        ControlFlow::Continue(())
    }
    fn start_array(&mut self, _: usize, _: u64) -> ControlFlow<()> {
        self.element()?;
        self.depth += 1;
        self.st.start(false);
        ControlFlow::Continue(())
    }
    fn key_bytes(&mut self, key: &[u8], _: bool) -> ControlFlow<()> {
        self.st.key(key);
        ControlFlow::Continue(())
    }
    fn end_object(&mut self) -> ControlFlow<()> {
        self.depth -= 1;
        self.st.end();
        ControlFlow::Continue(())
    }
    fn end_array(&mut self) -> ControlFlow<()> {
        self.depth -= 1;
        self.st.end();
        ControlFlow::Continue(())
    }
    fn scalar(&mut self, s: &Scalar<'_>) -> ControlFlow<()> {
        self.element()?;
        self.st.scalar(s);
        ControlFlow::Continue(())
    }
}

/// What one part of a root array read on its own thread found, when the
/// part was read whole and fault-free and ended where the next begins
/// (see `crate::parallel`).
pub(crate) struct PartVerdict {
    /// Root elements begun in the part.
    pub(crate) rows: u64,
    /// Depth and duplicate keys, the root array counted open.
    pub(crate) st: Structure,
}

/// Reads one part of a root array: the first from the file's start, a
/// later one from just after a comma between root elements. `None`
/// unless every byte parsed without fault and the part ended between
/// root elements (or, the last part, with the document complete).
pub(crate) fn validate_part<R: BufRead>(
    stream: TextStream<R>,
    first: bool,
    last: bool,
) -> Option<PartVerdict> {
    let mut sink = ValidateSink {
        st: Structure::default(),
        depth: 0,
        cap: RowCap::new(None),
    };
    if !first {
        sink.depth = 1;
        sink.st.start(false);
    }
    super::parse_part(stream, first, last, &mut sink)?;
    Some(PartVerdict {
        rows: sink.cap.rows(),
        st: sink.st,
    })
}

/// Validates a JSON stream. A syntax fault is an answer (`valid:
/// false`), not a refusal; duplicate keys are reported, never failed.
///
/// # Errors
/// `nesting-too-deep` and the stream's refusals (`invalid-utf8`,
/// `binary`, `aborted`, `read-error`).
pub fn validate<R: BufRead>(
    stream: TextStream<R>,
    opts: &ScanBounds,
) -> Result<JsonValidate, Refusal> {
    let mut sink = ValidateSink {
        st: Structure::default(),
        depth: 0,
        cap: RowCap::new(opts.max_rows),
    };
    let outcome = drive(stream.within(opts.max_scan_bytes), &mut sink);
    if outcome.as_ref().is_ok_and(|e| e.budget) {
        sink.cap.stop();
    }
    let (valid, syntax_error) = match outcome {
        Ok(_) if sink.cap.capped() => (None, None),
        Ok(_) => (Some(true), None),
        Err(r) => match SyntaxError::of(&r) {
            Some(e) => (Some(false), Some(e)),
            None => return Err(r),
        },
    };
    let max_depth = sink.st.max_depth();
    let (duplicate_keys, _) = sink.st.into_reports();
    Ok(JsonValidate {
        ok: true,
        format: "json",
        // Duplicate keys past the tracker's caps went unchecked: their
        // count is a lower bound.
        view: ViewFlags::of_scan(sink.cap.capped()).with_cut(!duplicate_keys.checked_fully),
        valid,
        syntax_error,
        rows_scanned: sink.cap.rows(),
        max_depth,
        duplicate_keys,
    })
}
