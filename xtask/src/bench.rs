//! `cargo xtask bench`: runs the criterion benches and prints one table
//! of throughput and, for each plumb function, its speed relative to
//! every baseline in the same group (above 1.0: plumb is faster).
//!
//! `--save NAME` keeps each bench's mean time in
//! `benches/baselines/NAME.json` (a file in the repository, so a
//! baseline of main travels with the code); `--compare NAME` prints each
//! bench's time against it, so a regression reads as a ratio. Criterion's
//! own `--save-baseline` lives under `target/criterion`, which every run
//! clears so that renamed benches leave no stale rows.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use serde_json::Value;

fn read(p: &Path) -> Option<Value> {
    serde_json::from_slice(&std::fs::read(p).ok()?).ok()
}

/// Runs the benches (unless `skip_run`) and prints the table; `save`
/// writes each bench's mean time to `benches/baselines/NAME.json`,
/// `compare` adds each bench's time against such a file.
pub fn run(
    root: &Path,
    seconds: u64,
    skip_run: bool,
    save: Option<&str>,
    compare: Option<&str>,
) -> Result<(), String> {
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
    let results = collect(&root.join("target/criterion"))?;
    let dir = root.join("benches/baselines");
    let saved = match compare {
        Some(name) => {
            let path = dir.join(format!("{name}.json"));
            let v = read(&path).ok_or_else(|| {
                format!(
                    "no saved baseline {} (save one with --save)",
                    path.display()
                )
            })?;
            Some(
                v.as_object()
                    .map(|m| {
                        m.iter()
                            .filter_map(|(k, v)| Some((k.clone(), v.as_f64()?)))
                            .collect::<BTreeMap<String, f64>>()
                    })
                    .unwrap_or_default(),
            )
        }
        None => None,
    };
    print_table(&results, saved.as_ref(), compare.unwrap_or_default());
    if let Some(name) = save {
        std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
        let map: serde_json::Map<String, Value> = results
            .iter()
            .flat_map(|(g, fns)| {
                fns.iter()
                    .map(move |(f, ns, _)| (format!("{g}/{f}"), Value::from(*ns)))
            })
            .collect();
        let path = dir.join(format!("{name}.json"));
        let text = serde_json::to_string_pretty(&Value::Object(map)).map_err(|e| e.to_string())?;
        std::fs::write(&path, text + "\n").map_err(|e| e.to_string())?;
        println!("saved: {}", path.display());
    }
    Ok(())
}

/// One group's functions: name, mean nanoseconds, MB/s.
type Group = Vec<(String, f64, f64)>;

/// Every group of criterion's last report, in name order.
fn collect(crit: &Path) -> Result<Vec<(String, Group)>, String> {
    let mut groups: Vec<_> = std::fs::read_dir(crit)
        .map_err(|e| e.to_string())?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir() && p.file_name().is_some_and(|n| n != "report"))
        .collect();
    groups.sort();
    let mut out = Vec::new();
    for g in groups {
        let mut fns: Group = Vec::new();
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
        out.push((group, fns));
    }
    Ok(out)
}

/// The table: throughput, each plumb function against the baselines of
/// its group, and (with a saved baseline) each function's time against
/// the saved time: above 1.0 is slower now.
fn print_table(results: &[(String, Group)], saved: Option<&BTreeMap<String, f64>>, name: &str) {
    if saved.is_some() {
        println!("| group | function | MB/s | relative to baselines | time vs {name} |");
        println!("|---|---|---:|---|---:|");
    } else {
        println!("| group | function | MB/s | relative to baselines |");
        println!("|---|---|---:|---|");
    }
    for (group, fns) in results {
        for (name, ns, mbs) in fns {
            let rel = if name.contains("plumb") {
                fns.iter()
                    .filter(|(b, _, _)| !b.contains("plumb"))
                    .map(|(b, bns, _)| format!("{:.2}x {b}", bns / ns))
                    .collect::<Vec<_>>()
                    .join(", ")
            } else {
                "baseline".to_owned()
            };
            match saved {
                Some(m) => {
                    let change = match m.get(&format!("{group}/{name}")) {
                        Some(old) if *old > 0.0 => format!("{:.2}x", ns / old),
                        _ => "new".to_owned(),
                    };
                    println!("| {group} | {name} | {mbs:.0} | {rel} | {change} |");
                }
                None => println!("| {group} | {name} | {mbs:.0} | {rel} |"),
            }
        }
    }
}
