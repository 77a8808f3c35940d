//! CSV validate and search in byte ranges run as tasks of their own:
//! each range's part travels as bytes, the parts join in any order (a
//! range given twice counting once), and the join answers exactly when
//! the split scan on threads does, with the one-thread answer; otherwise
//! it gives nothing and the caller scans the whole file.

use plumb_core::{text_stream, BytesSource, Query, RangePart, RangePlan};
use plumb_csv::{
    join_search_ranges, join_validate_ranges, plan_ranges, scan_search_range, scan_validate_range,
    ColumnRef, CsvFormat, CsvOptions, CsvValidate, HeaderMode,
};
use proptest::prelude::*;

use super::parallel::{csv, parts_only, sequential};
use super::parallel_search::{counting, listing, rows, Case};

/// Every range of `plan` searched, each part through bytes, in reverse
/// with the last one twice.
fn searched_parts(
    src: &BytesSource,
    opts: &CsvOptions,
    (query, column): (&Query, Option<ColumnRef>),
    plan: &RangePlan,
) -> Vec<RangePart> {
    let mut got: Vec<RangePart> = (0..plan.ranges())
        .map(|i| {
            let part = scan_search_range(
                src,
                (CsvFormat::Csv, opts),
                (query, column.clone()),
                plan,
                i,
            );
            serde_json::from_slice(&serde_json::to_vec(&part).unwrap()).unwrap()
        })
        .collect();
    got.reverse();
    got.push(got[0].clone());
    got
}

/// The one-thread search (or its refusal) and the ranges' join, as
/// debug text.
fn search_both(
    bytes: &[u8],
    opts: &CsvOptions,
    (query, column): (&Query, Option<ColumnRef>),
    n: usize,
) -> (String, Option<String>) {
    let src = BytesSource::new("t.csv", bytes.to_vec());
    let one = plumb_csv::search(
        text_stream(&src).unwrap(),
        CsvFormat::Csv,
        opts,
        query,
        column.clone(),
        Some(&src),
    );
    let plan = plan_ranges(&src, CsvFormat::Csv, opts, n)
        .unwrap()
        .expect("a file of megabytes is cut");
    let got = searched_parts(&src, opts, (query, column), &plan);
    let joined = join_search_ranges(CsvFormat::Csv, query, &plan, &got);
    (
        format!("{one:?}"),
        joined.map(|s| format!("{:?}", Ok::<_, ()>(s))),
    )
}

#[test]
fn searched_ranges_join_to_the_one_thread_hits_for_any_limit() {
    let bytes = rows(true, 5, " ");
    let opts = CsvOptions::default();
    let cases: [Case; 3] = [
        (&[("where", "= n5")], Some(ColumnRef::parse("note"))),
        (&[("where", "is null")], Some(ColumnRef::parse("1"))),
        (&[("pattern", "quoted")], None),
    ];
    for (options, column) in cases {
        for n in [2, 5, 40] {
            let (one, joined) = search_both(&bytes, &opts, (&counting(options), column.clone()), n);
            assert!(one.contains("total: "), "{one}");
            assert_eq!(
                joined.as_deref(),
                Some(one.as_str()),
                "count {options:?} {n}"
            );
            for limit in [0, 1, 7, 33, 150, 10_000] {
                let query = listing(options, limit);
                let (one, joined) = search_both(&bytes, &opts, (&query, column.clone()), n);
                assert_eq!(
                    joined.as_deref(),
                    Some(one.as_str()),
                    "{options:?} limit {limit}, {n} ranges"
                );
            }
        }
    }
}

#[test]
fn a_searched_column_resolves_in_every_range_as_in_the_first() {
    // No header: the first row's width, read by each range from the head.
    let bytes = rows(false, 3, " ");
    let opts = CsvOptions {
        header: HeaderMode::Absent,
        ..CsvOptions::default()
    };
    let query = listing(&[("where", "= pending")], 25);
    let (one, joined) = search_both(&bytes, &opts, (&query, Some(ColumnRef::parse("1"))), 6);
    assert!(one.contains("RowHit"), "{one}");
    assert_eq!(joined.as_deref(), Some(one.as_str()));
    // A column past the width, or a name no header has: refused by one
    // thread, joined by none (the caller reads the whole file).
    for (opts, bytes, column) in [
        (opts.clone(), bytes.clone(), "9"),
        (CsvOptions::default(), rows(true, 3, " "), "nope"),
    ] {
        let (one, joined) = search_both(&bytes, &opts, (&query, Some(ColumnRef::parse(column))), 4);
        assert!(one.starts_with("Err("), "{one}");
        assert_eq!(joined, None, "{column}");
    }
    // A search from an offset is not cut.
    let mut from = listing(&[("where", "= ok")], 5);
    from.offset = 10;
    let src = BytesSource::new("t.csv", rows(true, 3, " "));
    let plan = plan_ranges(&src, CsvFormat::Csv, &CsvOptions::default(), 3)
        .unwrap()
        .unwrap();
    let got = searched_parts(&src, &CsvOptions::default(), (&from, None), &plan);
    assert!(got.iter().all(|p| !p.settled()));
}

/// Each range scanned on its own, its part sent through bytes.
fn parts(src: &BytesSource, opts: &CsvOptions, plan: &RangePlan) -> Vec<RangePart> {
    (0..plan.ranges())
        .map(|i| {
            let part = scan_validate_range(src, CsvFormat::Csv, opts, plan, i);
            let wire = serde_json::to_vec(&part).unwrap();
            serde_json::from_slice(&wire).unwrap()
        })
        .collect()
}

fn planned(bytes: &[u8], opts: &CsvOptions, n: usize) -> (BytesSource, RangePlan) {
    let src = BytesSource::new("t.csv", bytes.to_vec());
    let plan = plan_ranges(&src, CsvFormat::Csv, opts, n)
        .unwrap()
        .expect("a file of megabytes is cut");
    (src, plan)
}

#[test]
fn a_clean_file_joins_to_the_one_thread_answer_in_any_order() {
    let opts = CsvOptions::default();
    let bytes = csv(&[0, 1, 3, 6], b',', None);
    let one = sequential(&bytes, CsvFormat::Csv, &opts).unwrap();
    assert_eq!(one.valid, Some(true));
    let (src, plan) = planned(&bytes, &opts, 4);
    assert_eq!(plan.ranges(), 4);
    assert_eq!(plan.len, bytes.len() as u64);
    let mut got = parts(&src, &opts, &plan);
    assert!(got.iter().all(RangePart::settled));
    got.reverse();
    got.push(got[1].clone());
    assert_eq!(
        join_validate_ranges(CsvFormat::Csv, &plan, &got),
        Some(one.clone())
    );
    // Ranges past the threads' cap of parts: as many as asked, in order.
    let (src40, plan40) = planned(&bytes, &opts, 40);
    assert!(plan40.ranges() > plumb_core::SCAN_MAX_PARTS, "{plan40:?}");
    let many = parts(&src40, &opts, &plan40);
    assert_eq!(
        join_validate_ranges(CsvFormat::Csv, &plan40, &many),
        Some(one)
    );
    // Without the first range, or any other, nothing is joined.
    for left_out in 0..plan.ranges() {
        let some: Vec<RangePart> = got
            .iter()
            .filter(|p| p.index != left_out)
            .cloned()
            .collect();
        assert_eq!(join_validate_ranges(CsvFormat::Csv, &plan, &some), None);
    }
}

#[test]
fn a_head_with_quoted_line_breaks_is_not_cut_into_ranges() {
    let opts = CsvOptions::default();
    let bytes = csv(&[0, 2, 1], b',', None);
    let src = BytesSource::new("t.csv", bytes.clone());
    assert_eq!(plan_ranges(&src, CsvFormat::Csv, &opts, 4).unwrap(), None);
    // Threads in one process still split it, counting its quotes.
    assert!(parts_only(&bytes, CsvFormat::Csv, &opts, 4).is_some());
}

#[test]
fn a_fault_leaves_its_range_unsettled_and_the_join_empty() {
    let opts = CsvOptions::default();
    let bytes = csv(&[0, 6], b',', Some((30_000, 1)));
    let one = sequential(&bytes, CsvFormat::Csv, &opts).unwrap();
    assert_eq!(one.valid, Some(false));
    let (src, plan) = planned(&bytes, &opts, 3);
    let got = parts(&src, &opts, &plan);
    let unsettled: Vec<usize> = got
        .iter()
        .filter(|p| !p.settled())
        .map(|p| p.index)
        .collect();
    assert_eq!(unsettled.len(), 1, "only the range of the short row");
    assert_eq!(join_validate_ranges(CsvFormat::Csv, &plan, &got), None);
}

#[test]
fn a_plan_that_is_not_the_files_is_never_read() {
    let opts = CsvOptions::default();
    let bytes = csv(&[0], b',', None);
    let (src, plan) = planned(&bytes, &opts, 2);
    let good = parts(&src, &opts, &plan);
    let longer = RangePlan {
        len: plan.len + 1,
        cuts: {
            let mut c = plan.cuts.clone();
            *c.last_mut().unwrap() += 1;
            c
        },
        ..plan.clone()
    };
    let tsv = RangePlan {
        format: "tsv".into(),
        ..plan.clone()
    };
    let unordered = RangePlan {
        cuts: vec![0, plan.cuts[1], plan.cuts[1], plan.len],
        ..plan.clone()
    };
    for bad in [&longer, &tsv, &unordered] {
        let got = parts(&src, &opts, bad);
        assert!(got.iter().all(|p| !p.settled()), "{bad:?}");
        assert_eq!(join_validate_ranges(CsvFormat::Csv, bad, &good), None);
    }
    // A cut inside a line: the range after it is not read.
    let midline = RangePlan {
        cuts: vec![0, plan.cuts[1] + 1, plan.len],
        ..plan.clone()
    };
    let got = parts(&src, &opts, &midline);
    assert!(!got[1].settled());
    assert_eq!(join_validate_ranges(CsvFormat::Csv, &midline, &got), None);
    // A part of a range past the plan's last is not joined either.
    let mut extra = good.clone();
    extra[0].index = 7;
    assert_eq!(join_validate_ranges(CsvFormat::Csv, &plan, &extra), None);
}

/// The ranges' joined answer; `None` when the file is not cut or the
/// parts do not join.
fn joined(bytes: &[u8], opts: &CsvOptions, n: usize) -> Option<CsvValidate> {
    let src = BytesSource::new("t.csv", bytes.to_vec());
    let plan = plan_ranges(&src, CsvFormat::Csv, opts, n).unwrap()?;
    join_validate_ranges(CsvFormat::Csv, &plan, &parts(&src, opts, &plan))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(10))]
    /// Any table, any number of ranges, any query and limit: the joined
    /// search is the one-thread search.
    #[test]
    fn any_ranges_search_as_one_thread(
        seed in proptest::num::u64::ANY,
        n in 2usize..12,
        which in 0usize..4,
        limit in 0usize..3000,
        count in proptest::bool::ANY,
    ) {
        let bytes = rows(true, seed, " ");
        let (options, column): (&[(&str, &str)], _) = [
            (&[("where", "= failed")][..], Some(ColumnRef::parse("status"))),
            (&[("where", ">= 9007199254740993")][..], Some(ColumnRef::parse("2"))),
            (&[("pattern", "quoted")][..], None),
            (&[("where", "!= ok")][..], Some(ColumnRef::parse("status"))),
        ][which]
            .clone();
        let query = if count { counting(options) } else { listing(options, limit) };
        let (one, joined) = search_both(&bytes, &CsvOptions::default(), (&query, column), n);
        prop_assert_eq!(joined.as_deref(), Some(one.as_str()));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]
    /// Any mix of rows (quoted line breaks, so cuts land in and out of
    /// quotes), any broken row, any number of ranges: the ranges join
    /// exactly when the threads' split answers, and to its answer, the
    /// one-thread scan's.
    #[test]
    fn ranges_join_as_the_split_scan_answers(
        kinds in proptest::collection::vec(0u8..7, 1..12),
        bad in proptest::option::of((0usize..80_000, 0u8..3)),
        n in 2usize..7,
    ) {
        let opts = CsvOptions::default();
        let bytes = csv(&kinds, b',', bad);
        let threads = parts_only(&bytes, CsvFormat::Csv, &opts, n);
        let got = joined(&bytes, &opts, n);
        // Rows with quoted line breaks (kinds 2 and 4) stand in the head:
        // such a file is never cut into ranges.
        let breaks = kinds.iter().any(|k| matches!(k, 2 | 4));
        if breaks {
            prop_assert_eq!(&got, &None);
        } else {
            prop_assert_eq!(&got, &threads);
        }
        if let Some(got) = got {
            let one = sequential(&bytes, CsvFormat::Csv, &opts).unwrap();
            prop_assert_eq!(got, one);
        }
    }
}
