//! `cargo xtask`: plumb's project automation, written in Rust so it runs
//! wherever cargo does.
//!
//! Subcommands:
//! - `tidy`: the repository's structural rules (also run as a test by
//!   `cargo test --workspace`, see `tidy.rs`).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

mod tidy;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("tidy") => match tidy::run(&project_root()) {
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
        _ => {
            eprintln!("usage: cargo xtask tidy");
            ExitCode::from(2)
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
