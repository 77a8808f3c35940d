//! A second reckoning of the civil calendar, for tests to hold plumb's
//! dates and instants to: days counted by walking whole years and months
//! from 1970, with no closed form shared with the code under test.

/// Whether `year` of the proleptic Gregorian calendar is a leap year.
pub fn leap(year: i64) -> bool {
    (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
}

/// The days of month `month` (1 to 12) of `year`.
pub fn month_days(year: i64, month: i64) -> i64 {
    match month {
        2 if leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

fn year_days(year: i64) -> i64 {
    if leap(year) {
        366
    } else {
        365
    }
}

/// The days from 1970-01-01 to `year-month-day` (negative before it).
///
/// ```
/// use plumb_testkit::calendar::days_from_epoch;
/// assert_eq!(days_from_epoch(1970, 1, 1), 0);
/// assert_eq!(days_from_epoch(1969, 12, 31), -1);
/// assert_eq!(days_from_epoch(2000, 3, 1), 11_017);
/// ```
pub fn days_from_epoch(year: i64, month: i64, day: i64) -> i64 {
    let whole_years: i64 = if year >= 1970 {
        (1970..year).map(year_days).sum()
    } else {
        -(year..1970).map(year_days).sum::<i64>()
    };
    whole_years + (1..month).map(|m| month_days(year, m)).sum::<i64>() + day - 1
}

/// The civil date (year, month, day) `days` after 1970-01-01.
///
/// ```
/// use plumb_testkit::calendar::civil_of;
/// assert_eq!(civil_of(0), (1970, 1, 1));
/// assert_eq!(civil_of(-1), (1969, 12, 31));
/// assert_eq!(civil_of(11_017), (2000, 3, 1));
/// ```
pub fn civil_of(days: i64) -> (i64, i64, i64) {
    let (mut year, mut left) = (1970, days);
    while left < 0 {
        year -= 1;
        left += year_days(year);
    }
    while left >= year_days(year) {
        left -= year_days(year);
        year += 1;
    }
    let mut month = 1;
    while left >= month_days(year, month) {
        left -= month_days(year, month);
        month += 1;
    }
    (year, month, left + 1)
}
