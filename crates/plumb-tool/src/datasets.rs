//! A dataset on the agent surface: a folder or a glob beneath the
//! workspace root, listed by the workspace's own listing (reserved and
//! hidden names left out, a symlinked folder never entered), each file
//! opened beneath the root and judged by the handle it opened, so a
//! symlink that leads outside is that file's refusal.

use std::sync::Arc;

use plumb::dataset::{
    is_glob, split_glob, Dataset, Glob, ListOptions, Member, OpenContext, Opener,
};
use plumb::{FileSource, Refusal, Source};

use crate::listing::EntryKind;
use crate::paths::Workspace;

/// Opens a dataset's members beneath the workspace root.
#[derive(Debug)]
struct WorkspaceOpener(Workspace);

impl Opener for WorkspaceOpener {
    fn open(&self, member: &Member, cx: &OpenContext) -> Result<Box<dyn Source>, Refusal> {
        let opened = self.0.resolve(&member.path)?;
        Ok(Box::new(
            FileSource::from_opened(opened).with_cancel(cx.cancel.clone()),
        ))
    }
}

/// The dataset `asked` names, when it names one (a folder, `.` for the
/// root, or a glob): `None` for a file.
///
/// # Errors
/// The workspace's refusals for a folder or a glob's plain part outside
/// the root or reserved; `invalid-argument` for a glob that does not parse.
pub(crate) fn dataset(
    ws: &Workspace,
    asked: &str,
    opts: &ListOptions,
) -> Result<Option<Dataset>, Refusal> {
    let trimmed = asked.trim().trim_start_matches("./");
    // No name is no folder: the root is named `.`.
    if asked.trim().is_empty() {
        return Ok(None);
    }
    // A glob matches paths from the root, walked from its plain folders.
    let pattern = is_glob(trimmed).then_some(trimmed);
    let base = match pattern.map(|p| split_glob(p).0.trim_end_matches('/')) {
        Some("") => ".",
        Some(folder) => folder,
        None => trimmed,
    };
    let dir = match ws.resolve_dir(base) {
        Ok((_, rel)) => rel,
        // A path that is not a folder is a file (or its own refusal).
        Err(_) if pattern.is_none() => return Ok(None),
        Err(r) => return Err(r),
    };
    let matcher = pattern.map(|p| Glob::new(p, p)).transpose()?;
    let start = dir.to_string_lossy().replace('\\', "/");
    let depth = opts.depth.unwrap_or(plumb::dataset::DATASET_MAX_DEPTH);
    let mut members = Vec::new();
    let mut folders = vec![(
        if start.is_empty() {
            ".".to_owned()
        } else {
            start
        },
        0usize,
    )];
    while let Some((folder, level)) = folders.pop() {
        let listed = match ws.list_folder(&folder) {
            Ok(l) => l,
            Err(r) => {
                members.push(Member::refused(folder, r.reason(), r.message()));
                continue;
            }
        };
        for e in listed.entries {
            match e.kind {
                EntryKind::Dir if level + 1 < depth => folders.push((e.path, level + 1)),
                EntryKind::File | EntryKind::Symlink
                    if matcher.as_ref().is_none_or(|m| m.is_match(&e.path)) =>
                {
                    members.push(Member::file(e.path, e.size));
                }
                _ => {}
            }
        }
    }
    Ok(Some(Dataset::from_members(
        vec![asked.to_owned()],
        members,
        opts,
        Arc::new(WorkspaceOpener(ws.clone())),
    )))
}
