//! The JSON [`FormatReader`].

use plumb_core::{
    impl_answer, text_stream, Answer, FormatReader, Op, OptionKind, OptionSpec, Refusal, Request,
    SniffScore, Source, WindowCounts,
};

use crate::{inspect, select, validate, JsonInspect, JsonSelect, JsonSelectOptions, JsonValidate};

impl_answer!(JsonInspect);
impl_answer!(
    JsonValidate,
    |a: &JsonValidate| Some(a.valid),
    |_a: &JsonValidate| None
);
impl_answer!(JsonSelect, |_a: &JsonSelect| None, |a: &JsonSelect| {
    Some(WindowCounts {
        returned: a.returned? as u64,
        offset: a.offset?,
        limit: a.limit? as u64,
        has_more: a.has_more?,
    })
});

/// Reads JSON through the plumb-json engine.
#[derive(Debug, Clone, Copy, Default)]
pub struct JsonReader;

/// The option JSON declares: where select looks.
pub const JSON_OPTIONS: [OptionSpec; 1] = [OptionSpec {
    name: "pointer",
    kind: OptionKind::Text,
    default: Some(""),
    ops: &[Op::Select],
    doc: "an RFC 6901 JSON Pointer to the value or array to select (\"\" is the whole document)",
}];

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

    fn options(&self) -> &'static [OptionSpec] {
        &JSON_OPTIONS
    }

    fn inspect(&self, source: &dyn Source, req: &Request) -> Result<Box<dyn Answer>, Refusal> {
        Ok(Box::new(inspect(text_stream(source)?, &req.scan)?))
    }

    fn select(&self, source: &dyn Source, req: &Request) -> Result<Box<dyn Answer>, Refusal> {
        let sel = JsonSelectOptions {
            pointer: req.options.text("pointer").unwrap_or_default().to_owned(),
            window: req.window,
        };
        Ok(Box::new(select(text_stream(source)?, &sel)?))
    }

    fn validate(&self, source: &dyn Source, req: &Request) -> Result<Box<dyn Answer>, Refusal> {
        Ok(Box::new(validate(text_stream(source)?, &req.scan)?))
    }
}
