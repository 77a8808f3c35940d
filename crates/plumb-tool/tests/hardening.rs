//! The agent surface as a hostile caller sees it: names swapped under a
//! running call, pipes in place of files, reserved names at any depth,
//! echoes of huge inputs, rows larger than an answer, oversized calls.
//! Each test reproduces an observed failure of the check-then-open
//! design and holds the fix to it.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use plumb_testkit::hostile::{swap_names, HostileTree};
use plumb_tool::{json_len, Toolbox, Workspace, OBSERVATION_CAP_BYTES, TOOL_CALL_MAX_BYTES};
use serde_json::{json, Value};

const SECRET: &str = "SECRET-OUTSIDE-OR-RESERVED";

fn tree() -> HostileTree {
    HostileTree::new(SECRET)
}

fn toolbox(root: &Path) -> Toolbox {
    Toolbox::new(Workspace::new(root, &[], &[]).unwrap())
}

/// Swaps two names atomically until told to stop; counts the swaps.
fn swapper(a: PathBuf, b: PathBuf, stop: Arc<AtomicBool>) -> std::thread::JoinHandle<usize> {
    swap_names(vec![(a, b)], stop)
}

/// Calls `read` and `data` on `asked` from two threads for `secs`
/// seconds while names are swapped; returns (calls, leaks, successes).
fn hammer(tools: &Toolbox, asked: &str, secs: f64) -> (usize, usize, usize) {
    let calls = AtomicUsize::new(0);
    let leaks = AtomicUsize::new(0);
    let oks = AtomicUsize::new(0);
    let until = Instant::now() + Duration::from_secs_f64(secs);
    std::thread::scope(|s| {
        for t in 0..2 {
            let (calls, leaks, oks) = (&calls, &leaks, &oks);
            s.spawn(move || {
                while Instant::now() < until {
                    let a = if t == 0 {
                        tools.call("read", json!({"path": asked}), None)
                    } else {
                        tools.call("data", json!({"op": "select", "path": asked}), None)
                    };
                    calls.fetch_add(1, Ordering::Relaxed);
                    if a.to_string().contains(SECRET) {
                        leaks.fetch_add(1, Ordering::Relaxed);
                    }
                    if a["ok"] == true {
                        oks.fetch_add(1, Ordering::Relaxed);
                    }
                }
            });
        }
    });
    (calls.into_inner(), leaks.into_inner(), oks.into_inner())
}

/// Swaps the names `a` and `b` (beneath the root) while `asked` is read
/// for two seconds; asserts that nothing planted leaked and that the
/// benign file was still served.
fn race(t: &HostileTree, a: &str, b: &str, asked: &str, what: &str) {
    let tools = toolbox(&t.root);
    let stop = Arc::new(AtomicBool::new(false));
    let swaps = swapper(t.root.join(a), t.root.join(b), stop.clone());
    let (calls, leaks, oks) = hammer(&tools, asked, 2.0);
    stop.store(true, Ordering::Relaxed);
    let swaps = swaps.join().unwrap();
    eprintln!("{what}: {calls} calls, {swaps} swaps, {oks} answered, {leaks} leaks");
    assert!(swaps > 100 && calls > 100, "{swaps} swaps, {calls} calls");
    assert!(oks > 0, "the benign file was never read in {calls} calls");
    assert_eq!(leaks, 0, "{what}: {leaks} of {calls} calls leaked");
}

#[test]
fn a_directory_swapped_for_a_symlink_out_never_leaks() {
    let t = tree();
    std::fs::create_dir_all(t.root.join("dir")).unwrap();
    std::fs::write(t.root.join("dir/f.csv"), "k,v\nbenign,0\n").unwrap();
    std::os::unix::fs::symlink(&t.outside, t.root.join("evil")).unwrap();
    race(&t, "dir", "evil", "dir/f.csv", "dir <-> symlink out");
}

#[test]
fn a_directory_swapped_for_a_symlink_into_git_never_leaks() {
    let t = tree();
    std::fs::create_dir_all(t.root.join("dir")).unwrap();
    std::fs::write(t.root.join("dir/f.csv"), "k,v\nbenign,0\n").unwrap();
    // A relative symlink that stays inside the root, into `.git`.
    std::os::unix::fs::symlink(".git", t.root.join("evil")).unwrap();
    race(&t, "dir", "evil", "dir/f.csv", "dir <-> symlink into .git");
}

#[test]
fn a_file_swapped_for_a_symlink_never_leaks() {
    let t = tree();
    std::fs::write(t.root.join("f.csv"), "k,v\nbenign,0\n").unwrap();
    std::os::unix::fs::symlink(t.outside.join("f.csv"), t.root.join("evil.csv")).unwrap();
    race(&t, "f.csv", "evil.csv", "f.csv", "file <-> symlink out");
}

#[test]
fn a_pipe_swapped_in_is_refused_at_once_never_waited_on() {
    let t = tree();
    std::fs::write(t.root.join("p.csv"), "k,v\n1,2\n").unwrap();
    rustix::fs::mknodat(
        rustix::fs::CWD,
        t.root.join("fifo"),
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o644),
        0,
    )
    .unwrap();
    let tools = toolbox(&t.root);
    // The pipe itself, asked by its name.
    let started = Instant::now();
    let a = tools.call("read", json!({"path": "fifo"}), None);
    assert!(started.elapsed() < Duration::from_secs(1));
    assert_eq!(a["refusal"]["reason"], "not-a-file", "{a}");
    assert!(a["refusal"]["message"]
        .as_str()
        .unwrap()
        .contains("named pipe"));
    // Swapped in under a file's name while calls run.
    let stop = Arc::new(AtomicBool::new(false));
    let swaps = swapper(t.root.join("p.csv"), t.root.join("fifo"), stop.clone());
    let until = Instant::now() + Duration::from_secs(2);
    let mut slowest = Duration::ZERO;
    let mut reasons = std::collections::BTreeSet::new();
    while Instant::now() < until {
        let began = Instant::now();
        let a = tools.call("data", json!({"op": "inspect", "path": "p.csv"}), None);
        slowest = slowest.max(began.elapsed());
        reasons.insert(
            a["refusal"]["reason"]
                .as_str()
                .unwrap_or("answered")
                .to_owned(),
        );
    }
    stop.store(true, Ordering::Relaxed);
    let swaps = swaps.join().unwrap();
    eprintln!("file <-> fifo: {swaps} swaps, slowest call {slowest:?}, outcomes {reasons:?}");
    assert!(slowest < Duration::from_secs(1), "a call took {slowest:?}");
    assert!(
        reasons.iter().all(|r| r == "answered" || r == "not-a-file"),
        "{reasons:?}"
    );
}

#[test]
fn git_is_reserved_at_any_depth_as_a_directory_or_a_file() {
    let t = tree();
    std::fs::create_dir_all(t.root.join("sub/deeper/.git")).unwrap();
    std::fs::write(t.root.join("sub/deeper/.git/config"), SECRET).unwrap();
    std::fs::create_dir_all(t.root.join("worktree")).unwrap();
    std::fs::write(t.root.join("worktree/.git"), format!("gitdir: {SECRET}\n")).unwrap();
    std::os::unix::fs::symlink("sub/deeper/.git/config", t.root.join("alias.txt")).unwrap();
    let tools = toolbox(&t.root);
    for asked in [
        "sub/deeper/.git/config",
        "worktree/.git",
        "alias.txt",
        "sub/deeper/.git",
    ] {
        let a = tools.call("read", json!({"path": asked}), None);
        assert_eq!(a["refusal"]["reason"], "reserved-path", "{asked}: {a}");
        assert!(!a.to_string().contains(SECRET));
    }
    // A miss never lists reserved entries, at any depth.
    let a = tools.call("read", json!({"path": "sub/deeper/nope"}), None);
    assert_eq!(a["refusal"]["reason"], "not-found");
    assert_eq!(a["refusal"]["nearby"], json!([]), "{a}");
}

#[test]
fn reserve_globs_match_names_at_any_depth_and_paths_from_the_root() {
    let t = tree();
    std::fs::create_dir_all(t.root.join("a/b")).unwrap();
    std::fs::create_dir_all(t.root.join("docs/internal")).unwrap();
    std::fs::write(t.root.join("a/b/id.key"), SECRET).unwrap();
    std::fs::write(t.root.join("docs/internal/x.md"), SECRET).unwrap();
    std::fs::write(t.root.join("a/docs.md"), "fine\n").unwrap();
    let ws = Workspace::new(
        &t.root,
        &["*.key".to_owned(), "docs/internal/".to_owned()],
        &[],
    )
    .unwrap();
    let tools = Toolbox::new(ws);
    for asked in ["a/b/id.key", "docs/internal/x.md", "docs/internal"] {
        let a = tools.call("read", json!({"path": asked}), None);
        assert_eq!(a["refusal"]["reason"], "reserved-path", "{asked}");
    }
    let a = tools.call("read", json!({"path": "a/docs.md"}), None);
    assert_eq!(a["result"]["text"], "fine\n");
}

#[test]
fn refusals_never_show_the_absolute_root() {
    let t = tree();
    std::fs::create_dir_all(t.root.join("d")).unwrap();
    let tools = Toolbox::new(
        Workspace::new(
            &t.root,
            &[],
            &[("gone".to_owned(), PathBuf::from("missing.csv"))],
        )
        .unwrap(),
    );
    let root = t.root.canonicalize().unwrap().display().to_string();
    for asked in [
        "nope.csv",
        "d",
        "d/nope/x",
        "../outside/f.csv",
        ".git/f.csv",
        "gone",
    ] {
        for a in [
            tools.call("read", json!({"path": asked}), None),
            tools.call("data", json!({"op": "inspect", "path": asked}), None),
        ] {
            assert_eq!(a["ok"], false, "{asked}");
            assert!(!a.to_string().contains(&root), "{asked}: {a}");
        }
    }
}

fn assert_small(a: &Value, what: &str) {
    let n = json_len(a);
    assert!(n <= OBSERVATION_CAP_BYTES, "{what}: {n} bytes");
}

#[test]
fn huge_echoes_are_cut_and_say_their_length() {
    let t = tree();
    std::fs::write(t.root.join("doc.json"), r#"{"a": [1, 2]}"#).unwrap();
    let wide: Vec<String> = (0..100_000).map(|i| format!("column_{i}")).collect();
    std::fs::write(
        t.root.join("wide.csv"),
        format!("{}\n{}\n", wide.join(","), vec!["1"; wide.len()].join(",")),
    )
    .unwrap();
    let tools = toolbox(&t.root);
    let long_path = "p".repeat(100_000);
    let a = tools.call("read", json!({"path": long_path}), None);
    assert_small(&a, "a 100,000-character path");
    assert!(a.to_string().contains("100000 bytes in all"), "{a}");
    let deep = "/x".repeat(100_000);
    let a = tools.call(
        "data",
        json!({"op": "select", "path": "doc.json", "pointer": deep}),
        None,
    );
    assert_small(&a, "a 100,000-segment pointer");
    assert_eq!(a["refusal"]["reason"], "invalid-argument");
    let a = tools.call(
        "data",
        json!({"op": "select", "path": "doc.json", "pointer": format!("/a/{}", "q".repeat(50_000))}),
        None,
    );
    assert_small(&a, "a long pointer that misses");
    // A segment longer than the 1 KiB a key is read to can name nothing.
    assert_eq!(a["refusal"]["reason"], "invalid-argument");
    let a = tools.call(
        "data",
        json!({"op": "select", "path": "doc.json", "pointer": format!("/a/{}", "q".repeat(1000))}),
        None,
    );
    assert_small(&a, "a pointer that misses");
    assert_eq!(a["refusal"]["reason"], "pointer-not-found");
    let a = tools.call(
        "data",
        json!({"op": "select", "path": "wide.csv", "columns": ["no_such_column"]}),
        None,
    );
    assert_small(&a, "unknown-column on 100,000 columns");
    assert_eq!(a["refusal"]["reason"], "unknown-column");
    assert_eq!(a["refusal"]["available_total"], 100_000);
    let a = tools.call(&"t".repeat(1_000_000), json!({}), None);
    assert_small(&a, "a 1 MB tool name");
    let a = tools.call(
        "data",
        json!({"op": "x".repeat(1_000_000), "path": "doc.json"}),
        None,
    );
    assert_small(&a, "a 1 MB op");
    let a = tools.call(
        "data",
        json!({"op": "inspect", "path": "doc.json", "format": "f".repeat(1_000_000)}),
        None,
    );
    assert_small(&a, "a 1 MB format");
}

/// Follows the hint from offset 0 to the end: every row is reached, and
/// no hint names the offset already asked for.
fn walk_window(tools: &Toolbox, args: Value, field: &str) -> Vec<Value> {
    let mut offset = 0u64;
    let mut seen = Vec::new();
    for _ in 0..10 {
        let mut call = args.clone();
        call["offset"] = json!(offset);
        let a = tools.call("data", call, None);
        assert_small(&a, "a window");
        assert_eq!(a["ok"], true, "{a}");
        let items = a["result"][field].as_array().unwrap().clone();
        assert!(!items.is_empty(), "offset {offset} returned nothing: {a}");
        seen.extend(items);
        if a["counts"]["has_more"] != true {
            return seen;
        }
        let hint = a["hint"].as_str().unwrap();
        let next: u64 = hint.rsplit('=').next().unwrap().parse().unwrap();
        assert!(next > offset, "the hint stays at {offset}: {hint}");
        offset = next;
    }
    panic!("the window never ended");
}

#[test]
fn a_row_larger_than_the_answer_is_returned_alone_and_cut() {
    let t = tree();
    let big = "x".repeat(100_000);
    std::fs::write(t.root.join("big.csv"), format!("a,b,c\n1,{big},3\n2,y,4\n")).unwrap();
    std::fs::write(
        t.root.join("big.jsonl"),
        format!("{{\"a\":\"{big}\"}}\n{{\"a\":1}}\n"),
    )
    .unwrap();
    std::fs::write(t.root.join("big.json"), format!("[\"{big}\", 1, 2]")).unwrap();
    let tools = toolbox(&t.root);
    let rows = walk_window(&tools, json!({"op": "select", "path": "big.csv"}), "rows");
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0][1]["bytes"], 100_000, "{:?}", rows[0]);
    assert!(rows[0][1]["$truncated"]
        .as_str()
        .unwrap()
        .starts_with("xxx"));
    assert_eq!(rows[1], json!(["2", "y", "4"]));
    let records = walk_window(
        &tools,
        json!({"op": "select", "path": "big.jsonl"}),
        "records",
    );
    assert_eq!(records.len(), 2);
    assert_eq!(records[1]["value"], json!({"a": 1}));
    let items = walk_window(
        &tools,
        json!({"op": "select", "path": "big.json", "pointer": ""}),
        "items",
    );
    assert_eq!(items.len(), 3);
    assert_eq!(items[0]["bytes"], 100_000);
}

/// A reader that counts what was taken from it.
struct Endless<'a> {
    taken: &'a AtomicUsize,
}

impl Read for Endless<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        buf.fill(b' ');
        self.taken.fetch_add(buf.len(), Ordering::Relaxed);
        Ok(buf.len())
    }
}

#[test]
fn a_call_stream_is_read_to_its_cap_and_no_further() {
    let t = tree();
    let tools = toolbox(&t.root);
    let taken = AtomicUsize::new(0);
    let a = tools.call_reader(Endless { taken: &taken }, None);
    assert_eq!(a["refusal"]["reason"], "invalid-argument", "{a}");
    assert!(taken.load(Ordering::Relaxed) <= TOOL_CALL_MAX_BYTES + 64 * 1024);
    // Just under the cap, padded with spaces, a call still goes through.
    std::fs::write(t.root.join("n.txt"), "one\n").unwrap();
    let call = json!({"tool": "read", "args": {"path": "n.txt"}}).to_string();
    let padded = format!("{call}{}", " ".repeat(TOOL_CALL_MAX_BYTES - call.len()));
    let a = tools.call_reader(padded.as_bytes(), None);
    assert_eq!(a["result"]["text"], "one\n");
    let over = format!("{padded} ");
    let a = tools.call_reader(over.as_bytes(), None);
    assert_eq!(a["refusal"]["reason"], "invalid-argument");
    let a = tools.call_reader(&b"\xff\xfe{"[..], None);
    assert_eq!(a["refusal"]["reason"], "invalid-argument");
}
