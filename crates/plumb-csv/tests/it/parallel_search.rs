//! A CSV search in parts on several threads against the one-thread
//! search: the same totals for every predicate, column by name, by index
//! or any column, the same hits (rows, lines, byte offsets, cells) and
//! the same place to continue from for any limit, and the same refusals.

use plumb_core::{text_stream, BytesSource, Query, Request};
use plumb_csv::{search, search_in_parts, ColumnRef, CsvFormat, CsvOptions, HeaderMode};
use proptest::prelude::*;
use serde_json::json;

const SIZE: usize = 3 << 20;

/// A count-only query from the options a caller gives.
pub(super) fn counting(options: &[(&str, &str)]) -> Query {
    let mut query = listing(options, 0);
    query.count_only = true;
    query
}

/// A query returning up to `limit` hits.
pub(super) fn listing(options: &[(&str, &str)], limit: usize) -> Query {
    let mut req = Request::default();
    for (k, v) in options {
        let value = match *v {
            "true" => json!(true),
            text => json!(text),
        };
        req.set(k, value).unwrap();
    }
    let mut query = Query::from_request(&req).unwrap();
    query.limit = limit;
    query
}

/// Search options and the column searched.
pub(super) type Case = (&'static [(&'static str, &'static str)], Option<ColumnRef>);

fn table(header: bool, seed: u64) -> Vec<u8> {
    rows(header, seed, "\n")
}

/// A table whose quoted cells hold no line break (`break_with` in their
/// place): a head with quoted line breaks is not cut into range tasks.
pub(super) fn rows(header: bool, seed: u64, break_with: &str) -> Vec<u8> {
    let mut out = Vec::new();
    if header {
        out.extend_from_slice(b"id,status,amount,note\n");
    }
    let mut i = 0u64;
    while out.len() < SIZE {
        let x = i.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ seed;
        let status = ["ok", "failed", "", "NA", "pending"][(x % 5) as usize];
        let amount = match x % 7 {
            0 => "9007199254740993".to_owned(),
            1 => "9007199254740992".to_owned(),
            2 => format!("-{}.25", x % 1000),
            _ => format!("{}", x % 100_000),
        };
        let note = if x.is_multiple_of(11) {
            format!("\"two{break_with}lines, \"\"quoted\"\"\"")
        } else {
            format!("n{}", x % 997)
        };
        out.extend_from_slice(format!("{i},{status},{amount},{note}\n").as_bytes());
        i += 1;
    }
    out
}

fn both(
    bytes: &[u8],
    opts: &CsvOptions,
    query: &Query,
    column: Option<ColumnRef>,
    parts: usize,
) -> (String, Option<String>) {
    let src = BytesSource::new("t.csv", bytes.to_vec());
    let one = search(
        text_stream(&src).unwrap(),
        CsvFormat::Csv,
        opts,
        query,
        column.clone(),
        Some(&src),
    );
    let split = search_in_parts(&src, CsvFormat::Csv, opts, query, column, parts).unwrap();
    (
        format!("{one:?}"),
        split.map(|s| format!("{:?}", Ok::<_, ()>(s))),
    )
}

#[test]
fn split_counts_are_the_one_thread_counts() {
    let bytes = table(true, 1);
    let opts = CsvOptions::default();
    let cases: [Case; 6] = [
        (&[("where", "= failed")], Some(ColumnRef::parse("status"))),
        (&[("where", "is null")], Some(ColumnRef::parse("1"))),
        (
            &[("where", "> 9007199254740992")],
            Some(ColumnRef::parse("amount")),
        ),
        (&[("where", "<= -500")], Some(ColumnRef::parse("amount"))),
        (&[("pattern", "lines")], None),
        (
            &[("pattern", "^n9"), ("ignore_case", "true")],
            Some(ColumnRef::parse("note")),
        ),
    ];
    for (options, column) in cases {
        let query = counting(options);
        for parts in 2..=5 {
            let (one, split) = both(&bytes, &opts, &query, column.clone(), parts);
            assert!(one.contains("total: "), "{one}");
            assert_eq!(
                split.as_deref(),
                Some(one.as_str()),
                "{options:?} {parts} parts"
            );
        }
    }
}

#[test]
fn refusals_and_searches_that_return_hits_stay_on_one_thread() {
    let bytes = table(true, 2);
    let opts = CsvOptions::default();
    // An unknown column: the first part is refused, the later ones are
    // told no column came, and the caller gets the one-thread refusal.
    let query = counting(&[("where", "= x")]);
    let (one, split) = both(&bytes, &opts, &query, Some(ColumnRef::parse("nope")), 3);
    assert!(
        one.contains("unknown-column") || one.contains("UnknownColumn"),
        "{one}"
    );
    assert_eq!(split, None);
    // An offset: one thread.
    let mut from = counting(&[("where", "= ok")]);
    from.offset = 10;
    assert_eq!(both(&bytes, &opts, &from, None, 3).1, None);
    let mut from = listing(&[("where", "= ok")], 5);
    from.offset = 10;
    assert_eq!(both(&bytes, &opts, &from, None, 3).1, None);
}

/// Hits listed by parts are the one-thread hits, whichever part the
/// limit falls in: before the first hit, inside the first part, exactly
/// at a part's last hit, in a later part, past every hit. Rows with a
/// quoted line break before the hits offset their line numbers.
#[test]
fn split_hits_are_the_one_thread_hits_for_any_limit() {
    let bytes = table(true, 5);
    let opts = CsvOptions::default();
    let rare: &[(&str, &str)] = &[("where", "= n5")];
    let column = Some(ColumnRef::parse("note"));
    let all = both(&bytes, &opts, &counting(rare), column.clone(), 1).0;
    assert!(all.contains("total: "), "{all}");
    for limit in [0, 1, 7, 20, 33, 60, 97, 150, 10_000] {
        let query = listing(rare, limit);
        for parts in 2..=4 {
            let (one, split) = both(&bytes, &opts, &query, column.clone(), parts);
            assert!(one.contains("RowHit") || limit == 0, "{one}");
            assert_eq!(
                split.as_deref(),
                Some(one.as_str()),
                "limit {limit}, {parts} parts"
            );
        }
    }
    // Any column, a pattern hitting rows of two lines.
    let query = listing(&[("pattern", "quoted")], 40);
    let (one, split) = both(&bytes, &opts, &query, None, 3);
    assert_eq!(split.as_deref(), Some(one.as_str()));
}

#[test]
fn without_a_header_the_first_row_sets_the_width() {
    let bytes = table(false, 3);
    let opts = CsvOptions {
        header: HeaderMode::Absent,
        ..CsvOptions::default()
    };
    let query = counting(&[("where", "= pending")]);
    let (one, split) = both(&bytes, &opts, &query, Some(ColumnRef::parse("1")), 4);
    assert_eq!(split.as_deref(), Some(one.as_str()));
    let (one, split) = both(&bytes, &opts, &query, Some(ColumnRef::parse("9")), 4);
    assert!(one.contains("is not a column"), "{one}");
    assert_eq!(split, None);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(10))]
    #[test]
    fn any_split_counts_as_one_thread(
        seed in proptest::num::u64::ANY,
        parts in 2usize..7,
        which in 0usize..4,
        limit in 0usize..3000,
    ) {
        let bytes = table(true, seed);
        let (options, column): (&[(&str, &str)], _) = [
            (&[("where", "= failed")][..], Some(ColumnRef::parse("status"))),
            (&[("where", ">= 9007199254740993")][..], Some(ColumnRef::parse("2"))),
            (&[("pattern", "quoted")][..], None),
            (&[("where", "!= ok")][..], Some(ColumnRef::parse("status"))),
        ][which]
            .clone();
        let query = counting(options);
        let (one, split) = both(&bytes, &CsvOptions::default(), &query, column.clone(), parts);
        prop_assert_eq!(split.as_deref(), Some(one.as_str()));
        let query = listing(options, limit);
        let (one, split) = both(&bytes, &CsvOptions::default(), &query, column, parts);
        prop_assert_eq!(split.as_deref(), Some(one.as_str()));
    }
}
