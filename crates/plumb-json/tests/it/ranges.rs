//! JSON validate and inspect in byte ranges run as tasks of their own: a root array
//! cut between its elements, each range's part through bytes, joined in
//! any order, gives the one-thread answer exactly when every range
//! confirms its cut (the split scan's rule); a fault, a cut inside a
//! string, a duplicate key past the first range, or a part no scan
//! makes give nothing, and the caller validates the whole file.

use plumb_core::{BytesSource, RangePart, RangePlan, ScanBounds};
use plumb_json::{
    join_inspect_ranges, join_validate_ranges, plan_ranges, scan_inspect_range,
    scan_validate_range, OutlineOptions,
};
use proptest::prelude::*;
use serde_json::{json, Value};

use super::parallel::{
    array, inspect_parts_only, inspect_sequential, parts_only, sequential, tricky, tricky_array,
    varied,
};

/// The plan of up to `n` ranges and each range's part through bytes, in
/// reverse with the last twice; `None` when the file is not cut.
fn planned(bytes: &[u8], n: usize) -> Option<(RangePlan, Vec<RangePart>)> {
    let src = BytesSource::new("t.json", bytes.to_vec());
    let opts = ScanBounds::default();
    let plan = plan_ranges(&src, &opts, n).unwrap()?;
    let mut parts: Vec<RangePart> = (0..plan.ranges())
        .map(|i| {
            let part = scan_validate_range(&src, &opts, &plan, i);
            serde_json::from_slice(&serde_json::to_vec(&part).unwrap()).unwrap()
        })
        .collect();
    parts.reverse();
    parts.push(parts[0].clone());
    Some((plan, parts))
}

fn joined(plan: &RangePlan, parts: &[RangePart]) -> Option<Value> {
    join_validate_ranges(plan, parts).map(|v| serde_json::to_value(v).unwrap())
}

/// The ranges' joined answer; `None` when not cut or not joined.
fn ranged(bytes: &[u8], n: usize) -> Option<Value> {
    let (plan, parts) = planned(bytes, n)?;
    joined(&plan, &parts)
}

#[test]
fn a_valid_array_in_ranges_answers_as_one_thread() {
    for layout in 1..=2 {
        let bytes = array(layout, 20_000);
        let one = sequential(&bytes);
        assert_eq!(one["valid"], true);
        for n in [2, 5, 40] {
            let (plan, parts) = planned(&bytes, n).expect("cut");
            assert!(
                plan.ranges() > n / 2,
                "layout {layout}: {} of {n}",
                plan.ranges()
            );
            assert!(parts.iter().all(RangePart::settled));
            assert_eq!(
                joined(&plan, &parts).as_ref(),
                Some(&one),
                "layout {layout}, {n}"
            );
            let some: Vec<RangePart> = parts.iter().filter(|p| p.index != 1).cloned().collect();
            assert_eq!(joined(&plan, &some), None, "a range left out");
        }
    }
}

#[test]
fn a_separator_inside_a_string_is_caught_by_the_range_after_it() {
    const PLAIN: usize = 110_000;
    let mut items: Vec<String> = (0..150_000).map(|n| format!("{{\"id\":{n}}}")).collect();
    for (n, item) in items.iter_mut().enumerate().skip(PLAIN) {
        *item = format!("{{\"s\":\"}},{{}},{{}},{{\",\"id\":{n}}}");
    }
    let bytes = format!("[{}]", items.join(",")).into_bytes();
    let one = sequential(&bytes);
    let mut refused = 0;
    for n in 2..=16 {
        match ranged(&bytes, n) {
            Some(got) => assert_eq!(got, one, "{n} ranges"),
            None => refused += 1,
        }
    }
    assert!(refused > 0, "a cut inside a string was made and caught");
}

#[test]
fn a_fault_or_a_late_duplicate_leaves_the_join_empty() {
    // Faults past the head, which the planner parses.
    let text = String::from_utf8(array(1, 20_000)).unwrap();
    let broken = text.replacen("\"id\":15000,", "\"id\":,", 1).into_bytes();
    let (plan, parts) = planned(&broken, 4).unwrap();
    assert_eq!(parts.iter().filter(|p| !p.settled()).count(), 1);
    assert_eq!(joined(&plan, &parts), None);
    // A duplicate key in the first range counts; past it, the file is
    // read whole.
    for (at, joins) in [(2, true), (15_000, false)] {
        let needle = format!("{{\"id\":{at},");
        let dup = text
            .replacen(&needle, &format!("{{\"id\":{at},\"id\":0,"), 1)
            .into_bytes();
        let one = sequential(&dup);
        assert_eq!(one["duplicate_keys"]["count"], 1);
        let got = ranged(&dup, 4);
        assert_eq!(got.is_some(), joins, "element {at}");
        if let Some(got) = got {
            assert_eq!(got, one);
        }
    }
}

#[test]
fn a_part_no_scan_makes_is_refused() {
    let bytes = array(1, 4000);
    let (plan, parts) = planned(&bytes, 3).unwrap();
    assert!(joined(&plan, &parts).is_some());
    let cases = [
        ("rows past the bytes", "/of/rows", json!(u64::MAX)),
        (
            "precision counts that do not add up",
            "/of/structure/precision/count",
            json!(3),
        ),
        (
            "more first facts than counted",
            "/of/structure/duplicates/first",
            json!([{"pointer": "", "key": "a"}]),
        ),
        (
            "a late duplicate",
            "/of/structure/duplicates/count",
            json!(1),
        ),
    ];
    for (what, pointer, to) in cases {
        let mut bad = parts.clone();
        for p in bad.iter_mut().filter(|p| p.index == 1) {
            *p.state.as_mut().unwrap().pointer_mut(pointer).unwrap() = to.clone();
        }
        assert_eq!(joined(&plan, &bad), None, "{what}");
    }
    let mut extra = parts.clone();
    for p in extra.iter_mut().filter(|p| p.index == 0) {
        p.state.as_mut().unwrap()["of"]["extra"] = json!(1);
    }
    assert_eq!(joined(&plan, &extra), None, "a field no part has");
    // A plan that is not the file's is not read.
    let src = BytesSource::new("t.json", bytes.clone());
    let longer = RangePlan {
        len: plan.len + 1,
        ..plan.clone()
    };
    assert!(!scan_validate_range(&src, &ScanBounds::default(), &longer, 0).settled());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    /// Any array of tricky strings, any ranges, a duplicate key
    /// anywhere: the ranges join to the one-thread answer exactly when
    /// the split scan on threads (on the same cuts) does.
    #[test]
    fn ranges_agree_with_the_split_scan_on_any_array(
        strings in proptest::collection::vec(tricky(), 1..40),
        count in 300usize..1500,
        n in 2usize..9,
        newline in any::<bool>(),
        dup_at in proptest::option::of(0usize..1500),
    ) {
        let bytes = tricky_array(&strings, count, newline, dup_at);
        let got = ranged(&bytes, n);
        prop_assert_eq!(&got, &parts_only(&bytes, n));
        if let Some(got) = got {
            prop_assert_eq!(got, sequential(&bytes));
        }
    }
}

/// Each range inspected (an outline listing 200 paths, as the split
/// scan's tests ask), through bytes, in reverse; the plan and parts.
fn inspected(bytes: &[u8], opts: &ScanBounds, n: usize) -> Option<(RangePlan, Vec<RangePart>)> {
    let src = BytesSource::new("t.json", bytes.to_vec());
    let plan = plan_ranges(&src, opts, n).unwrap()?;
    let mut parts: Vec<RangePart> = (0..plan.ranges())
        .map(|i| {
            let part = scan_inspect_range(&src, opts, OutlineOptions::from(200), &plan, i);
            serde_json::from_slice(&serde_json::to_vec(&part).unwrap()).unwrap()
        })
        .collect();
    parts.reverse();
    Some((plan, parts))
}

fn inspect_joined(plan: &RangePlan, parts: &[RangePart], opts: &ScanBounds) -> Option<Value> {
    join_inspect_ranges(opts, OutlineOptions::from(200), plan, parts)
        .map(|a| serde_json::to_value(a).unwrap())
}

#[test]
fn an_inspected_array_in_ranges_answers_as_one_thread() {
    for bytes in [varied(20_000), array(1, 20_000), array(2, 20_000)] {
        for sample_rows in [None, Some(0), Some(20)] {
            let opts = ScanBounds {
                sample_rows,
                ..ScanBounds::default()
            };
            let one = inspect_sequential(&bytes, &opts);
            for n in [2, 5, 40] {
                let (plan, parts) = inspected(&bytes, &opts, n).expect("cut");
                assert!(parts.iter().all(RangePart::settled), "{n} ranges");
                let got = inspect_joined(&plan, &parts, &opts);
                assert_eq!(got.as_ref(), Some(&one), "{n} ranges, {sample_rows:?}");
            }
        }
    }
    // Statistics do not travel: no range settles.
    let bytes = array(1, 20_000);
    let src = BytesSource::new("t.json", bytes.clone());
    let opts = ScanBounds::default();
    let plan = plan_ranges(&src, &opts, 3).unwrap().unwrap();
    let stats = OutlineOptions {
        paths: 200,
        stats: true,
    };
    assert!((0..plan.ranges()).all(|i| !scan_inspect_range(&src, &opts, stats, &plan, i).settled()));
}

#[test]
fn inspected_ranges_join_where_the_split_scan_does_and_refuse_what_no_scan_makes() {
    let text = String::from_utf8(varied(20_000)).unwrap();
    let late_dup = text.replacen("{\"id\":19000,", "{\"id\":19000,\"id\":1,", 1);
    let opts = ScanBounds::default();
    for n in 2..=6 {
        let (plan, parts) = inspected(late_dup.as_bytes(), &opts, n).unwrap();
        assert_eq!(
            inspect_joined(&plan, &parts, &opts),
            inspect_parts_only(late_dup.as_bytes(), &opts, n),
            "{n} ranges"
        );
    }
    let (plan, parts) = inspected(text.as_bytes(), &opts, 3).unwrap();
    assert!(inspect_joined(&plan, &parts, &opts).is_some());
    let cases = [
        ("rows past the bytes", "/of/rows", json!(u64::MAX)),
        ("a type no value has", "/of/types", json!({"date": 1})),
        ("a listed key never counted", "/of/keys", json!(["nowhere"])),
        ("a key listed twice", "/of/keys", json!(["id", "id"])),
        ("a sample that is not JSON", "/of/samples", json!(["{"])),
        (
            "an outline path of no parent",
            "/of/outline/paths/1/types",
            json!("x"),
        ),
    ];
    for (what, pointer, to) in cases {
        let mut bad = parts.clone();
        for p in bad.iter_mut().filter(|p| p.index == 0) {
            *p.state.as_mut().unwrap().pointer_mut(pointer).unwrap() = to.clone();
        }
        assert_eq!(inspect_joined(&plan, &bad, &opts), None, "{what}");
    }
}
