//! Zip archives: inspect lists the members with their sizes and
//! formats; a member named by the `member` option answers as the same
//! bytes in a file of their own; encrypted, missing, corrupt and
//! streamed archives are refused with the reason.

use std::io::Write;

use plumb::read::{read_source, ReadRequest};
use plumb::{BytesSource, Op, Plumb, Request, StreamSource};
use plumb_core::RefusalReason;
use serde_json::{json, Value};
use zip::write::SimpleFileOptions;
use zip::CompressionMethod;

fn table(rows: usize) -> Vec<u8> {
    let mut t = String::from("id,name,score\n");
    for k in 0..rows {
        t.push_str(&format!("{k},\"n, {k}\",{}\n", k * 7 % 100));
    }
    t.into_bytes()
}

fn jsonl(rows: usize) -> Vec<u8> {
    (0..rows)
        .map(|k| format!("{{\"id\":{k},\"tag\":\"t{}\"}}\n", k % 3))
        .collect::<String>()
        .into_bytes()
}

/// A member: its name, bytes, compression, and whether it is marked
/// encrypted.
type Member<'a> = (&'a str, Vec<u8>, CompressionMethod, bool);

fn archive(members: &[Member<'_>]) -> Vec<u8> {
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for (name, bytes, method, _) in members {
        let options = SimpleFileOptions::default().compression_method(*method);
        w.start_file(*name, options).unwrap();
        w.write_all(bytes).unwrap();
    }
    w.add_directory("empty/", SimpleFileOptions::default())
        .unwrap();
    let mut zip = w.finish().unwrap().into_inner();
    for (name, ..) in members.iter().filter(|m| m.3) {
        mark_encrypted(&mut zip, name);
    }
    zip
}

/// Sets the encryption flag of member `name` in its local and central
/// headers, as an encrypting writer does (the `zip` crate writes
/// encrypted members only through its AES feature).
fn mark_encrypted(zip: &mut [u8], name: &str) {
    for (sig, flags, name_len, name_at) in [(b"PK\x03\x04", 6, 26, 30), (b"PK\x01\x02", 8, 28, 46)]
    {
        let starts: Vec<usize> = zip
            .windows(4)
            .enumerate()
            .filter(|(_, w)| w == sig)
            .map(|(i, _)| i)
            .collect();
        for at in starts {
            let n = u16::from_le_bytes([zip[at + name_len], zip[at + name_len + 1]]) as usize;
            if zip.get(at + name_at..at + name_at + n) == Some(name.as_bytes()) {
                zip[at + flags] |= 1;
            }
        }
    }
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

fn sample() -> Vec<u8> {
    archive(&[
        (
            "data/t.csv",
            table(2000),
            CompressionMethod::Deflated,
            false,
        ),
        ("stored.jsonl", jsonl(50), CompressionMethod::Stored, false),
        ("z.csv", table(10), CompressionMethod::Zstd, false),
        ("b.csv", table(10), CompressionMethod::Bzip2, false),
        (
            "inner.csv.gz",
            gzip(&table(30)),
            CompressionMethod::Stored,
            false,
        ),
        ("secret.csv", table(5), CompressionMethod::Deflated, true),
    ])
}

fn run(op: Op, bytes: &[u8], req: &Request) -> Result<Value, plumb::Refusal> {
    Plumb::new()
        .run_source(op, &BytesSource::new("a.zip", bytes.to_vec()), None, req)
        .map(|a| a.to_json())
}

fn member(name: &str) -> Request {
    let mut req = Request::default();
    req.set("member", json!(name)).unwrap();
    req
}

/// The answer without the fields the archive adds.
fn plain(mut v: Value) -> Value {
    if let Value::Object(m) = &mut v {
        for k in ["member", "container", "offsets"] {
            m.remove(k);
        }
    }
    v
}

#[test]
fn inspect_lists_every_member_with_its_size_and_format() {
    let listing = run(Op::Inspect, &sample(), &Request::default()).unwrap();
    assert_eq!(listing["format"], "zip");
    assert_eq!(listing["member_count"], 7);
    assert_eq!(listing["has_more"], false);
    assert_eq!(listing["view"]["exact"], true);
    let members = listing["members"].as_array().unwrap();
    let by = |name: &str| members.iter().find(|m| m["name"] == name).unwrap().clone();
    let t = by("data/t.csv");
    assert_eq!(t["size"], table(2000).len());
    assert_eq!(t["method"], "deflate");
    assert_eq!(t["format"], "csv");
    assert!(t["compressed_size"].as_u64().unwrap() < table(2000).len() as u64);
    assert_eq!(by("stored.jsonl")["format"], "jsonl");
    assert_eq!(by("stored.jsonl")["method"], "stored");
    assert_eq!(by("z.csv")["method"], "zstd");
    assert_eq!(by("b.csv")["method"], "bzip2");
    assert_eq!(by("inner.csv.gz")["format"], "csv");
    assert_eq!(by("inner.csv.gz")["container"], "gzip");
    assert_eq!(by("secret.csv")["encrypted"], true);
    assert_eq!(by("secret.csv")["format"], Value::Null);
    assert_eq!(by("empty/")["directory"], true);
}

#[test]
fn a_member_answers_as_the_same_bytes_in_a_file_do() {
    let zip = sample();
    let cases: [(&str, Vec<u8>, &str); 5] = [
        ("data/t.csv", table(2000), "t.csv"),
        ("stored.jsonl", jsonl(50), "t.jsonl"),
        ("z.csv", table(10), "t.csv"),
        ("b.csv", table(10), "t.csv"),
        ("inner.csv.gz", table(30), "t.csv"),
    ];
    for (name, bytes, as_file) in cases {
        let file = BytesSource::new(as_file, bytes);
        for op in [Op::Inspect, Op::Select, Op::Validate] {
            let want = Plumb::new()
                .run_source(op, &file, None, &Request::default())
                .unwrap()
                .to_json();
            let got = run(op, &zip, &member(name)).unwrap();
            assert_eq!(got["member"], name);
            assert_eq!(got["offsets"], "decompressed");
            let mut got = plain(got);
            if name.ends_with(".gz") {
                assert_eq!(got["container"], Value::Null);
            }
            if let Value::Object(m) = &mut got {
                m.remove("container");
            }
            assert_eq!(got, want, "{name} {op:?}");
        }
    }
}

#[test]
fn a_member_reads_its_lines_forward_and_from_the_end() {
    let zip = BytesSource::new("a.zip", sample());
    let file = BytesSource::new("t.csv", table(2000));
    for offset in [0, 5, -1, -7] {
        let req = ReadRequest {
            offset,
            limit: Some(3),
            member: Some("data/t.csv".into()),
            ..ReadRequest::default()
        };
        let got = read_source(&zip, &req).unwrap();
        let want = read_source(
            &file,
            &ReadRequest {
                member: None,
                ..req.clone()
            },
        )
        .unwrap();
        assert_eq!(got.member.as_deref(), Some("data/t.csv"));
        assert_eq!(
            (got.text, got.total_lines, got.from_end),
            (want.text, want.total_lines, want.from_end)
        );
    }
}

#[test]
fn encrypted_missing_and_directory_members_are_refused_with_the_reason() {
    let zip = sample();
    let r = run(Op::Select, &zip, &member("secret.csv")).unwrap_err();
    assert_eq!(r.reason(), RefusalReason::UnsupportedFormat);
    assert!(r.message().contains("encrypted"), "{}", r.message());
    let r = run(Op::Select, &zip, &member("nope.csv")).unwrap_err();
    assert_eq!(r.reason(), RefusalReason::NotFound);
    assert!(r.message().contains("data/t.csv"), "{}", r.message());
    let r = run(Op::Select, &zip, &member("empty/")).unwrap_err();
    assert_eq!(r.reason(), RefusalReason::UnsupportedFormat);
    // A member of a file that is no archive.
    let r = Plumb::new()
        .run_source(
            Op::Select,
            &BytesSource::new("t.csv", table(3)),
            None,
            &member("x"),
        )
        .unwrap_err();
    assert_eq!(r.reason(), RefusalReason::InvalidArgument);
    // An archive without a member, for an op that needs one.
    let r = run(Op::Select, &zip, &Request::default()).unwrap_err();
    assert_eq!(r.reason(), RefusalReason::UnsupportedFormat);
    assert!(r.message().contains("member"), "{}", r.message());
}

#[test]
fn a_corrupt_member_is_refused_and_never_read_as_other_text() {
    let data = table(500);
    let good = archive(&[("t.csv", data.clone(), CompressionMethod::Stored, false)]);
    let start = good
        .windows(data.len().min(40))
        .position(|w| w == &data[..40])
        .unwrap();
    // A changed byte inside the stored member: the CRC-32 says so.
    let mut bad = good.clone();
    bad[start + 100] ^= 0x01;
    let r = run(Op::Validate, &bad, &member("t.csv")).unwrap_err();
    assert_eq!(r.reason(), RefusalReason::ReadError, "{}", r.message());
    assert!(r.message().contains("CRC-32"), "{}", r.message());
    // A deflated member with a broken stream.
    let deflated = archive(&[("t.csv", data.clone(), CompressionMethod::Deflated, false)]);
    let dir = Plumb::new()
        .run_source(
            Op::Inspect,
            &BytesSource::new("a.zip", deflated.clone()),
            None,
            &Request::default(),
        )
        .unwrap()
        .to_json();
    let compressed = dir["members"][0]["compressed_size"].as_u64().unwrap() as usize;
    let mut broken = deflated.clone();
    let from = 30 + "t.csv".len();
    for b in &mut broken[from + compressed / 3..from + compressed / 2] {
        *b = 0xFF;
    }
    let r = run(Op::Validate, &broken, &member("t.csv")).unwrap_err();
    assert_eq!(r.reason(), RefusalReason::ReadError, "{}", r.message());
    // Cut before its directory: not a readable archive.
    let r = run(Op::Inspect, &good[..good.len() - 30], &Request::default()).unwrap_err();
    assert_eq!(r.reason(), RefusalReason::ReadError, "{}", r.message());
}

#[test]
fn an_archive_on_a_stream_is_refused_needing_random_access() {
    let stream = StreamSource::new("stdin", std::io::Cursor::new(sample()));
    let r = Plumb::new()
        .run_source(Op::Inspect, &stream, None, &Request::default())
        .unwrap_err();
    assert_eq!(r.reason(), RefusalReason::InvalidArgument);
    assert!(r.message().contains("random access"), "{}", r.message());
}

#[test]
fn a_directory_past_the_member_cap_is_refused_before_it_is_read() {
    // An end record that claims more members than the cap.
    let mut fake = b"PK\x05\x06\0\0\0\0".to_vec();
    let many = u16::MAX - 1;
    fake.extend(many.to_le_bytes());
    fake.extend(many.to_le_bytes());
    fake.extend(100u32.to_le_bytes());
    fake.extend(0u32.to_le_bytes());
    fake.extend(0u16.to_le_bytes());
    assert!(u64::from(many) > plumb::ZIP_MAX_MEMBERS);
    let r = run(Op::Inspect, &fake, &Request::default()).unwrap_err();
    assert_eq!(
        r.reason(),
        RefusalReason::UnsupportedFormat,
        "{}",
        r.message()
    );
    assert!(r.message().contains("members"), "{}", r.message());
}

#[test]
fn a_workbook_whose_first_member_does_not_name_it_is_still_named_a_workbook() {
    let book = archive(&[
        (
            "sheet1.xml",
            b"<sheet/>".to_vec(),
            CompressionMethod::Stored,
            false,
        ),
        (
            "xl/workbook.xml",
            b"<workbook/>".to_vec(),
            CompressionMethod::Stored,
            false,
        ),
    ]);
    let r = run(Op::Inspect, &book, &Request::default()).unwrap_err();
    assert_eq!(
        r.reason(),
        RefusalReason::UnsupportedFormat,
        "{}",
        r.message()
    );
    assert_eq!(r.extra("found"), Some(&json!("xlsx")));
    // Its members can still be read by name, as text.
    let m = Plumb::new()
        .run_source(
            Op::Select,
            &BytesSource::new("a.zip", book),
            Some("jsonl"),
            &member("sheet1.xml"),
        )
        .unwrap()
        .to_json();
    assert_eq!(m["member"], "sheet1.xml");
    assert_eq!(m["records"][0]["line"], 1);
}
