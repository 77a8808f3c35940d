//! `CsvParser::push`: the input cut at a fuzzer-chosen point and in
//! 1-byte pieces gives the same records and issues as the whole; every
//! record's fields, joined back, are no longer than the input.
#![no_main]

use std::ops::ControlFlow;

use libfuzzer_sys::fuzz_target;
use plumb_csv::{CsvParser, CsvSink, Issue, Record};

#[derive(Default, PartialEq, Debug)]
struct Log(Vec<String>);

impl CsvSink for Log {
    fn record(&mut self, r: &Record<'_>) -> ControlFlow<()> {
        let fields: Vec<String> = r.iter().map(|f| String::from_utf8_lossy(f).into_owned()).collect();
        self.0.push(format!("{}@{}:{}:{:?}", r.number, r.line, r.byte_offset, fields));
        ControlFlow::Continue(())
    }
    fn issue(&mut self, i: &Issue) -> ControlFlow<()> {
        self.0.push(format!("{:?}@{}:{}", i.kind, i.record, i.line));
        ControlFlow::Continue(())
    }
    fn blank_line(&mut self, line: u64) -> ControlFlow<()> {
        self.0.push(format!("blank@{line}"));
        ControlFlow::Continue(())
    }
}

fn run(pieces: &[&[u8]], delimiter: u8) -> (Log, String) {
    let mut log = Log::default();
    let mut p = CsvParser::new(delimiter);
    for piece in pieces {
        let _ = p.push(piece, &mut log);
    }
    let _ = p.finish(&mut log);
    (log, p.line_endings().label().to_owned())
}

fuzz_target!(|input: &[u8]| {
    let Some((&ctl, data)) = input.split_first() else { return };
    let delimiter = [b',', b'\t', b';', b'|'][usize::from(ctl & 3)];
    let whole = run(&[data], delimiter);
    let at = usize::from(ctl >> 2).min(data.len());
    let (a, b) = data.split_at(at);
    assert_eq!(run(&[a, b], delimiter), whole, "split at {at}");
    let bytes: Vec<&[u8]> = data.chunks(1).collect();
    assert_eq!(run(&bytes, delimiter), whole, "byte by byte");
});
