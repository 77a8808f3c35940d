//! Dates and timestamps read as instants, against a second reckoning:
//! the seconds since the epoch counted by the test kit's calendar walk,
//! for any date and time and any way of writing its offset; and a
//! predicate on timestamps agrees with comparing those seconds.

use plumb_core::{instant_of, Predicate, Subject, SubjectKind};
use proptest::prelude::*;

use plumb_testkit::calendar::{civil_of, days_from_epoch, month_days};

/// Seconds since 1970-01-01T00:00:00 of a UTC date and time.
fn seconds(y: i64, mo: i64, d: i64, h: i64, mi: i64, s: i64) -> i64 {
    days_from_epoch(y, mo, d) * 86_400 + h * 3600 + mi * 60 + s
}

/// A date and time, an offset in minutes (or none), the fraction's
/// digits, and how the separator and offset are written.
fn moment() -> impl Strategy<Value = (i64, i64, i64, i64, i64, i64, Option<i64>, String, u8)> {
    (1600i64..2400, 1i64..=12).prop_flat_map(|(y, m)| {
        (
            Just(y),
            Just(m),
            1..=month_days(y, m),
            0i64..24,
            0i64..60,
            0i64..60,
            prop::option::of(-(23i64 * 60 + 59)..=(23i64 * 60 + 59)),
            "[0-9]{0,9}",
            0u8..6,
        )
    })
}

proptest! {
    #[test]
    fn an_instant_is_its_seconds_from_the_epoch(
        (y, mo, d, h, mi, s, offset, fraction, style) in moment()
    ) {
        let sep = ["T", " ", "t"][usize::from(style % 3)];
        let mut text = format!("{y:04}-{mo:02}-{d:02}{sep}{h:02}:{mi:02}:{s:02}");
        if !fraction.is_empty() {
            text.push('.');
            text.push_str(&fraction);
        }
        let zone = match offset {
            None => String::new(),
            Some(0) if style < 3 => "Z".to_owned(),
            Some(m) => {
                let sign = if m < 0 { '-' } else { '+' };
                if style % 2 == 0 {
                    format!("{sign}{:02}:{:02}", m.abs() / 60, m.abs() % 60)
                } else {
                    format!("{sign}{:02}{:02}", m.abs() / 60, m.abs() % 60)
                }
            }
        };
        text.push_str(&zone);
        let nanos: i128 = if fraction.is_empty() {
            0
        } else {
            format!("{fraction:0<9}").parse().unwrap()
        };
        let local = seconds(y, mo, d, h, mi, s) - offset.unwrap_or(0) * 60;
        let want = i128::from(local) * 1_000_000_000 + nanos;
        prop_assert_eq!(instant_of(text.as_bytes()), Some(want), "{}", text);
        // The date alone is its midnight.
        let day = format!("{y:04}-{mo:02}-{d:02}");
        prop_assert_eq!(
            instant_of(day.as_bytes()),
            Some(i128::from(seconds(y, mo, d, 0, 0, 0)) * 1_000_000_000)
        );
    }

    #[test]
    fn a_timestamp_predicate_orders_as_the_seconds_do(
        a in 0i64..4_000_000_000, b in 0i64..4_000_000_000, shift in -720i64..=720
    ) {
        // `a` written at an offset of `shift` minutes, `b` in UTC.
        let write = |at: i64, minutes: i64| {
            let local = at + minutes * 60;
            let (days, secs) = (local.div_euclid(86_400), local.rem_euclid(86_400));
            let (y, m, d) = civil_of(days);
            let sign = if minutes < 0 { '-' } else { '+' };
            format!(
                "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}{sign}{:02}:{:02}",
                secs / 3600,
                secs / 60 % 60,
                secs % 60,
                minutes.abs() / 60,
                minutes.abs() % 60
            )
        };
        let value = write(a, shift);
        for (op, holds) in [("<", a < b), ("<=", a <= b), ("=", a == b), ("!=", a != b), (">=", a >= b), (">", a > b)] {
            let p = Predicate::parse(&format!("{op} {}", write(b, 0))).unwrap();
            prop_assert_eq!(p.test(&Subject::new(SubjectKind::Text, value.as_bytes())), holds, "{} {} {}", value, op, b);
        }
    }
}
