//! The last records of a JSON Lines file (`offset: -N`): found by
//! reading backwards from the end of a large file (every line break is a
//! boundary: a record is one line), else counted and read from the start.

use std::ops::ControlFlow;

use plumb_core::{clamp_limit, Refusal, Window};

use crate::ops::{drive, select, JsonlSelect, SelectedRecord};
use crate::splitter::{Line, LineSink};

/// Records (non-blank lines, broken or not), counted.
struct CountLines(u64);

impl LineSink for CountLines {
    fn line(&mut self, line: &Line<'_>) -> ControlFlow<()> {
        if !line.is_blank() {
            self.0 += 1;
        }
        ControlFlow::Continue(())
    }

    fn oversized(&mut self, _number: u64, _at: u64, _len: u64) -> ControlFlow<()> {
        self.0 += 1;
        ControlFlow::Continue(())
    }
}

/// Files up to this size are read from the start for a window counted
/// from the end: as fast, and their records keep their line numbers.
pub const TAIL_READ_WHOLE_BYTES: u64 = 1024 * 1024;

/// Selects the records that start `n` records before the end (at most
/// the window's limit of them): read backwards from the end where the
/// source allows it (a file over [`TAIL_READ_WHOLE_BYTES`]), the answer
/// then `counted_from_end` with no line numbers; otherwise counted and
/// read from the start, exact.
///
/// # Errors
/// The source's refusals.
pub fn select_last(
    source: &dyn plumb_core::Source,
    window: &Window,
    n: u64,
) -> Result<JsonlSelect, Refusal> {
    use plumb_core::{last_lines_start, text_stream, SliceSource, TailStart};
    let limit = clamp_limit(window.limit);
    let count = |src: &dyn plumb_core::Source| -> Result<u64, Refusal> {
        let mut counter = CountLines(0);
        drive(text_stream(src)?, &mut counter)?;
        Ok(counter.0)
    };
    let pick = |src: &dyn plumb_core::Source, total: u64| -> Result<JsonlSelect, Refusal> {
        let from = total.saturating_sub(n);
        let take = (total - from).min(limit as u64).max(1);
        let mut sel = select(
            text_stream(src)?,
            &Window {
                offset: Some(from),
                limit: Some(take),
                from_end: None,
            },
        )?;
        sel.window.limit = limit;
        sel.window.has_more = from + (sel.window.returned as u64) < total;
        sel.window.from_end = Some(n);
        Ok(sel)
    };
    let big = source.len().is_some_and(|l| l > TAIL_READ_WHOLE_BYTES);
    let mut lines = n;
    if big {
        loop {
            let start = match last_lines_start(source, lines, None) {
                Some(found) => match found? {
                    TailStart::At(start) => start,
                    _ => break,
                },
                None => break,
            };
            let slice = SliceSource::new(source, start);
            let total = count(&slice)?;
            if total < n {
                // Blank lines: fewer records than lines; look further back.
                lines = lines.saturating_mul(2);
                continue;
            }
            let mut sel = pick(&slice, total)?;
            for r in &mut sel.records {
                match r {
                    SelectedRecord::Value { line, .. } | SelectedRecord::Error { line, .. } => {
                        *line = None;
                    }
                }
            }
            sel.window.offset = None;
            sel.window.counted_from_end = true;
            return Ok(sel);
        }
    }
    let total = count(source)?;
    pick(source, total)
}
