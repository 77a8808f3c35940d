//! JSON Lines validate and search in byte ranges run as tasks of their
//! own: parts travel as bytes and join in any order to the one-thread
//! answer; a validate range with an invalid line is unsettled and the
//! join gives nothing, for the caller to validate the whole file.

use plumb_core::{text_stream, BytesSource, Query, RangePart, RangePlan, ScanBounds};
use plumb_jsonl::{
    join_search_ranges, join_validate_ranges, plan_ranges, scan_search_range, scan_validate_range,
};
use proptest::prelude::*;

use super::parallel::{jsonl, sequential};
use super::parallel_search::{file, query};

/// Every range of `plan` searched, each part through bytes, given in
/// reverse with the first one twice.
fn search_parts(
    src: &BytesSource,
    field: Option<&str>,
    q: &Query,
    plan: &RangePlan,
) -> Vec<RangePart> {
    let mut parts: Vec<RangePart> = (0..plan.ranges())
        .map(|i| {
            let part = scan_search_range(src, &ScanBounds::default(), (field, q), plan, i);
            serde_json::from_slice(&serde_json::to_vec(&part).unwrap()).unwrap()
        })
        .collect();
    parts.reverse();
    parts.push(parts[parts.len() - 1].clone());
    parts
}

/// The one-thread search and the ranges' join, as JSON text.
fn searched(bytes: &[u8], field: Option<&str>, q: &Query, n: usize) -> (String, Option<String>) {
    let src = BytesSource::new("t.jsonl", bytes.to_vec());
    let one = plumb_jsonl::search(text_stream(&src).unwrap(), field, q).unwrap();
    let plan = plan_ranges(&src, &ScanBounds::default(), n)
        .unwrap()
        .expect("a file of megabytes is cut");
    assert!(plan.ranges() >= n.min(8), "{} ranges", plan.ranges());
    let parts = search_parts(&src, field, q, &plan);
    let joined = join_search_ranges((field, q), &plan, &parts);
    (
        serde_json::to_string(&one).unwrap(),
        joined.map(|j| serde_json::to_string(&j).unwrap()),
    )
}

#[test]
fn searched_ranges_join_to_the_one_thread_hits_for_any_limit() {
    for oversized in [false, true] {
        let bytes = file(7, oversized);
        let q = |limit, count| query(&[("where", "< 12")], limit, count);
        for n in [2, 5, 40] {
            for limit in [0, 1, 9, 150, 500, 100_000] {
                let (one, joined) = searched(&bytes, Some("/n"), &q(limit, false), n);
                assert_eq!(joined.as_deref(), Some(one.as_str()), "{limit}, {n} ranges");
            }
            let (one, joined) = searched(&bytes, Some("/n"), &q(0, true), n);
            assert_eq!(joined.as_deref(), Some(one.as_str()), "count, {n} ranges");
        }
    }
}

#[test]
fn a_searched_range_missing_or_of_another_plan_joins_nothing() {
    let bytes = file(8, false);
    let src = BytesSource::new("t.jsonl", bytes.clone());
    let q = query(&[("where", "= failed")], 50, false);
    let field = Some("/status");
    let plan = plan_ranges(&src, &ScanBounds::default(), 4)
        .unwrap()
        .unwrap();
    let parts = search_parts(&src, field, &q, &plan);
    assert!(join_search_ranges((field, &q), &plan, &parts).is_some());
    // Range 1 left out (the list is reversed: it is second to last).
    let mut missing = parts.clone();
    missing.retain(|p| p.index != 1);
    assert!(join_search_ranges((field, &q), &plan, &missing).is_none());
    let other = RangePlan {
        cuts: vec![0, plan.cuts[1], plan.len],
        ..plan.clone()
    };
    assert!(join_search_ranges((field, &q), &other, &parts).is_none());
    // A search from an offset, or of the last hits, is not cut.
    let mut later = q.clone();
    later.offset = 10;
    assert!(search_parts(&src, field, &later, &plan)
        .iter()
        .all(|p| !p.settled()));
    // A bad pointer settles nothing: the whole file's search refuses it.
    assert!(search_parts(&src, Some("status"), &q, &plan)
        .iter()
        .all(|p| !p.settled()));
}

fn parts(src: &BytesSource, plan: &RangePlan) -> Vec<RangePart> {
    (0..plan.ranges())
        .map(|i| {
            let part = scan_validate_range(src, &ScanBounds::default(), plan, i);
            serde_json::from_slice(&serde_json::to_vec(&part).unwrap()).unwrap()
        })
        .collect()
}

#[test]
fn a_plan_of_another_file_or_a_missing_range_joins_nothing() {
    let bytes = jsonl(&[(0, 1), (1, 2), (5, 7)], None);
    let src = BytesSource::new("t.jsonl", bytes.clone());
    let plan = plan_ranges(&src, &ScanBounds::default(), 3)
        .unwrap()
        .unwrap();
    let got = parts(&src, &plan);
    let one = sequential(&bytes).unwrap();
    assert_eq!(join_validate_ranges(&plan, &got), Some(one));
    assert_eq!(join_validate_ranges(&plan, &got[1..]), None);
    let other = RangePlan {
        cuts: vec![0, plan.cuts[1] + 1, plan.len],
        ..plan.clone()
    };
    assert_eq!(join_validate_ranges(&other, &got), None);
    // Scanned by that plan, whose cut is inside a line: not read.
    assert!(!parts(&src, &other)[1].settled());
    let csv = RangePlan {
        format: "csv".into(),
        ..plan.clone()
    };
    assert!(parts(&src, &csv).iter().all(|p| !p.settled()));
    // Too small to cut, or one part asked: no plan.
    let small = BytesSource::new("s.jsonl", b"{}\n[]\n".to_vec());
    assert_eq!(
        plan_ranges(&small, &ScanBounds::default(), 4).unwrap(),
        None
    );
    assert_eq!(plan_ranges(&src, &ScanBounds::default(), 1).unwrap(), None);
}

/// `parts` with the value at `pointer` in range 1's state set to `to`.
fn claiming(parts: &[RangePart], pointer: &str, to: serde_json::Value) -> Vec<RangePart> {
    let mut out = parts.to_vec();
    for p in out.iter_mut().filter(|p| p.index == 1) {
        *p.state.as_mut().unwrap().pointer_mut(pointer).unwrap() = to.clone();
    }
    out
}

#[test]
fn counts_a_part_claims_past_its_bytes_join_nothing() {
    let bytes = jsonl(&[(0, 1), (1, 2), (5, 7)], None);
    let src = BytesSource::new("t.jsonl", bytes.clone());
    let plan = plan_ranges(&src, &ScanBounds::default(), 3)
        .unwrap()
        .unwrap();
    let got = parts(&src, &plan);
    assert!(join_validate_ranges(&plan, &got).is_some());
    for pointer in ["/of/rows", "/of/blank_lines"] {
        let bad = claiming(&got, pointer, serde_json::json!(u64::MAX));
        assert_eq!(join_validate_ranges(&plan, &bad), None, "{pointer}");
    }
    let big = file(7, false);
    let src = BytesSource::new("t.jsonl", big.clone());
    let plan = plan_ranges(&src, &ScanBounds::default(), 3)
        .unwrap()
        .unwrap();
    let q = query(&[("pattern", "é")], 100_000, false);
    let found = search_parts(&src, None, &q, &plan);
    assert!(join_search_ranges((None, &q), &plan, &found).is_some());
    for pointer in [
        "/of/records",
        "/of/lines",
        "/of/invalid",
        "/of/progress/total",
    ] {
        let bad = claiming(&found, pointer, serde_json::json!(u64::MAX));
        assert!(
            join_search_ranges((None, &q), &plan, &bad).is_none(),
            "{pointer}"
        );
    }
    // A hit's place is offset saturating: an answer, not an overflow.
    let far = claiming(&found, "/of/hits/0/record", serde_json::json!(u64::MAX));
    assert!(join_search_ranges((None, &q), &plan, &far).is_some());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(10))]
    /// Any file, any number of ranges, any query and limit: the joined
    /// search is the one-thread search.
    #[test]
    fn any_ranges_search_as_one_thread(
        seed in proptest::num::u64::ANY,
        n in 2usize..12,
        which in 0usize..3,
        limit in 0usize..3000,
        count_only in proptest::bool::ANY,
    ) {
        let bytes = file(seed, false);
        let (options, field): (&[(&str, &str)], _) = [
            (&[("where", "= failed")][..], Some("/status")),
            (&[("pattern", "é")][..], None),
            (&[("pattern", "^U4"), ("ignore_case", "true")][..], Some("/user/name")),
        ][which];
        let (one, joined) = searched(&bytes, field, &query(options, limit, count_only), n);
        prop_assert_eq!(joined.as_deref(), Some(one.as_str()));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    /// Any lines, any broken line, any number of ranges, the parts in
    /// reverse with one twice: joined, the one-thread answer; with an
    /// invalid line, its range unsettled and nothing joined.
    #[test]
    fn ranges_join_to_the_one_thread_answer(
        lines in proptest::collection::vec((0u8..6, 0u32..4000), 1..10),
        bad in proptest::option::of(1usize..3000),
        n in 2usize..7,
    ) {
        let bytes = jsonl(&lines, bad);
        let one = sequential(&bytes).unwrap();
        let src = BytesSource::new("t.jsonl", bytes);
        let Some(plan) = plan_ranges(&src, &ScanBounds::default(), n).unwrap() else {
            return Ok(());
        };
        let mut got = parts(&src, &plan);
        got.reverse();
        got.push(got[0].clone());
        let joined = join_validate_ranges(&plan, &got);
        if one.valid == Some(true) {
            prop_assert_eq!(joined, Some(one));
        } else {
            prop_assert_eq!(joined, None);
            prop_assert!(got.iter().any(|p| !p.settled()));
        }
    }
}
