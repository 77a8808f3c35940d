//! Numeric predicates: the short-decimal fast path and the general
//! decimal comparison must give the same answer on every literal.

use std::cmp::Ordering;

use plumb_core::{compare_number_literals, Predicate, Subject, SubjectKind};
use proptest::prelude::*;

/// Literals around the fast path's edges: signs, leading zeros, a bare
/// point on either side, 17 to 20 digits, and some that are no number.
fn literal() -> impl Strategy<Value = String> {
    (
        prop_oneof![Just(""), Just("-"), Just("+")],
        "[0-9]{0,20}",
        prop_oneof![Just(None), "[0-9]{0,20}".prop_map(Some)],
    )
        .prop_map(|(sign, whole, frac)| match frac {
            Some(f) => format!("{sign}{whole}.{f}"),
            None => format!("{sign}{whole}"),
        })
}

fn holds(op: &str, ord: Ordering) -> bool {
    match op {
        "<" => ord.is_lt(),
        "<=" => ord.is_le(),
        ">" => ord.is_gt(),
        ">=" => ord.is_ge(),
        "=" => ord.is_eq(),
        _ => ord.is_ne(),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]
    #[test]
    fn numeric_compare_agrees_with_the_general_comparison(
        cell in prop_oneof![literal(), "[-+0-9.eE a]{0,12}"],
        operand in prop_oneof![literal(), "-?[0-9]{1,3}(\\.[0-9]{1,3})?"],
        op in prop_oneof![Just("<"), Just("<="), Just(">"), Just(">="), Just("="), Just("!=")],
    ) {
        let Ok(predicate) = Predicate::parse(&format!("{op} {operand}")) else {
            return Ok(());
        };
        let subject = Subject::new(SubjectKind::Number, cell.as_bytes());
        let got = predicate.test(&subject);
        match compare_number_literals(cell.as_bytes(), operand.as_bytes()) {
            Some(ord) => prop_assert_eq!(got, holds(op, ord), "{} {} {}", cell, op, operand),
            // Either side no number: only text equality can hold.
            None => {
                let same = cell == operand;
                let want = match op { "=" => same, "!=" => !same, _ => false };
                prop_assert_eq!(got, want, "{} {} {}", cell, op, operand);
            }
        }
    }
}

#[test]
fn past_two_to_the_53_is_compared_exactly() {
    let p = Predicate::parse("> 9007199254740992").unwrap();
    let number = |t: &'static str| Subject::new(SubjectKind::Number, t.as_bytes());
    assert!(p.test(&number("9007199254740993")));
    assert!(!p.test(&number("9007199254740992")));
    assert!(!p.test(&number("9007199254740992.0")));
    assert!(p.test(&number("9007199254740992.000000000000000001")));
    // Nineteen nines: past the fast path's digits, still exact.
    assert!(p.test(&number("9999999999999999999")));
    assert!(!p.test(&number("-9999999999999999999")));
}

/// One side of a comparison with an exponent that may pass any machine
/// integer: `{sign}{int}.{frac}e{exp_sign}{exponent}`, where a huge
/// exponent is a 34-digit base shared by both sides followed by six
/// digits of `delta`, so the test knows exponent differences without
/// big-number arithmetic of its own.
#[derive(Clone, Debug)]
struct Side {
    negative: bool,
    int: String,
    frac: String,
    exp_negative: bool,
    huge: bool,
    delta: u32,
}

impl Side {
    fn literal(&self, base: &str) -> String {
        let sign = if self.negative { "-" } else { "" };
        let exp_sign = if self.exp_negative { "-" } else { "" };
        let exponent = if self.huge {
            format!("{base}{:06}", self.delta)
        } else {
            self.delta.to_string()
        };
        format!("{sign}{}.{}e{exp_sign}{exponent}", self.int, self.frac)
    }

    /// The significant digits and the power of ten of the first, as
    /// (huge, exponent sign, the rest of the power): the power is
    /// ±(base·10^6 + delta) + shift for a huge side, ±delta + shift else.
    fn parts(&self) -> Option<(Vec<u8>, i128)> {
        let all: Vec<u8> = format!("{}{}", self.int, self.frac).into_bytes();
        let lead = all.iter().take_while(|&&d| d == b'0').count();
        if lead == all.len() {
            return None; // zero
        }
        let shift = self.int.len() as i128 - lead as i128;
        let mut digits = all[lead..].to_vec();
        while digits.last() == Some(&b'0') {
            digits.pop();
        }
        let delta = i128::from(self.delta);
        let power = if self.exp_negative { -delta } else { delta } + shift;
        Some((digits, power))
    }
}

/// The order of two sides' absolute values (both nonzero).
fn magnitude_order(a: &Side, b: &Side) -> Ordering {
    let (da, pa) = a.parts().unwrap();
    let (db, pb) = b.parts().unwrap();
    // The huge part of each power: +1 for +base, -1 for -base, 0 for none.
    let h = |s: &Side| match (s.huge, s.exp_negative) {
        (false, _) => 0,
        (true, false) => 1,
        (true, true) => -1,
    };
    h(a).cmp(&h(b))
        .then(pa.cmp(&pb))
        .then_with(|| da.iter().cmp(db.iter()))
}

fn side() -> impl Strategy<Value = Side> {
    (
        any::<bool>(),
        "[0-9]{0,4}",
        "[0-9]{0,4}",
        any::<bool>(),
        any::<bool>(),
        0u32..1_000_000,
    )
        .prop_filter("a digit", |t| !(t.1.is_empty() && t.2.is_empty()))
        .prop_map(|(negative, int, frac, exp_negative, huge, delta)| Side {
            negative,
            int,
            frac,
            exp_negative,
            huge,
            delta: if huge { delta } else { delta % 100 },
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]
    /// Exponents of 40 digits, near each other (the same base, deltas a
    /// few apart or equal, digit positions shifting the power) and beside
    /// small ones: compared exactly, never saturated.
    #[test]
    fn exponents_of_any_length_compare_exactly(
        base in "[1-9][0-9]{33}",
        a in side(),
        mut b in side(),
        near in any::<bool>(),
        by in 0u32..8,
    ) {
        if near {
            b.huge = a.huge;
            b.exp_negative = a.exp_negative;
            b.delta = a.delta.saturating_add(by).min(999_999);
        }
        let sign = |s: &Side| match (s.parts(), s.negative) {
            (None, _) => 0,
            (Some(_), true) => -1,
            (Some(_), false) => 1,
        };
        let want = match sign(&a).cmp(&sign(&b)) {
            Ordering::Equal if sign(&a) == 0 => Ordering::Equal,
            Ordering::Equal if sign(&a) < 0 => magnitude_order(&b, &a),
            Ordering::Equal => magnitude_order(&a, &b),
            o => o,
        };
        let (la, lb) = (a.literal(&base), b.literal(&base));
        prop_assert_eq!(
            compare_number_literals(la.as_bytes(), lb.as_bytes()),
            Some(want),
            "{} against {}", la, lb
        );
        // The same through a predicate, whose operand is read once.
        let p = Predicate::parse(&format!("< {lb}")).unwrap();
        prop_assert_eq!(
            p.test(&Subject::new(SubjectKind::Number, la.as_bytes())),
            want.is_lt(),
            "{} < {}", la, lb
        );
    }
}

#[test]
fn exponents_past_an_i64_are_not_saturated() {
    let p = Predicate::parse("> 1e9223372036854775807").unwrap();
    let number = |t: &'static str| Subject::new(SubjectKind::Number, t.as_bytes());
    assert!(p.test(&number("1e99999999999999999999999")));
    assert!(p.test(&number("1e9223372036854775808")));
    assert!(p.test(&number("10e9223372036854775807")));
    assert!(!p.test(&number("1e9223372036854775807")));
    assert!(!p.test(&number("0.1e9223372036854775808")));
    assert!(!p.test(&number("1e-99999999999999999999999")));
    let tiny = Predicate::parse("< 1e-99999999999999999999999").unwrap();
    assert!(tiny.test(&number("1e-100000000000000000000000")));
    assert!(!tiny.test(&number("1e-99999999999999999999998")));
    assert!(tiny.test(&number("-1e99999999999999999999999")));
}

/// A quoted operand is a JSON string, so text: it matches a value with
/// the same characters (a number by its literal) and orders only text,
/// where the same operand unquoted compares numbers.
#[test]
fn a_quoted_operand_is_text_even_when_it_reads_as_a_number() {
    let num = |t: &'static str| Subject::new(SubjectKind::Number, t.as_bytes());
    let text = |t: &'static str| Subject::new(SubjectKind::Text, t.as_bytes());
    let quoted = Predicate::parse(r#"= "100""#).unwrap();
    let bare = Predicate::parse("= 100").unwrap();
    assert!(matches!(
        quoted,
        Predicate::Compare {
            numeric: false,
            number: None,
            ..
        }
    ));
    for (subject, by_text, by_number) in [
        (num("100"), true, true),
        (num("1e2"), false, true),
        (num("100.0"), false, true),
        (text("100"), true, true),
        // A JSON string is text to either: only the same characters.
        (text("100.0"), false, false),
        (text(" 100"), false, false),
    ] {
        assert_eq!(quoted.test(&subject), by_text, "{:?}", subject.text);
        assert_eq!(bare.test(&subject), by_number, "{:?}", subject.text);
    }
    // Order: a quoted operand orders text by bytes and never a number.
    let above = Predicate::parse(r#"> "1e2""#).unwrap();
    assert!(above.test(&text("9")));
    assert!(!above.test(&text("1")));
    assert!(!above.test(&num("500")));
    assert!(Predicate::parse("> 1e2").unwrap().test(&num("500")));
    // Spaces kept inside the quotes are part of the text.
    let spaced = Predicate::parse(r#"!= " 1""#).unwrap();
    assert!(spaced.test(&num("1")));
    assert!(!spaced.test(&text(" 1")));
}

/// An unquoted operand is trimmed of ASCII white space alone, as a CSV
/// cell is: a no-break space or an ideographic space is the operand's
/// text, not padding, so `= <NBSP>` asks for a cell holding one.
#[test]
fn an_operand_keeps_its_unicode_spaces() {
    let text = |t: &'static str| Subject::new(SubjectKind::Text, t.as_bytes());
    for space in ["\u{a0}", "\u{3000}", "\u{2003}"] {
        let p = Predicate::parse(&format!("= {space}")).unwrap();
        assert!(p.test(&text(space)));
        assert!(!p.test(&text("")), "{space:?} is not empty");
        let framed = Predicate::parse(&format!("=\t x{space} \n")).unwrap();
        let Predicate::Compare { operand, .. } = &framed else {
            panic!("{framed:?}")
        };
        assert_eq!(operand, &format!("x{space}"));
    }
    // ASCII white space around the operand is still padding.
    let p = Predicate::parse(" >=\t 5 \r\n").unwrap();
    assert!(p.test(&Subject::new(SubjectKind::Number, b"5")));
}

/// Each operator's table of accepted orderings says what `Ordering`'s
/// own tests say, for all three orderings.
#[test]
fn every_operator_holds_as_ordering_says() {
    use plumb_core::CompareOp;
    let ops = [
        (CompareOp::Lt, "<"),
        (CompareOp::Le, "<="),
        (CompareOp::Gt, ">"),
        (CompareOp::Ge, ">="),
        (CompareOp::Eq, "="),
        (CompareOp::Ne, "!="),
    ];
    for (op, name) in ops {
        for ord in [Ordering::Less, Ordering::Equal, Ordering::Greater] {
            assert_eq!(op.holds(ord), holds(name, ord), "{name} {ord:?}");
        }
    }
}
