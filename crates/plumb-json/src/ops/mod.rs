//! inspect, select and validate over a text stream: the shared caps and
//! the drive loop here, one file per op.

mod inspect;
mod probes;
mod search;
mod select;
mod validate;
mod wildcard;

pub use inspect::{inspect, inspect_at, inspect_outlined, JsonInspect};
pub(crate) use inspect::{inspect_part, join_parts, InspectPart, PartState};
pub use probes::{condition_pointer, Probes};
pub use search::{
    search, ElementHit, JsonSearch, Matched, Probe, MATCHED_VALUE_BYTES, SEARCH_VALUE_BUDGET_BYTES,
};
pub use select::{select, JsonSelect};
pub use validate::{validate, JsonValidate, SyntaxError};
pub(crate) use validate::{validate_part, PartVerdict};
pub use wildcard::WILDCARD;

use std::io::BufRead;

use plumb_core::{Refusal, TextStream, Window};

use crate::parser::{JsonParser, ScalarKind, Status};
use crate::sink::JsonSink;

/// Bytes of JSON text one inspect sample element may take; a larger
/// element becomes a `$summary`. Enough to show a typical record whole.
pub const SAMPLE_BUDGET_BYTES: usize = 8 * 1024;

/// Bytes of JSON text a select may return; a larger target is refused
/// `selection-too-large` (or, in a window, summarized).
pub const SELECT_BUDGET_BYTES: usize = 1024 * 1024;

/// Keys listed by inspect, in first-seen order.
pub const KEY_LIST_CAP: usize = 200;

/// Elements in the inspect sample when none is asked for.
pub const JSON_SAMPLE_ROWS_DEFAULT: usize = 3;

/// The most elements an inspect sample holds.
pub const JSON_SAMPLE_ROWS_MAX: usize = 100;

/// What a select targets.
#[derive(Clone, Debug, Default)]
pub struct JsonSelectOptions {
    /// An RFC 6901 pointer; `""` is the whole document.
    pub pointer: String,
    /// Windowed mode, when either is set: elements of the target array
    /// to skip, and to return (clamped to 1..=1000).
    pub window: Window,
}

/// The JSON type name of a scalar kind (`string`, `number`, `boolean`, `null`).
pub fn type_name(kind: ScalarKind) -> &'static str {
    match kind {
        ScalarKind::String => "string",
        ScalarKind::Number => "number",
        ScalarKind::True | ScalarKind::False => "boolean",
        ScalarKind::Null => "null",
    }
}

/// How a driven stream ended.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Ended {
    /// Whether a byte order mark was stripped.
    pub bom: bool,
    /// Whether the scan stopped at the stream's byte budget, with text
    /// left unread ([`TextStream::stopped_early`]).
    pub budget: bool,
}

/// Pushes a whole stream through a parser into `sink` (the one drive
/// loop, `plumb_core::drive`); says how it ended.
pub(crate) fn drive<R: BufRead, S: JsonSink>(
    mut stream: TextStream<R>,
    sink: &mut S,
) -> Result<Ended, Refusal> {
    let mut parser = None;
    // Whether the sink or the budget stopped the scan, the stream says.
    let _flow = plumb_core::drive(
        &mut stream,
        &mut parser,
        |at| JsonParser::new().with_base_offset(at),
        sink,
    )?;
    Ok(Ended {
        bom: stream.stats().bom,
        budget: stream.stopped_early(),
    })
}

/// Parses one part of a root array into `sink` (see `validate_part`), as [`drive`] parses a whole text;
/// `Some` with the BOM flag when it parsed without fault and ended
/// between root elements (the last part: with the document complete).
pub(crate) fn parse_part<R: BufRead, S: JsonSink>(
    mut stream: TextStream<R>,
    first: bool,
    last: bool,
    sink: &mut S,
) -> Option<bool> {
    let mut parser: Option<JsonParser> = None;
    while let Some(chunk) = stream.next_chunk().ok()? {
        let p = parser.get_or_insert_with(|| {
            if first {
                JsonParser::new().with_base_offset(chunk.byte_offset)
            } else {
                JsonParser::in_root_array(chunk.byte_offset)
            }
        });
        if p.push(chunk.text.as_bytes(), sink).ok()? != Status::NeedInput {
            return None;
        }
    }
    let p = parser.as_mut()?;
    let ended = if last {
        p.finish(sink).ok()? == Status::Done
    } else {
        p.between_root_elements()
    };
    ended.then(|| stream.stats().bom)
}
