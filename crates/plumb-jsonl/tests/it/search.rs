//! JSON Lines and JSON search against Python's json (numbers read as
//! exact decimals), fed whole and in small pieces, with continuation
//! covering every hit exactly once.

use std::io::BufReader;
use std::process::Command;

use plumb_core::{Query, Request, TextStream};
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

fn generated() -> String {
    let ids = [
        "9007199254740993",
        "9007199254740992",
        "42",
        "42.0",
        "-1e2",
        "\"42\"",
        "null",
        "true",
        "[1]",
        "{\"a\": 1}",
    ];
    let status = [
        "\"failed\"",
        "\"ok\"",
        "\"FAILED twice\"",
        "null",
        "\"\"",
        "\"é failed\"",
    ];
    let mut out = String::new();
    for i in 0..2000usize {
        let id = ids[i * 7 % ids.len()];
        let st = status[i * 5 % status.len()];
        match i % 11 {
            0 => out.push_str(&format!("{{\"n\": {i}, \"status\": {st}}}\n")),
            5 => out.push('\n'),
            7 => out.push_str("not json\n"),
            _ => out.push_str(&format!(
                "{{\"n\": {i}, \"user\": {{\"id\": {id}, \"tags\": [\"x{i}\"]}}, \"status\": {st}}}\n"
            )),
        }
    }
    out
}

/// The records (0-based, blank lines not counted) Python says hold:
/// `field` is a list of keys; a record that is not JSON is no hit.
fn python_records(text: &str, field: &[&str], op: &str, operand: &str) -> Vec<u64> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.jsonl");
    std::fs::write(&path, text).unwrap();
    let script = r#"
import json, sys, decimal, re
path, op, operand = sys.argv[1], sys.argv[2], sys.argv[3]
field = sys.argv[4:]
MISSING = object()
def num(s):
    return decimal.Decimal(s) if re.fullmatch(r'-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?', s) else None
out, k = [], -1
for line in open(path, encoding='utf-8').read().split('\n'):
    if not line.strip(): continue
    k += 1
    try: v = json.loads(line, parse_float=decimal.Decimal, parse_int=decimal.Decimal)
    except ValueError: continue
    for f in field:
        v = v.get(f, MISSING) if isinstance(v, dict) else MISSING
    if op == 'null': hit = v is MISSING or v is None
    elif v is MISSING or isinstance(v, (dict, list)): hit = False
    elif op == 're': hit = isinstance(v, str) and re.search(operand, v) is not None
    else:
        b = num(operand)
        if isinstance(v, decimal.Decimal) and not isinstance(v, bool) and b is not None:
            hit = {'=': v == b, '!=': v != b, '<': v < b, '>': v > b, '<=': v <= b, '>=': v >= b}[op]
        else:
            text = v if isinstance(v, str) else ('null' if v is None else 'true' if v is True else 'false' if v is False else None)
            if op in ('=', '!='): hit = (text == operand) == (op == '=')
            elif b is not None: hit = False
            else: hit = isinstance(v, str) and {'<': v < operand, '>': v > operand, '<=': v <= operand, '>=': v >= operand}[op]
    if hit: out.append(str(k))
print(' '.join(out))
"#;
    let o = Command::new("python3")
        .arg("-c")
        .arg(script)
        .arg(&path)
        .arg(op)
        .arg(operand)
        .args(field)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout)
        .unwrap()
        .split_whitespace()
        .map(|n| n.parse().unwrap())
        .collect()
}

fn jsonl_records(
    text: &str,
    opts: &[(&str, serde_json::Value)],
    field: Option<&str>,
    page: u64,
    piece: usize,
) -> Vec<u64> {
    let mut offset = 0;
    let mut out = Vec::new();
    loop {
        let stream = TextStream::new(BufReader::with_capacity(piece, text.as_bytes()));
        let a = plumb_jsonl::search(stream, field, &query(opts, offset, page)).unwrap();
        out.extend(a.hits.iter().map(|h| h.record));
        match a.window.progress.next_offset {
            Some(n) => offset = n,
            None => {
                assert!(a.window.progress.total_exact);
                return out;
            }
        }
    }
}

/// The same records as the elements of one array (the broken lines
/// dropped, blank lines gone): element `i` is the `i`th valid record.
fn as_array(text: &str) -> (String, Vec<u64>) {
    let mut valid = Vec::new();
    let mut parts = Vec::new();
    for (k, line) in text
        .split('\n')
        .filter(|l| !l.trim().is_empty())
        .enumerate()
    {
        if serde_json::from_str::<serde_json::Value>(line).is_ok() {
            parts.push(line.to_owned());
            valid.push(k as u64);
        }
    }
    (format!("{{\"data\": [{}]}}", parts.join(",\n")), valid)
}

fn json_elements(
    doc: &str,
    opts: &[(&str, serde_json::Value)],
    field: Option<&str>,
    page: u64,
    piece: usize,
) -> Vec<u64> {
    let mut offset = 0;
    let mut out = Vec::new();
    loop {
        let stream = TextStream::new(BufReader::with_capacity(piece, doc.as_bytes()));
        let a = plumb_json::search(stream, "/data", field, &query(opts, offset, page)).unwrap();
        out.extend(a.hits.iter().map(|h| h.index));
        match a.window.progress.next_offset {
            Some(n) => offset = n,
            None => return out,
        }
    }
}

#[test]
fn records_and_elements_agree_with_python_json() {
    let text = generated();
    let (doc, valid) = as_array(&text);
    for (field, ours, op, operand) in [
        ("/user/id", "= 42", "=", "42"),
        ("/user/id", "> 9007199254740992", ">", "9007199254740992"),
        ("/user/id", "<= 42", "<=", "42"),
        ("/user/id", "is null", "null", ""),
        ("/user/id", "= true", "=", "true"),
        ("/status", "= ok", "=", "ok"),
        ("/status", "!= ok", "!=", "ok"),
        ("/status", "> f", ">", "f"),
        ("/status", "is null", "null", ""),
    ] {
        let keys: Vec<&str> = field.split('/').skip(1).collect();
        let expected = python_records(&text, &keys, op, operand);
        assert!(!expected.is_empty(), "{field} {ours}");
        for (page, piece) in [(1000, 1 << 16), (9, 1), (40, 17)] {
            let got = jsonl_records(&text, &[("where", json!(ours))], Some(field), page, piece);
            assert_eq!(got, expected, "jsonl {field} {ours} {page} {piece}");
            // Element i of the array is record valid[i].
            let elements: Vec<u64> =
                json_elements(&doc, &[("where", json!(ours))], Some(field), page, piece)
                    .into_iter()
                    .map(|i| valid[i as usize])
                    .collect();
            assert_eq!(elements, expected, "json {field} {ours} {page} {piece}");
        }
    }
    for pattern in ["(?i)failed", "^é"] {
        let expected = python_records(&text, &["status"], "re", pattern);
        assert!(!expected.is_empty());
        assert_eq!(
            jsonl_records(
                &text,
                &[("pattern", json!(pattern))],
                Some("/status"),
                13,
                7
            ),
            expected
        );
    }
}

#[test]
fn a_hit_carries_its_record_line_and_value() {
    let text = "{\"id\": 1}\n\n{\"id\": 9007199254740993, \"s\": \"x\"}\nbroken\n{\"id\": 3}\n";
    let stream = TextStream::new(text.as_bytes());
    let a = plumb_jsonl::search(
        stream,
        Some("/id"),
        &query(&[("where", json!("> 1"))], 0, 10),
    )
    .unwrap();
    let hits: Vec<(u64, u64, u64)> = a
        .hits
        .iter()
        .map(|h| (h.record, h.line, h.byte_offset))
        .collect();
    assert_eq!(hits, [(1, 3, 11), (3, 5, 53)]);
    let v: serde_json::Value = serde_json::from_str(a.hits[0].value.get()).unwrap();
    assert_eq!(v["id"]["$literal"], "9007199254740993");
    assert_eq!((a.invalid_lines, a.window.progress.total), (1, 2));
}

#[test]
fn without_a_field_any_scalar_may_match() {
    let text = "{\"a\": {\"b\": [\"needle\"]}}\n{\"needle\": 1}\n\"needle\"\n";
    let stream = TextStream::new(text.as_bytes());
    let a =
        plumb_jsonl::search(stream, None, &query(&[("pattern", json!("needle"))], 0, 10)).unwrap();
    // Keys are not values: the second record has none that matches.
    assert_eq!(a.hits.iter().map(|h| h.record).collect::<Vec<_>>(), [0, 2]);
}

#[test]
fn json_search_refuses_a_value_that_is_not_an_array() {
    let stream = TextStream::new(&b"{\"a\": {\"b\": 1}}"[..]);
    let r = plumb_json::search(
        stream,
        "/a",
        None,
        &query(&[("where", json!("= 1"))], 0, 10),
    )
    .unwrap_err();
    assert!(r.message().contains("not an array"), "{}", r.message());
    let stream = TextStream::new(&b"{\"a\": []}"[..]);
    let r = plumb_json::search(
        stream,
        "/nope",
        None,
        &query(&[("where", json!("= 1"))], 0, 10),
    )
    .unwrap_err();
    assert_eq!(r.reason(), plumb_core::RefusalReason::PointerNotFound);
}

/// A line over the line cap is skipped unread: a record not judged, so
/// the total is then only a lower bound.
#[test]
fn an_oversized_line_makes_the_total_a_lower_bound() {
    let big = "z".repeat(plumb_jsonl::JSONL_MAX_LINE_BYTES + 10);
    let text = format!("{{\"b\": 2}}\n{{\"b\": 2, \"s\": \"{big}\"}}\n{{\"b\": 3}}\n");
    for piece in [1024, 1 << 16] {
        let stream = TextStream::new(BufReader::with_capacity(piece, text.as_bytes()));
        let a = plumb_jsonl::search(
            stream,
            Some("/b"),
            &query(&[("where", json!("= 2"))], 0, 10),
        )
        .unwrap();
        assert_eq!(a.hits.iter().map(|h| h.record).collect::<Vec<_>>(), [0]);
        assert_eq!(
            (
                a.oversized_lines,
                a.window.progress.total,
                a.window.progress.total_exact
            ),
            (1, 1, false)
        );
    }
    // With no line over the cap, the same search's total is exact.
    let stream = TextStream::new("{\"b\": 2}\n{\"b\": 3}\n".as_bytes());
    let a = plumb_jsonl::search(
        stream,
        Some("/b"),
        &query(&[("where", json!("= 2"))], 0, 10),
    )
    .unwrap();
    assert!(a.window.progress.total_exact);
}

/// A string longer than the capture cap is judged by its start where
/// that decides the predicate, and otherwise counted as unjudged, the
/// total then a lower bound: in JSON Lines records and JSON elements.
#[test]
fn a_string_past_the_capture_cap_is_judged_by_its_start_or_counted_unjudged() {
    let long = |head: &str, tail: &str| {
        let fill = "a".repeat(plumb_json::STRING_CAPTURE_BYTES + 100);
        format!("{head}{fill}{tail}")
    };
    let records = [
        serde_json::json!({"s": long("", "needle")}),
        serde_json::json!({"s": long("needle", "")}),
        serde_json::json!({"s": "needle"}),
        serde_json::json!({"s": long("b", "")}),
    ];
    let text: String = records.iter().map(|r| format!("{r}\n")).collect();
    let array = serde_json::to_string(&records).unwrap();
    // (predicate, field, hits, unjudged)
    type Case<'a> = (&'a str, serde_json::Value, Option<&'a str>, Vec<u64>, u64);
    let cases: [Case<'_>; 8] = [
        // Found at the start: a hit; only at the end: unjudged.
        ("pattern", json!("needle"), Some("/s"), vec![1, 2], 2),
        ("pattern", json!("needle"), None, vec![1, 2], 2),
        // `$` at the cut is no match of the whole (records 1 and 3 do
        // end in `a`, but that was not read).
        ("pattern", json!("a$"), Some("/s"), vec![], 3),
        // Lengths settle equality, the start settles an order.
        ("where", json!("= needle"), Some("/s"), vec![2], 0),
        ("where", json!("!= needle"), Some("/s"), vec![0, 1, 3], 0),
        ("where", json!("> b"), Some("/s"), vec![1, 2, 3], 0),
        ("where", json!("is empty"), Some("/s"), vec![], 0),
        (
            "where",
            json!("is not null"),
            Some("/s"),
            vec![0, 1, 2, 3],
            0,
        ),
    ];
    for (key, value, field, hits, unjudged) in cases {
        let q = query(&[(key, value.clone())], 0, 10);
        for piece in [4096, 1 << 20] {
            let stream = TextStream::new(BufReader::with_capacity(piece, text.as_bytes()));
            let a = plumb_jsonl::search(stream, field, &q).unwrap();
            let got: Vec<u64> = a.hits.iter().map(|h| h.record).collect();
            assert_eq!(got, hits, "{key} {value} {field:?}");
            assert_eq!(a.unjudged_records, unjudged, "{key} {value} {field:?}");
            assert_eq!(a.window.progress.total_exact, unjudged == 0);
            let stream = TextStream::new(BufReader::with_capacity(piece, array.as_bytes()));
            let e = plumb_json::search(stream, "", field, &q).unwrap();
            let got: Vec<u64> = e.hits.iter().map(|h| h.index).collect();
            assert_eq!(got, hits, "array: {key} {value} {field:?}");
            assert_eq!(e.unjudged_elements, unjudged);
            assert_eq!(e.window.progress.total_exact, unjudged == 0);
        }
    }
}

/// Keys are read to `KEY_CAPTURE_BYTES`: a pointer naming a longer key is
/// refused (it could never be found), and a longer key cut to that length
/// is not taken for the key of its first bytes.
#[test]
fn a_key_past_the_capture_cap_is_never_named_by_its_start() {
    let cap = plumb_json::KEY_CAPTURE_BYTES;
    let (whole, long) = ("k".repeat(cap), "k".repeat(cap + 500));
    let text = format!("{{\"{long}\": 5}}\n{{\"{whole}\": 5}}\n{{\"a\": 1}}\n");
    let search = |field: &str, w: &str| {
        let q = query(&[("where", json!(w))], 0, 10);
        plumb_jsonl::search(TextStream::new(text.as_bytes()), Some(field), &q)
    };
    let r = search(&format!("/{long}"), "= 5").unwrap_err();
    assert_eq!(r.reason(), plumb_core::RefusalReason::InvalidArgument);
    assert!(r.message().contains("cannot be named"), "{}", r.message());
    let records = |w: &str| -> Vec<u64> {
        let a = search(&format!("/{whole}"), w).unwrap();
        a.hits.iter().map(|h| h.record).collect()
    };
    // Record 0's key is longer: it has no key of exactly `whole`.
    assert_eq!(records("= 5"), [1]);
    assert_eq!(records("is null"), [0, 2]);
    // The same through a JSON array's elements.
    let array = format!("[{{\"{long}\": 5}}, {{\"{whole}\": 5}}]");
    let q = query(&[("where", json!("= 5"))], 0, 10);
    let field = format!("/{whole}");
    let e = plumb_json::search(TextStream::new(array.as_bytes()), "", Some(&field), &q).unwrap();
    assert_eq!(e.hits.iter().map(|h| h.index).collect::<Vec<_>>(), [1]);
}

/// A hit too large for its value budget is summarized, and then says
/// what matched: the pointer and the value (a long one cut), in JSON
/// Lines and in a JSON array alike, at every piece size; a hit shown
/// whole, and a count, carry no `matched`.
#[test]
fn a_summarized_hit_says_what_matched() {
    let filler = "x".repeat(plumb_json::SEARCH_VALUE_BUDGET_BYTES);
    let long = format!("{}needle", "y".repeat(400));
    let records = [
        json!({"big": filler, "user": {"tags": ["a", "b", "needle"]}, "n": 7}),
        json!({"small": "needle", "n": 7}),
        json!({"big": filler, "s": long, "n": 8}),
        json!({"big": filler, "user": {"id": 5}, "n": 9}),
    ];
    let text: String = records.iter().map(|r| format!("{r}\n")).collect();
    let doc = serde_json::to_string(&records).unwrap();
    // Each hit as (its position, whether it was cut, its `matched`).
    let seen = |hits: Vec<(u64, serde_json::Value, Option<serde_json::Value>)>| {
        hits.into_iter()
            .map(|(at, value, matched)| (at, value.get("$summary").is_some(), matched))
            .collect::<Vec<_>>()
    };
    let cut_long =
        json!({"$truncated": &long[..plumb_json::MATCHED_VALUE_BYTES], "bytes": long.len()});
    for (opts, field, want) in [
        (
            json!({"pattern": "needle"}),
            None,
            vec![
                (
                    0,
                    true,
                    Some(json!({"pointer": "/user/tags/2", "value": "needle"})),
                ),
                (1, false, None),
                (
                    2,
                    true,
                    Some(json!({"pointer": "/s", "value": cut_long.clone()})),
                ),
            ],
        ),
        (
            json!({"where": "> 7"}),
            Some("/n"),
            vec![
                (2, true, Some(json!({"pointer": "/n", "value": 8}))),
                (3, true, Some(json!({"pointer": "/n", "value": 9}))),
            ],
        ),
        (
            json!({"where": "is not null"}),
            Some("/user"),
            vec![
                (
                    0,
                    true,
                    Some(json!({"pointer": "/user", "value": {"$summary": {"type": "object"}}})),
                ),
                (
                    3,
                    true,
                    Some(json!({"pointer": "/user", "value": {"$summary": {"type": "object"}}})),
                ),
            ],
        ),
    ] {
        let (key, operand) = opts.as_object().unwrap().iter().next().unwrap();
        let q = query(&[(key.as_str(), operand.clone())], 0, 10);
        for piece in [1, 7, 1 << 16] {
            let stream = TextStream::new(BufReader::with_capacity(piece, text.as_bytes()));
            let a = plumb_jsonl::search(stream, field, &q).unwrap();
            let hits = a.hits.iter().map(|h| {
                let m = h.matched.as_ref().map(|m| serde_json::to_value(m).unwrap());
                (h.record, serde_json::from_str(h.value.get()).unwrap(), m)
            });
            assert_eq!(seen(hits.collect()), want, "jsonl {opts} {piece}");
            let stream = TextStream::new(BufReader::with_capacity(piece, doc.as_bytes()));
            let a = plumb_json::search(stream, "", field, &q).unwrap();
            let hits = a.hits.iter().map(|h| {
                let m = h.matched.as_ref().map(|m| serde_json::to_value(m).unwrap());
                (h.index, serde_json::from_str(h.value.get()).unwrap(), m)
            });
            assert_eq!(seen(hits.collect()), want, "json {opts} {piece}");
        }
        let counted = query(
            &[(key.as_str(), operand.clone()), ("count_only", json!(true))],
            0,
            10,
        );
        let a = plumb_jsonl::search(TextStream::new(text.as_bytes()), field, &counted).unwrap();
        assert_eq!(
            (a.hits.len(), a.window.progress.total),
            (0, want.len() as u64)
        );
    }
}
