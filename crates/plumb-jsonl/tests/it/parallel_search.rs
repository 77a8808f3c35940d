//! JSON Lines search in parts on several threads against the one-thread
//! search: the same hits (records, lines, byte offsets, values), totals,
//! place to continue from, and invalid and oversized lines counted as
//! far as one thread reads, for any limit and any number of parts.

use plumb_core::{text_stream, BytesSource, Query, Request, ScanBounds};
use plumb_jsonl::{search, search_in_parts, JSONL_MAX_LINE_BYTES};
use proptest::prelude::*;
use serde_json::json;

const SIZE: usize = 3 << 20;

/// A file of records with blank lines, CRLF endings, lines that are not
/// JSON, multibyte text, and (with `oversized`) one line past the cap.
pub(super) fn file(seed: u64, oversized: bool) -> Vec<u8> {
    let mut out = Vec::new();
    let mut i = 0u64;
    while out.len() < SIZE {
        let x = i.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ seed;
        let line = match x % 13 {
            0 => "\n".to_owned(),
            1 => format!("{{\"id\":{i},\"broken\":\n"),
            2 => format!(
                "{{\"id\":{i},\"user\":{{\"name\":\"é{}\"}},\"n\":9007199254740993}}\r\n",
                x % 7
            ),
            _ => format!(
                "{{\"id\":{i},\"status\":\"{}\",\"user\":{{\"name\":\"u{}\"}},\"n\":{}}}\n",
                ["ok", "failed", "pending"][(x % 3) as usize],
                x % 500,
                x % 1000
            ),
        };
        out.extend_from_slice(line.as_bytes());
        if oversized && i == 20_000 {
            out.extend_from_slice(b"{\"pad\":\"");
            out.extend(std::iter::repeat_n(b'p', JSONL_MAX_LINE_BYTES + 10));
            out.extend_from_slice(b"\"}\n");
        }
        i += 1;
    }
    out
}

pub(super) fn query(options: &[(&str, &str)], limit: usize, count_only: bool) -> Query {
    let mut req = Request::default();
    for (k, v) in options {
        req.set(k, json!(v)).unwrap();
    }
    let mut q = Query::from_request(&req).unwrap();
    q.limit = limit;
    q.count_only = count_only;
    q
}

/// The one-thread answer and the parts' answer, as JSON text.
fn both(bytes: &[u8], field: Option<&str>, q: &Query, parts: usize) -> (String, Option<String>) {
    let src = BytesSource::new("t.jsonl", bytes.to_vec());
    let one = search(text_stream(&src).unwrap(), field, q).unwrap();
    let split = search_in_parts(&src, &ScanBounds::default(), field, q, parts).unwrap();
    (
        serde_json::to_string(&one).unwrap(),
        split.map(|s| serde_json::to_string(&s).unwrap()),
    )
}

#[test]
fn split_hits_are_the_one_thread_hits_for_any_limit() {
    for oversized in [false, true] {
        let bytes = file(3, oversized);
        let rare: &[(&str, &str)] = &[("where", "< 12")];
        let field = Some("/n");
        let (all, _) = both(&bytes, field, &query(rare, 0, true), 2);
        let total: serde_json::Value = serde_json::from_str(&all).unwrap();
        assert!(total["total"].as_u64().unwrap() > 100, "{all}");
        for limit in [0, 1, 9, 40, 150, 333, 500, 100_000] {
            for parts in 2..=4 {
                let (one, split) = both(&bytes, field, &query(rare, limit, false), parts);
                assert_eq!(
                    split.as_deref(),
                    Some(one.as_str()),
                    "limit {limit}, {parts} parts"
                );
            }
        }
        for parts in 2..=4 {
            let (one, split) = both(&bytes, field, &query(rare, 0, true), parts);
            assert_eq!(split.as_deref(), Some(one.as_str()), "count, {parts} parts");
        }
    }
}

#[test]
fn an_offset_or_a_bad_pointer_is_not_split() {
    let bytes = file(4, false);
    let mut q = query(&[("where", "= ok")], 5, false);
    q.offset = 3;
    assert_eq!(both(&bytes, Some("/status"), &q, 2).1, None);
    let src = BytesSource::new("t.jsonl", bytes);
    let err = search_in_parts(&src, &ScanBounds::default(), Some("status"), &q, 2).unwrap_err();
    assert_eq!(err.reason(), plumb_core::RefusalReason::InvalidArgument);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(10))]
    #[test]
    fn any_split_searches_as_one_thread(
        seed in proptest::num::u64::ANY,
        parts in 2usize..7,
        which in 0usize..4,
        limit in 0usize..4000,
        count_only in proptest::bool::ANY,
    ) {
        let bytes = file(seed, false);
        let (options, field): (&[(&str, &str)], _) = [
            (&[("where", "= failed")][..], Some("/status")),
            (&[("where", ">= 9007199254740993")][..], Some("/n")),
            (&[("pattern", "é")][..], None),
            (&[("pattern", "^U4"), ("ignore_case", "true")][..], Some("/user/name")),
        ][which];
        let q = query(options, limit, count_only);
        let (one, split) = both(&bytes, field, &q, parts);
        prop_assert_eq!(split.as_deref(), Some(one.as_str()));
    }
}

/// A search by several conditions splits as a search by one does: the
/// same hits and counts for any limit and any number of parts.
#[test]
fn split_conditions_are_the_one_thread_conditions() {
    let bytes = file(5, true);
    for mode in ["all", "any"] {
        let mut req = Request::default();
        req.set(
            "conditions",
            json!(["status = failed", "/n < 40", "/user/name ~ ^u1"]),
        )
        .unwrap()
        .set("match", json!(mode))
        .unwrap();
        let base = Query::judging_conditions(&req).unwrap();
        for (limit, count_only) in [(1, false), (37, false), (1000, false), (0, true)] {
            let mut q = base.clone();
            (q.limit, q.count_only) = (limit, count_only);
            for parts in [2, 3] {
                let (one, split) = both(&bytes, None, &q, parts);
                let answer: serde_json::Value = serde_json::from_str(&one).unwrap();
                assert!(answer["total"].as_u64().unwrap() > 0, "{one}");
                assert_eq!(answer["conditions"]["match"], mode);
                assert_eq!(
                    split.as_deref(),
                    Some(one.as_str()),
                    "{mode} {limit} {parts}"
                );
            }
        }
    }
}
