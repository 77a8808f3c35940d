//! Tidy: structural rules that keep the workspace honest.
//!
//! 1. Every Rust module opens with a `//!` doc comment.
//! 2. Dependencies between plumb's crates point only the way SPEC.md
//!    draws them: core <- stats; core, stats <- csv, json <- jsonl;
//!    engines <- plumb <- plumb-tool <- plumb-cli; core, stats <-
//!    plumb-parquet and core <- plumb-sheets, each <- plumb-cli (readers
//!    on the public seam, registered by the binary); core <- plumb-remote
//!    <- plumb-cli (remote sources).
//! 3. Core names no reader's option: no option a built-in reader
//!    declares appears in plumb-core's code as a string or a public
//!    field (a refusal's `pointer` location is a location, not the
//!    option), except the options core itself declares for every reader
//!    of tables (`HEADER_OPTION`, `COLUMNS_OPTION`).
//! 4. No source file of any crate of the workspace (`src/` of every
//!    crate, the examples and xtask) passes [`FILE_LINES`] lines unless
//!    it says why in a comment holding `tidy: long`: a room that long
//!    holds more than one concept.
//! 5. No comment in a crate's source quotes a timing (a figure in
//!    seconds, milliseconds, microseconds or nanoseconds): a measurement
//!    goes in `benches/baselines/NOTES.md` or a closing note, where it
//!    can be repeated and dated; a comment says why.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Which plumb crates each plumb crate may depend on (normal and build
/// dependencies; dev-dependencies may reach further down for tests).
const ALLOWED: &[(&str, &[&str])] = &[
    ("plumb-core", &[]),
    // Column statistics: fed by the engines, on core's number literals.
    ("plumb-stats", &["plumb-core"]),
    ("plumb-csv", &["plumb-core", "plumb-stats"]),
    ("plumb-json", &["plumb-core", "plumb-stats"]),
    ("plumb-jsonl", &["plumb-core", "plumb-json", "plumb-stats"]),
    // The dispatcher; a dataset merges the engines' statistics sketches.
    (
        "plumb",
        &[
            "plumb-core",
            "plumb-csv",
            "plumb-json",
            "plumb-jsonl",
            "plumb-stats",
        ],
    ),
    // A format written on the public seam alone, as a downstream one.
    ("plumb-parquet", &["plumb-core", "plumb-stats"]),
    ("plumb-sheets", &["plumb-core"]),
    // Remote objects: object_store and tokio, kept out of the engines.
    ("plumb-remote", &["plumb-core"]),
    ("plumb-tool", &["plumb-core", "plumb"]),
    (
        "plumb-cli",
        &[
            "plumb-core",
            "plumb",
            "plumb-tool",
            "plumb-parquet",
            "plumb-sheets",
            "plumb-remote",
        ],
    ),
];

/// The most lines a source file has before it must say why.
pub const FILE_LINES: usize = 800;

/// Runs every rule, returning the problems found.
pub fn run(root: &Path) -> Result<(), Vec<String>> {
    let mut problems = module_docs(root);
    problems.extend(dependency_directions(root));
    let names: Vec<&str> = plumb::Registry::with_builtins()
        .options()
        .iter()
        .filter(|d| !d.formats.is_empty())
        .filter(|d| d.spec != plumb_core::HEADER_OPTION && d.spec != plumb_core::COLUMNS_OPTION)
        .map(|d| d.spec.name)
        .collect();
    problems.extend(core_names_no_reader_option(root, &names));
    problems.extend(files_are_short(root));
    problems.extend(no_timings_in_comments(root));
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems)
    }
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        if name == "target" || name == "corpus" || name == "artifacts" {
            continue;
        }
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The code of a Rust file with its comments left out (line comments,
/// and doc comments, which are line comments too).
fn code_lines(text: &str) -> impl Iterator<Item = &str> {
    text.lines().map(|l| match l.find("//") {
        // A `//` inside a string literal keeps the line whole.
        Some(at) if l[..at].matches('"').count() % 2 == 0 => &l[..at],
        _ => l,
    })
}

fn core_names_no_reader_option(root: &Path, names: &[&str]) -> Vec<String> {
    let mut files = Vec::new();
    rust_files(&root.join("crates/plumb-core/src"), &mut files);
    let mut problems = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        let is_refusal = file.ends_with("refusal.rs");
        for (n, line) in code_lines(&text).enumerate() {
            for name in names {
                // A refusal's location fields share two words with reader
                // options: the pointer it names, and the column (a
                // character position) where it is.
                if is_refusal && matches!(*name, "pointer" | "column") {
                    continue;
                }
                let literal = format!("\"{name}\"");
                let field = format!("pub {name}:");
                if line.contains(&literal) || line.trim_start().starts_with(&field) {
                    problems.push(format!(
                        "{}:{}: core names the reader option `{name}`; declare it in the reader (FormatReader::options)",
                        file.display(),
                        n + 1
                    ));
                }
            }
        }
    }
    problems
}

fn files_are_short(root: &Path) -> Vec<String> {
    let files = source_files(root);
    let mut problems = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        let lines = text.lines().count();
        if lines > FILE_LINES && !text.contains("tidy: long") {
            problems.push(format!(
                "{} has {lines} lines, over {FILE_LINES}: split it by concept, or say why it is one file in a comment holding `tidy: long`",
                file.strip_prefix(root).unwrap_or(&file).display()
            ));
        }
    }
    problems
}

/// The sources rule 4 and 5 cover: `src/` of every crate, the examples
/// and xtask.
fn source_files(root: &Path) -> Vec<PathBuf> {
    let mut dirs = vec![root.join("xtask/src")];
    for parent in ["crates", "examples"] {
        if let Ok(entries) = std::fs::read_dir(root.join(parent)) {
            dirs.extend(entries.flatten().map(|e| e.path().join("src")));
        }
    }
    let mut files = Vec::new();
    for dir in dirs {
        rust_files(&dir, &mut files);
    }
    files.sort();
    files
}

/// Whether a comment's text quotes a timing: a number, then a unit of
/// time (`s`, `ms`, `µs`, `ns` or their words), with or without a space.
fn quotes_a_timing(comment: &str) -> bool {
    let bytes = comment.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if !bytes[i].is_ascii_digit() || (i > 0 && bytes[i - 1].is_ascii_alphanumeric()) {
            i += 1;
            continue;
        }
        let mut j = i;
        while j < bytes.len() && (bytes[j].is_ascii_digit() || bytes[j] == b'.') {
            j += 1;
        }
        let rest = comment[j..].strip_prefix(' ').unwrap_or(&comment[j..]);
        let unit: String = rest.chars().take_while(|c| c.is_alphabetic()).collect();
        if matches!(
            unit.as_str(),
            "s" | "ms"
                | "µs"
                | "us"
                | "ns"
                | "seconds"
                | "milliseconds"
                | "microseconds"
                | "nanoseconds"
        ) {
            return true;
        }
        i = j;
    }
    false
}

fn no_timings_in_comments(root: &Path) -> Vec<String> {
    let mut problems = Vec::new();
    for file in source_files(root) {
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        for (n, line) in text.lines().enumerate() {
            // A `//` inside a string literal is no comment.
            let Some(at) = line
                .match_indices("//")
                .map(|(at, _)| at)
                .find(|&at| line[..at].matches('"').count() % 2 == 0)
            else {
                continue;
            };
            if quotes_a_timing(&line[at..]) {
                problems.push(format!(
                    "{}:{}: a comment quotes a timing; put the measurement in benches/baselines/NOTES.md and say why here",
                    file.strip_prefix(root).unwrap_or(&file).display(),
                    n + 1
                ));
            }
        }
    }
    problems
}

fn module_docs(root: &Path) -> Vec<String> {
    let mut files = Vec::new();
    for dir in ["crates", "xtask", "benches", "fuzz", "examples"] {
        rust_files(&root.join(dir), &mut files);
    }
    files
        .into_iter()
        .filter_map(|path| {
            let text = std::fs::read_to_string(&path).ok()?;
            let first = text.lines().find(|l| !l.trim().is_empty())?;
            (!first.trim_start().starts_with("//!")).then(|| {
                format!(
                    "{} does not open with a `//!` module doc",
                    path.strip_prefix(root).unwrap_or(&path).display()
                )
            })
        })
        .collect()
}

fn dependency_directions(root: &Path) -> Vec<String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let output = Command::new(cargo)
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
        ])
        .current_dir(root)
        .output();
    let output = match output {
        Ok(o) if o.status.success() => o,
        Ok(o) => {
            return vec![format!(
                "cargo metadata failed: {}",
                String::from_utf8_lossy(&o.stderr)
            )]
        }
        Err(e) => return vec![format!("cargo metadata did not run: {e}")],
    };
    let meta: serde_json::Value = match serde_json::from_slice(&output.stdout) {
        Ok(v) => v,
        Err(e) => return vec![format!("cargo metadata printed no JSON: {e}")],
    };
    let mut problems = Vec::new();
    let packages = meta["packages"].as_array().cloned().unwrap_or_default();
    for package in &packages {
        let name = package["name"].as_str().unwrap_or_default();
        let Some((_, allowed)) = ALLOWED.iter().find(|(n, _)| *n == name) else {
            continue;
        };
        for dep in package["dependencies"].as_array().into_iter().flatten() {
            let dep_name = dep["name"].as_str().unwrap_or_default();
            let is_dev = dep["kind"].as_str() == Some("dev");
            if dep_name.starts_with("plumb") && !is_dev && !allowed.contains(&dep_name) {
                problems.push(format!(
                    "{name} depends on {dep_name}, against the direction SPEC.md draws"
                ));
            }
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workspace_is_tidy() {
        if let Err(problems) = run(&crate::project_root()) {
            panic!("tidy found problems:\n{}", problems.join("\n"));
        }
    }

    #[test]
    fn every_refusal_reason_is_documented() {
        let root = crate::project_root();
        let doc = std::fs::read_to_string(root.join("docs/refusals.md"))
            .expect("docs/refusals.md exists");
        for reason in plumb_core::RefusalReason::ALL {
            assert!(
                doc.contains(&format!("`{}`", reason.as_str())),
                "docs/refusals.md does not describe `{}`",
                reason.as_str()
            );
        }
    }

    #[test]
    fn an_option_name_in_core_and_a_long_engine_file_are_caught() {
        let dir = std::env::temp_dir().join(format!("plumb-tidy-rules-{}", std::process::id()));
        let core = dir.join("crates/plumb-core/src");
        let engine = dir.join("crates/plumb-json/src");
        std::fs::create_dir_all(&core).unwrap();
        std::fs::create_dir_all(&engine).unwrap();
        std::fs::write(
            core.join("lib.rs"),
            "//! x\n// \"delimiter\" in a comment is fine\npub struct O {\n    pub delimiter: u8,\n}\nconst N: &str = \"columns\";\n",
        )
        .unwrap();
        std::fs::write(
            core.join("refusal.rs"),
            "//! x\nconst P: &str = \"pointer\";\n",
        )
        .unwrap();
        let long = "//! x\n".to_owned() + &"fn f() {}\n".repeat(FILE_LINES);
        std::fs::write(engine.join("long.rs"), &long).unwrap();
        std::fs::write(
            engine.join("why.rs"),
            long + "// tidy: long because one table\n",
        )
        .unwrap();
        let names = core_names_no_reader_option(&dir, &["delimiter", "columns", "pointer"]);
        let long_files = files_are_short(&dir);
        std::fs::remove_dir_all(&dir).ok();
        assert_eq!(names.len(), 2, "{names:?}");
        assert!(
            names[0].contains(":4:") && names[1].contains(":6:"),
            "{names:?}"
        );
        assert_eq!(long_files.len(), 1, "{long_files:?}");
        assert!(long_files[0].contains("long.rs"), "{long_files:?}");
    }

    #[test]
    fn a_timing_in_a_comment_is_caught_and_sizes_are_not() {
        for timed in [
            "// took 0.135 s here",
            "/// 29 ns a value",
            "// 5ms",
            "// 2 seconds",
        ] {
            assert!(quotes_a_timing(timed), "{timed}");
        }
        for plain in [
            "// 64 KiB reads",
            "// k = 200",
            "// v2s",
            "// 3 segments",
            "// 1.5x",
        ] {
            assert!(!quotes_a_timing(plain), "{plain}");
        }
    }

    #[test]
    fn a_module_without_docs_is_caught() {
        let dir = std::env::temp_dir().join(format!("plumb-tidy-{}", std::process::id()));
        let src = dir.join("crates/x/src");
        std::fs::create_dir_all(&src).unwrap();
        std::fs::write(src.join("lib.rs"), "fn main() {}\n").unwrap();
        let problems = module_docs(&dir);
        std::fs::remove_dir_all(&dir).ok();
        assert_eq!(problems.len(), 1, "{problems:?}");
    }
}
