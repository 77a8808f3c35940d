//! The outline: known shapes against their expected paths, the same
//! outline however the input is cut, type counts against a serde_json
//! walk of random documents, keys-as-data collapsed, and the node cap
//! counted and stated.

use std::collections::BTreeMap;

use plumb_json::{JsonParser, Outline, OUTLINE_COLLAPSE_KEYS, OUTLINE_MAX_NODES};
use proptest::prelude::*;
use serde_json::{json, Value};

/// The outline of `text` fed in pieces of `piece` bytes.
fn outline_of(text: &[u8], piece: usize) -> Value {
    let mut outline = Outline::new();
    let mut parser = JsonParser::new();
    for chunk in text.chunks(piece.max(1)) {
        parser.push(chunk, &mut outline).unwrap();
    }
    parser.finish(&mut outline).unwrap();
    outline.to_json(OUTLINE_MAX_NODES)
}

/// The outline with statistics (`inspect_outlined`) of `doc`, read in
/// pieces of `cap` bytes.
fn stats_outline(doc: &str, cap: usize) -> Value {
    let s = plumb_core::TextStream::from_buf_read(std::io::BufReader::with_capacity(
        cap,
        doc.as_bytes(),
    ));
    let r = plumb_json::inspect_outlined(
        s,
        &plumb_core::ScanBounds::default(),
        plumb_json::OutlineOptions {
            paths: 100,
            stats: true,
        },
    )
    .unwrap();
    serde_json::to_value(r).unwrap()["outline"].clone()
}

fn path<'a>(outline: &'a Value, p: &str) -> &'a Value {
    outline["paths"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["path"] == p)
        .unwrap_or_else(|| panic!("no path {p} in {outline:#}"))
}

const DOC: &str = r#"{
  "items": [
    {"id": 1, "name": "ann", "tags": ["a", "b"], "score": 2.5},
    {"id": 2, "name": "bob", "tags": [], "score": null},
    {"id": 90071992547409930, "tags": ["c"], "nested": {"deep": [[1], [2, 3]]}}
  ],
  "empty_object": {},
  "empty_array": [],
  "mixed": [1, "two", true, null, {"k": 1}, [0]]
}"#;

#[test]
fn a_known_document_has_its_expected_paths() {
    let o = outline_of(DOC.as_bytes(), 1 << 20);
    let listed: Vec<&str> = o["paths"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["path"].as_str().unwrap())
        .collect();
    assert_eq!(
        listed,
        [
            "",
            "/items",
            "/items/*",
            "/items/*/id",
            "/items/*/name",
            "/items/*/tags",
            "/items/*/tags/*",
            "/items/*/score",
            "/items/*/nested",
            "/items/*/nested/deep",
            "/items/*/nested/deep/*",
            "/items/*/nested/deep/*/*",
            "/empty_object",
            "/empty_array",
            "/mixed",
            "/mixed/*",
            "/mixed/*/k",
            "/mixed/*/*",
        ]
    );
    assert_eq!(o["paths_total"], 18);
    assert_eq!(o["values_cut"], 0);
    assert_eq!(path(&o, "/items")["length"], json!({"min": 3, "max": 3}));
    assert_eq!(path(&o, "/items/*")["types"], json!({"object": 3}));
    let id = path(&o, "/items/*/id");
    assert_eq!(id["present"], json!({"in": 3, "of": 3}));
    assert_eq!(id["min"], 1);
    assert_eq!(
        id["max"],
        json!({"$literal": "90071992547409930", "precision": "unsafe-integer"})
    );
    assert_eq!(
        path(&o, "/items/*/name")["present"],
        json!({"in": 2, "of": 3})
    );
    assert_eq!(path(&o, "/items/*/name")["samples"], json!(["ann", "bob"]));
    assert_eq!(
        path(&o, "/items/*/tags")["length"],
        json!({"min": 0, "max": 2})
    );
    assert_eq!(path(&o, "/items/*/tags/*")["types"], json!({"string": 3}));
    assert_eq!(
        path(&o, "/items/*/score")["types"],
        json!({"number": 1, "null": 1})
    );
    assert_eq!(
        path(&o, "/items/*/nested/deep/*")["length"],
        json!({"min": 1, "max": 2})
    );
    assert_eq!(path(&o, "/items/*/nested/deep/*/*")["max"], 3);
    assert_eq!(path(&o, "/empty_object")["types"], json!({"object": 1}));
    assert_eq!(
        path(&o, "/empty_array")["length"],
        json!({"min": 0, "max": 0})
    );
    assert_eq!(
        path(&o, "/mixed/*")["types"],
        json!({"object": 1, "array": 1, "string": 1, "number": 1, "boolean": 1, "null": 1})
    );
}

#[test]
fn the_outline_is_the_same_however_the_input_is_cut() {
    let whole = outline_of(DOC.as_bytes(), 1 << 20);
    for piece in 1..=DOC.len().min(64) {
        assert_eq!(
            outline_of(DOC.as_bytes(), piece),
            whole,
            "pieces of {piece}"
        );
    }
}

#[test]
fn keys_that_are_data_collapse_into_one_path_with_every_value() {
    let n = 3 * OUTLINE_COLLAPSE_KEYS;
    let members: Vec<String> = (0..n)
        .map(|k| format!(r#""id{k}": {{"v": {k}, "opt{}": true}}"#, k % 2))
        .collect();
    let doc = format!(r#"{{"by_id": {{{}}}}}"#, members.join(","));
    let o = outline_of(doc.as_bytes(), 1 << 20);
    let by_id = path(&o, "/by_id");
    assert_eq!(by_id["collapsed"], true);
    assert_eq!(by_id["key_occurrences"], n);
    assert_eq!(by_id["key_samples"][0], "id0");
    // Values before and after the collapse all land in the one path.
    assert_eq!(path(&o, "/by_id/*")["types"], json!({"object": n}));
    let v = path(&o, "/by_id/*/v");
    assert_eq!(v["present"], json!({"in": n, "of": n}));
    assert_eq!(
        (v["min"].clone(), v["max"].clone()),
        (json!(0), json!(n - 1))
    );
    assert_eq!(
        path(&o, "/by_id/*/opt0")["present"],
        json!({"in": n / 2, "of": n})
    );
    assert_eq!(o["paths_total"], 6);
}

#[test]
fn past_the_node_cap_paths_and_values_are_counted_not_kept() {
    // 60 objects of 60 distinct keys each: 3,661 paths, over the cap,
    // none of them collapsing.
    let keys = OUTLINE_COLLAPSE_KEYS - 4;
    let inner: Vec<String> = (0..keys).map(|k| format!(r#""k{k}": 1"#)).collect();
    let inner = format!("{{{}}}", inner.join(","));
    let outer: Vec<String> = (0..keys).map(|k| format!(r#""o{k}": {inner}"#)).collect();
    let doc = format!("{{{}}}", outer.join(","));
    assert!(1 + keys + keys * keys > OUTLINE_MAX_NODES);
    let mut outline = Outline::new();
    let mut parser = JsonParser::new();
    parser.push(doc.as_bytes(), &mut outline).unwrap();
    parser.finish(&mut outline).unwrap();
    assert!(outline.is_cut());
    let o = outline.to_json(10);
    assert_eq!(o["paths_listed"], 10);
    assert_eq!(o["paths_total"], OUTLINE_MAX_NODES);
    // Every kept path holds one value here, so the values not kept are
    // the rest, exactly.
    let values_cut = o["values_cut"].as_u64().unwrap() as usize;
    assert_eq!(values_cut, 1 + keys + keys * keys - OUTLINE_MAX_NODES);
}

/// Type counts per merged path, by a recursive walk of a serde_json
/// value (small documents only): the oracle.
fn expected_types(v: &Value, path: String, out: &mut BTreeMap<String, BTreeMap<String, u64>>) {
    let t = match v {
        Value::Object(_) => "object",
        Value::Array(_) => "array",
        Value::String(_) => "string",
        Value::Number(_) => "number",
        Value::Bool(_) => "boolean",
        Value::Null => "null",
    };
    *out.entry(path.clone())
        .or_default()
        .entry(t.into())
        .or_default() += 1;
    match v {
        Value::Object(m) => {
            for (k, child) in m {
                let k = k.replace('~', "~0").replace('/', "~1");
                expected_types(child, format!("{path}/{k}"), out);
            }
        }
        Value::Array(items) => {
            for child in items {
                expected_types(child, format!("{path}/*"), out);
            }
        }
        _ => {}
    }
}

fn documents() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        "[a-c/~]{0,3}".prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 48, 5, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            proptest::collection::btree_map("[a-d/~]{1,2}", inner, 0..5)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

proptest! {
    #[test]
    fn type_counts_match_a_walk_of_the_document(doc in documents(), piece in 1usize..17) {
        let text = serde_json::to_vec(&doc).unwrap();
        let o = outline_of(&text, piece);
        let mut want = BTreeMap::new();
        expected_types(&doc, String::new(), &mut want);
        let mut got = BTreeMap::new();
        for e in o["paths"].as_array().unwrap() {
            let types: BTreeMap<String, u64> = e["types"]
                .as_object()
                .unwrap()
                .iter()
                .map(|(k, v)| (k.clone(), v.as_u64().unwrap()))
                .collect();
            got.insert(e["path"].as_str().unwrap().to_owned(), types);
        }
        prop_assert_eq!(got, want);
    }
}

/// Statistics per path of an array of objects (and of a JSON Lines file
/// through the same outline): the same whatever the chunking, and equal
/// to the values computed here.
#[test]
fn outline_stats_per_key_of_an_array_of_objects() {
    let mut doc = String::from("[");
    let mut ages = Vec::new();
    for i in 0..700u64 {
        let age = 18 + i * 13 % 60;
        ages.push(age);
        let name = ["ann", "bob", "cy"][(i % 3) as usize];
        let sep = if i == 0 { "" } else { "," };
        let email = if i % 10 == 0 {
            "null".to_owned()
        } else {
            format!("\"u{i}@x.org\"")
        };
        doc.push_str(&format!(
            r#"{sep}{{"name":"{name}","age":{age},"email":{email},"tags":["t{}"]}}"#,
            i % 4
        ));
    }
    doc.push(']');
    let run = |cap: usize| stats_outline(&doc, cap);
    let whole = run(1 << 16);
    for cap in [1, 3, 7, 100] {
        assert_eq!(run(cap), whole, "capacity {cap}");
    }
    let path = |p: &str| {
        whole["paths"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["path"] == p)
            .unwrap_or_else(|| panic!("{p}"))["stats"]
            .clone()
    };
    let age = path("/*/age");
    let mean = ages.iter().sum::<u64>() as f64 / ages.len() as f64;
    assert_eq!(age["numbers"]["mean"].as_f64().unwrap(), mean);
    assert_eq!(age["numbers"]["sum"], ages.iter().sum::<u64>());
    let distinct: std::collections::HashSet<_> = ages.iter().collect();
    assert_eq!(age["distinct"], distinct.len());
    assert_eq!(age["accuracy"]["distinct"], "exact");
    let name = path("/*/name");
    assert_eq!(
        name["top"][0],
        serde_json::json!({"value": "ann", "count": 234, "at_least": 234, "kind": "string"})
    );
    let email = path("/*/email");
    assert_eq!(email["nulls"], 70);
    assert_eq!(email["count"], 700);
    assert_eq!(email["text"]["count"], 630);
    let tags = path("/*/tags/*");
    assert_eq!(tags["distinct"], 4);
}

/// Strings past the capture cap are known by their start alone: two that
/// differ only past it count as one, so the distinct count and the top
/// values are labelled estimates by prefix, and a top value's `bytes`
/// is its whole length; strings that differ in length stay apart.
#[test]
fn stats_of_strings_past_the_capture_cap_are_labelled_by_prefix() {
    let cap = plumb_json::STRING_CAPTURE_BYTES;
    let long = |tail: &str| format!("{}{tail}", "A".repeat(cap + 100));
    let doc = serde_json::to_string(&json!([
        {"s": long("1")}, {"s": long("2")}, {"s": long("1")}, {"s": long("12")}
    ]))
    .unwrap();
    let whole = stats_outline(&doc, 1 << 20);
    assert_eq!(stats_outline(&doc, 4096), whole);
    let stats = path(&whole, "/*/s")["stats"].clone();
    // `…1` and `…2` share start and length: one value by the start.
    assert_eq!(stats["distinct"], 2, "{stats}");
    // The length counts the bytes past the start as characters.
    for figure in ["distinct", "top", "text_length"] {
        let label = &stats["accuracy"][figure];
        assert_eq!(label["estimate"], "prefix", "{stats}");
        assert_eq!(label["compared_bytes"].as_f64(), Some(cap as f64));
    }
    let top = stats["top"].as_array().unwrap();
    assert_eq!(top[0]["count"], 3);
    assert_eq!(top[0]["bytes"].as_u64(), Some(cap as u64 + 101));
    assert_eq!(top[1]["bytes"].as_u64(), Some(cap as u64 + 102));
    // Short strings keep their exact labels.
    let short = stats_outline(r#"[{"s":"a"},{"s":"b"}]"#, 1 << 16);
    assert_eq!(
        path(&short, "/*/s")["stats"]["accuracy"]["distinct"],
        "exact"
    );
}
