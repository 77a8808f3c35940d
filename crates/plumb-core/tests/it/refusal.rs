//! Refusal shape, serialization and I/O mapping.

use plumb_core::{Refusal, RefusalReason};
use serde_json::json;

#[test]
fn serializes_ok_false_reason_message_and_location() {
    let r = Refusal::invalid_utf8(9);
    let v = serde_json::to_value(&r).unwrap();
    assert_eq!(v["ok"], json!(false));
    assert_eq!(v["reason"], json!("invalid-utf8"));
    assert_eq!(v["byte_offset"], json!(9));
    assert!(v["message"].as_str().unwrap().contains("offset 9"));
    assert!(v.get("line").is_none(), "absent locations are left out");
}

#[test]
fn every_reason_has_a_kebab_case_name_that_round_trips() {
    for reason in RefusalReason::ALL {
        let s = serde_json::to_value(reason).unwrap();
        assert_eq!(s, json!(reason.as_str()));
        let back: RefusalReason = serde_json::from_value(s).unwrap();
        assert_eq!(back, reason);
    }
}

#[test]
fn io_errors_map_to_their_reasons() {
    use std::io::{Error, ErrorKind};
    let cases = [
        (ErrorKind::NotFound, RefusalReason::NotFound),
        (ErrorKind::IsADirectory, RefusalReason::NotAFile),
        (ErrorKind::PermissionDenied, RefusalReason::ReadError),
        (ErrorKind::UnexpectedEof, RefusalReason::ReadError),
    ];
    for (kind, reason) in cases {
        let r: Refusal = Error::from(kind).into();
        assert_eq!(r.reason(), reason, "{kind:?}");
    }
}

#[test]
fn location_builders_and_extras_serialize() {
    let r = Refusal::new(RefusalReason::InvalidJson, "expected a value; fix the text")
        .with_line(3)
        .with_column(5)
        .with_byte_offset(21)
        .with_pointer("/a")
        .with_extra("supported", json!(["csv"]));
    let v = serde_json::to_value(&r).unwrap();
    assert_eq!(v["line"], 3);
    assert_eq!(v["column"], 5);
    assert_eq!(v["pointer"], "/a");
    assert_eq!(v["supported"], json!(["csv"]));
    let moved = r.relocated(100, 10);
    assert_eq!(moved.byte_offset(), Some(121));
    assert_eq!(moved.line(), Some(13));
    assert!(format!("{moved}").contains("invalid-json"));
}

#[test]
fn a_refusal_is_an_error_that_reads_as_its_message_and_reason() {
    let r = Refusal::new(RefusalReason::NotFound, "no file named a.csv");
    assert_eq!(r.to_string(), "no file named a.csv (not-found)");
    let e: Box<dyn std::error::Error + Send + Sync> = Box::new(r);
    assert!(e.source().is_none());
    assert_eq!(e.to_string(), "no file named a.csv (not-found)");
}
