//! Cell classification and column type inference tables.

use plumb_csv::{
    classify_cell, infer_column_type, number_class, CellClass, ClassHistogram, InferredType,
};

#[test]
fn classification_table() {
    use CellClass::*;
    let table: &[(&str, CellClass)] = &[
        ("", Empty),
        ("   ", Empty),
        ("\t", Empty),
        ("NA", Sentinel),
        ("N/A", Sentinel),
        ("NaN", Sentinel),
        ("null", Sentinel),
        ("NULL", Sentinel),
        ("None", Sentinel),
        ("-", Sentinel),
        (" NA ", Sentinel),
        ("na", String),
        ("Null", String),
        ("0", Integer),
        ("-12", Integer),
        ("+7", Integer),
        ("007", Integer),
        ("123456789012345678901234567890", Integer),
        ("1.5", Float),
        ("-0.25", Float),
        (".5", Float),
        ("5.", Float),
        ("1e9", Float),
        ("2.5E-3", Float),
        ("1e", String),
        ("1.2.3", String),
        ("--1", String),
        ("+", String),
        (".", String),
        ("true", Boolean),
        ("FALSE", Boolean),
        ("True", Boolean),
        ("yes", String),
        ("2024-02-29", Date),
        ("2024-02-29T13:45", Timestamp),
        ("2024-02-29 13:45:07", Timestamp),
        ("2024-02-29T13:45:07.123Z", Timestamp),
        ("2024-02-29T13:45:07+02:00", Timestamp),
        ("2024-01-15T10:00:00Z", Timestamp),
        ("2010/01/01 00:00:00", Timestamp),
        ("2010/01/01", Date),
        ("2010.01.31", Date),
        ("2010/01-01", String),
        ("15/01/2024", Date),
        ("01/15/2024", Date),
        ("1/2/2024", Date),
        ("31.12.1999", Date),
        ("12-31-2024 23:59", Timestamp),
        ("13/13/2024", String),
        ("32/01/2024", String),
        ("1/2/24", String),
        ("1/2/20245", String),
        ("1.25", Float),
        ("1.234567", Float),
        ("12345678.9", Float),
        ("2024-13-01", String),
        ("2024-00-10", String),
        ("2024-01-32", String),
        ("2024-01-01T25:00", String),
        ("2024-1-1", String),
        ("bob", String),
        ("1,000", String),
        ("12 apples", String),
    ];
    for (text, class) in table {
        assert_eq!(classify_cell(text), *class, "{text:?}");
    }
}

#[test]
fn date_orders_are_read_from_the_parts() {
    use plumb_csv::{scan_cell, DateOrder};
    let order = |t: &str| {
        scan_cell(t.as_bytes())
            .date
            .map(|d| (d.order, char::from(d.separator)))
    };
    assert_eq!(order("2024-01-15"), Some((DateOrder::Ymd, '-')));
    assert_eq!(order("2024/01/15 08:00"), Some((DateOrder::Ymd, '/')));
    assert_eq!(order("15/01/2024"), Some((DateOrder::Dmy, '/')));
    assert_eq!(order("01/15/2024"), Some((DateOrder::Mdy, '/')));
    assert_eq!(order("03.04.2024"), Some((DateOrder::Ambiguous, '.')));
    assert_eq!(order("42"), None);
}

fn hist(classes: &[CellClass]) -> ClassHistogram {
    let mut h = ClassHistogram::default();
    for &c in classes {
        h.add(c);
    }
    h
}

#[test]
fn inference_table() {
    use CellClass::*;
    let table: &[(&[CellClass], InferredType)] = &[
        (&[], InferredType::Empty),
        (&[Empty, Sentinel], InferredType::Empty),
        (&[Integer, Integer, Empty], InferredType::Integer),
        (&[Integer, Float], InferredType::Float),
        (&[Float, Sentinel], InferredType::Float),
        (&[Boolean, Empty], InferredType::Boolean),
        (&[Date, Date], InferredType::Date),
        (&[String, Sentinel], InferredType::String),
        (&[Integer, String], InferredType::Mixed),
        (&[Integer, Boolean], InferredType::Mixed),
        (&[Integer, Float, Date], InferredType::Mixed),
    ];
    for (classes, want) in table {
        assert_eq!(infer_column_type(&hist(classes)), *want, "{classes:?}");
    }
}

#[test]
fn histogram_serializes_nonzero_classes_by_name() {
    let h = hist(&[CellClass::Integer, CellClass::Integer, CellClass::Sentinel]);
    assert_eq!(
        serde_json::to_string(&h).unwrap(),
        r#"{"sentinel":1,"integer":2}"#
    );
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]

    /// A decimal read in one pass gives std's value whenever it gives one,
    /// and its class agrees with std's parsers.
    #[test]
    fn scan_decimal_agrees_with_std(lit in "[+-]?[0-9]{0,22}(\\.[0-9]{0,22})?([eE][+-]?[0-9]{0,3})?|[+-]?[0-9]{0,9}(\\.[0-9]{0,9})?[eE][+-]?[0-9]{1,2}") {
        let scan = plumb_core::scan_decimal(lit.as_bytes());
        let body = lit.trim_start_matches(['+', '-']);
        let has_digit = body.split(['e', 'E']).next().unwrap().bytes().any(|b| b.is_ascii_digit());
        let exp_ok = body.split_once(['e', 'E']).is_none_or(|(_, e)| e.trim_start_matches(['+', '-']).bytes().any(|b| b.is_ascii_digit()));
        proptest::prop_assert_eq!(scan.is_some(), has_digit && exp_ok, "{}", lit);
        if let Some(d) = scan {
            let f: f64 = lit.parse().unwrap();
            if let Some(v) = d.exact_f64() {
                proptest::prop_assert_eq!(v.to_bits(), f.to_bits(), "{}", lit);
            }
            if let Some(v) = d.exponent_f64() {
                proptest::prop_assert_eq!(v.to_bits(), f.to_bits(), "{}", lit);
                proptest::prop_assert_eq!(plumb_core::number_literal_precision(&lit), None, "{}", lit);
                proptest::prop_assert!(lit.contains(['e', 'E']));
            }
            if let Some(v) = d.small_integer() {
                proptest::prop_assert_eq!(Some(v), lit.parse::<i64>().ok(), "{}", lit);
            }
            let integer = !lit.contains(['.', 'e', 'E']);
            proptest::prop_assert_eq!(number_class(&d) == CellClass::Integer, integer);
            let digits = body.split(['e', 'E']).next().unwrap().bytes().filter(u8::is_ascii_digit).count();
            proptest::prop_assert_eq!(d.is_short(), digits <= 15 && !lit.contains(['e', 'E']));
            // The significand of at most nineteen digits, from the text.
            let (int, frac) = body.split(['e', 'E']).next().unwrap().split_once('.').unwrap_or((body.split(['e', 'E']).next().unwrap(), ""));
            let exp: i64 = body.split_once(['e', 'E']).map_or(0, |(_, e)| e.parse().unwrap_or(0));
            let all = format!("{int}{frac}");
            let sig = all.trim_start_matches('0');
            let trimmed = sig.trim_end_matches('0');
            let want = (!trimmed.is_empty() && digits <= 19).then(|| {
                (trimmed.parse::<u64>().unwrap(), exp - frac.len() as i64 + (sig.len() - trimmed.len()) as i64)
            });
            proptest::prop_assert_eq!(d.significand(), want, "{}", lit);
        }
    }
}

/// The plain-number reading, one character at a time.
fn plain_oracle(cell: &[u8]) -> Option<plumb_core::PlainNumber> {
    let text = std::str::from_utf8(cell).ok()?;
    if text.bytes().any(|b| !b.is_ascii_digit() && b != b'.') || text.matches('.').count() > 1 {
        return None;
    }
    let (int, frac) = text
        .split_once('.')
        .map_or((text, None), |(a, b)| (a, Some(b)));
    let digits = format!("{int}{}", frac.unwrap_or(""));
    if digits.is_empty() || digits.len() > 19 {
        return None;
    }
    Some(plumb_core::PlainNumber {
        mantissa: digits.parse().unwrap(),
        digits: digits.len() as u32,
        frac_digits: frac.map(|f| f.len() as u32),
    })
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(5000))]

    /// Read eight bytes at a time, as one at a time; and what it reads,
    /// `scan_decimal` reads the same way.
    #[test]
    fn plain_numbers_read_by_words_as_by_bytes(
        text in "[0-9.]{0,24}|[0-9]{0,12}[.x /e-]?[0-9]{0,12}",
        bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..24),
    ) {
        for cell in [text.as_bytes(), bytes.as_slice()] {
            let got = plumb_core::scan_plain_number(cell);
            proptest::prop_assert_eq!(got, plain_oracle(cell), "{:?}", cell);
            if let Some(p) = got {
                let d = plumb_core::scan_decimal(cell).unwrap();
                let want = if p.frac_digits.is_some() { CellClass::Float } else { CellClass::Integer };
                proptest::prop_assert_eq!(number_class(&d), want);
                if let Some(f) = p.frac_digits {
                    proptest::prop_assert_eq!(d, plumb_core::DecimalScan::plain_fraction(p.mantissa, p.digits, f));
                }
            }
        }
    }
}
