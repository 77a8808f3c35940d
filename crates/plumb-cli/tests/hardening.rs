//! The built binary as a hostile caller drives it: `plumb tool` and
//! `plumb mcp` while names are swapped under them, malformed MCP lines,
//! oversized requests, closed pipes, and many inspects at once.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::Arc;
use std::time::{Duration, Instant};

use plumb_testkit::hostile::{swap_names, HostileTree};
use serde_json::{json, Value};

const SECRET: &str = "SECRET-OUTSIDE-OR-RESERVED";

/// A raw MCP session over the child's pipes, one JSON line each way.
struct Session {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<Vec<u8>>,
}

impl Session {
    fn start(root: &Path) -> Session {
        let mut child = Command::new(env!("CARGO_BIN_EXE_plumb"))
            .arg("mcp")
            .arg("--root")
            .arg(root)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut r = BufReader::new(stdout);
            loop {
                let mut line = Vec::new();
                match r.read_until(b'\n', &mut line) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        if tx.send(line).is_err() {
                            break;
                        }
                    }
                }
            }
        });
        let stdin = child.stdin.take();
        let mut s = Session {
            child,
            stdin,
            lines,
        };
        s.send_raw(
            json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18", "capabilities": {},
                "clientInfo": {"name": "hardening", "version": "1"}}})
            .to_string()
            .as_bytes(),
        );
        let init = s.recv();
        assert_eq!(init["id"], 0, "{init}");
        s.send_raw(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        s
    }

    fn send_raw(&mut self, line: &[u8]) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(line).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    fn recv_within(&self, wait: Duration) -> Option<Value> {
        match self.lines.recv_timeout(wait) {
            Ok(line) => Some(serde_json::from_slice(&line).unwrap()),
            Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => None,
        }
    }

    fn recv(&self) -> Value {
        self.recv_within(Duration::from_secs(20))
            .expect("no answer within 20 s")
    }

    fn call(&mut self, id: u64, tool: &str, args: Value) {
        self.send_raw(
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                   "params": {"name": tool, "arguments": args}})
            .to_string()
            .as_bytes(),
        );
    }

    /// Peak resident memory of the server, from /proc.
    fn peak_rss_kib(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap();
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmHWM:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .unwrap()
    }

    /// Closes stdin; the server must exit within `wait`.
    fn close_and_wait(mut self, wait: Duration) -> bool {
        drop(self.stdin.take());
        let until = Instant::now() + wait;
        while Instant::now() < until {
            if let Ok(Some(_)) = self.child.try_wait() {
                return true;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        false
    }
}

/// The hostile tree, plus `dir/f.csv` (benign) and the symlinks `out`
/// (to the outside folder) and `git` (to `.git`) that `dir` is swapped
/// with.
fn tree() -> HostileTree {
    let t = HostileTree::new(SECRET);
    std::fs::create_dir_all(t.root.join("dir")).unwrap();
    std::fs::write(t.root.join("dir/f.csv"), "k,v\nbenign,0\n").unwrap();
    std::os::unix::fs::symlink(&t.outside, t.root.join("out")).unwrap();
    std::os::unix::fs::symlink(".git", t.root.join("git")).unwrap();
    t
}

/// Swaps `dir` with the symlinks `out` and `git` in turn until stopped.
fn swapper(root: PathBuf, stop: Arc<AtomicBool>) -> std::thread::JoinHandle<usize> {
    let dir = root.join("dir");
    swap_names(
        vec![(dir.clone(), root.join("out")), (dir, root.join("git"))],
        stop,
    )
}

#[test]
fn plumb_tool_under_a_swap_race_leaks_nothing() {
    let t = tree();
    let stop = Arc::new(AtomicBool::new(false));
    let swaps = swapper(t.root.clone(), stop.clone());
    let until = Instant::now() + Duration::from_secs(3);
    let (mut calls, mut leaks, mut oks) = (0usize, 0, 0);
    while Instant::now() < until {
        let call = if calls.is_multiple_of(2) {
            json!({"tool": "read", "args": {"path": "dir/f.csv"}})
        } else {
            json!({"tool": "data", "args": {"op": "select", "path": "dir/f.csv"}})
        };
        let mut child = Command::new(env!("CARGO_BIN_EXE_plumb"))
            .arg("tool")
            .arg("--root")
            .arg(&t.root)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(call.to_string().as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        calls += 1;
        leaks += usize::from(text.contains(SECRET));
        oks += usize::from(text.contains("benign"));
    }
    stop.store(true, Ordering::Relaxed);
    let swaps = swaps.join().unwrap();
    eprintln!("plumb tool race: {calls} calls, {swaps} swaps, {oks} answered, {leaks} leaks");
    assert!(calls > 20 && swaps > 100, "{calls} calls, {swaps} swaps");
    assert!(oks > 0, "the benign file was never read");
    assert_eq!(leaks, 0, "{leaks} of {calls} calls leaked");
}

#[test]
fn the_mcp_server_under_a_swap_race_leaks_nothing() {
    let t = tree();
    let mut s = Session::start(&t.root);
    let stop = Arc::new(AtomicBool::new(false));
    let swaps = swapper(t.root.clone(), stop.clone());
    let until = Instant::now() + Duration::from_secs(3);
    let (mut calls, mut leaks, mut oks) = (0u64, 0, 0);
    while Instant::now() < until {
        calls += 1;
        if calls.is_multiple_of(2) {
            s.call(calls, "read", json!({"path": "dir/f.csv"}));
        } else {
            s.call(calls, "data", json!({"op": "select", "path": "dir/f.csv"}));
        }
        let a = s.recv();
        assert_eq!(a["id"], calls);
        let text = a.to_string();
        leaks += usize::from(text.contains(SECRET));
        oks += usize::from(text.contains("benign"));
    }
    stop.store(true, Ordering::Relaxed);
    let swaps = swaps.join().unwrap();
    eprintln!("plumb mcp race: {calls} calls, {swaps} swaps, {oks} answered, {leaks} leaks");
    assert!(calls > 100 && swaps > 100, "{calls} calls, {swaps} swaps");
    assert!(oks > 0);
    assert_eq!(leaks, 0, "{leaks} of {calls} calls leaked");
    assert!(s.close_and_wait(Duration::from_secs(5)));
}

#[test]
fn every_malformed_line_gets_an_error_with_its_id() {
    let t = tree();
    let mut s = Session::start(&t.root);
    let cases: Vec<(Vec<u8>, Value, i64)> = vec![
        (b"not json".to_vec(), Value::Null, -32700),
        (b"".to_vec(), Value::Null, -32700),
        (b"\xff\xfe\xfd".to_vec(), Value::Null, -32700),
        (b"[1, 2]".to_vec(), Value::Null, -32600),
        (br#"{"jsonrpc":"2.0","id":11}"#.to_vec(), json!(11), -32600),
        (
            br#"{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"data"}}"#
                .to_vec(),
            json!(12),
            -32602,
        ),
        (
            br#"{"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"name":"data","arguments":[1]}}"#
                .to_vec(),
            json!(13),
            -32602,
        ),
        (
            br#"{"jsonrpc":"2.0","id":14,"method":"initialize","params":{}}"#.to_vec(),
            json!(14),
            -32600,
        ),
        (
            format!(
                r#"{{"jsonrpc":"2.0","id":15,"method":"tools/call","params":{{"name":"read","arguments":{{"path":"{}"}}}}}}"#,
                "a".repeat(16 << 20)
            )
            .into_bytes(),
            json!(15),
            -32600,
        ),
    ];
    for (line, id, code) in cases {
        s.send_raw(&line);
        let a = s.recv_within(Duration::from_secs(10)).unwrap_or_else(|| {
            panic!(
                "no answer to {:?}",
                String::from_utf8_lossy(&line[..line.len().min(80)])
            )
        });
        assert_eq!(a["id"], id, "{a}");
        assert_eq!(a["error"]["code"], code, "{a}");
        assert!(a.to_string().len() < 32 * 1024);
    }
    // The session still works after all of that.
    s.call(99, "read", json!({"path": "dir/f.csv"}));
    let a = s.recv();
    assert_eq!(a["id"], 99);
    assert_eq!(a["result"]["isError"], false, "{a}");
    assert!(s.close_and_wait(Duration::from_secs(5)));
}

#[test]
fn the_server_exits_when_its_output_closes() {
    let t = tree();
    let mut child = Command::new(env!("CARGO_BIN_EXE_plumb"))
        .arg("mcp")
        .arg("--root")
        .arg(&t.root)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let mut stdin = child.stdin.take().unwrap();
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "x", "version": "1"}}});
    let _ = writeln!(stdin, "{init}");
    let _ = writeln!(stdin, "not json");
    let until = Instant::now() + Duration::from_secs(5);
    let mut exited = false;
    while Instant::now() < until {
        if child.try_wait().unwrap().is_some() {
            exited = true;
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    let _ = child.wait();
    assert!(exited, "the server kept running with its stdout closed");
}

#[test]
fn fifty_concurrent_wide_inspects_stay_within_a_bound() {
    let dir = tempfile::tempdir().unwrap();
    let cols = 10_000;
    let header: Vec<String> = (0..cols).map(|i| format!("c{i}")).collect();
    let row: Vec<String> = (0..cols).map(|i| (i % 7).to_string()).collect();
    std::fs::write(
        dir.path().join("wide.csv"),
        format!(
            "{}\n{}\n{}\n",
            header.join(","),
            row.join(","),
            row.join(",")
        ),
    )
    .unwrap();
    let mut s = Session::start(dir.path());
    for id in 1..=50u64 {
        s.call(id, "data", json!({"op": "inspect", "path": "wide.csv"}));
    }
    let mut answered = std::collections::BTreeSet::new();
    for _ in 0..50 {
        let a = s.recv();
        assert_eq!(a["result"]["isError"], false, "{a}");
        let observation = &a["result"]["structuredContent"];
        assert_eq!(observation["details"]["view_label"], "cut");
        assert!(observation["result"]["columns"].as_array().unwrap().len() > 10);
        answered.insert(a["id"].as_u64().unwrap());
    }
    assert_eq!(answered.len(), 50);
    let peak = s.peak_rss_kib();
    eprintln!("50 concurrent wide inspects: peak RSS {peak} KiB");
    // MAX_CONCURRENT_SCANS scans of about 40 MiB each at most, plus the
    // runtime; unbounded, fifty at once took over 3 GiB.
    assert!(peak < 300 * 1024, "peak RSS {peak} KiB");
    assert!(s.close_and_wait(Duration::from_secs(5)));
}

/// A dependency's panic, caught and answered as a refusal, is one line on
/// stderr, even with RUST_BACKTRACE set: no backtrace in a host's log.
#[test]
fn a_caught_panic_is_one_line_on_stderr() {
    let dir = tempfile::tempdir().unwrap();
    // An xlsb whose shared strings begin with a BrtBeginSst record too
    // short for the count calamine slices out of it.
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let stored =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    for (name, bytes) in [
        ("[Content_Types].xml", &b"<Types/>"[..]),
        ("xl/_rels/workbook.bin.rels", b"<Relationships/>"),
        ("xl/workbook.bin", b""),
        ("xl/sharedStrings.bin", &[0x9F, 0x01, 0x00]),
    ] {
        zip.start_file(name, stored).unwrap();
        zip.write_all(bytes).unwrap();
    }
    std::fs::write(
        dir.path().join("p.xlsb"),
        zip.finish().unwrap().into_inner(),
    )
    .unwrap();
    for args in [vec!["inspect", "p.xlsb"], vec!["tool", "--root", "."]] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_plumb"))
            .args(&args)
            .current_dir(dir.path())
            .env("RUST_BACKTRACE", "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // `inspect` never reads its stdin and may have exited before the
        // call is written: a closed pipe there is no fault.
        let _ = child
            .stdin
            .take()
            .unwrap()
            .write_all(br#"{"tool":"data","args":{"op":"inspect","path":"p.xlsb"}}"#);
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        let stdout = String::from_utf8_lossy(&out.stdout);
        let panics: Vec<&str> = err
            .lines()
            .filter(|l| l.starts_with("plumb: panic"))
            .collect();
        assert_eq!(panics.len(), 1, "{args:?}: {err}");
        assert!(!err.contains("stack backtrace"), "{args:?}: {err}");
        assert!(
            format!("{stdout}{err}").contains("invalid-data"),
            "{args:?}: the panic is answered as a refusal: {stdout} {err}"
        );
    }
}
