//! The JSON Lines [`FormatReader`].

use plumb_core::{
    impl_answer, text_stream, Answer, ByteSource, FormatReader, Op, ReadOptions, Refusal,
    SniffScore, Window,
};

use crate::{
    inspect, select, validate, JsonlInspect, JsonlOptions, JsonlSelect, JsonlSelectOptions,
    JsonlValidate,
};

impl_answer!(JsonlInspect);
impl_answer!(
    JsonlValidate,
    |a: &JsonlValidate| Some(a.valid),
    |_a: &JsonlValidate| None
);
impl_answer!(
    JsonlSelect,
    |_a: &JsonlSelect| None,
    |a: &JsonlSelect| Some(Window {
        returned: a.returned as u64,
        offset: a.offset,
        limit: a.limit as u64,
        has_more: a.has_more,
    })
);

/// Reads JSON Lines through the plumb-jsonl engine.
#[derive(Debug, Clone, Copy, Default)]
pub struct JsonlReader;

fn options(opts: &ReadOptions) -> JsonlOptions {
    JsonlOptions {
        max_rows: opts.max_rows,
        sample_rows: opts.sample_rows,
        cancel: opts.cancel.clone(),
    }
}

impl FormatReader for JsonlReader {
    fn name(&self) -> &'static str {
        "jsonl"
    }

    fn extensions(&self) -> &'static [&'static str] {
        &["jsonl", "ndjson"]
    }

    /// Two lines that each look like a whole JSON value: the first opens
    /// with `{` or `[` and ends with `}` or `]`, and the next non-blank
    /// line opens with `{` or `[`. Beats a plain JSON sniff.
    fn sniff(&self, head: &[u8]) -> Option<SniffScore> {
        let mut lines = head
            .split(|&b| b == b'\n')
            .map(|l| l.trim_ascii())
            .filter(|l| !l.is_empty());
        let first = lines.next()?;
        let second = lines.next()?;
        let opens = |l: &[u8]| matches!(l.first(), Some(b'{' | b'['));
        let closes = |l: &[u8]| matches!(l.last(), Some(b'}' | b']'));
        (opens(first) && closes(first) && opens(second)).then_some(60)
    }

    fn accepts(&self, op: Op) -> &'static [&'static str] {
        match op {
            Op::Inspect => &["max_rows", "sample_rows"],
            Op::Select => &["offset", "limit"],
            Op::Validate => &["max_rows"],
        }
    }

    fn option_hint(&self, op: Op, option: &str) -> Option<String> {
        match (op, option) {
            (Op::Select, "pointer") => Some(
                "JSON Lines selects records by offset and limit; a pointer does not apply (select a record, then read into it)".to_owned(),
            ),
            (Op::Select, "columns") => Some(
                "JSON Lines selects whole records by offset and limit; columns do not apply".to_owned(),
            ),
            _ => None,
        }
    }

    fn inspect(
        &self,
        source: &dyn ByteSource,
        opts: &ReadOptions,
    ) -> Result<Box<dyn Answer>, Refusal> {
        Ok(Box::new(inspect(
            text_stream(source, opts.cancel.as_ref())?,
            &options(opts),
        )?))
    }

    fn select(
        &self,
        source: &dyn ByteSource,
        opts: &ReadOptions,
    ) -> Result<Box<dyn Answer>, Refusal> {
        let window = JsonlSelectOptions {
            offset: opts.offset.unwrap_or(0),
            limit: opts.limit,
        };
        Ok(Box::new(select(
            text_stream(source, opts.cancel.as_ref())?,
            &options(opts),
            &window,
        )?))
    }

    fn validate(
        &self,
        source: &dyn ByteSource,
        opts: &ReadOptions,
    ) -> Result<Box<dyn Answer>, Refusal> {
        Ok(Box::new(validate(
            text_stream(source, opts.cancel.as_ref())?,
            &options(opts),
        )?))
    }
}
