//! The output schemas of the tools: what an observation holds, per op,
//! made from the types the answers serialize from.
//!
//! Each reader describes its answers ([`plumb::FormatReader::answer_schema`],
//! derived with schemars from the answer types), and
//! [`plumb::Plumb::answer_schemas`] gathers them per op. The envelope
//! then shapes an answer for an agent, and the schema says what that
//! shaping may do, so that every observation validates against it:
//!
//! - members below an answer's top may be left out (the brief form drops
//!   figures, `fit` trims the largest lists and objects), so only an
//!   answer's own top-level fields stay required, save those the columns
//!   form leaves out ([`COLUMNS_FORM_DROPPED`]);
//! - any string may be cut to a `{"$truncated", "bytes"}` placeholder,
//!   and any list shortened;
//! - a table's `columns` may be rows of [`COLUMN_FIELDS`] (the columns
//!   form);
//! - a result that fits in no form is `{"$summary": "..."}`.
//!
//! Integer formats (`uint64`) are left out, as in the input schemas
//! ([`crate::strict_schema`]): one dialect, and a keyword some hosts
//! reject.

use plumb::read::ReadAnswer;
use plumb::{Op, Plumb};
use plumb_core::schemars::{Schema, SchemaGenerator};
use plumb_core::{Refusal, ViewFlags};
use serde_json::{json, Map, Value};

use crate::shape::COLUMN_FIELDS;

/// Top-level answer fields the columns form (`detail: "columns"`)
/// leaves out, so never required of an answer.
pub const COLUMNS_FORM_DROPPED: [&str; 3] = ["header", "sample", "sample_shortened"];

/// The definition the placeholder of a cut string goes by.
const TRUNCATED: &str = "Truncated";

/// Definitions kept as they are: a refusal's, which the shaping of an
/// answer never touches.
const UNSHAPED: [&str; 2] = ["Refusal", "RefusalReason"];

/// The output schema of `tool` (`data` or `read`) over the readers of
/// `plumb`; `None` for another name.
pub fn output_schema(plumb: &Plumb, tool: &str) -> Option<Value> {
    let mut generator = plumb_core::answer_generator();
    let refusal = generator.subschema_for::<Refusal>();
    let view = generator.subschema_for::<ViewFlags>();
    let per_op: Vec<(&str, Vec<Schema>)> = match tool {
        "data" => {
            let mut ops: Vec<(&str, Vec<Schema>)> = Op::ALL
                .iter()
                .map(|&op| (op.as_str(), plumb.answer_schemas(op, &mut generator)))
                .collect();
            ops.push(("list", vec![listing_schema(&mut generator)]));
            ops
        }
        "read" => vec![("read", vec![generator.subschema_for::<ReadAnswer>()])],
        _ => return None,
    };
    let mut defs: Map<String, Value> = generator
        .take_definitions(true)
        .into_iter()
        .collect::<Map<String, Value>>();
    let branches: Vec<Value> = per_op
        .into_iter()
        .map(|(op, answers)| {
            let mut results: Vec<Value> = answers
                .into_iter()
                .map(|s| answer_branch(s.to_value(), &defs))
                .collect();
            results.push(json!({
                "type": "object",
                "description": "a result that fits the observation in no form",
                "properties": {"$summary": {"type": "string"}},
                "required": ["$summary"]
            }));
            json!({
                "if": {
                    "properties": {
                        "ok": {"const": true},
                        "details": {"properties": {"op": {"const": op}}, "required": ["op"]}
                    },
                    "required": ["ok", "details"]
                },
                "then": {"properties": {"result": {"anyOf": results}}}
            })
        })
        .collect();
    for (name, def) in defs.iter_mut() {
        if !UNSHAPED.contains(&name.as_str()) {
            shape(def);
        }
    }
    defs.insert(
        TRUNCATED.to_owned(),
        json!({
            "type": "object",
            "description": "a string cut to fit: its kept prefix (whole characters) and its full length in bytes",
            "properties": {
                "$truncated": {"type": "string"},
                "bytes": {"type": "integer", "minimum": 0}
            },
            "required": ["$truncated", "bytes"]
        }),
    );
    let mut branches = Value::Array(branches);
    let mut defs = Value::Object(defs);
    drop_formats(&mut defs);
    drop_formats(&mut branches);
    let count = json!({"type": "integer", "minimum": 0});
    Some(json!({
        "type": "object",
        "properties": {
            "ok": {"type": "boolean", "description": "true for an answer, false for a refusal"},
            "tool": {"type": "string"},
            "details": {
                "type": "object",
                "description": "what the answer is of and how complete it is",
                "properties": {
                    "op": {"type": "string"},
                    "path": {"type": "string"},
                    "format": {"type": "string"},
                    "view": view,
                    "view_label": {"enum": ["exact", "sampled", "cut"]},
                    "repaired": {"type": "array", "items": {"type": "string"}, "description": "the argument repairs made"},
                    "detail": {"enum": ["brief", "full", "columns"]},
                    "columns": {
                        "type": "object",
                        "description": "the window over a table's columns",
                        "properties": {"offset": count, "returned": count, "total": count},
                        "required": ["offset", "returned", "total"]
                    }
                },
                "required": ["op"]
            },
            "counts": {
                "type": "object",
                "description": "a window's counts",
                "properties": {"returned": count, "offset": count, "limit": count, "has_more": {"type": "boolean"}},
                "required": ["returned", "offset", "limit", "has_more"]
            },
            "hint": {"type": "string", "description": "how to continue"},
            "result": {"type": "object", "description": "the answer, per op and format"},
            "trimmed": {
                "type": "array",
                "description": "the lists cut to fit the observation, each with its pointer in result",
                "items": {
                    "type": "object",
                    "properties": {"field": {"type": "string"}, "kept": count, "total": count},
                    "required": ["field", "kept", "total"]
                }
            },
            "error": {"type": "string", "description": "{tool}: {op} refused ({reason}): {message}"},
            "refusal": refusal
        },
        "required": ["ok", "tool"],
        "allOf": branches,
        "$defs": defs
    }))
}

/// One answer's branch: the answer (a `$ref`, maybe inside the layers'
/// `allOf`) with its own top-level fields required, save the columns
/// form's.
fn answer_branch(answer: Value, defs: &Map<String, Value>) -> Value {
    let required: Vec<Value> = top_required(&answer, defs)
        .into_iter()
        .filter(|f| !COLUMNS_FORM_DROPPED.contains(&f.as_str()))
        .map(Value::from)
        .collect();
    if required.is_empty() {
        return answer;
    }
    json!({"allOf": [answer], "required": required})
}

/// The `required` list of the object `schema` names, following a `$ref`
/// and a one-member `allOf`.
fn top_required(schema: &Value, defs: &Map<String, Value>) -> Vec<String> {
    let mut at = schema;
    for _ in 0..4 {
        if let Some(name) = at
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| r.strip_prefix("#/$defs/"))
        {
            match defs.get(name) {
                Some(d) => at = d,
                None => return Vec::new(),
            }
        } else if let Some([inner]) = at.get("allOf").and_then(Value::as_array).map(Vec::as_slice) {
            at = inner;
        } else {
            break;
        }
    }
    at.get("required")
        .and_then(Value::as_array)
        .map(|r| {
            r.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

/// Calls `f` on every schema object under `v`, children first. The keys
/// of a `properties` map are names, not keywords: only its values are
/// schemas.
fn walk(v: &mut Value, f: &mut dyn FnMut(&mut Map<String, Value>)) {
    match v {
        Value::Array(items) => items.iter_mut().for_each(|x| walk(x, f)),
        Value::Object(m) => {
            for (key, x) in m.iter_mut() {
                match x {
                    Value::Object(props) if key == "properties" => {
                        props.values_mut().for_each(|p| walk(p, f));
                    }
                    _ => walk(x, f),
                }
            }
            f(m);
        }
        _ => {}
    }
}

/// What the shaping of an answer may do to a schema, made part of it
/// (see the module's notes).
fn shape(v: &mut Value) {
    walk(v, &mut |m| {
        m.remove("required");
        m.remove("minItems");
        if let Some(Value::Object(props)) = m.get_mut("properties") {
            if let Some(Value::Object(columns)) = props.get_mut("columns") {
                if let Some(items) = columns.remove("items") {
                    columns.insert(
                        "items".to_owned(),
                        json!({"anyOf": [items, {
                            "type": "array",
                            "description": format!("the columns form: one column as [{}]", COLUMN_FIELDS.join(", "))
                        }]}),
                    );
                }
            }
        }
        if is_free_string(m) {
            let inner = std::mem::take(m);
            m.insert(
                "anyOf".to_owned(),
                json!([Value::Object(inner), {"$ref": format!("#/$defs/{TRUNCATED}")}]),
            );
        }
    });
}

/// A schema of strings that are not one of a few named values (those
/// are short, and never cut).
fn is_free_string(m: &Map<String, Value>) -> bool {
    let stringy = match m.get("type") {
        Some(Value::String(t)) => t == "string",
        Some(Value::Array(ts)) => ts.iter().any(|t| t == "string"),
        _ => false,
    };
    stringy && !m.contains_key("const") && !m.contains_key("enum")
}

/// Leaves out integer and number formats (`uint64`, `double`).
fn drop_formats(v: &mut Value) {
    walk(v, &mut |m| {
        if m.get("format").is_some_and(Value::is_string) {
            m.remove("format");
        }
    });
}

/// The result of `op: "list"`: a folder's entries (see
/// [`crate::Toolbox`]'s listing).
fn listing_schema(generator: &mut SchemaGenerator) -> Schema {
    let count = json!({"type": "integer", "minimum": 0});
    let kind = generator.subschema_for::<crate::EntryKind>();
    plumb_core::schemars::json_schema!({
        "type": "object",
        "description": "a folder's entries, a page at a time",
        "properties": {
            "path": {"type": "string"},
            "entries": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "name": {"type": "string"},
                        "path": {"type": "string"},
                        "kind": kind,
                        "size": count,
                        "format": {"type": ["string", "null"], "description": "the format detected: text for text no data reader takes, null for other bytes"},
                        "container": {"type": "string"},
                        "refused": {
                            "type": "object",
                            "properties": {"reason": {"type": "string"}, "message": {"type": "string"}}
                        }
                    },
                    "required": ["name", "path", "kind"]
                }
            },
            "total": count,
            "hidden": count,
            "complete": {"type": "boolean"}
        },
        "required": ["path", "entries", "total", "hidden", "complete"]
    })
}
