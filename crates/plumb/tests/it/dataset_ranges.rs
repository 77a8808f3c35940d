//! A dataset's validate and search as tasks, large files cut into byte
//! ranges: the tasks travel as bytes, their partials merge in any
//! grouping, the ranges of each file join (or come back as a whole-file
//! task where a range met a fault), and the answer is the local run's,
//! byte for byte.

use std::io::Write;
use std::path::Path;

use plumb::dataset::{Dataset, DatasetOp, ListOptions, Partial, Task};
use plumb::{Answer, Plumb, Request};
use serde_json::Value;

const RANGE: u64 = 512 << 10;

/// Large CSV, TSV and JSON Lines files, clean and with a fault half way,
/// one with a BOM, one compressed, one whose head shows quoted line
/// breaks, and small files.
fn files(dir: &Path) {
    let w = |name: &str, bytes: &[u8]| std::fs::write(dir.join(name), bytes).unwrap();
    let table = |sep: &str, fault: Option<usize>| {
        let mut t = format!("id{sep}name{sep}amount\n");
        let mut r = 0;
        while t.len() < (3 << 20) {
            if fault == Some(r) {
                t.push_str(&format!("{r}{sep}short\n"));
            }
            t.push_str(&format!("{r}{sep}name{r}{sep}{}\n", r * 7 % 1000));
            r += 1;
        }
        t
    };
    let lines = |fault: Option<usize>| {
        let mut t = String::new();
        let mut r = 0;
        while t.len() < (3 << 20) {
            if fault == Some(r) {
                t.push_str("{\"id\": }\n");
            }
            t.push_str(&format!("{{\"id\": {r}, \"tag\": \"t{}\"}}\n", r % 13));
            r += 1;
        }
        t
    };
    w("a-big.csv", table(",", None).as_bytes());
    w("b-big-bad.csv", table(",", Some(70_000)).as_bytes());
    let mut bom = b"\xEF\xBB\xBF".to_vec();
    bom.extend_from_slice(table(",", None).as_bytes());
    w("c-bom.csv", &bom);
    w("d-big.tsv", table("\t", None).as_bytes());
    w("e-big.jsonl", lines(None).as_bytes());
    w("f-big-bad.jsonl", lines(Some(50_000)).as_bytes());
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(lines(None).as_bytes()).unwrap();
    w("g-big.jsonl.gz", &gz.finish().unwrap());
    let mut quoted = String::from("id,note\n");
    let mut r = 0;
    while quoted.len() < (2 << 20) {
        quoted.push_str(&format!("{r},\"two\nlines\"\n"));
        r += 1;
    }
    w("h-quoted.csv", quoted.as_bytes());
    w("i-small.csv", b"id,name\n1,ann\n2,bob\n");
    w("j-small-bad.jsonl", b"{\"a\": 1}\n[1,\n");
}

fn dataset() -> (tempfile::TempDir, Plumb, Dataset) {
    let dir = tempfile::tempdir().unwrap();
    files(dir.path());
    let data =
        Dataset::local(&[dir.path().display().to_string()], &ListOptions::default()).unwrap();
    (dir, Plumb::new(), data)
}

/// Each task sent through bytes and run, its partial sent back through
/// bytes.
fn run_all(plumb: &Plumb, data: &Dataset, req: &Request, tasks: &[Task]) -> Vec<Partial> {
    run_op(plumb, data, DatasetOp::Validate, req, tasks)
}

fn run_op(
    plumb: &Plumb,
    data: &Dataset,
    op: DatasetOp,
    req: &Request,
    tasks: &[Task],
) -> Vec<Partial> {
    tasks
        .iter()
        .map(|t| {
            let t: Task = serde_json::from_slice(&serde_json::to_vec(t).unwrap()).unwrap();
            let p = data.run_task(plumb, op, None, req, &t);
            Partial::from_bytes(&p.to_bytes()).unwrap()
        })
        .collect()
}

fn file_name(task: &Task) -> &str {
    task.member.path.rsplit('/').next().unwrap()
}

#[test]
fn ranges_merge_settle_and_answer_as_the_local_run() {
    let (_dir, plumb, data) = dataset();
    let req = Request::default();
    let op = DatasetOp::Validate;
    let whole = data.run(&plumb, op, None, &req).unwrap().to_json();
    assert_eq!(whole["totals"]["invalid"], 3, "{whole}");
    let tasks = data.plan(&plumb, op, None, &req, Some(RANGE));
    let ranged = |name: &str| {
        tasks
            .iter()
            .filter(|t| file_name(t) == name && t.range.is_some())
            .count()
    };
    for name in [
        "a-big.csv",
        "b-big-bad.csv",
        "c-bom.csv",
        "d-big.tsv",
        "e-big.jsonl",
        "f-big-bad.jsonl",
    ] {
        assert!(ranged(name) >= 4, "{name}: {} ranges", ranged(name));
    }
    for name in [
        "g-big.jsonl.gz",
        "h-quoted.csv",
        "i-small.csv",
        "j-small-bad.jsonl",
    ] {
        assert_eq!(ranged(name), 0, "{name} is read whole");
        assert_eq!(tasks.iter().filter(|t| file_name(t) == name).count(), 1);
    }
    assert!(
        tasks[0].first
            && tasks
                .iter()
                .skip(1)
                .all(|t| !t.first || file_name(t) == file_name(&tasks[0]))
    );
    let parts = run_all(&plumb, &data, &req, &tasks);
    // Groupings of the parts, each merged in its own order.
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    for round in 0..12 {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let mut a = Partial::empty(op, None);
        let mut b = Partial::empty(op, None);
        for (i, p) in parts.iter().enumerate() {
            if seed >> (i % 64) & 1 == 1 {
                a = a.merge(p.clone()).unwrap();
            } else {
                b = p.clone().merge(b).unwrap();
            }
        }
        // A retried task's partial merged in again counts once.
        let merged = if round % 2 == 0 {
            a.merge(b)
        } else {
            b.merge(a)
        }
        .unwrap()
        .merge(parts[1].clone())
        .unwrap();
        assert_eq!(merged.pending_files(), 6);
        let (settled, reruns) = data.settle(&plumb, op, &req, merged.clone()).unwrap();
        assert_eq!(settled.pending_files(), 0);
        let mut again: Vec<&str> = reruns.iter().map(file_name).collect();
        again.sort_unstable();
        assert_eq!(
            again,
            ["b-big-bad.csv", "f-big-bad.jsonl"],
            "only the faulty files run again"
        );
        assert!(reruns.iter().all(|t| t.range.is_none()));
        let mut done = settled;
        for p in run_all(&plumb, &data, &req, &reruns) {
            done = done.merge(p).unwrap();
        }
        assert_eq!(data.finish(done).to_json(), whole, "round {round}");
        assert_eq!(
            data.complete(&plumb, op, None, &req, merged)
                .unwrap()
                .to_json(),
            whole
        );
    }
}

#[test]
fn a_file_left_pending_is_refused_never_dropped() {
    let (_dir, plumb, data) = dataset();
    let req = Request::default();
    let op = DatasetOp::Validate;
    let tasks = data.plan(&plumb, op, None, &req, Some(RANGE));
    // Every task but the last range of a-big.csv.
    let last = tasks
        .iter()
        .rposition(|t| file_name(t) == "a-big.csv")
        .unwrap();
    let mut merged = Partial::empty(op, None);
    for (i, p) in run_all(&plumb, &data, &req, &tasks).into_iter().enumerate() {
        if i != last {
            merged = merged.merge(p).unwrap();
        }
    }
    let answer: Value = data.finish(merged.clone()).to_json();
    assert_eq!(answer["totals"]["files"], 10);
    assert_eq!(answer["valid"], false);
    // Finished unsettled, every file read by ranges is refused, and
    // counted.
    assert_eq!(
        answer["refusals"]["invalid-argument"], 6,
        "{}",
        answer["refusals"]
    );
    let line = answer["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["path"].as_str().unwrap().ends_with("a-big.csv"))
        .unwrap();
    assert!(
        line["refusal"]["message"]
            .as_str()
            .unwrap()
            .contains("settle"),
        "{line}"
    );
    // Settled, the file with a range missing stays pending, and joins
    // when its last range comes in.
    let (settled, reruns) = data.settle(&plumb, op, &req, merged.clone()).unwrap();
    let mut again: Vec<&str> = reruns.iter().map(file_name).collect();
    again.sort_unstable();
    assert_eq!(again, ["b-big-bad.csv", "f-big-bad.jsonl"]);
    assert_eq!(settled.pending_files(), 1);
    let late = data.run_task(&plumb, op, None, &req, &tasks[last]);
    let (settled, reruns) = data
        .settle(&plumb, op, &req, settled.merge(late).unwrap())
        .unwrap();
    assert!(reruns.is_empty());
    assert_eq!(settled.pending_files(), 0);
    // Completed here, the file with a range missing is read whole: the
    // answer is the whole run's.
    let whole = data.run(&plumb, op, None, &req).unwrap().to_json();
    assert_eq!(
        data.complete(&plumb, op, None, &req, merged)
            .unwrap()
            .to_json(),
        whole
    );
}

#[test]
fn a_file_whole_and_by_ranges_or_cut_two_ways_does_not_merge() {
    let (_dir, plumb, data) = dataset();
    let req = Request::default();
    let op = DatasetOp::Validate;
    let tasks = data.plan(&plumb, op, None, &req, Some(RANGE));
    let range = tasks.iter().find(|t| file_name(t) == "a-big.csv").unwrap();
    let ranged = data.run_task(&plumb, op, None, &req, range);
    let whole = data.run_task(
        &plumb,
        op,
        None,
        &req,
        &Task {
            range: None,
            ..range.clone()
        },
    );
    assert!(ranged.clone().merge(whole.clone()).is_err());
    assert!(whole.merge(ranged.clone()).is_err());
    let other = data.plan(&plumb, op, None, &req, Some(RANGE * 2));
    let range2 = other.iter().find(|t| file_name(t) == "a-big.csv").unwrap();
    assert_ne!(range2.range, range.range);
    let cut_otherwise = data.run_task(&plumb, op, None, &req, range2);
    let refused = ranged.merge(cut_otherwise).unwrap_err();
    assert!(
        refused.message().contains("differently"),
        "{}",
        refused.message()
    );
}

#[test]
fn a_partial_read_from_bytes_holds_each_range_once_in_order() {
    let (_dir, plumb, data) = dataset();
    let req = Request::default();
    let op = DatasetOp::Validate;
    let tasks: Vec<Task> = data
        .plan(&plumb, op, None, &req, Some(RANGE))
        .into_iter()
        .filter(|t| file_name(t) == "a-big.csv")
        .collect();
    let mut merged = Partial::empty(op, None);
    for p in run_all(&plumb, &data, &req, &tasks) {
        merged = merged.merge(p).unwrap();
    }
    // The same parts written in reverse, one twice.
    let mut v: Value = serde_json::from_slice(&merged.to_bytes()).unwrap();
    let file = v["ranges"]
        .as_object_mut()
        .unwrap()
        .values_mut()
        .next()
        .unwrap();
    let parts = file["parts"].as_array_mut().unwrap();
    parts.reverse();
    parts.push(parts[0].clone());
    let back = Partial::from_bytes(&serde_json::to_vec(&v).unwrap()).unwrap();
    assert_eq!(back, merged);
    let (settled, reruns) = data.settle(&plumb, op, &req, back).unwrap();
    assert!(reruns.is_empty());
    assert_eq!((settled.files(), settled.pending_files()), (1, 0));
}

/// A search of the dataset as tasks: the large files cut into ranges
/// (a CSV searched by a column of its header too), the partials merged
/// in reverse, settled and finished: the local run's answer, for a limit
/// met in the first file, one met in a later file, one never met, and a
/// count.
#[test]
fn searched_ranges_answer_as_the_local_run() {
    let (_dir, plumb, data) = dataset();
    let op = DatasetOp::Search;
    let mut cases = Vec::new();
    for limit in [3, 700, 100_000] {
        let mut req = Request::default();
        req.set("pattern", serde_json::json!("^(name)?1[0-9]7$"))
            .unwrap()
            .set("limit", serde_json::json!(limit))
            .unwrap();
        cases.push(req);
    }
    let mut by_column = Request::default();
    by_column
        .set("where", serde_json::json!("= 777"))
        .unwrap()
        .set("column", serde_json::json!("amount"))
        .unwrap()
        .set("limit", serde_json::json!(50))
        .unwrap();
    cases.push(by_column);
    // An offset applies to the first file, which is then read whole.
    let mut from = cases[1].clone();
    from.set("offset", serde_json::json!(40)).unwrap();
    cases.push(from);
    let mut count = cases[0].clone();
    count.set("count_only", serde_json::json!(true)).unwrap();
    cases.push(count);
    for req in cases {
        let whole = data.run(&plumb, op, None, &req).unwrap().to_json();
        let found = whole["returned"].as_u64().unwrap() + whole["total"].as_u64().unwrap_or(0);
        assert!(found > 0, "{whole}");
        let tasks = data.plan(&plumb, op, None, &req, Some(RANGE));
        let ranged = tasks.iter().filter(|t| t.range.is_some()).count();
        assert!(ranged >= 20, "{ranged} range tasks");
        let mut merged = Partial::empty(op, req.window.limit);
        for p in run_op(&plumb, &data, op, &req, &tasks).into_iter().rev() {
            merged = p.merge(merged).unwrap();
        }
        let (settled, reruns) = data.settle(&plumb, op, &req, merged.clone()).unwrap();
        assert_eq!(settled.pending_files(), 0);
        // A search reads past faults: only a file whose ranges met one
        // (a short row or a broken line) runs again.
        let mut again: Vec<&str> = reruns.iter().map(file_name).collect();
        again.sort_unstable();
        assert!(
            again
                .iter()
                .all(|n| ["b-big-bad.csv", "f-big-bad.jsonl"].contains(n)),
            "{again:?}"
        );
        let mut done = settled;
        for p in run_op(&plumb, &data, op, &req, &reruns) {
            done = done.merge(p).unwrap();
        }
        assert_eq!(data.finish(done).to_json(), whole, "{req:?}");
        assert_eq!(
            data.complete(&plumb, op, None, &req, merged)
                .unwrap()
                .to_json(),
            whole
        );
    }
}

#[test]
fn inspected_ranges_answer_as_the_local_run() {
    let (_dir, plumb, data) = dataset();
    let op = DatasetOp::Inspect;
    let req = Request::default();
    let whole = data.run(&plumb, op, None, &req).unwrap().to_json();
    let tasks = data.plan(&plumb, op, None, &req, Some(RANGE));
    let ranged = |name: &str| {
        tasks
            .iter()
            .filter(|t| file_name(t) == name && t.range.is_some())
            .count()
    };
    for name in [
        "a-big.csv",
        "b-big-bad.csv",
        "c-bom.csv",
        "d-big.tsv",
        "e-big.jsonl",
        "f-big-bad.jsonl",
    ] {
        assert!(ranged(name) >= 4, "{name}: {} ranges", ranged(name));
    }
    for name in ["g-big.jsonl.gz", "h-quoted.csv", "i-small.csv"] {
        assert_eq!(ranged(name), 0, "{name} is read whole");
    }
    let mut parts = run_op(&plumb, &data, op, &req, &tasks);
    parts.reverse();
    let merged = parts
        .into_iter()
        .try_fold(Partial::empty(op, None), Partial::merge)
        .unwrap();
    assert_eq!(merged.pending_files(), 6);
    let (settled, reruns) = data.settle(&plumb, op, &req, merged.clone()).unwrap();
    let mut again: Vec<&str> = reruns.iter().map(file_name).collect();
    again.sort_unstable();
    assert_eq!(
        again,
        ["b-big-bad.csv", "f-big-bad.jsonl"],
        "only the files with a short row or a broken line"
    );
    let mut done = settled;
    for p in run_op(&plumb, &data, op, &req, &reruns) {
        done = done.merge(p).unwrap();
    }
    assert_eq!(data.finish(done).to_json(), whole);
    assert_eq!(
        data.complete(&plumb, op, None, &req, merged)
            .unwrap()
            .to_json(),
        whole
    );
    // With statistics, no file is cut: their sketches do not travel.
    let mut stats = Request::default();
    stats.set("stats", Value::Bool(true)).unwrap();
    let tasks = data.plan(&plumb, op, None, &stats, Some(RANGE));
    assert!(tasks.iter().all(|t| t.range.is_none()));
    assert_eq!(tasks.len(), data.members().len());
}

#[test]
fn a_json_document_validates_and_inspects_in_ranges_as_the_local_run() {
    let dir = tempfile::tempdir().unwrap();
    let items: Vec<String> = (0..40_000)
        .map(|n| format!("{{\"id\": {n}, \"tags\": [\"a\", {{\"deep\": [{n}, null]}}]}}"))
        .collect();
    let clean = format!("[\n{}\n]\n", items.join(",\n"));
    std::fs::write(dir.path().join("a-clean.json"), &clean).unwrap();
    // Past the head the planner parses: a broken value, a late
    // duplicate key.
    let broken = clean.replacen("\"id\": 30000,", "\"id\": ,", 1);
    std::fs::write(dir.path().join("b-broken.json"), &broken).unwrap();
    let dup = clean.replacen("{\"id\": 30000,", "{\"id\": 30000, \"id\": 1,", 1);
    std::fs::write(dir.path().join("c-dup.json"), &dup).unwrap();
    let data =
        Dataset::local(&[dir.path().display().to_string()], &ListOptions::default()).unwrap();
    let (plumb, req) = (Plumb::new(), Request::default());
    for op in [DatasetOp::Validate, DatasetOp::Inspect] {
        let whole = data.run(&plumb, op, None, &req).unwrap().to_json();
        if op == DatasetOp::Validate {
            assert_eq!(whole["totals"]["invalid"], 1, "{whole}");
        }
        let tasks = data.plan(&plumb, op, None, &req, Some(RANGE));
        for name in ["a-clean.json", "b-broken.json", "c-dup.json"] {
            let n = tasks
                .iter()
                .filter(|t| file_name(t) == name && t.range.is_some())
                .count();
            assert!(n >= 4, "{op:?} {name}: {n} ranges");
        }
        let merged = run_op(&plumb, &data, op, &req, &tasks)
            .into_iter()
            .rev()
            .try_fold(Partial::empty(op, None), Partial::merge)
            .unwrap();
        let (settled, reruns) = data.settle(&plumb, op, &req, merged).unwrap();
        let again: Vec<&str> = reruns.iter().map(file_name).collect();
        assert_eq!(again, ["b-broken.json", "c-dup.json"], "{op:?}");
        let mut done = settled;
        for p in run_op(&plumb, &data, op, &req, &reruns) {
            done = done.merge(p).unwrap();
        }
        assert_eq!(data.finish(done).to_json(), whole, "{op:?}");
    }
    // Its search runs whole.
    let mut search = Request::default();
    search.set("pattern", serde_json::json!("deep")).unwrap();
    let tasks = data.plan(&plumb, DatasetOp::Search, None, &search, Some(RANGE));
    assert!(tasks.iter().all(|t| t.range.is_none()));
}
