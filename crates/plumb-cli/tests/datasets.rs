//! The command line over a dataset: a folder, a glob and several paths
//! give one answer; validate's exit status is every file's; the view for
//! a person fits its width and shows the merged columns before the files.

mod common;

use common::{assert_fits, plumb};
use serde_json::Value;

fn set() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let w = |name: &str, text: &str| std::fs::write(dir.path().join(name), text).unwrap();
    w("a.csv", "id,amount\n1,10\n2,20\n");
    w("b.csv", "id,amount\n3,30\n");
    w("c.csv", "id,amount,note\n4,n/a,late\n");
    w("d.csv", "id,amount\n5\n");
    dir
}

fn json(args: &[&str]) -> (Value, i32) {
    let out = plumb(args);
    let v = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)));
    (v, out.status.code().unwrap())
}

#[test]
fn a_folder_a_glob_and_several_paths_answer_alike() {
    let dir = set();
    let d = dir.path().display().to_string();
    let (by_folder, code) = json(&["inspect", &d, "--json"]);
    assert_eq!(code, 0);
    let glob = format!("{d}/*.csv");
    let (by_glob, _) = json(&["inspect", &glob, "--json"]);
    let paths: Vec<String> = ["a", "b", "c", "d"]
        .iter()
        .map(|n| format!("{d}/{n}.csv"))
        .collect();
    let mut args = vec!["inspect"];
    args.extend(paths.iter().rev().map(String::as_str));
    args.push("--json");
    let (by_paths, _) = json(&args);
    for v in [&by_glob, &by_paths] {
        assert_eq!(v["columns"], by_folder["columns"]);
        assert_eq!(v["files"], by_folder["files"]);
    }
    assert_eq!(by_folder["totals"]["files"], 4);
    let amount = &by_folder["columns"][0];
    assert_eq!(amount["name"], "amount");
    assert_eq!(amount["type_differs"]["path"], format!("{d}/c.csv"));
    let (one_thread, _) = json(&["inspect", &d, "--json", "--threads", "1"]);
    assert_eq!(one_thread, by_folder);
}

#[test]
fn validate_exits_one_unless_every_file_is_valid() {
    let dir = set();
    let d = dir.path().display().to_string();
    let (v, code) = json(&["validate", &d, "--json"]);
    assert_eq!((v["valid"].as_bool(), code), (Some(false), 1), "{v}");
    let bad: Vec<&Value> = v["files"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| l["valid"] == false)
        .collect();
    assert_eq!(bad.len(), 1);
    assert!(bad[0]["path"].as_str().unwrap().ends_with("d.csv"));
    assert_eq!(bad[0]["fault"]["line"], 2);
    let (v, code) = json(&[
        "validate",
        &format!("{d}/a.csv"),
        &format!("{d}/b.csv"),
        "--json",
    ]);
    assert_eq!((v["valid"].as_bool(), code), (Some(true), 0));
    let out = plumb(&["select", &d]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("a.csv"));
}

#[test]
fn the_view_fits_and_shows_the_merged_columns_first() {
    let dir = set();
    let d = dir.path().display().to_string();
    for width in [60, 80, 120] {
        let out = plumb(&["inspect", &d, "--width", &width.to_string()]);
        let text = String::from_utf8(out.stdout).unwrap();
        assert_fits(&text, width, "dataset inspect");
        let columns = text.find("columns (").unwrap();
        let files = text.find("\nfiles\n").unwrap();
        assert!(columns < files, "{text}");
        assert!(text.contains("4 files"), "{text}");
    }
    let out = plumb(&["search", &d, "3", "--width", "80"]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.lines().any(|l| l.contains("b.csv:2: 3,30")), "{text}");
}

/// Parquet files of the conformance suite (copied into a folder of the
/// test's own): each field of one leaf merges its statistics across
/// files, counts and exact sums adding up to the files' own, the same
/// at one thread and two.
#[test]
fn parquet_statistics_merge_across_files_to_their_sums() {
    let suite = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/conformance/parquet-testing/data");
    let names = [
        "alltypes_plain.parquet",
        "alltypes_plain.snappy.parquet",
        "alltypes_tiny_pages_plain.parquet",
    ];
    if !names.iter().all(|n| suite.join(n).is_file()) {
        eprintln!("note: ../shared/conformance/parquet-testing is absent; skipped");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    for n in names {
        std::fs::copy(suite.join(n), dir.path().join(n)).unwrap();
    }
    let d = dir.path().display().to_string();
    let (merged, code) = json(&["inspect", &d, "--stats", "--json", "--threads", "2"]);
    assert_eq!(code, 0, "{merged}");
    let (one, _) = json(&["inspect", &d, "--stats", "--json", "--threads", "1"]);
    assert_eq!(one, merged);
    let files: Vec<Value> = names
        .iter()
        .map(|n| json(&["inspect", &format!("{d}/{n}"), "--stats", "--json"]).0)
        .collect();
    let mut checked = 0;
    for c in merged["columns"].as_array().unwrap() {
        let name = c["name"].as_str().unwrap();
        let own: Vec<&Value> = files
            .iter()
            .filter_map(|f| {
                f["columns"]
                    .as_array()?
                    .iter()
                    .find(|col| col["path"] == name)
                    .map(|col| &col["stats"])
            })
            .collect();
        let s = &c["stats"];
        assert_eq!(s["files"], own.len(), "{name}");
        let total = |k: &str| own.iter().map(|o| o[k].as_u64().unwrap()).sum::<u64>();
        assert_eq!(s["count"], total("count"), "{name}");
        assert_eq!(s["nulls"], total("nulls"), "{name}");
        if own
            .iter()
            .all(|o| o["accuracy"]["sum"] == "exact" && o["numbers"]["sum"].is_i64())
        {
            let sum: i64 = own
                .iter()
                .map(|o| o["numbers"]["sum"].as_i64().unwrap())
                .sum();
            assert_eq!(s["numbers"]["sum"], sum, "{name}");
            assert_eq!(s["accuracy"]["sum"], "exact", "{name}");
            checked += 1;
        }
    }
    assert!(checked >= 4, "{checked} integer columns summed");
}
