//! The public API of the seam, held to a checked-in snapshot: `cargo
//! xtask api` lists the public items of plumb-core, plumb-stats and plumb with
//! `cargo public-api` (rustdoc JSON, on the nightly toolchain) and fails
//! on any difference from `api/<crate>.txt`, printing it; `--bless`
//! writes the new listing. A change to the seam is then a visible
//! decision in a diff, never an accident.
//!
//! `cargo public-api` is a tool, not a dependency: `.ci/run` installs a
//! pinned version ([`PUBLIC_API_VERSION`]).

use std::path::Path;
use std::process::Command;

/// The crates whose public API is held to a snapshot.
pub const SNAPSHOT_CRATES: [&str; 3] = ["plumb-core", "plumb-stats", "plumb"];

/// The `cargo-public-api` version `.ci/run` installs.
pub const PUBLIC_API_VERSION: &str = "0.52.0";

/// Lists each crate's public API and compares it with its snapshot (or
/// writes it, with `bless`). Returns false on any difference or failure.
pub fn run(root: &Path, bless: bool) -> bool {
    let mut ok = true;
    for krate in SNAPSHOT_CRATES {
        let listed = match list(root, krate) {
            Ok(text) => text,
            Err(e) => {
                eprintln!("api: {krate}: {e}");
                return false;
            }
        };
        let path = root.join("api").join(format!("{krate}.txt"));
        if bless {
            if let Err(e) = std::fs::create_dir_all(root.join("api"))
                .and_then(|()| std::fs::write(&path, &listed))
            {
                eprintln!("api: writing {}: {e}", path.display());
                return false;
            }
            println!(
                "api: wrote {} ({} items)",
                path.display(),
                listed.lines().count()
            );
            continue;
        }
        let snapshot = std::fs::read_to_string(&path).unwrap_or_default();
        let diff = difference(&snapshot, &listed);
        if diff.is_empty() {
            println!(
                "api: {krate} matches its snapshot ({} items)",
                listed.lines().count()
            );
        } else {
            ok = false;
            eprintln!(
                "api: the public API of {krate} differs from {} (- snapshot, + now):\n{}\n\
                 if the change is meant, run `cargo xtask api --bless` and commit the snapshot",
                path.display(),
                diff.join("\n")
            );
        }
    }
    ok
}

fn list(root: &Path, krate: &str) -> Result<String, String> {
    let out = Command::new("cargo")
        .args(["public-api", "--package", krate, "--simplified"])
        .current_dir(root)
        .output()
        .map_err(|e| format!("cargo public-api did not start ({e}); install it with `cargo install cargo-public-api --locked --version {PUBLIC_API_VERSION}`"))?;
    if !out.status.success() {
        return Err(format!(
            "cargo public-api failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    String::from_utf8(out.stdout).map_err(|e| e.to_string())
}

/// The lines only in `old` (`- `) and only in `new` (`+ `), in order.
fn difference(old: &str, new: &str) -> Vec<String> {
    let old_lines: std::collections::BTreeSet<&str> = old.lines().collect();
    let new_lines: std::collections::BTreeSet<&str> = new.lines().collect();
    let mut out: Vec<String> = old_lines
        .difference(&new_lines)
        .map(|l| format!("- {l}"))
        .collect();
    out.extend(new_lines.difference(&old_lines).map(|l| format!("+ {l}")));
    out
}

#[cfg(test)]
mod tests {
    use super::difference;

    #[test]
    fn a_difference_names_what_went_and_what_came() {
        let d = difference("pub fn a()\npub fn b()\n", "pub fn b()\npub fn c()\n");
        assert_eq!(d, ["- pub fn a()", "+ pub fn c()"]);
        assert!(difference("x\ny\n", "y\nx\n").is_empty());
    }
}
