//! `JsonParser::push`: chunked equals whole (events and refusal), and
//! accept/reject agrees with serde_json on UTF-8 input, outside the
//! documented differences (lone surrogate escapes are accepted; depth
//! past serde_json's 128; numbers a double cannot hold).
#![no_main]

use std::ops::ControlFlow;

use libfuzzer_sys::fuzz_target;
use plumb_json::{JsonParser, JsonSink, Scalar, Status};

#[derive(Default)]
struct Log(Vec<String>);

impl JsonSink for Log {
    fn start_object(&mut self, d: usize, at: u64) -> ControlFlow<()> {
        self.0.push(format!("{{{d}@{at}"));
        ControlFlow::Continue(())
    }
    fn key(&mut self, k: &str, t: bool) -> ControlFlow<()> {
        self.0.push(format!("k{k:?}{t}"));
        ControlFlow::Continue(())
    }
    fn end_object(&mut self) -> ControlFlow<()> {
        self.0.push("}".into());
        ControlFlow::Continue(())
    }
    fn start_array(&mut self, d: usize, at: u64) -> ControlFlow<()> {
        self.0.push(format!("[{d}@{at}"));
        ControlFlow::Continue(())
    }
    fn end_array(&mut self) -> ControlFlow<()> {
        self.0.push("]".into());
        ControlFlow::Continue(())
    }
    fn scalar(&mut self, s: &Scalar<'_>) -> ControlFlow<()> {
        self.0.push(format!(
            "{:?}{:?}{}{}@{}",
            s.kind, s.raw, s.truncated, s.len, s.byte_offset
        ));
        ControlFlow::Continue(())
    }
}

fn run(pieces: &[&[u8]]) -> (Vec<String>, Option<String>) {
    let mut log = Log::default();
    let mut p = JsonParser::new();
    for piece in pieces {
        if let Err(e) = p.push(piece, &mut log) {
            return (log.0, Some(format!("{e:?}")));
        }
    }
    match p.finish(&mut log) {
        Ok(Status::Done) => (log.0, None),
        Ok(s) => (log.0, Some(format!("{s:?}"))),
        Err(e) => (log.0, Some(format!("{e:?}"))),
    }
}

fuzz_target!(|input: &[u8]| {
    let Some((&ctl, data)) = input.split_first() else {
        return;
    };
    let whole = run(&[data]);
    let at = usize::from(ctl).min(data.len());
    let (a, b) = data.split_at(at);
    assert_eq!(run(&[a, b]), whole, "split at {at}");
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let lower = text.to_ascii_lowercase();
    if lower.contains("\\ud") {
        return;
    }
    match serde_json::from_str::<serde::de::IgnoredAny>(text) {
        Ok(_) => assert!(
            whole.1.is_none(),
            "serde_json accepts, plumb refused: {:?}",
            whole.1
        ),
        Err(e) => {
            let msg = e.to_string();
            if msg.contains("recursion limit") || msg.contains("out of range") {
                return;
            }
            assert!(
                whole.1.is_some(),
                "serde_json refuses ({msg}), plumb accepted"
            );
        }
    }
});
