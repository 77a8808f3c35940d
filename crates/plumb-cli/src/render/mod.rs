//! The readable rendering of an answer, for a person at a terminal.
//!
//! Built from the same JSON that `--json` prints, so the two never
//! disagree; the raw detail stays in `--json`. Every table is laid out to
//! a width: a cell longer than its column is cut with an ellipsis (never
//! wrapped), columns that do not fit are left out with a line saying how
//! many, and a window of very wide rows turns into a vertical record view.
//! Prose (a message, a note) is wrapped at spaces with a hanging indent.
//!
//! The rooms: a cell and its narrower forms (`cell`), the table layout
//! (`grid`), inspect's views (`inspect`), select's windows (`select`),
//! a JSON value as the file wrote it (`json`), a dataset's merged view
//! and its files (`dataset`), sparklines and top-value
//! bars (`pictures`), search's hits (`search`); the choice of a view by
//! the answer's layout, validate, the plain `name: value` view and the
//! shared pieces (paint, cutting, notes) are here. `unicode-width` measures what a
//! terminal shows (wide CJK, zero-width marks).

use serde_json::Value;
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

mod cell;
mod dataset;
mod grid;
mod inspect;
mod json;
mod pictures;
mod search;
mod select;

pub use cell::Cell;
pub use grid::{Grid, CELL_MIN};
pub use search::grep;

use plumb::Layout;

/// An answer for a person, in the view its type declares (its
/// [`Layout`]); a layout with no view of its own here, and
/// [`Layout::Fields`], as `name: value` lines ([`generic`]). `size` is
/// the file's size in bytes, shown first when known (an inspect's).
pub fn answer(layout: Layout, a: &Value, look: &Look, size: Option<u64>) -> String {
    let size = size.map(bytes);
    match layout {
        Layout::TableColumns => inspect::inspect_table(a, look, size),
        Layout::ColumnarSchema => inspect::inspect_columnar(a, look, size),
        Layout::Workbook => inspect::inspect_sheets(a, look, size),
        Layout::Outline => inspect::inspect_tree(a, look, size),
        Layout::Rows => select::rows(a, look, false),
        Layout::NamedRows => select::rows(a, look, true),
        Layout::Records => select::records(a, look),
        Layout::Value => select::value(a, look),
        Layout::Verdict => validate(a, look),
        Layout::RowHits | Layout::NamedRowHits | Layout::SheetHits | Layout::ValueHits => {
            search::hits(a, look, layout, true)
        }
        Layout::LineHits => grep(a, look, &mut None),
        Layout::Dataset => dataset::view(a, look),
        _ => {
            let mut out = generic(a, look);
            if let Some(s) = size {
                out.insert_str(0, &format!("{}{s}\n", look.heading("size: ")));
            }
            out
        }
    }
}

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

/// One page of a search's hits, of the search's every page shown in
/// turn: lines of text as `grep` prints them (`last`, the last line the
/// page before printed, so no line is printed twice), or a table of
/// hits, with the total and where to go on when it is the `final` page.
pub fn search_page(
    layout: Layout,
    a: &Value,
    look: &Look,
    last: &mut Option<u64>,
    final_page: bool,
) -> String {
    match layout {
        Layout::LineHits => grep(a, look, last),
        Layout::RowHits | Layout::NamedRowHits | Layout::SheetHits | Layout::ValueHits => {
            search::hits(a, look, layout, final_page)
        }
        other => answer(other, a, look, None),
    }
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
                other => Cell::value(word(other)),
            })),
            other => row.push(Cell::value(word(other))),
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
    // A fault is any field that is an object with a message, or a list
    // of them, whatever the reader named it (`issues`, `syntax_error`,
    // `first_invalid`, `faults`).
    let is_fault = |v: &Value| v.is_object() && v["message"].is_string();
    let mut items: Vec<Value> = Vec::new();
    for v in a.as_object().into_iter().flat_map(|m| m.values()) {
        match v {
            Value::Array(list) => items.extend(list.iter().filter(|x| is_fault(x)).cloned()),
            v if is_fault(v) => items.push(v.clone()),
            _ => {}
        }
    }
    problems(look, &items, a["issue_count"].as_u64(), &mut out);
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
