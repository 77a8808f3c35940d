//! `cargo xtask peers [--mb N]`: the whole process of plumb beside the
//! tools a user would pick instead, on one generated CSV, in one run:
//! wall time (the best of three) and peak RSS of `plumb inspect`,
//! `plumb inspect --stats`, `xan stats` and DuckDB's `SUMMARIZE` (each
//! peer when it is installed: `cargo install xan`, `pip install
//! duckdb`). The ratios are what count: plumb's time over the peer's.

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

fn found(program: &str, args: &[&str]) -> bool {
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
    let mut results = Vec::new();
    for (name, program, args) in &runs {
        let mut best = f64::MAX;
        let mut rss = 0;
        for _ in 0..3 {
            let started = Instant::now();
            let (kib, code) = peak_rss_kib(Path::new(program), args)?;
            if code != 0 {
                return Err(format!("{name} exited {code}"));
            }
            best = best.min(started.elapsed().as_secs_f64());
            rss = rss.max(kib);
        }
        results.push((name.clone(), best, rss));
    }
    let stats_time = results.get(1).map_or(f64::NAN, |r| r.1);
    for (name, secs, kib) in &results {
        println!(
            "| {name} | {secs:.2} | {:.1} | {:.2}x |",
            *kib as f64 / 1024.0,
            stats_time / secs
        );
    }
    Ok(true)
}
