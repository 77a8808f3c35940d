//! A logfmt reader written outside plumb, to show how a downstream crate
//! adds a format: implement [`FormatReader`], register it, and every
//! entry point (and the same JSON shapes the CLI prints) works for it.
//!
//! ```
//! use plumb::{Op, Options, Plumb, Request};
//! use plumb_core::BytesSource;
//! use plumb_example_logfmt::Logfmt;
//!
//! let mut plumb = Plumb::new();
//! plumb.registry_mut().register(Logfmt);
//! let source = BytesSource::new("app.logfmt", "level=info msg=\"started\" port=8080\n");
//! let answer = plumb.inspect_source(&source, None, &Request::default())?;
//! assert_eq!(answer.to_json()["keys"]["port"], 1);
//!
//! // Its own option, given as callers give it ("a,b" is a list).
//! let req = Request { options: Options::new().with("keys", "level, port"), ..Request::default() };
//! let answer = plumb.run_source(Op::Select, &source, None, &req)?;
//! assert_eq!(answer.to_json()["records"][0], serde_json::json!({"level": "info", "port": "8080", "_line": 1}));
//! # Ok::<(), plumb_core::Refusal>(())
//! ```
//!
//! logfmt lines hold `key=value` pairs separated by spaces; a value may
//! be double-quoted with `\"` escapes. A bare key is a flag (`true`).

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::{Map, Value};

use plumb_core::{
    clamp_limit, impl_answer, text_stream, Answer, FormatReader, Lines, Op, OptionKind, OptionSpec,
    Refusal, Request, RowCap, SelectWindow, SniffScore, Source, ViewFlags, LINE_MAX_BYTES,
};

/// The logfmt reader.
#[derive(Debug, Clone, Copy, Default)]
pub struct Logfmt;

/// logfmt's own option, declared once: the CLI gains `--keys`, the tool
/// schema a `keys` property, and another format given `keys` is told
/// that logfmt takes it.
pub const LOGFMT_OPTIONS: [OptionSpec; 1] = [OptionSpec {
    name: "keys",
    kind: OptionKind::List,
    default: None,
    ops: &[Op::Select],
    doc: "keys to keep in each selected record (the others are left out)",
}];

/// Parses one logfmt line into pairs, or says where it breaks.
pub fn parse_line(line: &str) -> Result<Vec<(String, Value)>, String> {
    let mut out = Vec::new();
    let mut chars = line.char_indices().peekable();
    loop {
        while chars.next_if(|(_, c)| *c == ' ' || *c == '\t').is_some() {}
        let Some(&(start, _)) = chars.peek() else {
            break;
        };
        let mut key = String::new();
        while let Some((_, c)) = chars.next_if(|(_, c)| *c != '=' && *c != ' ' && *c != '\t') {
            key.push(c);
        }
        if key.is_empty() {
            return Err(format!("a pair at column {} has no key", start + 1));
        }
        if chars.next_if(|(_, c)| *c == '=').is_none() {
            out.push((key, Value::Bool(true)));
            continue;
        }
        let mut value = String::new();
        if chars.next_if(|(_, c)| *c == '"').is_some() {
            let mut closed = false;
            while let Some((_, c)) = chars.next() {
                match c {
                    '"' => {
                        closed = true;
                        break;
                    }
                    '\\' => {
                        if let Some((_, e)) = chars.next() {
                            value.push(e);
                        }
                    }
                    c => value.push(c),
                }
            }
            if !closed {
                return Err(format!("the quoted value of `{key}` is never closed"));
            }
        } else {
            while let Some((_, c)) = chars.next_if(|(_, c)| *c != ' ' && *c != '\t') {
                value.push(c);
            }
        }
        out.push((key, Value::String(value)));
    }
    Ok(out)
}

/// What inspect says about a logfmt file.
#[derive(Debug, Serialize)]
pub struct LogfmtInspect {
    /// Always true.
    pub ok: bool,
    /// `logfmt`.
    pub format: &'static str,
    /// Exact or sampled.
    pub view: ViewFlags,
    /// Records read.
    pub rows_scanned: u64,
    /// Records carrying each key.
    pub keys: BTreeMap<String, u64>,
    /// Lines that do not parse.
    pub invalid: u64,
}

/// A window of records.
#[derive(Debug, Serialize)]
pub struct LogfmtSelect {
    /// Always true.
    pub ok: bool,
    /// `logfmt`.
    pub format: &'static str,
    /// Exact.
    pub view: ViewFlags,
    /// The records as objects.
    pub records: Vec<Value>,
    /// The window (flattened): `offset`, the records skipped; `limit`;
    /// `returned`; `has_more`, whether records follow.
    #[serde(flatten)]
    pub window: SelectWindow,
}

/// Whether every line parses.
#[derive(Debug, Serialize)]
pub struct LogfmtValidate {
    /// Always true.
    pub ok: bool,
    /// `logfmt`.
    pub format: &'static str,
    /// Exact or sampled.
    pub view: ViewFlags,
    /// The verdict.
    pub valid: Option<bool>,
    /// The first bad line and why.
    pub first_invalid: Option<(u64, String)>,
}

impl_answer!(LogfmtInspect);
impl_answer!(LogfmtSelect, window: window);
impl_answer!(LogfmtValidate, verdict: valid);

/// Calls `each(line_number, line)` for every non-blank line until it
/// returns false; returns whether it stopped early. A line longer than
/// [`LINE_MAX_BYTES`] is handed over as an error, never held whole.
fn lines(
    source: &dyn Source,
    mut each: impl FnMut(u64, Result<&str, String>) -> bool,
) -> Result<bool, Refusal> {
    let mut lines = Lines::new(text_stream(source)?, LINE_MAX_BYTES);
    while let Some(line) = lines.next_line()? {
        let number = line.number;
        let text = line.text.trim_end();
        let line = if line.cut {
            Err(format!(
                "the line is {} bytes, longer than the {LINE_MAX_BYTES} a line may have",
                line.len
            ))
        } else if text.is_empty() {
            continue;
        } else {
            Ok(text)
        };
        if !each(number, line) {
            return Ok(true);
        }
    }
    Ok(false)
}

impl FormatReader for Logfmt {
    fn name(&self) -> &'static str {
        "logfmt"
    }

    fn extensions(&self) -> &'static [&'static str] {
        &["logfmt"]
    }

    fn sniff(&self, head: &[u8]) -> Option<SniffScore> {
        let text = std::str::from_utf8(head).ok()?;
        let first = text.lines().next()?;
        let pairs = parse_line(first).ok()?;
        let with_values = pairs.iter().filter(|(_, v)| v.is_string()).count();
        (with_values >= 2 && !first.contains(',')).then_some(35)
    }

    fn options(&self) -> &'static [OptionSpec] {
        &LOGFMT_OPTIONS
    }

    fn inspect(&self, source: &dyn Source, req: &Request) -> Result<Box<dyn Answer>, Refusal> {
        let mut report = LogfmtInspect {
            ok: true,
            format: "logfmt",
            view: ViewFlags::exact(),
            rows_scanned: 0,
            keys: BTreeMap::new(),
            invalid: 0,
        };
        let mut cap = RowCap::new(req.scan.max_rows);
        let stopped = lines(source, |_, line| {
            if cap.admit().is_break() {
                return false;
            }
            match line.and_then(parse_line) {
                Ok(pairs) => {
                    for (k, _) in pairs {
                        *report.keys.entry(k).or_default() += 1;
                    }
                }
                Err(_) => report.invalid += 1,
            }
            true
        })?;
        report.rows_scanned = cap.rows();
        report.view = ViewFlags::of_scan(stopped);
        Ok(Box::new(report))
    }

    fn select(&self, source: &dyn Source, req: &Request) -> Result<Box<dyn Answer>, Refusal> {
        let offset = req.window.offset.unwrap_or(0);
        let limit = clamp_limit(req.window.limit);
        // The dispatcher has checked and normalized it to a list.
        let keys = req.options.list("keys");
        let mut records = Vec::new();
        let mut index = 0u64;
        let mut has_more = false;
        lines(source, |number, line| {
            let i = index;
            index += 1;
            if i < offset {
                return true;
            }
            if records.len() >= limit {
                has_more = true;
                return false;
            }
            records.push(match line.and_then(parse_line) {
                Ok(pairs) => {
                    let mut m: Map<String, Value> = pairs
                        .into_iter()
                        .filter(|(k, _)| {
                            keys.as_ref().is_none_or(|keep| keep.contains(&k.as_str()))
                        })
                        .collect();
                    m.insert("_line".to_owned(), Value::from(number));
                    Value::Object(m)
                }
                Err(e) => serde_json::json!({"_line": number, "_error": e}),
            });
            true
        })?;
        Ok(Box::new(LogfmtSelect {
            ok: true,
            format: "logfmt",
            view: ViewFlags::exact(),
            window: SelectWindow {
                offset,
                limit,
                returned: records.len(),
                has_more,
            },
            records,
        }))
    }

    fn validate(&self, source: &dyn Source, req: &Request) -> Result<Box<dyn Answer>, Refusal> {
        let mut first_invalid = None;
        let mut cap = RowCap::new(req.scan.max_rows);
        lines(source, |number, line| {
            if cap.admit().is_break() {
                return false;
            }
            match line.and_then(parse_line) {
                Ok(_) => true,
                Err(e) => {
                    first_invalid = Some((number, e));
                    false
                }
            }
        })?;
        let capped = cap.capped();
        let valid = match (&first_invalid, capped) {
            (Some(_), _) => Some(false),
            (None, true) => None,
            (None, false) => Some(true),
        };
        Ok(Box::new(LogfmtValidate {
            ok: true,
            format: "logfmt",
            view: ViewFlags::of_scan(capped || first_invalid.is_some()),
            valid,
            first_invalid,
        }))
    }
}
