//! Refusals through the real entry points.

use plumb::{Op, Options, Plumb, Request, Window};
use plumb_core::RefusalReason;
use serde_json::json;

/// A request every op takes: a search needs a pattern (one that matches
/// nothing, so the scan reads on to the fault).
fn for_op(op: Op) -> Request {
    let mut req = Request::default();
    if op == Op::Search {
        req.set("pattern", json!("no such text")).unwrap();
    }
    req
}

#[test]
fn a_latin1_byte_is_invalid_utf8_at_its_offset_for_every_op() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("latin1.csv");
    std::fs::write(&p, b"name,city\nJos\xe9,Lyon\n").unwrap();
    let plumb = Plumb::new();
    for op in Op::ALL {
        let e = plumb.run(op, &p, None, &for_op(op)).unwrap_err();
        assert_eq!(e.reason(), RefusalReason::InvalidUtf8, "{op:?}");
        assert_eq!(e.byte_offset(), Some(13), "{op:?}");
        let v = serde_json::to_value(&e).unwrap();
        assert_eq!(v["ok"], false);
        assert_eq!(v["reason"], "invalid-utf8");
    }
    // The seed's file: the first bad byte at offset 9.
    std::fs::write(&p, b"a,b\n1,caf\xe9\n").unwrap();
    for op in Op::ALL {
        let e = plumb.run(op, &p, None, &for_op(op)).unwrap_err();
        assert_eq!(
            (e.reason(), e.byte_offset()),
            (RefusalReason::InvalidUtf8, Some(9))
        );
    }
}

#[test]
fn invalid_utf8_names_its_line_and_column_for_every_op_and_read() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("latin1.csv");
    // Six good lines (one with a two-byte character, which counts as one
    // column), then `caf\xe9` on line 7: the bad byte is column 4 there.
    let mut bytes = b"\xEF\xBB\xBFid,name\n".to_vec();
    for k in 1..=5 {
        bytes.extend_from_slice(format!("{k},R\u{e9}my\n").as_bytes());
    }
    let offset = bytes.len() as u64 + 3;
    bytes.extend_from_slice(b"caf\xe9,x\n");
    std::fs::write(&p, &bytes).unwrap();
    let plumb = Plumb::new();
    for op in Op::ALL {
        let e = plumb.run(op, &p, None, &for_op(op)).unwrap_err();
        assert_eq!(e.reason(), RefusalReason::InvalidUtf8, "{op:?}");
        assert_eq!(
            (e.byte_offset(), e.line(), e.column()),
            (Some(offset), Some(7), Some(4)),
            "{op:?}"
        );
        assert!(e.message().contains("line 7, column 4"), "{}", e.message());
        let v = serde_json::to_value(&e).unwrap();
        assert_eq!(
            (v["line"].clone(), v["column"].clone()),
            (json!(7), json!(4))
        );
    }
    let read = plumb::read::ReadRequest {
        limit: Some(100),
        ..plumb::read::ReadRequest::default()
    };
    let e = plumb::read::read(&p, &read).unwrap_err();
    assert_eq!(
        (e.reason(), e.line(), e.column()),
        (RefusalReason::InvalidUtf8, Some(7), Some(4))
    );
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
    // The library and the CLI suggest only what plumb has.
    assert!(
        e.message().contains("plain text with `read`") && !e.message().contains("run_script"),
        "{}",
        e.message()
    );

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
                    from_end: None,
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
            from_end: None,
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

#[test]
fn compressed_binary_archive_and_utf16_files_are_named_or_read_whatever_they_are_called() {
    let plumb = Plumb::new();
    let cases: [(&[u8], &str); 18] = [
        (b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03", "gzip"),
        (b"\x28\xb5\x2f\xfd\x20\x05", "zstd"),
        (b"\xfd7zXZ\x00\x00\x04", "xz"),
        (b"BZh91AY&SY", "bzip2"),
        (b"PK\x03\x04\x14\x00\x00\x00data.csv", "zip"),
        (
            b"PK\x03\x04\x14\x00[Content_Types].xml..xl/workbook.xml",
            "xlsx",
        ),
        (
            b"PK\x03\x04\x14\x00mimetypeapplication/vnd.oasis.opendocument.spreadsheet",
            "ods",
        ),
        (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1\x00\x00", "ole2"),
        (b"PAR1\x15\x04\x15\x00\x00", "parquet"),
        (b"ARROW1\x00\x00\xff\xff", "arrow"),
        (b"SQLite format 3\x00\x10\x00", "sqlite"),
        (b"%PDF-1.7\n%\xe2\xe3", "pdf"),
        (b"\x89PNG\r\n\x1a\n\x00\x00", "png"),
        (b"\xff\xd8\xff\xe0\x00\x10JFIF", "jpeg"),
        (b"\x7fELF\x02\x01\x01\x00", "elf"),
        (b"\xff\xfei\x00d\x00,\x00n\x00\n\x00", "utf-16le"),
        (b"\xfe\xff\x00i\x00d\x00\n", "utf-16be"),
        (b"\xff\xfe\x00\x00i\x00\x00\x00", "utf-32le"),
    ];
    for (bytes, name) in cases {
        for file in ["data.csv", "data.json", "data"] {
            let source = plumb::BytesSource::new(file, bytes.to_vec());
            if ["gzip", "zstd", "xz", "bzip2"].contains(&name) {
                // Compression is decoded, whatever the name: these cut
                // streams are refused as truncated, naming the container.
                let e = plumb
                    .run_source(Op::Inspect, &source, None, &Request::default())
                    .unwrap_err();
                assert_eq!(e.reason(), RefusalReason::ReadError, "{name} {file}");
                assert_eq!(e.extra("container"), Some(&json!(name)), "{name} {file}");
                continue;
            }
            if name == "zip" {
                // An archive is listed by inspect (this one is cut before
                // its directory) and needs a member for the other ops.
                let e = plumb
                    .run_source(Op::Inspect, &source, None, &Request::default())
                    .unwrap_err();
                assert_eq!(e.reason(), RefusalReason::ReadError, "{file}");
                assert_eq!(e.extra("container"), Some(&json!("zip")), "{file}");
                let e = plumb
                    .run_source(Op::Select, &source, None, &Request::default())
                    .unwrap_err();
                assert_eq!(e.reason(), RefusalReason::UnsupportedFormat, "{file}");
                assert_eq!(e.extra("found"), Some(&json!("zip")), "{file}");
                continue;
            }
            if name.starts_with("utf-") {
                // Text in another encoding, by its byte order mark: read.
                let d = plumb.detect_source(&source, Some("csv")).unwrap();
                assert_eq!(d.encoding, Some(name), "{file}");
                continue;
            }
            // Named before any sniff, and refused by every op, even with
            // the format given.
            for format in [None, Some("csv")] {
                let e = plumb
                    .run_source(Op::Inspect, &source, format, &Request::default())
                    .unwrap_err();
                assert_eq!(
                    e.reason(),
                    RefusalReason::UnsupportedFormat,
                    "{name} {file}"
                );
                assert_eq!(e.extra("found"), Some(&json!(name)), "{name} {file}");
            }
            let d = plumb.detect_source(&source, None).unwrap_err();
            assert_eq!(d.extra("found"), Some(&json!(name)));
        }
    }
    // UTF-16 is read as text in its encoding, never as NUL bytes.
    let a = plumb
        .run_source(
            Op::Select,
            &plumb::BytesSource::new(
                "u.tsv",
                b"\xff\xfea\x00\t\x00b\x00\n\x001\x00\t\x002\x00".to_vec(),
            ),
            None,
            &Request::default(),
        )
        .unwrap()
        .to_json();
    assert_eq!(a["encoding"], "utf-16le");
    assert_eq!(a["rows"], json!([["1", "2"]]));
    // Text that merely starts like a signature is still text.
    let text = plumb::BytesSource::new("t.csv", "PAR1,BZh\n1,2\n");
    let a = plumb
        .run_source(Op::Inspect, &text, None, &Request::default())
        .unwrap();
    assert_eq!(a.format(), "csv");
}

#[test]
fn an_option_only_some_formats_take_implies_the_first_of_them() {
    let plumb = Plumb::new();
    let source = plumb::BytesSource::new("export", "a:b\n1:2\n");
    // Nothing in the name or the first line says what this is.
    let e = plumb
        .run_source(Op::Inspect, &source, None, &Request::default())
        .unwrap_err();
    assert_eq!(e.reason(), RefusalReason::UnsupportedFormat);
    // A delimiter does: the first registered format that takes one.
    let req = Request {
        options: Options::new().with("delimiter", ":"),
        ..Request::default()
    };
    let a = plumb.run_source(Op::Inspect, &source, None, &req).unwrap();
    assert_eq!(a.format(), "csv");
    assert_eq!(a.to_json()["header"], json!(["a", "b"]));
    assert_eq!(
        plumb.registry().by_options(&["pointer"]).map(|r| r.name()),
        Some("json")
    );
    assert!(plumb
        .registry()
        .by_options(&["pointer", "delimiter"])
        .is_none());
    // Containers are decoded before any option implies a format, and a
    // cut stream is refused as one, options or not.
    let gz = plumb::BytesSource::new("export", b"\x1f\x8b\x08\x00".to_vec());
    let e = plumb.run_source(Op::Inspect, &gz, None, &req).unwrap_err();
    assert_eq!(e.extra("container"), Some(&json!("gzip")));
    assert_eq!(e.reason(), RefusalReason::ReadError);
    // Binary formats are still never read as text, options or not.
    let pdf = plumb::BytesSource::new("export", b"%PDF-1.7\n%\xe2\xe3".to_vec());
    let e = plumb.run_source(Op::Inspect, &pdf, None, &req).unwrap_err();
    assert_eq!(e.extra("found"), Some(&json!("pdf")));
}
