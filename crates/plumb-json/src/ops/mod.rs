//! inspect, select and validate over a text stream: the shared caps and
//! the drive loop here, one file per op.

mod inspect;
mod select;
mod validate;

pub use inspect::{inspect, JsonInspect};
pub use select::{select, JsonSelect};
pub use validate::{validate, JsonValidate, SyntaxError};

use std::io::BufRead;

use plumb_core::{Refusal, TextStream, Window};

use crate::parser::{JsonParser, JsonSink, ScalarKind, Status};

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

/// Pushes a whole stream through a parser.
pub(crate) fn drive<R: BufRead, S: JsonSink>(
    mut stream: TextStream<R>,
    sink: &mut S,
) -> Result<(Status, bool), Refusal> {
    let mut parser: Option<JsonParser> = None;
    while let Some(chunk) = stream.next_chunk()? {
        let p = parser.get_or_insert_with(|| JsonParser::new().with_base_offset(chunk.byte_offset));
        if p.push(chunk.text.as_bytes(), sink)? == Status::Stopped {
            return Ok((Status::Stopped, stream.stats().bom));
        }
    }
    let mut p = parser.unwrap_or_else(|| JsonParser::new().with_base_offset(stream.position()));
    let status = p.finish(sink)?;
    Ok((status, stream.stats().bom))
}
