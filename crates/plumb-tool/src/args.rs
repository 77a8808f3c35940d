//! The tools' arguments, their JSON Schema, and their repair.
//!
//! Weak callers send `"10"` for 10, `"a,b"` for `["a", "b"]`, `"true"`
//! for a header flag, and `file` or `file_path` for `path`. Repair turns
//! these into the documented shapes before the arguments are read;
//! anything still wrong is refused `invalid-argument` with a hint.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Map, Value};

use plumb::{Registry, Request};

use crate::shape::{ColumnWindow, Detail};
use plumb_core::{Op, Refusal};

/// Arguments of the `data` tool: the op, the file and the format, and
/// every other field as an option (the shared window and scan bounds,
/// and the options readers declare), judged against the declarations
/// once the format is known.
#[derive(Debug, Clone)]
pub(crate) struct DataArgs {
    /// The op.
    pub op: Op,
    /// The file, relative to the workspace root, or a catalog name.
    pub path: String,
    /// The format; detected when left out.
    pub format: Option<String>,
    /// The request the other fields make.
    pub request: Request,
    /// Repairs worth telling the caller (a JSONPath turned into a
    /// pointer), stated in the answer's details.
    pub repaired: Vec<String>,
    /// The columns an inspect describes (`column_offset`,
    /// `column_limit`).
    pub columns: ColumnWindow,
    /// How much of an inspect to give (`detail`).
    pub detail: Detail,
    /// How a folder or glob is listed as a dataset (`from`,
    /// `max_files`, `depth`).
    pub listing: plumb::dataset::ListOptions,
}

/// Takes a dataset's listing fields (`from`, `max_files`, `depth`) out
/// of the arguments.
fn take_listing(m: &mut Map<String, Value>) -> Result<plumb::dataset::ListOptions, Refusal> {
    let mut opts = plumb::dataset::ListOptions::default();
    let count = |v: Value, name: &str| {
        v.as_u64()
            .filter(|n| *n >= 1)
            .map(|n| usize::try_from(n).unwrap_or(usize::MAX))
            .ok_or_else(|| {
                Refusal::invalid_argument(format!(
                    "`{name}` must be a whole number, 1 or more, not {}",
                    plumb_core::echo(&v.to_string())
                ))
            })
    };
    if let Some(v) = m.remove("max_files") {
        opts.max_files = count(v, "max_files")?;
    }
    if let Some(v) = m.remove("depth") {
        opts.depth = Some(count(v, "depth")?);
    }
    match m.remove("from") {
        None => {}
        Some(Value::String(s)) => opts.from = Some(s),
        Some(v) => {
            return Err(Refusal::invalid_argument(format!(
                "`from` is a path (an answer's next.from), not {}",
                plumb_core::echo(&v.to_string())
            )))
        }
    }
    Ok(opts)
}

/// Takes the agent surface's own fields of an inspect (`column_offset`,
/// `column_limit`, `detail`) out of the arguments.
fn take_shape(m: &mut Map<String, Value>, op: Op) -> Result<(ColumnWindow, Detail), Refusal> {
    let count =
        |m: &mut Map<String, Value>, name: &str, least: u64| -> Result<Option<usize>, Refusal> {
            match m.remove(name) {
                None => Ok(None),
                Some(v) => v
                    .as_u64()
                    .filter(|n| *n >= least)
                    .map(|n| Some(usize::try_from(n).unwrap_or(usize::MAX)))
                    .ok_or_else(|| {
                        Refusal::invalid_argument(format!(
                            "`{name}` must be a whole number, {least} or more, not {}",
                            plumb_core::echo(&v.to_string())
                        ))
                    }),
            }
        };
    let offset = count(m, "column_offset", 0)?;
    let limit = count(m, "column_limit", 1)?;
    if (offset.is_some() || limit.is_some()) && op != Op::Inspect {
        return Err(Refusal::invalid_argument(
            "column_offset and column_limit choose the columns an inspect describes; a select or search takes `columns` or `column` instead",
        ));
    }
    let detail = match m.remove("detail") {
        None => Detail::Brief,
        Some(Value::String(d)) if d.trim().eq_ignore_ascii_case("brief") => Detail::Brief,
        Some(Value::String(d)) if d.trim().eq_ignore_ascii_case("full") => Detail::Full,
        Some(Value::String(d)) if d.trim().eq_ignore_ascii_case("columns") => Detail::Columns,
        Some(v) => {
            return Err(Refusal::invalid_argument(format!(
                "`detail` is brief, full or columns, not {}",
                plumb_core::echo(&v.to_string())
            )))
        }
    };
    Ok((
        ColumnWindow {
            offset: offset.unwrap_or(0),
            limit,
        },
        detail,
    ))
}

/// A JSONPath (`$.items[*].id`, `$['a b'][0]`) as the JSON Pointer plumb
/// reads (`/items/*/id`), for callers who send the syntax they know.
/// Only the child, index and wildcard steps have a pointer form.
///
/// ```
/// use plumb_tool::jsonpath_to_pointer;
/// assert_eq!(jsonpath_to_pointer("$.items[*].id").unwrap(), "/items/*/id");
/// assert_eq!(jsonpath_to_pointer("$['a/b'][2]").unwrap(), "/a~1b/2");
/// assert!(jsonpath_to_pointer("$..id").is_err());
/// ```
///
/// # Errors
/// `invalid-argument` for a step without a pointer form (`..`, a
/// filter, a slice, a union), naming it.
pub fn jsonpath_to_pointer(path: &str) -> Result<String, Refusal> {
    let unsupported = |what: &str| {
        Refusal::invalid_argument(format!(
            "the JSONPath `{}` uses {what}, which has no JSON Pointer form; name one path with \
             child steps, indexes and `*` (for example $.items[*].id, or the pointer /items/*/id)",
            plumb_core::echo(path)
        ))
    };
    let esc = |k: &str| k.replace('~', "~0").replace('/', "~1");
    let rest = path.trim().strip_prefix('$').unwrap_or(path.trim());
    let bytes = rest.as_bytes();
    let mut out = String::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'.' if bytes.get(i + 1) == Some(&b'.') => {
                return Err(unsupported("recursive descent (..)"))
            }
            b'.' => {
                let start = i + 1;
                let mut end = start;
                while end < bytes.len() && bytes[end] != b'.' && bytes[end] != b'[' {
                    end += 1;
                }
                let name = &rest[start..end];
                if name.is_empty() {
                    return Err(unsupported("an empty step"));
                }
                out.push('/');
                out.push_str(&esc(name));
                i = end;
            }
            b'[' => {
                let close = rest[i..]
                    .find(']')
                    .map(|c| i + c)
                    .ok_or_else(|| unsupported("an unclosed bracket"))?;
                let inner = rest[i + 1..close].trim();
                let quoted =
                    |q: char| inner.len() >= 2 && inner.starts_with(q) && inner.ends_with(q);
                if quoted('\'') || quoted('"') {
                    out.push('/');
                    out.push_str(&esc(&inner[1..inner.len() - 1]));
                } else if inner == "*"
                    || inner.chars().all(|c| c.is_ascii_digit()) && !inner.is_empty()
                {
                    out.push('/');
                    out.push_str(inner);
                } else if inner.starts_with('?') {
                    return Err(unsupported("a filter"));
                } else if inner.contains(':') {
                    return Err(unsupported("a slice"));
                } else if inner.contains(',') {
                    return Err(unsupported("a union"));
                } else {
                    return Err(unsupported(&format!("the step [{inner}]")));
                }
                i = close + 1;
            }
            _ => return Err(unsupported("a step that does not start with . or [")),
        }
    }
    Ok(out)
}

/// The JSON Schema of the `data` tool's arguments, made from the
/// registry's option declarations: each option is a property with its
/// declared type, and its description names the formats and ops that
/// take it. It is in the strict form ([`crate::strict_schema`]): every
/// option listed as required and nullable, `null` meaning "not given".
pub fn data_schema(registry: &Registry) -> Value {
    let mut ops: Vec<&str> = Op::ALL.iter().map(|op| op.as_str()).collect();
    ops.push("list");
    let mut formats = registry.names();
    formats.extend(registry.lines_reader().map(|r| r.name()));
    let mut properties = Map::new();
    properties.insert(
        "op".to_owned(),
        json!({"type": "string", "enum": ops,
               "description": "inspect (what is in the file), select (a bounded window of it, verbatim), validate (is it well formed), search (where a pattern or predicate holds: lines, rows, records, elements) or list (a folder's entries with their kind, size and format; path \".\" is the workspace root)"}),
    );
    properties.insert(
        "path".to_owned(),
        json!({"type": "string", "description": "The file, relative to the workspace root, or a catalog name; for list, a folder (\".\" for the root)."}),
    );
    properties.insert(
        "format".to_owned(),
        json!({"type": "string", "enum": formats, "description": "The format; detected when left out."}),
    );
    properties.insert(
        "column_offset".to_owned(),
        json!({"type": "integer", "minimum": 0, "description": "inspect of a table (csv, tsv, parquet, sheets): the first column to describe, counted from 0; a wide table's answer says where the next columns start"}),
    );
    properties.insert(
        "column_limit".to_owned(),
        json!({"type": "integer", "minimum": 1, "description": "inspect of a table: the most columns to describe (all that fit when left out)"}),
    );
    properties.insert(
        "detail".to_owned(),
        json!({"type": "string", "enum": ["brief", "full", "columns"], "description": "inspect: brief (the default: each column's type, emptiness, range and two samples, three sample rows), full (every figure), or columns (a table's columns one row each: name, type, nulls, distinct values and whether that count is exact, with stats; for a wide table)"}),
    );
    properties.insert(
        "from".to_owned(),
        json!({"type": "string", "description": "a folder or glob (a dataset): the first file to read, an answer's next.from (a search: with next.offset as offset)"}),
    );
    properties.insert(
        "max_files".to_owned(),
        json!({"type": "integer", "minimum": 1, "description": "a folder or glob: the most files read in this call (the answer's next.from goes on)"}),
    );
    properties.insert(
        "depth".to_owned(),
        json!({"type": "integer", "minimum": 1, "description": "a folder or glob: how many folders deep to list (1: the folder's own files)"}),
    );
    for d in registry.options() {
        let mut schema = d.spec.kind.json_schema();
        if d.spec.name == "offset" {
            // `-N` starts N from the end (select of CSV, TSV, JSON Lines).
            schema = json!({"type": "integer"});
        }
        let ops: Vec<&str> = d.ops.iter().map(|op| op.as_str()).collect();
        schema["description"] = Value::from(format!("{} ({})", d.help(), ops.join(", ")));
        properties.insert(d.spec.name.to_owned(), schema);
    }
    crate::schema::strict_schema(json!({
        "title": "DataArgs",
        "type": "object",
        "properties": properties,
        "required": ["op", "path"],
    }))
}

/// The JSON Schema of the `read` tool's arguments, in the strict form
/// ([`crate::strict_schema`]).
pub fn read_schema() -> Value {
    crate::schema::strict_schema(
        serde_json::to_value(schemars::schema_for!(ReadArgs)).unwrap_or(Value::Null),
    )
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
    /// The text encoding of a file without a byte order mark (latin1,
    /// windows-1252, shift_jis, utf-16le: any WHATWG label); UTF-8 when
    /// left out.
    #[serde(default)]
    pub encoding: Option<String>,
    /// The member of a zip archive to read (its name in the archive,
    /// never a path on disk).
    #[serde(default)]
    pub member: Option<String>,
}

/// The numeric fields repaired from text (the `read` tool's and the
/// column window's).
const NUMBER_FIELDS: [&str; 4] = ["offset", "limit", "column_offset", "column_limit"];

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

/// Repairs the common shapes weak callers send (see the module docs):
/// the path's aliases, numbers sent as text, a null for a missing field.
/// The options' values are repaired later by their declarations
/// ([`plumb::OptionSpec::normalize`]), once the format is known.
///
/// ```
/// use serde_json::json;
/// let fixed = plumb_tool::repair(json!({"file": "a.csv", "limit": "10", "columns": null})).unwrap();
/// assert_eq!(fixed, json!({"path": "a.csv", "limit": 10}));
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
/// `invalid-argument`, naming the valid ops for a bad `op`, or a value
/// of the wrong type for a shared option.
pub(crate) fn data_args(args: Value) -> Result<DataArgs, Refusal> {
    let Value::Object(mut m) = repair(args)? else {
        return Err(Refusal::invalid_argument("arguments must be a JSON object"));
    };
    let text = |m: &mut Map<String, Value>, name: &str| -> Result<Option<String>, Refusal> {
        match m.remove(name) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(other) => Err(Refusal::invalid_argument(format!(
                "`{name}` must be text, not {}; for example {EXAMPLE}",
                plumb_core::echo(&other.to_string())
            ))),
        }
    };
    let op_text = text(&mut m, "op")?.unwrap_or_default();
    let op: Op = op_text.parse()?;
    let Some(path) = text(&mut m, "path")? else {
        return Err(Refusal::invalid_argument(format!(
            "`path` is missing: name the file; for example {EXAMPLE}"
        )));
    };
    let format = text(&mut m, "format")?;
    let (columns, detail) = take_shape(&mut m, op)?;
    let listing = take_listing(&mut m)?;
    let mut repaired = Vec::new();
    if let Some(Value::String(p)) = m.get("pointer") {
        if p.trim_start().starts_with('$') {
            let pointer = jsonpath_to_pointer(p)?;
            repaired.push(format!(
                "the JSONPath `{}` was read as the JSON Pointer `{pointer}`",
                plumb_core::echo(p)
            ));
            m.insert("pointer".into(), Value::from(pointer));
        }
    }
    let mut request = Request::default();
    for (name, raw) in m {
        request.set(&name, raw)?;
    }
    // A scan here answers within a bounded amount of work unless the
    // caller asks for more: a file that expands past its size (a
    // decompression or dictionary bomb) costs an agent seconds, not
    // minutes.
    if matches!(op, Op::Inspect | Op::Validate | Op::Search) {
        request
            .scan
            .max_scan_bytes
            .get_or_insert(crate::AGENT_SCAN_MAX_BYTES);
    }
    Ok(DataArgs {
        op,
        path,
        format,
        request,
        repaired,
        columns,
        detail,
        listing,
    })
}

/// Arguments of `op: "list"`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ListArgs {
    /// The folder, from the root (`.` for the root).
    pub path: String,
    /// Entries to skip.
    pub offset: u64,
    /// Entries to return.
    pub limit: usize,
}

/// Repairs and reads `op: "list"` arguments: `path` (the root when left
/// out), `offset`, `limit`; any other field is refused, naming it.
///
/// # Errors
/// `invalid-argument`.
pub(crate) fn list_args(args: Value) -> Result<ListArgs, Refusal> {
    use crate::listing::{bad_list_argument, LIST_DEFAULT_LIMIT, LIST_MAX_LIMIT};
    let Value::Object(m) = repair(args)? else {
        return Err(bad_list_argument("arguments must be a JSON object"));
    };
    let mut a = ListArgs {
        path: ".".to_owned(),
        offset: 0,
        limit: LIST_DEFAULT_LIMIT,
    };
    for (name, v) in m {
        match (name.as_str(), v) {
            ("op", _) => {}
            ("path", Value::String(p)) => a.path = p,
            ("offset", v) => {
                a.offset = v.as_u64().ok_or_else(|| {
                    bad_list_argument("`offset` must be a whole number of entries, 0 or more")
                })?;
            }
            ("limit", v) => {
                let n = v.as_u64().filter(|n| *n > 0).ok_or_else(|| {
                    bad_list_argument("`limit` must be a whole number, 1 or more")
                })?;
                a.limit = (n as usize).min(LIST_MAX_LIMIT);
            }
            ("path", _) => return Err(bad_list_argument("`path` must be text")),
            (other, _) => {
                return Err(bad_list_argument(&format!(
                    "`{}` is not an argument of list",
                    plumb_core::echo(other)
                )))
            }
        }
    }
    Ok(a)
}

const EXAMPLE: &str = r#"{"op": "select", "path": "data.csv", "offset": 0, "limit": 20}"#;

/// Repairs and reads `read` arguments.
///
/// # Errors
/// `invalid-argument`: a missing path, a non-integer offset or limit.
pub(crate) fn read_args(args: Value) -> Result<ReadArgs, Refusal> {
    let fixed = repair(args)?;
    parse(fixed, r#"{"path": "notes.md", "offset": 0, "limit": 100}"#)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::data_args;
    use crate::AGENT_SCAN_MAX_BYTES;

    #[test]
    fn scans_get_the_agent_budget_unless_the_call_sets_one() {
        for op in ["inspect", "validate", "search"] {
            let a = data_args(json!({"op": op, "path": "a.csv", "pattern": "x"})).unwrap();
            assert_eq!(
                a.request.scan.max_scan_bytes,
                Some(AGENT_SCAN_MAX_BYTES),
                "{op}"
            );
            let a = data_args(json!({"op": op, "path": "a.csv", "max_scan_bytes": 7})).unwrap();
            assert_eq!(a.request.scan.max_scan_bytes, Some(7), "{op}");
        }
        let a = data_args(json!({"op": "select", "path": "a.csv"})).unwrap();
        assert_eq!(a.request.scan.max_scan_bytes, None);
    }
}
