//! Path judgement: where a tool call may look.
//!
//! A path is chosen by the caller (a model), so it is judged: it must
//! parse, it must stay inside the workspace root (lexically and after
//! every symlink is resolved), and it must not lie in a reserved subtree.
//! A catalog name was chosen by the person who runs the tool, so it is
//! admitted as configured, may sit in reserved space, and is tried
//! before any file of the same name: a file cannot shadow it.

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

use globset::{Glob, GlobSet, GlobSetBuilder};
use serde_json::Value;

use plumb_core::{Refusal, RefusalReason};

/// Reserved by default: the repository's history and configuration.
pub const DEFAULT_RESERVED: &[&str] = &[".git/"];

/// Entries listed when a path misses.
pub const MISS_LISTING: usize = 12;

/// The workspace a tool call may look into.
#[derive(Debug, Clone)]
pub struct Workspace {
    root: PathBuf,
    patterns: Vec<String>,
    reserved: GlobSet,
    catalog: BTreeMap<String, PathBuf>,
}

fn refuse(reason: RefusalReason, msg: String, asked: &str) -> Refusal {
    Refusal::new(reason, msg).with_path(asked)
}

impl Workspace {
    /// A workspace at `root`, with reserved subtrees (globs relative to
    /// the root; `dir/` means the directory and everything under it) and
    /// catalog entries (name, path; a relative path is taken from the root).
    ///
    /// # Errors
    /// `not-found` or `not-a-file` when the root is not a directory;
    /// `invalid-argument` for a malformed glob.
    pub fn new(
        root: impl AsRef<Path>,
        reserve: &[String],
        catalog: &[(String, PathBuf)],
    ) -> Result<Workspace, Refusal> {
        let shown = root.as_ref().display().to_string();
        let root =
            std::fs::canonicalize(root.as_ref()).map_err(|e| Refusal::from_io(&e, Some(&shown)))?;
        if !root.is_dir() {
            return Err(Refusal::new(
                RefusalReason::NotAFile,
                format!("the workspace root `{shown}` is not a directory; pass --root DIR"),
            ));
        }
        let mut patterns: Vec<String> = DEFAULT_RESERVED.iter().map(|s| (*s).to_owned()).collect();
        patterns.extend(reserve.iter().cloned());
        let mut b = GlobSetBuilder::new();
        for p in &patterns {
            let trimmed = p.trim_start_matches("./").trim_start_matches('/');
            let base = trimmed.trim_end_matches('/');
            for g in [base.to_owned(), format!("{base}/**")] {
                let glob = Glob::new(&g).map_err(|e| {
                    Refusal::invalid_argument(format!("reserved pattern `{p}` is not a glob: {e}"))
                })?;
                b.add(glob);
            }
        }
        let reserved = b.build().map_err(|e| {
            Refusal::invalid_argument(format!("reserved patterns do not build: {e}"))
        })?;
        let catalog = catalog
            .iter()
            .map(|(name, path)| {
                let p = if path.is_absolute() {
                    path.clone()
                } else {
                    root.join(path)
                };
                (name.clone(), p)
            })
            .collect();
        Ok(Workspace {
            root,
            patterns,
            reserved,
            catalog,
        })
    }

    /// The canonical root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The reserved patterns.
    pub fn reserved_patterns(&self) -> &[String] {
        &self.patterns
    }

    /// The catalog names.
    pub fn catalog_names(&self) -> Vec<&str> {
        self.catalog.keys().map(String::as_str).collect()
    }

    fn is_reserved(&self, rel: &Path) -> bool {
        !rel.as_os_str().is_empty() && self.reserved.is_match(rel)
    }

    /// Where `asked` points, or why it points nowhere the caller may look.
    ///
    /// # Errors
    /// `invalid-argument` (empty, NUL, unparseable), `outside-root`
    /// (`..`, an absolute path elsewhere, a symlink out), `reserved-path`,
    /// `not-found` (listing entries of the nearest existing folder).
    pub fn resolve(&self, asked: &str) -> Result<PathBuf, Refusal> {
        if let Some(p) = self.catalog.get(asked) {
            return Ok(p.clone());
        }
        if asked.trim().is_empty() {
            return Err(refuse(
                RefusalReason::InvalidArgument,
                "the path is empty; pass a file path relative to the workspace root".to_owned(),
                asked,
            ));
        }
        if asked.contains('\0') {
            return Err(refuse(
                RefusalReason::InvalidArgument,
                "the path holds a NUL byte, which no file name can; pass a plain relative path"
                    .to_owned(),
                &asked.replace('\0', "\\0"),
            ));
        }
        let given = Path::new(asked);
        let joined = if given.is_absolute() {
            given.to_path_buf()
        } else {
            self.root.join(given)
        };
        // Lexical first: `..` may not climb above the root, whatever exists.
        let mut norm = PathBuf::new();
        for c in joined.components() {
            match c {
                Component::ParentDir => {
                    norm.pop();
                }
                Component::CurDir => {}
                other => norm.push(other.as_os_str()),
            }
        }
        let outside = || {
            refuse(
                RefusalReason::OutsideRoot,
                format!(
                    "`{asked}` leads outside the workspace root; pass a path inside it, relative to the root"
                ),
                asked,
            )
        };
        if !norm.starts_with(&self.root) {
            return Err(outside());
        }
        // Then the real path: every symlink resolved, the result inside.
        let mut existing = norm.clone();
        let mut missing = false;
        while !existing.exists() {
            missing = true;
            if !existing.pop() {
                return Err(outside());
            }
        }
        let real =
            std::fs::canonicalize(&existing).map_err(|e| Refusal::from_io(&e, Some(asked)))?;
        if !real.starts_with(&self.root) {
            return Err(outside());
        }
        let rel_real = real.strip_prefix(&self.root).unwrap_or(Path::new(""));
        let rel_lexical = norm.strip_prefix(&self.root).unwrap_or(Path::new(""));
        if self.is_reserved(rel_real) || self.is_reserved(rel_lexical) {
            return Err(refuse(
                RefusalReason::ReservedPath,
                format!("`{asked}` lies in a reserved part of the workspace; it cannot be read through this tool"),
                asked,
            ));
        }
        if missing {
            return Err(self.miss(asked, &real));
        }
        Ok(real)
    }

    fn miss(&self, asked: &str, folder: &Path) -> Refusal {
        let mut names: Vec<String> = std::fs::read_dir(folder)
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|e| {
                let path = e.path();
                let rel = path.strip_prefix(&self.root).ok()?.to_path_buf();
                if self.is_reserved(&rel) {
                    return None;
                }
                let mut name = e.file_name().to_string_lossy().into_owned();
                if path.is_dir() {
                    name.push('/');
                }
                Some(name)
            })
            .collect();
        names.sort();
        let total = names.len();
        names.truncate(MISS_LISTING);
        let rel = folder.strip_prefix(&self.root).unwrap_or(Path::new(""));
        let folder_shown = if rel.as_os_str().is_empty() {
            "the workspace root".to_owned()
        } else {
            format!("`{}/`", rel.display())
        };
        let listing = if names.is_empty() {
            "nothing".to_owned()
        } else if total > names.len() {
            format!("{} (and {} more)", names.join(", "), total - names.len())
        } else {
            names.join(", ")
        };
        Refusal::new(
            RefusalReason::NotFound,
            format!("`{asked}` does not exist; the nearest existing folder, {folder_shown}, holds: {listing}. Check the path"),
        )
        .with_path(asked)
        .with_extra("nearest", Value::from(rel.display().to_string()))
        .with_extra("nearby", Value::from(names))
    }
}
