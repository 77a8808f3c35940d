//! CSV search: predicates and patterns against Python's csv module with
//! exact decimal comparison, fed whole and in small pieces, and
//! continuation covering every hit exactly once.

use std::io::BufReader;
use std::process::Command;

use plumb_core::{Query, RefusalReason, Request, TextStream};
use plumb_csv::{search, ColumnRef, CsvFormat, CsvOptions, CsvSearch, SelectCell};
use serde_json::json;

fn query(opts: &[(&str, serde_json::Value)], offset: u64, limit: u64) -> Query {
    let mut req = Request::default();
    for (k, v) in opts {
        req.set(k, v.clone()).unwrap();
    }
    req.set("offset", json!(offset)).unwrap();
    req.set("limit", json!(limit)).unwrap();
    Query::from_request(&req).unwrap()
}

/// Searches with the rows read back from the source (cells judged as
/// they pass) and with every row's cells copied as it passes, and
/// demands the same answer of both.
fn run(
    data: &[u8],
    piece: usize,
    q: &Query,
    column: Option<&str>,
) -> Result<CsvSearch, plumb_core::Refusal> {
    let source = plumb_core::BytesSource::new("t.csv", data.to_vec());
    let one = |rows_from: Option<&dyn plumb_core::Source>| {
        let stream = TextStream::new(BufReader::with_capacity(piece, data));
        let opts = CsvOptions::default();
        search(
            stream,
            CsvFormat::Csv,
            &opts,
            q,
            column.map(ColumnRef::parse),
            rows_from,
        )
    };
    let fetched = one(Some(&source));
    let copied = one(None);
    match (&fetched, &copied) {
        (Ok(a), Ok(b)) => assert_eq!(
            serde_json::to_value(a).unwrap(),
            serde_json::to_value(b).unwrap()
        ),
        (Err(a), Err(b)) => assert_eq!(a, b),
        _ => panic!("one way refused: {fetched:?} {copied:?}"),
    }
    fetched
}

/// Every hit's row, page by page from each `next_offset`.
fn all_rows(
    data: &[u8],
    opts: &[(&str, serde_json::Value)],
    column: Option<&str>,
    page: u64,
    piece: usize,
) -> Vec<u64> {
    let mut offset = 0;
    let mut rows = Vec::new();
    loop {
        let a = run(data, piece, &query(opts, offset, page), column).unwrap();
        rows.extend(a.hits.iter().map(|h| h.row));
        match a.window.progress.next_offset {
            Some(n) => {
                assert!(n >= offset && a.window.progress.has_more);
                offset = n;
            }
            None => {
                assert!(a.window.progress.total_exact);
                return rows;
            }
        }
    }
}

fn generated() -> Vec<u8> {
    let mut out = b"id,amount,name,note\n".to_vec();
    let amounts = [
        "9007199254740993",
        "9007199254740992",
        "9007199254740991",
        "1.5",
        "1.50",
        "-0",
        "1e3",
        "1000.0",
        "",
        "NA",
        "  7 ",
        "abc",
        "-9007199254740993",
        "0.1",
        "1E-1",
    ];
    let names = ["ann", "Bob", "", "null", "x, y", "line\nbreak", "é", "  "];
    for i in 0..3000usize {
        let a = amounts[i * 7 % amounts.len()];
        let n = names[i * 5 % names.len()];
        let quoted = if n.contains([',', '\n']) || i % 4 == 0 {
            format!("\"{n}\"")
        } else {
            n.to_owned()
        };
        let end = if i % 3 == 0 { "\r\n" } else { "\n" };
        out.extend(format!("{i},{a},{quoted},note {i}{end}").as_bytes());
    }
    out
}

/// The rows (0-based) Python's csv module and `decimal` say hold.
fn python_rows(data: &[u8], column: usize, predicate: &str) -> Vec<u64> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.csv");
    std::fs::write(&path, data).unwrap();
    let script = r#"
import csv, sys, decimal, re
col, op, operand = int(sys.argv[2]), sys.argv[3], sys.argv[4]
def num(s):
    s = s.strip(' \t')
    if not re.fullmatch(r'[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?', s): return None
    return decimal.Decimal(s)
rows = list(csv.reader(open(sys.argv[1], newline='', encoding='utf-8')))[1:]
out = []
for i, r in enumerate(rows):
    cell = r[col] if col < len(r) else None
    if cell is None: continue
    t = cell.strip(' \t')
    if op == 'null': hit = t == '' or t in ('NA','N/A','NaN','null','NULL','None','-')
    elif op == 'empty': hit = t == ''
    elif op == 're': hit = re.search(operand, cell) is not None
    else:
        a, b = num(cell), num(operand)
        if a is not None and b is not None:
            hit = {'=': a == b, '!=': a != b, '<': a < b, '<=': a <= b, '>': a > b, '>=': a >= b}[op]
        elif op in ('=', '!='):
            hit = (t == operand) == (op == '=')
        else:
            # A number and text never order.
            hit = False if b is not None or a is not None else (t < operand if op == '<' else t > operand if op == '>' else t <= operand if op == '<=' else t >= operand)
    if hit: out.append(str(i))
print(' '.join(out))
"#;
    let (op, operand) = predicate.split_once(' ').unwrap_or((predicate, ""));
    let out = Command::new("python3")
        .arg("-c")
        .arg(script)
        .arg(&path)
        .arg(column.to_string())
        .arg(op)
        .arg(operand)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .split_whitespace()
        .map(|n| n.parse().unwrap())
        .collect()
}

#[test]
fn predicates_agree_with_python_csv_and_exact_decimals() {
    let data = generated();
    for (column, name, ours, theirs) in [
        (1, "amount", "> 9007199254740992", "> 9007199254740992"),
        (1, "amount", "= 9007199254740993", "= 9007199254740993"),
        (1, "amount", "<= 9007199254740992", "<= 9007199254740992"),
        (1, "amount", "= 1000", "= 1000"),
        (1, "amount", "!= 1.5", "!= 1.5"),
        (1, "amount", "< 0.1", "< 0.1"),
        (1, "amount", ">= -9007199254740993", ">= -9007199254740993"),
        (1, "amount", "is null", "null"),
        (2, "name", "is empty", "empty"),
        (2, "name", "is null", "null"),
        (2, "name", "= Bob", "= Bob"),
        (2, "name", "> b", "> b"),
        (1, "amount", "< zzz", "< zzz"),
        (1, "amount", "> \"\"", "> "),
    ] {
        let expected = python_rows(&data, column, theirs);
        assert!(!expected.is_empty(), "{ours}");
        for (page, piece) in [(1000, 1 << 16), (7, 1), (50, 13)] {
            let got = all_rows(&data, &[("where", json!(ours))], Some(name), page, piece);
            assert_eq!(got, expected, "{name} {ours} page {page} piece {piece}");
        }
        // By index, as by name.
        let by_index = all_rows(
            &data,
            &[("where", json!(ours))],
            Some(&column.to_string()),
            1000,
            1 << 16,
        );
        assert_eq!(by_index, expected);
    }
}

#[test]
fn patterns_agree_with_python_re() {
    let data = generated();
    for (column, name, pattern) in [
        (2, "name", "^[A-Z]"),
        (2, "name", "break"),
        (3, "note", "note 1[0-9]$"),
    ] {
        let expected = python_rows(&data, column, &format!("re {pattern}"));
        assert!(!expected.is_empty(), "{pattern}");
        for piece in [1, 64, 1 << 16] {
            assert_eq!(
                all_rows(&data, &[("pattern", json!(pattern))], Some(name), 13, piece),
                expected
            );
        }
    }
}

#[test]
fn a_hit_is_its_row_verbatim_with_its_position() {
    let data = b"id,text\n1,plain\n2,\"multi\nline, quoted\"\n3,x\n";
    let a = run(
        data,
        1 << 16,
        &query(&[("pattern", json!("line"))], 0, 10),
        None,
    )
    .unwrap();
    assert_eq!(a.hits.len(), 1);
    let h = &a.hits[0];
    assert_eq!((h.row, h.line, h.byte_offset, h.column), (1, 3, 16, 1));
    assert_eq!(h.cells[1].as_text(), Some("multi\nline, quoted"));
    assert_eq!(a.column, None);
    let json = serde_json::to_value(&a).unwrap();
    assert_eq!(json["header"], json!(["id", "text"]));
    assert_eq!(
        (json["total"].clone(), json["total_exact"].clone()),
        (json!(1), json!(true))
    );
}

#[test]
fn count_only_counts_to_the_end_and_returns_no_rows() {
    let data = generated();
    let expected = python_rows(&data, 1, "null");
    let q = query(
        &[("where", json!("is null")), ("count_only", json!(true))],
        0,
        1,
    );
    let a = run(&data, 1 << 16, &q, Some("amount")).unwrap();
    assert!(
        a.hits.is_empty()
            && a.window.progress.total_exact
            && a.window.progress.next_offset.is_none()
    );
    assert_eq!(a.window.progress.total, expected.len() as u64);
}

#[test]
fn an_unknown_column_and_a_bad_index_are_refused() {
    let data = b"a,b\n1,2\n";
    let q = query(&[("where", json!("= 1"))], 0, 10);
    let r = run(data, 64, &q, Some("c")).unwrap_err();
    assert_eq!(r.reason(), RefusalReason::UnknownColumn);
    let r = run(data, 64, &q, Some("5")).unwrap_err();
    assert_eq!(r.reason(), RefusalReason::InvalidArgument);
    assert!(r.message().contains("2 columns"), "{}", r.message());
}

#[test]
fn a_missing_cell_is_null_and_matches_nothing_else() {
    let data = b"a,b\n1\n2,\n3,x\n";
    let rows = |w: &str| all_rows(data, &[("where", json!(w))], Some("b"), 10, 64);
    assert_eq!(rows("is null"), [0, 1]);
    assert_eq!(rows("is empty"), [1]);
    assert_eq!(rows("!= x"), [1]);
    assert_eq!(rows("is not null"), [2]);
}

/// A row a cap cut (a field over `CSV_MAX_FIELD_BYTES`) is judged by the
/// cells read before the cut: one that matches makes it a hit; else,
/// unless the searched cell was read, it is counted as unjudged and the
/// total is only a lower bound. The cells cut away are never taken for
/// missing ones (`is null` does not match them).
#[test]
fn a_row_cut_by_a_cap_is_counted_unjudged_not_judged_by_its_missing_cells() {
    let big = "y".repeat(plumb_csv::CSV_MAX_FIELD_BYTES + 10);
    let data = format!("a,b\n1,x\n2,{big}\n3,\n");
    for piece in [1024, 1 << 16] {
        let got = |w: &str, column: Option<&str>| {
            let a = run(
                data.as_bytes(),
                piece,
                &query(&[("where", json!(w))], 0, 20),
                column,
            )
            .unwrap();
            let rows: Vec<u64> = a.hits.iter().map(|h| h.row).collect();
            (
                rows,
                a.window.progress.total,
                a.window.progress.total_exact,
                a.unjudged_rows,
            )
        };
        // Row 1's `b` was cut away: not null, and maybe not `x`.
        assert_eq!(got("is null", Some("b")), (vec![2], 1, false, 1));
        assert_eq!(got("!= x", Some("b")), (vec![2], 1, false, 1));
        // Its `a` was read whole, so it is judged by it.
        assert_eq!(got("= 2", Some("a")), (vec![1], 1, true, 0));
        assert_eq!(got("!= 2", Some("a")), (vec![0, 2], 2, true, 0));
        // Any column: a cell read before the cut may match.
        assert_eq!(got("= 2", None), (vec![1], 1, true, 0));
        assert_eq!(got("= zzz", None), (vec![], 0, false, 1));
    }
}

/// A search of every column judges a row's first `COLUMN_TRACK_CAP`
/// cells: a wider row with no hit among them is counted as unjudged.
#[test]
fn a_row_wider_than_the_tracked_columns_is_counted_unjudged() {
    let cap = plumb_core::COLUMN_TRACK_CAP;
    let header: Vec<String> = (0..=cap).map(|i| format!("c{i}")).collect();
    let mut wide = vec!["0"; cap + 1];
    wide[cap] = "needle";
    let data = format!("{}\n{}\nneedle\nother\n", header.join(","), wide.join(","));
    let a = run(
        data.as_bytes(),
        1 << 16,
        &query(&[("where", json!("= needle"))], 0, 20),
        None,
    )
    .unwrap();
    let rows: Vec<u64> = a.hits.iter().map(|h| h.row).collect();
    assert_eq!(rows, [1]);
    assert_eq!((a.window.progress.total_exact, a.unjudged_rows), (false, 1));
    // The searched column is judged wherever it is.
    let last = format!("c{cap}");
    let a = run(
        data.as_bytes(),
        1 << 16,
        &query(&[("where", json!("= needle"))], 0, 20),
        Some(&last),
    )
    .unwrap();
    assert_eq!(a.hits.iter().map(|h| h.row).collect::<Vec<_>>(), [0]);
    assert_eq!((a.window.progress.total_exact, a.unjudged_rows), (true, 0));
    // The hit's row and the header carry their first cells and a count
    // of the rest, not thousands of cells cut to nothing.
    let shown = plumb_csv::CSV_SEARCH_ROW_CELLS;
    let omitted = SelectCell::Omitted((cap + 1 - shown) as u64);
    let header = a.header.as_ref().unwrap();
    for cells in [&a.hits[0].cells, header] {
        assert_eq!(cells.len(), shown + 1);
        assert_eq!(cells.last(), Some(&omitted));
    }
    assert_eq!(a.hits[0].cells[0], SelectCell::Text("0".into()));
    assert_eq!(header[1], SelectCell::Text("c1".into()));
    // The matched cell lies past those shown: the hit carries it.
    assert_eq!(a.hits[0].column, cap);
    assert_eq!(
        a.hits[0].matched_cell,
        Some(SelectCell::Text("needle".into()))
    );
    let answer = serde_json::to_string(&a).unwrap();
    assert!(answer.len() < 8 * 1024);
    assert!(answer.contains(r#""matched_cell":"needle""#), "{answer}");
    // A matched cell among those shown is not repeated.
    let a = run(
        data.as_bytes(),
        1 << 16,
        &query(&[("where", json!("= needle"))], 0, 20),
        Some("c0"),
    )
    .unwrap();
    assert_eq!(a.hits.iter().map(|h| h.row).collect::<Vec<_>>(), [1]);
    assert_eq!(a.hits[0].matched_cell, None);
    assert!(!serde_json::to_string(&a).unwrap().contains("matched_cell"));
}

#[test]
fn columns_of_rows_wider_than_the_header_are_searched_as_inspect_lists_them() {
    let data = b"a,b\n1,2\n3,4,x\n5,6,y,z\n7,8,x\n";
    let report = plumb_csv::inspect(
        TextStream::new(&data[..]),
        CsvFormat::Csv,
        &CsvOptions::default(),
    )
    .unwrap();
    assert_eq!(report.columns.len(), 4);
    for piece in [1, 3, 64] {
        let hits = |column: &str, pattern: &str| {
            run(
                data,
                piece,
                &query(&[("pattern", json!(pattern))], 0, 20),
                Some(column),
            )
            .map(|a| a.hits.iter().map(|h| h.row).collect::<Vec<_>>())
        };
        assert_eq!(hits("2", "x").unwrap(), [1, 3]);
        assert_eq!(hits("3", "z").unwrap(), [2]);
        assert_eq!(hits("3", "x").unwrap(), Vec::<u64>::new());
        // Past the widest row, the index is refused, naming the columns.
        let r = hits("4", "x").unwrap_err();
        assert_eq!(r.reason(), plumb_core::RefusalReason::InvalidArgument);
        assert!(
            r.message().contains("this file has 4 columns (0 to 3)"),
            "{}",
            r.message()
        );
    }
}
