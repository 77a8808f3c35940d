//! The joins of byte-range parts (`plumb_csv` and `plumb_jsonl`
//! `join_*_ranges`): a part comes back from another process as JSON, a
//! claim. One part of a clean file's plan, its JSON text altered where
//! the input says (bytes cut and bytes put in), joins to an answer or to
//! nothing, never a panic or an overflow; a part left as it was joins to
//! the file's one-thread answer.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use plumb_core::{text_stream, BytesSource, Query, RangePart, RangePlan, ScanBounds};
use plumb_csv::{CsvFormat, CsvOptions};
use plumb_json::OutlineOptions;

/// A plan of a generated file and the JSON text of each range's part,
/// for one reader and op.
struct Case {
    plan: RangePlan,
    parts: Vec<Vec<u8>>,
    /// The one-thread answer, as debug text.
    whole: String,
}

/// Which reader and op a case is: CSV inspect, validate, search; JSON
/// Lines inspect, validate, search; JSON validate, inspect.
const CASES: usize = 8;

fn csv_file() -> Vec<u8> {
    let mut t = String::from("id,name,amount,when,code\n");
    let mut i = 0u64;
    while t.len() < (3 << 20) {
        let amount = match i % 9 {
            0 => "9007199254740993".to_owned(),
            1 => "3E2".to_owned(),
            2 => "NA".to_owned(),
            3 => format!("{}.{}", i % 97, i % 10),
            _ => (i * 31 % 100_000).to_string(),
        };
        let when = if i % 13 == 0 {
            "03/04/2024".to_owned()
        } else {
            format!("2024-0{}-1{}", i % 9 + 1, i % 9)
        };
        let code = ["US", "DE", "", "FR"][(i % 4) as usize];
        t.push_str(&format!("{i},name {},{amount},{when},{code}\n", i % 50));
        i += 1;
    }
    t.into_bytes()
}

fn jsonl_file() -> Vec<u8> {
    let mut t = String::new();
    let mut i = 0u64;
    while t.len() < (1 << 20) {
        t.push_str(&match i % 4 {
            0 => format!(
                "{{\"id\":{i},\"tags\":[\"a\",\"b{}\"],\"x\":{{\"y\":[{i},null]}}}}\n",
                i % 5
            ),
            1 => format!(
                "{{\"id\":9007199254740993,\"id\":{i}.5,\"s\":\"t{}\"}}\n",
                i % 7
            ),
            2 => "\n".to_owned(),
            _ => format!("[{i},true]\n"),
        });
        i += 1;
    }
    t.into_bytes()
}

fn json_file() -> Vec<u8> {
    let items: Vec<String> = (0..30_000u64)
        .map(|n| format!("{{\"id\": {n}, \"s\": \"}}, {{\", \"x\": [{n}, null]}}"))
        .collect();
    format!("[\n{}\n]\n", items.join(",\n")).into_bytes()
}

fn query() -> Query {
    let mut req = plumb_core::Request::default();
    req.set("pattern", serde_json::json!("name 1"))
        .expect("an option");
    Query::from_request(&req).expect("a pattern")
}

fn cases() -> &'static [Case] {
    static CASES_MADE: OnceLock<Vec<Case>> = OnceLock::new();
    CASES_MADE.get_or_init(|| {
        let csv = BytesSource::new("t.csv", csv_file());
        let jsonl = BytesSource::new("t.jsonl", jsonl_file());
        let json = BytesSource::new("t.json", json_file());
        let copts = CsvOptions::default();
        let bounds = ScanBounds::default();
        let outline = OutlineOptions::from(60);
        let q = query();
        (0..CASES)
            .map(|which| {
                let plan = match which {
                    0..=2 => plumb_csv::plan_ranges(&csv, CsvFormat::Csv, &copts, 3),
                    3..=5 => plumb_jsonl::plan_ranges(&jsonl, &bounds, 3),
                    _ => plumb_json::plan_ranges(&json, &bounds, 3),
                }
                .expect("read")
                .expect("cut");
                let part = |i: usize| match which {
                    0 => plumb_csv::scan_inspect_range(&csv, CsvFormat::Csv, &copts, &plan, i),
                    1 => plumb_csv::scan_validate_range(&csv, CsvFormat::Csv, &copts, &plan, i),
                    2 => plumb_csv::scan_search_range(
                        &csv,
                        (CsvFormat::Csv, &copts),
                        (&q, None),
                        &plan,
                        i,
                    ),
                    3 => plumb_jsonl::scan_inspect_range(&jsonl, &bounds, outline, &plan, i),
                    4 => plumb_jsonl::scan_validate_range(&jsonl, &bounds, &plan, i),
                    5 => plumb_jsonl::scan_search_range(&jsonl, &bounds, (None, &q), &plan, i),
                    6 => plumb_json::scan_validate_range(&json, &bounds, &plan, i),
                    _ => plumb_json::scan_inspect_range(&json, &bounds, outline, &plan, i),
                };
                let parts: Vec<RangePart> = (0..plan.ranges()).map(part).collect();
                assert!(parts.iter().all(RangePart::settled), "case {which}");
                let whole = match which {
                    0 => format!(
                        "{:?}",
                        plumb_csv::inspect(text_stream(&csv).unwrap(), CsvFormat::Csv, &copts)
                    ),
                    1 => format!(
                        "{:?}",
                        plumb_csv::validate(text_stream(&csv).unwrap(), CsvFormat::Csv, &copts)
                    ),
                    2 => format!(
                        "{:?}",
                        plumb_csv::search(
                            text_stream(&csv).unwrap(),
                            CsvFormat::Csv,
                            &copts,
                            &q,
                            None,
                            Some(&csv)
                        )
                    ),
                    3 => format!(
                        "{:?}",
                        plumb_jsonl::inspect(text_stream(&jsonl).unwrap(), &bounds)
                    ),
                    4 => format!(
                        "{:?}",
                        plumb_jsonl::validate(text_stream(&jsonl).unwrap(), &bounds)
                    ),
                    5 => format!(
                        "{:?}",
                        plumb_jsonl::search(text_stream(&jsonl).unwrap(), None, &q)
                    ),
                    6 => format!(
                        "{:?}",
                        plumb_json::validate(text_stream(&json).unwrap(), &bounds)
                    ),
                    _ => format!(
                        "{:?}",
                        plumb_json::inspect(text_stream(&json).unwrap(), &bounds)
                    ),
                };
                let case = Case {
                    parts: parts
                        .iter()
                        .map(|p| serde_json::to_vec(p).unwrap())
                        .collect(),
                    plan,
                    whole,
                };
                assert_eq!(
                    join(which, &case.plan, &parts).as_deref(),
                    Some(case.whole.as_str()),
                    "case {which}"
                );
                case
            })
            .collect()
    })
}

/// The join of `parts` for case `which`, as debug text of an `Ok`.
fn join(which: usize, plan: &RangePlan, parts: &[RangePart]) -> Option<String> {
    let copts = CsvOptions::default();
    let bounds = ScanBounds::default();
    let q = query();
    Some(match which {
        0 => format!(
            "{:?}",
            Ok::<_, ()>(plumb_csv::join_inspect_ranges(
                CsvFormat::Csv,
                &copts,
                plan,
                parts
            )?)
        ),
        1 => format!(
            "{:?}",
            Ok::<_, ()>(plumb_csv::join_validate_ranges(
                CsvFormat::Csv,
                plan,
                parts
            )?)
        ),
        2 => format!(
            "{:?}",
            Ok::<_, ()>(plumb_csv::join_search_ranges(
                CsvFormat::Csv,
                &q,
                plan,
                parts
            )?)
        ),
        3 => format!(
            "{:?}",
            Ok::<_, ()>(plumb_jsonl::join_inspect_ranges(
                &bounds,
                OutlineOptions::from(60),
                plan,
                parts
            )?)
        ),
        4 => format!(
            "{:?}",
            Ok::<_, ()>(plumb_jsonl::join_validate_ranges(plan, parts)?)
        ),
        5 => format!(
            "{:?}",
            Ok::<_, ()>(plumb_jsonl::join_search_ranges((None, &q), plan, parts)?)
        ),
        6 => format!(
            "{:?}",
            Ok::<_, ()>(plumb_json::join_validate_ranges(plan, parts)?)
        ),
        _ => format!(
            "{:?}",
            Ok::<_, ()>(plumb_json::join_inspect_ranges(
                &bounds,
                OutlineOptions::from(60),
                plan,
                parts
            )?)
        ),
    })
}

fuzz_target!(|data: &[u8]| {
    let [which, index, at_hi, at_lo, cut, rest @ ..] = data else {
        return;
    };
    let cases = cases();
    let which = usize::from(*which) % CASES;
    let case = &cases[which];
    let index = usize::from(*index) % case.parts.len();
    let text = &case.parts[index];
    let at = (usize::from(*at_hi) << 8 | usize::from(*at_lo)) % (text.len() + 1);
    let end = (at + usize::from(*cut % 32)).min(text.len());
    let mut altered = text[..at].to_vec();
    altered.extend_from_slice(rest);
    altered.extend_from_slice(&text[end..]);
    let Ok(part) = serde_json::from_slice::<RangePart>(&altered) else {
        return;
    };
    let mut parts: Vec<RangePart> = case
        .parts
        .iter()
        .map(|p| serde_json::from_slice(p).expect("a part"))
        .collect();
    let same = serde_json::to_value(&part).ok() == serde_json::to_value(&parts[index]).ok();
    parts[index] = part;
    let got = join(which, &case.plan, &parts);
    if same {
        assert_eq!(got.as_deref(), Some(case.whole.as_str()));
    }
});
