//! Text in other encodings and zip members: any bytes read in UTF-16,
//! UTF-32 (by byte order mark) or a named WHATWG encoding answer exactly
//! as encoding_rs's own decode of them does when it succeeds, and are
//! refused `invalid-utf8` at an offset inside the file when it does not
//! (a validate always; a select that stops before the fault need not);
//! any bytes behind a zip signature, asked for a member, are read or
//! refused with a reason. Never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use plumb::{Op, Plumb, RefusalReason, Request};
use plumb_core::BytesSource;
use serde_json::Value;

/// (prefix, label given, encoding_rs's encoding or None for UTF-32).
const LAYERS: [(&[u8], Option<&str>, &str); 7] = [
    (b"\xff\xfe", None, "utf-16le"),
    (b"\xfe\xff", None, "utf-16be"),
    (b"", Some("shift_jis"), "shift_jis"),
    (b"", Some("windows-1252"), "windows-1252"),
    (b"", Some("euc-kr"), "euc-kr"),
    (b"", Some("gb18030"), "gb18030"),
    (b"", Some("utf-16le"), "utf-16le"),
];

fn without_encoding(mut v: Value) -> Value {
    if let Value::Object(m) = &mut v {
        m.remove("encoding");
    }
    v
}

fuzz_target!(|input: &[u8]| {
    let Some((&ctl, body)) = input.split_first() else {
        return;
    };
    let op = Op::ALL[usize::from(ctl >> 5) % 3];
    let plumb = Plumb::new();
    let pick = usize::from(ctl & 7);
    if pick == 7 {
        let mut bytes = b"PK\x03\x04".to_vec();
        bytes.extend_from_slice(body);
        let mut req = Request::default();
        req.set("member", Value::from("a.csv")).unwrap();
        let source = BytesSource::new("a.zip", bytes);
        if let Err(r) = plumb.run_source(op, &source, None, &req) {
            assert!(
                matches!(
                    r.reason(),
                    RefusalReason::ReadError
                        | RefusalReason::NotFound
                        | RefusalReason::UnsupportedFormat
                        | RefusalReason::InvalidUtf8
                        | RefusalReason::Binary
                        | RefusalReason::InvalidJson
                ),
                "{r:?}"
            );
        }
        let _ = plumb.run_source(Op::Inspect, &source, None, &Request::default());
        return;
    }
    let (prefix, label, name) = LAYERS[pick];
    let mut bytes = prefix.to_vec();
    bytes.extend_from_slice(body);
    let mut req = Request::default();
    if let Some(label) = label {
        req.set("encoding", Value::from(label)).unwrap();
    }
    // A UTF-8 byte order mark outranks the label, and a UTF-16 one
    // decides: the oracle case is the one where the label is what reads.
    let marked = [&b"\xef\xbb\xbf"[..], b"\xff\xfe", b"\xfe\xff", b"\0\0\xfe\xff"]
        .iter()
        .any(|mark| body.starts_with(mark));
    // FF FE 00 00 is UTF-32LE's mark, which every sniffer (plumb's too)
    // tries before UTF-16LE's.
    // And bytes that open with a compressed or binary signature are that
    // first, whatever encoding is named.
    let signed = prefix.is_empty() && plumb::identify(body).is_some();
    if (prefix.is_empty() && marked)
        || signed
        || (prefix == b"\xff\xfe" && body.starts_with(b"\0\0"))
    {
        return;
    }
    let encoding = encoding_rs::Encoding::for_label(name.as_bytes()).unwrap();
    let got = plumb.run_source(op, &BytesSource::new("t.csv", bytes.clone()), Some("csv"), &req);
    let (text, errors) = encoding.decode_without_bom_handling(&bytes[prefix.len()..]);
    if errors {
        // A select may stop before the fault; a validate reads to it.
        match got {
            Ok(_) => assert!(op != Op::Validate, "a validate read past a fault"),
            Err(r) => {
                assert!(
                    matches!(r.reason(), RefusalReason::InvalidUtf8 | RefusalReason::Binary),
                    "{r:?}"
                );
                assert!(r.byte_offset().is_some_and(|at| at < bytes.len() as u64), "{r:?}");
            }
        }
        return;
    }
    let mut utf8 = if prefix.is_empty() { Vec::new() } else { b"\xef\xbb\xbf".to_vec() };
    utf8.extend_from_slice(text.as_bytes());
    let want = plumb.run_source(op, &BytesSource::new("t.csv", utf8), Some("csv"), &Request::default());
    match (got, want) {
        (Ok(a), Ok(b)) => {
            let a = a.to_json();
            assert_eq!(a["encoding"], name);
            assert_eq!(without_encoding(a), b.to_json());
        }
        (Err(a), Err(b)) => assert_eq!(a.reason(), b.reason()),
        (a, b) => panic!(
            "transcoded and decoded text disagree: {:?} / {:?}",
            a.map(|x| x.to_json()),
            b.map(|x| x.to_json())
        ),
    }
});
