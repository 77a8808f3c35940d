//! The table a rendering lays out: cells with their paint, columns sized
//! to a width, text cut with an ellipsis rather than wrapped, and columns
//! that do not fit left out and counted.
//!
//! A number is never cut: a figure with its last digits gone reads as
//! another figure. A number cell is shown whole, or, where its column
//! is narrower, in a rounded form marked `~` (three significant digits,
//! `~1.00e9`); its column never gets narrower than that form, and a note
//! under the table says figures were rounded. A cell whose end is a
//! count (`value ×12`) keeps the count whole and cuts only the value.
//!
//! Written here rather than taken from comfy-table: comfy-table wraps
//! cells to fit and cannot leave columns out, which is exactly what a
//! data table at 80 columns must not do.

use unicode_width::UnicodeWidthStr;

use super::cell::Cell;
use super::{clean, fit, pad, Look, Paint};

/// The widest a table cell gets before it is cut, when a width is set.
pub const CELL_MAX: usize = 40;
/// The narrowest a column is squeezed to before columns are left out.
pub const CELL_MIN: usize = 6;
/// The widest a column stays when columns are being left out.
const DROP_CAP: usize = 20;
/// Spaces between two columns.
const GAP: usize = 2;

/// Which columns a layout squeezes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Squeeze {
    /// Those that give way first (samples, notes).
    Flex,
    /// Every column without figures.
    Text,
    /// Every column, figures down to their rounded forms.
    All,
}

/// A table before layout.
#[derive(Default, Debug)]
pub struct Grid {
    pub(super) headers: Vec<String>,
    pub(super) rows: Vec<Vec<Cell>>,
    /// The columns squeezed first when the table is too wide.
    pub(super) flex: Vec<usize>,
    /// What each row is called in the vertical view (`row 7`).
    pub(super) labels: Vec<String>,
    /// The last column takes the width the others leave (a record's
    /// text), rather than stopping at [`CELL_MAX`].
    pub(super) fill_last: bool,
    /// A window of rows too wide for the width shows its first and last
    /// columns and counts the ones between, rather than turning into
    /// records (which `--vertical` still asks for).
    pub(super) hide_middle: bool,
}

impl Grid {
    pub(super) fn new(headers: &[&str]) -> Grid {
        Grid {
            headers: headers.iter().map(|h| (*h).to_owned()).collect(),
            rows: Vec::new(),
            flex: Vec::new(),
            labels: Vec::new(),
            fill_last: false,
            hide_middle: false,
        }
    }

    pub(super) fn columns(&self) -> usize {
        self.rows
            .iter()
            .map(Vec::len)
            .chain([self.headers.len()])
            .max()
            .unwrap_or(0)
    }

    /// The table laid out to the width: columns squeezed down to
    /// [`CELL_MIN`], then left out from the right, with a line saying how
    /// many. With `records`, a table whose columns do not fit (or every
    /// table under `--vertical`) is shown one field per line instead.
    pub(super) fn layout(&self, look: &Look, records: bool) -> String {
        let n = self.columns();
        if n == 0 {
            return String::new();
        }
        let natural: Vec<usize> = (0..n)
            .map(|i| {
                let head = self
                    .headers
                    .get(i)
                    .map_or(0, |h| UnicodeWidthStr::width(h.as_str()));
                let body = self
                    .rows
                    .iter()
                    .filter_map(|r| r.get(i))
                    .map(|c| UnicodeWidthStr::width(c.text.as_str()))
                    .max()
                    .unwrap_or(0);
                let w = head.max(body).max(1);
                match look.width {
                    Some(_) => w.min(CELL_MAX),
                    None => w,
                }
            })
            .collect();
        let Some(width) = look.width else {
            return self.draw(look, &natural, n);
        };
        // No column is narrower than its whole cells' shortest forms.
        let floors: Vec<usize> = (0..n)
            .map(|i| {
                self.rows
                    .iter()
                    .filter_map(|r| r.get(i))
                    .map(Cell::floor)
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        let natural: Vec<usize> = natural
            .iter()
            .zip(&floors)
            .map(|(w, f)| (*w).max(*f))
            .collect();
        let fits =
            |ws: &[usize]| ws.iter().sum::<usize>() + GAP * ws.len().saturating_sub(1) <= width;
        if self.fill_last && n > 1 {
            // The columns before the last at their natural widths, the
            // last to the edge, as long as it keeps a readable width.
            let before = natural[..n - 1].iter().sum::<usize>() + GAP * (n - 1);
            let body = (0..self.rows.len())
                .filter_map(|r| self.rows[r].get(n - 1))
                .map(|c| UnicodeWidthStr::width(c.text.as_str()))
                .chain([self
                    .headers
                    .get(n - 1)
                    .map_or(0, |h| UnicodeWidthStr::width(h.as_str()))])
                .max()
                .unwrap_or(0);
            let rest = width.saturating_sub(before);
            if rest >= CELL_MIN {
                let mut ws = natural[..n - 1].to_vec();
                ws.push(body.clamp(1, rest));
                return self.draw(look, &ws, n);
            }
        }
        if fits(&natural) && !(records && look.vertical) {
            return self.draw(look, &natural, n);
        }
        // Columns holding figures give way last: they can only be
        // rounded, never cut.
        let firm: Vec<bool> = (0..n)
            .map(|i| self.rows.iter().any(|r| r.get(i).is_some_and(|c| c.whole)))
            .collect();
        // The largest cap that still fits, found by halving: first on the
        // columns that give way first (samples, notes), then on every
        // column but the figures', then on all.
        let capped = |cap: usize, pass: Squeeze| -> Vec<usize> {
            natural
                .iter()
                .enumerate()
                .map(|(i, &w)| {
                    let squeezed = match pass {
                        Squeeze::Flex => self.flex.contains(&i),
                        Squeeze::Text => !firm[i],
                        Squeeze::All => true,
                    };
                    if squeezed {
                        w.min(cap.max(CELL_MIN)).max(floors[i])
                    } else {
                        w
                    }
                })
                .collect()
        };
        let largest = |pass: Squeeze| {
            let (mut lo, mut hi) = (CELL_MIN, CELL_MAX);
            while lo < hi {
                let mid = (lo + hi).div_ceil(2);
                if fits(&capped(mid, pass)) {
                    lo = mid;
                } else {
                    hi = mid - 1;
                }
            }
            lo
        };
        let pass = [Squeeze::Flex, Squeeze::Text, Squeeze::All]
            .into_iter()
            .filter(|p| *p != Squeeze::Flex || !self.flex.is_empty())
            .find(|&p| fits(&capped(CELL_MIN, p)));
        let mut widths = match pass {
            Some(p) => capped(largest(p), p),
            // Not even the narrowest of every column fits: columns are
            // left out below, judged at their narrowest, and the room
            // left goes back to those kept.
            None => capped(CELL_MIN, Squeeze::All),
        };
        // Columns that do not fit are left out: those that give way first
        // (samples, notes) before the others, each from the right.
        let mut keep: Vec<usize> = (0..n).collect();
        let width_of = |keep: &[usize]| keep.iter().map(|&i| widths[i]).collect::<Vec<_>>();
        while keep.len() > 1 && !fits(&width_of(&keep)) {
            let at = keep
                .iter()
                .rposition(|i| self.flex.contains(i))
                .unwrap_or(keep.len() - 1);
            keep.remove(at);
        }
        let left = n - keep.len();
        if records && !look.vertical && left > 0 && self.hide_middle {
            let readable: Vec<usize> = natural
                .iter()
                .zip(&floors)
                .map(|(w, f)| (*w).min(DROP_CAP).max(*f))
                .collect();
            if let Some(out) = self.ends(look, width, &readable) {
                return out;
            }
        }
        if records && (look.vertical || left > 0) {
            return self.vertical(look);
        }
        widths = width_of(&keep);
        // Room left over after leaving columns out goes back to the
        // columns that were squeezed, left to right.
        let mut spare = width.saturating_sub(widths.iter().sum::<usize>() + GAP * (keep.len() - 1));
        for (w, &i) in widths.iter_mut().zip(&keep) {
            let more = (natural[i] - *w).min(spare);
            *w += more;
            spare -= more;
        }
        let cols: Vec<Option<usize>> = keep.iter().copied().map(Some).collect();
        let mut out = self.draw_columns(look, &widths, &cols);
        if self.rounds(&keep, &widths) {
            let note = "~ rounded to fit the width (--width 0 or --vertical shows every digit)";
            out.push_str(&look.paint(&fit(note, width), Paint::Dim));
            out.push('\n');
        }
        if left > 0 {
            let note = format!(
                "… {left} more column{} (--vertical or --width 0 shows them)",
                if left == 1 { "" } else { "s" }
            );
            out.push_str(&look.paint(&fit(&note, width), Paint::Dim));
            out.push('\n');
        }
        out
    }

    /// Whether a figure of the columns `keep` is shown rounded at
    /// `widths`.
    fn rounds(&self, keep: &[usize], widths: &[usize]) -> bool {
        self.rows.iter().any(|r| {
            keep.iter()
                .zip(widths)
                .any(|(&i, &w)| r.get(i).is_some_and(|c| c.whole && c.shown(w).1))
        })
    }

    pub(super) fn draw(&self, look: &Look, widths: &[usize], shown: usize) -> String {
        let cols: Vec<Option<usize>> = (0..shown).map(Some).collect();
        self.draw_columns(look, widths, &cols)
    }

    /// The table of the columns `cols` names, in that order, each at its
    /// width in `widths`; `None` is the mark of columns left out (`…`).
    fn draw_columns(&self, look: &Look, widths: &[usize], cols: &[Option<usize>]) -> String {
        let mut out = String::new();
        let row_line = |cells: Vec<(Cell, Paint, bool)>| {
            let mut line = String::new();
            let last = cells.len().saturating_sub(1);
            for (i, (cell, paint, right)) in cells.into_iter().enumerate() {
                let w = widths[i];
                let cut = cell.shown(w).0;
                // The last column is not padded: no trailing spaces.
                let padded = if i == last && !right {
                    cut
                } else {
                    pad(&cut, w, right)
                };
                line.push_str(&look.paint(&padded, paint));
                if i != last {
                    line.push_str(&" ".repeat(GAP));
                }
            }
            line.trim_end().to_owned()
        };
        let gap = || (Cell::plain("…"), Paint::Dim, false);
        if !self.headers.is_empty() {
            let heads = cols
                .iter()
                .map(|c| match c {
                    Some(i) => {
                        let h = self.headers.get(*i).cloned().unwrap_or_default();
                        (Cell::plain(h), Paint::Bold, false)
                    }
                    None => gap(),
                })
                .collect();
            out.push_str(&row_line(heads));
            out.push('\n');
            let rule: Vec<String> = widths.iter().map(|w| "─".repeat(*w)).collect();
            out.push_str(&look.paint(&rule.join(&" ".repeat(GAP)), Paint::Dim));
            out.push('\n');
        }
        for row in &self.rows {
            let cells = cols
                .iter()
                .map(|c| match c.map(|i| row.get(i)) {
                    Some(Some(c)) => (c.clone(), c.paint, c.right),
                    Some(None) => (Cell::plain(""), Paint::Plain, false),
                    None => gap(),
                })
                .collect();
            out.push_str(&row_line(cells));
            out.push('\n');
        }
        out
    }

    /// A window too wide for the width, as its first and last columns
    /// (two from the left for one from the right) at a readable width,
    /// with a `…` column where columns are hidden and a note naming
    /// them. Columns that are not `flex` (a search's matched columns)
    /// are kept first, where they fit. `None` when not even the first
    /// column fits.
    fn ends(&self, look: &Look, width: usize, readable: &[usize]) -> Option<String> {
        let n = readable.len();
        // The width of the columns in `shown`, with one `…` column for
        // each run of hidden ones.
        let cost = |shown: &[bool]| {
            let mut total = 0;
            let mut parts = 0usize;
            for (i, on) in shown.iter().enumerate() {
                if *on {
                    total += readable[i];
                    parts += 1;
                } else if i == 0 || shown[i - 1] {
                    total += 1;
                    parts += 1;
                }
            }
            total + GAP * parts.saturating_sub(1)
        };
        let mut shown = vec![false; n];
        if !self.flex.is_empty() {
            for (i, on) in shown.iter_mut().enumerate() {
                *on = !self.flex.contains(&i);
            }
            if cost(&shown) > width || shown.iter().all(|on| *on) {
                shown = vec![false; n];
            }
        }
        // Columns are taken from the left and the right in turn, two on
        // the left for one on the right, while they fit and one stays
        // hidden.
        let (mut left, mut right) = (0usize, n);
        let (mut left_open, mut right_open) = (true, true);
        let mut taken = 0usize;
        while (left_open || right_open) && left < right {
            let from_left = left_open && (taken % 3 != 2 || !right_open);
            let at = if from_left { left } else { right - 1 };
            let mut with = shown.clone();
            with[at] = true;
            if with.iter().all(|on| *on) || cost(&with) > width {
                if from_left {
                    left_open = false;
                } else {
                    right_open = false;
                }
                continue;
            }
            shown = with;
            if from_left {
                left += 1;
            } else {
                right -= 1;
            }
            taken += 1;
        }
        if !shown[0] {
            return None;
        }
        let mut cols: Vec<Option<usize>> = Vec::new();
        let mut gaps: Vec<(usize, usize)> = Vec::new();
        for i in 0..n {
            if shown[i] {
                cols.push(Some(i));
            } else if shown[i - 1] {
                cols.push(None);
                gaps.push((i - 1, i));
            }
            if !shown[i] {
                if let Some(g) = gaps.last_mut() {
                    g.1 = i + 1;
                }
            }
        }
        let widths: Vec<usize> = cols.iter().map(|c| c.map_or(1, |i| readable[i])).collect();
        let mut out = self.draw_columns(look, &widths, &cols);
        let hidden = shown.iter().filter(|on| !**on).count();
        let name = |i: usize| {
            self.headers
                .get(i)
                .map_or_else(|| format!("({i})"), |h| clean(h))
        };
        let plural = if hidden == 1 { "" } else { "s" };
        let note = match gaps.as_slice() {
            [(before, after)] if *after < n => format!(
                "… {hidden} column{plural} hidden between {} and {} (--vertical shows them)",
                name(*before),
                name(*after)
            ),
            [(before, _)] => format!(
                "… {hidden} column{plural} hidden after {} (--vertical shows them)",
                name(*before)
            ),
            _ => format!("… {hidden} column{plural} hidden (--vertical shows them)"),
        };
        for line in look.wrap("", &note, 2).lines() {
            out.push_str(&look.paint(line, Paint::Dim));
            out.push('\n');
        }
        Some(out)
    }

    /// Each row as a record: a rule naming the row, then one
    /// `name  value` line per field, the value cut to the width.
    pub(super) fn vertical(&self, look: &Look) -> String {
        let names: Vec<String> = (0..self.columns())
            .map(|i| {
                self.headers
                    .get(i)
                    .map_or_else(|| format!("{i}"), |h| clean(h))
            })
            .collect();
        let name_w = names
            .iter()
            .map(|n| UnicodeWidthStr::width(n.as_str()))
            .max()
            .unwrap_or(0)
            .min(CELL_MAX);
        let value_w = look
            .width
            .map(|w| w.saturating_sub(name_w + GAP).max(CELL_MIN));
        let mut out = String::new();
        for (r, row) in self.rows.iter().enumerate() {
            let label = match self.labels.get(r) {
                Some(l) => clean(l),
                None => format!("record {}", r + 1),
            };
            // A long name (a column's) is cut to leave the rule's ends.
            let label = match look.width {
                Some(w) => fit(&label, w.saturating_sub(4).max(CELL_MIN)),
                None => label,
            };
            let title = format!("── {label} ");
            let rule = match look.width {
                Some(w) => format!(
                    "{title}{}",
                    "─".repeat(w.saturating_sub(UnicodeWidthStr::width(title.as_str())))
                ),
                None => title,
            };
            out.push_str(&look.paint(rule.trim_end(), Paint::Dim));
            out.push('\n');
            for (i, name) in names.iter().enumerate() {
                let Some(c) = row.get(i) else { continue };
                let value = match value_w {
                    Some(w) => c.shown(w).0,
                    None => c.text.clone(),
                };
                let line = format!(
                    "{}  {}",
                    look.paint(&pad(&fit(name, name_w), name_w, false), Paint::Bold),
                    look.paint(&value, c.paint)
                );
                out.push_str(line.trim_end());
                out.push('\n');
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::super::cell::rounded;
    use super::*;

    /// A record's rule keeps to the width, however long its name.
    #[test]
    fn a_long_name_in_the_record_view_is_cut_to_the_width() {
        let mut grid = Grid::new(&["field", "value"]);
        grid.rows.push(vec![Cell::plain("a"), Cell::number("1")]);
        grid.labels = vec!["a column named at great length ".repeat(6)];
        for width in [20, 40, 80, 120] {
            let look = Look {
                width: Some(width),
                colour: false,
                vertical: true,
            };
            let text = grid.vertical(&look);
            let rule = text.lines().next().unwrap();
            assert!(rule.starts_with("── a column named"), "{rule}");
            for line in text.lines() {
                assert!(UnicodeWidthStr::width(line) <= width, "{width}: {line}");
            }
        }
    }

    /// Every line at most `width` wide, and every figure shown whole or
    /// rounded (marked), never cut, at every width from 20 to 160.
    #[test]
    fn no_figure_is_cut_at_any_width() {
        let figures = [
            "1000099999.5",
            "57735.171256",
            "≈1000049729",
            "-4498019324.899705",
            "200000",
            "≈0.000123456",
        ];
        let mut grid = Grid::new(&["name", "a", "b", "c", "d", "e", "f", "notes"]);
        for r in 0..3 {
            let mut row = vec![Cell::plain(format!("column number {r}"))];
            row.extend(figures.iter().map(Cell::number));
            row.push(Cell::plain("some words that may be cut"));
            grid.rows.push(row);
        }
        for width in 20..=160 {
            for records in [false, true] {
                let look = Look {
                    width: Some(width),
                    colour: false,
                    vertical: false,
                };
                let out = grid.layout(&look, records);
                for line in out.lines() {
                    assert!(
                        UnicodeWidthStr::width(line) <= width.max(figures[3].len() + 8),
                        "{width}: {line}"
                    );
                    // The notes under a table are prose.
                    if line.starts_with('…') || line.starts_with("~ ") {
                        continue;
                    }
                    for word in line.split_whitespace() {
                        if word
                            .chars()
                            .next()
                            .is_some_and(|c| c.is_ascii_digit() || c == '-')
                        {
                            assert!(!word.ends_with('…'), "{width}: a figure cut: {line}");
                        }
                    }
                }
                for f in figures {
                    let whole = out.contains(f);
                    let short = rounded(f).is_some_and(|r| out.contains(&r));
                    let dropped = out.contains("more column");
                    assert!(whole || short || dropped, "{width}: {f} missing:\n{out}");
                }
            }
        }
    }

    #[test]
    fn a_list_is_cut_between_items() {
        let c = Cell::list(vec!["1000000000".into(), "1000000001".into()], Paint::Plain);
        assert_eq!(c.shown(30).0, "1000000000, 1000000001");
        assert_eq!(c.shown(16).0, "1000000000, …");
        assert_eq!(c.shown(8).0, "…");
        let t = Cell::with_tail("a long value that is cut", " ×12");
        assert_eq!(t.shown(12).0, "a long … ×12");
    }
}
