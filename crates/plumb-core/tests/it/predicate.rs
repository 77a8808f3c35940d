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
