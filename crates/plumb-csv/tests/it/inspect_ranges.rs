//! CSV inspect in byte ranges run as tasks of their own: each range's
//! column facts travel as bytes, join in any order, and give the
//! one-thread answer (samples, first records, precision examples, date
//! and code ends included); a range that met a fault, statistics asked
//! for, or a part no scan makes give nothing, and the caller reads the
//! file whole.

use plumb_core::{BytesSource, RangePart, RangePlan};
use plumb_csv::{
    inspect_in_parts, join_inspect_ranges, plan_ranges, scan_inspect_range, CsvFormat, CsvInspect,
    CsvOptions,
};
use proptest::prelude::*;
use serde_json::{json, Value};

use super::parallel_inspect::{sequential, shapes, table, Shape};

/// Every range of `plan` inspected, each part through bytes, in
/// reverse with the last one twice.
fn inspected(
    src: &BytesSource,
    format: CsvFormat,
    opts: &CsvOptions,
    plan: &RangePlan,
) -> Vec<RangePart> {
    let mut got: Vec<RangePart> = (0..plan.ranges())
        .map(|i| {
            let part = scan_inspect_range(src, format, opts, plan, i);
            serde_json::from_slice(&serde_json::to_vec(&part).unwrap()).unwrap()
        })
        .collect();
    got.reverse();
    got.push(got[0].clone());
    got
}

/// The plan of `n` ranges, and its parts.
fn planned(
    bytes: &[u8],
    format: CsvFormat,
    opts: &CsvOptions,
    n: usize,
) -> (RangePlan, Vec<RangePart>) {
    let src = BytesSource::new("t.csv", bytes.to_vec());
    let plan = plan_ranges(&src, format, opts, n)
        .unwrap()
        .expect("a file of megabytes is cut");
    let parts = inspected(&src, format, opts, &plan);
    (plan, parts)
}

fn ranged(bytes: &[u8], format: CsvFormat, opts: &CsvOptions, n: usize) -> Option<CsvInspect> {
    let (plan, parts) = planned(bytes, format, opts, n);
    join_inspect_ranges(format, opts, &plan, &parts)
}

fn brief(on: bool) -> CsvOptions {
    let mut opts = CsvOptions::default();
    opts.scan.brief = on;
    opts
}

#[test]
fn inspected_ranges_join_to_the_one_thread_answer() {
    for (shape, format) in shapes() {
        let bytes = table(&shape);
        for opts in [brief(false), brief(true)] {
            let one = sequential(&bytes, format, &opts);
            assert!(one.issues.is_empty());
            for n in [2, 5, 40] {
                let (plan, parts) = planned(&bytes, format, &opts, n);
                assert!(parts.iter().all(RangePart::settled), "{n} ranges");
                let got = join_inspect_ranges(format, &opts, &plan, &parts);
                assert_eq!(got.as_ref(), Some(&one), "{n} ranges, {shape:?}");
                // Without any one range, nothing is joined.
                let some: Vec<RangePart> = parts.iter().filter(|p| p.index != 1).cloned().collect();
                assert_eq!(join_inspect_ranges(format, &opts, &plan, &some), None);
            }
        }
    }
}

#[test]
fn a_fault_or_statistics_leave_the_join_empty() {
    let shape = &shapes()[0].0;
    let mut bytes = table(shape);
    // A short row past the first range.
    let at = bytes.len() * 2 / 3;
    let line = at + bytes[at..].iter().position(|&b| b == b'\n').unwrap() + 1;
    bytes.splice(line..line, b"1,short\n".iter().copied());
    let opts = CsvOptions::default();
    let one = sequential(&bytes, CsvFormat::Csv, &opts);
    assert_eq!(one.issue_count, 1);
    let (plan, parts) = planned(&bytes, CsvFormat::Csv, &opts, 4);
    let unsettled = parts.iter().filter(|p| !p.settled()).count();
    assert_eq!(unsettled, 1, "only the range of the short row");
    assert_eq!(
        join_inspect_ranges(CsvFormat::Csv, &opts, &plan, &parts),
        None
    );
    // Statistics' sketches do not travel in a part: no range settles.
    let clean = table(shape);
    let stats = CsvOptions {
        stats: true,
        ..CsvOptions::default()
    };
    let (plan, parts) = planned(&clean, CsvFormat::Csv, &CsvOptions::default(), 3);
    let src = BytesSource::new("t.csv", clean.clone());
    let with_stats = inspected(&src, CsvFormat::Csv, &stats, &plan);
    assert!(with_stats.iter().all(|p| !p.settled()));
    assert_eq!(
        join_inspect_ranges(CsvFormat::Csv, &stats, &plan, &parts),
        None
    );
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
    let (shape, format) = &shapes()[0];
    let bytes = table(shape);
    let opts = CsvOptions::default();
    let (plan, parts) = planned(&bytes, *format, &opts, 3);
    let join = |parts: &[RangePart]| join_inspect_ranges(*format, &opts, &plan, parts);
    assert!(join(&parts).is_some());
    let col = "/of/found/columns";
    let cases = [
        (
            "rows past the bytes",
            1,
            "/of/summary/rows".to_owned(),
            json!(u64::MAX),
        ),
        (
            "a row wider than the bytes",
            1,
            "/of/found/widest".into(),
            json!(u64::MAX),
        ),
        (
            "more cells than rows",
            0,
            format!("{col}/0/classes/2"),
            json!(u64::MAX / 2),
        ),
        (
            "a class never first read",
            0,
            format!("{col}/0/firsts/2"),
            json!(0),
        ),
        (
            "a first record past the range",
            2,
            format!("{col}/0/firsts/2"),
            json!(u64::MAX),
        ),
        (
            "a sample past the cap",
            0,
            format!("{col}/5/samples/0"),
            json!("x".repeat(513)),
        ),
        (
            "a sample twice",
            0,
            format!("{col}/5/samples"),
            json!(["a", "a"]),
        ),
        (
            "a later sample with no look",
            1,
            format!("{col}/5/sample_looks"),
            json!([]),
        ),
        (
            "range ends out of order",
            0,
            format!("{col}/0/range/small"),
            json!([9, 1]),
        ),
        (
            "a precision fact of no cell",
            0,
            format!("{col}/2/precision/0/count"),
            json!(0),
        ),
        (
            "more code floats than floats",
            0,
            format!("{col}/2/rare/code_floats"),
            json!(u64::MAX),
        ),
        (
            "a code float that is not one",
            0,
            format!("{col}/2/rare/code_float_ends/0"),
            json!("12"),
        ),
        (
            "a header in a later range",
            1,
            "/of/found/header".into(),
            json!(["id"]),
        ),
        (
            "sample rows in a later range",
            1,
            "/of/found/sample".into(),
            json!([["1"]]),
        ),
    ];
    for (what, index, pointer, to) in cases {
        let bad = tampered(&parts, index, &pointer, |v| *v = to.clone());
        assert_eq!(join(&bad), None, "{what}");
    }
    let extra = tampered(&parts, 0, "/of/found", |v| v["extra"] = json!(1));
    assert_eq!(join(&extra), None, "a field no state has");
    // Each case changed only what it names: the same part untouched joins.
    let same = tampered(&parts, 0, &format!("{col}/0/classes/2"), |_| {});
    assert!(join(&same).is_some());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(10))]
    /// Any sparseness and pace of new values (samples filling before, at
    /// or after a cut, or never), rare literals anywhere, any number of
    /// ranges, brief or not: the one-thread answer, which the split scan
    /// on threads gives too.
    #[test]
    fn any_ranges_inspect_as_one_thread(
        every in 1usize..60,
        step in 1usize..1500,
        rare_at in proptest::collection::vec(0usize..70, 0..8),
        n in 2usize..12,
        tab in proptest::bool::ANY,
        short in proptest::bool::ANY,
    ) {
        let sep = if tab { b'\t' } else { b',' };
        let format = if tab { CsvFormat::Tsv } else { CsvFormat::Csv };
        let bytes = table(&Shape { every, step, rare_at, sep });
        let opts = brief(short);
        let one = sequential(&bytes, format, &opts);
        prop_assert_eq!(ranged(&bytes, format, &opts, n), Some(one.clone()));
        let src = BytesSource::new("t.csv", bytes.clone());
        let threads = inspect_in_parts(&src, format, &opts, n.min(8)).unwrap();
        prop_assert_eq!(threads, Some(one));
    }
}
