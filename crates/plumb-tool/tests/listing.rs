//! Finding files: `op: "list"` of the `data` tool and the walk behind
//! MCP resources, on a workspace of every kind of entry, each fact held
//! to what the file system says.

use std::io::Write;
use std::path::Path;

use serde_json::{json, Value};

use plumb_tool::{EntryKind, Toolbox, Workspace, OBSERVATION_CAP_BYTES};

fn write(root: &Path, rel: &str, bytes: &[u8]) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, bytes).unwrap();
}

/// A workspace of data files, text, binary bytes, a gzip'd CSV, a hidden
/// file, a reserved `.git`, nested folders, symlinks in and out, a pipe.
fn workspace() -> (tempfile::TempDir, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let r = dir.path();
    write(r, "people.csv", b"id,name\n1,ann\n2,bob\n");
    write(r, "events.jsonl", b"{\"a\": 1}\n{\"a\": 2}\n");
    write(r, "doc.json", b"{\"items\": [1, 2, 3]}");
    write(r, "notes.md", b"# Notes\nline two\n");
    write(r, "blob.bin", b"\x00\x01\x02\x03binary");
    write(r, ".env", b"SECRET=1\n");
    write(r, ".git/config", b"[core]\n");
    write(r, "logs/2024/day1.jsonl", b"{\"level\": \"error\"}\n");
    write(r, "logs/2024/day2.jsonl", b"{\"level\": \"info\"}\n");
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(b"id,v\n1,2\n").unwrap();
    write(r, "packed.csv.gz", &gz.finish().unwrap());
    write(outside.path(), "secret.csv", b"a,b\n1,2\n");
    std::os::unix::fs::symlink(outside.path().join("secret.csv"), r.join("out.csv")).unwrap();
    std::os::unix::fs::symlink("people.csv", r.join("alias.csv")).unwrap();
    rustix::fs::mknodat(
        rustix::fs::CWD,
        r.join("pipe"),
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o600),
        0,
    )
    .unwrap();
    (dir, outside)
}

fn toolbox(root: &Path) -> Toolbox {
    Toolbox::new(Workspace::new(root, &[], &[]).unwrap())
}

fn entry<'a>(list: &'a Value, name: &str) -> &'a Value {
    list["result"]["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == name)
        .unwrap_or_else(|| panic!("{name} in {list}"))
}

#[test]
fn the_root_is_listed_sorted_with_kinds_sizes_and_formats() {
    let (dir, _outside) = workspace();
    let tools = toolbox(dir.path());
    let a = tools.call("data", json!({"op": "list", "path": "."}), None);
    assert_eq!(a["ok"], true, "{a}");
    let names: Vec<&str> = a["result"]["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    // Sorted; the reserved .git never listed, the hidden .env counted.
    let mut want: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| !n.starts_with('.'))
        .collect();
    want.sort();
    assert_eq!(names, want);
    assert_eq!(a["result"]["hidden"], 1);
    assert_eq!(a["result"]["total"], want.len());
    assert_eq!(a["result"]["complete"], true);
    assert_eq!(a["details"]["view_label"], "exact");
    for (name, format) in [
        ("people.csv", json!("csv")),
        ("events.jsonl", json!("jsonl")),
        ("doc.json", json!("json")),
        ("notes.md", json!("text")),
        ("blob.bin", Value::Null),
        ("packed.csv.gz", json!("csv")),
        ("alias.csv", json!("csv")),
    ] {
        let e = entry(&a, name);
        assert_eq!(e["format"], format, "{e}");
        let real = std::fs::metadata(dir.path().join(name)).unwrap().len();
        assert_eq!(e["size"], real, "{e}");
        assert_eq!(e["path"], name);
    }
    assert_eq!(entry(&a, "packed.csv.gz")["container"], "gzip");
    assert_eq!(entry(&a, "alias.csv")["kind"], "symlink");
    assert_eq!(entry(&a, "logs")["kind"], "dir");
    assert_eq!(entry(&a, "pipe")["kind"], "other");
    assert!(entry(&a, "pipe").get("size").is_none());
    // A symlink out is listed with the refusal a call would meet, and
    // nothing of the file it leads to.
    let out = entry(&a, "out.csv");
    assert_eq!(out["refused"]["reason"], "outside-root", "{out}");
    assert!(out.get("size").is_none() && out.get("format").is_none());
}

#[test]
fn pages_cover_every_entry_once_and_say_how_to_go_on() {
    let (dir, _outside) = workspace();
    let tools = toolbox(dir.path());
    let whole = tools.call("data", json!({"op": "list", "path": ""}), None);
    let all: Vec<Value> = whole["result"]["entries"].as_array().unwrap().clone();
    let mut seen = Vec::new();
    let mut offset = 0u64;
    loop {
        let a = tools.call(
            "data",
            json!({"op": "list", "path": ".", "offset": offset, "limit": "3"}),
            None,
        );
        let page = a["result"]["entries"].as_array().unwrap();
        seen.extend(page.iter().cloned());
        assert_eq!(a["counts"]["returned"], page.len());
        if a["counts"]["has_more"] == false {
            assert!(a.get("hint").is_none());
            break;
        }
        offset += page.len() as u64;
        assert_eq!(
            a["hint"],
            format!("more entries follow; list again with the same path and offset={offset}")
        );
    }
    assert_eq!(seen, all);
}

#[test]
fn a_nested_folder_is_listed_by_its_path() {
    let (dir, _outside) = workspace();
    let tools = toolbox(dir.path());
    let a = tools.call("data", json!({"op": "list", "path": "logs/2024"}), None);
    assert_eq!(a["result"]["path"], "logs/2024");
    assert_eq!(entry(&a, "day1.jsonl")["path"], "logs/2024/day1.jsonl");
    assert_eq!(entry(&a, "day2.jsonl")["format"], "jsonl");
}

#[test]
fn lists_that_cannot_be_made_are_refused_with_the_reason() {
    let (dir, _outside) = workspace();
    let tools = toolbox(dir.path());
    for (args, reason) in [
        (json!({"op": "list", "path": ".."}), "outside-root"),
        (json!({"op": "list", "path": ".git"}), "reserved-path"),
        (json!({"op": "list", "path": "nowhere"}), "not-found"),
        (
            json!({"op": "list", "path": "people.csv"}),
            "invalid-argument",
        ),
        (
            json!({"op": "list", "path": ".", "limit": 0}),
            "invalid-argument",
        ),
        (
            json!({"op": "list", "path": ".", "pattern": "x"}),
            "invalid-argument",
        ),
    ] {
        let a = tools.call("data", args.clone(), None);
        assert_eq!(a["ok"], false, "{args}");
        assert_eq!(a["refusal"]["reason"], reason, "{args}: {a}");
    }
    let a = tools.call("data", json!({"op": "list", "path": "people.csv"}), None);
    assert!(a["error"].as_str().unwrap().contains("is a file"), "{a}");
}

#[test]
fn a_large_folder_is_paged_to_fit_the_observation() {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..1500 {
        write(
            dir.path(),
            &format!("{:04}-{}.csv", i, "n".repeat(40)),
            b"a\n1\n",
        );
    }
    let tools = toolbox(dir.path());
    let a = tools.call(
        "data",
        json!({"op": "list", "path": ".", "limit": 1000}),
        None,
    );
    let text = a.to_string();
    assert!(text.len() <= OBSERVATION_CAP_BYTES, "{}", text.len());
    let returned = a["counts"]["returned"].as_u64().unwrap();
    assert!(returned > 10 && returned < 1000, "{returned}");
    assert_eq!(a["result"]["total"], 1500);
    assert_eq!(
        a["hint"],
        format!("more entries follow; list again with the same path and offset={returned}")
    );
}

#[test]
fn the_walk_finds_every_file_beneath_the_root_and_nothing_reserved() {
    let (dir, _outside) = workspace();
    let ws = Workspace::new(dir.path(), &[], &[]).unwrap();
    let (files, complete) = ws.walk_files();
    assert!(complete);
    let paths: Vec<&str> = files.iter().map(|e| e.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            "alias.csv",
            "blob.bin",
            "doc.json",
            "events.jsonl",
            "logs/2024/day1.jsonl",
            "logs/2024/day2.jsonl",
            "notes.md",
            "out.csv",
            "packed.csv.gz",
            "people.csv",
        ]
    );
    assert!(files
        .iter()
        .all(|e| matches!(e.kind, EntryKind::File | EntryKind::Symlink)));
}
