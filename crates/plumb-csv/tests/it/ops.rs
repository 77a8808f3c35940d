//! inspect, select and validate through a real text stream.

use plumb_core::{RefusalReason, TextStream};
use plumb_csv::{
    detect_delimiter, inspect, select, validate, ColumnRef, CsvFormat, CsvOptions, HeaderMode,
    InferredType, SelectCell, SelectOptions,
};
use serde_json::json;

fn stream(text: &str) -> TextStream<std::io::BufReader<&[u8]>> {
    TextStream::new(text.as_bytes())
}

const PEOPLE: &str = "id,name,temperature\n1,ann,21.5\n2,bob,NA\n3,cy,19\n4,dee,-3.25\n";

#[test]
fn sentinels_are_counted_and_never_converted() {
    let r = inspect(stream(PEOPLE), CsvFormat::Csv, &CsvOptions::default()).unwrap();
    assert_eq!(r.format, "csv");
    assert_eq!(r.dialect.delimiter, ",");
    assert_eq!(r.row_count, Some(4));
    assert_eq!(r.view.label(), "exact");
    let t = &r.columns[2];
    assert_eq!(t.name.as_deref(), Some("temperature"));
    assert_eq!(
        serde_json::to_value(&t.sentinels).unwrap(),
        json!({"NA": 1})
    );
    assert_eq!(t.inferred_type, InferredType::Float);
    assert_eq!((t.min.clone(), t.max.clone()), (json!(-3.25), json!(21.5)));
    let id = &r.columns[0];
    assert_eq!(id.inferred_type, InferredType::Integer);
    assert_eq!((id.min.clone(), id.max.clone()), (json!(1), json!(4)));
    assert_eq!(r.columns[1].inferred_type, InferredType::String);
    assert_eq!(r.columns[1].samples, vec!["ann", "bob", "cy", "dee"]);
    assert_eq!(r.line_ending, "lf");
    assert_eq!(r.sample.len(), 4);
}

#[test]
fn an_unsafe_integer_is_reported_with_its_literal() {
    let text = "id,big\n1,9007199254740993\n2,12\n";
    let r = inspect(stream(text), CsvFormat::Csv, &CsvOptions::default()).unwrap();
    let big = &r.columns[1];
    let v = serde_json::to_value(big).unwrap();
    assert_eq!(
        v["precision"],
        json!([{"kind": "unsafe-integer", "count": 1, "example": "9007199254740993", "record": 2}])
    );
    assert_eq!(
        v["max"],
        json!({"$literal": "9007199254740993", "precision": "unsafe-integer"})
    );
    assert_eq!(v["min"], json!(12));
}

#[test]
fn select_returns_a_verbatim_window() {
    let w = SelectOptions {
        window: plumb_core::Window {
            offset: Some(1),
            limit: Some(1),
            from_end: None,
        },
        columns: None,
    };
    let r = select(stream(PEOPLE), CsvFormat::Csv, &CsvOptions::default(), &w).unwrap();
    assert_eq!(
        r.rows,
        vec![vec![
            SelectCell::Text("2".to_owned()),
            SelectCell::Text("bob".to_owned()),
            SelectCell::Text("NA".to_owned())
        ]]
    );
    assert!(r.window.has_more);
    assert_eq!(
        (r.window.offset, r.window.limit, r.window.returned),
        (Some(1), 1, 1)
    );
    assert_eq!(r.header.as_ref().unwrap().len(), 3);
}

#[test]
fn select_clamps_the_limit() {
    let w = SelectOptions {
        window: plumb_core::Window {
            offset: Some(0),
            limit: Some(5000),
            from_end: None,
        },
        columns: None,
    };
    let r = select(stream(PEOPLE), CsvFormat::Csv, &CsvOptions::default(), &w).unwrap();
    assert_eq!(r.window.limit, 1000);
    assert_eq!(r.window.returned, 4);
    assert!(!r.window.has_more);
}

#[test]
fn select_projects_by_name_and_index() {
    let w = SelectOptions {
        window: plumb_core::Window {
            offset: Some(0),
            limit: Some(2),
            from_end: None,
        },
        columns: Some("temperature,0".split(',').map(ColumnRef::parse).collect()),
    };
    let r = select(stream(PEOPLE), CsvFormat::Csv, &CsvOptions::default(), &w).unwrap();
    assert_eq!(
        r.header,
        Some(vec![
            SelectCell::Text("temperature".to_owned()),
            SelectCell::Text("id".to_owned())
        ])
    );
    assert_eq!(r.columns, Some(vec![2, 0]));
    assert_eq!(
        serde_json::to_value(&r.rows).unwrap(),
        json!([["21.5", "1"], ["NA", "2"]])
    );
}

#[test]
fn select_refuses_bad_projections() {
    let cases = [
        ("nope", RefusalReason::UnknownColumn),
        ("-1", RefusalReason::InvalidArgument),
        ("9", RefusalReason::InvalidArgument),
    ];
    for (cols, reason) in cases {
        let w = SelectOptions {
            columns: Some(vec![ColumnRef::parse(cols)]),
            ..SelectOptions::default()
        };
        let err = select(stream(PEOPLE), CsvFormat::Csv, &CsvOptions::default(), &w).unwrap_err();
        assert_eq!(err.reason(), reason, "{cols}");
    }
    let unknown = select(
        stream(PEOPLE),
        CsvFormat::Csv,
        &CsvOptions::default(),
        &SelectOptions {
            columns: Some(vec![ColumnRef::Name("nope".into())]),
            ..SelectOptions::default()
        },
    )
    .unwrap_err();
    assert_eq!(
        unknown.extra("available"),
        Some(&json!(["id", "name", "temperature"]))
    );
    // A name when there is no header.
    let opts = CsvOptions {
        header: HeaderMode::Absent,
        ..CsvOptions::default()
    };
    let w = SelectOptions {
        columns: Some("name".split(',').map(ColumnRef::parse).collect()),
        ..SelectOptions::default()
    };
    assert_eq!(
        select(stream(PEOPLE), CsvFormat::Csv, &opts, &w)
            .unwrap_err()
            .reason(),
        RefusalReason::InvalidArgument
    );
}

#[test]
fn header_resolution_modes() {
    // Issue 16 changes the seed's rule here: a lone record whose cells
    // all read as names is a header and zero rows (as Python's csv,
    // pandas and DuckDB read it); a lone record of data is one row.
    let one = "alpha,beta\n";
    let r = inspect(stream(one), CsvFormat::Csv, &CsvOptions::default()).unwrap();
    assert_eq!(r.header, Some(vec!["alpha".to_owned(), "beta".to_owned()]));
    assert_eq!(r.row_count, Some(0), "a header-only file has no rows");
    let data = "7,2024-01-15\n";
    let r = inspect(stream(data), CsvFormat::Csv, &CsvOptions::default()).unwrap();
    assert_eq!(r.header, None, "a lone record of data is one data row");
    assert_eq!(r.row_count, Some(1));
    let v = validate(stream(one), CsvFormat::Csv, &CsvOptions::default()).unwrap();
    assert_eq!((v.valid, v.rows_scanned), (Some(true), 0));
    let forced = CsvOptions {
        header: HeaderMode::Present,
        ..CsvOptions::default()
    };
    let r = inspect(stream(one), CsvFormat::Csv, &forced).unwrap();
    assert_eq!(r.header, Some(vec!["alpha".to_owned(), "beta".to_owned()]));
    assert_eq!(r.row_count, Some(0));
    let numbers = "1,2\n3,4\n";
    let r = inspect(stream(numbers), CsvFormat::Csv, &CsvOptions::default()).unwrap();
    assert_eq!(r.header, None, "numbers are not names");
    assert_eq!(r.row_count, Some(2));
    let absent = CsvOptions {
        header: HeaderMode::Absent,
        ..CsvOptions::default()
    };
    let r = inspect(stream(PEOPLE), CsvFormat::Csv, &absent).unwrap();
    assert_eq!(r.header, None);
    assert_eq!(r.row_count, Some(5));
}

#[test]
fn delimiter_detection_picks_semicolon_tab_and_one_column() {
    let semi = detect_delimiter(b"a;b;c\n1;2,5;3\n4;5;6\n", true);
    assert_eq!(semi.delimiter, b';');
    let tab = detect_delimiter(b"a\tb\n1\t2\n", true);
    assert_eq!(tab.delimiter, b'\t');
    let one = detect_delimiter(b"just\none\ncolumn\n", true);
    assert_eq!(one.delimiter, b',');
    assert_eq!(one.confidence, 0.0);
    let r = inspect(stream("a;b\n1;2\n"), CsvFormat::Csv, &CsvOptions::default()).unwrap();
    assert_eq!(r.dialect.delimiter, ";");
    let r = inspect(stream("a,b\n1,2\n"), CsvFormat::Tsv, &CsvOptions::default()).unwrap();
    assert_eq!(
        r.dialect.delimiter, "\t",
        "TSV means tab unless told otherwise"
    );
    assert_eq!(r.format, "tsv");
}

#[test]
fn validate_true_false_and_null() {
    let ok = validate(stream(PEOPLE), CsvFormat::Csv, &CsvOptions::default()).unwrap();
    assert_eq!(ok.valid, Some(true));
    assert_eq!(ok.rows_scanned, 4);
    let ragged = validate(
        stream("a,b\n1,2\n3\n4,5,6\n"),
        CsvFormat::Csv,
        &CsvOptions::default(),
    )
    .unwrap();
    assert_eq!(ragged.valid, Some(false));
    assert_eq!(ragged.ragged_rows, 2);
    assert_eq!(
        serde_json::to_value(&ragged.issues[0]).unwrap(),
        json!({"kind": "ragged-row", "record": 3, "line": 3, "message": "record 3 has 1 fields where 2 were expected"})
    );
    let quote = validate(
        stream("a,b\n1,x\"y\n"),
        CsvFormat::Csv,
        &CsvOptions::default(),
    )
    .unwrap();
    assert_eq!(quote.valid, Some(false));
    let capped = CsvOptions {
        scan: plumb_core::ScanBounds {
            max_rows: Some(2),

            ..Default::default()
        },
        ..CsvOptions::default()
    };
    let stopped = validate(stream(PEOPLE), CsvFormat::Csv, &capped).unwrap();
    assert_eq!(stopped.valid, None);
    assert_eq!(stopped.view.label(), "sampled");
    let r = inspect(stream(PEOPLE), CsvFormat::Csv, &capped).unwrap();
    assert_eq!(r.row_count, None, "sampled: no row count");
    assert_eq!(r.rows_scanned, 2);
    let exact_cap = CsvOptions {
        scan: plumb_core::ScanBounds {
            max_rows: Some(4),

            ..Default::default()
        },
        ..CsvOptions::default()
    };
    let all = validate(stream(PEOPLE), CsvFormat::Csv, &exact_cap).unwrap();
    assert_eq!(
        all.valid,
        Some(true),
        "a cap the file does not pass is no stop"
    );
}

#[test]
fn refusals_come_from_the_stream_with_offsets() {
    let bytes: &[u8] = b"name,city\nJos\xe9,Lyon\n";
    let e = inspect(
        TextStream::new(bytes),
        CsvFormat::Csv,
        &CsvOptions::default(),
    )
    .unwrap_err();
    assert_eq!(e.reason(), RefusalReason::InvalidUtf8);
    assert_eq!(e.byte_offset(), Some(13));
    let nul: &[u8] = b"a,b\n1,\x002\n";
    let e = validate(TextStream::new(nul), CsvFormat::Csv, &CsvOptions::default()).unwrap_err();
    assert_eq!(
        (e.reason(), e.byte_offset()),
        (RefusalReason::Binary, Some(6))
    );
}

#[test]
fn bom_offsets_stay_file_offsets() {
    let text = "\u{feff}a,b\n1,\"x\"y\n";
    let r = validate(stream(text), CsvFormat::Csv, &CsvOptions::default()).unwrap();
    assert_eq!(r.issues[0].line, 2);
    let i = inspect(stream(text), CsvFormat::Csv, &CsvOptions::default()).unwrap();
    assert!(i.bom);
    assert_eq!(i.header, Some(vec!["a".to_owned(), "b".to_owned()]));
}

#[test]
fn every_split_of_a_stream_gives_the_same_report() {
    let text = "id;name;v\r\n1;\"a;b\";2.5\r\n2;x\"y;NA\r\n\r\n3;z;9007199254740993\r\n";
    let whole = serde_json::to_value(
        inspect(stream(text), CsvFormat::Csv, &CsvOptions::default()).unwrap(),
    )
    .unwrap();
    for cap in 1..8 {
        let s = TextStream::from_buf_read(std::io::BufReader::with_capacity(cap, text.as_bytes()));
        let r = serde_json::to_value(inspect(s, CsvFormat::Csv, &CsvOptions::default()).unwrap())
            .unwrap();
        assert_eq!(r, whole, "capacity {cap}");
    }
    assert_eq!(whole["blank_lines"], 1);
    assert_eq!(whole["line_ending"], "crlf");
    assert_eq!(whole["issues"][0]["kind"], "bare-quote");
}

/// Cells of every class, quoted and not, with faults among them.
fn inspectable() -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::prelude::*;
    let cell = prop_oneof![
        "-?[0-9]{1,18}",
        "-?[0-9]{1,9}\\.[0-9]{1,10}",
        // Plain digits and points around the fifteen-digit edge: one
        // point or none, a point alone, at either end, or twice.
        "[0-9.]{1,17}",
        "[0-9]{14,20}",
        "9[0-9]{15,18}",
        // The edges of a double's safe integers and of an i64.
        proptest::sample::select(vec![
            "9007199254740991",
            "9007199254740992",
            "9223372036854775807",
            "9223372036854775808",
            "0000000000000000",
        ])
        .prop_map(str::to_owned),
        "[0-9]\\.[0-9]{1,4}e-?[0-9]{1,3}",
        Just("NA".to_owned()),
        Just(" null ".to_owned()),
        Just("-".to_owned()),
        Just(String::new()),
        "(true|FALSE|2024-0[1-9]-1[0-9]|name[a-z]{0,12}|é[a-z]{0,3})",
        "[a-z ,\"\n]{0,10}".prop_map(|s| format!("\"{}\"", s.replace('"', "\"\""))),
        Just("x\"y".to_owned()),
    ];
    let row = prop::collection::vec(cell, 1..6).prop_map(|cells| cells.join(","));
    (prop::collection::vec(row, 1..90), any::<bool>()).prop_map(|(rows, crlf)| {
        let end = if crlf { "\r\n" } else { "\n" };
        rows.iter().map(|r| format!("{r}{end}")).collect()
    })
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]

    /// Rows folded cell by cell (the block path) give the report that
    /// rows kept whole (the byte machine) give; only the sample differs.
    #[test]
    fn cells_and_kept_rows_give_one_report(text in inspectable(), stats in proptest::bool::ANY) {
        let report = |sample_rows: usize| {
            let opts = CsvOptions {
                stats,
                delimiter: Some(b','),
                scan: plumb_core::ScanBounds {
                    sample_rows: Some(sample_rows),
                    ..Default::default()
                },
                ..CsvOptions::default()
            };
            let mut v = serde_json::to_value(inspect(stream(&text), CsvFormat::Csv, &opts).unwrap()).unwrap();
            v.as_object_mut().unwrap().remove("sample");
            v
        };
        proptest::prop_assert_eq!(report(0), report(plumb_csv::INSPECT_SAMPLE_ROWS_MAX));
    }
}

#[test]
fn sentinels_are_found_by_token() {
    for (i, token) in plumb_csv::SENTINEL_TOKENS.iter().enumerate() {
        let padded = format!(" {token}\t");
        let scan = plumb_csv::scan_cell(padded.as_bytes());
        assert_eq!(scan.class, plumb_csv::CellClass::Sentinel, "{token}");
        assert_eq!(scan.sentinel, Some(i), "{token}");
        assert_eq!(scan.trimmed, token.as_bytes());
    }
    assert_eq!(
        plumb_csv::scan_cell(b"Nan").class,
        plumb_csv::CellClass::String
    );
    assert_eq!(plumb_csv::scan_cell(b"names").sentinel, None);
}

#[test]
fn select_cuts_a_header_past_the_budget_and_says_so() {
    let long = "n".repeat(600_000);
    let text = format!("{long}a,{long}b,c\n1,2,3\n");
    let w = SelectOptions {
        window: plumb_core::Window {
            offset: Some(0),
            limit: Some(5),
            from_end: None,
        },
        columns: None,
    };
    let r = select(stream(&text), CsvFormat::Csv, &CsvOptions::default(), &w).unwrap();
    let header = r.header.as_ref().expect("names");
    // Together the names pass the budget: the two long ones are cut to
    // one length, each saying its full length; the short one stays whole.
    let kept: usize = header
        .iter()
        .map(|c| match c {
            SelectCell::Cut { kept, bytes } => {
                assert_eq!(*bytes, 600_001);
                assert!(long.starts_with(kept.as_str()));
                kept.len()
            }
            SelectCell::Text(t) => {
                assert_eq!(t, "c");
                t.len()
            }
            other => panic!("{other:?}"),
        })
        .sum();
    assert!(kept <= plumb_csv::CSV_SELECT_BUDGET_BYTES, "{kept}");
    assert!(!r.view.exact && r.view.converted);
    assert_eq!(
        r.rows,
        vec![vec![
            SelectCell::Text("1".into()),
            SelectCell::Text("2".into()),
            SelectCell::Text("3".into()),
        ]]
    );
    // Projecting by a cut name still finds it: names match whole.
    let w = SelectOptions {
        columns: Some(vec![ColumnRef::Name(format!("{long}b"))]),
        ..w
    };
    let r = select(stream(&text), CsvFormat::Csv, &CsvOptions::default(), &w).unwrap();
    assert_eq!(r.columns, Some(vec![1]));
    assert_eq!(r.rows, vec![vec![SelectCell::Text("2".into())]]);
}

#[test]
fn inspect_keeps_short_text_past_the_wide_columns() {
    let cols = plumb_csv::INSPECT_WIDE_TEXT_COLUMNS + 100;
    let row = |unit: &str| -> String {
        (0..cols)
            .map(|c| format!("{}{c}", unit.repeat(100)))
            .collect::<Vec<_>>()
            .join(",")
    };
    let text = format!("{}\n{}\n{}\n", row("h"), row("x"), row("y"));
    let opts = CsvOptions {
        scan: plumb_core::ScanBounds {
            sample_rows: Some(3),

            ..Default::default()
        },
        ..CsvOptions::default()
    };
    let r = inspect(stream(&text), CsvFormat::Csv, &opts).unwrap();
    let header = r.header.as_ref().unwrap();
    let last = cols - 1;
    let narrow = plumb_csv::INSPECT_NARROW_TEXT_BYTES;
    // The first 500 columns keep their text whole (under 512 bytes);
    // later ones keep a short prefix of each.
    assert_eq!(header[0], format!("{}0", "h".repeat(100)));
    assert_eq!(header[last], "h".repeat(narrow));
    assert_eq!(
        r.columns[0].samples,
        vec![
            format!("{}0", "x".repeat(100)),
            format!("{}0", "y".repeat(100))
        ]
    );
    assert_eq!(
        r.columns[last].samples,
        vec!["x".repeat(narrow), "y".repeat(narrow)]
    );
    assert_eq!(r.sample.len(), 2);
    assert_eq!(r.sample[1][last], "y".repeat(narrow));
    assert!(!r.sample_shortened);
    // Lengths are still the cells' own.
    assert_eq!(r.columns[last].max_length, Some(103));
}

#[test]
fn inspect_sample_stops_at_its_budget_and_says_so() {
    let cols = plumb_csv::INSPECT_WIDE_TEXT_COLUMNS;
    let cell = "z".repeat(3000);
    let row = vec![cell.as_str(); cols].join(",");
    let mut text = String::new();
    for _ in 0..7 {
        text.push_str(&row);
        text.push('\n');
    }
    let opts = CsvOptions {
        scan: plumb_core::ScanBounds {
            sample_rows: Some(100),

            ..Default::default()
        },
        header: HeaderMode::Absent,
        ..CsvOptions::default()
    };
    let r = inspect(stream(&text), CsvFormat::Csv, &opts).unwrap();
    // Each sample row keeps 512 bytes of each of its 500 cells: four
    // rows fit the 1 MiB budget, a fifth would not.
    let per_row = cols * 512;
    assert_eq!(
        r.sample.len(),
        plumb_csv::INSPECT_SAMPLE_BUDGET_BYTES / per_row
    );
    assert!(r.sample_shortened);
    // Every row is still counted and described.
    assert_eq!(r.row_count, Some(7));
    assert_eq!(r.columns[0].max_length, Some(3000));
}

#[test]
fn one_issue_per_record_and_kind_with_its_occurrences() {
    // Record 2 has five stray quotes and text after a closing quote;
    // record 3 one stray quote; every way of cutting the input agrees.
    let text = "id,note\n1,a\"b\"c\"d\"e\"f\n2,\"q\"x\n3,g\"h\n";
    let mut seen = None;
    for chunk in [usize::MAX, 1, 2, 3, 7] {
        let s = TextStream::new(text.as_bytes()).with_chunk_size(chunk);
        let v = validate(s, CsvFormat::Csv, &CsvOptions::default()).unwrap();
        let issues: Vec<(String, u64, u64)> = v
            .issues
            .iter()
            .map(|i| (i.kind.as_str().to_owned(), i.record, i.occurrences))
            .collect();
        assert_eq!(
            issues,
            [
                ("bare-quote".to_owned(), 2, 5),
                ("text-after-quote".to_owned(), 3, 1),
                ("bare-quote".to_owned(), 4, 1),
            ],
            "chunk {chunk}"
        );
        assert_eq!(v.issue_count, 3, "problems, not quote characters");
        let json = serde_json::to_value(&v.issues).unwrap();
        assert_eq!(json[0]["occurrences"], 5);
        assert!(json[1].get("occurrences").is_none(), "shown only above 1");
        match &seen {
            None => seen = Some(issues),
            Some(first) => assert_eq!(first, &issues),
        }
    }
}

#[test]
fn select_reports_the_issues_of_its_window() {
    // Stray quotes in records 2 and 5 (a data row before the window and
    // one inside it), a ragged row in 6 (inside), one in 8 (after).
    let text = "a,b\n1,x\"y\n2,ok\n3,ok\n4,p\"q\n5,ok,extra\n6,ok\n7,ok,more\n";
    let w = SelectOptions {
        window: plumb_core::Window {
            offset: Some(3),
            limit: Some(3),
            from_end: None,
        },
        ..SelectOptions::default()
    };
    for chunk in [usize::MAX, 1, 5] {
        let s = TextStream::new(text.as_bytes()).with_chunk_size(chunk);
        let r = select(s, CsvFormat::Csv, &CsvOptions::default(), &w).unwrap();
        assert_eq!(r.window.returned, 3);
        let got: Vec<(u64, &str)> = r
            .issues
            .iter()
            .map(|i| (i.record, i.kind.as_str()))
            .collect();
        assert_eq!(got, [(5, "bare-quote"), (6, "ragged-row")], "chunk {chunk}");
    }
}

/// A tab-separated export whose text column holds unbalanced double
/// quotes: `lines` lines of exactly three tab fields.
fn tsv_with_stray_quotes(lines: usize) -> String {
    let mut text = String::from("id\tsummary\tscore\n");
    for k in 1..lines {
        let summary = match k % 97 {
            5 => "\"Quoted\" title, then more".to_owned(),
            11 => "\"starts with a quote and never closes".to_owned(),
            40 => "ends with one\"".to_owned(),
            _ => format!("plain text {k}"),
        };
        text.push_str(&format!("{k}\t{summary}\t{}\n", k % 7));
    }
    text
}

#[test]
fn tsv_reads_stray_quotes_as_text_under_auto() {
    let text = tsv_with_stray_quotes(2000);
    let lines = text.lines().count() as u64;
    let v = validate(stream(&text), CsvFormat::Tsv, &CsvOptions::default()).unwrap();
    assert_eq!(v.dialect.quote, "none");
    assert_eq!(v.valid, Some(true));
    assert_eq!(v.rows_scanned, lines - 1);
    assert_eq!(v.issue_count, 0);
    let r = inspect(stream(&text), CsvFormat::Tsv, &CsvOptions::default()).unwrap();
    assert_eq!(r.row_count, Some(lines - 1));
    assert_eq!(r.ragged_rows, 0);
    let w = SelectOptions {
        window: plumb_core::Window {
            offset: Some(10),
            limit: Some(1),
            from_end: None,
        },
        columns: None,
    };
    let s = select(stream(&text), CsvFormat::Tsv, &CsvOptions::default(), &w).unwrap();
    assert_eq!(
        serde_json::to_value(&s.rows[0]).unwrap(),
        json!(["11", "\"starts with a quote and never closes", "4"])
    );
}

#[test]
fn a_forced_quote_on_stray_quotes_is_said_not_silent() {
    let text = tsv_with_stray_quotes(2000);
    let opts = CsvOptions {
        quote: "\"".parse().unwrap(),
        ..CsvOptions::default()
    };
    let v = validate(stream(&text), CsvFormat::Tsv, &opts).unwrap();
    assert_eq!(v.dialect.quote, "\"");
    // The quote opened on line 12 closes on line 41: one record of 30
    // lines, reported where it starts.
    let long = v
        .issues
        .iter()
        .find(|i| i.kind.as_str() == "long-quoted-field")
        .expect("the merged record is reported");
    assert_eq!((long.record, long.line), (12, 12));
    assert!(long.message.contains("line 41"), "{}", long.message);
    assert!(v.rows_scanned < text.lines().count() as u64 - 1);
}

#[test]
fn quoted_tsv_and_csv_keep_their_quotes_under_auto() {
    // Fields holding tabs and line breaks: consistent only when quoted.
    let mut tsv = String::from("id\tnote\n");
    let mut csv = String::from("id,note\n");
    for k in 0..50 {
        tsv.push_str(&format!("{k}\t\"a\tb {k}\"\n"));
        csv.push_str(&format!("{k},\"a, b\nc {k}\"\n"));
    }
    let t = validate(stream(&tsv), CsvFormat::Tsv, &CsvOptions::default()).unwrap();
    assert_eq!(
        (t.dialect.quote.as_str(), t.rows_scanned, t.valid),
        ("\"", 50, Some(true))
    );
    let c = inspect(stream(&csv), CsvFormat::Csv, &CsvOptions::default()).unwrap();
    assert_eq!((c.dialect.quote.as_str(), c.row_count), ("\"", Some(50)));
    // A file that never quotes keeps its format's default.
    let plain = "a\tb\n1\t2\n";
    let p = validate(stream(plain), CsvFormat::Tsv, &CsvOptions::default()).unwrap();
    assert_eq!(p.dialect.quote, "none");
    // A TSV whose quotes all open and close cleanly (a doubled quote
    // inside) is read with them, as Python's csv and pandas read it.
    let clean = "id\tnote\n1\t\"say \"\"hi\"\"\"\n2\tplain\n";
    let c = select(
        stream(clean),
        CsvFormat::Tsv,
        &CsvOptions::default(),
        &SelectOptions::default(),
    )
    .unwrap();
    assert_eq!(c.dialect.quote, "\"");
    assert_eq!(
        serde_json::to_value(&c.rows[0]).unwrap(),
        json!(["1", "say \"hi\""])
    );
    let plain = "a,b\n1,2\n";
    let p = validate(stream(plain), CsvFormat::Csv, &CsvOptions::default()).unwrap();
    assert_eq!(p.dialect.quote, "\"");
    // Single quotes, when they make the only consistent parse.
    let single = "id,note\n1,'x, y'\n2,'z, w'\n3,'v, u'\n";
    let s = validate(stream(single), CsvFormat::Csv, &CsvOptions::default()).unwrap();
    assert_eq!(
        (s.dialect.quote.as_str(), s.rows_scanned, s.valid),
        ("'", 3, Some(true))
    );
}

#[test]
fn quote_option_words_and_refusal() {
    use plumb_csv::QuoteMode;
    assert_eq!("none".parse::<QuoteMode>().unwrap(), QuoteMode::Off);
    assert_eq!("'".parse::<QuoteMode>().unwrap(), QuoteMode::Char(b'\''));
    assert_eq!("auto".parse::<QuoteMode>().unwrap(), QuoteMode::Auto);
    let err = "`".parse::<QuoteMode>().unwrap_err();
    assert_eq!(err.reason(), RefusalReason::InvalidArgument);
}

const BANNERED: &str = "Sales export \"Q1\nGenerated 2024-01-15 by the ledger\n*** 3 rows ***\nid,name,total\n1,ann,10\n2,bob,20\n3,cy,30\n";

#[test]
fn a_preamble_is_detected_skipped_and_reported() {
    let r = inspect(stream(BANNERED), CsvFormat::Csv, &CsvOptions::default()).unwrap();
    assert_eq!(r.dialect.skipped_lines, 3);
    assert_eq!(
        r.preamble,
        vec![
            "Sales export \"Q1",
            "Generated 2024-01-15 by the ledger",
            "*** 3 rows ***"
        ]
    );
    assert_eq!(
        r.header.as_deref(),
        Some(&["id".to_owned(), "name".to_owned(), "total".to_owned()][..])
    );
    assert_eq!((r.row_count, r.ragged_rows, r.issue_count), (Some(3), 0, 0));
    assert_eq!(r.columns[2].inferred_type, InferredType::Integer);
    let v = validate(stream(BANNERED), CsvFormat::Csv, &CsvOptions::default()).unwrap();
    assert_eq!(
        (v.valid, v.dialect.skipped_lines, v.rows_scanned),
        (Some(true), 3, 3)
    );
    // skip_lines 0 turns detection off: the banners are read as data.
    let off = CsvOptions {
        skip_lines: Some(0),
        ..CsvOptions::default()
    };
    let v = validate(stream(BANNERED), CsvFormat::Csv, &off).unwrap();
    assert_eq!(v.dialect.skipped_lines, 0);
    assert_eq!(v.valid, Some(false));
    // An explicit count skips exactly that many lines, and issues keep
    // file line numbers.
    let two = CsvOptions {
        skip_lines: Some(2),
        ..CsvOptions::default()
    };
    let text = format!("{BANNERED}4,dee\n");
    let v = validate(stream(&text), CsvFormat::Csv, &two).unwrap();
    assert_eq!(v.dialect.skipped_lines, 2);
    let ragged: Vec<(u64, u64)> = v
        .issues
        .iter()
        .filter(|i| i.kind.as_str() == "ragged-row")
        .map(|i| (i.record, i.line))
        .collect();
    // Line 3 (`*** 3 rows ***`) is now the header: every row is ragged
    // against its one field, the last on file line 8.
    assert_eq!(ragged.last(), Some(&(6, 8)));
}

#[test]
fn plain_tables_have_no_preamble() {
    for text in [PEOPLE, "a,b\n1,2\n", "x\n1\n2\n", "id,name\n"] {
        let r = inspect(stream(text), CsvFormat::Csv, &CsvOptions::default()).unwrap();
        assert_eq!(
            (r.dialect.skipped_lines, r.preamble.len()),
            (0, 0),
            "{text}"
        );
    }
    // A header one field short of its rows (R's row names) is a header.
    let r_style = "\"a\",\"b\"\n\"1\",3,4\n\"2\",5,6\n\"3\",7,8\n";
    let r = inspect(stream(r_style), CsvFormat::Csv, &CsvOptions::default()).unwrap();
    assert_eq!(r.dialect.skipped_lines, 0);
}

#[test]
fn comment_lines_are_skipped_and_counted() {
    let text = "# exported by tool\nid,v\n1,a\n# a note between rows\n2,#not a comment\n";
    let opts = CsvOptions {
        comment: Some(b'#'),
        ..CsvOptions::default()
    };
    let r = inspect(stream(text), CsvFormat::Csv, &opts).unwrap();
    assert_eq!((r.dialect.comment_lines, r.row_count), (2, Some(2)));
    assert_eq!(r.sample[1], vec!["2", "#not a comment"]);
    let s = select(
        stream(text),
        CsvFormat::Csv,
        &opts,
        &SelectOptions::default(),
    )
    .unwrap();
    assert_eq!(s.dialect.comment_lines, 2);
    assert_eq!(s.window.returned, 2);
    // Without the option, a file that opens with `#` lines marks its
    // comments so: the first is a preamble line, later ones comments.
    let v = validate(stream(text), CsvFormat::Csv, &CsvOptions::default()).unwrap();
    assert_eq!(
        (
            v.dialect.skipped_lines,
            v.dialect.comment.as_deref(),
            v.dialect.comment_lines,
            v.rows_scanned
        ),
        (1, Some("#"), 1, 2)
    );
    // One that does not is read as it is: a `#` line later is data.
    let later = "id,v\n1,a\n# a note\n2,b\n";
    let v = validate(stream(later), CsvFormat::Csv, &CsvOptions::default()).unwrap();
    assert_eq!(
        (v.dialect.comment, v.dialect.comment_lines, v.rows_scanned),
        (None, 0, 3)
    );
}

#[test]
fn a_commented_header_under_notes_is_the_header() {
    let text = "# the zone table\n# columns below\n#code\tcoordinates\tTZ\nAD\t+4230+00131\tEurope/Andorra\nAE\t+2518+05518\tAsia/Dubai\n# a trailing note\n";
    let r = inspect(stream(text), CsvFormat::Tsv, &CsvOptions::default()).unwrap();
    assert_eq!(r.dialect.skipped_lines, 2);
    assert_eq!(
        r.header.as_deref(),
        Some(
            &[
                "#code".to_owned(),
                "coordinates".to_owned(),
                "TZ".to_owned()
            ][..]
        )
    );
    assert_eq!((r.row_count, r.dialect.comment_lines), (Some(2), 1));
}

#[test]
fn colon_space_and_aligned_files_are_detected() {
    // A passwd-like file: colons, with commas and spaces inside fields.
    let passwd = "root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1:daemon,,,:/usr/sbin:/usr/sbin/nologin\nann:x:1000:1000:Ann Lee,,,:/home/ann:/bin/zsh\nbin:x:2:2:bin:/bin:/usr/sbin/nologin\n";
    let r = inspect(stream(passwd), CsvFormat::Csv, &CsvOptions::default()).unwrap();
    assert_eq!((r.dialect.delimiter.as_str(), r.columns.len()), (":", 7));
    assert_eq!(r.dialect.delimiter_note, None);
    // One space between the fields of every row.
    let spaced = "id name score\n1 ann 10\n2 bob 7\n3 cy 12\n";
    let r = inspect(stream(spaced), CsvFormat::Csv, &CsvOptions::default()).unwrap();
    assert_eq!((r.dialect.delimiter.as_str(), r.row_count), (" ", Some(3)));
    assert_eq!(r.columns[2].inferred_type, InferredType::Integer);
    // Columns aligned with runs of spaces.
    let aligned =
        "id    name      score\n1     ann       10\n22    bob       7\n333   cy        12\n";
    let r = inspect(stream(aligned), CsvFormat::Csv, &CsvOptions::default()).unwrap();
    assert_eq!(
        (r.dialect.delimiter.as_str(), r.row_count, r.ragged_rows),
        ("spaces", Some(3), 0)
    );
    assert_eq!(r.columns[2].inferred_type, InferredType::Integer);
    assert_eq!(r.columns[1].samples, vec!["ann", "bob", "cy"]);
    // Given back by name: a cell of two words splits in two, and that
    // row is reported ragged rather than silently shifted.
    let opts = CsvOptions {
        delimiter: Some(b' '),
        delimiter_runs: true,
        ..CsvOptions::default()
    };
    let two_words = aligned.replace("bob   ", "bob lee");
    let v = validate(stream(&two_words), CsvFormat::Csv, &opts).unwrap();
    assert_eq!(
        (v.dialect.delimiter.as_str(), v.dialect.delimiter_note),
        ("spaces", None)
    );
    assert_eq!((v.ragged_rows, v.valid), (1, Some(false)));
}

#[test]
fn the_first_four_candidates_keep_the_seed_rule() {
    // Commas split every row consistently; spaces inside the text do
    // not make it space-delimited, even where they are as consistent.
    let text = "name,city\nann lee,new york\nbob ray,los angeles\n";
    let r = inspect(stream(text), CsvFormat::Csv, &CsvOptions::default()).unwrap();
    assert_eq!(r.dialect.delimiter, ",");
    // Prose lines split at spaces inconsistently: one column.
    let prose = "This is a sentence.\nAnother, longer sentence here.\nShort one\n";
    let r = inspect(stream(prose), CsvFormat::Csv, &CsvOptions::default()).unwrap();
    assert_eq!(r.delimiter_confidence, Some(0.0));
    assert!(
        r.dialect
            .delimiter_note
            .as_deref()
            .is_some_and(|n| n.contains("one column")),
        "{:?}",
        r.dialect.delimiter_note
    );
}

#[test]
fn low_confidence_is_said_with_a_hint() {
    // Half the rows have a stray extra semicolon: the delimiter is still
    // `;`, but the sample does not agree with itself.
    let mut text = String::from("a;b;c\n");
    for k in 0..20 {
        if k % 2 == 0 {
            text.push_str(&format!("{k};x;y\n"));
        } else {
            text.push_str(&format!("{k};x;y;z\n"));
        }
    }
    let v = validate(stream(&text), CsvFormat::Csv, &CsvOptions::default()).unwrap();
    assert_eq!(v.dialect.delimiter, ";");
    let note = v.dialect.delimiter_note.expect("a note");
    assert!(
        note.contains("low confidence") && note.contains("delimiter option"),
        "{note}"
    );
    // A given delimiter is never second-guessed.
    let given = CsvOptions {
        delimiter: Some(b';'),
        ..CsvOptions::default()
    };
    let v = validate(stream(&text), CsvFormat::Csv, &given).unwrap();
    assert_eq!(v.dialect.delimiter_note, None);
}

fn column_of(text: &str, index: usize) -> plumb_csv::ColumnReport {
    let r = inspect(stream(text), CsvFormat::Csv, &CsvOptions::default()).unwrap();
    r.columns[index].clone()
}

#[test]
fn timestamps_and_date_forms_are_named() {
    let c = column_of("t\n2024-01-15T10:00:00Z\n2024-01-16T11:30:00Z\n", 0);
    assert_eq!(c.inferred_type, InferredType::Timestamp);
    assert_eq!(c.date_format.as_deref(), Some("YYYY-MM-DD"));
    let c = column_of("t\n2010/01/01 00:00:00\n2010/01/02 06:00:00\n", 0);
    assert_eq!(c.inferred_type, InferredType::Timestamp);
    assert_eq!(c.date_format.as_deref(), Some("YYYY/MM/DD"));
    // Dates and timestamps in one column: timestamps.
    let c = column_of("t\n2024-01-15\n2024-01-16 10:00\n", 0);
    assert_eq!(c.inferred_type, InferredType::Timestamp);
    let c = column_of("d\n2024/03/01\n2024/12/31\n", 0);
    assert_eq!(
        (c.inferred_type, c.date_format.as_deref()),
        (InferredType::Date, Some("YYYY/MM/DD"))
    );
    // Day first: a day over 12 says so; month first likewise.
    let c = column_of("d\n03/04/2024\n25/12/2024\n", 0);
    assert_eq!(
        (c.inferred_type, c.date_format.as_deref()),
        (InferredType::Date, Some("DD/MM/YYYY"))
    );
    let c = column_of("d\n03/04/2024\n12/25/2024\n", 0);
    assert_eq!(c.date_format.as_deref(), Some("MM/DD/YYYY"));
    // No day over 12: stated as ambiguous, not guessed.
    let c = column_of("d\n03.04.2024\n01.02.2024\n", 0);
    assert_eq!(
        c.date_format.as_deref(),
        Some("ambiguous: DD.MM.YYYY or MM.DD.YYYY")
    );
    let c = column_of("d\n25/12/2024\n12/25/2024\n", 0);
    assert_eq!(
        c.date_format.as_deref(),
        Some("mixed: DD/MM/YYYY and MM/DD/YYYY")
    );
    assert_eq!(column_of("n\n1\n2\n", 0).date_format, None);
}

#[test]
fn a_decimal_comma_in_a_semicolon_file_is_a_number() {
    let text = "id;price\n1;3,25\n2;-0,5\n3;12\n";
    let c = column_of(text, 1);
    assert_eq!(c.inferred_type, InferredType::Float);
    assert_eq!(c.decimal_separator, Some(","));
    assert_eq!((c.min.clone(), c.max.clone()), (json!(-0.5), json!(12.0)));
    // In a comma-delimited file `3,25` cannot be a cell at all, and a
    // quoted `"3,25"` stays text: a comma there is no decimal mark.
    let c = column_of("id,price\n1,\"3,25\"\n2,\"4,5\"\n", 1);
    assert_eq!(
        (c.inferred_type, c.decimal_separator),
        (InferredType::String, None)
    );
}

#[test]
fn a_code_column_keeps_na_as_namibia() {
    let text = "country\nUS\nNA\nDE\nFR\nNA\nJP\n";
    let c = column_of(text, 0);
    assert_eq!(c.inferred_type, InferredType::String);
    assert!(c.sentinels.is_empty(), "{:?}", c.sentinels);
    assert_eq!(c.classes.get(plumb_csv::CellClass::String), 6);
    // Among values that are not codes, NA is still a missing value.
    let c = column_of("city\nParis\nNA\nRome\nOslo\n", 0);
    assert_eq!(c.sentinels.get("NA"), Some(&1));
    let c = column_of("t\n21.5\nNA\n19\n", 0);
    assert_eq!(
        (c.inferred_type, c.sentinels.get("NA")),
        (InferredType::Float, Some(&1))
    );
}

#[test]
fn an_exponent_shaped_code_does_not_make_a_column_numeric() {
    let c = column_of("code\n0E8\n123\n456\n0E1\n", 0);
    assert_ne!(c.inferred_type, InferredType::Float);
    assert_eq!(c.classes.get(plumb_csv::CellClass::Float), 0);
    assert_eq!((c.min.clone(), c.max.clone()), (json!(123), json!(456)));
    let c = column_of("code\n0E8\nA12\nB7\n", 0);
    assert_eq!(c.inferred_type, InferredType::String);
    // Where every number is written so, they are numbers.
    let c = column_of("n\n1e3\n2E5\n", 0);
    assert_eq!(c.inferred_type, InferredType::Float);
    assert_eq!(
        (c.min.clone(), c.max.clone()),
        (json!(1000.0), json!(200000.0))
    );
    // Beside other floats, one is a number too.
    let c = column_of("n\n1.5\n2E5\n", 0);
    assert_eq!(
        (c.inferred_type, c.max.clone()),
        (InferredType::Float, json!(200000.0))
    );
}

#[test]
fn columns_past_the_tracked_ones_cut_the_view() {
    let cap = plumb_core::COLUMN_TRACK_CAP;
    let row = |n: usize| {
        (0..n)
            .map(|i| format!("c{i}"))
            .collect::<Vec<_>>()
            .join(",")
    };
    let text = format!("{}\n{}\n", row(cap + 1), row(cap + 1));
    let r = inspect(stream(&text), CsvFormat::Csv, &CsvOptions::default()).unwrap();
    assert_eq!((r.columns.len(), r.untracked_columns), (cap, 1));
    assert_eq!(r.view.label(), "cut");
    let text = format!("{}\n{}\n", row(cap), row(cap));
    let r = inspect(stream(&text), CsvFormat::Csv, &CsvOptions::default()).unwrap();
    assert_eq!((r.untracked_columns, r.view.label()), (0, "exact"));
}

/// The column `col` resolves to in `text` read with `header`, by select
/// and by search (in that order).
fn resolved(text: &str, header: HeaderMode, col: &str) -> [Result<usize, plumb_core::Refusal>; 2] {
    let opts = CsvOptions {
        header,
        ..CsvOptions::default()
    };
    let w = SelectOptions {
        columns: Some(vec![ColumnRef::parse(col)]),
        ..SelectOptions::default()
    };
    let selected = select(stream(text), CsvFormat::Csv, &opts, &w).map(|r| r.columns.unwrap()[0]);
    let mut req = plumb_core::Request::default();
    req.set("where", json!("is not empty")).unwrap();
    let q = plumb_core::Query::from_request(&req).unwrap();
    let searched = plumb_csv::search(
        stream(text),
        CsvFormat::Csv,
        &opts,
        &q,
        Some(ColumnRef::parse(col)),
        None,
    )
    .map(|r| r.column.unwrap());
    [selected, searched]
}

/// A column reference is never guessed: a name several header cells
/// share is refused, and digits that are one column's index and another
/// column's name are refused; digits that name a column past the last
/// index, or the column at that index, mean it; a name in double quotes
/// is a name however it reads. Select and search resolve alike.
#[test]
fn column_references_that_could_mean_two_columns_are_refused() {
    // Columns: 0 `a`, 1 `2019`, 2 `a`, 3 `2`, 4 `4`.
    let text = "a,2019,a,2,4\nx0,y1,x2,y3,z4\n";
    let selected = |col: &str| resolved(text, HeaderMode::Present, col)[0].clone();
    let searched = |col: &str| resolved(text, HeaderMode::Present, col)[1].clone();
    let cases: [(&str, Result<usize, RefusalReason>); 9] = [
        ("a", Err(RefusalReason::InvalidArgument)),
        ("\"a\"", Err(RefusalReason::InvalidArgument)),
        ("2019", Ok(1)),
        ("\"2019\"", Ok(1)),
        ("2", Err(RefusalReason::InvalidArgument)),
        ("\"2\"", Ok(3)),
        ("4", Ok(4)),
        ("0", Ok(0)),
        ("5", Err(RefusalReason::InvalidArgument)),
    ];
    for (col, want) in cases {
        for got in resolved(text, HeaderMode::Present, col) {
            assert_eq!(
                got.as_ref().map(|c| *c).map_err(|e| e.reason()),
                want,
                "{col}"
            );
            if let Err(e) = got {
                if col.contains('a') || col == "2" {
                    assert!(e.message().contains("name"), "{col}: {}", e.message());
                }
            }
        }
    }
    let shared = selected("a").unwrap_err();
    assert!(
        shared.message().contains("columns 0 and 2"),
        "{}",
        shared.message()
    );
    let both = searched("2").unwrap_err();
    assert!(both.message().contains("column 3"), "{}", both.message());
}

/// A short row gives no cell in the columns past its end: each column
/// says how many rows left it out (`missing`), apart from its empty
/// cells and from its statistics' count, so the three add up to the rows.
#[test]
fn a_column_says_how_many_rows_left_it_out() {
    let text = "a,b,c\n1,2,3\n4\n5,,6\n7,8\n";
    let opts = CsvOptions {
        stats: true,
        ..CsvOptions::default()
    };
    for piece in [1, 3, 64] {
        let s = TextStream::new(std::io::BufReader::with_capacity(piece, text.as_bytes()));
        let r = inspect(s, CsvFormat::Csv, &opts).unwrap();
        let missing: Vec<u64> = r.columns.iter().map(|c| c.missing).collect();
        assert_eq!(missing, [0, 1, 2], "piece {piece}");
        assert_eq!(r.columns[1].empty, 1);
        let rows = r.row_count.unwrap();
        for c in &r.columns {
            let count = c.stats.as_ref().unwrap().count;
            assert_eq!(count + c.missing, rows, "column {}", c.index);
        }
        let shape = serde_json::to_value(&r).unwrap();
        assert!(
            shape["columns"][0].get("missing").is_none(),
            "0 is left out"
        );
        assert_eq!(shape["columns"][2]["missing"], 2);
    }
}

/// A header of years reads as data under header detection; an index
/// past the last column whose digits the first row holds is refused
/// with the advice to pass the header option, and then means that
/// column. Other indices past the end get no such advice.
#[test]
fn digits_the_first_row_holds_suggest_the_header() {
    let text = "country,2019,2020\nfr,1,2\nde,3,4\n";
    let run = |col: &str, header: HeaderMode| resolved(text, header, col);
    for got in run("2019", HeaderMode::Auto) {
        let message = got.unwrap_err().message().to_owned();
        assert!(
            message.contains("first row holds `2019`") && message.contains("header=true"),
            "{message}"
        );
    }
    for got in run("7", HeaderMode::Auto) {
        let message = got.unwrap_err().message().to_owned();
        assert!(!message.contains("header=true"), "{message}");
    }
    for got in run("2019", HeaderMode::Present) {
        assert_eq!(got.unwrap(), 1);
    }
}

/// A header wider than the detection sample leaves it no whole record:
/// the delimiter is judged from the start of the first record, and the
/// answer says so, instead of reading a tab-separated file as one column.
#[test]
fn a_header_wider_than_the_sample_is_judged_by_its_start_and_said_so() {
    let width = plumb_csv::DELIMITER_SAMPLE_BYTES / 8;
    for (d, name) in [('\t', "\t"), (';', ";"), (',', ",")] {
        let names: Vec<String> = (0..width).map(|i| format!("col_{i}")).collect();
        let row: Vec<String> = (0..width).map(|i| format!("{i}.5")).collect();
        let text = format!(
            "{}\n{}\n",
            names.join(&d.to_string()),
            row.join(&d.to_string())
        );
        assert!(text.find('\n').unwrap() > plumb_csv::DELIMITER_SAMPLE_BYTES);
        let partial =
            detect_delimiter(&text.as_bytes()[..plumb_csv::DELIMITER_SAMPLE_BYTES], false);
        assert_eq!((partial.delimiter, partial.partial), (d as u8, true));
        let r = inspect(stream(&text), CsvFormat::Csv, &CsvOptions::default()).unwrap();
        assert_eq!(r.dialect.delimiter, name);
        assert_eq!(r.header.as_ref().map(Vec::len), Some(width));
        assert_eq!(r.row_count, Some(1));
        let note = r.dialect.delimiter_note.expect("a note");
        assert!(note.contains("first record alone"), "{note}");
    }
    // Prose splits at spaces, but the start of one line is no evidence
    // for a space delimiter.
    let prose = "word ".repeat(plumb_csv::DELIMITER_SAMPLE_BYTES / 4);
    let p = detect_delimiter(
        &prose.as_bytes()[..plumb_csv::DELIMITER_SAMPLE_BYTES],
        false,
    );
    assert_eq!((p.delimiter, p.confidence), (b',', 0.0));
    // A sample with whole records is judged by them, with no such note.
    let whole = detect_delimiter(b"a\tb\n1\t2\n", false);
    assert_eq!((whole.delimiter, whole.partial), (b'\t', false));
}

/// A row a cap cut gives the columns past the cut no cell: they count it
/// as `unread`, not as `missing` (a short row's), and not in `empty`.
#[test]
fn cells_past_a_cap_are_unread_not_missing() {
    let big = "y".repeat(plumb_csv::CSV_MAX_FIELD_BYTES + 10);
    let text = format!("a,b,c\n1,x,p\n2,{big},q\n3\n4,z,r\n");
    let r = inspect(stream(&text), CsvFormat::Csv, &CsvOptions::default()).unwrap();
    let counts: Vec<(u64, u64, u64)> = r
        .columns
        .iter()
        .map(|c| (c.missing, c.unread, c.empty))
        .collect();
    // Row 1 cut at `b`; row 2 short (b and c missing).
    assert_eq!(counts, [(0, 0, 0), (1, 1, 0), (1, 1, 0)]);
    let json = serde_json::to_value(&r.columns[0]).unwrap();
    assert!(json.get("unread").is_none(), "left out when 0: {json}");
    // Cells unread: the answer is not the whole file's, so not exact.
    assert!(!r.view.exact && r.view.converted, "{:?}", r.view);
    let whole = format!("a,b,c\n1,x,p\n2,{},q\n3\n", "y".repeat(1000));
    let r = inspect(stream(&whole), CsvFormat::Csv, &CsvOptions::default()).unwrap();
    assert!(r.view.exact, "{:?}", r.view);
}
