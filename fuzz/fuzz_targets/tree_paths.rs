//! Path judgement over a generated tree: the input builds a small tree of
//! folders, files and symlinks (pointing inside, outside, into `.git`,
//! absolute and relative, in loops) beneath a fresh root, then names a
//! path. Whatever the tree and the path, an admitted file is one whose
//! opened handle lies inside the root and outside every reserved name,
//! and its bytes are never a planted secret.
#![no_main]

use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use libfuzzer_sys::fuzz_target;
use plumb_tool::Workspace;

const NAMES: [&str; 8] = ["a", "b", ".git", "c.csv", "..", "x.key", "d", "."];
const SECRET: &[u8] = b"PLANTED-SECRET";

fn name(b: u8) -> &'static str {
    NAMES[usize::from(b) % NAMES.len()]
}

/// A relative path of one to three names from `bytes`.
fn rel(bytes: &[u8]) -> PathBuf {
    let mut p = PathBuf::new();
    for &b in bytes.iter().take(3) {
        p.push(name(b));
    }
    p
}

fn build(base: &Path, root: &Path, ops: &[u8]) {
    for op in ops.chunks(4) {
        let [kind, x, y, z] = [
            op[0],
            *op.get(1).unwrap_or(&0),
            *op.get(2).unwrap_or(&0),
            *op.get(3).unwrap_or(&0),
        ];
        let at = root.join(rel(&[x, y]));
        match kind % 5 {
            0 => {
                let _ = std::fs::create_dir_all(&at);
            }
            1 => {
                // A file: a secret when it lands in reserved space.
                let _ = std::fs::write(&at, b"plain,data\n1,2\n");
            }
            2 => {
                let target: PathBuf = match z % 6 {
                    0 => base.join("outside/secret.txt"),
                    1 => PathBuf::from("../outside/secret.txt"),
                    2 => PathBuf::from(".git/secret.txt"),
                    3 => root.join(".git"),
                    4 => rel(&[z, x]),
                    _ => PathBuf::from("../../.."),
                };
                let _ = std::os::unix::fs::symlink(target, &at);
            }
            3 => {
                let _ = std::fs::create_dir_all(at.join(".git"));
                let _ = std::fs::write(at.join(".git/secret.txt"), SECRET);
            }
            _ => {
                let _ = std::fs::write(at.join("nested.key"), SECRET);
            }
        }
    }
}

fuzz_target!(|input: &[u8]| {
    static RUN: AtomicU64 = AtomicU64::new(0);
    let Some((&split, rest)) = input.split_first() else {
        return;
    };
    let cut = usize::from(split).min(rest.len());
    let (ops, asked) = rest.split_at(cut);
    let base = std::env::temp_dir().join(format!(
        "plumb-tree-{}-{}",
        std::process::id(),
        RUN.fetch_add(1, Ordering::Relaxed)
    ));
    let root = base.join("ws");
    std::fs::create_dir_all(root.join(".git")).unwrap();
    std::fs::create_dir_all(base.join("outside")).unwrap();
    std::fs::write(base.join("outside/secret.txt"), SECRET).unwrap();
    std::fs::write(root.join(".git/secret.txt"), SECRET).unwrap();
    build(&base, &root, ops);
    let ws = Workspace::new(&root, &["*.key".to_owned()], &[]).unwrap();
    let asked = String::from_utf8_lossy(asked);
    if let Ok(opened) = ws.resolve(&asked) {
        let real =
            std::fs::read_link(format!("/proc/self/fd/{}", opened.file().as_raw_fd())).unwrap();
        assert!(real.starts_with(ws.root()), "{asked:?} opened {real:?}");
        let inside = real.strip_prefix(ws.root()).unwrap();
        assert!(
            !ws.is_reserved(inside),
            "{asked:?} opened reserved {inside:?}"
        );
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut opened.reader(), &mut bytes).unwrap();
        assert!(bytes != SECRET, "{asked:?} read a planted secret");
    }
    let _ = std::fs::remove_dir_all(&base);
});
