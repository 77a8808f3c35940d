//! An inspect shaped for an agent: a wide table's columns reached by a
//! column window that its answers name, and the brief form beside the
//! full one.

use serde_json::{json, Value};

use plumb_tool::{Toolbox, Workspace, OBSERVATION_CAP_BYTES};

/// A CSV of `cols` columns whose names and values say which column they
/// are in.
fn wide(cols: usize, rows: usize) -> String {
    let mut out = (0..cols)
        .map(|c| format!("column_{c:04}"))
        .collect::<Vec<_>>()
        .join(",");
    out.push('\n');
    for r in 0..rows {
        let row: Vec<String> = (0..cols)
            .map(|c| {
                if c.is_multiple_of(2) {
                    format!("{}", c * 1000 + r)
                } else {
                    format!("v{c}_{r}")
                }
            })
            .collect();
        out.push_str(&row.join(","));
        out.push('\n');
    }
    out
}

fn toolbox(files: &[(&str, String)]) -> (tempfile::TempDir, Toolbox) {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    let t = Toolbox::new(Workspace::new(dir.path(), &[], &[]).unwrap());
    (dir, t)
}

#[test]
fn the_hints_walk_every_column_of_a_wide_table_once() {
    let cols = 700;
    let (_dir, t) = toolbox(&[("wide.csv", wide(cols, 30))]);
    let mut names = Vec::new();
    let mut args = json!({"op": "inspect", "path": "wide.csv"});
    let mut calls = 0;
    loop {
        let a = t.call("data", args.clone(), None);
        calls += 1;
        assert_eq!(a["ok"], true, "{a}");
        assert!(a.to_string().len() <= OBSERVATION_CAP_BYTES);
        let shown = &a["details"]["columns"];
        assert_eq!(shown["total"], cols);
        let columns = a["result"]["columns"].as_array().unwrap();
        assert_eq!(shown["returned"], columns.len(), "{shown}");
        for c in columns {
            // Each column is where the window says, with its own figures.
            let i = c["index"].as_u64().unwrap() as usize;
            assert_eq!(i, names.len());
            assert_eq!(c["name"], format!("column_{i:04}"));
            let want = if i.is_multiple_of(2) {
                "integer"
            } else {
                "string"
            };
            assert_eq!(c["inferred_type"], want, "{c}");
            names.push(i);
        }
        // The header and the sample cells follow the same window.
        let first = columns[0]["index"].as_u64().unwrap() as usize;
        assert_eq!(a["result"]["header"][0], format!("column_{first:04}"));
        match a["hint"].as_str() {
            Some(hint) => {
                let next = names.len();
                assert!(
                    hint.ends_with(&format!("column_offset={next} for the next ones")),
                    "{hint}"
                );
                args["column_offset"] = Value::from(next);
            }
            None => break,
        }
        assert!(calls < 20);
    }
    assert_eq!(names, (0..cols).collect::<Vec<_>>());
    assert!(calls >= 3, "{calls} calls");
}

#[test]
fn a_column_limit_describes_that_many() {
    let (_dir, t) = toolbox(&[("wide.csv", wide(40, 5))]);
    let a = t.call(
        "data",
        json!({"op": "inspect", "path": "wide.csv", "column_offset": "10", "column_limit": 3}),
        None,
    );
    let names: Vec<&str> = a["result"]["columns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["column_0010", "column_0011", "column_0012"]);
    assert_eq!(
        a["details"]["columns"],
        json!({"offset": 10, "returned": 3, "total": 40})
    );
    assert_eq!(a["result"]["sample"][0].as_array().unwrap().len(), 3);
    assert!(a["hint"].as_str().unwrap().contains("column_offset=13"));
}

#[test]
fn brief_keeps_the_full_forms_facts_and_leaves_figures_out() {
    let (_dir, t) = toolbox(&[(
        "p.csv",
        "id,name,score\n1,ann,3.5\n2,bob,\n3,cy,9\n4,dee,1\n".to_owned(),
    )]);
    let brief = t.call("data", json!({"op": "inspect", "path": "p.csv"}), None);
    let full = t.call(
        "data",
        json!({"op": "inspect", "path": "p.csv", "detail": "full"}),
        None,
    );
    assert_eq!(brief["details"]["detail"], "brief");
    assert_eq!(full["details"]["detail"], "full");
    assert!(brief.to_string().len() < full.to_string().len());
    for (b, f) in brief["result"]["columns"]
        .as_array()
        .unwrap()
        .iter()
        .zip(full["result"]["columns"].as_array().unwrap())
    {
        for key in ["index", "name", "inferred_type", "empty", "min", "max"] {
            if !f[key].is_null() {
                assert_eq!(b[key], f[key], "{key}");
            }
        }
        assert!(f.get("classes").is_some() && b.get("classes").is_none());
        assert!(b["samples"].as_array().unwrap().len() <= 2);
    }
    assert_eq!(full["result"]["sample"].as_array().unwrap().len(), 4);
    assert_eq!(brief["result"]["sample"].as_array().unwrap().len(), 3);
    assert_eq!(brief["result"]["sample_shortened"], true);
    assert_eq!(brief["result"]["row_count"], full["result"]["row_count"]);
}

#[test]
fn a_column_window_outside_a_tables_inspect_is_refused() {
    let (_dir, t) = toolbox(&[
        ("p.csv", "a,b\n1,2\n".to_owned()),
        ("e.jsonl", "{\"a\": 1}\n".to_owned()),
    ]);
    for (args, says) in [
        (
            json!({"op": "select", "path": "p.csv", "column_offset": 1}),
            "a select or search takes",
        ),
        (
            json!({"op": "inspect", "path": "e.jsonl", "column_offset": 1}),
            "a jsonl inspect describes keys",
        ),
        (
            json!({"op": "inspect", "path": "p.csv", "column_limit": 0}),
            "`column_limit` must be a whole number, 1 or more",
        ),
        (
            json!({"op": "inspect", "path": "p.csv", "detail": "most"}),
            "`detail` is brief, full or columns",
        ),
    ] {
        let a = t.call("data", args.clone(), None);
        assert_eq!(a["refusal"]["reason"], "invalid-argument", "{args}");
        assert!(a["error"].as_str().unwrap().contains(says), "{args}: {a}");
    }
}

/// The columns form gives every column of a wide table one row, each
/// holding the figures the full form gives that column, in an answer
/// that fits where the full form of a tenth of the columns would not.
#[test]
fn the_columns_form_gives_each_column_its_full_forms_figures() {
    let cols = 400;
    let (_dir, t) = toolbox(&[("wide.csv", wide(cols, 40))]);
    let a = t.call(
        "data",
        json!({"op": "inspect", "path": "wide.csv", "stats": true, "detail": "columns"}),
        None,
    );
    assert_eq!(a["ok"], true, "{a}");
    assert_eq!(
        a["details"]["columns"]["returned"], cols,
        "{}",
        a["details"]
    );
    assert_eq!(a["details"]["view"]["exact"], true);
    let fields: Vec<&str> = a["result"]["column_fields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap())
        .collect();
    assert_eq!(
        fields,
        ["name", "type", "nulls", "distinct", "distinct_exact"]
    );
    assert!(a["result"].get("sample").is_none() && a["result"].get("header").is_none());
    let rows = a["result"]["columns"].as_array().unwrap();
    // The full form, a window at a time, for the same figures.
    let mut offset = 0;
    while offset < cols {
        let full = t.call(
            "data",
            json!({"op": "inspect", "path": "wide.csv", "stats": true, "detail": "full",
                   "column_offset": offset, "column_limit": 10}),
            None,
        );
        let described = full["result"]["columns"].as_array().unwrap();
        assert!(!described.is_empty(), "{full}");
        for c in described {
            let i = c["index"].as_u64().unwrap() as usize;
            let row = &rows[i];
            assert_eq!(row[0], c["name"], "{i}");
            assert_eq!(row[0], format!("column_{i:04}"));
            assert_eq!(row[1], c["inferred_type"], "{i}");
            assert_eq!(row[2], c["stats"]["nulls"], "{i}");
            assert_eq!(row[3], c["stats"]["distinct"], "{i}");
            assert_eq!(row[4], c["stats"]["accuracy"]["distinct"] == "exact", "{i}");
            // Every value of this table is distinct in its column: an
            // exact count says 40, an estimate comes within the relative
            // error the full form states for it.
            let distinct = row[3].as_u64().unwrap();
            if row[4] == true {
                assert_eq!(distinct, 40, "{i}");
            } else {
                let bound = c["stats"]["accuracy"]["distinct"]["bound_99_7"]
                    .as_f64()
                    .unwrap();
                assert!(
                    distinct.abs_diff(40) as f64 <= 40.0 * bound,
                    "{i}: {distinct}"
                );
            }
        }
        offset += described.len();
    }
    // A JSON document has no columns to give one row each.
    let (_dir, t) = toolbox(&[("d.json", "[{\"a\": 1}]".to_owned())]);
    let r = t.call(
        "data",
        json!({"op": "inspect", "path": "d.json", "detail": "columns"}),
        None,
    );
    assert_eq!(r["refusal"]["reason"], "invalid-argument", "{r}");
}
