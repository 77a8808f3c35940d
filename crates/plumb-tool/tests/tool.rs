//! The agent surface: the seed's tool tests, a battery of hostile paths,
//! and the 32 KiB observation bound.

use std::path::PathBuf;

use plumb_tool::{json_len, Budget, Toolbox, Workspace, OBSERVATION_CAP_BYTES};
use serde_json::{json, Value};

struct Fixture {
    _dir: tempfile::TempDir,
    root: PathBuf,
    outside: PathBuf,
}

const SECRET: &str = "TOP-SECRET-OUTSIDE-THE-ROOT";

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("ws");
    let outside = dir.path().join("outside");
    std::fs::create_dir_all(root.join("data")).unwrap();
    std::fs::create_dir_all(root.join(".git")).unwrap();
    std::fs::create_dir_all(root.join("private")).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("secret.csv"), format!("k,v\n{SECRET},1\n")).unwrap();
    std::fs::write(root.join(".git/config"), format!("[core]\n{SECRET}\n")).unwrap();
    std::fs::write(root.join("private/keys.csv"), "a,b\n1,2\n").unwrap();
    std::fs::write(
        root.join("data/people.csv"),
        "id,name,temperature,account\n1,ann,21.5,9007199254740993\n2,bob,NA,12\n3,cy,19,7\n4,dee,20,8\n",
    )
    .unwrap();
    std::fs::write(
        root.join("skill.md"),
        "a file that tries to shadow the catalog\n",
    )
    .unwrap();
    std::fs::write(root.join(".git/SKILL.md"), "the admitted skill\n").unwrap();
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(outside.join("secret.csv"), root.join("data/link.csv")).unwrap();
        std::os::unix::fs::symlink(&outside, root.join("data/outdir")).unwrap();
        std::os::unix::fs::symlink(root.join(".git"), root.join("data/gitlink")).unwrap();
        std::os::unix::fs::symlink("/etc/passwd", root.join("passwd.csv")).unwrap();
    }
    Fixture {
        root: root.clone(),
        outside,
        _dir: dir,
    }
}

fn tools(f: &Fixture) -> Toolbox {
    let ws = Workspace::new(
        &f.root,
        &["private/".to_owned()],
        &[("skill".to_owned(), PathBuf::from(".git/SKILL.md"))],
    )
    .unwrap();
    Toolbox::new(ws)
}

#[test]
fn csv_inspect_reports_format_row_count_header_and_exact() {
    let f = fixture();
    let a = tools(&f).call(
        "data",
        json!({"op": "inspect", "path": "data/people.csv"}),
        None,
    );
    assert_eq!(a["ok"], true);
    assert_eq!(a["result"]["format"], "csv");
    assert_eq!(a["result"]["row_count"], 4);
    assert_eq!(
        a["result"]["header"],
        json!(["id", "name", "temperature", "account"])
    );
    assert_eq!(a["details"]["view_label"], "exact");
    assert_eq!(a["details"]["op"], "inspect");
    assert_eq!(a["details"]["format"], "csv");
}

#[test]
fn select_with_projected_columns_and_the_next_offset_hint() {
    let f = fixture();
    let a = tools(&f).call(
        "data",
        json!({"op": "select", "path": "data/people.csv", "columns": ["name", "temperature"], "offset": 1, "limit": 2}),
        None,
    );
    assert_eq!(a["result"]["rows"], json!([["bob", "NA"], ["cy", "19"]]));
    assert_eq!(
        a["counts"],
        json!({"returned": 2, "offset": 1, "limit": 2, "has_more": true})
    );
    assert_eq!(a["hint"], "more follows; continue with offset=3");
}

#[test]
fn an_unsafe_integer_travels_as_a_literal_placeholder() {
    let f = fixture();
    std::fs::write(
        f.root.join("data/big.json"),
        r#"{"ids": [9007199254740993, 1]}"#,
    )
    .unwrap();
    let a = tools(&f).call(
        "data",
        json!({"op": "select", "path": "data/big.json", "pointer": "/ids/0"}),
        None,
    );
    assert_eq!(
        a["result"]["value"],
        json!({"$literal": "9007199254740993", "precision": "unsafe-integer"})
    );
}

#[test]
fn each_refusal_names_the_op_and_the_reason() {
    let f = fixture();
    let t = tools(&f);
    std::fs::write(f.root.join("data/latin1.csv"), b"a,b\n\xe9,1\n").unwrap();
    std::fs::write(f.root.join("data/notes.txt"), "just prose\nhere\n").unwrap();
    let cases = [
        (
            json!({"op": "inspect", "path": "data/missing.csv"}),
            "data: inspect refused (not-found): ",
        ),
        (
            json!({"op": "validate", "path": "data/latin1.csv"}),
            "data: validate refused (invalid-utf8): ",
        ),
        (
            json!({"op": "inspect", "path": "data/notes.txt"}),
            "data: inspect refused (unsupported-format): ",
        ),
        (
            json!({"op": "select", "path": "data/people.csv", "columns": "nope"}),
            "data: select refused (unknown-column): ",
        ),
        (
            json!({"op": "select", "path": "data/people.csv", "pointer": "/a"}),
            "data: select refused (invalid-argument): ",
        ),
        (
            json!({"op": "inspect", "path": ".git/config"}),
            "data: inspect refused (reserved-path): ",
        ),
        (
            json!({"op": "inspect", "path": "../outside/secret.csv"}),
            "data: inspect refused (outside-root): ",
        ),
    ];
    for (args, prefix) in cases {
        let a = t.call("data", args.clone(), None);
        assert_eq!(a["ok"], false, "{args}");
        let err = a["error"].as_str().unwrap();
        assert!(err.starts_with(prefix), "{args}: {err}");
        assert_eq!(a["refusal"]["ok"], false);
        // A remedy names no tool a host may not have.
        assert!(!err.contains("run_script"), "{err}");
    }
}

#[test]
fn arguments_are_repaired_and_a_bad_op_is_refused() {
    let f = fixture();
    let t = tools(&f);
    let a = t.call(
        "data",
        json!({"op": " SELECT ", "file_path": "data/people.csv", "offset": "2", "limit": "1", "header": true}),
        None,
    );
    assert_eq!(a["ok"], true, "{a}");
    assert_eq!(a["result"]["rows"], json!([["3", "cy", "19", "7"]]));
    let a = t.call(
        "data",
        json!({"op": "inspect", "file": "data/people.csv", "max_rows": "2"}),
        None,
    );
    assert_eq!(a["details"]["view_label"], "sampled");
    let a = t.call(
        "data",
        json!({"op": "summarize", "path": "data/people.csv"}),
        None,
    );
    let err = a["error"].as_str().unwrap();
    assert!(
        err.contains("invalid-argument") && err.contains("inspect, select, validate"),
        "{err}"
    );
    let a = t.call(
        "data",
        json!({"op": "select", "path": "data/people.csv", "limit": 2.5}),
        None,
    );
    assert!(a["error"].as_str().unwrap().contains("invalid-argument"));
    let a = t.call(
        "read",
        json!({"path": "data/people.csv", "limit": "abc"}),
        None,
    );
    assert!(a["error"]
        .as_str()
        .unwrap()
        .starts_with("read refused (invalid-argument): "));
    let a = t.call(
        "read",
        json!({"file": "data/people.csv", "offset": "1", "limit": "1"}),
        None,
    );
    assert_eq!(a["result"]["text"], "1,ann,21.5,9007199254740993\n");
    assert_eq!(a["result"]["next_offset"], 2);
}

#[test]
fn the_catalog_resolves_first_even_in_reserved_space() {
    let f = fixture();
    let a = tools(&f).call("read", json!({"path": "skill"}), None);
    assert_eq!(a["result"]["text"], "the admitted skill\n");
    let a = tools(&f).call("read", json!({"path": "skill.md"}), None);
    assert_eq!(
        a["result"]["text"],
        "a file that tries to shadow the catalog\n"
    );
}

#[test]
fn a_miss_lists_the_nearest_folder() {
    let f = fixture();
    let a = tools(&f).call("read", json!({"path": "data/peple.csv"}), None);
    let nearby = a["refusal"]["nearby"].as_array().unwrap();
    assert!(nearby.contains(&json!("people.csv")), "{nearby:?}");
    assert_eq!(a["refusal"]["nearest"], "data");
    let a = tools(&f).call("read", json!({"path": "nope/deeper/x.txt"}), None);
    let nearby = a["refusal"]["nearby"].as_array().unwrap();
    assert!(nearby.contains(&json!("data/")));
    assert!(
        !nearby.contains(&json!(".git/")),
        "reserved entries are not listed"
    );
}

#[test]
fn hostile_paths_are_all_refused_and_nothing_outside_is_read() {
    let f = fixture();
    let t = tools(&f);
    let outside = f.outside.join("secret.csv").display().to_string();
    let root_git = f.root.join(".git/config").display().to_string();
    let hostile: Vec<String> = vec![
        "../outside/secret.csv".into(),
        "../../../../../../etc/passwd".into(),
        "/etc/passwd".into(),
        outside.clone(),
        "data/../../outside/secret.csv".into(),
        "./../outside/secret.csv".into(),
        "..".into(),
        "/".into(),
        "".into(),
        "   ".into(),
        "data/\u{0}people.csv".into(),
        "data/link.csv".into(),
        "data/outdir/secret.csv".into(),
        "data/gitlink/config".into(),
        ".git/config".into(),
        ".git".into(),
        "data/../.git/config".into(),
        root_git,
        "private/keys.csv".into(),
        "passwd.csv".into(),
        "//etc/passwd".into(),
        "data/./../../outside/secret.csv".into(),
        format!(
            "{}../outside/secret.csv",
            "data/".repeat(3) + &"../".repeat(3)
        ),
        "/proc/self/environ".into(),
        ".GIT/config".into(),
    ];
    assert!(hostile.len() >= 20);
    for path in &hostile {
        for (tool, args) in [
            ("read", json!({"path": path})),
            ("data", json!({"op": "inspect", "path": path})),
            (
                "data",
                json!({"op": "select", "path": path, "format": "csv"}),
            ),
        ] {
            let a = t.call(tool, args, None);
            let text = a.to_string();
            assert!(!text.contains(SECRET), "{tool} {path:?} leaked: {text}");
            assert!(
                !text.contains("root:x:0:0"),
                "{tool} {path:?} read /etc/passwd"
            );
            if path == ".GIT/config" {
                // A different name on a case-sensitive file system: absent.
                assert_eq!(a["refusal"]["reason"], "not-found", "{path:?}");
                continue;
            }
            assert_eq!(a["ok"], false, "{tool} {path:?} was not refused: {text}");
            let reason = a["refusal"]["reason"].as_str().unwrap();
            assert!(
                [
                    "outside-root",
                    "reserved-path",
                    "invalid-argument",
                    "not-a-file"
                ]
                .contains(&reason),
                "{tool} {path:?}: {reason}"
            );
        }
    }
}

fn assert_fits(a: &Value) {
    let n = json_len(a);
    assert!(n <= OBSERVATION_CAP_BYTES, "observation is {n} bytes");
}

#[test]
fn the_32_kib_bound_holds_on_wide_and_long_answers() {
    let f = fixture();
    let t = tools(&f);
    // 5,000 columns.
    let header: Vec<String> = (0..5000).map(|i| format!("column_{i}")).collect();
    let row: Vec<String> = (0..5000).map(|i| i.to_string()).collect();
    std::fs::write(
        f.root.join("data/wide.csv"),
        format!(
            "{}\n{}\n{}\n",
            header.join(","),
            row.join(","),
            row.join(",")
        ),
    )
    .unwrap();
    let a = t.call(
        "data",
        json!({"op": "inspect", "path": "data/wide.csv"}),
        None,
    );
    assert_fits(&a);
    assert_eq!(a["ok"], true);
    assert_eq!(a["details"]["view_label"], "cut");
    assert!(a["trimmed"].as_array().is_some_and(|t| !t.is_empty()));
    let a = t.call(
        "data",
        json!({"op": "select", "path": "data/wide.csv", "limit": 2}),
        None,
    );
    assert_fits(&a);
    // Long cells: the window is shortened, never cut mid-row, and says so.
    let long = "x".repeat(3000);
    let rows: String = (0..40).map(|i| format!("{i},{long}\n")).collect();
    std::fs::write(f.root.join("data/long.csv"), format!("id,text\n{rows}")).unwrap();
    let a = t.call(
        "data",
        json!({"op": "select", "path": "data/long.csv", "limit": 40}),
        None,
    );
    assert_fits(&a);
    let kept = a["result"]["rows"].as_array().unwrap().len();
    assert!(kept > 0 && kept < 40, "{kept}");
    assert!(
        a["result"]["rows"][0][1].as_str().unwrap().len() == 3000,
        "rows are whole"
    );
    assert_eq!(a["result"]["has_more"], true);
    assert!(
        a["hint"]
            .as_str()
            .unwrap()
            .contains(&format!("offset={kept}")),
        "{}",
        a["hint"]
    );
    // A wide JSON object.
    let obj: serde_json::Map<String, Value> =
        (0..4000).map(|i| (format!("key_{i}"), json!(i))).collect();
    std::fs::write(
        f.root.join("data/wide.json"),
        Value::Object(obj).to_string(),
    )
    .unwrap();
    for args in [
        json!({"op": "inspect", "path": "data/wide.json"}),
        json!({"op": "select", "path": "data/wide.json"}),
    ] {
        let a = t.call("data", args.clone(), None);
        assert_fits(&a);
        assert_eq!(a["ok"], true, "{args}");
    }
    // Read: text that escapes to more than it reads.
    std::fs::write(f.root.join("data/quotes.txt"), "\"\u{1}\"\n".repeat(8000)).unwrap();
    let a = t.call("read", json!({"path": "data/quotes.txt"}), None);
    assert_fits(&a);
    assert!(a["result"]["next_offset"].as_u64().unwrap() > 0);
}

#[test]
fn a_session_budget_is_reserved_and_reconciled() {
    let f = fixture();
    let t = tools(&f).with_budget(Budget::limited(40 * 1024));
    let a = t.call(
        "data",
        json!({"op": "validate", "path": "data/people.csv"}),
        None,
    );
    assert_eq!(a["ok"], true);
    let a = t.call(
        "data",
        json!({"op": "validate", "path": "data/people.csv"}),
        None,
    );
    assert_eq!(a["ok"], true, "unused bytes came back after the first call");
    let t = tools(&f).with_budget(Budget::limited(100));
    let a = t.call(
        "data",
        json!({"op": "validate", "path": "data/people.csv"}),
        None,
    );
    assert!(a["error"]
        .as_str()
        .unwrap()
        .starts_with("data: validate refused (budget-exhausted): "));
}

#[test]
fn the_schema_is_generated_from_the_argument_types() {
    let f = fixture();
    let s = tools(&f).schema();
    let data = &s["data"]["input_schema"]["properties"];
    for field in [
        "op",
        "path",
        "format",
        "offset",
        "limit",
        "columns",
        "pointer",
        "header",
        "delimiter",
    ] {
        assert!(data.get(field).is_some(), "{field}");
    }
    // Every property is required, and each but the path may be null
    // (strict function calling's form of an optional field).
    assert_eq!(
        s["read"]["input_schema"]["required"],
        json!(["path", "offset", "limit", "encoding", "member"])
    );
    assert_eq!(
        s["read"]["input_schema"]["properties"]["path"]["type"],
        "string"
    );
    // Each reader option carries its declared type and who takes it.
    assert_eq!(data["columns"]["type"], json!(["array", "null"]));
    assert_eq!(
        data["header"]["enum"],
        json!(["auto", "true", "false", null])
    );
    assert!(data["pointer"]["description"]
        .as_str()
        .unwrap()
        .starts_with("json: "));
    assert_eq!(data["limit"]["type"], json!(["integer", "null"]));
    assert_eq!(s["data"]["input_schema"]["additionalProperties"], false);
    // The description names the registry's formats, and the remote
    // prefixes only when an opener allows some.
    let text = s["data"]["description"].as_str().unwrap();
    for name in plumb::Plumb::new().registry().names() {
        assert!(text.contains(name), "{name}: {text}");
    }
    assert!(!text.contains("URL"), "{text}");
    let opener = plumb_tool::RemoteOpener(std::sync::Arc::new(|_: &str, _| None));
    let allowed = ["s3://bucket/shared".to_owned()];
    let remote = tools(&f).with_remote(opener, &allowed);
    let text = remote.data_description();
    assert!(
        text.contains("URL") && text.contains("s3://bucket/shared"),
        "{text}"
    );
}

#[test]
fn a_cancelled_call_is_refused_aborted() {
    let f = fixture();
    let token = plumb_core::CancelToken::new();
    token.cancel();
    let a = tools(&f).call(
        "data",
        json!({"op": "inspect", "path": "data/people.csv"}),
        Some(token.clone()),
    );
    assert!(
        a["error"]
            .as_str()
            .unwrap()
            .starts_with("data: inspect refused (aborted): "),
        "{a}"
    );
    let a = tools(&f).call("read", json!({"path": "data/people.csv"}), Some(token));
    assert_eq!(a["refusal"]["reason"], "aborted", "{a}");
}

#[test]
fn the_tools_take_encoding_and_member_and_a_member_is_never_a_path() {
    let f = fixture();
    std::fs::write(f.root.join("data/latin.csv"), b"id,name\n1,Jos\xe9\n").unwrap();
    let t = tools(&f);
    let refused = t.call(
        "data",
        json!({"op": "select", "path": "data/latin.csv"}),
        None,
    );
    assert_eq!(refused["ok"], false);
    assert_eq!(refused["refusal"]["reason"], "invalid-utf8");
    assert_eq!(refused["refusal"]["suggested_encoding"], "windows-1252");
    let a = t.call(
        "data",
        json!({"op": "select", "path": "data/latin.csv", "encoding": "latin1"}),
        None,
    );
    assert_eq!(a["result"]["rows"], json!([["1", "José"]]));
    assert_eq!(a["result"]["encoding"], "windows-1252");
    let r = t.call(
        "read",
        json!({"path": "data/latin.csv", "encoding": "windows-1252"}),
        None,
    );
    assert_eq!(r["result"]["text"], "id,name\n1,José\n");
    // A member name that spells a path outside the root is a name in the
    // archive: a CSV is no archive, so it is refused as such, and nothing
    // outside is read.
    let m = t.call(
        "data",
        json!({"op": "select", "path": "data/people.csv", "member": "../../outside/secret.csv"}),
        None,
    );
    assert_eq!(m["ok"], false);
    assert_eq!(m["refusal"]["reason"], "invalid-argument");
    assert!(!m.to_string().contains(SECRET));
    let schema = plumb_tool::data_schema(&plumb::Registry::with_builtins());
    assert!(schema["properties"]["encoding"].is_object());
    assert!(schema["properties"]["member"].is_object());
}

#[test]
fn json_navigation_through_the_tool_with_a_jsonpath_repaired_and_said() {
    let f = fixture();
    std::fs::write(
        f.root.join("data/api.json"),
        r#"{"shapes": {"A": {"type": "s"}, "B": {"type": "l"}, "C": {"type": "m"}}, "items": [{"id": 1}, {"id": 2}]}"#,
    )
    .unwrap();
    let t = tools(&f);
    let a = t.call(
        "data",
        json!({"op": "select", "path": "data/api.json", "pointer": "$.items[*].id"}),
        None,
    );
    assert_eq!(
        a["result"]["items"],
        json!([{"pointer": "/items/0/id", "value": 1}, {"pointer": "/items/1/id", "value": 2}])
    );
    assert_eq!(
        a["details"]["repaired"][0],
        "the JSONPath `$.items[*].id` was read as the JSON Pointer `/items/*/id`"
    );
    let w = t.call(
        "data",
        json!({"op": "select", "path": "data/api.json", "pointer": "/shapes", "offset": 1, "limit": 1}),
        None,
    );
    assert_eq!(
        w["result"]["items"],
        json!([{"key": "B", "value": {"type": "l"}}])
    );
    assert_eq!(w["hint"], "more follows; continue with offset=2");
    let i = t.call(
        "data",
        json!({"op": "inspect", "path": "data/api.json", "pointer": "/shapes"}),
        None,
    );
    assert_eq!(i["result"]["pointer"], "/shapes");
    assert_eq!(i["result"]["outline"]["paths"][2]["path"], "/shapes/A/type");
    let bad = t.call(
        "data",
        json!({"op": "select", "path": "data/api.json", "pointer": "$..id"}),
        None,
    );
    assert_eq!(bad["refusal"]["reason"], "invalid-argument");
    assert!(bad["refusal"]["message"]
        .as_str()
        .unwrap()
        .contains("recursive descent"));
}

#[test]
fn statistics_through_the_tool_are_labelled_and_fit_the_envelope() {
    let f = fixture();
    let t = tools(&f);
    let a = t.call(
        "data",
        json!({"op": "inspect", "path": "data/people.csv", "stats": true}),
        None,
    );
    assert_eq!(a["ok"], true, "{a:#}");
    let temperature = &a["result"]["columns"][2]["stats"];
    assert_eq!(temperature["nulls"], 1);
    assert_eq!(temperature["numbers"]["sum"], 60.5);
    assert_eq!(temperature["accuracy"]["sum"], "exact");
    // The option is in the schema the agent sees, from its declaration.
    let schema = t.schema();
    let stats = &schema["data"]["input_schema"]["properties"]["stats"];
    assert_eq!(stats["type"], json!(["boolean", "null"]), "{stats:#}");

    // Forty wide columns of distinct values: statistics for each would
    // pass 32 KiB; the answer fits, keeps whole columns and says so.
    let header: Vec<String> = (0..40).map(|i| format!("column_{i}")).collect();
    let mut text = header.join(",") + "\n";
    for r in 0..200 {
        let row: Vec<String> = (0..40)
            .map(|c| format!("value {r} of {c} {}", "x".repeat(30)))
            .collect();
        text.push_str(&(row.join(",") + "\n"));
    }
    std::fs::write(f.root.join("data/stats.csv"), text).unwrap();
    let a = t.call(
        "data",
        json!({"op": "inspect", "path": "data/stats.csv", "stats": true}),
        None,
    );
    assert_fits(&a);
    assert_eq!(a["ok"], true);
    assert_eq!(a["details"]["view_label"], "cut");
    let kept = a["result"]["columns"].as_array().unwrap();
    assert!(!kept.is_empty() && kept.len() < 40);
    assert!(kept
        .iter()
        .all(|c| c["stats"]["accuracy"]["top"].is_object()));
}

#[test]
fn a_window_from_the_end_goes_on_by_a_smaller_negative_offset() {
    let f = fixture();
    let mut text = String::from("id,note\n");
    for i in 0..60_000 {
        text.push_str(&format!(
            "{i},\"row {i}, quoted, with words enough to fill a window\"\n"
        ));
    }
    assert!(
        text.len() > 1024 * 1024,
        "read backwards, not from the start"
    );
    std::fs::write(f.root.join("data/long.csv"), text).unwrap();
    let a = tools(&f).call(
        "data",
        json!({"op": "select", "path": "data/long.csv", "offset": -100, "limit": 3}),
        None,
    );
    assert_eq!(a["ok"], true, "{a}");
    assert_eq!(
        a["result"]["rows"][0],
        json!([
            "59900",
            "row 59900, quoted, with words enough to fill a window"
        ])
    );
    assert_eq!(a["result"]["counted_from_end"], true);
    assert_eq!(a["hint"], "more follows; continue with offset=-97");
    // Following the hint gives the next rows.
    let b = tools(&f).call(
        "data",
        json!({"op": "select", "path": "data/long.csv", "offset": -97, "limit": 1}),
        None,
    );
    assert_eq!(b["result"]["rows"][0][0], "59903");
    // A window too large for the observation is shortened, and its hint
    // still counts from the end.
    let c = tools(&f).call(
        "data",
        json!({"op": "select", "path": "data/long.csv", "offset": -1000, "limit": 1000}),
        None,
    );
    let kept = c["result"]["returned"].as_u64().unwrap();
    assert!(
        kept < 1000 && json_len(&c) <= OBSERVATION_CAP_BYTES,
        "{kept}"
    );
    assert_eq!(
        c["hint"].as_str().unwrap(),
        format!(
            "the window was shortened to {kept} of 1000 to fit the {OBSERVATION_CAP_BYTES}-byte observation; continue with offset=-{}",
            1000 - kept
        )
    );
    // The schema a client validates against admits it.
    let schema = plumb_tool::data_schema(plumb::Plumb::new().registry());
    assert_eq!(
        schema["properties"]["offset"]["type"],
        json!(["integer", "null"])
    );
    assert!(schema["properties"]["offset"].get("minimum").is_none());
    // A search takes one too: its last hits (here, the last row).
    let d = tools(&f).call(
        "data",
        json!({"op": "search", "path": "data/long.csv", "pattern": "row", "offset": -1}),
        None,
    );
    assert_eq!(d["ok"], true, "{d}");
    assert_eq!(d["result"]["hits"][0]["row"], 59_999, "{d}");
    assert_eq!(d["result"]["total"], 60_000);
}

#[test]
fn a_scan_stopped_by_its_byte_budget_is_sampled_and_says_how_to_go_on() {
    let f = fixture();
    let t = tools(&f);
    // people.csv: a 28-byte header, rows of 28 and 12 bytes: 70 hold two.
    let a = t.call(
        "data",
        json!({"op": "inspect", "path": "data/people.csv", "max_scan_bytes": 70}),
        None,
    );
    assert_eq!(a["details"]["view_label"], "sampled", "{a}");
    assert_eq!(a["result"]["rows_scanned"], 2);
    let hint = a["hint"].as_str().unwrap();
    assert!(
        hint.contains("max_scan_bytes=70") && hint.contains("larger max_scan_bytes"),
        "{hint}"
    );
    let v = t.call(
        "data",
        json!({"op": "validate", "path": "data/people.csv", "max_scan_bytes": 70}),
        None,
    );
    assert_eq!(v["result"]["valid"], Value::Null);
    let s = t.call(
        "data",
        json!({"op": "search", "path": "data/people.csv", "pattern": "dee", "max_scan_bytes": 70}),
        None,
    );
    assert_eq!(
        (
            s["counts"]["has_more"].clone(),
            s["result"]["next_offset"].clone()
        ),
        (json!(true), json!(2))
    );
    assert!(s["hint"].as_str().unwrap().contains("offset=2"), "{s}");
    // Left out, the agent's default budget holds: the small file is read whole.
    let whole = t.call(
        "data",
        json!({"op": "validate", "path": "data/people.csv"}),
        None,
    );
    assert_eq!(
        (
            whole["result"]["valid"].clone(),
            whole["details"]["view_label"].clone()
        ),
        (json!(true), json!("exact"))
    );
    // A select takes no budget, and is refused one as any option it does not take.
    let r = t.call(
        "data",
        json!({"op": "select", "path": "data/people.csv", "max_scan_bytes": 70}),
        None,
    );
    assert_eq!(r["refusal"]["reason"], "invalid-argument", "{r}");
}

#[test]
fn refusals_point_to_the_arguments_and_the_tool_that_answer() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.csv"), "id,amount\n1,5\n2,2000\n").unwrap();
    let t = Toolbox::new(Workspace::new(dir.path(), &[], &[]).unwrap());
    // A predicate that names its column: the arguments to send instead,
    // which then answer.
    let a = t.call(
        "data",
        json!({"op": "search", "path": "a.csv", "where": "amount > 1000"}),
        None,
    );
    let err = a["error"].as_str().unwrap();
    assert!(
        err.contains("give `amount` as the column") && err.contains("`> 1000`"),
        "{err}"
    );
    let a = t.call(
        "data",
        json!({"op": "search", "path": "a.csv", "column": "amount", "where": "> 1000"}),
        None,
    );
    assert_eq!(a["result"]["hits"][0]["row"], 1, "{a}");
    // A text that is no predicate at all is told the forms.
    let a = t.call(
        "data",
        json!({"op": "search", "path": "a.csv", "where": "big ones"}),
        None,
    );
    assert!(
        a["error"].as_str().unwrap().contains("is not a predicate"),
        "{a}"
    );
}
