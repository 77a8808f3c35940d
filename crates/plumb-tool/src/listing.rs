//! Finding files: a folder's entries (`op: "list"` of the `data` tool)
//! and every file beneath the root (MCP resources).
//!
//! A folder is opened beneath the root as every path is, and read by its
//! handle; reserved entries are never listed, hidden ones (a name that
//! starts with `.`) are counted and left out, and entries come sorted by
//! name, so a listing and its continuation are deterministic. Each
//! entry's size and format come from the file opened and judged as a
//! `data` call would open it: a symlink is listed as what it leads to,
//! or with the refusal that opening it meets.

use std::path::Path;

use rustix::fs::{AtFlags, FileType};
use serde::Serialize;

use plumb_core::{Refusal, RefusalReason};

use crate::paths::Workspace;

/// The entries a listing returns when the call gives no limit.
pub const LIST_DEFAULT_LIMIT: usize = 100;

/// The most entries one listing returns.
pub const LIST_MAX_LIMIT: usize = 1000;

/// The most entries read from one folder: past it the listing says it
/// is incomplete (`complete: false`) rather than hold an unbounded
/// number of names.
pub const LIST_FOLDER_MAX_ENTRIES: usize = 100_000;

/// The most files the walk of the whole workspace gathers (MCP
/// resources), and the deepest folder it enters; past either, the walk
/// says it is incomplete.
pub const WALK_MAX_FILES: usize = 10_000;

/// See [`WALK_MAX_FILES`].
pub const WALK_MAX_DEPTH: usize = 16;

/// What an entry is, as the folder's own listing says (a symlink is not
/// followed here).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum EntryKind {
    /// A regular file.
    File,
    /// A folder.
    Dir,
    /// A symbolic link.
    Symlink,
    /// A pipe, socket or device: never read.
    Other,
}

/// One entry of a folder.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// Its name in the folder.
    pub name: String,
    /// Its path from the root, as a call names it.
    pub path: String,
    /// What it is.
    pub kind: EntryKind,
    /// Its size in bytes, for a file.
    pub size: Option<u64>,
}

/// A folder's entries.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Folder {
    /// The folder's path from the root (empty for the root).
    pub path: String,
    /// Its entries, sorted by name; reserved and hidden ones left out.
    pub entries: Vec<Entry>,
    /// Hidden entries left out.
    pub hidden: u64,
    /// Whether every entry was read ([`LIST_FOLDER_MAX_ENTRIES`]).
    pub complete: bool,
}

impl Workspace {
    /// The entries of the folder `asked` names (the root for `""` or
    /// `.`).
    ///
    /// # Errors
    /// As [`Workspace::resolve`], and `invalid-argument` for a file.
    pub fn list_folder(&self, asked: &str) -> Result<Folder, Refusal> {
        let (dir, rel) = self.resolve_dir(asked)?;
        let mut entries = Vec::new();
        let mut hidden = 0;
        let mut complete = true;
        let listing = rustix::fs::Dir::read_from(&dir)
            .map_err(|e| Refusal::from_io(&e.into(), Some(&plumb_core::echo(asked))))?;
        for entry in listing {
            let entry =
                entry.map_err(|e| Refusal::from_io(&e.into(), Some(&plumb_core::echo(asked))))?;
            let raw = entry.file_name().to_bytes();
            if raw == b"." || raw == b".." {
                continue;
            }
            // A name that is not UTF-8 cannot be named in a call.
            let Ok(name) = std::str::from_utf8(raw) else {
                continue;
            };
            let path = rel.join(name);
            if self.is_reserved(&path) {
                continue;
            }
            if name.starts_with('.') {
                hidden += 1;
                continue;
            }
            if entries.len() == LIST_FOLDER_MAX_ENTRIES {
                complete = false;
                break;
            }
            let stat = rustix::fs::statat(&dir, entry.file_name(), AtFlags::SYMLINK_NOFOLLOW).ok();
            let kind = match stat.map(|st| FileType::from_raw_mode(st.st_mode)) {
                Some(FileType::RegularFile) => EntryKind::File,
                Some(FileType::Directory) => EntryKind::Dir,
                Some(FileType::Symlink) => EntryKind::Symlink,
                _ => EntryKind::Other,
            };
            let size = stat
                .filter(|_| kind == EntryKind::File)
                .map(|st| st.st_size.max(0) as u64);
            entries.push(Entry {
                name: name.to_owned(),
                path: path_text(&path),
                kind,
                size,
            });
        }
        entries.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(Folder {
            path: path_text(&rel),
            entries,
            hidden,
            complete,
        })
    }

    /// Every file beneath the root, sorted by path: regular files and
    /// symlinks, folders entered up to [`WALK_MAX_DEPTH`] deep (a
    /// symlinked folder is not entered), at most [`WALK_MAX_FILES`];
    /// and whether the walk saw everything.
    pub fn walk_files(&self) -> (Vec<Entry>, bool) {
        let mut files = Vec::new();
        let mut complete = true;
        let mut folders = vec![(String::new(), 0usize)];
        while let Some((folder, depth)) = folders.pop() {
            let Ok(listed) = self.list_folder(&folder) else {
                complete = false;
                continue;
            };
            complete &= listed.complete;
            for e in listed.entries {
                match e.kind {
                    EntryKind::Dir if depth < WALK_MAX_DEPTH => folders.push((e.path, depth + 1)),
                    EntryKind::Dir => complete = false,
                    EntryKind::File | EntryKind::Symlink => {
                        if files.len() == WALK_MAX_FILES {
                            complete = false;
                            folders.clear();
                            break;
                        }
                        files.push(e);
                    }
                    EntryKind::Other => {}
                }
            }
        }
        files.sort_by(|a, b| a.path.cmp(&b.path));
        (files, complete)
    }
}

/// A path from the root as text, with `/` between its parts.
fn path_text(rel: &Path) -> String {
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

/// The refusal of a listing's arguments.
pub(crate) fn bad_list_argument(what: &str) -> Refusal {
    Refusal::new(
        RefusalReason::InvalidArgument,
        format!(
            "{what}; list takes a folder as `path` (\".\" for the root) and `offset`/`limit` to page, for example {{\"op\": \"list\", \"path\": \".\"}}"
        ),
    )
}
