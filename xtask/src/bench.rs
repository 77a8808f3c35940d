//! `cargo xtask bench`: runs the criterion benches and prints one table
//! of throughput and, for each plumb function, its speed relative to
//! every baseline in the same group (above 1.0: plumb is faster).

use std::path::Path;
use std::process::Command;

use serde_json::Value;

fn read(p: &Path) -> Option<Value> {
    serde_json::from_slice(&std::fs::read(p).ok()?).ok()
}

/// Runs the benches (unless `skip_run`) and prints the table.
pub fn run(root: &Path, seconds: u64, skip_run: bool) -> Result<(), String> {
    if !skip_run {
        // Results of benches since renamed or removed would stay in the
        // table; start from an empty report.
        let _ = std::fs::remove_dir_all(root.join("target/criterion"));
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
        let ok = Command::new(cargo)
            .args([
                "bench",
                "-p",
                "plumb-benches",
                "--",
                "--warm-up-time",
                "1",
                "--measurement-time",
            ])
            .arg(seconds.to_string())
            .current_dir(root)
            .status()
            .map_err(|e| e.to_string())?
            .success();
        if !ok {
            return Err("cargo bench failed".to_owned());
        }
    }
    let crit = root.join("target/criterion");
    let mut groups: Vec<_> = std::fs::read_dir(&crit)
        .map_err(|e| e.to_string())?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir() && p.file_name().is_some_and(|n| n != "report"))
        .collect();
    groups.sort();
    println!("| group | function | MB/s | relative to baselines |");
    println!("|---|---|---:|---|");
    for g in groups {
        let mut fns: Vec<(String, f64, f64)> = Vec::new();
        let mut entries: Vec<_> = std::fs::read_dir(&g)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.is_dir() && p.file_name().is_some_and(|n| n != "report"))
            .collect();
        entries.sort();
        for f in entries {
            let (Some(est), Some(meta)) = (
                read(&f.join("new/estimates.json")),
                read(&f.join("new/benchmark.json")),
            ) else {
                continue;
            };
            let ns = est["mean"]["point_estimate"].as_f64().unwrap_or(0.0);
            let bytes = meta["throughput"]["Bytes"].as_f64().unwrap_or(0.0);
            let mbs = if ns > 0.0 { bytes / ns * 1e3 } else { 0.0 };
            let name = f
                .file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned();
            fns.push((name, ns, mbs));
        }
        let group = g
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        for (name, ns, mbs) in &fns {
            let rel = if name.contains("plumb") {
                fns.iter()
                    .filter(|(b, _, _)| !b.contains("plumb"))
                    .map(|(b, bns, _)| format!("{:.2}x {b}", bns / ns))
                    .collect::<Vec<_>>()
                    .join(", ")
            } else {
                "baseline".to_owned()
            };
            println!("| {group} | {name} | {mbs:.0} | {rel} |");
        }
    }
    Ok(())
}
