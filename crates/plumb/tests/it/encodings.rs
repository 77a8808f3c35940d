//! Text in other encodings: UTF-16 and UTF-32 by their byte order
//! marks, any WHATWG encoding by the `encoding` option. Each answers as
//! the same text in UTF-8 does, whole and fed in pieces of every size;
//! a byte the encoding cannot map is refused at its offset in the file,
//! and byte offsets in answers count the file's own bytes.

use std::io::{BufRead, BufReader, Cursor};

use plumb::read::{read_source, ReadRequest};
use plumb::{BytesSource, Op, Plumb, Refusal, Request, Source, TextEncoding};
use plumb_core::RefusalReason;
use proptest::prelude::*;
use serde_json::{json, Value};

/// A source whose readers hand out at most `piece` bytes at a time.
#[derive(Debug)]
struct Pieces {
    name: String,
    bytes: Vec<u8>,
    piece: usize,
}

impl Source for Pieces {
    fn open(&self) -> Result<Box<dyn BufRead + Send + '_>, Refusal> {
        Ok(Box::new(BufReader::with_capacity(
            self.piece,
            Cursor::new(self.bytes.clone()),
        )))
    }
    fn name(&self) -> &str {
        &self.name
    }
    fn len(&self) -> Option<u64> {
        Some(self.bytes.len() as u64)
    }
}

fn utf16(text: &str, big_endian: bool) -> Vec<u8> {
    let mut out = if big_endian {
        vec![0xFE, 0xFF]
    } else {
        vec![0xFF, 0xFE]
    };
    for unit in text.encode_utf16() {
        out.extend(if big_endian {
            unit.to_be_bytes()
        } else {
            unit.to_le_bytes()
        });
    }
    out
}

fn utf32(text: &str, big_endian: bool) -> Vec<u8> {
    let mut out = if big_endian {
        vec![0, 0, 0xFE, 0xFF]
    } else {
        vec![0xFF, 0xFE, 0, 0]
    };
    for c in text.chars() {
        out.extend(if big_endian {
            (c as u32).to_be_bytes()
        } else {
            (c as u32).to_le_bytes()
        });
    }
    out
}

fn whatwg(label: &str, text: &str) -> Vec<u8> {
    let enc = encoding_rs::Encoding::for_label(label.as_bytes()).unwrap();
    let (bytes, _, unmappable) = enc.encode(text);
    assert!(!unmappable, "{label} cannot hold the test text");
    bytes.into_owned()
}

const TABLE: &str = "id,name,city\n1,Zoë,Köln\n2,\"Ann, B\",Paris\n3,Łukasz,Łódź\n4,日本,東京\n";
const LATIN: &str = "id,name,city\n1,Zoë,Köln\n2,\"Ann, B\",Paris\n3,Señor,Málaga\n";
const JAPANESE: &str = "id,name\n1,日本語\n2,ｶﾀｶﾅ\n";

fn run(source: &dyn Source, op: Op, req: &Request) -> Result<Value, Refusal> {
    Plumb::new()
        .run_source(op, source, Some("csv"), req)
        .map(|a| a.to_json())
}

/// The answer without the field the encoding adds.
fn without_encoding(mut v: Value) -> Value {
    if let Value::Object(m) = &mut v {
        m.remove("encoding");
    }
    v
}

fn encoded() -> Vec<(&'static str, String, Vec<u8>, Option<&'static str>)> {
    let bom = |t: &str| format!("\u{FEFF}{t}");
    vec![
        ("utf-16le", bom(TABLE), utf16(TABLE, false), None),
        ("utf-16be", bom(TABLE), utf16(TABLE, true), None),
        ("utf-32le", bom(TABLE), utf32(TABLE, false), None),
        ("utf-32be", bom(TABLE), utf32(TABLE, true), None),
        (
            "windows-1252",
            LATIN.to_owned(),
            whatwg("latin1", LATIN),
            Some("latin1"),
        ),
        (
            "iso-8859-2",
            "id\nŁódź\n".to_owned(),
            whatwg("iso-8859-2", "id\nŁódź\n"),
            Some("iso-8859-2"),
        ),
        (
            "shift_jis",
            JAPANESE.to_owned(),
            whatwg("shift_jis", JAPANESE),
            Some("sjis"),
        ),
        (
            "utf-16le",
            TABLE.to_owned(),
            utf16(TABLE, false)[2..].to_vec(),
            Some("utf-16le"),
        ),
    ]
}

#[test]
fn every_encoding_answers_as_its_utf8_text_does_in_pieces_of_every_size() {
    for (name, text, bytes, label) in encoded() {
        let utf8 = BytesSource::new("t.csv", text.clone().into_bytes());
        let mut req = Request::default();
        if let Some(label) = label {
            req.set("encoding", json!(label)).unwrap();
        }
        for op in [Op::Inspect, Op::Select, Op::Validate] {
            let want = run(&utf8, op, &Request::default()).unwrap();
            for piece in [1, 2, 3, 5, 7, 64, 1 << 16] {
                let source = Pieces {
                    name: "t.csv".into(),
                    bytes: bytes.clone(),
                    piece,
                };
                let got = run(&source, op, &req).unwrap();
                assert_eq!(got["encoding"], json!(name), "{name} {op:?}");
                assert_eq!(without_encoding(got), want, "{name} {op:?} piece {piece}");
            }
        }
    }
}

/// The answer's hits without their byte offsets (which count the
/// file's own bytes, so differ from the UTF-8 text's).
fn hits_without_offsets(v: &Value) -> Value {
    let mut hits = v["hits"].clone();
    for h in hits.as_array_mut().into_iter().flatten() {
        if let Value::Object(m) = h {
            m.remove("byte_offset");
        }
    }
    hits
}

/// Search reads through the encoding as the other ops do: the same
/// hits and counts as the UTF-8 text gives, by predicate and by pattern.
#[test]
fn search_answers_through_every_encoding_as_its_utf8_text_does() {
    for (name, text, bytes, label) in encoded() {
        let utf8 = BytesSource::new("t.csv", text.clone().into_bytes());
        for (key, value) in [("where", "is not empty"), ("pattern", "[^a-z,]")] {
            let mut plain = Request::default();
            plain.set(key, json!(value)).unwrap();
            let mut req = plain.clone();
            if let Some(label) = label {
                req.set("encoding", json!(label)).unwrap();
            }
            let want = run(&utf8, Op::Search, &plain).unwrap();
            assert!(want["total"].as_u64().unwrap() > 0, "{name} {key}");
            let source = Pieces {
                name: "t.csv".into(),
                bytes: bytes.clone(),
                piece: 3,
            };
            let got = run(&source, Op::Search, &req).unwrap();
            assert_eq!(got["encoding"], json!(name), "{name} {key}");
            assert_eq!(got["total"], want["total"], "{name} {key}");
            assert_eq!(
                hits_without_offsets(&got),
                hits_without_offsets(&want),
                "{name} {key}"
            );
        }
    }
}

#[test]
fn reads_forward_and_from_the_end_as_the_utf8_text_does() {
    for (name, text, bytes, label) in encoded() {
        let utf8 = BytesSource::new("t.txt", text.into_bytes());
        let source = BytesSource::new("t.txt", bytes);
        for offset in [0, 1, 2, -1, -2, -10] {
            let req = ReadRequest {
                offset,
                limit: Some(2),
                encoding: label.map(|l| TextEncoding::for_label(l).unwrap().unwrap()),
                ..ReadRequest::default()
            };
            let plain = ReadRequest {
                encoding: None,
                ..req.clone()
            };
            let want = read_source(&utf8, &plain).unwrap();
            let got = read_source(&source, &req).unwrap();
            assert_eq!(got.encoding, Some(name));
            assert_eq!(
                (got.text, got.total_lines, got.next_offset, got.from_end),
                (want.text, want.total_lines, want.next_offset, want.from_end),
                "{name} offset {offset}"
            );
        }
    }
}

fn refusal(bytes: Vec<u8>, label: Option<&str>) -> Refusal {
    let mut req = Request::default();
    if let Some(label) = label {
        req.set("encoding", json!(label)).unwrap();
    }
    run(&BytesSource::new("t.csv", bytes), Op::Validate, &req).unwrap_err()
}

#[test]
fn a_byte_the_encoding_cannot_map_is_refused_at_its_offset_in_the_file() {
    // A lone high surrogate, then `x`: the surrogate's first byte.
    let mut lone = utf16("a,b\n1,", false);
    let at = lone.len() as u64;
    lone.extend([0x00, 0xD8, b'x', 0x00, b'\n', 0x00]);
    // A UTF-32 value past U+10FFFF.
    let mut past = utf32("a\n", false);
    let at32 = past.len() as u64;
    past.extend(0x0011_0000u32.to_le_bytes());
    // A UTF-16 file of odd length: the last byte is half a unit.
    let mut odd = utf16("a\nb\n", true);
    let at_odd = odd.len() as u64;
    odd.push(0);
    // Shift_JIS: 0x82 is a lead byte; 0x20 cannot follow it.
    let sjis = b"a\n\x82 \n".to_vec();
    for (bytes, label, offset, name) in [
        (lone, None, at, "utf-16le"),
        (past, None, at32, "utf-32le"),
        (odd, None, at_odd, "utf-16be"),
        (sjis, Some("shift_jis"), 2, "shift_jis"),
    ] {
        let r = refusal(bytes, label);
        assert_eq!(r.reason(), RefusalReason::InvalidUtf8, "{name}: {r:?}");
        assert_eq!(r.byte_offset(), Some(offset), "{name}: {}", r.message());
        assert_eq!(r.extra("encoding"), Some(&json!(name)));
        assert!(r.message().contains(name), "{}", r.message());
    }
}

#[test]
fn byte_offsets_in_answers_count_the_files_bytes() {
    // `[1,]`: the `]` after the comma is the syntax error.
    for (bytes, at) in [
        (utf16("[\"é\",]", false), 2 + 2 * 5),
        (utf32("[\"é\",]", true), 4 + 4 * 5),
        (whatwg("latin1", "[\"é\",]"), 5),
    ] {
        let mut req = Request::default();
        req.set("encoding", json!("latin1")).unwrap();
        let answer = Plumb::new()
            .run_source(Op::Validate, &BytesSource::new("t.json", bytes), None, &req)
            .unwrap()
            .to_json();
        assert_eq!(answer["valid"], json!(false));
        let error = &answer["syntax_error"];
        assert_eq!(error["byte_offset"], json!(at), "{answer}");
        assert!(
            error["message"]
                .as_str()
                .unwrap()
                .contains(&format!("byte {at}")),
            "{answer}"
        );
    }
}

#[test]
fn a_utf8_byte_order_mark_outranks_a_named_encoding() {
    let mut bytes = b"\xEF\xBB\xBF".to_vec();
    bytes.extend("id\nZoë\n".as_bytes());
    let mut req = Request::default();
    req.set("encoding", json!("latin1")).unwrap();
    let got = run(&BytesSource::new("t.csv", bytes), Op::Select, &req).unwrap();
    assert_eq!(got["rows"], json!([["Zoë"]]));
    assert!(got.get("encoding").is_none());
}

#[test]
fn an_unknown_label_is_refused_naming_labels_that_work() {
    let mut req = Request::default();
    req.set("encoding", json!("klingon")).unwrap();
    let r = run(&BytesSource::new("t.csv", "a\n1\n"), Op::Inspect, &req).unwrap_err();
    assert_eq!(r.reason(), RefusalReason::InvalidArgument);
    assert!(r.message().contains("windows-1252"), "{}", r.message());
}

#[test]
fn invalid_utf8_suggests_the_encoding_when_the_bytes_look_western() {
    let latin = BytesSource::new("t.csv", whatwg("latin1", LATIN));
    let r = run(&latin, Op::Validate, &Request::default()).unwrap_err();
    assert_eq!(r.reason(), RefusalReason::InvalidUtf8);
    assert_eq!(r.extra("suggested_encoding"), Some(&json!("windows-1252")));
    assert!(
        r.message().contains("encoding windows-1252"),
        "{}",
        r.message()
    );
    // UTF-8 cut short, or bytes that are no single-byte text: no guess.
    for bytes in [
        b"id\n\xE6\x97".to_vec(),
        b"id\n\xE6\x97\xA5\xE6\x97,\x01\n".to_vec(),
    ] {
        let r = run(
            &BytesSource::new("t.csv", bytes),
            Op::Validate,
            &Request::default(),
        )
        .unwrap_err();
        assert_eq!(r.reason(), RefusalReason::InvalidUtf8);
        assert_eq!(r.extra("suggested_encoding"), None, "{}", r.message());
    }
}

proptest! {
    /// Every position of the UTF-8 text maps back to the first byte, in
    /// the file, of the character that holds it.
    #[test]
    fn file_offsets_map_back_through_every_encoding(text in "[a-zé€\u{10000}-\u{10010}\n,]{0,40}", big in any::<bool>()) {
        for (bytes, bom, unit) in [
            (utf16(&text, big), 2u64, 16u32),
            (utf32(&text, big), 4, 32),
        ] {
            let source = BytesSource::new("t", bytes);
            let (encoding, bom_len) = TextEncoding::of_bom(&source.head(4).unwrap()).unwrap();
            prop_assert_eq!(bom_len as u64, bom);
            let t = plumb::Transcoded::new(&source, encoding, bom_len);
            // The transcoded text starts with a UTF-8 byte order mark.
            let mut file = bom;
            let mut at = 3u64;
            for c in text.chars() {
                for k in 0..c.len_utf8() as u64 {
                    prop_assert_eq!(t.file_offset(at + k), Some(file));
                }
                at += c.len_utf8() as u64;
                file += if unit == 32 { 4 } else { 2 * c.len_utf16() as u64 };
            }
            prop_assert_eq!(t.file_offset(at), Some(file));
            prop_assert_eq!(t.file_offset(at + 1), None);
        }
    }
}
