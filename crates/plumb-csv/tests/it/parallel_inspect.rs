//! CSV inspect in parts on several threads against the one-thread scan:
//! column facts added part by part must be the facts of one pass, down
//! to the samples picked, the first example of each precision fact and
//! its record, and the ends of code-shaped floats.

use plumb_core::{text_stream, BytesSource};
use plumb_csv::{inspect, inspect_in_parts, CsvFormat, CsvInspect, CsvOptions};
use proptest::prelude::*;

const SIZE: usize = 3 << 20;

pub(super) fn sequential(bytes: &[u8], format: CsvFormat, opts: &CsvOptions) -> CsvInspect {
    let src = BytesSource::new("t.csv", bytes.to_vec());
    let answer = inspect(text_stream(&src).unwrap(), format, opts).unwrap();
    answer
}

fn parts_only(
    bytes: &[u8],
    format: CsvFormat,
    opts: &CsvOptions,
    parts: usize,
) -> Option<CsvInspect> {
    let src = BytesSource::new("t.csv", bytes.to_vec());
    inspect_in_parts(&src, format, opts, parts).unwrap()
}

/// How the generated table varies.
#[derive(Clone, Debug)]
pub(super) struct Shape {
    /// Every how many rows the sparse column has a value (the rest are
    /// empty, which samples never look at).
    pub every: usize,
    /// Every how many of its values the sparse column takes a new one.
    pub step: usize,
    /// Rows (in thousands) where rare literals go: an integer a double
    /// cannot hold, a code-shaped float, a date in another form, a
    /// missing-value token.
    pub rare_at: Vec<usize>,
    pub sep: u8,
}

pub(super) fn table(shape: &Shape) -> Vec<u8> {
    let s = shape.sep as char;
    let comma = shape.sep != b',';
    let mut out = format!("id{s}sparse{s}amount{s}when{s}code{s}text\n").into_bytes();
    let mut i = 0usize;
    while out.len() < SIZE {
        let sparse = if i.is_multiple_of(shape.every) {
            format!("v{}", (i / shape.every) / shape.step)
        } else {
            String::new()
        };
        let rare = shape.rare_at.iter().position(|&r| r * 1000 + 7 == i);
        let amount = match (rare, i % 5) {
            (Some(k), _) => [
                "9007199254740993",
                "1E5",
                "3E2",
                "NA",
                "-0.0",
                "0.1234567890123456789",
            ][k % 6]
                .to_owned(),
            (None, 0) if comma => format!("{},{}", i % 97, i % 10),
            (None, 0) => format!("{}.{}", i % 97, i % 10),
            (None, 1) => "0.0".to_owned(),
            (None, 2) => format!("-{}", i % 1000),
            (None, _) => format!("{}", i * 31 % 100_000),
        };
        let when = match rare {
            Some(k) if k % 2 == 0 => "03/04/2024".to_owned(),
            Some(_) => "24/12/2023".to_owned(),
            None => format!("2024-{:02}-{:02}", i % 12 + 1, i % 28 + 1),
        };
        let code = ["US", "DE", "FR", "NA", "GB"][i % 5];
        let text = "é".repeat(i % 40);
        out.extend_from_slice(
            format!("{i}{s}{sparse}{s}{amount}{s}{when}{s}{code}{s}t{text}\n").as_bytes(),
        );
        i += 1;
    }
    out
}

/// Three tables: sparse samples with rare literals from the first rows
/// on (CSV), rare literals bunched late (TSV), a new value every other
/// row with decimal commas (`;`).
pub(super) fn shapes() -> [(Shape, CsvFormat); 3] {
    [
        (
            Shape {
                every: 7,
                step: 900,
                rare_at: vec![0, 1, 20, 40, 60],
                sep: b',',
            },
            CsvFormat::Csv,
        ),
        (
            Shape {
                every: 40,
                step: 300,
                rare_at: vec![50, 51, 52, 53, 54, 55],
                sep: b'\t',
            },
            CsvFormat::Tsv,
        ),
        (
            Shape {
                every: 1,
                step: 2,
                rare_at: vec![],
                sep: b';',
            },
            CsvFormat::Csv,
        ),
    ]
}

#[test]
fn column_facts_in_parts_are_the_facts_of_one_pass() {
    let opts = CsvOptions::default();
    for (shape, format) in shapes() {
        let bytes = table(&shape);
        let one = sequential(&bytes, format, &opts);
        assert!(one.issues.is_empty());
        assert_eq!(one.columns.len(), 6);
        for parts in 2..=5 {
            let got = parts_only(&bytes, format, &opts, parts).expect("a clean file: parts answer");
            assert_eq!(got, one, "{parts} parts, {shape:?}");
        }
    }
}

#[test]
fn a_precision_fact_found_in_a_later_part_keeps_its_record() {
    let shape = Shape {
        every: 3,
        step: 10,
        rare_at: vec![35],
        sep: b',',
    };
    let bytes = table(&shape);
    let opts = CsvOptions::default();
    let one = sequential(&bytes, CsvFormat::Csv, &opts);
    let fact = &one.columns[2].precision[0];
    // Row 35,007 is record 35,009: one for the header, one-based.
    assert_eq!(
        (fact.example.as_str(), fact.record),
        ("9007199254740993", 35_009)
    );
    assert_eq!(parts_only(&bytes, CsvFormat::Csv, &opts, 4), Some(one));
}

#[test]
fn issues_and_short_samples_fall_back() {
    let shape = Shape {
        every: 2,
        step: 5,
        rare_at: vec![3],
        sep: b',',
    };
    let bytes = table(&shape);
    let mut broken = bytes.clone();
    let at = broken.len() - 30;
    let at = at + broken[at..].iter().position(|&b| b == b'\n').unwrap() + 1;
    broken.splice(at..at, b"1,\"open\n".iter().copied());
    assert!(parts_only(&broken, CsvFormat::Csv, &CsvOptions::default(), 2).is_none());
    for opts in [
        CsvOptions::default(),
        CsvOptions {
            stats: true,
            ..CsvOptions::default()
        },
    ] {
        assert!(parts_only(&broken, CsvFormat::Csv, &opts, 2).is_none());
    }
}

/// Statistics merge part by part: every column fact and every figure
/// labelled exact is the one-thread answer's, each estimate is labelled
/// alike, and the estimates of the `id` column (0 to n - 1, all
/// distinct) are within their stated error of the truth.
#[test]
fn statistics_in_parts_keep_exact_figures_and_estimates_within_their_error() {
    let opts = CsvOptions {
        stats: true,
        ..CsvOptions::default()
    };
    let bytes = table(&Shape {
        every: 3,
        step: 40,
        rare_at: vec![2, 30],
        sep: b',',
    });
    let one = sequential(&bytes, CsvFormat::Csv, &opts);
    let n = one.rows_scanned;
    let one_id = serde_json::to_value(one.columns[0].stats.as_ref()).unwrap();
    plumb_testkit::stats::check_all_distinct(&one_id, n).unwrap();
    let json = |a: &CsvInspect| serde_json::to_value(a).unwrap();
    for parts in [2, 3, 5] {
        let got = parts_only(&bytes, CsvFormat::Csv, &opts, parts).expect("a clean file");
        let exact = plumb_testkit::stats::stats_agree(&json(&got), &json(&one)).unwrap();
        assert!(exact > 20, "{exact} exact figures");
        let id = serde_json::to_value(got.columns[0].stats.as_ref()).unwrap();
        assert_eq!(id["accuracy"]["distinct"]["estimate"], "hyperloglog");
        assert_eq!(id["accuracy"]["quantiles"]["estimate"], "kll");
        plumb_testkit::stats::check_all_distinct(&id, n).unwrap();
    }
}

/// Statistics are budgeted for the widest line of the head: records
/// (the header too) each broken over two lines by a quoted line break
/// are wider than any line, so a split scan with statistics would track more columns than
/// it budgeted, and falls back; the same scan without statistics splits.
#[test]
fn statistics_wider_than_the_head_shows_fall_back() {
    let mut bytes = b"a,\"b\nb\",c,d,e,f\n".to_vec();
    let mut i = 0u64;
    while bytes.len() < SIZE {
        bytes.extend_from_slice(
            format!("{i},\"x\ny{i}\",{},{},z,{}\n", i % 7, i * 3, i % 11).as_bytes(),
        );
        i += 1;
    }
    let plain = CsvOptions::default();
    let one = sequential(&bytes, CsvFormat::Csv, &plain);
    assert_eq!(one.columns.len(), 6);
    assert_eq!(parts_only(&bytes, CsvFormat::Csv, &plain, 2), Some(one));
    let stats = CsvOptions {
        stats: true,
        ..CsvOptions::default()
    };
    assert_eq!(parts_only(&bytes, CsvFormat::Csv, &stats, 2), None);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]
    /// Any sparseness and pace of new values (so that the samples fill
    /// before, at or after a cut, or never), any rare literals anywhere,
    /// any number of parts: the one-thread answer.
    #[test]
    fn parts_agree_with_one_thread(
        every in 1usize..60,
        step in 1usize..1500,
        rare_at in proptest::collection::vec(0usize..70, 0..8),
        parts in 2usize..7,
        tab in proptest::bool::ANY,
    ) {
        let sep = if tab { b'\t' } else { b',' };
        let format = if tab { CsvFormat::Tsv } else { CsvFormat::Csv };
        let bytes = table(&Shape { every, step, rare_at, sep });
        let opts = CsvOptions::default();
        let one = sequential(&bytes, format, &opts);
        let got = parts_only(&bytes, format, &opts, parts);
        prop_assert_eq!(got, Some(one));
    }
}

#[test]
fn the_first_record_of_each_class_is_the_one_pass_record_in_any_part() {
    // Integers, then text from record 40,001, then an empty cell at
    // 70,001 and a float at 90,001: each first read where it is.
    let mut out = String::from("id,amount\n");
    let mut record = 1u64;
    while out.len() < SIZE {
        record += 1;
        let amount = match record {
            40_001 => "n/a".to_owned(),
            70_001 => String::new(),
            90_001 => "2.5".to_owned(),
            r => (r % 1000).to_string(),
        };
        out.push_str(&format!("{record},{amount}\n"));
    }
    assert!(record > 90_001);
    let opts = CsvOptions::default();
    let one = sequential(out.as_bytes(), CsvFormat::Csv, &opts);
    let firsts: Vec<(&str, u64)> = one.columns[1]
        .first_records
        .as_ref()
        .expect("two classes or more: listed")
        .iter()
        .map(|(k, v)| (*k, *v))
        .collect();
    assert_eq!(
        firsts,
        [
            ("empty", 70_001),
            ("float", 90_001),
            ("integer", 2),
            ("string", 40_001)
        ]
    );
    assert!(
        one.columns[0].first_records.is_none(),
        "one class: none listed"
    );
    for parts in 2..=5 {
        let got = parts_only(out.as_bytes(), CsvFormat::Csv, &opts, parts).expect("parts answer");
        assert_eq!(
            got.columns[1].first_records, one.columns[1].first_records,
            "{parts} parts"
        );
    }
}
