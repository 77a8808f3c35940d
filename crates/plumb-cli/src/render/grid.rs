//! The table a rendering lays out: cells with their paint, columns sized
//! to a width, cut with an ellipsis rather than wrapped, and columns that
//! do not fit left out and counted.
//!
//! Written here rather than taken from comfy-table: comfy-table wraps
//! cells to fit and cannot leave columns out, which is exactly what a
//! data table at 80 columns must not do.

use unicode_width::UnicodeWidthStr;

use super::{clean, fit, pad, Look, Paint};

/// The widest a table cell gets before it is cut, when a width is set.
pub const CELL_MAX: usize = 40;
/// The narrowest a column is squeezed to before columns are left out.
pub const CELL_MIN: usize = 6;
/// The widest a column stays when columns are being left out.
const DROP_CAP: usize = 20;
/// Spaces between two columns.
const GAP: usize = 2;

/// One table cell: shown text, its meaning, and its alignment.
#[derive(Clone, Debug)]
pub struct Cell {
    pub(super) text: String,
    pub(super) paint: Paint,
    pub(super) right: bool,
}

impl Cell {
    pub(super) fn new(text: impl AsRef<str>, paint: Paint) -> Cell {
        Cell {
            text: clean(text.as_ref()),
            paint,
            right: false,
        }
    }
    pub(super) fn plain(text: impl AsRef<str>) -> Cell {
        Cell::new(text, Paint::Plain)
    }
    pub(super) fn number(text: impl AsRef<str>) -> Cell {
        Cell {
            right: true,
            ..Cell::plain(text)
        }
    }
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
}

impl Grid {
    pub(super) fn new(headers: &[&str]) -> Grid {
        Grid {
            headers: headers.iter().map(|h| (*h).to_owned()).collect(),
            rows: Vec::new(),
            flex: Vec::new(),
            labels: Vec::new(),
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
        let fits =
            |ws: &[usize]| ws.iter().sum::<usize>() + GAP * ws.len().saturating_sub(1) <= width;
        if fits(&natural) && !(records && look.vertical) {
            return self.draw(look, &natural, n);
        }
        // The largest cap that still fits, found by halving: first on the
        // columns that give way first (samples, notes), then on all.
        let capped = |cap: usize, all: bool| -> Vec<usize> {
            natural
                .iter()
                .enumerate()
                .map(|(i, &w)| {
                    if all || self.flex.contains(&i) {
                        w.min(cap.max(CELL_MIN))
                    } else {
                        w
                    }
                })
                .collect()
        };
        let largest = |all: bool| {
            let (mut lo, mut hi) = (CELL_MIN, CELL_MAX);
            while lo < hi {
                let mid = (lo + hi).div_ceil(2);
                if fits(&capped(mid, all)) {
                    lo = mid;
                } else {
                    hi = mid - 1;
                }
            }
            lo
        };
        let mut widths = if !self.flex.is_empty() && fits(&capped(CELL_MIN, false)) {
            capped(largest(false), false)
        } else if fits(&capped(CELL_MIN, true)) {
            capped(largest(true), true)
        } else {
            // Not even the narrowest of every column fits: keep the
            // columns readable and leave out the ones past the edge.
            capped(DROP_CAP, true)
        };
        let mut shown = n;
        while shown > 1 && !fits(&widths[..shown]) {
            shown -= 1;
        }
        if records && (look.vertical || shown < n) {
            return self.vertical(look);
        }
        widths.truncate(shown);
        // Room left over after leaving columns out goes back to the
        // columns that were squeezed, left to right.
        let mut spare = width.saturating_sub(widths.iter().sum::<usize>() + GAP * (shown - 1));
        for (w, nat) in widths.iter_mut().zip(&natural) {
            let more = (nat - *w).min(spare);
            *w += more;
            spare -= more;
        }
        let mut out = self.draw(look, &widths, shown);
        if shown < n {
            let left = n - shown;
            let note = format!(
                "… {left} more column{} (--vertical or --width 0 shows them)",
                if left == 1 { "" } else { "s" }
            );
            out.push_str(&look.paint(&fit(&note, width), Paint::Dim));
            out.push('\n');
        }
        out
    }

    pub(super) fn draw(&self, look: &Look, widths: &[usize], shown: usize) -> String {
        let mut out = String::new();
        let row_line = |cells: Vec<(String, Paint, bool)>| {
            let mut line = String::new();
            let last = cells.len().saturating_sub(1);
            for (i, (text, paint, right)) in cells.into_iter().enumerate() {
                let w = widths[i];
                let cut = fit(&text, w);
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
        if !self.headers.is_empty() {
            let heads = (0..shown)
                .map(|i| {
                    let h = self.headers.get(i).cloned().unwrap_or_default();
                    (clean(&h), Paint::Bold, false)
                })
                .collect();
            out.push_str(&row_line(heads));
            out.push('\n');
            let rule: Vec<String> = widths[..shown].iter().map(|w| "─".repeat(*w)).collect();
            out.push_str(&look.paint(&rule.join(&" ".repeat(GAP)), Paint::Dim));
            out.push('\n');
        }
        for row in &self.rows {
            let cells = (0..shown)
                .map(|i| match row.get(i) {
                    Some(c) => (c.text.clone(), c.paint, c.right),
                    None => (String::new(), Paint::Plain, false),
                })
                .collect();
            out.push_str(&row_line(cells));
            out.push('\n');
        }
        out
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
            let title = match self.labels.get(r) {
                Some(l) => format!("── {l} "),
                None => format!("── record {} ", r + 1),
            };
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
                    Some(w) => fit(&c.text, w),
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
