//! The tools' arguments, their JSON Schema, and their repair.
//!
//! Weak callers send `"10"` for 10, `"a,b"` for `["a", "b"]`, `"true"`
//! for a header flag, and `file` or `file_path` for `path`. Repair turns
//! these into the documented shapes before the arguments are read;
//! anything still wrong is refused `invalid-argument` with a hint.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value};

use plumb_core::{Op, Refusal};

/// Arguments of the `data` tool.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DataArgs {
    /// `inspect` (what is in the file), `select` (a bounded window of
    /// it, verbatim) or `validate` (is it well formed).
    pub op: String,
    /// The file, relative to the workspace root, or a catalog name.
    pub path: String,
    /// `csv`, `tsv`, `json` or `jsonl`; detected when left out.
    #[serde(default)]
    pub format: Option<String>,
    /// CSV/TSV: the delimiter (one character, or `tab`).
    #[serde(default)]
    pub delimiter: Option<String>,
    /// CSV/TSV: `auto`, `true` or `false`: whether the first record is a header.
    #[serde(default)]
    pub header: Option<String>,
    /// inspect, validate: stop after this many rows (the answer is then sampled).
    #[serde(default)]
    pub max_rows: Option<u64>,
    /// inspect: rows in the sample.
    #[serde(default)]
    pub sample_rows: Option<u64>,
    /// select: rows, records or array elements to skip.
    #[serde(default)]
    pub offset: Option<u64>,
    /// select: how many to return (1 to 1000, default 50).
    #[serde(default)]
    pub limit: Option<u64>,
    /// CSV/TSV select: columns by header name or 0-based index.
    #[serde(default)]
    pub columns: Option<Vec<String>>,
    /// JSON select: an RFC 6901 pointer (`""` is the whole document).
    #[serde(default)]
    pub pointer: Option<String>,
}

/// Arguments of the `read` tool.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadArgs {
    /// The file, relative to the workspace root, or a catalog name.
    pub path: String,
    /// The first line to return, counted from 0 (default 0); negative:
    /// that many lines from the end of the file.
    #[serde(default)]
    pub offset: Option<i64>,
    /// How many lines to return: at most 512, which is also the default.
    #[serde(default)]
    pub limit: Option<u64>,
}

const NUMBER_FIELDS: [&str; 4] = ["max_rows", "sample_rows", "offset", "limit"];

fn object(args: Value) -> Result<Map<String, Value>, Refusal> {
    match args {
        Value::Object(m) => Ok(m),
        Value::Null => Ok(Map::new()),
        Value::String(s) => match serde_json::from_str::<Value>(&s) {
            // Arguments sent as a JSON string of an object.
            Ok(Value::Object(m)) => Ok(m),
            _ => Err(Refusal::invalid_argument(
                "arguments must be a JSON object such as {\"op\": \"inspect\", \"path\": \"data.csv\"}",
            )),
        },
        _ => Err(Refusal::invalid_argument(
            "arguments must be a JSON object such as {\"op\": \"inspect\", \"path\": \"data.csv\"}",
        )),
    }
}

/// Repairs the common shapes weak callers send (see the module docs).
///
/// ```
/// use serde_json::json;
/// let fixed = plumb_tool::repair(json!({"file": "a.csv", "limit": "10", "columns": "x, y", "header": true})).unwrap();
/// assert_eq!(fixed, json!({"path": "a.csv", "limit": 10, "columns": ["x", "y"], "header": "true"}));
/// ```
///
/// # Errors
/// `invalid-argument` when the arguments are not an object.
pub fn repair(args: Value) -> Result<Value, Refusal> {
    let mut m = object(args)?;
    for alias in ["file", "file_path", "filepath", "filename"] {
        if let Some(v) = m.remove(alias) {
            m.entry("path").or_insert(v);
        }
    }
    for field in NUMBER_FIELDS {
        if let Some(Value::String(s)) = m.get(field) {
            let t = s.trim();
            if let Ok(n) = t.parse::<i64>() {
                m.insert(field.to_owned(), Value::from(n));
            } else if let Ok(f) = t.parse::<f64>() {
                if f.fract() == 0.0 && f.abs() < 9e15 {
                    m.insert(field.to_owned(), Value::from(f as i64));
                }
            }
        } else if let Some(Value::Number(n)) = m.get(field) {
            // 10.0 is 10; 10.5 stays and is refused.
            if let Some(f) = n
                .as_f64()
                .filter(|f| n.is_f64() && f.fract() == 0.0 && f.abs() < 9e15)
            {
                m.insert(field.to_owned(), Value::from(f as i64));
            }
        }
    }
    match m.get("columns") {
        Some(Value::String(s)) => {
            let list: Vec<Value> = s
                .split(',')
                .map(str::trim)
                .filter(|p| !p.is_empty())
                .map(Value::from)
                .collect();
            m.insert("columns".to_owned(), Value::Array(list));
        }
        Some(Value::Array(items)) => {
            let list: Vec<Value> = items
                .iter()
                .map(|v| match v {
                    Value::String(s) => Value::from(s.trim()),
                    other => Value::from(other.to_string()),
                })
                .collect();
            m.insert("columns".to_owned(), Value::Array(list));
        }
        Some(Value::Number(n)) => {
            let n = n.to_string();
            m.insert("columns".to_owned(), Value::Array(vec![Value::from(n)]));
        }
        _ => {}
    }
    if let Some(Value::Bool(b)) = m.get("header") {
        let b = *b;
        m.insert("header".to_owned(), Value::from(b.to_string()));
    }
    if let Some(Value::String(op)) = m.get("op") {
        let op = op.trim().to_ascii_lowercase();
        m.insert("op".to_owned(), Value::from(op));
    }
    // A null is the same as leaving the field out.
    m.retain(|_, v| !v.is_null());
    Ok(Value::Object(m))
}

fn parse<T: for<'de> Deserialize<'de>>(v: Value, example: &str) -> Result<T, Refusal> {
    serde_json::from_value(v).map_err(|e| {
        Refusal::invalid_argument(format!(
            "the arguments do not fit the tool: {e}; for example {example}; offset and limit are whole numbers"
        ))
    })
}

/// Repairs and reads `data` arguments.
///
/// # Errors
/// `invalid-argument`, naming the valid ops for a bad `op`.
pub fn data_args(args: Value) -> Result<(Op, DataArgs), Refusal> {
    let fixed = repair(args)?;
    let op_text = fixed
        .get("op")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let op: Op = op_text.parse().map_err(|_| {
        Refusal::invalid_argument(format!(
            "op `{op_text}` is not one of inspect, select, validate; pass one of those as `op`"
        ))
    })?;
    let args: DataArgs = parse(
        fixed,
        r#"{"op": "select", "path": "data.csv", "offset": 0, "limit": 20}"#,
    )?;
    Ok((op, args))
}

/// Repairs and reads `read` arguments.
///
/// # Errors
/// `invalid-argument`: a missing path, a non-integer offset or limit.
pub fn read_args(args: Value) -> Result<ReadArgs, Refusal> {
    let fixed = repair(args)?;
    parse(fixed, r#"{"path": "notes.md", "offset": 0, "limit": 100}"#)
}
