//! The byte budget (`max_scan_bytes`): a scan stops at the same place
//! however its text arrives (plain, compressed, read whole or a byte at
//! a time), answers from what it read and says so (sampled, a null
//! verdict, a search's place to go on), and a budget at or past the end
//! changes nothing. A search continued from where each budgeted call
//! stopped finds exactly the hits of one unbounded search.

use std::io::Write;

use plumb::{BytesSource, Op, Plumb, Request};
use serde_json::{json, Value};

fn zstd(data: &[u8]) -> Vec<u8> {
    let mut e = zstd::stream::Encoder::new(Vec::new(), 3).unwrap();
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

fn run(op: Op, name: &str, bytes: &[u8], opts: &[(&str, Value)]) -> Value {
    let mut req = Request::default();
    for (k, v) in opts {
        req.set(k, v.clone()).unwrap();
    }
    let source = BytesSource::new(name, bytes.to_vec());
    Plumb::new()
        .run_source(op, &source, None, &req)
        .unwrap_or_else(|r| panic!("{name} {op:?}: {r}"))
        .to_json()
}

/// The answer without what only the container changes.
fn plain_part(mut v: Value) -> Value {
    if let Some(m) = v.as_object_mut() {
        m.remove("container");
        m.remove("offsets");
        m.remove("file_bytes");
    }
    v
}

/// A CSV of `rows` rows: a header, then rows whose third cell is
/// sometimes `hit`; a character of two bytes in every row, so budgets
/// fall inside characters too.
fn csv(rows: usize) -> String {
    let mut t = String::from("id,name,tag\n");
    for k in 0..rows {
        let tag = if k % 7 == 3 { "hit" } else { "miss" };
        t.push_str(&format!("{k},é{k},{tag}\n"));
    }
    t
}

fn jsonl(rows: usize) -> String {
    (0..rows)
        .map(|k| {
            let tag = if k % 5 == 1 { "hit" } else { "miss" };
            format!("{{\"id\":{k},\"tag\":\"{tag}é\"}}\n")
        })
        .collect()
}

fn json_array(rows: usize) -> String {
    let items: Vec<String> = (0..rows)
        .map(|k| {
            let tag = if k % 4 == 2 { "hit" } else { "miss" };
            format!("{{\"id\":{k},\"tag\":\"{tag}é\"}}")
        })
        .collect();
    format!("[{}]\n", items.join(","))
}

/// The first character boundary at or after `b` in `text`.
fn cut(text: &str, b: usize) -> &str {
    let mut k = b.min(text.len());
    while !text.is_char_boundary(k) {
        k += 1;
    }
    &text[..k]
}

#[test]
fn csv_validate_and_inspect_count_the_rows_the_budget_holds() {
    let text = csv(300);
    for budget in [1usize, 11, 12, 13, 40, 41, 500, 2000, text.len() - 1] {
        // Rows ended inside the budget, the header not counted.
        let rows = cut(&text, budget).matches('\n').count().saturating_sub(1) as u64;
        let opts = [("max_scan_bytes", json!(budget))];
        let v = run(Op::Validate, "t.csv", text.as_bytes(), &opts);
        assert_eq!(v["view"]["sampled"], true, "{budget}: {v}");
        assert_eq!(v["valid"], Value::Null, "{budget}");
        assert_eq!(v["rows_scanned"], rows, "{budget}");
        let i = run(Op::Inspect, "t.csv", text.as_bytes(), &opts);
        assert_eq!(
            (i["row_count"].clone(), i["rows_scanned"].clone()),
            (Value::Null, json!(rows))
        );
        // The same through zstd.
        let z = run(Op::Validate, "t.csv.zst", &zstd(text.as_bytes()), &opts);
        assert_eq!(plain_part(z), plain_part(v), "{budget}");
    }
    for budget in [text.len(), text.len() + 1, usize::MAX / 2] {
        let opts = [("max_scan_bytes", json!(budget))];
        let v = run(Op::Validate, "t.csv", text.as_bytes(), &opts);
        assert_eq!(
            v,
            run(Op::Validate, "t.csv", text.as_bytes(), &[]),
            "{budget}"
        );
        assert_eq!(
            (v["valid"].clone(), v["view"]["exact"].clone()),
            (json!(true), json!(true))
        );
    }
}

#[test]
fn json_lines_and_json_stop_after_the_records_and_elements_inside_the_budget() {
    let lines = jsonl(200);
    let array = json_array(200);
    for budget in [1usize, 30, 31, 32, 33, 1000, 4000] {
        let opts = [("max_scan_bytes", json!(budget))];
        let want = cut(&lines, budget).matches('\n').count() as u64;
        let v = run(Op::Validate, "t.jsonl", lines.as_bytes(), &opts);
        assert_eq!(
            (v["valid"].clone(), v["rows_scanned"].clone()),
            (Value::Null, json!(want))
        );
        assert_eq!(v["view"]["sampled"], true);
        let i = run(Op::Inspect, "t.jsonl", lines.as_bytes(), &opts);
        assert_eq!(i["view"]["sampled"], true, "{i}");
        // An element is counted once it begins.
        let want = cut(&array, budget).matches('{').count() as u64;
        let v = run(Op::Validate, "t.json", array.as_bytes(), &opts);
        assert_eq!(
            (v["valid"].clone(), v["rows_scanned"].clone()),
            (Value::Null, json!(want)),
            "{v}"
        );
        assert!(
            v["syntax_error"].is_null(),
            "a text cut by the budget is not truncated"
        );
        let i = run(Op::Inspect, "t.json", array.as_bytes(), &opts);
        assert_eq!(
            (i["view"]["sampled"].clone(), i["count"].clone()),
            (json!(true), json!(want))
        );
        let z = run(Op::Validate, "t.json.zst", &zstd(array.as_bytes()), &opts);
        assert_eq!(plain_part(z), plain_part(v));
    }
}

/// A fault past the budget is not seen, and the verdict is null, not
/// valid; a fault inside it is reported as without a budget.
#[test]
fn a_verdict_is_never_valid_when_the_budget_stopped_the_scan() {
    let mut text = csv(50);
    text.push_str("1,2\n");
    let opts = [("max_scan_bytes", json!(100))];
    let v = run(Op::Validate, "t.csv", text.as_bytes(), &opts);
    assert_eq!(v["valid"], Value::Null);
    let whole = run(Op::Validate, "t.csv", text.as_bytes(), &[]);
    assert_eq!(whole["valid"], false);
    let bad = "id,name\n1,2,3\n".to_owned() + &"4,5\n".repeat(100);
    let v = run(Op::Validate, "t.csv", bad.as_bytes(), &opts);
    assert_eq!(v["valid"], false, "{v}");
}

/// Hits by their position, from each search of `name` continued where
/// the last stopped, the budget growing by `step` each call (it counts
/// from the start of the file).
fn continued_hits(
    name: &str,
    bytes: &[u8],
    key: &str,
    extra: &[(&str, Value)],
    step: u64,
) -> Vec<u64> {
    let (mut offset, mut budget, mut seen) = (0u64, step, Vec::new());
    for _ in 0..10_000 {
        let mut opts = vec![
            ("offset", json!(offset)),
            ("limit", json!(1000)),
            ("max_scan_bytes", json!(budget)),
        ];
        opts.extend(extra.iter().cloned());
        let v = run(Op::Search, name, bytes, &opts);
        seen.extend(
            v["hits"]
                .as_array()
                .unwrap()
                .iter()
                .map(|h| h[key].as_u64().unwrap()),
        );
        if v["has_more"] != true {
            assert_eq!(v["view"]["sampled"], false, "{v}");
            return seen;
        }
        assert_eq!(
            (v["view"]["sampled"].clone(), v["total_exact"].clone()),
            (json!(true), json!(false))
        );
        offset = v["next_offset"].as_u64().unwrap();
        budget += step;
    }
    panic!("{name}: the search never ended");
}

fn all_hits(name: &str, bytes: &[u8], key: &str, extra: &[(&str, Value)]) -> Vec<u64> {
    let mut opts = vec![("limit", json!(1000))];
    opts.extend(extra.iter().cloned());
    let v = run(Op::Search, name, bytes, &opts);
    assert_eq!(v["has_more"], false);
    v["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h[key].as_u64().unwrap())
        .collect()
}

/// A search case: the file's name and text, the key of a hit's
/// position, and the search's options.
type Case<'a> = (&'a str, String, &'a str, Vec<(&'a str, Value)>);

#[test]
fn a_search_continued_from_each_stop_finds_every_hit_once() {
    let pattern = ("pattern", json!("hit"));
    let cases: Vec<Case<'_>> = vec![
        (
            "t.csv",
            csv(400),
            "row",
            vec![("column", json!("tag")), pattern.clone()],
        ),
        (
            "t.jsonl",
            jsonl(300),
            "record",
            vec![("field", json!("/tag")), pattern.clone()],
        ),
        (
            "t.json",
            json_array(300),
            "index",
            vec![("field", json!("/tag")), pattern.clone()],
        ),
    ];
    for (name, text, key, extra) in cases {
        let want = all_hits(name, text.as_bytes(), key, &extra);
        assert!(want.len() > 20, "{name}");
        for step in [7u64, 100, 997] {
            let got = continued_hits(name, text.as_bytes(), key, &extra, step);
            assert_eq!(got, want, "{name} step {step}");
        }
    }
    // Lines of text, continued the same way.
    let text = csv(400);
    let want = all_text(&text, std::slice::from_ref(&pattern));
    assert!(want.len() > 20);
    assert_eq!(continued_text(&text, &[pattern]), want);
}

/// Lines searched as text: `format` given through the dispatcher.
fn text_search(text: &str, opts: &[(&str, Value)]) -> Value {
    let mut req = Request::default();
    for (k, v) in opts {
        req.set(k, v.clone()).unwrap();
    }
    let source = BytesSource::new("t.txt", text.as_bytes().to_vec());
    Plumb::new()
        .run_source(Op::Search, &source, Some("text"), &req)
        .unwrap()
        .to_json()
}

fn continued_text(text: &str, extra: &[(&str, Value)]) -> Vec<u64> {
    let (mut offset, mut budget, mut seen) = (0u64, 50u64, Vec::new());
    loop {
        let mut opts = vec![
            ("offset", json!(offset)),
            ("limit", json!(1000)),
            ("max_scan_bytes", json!(budget)),
        ];
        opts.extend(extra.iter().cloned());
        let v = text_search(text, &opts);
        seen.extend(
            v["hits"]
                .as_array()
                .unwrap()
                .iter()
                .map(|h| h["line"].as_u64().unwrap()),
        );
        if v["has_more"] != true {
            return seen;
        }
        offset = v["next_offset"].as_u64().unwrap();
        budget += 50;
    }
}

fn all_text(text: &str, extra: &[(&str, Value)]) -> Vec<u64> {
    let mut opts = vec![("limit", json!(1000))];
    opts.extend(extra.iter().cloned());
    let v = text_search(text, &opts);
    v["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["line"].as_u64().unwrap())
        .collect()
}
