//! `cargo xtask`: plumb's project automation, written in Rust so it runs
//! wherever cargo does.
//!
//! - `tidy`: the repository's structural rules (also a test).
//! - `fuzz [TARGET] [--seconds N]`: the fuzzing campaign.
//! - `memtest [--mb N]`: peak RSS of the release binary on adversarial inputs.
//! - `conformance [--data DIR]`: every suite in ../shared/conformance.
//! - `bench [--seconds N] [--table-only]`: the benches and one table.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

mod bench;
mod conformance;
mod fuzz;
mod memtest;
mod tidy;

fn flag<T: std::str::FromStr>(args: &[String], name: &str) -> Option<T> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
}

fn usage() -> ExitCode {
    eprintln!(
        "usage: cargo xtask <tidy | fuzz [TARGET] [--seconds N] | memtest [--mb N] | conformance [--data DIR] | bench [--seconds N] [--table-only]>"
    );
    ExitCode::from(2)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let root = project_root();
    let rest = args.get(1..).unwrap_or_default();
    match args.first().map(String::as_str) {
        Some("tidy") => match tidy::run(&root) {
            Ok(()) => {
                println!("tidy: ok");
                ExitCode::SUCCESS
            }
            Err(problems) => {
                for p in problems {
                    eprintln!("tidy: {p}");
                }
                ExitCode::FAILURE
            }
        },
        Some("__rss") => ExitCode::from(memtest::rss_helper(rest) as u8),
        Some("memtest") => {
            let mb = flag(rest, "--mb").unwrap_or(1024);
            match memtest::run(&root, mb) {
                Ok(true) => ExitCode::SUCCESS,
                Ok(false) => {
                    eprintln!("memtest: a run passed {} MiB", memtest::RSS_LIMIT_MIB);
                    ExitCode::FAILURE
                }
                Err(e) => {
                    eprintln!("memtest: {e}");
                    ExitCode::FAILURE
                }
            }
        }
        Some("conformance") => {
            let data: PathBuf = flag::<String>(rest, "--data")
                .map(PathBuf::from)
                .unwrap_or_else(|| root.join("../shared/conformance"));
            if !data.is_dir() {
                eprintln!(
                    "conformance: {} is not a folder; pass --data DIR",
                    data.display()
                );
                return ExitCode::FAILURE;
            }
            let rows = conformance::run(&data);
            println!("| suite | passed | failed | of which documented choices |");
            println!("|---|---:|---:|---:|");
            let mut failed = 0;
            for r in &rows {
                println!(
                    "| {} | {} | {} | {} |",
                    r.suite,
                    r.passed,
                    r.failed.len(),
                    r.documented
                );
                failed += r.failed.len();
            }
            for r in &rows {
                for f in r.failed.iter().take(20) {
                    eprintln!("{}: FAIL {f}", r.suite);
                }
            }
            if failed == 0 {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
        Some("fuzz") => {
            let seconds = flag(rest, "--seconds").unwrap_or(60);
            let target = rest
                .first()
                .filter(|a| !a.starts_with("--"))
                .map(String::as_str);
            let data = root.join("../shared/conformance");
            match fuzz::run(&root, &data, target, seconds) {
                Ok(true) => ExitCode::SUCCESS,
                Ok(false) => ExitCode::FAILURE,
                Err(e) => {
                    eprintln!("fuzz: {e}");
                    ExitCode::FAILURE
                }
            }
        }
        Some("bench") => {
            let seconds = flag(rest, "--seconds").unwrap_or(5);
            let table_only = rest.iter().any(|a| a == "--table-only");
            match bench::run(&root, seconds, table_only) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("bench: {e}");
                    ExitCode::FAILURE
                }
            }
        }
        _ => usage(),
    }
}

/// The workspace root: the parent of this crate's manifest directory.
pub fn project_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."))
}
