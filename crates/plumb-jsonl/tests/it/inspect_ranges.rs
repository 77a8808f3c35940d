//! JSON Lines inspect in byte ranges run as tasks of their own: each
//! range's facts travel as bytes, join in any order, and give the
//! one-thread answer (keys in first-seen order, types and their first
//! lines, samples, duplicate keys and precision facts with their lines,
//! the outline); a range with an invalid line, statistics asked for, or
//! a part no scan makes give nothing, and the caller reads the file
//! whole.

use plumb_core::{BytesSource, RangePart, RangePlan, ScanBounds};
use plumb_json::OutlineOptions;
use plumb_jsonl::{inspect_in_parts, join_inspect_ranges, plan_ranges, scan_inspect_range};
use proptest::prelude::*;
use serde_json::{json, Value};

use super::parallel_inspect::{file, sequential, PATHS};

fn listing() -> OutlineOptions {
    OutlineOptions::from(PATHS)
}

/// The plan of `n` ranges and every range's part, each through bytes,
/// in reverse with the last one twice.
fn planned(bytes: &[u8], opts: &ScanBounds, n: usize) -> (RangePlan, Vec<RangePart>) {
    let src = BytesSource::new("t.jsonl", bytes.to_vec());
    let plan = plan_ranges(&src, opts, n)
        .unwrap()
        .expect("the file is cut");
    let mut parts: Vec<RangePart> = (0..plan.ranges())
        .map(|i| {
            let part = scan_inspect_range(&src, opts, listing(), &plan, i);
            serde_json::from_slice(&serde_json::to_vec(&part).unwrap()).unwrap()
        })
        .collect();
    parts.reverse();
    parts.push(parts[0].clone());
    (plan, parts)
}

fn joined(plan: &RangePlan, parts: &[RangePart], opts: &ScanBounds) -> Option<Value> {
    join_inspect_ranges(opts, listing(), plan, parts).map(|a| serde_json::to_value(a).unwrap())
}

fn mixed(times: usize) -> Vec<u8> {
    let one = file(&[
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
    one.repeat(times)
}

#[test]
fn inspected_ranges_join_to_the_one_thread_answer() {
    let bytes = mixed(40);
    for sample_rows in [None, Some(1), Some(100)] {
        let opts = ScanBounds {
            sample_rows,
            ..ScanBounds::default()
        };
        let one = sequential(&bytes, &opts);
        assert!(one["duplicate_keys"]["count"].as_u64().unwrap() > 0);
        assert!(one["precision"]["count"].as_u64().unwrap() > 0);
        for n in [2, 5, 40] {
            let (plan, parts) = planned(&bytes, &opts, n);
            assert_eq!(plan.ranges(), n);
            assert!(parts.iter().all(RangePart::settled), "{n} ranges");
            assert_eq!(
                joined(&plan, &parts, &opts).as_ref(),
                Some(&one),
                "{n} ranges"
            );
            // Without any one range, nothing is joined.
            let some: Vec<RangePart> = parts.iter().filter(|p| p.index != 1).cloned().collect();
            assert_eq!(joined(&plan, &some, &opts), None);
        }
    }
}

#[test]
fn an_invalid_line_or_statistics_leave_the_join_empty() {
    let mut bytes = mixed(10);
    let at = bytes.len() * 2 / 3;
    let line = at + bytes[at..].iter().position(|&b| b == b'\n').unwrap() + 1;
    bytes.splice(line..line, b"{\"id\": }\n".iter().copied());
    let opts = ScanBounds::default();
    let (plan, parts) = planned(&bytes, &opts, 4);
    let unsettled: Vec<usize> = parts
        .iter()
        .filter(|p| !p.settled())
        .map(|p| p.index)
        .collect();
    assert_eq!(unsettled, [2], "only the range of the broken line");
    assert_eq!(joined(&plan, &parts, &opts), None);
    // Statistics' sketches do not travel in a part: no range settles.
    let clean = mixed(10);
    let src = BytesSource::new("t.jsonl", clean.clone());
    let (plan, parts) = planned(&clean, &opts, 3);
    let stats = OutlineOptions {
        paths: PATHS,
        stats: true,
    };
    assert!((0..plan.ranges()).all(|i| !scan_inspect_range(&src, &opts, stats, &plan, i).settled()));
    assert!(join_inspect_ranges(&opts, stats, &plan, &parts).is_none());
}

/// `parts` with the value at `pointer` in range `index`'s state changed
/// by `change`.
fn tampered(
    parts: &[RangePart],
    index: usize,
    pointer: &str,
    change: impl Fn(&mut Value),
) -> Vec<RangePart> {
    let mut out = parts.to_vec();
    for p in out.iter_mut().filter(|p| p.index == index) {
        let state = p.state.as_mut().expect("settled");
        change(
            state
                .pointer_mut(pointer)
                .unwrap_or_else(|| panic!("{pointer} in {index}")),
        );
    }
    out
}

#[test]
fn a_part_no_scan_makes_is_refused() {
    let bytes = mixed(10);
    let opts = ScanBounds::default();
    let (plan, parts) = planned(&bytes, &opts, 3);
    assert!(joined(&plan, &parts, &opts).is_some());
    let f = "/of/facts";
    let o = "/of/facts/outline/paths";
    let cases = [
        (
            "rows past the bytes",
            1,
            format!("{f}/rows"),
            json!(u64::MAX),
        ),
        (
            "lines past the bytes",
            1,
            format!("{f}/lines"),
            json!(u64::MAX),
        ),
        (
            "rows of no root type",
            0,
            format!("{f}/root_types/0"),
            json!(0),
        ),
        (
            "a key of more rows than read",
            0,
            format!("{f}/keys/0/count"),
            json!(u64::MAX),
        ),
        (
            "a type never first read",
            0,
            format!("{f}/keys/0/first_lines"),
            json!([0, 0, 0, 0, 0, 0]),
        ),
        (
            "a key twice",
            0,
            format!("{f}/keys/1/raw"),
            json!([105, 100]),
        ),
        (
            "a sample that is not JSON",
            0,
            format!("{f}/sample/0"),
            json!("{\"a\":"),
        ),
        (
            "a sample without its cut flag",
            0,
            format!("{f}/sample_cuts"),
            json!([]),
        ),
        (
            "a duplicate past the lines",
            1,
            format!("{f}/dups/first/0/line"),
            json!(u64::MAX),
        ),
        (
            "duplicates past the bytes",
            1,
            format!("{f}/dups/count"),
            json!(u64::MAX),
        ),
        (
            "precision by kind not adding up",
            0,
            format!("{f}/structure/precision/count"),
            json!(1),
        ),
        (
            "a path out of the list",
            0,
            format!("{o}/0/members/0/1"),
            json!(100_000),
        ),
        ("a path of two parents", 0, format!("{o}/0/items"), json!(1)),
        (
            "repeats past the values",
            0,
            format!("{o}/0/repeats"),
            json!(u64::MAX),
        ),
        (
            "a range out of order",
            0,
            format!("{o}/1/range/small"),
            json!([9, 1]),
        ),
        (
            "a first range's BOM in a later one",
            1,
            "/of/bom".to_owned(),
            json!(true),
        ),
    ];
    // A path (not the root) with members: its first member made the
    // root, or itself.
    let first = parts.iter().find(|p| p.index == 0).unwrap();
    let paths = first.state.as_ref().unwrap().pointer(o).unwrap().clone();
    let inner = (1..paths.as_array().unwrap().len())
        .find(|&i| paths[i].get("members").is_some())
        .expect("a nested object's path");
    let under = format!("{o}/{inner}/members/0/1");
    // The last path is a leaf: given the root as a member, every path
    // has one parent, in a loop.
    let leaf = format!("{o}/{}", paths.as_array().unwrap().len() - 1);
    let looped = tampered(&parts, 0, &leaf, |v| v["members"] = json!([["loop", 0]]));
    assert_eq!(
        joined(&plan, &looped, &opts),
        None,
        "a loop through the root"
    );
    let cases = cases.into_iter().chain([
        ("a path above its parent", 0, under.clone(), json!(0)),
        ("a path its own child", 0, under, json!(inner)),
    ]);
    for (what, index, pointer, to) in cases {
        let bad = tampered(&parts, index, &pointer, |v| *v = to.clone());
        assert_eq!(joined(&plan, &bad, &opts), None, "{what}");
    }
    let extra = tampered(&parts, 0, f, |v| v["extra"] = json!(1));
    assert_eq!(joined(&plan, &extra, &opts), None, "a field no state has");
    // The same part untouched joins.
    let same = tampered(&parts, 0, &format!("{f}/rows"), |_| {});
    assert!(joined(&plan, &same, &opts).is_some());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    /// Any mix of records, any number of ranges, any sample: the
    /// ranges join to the one-thread answer, which the split scan on
    /// threads gives too.
    #[test]
    fn any_mix_of_ranges_inspects_as_one_thread(
        kinds in prop::collection::vec((0u8..10, 0u32..1000), 1..24),
        times in 1usize..6,
        n in 2usize..12,
        samples in prop_oneof![Just(None), (1usize..40).prop_map(Some)],
    ) {
        let bytes = file(&kinds).repeat(times);
        let opts = ScanBounds { sample_rows: samples, ..ScanBounds::default() };
        let one = sequential(&bytes, &opts);
        let src = BytesSource::new("t.jsonl", bytes.clone());
        let Some(plan) = plan_ranges(&src, &opts, n).unwrap() else {
            return Err(TestCaseError::fail("not cut"));
        };
        let (plan, parts) = (plan.clone(), planned(&bytes, &opts, n).1);
        prop_assert_eq!(joined(&plan, &parts, &opts), Some(one.clone()));
        let threads = inspect_in_parts(&src, &opts, PATHS, n.min(8)).unwrap();
        prop_assert_eq!(threads.map(|a| serde_json::to_value(a).unwrap()), Some(one));
    }
}
