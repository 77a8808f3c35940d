//! The one `check` helper: run a parser case every way, demand one answer.

use std::ops::ControlFlow;

use plumb_csv::{CsvParser, CsvSink, Issue, Record};

/// Everything a sink sees, as one-line golden strings.
#[derive(Default, Debug, PartialEq, Eq, Clone)]
pub struct Log {
    pub records: Vec<Vec<String>>,
    pub events: Vec<String>,
    /// The records begun, in order.
    pub begun: Vec<u64>,
    keep: bool,
}

impl CsvSink for Log {
    fn keep_fields(&self) -> bool {
        self.keep
    }
    fn record_begins(&mut self, record: u64) -> ControlFlow<()> {
        assert!(self.keep, "only records to be kept are announced");
        assert_eq!(
            record,
            self.begun.len() as u64 + 1,
            "each record begins once, in order"
        );
        self.begun.push(record);
        ControlFlow::Continue(())
    }
    fn record(&mut self, r: &Record<'_>) -> ControlFlow<()> {
        if self.keep {
            assert_eq!(
                self.begun.last(),
                Some(&r.number),
                "reported after it began"
            );
        }
        if self.keep {
            self.records.push(record_fields(r));
        }
        self.events.push(record_event(r));
        ControlFlow::Continue(())
    }
    fn issue(&mut self, i: &Issue) -> ControlFlow<()> {
        if self.keep {
            assert_eq!(
                self.begun.last(),
                Some(&i.record),
                "an issue comes in its record"
            );
        }
        self.events.push(issue_event(i));
        ControlFlow::Continue(())
    }
    fn blank_line(&mut self, line: u64) -> ControlFlow<()> {
        self.events.push(format!("blank@{line}"));
        ControlFlow::Continue(())
    }
}

/// A kept record's fields as strings.
pub fn record_fields(r: &Record<'_>) -> Vec<String> {
    r.iter()
        .map(|f| String::from_utf8(f.to_vec()).expect("utf8"))
        .collect()
}

/// A record event as a golden string.
pub fn record_event(r: &Record<'_>) -> String {
    format!(
        "record {}@{} fields={} offset={}",
        r.number,
        r.line,
        r.len(),
        r.byte_offset
    )
}

/// An issue event as a golden string.
pub fn issue_event(i: &Issue) -> String {
    match i.extent {
        Some((last, len)) => format!(
            "{}@{}:{}-{} len={len}",
            i.kind.as_str(),
            i.record,
            i.line,
            last
        ),
        None => format!("{}@{}:{}", i.kind.as_str(), i.record, i.line),
    }
}

/// `input` cut at the given points (clamped and sorted).
pub fn cut(input: &[u8], cuts: Vec<usize>) -> Vec<&[u8]> {
    let mut points: Vec<usize> = cuts.into_iter().map(|c| c.min(input.len())).collect();
    points.sort_unstable();
    let mut pieces = Vec::new();
    let mut last = 0;
    for p in points {
        pieces.push(&input[last..p]);
        last = p;
    }
    pieces.push(&input[last..]);
    pieces
}

pub fn parse_pieces(pieces: &[&[u8]], delimiter: u8, keep: bool) -> (Log, String) {
    parse_pieces_quoted(pieces, (delimiter, Some(b'"')), keep)
}

/// A comma-separated dialect's other settings.
#[derive(Clone, Copy, Debug)]
pub struct Dialect {
    pub quote: Option<u8>,
    pub comment: Option<u8>,
    pub skip: u64,
    pub runs: bool,
}

impl Dialect {
    pub fn quoted(quote: Option<u8>) -> Dialect {
        Dialect {
            quote,
            comment: None,
            skip: 0,
            runs: false,
        }
    }

    pub fn parser(self, delimiter: u8) -> CsvParser {
        CsvParser::new(delimiter)
            .with_quote(self.quote)
            .with_comment(self.comment)
            .with_skip_lines(self.skip)
            .with_delimiter_runs(self.runs)
    }
}

/// [`parse_pieces`] in a dialect with another quote (or none).
pub fn parse_pieces_quoted(
    pieces: &[&[u8]],
    (delimiter, quote): (u8, Option<u8>),
    keep: bool,
) -> (Log, String) {
    parse_pieces_in(pieces, delimiter, Dialect::quoted(quote), keep)
}

/// [`parse_pieces`] in any dialect; the counts string also gives the
/// lines skipped and the comment lines.
pub fn parse_pieces_in(
    pieces: &[&[u8]],
    delimiter: u8,
    dialect: Dialect,
    keep: bool,
) -> (Log, String) {
    let mut log = Log {
        keep,
        ..Log::default()
    };
    let mut p = dialect.parser(delimiter);
    for piece in pieces {
        let _ = p.push(piece, &mut log);
    }
    let _ = p.finish(&mut log);
    (log, counts(&p))
}

/// A parser's counts of line endings, blank, skipped and comment lines.
pub fn counts(p: &CsvParser) -> String {
    format!(
        "{} blank={} skipped={} comments={}",
        p.line_endings().label(),
        p.blank_lines(),
        p.skipped_lines(),
        p.comment_lines()
    )
}

/// Parses `input` whole, split at every byte, and one byte at a time,
/// with and without kept fields; all must agree.
#[track_caller]
pub fn check(input: &[u8], delimiter: u8) -> Log {
    let whole = parse_pieces(&[input], delimiter, true);
    for at in 0..=input.len() {
        let (a, b) = input.split_at(at);
        assert_eq!(
            parse_pieces(&[a, b], delimiter, true),
            whole,
            "split at {at}"
        );
    }
    let bytes: Vec<&[u8]> = input.chunks(1).collect();
    assert_eq!(
        parse_pieces(&bytes, delimiter, true),
        whole,
        "one byte at a time"
    );
    let (lean, endings) = parse_pieces(&[input], delimiter, false);
    assert_eq!(lean.events, whole.0.events, "without kept fields");
    assert_eq!(endings, whole.1);
    whole.0
}
