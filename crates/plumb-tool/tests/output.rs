//! The tools' output schemas against what the tools answer: every file
//! of `../shared/conformance` and `examples/data` (CSV, TSV, JSON, JSON
//! Lines, Parquet, workbooks, text, compressed files), through every op
//! and detail form, and answers cut to fit, validate against them; and
//! the schemas are precise enough to reject answers of the wrong shape.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use plumb_tool::{Toolbox, Workspace};

fn plumb() -> plumb::Plumb {
    let mut p = plumb::Plumb::new();
    p.registry_mut().register(plumb_parquet::ParquetReader);
    for reader in plumb_sheets::SheetsReader::ALL {
        p.registry_mut().register(reader);
    }
    p
}

fn toolbox(root: &Path) -> Toolbox {
    Toolbox::new(Workspace::new(root, &[], &[]).expect("workspace")).with_plumb(plumb())
}

fn validator(tools: &Toolbox, tool: &str) -> jsonschema::Validator {
    let schema = tools.output_schema(tool);
    jsonschema::validator_for(&schema).expect("the output schema compiles")
}

/// Each call the checks make of one file.
fn calls(path: &str) -> Vec<(&'static str, Value)> {
    let data = |args: Value| {
        let mut a = args;
        a["path"] = Value::from(path);
        ("data", a)
    };
    vec![
        data(json!({"op": "inspect"})),
        data(json!({"op": "inspect", "detail": "full"})),
        data(json!({"op": "inspect", "detail": "full", "stats": true})),
        data(json!({"op": "inspect", "detail": "columns"})),
        data(json!({"op": "select", "limit": 5})),
        data(json!({"op": "select", "offset": -3})),
        data(json!({"op": "validate"})),
        data(json!({"op": "search", "pattern": "a", "limit": 5})),
        data(json!({"op": "search", "pattern": "e", "offset": -2})),
        ("read", json!({"path": path, "limit": 20})),
    ]
}

/// Every file under `dir`, as paths from it, sorted.
fn files(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if let Ok(rel) = p.strip_prefix(dir) {
                out.push(rel.to_string_lossy().into_owned());
            }
        }
    }
    out.sort();
    out
}

/// The faults of every call on every file under `root` (and every
/// folder's listing), with the call that met each.
fn faults_under(root: &Path) -> (usize, Vec<String>) {
    let tools = toolbox(root);
    let data = validator(&tools, "data");
    let read = validator(&tools, "read");
    let mut seen = 0;
    let mut faults = Vec::new();
    let mut check = |tool: &str, args: Value, answer: Value| {
        seen += 1;
        let v = if tool == "data" { &data } else { &read };
        for e in v.iter_errors(&answer) {
            if faults.len() < 20 {
                faults.push(format!("{tool} {args}: {e} at {}", e.instance_path()));
            }
        }
    };
    let mut folders = vec![String::new()];
    for path in files(root) {
        if let Some((dir, _)) = path.rsplit_once('/') {
            if !folders.iter().any(|f| f == dir) {
                folders.push(dir.to_owned());
            }
        }
        for (tool, args) in calls(&path) {
            let answer = tools.call(tool, args.clone(), None);
            check(tool, args, answer);
        }
    }
    for f in folders {
        let args = json!({"op": "list", "path": f, "limit": 5});
        let answer = tools.call("data", args.clone(), None);
        check("data", args, answer);
    }
    (seen, faults)
}

fn shared() -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/conformance");
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!("note: ../shared/conformance is absent; skipped");
        None
    }
}

#[test]
fn every_answer_to_the_conformance_files_validates() {
    let Some(dir) = shared() else { return };
    let (seen, faults) = faults_under(&dir);
    assert!(seen > 5000, "only {seen} answers checked");
    assert!(faults.is_empty(), "{}", faults.join("\n"));
}

#[test]
fn every_answer_to_the_examples_validates() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/data");
    let (seen, faults) = faults_under(&dir);
    assert!(seen >= 30, "only {seen} answers checked");
    assert!(faults.is_empty(), "{}", faults.join("\n"));
}

/// Answers the envelope cut to fit: a wide table with long cells, long
/// strings in JSON, a window of rows too large for one observation.
#[test]
fn answers_cut_to_fit_validate() {
    let dir = tempfile::tempdir().expect("tempdir");
    let long = "x".repeat(5000);
    let mut csv = (0..300)
        .map(|i| format!("column_{i}"))
        .collect::<Vec<_>>()
        .join(",");
    csv.push('\n');
    for r in 0..40 {
        let row: Vec<String> = (0..300).map(|i| format!("{long}{r}{i}")).collect();
        csv.push_str(&row.join(","));
        csv.push('\n');
    }
    std::fs::write(dir.path().join("wide.csv"), csv).expect("write");
    let json_text = serde_json::to_string(&json!({
        "name": long.repeat(10),
        "items": (0..3000).map(|i| json!({"id": i, "tag": format!("t{i}")})).collect::<Vec<_>>(),
    }))
    .expect("json");
    std::fs::write(dir.path().join("big.json"), json_text).expect("write");
    let lines: String = (0..200)
        .map(|i| format!("{{\"i\": {i}, \"text\": \"{long}\"}}\n"))
        .collect();
    std::fs::write(dir.path().join("log.jsonl"), lines).expect("write");
    let tools = toolbox(dir.path());
    let data = validator(&tools, "data");
    let mut cut = 0;
    for path in ["wide.csv", "big.json", "log.jsonl"] {
        for (tool, args) in calls(path) {
            if tool != "data" {
                continue;
            }
            let answer = tools.call(tool, args.clone(), None);
            if answer.get("trimmed").is_some()
                || answer.to_string().contains("\"$truncated\"")
                || answer["result"]["shortened"] == true
            {
                cut += 1;
            }
            let errors: Vec<String> = data.iter_errors(&answer).map(|e| e.to_string()).collect();
            assert!(errors.is_empty(), "{args}: {errors:?}");
        }
    }
    assert!(
        cut >= 6,
        "only {cut} answers were cut; the test no longer tests cutting"
    );
}

/// The schemas are not loose: an answer of the wrong shape is rejected.
#[test]
fn answers_of_the_wrong_shape_are_rejected() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("p.csv"), "id,name\n1,ann\n2,bob\n").expect("write");
    let tools = toolbox(dir.path());
    let data = validator(&tools, "data");
    let read = validator(&tools, "read");
    let good = tools.call("data", json!({"op": "inspect", "path": "p.csv"}), None);
    assert!(data.is_valid(&good), "{good}");
    let mut bad = good.clone();
    bad["result"]["row_count"] = json!("two");
    assert!(!data.is_valid(&bad), "a count given as text passed");
    let mut bad = good.clone();
    bad["result"]
        .as_object_mut()
        .expect("object")
        .remove("row_count");
    assert!(
        !data.is_valid(&bad),
        "an inspect without its row count passed"
    );
    let mut bad = good.clone();
    bad["details"]["view_label"] = json!("approximate");
    assert!(!data.is_valid(&bad), "an unknown view label passed");
    let validated = tools.call("data", json!({"op": "validate", "path": "p.csv"}), None);
    assert!(data.is_valid(&validated));
    let mut bad = validated.clone();
    bad["result"]["valid"] = json!("yes");
    assert!(!data.is_valid(&bad), "a verdict given as text passed");
    let read_answer = tools.call("read", json!({"path": "p.csv"}), None);
    assert!(read.is_valid(&read_answer), "{read_answer}");
    let mut bad = read_answer.clone();
    bad["result"]["text"] = json!(["id,name"]);
    assert!(!read.is_valid(&bad), "a read's text as a list passed");
    let refused = tools.call("data", json!({"op": "inspect", "path": "nope.csv"}), None);
    assert!(data.is_valid(&refused), "{refused}");
    let mut bad = refused.clone();
    bad["refusal"]["reason"] = json!("no-such-reason");
    assert!(!data.is_valid(&bad), "an unknown refusal reason passed");
}
