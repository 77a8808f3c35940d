//! `CsvParser::push`: the input cut at a fuzzer-chosen point and in
//! 1-byte pieces gives the same records and issues as the whole; the
//! block path (fields counted, or handed out cell by cell) gives the
//! same events, counts and fields as the byte machine, the reference
//! (forced with `CsvParser::with_byte_machine`, whatever the sink asks).
//! A second control byte picks the dialect: the quote (`"`, `'`, none),
//! a `#` comment, lines to skip, and runs of spaces as the delimiter.
#![no_main]

use std::ops::ControlFlow;

use libfuzzer_sys::fuzz_target;
use plumb_csv::{CsvParser, CsvSink, Issue, Record};

#[derive(Clone, Copy, PartialEq, Debug)]
enum Mode {
    Keep,
    Count,
    Cells,
}

#[derive(PartialEq, Debug)]
struct Log {
    mode: Mode,
    events: Vec<String>,
    rows: Vec<Vec<String>>,
    current: Vec<String>,
}

impl CsvSink for Log {
    fn keep_fields(&self) -> bool {
        self.mode == Mode::Keep
    }
    fn wants_cells(&self) -> bool {
        self.mode == Mode::Cells
    }
    fn cell(&mut self, _record: u64, index: usize, content: &[u8]) -> ControlFlow<()> {
        assert_eq!(index, self.current.len());
        self.current
            .push(String::from_utf8_lossy(content).into_owned());
        ControlFlow::Continue(())
    }
    fn record(&mut self, r: &Record<'_>) -> ControlFlow<()> {
        match self.mode {
            Mode::Keep => self.rows.push(
                r.iter()
                    .map(|f| String::from_utf8_lossy(f).into_owned())
                    .collect(),
            ),
            Mode::Cells => self.rows.push(std::mem::take(&mut self.current)),
            Mode::Count => {}
        }
        self.events.push(format!(
            "{}@{}:{}:{}",
            r.number,
            r.line,
            r.byte_offset,
            r.len()
        ));
        ControlFlow::Continue(())
    }
    fn issue(&mut self, i: &Issue) -> ControlFlow<()> {
        self.events
            .push(format!("{:?}@{}:{}", i.kind, i.record, i.line));
        ControlFlow::Continue(())
    }
    fn blank_line(&mut self, line: u64) -> ControlFlow<()> {
        self.events.push(format!("blank@{line}"));
        ControlFlow::Continue(())
    }
}

#[derive(Clone, Copy)]
struct Dialect {
    delimiter: u8,
    quote: Option<u8>,
    comment: Option<u8>,
    skip: u64,
    runs: bool,
}

/// The events, the rows and the counts of `pieces` read in dialect `d`
/// by a sink of `mode`; with `reference`, every byte through the byte
/// machine.
fn run_on(
    pieces: &[&[u8]],
    d: Dialect,
    mode: Mode,
    reference: bool,
) -> (Vec<String>, Vec<Vec<String>>, String) {
    let mut log = Log {
        mode,
        events: Vec::new(),
        rows: Vec::new(),
        current: Vec::new(),
    };
    let mut p = CsvParser::new(d.delimiter)
        .with_quote(d.quote)
        .with_comment(d.comment)
        .with_skip_lines(d.skip)
        .with_delimiter_runs(d.runs)
        .with_byte_machine(reference);
    for piece in pieces {
        let _ = p.push(piece, &mut log);
    }
    let _ = p.finish(&mut log);
    let counts = format!(
        "{} blank={} skipped={} comments={} records={} lines={}",
        p.line_endings().label(),
        p.blank_lines(),
        p.skipped_lines(),
        p.comment_lines(),
        p.records(),
        p.lines()
    );
    (log.events, log.rows, counts)
}

fn run(pieces: &[&[u8]], d: Dialect, mode: Mode) -> (Vec<String>, Vec<Vec<String>>, String) {
    run_on(pieces, d, mode, false)
}

fuzz_target!(|input: &[u8]| {
    let [ctl, dialect, data @ ..] = input else {
        return;
    };
    let (ctl, dialect) = (*ctl, *dialect);
    let runs = dialect & 0x20 != 0;
    let delimiter = if runs {
        b' '
    } else {
        [b',', b'\t', b';', b'|'][usize::from(ctl & 3)]
    };
    let delimiter = Dialect {
        delimiter,
        quote: [Some(b'"'), Some(b'\''), None, Some(b'"')][usize::from(dialect & 3)],
        comment: (dialect & 4 != 0).then_some(b'#'),
        skip: u64::from((dialect >> 3) & 3),
        runs,
    };
    let whole = run_on(&[data], delimiter, Mode::Keep, true);
    assert_eq!(run(&[data], delimiter, Mode::Keep), whole, "fields kept");
    let at = usize::from(ctl >> 2).min(data.len());
    let (a, b) = data.split_at(at);
    assert_eq!(run(&[a, b], delimiter, Mode::Keep), whole, "split at {at}");
    let bytes: Vec<&[u8]> = data.chunks(1).collect();
    assert_eq!(run(&bytes, delimiter, Mode::Keep), whole, "byte by byte");
    for pieces in [vec![data], vec![a, b]] {
        let reference = run_on(&pieces, delimiter, Mode::Cells, true);
        assert_eq!(reference, whole, "cells on the byte machine");
        let cells = run(&pieces, delimiter, Mode::Cells);
        assert_eq!(cells, whole, "cells, {} pieces", pieces.len());
        let (events, rows, counts) = run(&pieces, delimiter, Mode::Count);
        assert!(rows.is_empty());
        assert_eq!(
            (events, counts),
            (whole.0.clone(), whole.2.clone()),
            "counted"
        );
    }
});
