//! inspect's `stats` option: figures against values computed here, the
//! same figures whatever the chunking, and the two cell paths agreeing.

use std::collections::{BTreeMap, HashSet};

use plumb_core::TextStream;
use plumb_csv::{inspect, CsvFormat, CsvOptions};
use serde_json::{json, Value};

fn stats_opts() -> CsvOptions {
    CsvOptions {
        stats: true,
        ..CsvOptions::default()
    }
}

fn inspect_with(text: &str, chunk: Option<usize>) -> Value {
    let report = match chunk {
        None => inspect(
            TextStream::new(text.as_bytes()),
            CsvFormat::Csv,
            &stats_opts(),
        ),
        Some(cap) => inspect(
            TextStream::from_buf_read(std::io::BufReader::with_capacity(cap, text.as_bytes())),
            CsvFormat::Csv,
            &stats_opts(),
        ),
    };
    serde_json::to_value(report.unwrap()).unwrap()
}

/// A table whose columns are known: an id (all distinct), a city (few
/// values), a price (decimals with empties), a date (day-first), text.
/// A row as written: id, city, price (cents, 2), date.
type Row = (u64, &'static str, Option<(i64, u32)>, String);

fn table(rows: usize) -> (String, Vec<Row>) {
    let cities = ["Lyon", "Köln", "Paris", "Oslo", "Bern"];
    let mut out = String::from("id,city,price,when,note\n");
    let mut kept = Vec::new();
    for i in 0..rows as u64 {
        let city = cities[(i * i % 7 % 5) as usize];
        let price = (i % 9 != 0).then(|| ((i * 37 % 1000) as i64, 2u32));
        let day = i % 28 + 1;
        let month = i % 12 + 1;
        let when = format!("{day:02}/{month:02}/20{:02}", 10 + i % 15);
        let price_text = price.map_or(String::new(), |(m, _)| {
            format!("{}.{:02}", m / 100, m % 100)
        });
        out.push_str(&format!("{i},{city},{price_text},{when},\"n {i}, x\"\n"));
        kept.push((i, city, price, when));
    }
    (out, kept)
}

#[test]
fn figures_match_the_values_and_are_labelled_exact_when_they_are() {
    let (text, rows) = table(3_000);
    let r = inspect_with(&text, None);
    let col = |i: usize| &r["columns"][i]["stats"];

    // id: all distinct, past the exact set: an estimate with its error.
    let id = col(0);
    assert_eq!(id["count"], 3_000);
    assert_eq!(id["numbers"]["sum"], json!((0..3_000u64).sum::<u64>()));
    assert_eq!(id["numbers"]["mean"], json!(1499.5));
    assert_eq!(id["accuracy"]["sum"], "exact");
    assert_eq!(id["accuracy"]["distinct"]["estimate"], "hyperloglog");
    let bound = id["accuracy"]["distinct"]["bound_99_7"].as_f64().unwrap();
    let got = id["distinct"].as_f64().unwrap();
    assert!((got - 3_000.0).abs() / 3_000.0 <= bound, "{got}");

    // city: five values, counted exactly.
    let city = col(1);
    let mut counts: BTreeMap<&str, u64> = BTreeMap::new();
    for (_, c, _, _) in &rows {
        *counts.entry(c).or_default() += 1;
    }
    assert_eq!(city["distinct"], counts.len());
    assert_eq!(city["accuracy"]["top"], "exact");
    for t in city["top"].as_array().unwrap() {
        assert_eq!(t["count"], counts[t["value"].as_str().unwrap()]);
    }
    assert_eq!(city["text"]["min"], "Bern");
    assert_eq!(city["text"]["max"], "Paris");

    // price: empties are nulls; the sum of the decimals is exact.
    let price = col(2);
    let prices: Vec<i64> = rows.iter().filter_map(|r| r.2.map(|p| p.0)).collect();
    assert_eq!(price["nulls"], (rows.len() - prices.len()) as u64);
    let cents: i64 = prices.iter().sum();
    let sum = price["numbers"]["sum"].as_f64().unwrap();
    assert_eq!(format!("{sum}"), format!("{}", cents as f64 / 100.0));
    assert_eq!(price["accuracy"]["mean"], "exact");
    let distinct_prices: HashSet<i64> = prices.iter().copied().collect();
    let truth = distinct_prices.len() as f64;
    let got = price["distinct"].as_f64().unwrap();
    match price["accuracy"]["distinct"].get("bound_99_7") {
        Some(bound) => assert!((got - truth).abs() / truth <= bound.as_f64().unwrap()),
        None => assert_eq!(got, truth),
    }

    // when: day-first dates, their range as ISO dates.
    let when = col(3);
    let iso = |w: &str| format!("{}-{}-{}", &w[6..], &w[3..5], &w[..2]);
    let dates: Vec<String> = rows.iter().map(|r| iso(&r.3)).collect();
    assert_eq!(when["dates"]["min"], *dates.iter().min().unwrap());
    assert_eq!(when["dates"]["max"], *dates.iter().max().unwrap());
    // Their quantiles: nearest rank when exact, else within the rank
    // error, in order between the ends.
    let mut sorted = dates.clone();
    sorted.sort();
    let q = &when["dates"]["quantiles"];
    let acc = &r["columns"][3]["stats"]["accuracy"]["date_quantiles"];
    let mut last = when["dates"]["min"].as_str().unwrap().to_owned();
    for (name, p) in plumb_stats::STATS_QUANTILES {
        let day = q[name].as_str().unwrap();
        assert!(last.as_str() <= day, "{name}: {day} after {last}");
        last = day.to_owned();
        let want = p * sorted.len() as f64;
        let lo = sorted.partition_point(|d| d.as_str() < day) as f64;
        let hi = sorted.partition_point(|d| d.as_str() <= day) as f64;
        let slack = match acc["rank_error"].as_f64() {
            Some(e) => e * sorted.len() as f64,
            None => {
                assert_eq!(acc, "exact");
                0.0
            }
        };
        assert!(lo - slack <= want && want <= hi + slack, "{name}: {day}");
    }
    assert!(last.as_str() <= when["dates"]["max"].as_str().unwrap());
    // Without statistics too: the same days, as the file wrote them.
    let column = &r["columns"][3];
    assert_eq!(column["date_format"], "DD/MM/YYYY");
    assert_eq!(iso(column["min"].as_str().unwrap()), when["dates"]["min"]);
    assert_eq!(iso(column["max"].as_str().unwrap()), when["dates"]["max"]);
}

#[test]
fn chunking_never_changes_a_figure() {
    let (text, _) = table(400);
    let whole = inspect_with(&text, None);
    for cap in [1, 2, 3, 7, 64, 1000] {
        assert_eq!(inspect_with(&text, Some(cap)), whole, "capacity {cap}");
    }
}

#[test]
fn stats_are_absent_unless_asked_for() {
    let (text, _) = table(10);
    let plain = inspect(
        TextStream::new(text.as_bytes()),
        CsvFormat::Csv,
        &CsvOptions::default(),
    );
    let v = serde_json::to_value(plain.unwrap()).unwrap();
    assert!(v["columns"][0].get("stats").is_none());
    assert!(inspect_with(&text, None)["columns"][0]["stats"].is_object());
}

#[test]
fn columns_past_the_statistics_cap_are_described_without_and_said_to_be() {
    let cap = plumb_stats::STATS_MAX_COLUMNS;
    let width = cap + 40;
    let row = |r: usize| -> String {
        (0..width)
            .map(|c| (r * width + c).to_string())
            .collect::<Vec<_>>()
            .join(",")
    };
    let header: Vec<String> = (0..width).map(|c| format!("c{c}")).collect();
    let text = format!("{}\n{}\n{}\n", header.join(","), row(1), row(2));
    let v = inspect_with(&text, None);
    let columns = v["columns"].as_array().unwrap();
    assert_eq!(columns.len(), width);
    assert!(columns[..cap].iter().all(|c| c["stats"]["count"] == 2));
    assert!(columns[cap..].iter().all(|c| c.get("stats").is_none()));
    assert!(columns[cap..]
        .iter()
        .all(|c| c["inferred_type"] == "integer"));
    assert_eq!(
        (
            v["columns_without_stats"].clone(),
            v["view"]["exact"].clone()
        ),
        (json!(40), json!(false))
    );
    // Without statistics asked for, nothing is missing.
    let plain = serde_json::to_value(
        inspect(
            TextStream::new(text.as_bytes()),
            CsvFormat::Csv,
            &CsvOptions::default(),
        )
        .unwrap(),
    )
    .unwrap();
    assert!(plain.get("columns_without_stats").is_none() && plain["view"]["exact"] == true);
}

/// The statistics of column `c` and the column's own facts.
fn column(text: &str, c: usize) -> (Value, Value) {
    let r = inspect_with(text, None);
    let col = r["columns"][c].clone();
    (col["stats"].clone(), col)
}

#[test]
fn statistics_read_each_cell_as_inspect_settles_it() {
    // Exponent-shaped codes among text and integers are codes to inspect:
    // the statistics count them as text, not as numbers of 10^89.
    let (s, col) = column("code\n608E08\nA1B2C3\n123456\nFF00AA\n5E9\n1E89\n", 0);
    assert_eq!(col["classes"], json!({"integer": 1, "string": 5}));
    assert_eq!(s["numbers"]["count"], 1, "{s}");
    assert_eq!(s["numbers"]["quantiles"]["p99"], 123456.0, "{s}");
    assert_eq!(s["text"]["count"], 5, "{s}");
    assert_eq!(s["count"], 6);
    // Beside other floats they are numbers to both, and the range holds
    // the exponents a quick reading cannot (12E34).
    for text in ["x\n1E5\n12E34\n2.5\n", "x\n12E34\n1E5\n2.5\n"] {
        let (s, col) = column(text, 0);
        assert_eq!(col["inferred_type"], "float", "{text}");
        assert_eq!(
            (col["min"].as_f64(), col["max"].as_f64()),
            (Some(2.5), Some(1.2e35))
        );
        assert_eq!(s["numbers"]["count"], 3, "{s}");
        assert_eq!(s["numbers"]["quantiles"]["p99"], 1.2e35, "{s}");
        assert!(s["text"].is_null(), "{s}");
    }
    // `NA` among country codes is Namibia to inspect, and a value to the
    // statistics: counted, not null.
    let (s, col) = column("c\nUS\nNA\nDEU\nFR\nNA\n", 0);
    assert_eq!(col["classes"], json!({"string": 5}));
    assert_eq!(
        (s["count"].as_u64(), s["nulls"].as_u64()),
        (Some(5), Some(0))
    );
    assert_eq!(
        s["top"][0],
        json!({"value": "NA", "count": 2, "at_least": 2})
    );
    assert_eq!(s["text"]["count"], 5);
    // Among numbers it is a null to both.
    let (s, col) = column("n\n1\nNA\n2\n3\n", 0);
    assert_eq!(col["sentinels"], json!({"NA": 1}));
    assert_eq!(
        (s["count"].as_u64(), s["nulls"].as_u64()),
        (Some(4), Some(1))
    );
    assert!(s["text"].is_null(), "{s}");
}

#[test]
fn held_cells_settle_alike_whatever_the_chunking() {
    let text = "code,c\n608E08,US\nA1B2C3,NA\n123456,DEU\nFF00AA,FR\n5E9,NA\n1E89,GB\n";
    let whole = inspect_with(text, None);
    for cap in [1, 2, 3, 7] {
        assert_eq!(inspect_with(text, Some(cap)), whole, "{cap}");
    }
}

/// A date or timestamp column has a range without statistics: its
/// earliest and latest cells as written, compared as instants (an offset
/// moves a timestamp, and the longer text is not the later) or, for
/// dates of another form, as the days its date format reads; none while
/// the format is ambiguous or mixed.
#[test]
fn dates_and_timestamps_have_ranges_as_written() {
    let (_, col) = column("d\n2024-03-09\n2023-12-31\n2024-01-15\n", 0);
    assert_eq!(
        (&col["min"], &col["max"]),
        (&json!("2023-12-31"), &json!("2024-03-09"))
    );
    let text = "t\n2024-03-01T10:00:00+02:00\n2024-03-01T09:00:00Z\n2024-03-01T08:30:00.5Z\n";
    let (_, col) = column(text, 0);
    assert_eq!(col["inferred_type"], "timestamp", "{col}");
    // 10:00 at +02:00 is 08:00Z: the earliest, though it reads latest.
    assert_eq!(col["min"], json!("2024-03-01T10:00:00+02:00"));
    assert_eq!(col["max"], json!("2024-03-01T09:00:00Z"));
    // Dates of another form, by the day the column's format reads.
    let (_, col) = column("d\n15/01/2024\n3/2/2023\n28/12/2023\n", 0);
    assert_eq!(
        (&col["min"], &col["max"]),
        (&json!("3/2/2023"), &json!("15/01/2024"))
    );
    let (_, col) = column("d\n01/15/2024\n2/3/2023\n12/28/2023\n", 0);
    assert_eq!(col["date_format"], "MM/DD/YYYY", "{col}");
    assert_eq!(
        (&col["min"], &col["max"]),
        (&json!("2/3/2023"), &json!("01/15/2024"))
    );
    let (_, col) = column("d\n2024.01.15\n2023.02.03\n", 0);
    assert_eq!(
        (&col["min"], &col["max"]),
        (&json!("2023.02.03"), &json!("2024.01.15"))
    );
    // A column no reading settles, or ISO beside another form, leaves
    // the range unknown, not partial.
    let (_, col) = column("d\n03/04/2024\n04/03/2024\n", 0);
    assert!(col["min"].is_null() && col["max"].is_null(), "{col}");
    let (_, col) = column("d\n2024-03-09\n31/12/2024\n2024-01-15\n", 0);
    assert!(col["min"].is_null() && col["max"].is_null(), "{col}");
    // Numbers keep their numeric range.
    let (_, col) = column("n\n3\n-1\n2\n", 0);
    assert_eq!((&col["min"], &col["max"]), (&json!(-1), &json!(3)));
}
