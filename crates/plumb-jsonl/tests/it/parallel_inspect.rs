//! JSON Lines inspect in parts on several threads against the one-thread
//! scan: when the parts answer, it is with the one-thread answer to the
//! last field (keys in first-seen order, types, samples, duplicate keys
//! and precision facts with their lines, the outline); where they cannot
//! promise that, they do not answer.

use plumb_core::{text_stream, BytesSource, ScanBounds, BINARY_SNIFF_BYTES};
use plumb_jsonl::{inspect_in_parts, inspect_outlined, JsonlInspect};
use proptest::prelude::*;
use serde_json::Value;

pub(super) const PATHS: usize = 200;

pub(super) fn sequential(bytes: &[u8], opts: &ScanBounds) -> Value {
    let src = BytesSource::new("t.jsonl", bytes.to_vec());
    let answer: JsonlInspect = inspect_outlined(text_stream(&src).unwrap(), opts, PATHS).unwrap();
    serde_json::to_value(answer).unwrap()
}

/// The parts' answer, or `None` when they gave none.
fn parts_answer(bytes: &[u8], opts: &ScanBounds, parts: usize) -> Option<Value> {
    let src = BytesSource::new("t.jsonl", bytes.to_vec());
    inspect_in_parts(&src, opts, PATHS, parts)
        .unwrap()
        .map(|a| serde_json::to_value(a).unwrap())
}

/// One record of kind `kind` (0 to 9), numbered `n`.
fn record(kind: u8, n: u32) -> String {
    match kind % 10 {
        0 => format!(
            "{{\"id\":{n},\"name\":\"user {n}\",\"tags\":[\"a\",\"b{}\"]}}\n",
            n % 4
        ),
        1 => format!("{{\"name\":\"x\",\"id\":{n}.5,\"extra\":{{\"deep\":[{n},null]}}}}\r\n"),
        2 => "\n".to_owned(),
        3 => format!("[{n}, true, \"t\"]\n"),
        4 => format!("{{\"id\":9007199254740993,\"v{}\":{n},\"id\":1}}\n", n % 7),
        5 => format!(
            "{{\"s\":\"{}\",\"when\":\"2024-01-0{}\"}}\n",
            "y".repeat(n as usize % 90),
            n % 9 + 1
        ),
        6 => format!("{n}\n"),
        7 => format!("{{\"id\":\"{n}\",\"flag\":{}}}\n", n.is_multiple_of(2)),
        8 => "null\n".to_owned(),
        _ => format!("{{\"big\":1e400,\"neg\":-{n}e-3,\"id\":null}}\n"),
    }
}

/// Records cycling through `kinds`, past the first part's minimum.
pub(super) fn file(kinds: &[(u8, u32)]) -> Vec<u8> {
    let mut out = String::new();
    let mut round = 0;
    while out.len() < BINARY_SNIFF_BYTES * 4 {
        for &(kind, n) in kinds {
            out.push_str(&record(kind, n.wrapping_add(round)));
        }
        round += 1;
    }
    out.into_bytes()
}

#[test]
fn a_file_of_mixed_records_is_answered_by_its_parts_exactly() {
    let bytes = file(&[
        (0, 1),
        (1, 2),
        (2, 0),
        (3, 4),
        (4, 5),
        (5, 6),
        (6, 7),
        (7, 8),
        (8, 0),
        (9, 3),
    ]);
    for sample_rows in [None, Some(1), Some(100)] {
        let opts = ScanBounds {
            sample_rows,
            ..ScanBounds::default()
        };
        let one = sequential(&bytes, &opts);
        assert!(one["duplicate_keys"]["count"].as_u64().unwrap() > 0);
        assert!(one["precision"]["count"].as_u64().unwrap() > 0);
        // Kind 4 repeats `id`: no path is carried by more objects than
        // there are.
        for p in one["outline"]["paths"].as_array().unwrap() {
            if let Some(present) = p.get("present") {
                assert!(present["in"].as_u64() <= present["of"].as_u64(), "{p}");
            }
        }
        for parts in 2..=4 {
            let got = parts_answer(&bytes, &opts, parts)
                .unwrap_or_else(|| panic!("{parts} parts gave no answer"));
            assert_eq!(got, one, "{parts} parts, sample {sample_rows:?}");
        }
    }
}

#[test]
fn records_whose_keys_only_later_parts_meet_keep_first_seen_order() {
    // Each quarter of the file brings new keys, and new nested paths.
    let mut text = String::new();
    for quarter in 0..4 {
        while text.len() < BINARY_SNIFF_BYTES * (quarter + 1) * 2 {
            text.push_str(&format!(
                "{{\"q{quarter}\":{{\"k{quarter}\":[{quarter}]}},\"n\":\"v{}\"}}\n",
                text.len() % 11
            ));
        }
    }
    // Facts with lines only near the end: a later part places them.
    text.push_str("{\"n\":1,\"n\":2}\n{\"q3\":18014398509481985}\n");
    let opts = ScanBounds::default();
    let one = sequential(text.as_bytes(), &opts);
    assert_eq!(
        one["key_order"],
        serde_json::json!(["q0", "n", "q1", "q2", "q3"])
    );
    let lines = one["lines_scanned"].as_u64().unwrap();
    assert_eq!(one["duplicate_keys"]["first"][0]["line"], lines - 1);
    assert_eq!(one["precision"]["first"][0]["line"], lines);
    for parts in 2..=4 {
        assert_eq!(
            parts_answer(text.as_bytes(), &opts, parts),
            Some(one.clone())
        );
    }
}

#[test]
fn where_the_parts_cannot_promise_the_answer_they_give_none() {
    // An invalid line in a later part: its message is placed by the
    // part's own count.
    let mut bytes = file(&[(0, 1), (3, 2)]);
    bytes.extend_from_slice(b"{\"broken\": }\n");
    bytes.extend(file(&[(0, 1)]));
    assert!(parts_answer(&bytes, &ScanBounds::default(), 2).is_none());
    // An invalid line in the first part is placed right: answered.
    let mut early = b"{\"broken\": }\n".to_vec();
    early.extend(file(&[(0, 1), (3, 2)]));
    let one = sequential(&early, &ScanBounds::default());
    assert_eq!(one["invalid_count"], 1);
    assert_eq!(parts_answer(&early, &ScanBounds::default(), 3), Some(one));
    // A wide object collapses in one outline; two halves would not know.
    let wide: String = (0..40)
        .map(|r| {
            let members: Vec<String> = (0..70)
                .map(|k| format!("\"w{}\":{k}", (r * 70 + k) % 300))
                .collect();
            format!("{{\"o\":{{{}}}}}\n", members.join(","))
        })
        .collect::<String>()
        .repeat(8);
    assert!(parts_answer(wide.as_bytes(), &ScanBounds::default(), 2).is_none());
    // More top-level keys than are tracked.
    let many: String = (0..plumb_jsonl::KEY_HISTOGRAM_CAP + 200)
        .map(|i| format!("{{\"key{i}\":{i},\"pad\":\"{}\"}}\n", "p".repeat(40)))
        .collect();
    assert!(parts_answer(many.as_bytes(), &ScanBounds::default(), 2).is_none());
    // A row cap.
    let plain = file(&[(0, 1)]);
    let capped = ScanBounds {
        max_rows: Some(10),
        ..ScanBounds::default()
    };
    assert!(parts_answer(&plain, &capped, 2).is_none());
}

/// Statistics merge part by part: every fact and every figure labelled
/// exact is the one-thread answer's, each estimate is labelled alike,
/// and the estimates of `/id` (0 to n - 1, all distinct) are within
/// their stated error of the truth.
#[test]
fn statistics_in_parts_keep_exact_figures_and_estimates_within_their_error() {
    let n = 40_000u64;
    let text: String = (0..n)
        .map(|i| {
            format!(
                "{{\"id\":{i},\"g\":{},\"in\":{{\"s\":\"w{}\"}},\"x\":{}}}\n",
                i % 5,
                i % 300,
                i as f64 / 3.0
            )
        })
        .collect();
    let src = BytesSource::new("t.jsonl", text.into_bytes());
    let stats = plumb_json::OutlineOptions {
        paths: PATHS,
        stats: true,
    };
    let bounds = ScanBounds::default();
    let one = inspect_outlined(text_stream(&src).unwrap(), &bounds, stats).unwrap();
    let one = serde_json::to_value(&one).unwrap();
    let id_stats = |answer: &Value| {
        let paths = answer["outline"]["paths"].as_array().unwrap();
        let entry = paths.iter().find(|p| p["path"] == "/id").unwrap();
        entry["stats"].clone()
    };
    plumb_testkit::stats::check_all_distinct(&id_stats(&one), n).unwrap();
    for parts in [2, 3, 5] {
        let got = inspect_in_parts(&src, &bounds, stats, parts)
            .unwrap()
            .expect("valid lines");
        let got = serde_json::to_value(&got).unwrap();
        let exact = plumb_testkit::stats::stats_agree(&got, &one).unwrap();
        assert!(exact >= 15, "{exact} exact figures");
        let id = id_stats(&got);
        assert_eq!(id["accuracy"]["distinct"]["estimate"], "hyperloglog");
        plumb_testkit::stats::check_all_distinct(&id, n).unwrap();
    }
}

/// A part of a split inspect with statistics keeps statistics for at
/// most `STATS_SPLIT_PATHS` paths: records of more paths are learnt on
/// one thread, while the same scan without statistics splits.
#[test]
fn statistics_of_more_paths_than_a_part_keeps_fall_back() {
    let wide = plumb_json::STATS_SPLIT_PATHS / 30 + 2;
    let record = |i: usize| {
        let groups: Vec<String> = (0..wide)
            .map(|a| {
                let members: Vec<String> = (0..30).map(|b| format!("\"b{b}\":{}", i + b)).collect();
                format!("\"a{a}\":{{{}}}", members.join(","))
            })
            .collect();
        format!("{{{}}}\n", groups.join(","))
    };
    let text: String = (0..600).map(record).collect();
    let bounds = ScanBounds::default();
    let one = sequential(text.as_bytes(), &bounds);
    assert_eq!(parts_answer(text.as_bytes(), &bounds, 2), Some(one));
    let src = BytesSource::new("t.jsonl", text.into_bytes());
    let stats = plumb_json::OutlineOptions {
        paths: PATHS,
        stats: true,
    };
    assert!(inspect_in_parts(&src, &bounds, stats, 2).unwrap().is_none());
    // Narrower records split with statistics.
    let narrow: String = (0..4000)
        .map(|i| format!("{{\"a\":{{\"b\":{i}}},\"c\":\"x{}\"}}\n", i % 9))
        .collect();
    let src = BytesSource::new("t.jsonl", narrow.into_bytes());
    assert!(inspect_in_parts(&src, &bounds, stats, 2).unwrap().is_some());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    /// Any mix of records: the parts give the one-thread answer, and
    /// give one whenever no line past the first part is invalid.
    #[test]
    fn any_mix_joins_to_the_one_thread_answer(
        kinds in prop::collection::vec((0u8..10, 0u32..1000), 1..24),
        parts in 2usize..=4,
        samples in prop_oneof![Just(None), (1usize..40).prop_map(Some)],
    ) {
        let bytes = file(&kinds);
        let opts = ScanBounds { sample_rows: samples, ..ScanBounds::default() };
        let one = sequential(&bytes, &opts);
        let got = parts_answer(&bytes, &opts, parts);
        prop_assert_eq!(got, Some(one));
    }
}
