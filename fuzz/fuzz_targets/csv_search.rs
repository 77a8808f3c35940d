//! CSV search: any bytes as a CSV, a column predicate or pattern chosen
//! by the first byte; judging cells as they pass and reading hits back
//! by their byte range (and taking runs of usual rows in bulk) answers
//! exactly as copying every row's cells does, listed or counted; and the
//! same test given as one condition on that column finds the same rows.
#![no_main]

use libfuzzer_sys::fuzz_target;
use plumb_core::{BytesSource, Query, Request, TextStream};
use plumb_csv::{search, ColumnRef, CsvFormat, CsvOptions};

const PREDICATES: [(&str, &str); 6] = [
    ("where", "= a"),
    ("where", "> 1.5"),
    ("where", "is null"),
    ("where", "!= 0"),
    ("pattern", "b|\""),
    ("pattern", "^$"),
];

fuzz_target!(|input: &[u8]| {
    let Some((&ctl, data)) = input.split_first() else {
        return;
    };
    let (name, value) = PREDICATES[usize::from(ctl) % PREDICATES.len()];
    let mut req = Request::default();
    req.set(name, value.into()).expect("text");
    req.set("limit", u64::from(ctl / 32 + 1).into())
        .expect("count");
    // A count takes runs of rows in bulk, hits included (a listed
    // search stops its runs at each hit).
    req.set("count_only", (ctl & 0x08 != 0).into())
        .expect("flag");
    let query = Query::from_request(&req).expect("a fixed query");
    let column = (ctl & 0x10 != 0).then(|| ColumnRef::Index(i64::from(ctl % 3)));
    let source = BytesSource::new("f.csv", data.to_vec());
    let run = |rows_from: Option<&dyn plumb_core::Source>| {
        search(
            TextStream::new(data),
            CsvFormat::Csv,
            &CsvOptions::default(),
            &query,
            column.clone(),
            rows_from,
        )
        .map(|a| serde_json::to_value(a).expect("serializes"))
    };
    let fetched = run(Some(&source));
    let copied = run(None);
    match (&fetched, &copied) {
        (Ok(a), Ok(b)) => assert_eq!(a, b, "the two ways disagree"),
        (Err(a), Err(b)) => assert_eq!(a.reason(), b.reason()),
        (a, b) => panic!("one way refused: {a:?} {b:?}"),
    }
    // The column's test as a condition (judged on whole rows).
    let Some(ColumnRef::Index(c)) = column else {
        return;
    };
    let test = if name == "pattern" {
        format!("{c} ~ {value}")
    } else {
        format!("{c} {value}")
    };
    let mut req = Request::default();
    req.set("conditions", serde_json::json!([test]))
        .expect("list");
    req.set("limit", u64::from(ctl / 32 + 1).into())
        .expect("count");
    req.set("count_only", (ctl & 0x08 != 0).into())
        .expect("flag");
    let by_condition = Query::judging_conditions(&req).expect("a fixed query");
    let judged = search(
        TextStream::new(data),
        CsvFormat::Csv,
        &CsvOptions::default(),
        &by_condition,
        None,
        Some(&source),
    )
    .map(|a| serde_json::to_value(a).expect("serializes"));
    match (&copied, &judged) {
        (Ok(a), Ok(b)) => {
            for key in [
                "hits",
                "total",
                "total_exact",
                "has_more",
                "next_offset",
                "unjudged_rows",
            ] {
                assert_eq!(
                    a.get(key),
                    b.get(key),
                    "{key}: a column and a condition disagree"
                );
            }
        }
        (Err(a), Err(b)) => assert_eq!(a.reason(), b.reason()),
        (a, b) => panic!("one way refused: {a:?} {b:?}"),
    }
});
