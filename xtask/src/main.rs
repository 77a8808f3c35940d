//! `cargo xtask`: plumb's project automation, written in Rust so it runs
//! wherever cargo does.
//!
//! - `tidy`: the repository's structural rules (also a test).
//! - `fuzz [TARGET] [--seconds N]`: the fuzzing campaign.
//! - `memtest [--mb N]`: peak RSS of the release binary on adversarial inputs.
//! - `conformance [--data DIR]`: every suite in ../shared/conformance.
//! - `bench [--seconds N] [--table-only] [--save NAME] [--compare NAME]`:
//!   the benches and one table, against a saved baseline.
//! - `peers [--mb N]`: the whole process beside xan, DuckDB and ripgrep.
//! - `api [--bless]`: the public API of plumb-core and plumb against its snapshot.
//! - `ci`: what `.ci/run` runs once its tools are installed.
//!
//! `cargo xtask help` and `cargo xtask <command> --help` say more.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::Instant;

use clap::{Parser, Subcommand};

mod api;
mod bench;
mod bench_datasets;
mod conformance;
mod fuzz;
mod memtest;
mod memtest_hostile;
mod peers;
mod tidy;

/// plumb's project automation (clap, as the CLI uses: every subcommand
/// answers `--help` rather than starting a campaign).
#[derive(Parser)]
#[command(name = "xtask", bin_name = "cargo xtask", version, about)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Check the repository's structural rules (also run as a test).
    Tidy,
    /// Fuzz every target, or one, seeded from ../shared/conformance.
    Fuzz {
        /// One target (all when left out).
        target: Option<String>,
        /// Seconds per target.
        #[arg(long, default_value_t = 60)]
        seconds: u64,
    },
    /// Measure the release binary's peak RSS on adversarial inputs.
    Memtest {
        /// Size of the generated inputs, in MiB.
        #[arg(long, default_value_t = 1024)]
        mb: u64,
        /// The cargo profile the measured binary is built in.
        #[arg(long, default_value = "release")]
        profile: String,
    },
    /// Run every suite in ../shared/conformance.
    Conformance {
        /// The conformance folder.
        #[arg(long)]
        data: Option<PathBuf>,
    },
    /// Run the benches and print one table against the peer tools.
    Bench {
        /// Seconds per measurement.
        #[arg(long, default_value_t = 5)]
        seconds: u64,
        /// Print the table from the last run without running the benches.
        #[arg(long)]
        table_only: bool,
        /// Run only the whole-process comparison: plumb's release binary
        /// beside xan, the `csv` crate and serde_json on generated files
        /// (`--mb` MiB each); without it, it follows the criterion table.
        #[arg(long)]
        process: bool,
        /// Size of each generated file of the whole-process comparison, in MiB.
        #[arg(long, default_value_t = 256)]
        mb: u64,
        /// Keep each bench's time as `benches/baselines/NAME.json`.
        #[arg(long, value_name = "NAME")]
        save: Option<String>,
        /// Print each bench's time against `benches/baselines/NAME.json`
        /// (above 1.00x: slower than then).
        #[arg(long, value_name = "NAME")]
        compare: Option<String>,
    },
    /// Time the release binary beside the peer tools (xan, DuckDB, rg)
    /// on generated files, whole process: statistics and search.
    Peers {
        /// Size of the generated CSV, in MiB.
        #[arg(long, default_value_t = 256)]
        mb: u64,
    },
    /// Compare the public API of plumb-core and plumb with the snapshots
    /// in `api/` (`cargo public-api`, nightly).
    Api {
        /// Write the current API as the new snapshot.
        #[arg(long)]
        bless: bool,
    },
    /// Run what CI runs, in its order: fmt, clippy, doc, the tests,
    /// cargo publish --dry-run, the public-API snapshots, conformance,
    /// memtest and a fuzz smoke.
    Ci {
        /// Also build the benches in the bench profile, let the publish
        /// dry run build every crate alone, and check the public-API
        /// snapshots (needs cargo-public-api 0.52.0; about 20 minutes
        /// more on 2 cores; clippy --all-targets already type-checks the
        /// benches, and packaging alone checks the manifests).
        #[arg(long)]
        full: bool,
        /// memtest input size, in MiB.
        #[arg(long, default_value_t = 256)]
        memtest_mb: u64,
        /// Fuzz seconds per target.
        #[arg(long, default_value_t = 20)]
        fuzz_seconds: u64,
    },
    /// Internal: run a command and print `maxrss_kib exit_code`.
    #[command(name = "__rss", hide = true)]
    Rss {
        /// `[--stdin FILE] COMMAND ARGS...`
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let root = project_root();
    let ok = match cli.cmd {
        Cmd::Tidy => tidy(&root),
        Cmd::Rss { args } => return ExitCode::from(memtest::rss_helper(&args) as u8),
        Cmd::Memtest { mb, profile } => run_memtest(&root, mb, &profile),
        Cmd::Conformance { data } => {
            run_conformance(&data.unwrap_or_else(|| root.join("../shared/conformance")))
        }
        Cmd::Fuzz { target, seconds } => run_fuzz(&root, target.as_deref(), seconds),
        Cmd::Bench {
            seconds,
            table_only,
            process,
            mb,
            save,
            compare,
        } => {
            let criterion = if process {
                Ok(())
            } else {
                bench::run(
                    &root,
                    seconds,
                    table_only,
                    save.as_deref(),
                    compare.as_deref(),
                )
            };
            let whole = criterion.and_then(|()| {
                if table_only {
                    return Ok(true);
                }
                println!();
                peers::process(&root, mb)
            });
            match whole {
                Ok(ok) => ok,
                Err(e) => {
                    eprintln!("bench: {e}");
                    false
                }
            }
        }
        Cmd::Peers { mb } => match peers::run(&root, mb) {
            Ok(ok) => ok,
            Err(e) => {
                eprintln!("peers: {e}");
                false
            }
        },
        Cmd::Api { bless } => api::run(&root, bless),
        Cmd::Ci {
            full,
            memtest_mb,
            fuzz_seconds,
        } => ci(&root, full, memtest_mb, fuzz_seconds),
    };
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

fn tidy(root: &Path) -> bool {
    match tidy::run(root) {
        Ok(()) => {
            println!("tidy: ok");
            true
        }
        Err(problems) => {
            for p in problems {
                eprintln!("tidy: {p}");
            }
            false
        }
    }
}

fn run_memtest(root: &Path, mb: u64, profile: &str) -> bool {
    match memtest::run(root, mb, profile) {
        Ok(true) => true,
        Ok(false) => {
            eprintln!("memtest: a run passed its limit");
            false
        }
        Err(e) => {
            eprintln!("memtest: {e}");
            false
        }
    }
}

fn run_conformance(data: &Path) -> bool {
    if !data.is_dir() {
        eprintln!(
            "conformance: {} is not a folder; pass --data DIR",
            data.display()
        );
        return false;
    }
    let rows = conformance::run(data);
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
    failed == 0
}

fn run_fuzz(root: &Path, target: Option<&str>, seconds: u64) -> bool {
    let data = root.join("../shared/conformance");
    match fuzz::run(root, &data, target, seconds) {
        Ok(ok) => ok,
        Err(e) => {
            eprintln!("fuzz: {e}");
            false
        }
    }
}

/// A CI step run by cargo: its title, arguments and environment.
type CargoStep = (
    &'static str,
    &'static [&'static str],
    &'static [(&'static str, &'static str)],
);

/// One cargo step of CI; false when it fails.
fn cargo_step(root: &Path, title: &str, args: &[&str], env: &[(&str, &str)]) -> bool {
    println!("== {title}");
    let started = Instant::now();
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let status = Command::new(cargo)
        .args(args)
        .envs(env.iter().copied())
        .current_dir(root)
        .status();
    took(title, started);
    match status {
        Ok(s) if s.success() => true,
        Ok(s) => {
            eprintln!("ci: {title} failed ({s})");
            false
        }
        Err(e) => {
            eprintln!("ci: {title} could not start: {e}");
            false
        }
    }
}

/// What `.ci/run` runs once its tools are installed; stops at the first
/// failure. `full` adds the two slowest builds (see `Cmd::Ci`).
fn ci(root: &Path, full: bool, memtest_mb: u64, fuzz_seconds: u64) -> bool {
    let mut cargo_steps: Vec<CargoStep> = vec![
        ("cargo fmt --check", &["fmt", "--all", "--", "--check"], &[]),
        (
            "cargo clippy",
            &[
                "clippy",
                "--workspace",
                "--all-targets",
                "--",
                "-D",
                "warnings",
            ],
            &[],
        ),
        (
            "cargo doc",
            &["doc", "--workspace", "--no-deps"],
            &[("RUSTDOCFLAGS", "-D warnings")],
        ),
        ("cargo test --workspace", &["test", "--workspace"], &[]),
    ];
    if full {
        cargo_steps.push((
            "benches compile",
            &["bench", "--workspace", "--no-run"],
            &[],
        ));
        cargo_steps.push((
            "cargo publish --dry-run (every shipped crate packages and builds alone)",
            &[
                "publish",
                "--workspace",
                "--dry-run",
                "--allow-dirty",
                "--target-dir",
                "target/publish-check",
            ],
            &[],
        ));
    } else {
        cargo_steps.push((
            "cargo publish --dry-run --no-verify (every shipped crate packages)",
            &[
                "publish",
                "--workspace",
                "--dry-run",
                "--no-verify",
                "--allow-dirty",
                "--target-dir",
                "target/publish-check",
            ],
            &[],
        ));
    }
    for (title, args, env) in cargo_steps {
        if args.first() == Some(&"publish") {
            // Cargo takes registry crates as immutable: sources extracted
            // and builds made by an earlier dry run of the same version
            // would be verified instead of this tree's. Start clean.
            clear_packaged_sources();
            let _ = std::fs::remove_dir_all(root.join("target/publish-check"));
        }
        if !cargo_step(root, title, args, env) {
            return false;
        }
    }
    let step = |title: &str, run: &dyn Fn() -> bool| {
        println!("== {title}");
        let started = Instant::now();
        let ok = run();
        took(title, started);
        ok
    };
    // The snapshots need cargo-public-api, minutes to install on a fresh
    // machine: they run with `--full` and by hand (`cargo xtask api`).
    (!full || step("public API snapshots (api/)", &|| api::run(root, false)))
        && step("conformance (../shared/conformance)", &|| {
            run_conformance(&root.join("../shared/conformance"))
        })
        && step(&format!("memtest --mb {memtest_mb}"), &|| {
            run_memtest(root, memtest_mb, "release")
        })
        && step(
            &format!("fuzz smoke: every target for {fuzz_seconds} seconds"),
            &|| run_fuzz(root, None, fuzz_seconds),
        )
}

/// Prints how long a CI step took, so the run's budget can be read
/// off its log step by step.
fn took(title: &str, started: Instant) {
    println!("-- {title}: {:.0} s", started.elapsed().as_secs_f64());
}

/// Removes plumb's crates as cargo extracted them from an earlier dry
/// run's local registry. Cargo keys the extraction by the registry's
/// path and the crate's name and version only, so a second dry run from
/// the same checkout path would verify against the first run's sources
/// (seen: a `plumb` that could not find a function its own `plumb-core`
/// had gained). Local registries are the `registry/src` folders whose
/// names start with `-`; crates.io's are left alone.
fn clear_packaged_sources() {
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")));
    let Some(src) = home.map(|h| h.join("registry").join("src")) else {
        return;
    };
    let Ok(registries) = std::fs::read_dir(&src) else {
        return;
    };
    for registry in registries.flatten() {
        if !registry.file_name().to_string_lossy().starts_with('-') {
            continue;
        }
        let Ok(crates) = std::fs::read_dir(registry.path()) else {
            continue;
        };
        for krate in crates.flatten() {
            if krate.file_name().to_string_lossy().starts_with("plumb") {
                let _ = std::fs::remove_dir_all(krate.path());
            }
        }
    }
}

/// The workspace root: the parent of this crate's manifest directory.
pub fn project_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."))
}
