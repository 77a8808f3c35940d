//! The JSON [`FormatReader`].

use plumb_core::{
    impl_answer, text_stream, Answer, ByteSource, FormatReader, Op, ReadOptions, Refusal,
    SniffScore, Window,
};

use crate::{
    inspect, select, validate, JsonInspect, JsonOptions, JsonSelect, JsonSelectOptions,
    JsonValidate,
};

impl_answer!(JsonInspect);
impl_answer!(
    JsonValidate,
    |a: &JsonValidate| Some(a.valid),
    |_a: &JsonValidate| None
);
impl_answer!(JsonSelect, |_a: &JsonSelect| None, |a: &JsonSelect| {
    Some(Window {
        returned: a.returned? as u64,
        offset: a.offset?,
        limit: a.limit? as u64,
        has_more: a.has_more?,
    })
});

/// Reads JSON through the plumb-json engine.
#[derive(Debug, Clone, Copy, Default)]
pub struct JsonReader;

fn options(opts: &ReadOptions) -> JsonOptions {
    JsonOptions {
        max_rows: opts.max_rows,
        sample_rows: opts.sample_rows,
        cancel: opts.cancel.clone(),
    }
}

/// The first non-white-space byte.
pub(crate) fn first_significant(head: &[u8]) -> Option<u8> {
    head.iter().copied().find(|b| !b.is_ascii_whitespace())
}

impl FormatReader for JsonReader {
    fn name(&self) -> &'static str {
        "json"
    }

    fn extensions(&self) -> &'static [&'static str] {
        &["json"]
    }

    fn sniff(&self, head: &[u8]) -> Option<SniffScore> {
        matches!(first_significant(head), Some(b'{' | b'[')).then_some(50)
    }

    fn accepts(&self, op: Op) -> &'static [&'static str] {
        match op {
            Op::Inspect => &["max_rows", "sample_rows"],
            Op::Select => &["pointer", "offset", "limit"],
            Op::Validate => &["max_rows"],
        }
    }

    fn option_hint(&self, op: Op, option: &str) -> Option<String> {
        (op == Op::Select && option == "columns").then(|| {
            "json selects with a JSON Pointer, not columns; pass pointer (for example /items/0/name)".to_owned()
        })
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
        let sel = JsonSelectOptions {
            pointer: opts.pointer.clone().unwrap_or_default(),
            offset: opts.offset,
            limit: opts.limit,
        };
        Ok(Box::new(select(
            text_stream(source, opts.cancel.as_ref())?,
            &options(opts),
            &sel,
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
