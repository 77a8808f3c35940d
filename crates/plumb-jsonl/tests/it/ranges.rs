//! JSON Lines validate in byte ranges run as tasks of their own: parts
//! travel as bytes and join in any order to the one-thread answer when
//! every line is valid; a range with an invalid line is unsettled and the
//! join gives nothing, for the caller to validate the whole file.

use plumb_core::{BytesSource, RangePart, RangePlan, ScanBounds};
use plumb_jsonl::{join_validate_ranges, plan_validate_ranges, scan_validate_range};
use proptest::prelude::*;

use super::parallel::{jsonl, sequential};

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
    let plan = plan_validate_ranges(&src, &ScanBounds::default(), 3)
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
        plan_validate_ranges(&small, &ScanBounds::default(), 4).unwrap(),
        None
    );
    assert_eq!(
        plan_validate_ranges(&src, &ScanBounds::default(), 1).unwrap(),
        None
    );
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
        let Some(plan) = plan_validate_ranges(&src, &ScanBounds::default(), n).unwrap() else {
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
