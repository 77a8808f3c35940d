//! One cell of a table: its text, its paint, and how it may be shown
//! narrower. A figure is never cut: it is shown whole or rounded to
//! three significant digits and marked `~`; a date is shown whole; a
//! list is cut between its items; a cell that ends in a count keeps the
//! count.

use unicode_width::UnicodeWidthStr;

use super::{clean, fit, Paint};

/// One table cell: shown text, its meaning, and its alignment.
#[derive(Clone, Debug)]
pub struct Cell {
    pub(super) text: String,
    pub(super) paint: Paint,
    pub(super) right: bool,
    /// Never cut: shown whole, or as `short` where the column is
    /// narrower.
    pub(super) whole: bool,
    /// The rounded form of a whole cell, marked `~`.
    pub(super) short: Option<String>,
    /// Bytes at the end of `text` kept whole when the rest is cut.
    pub(super) tail: usize,
    /// A list's items (`text` joined by `, `): cut between items, a
    /// figure among them never in the middle.
    pub(super) items: Vec<String>,
}

impl Cell {
    pub(super) fn new(text: impl AsRef<str>, paint: Paint) -> Cell {
        Cell {
            text: clean(text.as_ref()),
            paint,
            right: false,
            whole: false,
            short: None,
            tail: 0,
            items: Vec::new(),
        }
    }
    pub(super) fn plain(text: impl AsRef<str>) -> Cell {
        Cell::new(text, Paint::Plain)
    }
    /// A figure: right-aligned, never cut. Text that does not read as a
    /// number (an empty figure) is laid out as text.
    pub(super) fn number(text: impl AsRef<str>) -> Cell {
        let mut c = Cell::plain(text);
        c.right = true;
        c.whole = c.text.is_empty() || rounded(&c.text).is_some() || is_number(&c.text);
        c.short = rounded(&c.text);
        c
    }
    /// A range of two figures, `lo … hi`: never cut, rounded end by end
    /// where its column is narrower.
    pub(super) fn range(lo: &str, hi: &str) -> Cell {
        let mut c = Cell::plain(format!("{lo} … {hi}"));
        // Dates and timestamps are never cut either: their range is
        // shown whole (a date has no honest shorter form).
        if date_like(lo) && date_like(hi) && !(is_number(lo) && is_number(hi)) {
            c.whole = true;
        } else if is_number(lo) && is_number(hi) {
            c.whole = true;
            // As few digits as keep two different ends different.
            let short = (3..=15).find_map(|digits| {
                let r = |s: &str| rounded_to(s, digits).unwrap_or_else(|| s.to_owned());
                let (a, b) = (r(lo), r(hi));
                (a != b || lo == hi).then(|| format!("{a} … {b}"))
            });
            c.short = short.filter(|s| {
                UnicodeWidthStr::width(s.as_str()) < UnicodeWidthStr::width(c.text.as_str())
            });
        }
        c
    }
    /// A value of a window, verbatim: a figure, a date or a timestamp is
    /// never cut or rounded (its column is as wide as it), other text
    /// may be cut.
    pub(super) fn value(text: impl AsRef<str>) -> Cell {
        let mut c = Cell::plain(text);
        c.whole = is_number(&c.text) || date_like(&c.text);
        c
    }
    /// Values joined by `, `, cut after the last whole item that fits
    /// (`1, 2, …`); a figure is never cut: when not even the first fits,
    /// the cell is `…` alone.
    pub(super) fn list(items: Vec<String>, paint: Paint) -> Cell {
        let items: Vec<String> = items.iter().map(|i| clean(i)).collect();
        let mut c = Cell::new(items.join(", "), paint);
        c.items = items;
        c
    }
    /// Text whose last `tail` bytes (a count) stay whole when it is cut.
    pub(super) fn with_tail(text: impl AsRef<str>, tail: &str) -> Cell {
        let mut c = Cell::plain(format!("{}{tail}", text.as_ref()));
        c.tail = clean(tail).len();
        c
    }

    /// The narrowest this cell may be shown in.
    pub(super) fn floor(&self) -> usize {
        if self.whole {
            UnicodeWidthStr::width(self.short.as_deref().unwrap_or(&self.text))
        } else if self.tail > 0 {
            UnicodeWidthStr::width(&self.text[self.text.len() - self.tail..]) + 2
        } else {
            0
        }
    }

    /// The text shown in `w` columns, and whether it was rounded.
    pub(super) fn shown(&self, w: usize) -> (String, bool) {
        if UnicodeWidthStr::width(self.text.as_str()) <= w {
            return (self.text.clone(), false);
        }
        if self.whole {
            return match &self.short {
                Some(s) => (s.clone(), true),
                None => (self.text.clone(), false),
            };
        }
        if !self.items.is_empty() {
            // The most leading items that fit beside a closing `…`.
            let mut out = String::new();
            for item in &self.items {
                let next = if out.is_empty() {
                    item.clone()
                } else {
                    format!("{out}, {item}")
                };
                if UnicodeWidthStr::width(next.as_str()) + 3 > w {
                    break;
                }
                out = next;
            }
            return match (out.is_empty(), self.items.first()) {
                // A figure, a date or a timestamp that does not fit is
                // left out whole.
                (true, Some(first)) if is_number(first) || date_like(first) => {
                    ("…".to_owned(), false)
                }
                // Text may be cut, with the items after it.
                (true, Some(_)) => (fit(&self.text, w), false),
                _ => (format!("{out}, …"), false),
            };
        }
        if self.tail > 0 {
            let (head, tail) = self.text.split_at(self.text.len() - self.tail);
            let room = w.saturating_sub(UnicodeWidthStr::width(tail)).max(2);
            return (format!("{}{tail}", fit(head, room)), false);
        }
        (fit(&self.text, w), false)
    }
}

/// Whether `s` is a figure as the renderings write them: an optional
/// `≈`, a sign, digits with an optional fraction and exponent.
pub(super) fn is_number(s: &str) -> bool {
    let t = s.strip_prefix('≈').unwrap_or(s);
    !t.is_empty() && t.parse::<f64>().is_ok() && t.bytes().any(|b| b.is_ascii_digit())
}

/// Whether `s` reads as a date or a timestamp: ISO 8601 or RFC 3339,
/// or digits with the separators dates are written with (`15/01/2024`,
/// `1.2.2024`), at most one number or letter-free time beside them.
fn date_like(s: &str) -> bool {
    plumb_core::instant_of(s.as_bytes()).is_some()
        || (s.bytes().filter(u8::is_ascii_digit).count() >= 6
            && s.bytes()
                .all(|b| b.is_ascii_digit() || b"/.-: ".contains(&b)))
}

/// The widest a figure is shown before it has a rounded form.
const FIGURE_WHOLE: usize = 7;

/// A figure wider than [`FIGURE_WHOLE`] rounded to three significant
/// digits and marked: `~1.00e9` (an estimate keeps its `≈`, which says
/// it is not exact already); `None` for a short figure or other text.
pub(super) fn rounded(s: &str) -> Option<String> {
    rounded_to(s, 3)
}

/// [`rounded`] to `digits` significant digits (at least 1).
pub(super) fn rounded_to(s: &str, digits: usize) -> Option<String> {
    if UnicodeWidthStr::width(s) <= FIGURE_WHOLE || !is_number(s) {
        return None;
    }
    let digits = digits.max(1);
    let (mark, t) = match s.strip_prefix('≈') {
        Some(t) => ("≈", t),
        None => ("~", s),
    };
    let x: f64 = t.parse().ok()?;
    let a = x.abs();
    // `1.00e9`, as Rust writes an exponent; `e-5` keeps its sign.
    let body = if a != 0.0 && !(1e-3..1e4).contains(&a) {
        let fraction = digits - 1;
        format!("{x:.fraction$e}")
    } else {
        // Digits before the point count toward the significant ones.
        let whole = if a >= 1.0 {
            a.log10().floor() as usize + 1
        } else {
            0
        };
        let fraction = digits.saturating_sub(whole.max(1));
        format!("{x:.fraction$}")
    };
    let out = format!("{mark}{body}");
    (UnicodeWidthStr::width(out.as_str()) < UnicodeWidthStr::width(s)).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figures_round_to_three_digits_marked() {
        assert_eq!(rounded("1000000000").as_deref(), Some("~1.00e9"));
        assert_eq!(rounded("-999727352").as_deref(), Some("~-1.00e9"));
        assert_eq!(rounded("≈4506946971").as_deref(), Some("≈4.51e9"));
        assert_eq!(rounded("498996.706142").as_deref(), Some("~4.99e5"));
        assert_eq!(rounded("1234.56789").as_deref(), Some("~1235"));
        assert_eq!(rounded("0.000012345").as_deref(), Some("~1.23e-5"));
        assert_eq!(rounded("12.345678").as_deref(), Some("~12.3"));
        // Short figures and text stay as they are.
        assert_eq!(rounded("1234567"), None);
        assert_eq!(rounded("len 3–16"), None);
        assert_eq!(rounded("2024-01-15"), None);
    }

    #[test]
    fn a_range_keeps_enough_digits_to_tell_its_ends_apart() {
        let c = Cell::range("1000000000", "1000199999");
        assert_eq!(c.short.as_deref(), Some("~1.0000e9 … ~1.0002e9"));
        let same = Cell::range("123456789", "123456789");
        assert_eq!(same.short.as_deref(), Some("~1.23e8 … ~1.23e8"));
    }
}
