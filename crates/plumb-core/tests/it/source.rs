//! Sources, requests and option declarations.

use std::io::Read;

use plumb_core::{
    text_stream, BytesSource, CancelToken, FileSource, Op, OptionKind, OptionSpec, Options,
    RefusalReason, Request, Source,
};
use serde_json::json;

fn read_all_at(source: &dyn Source, step: usize) -> Vec<u8> {
    let mut out = Vec::new();
    let mut buf = vec![0u8; step];
    loop {
        let n = source.read_at(out.len() as u64, &mut buf).unwrap().unwrap();
        if n == 0 {
            return out;
        }
        out.extend_from_slice(&buf[..n]);
    }
}

#[test]
fn read_at_gives_the_bytes_open_gives_and_stops_at_the_size_at_open() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f.txt");
    let text: Vec<u8> = (0..10_000u32).flat_map(|i| i.to_le_bytes()).collect();
    std::fs::write(&path, &text).unwrap();
    let file = FileSource::new(&path).unwrap();
    let bytes = BytesSource::new("f.txt", text.clone());
    for source in [&file as &dyn Source, &bytes] {
        for step in [1, 7, 4096, 100_000] {
            assert_eq!(read_all_at(source, step), text, "step {step}");
        }
        let mut sequential = Vec::new();
        source.open().unwrap().read_to_end(&mut sequential).unwrap();
        assert_eq!(sequential, text);
        let mut buf = [0u8; 8];
        assert_eq!(source.read_at(u64::MAX, &mut buf).unwrap().unwrap(), 0);
    }
    // Growth after the open is not read.
    std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .and_then(|mut f| std::io::Write::write_all(&mut f, b"more"))
        .unwrap();
    assert_eq!(read_all_at(&file, 4096), text);
}

#[test]
fn the_source_arms_its_cancel_token_on_the_stream() {
    let token = CancelToken::new();
    let source = BytesSource::new("a.txt", "a\nb\n").with_cancel(Some(token.clone()));
    token.cancel();
    let mut stream = text_stream(&source).unwrap();
    let refusal = stream.next_chunk().unwrap_err();
    assert_eq!(refusal.reason(), RefusalReason::Aborted);
    // Unarmed, the same bytes read whole.
    let plain = BytesSource::new("a.txt", "a\nb\n");
    let mut stream = text_stream(&plain).unwrap();
    assert_eq!(stream.next_chunk().unwrap().unwrap().text, "a\nb\n");
}

#[test]
fn declarations_normalize_what_callers_send() {
    let spec = |kind| OptionSpec {
        name: "x",
        kind,
        default: None,
        ops: &[Op::Select],
        doc: "a test option",
    };
    let cases = [
        (OptionKind::Count, json!("10"), Some(json!(10))),
        (OptionKind::Count, json!(10.0), Some(json!(10))),
        (OptionKind::Count, json!(10.5), None),
        (OptionKind::Count, json!(-1), None),
        (OptionKind::Count, json!("ten"), None),
        (OptionKind::Flag, json!("TRUE"), Some(json!(true))),
        (OptionKind::Flag, json!(0), None),
        (
            OptionKind::List,
            json!("a, b,,c"),
            Some(json!(["a", "b", "c"])),
        ),
        (OptionKind::List, json!([" a", 2]), Some(json!(["a", "2"]))),
        (OptionKind::List, json!([{}]), None),
        // Names that hold commas travel whole as a JSON array in text.
        (
            OptionKind::List,
            json!(r#"["a,b", " c"]"#),
            Some(json!(["a,b", "c"])),
        ),
        (OptionKind::List, json!("[not json"), None),
        (
            OptionKind::Choice(&["auto", "true"]),
            json!(true),
            Some(json!("true")),
        ),
        (
            OptionKind::Choice(&["auto", "true"]),
            json!(" AUTO "),
            Some(json!("auto")),
        ),
        (OptionKind::Choice(&["auto", "true"]), json!("maybe"), None),
        // Text is kept as given: a space is a delimiter.
        (OptionKind::Text, json!(" "), Some(json!(" "))),
        (OptionKind::Text, json!(["a"]), None),
    ];
    for (kind, raw, want) in cases {
        let got = spec(kind).normalize(&raw);
        match want {
            Some(v) => assert_eq!(got.unwrap(), v, "{kind:?} {raw}"),
            None => {
                let e = got.unwrap_err();
                assert_eq!(e.reason(), RefusalReason::InvalidArgument);
                assert!(e.message().starts_with("`x` takes "), "{}", e.message());
            }
        }
    }
}

#[test]
fn a_request_sets_shared_options_into_fields_and_keeps_the_rest() {
    let mut req = Request::default();
    req.set("offset", json!("3"))
        .unwrap()
        .set("sample_rows", json!(7))
        .unwrap()
        .set("delimiter", json!(";"))
        .unwrap();
    assert_eq!(req.window.offset, Some(3));
    assert_eq!(req.scan.sample_rows, Some(7));
    assert_eq!(req.options, Options::new().with("delimiter", ";"));
    assert_eq!(req.given_common(), ["offset", "sample_rows"]);
    assert!(req.set("max_rows", json!("x")).is_err());
}

#[test]
fn read_range_hands_out_bytes_the_same_from_files_and_memory() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.bin");
    let data: Vec<u8> = (0..=255u8).cycle().take(100_000).collect();
    std::fs::write(&path, &data).unwrap();
    let file = FileSource::new(&path).unwrap();
    let bytes = BytesSource::new("r.bin", data.clone());
    for (offset, len) in [
        (0u64, 10usize),
        (99_990, 100),
        (50_000, 65_536),
        (200_000, 5),
    ] {
        let want = data
            .get(offset as usize..)
            .map_or(&[][..], |rest| &rest[..len.min(rest.len())]);
        for source in [&file as &dyn Source, &bytes] {
            let got = source.read_range(offset, len).unwrap().unwrap();
            assert_eq!(&got[..], want, "{offset}+{len}");
        }
    }
    // In memory, a range is a slice of the same buffer: no copy.
    let whole = bytes.read_range(0, 100).unwrap().unwrap();
    let part = bytes.read_range(10, 5).unwrap().unwrap();
    assert_eq!(part.as_ptr(), whole[10..].as_ptr());
}

/// A small file read whole on its first head gives every later head and
/// stream the bytes it had then, counted once; a larger one is streamed
/// from the file and its head read by position, the same bytes either way.
#[test]
fn a_small_file_is_read_once_and_a_large_one_streamed() {
    use plumb_core::FILE_HELD_BYTES;
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::Arc;
    let dir = tempfile::tempdir().unwrap();
    for size in [
        0,
        1,
        4095,
        FILE_HELD_BYTES,
        FILE_HELD_BYTES + 1,
        3 * FILE_HELD_BYTES,
    ] {
        let body: Vec<u8> = (0..size).map(|i| (i % 251) as u8).collect();
        let path = dir.path().join(format!("f{size}"));
        std::fs::write(&path, &body).unwrap();
        let counter = Arc::new(AtomicU64::new(0));
        let source = FileSource::new(&path)
            .unwrap()
            .with_progress(counter.clone());
        for max in [0, 4, 4096, 1 << 20] {
            let head = source.head(max).unwrap();
            assert_eq!(head, body[..max.min(body.len())], "{size} {max}");
        }
        // Changed after the first head: a held file keeps what it read.
        std::fs::write(&path, vec![b'x'; size as usize]).unwrap();
        let mut streamed = Vec::new();
        source.open().unwrap().read_to_end(&mut streamed).unwrap();
        if size <= FILE_HELD_BYTES {
            assert_eq!(streamed, body, "{size}");
            assert_eq!(counter.load(Ordering::Relaxed), size, "{size}");
        } else {
            assert_eq!(streamed, vec![b'x'; size as usize], "{size}");
        }
    }
}
