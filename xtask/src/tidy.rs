//! Tidy: structural rules that keep the workspace honest.
//!
//! 1. Every Rust module opens with a `//!` doc comment.
//! 2. Dependencies between plumb's crates point only the way SPEC.md
//!    draws them: core <- csv, json <- jsonl; engines <- plumb <-
//!    plumb-tool <- plumb-cli; core <- plumb-parquet, plumb-sheets <-
//!    plumb-cli (readers on the public seam, registered by the binary);
//!    core <- plumb-remote <- plumb-cli (remote sources).
//! 3. Core names no reader's option: no option a built-in reader
//!    declares appears in plumb-core's code as a string or a public
//!    field (a refusal's `pointer` location is a location, not the
//!    option), except the options core itself declares for every reader
//!    of tables (`HEADER_OPTION`, `COLUMNS_OPTION`).
//! 4. No source file of an engine crate passes [`ENGINE_FILE_LINES`]
//!    lines unless it says why in a comment holding `tidy: long`.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Which plumb crates each plumb crate may depend on (normal and build
/// dependencies; dev-dependencies may reach further down for tests).
const ALLOWED: &[(&str, &[&str])] = &[
    ("plumb-core", &[]),
    ("plumb-csv", &["plumb-core"]),
    ("plumb-json", &["plumb-core"]),
    ("plumb-jsonl", &["plumb-core", "plumb-json"]),
    (
        "plumb",
        &["plumb-core", "plumb-csv", "plumb-json", "plumb-jsonl"],
    ),
    // A format written on the public seam alone, as a downstream one.
    ("plumb-parquet", &["plumb-core"]),
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

/// The most lines an engine source file has before it must say why.
pub const ENGINE_FILE_LINES: usize = 800;

/// The engine crates rule 4 applies to.
const ENGINES: [&str; 3] = ["plumb-csv", "plumb-json", "plumb-jsonl"];

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
    problems.extend(engine_files_are_short(root));
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

fn engine_files_are_short(root: &Path) -> Vec<String> {
    let mut problems = Vec::new();
    for engine in ENGINES {
        let mut files = Vec::new();
        rust_files(&root.join("crates").join(engine).join("src"), &mut files);
        for file in files {
            let text = std::fs::read_to_string(&file).unwrap_or_default();
            let lines = text.lines().count();
            if lines > ENGINE_FILE_LINES && !text.contains("tidy: long") {
                problems.push(format!(
                    "{} has {lines} lines, over {ENGINE_FILE_LINES}: split it by concept, or say why it is one file in a comment holding `tidy: long`",
                    file.display()
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
        let long = "//! x\n".to_owned() + &"fn f() {}\n".repeat(ENGINE_FILE_LINES);
        std::fs::write(engine.join("long.rs"), &long).unwrap();
        std::fs::write(
            engine.join("why.rs"),
            long + "// tidy: long because one table\n",
        )
        .unwrap();
        let names = core_names_no_reader_option(&dir, &["delimiter", "columns", "pointer"]);
        let long_files = engine_files_are_short(&dir);
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
