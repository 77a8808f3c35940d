//! Number-literal precision: each kind with a literal that triggers it
//! and a near miss that does not; exact integer comparison.

use std::cmp::Ordering;

use plumb_core::{
    compare_integer_literals, number_literal_precision, NumericRange, PrecisionKind,
    MAX_NUMBER_LITERAL_BYTES,
};
use serde_json::json;

#[test]
fn each_kind_triggers_and_its_near_miss_does_not() {
    use PrecisionKind::*;
    let long = "9".repeat(MAX_NUMBER_LITERAL_BYTES + 1);
    let just_fits = format!("0.{}", "1".repeat(MAX_NUMBER_LITERAL_BYTES - 2));
    let table: &[(&str, Option<PrecisionKind>)] = &[
        ("9007199254740993", Some(UnsafeInteger)),
        ("-9007199254740993", Some(UnsafeInteger)),
        ("9007199254740992", Some(UnsafeInteger)),
        ("18446744073709551616", Some(UnsafeInteger)),
        ("9007199254740991", None),
        ("-9007199254740991", None),
        ("0", None),
        ("-0", None),
        ("1e400", Some(Overflow)),
        ("-1e400", Some(Overflow)),
        ("1e308", None),
        ("1e-400", Some(Underflow)),
        ("5e-324", None),
        ("0e-400", None),
        ("0.1000000000000000000001", Some(ExcessDigits)),
        ("3.14159265358979323846", Some(ExcessDigits)),
        ("0.30000000000000004", None),
        ("3.141592653589793", None),
        ("3e-324", Some(Inexact)),
        ("9007199254740993.0", Some(Inexact)),
        ("0.1", None),
        ("1.50", None),
        ("1e3", None),
        ("-2.5E-3", None),
        ("100", None),
        ("abc", None),
    ];
    for (lit, want) in table {
        assert_eq!(number_literal_precision(lit), *want, "{lit}");
    }
    assert_eq!(number_literal_precision(&long), Some(OversizedLiteral));
    assert_eq!(just_fits.len(), MAX_NUMBER_LITERAL_BYTES);
    assert_eq!(number_literal_precision(&just_fits), Some(ExcessDigits));
}

#[test]
fn integer_literals_compare_exactly_at_any_length() {
    let table: &[(&str, &str, Ordering)] = &[
        ("1", "2", Ordering::Less),
        ("-1", "-2", Ordering::Greater),
        ("-0", "0", Ordering::Equal),
        ("+5", "5", Ordering::Equal),
        ("007", "7", Ordering::Equal),
        ("9007199254740993", "9007199254740992", Ordering::Greater),
        (
            "-123456789012345678901234567890",
            "-123456789012345678901234567891",
            Ordering::Greater,
        ),
        (
            "99999999999999999999",
            "100000000000000000000",
            Ordering::Less,
        ),
    ];
    for (a, b, want) in table {
        assert_eq!(compare_integer_literals(a, b), *want, "{a} vs {b}");
        assert_eq!(compare_integer_literals(b, a), want.reverse(), "{b} vs {a}");
    }
}

#[test]
fn numeric_range_is_exact_for_integers_and_double_for_floats() {
    let mut r = NumericRange::default();
    assert!(r.is_empty());
    for lit in ["12", "-3", "123456789012345678901234567890", "7"] {
        r.add_integer(lit);
    }
    assert_eq!(
        r.bounds(),
        (
            json!(-3),
            json!({"$literal": "123456789012345678901234567890", "precision": "unsafe-integer"})
        )
    );
    let mut r = NumericRange::default();
    r.add_integer("4");
    r.add_float(-1.5);
    r.add_float(2.25);
    assert_eq!(r.bounds(), (json!(-1.5), json!(4.0)));
}

/// A literal's significant digits and the power of ten of its last one.
fn canonical(lit: &str) -> (String, i64) {
    let lit = lit.trim_start_matches(['+', '-']);
    let (mantissa, exp) = match lit.split_once(['e', 'E']) {
        Some((m, e)) => (m, e.parse::<i64>().unwrap()),
        None => (lit, 0),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits = format!("{int}{frac}");
    let mut exp = exp - frac.len() as i64;
    let digits = digits.trim_start_matches('0');
    let trimmed = digits.trim_end_matches('0');
    exp += (digits.len() - trimmed.len()) as i64;
    if trimmed.is_empty() {
        return (String::new(), 0);
    }
    (trimmed.to_owned(), exp)
}

/// The shortest round trip of `v`, from std's formatting, with a tie
/// between two shortest decimals settled to the even last digit (as Ryu
/// and Python's `repr` settle it; std settles it upward).
fn shortest_half_even(v: f64) -> (String, i64) {
    let s = canonical(&format!("{v:e}"));
    // The double's exact decimal value: at most 767 significant digits.
    let exact = canonical(&format!("{v:.1100e}"));
    let n = s.0.len();
    let tie = exact.0.len() == n + 1 && exact.0.ends_with('5') && exact.1 == s.1 - 1;
    if !tie {
        return s;
    }
    let lower: u128 = exact.0[..n].parse().unwrap();
    let even = if lower.is_multiple_of(2) {
        lower
    } else {
        lower + 1
    };
    canonical(&format!("{even}e{}", s.1))
}

#[test]
fn ties_go_to_the_even_digit() {
    // 71000000000000.125 is a double, halfway between two 16-digit
    // decimals: std prints ...13, Ryu and Python print ...12.
    let v: f64 = "71000000000000.125".parse().unwrap();
    assert_eq!(format!("{v}"), "71000000000000.13");
    assert_eq!(shortest_half_even(v), canonical("71000000000000.12"));
    assert_eq!(number_literal_precision("71000000000000.12"), None);
    assert_eq!(number_literal_precision("710.0000000000012e11"), None);
    assert_eq!(
        number_literal_precision("71000000000000.13"),
        Some(PrecisionKind::Inexact)
    );
    // Not a tie: std's choice stands.
    assert_eq!(
        shortest_half_even(0.1 + 0.2),
        canonical("0.30000000000000004")
    );
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]

    /// Decimal literals of many digits are judged as std's own shortest
    /// formatting would judge them, ties settled to the even digit.
    #[test]
    fn long_decimals_agree_with_std_formatting(
        int in "[0-9]{1,10}",
        frac in "[0-9]{1,14}",
        exp in proptest::option::of(-330i32..320),
        negative in proptest::bool::ANY,
    ) {
        let sign = if negative { "-" } else { "" };
        let lit = match exp {
            Some(e) => format!("{sign}{int}.{frac}e{e}"),
            None => format!("{sign}{int}.{frac}"),
        };
        let v: f64 = lit.parse().unwrap();
        let (digits, _) = canonical(&lit);
        let want = if v.is_infinite() {
            Some(PrecisionKind::Overflow)
        } else if digits.is_empty() || digits.len() <= 15 && exp.is_none_or(|e| e.abs() < 250) {
            None
        } else if v == 0.0 {
            Some(PrecisionKind::Underflow)
        } else if shortest_half_even(v.abs()) == canonical(&lit) {
            None
        } else if digits.len() > 17 {
            Some(PrecisionKind::ExcessDigits)
        } else {
            Some(PrecisionKind::Inexact)
        };
        proptest::prop_assert_eq!(number_literal_precision(&lit), want, "{}", lit);
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]

    /// The one-pass float judgement gives the general path's verdict.
    #[test]
    fn float_judgement_matches_the_general_path(
        lit in "-?[0-9]{1,12}\\.[0-9]{0,12}(e-?[0-9]{1,3})?",
    ) {
        let scan = plumb_core::scan_decimal(lit.as_bytes()).unwrap();
        let parsed: Option<f64> = lit.parse().ok();
        let want = (parsed, plumb_core::number_precision_of(&lit, parsed));
        proptest::prop_assert_eq!(plumb_core::float_value_and_precision(lit.as_bytes(), &scan), want, "{}", lit);
    }
}

/// The one-pass judgement against the general path (std's parse, then
/// the verdict from the literal's text).
fn judged_both_ways(lit: &str) -> Result<(), proptest::test_runner::TestCaseError> {
    let scan = plumb_core::scan_decimal(lit.as_bytes()).unwrap();
    let parsed: Option<f64> = lit.parse().ok();
    let want = (parsed, plumb_core::number_precision_of(lit, parsed));
    let got = plumb_core::float_value_and_precision(lit.as_bytes(), &scan);
    proptest::prop_assert_eq!(got, want, "{}", lit);
    Ok(())
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(4000))]

    /// Shortest round trips of random doubles, and the literals one or
    /// two units away, one digit longer or one digit shorter: exact and
    /// inexact literals of 15 to 19 digits, where the fast path works.
    #[test]
    fn shortest_literals_and_their_neighbours_are_judged_as_the_general_path_does(
        bits in proptest::num::u64::ANY,
        scale in -30i32..30,
        negative in proptest::bool::ANY,
        nudge in -2i64..=2,
        extra in 0u8..=9,
    ) {
        let raw = f64::from_bits(bits);
        let v = if raw.is_finite() { raw } else { 1.0 };
        // Bring the value to about 10^scale.
        let v = {
            let m = v.abs().max(f64::MIN_POSITIVE);
            let k = m.log10().floor();
            (m / 10f64.powf(k)) * 10f64.powi(scale)
        };
        let v = if v.is_finite() && v > 0.0 { v } else { 0.5 };
        let text = ryu::Buffer::new().format_finite(v).to_owned();
        let sign = if negative { "-" } else { "" };
        judged_both_ways(&format!("{sign}{text}"))?;
        // Nudge the last digit of the significand by `nudge` units.
        let (digits, exp) = match text.split_once('e') {
            Some((d, e)) => (d.to_owned(), format!("e{e}")),
            None => (text.clone(), String::new()),
        };
        let digits = if digits.contains('.') { digits } else { format!("{digits}.0") };
        let point = digits.find('.').unwrap();
        let whole: String = digits.chars().filter(|&c| c != '.').collect();
        if let Ok(n) = whole.parse::<i128>() {
            let n = (n + i128::from(nudge)).max(0);
            let frac_len = digits.len() - point - 1;
            let s = format!("{:0>width$}", n, width = frac_len + 1);
            let (a, b) = s.split_at(s.len() - frac_len);
            judged_both_ways(&format!("{sign}{a}.{b}{exp}"))?;
            judged_both_ways(&format!("{sign}{a}.{b}{extra}{exp}"))?;
            if b.len() > 1 {
                judged_both_ways(&format!("{sign}{a}.{}{exp}", &b[..b.len() - 1]))?;
            }
        }
    }

    /// Any literal of 14 to 19 significant digits with a small exponent.
    #[test]
    fn long_literals_are_judged_as_the_general_path_does(
        digits in "[1-9][0-9]{13,18}",
        point in 0usize..19,
        zeros in 0usize..8,
        exp in proptest::option::of(-25i32..25),
    ) {
        let point = point.min(digits.len());
        let (a, b) = digits.split_at(point);
        let a = if a.is_empty() { "0" } else { a };
        let lead = "0".repeat(if point == 0 { zeros } else { 0 });
        let exp = exp.map(|e| format!("e{e}")).unwrap_or_default();
        judged_both_ways(&format!("{a}.{lead}{b}{exp}"))?;
    }
}

proptest::proptest! {
    /// Short fractions kept exactly give the bounds that adding each
    /// one's double would.
    #[test]
    fn short_fractions_bound_as_their_doubles_do(
        lits in proptest::collection::vec("-?[0-9]{1,8}\\.[0-9]{0,7}", 1..40),
    ) {
        let (mut exact, mut doubles) = (NumericRange::default(), NumericRange::default());
        for lit in &lits {
            let d = plumb_core::scan_decimal(lit.as_bytes()).unwrap();
            let (m, digits) = d.short_decimal().unwrap();
            if m == 0 {
                continue;
            }
            exact.add_short_decimal(m, digits);
            doubles.add_float(d.exact_f64().unwrap());
            proptest::prop_assert_eq!(d.exact_f64(), lit.parse::<f64>().ok());
        }
        proptest::prop_assert_eq!(exact.bounds(), doubles.bounds());
    }
}

proptest::proptest! {
    /// An integer literal of any length below 10^308 is unsafe exactly
    /// when it lies outside ±(2^53 − 1), with or without a parsed value.
    #[test]
    fn integers_are_unsafe_exactly_outside_the_safe_range(lit in "[+-]?0{0,3}[0-9]{1,40}") {
        let outside = compare_integer_literals(&lit, "9007199254740991") == Ordering::Greater
            || compare_integer_literals(&lit, "-9007199254740991") == Ordering::Less;
        let want = outside.then_some(PrecisionKind::UnsafeInteger);
        proptest::prop_assert_eq!(number_literal_precision(&lit), want, "{}", lit);
        let parsed: Option<f64> = lit.parse().ok();
        proptest::prop_assert_eq!(plumb_core::number_precision_of(&lit, parsed), want, "{}", lit);
    }
}

/// What a range end of `literal` shows: the literal when it fits `cap`,
/// else its sign, first `cap` digits and count.
fn shown_end(literal: &str, cap: usize) -> serde_json::Value {
    if literal.len() <= cap {
        return plumb_core::integer_json(literal);
    }
    let negative = literal.starts_with('-');
    let magnitude = literal
        .trim_start_matches(['-', '+'])
        .trim_start_matches('0');
    let sign = if negative && !magnitude.is_empty() {
        "-"
    } else {
        ""
    };
    let kind = if literal.len() > MAX_NUMBER_LITERAL_BYTES {
        "oversized-literal"
    } else if literal.parse::<f64>().unwrap().is_infinite() {
        "overflow"
    } else {
        "unsafe-integer"
    };
    json!({
        "$truncated": format!("{sign}{}", &magnitude[..magnitude.len().min(cap)]),
        "digits": magnitude.len(),
        "precision": kind,
    })
}

#[test]
fn long_integers_keep_a_bounded_prefix_and_their_exact_order() {
    let mut r = NumericRange::default();
    let huge = format!("8{}", "1".repeat(1_000_000));
    let bigger = format!("9{}", "0".repeat(1_000_000));
    let smallest = format!("-7{}", "3".repeat(700));
    for lit in [
        huge.as_str(),
        "5",
        &bigger,
        &smallest,
        "-12345678901234567890",
    ] {
        r.add_integer(lit);
    }
    let (min, max) = r.bounds();
    assert_eq!(min, shown_end(&smallest, MAX_NUMBER_LITERAL_BYTES));
    assert_eq!(max, shown_end(&bigger, MAX_NUMBER_LITERAL_BYTES));
    assert_eq!(max["digits"], 1_000_001);
    assert_eq!(
        max["$truncated"].as_str().unwrap().len(),
        MAX_NUMBER_LITERAL_BYTES
    );
    // What the range holds does not grow with the literals.
    assert!(format!("{r:?}").len() < 4 * MAX_NUMBER_LITERAL_BYTES);
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(400))]
    /// Against the whole-literal order: the ends shown are those of the
    /// true smallest and largest literal (the first seen on a tie).
    #[test]
    fn long_integer_ends_match_the_whole_literal_order(
        lits in proptest::collection::vec(
            ("[-+]?", "0{0,2}", "[1-2]", "[0-1]{0,40}", 0usize..700usize),
            1..12,
        ),
        small_cap in 1usize..40,
        capped in proptest::bool::ANY,
    ) {
        let cap = if capped { small_cap } else { MAX_NUMBER_LITERAL_BYTES };
        // Long runs of one digit make literals that agree past the kept
        // prefix, where only the length and the tail tell them apart.
        let lits: Vec<String> = lits
            .into_iter()
            .map(|(sign, zeros, lead, body, pad)| format!("{sign}{zeros}{lead}{}{body}", "5".repeat(pad)))
            .collect();
        let mut r = NumericRange::with_literal_cap(cap);
        for l in &lits {
            r.add_integer(l);
        }
        let pick = |want: Ordering| {
            let mut best = &lits[0];
            for l in &lits[1..] {
                if compare_integer_literals(l, best) == want {
                    best = l;
                }
            }
            best
        };
        let shown = |l: &String| match l.parse::<i64>() {
            Ok(v) => plumb_core::integer_json(&v.to_string()),
            Err(_) => shown_end(l, cap),
        };
        let (min, max) = r.bounds();
        proptest::prop_assert_eq!(min, shown(pick(Ordering::Less)));
        proptest::prop_assert_eq!(max, shown(pick(Ordering::Greater)));
    }
}

/// A range through its serialized form.
fn through_json(r: &NumericRange) -> NumericRange {
    serde_json::from_str(&serde_json::to_string(r).unwrap()).unwrap()
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(400))]
    /// A range of any literals (short and long integers, short and long
    /// fractions, exponents, infinities) comes back equal through its
    /// serialized form, and one merged from two read back bounds as the
    /// range of every literal.
    #[test]
    fn a_range_travels_and_merges_as_it_was(
        lits in proptest::collection::vec(
            "[-+]?[0-9]{1,30}(\\.[0-9]{1,20})?([eE][-+]?[0-9]{1,3})?",
            0..16,
        ),
        split in 0usize..16,
        small_cap in 1usize..40,
        capped in proptest::bool::ANY,
    ) {
        let cap = if capped { small_cap } else { MAX_NUMBER_LITERAL_BYTES };
        let add = |lits: &[String]| {
            let mut r = NumericRange::with_literal_cap(cap);
            for l in lits {
                if l.contains(['.', 'e', 'E']) {
                    r.add_literal(l);
                } else {
                    r.add_integer(l);
                }
            }
            r
        };
        let split = split.min(lits.len());
        let whole = add(&lits);
        proptest::prop_assert_eq!(&through_json(&whole), &whole);
        let mut first = through_json(&add(&lits[..split]));
        first.merge(&through_json(&add(&lits[split..])));
        proptest::prop_assert_eq!(first.bounds(), whole.bounds());
    }
}

/// A serialized range is a claim: ends no scan makes are refused.
#[test]
fn a_range_no_scan_makes_is_refused() {
    let mut r = NumericRange::with_literal_cap(8);
    r.add_integer("-123456789012345678901");
    r.add_integer("5");
    r.add_short_decimal(125, 1);
    r.add_float(2.5e300);
    let good = serde_json::to_value(&r).unwrap();
    assert_eq!(
        serde_json::from_value::<NumericRange>(good.clone()).unwrap(),
        r
    );
    let bad = |path: &[&str], v: serde_json::Value| {
        let mut state = good.clone();
        let mut at = &mut state;
        for p in path {
            at = match p.parse::<usize>() {
                Ok(i) => &mut at[i],
                Err(_) => &mut at[*p],
            };
        }
        *at = v;
        serde_json::from_value::<NumericRange>(state).is_err()
    };
    assert!(bad(&["small"], json!([5, -5])), "integer ends out of order");
    assert!(
        bad(&["short"], json!([[1, 16], [1, 16]])),
        "16 digits after the point"
    );
    assert!(
        bad(&["short"], json!([[125, 1], [3, 0]])),
        "fraction ends out of order"
    );
    assert!(bad(&["float"], json!([f64::NAN.to_bits(), 0])), "a NaN end");
    assert!(
        bad(&["float", "0"], json!(f64::INFINITY.to_bits())),
        "float ends out of order"
    );
    assert!(bad(&["cap"], json!(0)), "no literal cap");
    assert!(bad(&["cap"], json!(100_000)), "a cap past the literal cap");
    assert!(
        bad(&["long", "0", "kept"], json!("0123")),
        "a kept digit run with a leading zero"
    );
    assert!(
        bad(&["long", "0", "kept"], json!("1234567x")),
        "a kept digit that is not one"
    );
    assert!(
        bad(&["long", "0", "digits"], json!(5)),
        "fewer digits than kept"
    );
    assert!(
        bad(&["long", "0", "literal"], json!("12")),
        "a literal the end does not keep"
    );
    assert!(bad(&["extra"], json!(1)), "a field no range has");
    // Each of those changed alone, the rest untouched, is what was refused.
    assert!(!bad(&["small"], json!([-5, 5])));
}
