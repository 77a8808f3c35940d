//! Statistics through their serialized form: a state read back answers
//! every later question (its report, a merge, more values) as the
//! statistics it was written from; a state no scan could make is
//! refused with what is wrong; statistics of different budgets merge,
//! in any grouping, to the exact figures of one stream at the leaner
//! budget.

use plumb_stats::{
    Accuracy, ColumnSketch, DateSketch, DaySketch, NumberIn, StatsBudget, StatsReport, ValueStats,
    JSON_KINDS, STATS_FULL_BUDGET, STATS_LEAN_BUDGET,
};
use serde_json::{json, Value};

/// splitmix64, so every run is the same.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// One value of a column: how it is added.
#[derive(Clone, Debug)]
enum Cell {
    Int(i64),
    Decimal(i64, u32),
    Float(f64),
    Text(Vec<u8>),
    Kind(Vec<u8>, u8),
    Cut(Vec<u8>, u64),
}

fn add(s: &mut ValueStats, c: &Cell) {
    match c {
        Cell::Int(i) => s.add_number_value(i.to_string().as_bytes(), NumberIn::Int(*i)),
        Cell::Decimal(m, scale) => {
            let text = format!("{m}e-{scale}");
            s.add_number_value(
                text.as_bytes(),
                NumberIn::Decimal {
                    mantissa: *m,
                    scale: *scale,
                },
            );
        }
        Cell::Float(f) => s.add_number_value(format!("{f:e}").as_bytes(), NumberIn::Float(*f)),
        Cell::Text(t) => s.add_text_value(t, t.len() as u64),
        Cell::Kind(t, k) => s.add_value_of_kind(t, *k),
        Cell::Cut(start, len) => s.add_cut_value_of_kind(start, *len, 2),
    }
}

/// Columns of every kind of value the sketches hold, few values and
/// many, short texts and texts past the kept bytes.
fn columns() -> Vec<(&'static str, Vec<Cell>)> {
    let mut rng = Rng(7);
    let mut text = |len: u64, spread: u64| {
        let n = rng.below(spread);
        let mut t = format!("v{n:05}-").into_bytes();
        t.resize(len as usize, b'x');
        t
    };
    let few: Vec<Cell> = (0..3_000).map(|_| Cell::Text(text(9, 12))).collect();
    let many: Vec<Cell> = (0..3_000).map(|_| Cell::Text(text(20, 5_000))).collect();
    let long: Vec<Cell> = (0..2_000)
        .map(|i| Cell::Text(text(30 + i % 70, 3_000)))
        .collect();
    let mut rng = Rng(11);
    let ints: Vec<Cell> = (0..5_000)
        .map(|_| Cell::Int(rng.below(1_000_000) as i64 - 500_000))
        .collect();
    let decimals: Vec<Cell> = (0..5_000)
        .map(|i| Cell::Decimal(rng.below(100_000) as i64, (i % 4) as u32))
        .collect();
    let floats: Vec<Cell> = (0..3_000)
        .map(|i| {
            Cell::Float(match i % 500 {
                0 => f64::INFINITY,
                1 => 1e-320,
                _ => (rng.below(1 << 40) as f64).sqrt() * 1.5e10,
            })
        })
        .collect();
    let kinds: Vec<Cell> = (0..2_000)
        .map(|_| {
            Cell::Kind(
                rng.below(40).to_string().into_bytes(),
                2 + rng.below(2) as u8,
            )
        })
        .collect();
    let cut: Vec<Cell> = (0..1_000)
        .map(|i| Cell::Cut(format!("start{}", i % 30).into_bytes(), 100 + i % 5))
        .collect();
    let small: Vec<Cell> = (0..7).map(Cell::Int).collect();
    vec![
        ("few texts", few),
        ("many texts", many),
        ("long texts", long),
        ("integers", ints),
        ("decimals", decimals),
        ("floats", floats),
        ("kinds", kinds),
        ("cut values", cut),
        ("seven integers", small),
    ]
}

fn stats_of(cells: &[Cell], budget: StatsBudget, kinds: bool) -> ValueStats {
    let mut s = ValueStats::new(budget);
    if kinds {
        s = s.with_kind_names(&JSON_KINDS);
    }
    for c in cells {
        add(&mut s, c);
    }
    s
}

fn again(s: &ValueStats) -> ValueStats {
    let bytes = serde_json::to_vec(s).unwrap();
    serde_json::from_slice(&bytes)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&bytes)))
}

fn json_of(r: &StatsReport) -> Value {
    serde_json::to_value(r).unwrap()
}

#[test]
fn a_state_read_back_answers_every_later_question_alike() {
    for (name, cells) in columns() {
        let kinds = matches!(cells[0], Cell::Kind(..) | Cell::Cut(..));
        for budget in [STATS_FULL_BUDGET, STATS_LEAN_BUDGET] {
            for cut in [0, cells.len() / 3, cells.len()] {
                let (head, tail) = cells.split_at(cut);
                let mut a = stats_of(head, budget, kinds);
                let mut b = again(&a);
                // Written again, the same bytes.
                assert_eq!(
                    serde_json::to_vec(&a).unwrap(),
                    serde_json::to_vec(&b).unwrap(),
                    "{name}"
                );
                let n = head.len() as u64;
                assert_eq!(json_of(&a.report(n, 0)), json_of(&b.report(n, 0)), "{name}");
                // A merge with the rest, and the rest added value by
                // value, as from the statistics written.
                let rest = stats_of(tail, budget, kinds);
                let (mut am, mut bm) = (a.clone(), b.clone());
                am.merge(&rest);
                bm.merge(&again(&rest));
                let all = cells.len() as u64;
                assert_eq!(
                    json_of(&am.report(all, 0)),
                    json_of(&bm.report(all, 0)),
                    "{name} merged at {cut}"
                );
                for c in tail {
                    add(&mut a, c);
                    add(&mut b, c);
                }
                assert_eq!(
                    json_of(&a.report(all, 0)),
                    json_of(&b.report(all, 0)),
                    "{name} continued at {cut}"
                );
            }
        }
    }
}

/// A valid state of every sketch, as JSON, to spoil.
fn sample_state() -> Value {
    let mut s = ValueStats::new(STATS_FULL_BUDGET);
    for i in 0..2_000i64 {
        s.add_number_value((i % 700).to_string().as_bytes(), NumberIn::Int(i % 700));
        s.add_text(format!("t{i}").as_bytes(), 5);
    }
    serde_json::to_value(&s).unwrap()
}

#[test]
fn states_no_scan_could_make_are_refused_saying_what_is_wrong() {
    let base = sample_state();
    assert!(
        base["distinct"]["registers"].is_string(),
        "{}",
        base["distinct"]
    );
    assert!(!base["top"]["gate"].as_array().unwrap().is_empty());
    let levels = base["numbers"]["quantiles"]["levels"].as_array().unwrap();
    assert!(levels.len() > 1, "the sketch compacted");
    type Spoil = fn(&mut Value);
    let cases: Vec<(&str, Spoil, &str)> = vec![
        (
            "a budget past the full one",
            |v| v["budget"]["top_counters"] = json!(1000),
            "budget",
        ),
        (
            "a huge k",
            |v| v["budget"]["quantile_k"] = json!(4_000_000_000u64),
            "budget",
        ),
        (
            "a precision past 64",
            |v| v["budget"]["hll_precision"] = json!(200),
            "budget",
        ),
        (
            "a register past its range",
            |v| {
                let r = v["distinct"]["registers"].as_str().unwrap();
                v["distinct"]["registers"] = json!(format!("ff{}", &r[2..]));
            },
            "registers",
        ),
        (
            "registers of another precision",
            |v| {
                let r = v["distinct"]["registers"].as_str().unwrap();
                v["distinct"]["registers"] = json!(&r[..r.len() / 2]);
            },
            "registers",
        ),
        (
            "odd hex",
            |v| v["distinct"]["registers"] = json!("abc"),
            "hex",
        ),
        (
            "not hex",
            |v| v["distinct"]["registers"] = json!("zz"),
            "hex",
        ),
        (
            "both a set and registers",
            |v| v["distinct"]["exact"] = json!([1, 2]),
            "both",
        ),
        (
            "an unknown kind set",
            |v| v["kinds"] = json!(["a", "b"]),
            "kinds",
        ),
        (
            "a counter twice",
            |v| {
                let c = v["top"]["counters"][0].clone();
                v["top"]["counters"][1] = c;
            },
            "two top-value counters",
        ),
        (
            "more counters than the budget",
            |v| {
                let c = v["top"]["counters"][0].clone();
                let mut all = v["top"]["counters"].as_array().unwrap().clone();
                for i in 0..40u64 {
                    let mut d = c.clone();
                    d["hash"] = json!(i + 1);
                    all.push(d);
                }
                v["top"]["counters"] = Value::Array(all);
            },
            "counters",
        ),
        (
            "a counter's text past its cap",
            |v| {
                v["top"]["counters"][0]["text"] = json!("61".repeat(100));
                v["top"]["counters"][0]["len"] = json!(100);
            },
            "counter",
        ),
        (
            "a gate of the wrong size",
            |v| v["top"]["gate"] = json!([0, 0, 0]),
            "gate",
        ),
        (
            "a level out of order",
            |v| {
                let l = &mut v["numbers"]["quantiles"]["levels"][1];
                let mut items = l.as_array().unwrap().clone();
                items.reverse();
                *l = Value::Array(items);
            },
            "out of order",
        ),
        (
            "levels that do not weigh the count",
            |v| {
                let n = v["numbers"]["quantiles"]["n"].as_u64().unwrap();
                v["numbers"]["quantiles"]["n"] = json!(n + 1);
            },
            "weigh",
        ),
        (
            "a lowest level past its room",
            |v| {
                v["numbers"]["quantiles"]["levels"][0] = json!(vec![1u64; 5000]);
            },
            "weigh",
        ),
        (
            "exact sums past their scale",
            |v| {
                v["numbers"]["moments"]["exact"]["scale"] = json!(40);
            },
            "scale",
        ),
        (
            "exact sums that are not numbers",
            |v| {
                v["numbers"]["moments"]["exact"]["sum"] = json!("12x");
            },
            "integers",
        ),
        (
            "number counts that do not add up",
            |v| v["numbers"]["rounded"] = json!(u64::MAX),
            "add up",
        ),
        (
            "a text range upside down",
            |v| {
                v["text"]["min"] = json!("7a7a");
                v["text"]["max"] = json!("61");
            },
            "text range",
        ),
    ];
    for (what, spoil, says) in cases {
        let mut v = base.clone();
        spoil(&mut v);
        let e = serde_json::from_value::<ValueStats>(v)
            .err()
            .unwrap_or_else(|| panic!("{what}: read back"));
        assert!(e.to_string().contains(says), "{what}: {e}");
    }
    // The state unspoilt reads back.
    assert!(serde_json::from_value::<ValueStats>(base).is_ok());
}

/// Every byte of a written state changed: what reads back (as a claim
/// it may be false, but one a scan could make) writes back to bytes that
/// read back to themselves.
#[test]
fn a_state_changed_at_any_byte_is_refused_or_reads_back_to_itself() {
    let mut s = ValueStats::new(STATS_LEAN_BUDGET);
    for i in 0..300i64 {
        s.add_number_value(i.to_string().as_bytes(), NumberIn::Int(i));
    }
    let bytes = serde_json::to_vec(&s).unwrap();
    let (mut read, mut refused) = (0, 0);
    for at in 0..bytes.len() {
        for b in [b'0', b'9', b'f', b'"', b'-', b']'] {
            let mut spoilt = bytes.clone();
            spoilt[at] = b;
            match serde_json::from_slice::<ValueStats>(&spoilt) {
                Err(_) => refused += 1,
                Ok(back) => {
                    read += 1;
                    let once = serde_json::to_vec(&back).unwrap();
                    let twice: ValueStats = serde_json::from_slice(&once).unwrap();
                    assert_eq!(serde_json::to_vec(&twice).unwrap(), once, "byte {at}");
                    let _ = back.report(300, 0);
                }
            }
        }
    }
    assert!(read > 0 && refused > 0, "{read} read, {refused} refused");
}

/// Whether each figure is exact, and the estimate's method.
fn labels(r: &StatsReport) -> Vec<(&'static str, Option<&'static str>)> {
    r.accuracy
        .iter()
        .map(|(k, a)| {
            (
                *k,
                match a {
                    Accuracy::Exact => None,
                    Accuracy::Estimate { method, .. } => Some(*method),
                },
            )
        })
        .collect()
}

/// The figures that are the same in any merge order: everything but
/// the top values and the quantiles past their sketch and the sums of
/// doubles.
fn order_free(r: &StatsReport) -> Value {
    let mut v = json_of(r);
    let exact = |k: &str| matches!(r.accuracy.get(k), Some(Accuracy::Exact));
    if !exact("top") {
        v["top"] = Value::Null;
    }
    if let Some(n) = v.get_mut("numbers").filter(|n| n.is_object()) {
        if !matches!(r.accuracy.get("quantiles"), Some(Accuracy::Exact) | None) {
            n["quantiles"] = Value::Null;
        }
        for k in ["sum", "mean", "stddev"] {
            if !matches!(r.accuracy.get(k), Some(Accuracy::Exact) | None) {
                n[k] = Value::Null;
            }
        }
    }
    v["accuracy"] = serde_json::to_value(labels(r)).unwrap();
    v
}

#[test]
fn budgets_merge_at_the_leaner_to_one_leaner_streams_exact_figures() {
    for (name, cells) in columns() {
        let kinds = matches!(cells[0], Cell::Kind(..) | Cell::Cut(..));
        let lean = stats_of(&cells, STATS_LEAN_BUDGET, kinds);
        let n = cells.len() as u64;
        let want = order_free(&lean.report(n, 0));
        // Six parts, full and lean in turn, merged forward, backward and
        // as a tree, each part through its written form.
        let parts: Vec<ValueStats> = cells
            .chunks(cells.len().div_ceil(6))
            .enumerate()
            .map(|(i, c)| {
                let budget = if i % 2 == 0 {
                    STATS_FULL_BUDGET
                } else {
                    STATS_LEAN_BUDGET
                };
                again(&stats_of(c, budget, kinds))
            })
            .collect();
        let fold = |order: &mut dyn Iterator<Item = &ValueStats>| {
            let mut acc = order.next().unwrap().clone();
            for p in order {
                acc.merge(p);
            }
            acc
        };
        let forward = fold(&mut parts.iter());
        let backward = fold(&mut parts.iter().rev());
        let mut tree: Vec<ValueStats> = parts.clone();
        while tree.len() > 1 {
            tree = tree
                .chunks(2)
                .map(|pair| {
                    let mut a = pair[0].clone();
                    if let Some(b) = pair.get(1) {
                        a.merge(b);
                    }
                    a
                })
                .collect();
        }
        for (how, merged) in [
            ("forward", forward),
            ("backward", backward),
            ("tree", tree.remove(0)),
        ] {
            assert_eq!(merged.budget(), STATS_LEAN_BUDGET, "{name} {how}");
            assert_eq!(order_free(&merged.report(n, 0)), want, "{name} {how}");
        }
    }
}

#[test]
fn a_column_sketch_keeps_dates_only_while_every_part_reads_one_format() {
    let dates = |format: &str, days: &[u32]| {
        let mut sketch = DaySketch::new(&STATS_FULL_BUDGET);
        let mut values = ValueStats::new(STATS_FULL_BUDGET);
        for &d in days {
            sketch.add(d);
            values.add_text_value(d.to_string().as_bytes(), 8);
        }
        ColumnSketch {
            values,
            count: days.len() as u64,
            nulls: 0,
            dates: Some(DateSketch {
                format: format.to_owned(),
                min: *days.iter().min().unwrap(),
                max: *days.iter().max().unwrap(),
                days: Some(sketch),
            }),
        }
    };
    let mut a = dates("YYYY-MM-DD", &[20240105, 20240101]);
    let b: ColumnSketch = serde_json::from_slice(
        &serde_json::to_vec(&dates("YYYY-MM-DD", &[20231231, 20240103])).unwrap(),
    )
    .unwrap();
    a.merge(&b);
    let r = a.report();
    let range = r.dates.unwrap();
    assert_eq!(
        (range.min.as_str(), range.max.as_str()),
        ("2023-12-31", "2024-01-05")
    );
    assert_eq!(range.quantiles.unwrap().p50, "2024-01-01");
    assert_eq!(r.count, 4);
    a.merge(&dates("DD/MM/YYYY", &[20240201]));
    assert!(
        a.report().dates.is_none(),
        "two formats have no range together"
    );
    assert_eq!(a.report().count, 5);
}
