//! The one `check` helper: parse every way, demand one event log.

use std::ops::ControlFlow;

use plumb_json::{JsonParser, JsonSink, Scalar, ScalarKind, Status};

/// Every event as a one-line string.
#[derive(Default, Debug, PartialEq, Eq, Clone)]
pub struct Log(pub Vec<String>);

impl JsonSink for Log {
    fn start_object(&mut self, depth: usize, at: u64) -> ControlFlow<()> {
        self.0.push(format!("{{ d{depth} @{at}"));
        ControlFlow::Continue(())
    }
    fn key(&mut self, key: &str, truncated: bool) -> ControlFlow<()> {
        self.0.push(format!(
            "key {key:?}{}",
            if truncated { " cut" } else { "" }
        ));
        ControlFlow::Continue(())
    }
    fn end_object(&mut self) -> ControlFlow<()> {
        self.0.push("}".into());
        ControlFlow::Continue(())
    }
    fn start_array(&mut self, depth: usize, at: u64) -> ControlFlow<()> {
        self.0.push(format!("[ d{depth} @{at}"));
        ControlFlow::Continue(())
    }
    fn end_array(&mut self) -> ControlFlow<()> {
        self.0.push("]".into());
        ControlFlow::Continue(())
    }
    fn scalar(&mut self, s: &Scalar<'_>) -> ControlFlow<()> {
        let kind = match s.kind {
            ScalarKind::String => "str",
            ScalarKind::Number => "num",
            ScalarKind::True => "true",
            ScalarKind::False => "false",
            ScalarKind::Null => "null",
        };
        self.0.push(format!(
            "{kind} {:?}{} len={} @{}",
            s.text(),
            if s.truncated { " cut" } else { "" },
            s.len,
            s.byte_offset
        ));
        ControlFlow::Continue(())
    }
}

/// The outcome of one parse: the log and the refusal, if any, as
/// `reason@offset line:col message`.
pub type Outcome = (Vec<String>, Option<String>);

pub fn parse_pieces(pieces: &[&[u8]]) -> Outcome {
    let mut log = Log::default();
    let mut p = JsonParser::new();
    for piece in pieces {
        if let Err(e) = p.push(piece, &mut log) {
            return (log.0, Some(describe(&e)));
        }
    }
    match p.finish(&mut log) {
        Ok(Status::Done) => (log.0, None),
        Ok(other) => (log.0, Some(format!("{other:?}"))),
        Err(e) => (log.0, Some(describe(&e))),
    }
}

pub fn describe(e: &plumb_core::Refusal) -> String {
    format!(
        "{}@{} {}:{} {}",
        e.reason(),
        e.byte_offset().unwrap_or(u64::MAX),
        e.line().unwrap_or(0),
        e.column().unwrap_or(0),
        e.message()
    )
}

/// Parses whole, split at every byte, and one byte at a time; all agree.
#[track_caller]
pub fn check(input: &[u8]) -> Outcome {
    let whole = parse_pieces(&[input]);
    for at in 0..=input.len() {
        let (a, b) = input.split_at(at);
        assert_eq!(parse_pieces(&[a, b]), whole, "split at {at}");
    }
    let bytes: Vec<&[u8]> = input.chunks(1).collect();
    assert_eq!(parse_pieces(&bytes), whole, "one byte at a time");
    whole
}
