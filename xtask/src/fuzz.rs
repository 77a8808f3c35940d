//! `cargo xtask fuzz [TARGET] [--seconds N]`: runs the cargo-fuzz
//! targets on the nightly toolchain with a corpus seeded from
//! ../shared/conformance and the repository's sample data, and prints a
//! table of target, runs, coverage and crashes.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Every target, named after the public entry point it drives.
pub const TARGETS: [&str; 19] = [
    "containers",
    "layers",
    "text_stream",
    "csv_push",
    "csv_inspect",
    "number_judgement",
    "json_push",
    "jsonl_lines",
    "detect",
    "entry_points",
    "read_interval",
    "tool_paths",
    "tree_paths",
    "mcp_lines",
    "search_text",
    "csv_search",
    "parquet_reader",
    "sheets_reader",
    "range_parts",
];

fn seeds(target: &str, root: &Path, data: &Path) -> Vec<PathBuf> {
    let dirs: Vec<PathBuf> = match target {
        "csv_push" | "csv_inspect" | "csv_search" => vec![
            data.join("csv-spectrum/csvs"),
            data.join("csvlint/cases"),
            data.join("tsv-utils-csv2tsv/input"),
        ],
        "json_push" => vec![data.join("json-testsuite/test_parsing")],
        "jsonl_lines" => vec![data.join("jsonlines/cases")],
        "text_stream" => vec![data.join("utf8/kuhn"), data.join("csvlint/fixtures")],
        "read_interval" | "search_text" => {
            vec![data.join("jsonlines/cases"), root.join("examples/data")]
        }
        "tool_paths" | "number_judgement" | "tree_paths" => vec![],
        "mcp_lines" => vec![root.join("fuzz/seeds/mcp_lines")],
        "parquet_reader" => vec![
            data.join("parquet-testing/data"),
            data.join("parquet-testing/bad_data"),
            root.join("examples/data"),
        ],
        "sheets_reader" => vec![
            data.join("calamine-spreadsheets/tests"),
            root.join("examples/data"),
        ],
        _ => vec![
            data.join("csv-spectrum/csvs"),
            data.join("jsonlines/cases"),
            data.join("json-testsuite/test_parsing"),
            root.join("examples/data"),
        ],
    };
    let mut out = Vec::new();
    for d in dirs {
        let mut files: Vec<PathBuf> = std::fs::read_dir(&d)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .collect();
        files.sort();
        out.extend(
            files
                .into_iter()
                .filter(|p| {
                    p.is_file() && p.metadata().map(|m| m.len() <= 64 * 1024).unwrap_or(false)
                })
                .take(300),
        );
    }
    out
}

fn ensure_tools(cargo: &str) -> Result<(), String> {
    let has_fuzz = Command::new(cargo)
        .args(["fuzz", "--version"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_fuzz {
        eprintln!("installing cargo-fuzz from crates.io");
        let ok = Command::new(cargo)
            .args(["install", "cargo-fuzz", "--locked"])
            .status()
            .map_err(|e| e.to_string())?
            .success();
        if !ok {
            return Err("cargo install cargo-fuzz failed".to_owned());
        }
    }
    let has_nightly = Command::new("rustup")
        .args(["run", "nightly", "rustc", "--version"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_nightly {
        return Err(
            "the nightly toolchain is missing (rustup toolchain install nightly)".to_owned(),
        );
    }
    Ok(())
}

struct Stats {
    runs: u64,
    cov: u64,
    crashes: usize,
    note: String,
}

fn parse(stderr: &str) -> (u64, u64) {
    let mut runs = 0;
    let mut cov = 0;
    for line in stderr.lines() {
        if let Some(v) = line.strip_prefix("stat::number_of_executed_units:") {
            runs = v.trim().parse().unwrap_or(runs);
        }
        if line.contains("cov: ")
            && (line.contains("DONE")
                || line.contains("pulse")
                || line.contains("NEW")
                || line.contains("REDUCE")
                || line.contains("INITED"))
        {
            if let Some(c) = line
                .split("cov: ")
                .nth(1)
                .and_then(|t| t.split_whitespace().next())
                .and_then(|n| n.parse().ok())
            {
                cov = c;
            }
        }
        if line.starts_with('#') && line.contains("DONE") {
            if let Some(n) = line
                .trim_start_matches('#')
                .split_whitespace()
                .next()
                .and_then(|n| n.parse().ok())
            {
                runs = runs.max(n);
            }
        }
    }
    (runs, cov)
}

/// The engines hold no `unsafe`, so AddressSanitizer has nothing of
/// theirs to watch; without it the targets build in about a minute less
/// and run more inputs a second. A panic, an overflow in a debug
/// assertion, a timeout or the RSS limit still end a run as a crash.
const SANITIZER: &str = "--sanitizer=none";

/// Runs the targets; returns whether none crashed.
pub fn run(root: &Path, data: &Path, only: Option<&str>, seconds: u64) -> Result<bool, String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    ensure_tools(&cargo)?;
    let fuzz_dir = root.join("fuzz");
    let targets: Vec<&str> = match only {
        Some(t) if TARGETS.contains(&t) => vec![t],
        Some(t) => {
            return Err(format!(
                "no fuzz target `{t}`; the targets are {}",
                TARGETS.join(", ")
            ))
        }
        None => TARGETS.to_vec(),
    };
    let ok = Command::new("rustup")
        .args(["run", "nightly", "cargo", "fuzz", "build", SANITIZER])
        .current_dir(&fuzz_dir)
        .status()
        .map_err(|e| e.to_string())?
        .success();
    if !ok {
        return Err("cargo fuzz build failed".to_owned());
    }
    let mut rows = Vec::new();
    for t in &targets {
        let corpus = fuzz_dir.join("corpus").join(t);
        std::fs::create_dir_all(&corpus).map_err(|e| e.to_string())?;
        for (i, seed) in seeds(t, root, data).iter().enumerate() {
            let _ = std::fs::copy(seed, corpus.join(format!("seed-{i:04}")));
        }
        let artifacts = fuzz_dir.join("artifacts").join(t);
        let before = std::fs::read_dir(&artifacts)
            .map(|d| d.count())
            .unwrap_or(0);
        let out = Command::new("rustup")
            .args(["run", "nightly", "cargo", "fuzz", "run", SANITIZER, t])
            .arg(&corpus)
            .arg("--")
            .arg(format!("-max_total_time={seconds}"))
            .arg("-print_final_stats=1")
            .arg("-rss_limit_mb=4096")
            .current_dir(&fuzz_dir)
            .output()
            .map_err(|e| e.to_string())?;
        let stderr = String::from_utf8_lossy(&out.stderr);
        let (runs, cov) = parse(&stderr);
        let after = std::fs::read_dir(&artifacts)
            .map(|d| d.count())
            .unwrap_or(0);
        let crashes =
            after.saturating_sub(before) + usize::from(!out.status.success() && after == before);
        let note = if out.status.success() {
            String::new()
        } else {
            stderr
                .lines()
                .filter(|l| l.contains("panicked") || l.contains("ERROR"))
                .take(2)
                .collect::<Vec<_>>()
                .join(" / ")
        };
        rows.push((
            t.to_string(),
            Stats {
                runs,
                cov,
                crashes,
                note,
            },
        ));
    }
    println!("| target | runs | coverage | crashes | note |");
    println!("|---|---:|---:|---:|---|");
    let mut clean = true;
    for (t, s) in &rows {
        clean &= s.crashes == 0;
        println!(
            "| {t} | {} | {} | {} | {} |",
            s.runs, s.cov, s.crashes, s.note
        );
    }
    Ok(clean)
}
