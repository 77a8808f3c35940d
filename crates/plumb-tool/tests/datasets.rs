//! Datasets on the agent surface: a folder or a glob beneath the root
//! is read as one, with the workspace's rules holding for every file
//! (reserved names at any depth, files reached through a symlinked
//! folder or a symlink leading outside refused), and the answer within
//! the observation cap with its continuation.

use std::path::Path;

use serde_json::{json, Value};

use plumb_tool::{Toolbox, Workspace, OBSERVATION_CAP_BYTES};

fn write(root: &Path, rel: &str, bytes: &[u8]) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, bytes).unwrap();
}

fn call(tb: &Toolbox, args: Value) -> Value {
    let v = tb.call("data", args, None);
    assert!(
        v.to_string().len() <= OBSERVATION_CAP_BYTES,
        "{} bytes",
        v.to_string().len()
    );
    v
}

fn paths(v: &Value) -> Vec<String> {
    v["result"]["files"]
        .as_array()
        .unwrap_or_else(|| panic!("{v}"))
        .iter()
        .map(|l| l["path"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn a_glob_or_folder_keeps_every_workspace_rule() {
    let dir = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let r = dir.path();
    write(r, "logs/a.csv", b"id,v\n1,2\n");
    write(r, "logs/deep/b.csv", b"id,v,w\n3,4,5\n");
    write(r, "logs/secrets/k.csv", b"key\nhunter2\n");
    write(r, "logs/.hidden.csv", b"id\n9\n");
    write(outside.path(), "o.csv", b"id,v\n7,8\n");
    std::os::unix::fs::symlink(outside.path(), r.join("logs/linked")).unwrap();
    std::os::unix::fs::symlink(outside.path().join("o.csv"), r.join("logs/out.csv")).unwrap();
    let ws = Workspace::new(r, &["**/secrets/**".to_owned()], &[]).unwrap();
    let tb = Toolbox::new(ws);
    for path in ["logs", "logs/**/*.csv", "./logs/**"] {
        // The brief form keeps the lines of files refused or not valid,
        // and counts the rest among those cut, with the call for them.
        let brief = call(&tb, json!({"op": "inspect", "path": path}));
        let v = call(
            &tb,
            json!({"op": "inspect", "path": path, "detail": "full"}),
        );
        assert_eq!(v["ok"], true, "{v}");
        assert_eq!(v["result"]["files_cut"], 0, "{v}");
        let told: Vec<String> = v["result"]["files"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|l| l["refusal"].is_object() || l["valid"] == false)
            .map(|l| l["path"].as_str().unwrap().to_owned())
            .collect();
        assert!(told.contains(&"logs/out.csv".to_owned()), "{v}");
        assert_eq!(paths(&brief), told, "{brief}");
        assert_eq!(
            brief["result"]["files_cut"].as_u64().unwrap() as usize,
            paths(&v).len() - told.len(),
            "{brief}"
        );
        assert!(
            brief["hint"].as_str().unwrap().contains("detail=\"full\""),
            "{brief}"
        );
        assert_eq!(brief["result"]["columns"], v["result"]["columns"]);
        let listed = paths(&v);
        // Never a reserved or hidden file, never a file through the linked folder.
        assert!(
            listed
                .iter()
                .all(|p| !p.contains("secrets") && !p.contains("hidden")),
            "{listed:?}"
        );
        assert!(
            listed.iter().all(|p| !p.starts_with("logs/linked/")),
            "{listed:?}"
        );
        let refused: Vec<&Value> = v["result"]["files"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|l| l["refusal"].is_object())
            .collect();
        // What leads outside is refused by the handle it opened.
        for l in &refused {
            assert_eq!(l["refusal"]["reason"], "outside-root", "{l}");
        }
        assert!(listed.contains(&"logs/out.csv".to_owned()), "{listed:?}");
        assert!(listed.contains(&"logs/deep/b.csv".to_owned()));
        let w = v["result"]["columns"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == "w")
            .unwrap();
        assert_eq!(w["files"], 1);
        assert!(!v.to_string().contains("hunter2") && !v.to_string().contains("7,8"));
    }
    let v = call(&tb, json!({"op": "inspect", "path": "../*.csv"}));
    assert_eq!(v["refusal"]["reason"], "outside-root", "{v}");
    let v = call(&tb, json!({"op": "select", "path": "logs"}));
    assert_eq!(v["refusal"]["reason"], "invalid-argument", "{v}");
    assert!(
        v["refusal"]["message"]
            .as_str()
            .unwrap()
            .contains("logs/a.csv"),
        "{v}"
    );
}

#[test]
fn many_files_fit_the_cap_and_go_on_from_next() {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..600 {
        write(
            dir.path(),
            &format!("parts/p{i:04}.csv"),
            format!("id,value\n{i},{}\n", i * 3).as_bytes(),
        );
    }
    let tb = Toolbox::new(Workspace::new(dir.path(), &[], &[]).unwrap());
    let mut seen = 0u64;
    let mut from: Option<String> = None;
    let mut calls = 0;
    loop {
        let mut args = json!({"op": "validate", "path": "parts", "max_files": 250});
        if let Some(f) = &from {
            args["from"] = Value::from(f.clone());
        }
        let v = call(&tb, args);
        assert_eq!(v["result"]["valid"], true, "{v}");
        seen += v["result"]["totals"]["files"].as_u64().unwrap();
        calls += 1;
        match v["result"]["next"]["from"].as_str() {
            Some(f) => from = Some(f.to_owned()),
            None => break,
        }
    }
    assert_eq!((seen, calls), (600, 3));
}
