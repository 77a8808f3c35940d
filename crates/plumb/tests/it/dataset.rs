//! Datasets: a generated set of files with drift planted at known
//! places, held to an oracle the test computes with Python's csv and
//! json per file and merges itself; partials merged over every split;
//! the same bytes at any number of threads; listing continued with no
//! file lost or read twice.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;
use std::process::Command;

use plumb::dataset::{Dataset, DatasetOp, ListOptions, Partial};
use plumb::{Answer, Plumb, Request};
use serde_json::Value;

/// Twelve files with drift planted: a column added in one file, a
/// column that turns from integers to text at row 40 of one file, a
/// JSON Lines key renamed, an empty file, a header-only file, a file
/// that is not UTF-8, a truncated gzip and a file that is not data.
fn planted(dir: &Path) {
    let w = |name: &str, bytes: &[u8]| {
        let p = dir.join(name);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, bytes).unwrap();
    };
    for i in 0..4 {
        let mut t = String::from("id,name,amount\n");
        for r in 0..60 {
            let amount = if i == 3 && r >= 39 {
                format!("n/a{r}")
            } else {
                (r * 7 + i).to_string()
            };
            t.push_str(&format!("{},name{r},{amount}\n", i * 100 + r));
        }
        w(&format!("csv/part-{i:02}.csv"), t.as_bytes());
    }
    w(
        "csv/part-05.csv",
        b"id,name,amount,region\n1,a,5,north\n2,b,6,south\n",
    );
    w("csv/part-06.csv", b"id,name,amount\n");
    w("csv/part-07.csv", b"");
    w("csv/part-08.csv", b"id,name,amount\n1,caf\xe9,3\n");
    w(
        "logs/a.jsonl",
        b"{\"user\": \"ann\", \"n\": 1}\n{\"user\": \"bob\", \"n\": 2}\n",
    );
    w(
        "logs/b.jsonl",
        b"{\"username\": \"cy\", \"n\": 3}\n{\"username\": \"dy\", \"n\": \"four\"}\n",
    );
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(&b"{\"user\": \"dee\", \"n\": 4}\n".repeat(200))
        .unwrap();
    let gz = gz.finish().unwrap();
    w("logs/c.jsonl.gz", &gz[..gz.len() / 2]);
    w("misc/picture.csv", b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR");
    w(".hidden/secret.csv", b"id\n1\n");
}

/// The planted files in a folder of their own, listed as a dataset.
fn planted_dataset() -> (tempfile::TempDir, Plumb, Dataset) {
    let dir = tempfile::tempdir().unwrap();
    planted(dir.path());
    let data =
        Dataset::local(&[dir.path().display().to_string()], &ListOptions::default()).unwrap();
    (dir, Plumb::new(), data)
}

fn inspect(dir: &Path, threads: usize) -> Value {
    let data = Dataset::local(&[dir.display().to_string()], &ListOptions::default()).unwrap();
    let mut req = Request::default();
    req.scan.threads = Some(threads);
    data.run(&Plumb::new(), DatasetOp::Inspect, None, &req)
        .unwrap()
        .to_json()
}

fn column<'a>(a: &'a Value, name: &str) -> &'a Value {
    a["columns"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name)
        .unwrap()
}

/// Python's csv and json read each file: its columns or keys, with the
/// rows that hold each; files Python cannot read are left out (None).
fn oracle(dir: &Path) -> Option<BTreeMap<String, Value>> {
    let script = r#"
import csv, json, sys, os, gzip
out = {}
root = sys.argv[1]
for d, subs, files in os.walk(root):
    subs[:] = [s for s in subs if not s.startswith('.')]
    for f in files:
        p = os.path.join(d, f)
        try:
            if f.endswith('.csv'):
                with open(p, newline='', encoding='utf-8') as fh:
                    rows = list(csv.reader(fh))
                if not rows:
                    out[p] = {'rows': 0, 'columns': {}}
                    continue
                head, body = rows[0], rows[1:]
                out[p] = {'rows': len(body), 'columns': {h: len(body) for h in head},
                          'ints': {h: all(r[i].lstrip('-').isdigit() for r in body) for i, h in enumerate(head)}}
            elif f.endswith('.jsonl'):
                keys, n = {}, 0
                with open(p, encoding='utf-8') as fh:
                    for line in fh:
                        if line.strip():
                            n += 1
                            for k in json.loads(line):
                                keys[k] = keys.get(k, 0) + 1
                out[p] = {'rows': n, 'columns': keys}
            else:
                out[p] = None
        except Exception:
            out[p] = None
print(json.dumps(out))
"#;
    let run = Command::new("python3")
        .arg("-c")
        .arg(script)
        .arg(dir)
        .output()
        .ok()?;
    if !run.status.success() {
        return None;
    }
    serde_json::from_slice(&run.stdout).ok()
}

#[test]
fn the_merged_schema_matches_python_file_by_file() {
    let dir = tempfile::tempdir().unwrap();
    planted(dir.path());
    let a = inspect(dir.path(), 2);
    let Some(oracle) = oracle(dir.path()) else {
        eprintln!("python3 is not here: the oracle is skipped");
        return;
    };
    // The union the oracle's files give, merged here: files and rows per name.
    let mut union: BTreeMap<String, (u64, u64)> = BTreeMap::new();
    let mut read = 0;
    for facts in oracle.values().filter(|v| !v.is_null()) {
        read += 1;
        for (name, rows) in facts["columns"].as_object().unwrap() {
            let e = union.entry(name.clone()).or_default();
            e.0 += 1;
            e.1 += rows.as_u64().unwrap();
        }
    }
    let names: Vec<&str> = a["columns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, union.keys().map(String::as_str).collect::<Vec<_>>());
    for (name, (files, rows)) in &union {
        let c = column(&a, name);
        assert_eq!(
            (c["files"].as_u64().unwrap(), c["rows"].as_u64().unwrap()),
            (*files, *rows),
            "{name}"
        );
    }
    // Every file Python read, plumb read; the two it could not (not
    // UTF-8, not data) and the cut gzip are refused, with reasons.
    let t = &a["totals"];
    assert_eq!(t["files"], 12, "{t}");
    assert_eq!(
        t["files"].as_u64().unwrap() - t["refused"].as_u64().unwrap(),
        read
    );
    assert_eq!(a["refusals"]["unsupported-format"], 1, "{}", a["refusals"]);
    assert!(a["files"]
        .as_array()
        .unwrap()
        .iter()
        .all(|l| !l["path"].as_str().unwrap().contains(".hidden")));
    // The planted type change: integers in part-00, text first in part-03.
    let amount = column(&a, "amount");
    assert_eq!(
        amount["type_differs"]["path"].as_str().unwrap(),
        dir.path().join("csv/part-03.csv").to_str().unwrap()
    );
    assert_eq!(amount["type_differs"]["from"], "integer");
    // Row 40 of its body: record 41, the header being record 1.
    assert_eq!(amount["type_differs"]["record"], 41, "{amount}");
    let n = column(&a, "n");
    assert!(n["type_differs"]["path"]
        .as_str()
        .unwrap()
        .ends_with("logs/b.jsonl"));
    assert_eq!(
        (&n["type_differs"]["to"], &n["type_differs"]["line"]),
        (&Value::from("number|string"), &Value::from(2)),
        "{n}"
    );
    let ints: Vec<String> = oracle
        .iter()
        .filter(|(_, v)| v["ints"]["amount"] == true && v["rows"].as_u64() > Some(0))
        .map(|(p, _)| p.clone())
        .collect();
    let integer = amount["types"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["type"] == "integer")
        .unwrap();
    assert_eq!(integer["files"].as_u64().unwrap(), ints.len() as u64);
    // The added column and the renamed key are each in one file.
    assert_eq!(column(&a, "region")["files"], 1);
    assert_eq!(column(&a, "username")["files"], 1);
    assert_eq!(column(&a, "user")["files"], 1);
    // Schema groups: the four clean CSV parts share one.
    assert_eq!(a["groups"][0]["files"], 3, "{}", a["groups"]);
}

/// A validate counts the rows of each file it found valid, as Python's
/// csv and json count them, and those of no other file (one that stopped
/// at a fault counted only the rows before it).
#[test]
fn a_validate_counts_the_rows_of_its_valid_files_as_python_does() {
    let (dir, plumb, _) = planted_dataset();
    // And a file with a short row, and a JSON Lines file with a broken
    // line, after valid ones.
    std::fs::write(dir.path().join("csv/part-09.csv"), "a,b\n1,2\n3\n4,5\n").unwrap();
    std::fs::write(dir.path().join("logs/d.jsonl"), "{\"a\": 1}\n{\"a\": }\n").unwrap();
    // A JSON document: its validate counts its top-level members, which
    // are not rows.
    std::fs::write(dir.path().join("misc/config.json"), "{\"a\": 1, \"b\": 2}").unwrap();
    let data =
        Dataset::local(&[dir.path().display().to_string()], &ListOptions::default()).unwrap();
    let Some(oracle) = oracle(dir.path()) else {
        eprintln!("python3 is not here: the oracle is skipped");
        return;
    };
    let v = data
        .run(&plumb, DatasetOp::Validate, None, &Request::default())
        .unwrap()
        .to_json();
    let mut counted = 0;
    let mut sum = 0;
    for line in v["files"].as_array().unwrap() {
        let path = line["path"].as_str().unwrap();
        if line["valid"] == true && line["format"] != "json" {
            let rows = oracle[path]["rows"].as_u64().expect("python read it");
            assert_eq!(line["rows"], rows, "{line}");
            counted += 1;
            sum += rows;
        } else {
            assert!(line.get("rows").is_none(), "{line}");
        }
    }
    let t = &v["totals"];
    assert!(counted >= 6, "{v}");
    assert_eq!(t["rows"], sum, "{t}");
    assert_eq!(t["valid"], counted + 1, "{t}");
    assert_eq!(t["invalid"], 2, "{t}");
    // Files read and not valid have no count, nor has the JSON document;
    // refused ones are counted as refused.
    let n = |k: &str| t[k].as_u64().unwrap();
    assert_eq!(n("rows_unknown_files"), n("invalid") + 1, "{t}");
    assert_eq!(n("files"), n("valid") + n("invalid") + n("refused"), "{t}");
}

#[test]
fn partials_merged_over_every_split_equal_the_whole() {
    let (_dir, plumb, data) = planted_dataset();
    assert_eq!(data.members().len(), 12);
    for op in [DatasetOp::Inspect, DatasetOp::Validate, DatasetOp::Detect] {
        let req = Request::default();
        let whole = data.run(&plumb, op, None, &req).unwrap().to_json();
        let parts: Vec<Partial> = data
            .members()
            .iter()
            .enumerate()
            .map(|(i, m)| {
                Partial::from_bytes(&data.partial(&plumb, op, None, &req, m, i == 0).to_bytes())
                    .unwrap()
            })
            .collect();
        // Every split into two groups, each merged in its own order.
        for mask in 0u32..(1 << parts.len()) {
            let mut a = Partial::empty(op, None);
            let mut b = Partial::empty(op, None);
            for (i, p) in parts.iter().enumerate().rev() {
                if mask & (1 << i) != 0 {
                    a = a.merge(p.clone()).unwrap();
                } else {
                    b = p.clone().merge(b).unwrap();
                }
            }
            let merged = if mask % 2 == 0 {
                a.merge(b)
            } else {
                b.merge(a)
            }
            .unwrap();
            assert_eq!(
                data.finish(merged).to_json(),
                whole,
                "{op:?} split {mask:b}"
            );
        }
    }
}

#[test]
fn a_search_merges_to_its_limit_in_path_order_over_every_split() {
    let (dir, plumb, data) = planted_dataset();
    let mut req = Request::default();
    req.set("pattern", Value::from("name1")).unwrap();
    req.set("limit", Value::from(25)).unwrap();
    let whole = data
        .run(&plumb, DatasetOp::Search, None, &req)
        .unwrap()
        .to_json();
    assert_eq!(whole["returned"], 25, "{whole}");
    // The limit met, the files past the last hit are not read: no total.
    assert!(whole.get("total").is_none(), "{whole}");
    // name1, name10..name19 in each part of 60 rows: 11 a file.
    let per: Vec<u64> = whole["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["hits"].as_array().unwrap().len() as u64)
        .collect();
    assert_eq!(per, vec![11, 11, 3]);
    let last = &whole["hits"][2];
    assert_eq!(whole["next"]["from"], last["path"]);
    // The offset goes on after the last hit held: its row, plus one.
    let row = last["hits"][2]["row"].as_u64().unwrap();
    assert_eq!(whole["next"]["offset"], row + 1);
    let parts: Vec<Partial> = data
        .members()
        .iter()
        .enumerate()
        .map(|(i, m)| data.partial(&plumb, DatasetOp::Search, None, &req, m, i == 0))
        .collect();
    for mask in 0u32..(1 << parts.len()) {
        let (mut a, mut b) = (
            Partial::empty(DatasetOp::Search, Some(25)),
            Partial::empty(DatasetOp::Search, Some(25)),
        );
        for (i, p) in parts.iter().enumerate() {
            if mask & (1 << i) != 0 {
                a = a.merge(p.clone()).unwrap()
            } else {
                b = b.merge(p.clone()).unwrap()
            }
        }
        assert_eq!(
            data.finish(b.merge(a).unwrap()).to_json(),
            whole,
            "split {mask:b}"
        );
    }
    // Going on from the continuation gives the next hits, none twice.
    let mut again = req.clone();
    again.window.offset = whole["next"]["offset"].as_u64();
    let opts = ListOptions {
        from: whole["next"]["from"].as_str().map(str::to_owned),
        ..ListOptions::default()
    };
    let rest = Dataset::local(&[dir.path().display().to_string()], &opts).unwrap();
    let next = rest
        .run(&plumb, DatasetOp::Search, None, &again)
        .unwrap()
        .to_json();
    assert_eq!(next["hits"][0]["path"], last["path"]);
    assert_eq!(next["hits"][0]["start"], row + 1);
    assert_eq!(next["hits"][0]["hits"].as_array().unwrap().len(), 8);
}

/// A count of every hit: each file's count added, the same over every
/// split of the partials, and exact only where every file was read: the
/// planted set's refused files (a truncated gzip, a file that is not
/// data) leave it a lower bound, the clean CSV parts alone make it exact.
#[test]
fn a_count_adds_every_files_count_and_says_when_it_is_every_hit() {
    let (dir, plumb, data) = planted_dataset();
    let mut req = Request::default();
    req.set("pattern", Value::from("name1"))
        .unwrap()
        .set("count_only", Value::from(true))
        .unwrap();
    // The oracle: rows of the clean CSV parts holding the pattern.
    let expected: u64 = (0..4)
        .map(|i| {
            let text = std::fs::read_to_string(dir.path().join(format!("csv/part-{i:02}.csv")));
            let text = text.unwrap();
            text.lines().skip(1).filter(|l| l.contains("name1")).count() as u64
        })
        .sum();
    let whole = data
        .run(&plumb, DatasetOp::Search, None, &req)
        .unwrap()
        .to_json();
    assert_eq!(whole["total"], expected, "{whole}");
    assert_eq!(whole["returned"], 0);
    assert_eq!(whole["total_exact"], false, "refused files may hold hits");
    let parts: Vec<Partial> = data
        .members()
        .iter()
        .enumerate()
        .map(|(i, m)| data.partial(&plumb, DatasetOp::Search, None, &req, m, i == 0))
        .collect();
    for mask in (0u32..(1 << parts.len())).step_by(7) {
        let (mut a, mut b) = (
            Partial::empty(DatasetOp::Search, None),
            Partial::empty(DatasetOp::Search, None),
        );
        for (i, p) in parts.iter().enumerate() {
            if mask & (1 << i) != 0 {
                a = a.merge(p.clone()).unwrap()
            } else {
                b = p.clone().merge(b).unwrap()
            }
        }
        assert_eq!(
            data.finish(a.merge(b).unwrap()).to_json(),
            whole,
            "{mask:b}"
        );
    }
    let clean: Vec<String> = (0..4)
        .map(|i| {
            dir.path()
                .join(format!("csv/part-{i:02}.csv"))
                .display()
                .to_string()
        })
        .collect();
    let parts = Dataset::local(&clean, &ListOptions::default()).unwrap();
    let counted = parts
        .run(&plumb, DatasetOp::Search, None, &req)
        .unwrap()
        .to_json();
    assert_eq!(
        (&counted["total"], &counted["total_exact"]),
        (&Value::from(expected), &Value::from(true)),
        "{counted}"
    );
}

#[test]
fn threads_never_change_the_bytes() {
    let dir = tempfile::tempdir().unwrap();
    planted(dir.path());
    let one = inspect(dir.path(), 1).to_string();
    for n in [2, 3, 8, 32] {
        assert_eq!(inspect(dir.path(), n).to_string(), one, "{n} threads");
    }
}

#[test]
fn a_listing_is_read_in_calls_with_no_file_lost_or_read_twice() {
    let dir = tempfile::tempdir().unwrap();
    planted(dir.path());
    let name = dir.path().display().to_string();
    let all: Vec<String> = Dataset::local(std::slice::from_ref(&name), &ListOptions::default())
        .unwrap()
        .members()
        .iter()
        .map(|m| m.path.clone())
        .collect();
    let mut seen = Vec::new();
    let mut from = None;
    loop {
        let opts = ListOptions {
            max_files: 5,
            from: from.clone(),
            ..ListOptions::default()
        };
        let data = Dataset::local(std::slice::from_ref(&name), &opts).unwrap();
        let a = data
            .run(&Plumb::new(), DatasetOp::Detect, None, &Request::default())
            .unwrap()
            .to_json();
        seen.extend(
            a["files"]
                .as_array()
                .unwrap()
                .iter()
                .map(|l| l["path"].as_str().unwrap().to_owned()),
        );
        assert_eq!(
            a["totals"]["files_left"].as_u64().unwrap(),
            (all.len() - seen.len()) as u64
        );
        match a["next"]["from"].as_str() {
            Some(f) => from = Some(f.to_owned()),
            None => break,
        }
    }
    assert_eq!(seen, all);
    // Depth, hidden names and globs.
    let only = |names: &[&str], opts: ListOptions| -> Vec<String> {
        let names: Vec<String> = names.iter().map(|n| format!("{name}/{n}")).collect();
        Dataset::local(&names, &opts)
            .unwrap()
            .members()
            .iter()
            .map(|m| m.path.strip_prefix(&format!("{name}/")).unwrap().to_owned())
            .collect()
    };
    assert_eq!(
        only(&["csv/*-0[5-6].csv"], ListOptions::default()),
        ["csv/part-05.csv", "csv/part-06.csv"]
    );
    assert_eq!(
        only(&["**/*.jsonl*"], ListOptions::default()),
        ["logs/a.jsonl", "logs/b.jsonl", "logs/c.jsonl.gz"]
    );
    assert_eq!(
        only(
            &["**/secret.csv"],
            ListOptions {
                hidden: true,
                ..ListOptions::default()
            }
        ),
        [".hidden/secret.csv"]
    );
    assert!(only(&["**/secret.csv"], ListOptions::default()).is_empty());
    assert_eq!(all.len(), 12);
    let shallow = Dataset::local(
        std::slice::from_ref(&name),
        &ListOptions {
            depth: Some(1),
            ..ListOptions::default()
        },
    )
    .unwrap();
    assert!(shallow.members().is_empty());
}

#[test]
fn select_over_a_dataset_is_refused_naming_its_files() {
    let (_dir, _, data) = planted_dataset();
    let r = DatasetOp::of(plumb::Op::Select, &data).unwrap_err();
    assert_eq!(r.reason().as_str(), "invalid-argument");
    assert!(r.message().contains("part-00.csv"), "{}", r.message());
    assert!(r.message().contains("12 files"), "{}", r.message());
}

#[test]
fn a_partial_of_another_version_or_op_does_not_merge() {
    let a = Partial::empty(DatasetOp::Inspect, None);
    assert!(a
        .clone()
        .merge(Partial::empty(DatasetOp::Validate, None))
        .is_err());
    let mut bytes: Value = serde_json::from_slice(&a.to_bytes()).unwrap();
    bytes["version"] = Value::from(99);
    let r = Partial::from_bytes(bytes.to_string().as_bytes()).unwrap_err();
    assert!(r.message().contains("version 99"), "{}", r.message());
    assert!(Partial::from_bytes(b"{}").is_err());
}

/// Sizes asked at listing (for a progress bar) or taken when each file
/// is opened give the same answer.
#[test]
fn sizes_listed_or_opened_give_the_same_answer() {
    let dir = tempfile::tempdir().unwrap();
    planted(dir.path());
    let plumb = Plumb::new();
    let name = dir.path().display().to_string();
    let sized = ListOptions {
        sizes: true,
        ..ListOptions::default()
    };
    let listed = Dataset::local(std::slice::from_ref(&name), &sized).unwrap();
    let opened = Dataset::local(std::slice::from_ref(&name), &ListOptions::default()).unwrap();
    assert!(listed.members().iter().all(|m| m.bytes.is_some()));
    assert!(opened.members().iter().all(|m| m.bytes.is_none()));
    let total: u64 = listed.members().iter().filter_map(|m| m.bytes).sum();
    for op in [DatasetOp::Inspect, DatasetOp::Validate, DatasetOp::Detect] {
        let req = Request::default();
        let a = listed.run(&plumb, op, None, &req).unwrap().to_json();
        let b = opened.run(&plumb, op, None, &req).unwrap().to_json();
        assert_eq!(a, b, "{op:?}");
        assert_eq!(a["totals"]["bytes"].as_u64(), Some(total), "{a}");
    }
}

/// Bytes from elsewhere are held to a merge's invariants: lines out of
/// order are put in order, a file's line twice is refused, and a partial
/// merged with itself holds its files twice and is refused.
#[test]
fn a_partial_read_from_bytes_keeps_path_order_and_each_file_once() {
    let (_dir, plumb, data) = planted_dataset();
    let req = Request::default();
    let op = DatasetOp::Inspect;
    let whole = data
        .scan(&plumb, op, None, &req, &Default::default())
        .unwrap();
    let mut value: Value = serde_json::from_slice(&whole.to_bytes()).unwrap();
    let lines = value["lines"].as_array_mut().unwrap();
    assert!(lines.len() >= 10);
    lines.reverse();
    let reordered = Partial::from_bytes(value.to_string().as_bytes()).unwrap();
    assert_eq!(reordered.to_bytes(), whole.to_bytes());
    let first = value["lines"][0].clone();
    value["lines"].as_array_mut().unwrap().push(first);
    let r = Partial::from_bytes(value.to_string().as_bytes()).unwrap_err();
    assert!(r.message().contains("twice"), "{}", r.message());
    let r = whole.clone().merge(whole).unwrap_err();
    assert!(r.message().contains("in common"), "{}", r.message());
}

#[test]
fn counts_a_partial_claims_past_any_file_saturate_when_merged() {
    let (_dir, plumb, data) = planted_dataset();
    let req = Request::default();
    let op = DatasetOp::Inspect;
    let members = data.members();
    let one = data.partial(&plumb, op, None, &req, &members[0], true);
    let two = data.partial(&plumb, op, None, &req, &members[1], false);
    let mut claim: Value = serde_json::from_slice(&one.to_bytes()).unwrap();
    let mut counts = 0;
    for key in ["files", "bytes", "rows"] {
        if let Some(n) = claim.get_mut(key).filter(|n| n.is_u64()) {
            *n = Value::from(u64::MAX);
            counts += 1;
        }
    }
    assert_eq!(counts, 3, "{claim}");
    for column in claim["columns"].as_object_mut().unwrap().values_mut() {
        column["files"] = Value::from(u64::MAX);
        column["rows"] = Value::from(u64::MAX);
    }
    let claim = Partial::from_bytes(claim.to_string().as_bytes()).unwrap();
    let merged = claim.merge(two).unwrap();
    let answer = data.finish(merged).to_json();
    assert_eq!(answer["totals"]["files"], u64::MAX, "{answer}");
    assert_eq!(answer["totals"]["rows"], u64::MAX, "{answer}");
}

#[cfg(feature = "compression")]
#[test]
fn a_zips_members_are_a_dataset() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("pack.zip");
    let mut zip = zip::ZipWriter::new(std::fs::File::create(&path).unwrap());
    for (name, text) in [
        ("a.csv", "x,y\n1,2\n"),
        ("b.csv", "x,z\n3,4\n"),
        ("notes.txt", "hi\n"),
    ] {
        zip.start_file(name, zip::write::SimpleFileOptions::default())
            .unwrap();
        zip.write_all(text.as_bytes()).unwrap();
    }
    zip.finish().unwrap();
    let name = format!("{}::*.csv", path.display());
    let data = Dataset::local(&[name], &ListOptions::default()).unwrap();
    assert_eq!(data.members().len(), 2);
    let a = data
        .run(&Plumb::new(), DatasetOp::Inspect, None, &Request::default())
        .unwrap()
        .to_json();
    assert_eq!(a["totals"]["rows"], 2, "{a}");
    assert_eq!(column(&a, "x")["files"], 2);
    assert_eq!(column(&a, "z")["files"], 1);
    assert!(a["files"][1]["path"]
        .as_str()
        .unwrap()
        .ends_with("pack.zip::b.csv"));
}

fn stats_request(threads: usize) -> Request {
    let mut req = Request::default();
    req.set("stats", Value::from("true")).unwrap();
    req.scan.threads = Some(threads);
    req
}

/// A merged column's statistics with the figures it names
/// order-dependent left out (and their errors, which may differ too;
/// their methods may not): what every grouping of the files agrees on.
fn order_free(stats: &Value) -> Value {
    let mut v = stats.clone();
    for f in stats["order_dependent"].as_array().into_iter().flatten() {
        let f = f.as_str().unwrap();
        match f {
            "top" => v["top"] = Value::Null,
            "date_quantiles" => v["dates"]["quantiles"] = Value::Null,
            _ => v["numbers"][f] = Value::Null,
        }
        v["accuracy"][f] = stats["accuracy"][f]["estimate"].clone();
    }
    v
}

/// The answer with each column's statistics held to what every
/// grouping agrees on.
fn order_free_answer(a: &Value) -> Value {
    let mut a = a.clone();
    for c in a["columns"].as_array_mut().unwrap() {
        if !c["stats"].is_null() {
            c["stats"] = order_free(&c["stats"]);
        }
    }
    a
}

#[test]
fn statistics_merged_over_every_split_agree_on_every_order_free_figure() {
    let (_dir, plumb, data) = planted_dataset();
    let req = stats_request(2);
    let whole = data
        .run(&plumb, DatasetOp::Inspect, None, &req)
        .unwrap()
        .to_json();
    // Sixty names in each part pass the top values' counters: their
    // counts are estimates that depend on the merge order, and say so.
    let name = &column(&whole, "name")["stats"];
    assert_eq!(
        name["order_dependent"],
        serde_json::json!(["top"]),
        "{name}"
    );
    assert_eq!(name["accuracy"]["distinct"], "exact");
    let want = order_free_answer(&whole);
    let parts: Vec<Partial> = data
        .members()
        .iter()
        .enumerate()
        .map(|(i, m)| {
            let p = data.partial(&plumb, DatasetOp::Inspect, None, &req, m, i == 0);
            Partial::from_bytes(&p.to_bytes()).unwrap()
        })
        .collect();
    for mask in 0u32..(1 << parts.len()) {
        let mut a = Partial::empty(DatasetOp::Inspect, None);
        let mut b = Partial::empty(DatasetOp::Inspect, None);
        for (i, p) in parts.iter().enumerate() {
            if mask & (1 << i) != 0 {
                a = p.clone().merge(a).unwrap();
            } else {
                b = b.merge(p.clone()).unwrap();
            }
        }
        let b = Partial::from_bytes(&b.to_bytes()).unwrap();
        let merged = if mask % 2 == 0 {
            a.merge(b)
        } else {
            b.merge(a)
        }
        .unwrap();
        let got = order_free_answer(&data.finish(merged).to_json());
        assert_eq!(got, want, "split {mask:b}");
    }
}

#[test]
fn statistics_across_files_equal_pythons_over_the_files_it_reads() {
    let dir = tempfile::tempdir().unwrap();
    planted(dir.path());
    let data =
        Dataset::local(&[dir.path().display().to_string()], &ListOptions::default()).unwrap();
    let a = data
        .run(&Plumb::new(), DatasetOp::Inspect, None, &stats_request(2))
        .unwrap()
        .to_json();
    let script = r#"
import csv, json, sys, os
cols = {}
for d, subs, files in os.walk(sys.argv[1]):
    subs[:] = [s for s in subs if not s.startswith('.')]
    for f in files:
        p = os.path.join(d, f)
        try:
            if f.endswith('.csv'):
                with open(p, newline='', encoding='utf-8') as fh:
                    rows = list(csv.reader(fh))
                got = {}
                for r in rows[1:]:
                    for h, v in zip(rows[0], r):
                        got.setdefault(h, []).append(v)
                for h in (rows[0] if rows else []):
                    got.setdefault(h, [])
            elif f.endswith('.jsonl'):
                got = {}
                with open(p, encoding='utf-8') as fh:
                    for line in fh:
                        if line.strip():
                            for k, v in json.loads(line).items():
                                got.setdefault(k, []).append(v)
            else:
                continue
        except Exception:
            continue
        for k, vs in got.items():
            cols.setdefault(k, {'files': 0, 'values': []})
            cols[k]['files'] += 1
            cols[k]['values'] += vs
out = {}
for k, c in cols.items():
    vs = c['values']
    written = [v if isinstance(v, str) else json.dumps(v) for v in vs]
    ints = all(isinstance(v, int) or (isinstance(v, str) and v.lstrip('-').isdigit()) for v in vs)
    out[k] = {'files': c['files'], 'count': len(vs),
              'distinct': len(set((type(v).__name__, w) for v, w in zip(vs, written))),
              'sum': sum(int(v) for v in vs) if ints and vs else None}
print(json.dumps(out))
"#;
    let Ok(run) = Command::new("python3")
        .arg("-c")
        .arg(script)
        .arg(dir.path())
        .output()
    else {
        eprintln!("python3 is not here: the oracle is skipped");
        return;
    };
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let oracle: BTreeMap<String, Value> = serde_json::from_slice(&run.stdout).unwrap();
    assert_eq!(oracle.len(), a["columns"].as_array().unwrap().len());
    for (name, want) in &oracle {
        let s = &column(&a, name)["stats"];
        assert_eq!(s["files"], want["files"], "{name}: {s}");
        assert_eq!(s["count"], want["count"], "{name}");
        assert_eq!(s["accuracy"]["count"], "exact");
        if s["accuracy"]["distinct"] == "exact" {
            assert_eq!(s["distinct"], want["distinct"], "{name}");
        }
        if !want["sum"].is_null() {
            assert_eq!(s["numbers"]["sum"], want["sum"], "{name}");
            assert_eq!(s["accuracy"]["sum"], "exact", "{name}");
        }
    }
    // The integer column sums over four parts and the added file.
    assert!(oracle["id"]["sum"].as_u64() > Some(0));
}

#[test]
fn statistics_never_change_with_the_threads() {
    let dir = tempfile::tempdir().unwrap();
    planted(dir.path());
    let data =
        Dataset::local(&[dir.path().display().to_string()], &ListOptions::default()).unwrap();
    let run = |n: usize| {
        data.run(&Plumb::new(), DatasetOp::Inspect, None, &stats_request(n))
            .unwrap()
            .to_json()
            .to_string()
    };
    let one = run(1);
    assert!(one.contains("order_dependent"), "{one}");
    for n in [2, 3, 8] {
        assert_eq!(run(n), one, "{n} threads");
    }
}
