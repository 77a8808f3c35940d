//! JSON validate in parts: a root array cut between its elements gives
//! exactly the one-thread answer when every part confirms its cut, and
//! anything else (a fault, a separator inside a string, a duplicate key
//! past the first part, a root that is no array of containers) falls
//! back to the one-thread scan.

use plumb_core::{text_stream, BytesSource, ScanBounds, BINARY_SNIFF_BYTES};
use plumb_json::{validate, validate_in_parts, JsonValidate};
use proptest::prelude::*;
use serde_json::Value;

fn as_value(v: &JsonValidate) -> Value {
    serde_json::to_value(v).unwrap()
}

pub(super) fn sequential(bytes: &[u8]) -> Value {
    let src = BytesSource::new("t.json", bytes.to_vec());
    as_value(&validate(text_stream(&src).unwrap(), &ScanBounds::default()).unwrap())
}

/// The parts' answer, when they give one.
pub(super) fn parts_only(bytes: &[u8], parts: usize) -> Option<Value> {
    let src = BytesSource::new("t.json", bytes.to_vec());
    validate_in_parts(&src, parts)
        .unwrap()
        .map(|v| as_value(&v))
}

/// What `validate_source` answers when it tries `parts`.
fn in_parts(bytes: &[u8], parts: usize) -> Value {
    parts_only(bytes, parts).unwrap_or_else(|| sequential(bytes))
}

/// An element: an object with a nested array and object, a string
/// holding brackets, commas and escapes.
fn element(n: usize) -> Value {
    serde_json::json!({
        "id": n,
        "name": format!("n{n} \"q\" [x], {{y}}"),
        "tags": ["a", {"deep": [n, null, true]}],
        "v": n as f64 / 7.0,
    })
}

/// Elements enough to fill several parts past the sniffed head, laid
/// out minified, one per line, or pretty-printed.
pub(super) fn array(layout: u8, count: usize) -> Vec<u8> {
    let items: Vec<Value> = (0..count).map(element).collect();
    match layout {
        0 => serde_json::to_vec(&items).unwrap(),
        1 => {
            let lines: Vec<String> = items.iter().map(|v| v.to_string()).collect();
            format!("[\n{}\n]\n", lines.join(",\n")).into_bytes()
        }
        _ => serde_json::to_vec_pretty(&items).unwrap(),
    }
}

#[test]
fn a_valid_array_in_parts_answers_as_one_thread() {
    for layout in 1..=2 {
        let bytes = array(layout, 2000);
        assert!(bytes.len() > BINARY_SNIFF_BYTES * 8);
        let one = sequential(&bytes);
        assert_eq!(one["valid"], true);
        assert_eq!(one["rows_scanned"], 2000);
        for parts in 2..=8 {
            let got = parts_only(&bytes, parts)
                .unwrap_or_else(|| panic!("layout {layout}, {parts} parts: not split"));
            assert_eq!(got, one, "layout {layout}, {parts} parts");
        }
    }
}

#[test]
fn minified_elements_with_nested_arrays_of_objects_are_not_split() {
    // `},{` also separates the objects inside each element's `pairs`,
    // so the head teaches no separator of root elements alone.
    let nested: Vec<Value> = (0..2000)
        .map(|n| serde_json::json!({"id": n, "pairs": [{"a": n}, {"b": n}]}))
        .collect();
    let bytes = serde_json::to_vec(&nested).unwrap();
    for parts in 2..=4 {
        assert_eq!(parts_only(&bytes, parts), None);
        assert_eq!(in_parts(&bytes, parts), sequential(&bytes));
    }
    // Flat minified objects are.
    let flat: Vec<Value> = (0..3000)
        .map(|n| serde_json::json!({"id": n, "s": "x"}))
        .collect();
    let bytes = serde_json::to_vec(&flat).unwrap();
    let got = parts_only(&bytes, 3).expect("flat minified objects split");
    assert_eq!(got, sequential(&bytes));
}

#[test]
fn a_separator_inside_a_string_past_the_head_is_caught() {
    // The head is plain; later, every element's string holds the very
    // separator the head taught, so cuts there land inside strings.
    const PLAIN: usize = 110_000;
    let mut items: Vec<String> = (0..150_000).map(|n| format!("{{\"id\":{n}}}")).collect();
    let plain_bytes: usize = items[..PLAIN].iter().map(|i| i.len() + 1).sum();
    assert!(plain_bytes > 1 << 20, "the traps lie past the head");
    for (n, item) in items.iter_mut().enumerate().skip(PLAIN) {
        *item = format!("{{\"s\":\"}},{{}},{{}},{{\",\"id\":{n}}}");
    }
    let bytes = format!("[{}]", items.join(",")).into_bytes();
    let one = sequential(&bytes);
    assert_eq!(one["valid"], true);
    let mut refused = 0;
    for parts in 2..=16 {
        match parts_only(&bytes, parts) {
            Some(got) => assert_eq!(got, one, "{parts} parts"),
            None => refused += 1,
        }
    }
    // A cut inside a string must have been made, and caught, at least once.
    assert!(refused > 0);
}

#[test]
fn a_fault_in_any_part_gets_the_one_thread_answer() {
    let good = array(1, 2000);
    let text = String::from_utf8(good).unwrap();
    for at in [3, 500, 1200, 1990] {
        // Break element `at`'s value: `"id": at,` loses its value.
        let needle = format!("\"id\":{at},");
        let bad = text.replacen(&needle, "\"id\":,", 1).into_bytes();
        let one = sequential(&bad);
        assert_eq!(one["valid"], false, "element {at}");
        for parts in 2..=6 {
            assert_eq!(parts_only(&bad, parts), None, "element {at}, {parts} parts");
            assert_eq!(in_parts(&bad, parts), one);
        }
    }
    // Cut short, or with trailing bytes after the root.
    let cut = &text.as_bytes()[..text.len() - 5];
    let trailing = format!("{text} x").into_bytes();
    for bytes in [cut, &trailing[..]] {
        for parts in 2..=4 {
            assert_eq!(parts_only(bytes, parts), None);
            assert_eq!(in_parts(bytes, parts), sequential(bytes));
        }
    }
}

#[test]
fn a_duplicate_key_falls_back_past_the_first_part_and_counts_in_it() {
    let text = String::from_utf8(array(1, 2000)).unwrap();
    for at in [2, 1500] {
        let needle = format!("{{\"id\":{at},");
        let dup = text
            .replacen(&needle, &format!("{{\"id\":{at},\"id\":0,"), 1)
            .into_bytes();
        let one = sequential(&dup);
        assert_eq!(one["duplicate_keys"]["count"], 1);
        for parts in 2..=6 {
            assert_eq!(in_parts(&dup, parts), one, "element {at}, {parts} parts");
        }
    }
}

#[test]
fn roots_that_are_no_array_of_containers_are_not_split() {
    let scalars = format!(
        "[{}]",
        (0..20_000)
            .map(|n| n.to_string())
            .collect::<Vec<_>>()
            .join(",\n")
    );
    let object = format!("{{\"a\": {}}}", String::from_utf8(array(1, 500)).unwrap());
    for bytes in [scalars.as_bytes(), object.as_bytes(), b"[]".as_slice()] {
        assert_eq!(parts_only(bytes, 4), None);
    }
}

/// Strings that hold the separators, brackets, commas and escapes.
pub(super) fn tricky() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof![
            Just("},{"),
            Just("},\\n{"),
            Just("]"),
            Just(","),
            Just("\\\""),
            Just("x"),
            Just("\\\\"),
        ],
        0..6,
    )
    .prop_map(|parts| parts.concat())
}

/// `count` objects, each with one of `strings` (cycling), `,` or `,\n`
/// between them, and a repeated key in element `dup_at`.
pub(super) fn tricky_array(
    strings: &[String],
    count: usize,
    newline: bool,
    dup_at: Option<usize>,
) -> Vec<u8> {
    let sep = if newline { ",\n" } else { "," };
    let items: Vec<String> = (0..count)
        .map(|n| {
            let s = &strings[n % strings.len()];
            let dup = if dup_at == Some(n) { ",\"n\":0" } else { "" };
            format!("{{\"n\":{n},\"s\":\"{s}\"{dup}}}")
        })
        .collect();
    format!("[{}]", items.join(sep)).into_bytes()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    #[test]
    fn parts_agree_with_one_thread_on_any_array(
        strings in proptest::collection::vec(tricky(), 1..40),
        count in 300usize..1500,
        parts in 2usize..9,
        newline in any::<bool>(),
        dup_at in proptest::option::of(0usize..1500),
    ) {
        let bytes = tricky_array(&strings, count, newline, dup_at);
        let one = sequential(&bytes);
        prop_assert_eq!(in_parts(&bytes, parts), one);
    }
}

pub(super) fn inspect_sequential(bytes: &[u8], opts: &ScanBounds) -> Value {
    let src = BytesSource::new("t.json", bytes.to_vec());
    let answer = plumb_json::inspect_outlined(text_stream(&src).unwrap(), opts, 200).unwrap();
    serde_json::to_value(&answer).unwrap()
}

pub(super) fn inspect_parts_only(bytes: &[u8], opts: &ScanBounds, parts: usize) -> Option<Value> {
    let src = BytesSource::new("t.json", bytes.to_vec());
    plumb_json::inspect_in_parts(&src, opts, 200, parts)
        .unwrap()
        .map(|v| serde_json::to_value(&v).unwrap())
}

/// Elements whose keys, shapes and values change along the array: keys
/// first seen late, objects of other members, numbers a double
/// misstates only near the start, strings of every length.
pub(super) fn varied(count: usize) -> Vec<u8> {
    let items: Vec<String> = (0..count)
        .map(|n| match n % 7 {
            6 => format!("{{\"arr\":[{n}, \"x{n}\", {{\"in\": {}}}]}}", n % 3 == 0),
            _ => {
                let big = if n == 1 {
                    ",\"big\":9007199254740993"
                } else {
                    ""
                };
                let late = format!(",\"k{}\":{}", n / 400, n as f64 / 3.0);
                format!(
                    "{{\"id\":{n},\"s\":\"{}\",\"tags\":[\"a\",{n}]{big}{late}}}",
                    "y".repeat(n % 50)
                )
            }
        })
        .collect();
    format!("[\n{}\n]\n", items.join(",\n")).into_bytes()
}

#[test]
fn inspect_in_parts_answers_as_one_thread() {
    for bytes in [varied(3000), array(1, 2000), array(2, 2000)] {
        for sample_rows in [None, Some(0), Some(20)] {
            let opts = ScanBounds {
                sample_rows,
                ..ScanBounds::default()
            };
            let one = inspect_sequential(&bytes, &opts);
            for parts in 2..=8 {
                let got = inspect_parts_only(&bytes, &opts, parts)
                    .unwrap_or_else(|| panic!("{parts} parts, {sample_rows:?}: not split"));
                assert_eq!(got, one, "{parts} parts, {sample_rows:?} samples");
            }
        }
    }
}

#[test]
fn inspect_in_parts_falls_back_where_a_join_would_differ() {
    let text = String::from_utf8(varied(3000)).unwrap();
    // A precision fact and a duplicate key late in the array: their
    // pointers need the elements before them.
    let late_big = text.replacen("{\"id\":2900,", "{\"id\":2900,\"big\":1e400,", 1);
    let late_dup = text.replacen("{\"id\":2900,", "{\"id\":2900,\"id\":1,", 1);
    for bytes in [late_big.as_bytes(), late_dup.as_bytes()] {
        let opts = ScanBounds::default();
        let one = inspect_sequential(bytes, &opts);
        for parts in 2..=4 {
            if let Some(got) = inspect_parts_only(bytes, &opts, parts) {
                assert_eq!(got, one);
            }
        }
        assert_eq!(inspect_parts_only(bytes, &opts, 4), None);
    }
    // A row cap: one thread.
    let bytes = text.as_bytes();
    let capped = ScanBounds {
        max_rows: Some(10),
        ..ScanBounds::default()
    };
    assert_eq!(inspect_parts_only(bytes, &capped, 4), None);
}

/// The statistics of the path at `path` in an inspect answer.
fn path_stats<'a>(answer: &'a Value, path: &str) -> &'a Value {
    let paths = answer["outline"]["paths"].as_array().unwrap();
    let entry = paths.iter().find(|p| p["path"] == path).unwrap();
    &entry["stats"]
}

/// Statistics merge part by part: every fact and every figure labelled
/// exact is the one-thread answer's, each estimate is labelled alike,
/// and the estimates of `/*/id` (0 to n - 1, all distinct) are within
/// their stated error of the truth.
#[test]
fn statistics_in_parts_keep_exact_figures_and_estimates_within_their_error() {
    let n = 20_000u64;
    let items: Vec<String> = (0..n)
        .map(|i| {
            format!(
                "{{\"id\":{i},\"g\":{},\"s\":\"w{}\",\"x\":{}}}",
                i % 5,
                i % 300,
                i as f64 / 3.0
            )
        })
        .collect();
    let bytes = format!("[\n{}\n]\n", items.join(",\n")).into_bytes();
    let src = BytesSource::new("t.json", bytes.clone());
    let stats = plumb_json::OutlineOptions {
        paths: 200,
        stats: true,
    };
    let bounds = ScanBounds::default();
    let one = plumb_json::inspect_outlined(text_stream(&src).unwrap(), &bounds, stats).unwrap();
    let one = serde_json::to_value(&one).unwrap();
    plumb_testkit::stats::check_all_distinct(path_stats(&one, "/*/id"), n).unwrap();
    for parts in [2, 3, 5] {
        let got = plumb_json::inspect_in_parts(&src, &bounds, stats, parts)
            .unwrap()
            .expect("a clean array of objects");
        let got = serde_json::to_value(&got).unwrap();
        let exact = plumb_testkit::stats::stats_agree(&got, &one).unwrap();
        assert!(exact >= 15, "{exact} exact figures");
        let id = path_stats(&got, "/*/id");
        assert_eq!(id["accuracy"]["distinct"]["estimate"], "hyperloglog");
        plumb_testkit::stats::check_all_distinct(id, n).unwrap();
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]
    #[test]
    fn inspect_parts_agree_with_one_thread_on_any_array(
        strings in proptest::collection::vec(tricky(), 1..40),
        count in 300usize..1500,
        parts in 2usize..9,
        keys in 1usize..30,
    ) {
        let items: Vec<String> = (0..count)
            .map(|n| {
                let s = &strings[n % strings.len()];
                format!("{{\"n\":{n},\"k{}\":\"{s}\",\"v\":[{}]}}", (n * 7) % keys, n % 5)
            })
            .collect();
        let bytes = format!("[{}]", items.join(",\n")).into_bytes();
        let opts = ScanBounds::default();
        let one = inspect_sequential(&bytes, &opts);
        let got = inspect_parts_only(&bytes, &opts, parts).unwrap_or_else(|| one.clone());
        prop_assert_eq!(got, one);
    }
}

/// A part of a split inspect with statistics keeps statistics for at
/// most `STATS_SPLIT_PATHS` paths: elements of more paths are learnt on
/// one thread, while the same inspect without statistics splits.
#[test]
fn statistics_of_more_paths_than_a_part_keeps_fall_back() {
    let wide = plumb_json::STATS_SPLIT_PATHS / 30 + 2;
    let element = |i: usize| {
        let groups: Vec<String> = (0..wide)
            .map(|a| {
                let members: Vec<String> = (0..30).map(|b| format!("\"b{b}\":{}", i + b)).collect();
                format!("\"a{a}\":{{{}}}", members.join(","))
            })
            .collect();
        format!("{{{}}}", groups.join(","))
    };
    let items: Vec<String> = (0..600).map(element).collect();
    let bytes = format!("[\n{}\n]\n", items.join(",\n")).into_bytes();
    let bounds = ScanBounds::default();
    let one = inspect_sequential(&bytes, &bounds);
    assert_eq!(inspect_parts_only(&bytes, &bounds, 2), Some(one));
    let src = BytesSource::new("t.json", bytes);
    let stats = plumb_json::OutlineOptions {
        paths: 200,
        stats: true,
    };
    assert!(plumb_json::inspect_in_parts(&src, &bounds, stats, 2)
        .unwrap()
        .is_none());
}
