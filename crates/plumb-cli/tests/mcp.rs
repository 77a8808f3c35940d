//! An MCP session driven by the official Rust SDK's client against the
//! built `plumb mcp`: list tools, call data and read, a refusal as an
//! error result, a repaired argument.

use rmcp::model::CallToolRequestParams;
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use rmcp::ServiceExt;
use serde_json::{json, Map, Value};
use std::path::Path;

fn args(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => Map::new(),
    }
}

#[tokio::test]
async fn an_mcp_session_over_stdio() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("people.csv"),
        "id,name\n1,ann\n2,bob\n3,cy\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("notes.md"), "# Notes\nline two\n").unwrap();
    let parquet = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/data/people.parquet");
    std::fs::copy(parquet, dir.path().join("people.parquet")).unwrap();
    let xlsx = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/data/people.xlsx");
    std::fs::copy(xlsx, dir.path().join("people.xlsx")).unwrap();
    let root = dir.path().to_path_buf();
    let transport = TokioChildProcess::new(
        tokio::process::Command::new(env!("CARGO_BIN_EXE_plumb")).configure(|cmd| {
            cmd.arg("mcp").arg("--root").arg(&root);
        }),
    )
    .unwrap();
    let client = ().serve(transport).await.unwrap();

    let tools = client.list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(names, ["data", "read"]);
    // The description names what this build reads, Parquet and workbooks
    // included, and no remote prefix: none was allowed.
    let data = tools[0].description.as_deref().unwrap_or_default();
    for format in ["csv", "jsonl", "parquet", "xlsx", "ods"] {
        assert!(data.contains(format), "{format}: {data}");
    }
    assert!(!data.contains("URL"), "{data}");
    for t in &tools {
        // Every annotation is set, and the title too: no remote prefix
        // was allowed, so the world is closed.
        let a = t.annotations.as_ref().unwrap();
        assert_eq!(
            (
                a.read_only_hint,
                a.destructive_hint,
                a.idempotent_hint,
                a.open_world_hint
            ),
            (Some(true), Some(false), Some(true), Some(false)),
            "{}",
            t.name
        );
        assert!(t.title.as_deref().is_some_and(|x| !x.is_empty()));
        assert_eq!(a.title, t.title);
        assert!(t.output_schema.is_some());
        assert!(t.input_schema.get("properties").is_some());
    }
    // The instructions are made from the registry: every format this
    // build reads, and the containers.
    let info = client.peer_info().unwrap();
    let instructions = info.instructions.as_deref().unwrap_or_default();
    for name in [
        "csv", "tsv", "json", "jsonl", "parquet", "xlsx", "ods", "gzip", "zstd",
    ] {
        assert!(instructions.contains(name), "{name}: {instructions}");
    }

    // The workspace's files are resources, each with its size and
    // detected format; reading one gives its inspect answer.
    let resources = client.list_all_resources().await.unwrap();
    let listed: Vec<(&str, Option<u64>, Option<&str>)> = resources
        .iter()
        .map(|r| (r.name.as_str(), r.size, r.mime_type.as_deref()))
        .collect();
    let size = |name: &str| std::fs::metadata(dir.path().join(name)).unwrap().len();
    assert_eq!(
        listed,
        [
            ("notes.md", Some(size("notes.md")), Some("text/plain")),
            ("people.csv", Some(size("people.csv")), Some("text/csv")),
            (
                "people.parquet",
                Some(size("people.parquet")),
                Some("application/vnd.apache.parquet")
            ),
            (
                "people.xlsx",
                Some(size("people.xlsx")),
                Some("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet")
            ),
        ]
    );
    assert_eq!(resources[1].uri, "plumb://inspect/people.csv");
    let read = client
        .read_resource(rmcp::model::ReadResourceRequestParams::new(
            "plumb://inspect/people.csv",
        ))
        .await
        .unwrap();
    let rmcp::model::ResourceContents::TextResourceContents { text, .. } = &read.contents[0] else {
        panic!("{read:?}")
    };
    let inspected: Value = serde_json::from_str(text).unwrap();
    assert_eq!(inspected["result"]["row_count"], 3, "{inspected}");
    let templates = client.list_all_resource_templates().await.unwrap();
    let uris: Vec<&str> = templates.iter().map(|t| t.uri_template.as_str()).collect();
    assert_eq!(uris, ["plumb://inspect/{+path}", "plumb://read/{+path}"]);
    let refused = client
        .read_resource(rmcp::model::ReadResourceRequestParams::new(
            "plumb://inspect/..%2Fescape.csv",
        ))
        .await;
    assert!(refused.is_err(), "{refused:?}");

    let r = client
        .call_tool(
            CallToolRequestParams::new("data").with_arguments(args(json!({
                "op": "select", "path": "people.csv", "limit": 2
            }))),
        )
        .await
        .unwrap();
    assert_eq!(r.is_error, Some(false));
    let s = r.structured_content.unwrap();
    assert_eq!(s["result"]["rows"], json!([["1", "ann"], ["2", "bob"]]));
    assert_eq!(s["hint"], "more follows; continue with offset=2");
    // A small observation is also its text, whole.
    let text = r.content[0].as_text().unwrap().text.clone();
    assert_eq!(serde_json::from_str::<Value>(&text).unwrap(), s);

    // A large one travels whole once: its text is a summary of it.
    let wide: String = std::iter::once("n,text\n".to_owned())
        .chain((0..400).map(|i| format!("{i},{}\n", "w".repeat(60))))
        .collect();
    std::fs::write(dir.path().join("wide.csv"), wide).unwrap();
    let r = client
        .call_tool(
            CallToolRequestParams::new("data").with_arguments(args(json!({
                "op": "select", "path": "wide.csv", "limit": 200
            }))),
        )
        .await
        .unwrap();
    let s = r.structured_content.unwrap();
    assert_eq!(s["result"]["rows"].as_array().unwrap().len(), 200);
    let text = r.content[0].as_text().unwrap().text.clone();
    let whole = s.to_string().len();
    assert!(text.len() * 4 < whole, "{} of {whole}: {text}", text.len());
    let summary: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(summary["ok"], true, "{summary}");
    assert!(summary["summary"]
        .as_str()
        .unwrap()
        .contains("structuredContent"));

    // Parquet, registered by the binary: a window from the end, and
    // its columns through the shared `columns` option.
    let r = client
        .call_tool(
            CallToolRequestParams::new("data").with_arguments(args(json!({
                "op": "select", "path": "people.parquet", "offset": -2, "columns": ["name", "id"]
            }))),
        )
        .await
        .unwrap();
    assert_eq!(r.is_error, Some(false), "{r:?}");
    let s = r.structured_content.unwrap();
    assert_eq!(s["result"]["format"], "parquet");
    assert_eq!(
        s["result"]["rows"],
        json!([{"name": "Dee", "id": 4}, {"name": "Eve", "id": 5}])
    );

    // The last hits of a Parquet search.
    let r = client
        .call_tool(
            CallToolRequestParams::new("data").with_arguments(args(json!({
                "op": "search", "path": "people.parquet", "column": "id", "where": "> 0", "offset": -2
            }))),
        )
        .await
        .unwrap();
    let s = r.structured_content.unwrap();
    let rows: Vec<&Value> = s["result"]["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| &h["row"])
        .collect();
    assert_eq!(rows, [3, 4], "{s}");
    assert_eq!(s["result"]["total"], 5);

    let r = client
        .call_tool(
            CallToolRequestParams::new("data").with_arguments(args(json!({
                "op": "select", "path": "people.xlsx", "sheet": "people", "offset": -1, "columns": ["name", "joined"]
            }))),
        )
        .await
        .unwrap();
    assert_eq!(r.is_error, Some(false), "{r:?}");
    let s = r.structured_content.unwrap();
    assert_eq!(s["result"]["format"], "xlsx");
    assert_eq!(s["result"]["rows"], json!([["Eve", "2024-05-30"]]));

    let r = client
        .call_tool(
            CallToolRequestParams::new("read")
                .with_arguments(args(json!({"path": "notes.md", "offset": 1}))),
        )
        .await
        .unwrap();
    assert_eq!(
        r.structured_content.unwrap()["result"]["text"],
        "line two\n"
    );

    // A read of a Parquet file is pointed at the data tool, which reads
    // it (the binary registers the Parquet reader).
    let r = client
        .call_tool(
            CallToolRequestParams::new("read")
                .with_arguments(args(json!({"path": "people.parquet"}))),
        )
        .await
        .unwrap();
    let s = r.structured_content.unwrap();
    assert_eq!(s["refusal"]["reason"], "binary", "{s}");
    assert_eq!(s["refusal"]["format"], "parquet", "{s}");
    assert!(
        s["error"].as_str().unwrap().contains("the `data` tool"),
        "{s}"
    );

    // A refusal is an error result carrying the typed refusal.
    let r = client
        .call_tool(
            CallToolRequestParams::new("data").with_arguments(args(json!({
                "op": "inspect", "path": "../../etc/passwd"
            }))),
        )
        .await
        .unwrap();
    assert_eq!(r.is_error, Some(true));
    let s = r.structured_content.unwrap();
    assert_eq!(s["refusal"]["reason"], "outside-root");
    assert!(s["error"]
        .as_str()
        .unwrap()
        .starts_with("data: inspect refused (outside-root): "));

    // A weak caller's arguments are repaired.
    let r = client
        .call_tool(
            CallToolRequestParams::new("data").with_arguments(args(json!({
                "op": "select", "file": "people.csv", "offset": "2", "limit": "5", "columns": "name"
            }))),
        )
        .await
        .unwrap();
    assert_eq!(r.is_error, Some(false));
    assert_eq!(
        r.structured_content.unwrap()["result"]["rows"],
        json!([["cy"]])
    );

    // search: a CSV predicate, a JSON Lines field, a text pattern, each
    // with where to continue.
    std::fs::write(
        dir.path().join("events.jsonl"),
        "{\"user\": {\"id\": 42}}\n{\"user\": {\"id\": 7}}\n{\"user\": {\"id\": 42}}\n",
    )
    .unwrap();
    let search = |a: Value| {
        let client = &client;
        async move {
            let r = client
                .call_tool(CallToolRequestParams::new("data").with_arguments(args(a)))
                .await
                .unwrap();
            assert_eq!(r.is_error, Some(false));
            r.structured_content.unwrap()
        }
    };
    let s = search(
        json!({"op": "search", "path": "people.csv", "column": "name", "where": "> b", "limit": 1}),
    )
    .await;
    assert_eq!(s["result"]["hits"][0]["row"], 1);
    assert_eq!(s["result"]["next_offset"], 2);
    assert_eq!(
        s["hint"],
        "more hits follow; search again with the same arguments and offset=2"
    );
    let s = search(json!({"op": "search", "path": "events.jsonl", "field": "/user/id", "where": "= 42", "offset": 1})).await;
    assert_eq!(s["result"]["hits"][0]["record"], 2);
    assert_eq!(
        (
            s["result"]["total"].clone(),
            s["result"]["total_exact"].clone()
        ),
        (json!(1), json!(true))
    );
    let s =
        search(json!({"op": "search", "path": "notes.md", "pattern": "TWO", "ignore_case": true}))
            .await;
    assert_eq!(s["details"]["format"], "text");
    assert_eq!(s["result"]["hits"][0]["line"], 2);
    // A spreadsheet's rows by a column, with the row to continue from.
    let mut wb = rust_xlsxwriter::Workbook::new();
    let sheet = wb.add_worksheet();
    for (r, (name, n)) in [("name", 0.0), ("ann", 3.0), ("bo", 9.0), ("cy", 12.0)]
        .iter()
        .enumerate()
    {
        sheet.write(r as u32, 0, *name).unwrap();
        if r > 0 {
            sheet.write(r as u32, 1, *n).unwrap();
        } else {
            sheet.write(0, 1, "n").unwrap();
        }
    }
    wb.save(dir.path().join("book.xlsx")).unwrap();
    let s = search(
        json!({"op": "search", "path": "book.xlsx", "column": "n", "where": ">= 9", "limit": 1}),
    )
    .await;
    assert_eq!(s["details"]["format"], "xlsx");
    assert_eq!(s["result"]["hits"][0]["values"], json!(["bo", 9]));
    assert_eq!(s["result"]["next_offset"], 2);

    client.cancel().await.unwrap();
}

/// A call the client abandons is cancelled on the server (the scan's
/// token fires); the server stays up and answers the next call.
#[tokio::test]
async fn an_abandoned_call_does_not_wedge_the_server() {
    let dir = tempfile::tempdir().unwrap();
    let big: String = (0..400_000)
        .map(|i| format!("{i},name {i},{}.5\n", i % 97))
        .collect();
    std::fs::write(dir.path().join("big.csv"), format!("id,name,v\n{big}")).unwrap();
    std::fs::write(dir.path().join("small.csv"), "a,b\n1,2\n").unwrap();
    let root = dir.path().to_path_buf();
    let transport = TokioChildProcess::new(
        tokio::process::Command::new(env!("CARGO_BIN_EXE_plumb")).configure(|cmd| {
            cmd.arg("mcp").arg("--root").arg(&root);
        }),
    )
    .unwrap();
    let client = ().serve(transport).await.unwrap();
    let slow = client.call_tool(
        CallToolRequestParams::new("data")
            .with_arguments(args(json!({"op": "inspect", "path": "big.csv"}))),
    );
    // Give up on it almost at once: the future is dropped, the client
    // sends notifications/cancelled.
    let _ = tokio::time::timeout(std::time::Duration::from_millis(5), slow).await;
    let r = client
        .call_tool(
            CallToolRequestParams::new("data")
                .with_arguments(args(json!({"op": "validate", "path": "small.csv"}))),
        )
        .await
        .unwrap();
    assert_eq!(r.structured_content.unwrap()["result"]["valid"], true);
    client.cancel().await.unwrap();
}

/// Files that declare far more than they hold, each one call to a server
/// run under an address-space limit (so a bomb ends the server, and this
/// test, rather than the machine): each call gets a typed refusal, the
/// server answers the next call, and it exits promptly when the client
/// leaves.
#[tokio::test]
async fn hostile_files_get_refusals_and_the_server_answers_the_next_call() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("small.csv"), "a,b\n1,2\n").unwrap();
    // An xlsx declaring 10^14 shared strings (calamine reserves by it).
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for (name, text) in [
        ("[Content_Types].xml", "<Types/>"),
        ("xl/workbook.xml", "<workbook xmlns:r=\"r\"><sheets><sheet name=\"S\" sheetId=\"1\" r:id=\"rId1\"/></sheets></workbook>"),
        ("xl/_rels/workbook.xml.rels", "<Relationships><Relationship Id=\"rId1\" Type=\"worksheet\" Target=\"worksheets/sheet1.xml\"/></Relationships>"),
        ("xl/worksheets/sheet1.xml", "<worksheet><sheetData/></worksheet>"),
        ("xl/sharedStrings.xml", "<sst uniqueCount=\"99999999999999\"><si><t>a</t></si></sst>"),
    ] {
        zip.start_file(name, zip::write::SimpleFileOptions::default())
            .unwrap();
        zip.write_all(text.as_bytes()).unwrap();
    }
    std::fs::write(
        dir.path().join("strings.xlsx"),
        zip.finish().unwrap().into_inner(),
    )
    .unwrap();
    // A Parquet schema nested 10,000 deep (a stack, recursively walked).
    std::fs::write(
        dir.path().join("nested.parquet"),
        plumb_testkit::parquet::nested_schema_file(10_000),
    )
    .unwrap();
    let root = dir.path().to_path_buf();
    let transport = TokioChildProcess::new(tokio::process::Command::new("sh").configure(|cmd| {
        cmd.arg("-c")
            .arg("ulimit -v 4194304; exec \"$0\" mcp --root \"$1\"")
            .arg(env!("CARGO_BIN_EXE_plumb"))
            .arg(&root);
    }))
    .unwrap();
    let client = ().serve(transport).await.unwrap();
    for (path, reason) in [
        ("strings.xlsx", "selection-too-large"),
        ("nested.parquet", "nesting-too-deep"),
    ] {
        for op in ["inspect", "select", "validate"] {
            let r = client
                .call_tool(
                    CallToolRequestParams::new("data")
                        .with_arguments(args(json!({"op": op, "path": path}))),
                )
                .await
                .unwrap();
            let s = r.structured_content.unwrap();
            // validate answers a file that does not open as invalid.
            if op == "validate" && s["ok"] == true {
                assert_eq!(s["result"]["valid"], false, "{path}: {s}");
            } else {
                assert_eq!(s["refusal"]["reason"], reason, "{path} {op}: {s}");
            }
            let next = client
                .call_tool(
                    CallToolRequestParams::new("data")
                        .with_arguments(args(json!({"op": "validate", "path": "small.csv"}))),
                )
                .await
                .unwrap();
            assert_eq!(next.structured_content.unwrap()["result"]["valid"], true);
        }
    }
    let left = std::time::Instant::now();
    client.cancel().await.unwrap();
    assert!(
        left.elapsed() < std::time::Duration::from_secs(5),
        "{:?}",
        left.elapsed()
    );
}

/// A client that cancels a call and closes its input: the cancelled call
/// is no longer waited for, so the server exits at once rather than after
/// its drain wait (`DRAIN_WAIT`, for calls still owed an answer).
#[test]
fn the_server_exits_at_once_when_input_closes_after_a_cancel() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let big: String = (0..400_000)
        .map(|i| format!("{i},name {i},{}.5\n", i % 97))
        .collect();
    std::fs::write(dir.path().join("big.csv"), format!("id,name,v\n{big}")).unwrap();
    let mut child = spawn_raw(dir.path());
    let mut stdin = child.stdin.take().unwrap();
    let lines = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "data", "arguments": {"op": "inspect", "path": "big.csv", "stats": true}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 2}}),
    ];
    for line in lines {
        writeln!(stdin, "{line}").unwrap();
    }
    let closed = std::time::Instant::now();
    drop(stdin);
    // Read the output to its end so the server never blocks writing it.
    let mut out = String::new();
    std::io::Read::read_to_string(&mut child.stdout.take().unwrap(), &mut out).unwrap();
    let status = child.wait().unwrap();
    let took = closed.elapsed();
    assert!(status.success(), "{status:?}");
    assert!(
        took < std::time::Duration::from_secs(10),
        "the server took {took:?} to exit; its output: {out}"
    );
    // The initialize was answered.
    assert!(out.lines().any(|l| l.contains("\"id\":1")), "{out}");
}

/// A call that gives a progress token is told, as its scan runs, how many
/// bytes of the file it has read of how many: rising, never past the
/// file's size, under its own token; a call that gives none is told
/// nothing. Spoken as raw JSON-RPC: the Rust client gives every request
/// a token of its own.
#[test]
fn a_long_scan_reports_progress_to_a_caller_that_asks() {
    use std::io::{BufRead, Write};
    let dir = tempfile::tempdir().unwrap();
    let big: String = (0..3_000_000)
        .map(|i| format!("{i},name {i},{}.5\n", i % 97))
        .collect();
    std::fs::write(dir.path().join("big.csv"), format!("id,name,v\n{big}")).unwrap();
    let size = std::fs::metadata(dir.path().join("big.csv")).unwrap().len();
    let mut child = spawn_raw(dir.path());
    let mut stdin = child.stdin.take().unwrap();
    let mut out = std::io::BufReader::new(child.stdout.take().unwrap());
    let call = |id: u64, token: Option<&str>| {
        let mut params = json!({"name": "data", "arguments": {
            "op": "inspect", "path": "big.csv", "stats": true, "threads": 1}});
        if let Some(t) = token {
            params["_meta"] = json!({"progressToken": t});
        }
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
    };
    // Sends a line, then reads until the answer to `id`, keeping the
    // progress notifications seen on the way.
    let mut ask = |line: Value, id: Option<u64>| -> Vec<Value> {
        writeln!(stdin, "{line}").unwrap();
        let mut notes = Vec::new();
        let Some(id) = id else {
            return notes;
        };
        loop {
            let mut text = String::new();
            assert!(out.read_line(&mut text).unwrap() > 0, "the server ended");
            let v: Value = serde_json::from_str(&text).unwrap();
            if v["method"] == "notifications/progress" {
                notes.push(v["params"].clone());
            } else if v["id"] == id {
                assert!(v.get("error").is_none(), "{v}");
                return notes;
            }
        }
    };
    ask(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"}}}),
        Some(1),
    );
    ask(
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        None,
    );
    assert_eq!(ask(call(2, None), Some(2)), Vec::<Value>::new());
    let started = std::time::Instant::now();
    let notes = ask(call(3, Some("scan-7")), Some(3));
    let took = started.elapsed();
    // At least the first tick's, and at most one per interval.
    assert!(!notes.is_empty(), "no progress in {took:?}");
    let most = took.as_millis() / plumb_tool::PROGRESS_INTERVAL.as_millis() + 2;
    assert!(
        notes.len() as u128 <= most,
        "{} notes in {took:?}",
        notes.len()
    );
    let mut last = 0.0;
    for n in &notes {
        assert_eq!(n["progressToken"], "scan-7");
        assert_eq!(n["total"].as_f64(), Some(size as f64));
        let p = n["progress"].as_f64().unwrap();
        assert!(p > last && p <= size as f64, "{notes:?}");
        last = p;
    }
    drop(stdin);
    assert!(child.wait().unwrap().success());
}

/// `plumb mcp --root root`, to be spoken to as raw JSON-RPC lines on its
/// standard input and output.
fn spawn_raw(root: &Path) -> std::process::Child {
    std::process::Command::new(env!("CARGO_BIN_EXE_plumb"))
        .arg("mcp")
        .arg("--root")
        .arg(root)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap()
}

/// Every line `plumb mcp --root root` answers to `lines`, written at
/// once before its input closes.
fn raw_session(root: &Path, lines: &[Value]) -> Vec<Value> {
    use std::io::Write;
    let mut child = spawn_raw(root);
    let mut stdin = child.stdin.take().unwrap();
    for line in lines {
        writeln!(stdin, "{line}").unwrap();
    }
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Each protocol revision a client may speak: the four with a handshake
/// are answered in their own revision, and 2026-07-28, which has none,
/// by requests that carry their revision in `_meta` (an `initialize`
/// naming it gets the newest revision that has one).
#[test]
fn every_protocol_revision_is_spoken() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("p.csv"), "id,name\n1,ann\n").unwrap();
    let initialize = |v: &str| {
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": v, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
    };
    let list_call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "data", "arguments": {"op": "list", "path": "."}}});
    for v in ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"] {
        let out = raw_session(
            dir.path(),
            &[
                initialize(v),
                json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
                list_call.clone(),
            ],
        );
        assert_eq!(out[0]["result"]["protocolVersion"], v, "{out:?}");
        let listed = &out[1]["result"]["structuredContent"]["result"]["entries"][0]["name"];
        assert_eq!(listed, "p.csv", "{v}: {out:?}");
    }
    let out = raw_session(dir.path(), &[initialize("2026-07-28")]);
    assert_eq!(out[0]["result"]["protocolVersion"], "2025-11-25", "{out:?}");
    // No handshake: each request says its revision and its client.
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    let mut out = raw_session(
        dir.path(),
        &[
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta}}),
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
                "name": "data", "arguments": {"op": "list", "path": "."}, "_meta": meta}}),
        ],
    );
    // The two requests run at once: their answers come in any order.
    out.sort_by_key(|v| v["id"].as_u64());
    let tools: Vec<&str> = out[0]["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(tools, ["data", "read"], "{out:?}");
    assert_eq!(out[0]["result"]["resultType"], "complete");
    assert_eq!(
        out[1]["result"]["structuredContent"]["result"]["entries"][0]["name"], "p.csv",
        "{out:?}"
    );
}
