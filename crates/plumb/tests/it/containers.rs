//! Compressed files: each container answers as the plain file does,
//! with the container stated; multi-member, truncated and corrupt
//! streams; names that lie; reads forward and from the end.

use std::io::Write;
use std::path::{Path, PathBuf};

use plumb::read::{read, ReadRequest};
use plumb::{Op, Plumb, Request, Window};
use plumb_core::RefusalReason;
use serde_json::Value;

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

fn compress(container: &str, data: &[u8]) -> Vec<u8> {
    match container {
        "gzip" => gzip(data),
        "zstd" => {
            // With its content checksum, as the zstd tool writes by
            // default: without one a corrupt block can decode to other
            // text that no reader could tell from the original.
            let mut e = zstd::stream::Encoder::new(Vec::new(), 3).unwrap();
            e.include_checksum(true).unwrap();
            e.write_all(data).unwrap();
            e.finish().unwrap()
        }
        "xz" => {
            let mut e = liblzma::write::XzEncoder::new(Vec::new(), 6);
            e.write_all(data).unwrap();
            e.finish().unwrap()
        }
        "bzip2" => {
            let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::default());
            e.write_all(data).unwrap();
            e.finish().unwrap()
        }
        other => panic!("{other}"),
    }
}

const CONTAINERS: [(&str, &str); 4] = [
    ("gzip", "gz"),
    ("zstd", "zst"),
    ("xz", "xz"),
    ("bzip2", "bz2"),
];

fn table(rows: usize) -> Vec<u8> {
    let mut t = String::from("id,name,score\n");
    for k in 0..rows {
        t.push_str(&format!("{k},\"n, {k}\",{}\n", k * 7 % 100));
    }
    t.into_bytes()
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

/// An answer without the two fields a container adds.
fn plain(mut v: Value) -> Value {
    if let Value::Object(m) = &mut v {
        m.remove("container");
        m.remove("offsets");
    }
    v
}

#[test]
fn every_container_answers_as_the_plain_file_does() {
    let dir = tempfile::tempdir().unwrap();
    let data = table(3000);
    let plain_path = write(dir.path(), "t.csv", &data);
    let plumb = Plumb::new();
    let window = Request {
        window: Window {
            offset: Some(1234),
            limit: Some(7),
            from_end: None,
        },
        ..Request::default()
    };
    for (name, ext) in CONTAINERS {
        let path = write(dir.path(), &format!("t.csv.{ext}"), &compress(name, &data));
        for op in Op::ALL {
            let req = match op {
                Op::Select => window.clone(),
                Op::Search => {
                    let mut r = window.clone();
                    r.set("pattern", serde_json::json!("7")).unwrap();
                    r
                }
                _ => Request::default(),
            };
            let want = plumb.run(op, &plain_path, None, &req).unwrap().to_json();
            let got = plumb.run(op, &path, None, &req).unwrap().to_json();
            assert_eq!(got["container"], name, "{name} {op:?}");
            assert_eq!(got["offsets"], "decompressed");
            assert_eq!(plain(got), want, "{name} {op:?}");
        }
        let d = plumb.detect(&path, None).unwrap();
        assert_eq!((d.reader.name(), d.container), ("csv", Some(name)));
        // Named for something else, or for nothing: the bytes decide.
        let lying = write(
            dir.path(),
            &format!("{name}-data.csv"),
            &compress(name, &data),
        );
        let a = plumb
            .run(Op::Validate, &lying, None, &Request::default())
            .unwrap();
        assert_eq!(a.to_json()["container"], name);
        assert_eq!(a.verdict(), Some(Some(true)), "{name}");
        let bare = write(dir.path(), &format!("data.{ext}"), &compress(name, &data));
        let a = plumb
            .run(Op::Validate, &bare, None, &Request::default())
            .unwrap();
        assert_eq!(
            (a.format(), a.verdict()),
            ("csv", Some(Some(true))),
            "{name}"
        );
    }
}

#[test]
fn multi_member_gzip_reads_every_member() {
    let dir = tempfile::tempdir().unwrap();
    let mut both = gzip(b"id,v\n1,a\n2,b\n");
    both.extend(gzip(b"3,c\n4,d\n"));
    let path = write(dir.path(), "two.csv.gz", &both);
    let a = Plumb::new()
        .run(Op::Validate, &path, None, &Request::default())
        .unwrap();
    assert_eq!(a.to_json()["rows_scanned"], 4);
}

/// What follows a gzip file's last member, read as `gzip -d` reads it:
/// zero padding is ignored (the rows are all there); any other byte is
/// trailing garbage, refused as such with its offset, whether it is too
/// short to be a member header or long enough to be taken for one.
#[test]
fn gzip_padding_is_ignored_and_trailing_garbage_refused() {
    let dir = tempfile::tempdir().unwrap();
    let mut both = gzip(b"id,v\n1,a\n2,b\n");
    both.extend(gzip(b"3,c\n4,d\n"));
    let end = both.len();
    let plumb = Plumb::new();
    let run = |tail: &[u8]| {
        let mut bytes = both.clone();
        bytes.extend_from_slice(tail);
        let path = write(dir.path(), "t.csv.gz", &bytes);
        plumb.run(Op::Validate, &path, None, &Request::default())
    };
    for padding in [1, 7, 512, 70_000] {
        let a = run(&vec![0u8; padding]).unwrap();
        assert_eq!(a.to_json()["rows_scanned"], 4, "{padding} zeros");
    }
    for (tail, at) in [
        (&b"garbage\n"[..], end),
        (b"garbage garbage garbage\n", end),
        (b"\0\0\0\0x", end + 4),
    ] {
        let e = run(tail).unwrap_err();
        assert_eq!(e.reason(), RefusalReason::ReadError, "{e:?}");
        assert!(e.message().contains("trailing garbage"), "{}", e.message());
        assert!(
            e.message().contains(&format!("compressed byte {at}")),
            "{}",
            e.message()
        );
    }
}

#[test]
fn truncated_and_corrupt_streams_are_refused_naming_the_container() {
    let dir = tempfile::tempdir().unwrap();
    let data = table(20_000);
    let plumb = Plumb::new();
    for (name, ext) in CONTAINERS {
        let whole = compress(name, &data);
        let cut = &whole[..whole.len() * 2 / 3];
        let path = write(dir.path(), &format!("cut.csv.{ext}"), cut);
        let e = plumb
            .run(Op::Validate, &path, None, &Request::default())
            .unwrap_err();
        assert_eq!(e.reason(), RefusalReason::ReadError, "{name}: {e:?}");
        assert!(e.message().contains(name), "{}", e.message());
        assert!(e.message().contains("compressed byte"), "{}", e.message());
        assert_eq!(e.extra("container"), Some(&Value::from(name)));
        let mut bad = whole.clone();
        let mid = bad.len() / 2;
        for b in &mut bad[mid..mid + 16] {
            *b ^= 0x5a;
        }
        let path = write(dir.path(), &format!("bad.csv.{ext}"), &bad);
        match plumb.run(Op::Validate, &path, None, &Request::default()) {
            Err(e) => {
                assert_eq!(e.reason(), RefusalReason::ReadError, "{name}: {e:?}");
                assert!(e.message().contains(name), "{}", e.message());
            }
            Ok(a) => panic!("{name}: corrupt stream answered {}", a.to_json()),
        }
    }
}

#[test]
fn reads_forward_and_from_the_end_as_on_the_plain_file() {
    let dir = tempfile::tempdir().unwrap();
    let data = table(500);
    let plain_path = write(dir.path(), "t.csv", &data);
    for (name, ext) in CONTAINERS {
        let path = write(dir.path(), &format!("t.csv.{ext}"), &compress(name, &data));
        for (offset, limit) in [(0, Some(3)), (250, Some(10)), (-5, Some(5)), (-1000, None)] {
            let req = ReadRequest {
                offset,
                limit,
                ..ReadRequest::default()
            };
            let want = read(&plain_path, &req).unwrap();
            let got = read(&path, &req).unwrap();
            assert_eq!(got.container, Some(name));
            assert_eq!(got.text, want.text, "{name} {offset}");
            assert_eq!(got.from_end, want.from_end, "{name} {offset}");
        }
    }
}

#[test]
fn a_stream_replays_its_start_reads_its_tail_once_and_refuses_a_second_full_read() {
    use plumb::StreamSource;
    let data = table(200_000);
    assert!(data.len() > plumb::STREAM_REPLAY_BYTES);
    let stream = StreamSource::new("stdin", std::io::Cursor::new(data.clone()));
    let plumb = Plumb::new();
    // Detection read the head; the op read it again, then the rest.
    let a = plumb
        .run_source(Op::Validate, &stream, None, &Request::default())
        .unwrap();
    assert_eq!(a.to_json()["rows_scanned"], 200_000);
    // Past the kept start nothing can be replayed: said, not re-read.
    let e = plumb
        .run_source(Op::Validate, &stream, None, &Request::default())
        .unwrap_err();
    assert_eq!(e.reason(), RefusalReason::InvalidArgument);
    assert!(e.message().contains("read once"), "{}", e.message());
    // A tail read of a compressed stream goes through it once, however
    // large: small, or far past the kept start.
    let small = compress("gzip", &table(50));
    let s = StreamSource::new("stdin", std::io::Cursor::new(small));
    let req = ReadRequest {
        offset: -2,
        ..ReadRequest::default()
    };
    let r = plumb::read::read_source(&s, &req).unwrap();
    assert_eq!(r.text, "48,\"n, 48\",36\n49,\"n, 49\",43\n");
    let mut noisy = String::new();
    for k in 0..400_000u64 {
        noisy.push_str(&format!(
            "{},{}\n",
            k.wrapping_mul(0x9E37_79B9_7F4A_7C15),
            k
        ));
    }
    let big = compress("gzip", noisy.as_bytes());
    assert!(big.len() > plumb::STREAM_REPLAY_BYTES);
    let s = StreamSource::new("stdin", std::io::Cursor::new(big));
    let r = plumb::read::read_source(&s, &req).unwrap();
    let last_two: Vec<&str> = noisy.lines().rev().take(2).collect();
    assert_eq!(r.text, format!("{}\n{}\n", last_two[1], last_two[0]));
    assert_eq!((r.from_end, r.container), (Some(2), Some("gzip")));
    // The stream is spent: a second read is refused, never re-read.
    let e = plumb::read::read_source(&s, &req).unwrap_err();
    assert_eq!(e.reason(), RefusalReason::InvalidArgument);
}
