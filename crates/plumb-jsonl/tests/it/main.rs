//! Integration tests for plumb-jsonl: the seed's focused tests, every
//! split, the conformance cases, and linear time.

mod inspect_ranges;
mod parallel;
mod parallel_inspect;
mod parallel_search;
mod ranges;
mod search;
mod tail;

use std::io::BufReader;

use plumb_core::TextStream;
use plumb_core::{ScanBounds, Window};
use plumb_jsonl::{inspect, select, validate, Line, LineSink, LineSplitter};
use serde_json::{json, Value};

const FIXTURE: &str = concat!(
    "{\"id\": 1, \"name\": \"ann\"}\n",
    "{\"id\": 2, \"name\": \"bob\"}\n",
    "\n",
    "{\"id\": 3, \"name\": \"cy\"}\n",
    "{\"id\": 4, \"name\": broken}\n",
    "{\"id\": 9007199254740993, \"name\": \"dee\", \"name\": \"dup\"}\n",
    "[1, 2, 3]\n",
    "{\"id\": 6, \"name\": \"eve\"}\n",
);

fn stream(text: &str) -> TextStream<BufReader<&[u8]>> {
    TextStream::new(text.as_bytes())
}

fn to_json<T: serde::Serialize>(v: &T) -> Value {
    serde_json::to_value(v).unwrap()
}

/// Runs `op` over the text cut into reads of every size from 1 to 9 and
/// whole; all answers must be equal.
fn every_way<T: serde::Serialize>(
    text: &str,
    op: impl Fn(TextStream<BufReader<&[u8]>>) -> T,
) -> Value {
    let whole = to_json(&op(stream(text)));
    for cap in 1..10 {
        let s = TextStream::from_buf_read(BufReader::with_capacity(cap, text.as_bytes()));
        // `from_buf_read` over a BufReader<&[u8]> keeps the same type.
        assert_eq!(to_json(&op(s)), whole, "capacity {cap}");
    }
    whole
}

#[test]
fn the_eight_line_fixture() {
    let v = every_way(FIXTURE, |s| inspect(s, &ScanBounds::default()).unwrap());
    assert_eq!(v["rows_scanned"], 7);
    assert_eq!(v["lines_scanned"], 8);
    assert_eq!(v["blank_lines"], 1);
    assert_eq!(v["invalid_count"], 1);
    assert_eq!(v["invalid"][0]["line"], 5);
    assert_eq!(
        v["invalid"][0]["message"],
        "expected a value, found `b` at line 5 column 19 (byte 93); a JSON value is an object, array, string, number, true, false or null"
    );
    assert_eq!(v["root_types"], json!({"object": 5, "array": 1}));
    assert_eq!(v["keys"], json!({"id": 5, "name": 6}));
    assert_eq!(v["key_types"]["id"], json!({"number": 5}));
    assert_eq!(v["duplicate_keys"]["count"], 1);
    assert_eq!(
        v["duplicate_keys"]["first"][0],
        json!({"line": 6, "pointer": "", "key": "name"})
    );
    assert_eq!(
        v["precision"]["first"][0],
        json!({"line": 6, "pointer": "/id", "literal": "9007199254740993", "kind": "unsafe-integer"})
    );
    assert_eq!(
        v["sample"],
        json!([{"id": 1, "name": "ann"}, {"id": 2, "name": "bob"}, {"id": 3, "name": "cy"}])
    );
    assert_eq!(v["view"]["exact"], true);
}

#[test]
fn a_window_keeps_the_broken_record_in_place() {
    let w = Window {
        offset: Some(2),
        limit: Some(3),
        from_end: None,
    };
    let v = every_way(FIXTURE, |s| select(s, &w).unwrap());
    assert_eq!(
        v["records"][0],
        json!({"line": 4, "value": {"id": 3, "name": "cy"}, "truncated": false})
    );
    assert_eq!(v["records"][1]["line"], 5);
    assert!(v["records"][1]["error"]
        .as_str()
        .unwrap()
        .contains("line 5"));
    assert_eq!(
        v["records"][2]["value"]["id"],
        json!({"$literal": "9007199254740993", "precision": "unsafe-integer"})
    );
    assert_eq!(
        v["records"][2]["value"]["name"], "dup",
        "duplicates stay as written; the last one is seen last"
    );
    assert_eq!(
        (
            v["offset"].clone(),
            v["limit"].clone(),
            v["returned"].clone()
        ),
        (json!(2), json!(3), json!(3))
    );
    assert_eq!(v["has_more"], true);
}

#[test]
fn validate_false_null_true() {
    let v = every_way(FIXTURE, |s| validate(s, &ScanBounds::default()).unwrap());
    assert_eq!(v["valid"], false);
    assert_eq!(v["first_invalid"]["line"], 5);
    let capped = ScanBounds {
        max_rows: Some(3),
        ..Default::default()
    };
    let v = validate(stream(FIXTURE), &capped).unwrap();
    assert_eq!(v.valid, None);
    let clean = "{\"a\":1}\n\n[2]\n3";
    let v = validate(stream(clean), &ScanBounds::default()).unwrap();
    assert_eq!(v.valid, Some(true));
    assert_eq!((v.rows_scanned, v.blank_lines), (3, 1));
}

#[test]
fn pointer_free_windows_and_the_end() {
    let w = Window {
        offset: Some(5),
        limit: Some(10),
        from_end: None,
    };
    let v = select(stream(FIXTURE), &w).unwrap();
    assert_eq!(v.window.returned, 2);
    assert!(!v.window.has_more);
}

struct Count(u64, u64);

impl LineSink for Count {
    fn line(&mut self, _: &Line<'_>) -> std::ops::ControlFlow<()> {
        self.0 += 1;
        std::ops::ControlFlow::Continue(())
    }
    fn oversized(&mut self, _: u64, _: u64, _: u64) -> std::ops::ControlFlow<()> {
        self.1 += 1;
        std::ops::ControlFlow::Continue(())
    }
}

#[test]
fn splitting_is_linear_in_the_input() {
    let work = |lines: usize| {
        let text = "{\"k\": 12345}\n".repeat(lines);
        let mut s = LineSplitter::new(0);
        let mut c = Count(0, 0);
        for piece in text.as_bytes().chunks(64 * 1024) {
            let _ = s.push(piece, &mut c);
        }
        let _ = s.finish(&mut c);
        assert_eq!(c.0 as usize, lines);
        s.bytes_touched()
    };
    let one = work(100_000) as f64;
    let two = work(200_000) as f64;
    let ratio = two / one;
    assert!(
        (1.95..=2.05).contains(&ratio),
        "2x the lines cost {ratio}x the work"
    );
}

#[test]
fn a_line_over_the_cap_is_skipped_and_counted() {
    let mut text = "[".to_owned();
    text.push_str(&"1,".repeat(600_000));
    text.push_str("1]\n{\"a\": 1}\n");
    let v = inspect(stream(&text), &ScanBounds::default()).unwrap();
    assert_eq!(v.rows_scanned, 2);
    assert_eq!(v.invalid[0].line, 1);
    assert!(
        v.invalid[0].message.contains("format json"),
        "{}",
        v.invalid[0].message
    );
    let w = Window::default();
    let s = to_json(&select(stream(&text), &w).unwrap());
    assert!(s["records"][0]["error"]
        .as_str()
        .unwrap()
        .contains("format json"));
    assert_eq!(s["records"][1]["value"], json!({"a": 1}));
}

#[test]
fn conformance_cases() {
    let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/conformance/jsonlines");
    let Ok(manifest) = std::fs::read(dir.join("manifest.json")) else {
        eprintln!("note: ../shared/conformance/jsonlines is absent; skipped");
        return;
    };
    let manifest: Value = serde_json::from_slice(&manifest).unwrap();
    // Where this contract differs from the folder's strict reading
    // (docs/jsonl.md): blank and white-space-only lines are counted, not
    // invalid.
    let blank_lines_counted = [
        "cases/invalid_blank_line_middle.jsonl",
        "cases/invalid_extra_final_newline.jsonl",
        "cases/invalid_whitespace_only_line.jsonl",
    ];
    let mut checked = 0;
    for case in manifest["cases"].as_array().unwrap() {
        let file = case["file"].as_str().unwrap();
        let path = dir.join(file);
        let answer = validate(TextStream::open(&path).unwrap(), &ScanBounds::default());
        match case["expected"].as_str().unwrap() {
            "valid" => {
                let r = answer.unwrap();
                assert_eq!(r.valid, Some(true), "{file}");
                assert_eq!(Some(r.rows_scanned), case["values"].as_u64(), "{file}");
            }
            "invalid" if blank_lines_counted.contains(&file) => {
                let r = answer.unwrap();
                assert_eq!(r.valid, Some(true), "{file}: blank lines are counted");
                assert!(r.blank_lines >= 1, "{file}");
            }
            "invalid" => match answer {
                Ok(r) => {
                    assert_eq!(r.valid, Some(false), "{file}");
                    assert_eq!(
                        Some(r.first_invalid.unwrap().line),
                        case["first_error_line"].as_u64(),
                        "{file}"
                    );
                }
                Err(refusal) => {
                    assert_eq!(
                        refusal.reason(),
                        plumb_core::RefusalReason::InvalidUtf8,
                        "{file}"
                    );
                    assert_eq!(
                        refusal.byte_offset(),
                        case["first_invalid_utf8_byte_offset"].as_u64(),
                        "{file}"
                    );
                }
            },
            _ => {
                let r = answer.unwrap();
                assert_eq!(
                    r.valid,
                    Some(true),
                    "{file}: empty files are valid with no records"
                );
                assert_eq!(r.rows_scanned, 0, "{file}");
            }
        }
        checked += 1;
    }
    assert_eq!(checked, 27);
}

#[test]
fn a_placeholder_in_the_sample_is_noted_and_the_facts_stay_exact() {
    let big: Vec<u32> = (0..5000).collect();
    let text = format!("{}\n{{\"a\": 1}}\n", json!({"a": big}));
    let v = every_way(&text, |s| inspect(s, &ScanBounds::default()).unwrap());
    assert_eq!(v["sample"][0]["$summary"]["type"], "object", "{v}");
    assert_eq!(v["sample_shortened"], true);
    assert_eq!(v["view"]["exact"], true);
    assert_eq!(v["rows_scanned"], 2);
    let plain = every_way("{\"a\": 1}\n", |s| {
        inspect(s, &ScanBounds::default()).unwrap()
    });
    assert_eq!(plain["sample_shortened"], false);
}

#[test]
fn untracked_keys_past_their_cap_are_a_lower_bound() {
    // One new key per record: 500 tracked, then 10,000 counted, then the
    // count stops and says so.
    let records = |n: usize| -> String { (0..n).map(|i| format!("{{\"k{i}\":{i}}}\n")).collect() };
    let tracked = plumb_jsonl::KEY_HISTOGRAM_CAP;
    let cap = plumb_core::COLUMN_TRACK_CAP;
    let r = inspect(stream(&records(tracked + cap + 50)), &ScanBounds::default()).unwrap();
    assert_eq!(r.keys.len(), tracked);
    assert_eq!(r.untracked_keys, cap as u64);
    assert!(r.untracked_keys_is_lower_bound);
    assert_eq!(r.view.label(), "cut");
    // At the cap exactly: exact.
    let r = inspect(stream(&records(tracked + cap)), &ScanBounds::default()).unwrap();
    assert_eq!(r.untracked_keys, cap as u64);
    assert!(!r.untracked_keys_is_lower_bound);
    assert_eq!(r.view.label(), "exact");
}

#[test]
fn the_outline_merges_every_record_into_one_tree() {
    let text = "{\"id\": 1, \"user\": {\"name\": \"ann\"}}\n\n{\"id\": 2, \"tags\": [\"x\"]}\n[1, 2]\n{\"id\": 90071992547409931}\n";
    let a = to_json(&inspect(stream(text), &ScanBounds::default()).unwrap());
    let o = &a["outline"];
    let path = |p: &str| {
        o["paths"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["path"] == p)
            .unwrap_or_else(|| panic!("{p} in {o:#}"))
            .clone()
    };
    assert_eq!(path("")["types"], json!({"object": 3, "array": 1}));
    assert_eq!(path("/id")["present"], json!({"in": 3, "of": 3}));
    assert_eq!(path("/id")["max"]["$literal"], "90071992547409931");
    assert_eq!(path("/user/name")["samples"], json!(["ann"]));
    assert_eq!(path("/tags")["present"], json!({"in": 1, "of": 3}));
    // The array record's elements share one path with every array's.
    assert_eq!(path("/*")["types"], json!({"number": 2}));
    assert_eq!(o["values_cut"], 0);
    // The same outline however the text is cut.
    for piece in [1, 2, 5, 13] {
        let cut = TextStream::new(BufReader::with_capacity(piece, text.as_bytes()));
        let b = to_json(&inspect(cut, &ScanBounds::default()).unwrap());
        assert_eq!(&b["outline"], o, "pieces of {piece}");
    }
}

/// Statistics per key of the records, through the outline: the same for
/// every chunking; keys that are data (collapsed into `*`) merge their
/// statistics, so no value is lost.
#[test]
fn stats_per_key_hold_under_chunking_and_collapse() {
    let mut text = String::new();
    for i in 0..300u64 {
        // `by_id` has a key per record: data, collapsed into `*`.
        text.push_str(&format!(
            "{{\"id\":{i},\"level\":\"{}\",\"by_id\":{{\"k{i}\":{}}}}}\n",
            ["info", "warn", "error"][(i % 3) as usize],
            i % 50
        ));
    }
    let run = |cap: usize| {
        let s = TextStream::from_buf_read(BufReader::with_capacity(cap, text.as_bytes()));
        let opts = plumb_json::OutlineOptions {
            paths: 50,
            stats: true,
        };
        serde_json::to_value(
            plumb_jsonl::inspect_outlined(s, &ScanBounds::default(), opts).unwrap(),
        )
        .unwrap()["outline"]
            .clone()
    };
    let whole = run(1 << 16);
    for cap in [1, 5, 64] {
        assert_eq!(run(cap), whole, "capacity {cap}");
    }
    let stats = |p: &str| {
        whole["paths"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["path"] == p)
            .unwrap()["stats"]
            .clone()
    };
    assert_eq!(stats("/level")["distinct"], 3);
    assert_eq!(stats("/level")["top"][0]["count"], 100);
    let star = stats("/by_id/*");
    assert_eq!(star["count"], 300, "every value of the collapsed keys");
    assert_eq!(star["distinct"], 50);
    assert_eq!(
        star["numbers"]["sum"],
        (0..300u64).map(|i| i % 50).sum::<u64>()
    );
}

/// The outline entry of `path` in inspect's answer on `text`, read
/// through a buffer of `cap` bytes.
fn outline_path(text: &str, cap: usize, stats: bool, path: &str) -> Value {
    let s = TextStream::from_buf_read(BufReader::with_capacity(cap, text.as_bytes()));
    let opts = plumb_json::OutlineOptions { paths: 50, stats };
    let answer = serde_json::to_value(
        plumb_jsonl::inspect_outlined(s, &ScanBounds::default(), opts).unwrap(),
    )
    .unwrap();
    answer["outline"]["paths"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["path"] == path)
        .unwrap_or_else(|| panic!("no {path} in {answer}"))
        .clone()
}

/// A key whose values read alike in different kinds (the string `"100"`
/// and the number `100`, the string `"true"` and `true`): each top value
/// says its kind, and its count is that of its kind alone, as serde_json
/// counts them, however the input is cut.
#[test]
fn top_values_of_several_kinds_say_which_is_which() {
    let values = [
        "100", "\"100\"", "\"100\"", "true", "\"true\"", "100", "100", "\"x\"",
    ];
    let mut text = String::new();
    for i in 0..97 {
        text.push_str(&format!("{{\"v\":{}}}\n", values[i * 7 % values.len()]));
    }
    let mut expected: Vec<(String, &str, u64)> = Vec::new();
    for line in text.lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        let (shown, kind) = match &v["v"] {
            Value::String(s) => (s.clone(), "string"),
            Value::Number(n) => (n.to_string(), "number"),
            Value::Bool(b) => (b.to_string(), "boolean"),
            other => panic!("{other}"),
        };
        match expected.iter_mut().find(|e| e.0 == shown && e.1 == kind) {
            Some(e) => e.2 += 1,
            None => expected.push((shown, kind, 1)),
        }
    }
    for cap in [1, 3, 1 << 16] {
        let entry = outline_path(&text, cap, true, "/v");
        let top = entry["stats"]["top"].as_array().unwrap();
        assert_eq!(top.len(), expected.len(), "{top:?}");
        for (shown, kind, count) in &expected {
            let t = top
                .iter()
                .find(|t| t["value"] == shown.as_str() && t["kind"] == *kind)
                .unwrap_or_else(|| panic!("no {kind} {shown} in {top:?}"));
            assert_eq!(t["count"], *count, "{kind} {shown}");
        }
    }
}

/// A key an object gives twice counts both values among the path's
/// values, but the object once among those carrying the key: `present`
/// never says more objects than there are.
#[test]
fn a_repeated_key_is_present_once_in_its_object() {
    let text = "{\"a\":1,\"a\":2}\n{\"a\":3}\n{\"b\":1}\n{\"o\":{\"x\":1,\"y\":0,\"x\":2,\"x\":3}}\n{\"o\":{\"y\":1}}\n";
    for cap in [1, 4, 1 << 16] {
        let path = |p: &str| outline_path(text, cap, false, p);
        assert_eq!(
            path("/a")["present"],
            json!({"in": 2, "of": 5}),
            "cap {cap}"
        );
        assert_eq!(path("/a")["types"]["number"], 3);
        assert_eq!(path("/o/x")["present"], json!({"in": 1, "of": 2}));
        assert_eq!(path("/o/x")["types"]["number"], 3);
        assert_eq!(path("/o/y")["present"], json!({"in": 2, "of": 2}));
        assert_eq!(path("/b")["present"], json!({"in": 1, "of": 5}));
    }
}

/// inspect's key histogram against serde_json.
mod key_histogram {
    use super::*;
    use proptest::prelude::*;

    /// The JSON type name of a value, as inspect names them.
    fn json_type(v: &Value) -> &'static str {
        match v {
            Value::Object(_) => "object",
            Value::Array(_) => "array",
            Value::String(_) => "string",
            Value::Number(_) => "number",
            Value::Bool(_) => "boolean",
            Value::Null => "null",
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// Key counts, key order and value types per key against serde_json:
        /// records whose keys come in changing orders (the lookup tries the
        /// last record's order first), with types that change, between
        /// records that are not objects.
        #[test]
        fn key_histogram_matches_serde_json(
            records in prop::collection::vec(
                prop_oneof![
                    prop::collection::vec((0usize..12, 0usize..4), 0..8).prop_map(Some),
                    Just(None),
                ],
                1..40,
            )
        ) {
            let values = ["1", "\"s\"", "[true]", "null"];
            let mut text = String::new();
            for r in &records {
                match r {
                    Some(members) => {
                        let mut seen = std::collections::HashSet::new();
                        let body: Vec<String> = members
                            .iter()
                            .filter(|(k, _)| seen.insert(*k))
                            .map(|(k, v)| format!("\"key{k}\":{}", values[*v]))
                            .collect();
                        text.push_str(&format!("{{{}}}\n", body.join(",")));
                    }
                    None => text.push_str("[1,2]\n"),
                }
            }
            let got = inspect(stream(&text), &ScanBounds::default()).unwrap();
            let mut keys = std::collections::BTreeMap::<String, u64>::new();
            let mut order = Vec::<String>::new();
            let mut types = std::collections::BTreeMap::<String, std::collections::BTreeMap<&str, u64>>::new();
            let mut roots = std::collections::BTreeMap::<&str, u64>::new();
            for line in text.lines() {
                let v: Value = serde_json::from_str(line).unwrap();
                *roots.entry(json_type(&v)).or_default() += 1;
                if let Value::Object(m) = v {
                    for (k, v) in m {
                        if !keys.contains_key(&k) {
                            order.push(k.clone());
                        }
                        *keys.entry(k.clone()).or_default() += 1;
                        *types.entry(k).or_default().entry(json_type(&v)).or_default() += 1;
                    }
                }
            }
            prop_assert_eq!(&got.keys, &keys);
            prop_assert_eq!(&got.key_order, &order);
            prop_assert_eq!(&got.root_types, &roots);
            let got_types: std::collections::BTreeMap<String, std::collections::BTreeMap<&str, u64>> =
                got.key_types.clone().into_iter().collect();
            prop_assert_eq!(got_types, types);
        }
    }
}

#[test]
fn paths_past_the_statistics_cap_keep_none_and_the_outline_says_so() {
    let cap = plumb_stats::STATS_MAX_COLUMNS;
    // Objects of a few keys each (a wide object would collapse to one
    // path): more paths than the cap, none collapsed.
    let (groups, per) = (60, cap / 50 + 1);
    assert!(groups <= plumb_json::OUTLINE_COLLAPSE_KEYS && groups * per > cap);
    let record = |r: usize| -> String {
        let members: Vec<String> = (0..groups)
            .map(|g| {
                let inner: Vec<String> =
                    (0..10).map(|k| format!("\"k{k}\":{}", r + g + k)).collect();
                format!("\"g{g}\":{{{}}}", inner.join(","))
            })
            .collect();
        format!("{{{}}}\n", members.join(","))
    };
    let text = format!("{}{}", record(1), record(2));
    let opts = plumb_json::OutlineOptions {
        paths: 20_000,
        stats: true,
    };
    let s = TextStream::new(text.as_bytes());
    let v = serde_json::to_value(
        plumb_jsonl::inspect_outlined(s, &ScanBounds::default(), opts).unwrap(),
    )
    .unwrap();
    let outline = &v["outline"];
    assert_eq!(outline["stats_cut"], true, "{}", outline["paths_total"]);
    assert_eq!(v["view"]["exact"], false);
    let paths = outline["paths"].as_array().unwrap();
    let with = paths
        .iter()
        .filter(|p| p.get("stats").is_some_and(|s| s.is_object()))
        .count();
    assert!(with > 0 && with <= cap, "{with}");
    // Fewer paths than the cap: nothing is cut.
    let opts = plumb_json::OutlineOptions {
        paths: 10,
        stats: true,
    };
    let few = "{\"a\":1,\"b\":\"x\"}\n";
    let s = TextStream::new(few.as_bytes());
    let v = serde_json::to_value(
        plumb_jsonl::inspect_outlined(s, &ScanBounds::default(), opts).unwrap(),
    )
    .unwrap();
    assert_eq!(
        (
            v["outline"]["stats_cut"].clone(),
            v["view"]["exact"].clone()
        ),
        (json!(false), json!(true))
    );
}
