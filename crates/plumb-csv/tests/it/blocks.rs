//! The block path (records whose fields are not kept) against the byte
//! machine, the reference (forced with `CsvParser::with_byte_machine`,
//! and taken anyway for a sink that keeps fields): the same events, the
//! same counts, under any chunking, and when a sink changes its mind
//! between records.

use std::ops::ControlFlow;

use plumb_csv::{ColumnJudge, CsvSink, Issue, Record};
use proptest::prelude::*;

use crate::util::{cut, issue_event, parse_pieces_in, record_event, record_fields, Dialect};

/// Keeps fields for the first `keep_first` records only, as the header
/// resolver does, and logs every event.
struct Switching {
    keep_first: usize,
    /// Ask for cells once fields are not kept.
    cells: bool,
    seen: usize,
    events: Vec<String>,
    /// Every record's fields, from kept records or from cells.
    rows: Vec<Vec<String>>,
    current: Vec<String>,
    /// Records announced as begun.
    begun: u64,
    /// Keep fields while fewer than `keep_first` records were announced:
    /// the sink changes its mind as a record begins, as the header
    /// resolver does.
    on_begin: bool,
}

impl CsvSink for Switching {
    fn keep_fields(&self) -> bool {
        if self.on_begin {
            (self.begun as usize) < self.keep_first
        } else {
            self.seen < self.keep_first
        }
    }
    fn wants_cells(&self) -> bool {
        self.cells
    }
    fn record_begins(&mut self, record: u64) -> ControlFlow<()> {
        assert!(self.keep_fields(), "only records to be kept are announced");
        assert_eq!(
            record,
            self.seen as u64 + 1,
            "a record begins after the last ended"
        );
        assert!(
            self.current.is_empty(),
            "no cells before their record begins"
        );
        self.begun += 1;
        ControlFlow::Continue(())
    }
    fn cell(&mut self, record: u64, index: usize, content: &[u8]) -> ControlFlow<()> {
        assert_eq!(
            record,
            self.seen as u64 + 1,
            "cell of the record being read"
        );
        assert_eq!(index, self.current.len(), "cells in order");
        self.current
            .push(String::from_utf8(content.to_vec()).expect("utf8"));
        ControlFlow::Continue(())
    }
    fn record(&mut self, r: &Record<'_>) -> ControlFlow<()> {
        self.seen += 1;
        if r.has_fields() {
            assert!(self.current.is_empty(), "no cells for a kept record");
            self.rows.push(record_fields(r));
        } else if self.cells {
            assert_eq!(self.current.len(), r.len(), "one cell per field");
            self.rows.push(std::mem::take(&mut self.current));
        }
        self.events.push(record_event(r));
        ControlFlow::Continue(())
    }
    fn issue(&mut self, i: &Issue) -> ControlFlow<()> {
        self.events.push(issue_event(i));
        ControlFlow::Continue(())
    }
    fn blank_line(&mut self, line: u64) -> ControlFlow<()> {
        self.events.push(format!("blank@{line}"));
        ControlFlow::Continue(())
    }
}

fn switching(pieces: &[&[u8]], keep_first: usize) -> (Vec<String>, String) {
    switching_with(pieces, keep_first, false).0
}

/// The events, the counts, and (with `cells`) every record's fields.
fn switching_with(
    pieces: &[&[u8]],
    keep_first: usize,
    cells: bool,
) -> ((Vec<String>, String), Vec<Vec<String>>) {
    switching_on(
        pieces,
        keep_first,
        cells,
        false,
        Dialect::quoted(Some(b'"')),
        false,
    )
}

fn switching_on(
    pieces: &[&[u8]],
    keep_first: usize,
    cells: bool,
    on_begin: bool,
    dialect: Dialect,
    byte_machine: bool,
) -> ((Vec<String>, String), Vec<Vec<String>>) {
    let mut sink = Switching {
        on_begin,
        keep_first,
        cells,
        seen: 0,
        events: Vec::new(),
        rows: Vec::new(),
        current: Vec::new(),
        begun: 0,
    };
    let mut p = dialect.parser(b',').with_byte_machine(byte_machine);
    for piece in pieces {
        let _ = p.push(piece, &mut sink);
    }
    let _ = p.finish(&mut sink);
    let counts = format!(
        "{} blank={} skipped={} comments={} records={} lines={}",
        p.line_endings().label(),
        p.blank_lines(),
        p.skipped_lines(),
        p.comment_lines(),
        p.records(),
        p.lines()
    );
    ((sink.events, counts), sink.rows)
}

/// Runs `input` through the byte machine (fields kept) and the block
/// path (whole, cut, and after a few kept records) and demands one answer.
fn same_every_way(input: &[u8], cuts: Vec<usize>, keep_first: usize) -> Result<(), TestCaseError> {
    same_every_way_in(input, cuts, keep_first, Dialect::quoted(Some(b'"'))).map(drop)
}

/// [`same_every_way`] in another dialect; the events and the kept
/// records come back for the caller's own oracle.
fn same_every_way_in(
    input: &[u8],
    cuts: Vec<usize>,
    keep_first: usize,
    dialect: Dialect,
) -> Result<(Vec<String>, Vec<Vec<String>>), TestCaseError> {
    let run = |pieces: &[&[u8]], keep_first, cells, on_begin| {
        switching_on(pieces, keep_first, cells, on_begin, dialect, false)
    };
    let forced = |pieces: &[&[u8]], cells| switching_on(pieces, 0, cells, false, dialect, true);
    let (kept, kept_endings) = parse_pieces_in(&[input], b',', dialect, true);
    let ((reference, reference_counts), _) = run(&[input], usize::MAX, false, false);
    prop_assert_eq!(&reference, &kept.events);
    prop_assert!(reference_counts.starts_with(&kept_endings));
    let ((lean, lean_counts), _) = run(&[input], 0, false, false);
    prop_assert_eq!(&lean, &reference);
    prop_assert_eq!(&lean_counts, &reference_counts);
    let pieces = cut(input, cuts);
    // The byte machine forced for a sink that keeps no fields: the
    // reference's events, counts and cells, whole and cut.
    for pieces in [vec![input], pieces.clone()] {
        let ((events, counts), rows) = forced(&pieces, true);
        prop_assert_eq!(&events, &reference);
        prop_assert_eq!(&counts, &reference_counts);
        prop_assert_eq!(&rows, &kept.records);
    }
    let ((lean_cut, lean_cut_counts), _) = run(&pieces, 0, false, false);
    prop_assert_eq!(&lean_cut, &reference);
    prop_assert_eq!(&lean_cut_counts, &reference_counts);
    let ((mixed, mixed_counts), _) = run(&pieces, keep_first, false, false);
    prop_assert_eq!(&mixed, &reference);
    prop_assert_eq!(&mixed_counts, &reference_counts);
    // Cell by cell: the same events and the same fields as kept records.
    for (pieces, keep_first) in [(vec![input], 0), (pieces.clone(), keep_first)] {
        let ((events, counts), rows) = run(&pieces, keep_first, true, false);
        prop_assert_eq!(&events, &reference);
        prop_assert_eq!(&counts, &reference_counts);
        prop_assert_eq!(&rows, &kept.records);
    }
    // A sink that stops keeping fields as a record begins.
    let ((events, counts), rows) = run(&pieces, keep_first, true, true);
    prop_assert_eq!(&events, &reference);
    prop_assert_eq!(&counts, &reference_counts);
    prop_assert_eq!(&rows, &kept.records);
    Ok((reference, kept.records))
}

/// Records as a dialect without quotes must read them: lines (ended by
/// LF, CRLF or a lone CR; blank ones skipped) split at every comma.
fn unquoted_oracle(input: &[u8]) -> Vec<Vec<String>> {
    let text = String::from_utf8(input.to_vec()).expect("utf8");
    text.replace("\r\n", "\n")
        .split(['\n', '\r'])
        .filter(|line| !line.is_empty())
        .map(|line| line.split(',').map(str::to_owned).collect())
        .collect()
}

/// Swaps `"` and `'`.
fn swap_quotes(input: &[u8]) -> Vec<u8> {
    input
        .iter()
        .map(|&b| match b {
            b'"' => b'\'',
            b'\'' => b'"',
            b => b,
        })
        .collect()
}

/// Mostly well-formed text (so whole blocks are taken) with the faults
/// the block path must hand back: bare quotes, text after quotes, lone
/// CRs, blank lines, quoted line breaks, multibyte text.
fn long_csvish() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop_oneof![
        20 => "[a-z0-9 ]{1,12}".prop_map(String::into_bytes),
        12 => Just(b",".to_vec()),
        6 => Just(b"\n".to_vec()),
        3 => Just(b"\r\n".to_vec()),
        4 => "[a-z ,]{0,8}".prop_map(|s| format!("\"{s}\"").into_bytes()),
        2 => "[a-z\n\r]{0,8}".prop_map(|s| format!("\"{s}\"\"{s}\"").into_bytes()),
        1 => Just(b"\"".to_vec()),
        1 => Just(b"\r".to_vec()),
        1 => Just(b"\n\n".to_vec()),
        1 => Just("é".as_bytes().to_vec()),
    ];
    prop::collection::vec(piece, 0..300).prop_map(|v| v.concat())
}

/// Well-formed files written by the `csv` crate.
fn written() -> impl Strategy<Value = Vec<u8>> {
    (
        prop::collection::vec(prop::collection::vec("[a-z0-9 ,\"\n\r]{0,10}", 1..6), 1..60),
        any::<bool>(),
    )
        .prop_map(|(rows, crlf)| {
            let mut w = csv::WriterBuilder::new()
                .flexible(true)
                .terminator(if crlf {
                    csv::Terminator::CRLF
                } else {
                    csv::Terminator::Any(b'\n')
                })
                .from_writer(Vec::new());
            for r in &rows {
                w.write_record(r).unwrap();
            }
            w.into_inner().unwrap()
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(600))]

    #[test]
    fn block_path_is_the_byte_machine(
        input in long_csvish(),
        cuts in prop::collection::vec(0usize..4000, 0..8),
        keep_first in 0usize..6,
    ) {
        same_every_way(&input, cuts, keep_first)?;
    }

    #[test]
    fn block_path_on_written_files(
        input in written(),
        cuts in prop::collection::vec(0usize..4000, 0..8),
        keep_first in 0usize..6,
    ) {
        same_every_way(&input, cuts, keep_first)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// With `'` as the quote, a file reads as the same file with the two
    /// quote characters swapped reads with `"`, every way.
    #[test]
    fn single_quote_reads_as_double_quote_swapped(
        input in long_csvish(),
        cuts in prop::collection::vec(0usize..4000, 0..8),
        keep_first in 0usize..6,
    ) {
        let (events, records) =
            same_every_way_in(&input, cuts.clone(), keep_first, Dialect::quoted(Some(b'"')))?;
        let swapped = swap_quotes(&input);
        let (s_events, s_records) =
            same_every_way_in(&swapped, cuts, keep_first, Dialect::quoted(Some(b'\'')))?;
        prop_assert_eq!(s_events, events);
        let unswapped: Vec<Vec<String>> = s_records
            .iter()
            .map(|r| r.iter().map(|f| String::from_utf8(swap_quotes(f.as_bytes())).unwrap()).collect())
            .collect();
        prop_assert_eq!(unswapped, records);
    }

    /// Without a quote, every quote character is text: records are the
    /// lines, fields the comma-separated pieces, and nothing is an issue.
    #[test]
    fn no_quote_reads_lines_split_at_delimiters(
        input in long_csvish(),
        cuts in prop::collection::vec(0usize..4000, 0..8),
        keep_first in 0usize..6,
    ) {
        let (events, records) = same_every_way_in(&input, cuts, keep_first, Dialect::quoted(None))?;
        prop_assert!(events.iter().all(|e| e.starts_with("record") || e.starts_with("blank")), "{:?}", events);
        prop_assert_eq!(records, unquoted_oracle(&input));
    }
}

/// [`long_csvish`] with comment lines and comment bytes inside fields.
fn commented_csvish() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop_oneof![
        20 => "[a-z0-9 ]{1,12}".prop_map(String::into_bytes),
        12 => Just(b",".to_vec()),
        6 => Just(b"\n".to_vec()),
        2 => Just(b"\r\n".to_vec()),
        4 => "[a-z #]{0,8}".prop_map(|s| format!("\n#{s}\n").into_bytes()),
        3 => Just(b"#".to_vec()),
        3 => "[a-z ,#\n]{0,8}".prop_map(|s| format!("\"{s}\"").into_bytes()),
        1 => Just(b"\"".to_vec()),
        1 => Just(b"\n\n".to_vec()),
    ];
    prop::collection::vec(piece, 0..300).prop_map(|v| v.concat())
}

/// Lines without quotes, as the comment rule reads them: those that
/// open with `#` dropped, then split at commas.
fn uncommented_oracle(input: &[u8], skip: usize) -> Vec<Vec<String>> {
    let text = String::from_utf8(input.to_vec()).expect("utf8");
    let text = text.replace("\r\n", "\n");
    text.split('\n')
        .skip(skip)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .map(|line| line.split(',').map(str::to_owned).collect())
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Comment lines and skipped lines are the byte machine's; the block
    /// path hands every block that holds one back, and the two agree
    /// under any chunking.
    #[test]
    fn comments_and_skipped_lines_every_way(
        input in commented_csvish(),
        cuts in prop::collection::vec(0usize..4000, 0..8),
        keep_first in 0usize..6,
        skip in 0u64..6,
    ) {
        let quoted = Dialect { quote: Some(b'"'), comment: Some(b'#'), skip, runs: false };
        same_every_way_in(&input, cuts.clone(), keep_first, quoted)?;
        // Without quotes, the oracle is plain line handling.
        let plain = Dialect { quote: None, comment: Some(b'#'), skip, runs: false };
        let (_, records) = same_every_way_in(&input, cuts, keep_first, plain)?;
        prop_assert_eq!(records, uncommented_oracle(&input, skip as usize));
    }
}

#[test]
fn block_path_at_every_split_of_a_long_example() {
    let mut input = Vec::new();
    for k in 0..40 {
        input.extend_from_slice(
            format!("{k},\"q {k}, \"\"x\"\"\",plain {k}\r\n\n\"multi\nline\",{k}\n").as_bytes(),
        );
    }
    input.extend_from_slice(b"bad\"quote,1\n\"open,2");
    let (reference, counts) = switching(&[&input], usize::MAX);
    assert!(reference.iter().any(|e| e.starts_with("bare-quote")));
    assert!(reference
        .iter()
        .any(|e| e.starts_with("unterminated-quote")));
    let (_, rows) = switching_with(&[&input], usize::MAX, false);
    for at in 0..=input.len() {
        let (a, b) = input.split_at(at);
        assert_eq!(
            switching(&[a, b], 0),
            (reference.clone(), counts.clone()),
            "split at {at}"
        );
        let cells = switching_with(&[a, b], 1, true);
        assert_eq!(
            cells,
            ((reference.clone(), counts.clone()), rows.clone()),
            "cells, split at {at}"
        );
    }
}

/// Takes only one column's cells, as a column search does: the block
/// path passes over the others by counting delimiters.
struct OneColumn {
    only: usize,
    current: Option<String>,
    seen: u64,
    /// Each record's wanted cell and field count.
    got: Vec<(Option<String>, usize)>,
    /// Each record's number, line, field count and offset, each issue
    /// (with where a quote opened) and each blank line.
    events: Vec<String>,
}

impl ColumnJudge for OneColumn {
    fn cell_wanted(&self, index: usize) -> bool {
        index == self.only
    }
    fn only_cell(&self) -> Option<usize> {
        Some(self.only)
    }
}

impl CsvSink for OneColumn {
    fn keep_fields(&self) -> bool {
        false
    }
    fn wants_cells(&self) -> bool {
        true
    }
    fn cell(&mut self, record: u64, index: usize, content: &[u8]) -> ControlFlow<()> {
        assert_eq!(record, self.seen + 1, "cell of the record being read");
        if index == self.only {
            assert!(self.current.is_none(), "the wanted cell once");
            self.current = Some(String::from_utf8(content.to_vec()).expect("utf8"));
        }
        ControlFlow::Continue(())
    }
    fn record(&mut self, r: &Record<'_>) -> ControlFlow<()> {
        self.seen += 1;
        let cell = if r.has_fields() {
            r.get(self.only)
                .map(|c| String::from_utf8(c.to_vec()).unwrap())
        } else {
            self.current.take()
        };
        self.got.push((cell, r.len()));
        self.events.push(record_event(r));
        ControlFlow::Continue(())
    }
    fn issue(&mut self, i: &Issue) -> ControlFlow<()> {
        self.events.push(issue_event(i));
        ControlFlow::Continue(())
    }
    fn blank_line(&mut self, line: u64) -> ControlFlow<()> {
        self.events.push(format!("blank@{line}"));
        ControlFlow::Continue(())
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(600))]

    /// A sink that wants one column gets, at any chunking, exactly the
    /// cells of that column that kept records hold (none past a short
    /// record's end), each record's field count, line and offset, and
    /// the same issues and blank lines,
    /// though the fields around that column were passed over (and a
    /// record that a block holds whole reported in fewer steps).
    #[test]
    fn one_column_cells_are_the_kept_fields(
        input in long_csvish(),
        cuts in prop::collection::vec(0usize..4000, 0..8),
        only in 0usize..5,
    ) {
        let (kept, _) = parse_pieces_in(&[&input], b',', Dialect::quoted(Some(b'"')), true);
        let expected: Vec<(Option<String>, usize)> =
            kept.records.iter().map(|r| (r.get(only).cloned(), r.len())).collect();
        for pieces in [vec![&input[..]], cut(&input, cuts.clone())] {
            let mut sink = OneColumn {
                only,
                current: None,
                seen: 0,
                got: Vec::new(),
                events: Vec::new(),
            };
            let mut p = Dialect::quoted(Some(b'"')).parser(b',');
            for piece in &pieces {
                let _ = p.push_judged(piece, &mut sink);
            }
            let _ = p.finish_judged(&mut sink);
            prop_assert_eq!(&sink.got, &expected);
            prop_assert_eq!(&sink.events, &kept.events);
        }
    }
}
