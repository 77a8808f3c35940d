//! The readable rendering of an answer, for a person at a terminal.
//!
//! Built from the same JSON that `--json` prints, so the two never
//! disagree; the raw detail stays in `--json`. Every table is laid out to
//! a width: a cell longer than its column is cut with an ellipsis (never
//! wrapped), columns that do not fit are left out with a line saying how
//! many, and a window of very wide rows turns into a vertical record view.
//! Prose (a message, a note) is wrapped at spaces with a hanging indent.
//!
//! The table layout is written here rather than taken from comfy-table:
//! comfy-table wraps cells to fit and cannot leave columns out, which is
//! exactly what a data table at 80 columns must not do. `unicode-width`
//! measures what a terminal shows (wide CJK, zero-width marks).

use serde_json::Value;
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// The widest a table cell gets before it is cut, when a width is set.
pub const CELL_MAX: usize = 40;
/// The narrowest a column is squeezed to before columns are left out.
pub const CELL_MIN: usize = 6;
/// The widest a column stays when columns are being left out.
const DROP_CAP: usize = 20;
/// Spaces between two columns.
const GAP: usize = 2;

/// How an answer is laid out: the width (None: unlimited), colour, and
/// whether rows are shown as records, one field per line.
#[derive(Clone, Copy, Debug)]
pub struct Look {
    /// The width in terminal columns; None for unlimited (`--width 0`).
    pub width: Option<usize>,
    /// Whether to colour (a terminal, not `NO_COLOR`, or `--color always`).
    pub colour: bool,
    /// `--vertical`: every window of rows as records.
    pub vertical: bool,
}

/// What a piece of text means, which picks its colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Paint {
    /// No colour.
    Plain,
    /// A heading or a name.
    Bold,
    /// Something of little weight: a null, a position.
    Dim,
    /// An exact view, a valid file.
    Good,
    /// A sampled or cut view, a note to heed.
    Warn,
    /// A problem: an invalid file, an issue.
    Bad,
    /// A numeric type.
    Number,
    /// A date or time type.
    Date,
    /// A text type.
    Text,
    /// A nested (object, array) type.
    Nested,
}

impl Look {
    /// `s` in the colour its meaning takes, when colour is on.
    pub fn paint(&self, s: &str, p: Paint) -> String {
        if !self.colour || p == Paint::Plain || s.is_empty() {
            return s.to_owned();
        }
        let code = match p {
            Paint::Plain => return s.to_owned(),
            Paint::Bold => "1",
            Paint::Dim => "2",
            Paint::Good => "32",
            Paint::Warn => "33",
            Paint::Bad => "1;31",
            Paint::Number => "36",
            Paint::Date => "35",
            Paint::Text => "32",
            Paint::Nested => "34",
        };
        format!("\x1b[{code}m{s}\x1b[0m")
    }

    fn heading(&self, s: &str) -> String {
        self.paint(s, Paint::Bold)
    }

    /// `text` cut to the width (None: whole).
    fn line(&self, text: &str) -> String {
        match self.width {
            Some(w) => fit(text, w),
            None => text.to_owned(),
        }
    }

    /// `text` wrapped at spaces to the width, every line after the first
    /// indented by `indent` columns; a word longer than a line is cut.
    pub(crate) fn wrap(&self, first: &str, text: &str, indent: usize) -> String {
        let Some(width) = self.width else {
            return format!("{first}{text}\n");
        };
        let mut out = String::new();
        let mut line = first.to_owned();
        let mut used = UnicodeWidthStr::width(first);
        let mut fresh = true;
        for word in text.split(' ').filter(|w| !w.is_empty()) {
            let w = UnicodeWidthStr::width(word);
            if !fresh && used + 1 + w > width {
                out.push_str(line.trim_end());
                out.push('\n');
                line = " ".repeat(indent);
                used = indent;
                fresh = true;
            }
            if !fresh {
                line.push(' ');
                used += 1;
            }
            let room = width.saturating_sub(used).max(1);
            let word = fit(word, room);
            used += UnicodeWidthStr::width(word.as_str());
            line.push_str(&word);
            fresh = false;
        }
        out.push_str(line.trim_end());
        out.push('\n');
        out
    }
}

/// Whether to colour: `always`, `never`, or `auto` (only on a terminal,
/// never under a non-empty `NO_COLOR`).
pub fn colour(choice: &str, is_terminal: bool) -> bool {
    match choice {
        "always" => true,
        "never" => false,
        _ => is_terminal && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()),
    }
}

/// Text safe to show: control characters (a tab, an escape that would
/// drive the terminal) written as escapes, a line break as `⏎`.
pub fn clean(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\n' => out.push('⏎'),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => out.push_str(&c.escape_unicode().to_string()),
            c => out.push(c),
        }
    }
    out
}

/// `s` cut to `width` terminal columns, an ellipsis marking the cut.
pub fn fit(s: &str, width: usize) -> String {
    if UnicodeWidthStr::width(s) <= width {
        return s.to_owned();
    }
    let mut out = String::new();
    let mut used = 0;
    for c in s.chars() {
        let w = c.width().unwrap_or(0);
        if used + w + 1 > width {
            break;
        }
        used += w;
        out.push(c);
    }
    if width > 0 {
        out.push('…');
    }
    out
}

fn pad(s: &str, width: usize, right: bool) -> String {
    let fill = width.saturating_sub(UnicodeWidthStr::width(s));
    if right {
        format!("{}{s}", " ".repeat(fill))
    } else {
        format!("{s}{}", " ".repeat(fill))
    }
}

/// One table cell: shown text, its meaning, and its alignment.
#[derive(Clone, Debug)]
pub struct Cell {
    text: String,
    paint: Paint,
    right: bool,
}

impl Cell {
    fn new(text: impl AsRef<str>, paint: Paint) -> Cell {
        Cell {
            text: clean(text.as_ref()),
            paint,
            right: false,
        }
    }
    fn plain(text: impl AsRef<str>) -> Cell {
        Cell::new(text, Paint::Plain)
    }
    fn number(text: impl AsRef<str>) -> Cell {
        Cell {
            right: true,
            ..Cell::plain(text)
        }
    }
}

/// A table before layout.
#[derive(Default, Debug)]
pub struct Grid {
    headers: Vec<String>,
    rows: Vec<Vec<Cell>>,
    /// The columns squeezed first when the table is too wide.
    flex: Vec<usize>,
    /// What each row is called in the vertical view (`row 7`).
    labels: Vec<String>,
}

impl Grid {
    fn new(headers: &[&str]) -> Grid {
        Grid {
            headers: headers.iter().map(|h| (*h).to_owned()).collect(),
            rows: Vec::new(),
            flex: Vec::new(),
            labels: Vec::new(),
        }
    }

    fn columns(&self) -> usize {
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
    fn layout(&self, look: &Look, records: bool) -> String {
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

    fn draw(&self, look: &Look, widths: &[usize], shown: usize) -> String {
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
    fn vertical(&self, look: &Look) -> String {
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

/// A JSON value as a short word: strings bare, exact-number literals by
/// their digits, a null as `·`, containers as compact JSON.
pub fn word(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => "·".to_owned(),
        Value::Object(m) if m.contains_key("$literal") => word(&m["$literal"]),
        other => other.to_string(),
    }
}

/// `{"a": 2, "b": 1}` as `a 2, b 1`.
fn tally(v: &Value) -> String {
    match v {
        Value::Object(m) => m
            .iter()
            .map(|(k, n)| format!("{k} {}", word(n)))
            .collect::<Vec<_>>()
            .join(", "),
        other => word(other),
    }
}

fn type_paint(t: &str) -> Paint {
    match t {
        "integer" | "float" | "number" | "decimal" => Paint::Number,
        "date" | "datetime" | "time" => Paint::Date,
        "string" | "text" => Paint::Text,
        "object" | "array" => Paint::Nested,
        "empty" | "null" => Paint::Dim,
        _ => Paint::Plain,
    }
}

/// The view flags as one word, coloured by meaning.
fn view_word(look: &Look, view: &Value) -> String {
    if view["sampled"] == Value::Bool(true) {
        look.paint(
            "sampled (the scan stopped early; counts are lower bounds)",
            Paint::Warn,
        )
    } else if view["converted"] == Value::Bool(true) {
        look.paint("cut (a value shortened, or cells left unread)", Paint::Warn)
    } else {
        look.paint("exact", Paint::Good)
    }
}

fn count(v: &Value, one: &str, many: &str) -> Option<String> {
    let n = v.as_u64()?;
    Some(format!("{n} {}", if n == 1 { one } else { many }))
}

/// The dialect of a table in a few words: `delimiter , · quote " · lf`.
fn dialect(a: &Value) -> Vec<String> {
    let mut parts = Vec::new();
    if let Some(d) = a["delimiter"].as_str() {
        parts.push(format!("delimiter {}", clean(d)));
    }
    match a["quote"].as_str() {
        Some(q) => parts.push(format!("quote {}", clean(q))),
        None if a.get("quote").is_some() => parts.push("no quoting".to_owned()),
        None => {}
    }
    if let Some(le) = a["line_ending"].as_str() {
        parts.push(le.to_owned());
    }
    if a["bom"] == Value::Bool(true) {
        parts.push("byte order mark".to_owned());
    }
    if let Some(c) = a["comment"].as_str() {
        parts.push(format!("comment {}", clean(c)));
    }
    parts
}

/// The lines of notes a table answer carries beside its data.
fn table_notes(look: &Look, a: &Value, out: &mut String) {
    if let Some(note) = a["delimiter_note"].as_str() {
        out.push_str(&look.paint(&look.wrap("note: ", note, 6), Paint::Warn));
    }
    for (key, what) in [
        ("skipped_lines", "lines skipped before the header"),
        ("comment_lines", "comment lines"),
        ("blank_lines", "blank lines"),
        (
            "untracked_columns",
            "columns past the tracked cap (not described)",
        ),
    ] {
        if let Some(n) = a[key].as_u64().filter(|n| *n > 0) {
            out.push_str(&look.line(&format!("{n} {what}")));
            out.push('\n');
        }
    }
}

/// A table answer's first lines: the summary, the dialect, the notes.
fn table_head(look: &Look, a: &Value, parts: Vec<String>) -> String {
    let mut out = summary(look, a, parts);
    let d = dialect(a);
    if !d.is_empty() {
        out.push_str(&look.line(&d.join(" · ")));
        out.push('\n');
    }
    table_notes(look, a, &mut out);
    out
}

/// The problems an answer lists, one wrapped line each.
fn problems(look: &Look, items: &[Value], total: Option<u64>, out: &mut String) {
    if items.is_empty() {
        return;
    }
    let title = match total {
        Some(t) if t as usize > items.len() => format!("problems (first {} of {t})", items.len()),
        _ => "problems".to_owned(),
    };
    out.push_str(&format!("\n{}\n", look.paint(&title, Paint::Bad)));
    for p in items {
        let at = match (p["line"].as_u64(), p["record"].as_u64()) {
            (Some(l), _) => format!("line {l}"),
            (None, Some(r)) => format!("record {r}"),
            _ => p["byte_offset"]
                .as_u64()
                .map(|b| format!("byte {b}"))
                .unwrap_or_default(),
        };
        let kind = p["kind"]
            .as_str()
            .map(|k| format!("{k}: "))
            .unwrap_or_default();
        let first = format!("  {at:<10} ");
        let text = format!("{kind}{}", p["message"].as_str().unwrap_or_default());
        out.push_str(&painted_prefix(look, &first, Paint::Dim, &clean(&text), 13));
    }
}

/// `text` wrapped after a plain `first` (measured as shown), with the
/// first painted afterwards so no escape is counted as width.
fn painted_prefix(look: &Look, first: &str, paint: Paint, text: &str, indent: usize) -> String {
    let wrapped = look.wrap(first, text, indent);
    match wrapped.strip_prefix(first) {
        Some(rest) => format!("{}{rest}", look.paint(first, paint)),
        None => wrapped,
    }
}

/// The range of a column or path, when it has one: `min … max` for
/// numbers, dates and strings, else string lengths as `len 3–16`.
fn range(item: &Value) -> String {
    if !item["min"].is_null() || !item["max"].is_null() {
        return format!("{} … {}", word(&item["min"]), word(&item["max"]));
    }
    let (lo, hi) = if item["string_length"].is_object() {
        (&item["string_length"]["min"], &item["string_length"]["max"])
    } else {
        (&item["min_length"], &item["max_length"])
    };
    match (lo.as_u64(), hi.as_u64()) {
        (Some(a), Some(b)) if a == b => format!("len {a}"),
        (Some(a), Some(b)) => format!("len {a}–{b}"),
        _ => String::new(),
    }
}

/// The cells a column and an outline path share: distinct (with
/// statistics), range, samples.
fn shared_facts(row: &mut Vec<Cell>, item: &Value, with_stats: bool) {
    if with_stats {
        row.push(Cell::number(distinct(item)));
    }
    row.push(Cell::plain(range(item)));
    row.push(Cell::new(samples(item), Paint::Dim));
}

fn samples(item: &Value) -> String {
    item["samples"]
        .as_array()
        .map(|s| s.iter().map(word).collect::<Vec<_>>().join(", "))
        .unwrap_or_default()
}

/// Notes on a column in short words: the rows too short to reach it,
/// its precision losses and, when its values are of mixed classes, the
/// classes other than its type.
fn column_notes(item: &Value) -> String {
    let mut notes = Vec::new();
    if let Some(n) = item["missing"].as_u64().filter(|&n| n > 0) {
        notes.push(format!(
            "no cell in {n} short row{}",
            if n == 1 { "" } else { "s" }
        ));
    }
    if let Some(n) = item["unread"].as_u64().filter(|&n| n > 0) {
        notes.push(format!(
            "unread in {n} row{} cut by a cap",
            if n == 1 { "" } else { "s" }
        ));
    }
    for p in item["precision"].as_array().into_iter().flatten() {
        notes.push(format!("{} ×{}", word(&p["kind"]), word(&p["count"])));
    }
    if let Value::Object(classes) = &item["classes"] {
        let ty = item["inferred_type"].as_str().unwrap_or_default();
        let others: Vec<String> = classes
            .iter()
            .filter(|(k, _)| k.as_str() != ty && k.as_str() != "empty" && k.as_str() != "sentinel")
            .map(|(k, n)| format!("{k} {}", word(n)))
            .collect();
        if !others.is_empty() {
            notes.push(format!("also {}", others.join(", ")));
        }
    }
    notes.join("; ")
}

/// The distinct count of an item's statistics, `≈` when estimated.
fn distinct(item: &Value) -> String {
    let s = &item["stats"];
    if s["distinct"].is_null() {
        return String::new();
    }
    let exact = s["accuracy"]["distinct"] == "exact" || s["accuracy"]["distinct"].is_null();
    format!("{}{}", if exact { "" } else { "≈" }, word(&s["distinct"]))
}

/// `inspect` for a person: a summary line, then one line per column or
/// path, problems, and the sample. Answers of a shape it does not know
/// (a third-party reader's) fall back to [`generic`].
/// `size` is the file's size in bytes, when known (a stream's is not).
pub fn inspect(a: &Value, look: &Look, size: Option<u64>) -> String {
    let size = size.map(bytes);
    if a["columns"][0]["physical"].is_string() {
        inspect_columnar(a, look, size)
    } else if a["sheets"].is_array() && a["date_system"].is_string() {
        inspect_sheets(a, look, size)
    } else if a["columns"].is_array() {
        inspect_table(a, look, size)
    } else if a["outline"]["paths"].is_array() {
        inspect_tree(a, look, size)
    } else {
        let mut out = generic(a, look);
        if let Some(s) = size {
            out.insert_str(0, &format!("{}{s}\n", look.heading("size: ")));
        }
        out
    }
}

/// A size as a person reads it: `812 B`, `1.4 KiB`, `3.0 GiB`.
pub fn bytes(n: u64) -> String {
    const UNITS: [&str; 5] = ["KiB", "MiB", "GiB", "TiB", "PiB"];
    if n < 1024 {
        return format!("{n} B");
    }
    let mut v = n as f64 / 1024.0;
    let mut unit = 0;
    while v >= 1024.0 && unit + 1 < UNITS.len() {
        v /= 1024.0;
        unit += 1;
    }
    format!("{v:.1} {}", UNITS[unit])
}

fn summary(look: &Look, a: &Value, parts: Vec<String>) -> String {
    let mut line = vec![look.paint(&word(&a["format"]), Paint::Bold)];
    line.extend(parts);
    line.push(view_word(look, &a["view"]));
    // Cut on the plain text so no escape is split.
    let plain = line.join(" · ");
    if look
        .width
        .is_some_and(|w| UnicodeWidthStr::width(strip(&plain).as_str()) > w)
    {
        look.wrap("", &strip(&plain), 2)
    } else {
        plain + "\n"
    }
}

/// Text without the colour escapes [`Look::paint`] adds.
fn strip(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            for d in chars.by_ref() {
                if d == 'm' {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

fn inspect_table(a: &Value, look: &Look, size: Option<String>) -> String {
    let columns = a["columns"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    let rows = match (a["row_count"].as_u64(), a["rows_scanned"].as_u64()) {
        (Some(n), _) => count(&Value::from(n), "row", "rows"),
        (None, Some(n)) => Some(format!("at least {n} rows")),
        _ => None,
    };
    let mut parts: Vec<String> = size.into_iter().chain(rows).collect();
    let ncols = crate::screen::listed(a, "columns") + a["untracked_columns"].as_u64().unwrap_or(0);
    parts.extend(count(&Value::from(ncols), "column", "columns"));
    let mut out = table_head(look, a, parts);
    let with_stats = columns.iter().any(|c| c["stats"].is_object());
    let mut heads = vec!["#", "column", "type", "nulls"];
    if with_stats {
        heads.push("distinct");
    }
    heads.extend(["range", "sample", "notes"]);
    let mut grid = Grid::new(&heads);
    grid.flex = vec![heads.len() - 2, heads.len() - 1];
    for c in columns {
        let ty = word(&c["inferred_type"]);
        let ty_shown = match c["date_format"].as_str() {
            Some(f) => format!("{ty} {f}"),
            None => ty.clone(),
        };
        let sentinels: u64 = c["sentinels"]
            .as_object()
            .map(|m| m.values().filter_map(Value::as_u64).sum())
            .unwrap_or(0);
        let empty = c["empty"].as_u64().unwrap_or(0);
        let nulls = match c["sentinels"].as_object().filter(|m| !m.is_empty()) {
            Some(m) => format!(
                "{} ({})",
                empty + sentinels,
                m.keys().cloned().collect::<Vec<_>>().join(" ")
            ),
            None => (empty + sentinels).to_string(),
        };
        let mut row = vec![
            Cell::number(word(&c["index"])),
            Cell::new(word(&c["name"]), Paint::Bold),
            Cell::new(ty_shown, type_paint(&ty)),
            Cell::number(nulls),
        ];
        shared_facts(&mut row, c, with_stats);
        row.push(Cell::new(column_notes(c), Paint::Warn));
        grid.rows.push(row);
    }
    out.push('\n');
    out.push_str(&grid.layout(look, false));
    if let Some(t) = stats_grid(columns, "name") {
        out.push_str(&format!("\n{}\n", look.heading("statistics")));
        out.push_str(&t.layout(look, false));
    }
    problems(
        look,
        a["issues"]
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or_default(),
        a["issue_count"].as_u64(),
        &mut out,
    );
    if let Some(sample) = a["sample"].as_array().filter(|s| !s.is_empty()) {
        out.push_str(&format!("\n{}\n", look.heading("sample")));
        out.push_str(&rows_grid(sample, &a["header"], None).layout(look, false));
    }
    out
}

/// A columnar file's inspect (Parquet): its rows and row groups, then
/// one line per leaf column with the figures its writer stored.
fn inspect_columnar(a: &Value, look: &Look, size: Option<String>) -> String {
    let columns = a["columns"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    let mut parts: Vec<String> = size.into_iter().collect();
    parts.extend(count(&a["rows"], "row", "rows"));
    parts.extend(count(&a["row_groups"]["count"], "row group", "row groups"));
    let ncols = crate::screen::listed(a, "columns") + a["columns_omitted"].as_u64().unwrap_or(0);
    parts.extend(count(&Value::from(ncols), "column", "columns"));
    let mut out = summary(look, a, parts);
    if let Some(w) = a["created_by"].as_str() {
        out.push_str(&look.line(&format!("written by {}", clean(w))));
        out.push('\n');
    }
    let mut grid = Grid::new(&["#", "column", "type", "nulls", "range", "notes"]);
    grid.flex = vec![4, 5];
    for (i, c) in columns.iter().enumerate() {
        let ty = match c["logical"].as_str() {
            Some(l) => l.to_owned(),
            None => word(&c["physical"]).to_ascii_lowercase(),
        };
        let stats = &c["statistics"];
        let nulls = stats["null_count"]
            .as_u64()
            .map_or_else(|| "·".to_owned(), |n| n.to_string());
        let range = match (&stats["min"], &stats["max"]) {
            (Value::Null, _) | (_, Value::Null) => String::new(),
            (lo, hi) => format!("{} … {}", word(lo), word(hi)),
        };
        let mut notes: Vec<String> = Vec::new();
        if c["repetition"] == "repeated" || c["max_repetition_level"].as_u64() > Some(0) {
            notes.push("repeated".to_owned());
        }
        if let Some(codecs) = c["compression"].as_array() {
            notes.extend(codecs.iter().map(word).filter(|w| w != "uncompressed"));
        }
        if stats["min_max_exact"] == Value::Bool(false) && !range.is_empty() {
            notes.push("range is a bound".to_owned());
        }
        grid.rows.push(vec![
            Cell::number(i.to_string()),
            Cell::new(word(&c["path"]), Paint::Bold),
            Cell::plain(ty),
            Cell::number(nulls),
            Cell::plain(range),
            Cell::new(notes.join(", "), Paint::Dim),
        ]);
    }
    out.push('\n');
    out.push_str(&grid.layout(look, false));
    let text = look.line("(nulls and ranges are the writer's statistics, from the footer)");
    out.push_str(&look.paint(&text, Paint::Dim));
    out.push('\n');
    if let Some(t) = stats_grid(columns, "path") {
        out.push_str(&format!(
            "\n{}\n",
            look.heading("statistics (every value read)")
        ));
        out.push_str(&t.layout(look, false));
    }
    out
}

/// A workbook's inspect: its sheets, then each sheet read with its
/// columns, formulas and merged cells.
fn inspect_sheets(a: &Value, look: &Look, size: Option<String>) -> String {
    let sheets = a["sheets"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    let mut parts: Vec<String> = size.into_iter().collect();
    parts.extend(count(
        &Value::from(crate::screen::listed(a, "sheets")),
        "sheet",
        "sheets",
    ));
    parts.push(format!("{} date system", word(&a["date_system"])));
    let mut out = summary(look, a, parts);
    for s in sheets {
        let mut head = format!("sheet {} {}", word(&s["index"]), clean(&word(&s["name"])));
        if s["visible"] != "visible" {
            head.push_str(&format!(" ({})", word(&s["visible"])));
        }
        out.push_str(&format!("\n{}\n", look.heading(&head)));
        if let Some(e) = s["error"].as_str() {
            out.push_str(&look.line(&format!("could not be read: {}", clean(e))));
            out.push('\n');
            continue;
        }
        if s["described"] != Value::Bool(true) {
            out.push_str(&look.paint(
                &look.line(&format!("{} (not read)", word(&s["kind"]))),
                Paint::Dim,
            ));
            out.push('\n');
            continue;
        }
        let mut facts = vec![match s["dimensions"].as_str() {
            Some(d) => format!("used range {d}"),
            None => "empty".to_owned(),
        }];
        facts.extend(count(&s["data_rows"], "data row", "data rows"));
        facts.push(if s["header"] == Value::Bool(true) {
            "header row".to_owned()
        } else {
            "no header row".to_owned()
        });
        if let Some(n) = s["formulas"]["count"].as_u64().filter(|&n| n > 0) {
            let f: Vec<String> = s["formulas"]["functions"]
                .as_array()
                .map(|v| v.iter().map(word).collect())
                .unwrap_or_default();
            facts.push(if f.is_empty() {
                format!("{n} formulas")
            } else {
                format!("{n} formulas ({})", f.join(", "))
            });
        }
        if let Some(n) = s["merged"]["count"].as_u64().filter(|&n| n > 0) {
            facts.push(format!("{n} merged regions"));
        }
        out.push_str(&look.line(&clean(&facts.join(" · "))));
        out.push('\n');
        let columns = s["columns"]
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or_default();
        if columns.is_empty() {
            continue;
        }
        let mut grid = Grid::new(&["col", "column", "type", "values", "empty"]);
        grid.flex = vec![1];
        for c in columns {
            grid.rows.push(vec![
                Cell::new(word(&c["letter"]), Paint::Dim),
                Cell::new(clean(&word(&c["name"])), Paint::Bold),
                Cell::plain(word(&c["type"])),
                Cell::number(word(&c["values"])),
                Cell::number(word(&c["empties"])),
            ]);
        }
        out.push_str(&grid.layout(look, false));
        if let Some(n) = s["columns_omitted"].as_u64() {
            out.push_str(&look.line(&format!("… {n} more columns")));
            out.push('\n');
        }
    }
    out
}

fn inspect_tree(a: &Value, look: &Look, size: Option<String>) -> String {
    let mut parts: Vec<String> = size.into_iter().collect();
    if let Some(n) = a["rows_scanned"].as_u64() {
        let sampled = a["view"]["sampled"] == Value::Bool(true);
        parts.push(format!(
            "{}{n} record{}",
            if sampled { "at least " } else { "" },
            if n == 1 { "" } else { "s" }
        ));
    }
    if let Some(root) = a["root_type"].as_str() {
        match a["count"].as_u64() {
            Some(n) => parts.push(format!("{root} of {n}")),
            None => parts.push(root.to_owned()),
        }
    }
    for key in ["key_order", "keys"] {
        if a[key].is_array() {
            parts.extend(count(
                &Value::from(crate::screen::listed(a, key)),
                "key",
                "keys",
            ));
            break;
        }
    }
    if let Some(d) = a["max_depth"].as_u64() {
        parts.push(format!("depth {d}"));
    }
    let mut out = summary(look, a, parts);
    if a["bom"] == Value::Bool(true) {
        out.push_str("byte order mark\n");
    }
    if let Some(n) = a["blank_lines"].as_u64().filter(|n| *n > 0) {
        out.push_str(&format!("{n} blank lines\n"));
    }
    if let Some(n) = a["duplicate_keys"]["count"].as_u64().filter(|n| *n > 0) {
        out.push_str(&look.paint(&format!("{n} duplicate keys"), Paint::Warn));
        out.push('\n');
    }
    if let Some(n) = a["precision"]["count"].as_u64().filter(|n| *n > 0) {
        out.push_str(&look.paint(
            &look.line(&format!(
                "{n} numbers lose precision as doubles: {}",
                tally(&a["precision"]["by_kind"])
            )),
            Paint::Warn,
        ));
        out.push('\n');
    }
    let outline = &a["outline"];
    let paths = outline["paths"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    let with_stats = paths.iter().any(|p| p["stats"].is_object());
    let mut heads = vec!["path", "types", "present"];
    if with_stats {
        heads.push("distinct");
    }
    heads.extend(["range", "sample"]);
    let mut grid = Grid::new(&heads);
    grid.flex = vec![heads.len() - 1];
    for p in paths {
        let types = p["types"].as_object();
        let main = types
            .and_then(|m| {
                m.iter()
                    .max_by_key(|(_, n)| n.as_u64())
                    .map(|(k, _)| k.clone())
            })
            .unwrap_or_default();
        let types_shown = match types {
            Some(m) if m.len() == 1 => main.clone(),
            _ => tally(&p["types"]),
        };
        let present = match (p["present"]["in"].as_u64(), p["present"]["of"].as_u64()) {
            (Some(i), Some(o)) if i == o => "all".to_owned(),
            (Some(i), Some(o)) => format!("{i}/{o}"),
            _ => String::new(),
        };
        let path = match p["path"].as_str() {
            Some("") => "(root)".to_owned(),
            Some(s) => s.to_owned(),
            None => String::new(),
        };
        let mut row = vec![
            Cell::new(path, Paint::Bold),
            Cell::new(types_shown, type_paint(&main)),
            Cell::number(present),
        ];
        shared_facts(&mut row, p, with_stats);
        grid.rows.push(row);
    }
    out.push('\n');
    out.push_str(&grid.layout(look, false));
    if let (Some(total), Some(listed)) = (
        outline["paths_total"].as_u64(),
        outline["paths_listed"].as_u64(),
    ) {
        if total > listed {
            out.push_str(&look.paint(
                &format!("… {} more paths (--json lists the outline)", total - listed),
                Paint::Dim,
            ));
            out.push('\n');
        }
    }
    if let Some(t) = stats_grid(paths, "path") {
        out.push_str(&format!("\n{}\n", look.heading("statistics")));
        out.push_str(&t.layout(look, false));
    }
    let invalid = a["invalid"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    problems(look, invalid, a["invalid_count"].as_u64(), &mut out);
    if let Some(sample) = a["sample"].as_array().filter(|s| !s.is_empty()) {
        out.push_str(&format!("\n{}\n", look.heading("sample")));
        for v in sample {
            out.push_str(&look.line(&clean(&v.to_string())));
            out.push('\n');
        }
    }
    out
}

/// Position columns put before a row's cells: their names, and how a
/// row's JSON gives their cells.
type Lead<'a> = (&'a [&'a str], &'a dyn Fn(&Value) -> Vec<Cell>);

/// A window of rows (arrays of cells) under a header row, with the
/// row number or other position columns first when given.
fn rows_grid(rows: &[Value], header: &Value, lead: Option<Lead<'_>>) -> Grid {
    let mut heads: Vec<String> = Vec::new();
    if let Some((names, _)) = lead {
        heads.extend(names.iter().map(|n| (*n).to_owned()));
    }
    if let Value::Array(h) = header {
        heads.extend(h.iter().map(word));
    }
    let mut grid = Grid {
        headers: heads,
        ..Grid::default()
    };
    for r in rows {
        let mut row = Vec::new();
        if let Some((_, f)) = lead {
            row.extend(f(r));
        }
        let cells = r.get("cells").unwrap_or(r);
        match cells {
            Value::Array(cells) => row.extend(cells.iter().map(|c| match c {
                Value::Null => Cell::new("·", Paint::Dim),
                other => Cell::plain(word(other)),
            })),
            other => row.push(Cell::plain(word(other))),
        }
        grid.rows.push(row);
    }
    if grid.headers.len() < grid.columns() && !grid.headers.is_empty() {
        let n = grid.columns();
        for i in grid.headers.len()..n {
            grid.headers.push(format!("({i})"));
        }
    }
    grid
}

/// `select` for a person: the window as a table (or records), then where
/// it sits in the file and how to go on.
pub fn select(a: &Value, look: &Look) -> String {
    let mut out = String::new();
    if let Some(rows) = a["rows"].as_array() {
        // Rows of objects (Parquet) are laid out by their columns.
        let laid: Vec<Value>;
        let (rows, header): (&[Value], &Value) = match a["columns"].as_array() {
            Some(names) if rows.iter().all(Value::is_object) => {
                let keys: Vec<&str> = names.iter().filter_map(Value::as_str).collect();
                laid = rows
                    .iter()
                    .map(|r| Value::Array(keys.iter().map(|k| r[*k].clone()).collect()))
                    .collect();
                (&laid, &a["columns"])
            }
            // A workbook's select says whether there is a header, and
            // names its columns.
            _ if a["header"].is_boolean() => (rows, &a["columns"]),
            _ => (rows, &a["header"]),
        };
        let mut grid = rows_grid(rows, header, None);
        if let Some(first) = a["first_row"].as_u64().or_else(|| a["offset"].as_u64()) {
            grid.labels = (0..rows.len() as u64)
                .map(|i| format!("row {}", first + i))
                .collect();
        }
        out.push_str(&grid.layout(look, true));
    } else if let Some(records) = a["records"].as_array() {
        let mut grid = Grid::new(&["line", "record"]);
        for r in records {
            let value = clean(&r["value"].to_string());
            grid.rows.push(vec![
                Cell::new(word(&r["line"]), Paint::Dim),
                Cell::plain(value),
            ]);
        }
        out.push_str(&grid.layout(look, false));
    } else if !a["value"].is_null() || a.get("value").is_some() {
        let pretty = serde_json::to_string_pretty(&a["value"]).unwrap_or_default();
        for line in pretty.lines() {
            out.push_str(&look.line(&clean(line)));
            out.push('\n');
        }
    } else {
        return generic(a, look);
    }
    let unit = if a["rows"].is_array() {
        "rows"
    } else {
        "records"
    };
    out.push_str(&window_note(a, look, unit));
    out
}

/// Where a window sits and how to continue, in one dim line.
fn window_note(a: &Value, look: &Look, unit: &str) -> String {
    let returned = a["returned"].as_u64();
    let offset = a["offset"].as_i64();
    let mut parts = Vec::new();
    if let (Some(n), Some(o)) = (returned, offset) {
        if n > 0 {
            parts.push(if o < 0 {
                format!("the last {n}")
            } else {
                format!("{unit} {}–{}", o, o + n as i64 - 1)
            });
        } else {
            parts.push("nothing in the window".to_owned());
        }
    }
    if let (Some(n), Some(r), true) = (a["from_end"].as_u64(), returned, offset.is_none()) {
        parts.push(format!(
            "{r} {unit} from {n} before the end; counted from the end, start not scanned"
        ));
    }
    if a["shortened"] == Value::Bool(true) {
        parts.push("cut to the byte budget".to_owned());
    }
    match a["next_offset"].as_u64() {
        Some(next) => parts.push(format!("more follow: --offset {next}")),
        None if a["has_more"] == Value::Bool(true) => parts.push("more follow".to_owned()),
        None => {}
    }
    if a["view"]["exact"] == Value::Bool(false) {
        parts.push(strip(&view_word(look, &a["view"])));
    }
    if parts.is_empty() {
        return String::new();
    }
    let text = look.line(&format!("({})", parts.join("; ")));
    look.paint(&text, Paint::Dim) + "\n"
}

/// `validate` for a person: the verdict first, then the problems.
pub fn validate(a: &Value, look: &Look) -> String {
    let verdict = match a["valid"].as_bool() {
        Some(true) => look.paint("valid", Paint::Good),
        Some(false) => look.paint("invalid", Paint::Bad),
        None => "not judged".to_owned(),
    };
    let mut parts = vec![verdict];
    if let Some(n) = a["rows_scanned"].as_u64() {
        parts.push(format!("{n} rows scanned"));
    }
    let mut out = table_head(look, a, parts);
    let mut items: Vec<Value> = a["issues"].as_array().cloned().unwrap_or_default();
    if let Some(first) = a.get("first_invalid").filter(|v| v.is_object()) {
        items.push(first.clone());
    }
    if let Some(e) = a.get("error").filter(|v| v.is_object()) {
        items.push(e.clone());
    }
    if let Some(f) = a.get("fault").filter(|v| v.is_object()) {
        items.push(f.clone());
    }
    problems(look, &items, a["issue_count"].as_u64(), &mut out);
    out
}

/// `search` of a table or a tree for a person: the hits as a table with
/// their positions, then the total and how to go on.
pub fn search(a: &Value, look: &Look) -> String {
    let hits = a["hits"].as_array().map(Vec::as_slice).unwrap_or_default();
    let mut out = String::new();
    // Rows of a columnar file or a sheet, laid out under their names.
    let rows: Option<(Vec<Value>, Value)> = if hits.iter().any(|h| h["values"].is_object()) {
        // A columnar file's: the row, the column that matched, then the
        // row's values by column.
        let keys: Vec<String> = hits
            .iter()
            .find_map(|h| h["values"].as_object())
            .map(|m| m.keys().cloned().collect())
            .unwrap_or_default();
        let laid = hits
            .iter()
            .map(|h| {
                let lead = [h["row"].clone(), h["column"].clone()];
                Value::Array(
                    lead.into_iter()
                        .chain(keys.iter().map(|k| h["values"][k].clone()))
                        .collect(),
                )
            })
            .collect();
        let names = keys.iter().map(|k| Value::from(k.as_str())).collect();
        Some((laid, named(&["row", "matched"], names)))
    } else if hits.iter().any(|h| h["values"].is_array()) {
        // A sheet's: the data row, the sheet row as Excel numbers it,
        // the column that matched, then the values under the answer's
        // column names.
        let laid = hits
            .iter()
            .map(|h| {
                let lead = [
                    h["row"].clone(),
                    h["sheet_row"].clone(),
                    h["column"].clone(),
                ];
                let values = h["values"].as_array().cloned().unwrap_or_default();
                Value::Array(lead.into_iter().chain(values).collect())
            })
            .collect();
        let names = a["columns"].as_array().cloned().unwrap_or_default();
        Some((laid, named(&["row", "sheet row", "matched"], names)))
    } else {
        None
    };
    if let Some((laid, header)) = rows {
        let mut grid = rows_grid(&laid, &header, None);
        grid.labels = hits
            .iter()
            .map(|h| format!("row {}", word(&h["row"])))
            .collect();
        out.push_str(&grid.layout(look, true));
    } else if hits.iter().any(|h| h["cells"].is_array()) {
        let lead = |h: &Value| {
            vec![
                Cell::number(word(&h["row"])),
                Cell::new(word(&h["line"]), Paint::Dim),
            ]
        };
        let mut grid = rows_grid(hits, &a["header"], Some((&["row", "line"], &lead)));
        grid.labels = hits
            .iter()
            .map(|h| format!("row {}", word(&h["row"])))
            .collect();
        out.push_str(&grid.layout(look, true));
    } else if !hits.is_empty() {
        let pos = if hits[0].get("record").is_some() {
            "record"
        } else {
            "index"
        };
        let mut grid = Grid::new(&[pos, "value"]);
        for h in hits {
            grid.rows.push(vec![
                Cell::number(word(&h[pos])),
                Cell::plain(h["value"].to_string()),
            ]);
        }
        out.push_str(&grid.layout(look, false));
        // What matched in a value cut to fit, one line a hit.
        for h in hits.iter().filter(|h| h.get("matched").is_some()) {
            let m = &h["matched"];
            out.push_str(&format!(
                "{pos} {}: {} matched: {}\n",
                word(&h[pos]),
                clean(&word(&m["pointer"])),
                clean(&m["value"].to_string())
            ));
        }
    } else if a.get("hits").is_none() {
        return generic(a, look);
    }
    // A matching cell past the cells shown (a wide CSV row or sheet
    // row), one line a hit.
    for h in hits.iter().filter(|h| h.get("matched_cell").is_some()) {
        out.push_str(&format!(
            "row {}: column {} matched: {}\n",
            word(&h["row"]),
            word(&h["column"]),
            clean(&word(&h["matched_cell"]))
        ));
    }
    let total = match (a["total"].as_u64(), a["total_exact"].as_bool()) {
        (Some(t), Some(true)) => format!("{t} in all"),
        (Some(t), _) => format!("at least {t}"),
        _ => String::new(),
    };
    let more = match a["next_offset"].as_u64() {
        Some(n) => format!("; more follow: --offset {n}"),
        None => String::new(),
    };
    // Why a total read to the end is still a lower bound.
    let unread = ["rows", "records", "elements"]
        .iter()
        .find_map(|unit| {
            let n = a[format!("unjudged_{unit}").as_str()].as_u64()?;
            Some(format!("; {n} {unit} not judged whole, past a cap"))
        })
        .unwrap_or_default();
    out.push_str(&look.paint(&look.line(&format!("({total}{more}{unread})")), Paint::Dim));
    out.push('\n');
    out
}

/// A header row: the leading labels, then the column names.
fn named(lead: &[&str], names: Vec<Value>) -> Value {
    Value::Array(lead.iter().map(|l| Value::from(*l)).chain(names).collect())
}

/// Any answer as `name: value` lines, for shapes with no view of their
/// own (`detect`, a third-party reader's answer): objects as short words,
/// arrays of objects as tables, a path and a message never cut (a path
/// whole, a message wrapped).
pub fn generic(a: &Value, look: &Look) -> String {
    let Value::Object(map) = a else {
        return look.line(&clean(&a.to_string())) + "\n";
    };
    let mut out = String::new();
    let mut tables = Vec::new();
    for (key, v) in map {
        let name = format!("{}: ", look.heading(key));
        let name_w = key.len() + 2;
        match (key.as_str(), v) {
            ("ok", _) => continue,
            ("view", Value::Object(_)) => {
                out.push_str(&format!("{name}{}\n", view_word(look, v)));
            }
            ("path" | "member", Value::String(s)) => out.push_str(&format!("{name}{}\n", clean(s))),
            ("message", Value::String(s)) => out.push_str(&painted_prefix(
                look,
                &format!("{key}: "),
                Paint::Bold,
                &clean(s),
                2,
            )),
            (_, Value::Array(items)) if !items.is_empty() && items.iter().all(Value::is_object) => {
                let mut keys: Vec<String> = Vec::new();
                for item in items.iter().take(50) {
                    for k in item.as_object().into_iter().flat_map(|m| m.keys()) {
                        if !keys.contains(k) {
                            keys.push(k.clone());
                        }
                    }
                }
                let heads: Vec<&str> = keys.iter().map(String::as_str).collect();
                let mut grid = Grid::new(&heads);
                for item in items {
                    grid.rows
                        .push(keys.iter().map(|k| Cell::plain(short(&item[k]))).collect());
                }
                tables.push((key.clone(), grid));
            }
            (_, v) => {
                let text = clean(&short(v));
                let room = look.width.map(|w| w.saturating_sub(name_w));
                let shown = match room {
                    Some(r) => fit(&text, r.max(CELL_MIN)),
                    None => text,
                };
                out.push_str(&format!("{name}{shown}\n"));
            }
        }
    }
    for (key, grid) in tables {
        out.push_str(&format!("\n{}\n", look.heading(&key)));
        out.push_str(&grid.layout(look, false));
    }
    out
}

/// A value in short words: an object of counts as `a 2, b 1`, an array
/// as its items joined, an empty one as `(none)`.
fn short(v: &Value) -> String {
    match v {
        Value::Object(m) if m.is_empty() => "(none)".to_owned(),
        Value::Object(m) if m.contains_key("$literal") => word(v),
        Value::Object(m) if m.values().all(|x| !x.is_object() && !x.is_array()) => tally(v),
        Value::Array(items) if items.is_empty() => "(none)".to_owned(),
        Value::Array(items) if items.iter().all(|x| !x.is_object() && !x.is_array()) => {
            items.iter().map(word).collect::<Vec<_>>().join(", ")
        }
        other => word(other),
    }
}

/// One line per item that has statistics: its name (by `name_key`, else
/// its index), the counts, the commonest value, the moments and
/// quartiles; an estimate is marked `≈`. None when no item has any.
fn stats_grid(items: &[Value], name_key: &str) -> Option<Grid> {
    let with: Vec<&Value> = items.iter().filter(|i| i["stats"].is_object()).collect();
    if with.is_empty() {
        return None;
    }
    let approx = |s: &Value, figure: &str, text: String| {
        if text.is_empty() || s["accuracy"][figure] == "exact" || s["accuracy"][figure].is_null() {
            text
        } else {
            format!("≈{text}")
        }
    };
    let number = |v: &Value| match v.as_f64() {
        Some(f) if f.fract() == 0.0 && f.abs() < 1e15 => format!("{f:.0}"),
        Some(f) => format!("{f:.6}")
            .trim_end_matches('0')
            .trim_end_matches('.')
            .to_owned(),
        None => String::new(),
    };
    let mut grid = Grid::new(&[
        "name", "count", "nulls", "distinct", "top", "mean", "stddev", "p25", "p50", "p75",
    ]);
    for item in with {
        let s = &item["stats"];
        let name = match &item[name_key] {
            Value::String(n) => n.clone(),
            _ => word(&item["index"]),
        };
        let top = s["top"]
            .get(0)
            .map(|t| {
                // A value cut to its first bytes says so.
                let more = if t["bytes"].is_u64() { "…" } else { "" };
                // Where a JSON path holds strings beside numbers or
                // booleans, a string is quoted: `"100"` is not `100`.
                let value = if t["kind"] == "string" && mixed_scalars(item) {
                    t["value"].to_string()
                } else {
                    word(&t["value"])
                };
                format!("{value}{more} ×{}", t["count"])
            })
            .unwrap_or_default();
        let n = &s["numbers"];
        let q = &n["quantiles"];
        grid.rows.push(vec![
            Cell::new(name, Paint::Bold),
            Cell::number(word(&s["count"])),
            Cell::number(word(&s["nulls"])),
            Cell::number(approx(s, "distinct", word(&s["distinct"]))),
            Cell::plain(approx(s, "top", top)),
            Cell::number(approx(s, "mean", number(&n["mean"]))),
            Cell::number(approx(s, "stddev", number(&n["stddev"]))),
            Cell::number(approx(s, "quantiles", number(&q["p25"]))),
            Cell::number(approx(s, "quantiles", number(&q["p50"]))),
            Cell::number(approx(s, "quantiles", number(&q["p75"]))),
        ]);
    }
    Some(grid)
}

/// Whether a JSON path's values are strings beside numbers or booleans
/// (its `types`), so that a string's text may read as one of them.
fn mixed_scalars(item: &Value) -> bool {
    item["types"].as_object().is_some_and(|types| {
        types.contains_key("string")
            && (types.contains_key("number") || types.contains_key("boolean"))
    })
}
