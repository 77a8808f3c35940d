//! The tools' input schemas in the one form every host takes.
//!
//! Hosts differ in what JSON Schema they accept for a tool's arguments.
//! The strictest common form is the one OpenAI's strict function calling
//! asks for: every object closed (`additionalProperties: false`), every
//! property listed in `required`, an optional property written as one
//! that may be `null`, and none of the keywords it does not support
//! (`default`, number formats such as `int64`, `oneOf`, ...). A schema in
//! that form is also plain JSON Schema 2020-12, the dialect MCP assumes
//! when a schema names none, so both tools' schemas are written in it and
//! neither names a dialect. The arguments' repair reads a `null` as "not
//! given", so a strict caller and a loose one are answered alike.

use serde_json::{Map, Value};

/// The string formats strict function calling accepts; any other
/// `format` (schemars writes `int64`, `uint64`, `double`) is dropped, the
/// type alone saying what the value is.
pub const STRICT_FORMATS: [&str; 9] = [
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
];

/// Keywords dropped wherever they appear: a default is said in the
/// description instead, and the dialect is the one MCP assumes.
const DROPPED: [&str; 2] = ["default", "$schema"];

/// `schema` in the strict form (see the module docs): each object's
/// properties all required and closed to others, each property that was
/// optional made nullable, unsupported keywords dropped. Schemas of
/// plumb's own making only: it walks them by recursion.
///
/// ```
/// use serde_json::json;
/// let strict = plumb_tool::strict_schema(json!({
///     "$schema": "https://json-schema.org/draft/2020-12/schema",
///     "type": "object",
///     "properties": {
///         "path": {"type": "string"},
///         "limit": {"type": "integer", "format": "uint64", "default": 20},
///     },
///     "required": ["path"],
/// }));
/// assert_eq!(strict, json!({
///     "type": "object",
///     "properties": {
///         "path": {"type": "string"},
///         "limit": {"type": ["integer", "null"]},
///     },
///     "required": ["path", "limit"],
///     "additionalProperties": false,
/// }));
/// ```
pub fn strict_schema(mut schema: Value) -> Value {
    visit(&mut schema);
    schema
}

fn visit(v: &mut Value) {
    let Value::Object(m) = v else {
        if let Value::Array(items) = v {
            items.iter_mut().for_each(visit);
        }
        return;
    };
    for key in DROPPED {
        m.remove(key);
    }
    if m.get("format")
        .and_then(Value::as_str)
        .is_some_and(|f| !STRICT_FORMATS.contains(&f))
    {
        m.remove("format");
    }
    if let Some(Value::Object(mut props)) = m.remove("properties") {
        let required: Vec<String> = m
            .get("required")
            .and_then(Value::as_array)
            .map(|r| {
                r.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default();
        for (name, prop) in props.iter_mut() {
            visit(prop);
            if !required.contains(name) {
                nullable(prop);
            }
        }
        let all: Vec<Value> = props.keys().cloned().map(Value::from).collect();
        m.insert("properties".to_owned(), Value::Object(props));
        m.insert("required".to_owned(), Value::Array(all));
        m.insert("additionalProperties".to_owned(), Value::Bool(false));
    }
    for key in ["items", "anyOf", "prefixItems"] {
        if let Some(child) = m.get_mut(key) {
            visit(child);
        }
    }
    if let Some(Value::Object(defs)) = m.get_mut("$defs") {
        defs.values_mut().for_each(visit);
    }
}

/// Lets `prop` be `null` too: in its `type` (and its `enum`, which must
/// then list `null`), or as a second branch of an `anyOf`.
fn nullable(prop: &mut Value) {
    let Value::Object(m) = prop else {
        return;
    };
    let null = Value::from("null");
    match m.get_mut("type") {
        Some(Value::String(t)) => {
            let t = std::mem::take(t);
            m.insert("type".to_owned(), Value::Array(vec![Value::from(t), null]));
        }
        Some(Value::Array(types)) => {
            if !types.contains(&null) {
                types.push(null);
            }
        }
        _ => {
            // A `$ref` or an `anyOf`: the value is one of them, or null.
            let description = m.remove("description");
            let inner = Value::Object(std::mem::take(m));
            let mut wrapped = Map::new();
            if let Some(d) = description {
                wrapped.insert("description".to_owned(), d);
            }
            wrapped.insert(
                "anyOf".to_owned(),
                Value::Array(vec![inner, serde_json::json!({"type": "null"})]),
            );
            *m = wrapped;
            return;
        }
    }
    if let Some(Value::Array(choices)) = m.get_mut("enum") {
        if !choices.contains(&Value::Null) {
            choices.push(Value::Null);
        }
    }
}
