//! The push parser: the seed's cases, caps, and proptests.

use plumb_csv::CsvParser;
use plumb_csv::{CSV_MAX_FIELD_BYTES, CSV_MAX_RECORD_BYTES};
use proptest::prelude::*;

use crate::util::{check, cut, parse_pieces, parse_pieces_in, parse_pieces_quoted, Dialect};

#[test]
fn quoted_crlf_example_gives_three_records_at_every_split() {
    let input = b"a,b,c\r\n\"x, y\",\"he said \"\"hi\"\"\",\"line1\r\nline2\"\r\n1,2,3\r\n";
    let log = check(input, b',');
    assert_eq!(
        log.records,
        vec![
            vec!["a", "b", "c"],
            vec!["x, y", "he said \"hi\"", "line1\r\nline2"],
            vec!["1", "2", "3"],
        ]
    );
    assert!(
        log.events.iter().all(|e| e.starts_with("record")),
        "no issues: {:?}",
        log.events
    );
    assert_eq!(
        log.events,
        vec![
            "record 1@1 fields=3 offset=0",
            "record 2@2 fields=3 offset=7",
            "record 3@4 fields=3 offset=47",
        ]
    );
    assert_eq!(
        parse_pieces(&[input], b',', true).1,
        "crlf blank=0 skipped=0 comments=0"
    );
}

#[test]
fn quoting_faults_are_recovered_and_reported() {
    let input = b"a,b\n\"x\"y,1\nx\"y,2\n\"open,3\nmore\n";
    let log = check(input, b',');
    let issues: Vec<&String> = log
        .events
        .iter()
        .filter(|e| !e.starts_with("record"))
        .collect();
    assert_eq!(
        issues,
        vec![
            "text-after-quote@2:2",
            "bare-quote@3:3",
            "unterminated-quote@4:4"
        ]
    );
    assert_eq!(
        log.records,
        vec![
            vec!["a", "b"],
            vec!["xy", "1"],
            vec!["x\"y", "2"],
            vec!["open,3\nmore\n"],
        ]
    );
}

#[test]
fn blank_lines_and_line_endings() {
    let log = check(b"a,b\n\n1,2\r\n\r\n3,4\r5,6", b',');
    assert_eq!(
        log.records,
        vec![
            vec!["a", "b"],
            vec!["1", "2"],
            vec!["3", "4"],
            vec!["5", "6"]
        ]
    );
    assert!(log.events.contains(&"blank@2".to_owned()));
    assert!(log.events.contains(&"blank@4".to_owned()));
    assert_eq!(
        parse_pieces(&[b"a,b\n\n1,2\r\n\r\n3,4\r5,6"], b',', true).1,
        "mixed blank=2 skipped=0 comments=0"
    );
    assert_eq!(
        parse_pieces(&[b"a\rb\r"], b',', true).1,
        "cr blank=0 skipped=0 comments=0"
    );
    assert_eq!(
        parse_pieces(&[b"a,b"], b',', true).1,
        "none blank=0 skipped=0 comments=0"
    );
    assert_eq!(
        parse_pieces(&[b"a\nb\n"], b',', true).1,
        "lf blank=0 skipped=0 comments=0"
    );
}

#[test]
fn trailing_delimiters_and_empty_fields() {
    let log = check(b"a,,\n,\n\"\"\n", b',');
    assert_eq!(log.records, vec![vec!["a", "", ""], vec!["", ""], vec![""]]);
}

#[test]
fn other_delimiters() {
    let log = check(b"a;b|c\n1;\"2;3\"\n", b';');
    assert_eq!(log.records, vec![vec!["a", "b|c"], vec!["1", "2;3"]]);
    let log = check(b"a\tb\n1\t2\n", b'\t');
    assert_eq!(log.records, vec![vec!["a", "b"], vec!["1", "2"]]);
}

#[test]
fn field_cap_closes_the_record_at_the_next_line_break() {
    let mut input = b"h1,h2\nok,1\n\"".to_vec();
    input.extend(std::iter::repeat_n(b'x', CSV_MAX_FIELD_BYTES + 10));
    input.extend_from_slice(b"\nstill,2\nafter,3\n");
    let (log, _) = parse_pieces(&[&input], b',', true);
    assert_eq!(
        log.events,
        vec![
            "record 1@1 fields=2 offset=0",
            "record 2@2 fields=2 offset=6",
            "field-too-large@3:3",
            "record 3@3 fields=0 offset=11",
            "record 4@4 fields=2 offset=1048599",
            "record 5@5 fields=2 offset=1048607",
        ]
    );
    assert_eq!(log.records[3], vec!["still", "2"]);
    assert_eq!(log.records[4], vec!["after", "3"]);
    // The same in 64 KiB pieces.
    let pieces: Vec<&[u8]> = input.chunks(64 * 1024).collect();
    assert_eq!(parse_pieces(&pieces, b',', true).0, log);
}

#[test]
fn record_cap_counts_field_ends() {
    // Many small fields: content plus 4 bytes per field end.
    let fields = CSV_MAX_RECORD_BYTES / 5 + 10;
    let mut input = "x,".repeat(fields).into_bytes();
    input.extend_from_slice(b"\nnext,row\n");
    let (log, _) = parse_pieces(&[&input], b',', false);
    assert_eq!(log.events[0], "record-too-large@1:1");
    assert_eq!(
        log.events.last().unwrap(),
        &format!("record 2@2 fields=2 offset={}", 2 * fields + 1)
    );
}

#[test]
fn a_sink_can_stop_the_parse() {
    use std::ops::ControlFlow;
    struct StopAfter(usize, usize);
    impl plumb_csv::CsvSink for StopAfter {
        fn record(&mut self, _: &plumb_csv::Record<'_>) -> ControlFlow<()> {
            self.1 += 1;
            if self.1 == self.0 {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        }
    }
    let mut sink = StopAfter(2, 0);
    let mut p = plumb_csv::CsvParser::new(b',');
    assert!(p.push(b"a\nb\nc\nd\n", &mut sink).is_break());
    assert!(p.push(b"e\n", &mut sink).is_break());
    assert!(p.finish(&mut sink).is_break());
    assert_eq!(sink.1, 2);
}

#[test]
fn a_quoted_field_over_many_lines_is_a_long_quoted_field_notice() {
    // A tab-separated export with a stray `"` opening one text field and
    // another closing one twelve lines later: read with quoting, the
    // lines between become one record, and that is said.
    let mut text = String::from("id\tnote\n");
    for k in 1..=20 {
        let note = match k {
            3 => "\"starts a quote".to_owned(),
            15 => "ends it\"".to_owned(),
            _ => format!("note {k}"),
        };
        text.push_str(&format!("{k}\t{note}\n"));
    }
    let log = check(text.as_bytes(), b'\t');
    let long: Vec<&String> = log
        .events
        .iter()
        .filter(|e| e.starts_with("long-quoted-field"))
        .collect();
    // Record 4 (file line 4) runs to line 16: twelve breaks inside quotes.
    let bytes = text
        .lines()
        .skip(3)
        .take(13)
        .map(|l| l.len() + 1)
        .sum::<usize>()
        - 1;
    assert_eq!(long, vec![&format!("long-quoted-field@4:4-16 len={bytes}")]);
    // Without quoting the same text is twenty-one records of two fields
    // and no issue at all.
    let (plain, _) = parse_pieces_quoted(&[text.as_bytes()], (b'\t', None), true);
    assert_eq!(plain.records.len(), 21);
    assert!(plain.records.iter().all(|r| r.len() == 2));
    assert!(plain.events.iter().all(|e| e.starts_with("record")));
}

#[test]
fn short_multiline_fields_are_not_long() {
    // Addresses of three lines: real multi-line fields, no notice.
    let mut text = String::from("name,address\n");
    for k in 0..30 {
        text.push_str(&format!("n{k},\"{k} Main St\nSpringfield\nUSA\"\n"));
    }
    let log = check(text.as_bytes(), b',');
    assert_eq!(log.records.len(), 31);
    assert!(
        log.events.iter().all(|e| e.starts_with("record")),
        "{:?}",
        log.events
    );
}

#[test]
fn a_record_far_longer_than_its_neighbours_is_a_long_quoted_field() {
    // Two lines only, but 600 times the length of the records before it.
    let mut text = String::new();
    for k in 0..20 {
        text.push_str(&format!("{k},short\n"));
    }
    text.push_str(&format!(
        "20,\"{}\n{}\"\n21,short\n",
        "x".repeat(2500),
        "y".repeat(2500)
    ));
    let log = check(text.as_bytes(), b',');
    let long: Vec<&String> = log
        .events
        .iter()
        .filter(|e| e.starts_with("long-quoted-field"))
        .collect();
    assert_eq!(
        long,
        vec![&"long-quoted-field@21:21-22 len=5006".to_owned()]
    );
}

#[test]
fn single_quote_and_no_quote_dialects() {
    let text = b"a,'b,c',\"d\n'e\nf',g,h\n";
    let (single, _) = parse_pieces_quoted(&[text], (b',', Some(b'\'')), true);
    assert_eq!(
        single.records,
        vec![vec!["a", "b,c", "\"d"], vec!["e\nf", "g", "h"]]
    );
    let (none, _) = parse_pieces_quoted(&[text], (b',', None), true);
    assert_eq!(
        none.records,
        vec![
            vec!["a", "'b", "c'", "\"d"],
            vec!["'e"],
            vec!["f'", "g", "h"]
        ]
    );
    // A quote equal to the delimiter or a line break is no quote.
    for odd in [b',', b'\n', b'\r'] {
        assert_eq!(CsvParser::new(b',').with_quote(Some(odd)).quote(), None);
    }
    assert_eq!(CsvParser::new(b',').quote(), Some(b'"'));
}

/// Text aligned in columns: words, runs of spaces, line breaks.
fn aligned() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop_oneof![
        6 => "[a-z0-9]{1,6}".prop_map(String::into_bytes),
        5 => " {1,5}".prop_map(String::into_bytes),
        2 => Just(b"\n".to_vec()),
        1 => Just(b"\r\n".to_vec()),
        1 => Just(b" \"a b\" ".to_vec()),
    ];
    prop::collection::vec(piece, 0..60).prop_map(|v| v.concat())
}

#[test]
fn every_dialect_setting_gives_one_answer_at_every_split() {
    let text: &[u8] = b"Title line \"quoted\nskip me too\n# note\nid  name  'a b'\r\n1  \"x y\"  'it''s'\n\n# another\n2  z  w  \n3 'q\nr' s";
    let dialects = [
        (
            b' ',
            Dialect {
                quote: Some(b'\''),
                comment: Some(b'#'),
                skip: 2,
                runs: true,
            },
        ),
        (
            b' ',
            Dialect {
                quote: None,
                comment: Some(b'#'),
                skip: 1,
                runs: true,
            },
        ),
        (
            b' ',
            Dialect {
                quote: Some(b'"'),
                comment: None,
                skip: 0,
                runs: false,
            },
        ),
        (
            b',',
            Dialect {
                quote: None,
                comment: Some(b'#'),
                skip: 3,
                runs: false,
            },
        ),
    ];
    for (delimiter, dialect) in dialects {
        let whole = parse_pieces_in(&[text], delimiter, dialect, true);
        for at in 0..=text.len() {
            let (a, b) = text.split_at(at);
            assert_eq!(
                parse_pieces_in(&[a, b], delimiter, dialect, true),
                whole,
                "{dialect:?} split at {at}"
            );
        }
        let bytes: Vec<&[u8]> = text.chunks(1).collect();
        assert_eq!(
            parse_pieces_in(&bytes, delimiter, dialect, true),
            whole,
            "{dialect:?}"
        );
        let (lean, counts) = parse_pieces_in(&[text], delimiter, dialect, false);
        assert_eq!(
            (lean.events, counts),
            (whole.0.events.clone(), whole.1.clone())
        );
    }
    // The first dialect's records, as a person reads them.
    let (log, counts) = parse_pieces_in(&[text], b' ', dialects[0].1, true);
    assert_eq!(
        log.records,
        vec![
            vec!["id", "name", "a b"],
            vec!["1", "\"x", "y\"", "it's"],
            vec!["2", "z", "w"],
            vec!["3", "q\nr", "s"],
        ]
    );
    assert!(counts.contains("skipped=2 comments=2"), "{counts}");
}

fn csvish() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop_oneof![
        6 => "[a-z0-9 ]{1,3}".prop_map(String::into_bytes),
        3 => Just(b",".to_vec()),
        2 => Just(b"\"".to_vec()),
        2 => Just(b"\n".to_vec()),
        1 => Just(b"\r\n".to_vec()),
        1 => Just(b"\r".to_vec()),
        1 => Just("é".as_bytes().to_vec()),
    ];
    prop::collection::vec(piece, 0..40).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    /// Runs of spaces: the fields are the words of each non-blank line
    /// (a quoted `"a b"` is one), under any chunking and whether fields
    /// are kept or not.
    #[test]
    fn space_runs_split_like_awk(input in aligned(), cuts in prop::collection::vec(0usize..64, 0..6)) {
        let dialect = Dialect { runs: true, ..Dialect::quoted(Some(b'"')) };
        let whole = parse_pieces_in(&[&input], b' ', dialect, true);
        prop_assert_eq!(&parse_pieces_in(&cut(&input, cuts), b' ', dialect, true), &whole);
        let bytes: Vec<&[u8]> = input.chunks(1).collect();
        prop_assert_eq!(&parse_pieces_in(&bytes, b' ', dialect, true), &whole);
        let (lean, _) = parse_pieces_in(&[&input], b' ', dialect, false);
        prop_assert_eq!(&lean.events, &whole.0.events);
        let text = String::from_utf8(input.clone()).unwrap().replace("\"a b\"", "\u{1}");
        let oracle: Vec<Vec<String>> = text
            .replace("\r\n", "\n")
            .split('\n')
            .map(|line| line.split(' ').filter(|w| !w.is_empty()).map(|w| w.replace('\u{1}', "a b")).collect::<Vec<_>>())
            .filter(|words| !words.is_empty())
            .collect();
        prop_assert_eq!(&whole.0.records, &oracle);
    }

    /// Any chunking of any input gives identical records and issues.
    #[test]
    fn any_chunking_is_the_whole(input in csvish(), cuts in prop::collection::vec(0usize..64, 0..6)) {
        let whole = parse_pieces(&[&input], b',', true);
        prop_assert_eq!(parse_pieces(&cut(&input, cuts), b',', true), whole);
    }

    /// Well-formed files parse to the same records as the `csv` crate.
    #[test]
    fn agrees_with_the_csv_crate(
        rows in prop::collection::vec(
            prop::collection::vec("[a-z0-9 ,\"\n\r]{0,6}", 3..=3),
            1..12,
        ),
        crlf in any::<bool>(),
    ) {
        let mut w = csv::WriterBuilder::new()
            .terminator(if crlf { csv::Terminator::CRLF } else { csv::Terminator::Any(b'\n') })
            .from_writer(Vec::new());
        for r in &rows {
            w.write_record(r).unwrap();
        }
        let bytes = w.into_inner().unwrap();
        let mut reader = csv::ReaderBuilder::new().has_headers(false).flexible(true).from_reader(bytes.as_slice());
        let oracle: Vec<Vec<String>> = reader
            .records()
            .map(|r| r.unwrap().iter().map(str::to_owned).collect())
            .collect();
        let (log, _) = parse_pieces(&[&bytes], b',', true);
        // Well-formed: no fault; fields of many line breaks are noticed.
        prop_assert!(
            log.events.iter().all(|e| e.starts_with("record") || e.starts_with("long-quoted-field")),
            "{:?}",
            log.events
        );
        prop_assert_eq!(log.records, oracle);
    }

    /// With `'` as the quote, the same agreement with the `csv` crate
    /// writing and reading with `'`.
    #[test]
    fn agrees_with_the_csv_crate_on_single_quotes(
        rows in prop::collection::vec(
            prop::collection::vec("[a-z0-9 ,'\"\n]{0,6}", 3..=3),
            1..12,
        ),
    ) {
        let mut w = csv::WriterBuilder::new().quote(b'\'').from_writer(Vec::new());
        for r in &rows {
            w.write_record(r).unwrap();
        }
        let bytes = w.into_inner().unwrap();
        let mut reader = csv::ReaderBuilder::new()
            .quote(b'\'')
            .has_headers(false)
            .flexible(true)
            .from_reader(bytes.as_slice());
        let oracle: Vec<Vec<String>> = reader
            .records()
            .map(|r| r.unwrap().iter().map(str::to_owned).collect())
            .collect();
        let (log, _) = parse_pieces_quoted(&[&bytes], (b',', Some(b'\'')), true);
        // Well-formed: no fault; fields of many line breaks are noticed.
        prop_assert!(
            log.events.iter().all(|e| e.starts_with("record") || e.starts_with("long-quoted-field")),
            "{:?}",
            log.events
        );
        prop_assert_eq!(log.records, oracle);
    }
}
