//! The tools' input schemas against the rules of OpenAI's strict function
//! calling, checked here by rules written apart from the code that makes
//! the schemas; and a strict caller (every optional field `null`) answered
//! as a loose one (the fields left out).

use serde_json::{json, Value};

use plumb_tool::{McpServer, Toolbox, Workspace, STRICT_FORMATS};

/// Keywords strict mode rejects (or that belong to another dialect).
const UNSUPPORTED: [&str; 22] = [
    "$schema",
    "default",
    "oneOf",
    "allOf",
    "not",
    "if",
    "then",
    "else",
    "patternProperties",
    "propertyNames",
    "unevaluatedProperties",
    "unevaluatedItems",
    "minProperties",
    "maxProperties",
    "minLength",
    "maxLength",
    "uniqueItems",
    "contentEncoding",
    "contentMediaType",
    "dependentRequired",
    "dependentSchemas",
    "definitions",
];

/// Every fault of `schema` against the strict rules, with where it is.
fn faults(schema: &Value) -> Vec<String> {
    let mut out = Vec::new();
    if schema["type"] != "object" || schema.get("anyOf").is_some() {
        out.push("the root is not a plain object schema".to_owned());
    }
    let mut stack = vec![("#".to_owned(), schema)];
    while let Some((at, v)) = stack.pop() {
        match v {
            Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    stack.push((format!("{at}/{i}"), item));
                }
            }
            Value::Object(m) => {
                for key in UNSUPPORTED {
                    if m.contains_key(key) {
                        out.push(format!("{at}: `{key}`"));
                    }
                }
                if let Some(f) = m.get("format").and_then(Value::as_str) {
                    if !STRICT_FORMATS.contains(&f) {
                        out.push(format!("{at}: format `{f}`"));
                    }
                }
                if let Some(r) = m.get("$ref").and_then(Value::as_str) {
                    if !r.starts_with("#/$defs/") {
                        out.push(format!("{at}: $ref {r}"));
                    }
                }
                if let Some(Value::Object(props)) = m.get("properties") {
                    if m.get("additionalProperties") != Some(&Value::Bool(false)) {
                        out.push(format!("{at}: not closed (additionalProperties)"));
                    }
                    let required: Vec<&str> = m
                        .get("required")
                        .and_then(Value::as_array)
                        .map(|r| r.iter().filter_map(Value::as_str).collect())
                        .unwrap_or_default();
                    for name in props.keys() {
                        if !required.contains(&name.as_str()) {
                            out.push(format!("{at}: `{name}` not in required"));
                        }
                    }
                    for (name, p) in props {
                        stack.push((format!("{at}/properties/{name}"), p));
                    }
                }
                for (k, child) in m {
                    if k != "properties" && (child.is_object() || child.is_array()) {
                        stack.push((format!("{at}/{k}"), child));
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// Whether a property's schema lets its value be `null`.
fn takes_null(p: &Value) -> bool {
    let typed = match &p["type"] {
        Value::String(t) => t == "null",
        Value::Array(ts) => ts.iter().any(|t| t == "null"),
        _ => false,
    };
    let in_enum = p
        .get("enum")
        .and_then(Value::as_array)
        .is_none_or(|e| e.contains(&Value::Null));
    let branch = p["anyOf"]
        .as_array()
        .is_some_and(|b| b.iter().any(|s| s["type"] == "null"));
    (typed && in_enum) || branch
}

fn toolbox(root: &std::path::Path) -> Toolbox {
    Toolbox::new(Workspace::new(root, &[], &[]).unwrap())
}

#[test]
fn both_input_schemas_keep_the_strict_rules() {
    let dir = tempfile::tempdir().unwrap();
    let server = McpServer::new(toolbox(dir.path()));
    let tools = server.tools();
    assert_eq!(tools.len(), 2);
    for tool in &tools {
        let schema = Value::Object((*tool.input_schema).clone());
        assert_eq!(faults(&schema), Vec::<String>::new(), "{}", tool.name);
        // Only what a call cannot do without is non-nullable.
        let must: &[&str] = if tool.name == "data" {
            &["op", "path"]
        } else {
            &["path"]
        };
        let props = schema["properties"].as_object().unwrap();
        assert!(props.len() > must.len(), "{}", tool.name);
        for (name, p) in props {
            assert_eq!(
                takes_null(p),
                !must.contains(&name.as_str()),
                "{}: {name} {p}",
                tool.name
            );
        }
    }
}

#[test]
fn the_rules_catch_what_a_loose_schema_does() {
    // The checker is not vacuous: the schema of a loose caller fails it
    // on each rule.
    let loose = json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "properties": {
            "path": {"type": "string"},
            "limit": {"type": "integer", "format": "uint64", "default": 20},
            "mode": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
        },
        "required": ["path"],
    });
    let got = faults(&loose);
    for want in [
        "`$schema`",
        "`default`",
        "`oneOf`",
        "format `uint64`",
        "not closed",
        "`limit` not in required",
    ] {
        assert!(got.iter().any(|f| f.contains(want)), "{want}: {got:?}");
    }
    assert!(faults(&plumb_tool::strict_schema(json!({
        "type": "object",
        "properties": {"limit": {"type": "integer", "format": "uint64", "default": 20}},
    })))
    .is_empty());
}

#[test]
fn a_strict_caller_sending_nulls_is_answered_as_a_loose_one() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("p.csv"), "id,name\n1,ann\n2,bob\n3,cy\n").unwrap();
    std::fs::write(dir.path().join("n.md"), "a\nb\nc\n").unwrap();
    let tools = toolbox(dir.path());
    let schema = tools.schema();
    for (tool, loose) in [
        ("data", json!({"op": "select", "path": "p.csv", "limit": 2})),
        (
            "data",
            json!({"op": "search", "path": "p.csv", "pattern": "b"}),
        ),
        ("read", json!({"path": "n.md", "offset": 1})),
    ] {
        let mut strict = loose.clone();
        for name in schema[tool]["input_schema"]["properties"]
            .as_object()
            .unwrap()
            .keys()
        {
            strict
                .as_object_mut()
                .unwrap()
                .entry(name.clone())
                .or_insert(Value::Null);
        }
        let a = tools.call(tool, loose.clone(), None);
        let b = tools.call(tool, strict.clone(), None);
        assert_eq!(a["ok"], true, "{a}");
        assert_eq!(a, b, "{strict}");
    }
}

#[test]
fn the_world_is_open_only_when_remote_prefixes_are_allowed() {
    let dir = tempfile::tempdir().unwrap();
    let hints = |tools: Toolbox| -> Vec<Option<bool>> {
        McpServer::new(tools)
            .tools()
            .iter()
            .map(|t| t.annotations.as_ref().and_then(|a| a.open_world_hint))
            .collect()
    };
    assert_eq!(hints(toolbox(dir.path())), [Some(false), Some(false)]);
    let opener = plumb_tool::RemoteOpener(std::sync::Arc::new(|_: &str, _| None));
    let remote = toolbox(dir.path()).with_remote(opener, &["s3://bucket/logs/".to_owned()]);
    assert!(remote.instructions().contains("s3://bucket/logs/"));
    assert_eq!(hints(remote), [Some(true), Some(true)]);
}
