//! Naming a dataset on this machine: paths, directories walked to a
//! depth, globs, and the members of a zip archive, listed in path order.
//!
//! Globs are matched by `globset` (ripgrep's matcher): `*` and `?`
//! never cross a `/`, `**` crosses any number of folders, `{a,b}` and
//! classes as in a shell. A glob is walked from the longest leading
//! part that holds no pattern, so `logs/2024/*.csv` reads one folder.
//!
//! The listing keeps only the [`ListOptions::max_files`] smallest paths
//! at or after [`ListOptions::from`] (a bounded heap), and counts the
//! rest, so a folder of a million files costs the memory of the files
//! one call reads, not of the folder.

use std::collections::BinaryHeap;
use std::path::{Path, PathBuf};

use plumb_core::{FileSource, Refusal, Source};

use super::{Dataset, ListOptions, Member, OpenContext, Opener, DATASET_MAX_DEPTH};

/// Whether a name holds a glob pattern.
pub fn is_glob(name: &str) -> bool {
    name.bytes().any(|b| matches!(b, b'*' | b'?' | b'[' | b'{'))
}

/// Opens members that are files on this machine (or members of a zip
/// archive on it).
#[derive(Debug, Default)]
pub struct LocalOpener;

impl Opener for LocalOpener {
    fn open(&self, member: &Member, cx: &OpenContext) -> Result<Box<dyn Source>, Refusal> {
        let mut source =
            FileSource::new(Path::new(member.file_path()))?.with_cancel(cx.cancel.clone());
        if let Some(counter) = &cx.progress {
            source = source.with_progress(counter.clone());
        }
        Ok(Box::new(source))
    }
}

/// The paths kept so far: the `max` smallest, and how many more there were.
struct Kept {
    heap: BinaryHeap<Member>,
    max: usize,
    left: u64,
    from: Option<String>,
    unnamed: u64,
    /// The paths offered, when several names may list one file twice.
    seen: Option<std::collections::HashSet<String>>,
}

impl Kept {
    fn offer(&mut self, m: Member) {
        if self
            .from
            .as_deref()
            .is_some_and(|from| m.path.as_str() < from)
        {
            return;
        }
        if let Some(seen) = &mut self.seen {
            if !seen.insert(m.path.clone()) {
                return;
            }
        }
        self.heap.push(m);
        if self.heap.len() > self.max {
            self.heap.pop();
            self.left += 1;
        }
    }
}

/// Lists the dataset `names` name on this machine.
pub(crate) fn local(names: &[String], opts: &ListOptions) -> Result<Dataset, Refusal> {
    if names.is_empty() {
        return Err(Refusal::invalid_argument(
            "name a dataset: a file, a folder, a glob or several paths",
        ));
    }
    let mut kept = Kept {
        heap: BinaryHeap::new(),
        // One past the most read: the first file left names the next call's start.
        max: opts.max_files.clamp(1, super::DATASET_MAX_FILES) + 1,
        left: 0,
        from: opts.from.clone(),
        unnamed: 0,
        // One name's walk lists each file once.
        seen: (names.len() > 1).then(std::collections::HashSet::new),
    };
    let depth = opts
        .depth
        .unwrap_or(DATASET_MAX_DEPTH)
        .min(DATASET_MAX_DEPTH);
    for name in names {
        if let Some((archive, pattern)) = name.split_once("::").filter(|(_, p)| is_glob(p)) {
            zip_members(archive, pattern, &mut kept)?;
            continue;
        }
        let path = Path::new(name);
        let meta = std::fs::metadata(path);
        if meta.is_err() && is_glob(name) {
            let (base, pattern) = glob_base(name);
            let matcher = Glob::new(pattern, name)?;
            let deep = if pattern.contains("**") {
                depth
            } else {
                pattern.matches('/').count()
            };
            walk(
                &base,
                deep,
                (opts.hidden, opts.sizes),
                &mut kept,
                &|p: &str| matcher.is_match(p),
            );
        } else if meta.as_ref().is_ok_and(|m| m.is_dir()) {
            walk(
                path,
                depth.saturating_sub(1),
                (opts.hidden, opts.sizes),
                &mut kept,
                &|_| true,
            );
        } else {
            let bytes = meta.as_ref().ok().filter(|m| m.is_file()).map(|m| m.len());
            kept.offer(Member::file(name.clone(), bytes));
        }
    }
    let mut members = kept.heap.into_sorted_vec();
    let mut next = None;
    if members.len() == kept.max {
        next = members.pop().map(|m| m.path);
    }
    Ok(Dataset {
        named: names.to_vec(),
        members,
        left: kept.left + u64::from(next.is_some()),
        next,
        unnamed: kept.unnamed,
        opener: std::sync::Arc::new(LocalOpener),
    })
}

/// The folder a glob is walked from and the pattern's part below it.
fn glob_base(name: &str) -> (PathBuf, &str) {
    let (folder, pattern) = split_glob(name);
    let base = match folder {
        "" => ".",
        "/" => "/",
        f => f.trim_end_matches('/'),
    };
    (PathBuf::from(base), pattern)
}

/// `name` split before its first part that holds a pattern: the plain
/// folders above it (with their last `/`; empty when a pattern starts
/// the name) and the rest. A name with no pattern splits after its last
/// `/`.
///
/// ```
/// use plumb::dataset::split_glob;
/// assert_eq!(split_glob("logs/2024/*.csv"), ("logs/2024/", "*.csv"));
/// assert_eq!(split_glob("bucket/logs/"), ("bucket/logs/", ""));
/// assert_eq!(split_glob("**/x.json"), ("", "**/x.json"));
/// ```
pub fn split_glob(name: &str) -> (&str, &str) {
    let mut cut = 0;
    for (i, c) in name.char_indices() {
        if c == '/' {
            if is_glob(&name[cut..i]) {
                break;
            }
            cut = i + 1;
        }
    }
    name.split_at(cut)
}

/// A glob as a dataset matches paths: `*` and `?` never cross a `/`,
/// `**` crosses folders, `{a,b}` alternates.
#[derive(Clone, Debug)]
pub struct Glob(globset::GlobMatcher);

impl Glob {
    /// The glob `pattern`, from the name a caller gave (`named`, which a
    /// refusal quotes).
    ///
    /// # Errors
    /// `invalid-argument` for a pattern that does not parse.
    pub fn new(pattern: &str, named: &str) -> Result<Glob, Refusal> {
        let glob = globset::GlobBuilder::new(pattern)
            .literal_separator(true)
            .build()
            .map_err(|e| {
                Refusal::invalid_argument(format!(
                    "`{}` is not a glob plumb reads: {e}",
                    plumb_core::echo(named)
                ))
            })?;
        Ok(Glob(glob.compile_matcher()))
    }

    /// Whether `path` matches.
    pub fn is_match(&self, path: &str) -> bool {
        self.0.is_match(path)
    }
}

/// Walks `base` to `depth` folders below it (0: its own files), offering
/// every file whose path below `base` `accept`s. A symlinked folder is
/// not entered (a link may loop); a symlink to a file is a file. A
/// folder that cannot be read becomes a member refused with the reason.
fn walk(
    base: &Path,
    depth: usize,
    (hidden, sizes): (bool, bool),
    kept: &mut Kept,
    accept: &dyn Fn(&str) -> bool,
) {
    let mut folders = vec![(base.to_path_buf(), String::new(), 0usize)];
    while let Some((dir, rel, level)) = folders.pop() {
        let entries = match std::fs::read_dir(&dir) {
            Ok(e) => e,
            Err(e) => {
                let r = Refusal::from_io(&e, None);
                kept.offer(Member::refused(display(&dir), r.reason(), r.message()));
                continue;
            }
        };
        for entry in entries.flatten() {
            let Ok(name) = entry.file_name().into_string() else {
                kept.unnamed += 1;
                continue;
            };
            if !hidden && name.starts_with('.') {
                continue;
            }
            let path = entry.path();
            let sub = if rel.is_empty() {
                name.clone()
            } else {
                format!("{rel}/{name}")
            };
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                if level < depth {
                    folders.push((path, sub, level + 1));
                }
                continue;
            }
            if !accept(&sub) {
                continue;
            }
            if kind.is_file() && !sizes {
                kept.offer(Member::file(display(&path), None));
                continue;
            }
            // A link is followed to what it names; any other entry is
            // asked of its folder (no second walk of the whole path).
            let meta = if kind.is_symlink() {
                std::fs::metadata(&path).ok()
            } else {
                entry.metadata().ok()
            };
            if meta.as_ref().is_some_and(|m| m.is_dir()) {
                continue;
            }
            let bytes = meta.filter(|m| m.is_file()).map(|m| m.len());
            kept.offer(Member::file(display(&path), bytes));
        }
    }
}

fn display(path: &Path) -> String {
    let text = path.to_string_lossy();
    text.strip_prefix("./").unwrap_or(&text).to_owned()
}

/// The members of the zip archive `archive` that `pattern` matches.
#[cfg(feature = "compression")]
fn zip_members(archive: &str, pattern: &str, kept: &mut Kept) -> Result<(), Refusal> {
    let matcher = Glob::new(pattern, pattern)?;
    let source = FileSource::new(Path::new(archive))?;
    let dir = crate::archive::directory(&source, crate::archive::ZIP_MAX_MEMBERS as usize, None)
        .map_err(|r| r.with_path(archive))?;
    for entry in &dir.listed {
        if entry.name.ends_with('/') || !matcher.is_match(&entry.name) {
            continue;
        }
        kept.offer(Member {
            path: format!("{archive}::{}", entry.name),
            bytes: Some(entry.size),
            archive_member: Some(entry.name.clone()),
            refused: None,
        });
    }
    Ok(())
}

#[cfg(not(feature = "compression"))]
fn zip_members(archive: &str, _: &str, _: &mut Kept) -> Result<(), Refusal> {
    Err(Refusal::new(
        plumb_core::RefusalReason::UnsupportedFormat,
        format!(
            "`{}` names members of a zip archive; this build reads no archives",
            plumb_core::echo(archive)
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_glob_is_walked_from_its_plain_part() {
        assert_eq!(
            glob_base("logs/2024/*.csv"),
            (PathBuf::from("logs/2024"), "*.csv")
        );
        assert_eq!(glob_base("*.csv"), (PathBuf::from("."), "*.csv"));
        assert_eq!(
            glob_base("/d/**/x?.json"),
            (PathBuf::from("/d"), "**/x?.json")
        );
        assert_eq!(glob_base("/*.csv"), (PathBuf::from("/"), "*.csv"));
        assert!(is_glob("a/{b,c}.csv") && !is_glob("plain/name.csv"));
    }
}
