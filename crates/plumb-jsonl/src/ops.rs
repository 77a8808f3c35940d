//! select and validate over JSON Lines, and the drive loop every
//! operation shares.
//!
//! Reference (for lines read in place): the splitter, line by line. Held
//! equal by:
//! `ops.rs::tests::lines_read_in_place_agree_with_lines_split_first`.

use std::io::BufRead;
use std::ops::ControlFlow;

use serde::Serialize;
use serde_json::value::RawValue;

use plumb_core::{
    clamp_limit, Refusal, RowCap, ScanBounds, TailSelectWindow, TextStream, ViewFlags, Window,
};
use plumb_json::{scan_text, JsonParser, Null, RecordEnd, ValueBuilder};

use crate::splitter::{InPlace, Line, LineSink, LineSplitter, JSONL_MAX_LINE_BYTES};

/// Bytes of JSON text one selected record may take; a larger record
/// becomes a `$summary` and is marked truncated.
pub const SELECT_LINE_BUDGET_BYTES: usize = 1 << 20;

/// A line that is not a JSON value.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct InvalidLine {
    /// The 1-based physical line.
    pub line: u64,
    /// What is wrong and what to do instead.
    pub message: String,
}

pub(crate) fn oversized_message(len: u64) -> String {
    format!(
        "the line is {len} bytes, over the {JSONL_MAX_LINE_BYTES}-byte line cap, and was skipped unread; \
         if the file is one JSON document rather than one value per line, read it with format json"
    )
}

/// Drives a stream through the splitter into `sink`; returns whether the
/// scan stopped at the stream's byte budget with text left unread
/// ([`TextStream::stopped_early`]), and the BOM flag.
pub(crate) fn drive<R: BufRead, S: LineSink>(
    mut stream: TextStream<R>,
    sink: &mut S,
) -> Result<(bool, bool), Refusal> {
    let mut splitter = None;
    // Whether the sink or the budget stopped the scan, the stream says.
    let _flow = plumb_core::drive(&mut stream, &mut splitter, LineSplitter::new, sink)?;
    Ok((stream.stopped_early(), stream.stats().bom))
}

/// One record of a select window.
#[derive(Debug, Serialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum SelectedRecord {
    /// A record that is one JSON value.
    Value {
        /// The 1-based physical line; null in a window counted from the
        /// end ([`TailSelectWindow::counted_from_end`]).
        line: Option<u64>,
        /// The value (compact JSON, with placeholders where cut).
        value: Box<RawValue>,
        /// Whether a placeholder stands in for part of it.
        truncated: bool,
    },
    /// A record that is not, in its place.
    Error {
        /// The 1-based physical line; null in a window counted from the
        /// end.
        line: Option<u64>,
        /// What is wrong with it.
        error: String,
    },
}

/// The answer of JSON Lines select.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct JsonlSelect {
    /// Always true.
    pub ok: bool,
    /// `jsonl`.
    pub format: &'static str,
    /// Exact, or cut when a record was summarized.
    pub view: ViewFlags,
    /// The window, in file order.
    pub records: Vec<SelectedRecord>,
    /// The window (flattened): `offset`, the records (non-blank lines)
    /// skipped; `from_end`, the N of a negative offset (`-N`: the last N
    /// records), else null; `counted_from_end`, whether it was found by
    /// reading back from the end, so the records' lines and offset from
    /// the start are not known (null); `limit`; `returned`; `has_more`,
    /// whether records follow.
    #[serde(flatten)]
    pub window: TailSelectWindow,
}

struct SelectLines {
    parser: JsonParser,
    offset: u64,
    limit: usize,
    index: u64,
    records: Vec<SelectedRecord>,
    has_more: bool,
    cut: bool,
}

impl SelectLines {
    /// A record arrives; returns whether it is in the window.
    fn admit(&mut self) -> Result<bool, ()> {
        let i = self.index;
        self.index += 1;
        if i < self.offset {
            return Ok(false);
        }
        if self.records.len() >= self.limit {
            self.has_more = true;
            return Err(());
        }
        Ok(true)
    }
}

impl LineSink for SelectLines {
    fn line(&mut self, line: &Line<'_>) -> ControlFlow<()> {
        if line.is_blank() {
            return ControlFlow::Continue(());
        }
        match self.admit() {
            Err(()) => return ControlFlow::Break(()),
            Ok(false) => return ControlFlow::Continue(()),
            Ok(true) => {}
        }
        let mut sink = ValueBuilder::new(SELECT_LINE_BUDGET_BYTES);
        let record = match scan_text(
            &mut self.parser,
            line.text,
            line.byte_offset,
            line.number,
            &mut sink,
        ) {
            Ok(_) => {
                let built = sink.finish();
                self.cut |= built.cut;
                SelectedRecord::Value {
                    line: Some(line.number),
                    value: built.json,
                    truncated: built.cut,
                }
            }
            Err(e) => SelectedRecord::Error {
                line: Some(line.number),
                error: e.message().to_owned(),
            },
        };
        self.records.push(record);
        ControlFlow::Continue(())
    }

    fn oversized(&mut self, number: u64, _at: u64, len: u64) -> ControlFlow<()> {
        match self.admit() {
            Err(()) => ControlFlow::Break(()),
            Ok(false) => ControlFlow::Continue(()),
            Ok(true) => {
                self.records.push(SelectedRecord::Error {
                    line: Some(number),
                    error: oversized_message(len),
                });
                ControlFlow::Continue(())
            }
        }
    }
}

/// Selects a window of records (non-blank lines; the limit is clamped
/// to 1..=1000, 50 when `None`); a broken record stands in its place as
/// `{line, error}`. Reading stops one record past the window.
///
/// # Errors
/// The stream's refusals.
pub fn select<R: BufRead>(stream: TextStream<R>, window: &Window) -> Result<JsonlSelect, Refusal> {
    let mut sink = SelectLines {
        parser: JsonParser::new(),
        offset: window.offset.unwrap_or(0),
        limit: clamp_limit(window.limit),
        index: 0,
        records: Vec::new(),
        has_more: false,
        cut: false,
    };
    drive(stream, &mut sink)?;
    Ok(JsonlSelect {
        ok: true,
        format: "jsonl",
        view: ViewFlags::exact().with_cut(sink.cut),
        window: TailSelectWindow {
            offset: Some(sink.offset),
            from_end: None,
            counted_from_end: false,
            limit: sink.limit,
            returned: sink.records.len(),
            has_more: sink.has_more,
        },
        records: sink.records,
    })
}

/// The answer of JSON Lines validate.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct JsonlValidate {
    /// Always true (the scan ran; see `valid`).
    pub ok: bool,
    /// `jsonl`.
    pub format: &'static str,
    /// Exact, sampled when the row cap stopped the scan.
    pub view: ViewFlags,
    /// True: every non-blank line is one JSON value. False: see
    /// `first_invalid`. Null: stopped at the row cap with no fault.
    pub valid: Option<bool>,
    /// The first line that is not one JSON value (or the BOM, line 1).
    pub first_invalid: Option<InvalidLine>,
    /// Records read.
    pub rows_scanned: u64,
    /// Blank lines (counted, not invalid).
    pub blank_lines: u64,
}

impl JsonlValidate {
    /// The file's records, when it was read whole and found valid (see
    /// [`plumb_core::Answer::rows`]).
    pub fn rows_read(&self) -> Option<u64> {
        (self.valid == Some(true) && self.view.exact).then_some(self.rows_scanned)
    }
}

struct ValidateLines {
    parser: JsonParser,
    cap: RowCap,
    blank: u64,
    first_invalid: Option<InvalidLine>,
}

impl LineSink for ValidateLines {
    fn line(&mut self, line: &Line<'_>) -> ControlFlow<()> {
        if line.is_blank() {
            self.blank += 1;
            return ControlFlow::Continue(());
        }
        self.cap.admit()?;
        if let Err(e) = scan_text(
            &mut self.parser,
            line.text,
            line.byte_offset,
            line.number,
            &mut Null,
        ) {
            self.first_invalid = Some(InvalidLine {
                line: line.number,
                message: e.message().to_owned(),
            });
            return ControlFlow::Break(());
        }
        ControlFlow::Continue(())
    }

    /// Valid and blank lines in one pass each (see
    /// [`JsonParser::push_record`]); the first other line, or one past
    /// the row cap, is left to [`LineSink::line`].
    fn lines_in_place(&mut self, input: &[u8], number: u64, byte_offset: u64) -> InPlace {
        let mut taken = InPlace::default();
        while self.cap.has_room() {
            let Some(rest) = input.get(taken.bytes..) else {
                break;
            };
            self.parser
                .reset(byte_offset + taken.bytes as u64, number + taken.lines);
            let (lf, blank) = match self.parser.push_record(rest, &mut Null) {
                RecordEnd::Complete(lf) => (lf, false),
                RecordEnd::Blank(lf) => (lf, true),
                RecordEnd::Unsure => break,
            };
            if lf > JSONL_MAX_LINE_BYTES {
                // The splitter reports it as too long.
                break;
            }
            if blank {
                self.blank += 1;
            } else {
                let _ = self.cap.admit();
            }
            taken.bytes += lf + 1;
            taken.lines += 1;
        }
        taken
    }

    fn oversized(&mut self, number: u64, _at: u64, len: u64) -> ControlFlow<()> {
        self.cap.admit()?;
        self.first_invalid = Some(InvalidLine {
            line: number,
            message: oversized_message(len),
        });
        ControlFlow::Break(())
    }
}

/// Validates a JSON Lines stream, stopping at the first invalid line.
/// Blank lines are counted, not invalid; a BOM makes the file invalid
/// at line 1 (JSON Lines forbids one), though inspect and select read
/// past it.
///
/// # Errors
/// The stream's refusals.
pub fn validate<R: BufRead>(
    stream: TextStream<R>,
    opts: &ScanBounds,
) -> Result<JsonlValidate, Refusal> {
    let mut sink = ValidateLines {
        parser: JsonParser::new(),
        cap: RowCap::new(opts.max_rows),
        blank: 0,
        first_invalid: None,
    };
    let (budget, bom) = drive(stream.within(opts.max_scan_bytes), &mut sink)?;
    if budget {
        sink.cap.stop();
    }
    let stopped = sink.cap.capped() || sink.first_invalid.is_some();
    let first_invalid = if bom {
        Some(InvalidLine {
            line: 1,
            message: "the file starts with a byte order mark, which JSON Lines forbids; save it as UTF-8 without a BOM".to_owned(),
        })
    } else {
        sink.first_invalid
    };
    let valid = if first_invalid.is_some() {
        Some(false)
    } else if sink.cap.capped() {
        None
    } else {
        Some(true)
    };
    Ok(JsonlValidate {
        ok: true,
        format: "jsonl",
        view: ViewFlags::of_scan(stopped),
        valid,
        first_invalid,
        rows_scanned: sink.cap.rows(),
        blank_lines: sink.blank,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Validate's sink with every line found by the splitter first: the
    /// reference that reading in place must agree with.
    struct ByLines(ValidateLines);

    impl LineSink for ByLines {
        fn line(&mut self, line: &Line<'_>) -> ControlFlow<()> {
            self.0.line(line)
        }
        fn oversized(&mut self, number: u64, at: u64, len: u64) -> ControlFlow<()> {
            self.0.oversized(number, at, len)
        }
    }

    fn sink(max_rows: Option<u64>) -> ValidateLines {
        ValidateLines {
            parser: JsonParser::new(),
            cap: RowCap::new(max_rows),
            blank: 0,
            first_invalid: None,
        }
    }

    /// (blank lines, first invalid line, rows) read with lines in place
    /// and line by line, through chunks of `chunk` bytes.
    fn both(
        text: &[u8],
        chunk: usize,
        max_rows: Option<u64>,
    ) -> [(u64, Option<InvalidLine>, u64); 2] {
        let stream = || TextStream::from_buf_read(text).with_chunk_size(chunk);
        let mut fast = sink(max_rows);
        drive(stream(), &mut fast).unwrap();
        let mut slow = ByLines(sink(max_rows));
        drive(stream(), &mut slow).unwrap();
        [fast, slow.0].map(|s| (s.blank, s.first_invalid, s.cap.rows()))
    }

    const LINES: &[&str] = &[
        r#"{"a":1,"b":[true,false,null],"c":{"d":"e"}}"#,
        r#"  {"s": "x\ny\u00e9 \"q\""}  "#,
        "[1, -2.5e3, 0, \"😀\"]\r",
        "17",
        "\"text\"",
        "",
        "   \t ",
        "\r",
        r#"{"a":"#,
        r#"{"a":1}}"#,
        r#"{"a":1} x"#,
        "tru",
        "\"open",
        "01",
        "{\"a\":\u{1}}",
        "[[[[[[[[[[]]]]]]]]]]",
        "\u{feff}{}",
        r#"{"long":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}"#,
    ];

    proptest! {
        #[test]
        fn lines_read_in_place_agree_with_lines_split_first(
            picks in prop::collection::vec(0..LINES.len(), 0..40),
            crlf in any::<bool>(),
            last_newline in any::<bool>(),
            chunk in prop::sample::select(vec![1usize, 3, 17, 64, 100, 1 << 16]),
            max_rows in prop::option::of(0u64..30),
        ) {
            let end = if crlf { "\r\n" } else { "\n" };
            let mut text = picks.iter().map(|&i| LINES[i]).collect::<Vec<_>>().join(end);
            if last_newline {
                text.push_str(end);
            }
            let [fast, slow] = both(text.as_bytes(), chunk, max_rows);
            prop_assert_eq!(fast, slow, "{:?}", text);
        }
    }

    #[test]
    fn a_valid_line_past_the_cap_is_reported_too_long_either_way() {
        let long = format!("{{\"a\":\"{}\"}}", "x".repeat(JSONL_MAX_LINE_BYTES));
        let text = format!("{{}}\n\n{long}\n{{}}\n");
        // In chunks larger than the line, so it lies whole in one push.
        let [fast, slow] = both(text.as_bytes(), 4 << 20, None);
        assert_eq!(fast, slow);
        let (blank, invalid, rows) = fast;
        assert_eq!((blank, rows), (1, 2));
        assert_eq!(invalid.map(|i| i.line), Some(3));
    }
}
