//! What a caller asks of an operation: the [`Window`] and [`ScanBounds`]
//! every reader shares, and the [`Options`] each reader declares for
//! itself with [`OptionSpec`]s.
//!
//! Core knows no format's options. A reader lists its own (name, type,
//! default, the ops that take it, one line of doc) and reads them back
//! from [`Options`]; the dispatcher checks every given name against that
//! one declaration and normalizes its value to the declared type, and
//! the CLI's flags, the tool's JSON Schema and the "not accepted, use X"
//! advice are all built from it. Values travel as JSON values because
//! both front doors speak JSON or text, and one spelling rule (a string
//! `"10"` is the integer 10, `"a,b"` is the list `["a", "b"]`) then holds
//! for every caller.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::op::Op;
use crate::refusal::Refusal;

/// The type of an option's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OptionKind {
    /// Any text.
    Text,
    /// A whole number, zero or more.
    Count,
    /// `true` or `false`.
    Flag,
    /// A list of text items (a JSON array, or text split on commas).
    List,
    /// One of a fixed set of words, compared without case.
    Choice(&'static [&'static str]),
}

impl OptionKind {
    /// How the kind is named in messages and help (`a whole number`).
    pub fn describe(self) -> String {
        match self {
            OptionKind::Text => "text".to_owned(),
            OptionKind::Count => "a whole number".to_owned(),
            OptionKind::Flag => "true or false".to_owned(),
            OptionKind::List => {
                "a list (a JSON array, also as text such as [\"a,b\", \"c\"], or items separated by commas)"
                    .to_owned()
            }
            OptionKind::Choice(words) => format!("one of {}", words.join(", ")),
        }
    }

    /// The JSON Schema of a value of this kind.
    pub fn json_schema(self) -> Value {
        match self {
            OptionKind::Text => serde_json::json!({"type": "string"}),
            OptionKind::Count => serde_json::json!({"type": "integer", "minimum": 0}),
            OptionKind::Flag => serde_json::json!({"type": "boolean"}),
            OptionKind::List => serde_json::json!({"type": "array", "items": {"type": "string"}}),
            OptionKind::Choice(words) => serde_json::json!({"type": "string", "enum": words}),
        }
    }
}

/// One option a reader takes: the single declaration the CLI, the tool
/// schema, the dispatcher's checks and its advice are built from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OptionSpec {
    /// The name, in `snake_case`; the CLI flag is `--name` with dashes.
    pub name: &'static str,
    /// The type of its value.
    pub kind: OptionKind,
    /// The value used when it is left out, as text (for help).
    pub default: Option<&'static str>,
    /// The operations that take it.
    pub ops: &'static [Op],
    /// One line for a person or a model: what it does.
    pub doc: &'static str,
}

impl OptionSpec {
    /// Whether `op` takes this option.
    pub fn applies_to(&self, op: Op) -> bool {
        self.ops.contains(&op)
    }

    /// The CLI flag's long name (`max_rows` is `max-rows`).
    pub fn flag(&self) -> String {
        self.name.replace('_', "-")
    }

    /// Reads a value as callers give it into the declared type: text is
    /// trimmed, `"10"` is 10 and `10.0` is 10, `"a, b"` is `["a", "b"]`,
    /// `true` is the choice `"true"`, and a choice is lowercased.
    ///
    /// ```
    /// use plumb_core::{Op, OptionKind, OptionSpec};
    /// use serde_json::json;
    /// let spec = OptionSpec { name: "columns", kind: OptionKind::List, default: None,
    ///                         ops: &[Op::Select], doc: "columns to keep" };
    /// assert_eq!(spec.normalize(&json!("a, b,")).unwrap(), json!(["a", "b"]));
    /// assert!(spec.normalize(&json!({"a": 1})).is_err());
    /// ```
    ///
    /// # Errors
    /// `invalid-argument` naming the option and the type it takes.
    pub fn normalize(&self, raw: &Value) -> Result<Value, Refusal> {
        let wrong = || {
            Refusal::invalid_argument(format!(
                "`{}` takes {}, not {}; {}",
                self.name,
                self.kind.describe(),
                crate::caps::echo(&raw.to_string()),
                self.doc
            ))
        };
        match self.kind {
            OptionKind::Text => match raw {
                Value::String(s) => Ok(Value::from(s.as_str())),
                Value::Number(n) => Ok(Value::from(n.to_string())),
                Value::Bool(b) => Ok(Value::from(b.to_string())),
                _ => Err(wrong()),
            },
            OptionKind::Count => {
                let n = match raw {
                    Value::Number(n) => n
                        .as_u64()
                        .or_else(|| n.as_f64().filter(whole).map(|f| f as u64)),
                    Value::String(s) => {
                        let t = s.trim();
                        t.parse::<u64>()
                            .ok()
                            .or_else(|| t.parse::<f64>().ok().filter(whole).map(|f| f as u64))
                    }
                    _ => None,
                };
                n.map(Value::from).ok_or_else(wrong)
            }
            OptionKind::Flag => match raw {
                Value::Bool(b) => Ok(Value::Bool(*b)),
                Value::String(s) => match s.trim().to_ascii_lowercase().as_str() {
                    "true" | "yes" | "1" => Ok(Value::Bool(true)),
                    "false" | "no" | "0" => Ok(Value::Bool(false)),
                    _ => Err(wrong()),
                },
                _ => Err(wrong()),
            },
            OptionKind::List => match raw {
                // A JSON array in text (`["a,b", "c"]`) keeps items whose
                // names hold commas whole.
                Value::String(s) if s.trim_start().starts_with('[') => {
                    match serde_json::from_str::<Vec<String>>(s) {
                        Ok(items) => Ok(Value::Array(
                            items.iter().map(|i| Value::from(i.trim())).collect(),
                        )),
                        Err(_) => Err(wrong()),
                    }
                }
                Value::String(s) => Ok(Value::Array(
                    s.split(',')
                        .map(str::trim)
                        .filter(|p| !p.is_empty())
                        .map(Value::from)
                        .collect(),
                )),
                Value::Number(n) => Ok(Value::Array(vec![Value::from(n.to_string())])),
                Value::Array(items) => items
                    .iter()
                    .map(|v| match v {
                        Value::String(s) => Ok(Value::from(s.trim())),
                        Value::Number(n) => Ok(Value::from(n.to_string())),
                        _ => Err(wrong()),
                    })
                    .collect::<Result<Vec<_>, _>>()
                    .map(Value::Array),
                _ => Err(wrong()),
            },
            OptionKind::Choice(words) => {
                let text = match raw {
                    Value::String(s) => s.trim().to_ascii_lowercase(),
                    Value::Bool(b) => b.to_string(),
                    _ => return Err(wrong()),
                };
                if words.contains(&text.as_str()) {
                    Ok(Value::from(text))
                } else {
                    Err(wrong())
                }
            }
        }
    }
}

/// N of an offset given as `-N` (a whole negative number, or text that
/// spells one).
fn negative_count(raw: &Value) -> Option<u64> {
    match raw {
        Value::Number(n) => n
            .as_i64()
            .filter(|i| *i < 0)
            .map(i64::unsigned_abs)
            .or_else(|| {
                n.as_f64()
                    .filter(|f| *f < 0.0 && whole(&-f))
                    .map(|f| (-f) as u64)
            }),
        Value::String(s) => s.trim().strip_prefix('-')?.parse::<u64>().ok(),
        _ => None,
    }
}

fn whole(f: &f64) -> bool {
    f.fract() == 0.0 && *f >= 0.0 && *f < 9e15
}

/// The options every reader shares, declared once here: the select
/// window, the scan bounds and what every search takes (the pattern or
/// predicate and its flags). Readers declare only their own.
pub const COMMON_OPTIONS: [OptionSpec; 13] = [
    OptionSpec {
        name: "offset",
        kind: OptionKind::Count,
        default: Some("0"),
        ops: &[Op::Select, Op::Search],
        doc: "lines, rows, records or elements to skip (a search starts there); -N: the last N (select of CSV, TSV, JSON Lines, Parquet and spreadsheets; the last N hits of a search of any format, found by counting them first)",
    },
    OptionSpec {
        name: "limit",
        kind: OptionKind::Count,
        default: Some("50"),
        ops: &[Op::Select, Op::Search],
        doc: "how many to return (1 to 1000; select returns 50 by default, search 20)",
    },
    OptionSpec {
        name: "max_rows",
        kind: OptionKind::Count,
        default: None,
        ops: &[Op::Inspect, Op::Validate],
        doc: "stop after this many rows or records (the answer is then sampled)",
    },
    OptionSpec {
        name: "sample_rows",
        kind: OptionKind::Count,
        default: None,
        ops: &[Op::Inspect],
        doc: "rows or records in the inspect sample",
    },
    OptionSpec {
        name: "threads",
        kind: OptionKind::Count,
        default: None,
        ops: &[Op::Inspect, Op::Validate, Op::Search],
        doc: "threads a scan may use (0 or left out: every core); the answer is the same with any number (a file of 16 MiB or more is split for validate, inspect (with or without stats) and a search from the first row or record of CSV, TSV and JSON Lines, and for validate and inspect of a JSON array)",
    },
    OptionSpec {
        name: "max_scan_bytes",
        kind: OptionKind::Count,
        default: None,
        ops: &[Op::Inspect, Op::Validate, Op::Search],
        doc: "stop after this many bytes of text (counted after decompression; Parquet counts its decoded values) and answer from what was read: inspect and validate are then sampled, a search says where to go on",
    },
    // What every format's search takes.
    OptionSpec {
        name: "pattern",
        kind: OptionKind::Text,
        default: None,
        ops: &[Op::Search],
        doc: "a regular expression (Rust regex syntax) a line, cell or value must contain; text without regex syntax is searched as a literal",
    },
    OptionSpec {
        name: "where",
        kind: OptionKind::Text,
        default: None,
        ops: &[Op::Search],
        doc: "a predicate on the value instead of a pattern: = x, != x, < x, <= x, > x, >= x (numbers compared exactly; dates and timestamps such as 2024-03-01 or 2024-03-01T10:00:00Z as instants), is empty, is null, is not empty, is not null, ~ regex (~* regex: any case)",
    },
    OptionSpec {
        name: "conditions",
        kind: OptionKind::List,
        default: None,
        ops: &[Op::Search],
        doc: "instead of pattern, where and column or field: several tests of a row or record, each a name then a predicate, such as [\"level = error\", \"ts >= 2024-03-01T00:00:00Z\", \"/user/age > 30\"] (a column's name or index, a field's name or a JSON pointer; a name with spaces in double quotes); joined by match",
    },
    OptionSpec {
        name: "match",
        kind: OptionKind::Choice(&["all", "any"]),
        default: Some("all"),
        ops: &[Op::Search],
        doc: "with conditions: whether all must hold or any one",
    },
    OptionSpec {
        name: "ignore_case",
        kind: OptionKind::Flag,
        default: Some("false"),
        ops: &[Op::Search],
        doc: "match the pattern without regard to case",
    },
    OptionSpec {
        name: "word",
        kind: OptionKind::Flag,
        default: Some("false"),
        ops: &[Op::Search],
        doc: "match the pattern only as a whole word: no word character right before or after the match (as grep -w and rg -w)",
    },
    OptionSpec {
        name: "count_only",
        kind: OptionKind::Flag,
        default: Some("false"),
        ops: &[Op::Search],
        doc: "return no hits, only how many there are (the scan reads to the end)",
    },
];

/// Whether the first record of a table is a header: declared once here
/// for every reader of tables (CSV and TSV, spreadsheets), so the option
/// means one thing in each.
pub const HEADER_OPTION: OptionSpec = OptionSpec {
    name: "header",
    kind: OptionKind::Choice(&["auto", "true", "false"]),
    default: Some("auto"),
    ops: &Op::ALL,
    doc: "whether the first record is a header",
};

/// The columns a select of a table keeps, by name or index: declared
/// once here for every reader of tables with a header (CSV and TSV,
/// spreadsheets).
pub const COLUMNS_OPTION: OptionSpec = OptionSpec {
    name: "columns",
    kind: OptionKind::List,
    default: None,
    ops: &[Op::Select],
    doc: "columns to keep, by header name or 0-based index (a name of digits in double quotes: \"2019\"); a name shared by several columns, or digits that are one column's index and another's name, is refused",
};

/// Which part of the items a select returns.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Window {
    /// Items to skip (rows, records, elements); none when left out.
    pub offset: Option<u64>,
    /// Items to return; the reader's default when left out.
    pub limit: Option<u64>,
    /// Select only: the last N items instead (a negative `offset`, `-N`),
    /// read backwards from the end where the reader can
    /// ([`crate::FormatReader::selects_from_end`]); none when left out.
    pub from_end: Option<u64>,
}

/// How far a scan goes and how much it keeps.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ScanBounds {
    /// Stop after this many rows or records (the answer is then sampled).
    pub max_rows: Option<u64>,
    /// Rows or records in the inspect sample.
    pub sample_rows: Option<usize>,
    /// Threads a scan may use: every core the machine offers when left
    /// out (the `threads` option's 0 too), one with `Some(1)`. Scans that
    /// split a file into parts (CSV, TSV and JSON Lines validate of a
    /// large file) honour it; their answers are the one-thread answers.
    pub threads: Option<usize>,
    /// Stop after this many bytes of text, counted from the start of the
    /// text (after decompression), or of Parquet values decoded; the
    /// answer is then sampled. Bounds the work of a file that expands
    /// far past its size (a decompression or dictionary bomb).
    pub max_scan_bytes: Option<u64>,
    /// Inspect with statistics only: the answer also keeps each column's
    /// statistics sketches ([`Answer::take_sketches`](crate::Answer::take_sketches)),
    /// for a merge with other files'. Off by default: a lone file's
    /// answer needs only their report.
    pub sketches: bool,
    /// Inspect only: the answer may leave out what a merge of files'
    /// answers does not read (sample rows, sample values, the ends of
    /// date columns), left empty or null, never made up; types, counts,
    /// places first seen, faults and statistics are those of a full
    /// inspect. A dataset's inspect asks each file for this.
    pub brief: bool,
    /// A search only: hits passed over (counted, not returned) before
    /// the first one kept. A search for the last hits (a negative
    /// offset) counts them first and passes over all but those.
    pub skip_hits: u64,
}

/// The most parts (and threads) a split scan cuts a file into, whatever
/// [`ScanBounds::threads`] says: each part holds its own reader, buffers
/// and parser, so memory grows with the parts, and four keep the worst
/// case (records at the caps in every part) under the 32 MiB bound
/// (`cargo xtask memtest`).
pub const SCAN_MAX_PARTS: usize = 4;

impl ScanBounds {
    /// The threads a scan may use: [`ScanBounds::threads`], else what
    /// [`std::thread::available_parallelism`] says (1 when it cannot
    /// tell); never 0. A split scan makes at most [`SCAN_MAX_PARTS`].
    pub fn thread_count(&self) -> usize {
        self.threads
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from))
            .max(1)
    }

    /// Whether a scan of `len` bytes of text may run to its end: no row
    /// cap and no byte budget short of `len`. Split scans read a whole
    /// file, so they are taken only then.
    pub fn reads_whole(&self, len: u64) -> bool {
        self.max_rows.is_none() && self.max_scan_bytes.is_none_or(|b| b >= len)
    }
}

/// Rows counted against [`ScanBounds::max_rows`]: the one place the cap
/// is applied, so every engine stops at the same row and says so the
/// same way.
///
/// ```
/// use std::ops::ControlFlow;
/// use plumb_core::RowCap;
/// let mut cap = RowCap::new(Some(2));
/// assert!(cap.admit().is_continue() && cap.admit().is_continue());
/// assert_eq!(cap.admit(), ControlFlow::Break(()));
/// assert_eq!((cap.rows(), cap.capped()), (2, true));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RowCap {
    max: Option<u64>,
    rows: u64,
    capped: bool,
}

impl RowCap {
    /// A count from zero, capped at `max` rows when given.
    pub const fn new(max: Option<u64>) -> RowCap {
        RowCap {
            max,
            rows: 0,
            capped: false,
        }
    }

    /// A row arrives: counted, or, once `max` rows were, refused with
    /// `Break` and the cap marked as hit (the answer is then sampled).
    #[inline]
    pub fn admit(&mut self) -> std::ops::ControlFlow<()> {
        if self.max.is_some_and(|m| self.rows >= m) {
            self.capped = true;
            return std::ops::ControlFlow::Break(());
        }
        self.rows += 1;
        std::ops::ControlFlow::Continue(())
    }

    /// Whether another row would still be admitted.
    pub fn has_room(&self) -> bool {
        self.max.is_none_or(|m| self.rows < m)
    }

    /// How many more rows would be admitted (`u64::MAX` without a cap).
    pub fn room(&self) -> u64 {
        self.max.map_or(u64::MAX, |m| m.saturating_sub(self.rows))
    }

    /// Admits `n` rows at once, which the caller knows there is
    /// [room](RowCap::room) for: as `n` calls of [`RowCap::admit`] that
    /// each returned `Continue`.
    pub fn admit_many(&mut self, n: u64) {
        debug_assert!(n <= self.room());
        self.rows += n;
    }

    /// The rows admitted.
    pub const fn rows(&self) -> u64 {
        self.rows
    }

    /// Whether a row was refused at the cap.
    pub const fn capped(&self) -> bool {
        self.capped
    }

    /// Marks the scan as stopped before its end for another bound (the
    /// byte budget of [`ScanBounds::max_scan_bytes`]): the answer is then
    /// sampled, as at the row cap.
    pub fn stop(&mut self) {
        self.capped = true;
    }
}

/// A reader's own options as the caller gave them, by name.
///
/// ```
/// use plumb_core::Options;
/// let opts = Options::new().with("delimiter", ";").with("columns", vec!["id", "name"]);
/// assert_eq!(opts.text("delimiter"), Some(";"));
/// assert_eq!(opts.list("columns"), Some(vec!["id", "name"]));
/// assert_eq!(opts.names().collect::<Vec<_>>(), ["columns", "delimiter"]);
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Options {
    values: BTreeMap<String, Value>,
}

impl Options {
    /// No options.
    pub fn new() -> Options {
        Options::default()
    }

    /// Sets `name` to `value` (replacing an earlier value).
    pub fn set(&mut self, name: impl Into<String>, value: impl Into<Value>) -> &mut Options {
        self.values.insert(name.into(), value.into());
        self
    }

    /// The options with `name` set to `value`.
    #[must_use]
    pub fn with(mut self, name: impl Into<String>, value: impl Into<Value>) -> Options {
        self.set(name, value);
        self
    }

    /// The value of `name`, as given (or as normalized by the dispatcher).
    pub fn get(&self, name: &str) -> Option<&Value> {
        self.values.get(name)
    }

    /// Takes `name` out, with its value.
    pub fn remove(&mut self, name: &str) -> Option<Value> {
        self.values.remove(name)
    }

    /// The value of `name` as text.
    pub fn text(&self, name: &str) -> Option<&str> {
        self.get(name).and_then(Value::as_str)
    }

    /// The value of `name` as a whole number.
    pub fn count(&self, name: &str) -> Option<u64> {
        self.get(name).and_then(Value::as_u64)
    }

    /// The value of `name` as a flag.
    pub fn flag(&self, name: &str) -> Option<bool> {
        self.get(name).and_then(Value::as_bool)
    }

    /// The value of `name` as a list of text items.
    pub fn list(&self, name: &str) -> Option<Vec<&str>> {
        match self.get(name)? {
            Value::Array(items) => items.iter().map(Value::as_str).collect(),
            _ => None,
        }
    }

    /// The names given, in order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.values.keys().map(String::as_str)
    }

    /// Whether no option is given.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// Normalizes every value to the type `specs` declare for it
    /// ([`OptionSpec::normalize`]). Names without a spec are left as
    /// they are: judging them is the dispatcher's work, which knows the
    /// op and the other readers.
    ///
    /// # Errors
    /// `invalid-argument` for a value of the wrong type.
    pub fn normalize(&mut self, specs: &[OptionSpec]) -> Result<(), Refusal> {
        for (name, value) in &mut self.values {
            if let Some(spec) = specs.iter().find(|s| s.name == name) {
                *value = spec.normalize(value)?;
            }
        }
        Ok(())
    }
}

/// Everything a caller asks of one operation besides the source.
///
/// ```
/// use plumb_core::{Options, Request, Window};
/// let req = Request {
///     window: Window { offset: Some(10), limit: Some(5), from_end: None },
///     options: Options::new().with("columns", "id,name"),
///     ..Request::default()
/// };
/// assert_eq!(req.given_common(), ["offset", "limit"]);
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Request {
    /// Select: the items to return.
    pub window: Window,
    /// Inspect and validate: how far to scan, how much to sample.
    pub scan: ScanBounds,
    /// The reader's own options.
    pub options: Options,
}

impl Request {
    /// Sets an option by name, as a caller gives it: a shared option
    /// ([`COMMON_OPTIONS`]) is normalized into its field, any other is
    /// kept for the reader (judged by the dispatcher once the format is
    /// known). The one place a name becomes a field.
    ///
    /// ```
    /// use plumb_core::Request;
    /// use serde_json::json;
    /// let mut req = Request::default();
    /// req.set("limit", json!("10"))?.set("pointer", json!("/items"))?;
    /// assert_eq!(req.window.limit, Some(10));
    /// assert_eq!(req.options.text("pointer"), Some("/items"));
    /// req.set("offset", json!(-3))?;
    /// assert_eq!((req.window.offset, req.window.from_end), (None, Some(3)));
    /// assert!(req.set("offset", json!(-1.5)).is_err());
    /// # Ok::<(), plumb_core::Refusal>(())
    /// ```
    ///
    /// # Errors
    /// `invalid-argument` for a shared option's value of the wrong type.
    pub fn set(&mut self, name: &str, raw: Value) -> Result<&mut Request, Refusal> {
        let Some(spec) = COMMON_OPTIONS.iter().find(|s| s.name == name) else {
            self.options.set(name, raw);
            return Ok(self);
        };
        if spec.name == "offset" {
            if let Some(n) = negative_count(&raw) {
                // `-N`: the last N items; `-0` is the start, as 0 is.
                self.window.offset = None;
                self.window.from_end = (n > 0).then_some(n);
                return Ok(self);
            }
        }
        let value = spec.normalize(&raw)?;
        let n = value.as_u64();
        match spec.name {
            "offset" => {
                self.window.offset = n;
                self.window.from_end = None;
            }
            "limit" => self.window.limit = n,
            "max_rows" => self.scan.max_rows = n,
            "max_scan_bytes" => self.scan.max_scan_bytes = n,
            "sample_rows" => {
                self.scan.sample_rows = n.map(|n| usize::try_from(n).unwrap_or(usize::MAX));
            }
            "threads" => {
                self.scan.threads = n
                    .filter(|&n| n > 0)
                    .map(|n| usize::try_from(n).unwrap_or(usize::MAX));
            }
            // The search options every format shares travel with the
            // reader's own, normalized already.
            _ => {
                self.options.set(name, value);
            }
        }
        Ok(self)
    }

    /// The names of the [`COMMON_OPTIONS`] that are set.
    pub fn given_common(&self) -> Vec<&'static str> {
        let set = [
            self.window.offset.is_some() || self.window.from_end.is_some(),
            self.window.limit.is_some(),
            self.scan.max_rows.is_some(),
            self.scan.sample_rows.is_some(),
            self.scan.threads.is_some(),
            self.scan.max_scan_bytes.is_some(),
        ];
        COMMON_OPTIONS
            .iter()
            .zip(set)
            .filter(|(_, s)| *s)
            .map(|(spec, _)| spec.name)
            .collect()
    }
}
