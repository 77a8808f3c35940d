//! A workspace under attack, for the hardening tests of the CLI and the
//! tool surface: a root with a reserved `.git/` and a folder outside it,
//! both holding a secret, and a thread that swaps names atomically while
//! calls run.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

/// A temporary tree: `root` (the workspace, `ws/`) holds `.git/f.csv`,
/// and `outside` holds `f.csv`; both files carry `secret` in a cell.
#[derive(Debug)]
pub struct HostileTree {
    /// The workspace root.
    pub root: PathBuf,
    /// A folder beside the root, outside it.
    pub outside: PathBuf,
    _dir: tempfile::TempDir,
}

impl HostileTree {
    /// Makes the tree in a new temporary folder.
    ///
    /// # Panics
    /// When the temporary folder cannot be written.
    pub fn new(secret: &str) -> HostileTree {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let root = dir.path().join("ws");
        let outside = dir.path().join("outside");
        std::fs::create_dir_all(root.join(".git")).expect("ws/.git");
        std::fs::create_dir_all(&outside).expect("outside");
        std::fs::write(outside.join("f.csv"), format!("k,v\n{secret},1\n")).expect("outside/f.csv");
        std::fs::write(root.join(".git/f.csv"), format!("k,v\n{secret},2\n")).expect(".git/f.csv");
        HostileTree {
            root,
            outside,
            _dir: dir,
        }
    }
}

/// Swaps each pair of names in turn (`renameat2(RENAME_EXCHANGE)`, so
/// neither name is ever missing) until `stop` is set; returns the number
/// of swaps.
///
/// # Panics
/// In the thread, when a swap fails (a name of a pair does not exist).
pub fn swap_names(pairs: Vec<(PathBuf, PathBuf)>, stop: Arc<AtomicBool>) -> JoinHandle<usize> {
    std::thread::spawn(move || {
        let mut n = 0usize;
        while !stop.load(Ordering::Relaxed) {
            let (a, b) = &pairs[n % pairs.len()];
            rustix::fs::renameat_with(
                rustix::fs::CWD,
                a,
                rustix::fs::CWD,
                b,
                rustix::fs::RenameFlags::EXCHANGE,
            )
            .expect("an atomic swap");
            n += 1;
        }
        n
    })
}
