//! Path judgement: where a tool call may look.
//!
//! A path is chosen by the caller (a model), so it is judged, and judged
//! by the file it opens rather than by its spelling: resolution *opens*
//! the file beneath the workspace root, once, and everything after reads
//! that handle. A symlink, directory or pipe swapped in after the check
//! therefore changes nothing.
//!
//! - On Linux the open is `openat2` with `RESOLVE_BENEATH` and
//!   `RESOLVE_NO_MAGICLINKS` from the root's directory handle: the kernel
//!   refuses any step (`..`, an absolute symlink, a symlink pointing out)
//!   that would leave the root, at the moment of the open. The opened
//!   handle's real path (from `/proc/self/fd`) is then judged against the
//!   reserved names.
//! - Where `openat2` or `/proc` is missing (older kernels, other Unixes)
//!   the path is walked one component at a time with `O_NOFOLLOW`: no
//!   symlink is followed at all, `..` is resolved lexically, and the
//!   walked components are the real path.
//!
//! Files are opened `O_NONBLOCK` (a named pipe cannot block the open) and
//! the handle is refused unless `fstat` says it is a regular file, before
//! a byte is read.
//!
//! Reserved names: `.git` (a directory or a worktree's `.git` file) at
//! any depth, and every `--reserve` glob. A glob without a `/` is matched
//! against every component (`*.key` anywhere, as in `.gitignore`); a glob
//! with one is anchored at the root and matches that path and everything
//! under it. Both the path as asked and the opened file's real path are
//! judged.
//!
//! A catalog name was chosen by the person who runs the tool, so it is
//! admitted as configured, may sit in reserved space, and is tried before
//! any file of the same name: a file cannot shadow it.
//!
//! `rustix` supplies `openat2`, `openat` and directory reading over file
//! descriptors safely; std has none of them.

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::fs::File;
use std::io;
use std::os::fd::{AsFd, AsRawFd, OwnedFd};
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use globset::{Glob, GlobSet, GlobSetBuilder};
use rustix::fs::{Mode, OFlags};
use serde_json::Value;

use plumb_core::{echo, echo_within, OpenedFile, Refusal, RefusalReason};

/// Reserved by default at any depth: a repository's history and
/// configuration (`.git` as a directory, or a worktree's `.git` file).
pub const DEFAULT_RESERVED: &[&str] = &[".git/"];

/// Entries listed when a path misses.
pub const MISS_LISTING: usize = 12;

/// The longest entry name a miss listing shows whole (longer ones are
/// cut with a marked ellipsis).
pub const MISS_NAME_BYTES: usize = 128;

/// The reserved names and paths, compiled.
#[derive(Debug, Clone)]
struct Reserved {
    /// Globs without a `/`: matched against each component's name.
    names: GlobSet,
    /// Globs with a `/`: matched against each prefix of the path.
    paths: GlobSet,
}

impl Reserved {
    fn new(patterns: &[String]) -> Result<Reserved, Refusal> {
        let mut names = GlobSetBuilder::new();
        let mut paths = GlobSetBuilder::new();
        for p in patterns {
            let trimmed = p.trim_start_matches("./").trim_start_matches('/');
            let base = trimmed.trim_end_matches('/');
            if base.is_empty() {
                return Err(Refusal::invalid_argument(format!(
                    "reserved pattern `{p}` names no file; pass a name or a glob such as `secrets/` or `*.key`"
                )));
            }
            let glob = Glob::new(base).map_err(|e| {
                Refusal::invalid_argument(format!("reserved pattern `{p}` is not a glob: {e}"))
            })?;
            if base.contains('/') {
                paths.add(glob);
            } else {
                names.add(glob);
            }
        }
        let build = |b: GlobSetBuilder| {
            b.build().map_err(|e| {
                Refusal::invalid_argument(format!("reserved patterns do not build: {e}"))
            })
        };
        Ok(Reserved {
            names: build(names)?,
            paths: build(paths)?,
        })
    }

    /// Whether any component of `rel` (a path relative to the root) is
    /// reserved, or any of its prefixes matches an anchored glob.
    fn matches(&self, rel: &Path) -> bool {
        let mut prefix = PathBuf::new();
        for c in rel.components() {
            let Component::Normal(name) = c else { continue };
            if self.names.is_match(Path::new(name)) {
                return true;
            }
            prefix.push(name);
            if self.paths.is_match(&prefix) {
                return true;
            }
        }
        false
    }
}

/// The workspace a tool call may look into.
#[derive(Debug, Clone)]
pub struct Workspace {
    root: PathBuf,
    root_dir: Arc<OwnedFd>,
    patterns: Vec<String>,
    reserved: Reserved,
    catalog: BTreeMap<String, PathBuf>,
}

fn refuse(reason: RefusalReason, msg: String, asked: &str) -> Refusal {
    Refusal::new(reason, msg).with_path(echo(asked))
}

/// How a path is opened beneath the root.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Resolution {
    /// `openat2(RESOLVE_BENEATH)`, real path from `/proc`.
    Kernel,
    /// One component at a time with `O_NOFOLLOW` (chosen directly only
    /// by the tests; otherwise reached as the fallback of `Kernel`).
    #[cfg_attr(not(test), allow(dead_code))]
    Walk,
}

/// Why an open beneath the root failed.
#[derive(Debug)]
enum OpenFail {
    /// The path would leave the root (or follow a link that may not be
    /// followed).
    Outside(&'static str),
    /// The opened file's real path is reserved.
    Reserved,
    /// An ordinary error (not found, permission, ...).
    Io(io::Error),
    /// The kernel lacks what this mode needs.
    Unsupported,
}

impl From<io::Error> for OpenFail {
    fn from(e: io::Error) -> OpenFail {
        OpenFail::Io(e)
    }
}

fn file_flags() -> OFlags {
    OFlags::RDONLY | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC
}

fn dir_flags() -> OFlags {
    OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC
}

impl Workspace {
    /// A workspace at `root`, with reserved names and globs (see the
    /// module docs; `dir/` means the directory and everything under it)
    /// and catalog entries (name, path; a relative path is taken from the
    /// root).
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
        let not_dir = || {
            Refusal::new(
                RefusalReason::NotAFile,
                format!("the workspace root `{shown}` is not a directory; pass --root DIR"),
            )
        };
        if !root.is_dir() {
            return Err(not_dir());
        }
        let root_dir = rustix::fs::open(&root, dir_flags(), Mode::empty())
            .map_err(|e| Refusal::from_io(&e.into(), Some(&shown)))?;
        let mut patterns: Vec<String> = DEFAULT_RESERVED.iter().map(|s| (*s).to_owned()).collect();
        patterns.extend(reserve.iter().cloned());
        let reserved = Reserved::new(&patterns)?;
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
            root_dir: Arc::new(root_dir),
            patterns,
            reserved,
            catalog,
        })
    }

    /// The canonical root, as it was when the workspace was made.
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

    /// Whether a path relative to the root is reserved.
    pub fn is_reserved(&self, rel: &Path) -> bool {
        self.reserved.matches(rel)
    }

    /// Opens what `asked` names, once, beneath the root, and judges the
    /// opened file; or says why it names nothing the caller may read.
    ///
    /// The answer is named by `asked` (cut to a bounded echo), never by
    /// the root's absolute path.
    ///
    /// # Errors
    /// `invalid-argument` (empty, NUL, too long), `outside-root` (`..`,
    /// an absolute path elsewhere, a symlink out), `reserved-path`,
    /// `not-found` (listing entries of the nearest existing folder),
    /// `not-a-file` (a directory, pipe, socket or device), `read-error`
    /// (`permission denied`).
    pub fn resolve(&self, asked: &str) -> Result<OpenedFile, Refusal> {
        self.resolve_with(asked, Resolution::Kernel)
    }

    fn resolve_with(&self, asked: &str, mode: Resolution) -> Result<OpenedFile, Refusal> {
        let shown = echo(asked);
        if let Some(p) = self.catalog.get(asked) {
            let file = rustix::fs::open(p, file_flags(), Mode::empty())
                .map_err(|e| Refusal::from_io(&e.into(), Some(&shown)))?;
            return OpenedFile::from_file(File::from(file), shown);
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
        let fd = self.open_judged(asked, file_flags(), mode)?;
        OpenedFile::from_file(File::from(fd), shown)
    }

    /// The directory `asked` names (the root for an empty path or `.`),
    /// opened beneath the root as every path is, with its path from the
    /// root as judged.
    ///
    /// # Errors
    /// As [`Workspace::resolve`]; `invalid-argument` for a file.
    pub(crate) fn resolve_dir(&self, asked: &str) -> Result<(OwnedFd, PathBuf), Refusal> {
        let trimmed = asked.trim();
        let asked = if trimmed.is_empty() || trimmed == "." {
            "."
        } else {
            asked
        };
        let fd = self
            .open_judged(asked, dir_flags(), Resolution::Kernel)
            .map_err(|r| {
                // Opened as a folder, a file fails as a missing one.
                if r.reason() == RefusalReason::NotFound && self.resolve(asked).is_ok() {
                    refuse(
                        RefusalReason::InvalidArgument,
                        format!(
                            "`{}` is a file, not a folder; list the folder it is in, or inspect or read the file",
                            echo(asked)
                        ),
                        asked,
                    )
                } else {
                    r
                }
            })?;
        let rel = normalize(Path::new(asked)).unwrap_or_default();
        Ok((fd, rel))
    }

    /// Judges `asked` lexically (inside the root, not reserved), then
    /// opens it beneath the root with `flags`.
    fn open_judged(
        &self,
        asked: &str,
        flags: OFlags,
        mode: Resolution,
    ) -> Result<OwnedFd, Refusal> {
        let shown = echo(asked);
        let outside = |why: &str| {
            refuse(
                RefusalReason::OutsideRoot,
                format!(
                    "`{shown}` leads outside the workspace root{why}; pass a path inside it, relative to the root"
                ),
                asked,
            )
        };
        let given = Path::new(asked);
        let rel: &Path = if given.is_absolute() {
            match given.strip_prefix(&self.root) {
                Ok(r) => r,
                Err(_) => return Err(outside("")),
            }
        } else {
            given
        };
        // Lexical first: `..` may not climb above the root, whatever
        // exists, and a reserved name is refused before anything is opened.
        let Some(lexical) = normalize(rel) else {
            return Err(outside(""));
        };
        if self.reserved.matches(&lexical) {
            return Err(self.reserved_refusal(asked));
        }
        match self.open_beneath(rel, &lexical, flags, mode) {
            Ok(fd) => Ok(fd),
            Err(OpenFail::Outside(why)) => Err(outside(why)),
            Err(OpenFail::Reserved) => Err(self.reserved_refusal(asked)),
            Err(OpenFail::Unsupported) => Err(refuse(
                RefusalReason::ReadError,
                format!("`{shown}` cannot be opened safely on this system"),
                asked,
            )),
            Err(OpenFail::Io(e)) => {
                match e.raw_os_error().map(rustix::io::Errno::from_raw_os_error) {
                    Some(rustix::io::Errno::NOENT | rustix::io::Errno::NOTDIR) => {
                        Err(self.miss(asked, &lexical, mode))
                    }
                    Some(rustix::io::Errno::NAMETOOLONG) => Err(refuse(
                        RefusalReason::InvalidArgument,
                        format!(
                            "`{shown}` is longer than any file name can be; pass a shorter path"
                        ),
                        asked,
                    )),
                    _ => Err(Refusal::from_io(&e, Some(&shown))),
                }
            }
        }
    }

    fn reserved_refusal(&self, asked: &str) -> Refusal {
        refuse(
            RefusalReason::ReservedPath,
            format!(
                "`{}` lies in a reserved part of the workspace; it cannot be read through this tool",
                echo(asked)
            ),
            asked,
        )
    }

    /// Opens `rel` beneath the root with `flags`, the one way every open
    /// here is made: `openat2` and the real path judged where the kernel
    /// has them, the `O_NOFOLLOW` walk over `lexical` otherwise.
    fn open_beneath(
        &self,
        rel: &Path,
        lexical: &Path,
        flags: OFlags,
        mode: Resolution,
    ) -> Result<OwnedFd, OpenFail> {
        if mode == Resolution::Kernel {
            match self.open_kernel(rel, flags) {
                Err(OpenFail::Unsupported) => {}
                other => return other,
            }
        }
        self.open_walk(lexical, flags)
    }

    /// `openat2` beneath the root, then the real path judged.
    #[cfg(target_os = "linux")]
    fn open_kernel(&self, rel: &Path, flags: OFlags) -> Result<OwnedFd, OpenFail> {
        use rustix::fs::ResolveFlags;
        let target: &Path = if rel.as_os_str().is_empty() {
            Path::new(".")
        } else {
            rel
        };
        let fd = match rustix::fs::openat2(
            self.root_dir.as_fd(),
            target,
            flags,
            Mode::empty(),
            ResolveFlags::BENEATH | ResolveFlags::NO_MAGICLINKS,
        ) {
            Ok(fd) => fd,
            Err(rustix::io::Errno::NOSYS | rustix::io::Errno::PERM)
                if !openat2_works(&self.root_dir) =>
            {
                return Err(OpenFail::Unsupported)
            }
            Err(rustix::io::Errno::XDEV) => return Err(OpenFail::Outside("")),
            Err(rustix::io::Errno::LOOP) => {
                return Err(OpenFail::Outside(
                    " (through a symlink loop or a link that is not followed)",
                ))
            }
            Err(e) => return Err(OpenFail::Io(e.into())),
        };
        let Some(real) = real_relative(&fd, &self.root_dir) else {
            return Err(OpenFail::Unsupported);
        };
        let Some(real) = real else {
            return Err(OpenFail::Outside(""));
        };
        if self.reserved.matches(&real) {
            return Err(OpenFail::Reserved);
        }
        Ok(fd)
    }

    #[cfg(not(target_os = "linux"))]
    fn open_kernel(&self, _rel: &Path, _flags: OFlags) -> Result<OwnedFd, OpenFail> {
        Err(OpenFail::Unsupported)
    }

    /// One component at a time, following no symlink; the walked
    /// components are the real path (and were judged lexically). The
    /// last one is opened with `flags`.
    fn open_walk(&self, lexical: &Path, flags: OFlags) -> Result<OwnedFd, OpenFail> {
        let parts: Vec<&OsStr> = lexical
            .components()
            .filter_map(|c| match c {
                Component::Normal(n) => Some(n),
                _ => None,
            })
            .collect();
        let Some((last, dirs)) = parts.split_last() else {
            // The root itself.
            return Ok(
                rustix::fs::openat(self.root_dir.as_fd(), ".", flags, Mode::empty())
                    .map_err(io::Error::from)?,
            );
        };
        let mut dir: Option<OwnedFd> = None;
        for name in dirs {
            let at = dir.as_ref().map_or(self.root_dir.as_fd(), |d| d.as_fd());
            let fd = rustix::fs::openat(at, *name, walk_dir_flags(), Mode::empty())
                .map_err(|e| link_or(at, name, e))?;
            dir = Some(fd);
        }
        let at = dir.as_ref().map_or(self.root_dir.as_fd(), |d| d.as_fd());
        rustix::fs::openat(at, *last, flags | OFlags::NOFOLLOW, Mode::empty())
            .map_err(|e| link_or(at, last, e))
    }

    /// The nearest existing folder of a missed path, opened beneath the
    /// root the same way, and a short listing of it.
    fn miss(&self, asked: &str, lexical: &Path, mode: Resolution) -> Refusal {
        let mut folder = lexical.to_path_buf();
        let dir = loop {
            if !folder.pop() {
                break self.open_dir(Path::new(""), mode);
            }
            if self.reserved.matches(&folder) {
                continue;
            }
            if let Some(d) = self.open_dir(&folder, mode) {
                break Some(d);
            }
        };
        let mut names: Vec<String> = Vec::new();
        let mut total = 0usize;
        if let Some(dir) = dir {
            if let Ok(entries) = rustix::fs::Dir::read_from(&dir) {
                for entry in entries.flatten() {
                    let raw = entry.file_name().to_bytes();
                    if raw == b"." || raw == b".." {
                        continue;
                    }
                    let name = String::from_utf8_lossy(raw).into_owned();
                    if self.reserved.matches(&folder.join(&name)) {
                        continue;
                    }
                    total += 1;
                    let is_dir = rustix::fs::statat(
                        &dir,
                        entry.file_name(),
                        rustix::fs::AtFlags::SYMLINK_NOFOLLOW,
                    )
                    .is_ok_and(|st| {
                        rustix::fs::FileType::from_raw_mode(st.st_mode)
                            == rustix::fs::FileType::Directory
                    });
                    let mut shown = echo_within(&name, MISS_NAME_BYTES);
                    if is_dir {
                        shown.push('/');
                    }
                    // Keep the first names in order without holding them all.
                    names.push(shown);
                    if names.len() > MISS_LISTING * 4 {
                        names.sort();
                        names.truncate(MISS_LISTING);
                    }
                }
            }
        }
        names.sort();
        names.truncate(MISS_LISTING);
        let folder_shown = if folder.as_os_str().is_empty() {
            "the workspace root".to_owned()
        } else {
            format!("`{}/`", echo(&folder.display().to_string()))
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
            format!(
                "`{}` does not exist; the nearest existing folder, {folder_shown}, holds: {listing}. Check the path",
                echo(asked)
            ),
        )
        .with_path(echo(asked))
        .with_extra("nearest", Value::from(echo(&folder.display().to_string())))
        .with_extra("nearby", Value::from(names))
    }

    fn open_dir(&self, rel: &Path, mode: Resolution) -> Option<OwnedFd> {
        self.open_beneath(rel, rel, dir_flags(), mode).ok()
    }

    #[cfg(test)]
    fn resolve_walking(&self, asked: &str) -> Result<OpenedFile, Refusal> {
        self.resolve_with(asked, Resolution::Walk)
    }
}

/// Directories on the walk: `O_PATH` where there is one (no read
/// permission needed to pass through), never following a symlink.
fn walk_dir_flags() -> OFlags {
    #[cfg(target_os = "linux")]
    let base = OFlags::PATH;
    #[cfg(not(target_os = "linux"))]
    let base = OFlags::RDONLY;
    base | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC
}

/// A walk step failed: a symlink in the way is refused as a way out;
/// anything else is the error as it is.
fn link_or(at: std::os::fd::BorrowedFd<'_>, name: &OsStr, e: rustix::io::Errno) -> OpenFail {
    if matches!(e, rustix::io::Errno::LOOP | rustix::io::Errno::NOTDIR)
        && rustix::fs::statat(at, name, rustix::fs::AtFlags::SYMLINK_NOFOLLOW).is_ok_and(|st| {
            rustix::fs::FileType::from_raw_mode(st.st_mode) == rustix::fs::FileType::Symlink
        })
    {
        return OpenFail::Outside(" (symlinks are not followed on this system)");
    }
    OpenFail::Io(e.into())
}

/// Whether this kernel has `openat2` (asked once, of the root itself).
#[cfg(target_os = "linux")]
fn openat2_works(root: &OwnedFd) -> bool {
    use std::sync::OnceLock;
    static WORKS: OnceLock<bool> = OnceLock::new();
    *WORKS.get_or_init(|| {
        rustix::fs::openat2(
            root.as_fd(),
            ".",
            dir_flags(),
            Mode::empty(),
            rustix::fs::ResolveFlags::BENEATH,
        )
        .is_ok()
    })
}

/// The real path of `fd` relative to the root's real path, both read
/// from `/proc/self/fd` now: `None` when `/proc` cannot tell,
/// `Some(None)` when the file is not beneath the root.
#[cfg(target_os = "linux")]
fn real_relative(fd: &OwnedFd, root: &OwnedFd) -> Option<Option<PathBuf>> {
    let link = |fd: &OwnedFd| std::fs::read_link(format!("/proc/self/fd/{}", fd.as_raw_fd())).ok();
    let real = link(fd)?;
    let root = link(root)?;
    if !real.is_absolute() || !root.is_absolute() {
        return None;
    }
    Some(real.strip_prefix(&root).ok().map(Path::to_path_buf))
}

/// `rel` with `.` dropped and `..` applied; `None` when `..` climbs above
/// the start.
fn normalize(rel: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for c in rel.components() {
        match c {
            Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            Component::Normal(n) => out.push(n),
            Component::CurDir | Component::RootDir | Component::Prefix(_) => {}
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree() -> (tempfile::TempDir, Workspace) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("ws");
        std::fs::create_dir_all(root.join("a/b")).unwrap();
        std::fs::create_dir_all(root.join("sub/.git")).unwrap();
        std::fs::write(root.join("a/b/x.csv"), "k\n1\n").unwrap();
        std::fs::write(root.join("sub/.git/config"), "secret").unwrap();
        std::fs::write(root.join("wt.git"), "x").unwrap();
        std::fs::create_dir_all(root.join("wt")).unwrap();
        std::fs::write(root.join("wt/.git"), "gitdir: ../elsewhere").unwrap();
        std::fs::write(dir.path().join("outside.txt"), "secret").unwrap();
        std::os::unix::fs::symlink("a/b/x.csv", root.join("inside-link")).unwrap();
        std::os::unix::fs::symlink("../outside.txt", root.join("out-link")).unwrap();
        let ws = Workspace::new(&root, &["*.key".to_owned()], &[]).unwrap();
        (dir, ws)
    }

    fn reason(r: Result<OpenedFile, Refusal>) -> String {
        match r {
            Ok(_) => "ok".to_owned(),
            Err(r) => r.reason().as_str().to_owned(),
        }
    }

    #[test]
    fn both_modes_admit_and_refuse_alike_except_symlinks() {
        let (_d, ws) = tree();
        for (asked, kernel, walk) in [
            ("a/b/x.csv", "ok", "ok"),
            ("a/./b/../b/x.csv", "ok", "ok"),
            ("sub/.git/config", "reserved-path", "reserved-path"),
            ("wt/.git", "reserved-path", "reserved-path"),
            ("wt.git", "ok", "ok"),
            ("a/secret.key", "reserved-path", "reserved-path"),
            ("../outside.txt", "outside-root", "outside-root"),
            ("out-link", "outside-root", "outside-root"),
            ("inside-link", "ok", "outside-root"),
            ("a/b", "not-a-file", "not-a-file"),
            ("a/nope.csv", "not-found", "not-found"),
            ("a/b/x.csv/deeper", "not-found", "not-found"),
        ] {
            assert_eq!(reason(ws.resolve(asked)), kernel, "kernel {asked}");
            assert_eq!(reason(ws.resolve_walking(asked)), walk, "walk {asked}");
        }
    }

    #[test]
    fn the_opened_file_is_read_by_its_handle() {
        let (d, ws) = tree();
        let opened = ws.resolve("a/b/x.csv").unwrap();
        // Replace the name after the open: the handle still reads the
        // file that was judged.
        let root = d.path().join("ws");
        std::fs::remove_file(root.join("a/b/x.csv")).unwrap();
        std::fs::write(root.join("a/b/x.csv"), "replaced").unwrap();
        let mut text = String::new();
        std::io::Read::read_to_string(&mut opened.reader(), &mut text).unwrap();
        assert_eq!(text, "k\n1\n");
        assert_eq!(opened.name(), "a/b/x.csv");
    }

    #[test]
    fn reserved_globs_match_components_or_anchored_prefixes() {
        let r =
            Reserved::new(&[".git/".into(), "private/".into(), "docs/internal".into()]).unwrap();
        assert!(r.matches(Path::new(".git")));
        assert!(r.matches(Path::new("x/y/.git/HEAD")));
        assert!(r.matches(Path::new("a/private/k")));
        assert!(r.matches(Path::new("docs/internal/a.md")));
        assert!(!r.matches(Path::new("a/docs/internal/a.md")));
        assert!(!r.matches(Path::new("x.git/config")));
        assert!(!r.matches(Path::new("")));
    }
}
