//! Refusals through the real entry points.

use plumb::{Op, Options, Plumb, Request, Window};
use plumb_core::RefusalReason;
use serde_json::json;

#[test]
fn a_latin1_byte_is_invalid_utf8_at_its_offset_for_every_op() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("latin1.csv");
    std::fs::write(&p, b"name,city\nJos\xe9,Lyon\n").unwrap();
    let plumb = Plumb::new();
    for op in Op::ALL {
        let e = plumb.run(op, &p, None, &Request::default()).unwrap_err();
        assert_eq!(e.reason(), RefusalReason::InvalidUtf8, "{op:?}");
        assert_eq!(e.byte_offset(), Some(13), "{op:?}");
        let v = serde_json::to_value(&e).unwrap();
        assert_eq!(v["ok"], false);
        assert_eq!(v["reason"], "invalid-utf8");
    }
    // The seed's file: the first bad byte at offset 9.
    std::fs::write(&p, b"a,b\n1,caf\xe9\n").unwrap();
    for op in Op::ALL {
        let e = plumb.run(op, &p, None, &Request::default()).unwrap_err();
        assert_eq!(
            (e.reason(), e.byte_offset()),
            (RefusalReason::InvalidUtf8, Some(9))
        );
    }
}

#[test]
fn nul_missing_directory_prose_and_unknown_format() {
    let dir = tempfile::tempdir().unwrap();
    let plumb = Plumb::new();
    let o = Request::default();

    let bin = dir.path().join("bin.csv");
    std::fs::write(&bin, b"a,b\n\x00\x01\x02").unwrap();
    let e = plumb.inspect(&bin, None, &o).unwrap_err();
    assert_eq!(
        (e.reason(), e.byte_offset()),
        (RefusalReason::Binary, Some(4))
    );

    let e = plumb
        .inspect(&dir.path().join("missing.csv"), None, &o)
        .unwrap_err();
    assert_eq!(e.reason(), RefusalReason::NotFound);

    let d = dir.path().join("x.csv");
    std::fs::create_dir(&d).unwrap();
    let e = plumb.validate(&d, None, &o).unwrap_err();
    assert_eq!(e.reason(), RefusalReason::NotAFile);

    let notes = dir.path().join("notes.txt");
    std::fs::write(&notes, "Meeting notes\nWe talked about the plan\n").unwrap();
    let e = plumb.inspect(&notes, None, &o).unwrap_err();
    assert_eq!(e.reason(), RefusalReason::UnsupportedFormat);
    assert_eq!(
        e.extra("supported"),
        Some(&json!(["csv", "tsv", "json", "jsonl"]))
    );
    assert!(e.message().contains("run_script"), "{}", e.message());

    let csv = dir.path().join("ok.csv");
    std::fs::write(&csv, "a\n1\n").unwrap();
    let e = plumb.inspect(&csv, Some("parquet"), &o).unwrap_err();
    assert_eq!(e.reason(), RefusalReason::UnsupportedFormat);
    assert!(e.message().contains("`parquet`"), "{}", e.message());
}

#[test]
fn options_that_do_not_apply_are_refused_with_advice() {
    let dir = tempfile::tempdir().unwrap();
    let plumb = Plumb::new();
    let json = dir.path().join("d.json");
    std::fs::write(&json, r#"{"items": [1, 2]}"#).unwrap();
    let o = Request {
        options: Options::new().with("columns", vec!["a"]),
        ..Request::default()
    };
    let e = plumb.select(&json, None, &o).unwrap_err();
    assert_eq!(e.reason(), RefusalReason::InvalidArgument);
    assert!(e.message().contains("pointer"), "{}", e.message());

    let jsonl = dir.path().join("d.jsonl");
    std::fs::write(&jsonl, "{}\n").unwrap();
    let o = Request {
        options: Options::new().with("pointer", "/a"),
        ..Request::default()
    };
    let e = plumb.select(&jsonl, None, &o).unwrap_err();
    assert_eq!(e.reason(), RefusalReason::InvalidArgument);
    assert!(
        e.message().contains("it is an option of json")
            && e.message().contains("jsonl select takes: offset, limit"),
        "{}",
        e.message()
    );
}

#[test]
fn answers_carry_views_verdicts_and_windows() {
    let dir = tempfile::tempdir().unwrap();
    let plumb = Plumb::new();
    let csv = dir.path().join("p.csv");
    std::fs::write(&csv, "id,name\n1,a\n2,b\n3,c\n").unwrap();
    let sel = plumb
        .select(
            &csv,
            None,
            &Request {
                window: Window {
                    offset: Some(1),
                    limit: Some(1),
                },
                ..Default::default()
            },
        )
        .unwrap();
    let w = sel.window().unwrap();
    assert_eq!((w.returned, w.offset, w.limit, w.has_more), (1, 1, 1, true));
    let val = plumb.validate(&csv, None, &Request::default()).unwrap();
    assert_eq!(val.verdict(), Some(Some(true)));
    let typed = val
        .as_any()
        .downcast_ref::<plumb_csv::CsvValidate>()
        .unwrap();
    assert_eq!(typed.rows_scanned, 3);
}

/// A reader that opts into inspect alone: the other ops are refused by
/// the trait's defaults, naming the format, with nothing written for them.
#[derive(Debug)]
struct InspectOnly;

#[derive(Debug, serde::Serialize)]
struct Bytes {
    format: &'static str,
    view: plumb::ViewFlags,
    len: Option<u64>,
}
plumb_core::impl_answer!(Bytes);

impl plumb::FormatReader for InspectOnly {
    fn name(&self) -> &'static str {
        "blob"
    }
    fn extensions(&self) -> &'static [&'static str] {
        &["blob"]
    }
    fn sniff(&self, _head: &[u8]) -> Option<plumb::SniffScore> {
        None
    }
    fn inspect(
        &self,
        source: &dyn plumb::Source,
        _req: &Request,
    ) -> Result<Box<dyn plumb::Answer>, plumb::Refusal> {
        Ok(Box::new(Bytes {
            format: "blob",
            view: plumb::ViewFlags::exact(),
            len: source.len(),
        }))
    }
}

#[test]
fn an_op_a_reader_does_not_override_is_refused_for_it() {
    let mut plumb = Plumb::new();
    plumb.registry_mut().register(InspectOnly);
    let source = plumb::BytesSource::new("x.blob", "12345");
    let a = plumb
        .run_source(Op::Inspect, &source, None, &Request::default())
        .unwrap();
    assert_eq!((a.format(), a.to_json()["len"].clone()), ("blob", json!(5)));
    for op in [Op::Select, Op::Validate] {
        let e = plumb
            .run_source(op, &source, None, &Request::default())
            .unwrap_err();
        assert_eq!(e.reason(), RefusalReason::InvalidArgument);
        assert!(
            e.message()
                .starts_with(&format!("blob does not support {}", op.as_str())),
            "{}",
            e.message()
        );
    }
}

#[test]
fn a_zero_limit_is_refused_by_select_and_read_in_the_same_words() {
    let plumb = Plumb::new();
    let zero = Request {
        window: Window {
            offset: None,
            limit: Some(0),
        },
        ..Request::default()
    };
    let read_refusal = plumb::read::read_source(
        &plumb::BytesSource::new("a.txt", "a\n"),
        &plumb::read::ReadRequest {
            limit: Some(0),
            ..Default::default()
        },
    )
    .unwrap_err();
    for (name, text) in [("a.csv", "a\n1\n"), ("a.json", "[1]"), ("a.jsonl", "{}\n")] {
        let e = plumb
            .run_source(
                Op::Select,
                &plumb::BytesSource::new(name, text),
                None,
                &zero,
            )
            .unwrap_err();
        assert_eq!(e.reason(), RefusalReason::InvalidArgument, "{name}");
        assert!(
            e.message()
                .starts_with("`limit` is zero, which asks for nothing at all"),
            "{name}: {}",
            e.message()
        );
        // The same sentence, with each op's own range.
        assert_eq!(
            e.message().replace("1000", "N"),
            read_refusal.message().replace("512", "N"),
            "{name}"
        );
    }
}
