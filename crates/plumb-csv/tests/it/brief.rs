//! A brief inspect (`ScanBounds::brief`, what a dataset asks of each
//! file) against the full one: every fact it keeps is the full answer's,
//! and what it leaves out (sample rows, sample values, the ends of date
//! columns) is left empty or null, never made up. Whole and cut into
//! parts on several threads alike.

use plumb_core::{text_stream, BytesSource, ScanBounds};
use plumb_csv::{inspect, inspect_in_parts, CsvFormat, CsvInspect, CsvOptions, InferredType};
use proptest::prelude::*;
use serde_json::Value;

fn run(bytes: &[u8], opts: &CsvOptions) -> CsvInspect {
    let src = BytesSource::new("t.csv", bytes.to_vec());
    inspect(text_stream(&src).unwrap(), CsvFormat::Csv, opts).unwrap()
}

fn options(brief: bool, stats: bool) -> CsvOptions {
    CsvOptions {
        stats,
        scan: ScanBounds {
            brief,
            ..ScanBounds::default()
        },
        ..CsvOptions::default()
    }
}

/// The full answer with what a brief one leaves out taken away.
fn without_left_out(mut full: CsvInspect) -> Value {
    full.sample.clear();
    for c in &mut full.columns {
        c.samples.clear();
        if matches!(
            c.inferred_type,
            InferredType::Date | InferredType::Timestamp
        ) && c.min.is_string()
        {
            c.min = Value::Null;
            c.max = Value::Null;
        }
    }
    serde_json::to_value(&full).unwrap()
}

/// One cell of a generated table: numbers (some a double misstates),
/// dates of two forms, timestamps, words, sentinels, empties, quoted
/// text with a delimiter.
fn cell() -> impl Strategy<Value = String> {
    prop_oneof![
        (0i64..100_000).prop_map(|n| n.to_string()),
        (-500i64..500, 0u8..100).prop_map(|(a, b)| format!("{a}.{b:02}")),
        (1u32..13, 1u32..29).prop_map(|(m, d)| format!("2024-{m:02}-{d:02}")),
        (1u32..13, 1u32..29).prop_map(|(m, d)| format!("{d:02}/{m:02}/2023")),
        (0u32..24).prop_map(|h| format!("2024-05-01T{h:02}:30:00Z")),
        "[a-z]{1,8}",
        Just("NA".to_owned()),
        // Literals a double misstates: precision facts with examples.
        Just("9007199254740993".to_owned()),
        Just("0.1234567890123456789".to_owned()),
        Just(String::new()),
        "[a-z]{1,4}".prop_map(|w| format!("\"{w}, {w}\"")),
    ]
}

/// A table of 1 to 6 columns whose columns each draw from a few cell
/// kinds, so that most columns settle on one type and some on several.
fn table() -> impl Strategy<Value = Vec<u8>> {
    (1usize..6, 1usize..60).prop_flat_map(|(width, rows)| {
        prop::collection::vec(prop::collection::vec(cell(), width), rows).prop_map(move |rows| {
            let mut out = (0..width)
                .map(|i| format!("c{i}"))
                .collect::<Vec<_>>()
                .join(",");
            out.push('\n');
            for row in rows {
                out.push_str(&row.join(","));
                out.push('\n');
            }
            out.into_bytes()
        })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn a_brief_inspect_is_the_full_one_less_what_it_leaves_out(
        bytes in table(),
        stats in any::<bool>(),
    ) {
        let full = run(&bytes, &options(false, stats));
        let brief = run(&bytes, &options(true, stats));
        prop_assert!(brief.sample.is_empty());
        prop_assert!(brief.columns.iter().all(|c| c.samples.is_empty()));
        prop_assert_eq!(serde_json::to_value(&brief).unwrap(), without_left_out(full));
    }
}

/// A table the split scan takes, with a date column: the brief answer
/// in parts is the brief one-thread answer, and the full answer less
/// its samples and date ends.
#[test]
fn a_brief_inspect_in_parts_is_the_one_thread_one() {
    let mut text = String::from("id,when,amount,word\n");
    let mut i = 0u64;
    while text.len() < 3 << 20 {
        text.push_str(&format!(
            "{i},2024-{:02}-{:02},{}.{},w{}\n",
            i % 12 + 1,
            i % 28 + 1,
            i % 977,
            i % 10,
            i % 13
        ));
        i += 1;
    }
    let bytes = text.into_bytes();
    let src = BytesSource::new("t.csv", bytes.clone());
    let parts = inspect_in_parts(&src, CsvFormat::Csv, &options(true, false), 3)
        .unwrap()
        .expect("a clean table splits");
    let one = run(&bytes, &options(true, false));
    assert_eq!(
        serde_json::to_value(&parts).unwrap(),
        serde_json::to_value(&one).unwrap()
    );
    let full = run(&bytes, &options(false, false));
    assert!(full.columns[1].min.is_string() && one.columns[1].min.is_null());
    assert_eq!(serde_json::to_value(&one).unwrap(), without_left_out(full));
}
