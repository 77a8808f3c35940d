//! Dates and timestamps read as instants, so a predicate whose operand
//! is one compares values chronologically rather than as text:
//! `2024-03-01T10:00:00+02:00` is before `2024-03-01T09:00:00Z`, which
//! no byte order says.
//!
//! Hand-written rather than taken from `chrono` or `jiff`: only the ISO
//! 8601 / RFC 3339 shapes that data files carry are read, on every value
//! of a searched column, and the calendar arithmetic is a dozen lines
//! (days from the civil date, after H. Hinnant's public algorithm); a
//! date-time crate would bring time zones and formatting plumb never uses.

/// A date or timestamp as nanoseconds since 1970-01-01T00:00:00 UTC.
///
/// Read from `YYYY-MM-DD`, optionally followed by `T` (or `t`, or one
/// space) and `HH:MM`, `HH:MM:SS` or `HH:MM:SS.fraction` (up to nine
/// digits), optionally followed by `Z` or an offset `±HH:MM`, `±HHMM` or
/// `±HH`. A date alone stands for its midnight; a time without an offset
/// is taken as UTC. Anything else (other separators, week dates, a
/// month 13, February 30) is not an instant.
///
/// ```
/// use plumb_core::instant_of;
/// let a = instant_of(b"2024-03-01T10:00:00+02:00").unwrap();
/// let b = instant_of(b"2024-03-01T09:00:00Z").unwrap();
/// assert!(a < b);
/// assert_eq!(instant_of(b"2024-03-01"), instant_of(b"2024-03-01 00:00"));
/// assert_eq!(instant_of(b"1970-01-01T00:00:00.5Z"), Some(500_000_000));
/// assert!(instant_of(b"2023-02-29").is_none());
/// assert!(instant_of(b"20240301").is_none());
/// ```
pub fn instant_of(text: &[u8]) -> Option<i128> {
    let mut r = Reader { text, at: 0 };
    let year = r.digits(4)?;
    r.byte(b'-')?;
    let month = r.digits(2)?;
    r.byte(b'-')?;
    let day = r.digits(2)?;
    if !(1..=12).contains(&month) || day == 0 || day > days_in_month(year, month) {
        return None;
    }
    let mut seconds = days_from_civil(year, month, day) * 86_400;
    let mut nanos: i128 = 0;
    if r.at < text.len() {
        match text[r.at] {
            b'T' | b't' | b' ' => r.at += 1,
            _ => return None,
        }
        let hour = r.digits(2)?;
        r.byte(b':')?;
        let minute = r.digits(2)?;
        let mut second = 0;
        if r.peek() == Some(b':') {
            r.at += 1;
            second = r.digits(2)?;
            if matches!(r.peek(), Some(b'.' | b',')) {
                r.at += 1;
                nanos = r.fraction()?;
            }
        }
        // 60: a leap second, as RFC 3339 allows.
        if hour > 23 || minute > 59 || second > 60 {
            return None;
        }
        seconds += hour * 3600 + minute * 60 + second;
        match r.peek() {
            None => {}
            Some(b'Z' | b'z') => r.at += 1,
            Some(sign @ (b'+' | b'-')) => {
                r.at += 1;
                let oh = r.digits(2)?;
                let om = match r.peek() {
                    Some(b':') => {
                        r.at += 1;
                        r.digits(2)?
                    }
                    Some(_) => r.digits(2)?,
                    None => 0,
                };
                if oh > 23 || om > 59 {
                    return None;
                }
                let offset = oh * 3600 + om * 60;
                // Local time is UTC plus the offset: take it back off.
                seconds -= if sign == b'+' { offset } else { -offset };
            }
            Some(_) => return None,
        }
        if r.at != text.len() {
            return None;
        }
    }
    Some(i128::from(seconds) * 1_000_000_000 + nanos)
}

struct Reader<'a> {
    text: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn peek(&self) -> Option<u8> {
        self.text.get(self.at).copied()
    }

    fn byte(&mut self, want: u8) -> Option<()> {
        (self.peek()? == want).then(|| self.at += 1)
    }

    fn digits(&mut self, n: usize) -> Option<i64> {
        let part = self.text.get(self.at..self.at + n)?;
        let mut v = 0i64;
        for &b in part {
            if !b.is_ascii_digit() {
                return None;
            }
            v = v * 10 + i64::from(b - b'0');
        }
        self.at += n;
        Some(v)
    }

    /// One to nine digits of a second, as nanoseconds.
    fn fraction(&mut self) -> Option<i128> {
        let start = self.at;
        while self.peek().is_some_and(|b| b.is_ascii_digit()) {
            self.at += 1;
        }
        let digits = &self.text[start..self.at];
        if digits.is_empty() || digits.len() > 9 {
            return None;
        }
        let mut v: i128 = 0;
        for &b in digits {
            v = v * 10 + i128::from(b - b'0');
        }
        Some(v * 10i128.pow(9 - digits.len() as u32))
    }
}

fn is_leap(year: i64) -> bool {
    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
}

fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days from 1970-01-01 to a proleptic Gregorian date.
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    // A year that starts in March puts the leap day last.
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let year_of_era = y - era * 400;
    let shifted_month = (month + 9) % 12;
    let day_of_year = (153 * shifted_month + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every day from 1600 to 2400 counted one by one: the closed form
    /// agrees with walking the calendar.
    #[test]
    fn days_agree_with_walking_the_calendar() {
        let mut days = days_from_civil(1600, 1, 1);
        for year in 1600..2400 {
            for month in 1..=12 {
                for day in 1..=days_in_month(year, month) {
                    assert_eq!(
                        days_from_civil(year, month, day),
                        days,
                        "{year}-{month}-{day}"
                    );
                    days += 1;
                }
            }
        }
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(days_from_civil(2000, 3, 1), 11_017);
    }

    #[test]
    fn offsets_and_fractions_are_read_as_instants() {
        let at = |s: &str| instant_of(s.as_bytes());
        assert_eq!(at("2024-01-01T00:00:00Z"), at("2024-01-01T01:00:00+01:00"));
        assert_eq!(at("2024-01-01T00:00:00Z"), at("2023-12-31T19:00-0500"));
        assert_eq!(
            at("2024-01-01T00:00:00Z"),
            at("2024-01-01t00:00:00.000000000z")
        );
        assert_eq!(at("2024-01-01T00:00:00+05"), at("2023-12-31T19:00:00Z"));
        assert_eq!(
            at("1969-12-31T23:59:59.999999999Z"),
            Some(-1),
            "before the epoch"
        );
        for bad in [
            "",
            "2024-1-01",
            "2024-13-01",
            "2024-04-31",
            "2024-01-01T",
            "2024-01-01T24:00",
            "2024-01-01T10:00:00.",
            "2024-01-01T10:00:00.1234567891",
            "2024-01-01T10:00:00+2",
            "2024-01-01T10:00:00 UTC",
            "2024-01-01x",
            "+2024-01-01",
        ] {
            assert_eq!(at(bad), None, "{bad}");
        }
    }
}
