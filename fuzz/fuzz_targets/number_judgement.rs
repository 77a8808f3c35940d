//! Number literals: the exact-arithmetic judgement of a float
//! (`float_value_and_precision`) gives the general path's value and
//! verdict (std's parse, then the verdict from the text), and
//! `scan_plain_number` agrees with `scan_decimal`. The input is read as
//! a literal, and its first bytes also build one of sixteen to nineteen
//! digits near a random exponent, where the fast path works.
#![no_main]

use libfuzzer_sys::fuzz_target;
use plumb_core::{
    float_value_and_precision, number_precision_of, scan_decimal, scan_plain_number, DecimalScan,
};

fn judge(lit: &str) {
    let Some(scan) = scan_decimal(lit.as_bytes()) else {
        assert_eq!(scan_plain_number(lit.as_bytes()), None, "{lit}");
        return;
    };
    if let Some(p) = scan_plain_number(lit.as_bytes()) {
        match p.frac_digits {
            Some(f) => assert_eq!(scan, DecimalScan::plain_fraction(p.mantissa, p.digits, f)),
            None => assert!(!scan.is_float(), "{lit}"),
        }
    }
    if !scan.is_float() {
        return;
    }
    let parsed: Option<f64> = lit.parse().ok();
    let want = (parsed, number_precision_of(lit, parsed));
    let got = float_value_and_precision(lit.as_bytes(), &scan);
    assert_eq!(
        got.0.map(f64::to_bits),
        want.0.map(f64::to_bits),
        "value of {lit}"
    );
    assert_eq!(got.1, want.1, "verdict of {lit}");
}

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        judge(text);
    }
    if data.len() >= 11 {
        let mut m = [0u8; 8];
        m.copy_from_slice(&data[..8]);
        let m = u64::from_le_bytes(m) % 10_000_000_000_000_000_000;
        let digits = m.to_string();
        let point = usize::from(data[8]) % (digits.len() + 1);
        let exp = i32::from(data[9] as i8) % 30;
        let (a, b) = digits.split_at(point);
        let sign = if data[10] & 1 == 1 { "-" } else { "" };
        judge(&format!("{sign}{a}.{b}"));
        judge(&format!("{sign}{a}.{b}e{exp}"));
    }
});
