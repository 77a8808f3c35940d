//! `cargo xtask peers [--mb N]`: the whole process of plumb beside the
//! tools a user would pick instead, on generated files, in one run: wall
//! time (the best of three) and peak RSS of
//!
//! - statistics: `plumb inspect`, `plumb inspect --stats`, `xan stats`
//!   and DuckDB's `SUMMARIZE` on one CSV;
//! - search: `plumb search` beside `rg -c` (a literal and a regex) on a
//!   log, and a CSV column predicate beside plumb's own `validate`, on
//!   the mixed CSV and on one of narrow rows.
//!
//! Each peer runs when it is installed (`cargo install xan`, `pip install
//! duckdb`, `apt install ripgrep`). The ratios are what count.

use std::io::Write;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

use crate::memtest::{peak_rss_kib, pieces_until};

/// A CSV of mixed columns, `bytes` long: an id and a key (distinct), a
/// name of a thousand values, a city of five, a decimal amount, a date
/// and quoted free text.
fn generate(path: &Path, bytes: u64) -> std::io::Result<()> {
    let mut w = std::io::BufWriter::new(std::fs::File::create(path)?);
    w.write_all(b"id,key,name,city,amount,when,note\n")?;
    let cities = ["Lyon", "Koln", "Paris", "Oslo", "Bern"];
    pieces_until(&mut w, bytes, |i| {
        format!(
            "{i},k{:x},name {},{},{}.{:02},20{:02}-{:02}-{:02},\"note {i}, some words\"\n",
            i.wrapping_mul(0x9E37_79B9_7F4A_7C15),
            i % 1000,
            cities[(i % 5) as usize],
            i % 10_007,
            i % 100,
            10 + i % 15,
            i % 12 + 1,
            i % 28 + 1
        )
    })?;
    w.flush()
}

/// A CSV of narrow rows, `bytes` long: an id, a city of three and a
/// decimal amount, some 20 bytes a row (three rows to a 64-byte block,
/// where the mixed file's rows each span two), so a column search's
/// cost a row shows beside validate's.
fn generate_narrow(path: &Path, bytes: u64) -> std::io::Result<()> {
    let mut w = std::io::BufWriter::new(std::fs::File::create(path)?);
    w.write_all(b"id,city,amount\n")?;
    let cities = ["Lyon", "Koln", "Paris"];
    pieces_until(&mut w, bytes, |i| {
        format!(
            "{i},{},{}.{:02}\n",
            cities[(i % 3) as usize],
            i % 10_007,
            i % 100
        )
    })?;
    w.flush()
}

pub(crate) fn found(program: &str, args: &[&str]) -> bool {
    Command::new(program)
        .args(args)
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Builds the release binary, generates the file, times every command.
pub fn run(root: &Path, mb: u64) -> Result<bool, String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let built = Command::new(&cargo)
        .args(["build", "--release", "-p", "plumb-cli"])
        .current_dir(root)
        .status()
        .map_err(|e| e.to_string())?
        .success();
    if !built {
        return Err("cargo build --release -p plumb-cli failed".to_owned());
    }
    let dir = tempfile::Builder::new()
        .prefix("plumb-peers-")
        .tempdir_in(root.join("target"))
        .map_err(|e| e.to_string())?;
    let file = dir.path().join("mixed.csv");
    generate(&file, mb << 20).map_err(|e| e.to_string())?;
    let f = file.display().to_string();
    let plumb = root.join("target/release/plumb").display().to_string();
    let mut runs: Vec<(String, String, Vec<String>)> = vec![
        (
            "plumb inspect".into(),
            plumb.clone(),
            vec!["inspect".into(), f.clone(), "--json".into()],
        ),
        (
            "plumb inspect --stats".into(),
            plumb,
            vec![
                "inspect".into(),
                f.clone(),
                "--stats".into(),
                "--json".into(),
            ],
        ),
    ];
    if found("xan", &["--version"]) {
        runs.push((
            "xan stats".into(),
            "xan".into(),
            vec!["stats".into(), f.clone()],
        ));
    } else {
        eprintln!("xan not found (cargo install xan): its row is left out");
    }
    if found("python3", &["-c", "import duckdb"]) {
        let sql = format!(
            "import duckdb; duckdb.sql(\"SUMMARIZE SELECT * FROM read_csv('{f}')\").fetchall()"
        );
        runs.push((
            "duckdb SUMMARIZE".into(),
            "python3".into(),
            vec!["-c".into(), sql],
        ));
    } else {
        eprintln!("duckdb not importable (pip install duckdb): its row is left out");
    }
    println!("{mb} MiB CSV, best of three runs each");
    println!("| command | seconds | peak RSS (MiB) | plumb inspect --stats time / this |");
    println!("|---|---:|---:|---:|");
    let results = time_runs(&runs)?;
    let stats_time = results.get(1).map_or(f64::NAN, |r| r.1);
    for (name, secs, kib) in &results {
        println!(
            "| {name} | {secs:.2} | {:.1} | {:.2}x |",
            *kib as f64 / 1024.0,
            stats_time / secs
        );
    }
    search(&plumb_path(root), dir.path(), &f, mb)?;
    Ok(true)
}

fn plumb_path(root: &Path) -> String {
    root.join("target/release/plumb").display().to_string()
}

/// A log of `bytes`: timestamped lines of a few words, one in 100,000
/// holding a request id.
fn generate_log(path: &Path, bytes: u64) -> std::io::Result<()> {
    let mut w = std::io::BufWriter::new(std::fs::File::create(path)?);
    let words = [
        "GET",
        "POST",
        "/api/v1/items",
        "status=200",
        "status=500",
        "user",
        "session",
    ];
    pieces_until(&mut w, bytes, |i| {
        let n = 4 + (i % 7) as usize;
        let mut line = format!("2026-12-01T10:{:02}:{:02}Z", i % 60, (i / 60) % 60);
        for k in 0..n {
            line.push(' ');
            line.push_str(words[((i >> k) % 7) as usize]);
        }
        if i % 100_000 == 77 {
            line.push_str(" rid=needle-4242");
        }
        line.push('\n');
        line
    })?;
    w.flush()
}

/// The best of three runs of each command: (name, seconds, peak RSS in
/// KiB). Exit code 1 is taken as an answer (`rg -c` finding nothing).
fn time_runs(runs: &[(String, String, Vec<String>)]) -> Result<Vec<(String, f64, u64)>, String> {
    let mut results = Vec::new();
    for (name, program, args) in runs {
        let mut best = f64::MAX;
        let mut rss = 0;
        for _ in 0..3 {
            let started = Instant::now();
            let (kib, code) = peak_rss_kib(Path::new(program), args)?;
            if code > 1 {
                return Err(format!("{name} exited {code}"));
            }
            best = best.min(started.elapsed().as_secs_f64());
            rss = rss.max(kib);
        }
        results.push((name.clone(), best, rss));
    }
    Ok(results)
}

/// A plumb command line and its peer's: (label, plumb's arguments with
/// the program first, the peer's name, program and arguments).
type Pair<'a> = (&'a str, Vec<String>, &'a str, String, Vec<String>);

/// Search beside its peers: each plumb row with the row it is measured
/// against, and the ratio of their times.
fn search(plumb: &str, dir: &Path, csv: &str, mb: u64) -> Result<(), String> {
    let log = dir.join("app.log");
    generate_log(&log, mb << 20).map_err(|e| e.to_string())?;
    let log = log.display().to_string();
    let strs = |v: &[&str]| v.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
    let mut pairs: Vec<Pair> = Vec::new();
    let rg = found("rg", &["--version"]);
    if !rg {
        eprintln!("rg not found (apt install ripgrep): the text rows are left out");
    }
    for (label, pattern) in [
        ("literal", "needle-4242"),
        ("regex", r"needle-[0-9]+2$"),
        ("regex, no literal", r"[a-z]{4}=5\d\d"),
    ] {
        if rg {
            pairs.push((
                label,
                strs(&[plumb, "search", &log, pattern, "--count-only", "--json"]),
                "rg -c",
                "rg".into(),
                strs(&["-c", pattern, &log]),
            ));
        }
    }
    let narrow = dir.join("narrow.csv");
    generate_narrow(&narrow, mb << 20).map_err(|e| e.to_string())?;
    let narrow = narrow.display().to_string();
    // Counting every hit, and (the form a user types) listing the hits
    // of a predicate that holds once, so the whole file is read; on the
    // mixed file and on narrow rows.
    for (label, file, column, predicate, count) in [
        ("CSV column", csv, "city", "= Lyon", true),
        ("CSV column", csv, "amount", "> 5000.5", true),
        ("CSV column", csv, "id", "= 123456", true),
        ("CSV column, hits listed", csv, "id", "= 123456", false),
        ("narrow CSV column", &narrow, "city", "= Lyon", true),
        ("narrow CSV column", &narrow, "amount", "> 5000.5", true),
    ] {
        let mut args = strs(&[
            plumb, "search", file, "--column", column, "--where", predicate, "--json",
        ]);
        if count {
            args.push("--count-only".into());
        }
        pairs.push((
            label,
            args,
            "plumb validate",
            plumb.to_owned(),
            strs(&["validate", file, "--json"]),
        ));
    }
    println!();
    println!("{mb} MiB files, search beside its peer, best of three runs each");
    println!("| search | plumb s | peer | peer s | plumb / peer | plumb RSS (MiB) |");
    println!("|---|---:|---|---:|---:|---:|");
    for (label, ours, peer, program, args) in pairs {
        let rows = time_runs(&[
            ("plumb".into(), ours[0].clone(), ours[1..].to_vec()),
            (peer.into(), program, args),
        ])?;
        let shown = ours[1..]
            .iter()
            .filter(|a| !a.contains('/') && !a.starts_with("--count") && *a != "--json")
            .cloned()
            .collect::<Vec<_>>()
            .join(" ");
        println!(
            "| {label}: {shown} | {:.3} | {peer} | {:.3} | {:.2}x | {:.1} |",
            rows[0].1,
            rows[1].1,
            rows[0].1 / rows[1].1,
            rows[0].2 as f64 / 1024.0
        );
    }
    Ok(())
}

/// One row of the whole-process table: a label, plumb's arguments, and
/// each peer (name, program, arguments).
pub(crate) type SpeedRow = (
    &'static str,
    Vec<String>,
    Vec<(&'static str, String, Vec<String>)>,
);

/// The whole-process comparison of issue 22's table, one command: CSV
/// validate and inspect, JSON and JSON Lines validate, each beside the
/// peers a user would pick (xan when installed; the `csv` crate and
/// serde_json through `peer-harness`), on the benches' generated inputs
/// of `mb` MiB in page cache. Prints each peer's time and plumb's time
/// over it (below 1.00x: plumb is faster).
pub fn process(root: &Path, mb: u64) -> Result<bool, String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    for args in [
        &["build", "--release", "-p", "plumb-cli"][..],
        &[
            "build",
            "--release",
            "-p",
            "plumb-benches",
            "--bin",
            "peer-harness",
        ][..],
    ] {
        let ok = Command::new(&cargo)
            .args(args)
            .current_dir(root)
            .status()
            .map_err(|e| e.to_string())?
            .success();
        if !ok {
            return Err(format!("cargo {} failed", args.join(" ")));
        }
    }
    let harness = root
        .join("target/release/peer-harness")
        .display()
        .to_string();
    let plumb = plumb_path(root);
    let dir = tempfile::Builder::new()
        .prefix("plumb-process-")
        .tempdir_in(root.join("target"))
        .map_err(|e| e.to_string())?;
    let mut files = Vec::new();
    for (kind, name) in [
        ("mixed-csv", "mixed.csv"),
        ("objects-json", "objects.json"),
        ("records-jsonl", "records.jsonl"),
    ] {
        let path = dir.path().join(name).display().to_string();
        let ok = Command::new(&harness)
            .args(["gen", kind, &path, &mb.to_string()])
            .stdout(std::process::Stdio::null())
            .status()
            .map_err(|e| e.to_string())?
            .success();
        if !ok {
            return Err(format!("peer-harness gen {kind} failed"));
        }
        files.push(path);
    }
    let s = |v: &[&str]| v.iter().map(|x| (*x).to_owned()).collect::<Vec<_>>();
    let (csv, json, jsonl) = (&files[0], &files[1], &files[2]);
    let xan = found("xan", &["--version"]);
    if !xan {
        eprintln!("xan not found (cargo install xan): its rows are left out");
    }
    let mut rows: Vec<SpeedRow> = vec![
        (
            "CSV validate",
            s(&["validate", csv, "--json"]),
            vec![(
                "csv crate ByteRecord loop",
                harness.clone(),
                s(&["csv-records", csv]),
            )],
        ),
        ("CSV inspect", s(&["inspect", csv, "--json"]), vec![]),
        (
            "JSON validate",
            s(&["validate", json, "--json"]),
            vec![
                (
                    "serde_json from_reader",
                    harness.clone(),
                    s(&["serde-reader", json]),
                ),
                (
                    "serde_json from_slice",
                    harness.clone(),
                    s(&["serde-slice", json]),
                ),
            ],
        ),
        ("JSON inspect", s(&["inspect", json, "--json"]), vec![]),
        (
            "JSONL validate",
            s(&["validate", jsonl, "--json"]),
            vec![(
                "serde_json per line",
                harness.clone(),
                s(&["serde-lines", jsonl]),
            )],
        ),
    ];
    // Each scan beside itself on one thread: the parts' speed-up.
    for row in rows.iter_mut() {
        let mut one = row.1.clone();
        one.extend(s(&["--threads", "1"]));
        row.2.push(("plumb --threads 1", plumb.clone(), one));
    }
    rows.extend(crate::bench_datasets::rows(dir.path(), &harness, &plumb)?);
    if xan {
        rows[0]
            .2
            .push(("xan count -c", "xan".into(), s(&["count", "-c", csv])));
        // Without -c xan only counts line ends outside quotes, checking
        // no row's width: a lighter job than validate, shown for scale.
        rows[0].2.push((
            "xan count (no width check)",
            "xan".into(),
            s(&["count", csv]),
        ));
        rows[1]
            .2
            .push(("xan stats", "xan".into(), s(&["stats", csv])));
    }
    println!("{mb} MiB generated files in page cache, whole process, best of three runs each");
    println!("| operation | plumb s | plumb RSS (MiB) | peer | peer s | plumb / peer |");
    println!("|---|---:|---:|---|---:|---:|");
    for (label, args, peers) in rows {
        let mut runs = vec![("plumb".to_owned(), plumb.clone(), args)];
        runs.extend(
            peers
                .iter()
                .map(|(n, p, a)| ((*n).to_owned(), p.clone(), a.clone())),
        );
        let times = time_runs(&runs)?;
        let ours = &times[0];
        if times.len() == 1 {
            println!(
                "| {label} | {:.3} | {:.1} | (none installed) | | |",
                ours.1,
                ours.2 as f64 / 1024.0
            );
        }
        for peer in &times[1..] {
            println!(
                "| {label} | {:.3} | {:.1} | {} | {:.3} | {:.2}x |",
                ours.1,
                ours.2 as f64 / 1024.0,
                peer.0,
                peer.1,
                ours.1 / peer.1
            );
        }
    }
    Ok(true)
}
