//! Column statistics against exact answers computed here, on generated
//! columns of known distributions: each estimate within its stated
//! error, each exact figure exact, merges within the error of the whole.

use std::collections::HashMap;

use plumb_stats::{
    Accuracy, NumberIn, StatsBudget, StatsReport, ValueStats, STATS_FULL_BUDGET, STATS_QUANTILES,
    STATS_TOP_SHOWN,
};

/// splitmix64: a small seeded generator, so every run is the same.
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
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Zipf(s) over `n` values by inverse CDF.
struct Zipf(Vec<f64>);

impl Zipf {
    fn new(n: usize, s: f64) -> Zipf {
        let mut acc = 0.0;
        let mut cdf: Vec<f64> = (1..=n)
            .map(|k| {
                acc += 1.0 / (k as f64).powf(s);
                acc
            })
            .collect();
        for c in &mut cdf {
            *c /= acc;
        }
        Zipf(cdf)
    }
    fn sample(&self, rng: &mut Rng) -> u64 {
        let u = rng.unit();
        self.0.partition_point(|&c| c < u) as u64
    }
}

#[derive(Clone, Copy, Debug)]
enum Shape {
    Uniform(u64),
    Zipf,
    AllDistinct,
    AllEqual,
}

/// A column of `n` integer values (None for a null, one in ten when
/// `nulls`).
fn column(shape: Shape, n: usize, nulls: bool, seed: u64, zipf: &Zipf) -> Vec<Option<i64>> {
    let mut rng = Rng(seed);
    (0..n)
        .map(|i| {
            if nulls && rng.below(10) == 0 {
                return None;
            }
            Some(match shape {
                Shape::Uniform(range) => rng.below(range) as i64,
                Shape::Zipf => zipf.sample(&mut rng) as i64,
                // Spread over the whole range so hashes see varied text.
                Shape::AllDistinct => (i as i64) * 7_919 + (seed as i64 % 1_000) * 1_000_000_007,
                Shape::AllEqual => 42,
            })
        })
        .collect()
}

fn stats_of(values: &[Option<i64>], budget: StatsBudget) -> ValueStats {
    let mut s = ValueStats::new(budget);
    for v in values.iter().flatten() {
        s.add_value(v.to_string().as_bytes());
        s.add_number(NumberIn::Int(*v));
    }
    s
}

fn report(values: &[Option<i64>], stats: &ValueStats) -> StatsReport {
    let nulls = values.iter().filter(|v| v.is_none()).count() as u64;
    stats.report(values.len() as u64, nulls)
}

fn error_of(acc: &Accuracy, kind: &str) -> Option<f64> {
    match acc {
        Accuracy::Exact => None,
        Accuracy::Estimate { error, .. } => error.get(kind).copied(),
    }
}

fn true_counts(values: &[Option<i64>]) -> HashMap<i64, u64> {
    let mut m = HashMap::new();
    for v in values.iter().flatten() {
        *m.entry(*v).or_insert(0) += 1;
    }
    m
}

/// Checks the distinct count and returns (within 1 SE, within the
/// stated 99.7% bound); both true when the count is exact and right.
fn check_distinct(values: &[Option<i64>], r: &StatsReport) -> (bool, bool) {
    let truth = true_counts(values).len() as f64;
    let acc = &r.accuracy["distinct"];
    match (error_of(acc, "standard_error"), error_of(acc, "bound_99_7")) {
        (Some(se), Some(bound)) => {
            let rel = (r.distinct as f64 - truth).abs() / truth;
            (rel <= se, rel <= bound)
        }
        _ => {
            assert_eq!(r.distinct as f64, truth, "an exact distinct count is exact");
            (true, true)
        }
    }
}

#[test]
fn distinct_counts_are_within_their_stated_error_on_95_of_100_seeds() {
    let zipf = Zipf::new(200_000, 0.8);
    for shape in [
        Shape::Uniform(60_000),
        Shape::Zipf,
        Shape::AllDistinct,
        Shape::AllEqual,
    ] {
        let (mut one_se, mut bounded) = (0, 0);
        for seed in 0..100 {
            let values = column(shape, 40_000, seed % 2 == 0, seed, &zipf);
            let r = report(&values, &stats_of(&values, STATS_FULL_BUDGET));
            let (a, b) = check_distinct(&values, &r);
            one_se += usize::from(a);
            bounded += usize::from(b);
        }
        assert!(
            bounded >= 95,
            "{shape:?}: within the bound in {bounded} of 100"
        );
        // A standard error that is not understated: about two in three.
        assert!(one_se >= 55, "{shape:?}: within one SE in {one_se} of 100");
    }
}

#[test]
fn few_distinct_values_are_counted_exactly_and_labelled_so() {
    let zipf = Zipf::new(10, 1.0);
    let values = column(Shape::Uniform(500), 20_000, true, 7, &zipf);
    let r = report(&values, &stats_of(&values, STATS_FULL_BUDGET));
    assert_eq!(r.accuracy["distinct"], Accuracy::Exact);
    assert_eq!(r.distinct, true_counts(&values).len() as u64);
    assert_eq!(
        r.nulls,
        values.iter().filter(|v| v.is_none()).count() as u64
    );
    assert_eq!(r.count, values.len() as u64);
}

/// The top values against the true counts: exact when every value fits
/// a counter, else each count at most its overcount above the truth and
/// every overcount within the stated bound.
fn check_top(values: &[Option<i64>], r: &StatsReport) {
    let truth = true_counts(values);
    let mut sorted: Vec<(i64, u64)> = truth.iter().map(|(k, v)| (*k, *v)).collect();
    sorted.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.to_string().cmp(&b.0.to_string())));
    match error_of(&r.accuracy["top"], "max_overcount") {
        None => {
            let want: Vec<(String, u64)> = sorted
                .iter()
                .take(STATS_TOP_SHOWN)
                .map(|(k, c)| (k.to_string(), *c))
                .collect();
            let got: Vec<(String, u64)> =
                r.top.iter().map(|t| (t.value.clone(), t.count)).collect();
            assert_eq!(got, want, "exact top values");
        }
        Some(bound) => {
            let n = values.iter().flatten().count() as u64;
            for t in &r.top {
                let real = truth[&t.value.parse::<i64>().unwrap()];
                assert!(
                    real <= t.count && t.count <= real + t.overcount,
                    "{t:?} vs {real}"
                );
                assert!(t.overcount as f64 <= bound, "{t:?} over the bound {bound}");
            }
            // Every value seen more than n / k times holds a counter; those
            // among the largest shown are listed.
            let k = STATS_FULL_BUDGET.top_counters as u64;
            let heavy: Vec<_> = sorted.iter().filter(|(_, c)| *c > n / k).collect();
            if heavy.len() <= STATS_TOP_SHOWN {
                for (v, _) in heavy {
                    assert!(
                        r.top.iter().any(|t| t.value == v.to_string()),
                        "{v} missing"
                    );
                }
            }
        }
    }
}

#[test]
fn top_values_are_exact_when_they_fit_and_bounded_otherwise() {
    let zipf = Zipf::new(5_000, 1.2);
    for (shape, seed) in [
        (Shape::Uniform(20), 1),
        (Shape::AllEqual, 2),
        (Shape::Zipf, 3),
        (Shape::Zipf, 4),
        (Shape::Uniform(1_000), 5),
        (Shape::AllDistinct, 6),
    ] {
        let values = column(shape, 50_000, seed % 2 == 1, seed, &zipf);
        let r = report(&values, &stats_of(&values, STATS_FULL_BUDGET));
        let fits = true_counts(&values).len() <= STATS_FULL_BUDGET.top_counters;
        assert_eq!(r.accuracy["top"] == Accuracy::Exact, fits, "{shape:?}");
        check_top(&values, &r);
    }
}

/// How far the rank of `v` in `sorted` is from `q * n`, over n.
fn rank_error(sorted: &[f64], q: f64, v: f64) -> f64 {
    let n = sorted.len() as f64;
    let target = (q * n).ceil().max(1.0);
    let below = sorted.partition_point(|&x| x < v) as f64;
    let through = sorted.partition_point(|&x| x <= v) as f64;
    if target < below + 1.0 {
        (below + 1.0 - target) / n
    } else if target > through {
        (target - through) / n
    } else {
        0.0
    }
}

fn check_quantiles(values: &[f64], r: &StatsReport) -> bool {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let numbers = r.numbers.as_ref().expect("numbers");
    let stated = error_of(&r.accuracy["quantiles"], "rank_error");
    STATS_QUANTILES.iter().all(|(name, q)| {
        let got = numbers
            .quantiles
            .as_ref()
            .and_then(|q| q.get(name))
            .unwrap();
        match stated {
            None => {
                let at = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
                assert_eq!(got, sorted[at - 1], "exact {name}");
                true
            }
            Some(e) => rank_error(&sorted, *q, got) <= e,
        }
    })
}

#[test]
fn quantiles_are_exact_while_held_and_within_the_rank_error_after() {
    let mut rng = Rng(11);
    let few: Vec<f64> = (0..150).map(|_| rng.below(1000) as f64 - 500.0).collect();
    let mut s = ValueStats::new(STATS_FULL_BUDGET);
    for &v in &few {
        s.add_number(NumberIn::Int(v as i64));
    }
    let r = s.report(few.len() as u64, 0);
    assert_eq!(r.accuracy["quantiles"], Accuracy::Exact);
    assert!(check_quantiles(&few, &r));

    for budget in [STATS_FULL_BUDGET, StatsBudget::for_index(100_000)] {
        let mut within = 0;
        for seed in 0..100u64 {
            let mut rng = Rng(seed);
            let values: Vec<f64> = (0..30_000)
                .map(|_| match seed % 3 {
                    0 => rng.unit() * 1e6,
                    1 => (-2.0 * rng.unit().max(1e-300).ln()).sqrt() * 10.0,
                    _ => (rng.below(50) * rng.below(50)) as f64,
                })
                .collect();
            let mut s = ValueStats::new(budget);
            for &v in &values {
                s.add_number(NumberIn::Float(v));
            }
            let r = s.report(values.len() as u64, 0);
            assert_ne!(r.accuracy["quantiles"], Accuracy::Exact);
            within += usize::from(check_quantiles(&values, &r));
        }
        assert!(
            within >= 95,
            "{budget:?}: all quantiles within the error in {within} of 100"
        );
    }
}

#[test]
fn mean_and_stddev_match_a_two_pass_computation() {
    for seed in 0..20u64 {
        let mut rng = Rng(seed);
        // Integers (exact sums), decimals of mixed scales (exact), and
        // floats with exponents (double accumulators).
        let ints: Vec<i64> = (0..10_000)
            .map(|_| rng.below(2_000_000) as i64 - 1_000_000)
            .collect();
        let decimals: Vec<(i64, u32)> = (0..10_000)
            .map(|_| (rng.below(1_000_000) as i64 - 500_000, rng.below(4) as u32))
            .collect();
        let floats: Vec<f64> = (0..10_000).map(|_| 1e9 + rng.unit() * 1e3).collect();

        let cases: Vec<(Vec<NumberIn>, bool)> = vec![
            (ints.iter().map(|&v| NumberIn::Int(v)).collect(), true),
            (
                decimals
                    .iter()
                    .map(|&(m, s)| NumberIn::Decimal {
                        mantissa: m,
                        scale: s,
                    })
                    .collect(),
                true,
            ),
            (floats.iter().map(|&v| NumberIn::Float(v)).collect(), false),
            // Exact sums that end halfway: the double accumulators start
            // from them.
            (
                ints.iter()
                    .take(5_000)
                    .map(|&v| NumberIn::Int(v))
                    .chain(floats.iter().take(5_000).map(|&v| NumberIn::Float(v / 1e3)))
                    .collect(),
                false,
            ),
        ];
        for (numbers, exact) in cases {
            let xs: Vec<f64> = numbers.iter().map(|n| n.to_f64()).collect();
            let n = xs.len() as f64;
            let mean = xs.iter().sum::<f64>() / n;
            let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
            let mut s = ValueStats::new(STATS_FULL_BUDGET);
            for &x in &numbers {
                s.add_number(x);
            }
            let r = s.report(xs.len() as u64, 0);
            let got = r.numbers.unwrap();
            let rel = |a: f64, b: f64| (a - b).abs() / b.abs().max(1e-300);
            assert!(
                rel(got.mean.unwrap(), mean) < 1e-9,
                "mean {:?} vs {mean}",
                got.mean
            );
            assert!(rel(got.stddev.unwrap(), var.sqrt()) < 1e-9);
            assert_eq!(r.accuracy["mean"] == Accuracy::Exact, exact);
            assert_eq!(r.accuracy["sum"] == Accuracy::Exact, exact);
        }
    }
}

/// The mean and standard deviation of `base + step * k` for `k` in `ks`,
/// each value given as `make(k)`: the stated bounds hold against the
/// true figures, worked out from the integers `k` (so the double
/// rounding of each value, not only of the sums, is measured).
fn check_bounds_against_truth(ks: &[i64], base: f64, step: f64, make: impl Fn(i64) -> NumberIn) {
    let mut s = ValueStats::new(STATS_FULL_BUDGET);
    for &k in ks {
        s.add_number(make(k));
    }
    let r = s.report(ks.len() as u64, 0);
    let got = r.numbers.as_ref().unwrap();
    let n = ks.len() as f64;
    let mean_k = ks.iter().map(|&k| k as f64).sum::<f64>() / n;
    let sd_k = (ks.iter().map(|&k| (k as f64 - mean_k).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
    let label = format!("{} values from {base} by {step}", ks.len());
    // The mean's distance from `base` is exact in doubles (Sterbenz).
    let mean_error = error_of(&r.accuracy["mean"], "absolute_error").expect("an estimate");
    let off = ((got.mean.unwrap() - base) - step * mean_k).abs();
    assert!(
        off <= mean_error,
        "{label}: mean off by {off:e}, stated {mean_error:e}"
    );
    assert!(mean_error > 0.0, "{label}: a rounded mean stated exact");
    let truth = step * sd_k;
    match got.stddev {
        Some(sd) => {
            let bound = error_of(&r.accuracy["stddev"], "relative_error").expect("an estimate");
            // The oracle's own rounding: a few units in the last place.
            let off = (sd - truth).abs() / truth;
            assert!(
                off <= bound * (1.0 + 1e-9) + 1e-13,
                "{label}: stddev {sd:e} vs {truth:e} is off by {off:e}, stated {bound:e}"
            );
        }
        None => assert!(!r.accuracy.contains_key("stddev"), "{label}"),
    }
}

#[test]
fn stated_errors_hold_against_the_values_as_written() {
    for n in [2i64, 3, 10, 1_000] {
        let ks: Vec<i64> = (0..n).collect();
        // Literals of 21 digits, read as the nearest double (all 1.0):
        // the doubles say no spread, the values have some.
        check_bounds_against_truth(&ks, 1.0, 1e-20, |k| {
            NumberIn::Rounded(format!("1.{k:020}").parse().unwrap())
        });
        // Fifteen-digit literals with an exponent: each double is within
        // half a unit of its value, which moves a spread this narrow.
        check_bounds_against_truth(&ks, 1.0, 1e-14, |k| {
            NumberIn::Float(format!("1{k:014}e-14").parse().unwrap())
        });
        // `k`e-400: below a double's least, each read as zero. The true
        // figures are not doubles either; a stated error of zero, or a
        // standard deviation of zero within less than 100%, is false.
        let mut s = ValueStats::new(STATS_FULL_BUDGET);
        for k in 1..=n {
            let v: f64 = format!("{k}e-400").parse().unwrap();
            s.add_number(NumberIn::Rounded(v));
        }
        let r = s.report(n as u64, 0);
        let got = r.numbers.as_ref().unwrap();
        assert_eq!(got.mean, Some(0.0));
        for figure in ["sum", "mean"] {
            let e = error_of(&r.accuracy[figure], "absolute_error");
            assert!(e.is_some_and(|e| e > 0.0), "{figure} of tiny values: {e:?}");
        }
        assert_eq!(got.stddev, Some(0.0));
        for figure in ["stddev", "quantiles"] {
            let e = error_of(&r.accuracy[figure], "relative_error");
            assert!(
                e.is_some_and(|e| e >= 1.0),
                "{figure} of tiny values: {e:?}"
            );
        }
    }
}

#[test]
fn exact_sums_keep_every_digit() {
    let mut s = ValueStats::new(STATS_FULL_BUDGET);
    // Two integers a double would misstate, and decimals of two scales.
    s.add_number(NumberIn::Int(9_007_199_254_740_993));
    s.add_number(NumberIn::Int(1));
    s.add_number(NumberIn::Decimal {
        mantissa: 1,
        scale: 1,
    });
    s.add_number(NumberIn::Decimal {
        mantissa: 2,
        scale: 2,
    });
    let r = s.report(4, 0);
    let sum = &r.numbers.unwrap().sum;
    assert_eq!(sum["$literal"], "9007199254740994.12");
    assert_eq!(r.accuracy["sum"], Accuracy::Exact);
    // Every value is held, but one only as a double that misstates it:
    // the quantiles are not labelled exact.
    assert_eq!(
        error_of(&r.accuracy["quantiles"], "relative_error"),
        Some(f64::EPSILON / 2.0)
    );
    let mut plain = ValueStats::new(STATS_FULL_BUDGET);
    plain.add_number(NumberIn::Int(9_007_199_254_740_992));
    plain.add_number(NumberIn::Decimal {
        mantissa: 25,
        scale: 1,
    });
    assert_eq!(plain.report(2, 0).accuracy["quantiles"], Accuracy::Exact);
}

#[test]
fn merging_two_halves_equals_the_whole_within_the_error() {
    let zipf = Zipf::new(20_000, 1.1);
    for (shape, seed) in [
        (Shape::Uniform(25), 1),
        (Shape::Uniform(300), 2),
        (Shape::Zipf, 3),
        (Shape::AllDistinct, 4),
    ] {
        let values = column(shape, 60_000, true, seed, &zipf);
        let (a, b) = values.split_at(values.len() / 3);
        let whole = report(&values, &stats_of(&values, STATS_FULL_BUDGET));
        let mut merged = stats_of(a, STATS_FULL_BUDGET);
        merged.merge(&stats_of(b, STATS_FULL_BUDGET));
        let m = report(&values, &merged);
        // Exact figures are equal; estimates are within their error.
        assert_eq!(m.count, whole.count);
        assert_eq!(m.nulls, whole.nulls);
        let (_, bounded) = check_distinct(&values, &m);
        assert!(bounded, "{shape:?}: merged distinct {}", m.distinct);
        if whole.accuracy["distinct"] == Accuracy::Exact {
            assert_eq!(m.distinct, whole.distinct);
        }
        check_top(&values, &m);
        let (mn, wn) = (m.numbers.unwrap(), whole.numbers.unwrap());
        assert_eq!(mn.sum, wn.sum);
        assert_eq!(mn.count, wn.count);
        assert!((mn.mean.unwrap() - wn.mean.unwrap()).abs() <= 1e-12 * wn.mean.unwrap().abs());
        assert!((mn.stddev.unwrap() - wn.stddev.unwrap()).abs() <= 1e-9 * wn.stddev.unwrap());
        let floats: Vec<f64> = values.iter().flatten().map(|&v| v as f64).collect();
        let mut r = report(&values, &merged);
        r.numbers = Some(mn);
        assert!(check_quantiles(&floats, &r), "{shape:?}: merged quantiles");
    }
}

#[test]
fn text_ranges_and_lengths_are_exact() {
    let words = ["pear", "apple", "fig", "zucchini", "kiwi", "émincé"];
    let mut s = ValueStats::new(STATS_FULL_BUDGET);
    for w in words {
        s.add_value(w.as_bytes());
        s.add_text(w.as_bytes(), w.chars().count() as u64);
    }
    let r = s.report(words.len() as u64, 0);
    let t = r.text.unwrap();
    assert_eq!((t.min.as_str(), t.max.as_str()), ("apple", "émincé"));
    assert_eq!((t.min_length, t.max_length), (3, 8));
    let mean = words.iter().map(|w| w.chars().count()).sum::<usize>() as f64 / 6.0;
    assert_eq!(t.mean_length, mean);
    assert_eq!(r.accuracy["text_range"], Accuracy::Exact);
}

#[test]
fn numbers_past_a_double_are_counted_and_never_averaged() {
    let mut s = ValueStats::new(STATS_FULL_BUDGET);
    for n in [
        NumberIn::Int(5),
        NumberIn::Rounded(f64::INFINITY),
        NumberIn::Rounded(f64::NEG_INFINITY),
        NumberIn::Float(f64::NAN),
        NumberIn::Int(7),
    ] {
        s.add_number(n);
    }
    let r = s.report(5, 0);
    let numbers = r.numbers.unwrap();
    assert_eq!((numbers.count, numbers.non_finite), (5, 3));
    assert_eq!((numbers.mean, numbers.stddev), (None, None));
    assert!(numbers.sum.is_null());
    // The quantiles are of the two finite numbers, and say so.
    assert_eq!(numbers.quantiles.unwrap().p99, 7.0);
    assert_eq!(error_of(&r.accuracy["quantiles"], "excluded"), Some(3.0));
    assert!(!r.accuracy.contains_key("mean"));
}

/// A top value longer than the budget's text bytes is shown by its first
/// bytes and says its whole length; values that begin alike keep their
/// own counts; a whole value says nothing more. So on one summary and
/// on a merge, exact or past the exact range.
#[test]
fn a_cut_top_value_says_its_whole_length() {
    let cap = STATS_FULL_BUDGET.text_bytes;
    let stem = "x".repeat(cap);
    let long_a = format!("{stem}-alpha");
    let long_b = format!("{stem}-beta-longer");
    let short = "s".repeat(cap);
    let feed = |s: &mut ValueStats, v: &str, n: usize| {
        for _ in 0..n {
            s.add_value(v.as_bytes());
        }
    };
    let mut left = ValueStats::new(STATS_FULL_BUDGET);
    feed(&mut left, &long_a, 5);
    feed(&mut left, &short, 2);
    let mut right = ValueStats::new(STATS_FULL_BUDGET);
    feed(&mut right, &long_b, 3);
    feed(&mut right, &long_a, 1);
    // Many distinct values past the exact range on one side: the
    // summary reuses counters, and the long values still lead.
    let mut busy = ValueStats::new(STATS_FULL_BUDGET);
    feed(&mut busy, &long_a, 400);
    feed(&mut busy, &long_b, 300);
    for i in 0..5_000 {
        busy.add_value(format!("v{i}").as_bytes());
    }
    for (label, s) in [
        ("merged", {
            let mut m = left.clone();
            m.merge(&right);
            m
        }),
        ("busy", busy),
    ] {
        let r = s.report(0, 0);
        let find = |whole: &str| {
            r.top
                .iter()
                .find(|t| t.bytes == Some(whole.len() as u64))
                .unwrap_or_else(|| {
                    panic!("{label}: no entry for {} bytes: {:?}", whole.len(), r.top)
                })
        };
        let (a, b) = (find(&long_a), find(&long_b));
        assert_eq!(a.value, stem, "{label}");
        assert_eq!(b.value, stem, "{label}");
        if label == "merged" {
            assert_eq!((a.count, b.count), (6, 3));
            let s = r.top.iter().find(|t| t.value == short).unwrap();
            assert_eq!((s.count, s.bytes), (2, None));
        } else {
            assert!(a.count >= 400 && a.count <= 400 + a.overcount, "{a:?}");
            assert!(b.count >= 300 && b.count <= 300 + b.overcount, "{b:?}");
        }
    }
}

/// Values of different kinds that share a text stay apart, and values of
/// different kinds and texts never merge: the numbers `100`..`115` and
/// the strings `"100"`..`"115"` (short inputs, where a hash seeded by
/// the kind collided: the number `100` with the string `103`) are 32
/// values, each counted once.
#[test]
fn values_of_two_kinds_are_told_apart() {
    let mut s = ValueStats::new(STATS_FULL_BUDGET);
    for i in 100..116 {
        let text = i.to_string();
        s.add_value_of_kind(text.as_bytes(), 3);
        s.add_value_of_kind(text.as_bytes(), 2);
        s.add_value_of_kind(text.as_bytes(), 2);
    }
    let r = s.report(48, 0);
    assert_eq!(r.accuracy["distinct"], Accuracy::Exact);
    assert_eq!(r.distinct, 32);
    assert_eq!(r.accuracy["top"], Accuracy::Exact);
    // Each string twice, each number once: the ten shown are strings.
    assert!(r.top.iter().all(|t| t.count == 2), "{:?}", r.top);
}

/// A top value says its kind when the caller named kinds, through
/// eviction (more distinct values than counters) and through a merge of
/// two halves: the string `"7"` and the number `7` are listed as two
/// values, each with its own kind and count.
#[test]
fn top_values_say_their_kind() {
    const NAMES: &[&str] = &["none", "string", "number"];
    let feed = |s: &mut ValueStats, from: u32, to: u32| {
        for i in from..to {
            if i % 3 == 0 {
                s.add_value_of_kind(b"7", 1);
            } else if i % 5 == 0 && i >= 5_000 {
                // First seen once the counters are all taken: it comes
                // in by evicting a string.
                s.add_value_of_kind(b"7", 2);
            } else {
                // Filler, each value once: counters are reused.
                s.add_value_of_kind(format!("f{i}").as_bytes(), 1);
            }
        }
    };
    let n = 20_000;
    let mut whole = ValueStats::new(STATS_FULL_BUDGET).with_kind_names(NAMES);
    feed(&mut whole, 0, n);
    let mut left = ValueStats::new(STATS_FULL_BUDGET).with_kind_names(NAMES);
    let mut right = ValueStats::new(STATS_FULL_BUDGET).with_kind_names(NAMES);
    feed(&mut left, 0, n / 2 + 1);
    feed(&mut right, n / 2 + 1, n);
    left.merge(&right);
    let strings = u64::from(n.div_ceil(3));
    let numbers = (5_000..n).filter(|i| i % 3 != 0 && i % 5 == 0).count() as u64;
    for s in [&whole, &left] {
        let r = s.report(u64::from(n), 0);
        assert_ne!(r.accuracy["top"], Accuracy::Exact, "counters were reused");
        let of = |kind| {
            r.top
                .iter()
                .find(|t| t.value == "7" && t.kind == Some(kind))
                .unwrap_or_else(|| panic!("no {kind} 7 in {:?}", r.top))
        };
        let (s7, n7) = (of("string"), of("number"));
        assert!(s7.count >= strings && s7.count <= strings + s7.overcount);
        assert!(n7.count >= numbers && n7.count <= numbers + n7.overcount);
        assert!(r.top.iter().all(|t| t.kind.is_some()), "{:?}", r.top);
    }
    // Without names, no kind is said.
    let mut plain = ValueStats::new(STATS_FULL_BUDGET);
    feed(&mut plain, 0, 100);
    assert!(plain.report(100, 0).top.iter().all(|t| t.kind.is_none()));
}

/// Short texts over a small alphabet: many share their first bytes, and
/// every length from empty to past eight bytes comes up, so the text
/// range is settled both by the prefix key and by the whole comparison.
fn short_texts(n: usize, seed: u64) -> Vec<Vec<u8>> {
    let mut rng = Rng(seed);
    (0..n)
        .map(|_| {
            let len = rng.below(12) as usize;
            (0..len)
                .map(|_| b"ab~\x7f"[rng.below(4) as usize])
                .collect()
        })
        .collect()
}

#[test]
fn text_ranges_of_short_values_match_a_byte_order_sort() {
    for seed in 0..20 {
        let texts = short_texts(300, seed);
        let mut s = ValueStats::new(STATS_FULL_BUDGET);
        for t in &texts {
            s.add_value(t);
            s.add_text(t, t.len() as u64);
        }
        let r = s.report(texts.len() as u64, 0);
        let t = r.text.unwrap();
        let min = texts.iter().min().unwrap();
        let max = texts.iter().max().unwrap();
        assert_eq!(t.min.as_bytes(), min.as_slice(), "seed {seed}");
        assert_eq!(t.max.as_bytes(), max.as_slice(), "seed {seed}");
    }
}

#[test]
fn one_call_a_cell_equals_the_two_calls() {
    for seed in 0..10 {
        let texts = short_texts(2_000, seed);
        let mut rng = Rng(seed ^ 0xABCD);
        let mut two = ValueStats::new(STATS_FULL_BUDGET);
        let mut one = ValueStats::new(STATS_FULL_BUDGET);
        for t in &texts {
            if rng.below(3) == 0 {
                let v = rng.below(5_000) as i64 - 2_500;
                let number = if rng.below(2) == 0 {
                    NumberIn::Int(v)
                } else {
                    NumberIn::Decimal {
                        mantissa: v,
                        scale: 2,
                    }
                };
                let cell = format!("{v}#{}", rng.below(9));
                two.add_value(cell.as_bytes());
                two.add_number(number);
                one.add_number_value(cell.as_bytes(), number);
            } else {
                two.add_value(t);
                two.add_text(t, t.len() as u64);
                one.add_text_value(t, t.len() as u64);
            }
        }
        let n = texts.len() as u64;
        assert_eq!(one.report(n, 0), two.report(n, 0), "seed {seed}");
    }
}

/// A distinct estimate is never above the non-null values counted: all
/// distinct values past the exact set, on every seed and budget, at
/// sizes where the sketch's error would otherwise overshoot.
#[test]
fn a_distinct_estimate_never_passes_the_values_there_are() {
    for budget in [STATS_FULL_BUDGET, StatsBudget::for_index(100_000)] {
        for n in [budget.exact_distinct as i64 + 1, 600, 700, 1_000, 5_000] {
            for seed in 0..20i64 {
                let values: Vec<Option<i64>> = (0..n).map(|i| Some(i * 7_919 + seed)).collect();
                let stats = stats_of(&values, budget);
                let r = report(&values, &stats);
                assert!(r.distinct <= n as u64, "{} > {n} (seed {seed})", r.distinct);
            }
        }
    }
}
