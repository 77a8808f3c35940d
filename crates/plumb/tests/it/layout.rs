//! Every built-in answer declares the layout its JSON follows, so a
//! front end chooses its view from the type; a container passes the
//! layout of the answer it wraps.

use plumb::{Layout, Op, Plumb, Request, Window};
use serde_json::json;

fn request(op: Op) -> Request {
    let mut req = Request::default();
    if op == Op::Search {
        req.options.set("pattern", json!("a"));
    }
    if op == Op::Select {
        req.window = Window {
            offset: Some(0),
            limit: Some(2),
            from_end: None,
        };
    }
    req
}

#[test]
fn each_format_and_op_declares_its_layout() {
    let dir = tempfile::tempdir().unwrap();
    let files = [
        ("t.csv", "id,name\n1,a\n2,b\n"),
        ("t.tsv", "id\tname\n1\ta\n2\tb\n"),
        ("t.json", "[{\"name\": \"a\"}, {\"name\": \"b\"}]"),
        ("t.jsonl", "{\"name\": \"a\"}\n{\"name\": \"b\"}\n"),
    ];
    let expected = |name: &str, op: Op| match (name, op) {
        ("t.csv" | "t.tsv", Op::Inspect) => Layout::TableColumns,
        ("t.csv" | "t.tsv", Op::Select) => Layout::Rows,
        ("t.csv" | "t.tsv", Op::Search) => Layout::RowHits,
        ("t.json" | "t.jsonl", Op::Inspect) => Layout::Outline,
        ("t.json", Op::Select) => Layout::Value,
        ("t.jsonl", Op::Select) => Layout::Records,
        (_, Op::Search) => Layout::ValueHits,
        (_, Op::Validate) => Layout::Verdict,
        other => panic!("no layout expected for {other:?}"),
    };
    let plumb = Plumb::new();
    for (name, text) in files {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        for op in [Op::Inspect, Op::Select, Op::Validate, Op::Search] {
            let answer = plumb.run(op, &path, None, &request(op)).unwrap();
            assert_eq!(answer.layout(), expected(name, op), "{name} {op:?}");
        }
    }
    let text = dir.path().join("notes.txt");
    std::fs::write(&text, "a line\nanother\n").unwrap();
    let hits = plumb
        .run(Op::Search, &text, None, &request(Op::Search))
        .unwrap();
    assert_eq!(hits.layout(), Layout::LineHits);
}

#[cfg(feature = "compression")]
#[test]
fn a_container_passes_on_the_layout_of_what_it_holds() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.csv.gz");
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(b"id,name\n1,a\n").unwrap();
    std::fs::write(&path, gz.finish().unwrap()).unwrap();
    let plumb = Plumb::new();
    let inspect = plumb
        .run(Op::Inspect, &path, None, &request(Op::Inspect))
        .unwrap();
    assert!(inspect.to_json()["container"].is_string());
    assert_eq!(inspect.layout(), Layout::TableColumns);
    let select = plumb
        .run(Op::Select, &path, None, &request(Op::Select))
        .unwrap();
    assert_eq!(select.layout(), Layout::Rows);
}
