//! inspect, select and validate through a real text stream.

use std::io::Read;

use plumb_core::{RefusalReason, TextStream};
use plumb_json::{inspect, select, validate, JsonOptions, JsonSelectOptions, SELECT_BUDGET_BYTES};
use serde_json::{json, Value};

fn stream(text: &str) -> TextStream<std::io::BufReader<&[u8]>> {
    TextStream::new(text.as_bytes())
}

fn to_json<T: serde::Serialize>(v: &T) -> Value {
    serde_json::to_value(v).unwrap()
}

#[test]
fn inspect_reports_precision_as_literal_placeholders() {
    let doc =
        r#"[{"id": 9007199254740993, "ok": 9007199254740991}, {"big": 1e400, "tiny": 1e-400}]"#;
    let r = inspect(stream(doc), &JsonOptions::default()).unwrap();
    let v = to_json(&r);
    assert_eq!(v["root_type"], "array");
    assert_eq!(v["count"], 2);
    assert_eq!(v["keys"], json!(["id", "ok", "big", "tiny"]));
    assert_eq!(
        v["sample"][0],
        json!({"id": {"$literal": "9007199254740993", "precision": "unsafe-integer"}, "ok": 9007199254740991_u64})
    );
    assert_eq!(
        v["sample"][1]["big"],
        json!({"$literal": "1e400", "precision": "overflow"})
    );
    assert_eq!(
        v["sample"][1]["tiny"],
        json!({"$literal": "1e-400", "precision": "underflow"})
    );
    assert_eq!(v["precision"]["count"], 3);
    assert_eq!(
        v["precision"]["first"][0],
        json!({"pointer": "/0/id", "literal": "9007199254740993", "kind": "unsafe-integer"})
    );
    assert_eq!(
        v["precision"]["by_kind"],
        json!({"unsafe-integer": 1, "overflow": 1, "underflow": 1})
    );
    assert_eq!(v["view"]["exact"], true);
    assert_eq!(v["max_depth"], 2);
    assert_eq!(v["types"], json!({"object": 2}));
}

#[test]
fn inspect_an_object_root_and_duplicate_keys() {
    let doc = r#"{"a": 1, "b": [1, 2], "a": "again", "c": {"x": 1, "x": 2}}"#;
    let r = inspect(stream(doc), &JsonOptions::default()).unwrap();
    let v = to_json(&r);
    assert_eq!(v["root_type"], "object");
    assert_eq!(v["keys"], json!(["a", "b", "c"]));
    assert_eq!(v["count"], 4);
    assert_eq!(
        v["types"],
        json!({"number": 1, "array": 1, "string": 1, "object": 1})
    );
    assert_eq!(v["duplicate_keys"]["count"], 2);
    assert_eq!(
        v["duplicate_keys"]["first"],
        json!([{"pointer": "", "key": "a"}, {"pointer": "/c", "key": "x"}])
    );
    assert_eq!(v["duplicate_keys"]["checked_fully"], true);
    // The sample keeps duplicates as the source has them.
    assert_eq!(
        r.sample.get(),
        r#"{"a":1,"b":[1,2],"a":"again","c":{"x":1,"x":2}}"#
    );
}

#[test]
fn a_large_sample_element_becomes_a_summary_with_its_true_count() {
    let big: Vec<u32> = (0..5000).collect();
    let doc = serde_json::to_string(&json!([big, 1])).unwrap();
    let r = inspect(stream(&doc), &JsonOptions::default()).unwrap();
    let v = to_json(&r);
    assert_eq!(
        v["sample"][0],
        json!({"$summary": {"type": "array", "members": 5000}})
    );
    assert_eq!(v["sample"][1], 1);
    assert_eq!(
        v["view"]["exact"], true,
        "samples are previews: the counts stay exact"
    );
}

#[test]
fn select_resolves_an_escaped_pointer() {
    let doc = r#"{"meta": {"a/b": {"~x": [true, {"k": "v"}]}}}"#;
    let sel = JsonSelectOptions {
        pointer: "/meta/a~1b/~0x".into(),
        ..Default::default()
    };
    let r = select(stream(doc), &JsonOptions::default(), &sel).unwrap();
    assert_eq!(r.value.unwrap().get(), r#"[true,{"k":"v"}]"#);
    let sel = JsonSelectOptions {
        pointer: "/meta/a~1b/~0x/1/k".into(),
        ..Default::default()
    };
    let r = select(stream(doc), &JsonOptions::default(), &sel).unwrap();
    assert_eq!(r.value.unwrap().get(), r#""v""#);
    let whole = select(
        stream(doc),
        &JsonOptions::default(),
        &JsonSelectOptions::default(),
    )
    .unwrap();
    assert_eq!(
        to_json(&whole)["value"],
        serde_json::from_str::<Value>(doc).unwrap()
    );
}

/// A reader that counts what it handed out.
struct Counting<'a> {
    data: &'a [u8],
    handed: std::rc::Rc<std::cell::Cell<usize>>,
}

impl Read for Counting<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let max = buf.len().min(4096);
        let n = self.data.read(&mut buf[..max])?;
        self.handed.set(self.handed.get() + n);
        Ok(n)
    }
}

#[test]
fn a_windowed_select_has_more_and_stops_reading_early() {
    let items: Vec<Value> = (0..100_000)
        .map(|i| json!({"id": i, "name": format!("n{i}")}))
        .collect();
    let doc = serde_json::to_string(&json!({"items": items, "tail": 1})).unwrap();
    let handed = std::rc::Rc::new(std::cell::Cell::new(0));
    let source = Counting {
        data: doc.as_bytes(),
        handed: handed.clone(),
    };
    let sel = JsonSelectOptions {
        pointer: "/items".into(),
        offset: Some(2),
        limit: Some(3),
    };
    let r = select(TextStream::new(source), &JsonOptions::default(), &sel).unwrap();
    let v = to_json(&r);
    assert_eq!(
        v["items"],
        json!([{"id": 2, "name": "n2"}, {"id": 3, "name": "n3"}, {"id": 4, "name": "n4"}])
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
    assert!(
        handed.get() < 200_000,
        "read {} of {} bytes",
        handed.get(),
        doc.len()
    );
    // The end of the array: no more.
    let sel = JsonSelectOptions {
        pointer: "/items".into(),
        offset: Some(99_998),
        limit: Some(10),
    };
    let r = select(stream(&doc), &JsonOptions::default(), &sel).unwrap();
    assert_eq!(r.returned, Some(2));
    assert_eq!(r.has_more, Some(false));
}

#[test]
fn a_missing_pointer_names_the_deepest_existing_prefix() {
    let doc = r#"{"items": [{"id": 1}, {"id": 2}, {"id": 3}]}"#;
    let sel = JsonSelectOptions {
        pointer: "/items/9/id".into(),
        ..Default::default()
    };
    let e = select(stream(doc), &JsonOptions::default(), &sel).unwrap_err();
    assert_eq!(e.reason(), RefusalReason::PointerNotFound);
    assert_eq!(e.extra("deepest"), Some(&json!("/items")));
    assert!(e.message().contains("`/items`"), "{}", e.message());
    for (pointer, deepest) in [
        ("/nope", ""),
        ("/items/0/id/deeper", "/items/0/id"),
        ("/items/x", "/items"),
    ] {
        let sel = JsonSelectOptions {
            pointer: pointer.into(),
            ..Default::default()
        };
        let e = select(stream(doc), &JsonOptions::default(), &sel).unwrap_err();
        assert_eq!(e.extra("deepest"), Some(&json!(deepest)), "{pointer}");
    }
}

#[test]
fn an_oversized_selection_is_refused_suggesting_a_window() {
    let big: Vec<String> = (0..(SELECT_BUDGET_BYTES / 10))
        .map(|i| format!("value{i:05}"))
        .collect();
    let doc = serde_json::to_string(&json!({"big": big})).unwrap();
    let sel = JsonSelectOptions {
        pointer: "/big".into(),
        ..Default::default()
    };
    let e = select(stream(&doc), &JsonOptions::default(), &sel).unwrap_err();
    assert_eq!(e.reason(), RefusalReason::SelectionTooLarge);
    assert!(e.message().contains("offset and limit"), "{}", e.message());
}

#[test]
fn a_window_on_a_non_array_is_an_invalid_argument() {
    let sel = JsonSelectOptions {
        pointer: "/a".into(),
        offset: Some(0),
        limit: None,
    };
    let e = select(stream(r#"{"a": {"b": 1}}"#), &JsonOptions::default(), &sel).unwrap_err();
    assert_eq!(e.reason(), RefusalReason::InvalidArgument);
    let bad = JsonSelectOptions {
        pointer: "a".into(),
        ..Default::default()
    };
    assert_eq!(
        select(stream("{}"), &JsonOptions::default(), &bad)
            .unwrap_err()
            .reason(),
        RefusalReason::InvalidArgument
    );
}

#[test]
fn validate_true_with_duplicates_null_when_stopped_false_with_location() {
    let dup = validate(stream(r#"{"a": 1, "a": 2}"#), &JsonOptions::default()).unwrap();
    assert_eq!(dup.valid, Some(true));
    assert_eq!(dup.duplicate_keys.count, 1);
    let capped = JsonOptions {
        max_rows: Some(2),
        ..Default::default()
    };
    let stopped = validate(stream("[1, 2, 3, oops"), &capped).unwrap();
    assert_eq!(stopped.valid, None);
    assert_eq!(stopped.view.label(), "sampled");
    let bad = validate(stream("[1, 2,\n 3,]"), &JsonOptions::default()).unwrap();
    assert_eq!(bad.valid, Some(false));
    let e = bad.syntax_error.unwrap();
    assert_eq!((e.line, e.column, e.byte_offset), (2, 4, 10));
    let e = validate(TextStream::new(&b"[\"\xff\"]"[..]), &JsonOptions::default()).unwrap_err();
    assert_eq!(e.reason(), RefusalReason::InvalidUtf8);
}

#[test]
fn every_chunking_of_a_stream_gives_the_same_answers() {
    let doc = "\u{feff}{\"a\": [1, 2.50, \"é😀\"], \"b\": {\"c\": 9007199254740993}, \"a\": null}";
    let whole = to_json(&inspect(stream(doc), &JsonOptions::default()).unwrap());
    assert_eq!(whole["bom"], true);
    for cap in 1..9 {
        let s = TextStream::from_buf_read(std::io::BufReader::with_capacity(cap, doc.as_bytes()));
        assert_eq!(
            to_json(&inspect(s, &JsonOptions::default()).unwrap()),
            whole,
            "capacity {cap}"
        );
    }
}

#[test]
fn a_deeply_nested_selection_stays_readable() {
    let doc = format!("{{\"deep\": {}1{}}}", "[".repeat(300), "]".repeat(300));
    let sel = JsonSelectOptions {
        pointer: "/deep".into(),
        ..Default::default()
    };
    let r = select(stream(&doc), &JsonOptions::default(), &sel).unwrap();
    assert_eq!(r.view.label(), "cut");
    let v: Value = serde_json::from_str(r.value.as_ref().unwrap().get()).unwrap();
    let mut at = &v;
    for _ in 0..plumb_json::BUILD_DEPTH_CAP {
        at = &at[0];
    }
    assert_eq!(at["$summary"]["deeper_than"], plumb_json::BUILD_DEPTH_CAP);
    let answer: &dyn plumb_core::Answer = &r;
    assert_eq!(
        answer.to_json()["ok"],
        true,
        "to_json keeps working past serde_json's depth limit"
    );
}
