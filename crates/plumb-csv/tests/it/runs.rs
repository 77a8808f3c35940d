//! The run path (records taken in bulk for a sink that judges each by
//! one field) against the byte machine, the reference (a sink that keeps
//! fields, and the same judging sink on a parser forced to the byte
//! machine with `CsvParser::with_byte_machine`): every record accounted for once,
//! in order, each run's records one line each and as wide as asked, the
//! same hits, issues, blank lines and counts, under any chunking.

use std::cell::RefCell;
use std::collections::HashMap;
use std::ops::ControlFlow;

use plumb_csv::{ColumnJudge, CsvSink, Issue, Record, RowRun};
use proptest::prelude::*;

use crate::util::{counts, cut, issue_event, parse_pieces_in, record_event, Dialect};

/// Whether a cell is a hit: the test's predicate (about half of them,
/// and a byte more or less changes it).
fn holds(cell: &[u8]) -> bool {
    (cell.len() + cell.iter().map(|&b| usize::from(b)).sum::<usize>()) % 2 == 1
}

/// Judges field `field` of each record, offering runs of `width`-field
/// records at most `most` long, and logs what came the usual way.
struct Judge<'r> {
    run: RowRun,
    /// The reference records (fields kept) and their events, by number.
    reference: &'r [Vec<String>],
    reference_events: &'r HashMap<u64, String>,
    current: Option<Vec<u8>>,
    /// The cells a run judged, since the last record or run reported.
    judged: RefCell<Vec<Vec<u8>>>,
    seen: u64,
    hits: u64,
    runs: u64,
    /// Records that came the usual way.
    usual: u64,
    events: Vec<String>,
}

impl<'r> Judge<'r> {
    fn new(
        run: RowRun,
        reference: &'r [Vec<String>],
        reference_events: &'r HashMap<u64, String>,
    ) -> Judge<'r> {
        Judge {
            run,
            reference,
            reference_events,
            current: None,
            judged: RefCell::default(),
            seen: 0,
            hits: 0,
            runs: 0,
            usual: 0,
            events: Vec::new(),
        }
    }

    fn reference_event(&self, number: u64) -> String {
        self.reference_events
            .get(&number)
            .cloned()
            .unwrap_or_default()
    }
}

impl CsvSink for Judge<'_> {
    fn keep_fields(&self) -> bool {
        false
    }
    fn wants_cells(&self) -> bool {
        true
    }
    fn cell(&mut self, record: u64, index: usize, content: &[u8]) -> ControlFlow<()> {
        assert_eq!(record, self.seen + 1, "cell of the record being read");
        if index == self.run.field {
            self.current = Some(content.to_vec());
        }
        ControlFlow::Continue(())
    }
    fn record(&mut self, r: &Record<'_>) -> ControlFlow<()> {
        self.seen += 1;
        self.usual += 1;
        // A run judged this record only to stop before it (a hit).
        let judged = self.judged.take();
        assert!(
            judged.len() <= 1 && judged.iter().all(|c| holds(c)),
            "{judged:?}"
        );
        assert_eq!(r.number, self.seen, "records in order");
        let cell = if r.has_fields() {
            r.get(self.run.field).map(<[u8]>::to_vec)
        } else {
            self.current.take()
        };
        self.hits += u64::from(cell.is_some_and(|c| holds(&c)));
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

impl ColumnJudge for Judge<'_> {
    fn cell_wanted(&self, index: usize) -> bool {
        index == self.run.field
    }
    fn only_cell(&self) -> Option<usize> {
        Some(self.run.field)
    }
    fn row_run(&self) -> Option<RowRun> {
        Some(self.run)
    }
    fn run_holds(&self, cell: &[u8]) -> bool {
        self.judged.borrow_mut().push(cell.to_vec());
        holds(cell)
    }
    fn run_passed(&mut self, records: u64, hits: u64) -> ControlFlow<()> {
        assert!(records > 0 && records <= self.run.most, "{records} records");
        assert!(!(self.run.stop_at_hit && hits > 0), "a hit in a run");
        let from = self.seen as usize;
        let taken = &self.reference[from..from + records as usize];
        // The cells judged are the taken records' fields, and a hit
        // judged before a run stopped at it is the next record's.
        let judged = self.judged.take();
        let cells: Vec<&[u8]> = self.reference[from..]
            .iter()
            .take(judged.len())
            .map(|r| r[self.run.field].as_bytes())
            .collect();
        assert_eq!(judged, cells, "cells judged from record {}", from + 1);
        let extra = judged.len() as u64 - records;
        assert!(
            extra == 0 || extra == 1 && self.run.stop_at_hit,
            "{extra} more judged"
        );
        for (k, r) in taken.iter().enumerate() {
            assert_eq!(r.len(), self.run.width, "record {} in a run", from + k + 1);
            let number = (from + k + 1) as u64;
            let event = self.reference_event(number);
            // One line each: the next record starts on the next line.
            let line = |e: &str| -> u64 {
                e.split('@')
                    .nth(1)
                    .unwrap()
                    .split(' ')
                    .next()
                    .unwrap()
                    .parse()
                    .unwrap()
            };
            let next = self.reference_event(number + 1);
            if !next.is_empty() {
                assert!(line(&next) > line(&event), "{event} / {next}");
            }
            self.events.push(event);
        }
        let want = taken
            .iter()
            .filter(|r| holds(r[self.run.field].as_bytes()))
            .count() as u64;
        assert_eq!(hits, want, "hits of records {}..", from + 1);
        self.seen += records;
        self.hits += hits;
        self.runs += 1;
        ControlFlow::Continue(())
    }
}

/// A table: rows mostly `width` fields wide, of plain, empty and quoted
/// fields, with the faults a run must leave to the general way: doubled
/// quotes, quoted line breaks, bare quotes, lone CRs, blank lines, rows
/// of another width, a long field, CRLF and LF endings.
fn table() -> impl Strategy<Value = (Vec<u8>, usize)> {
    let field = prop_oneof![
        20 => "[a-z0-9 .-]{0,12}".prop_map(String::into_bytes),
        6 => "[a-z ,\r]{0,8}".prop_map(|s| format!("\"{s}\"").into_bytes()),
        1 => "[a-z]{0,4}".prop_map(|s| format!("\"{s}\"\"{s}\"").into_bytes()),
        1 => "[a-z\n]{0,4}".prop_map(|s| format!("\"{s}\"").into_bytes()),
        1 => Just(b"x\"y".to_vec()),
        1 => Just(b"a\rb".to_vec()),
        1 => Just("é".as_bytes().to_vec()),
        1 => "[a-z]{70,200}".prop_map(String::into_bytes),
    ];
    (1usize..24).prop_flat_map(move |width| {
        let row = (
            prop::collection::vec(field.clone(), width..=width),
            prop_oneof![30 => Just(0i8), 1 => Just(-1i8), 1 => Just(1i8)],
            prop_oneof![6 => Just(&b"\n"[..]), 3 => Just(&b"\r\n"[..]), 1 => Just(&b"\n\n"[..])],
        )
            .prop_map(|(mut cells, skew, end)| {
                match skew {
                    -1 if cells.len() > 1 => {
                        cells.pop();
                    }
                    1 => cells.push(b"extra".to_vec()),
                    _ => {}
                }
                let mut line = cells.join(&b","[..]);
                line.extend_from_slice(end);
                line
            });
        (
            prop::collection::vec(row, 0..150).prop_map(|v| v.concat()),
            Just(width),
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    /// Whatever the runs take, every record is accounted for once, in
    /// order: in a run only records one line long and `width` wide, with
    /// the hits the reference's fields give; the rest come the usual way
    /// with the reference's events, cells, issues and blank lines; the
    /// counts of lines, endings and blank lines are the reference's.
    #[test]
    fn runs_account_for_every_record(
        (input, width) in table(),
        cuts in prop::collection::vec(0usize..6000, 0..6),
        field in 0usize..24,
        most in prop_oneof![Just(u64::MAX), 1u64..4],
        stop_at_hit in any::<bool>(),
    ) {
        let field = field % width;
        let dialect = Dialect::quoted(Some(b'"'));
        let (kept, reference_counts) = parse_pieces_in(&[&input], b',', dialect, true);
        let numbered = by_number(&kept.events);
        let reference_hits = kept
            .records
            .iter()
            .filter(|r| r.get(field).is_some_and(|c| holds(c.as_bytes())))
            .count() as u64;
        for pieces in [vec![&input[..]], cut(&input, cuts.clone())] {
            let run = RowRun { field, width, most, stop_at_hit };
            let mut sink = Judge::new(run, &kept.records, &numbered);
            let mut p = dialect.parser(b',');
            for piece in &pieces {
                let _ = p.push_judged(piece, &mut sink);
            }
            let _ = p.finish_judged(&mut sink);
            prop_assert_eq!(sink.seen, kept.records.len() as u64);
            prop_assert_eq!(sink.hits, reference_hits);
            prop_assert_eq!(&sink.events, &kept.events);
            prop_assert_eq!(counts(&p), reference_counts.clone());
            // The same sink on the byte machine (judged: its hints are
            // asked and ignored) and as a plain sink on the block path:
            // no run is taken, and every record, hit and count is the
            // same.
            for byte_machine in [true, false] {
                let mut reference = Judge::new(run, &kept.records, &numbered);
                let mut p = dialect.parser(b',').with_byte_machine(byte_machine);
                for piece in &pieces {
                    let _ = if byte_machine {
                        p.push_judged(piece, &mut reference)
                    } else {
                        p.push(piece, &mut reference)
                    };
                }
                let _ = if byte_machine {
                    p.finish_judged(&mut reference)
                } else {
                    p.finish(&mut reference)
                };
                prop_assert_eq!(reference.runs, 0);
                prop_assert_eq!(reference.seen, sink.seen);
                prop_assert_eq!(reference.hits, sink.hits);
                prop_assert_eq!(&reference.events, &sink.events);
                prop_assert_eq!(counts(&p), reference_counts.clone());
            }
        }
    }
}

/// A run takes the usual records of a long table, and stops at each
/// record that is not one, whatever the chunking: the test above can
/// hold with no run taken at all, this one cannot.
#[test]
fn a_long_table_goes_mostly_in_runs() {
    let mut input = b"id,city,amount\r\n".to_vec();
    for k in 0..5000u32 {
        let city = ["Lyon", "\"Koln, DE\"", "", "Oslo"][k as usize % 4];
        input.extend_from_slice(format!("{k},{city},{}.{}\r\n", k * 7, k % 10).as_bytes());
        if k % 997 == 0 {
            input.extend_from_slice(b"ragged\r\n\r\n\"a\"\"b\",x,1\n");
        }
    }
    let dialect = Dialect::quoted(Some(b'"'));
    let (kept, _) = parse_pieces_in(&[&input], b',', dialect, true);
    let numbered = by_number(&kept.events);
    for chunk in [64usize, 100, 4096, input.len()] {
        let run = RowRun {
            field: 1,
            width: 3,
            most: u64::MAX,
            stop_at_hit: false,
        };
        let mut sink = Judge::new(run, &kept.records, &numbered);
        let mut p = dialect.parser(b',');
        for piece in input.chunks(chunk) {
            let _ = p.push_judged(piece, &mut sink);
        }
        let _ = p.finish_judged(&mut sink);
        assert_eq!(sink.seen, kept.records.len() as u64, "chunk {chunk}");
        assert_eq!(sink.events, kept.events, "chunk {chunk}");
        let by_hand = sink.usual;
        // Pushes of 64 bytes hold no whole block past a record's start;
        // longer ones leave the records around each fault, and those a
        // push cuts, to the usual way.
        if chunk >= 4096 {
            assert!(by_hand < 200, "chunk {chunk}: {by_hand} records by hand");
            assert!(sink.runs >= 6, "chunk {chunk}: {} runs", sink.runs);
        }
    }
}

/// The reference's record events by record number.
fn by_number(events: &[String]) -> HashMap<u64, String> {
    events
        .iter()
        .filter_map(|e| {
            let number = e.strip_prefix("record ")?.split('@').next()?.parse().ok()?;
            Some((number, e.clone()))
        })
        .collect()
}
