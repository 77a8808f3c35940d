//! Tool argument repair and path judgement: whatever the arguments, the
//! answer is an observation, and a path the judge admits lies inside the
//! workspace root.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use plumb_tool::{repair, Toolbox, Workspace};

struct Fixture {
    _dir: tempfile_dir::Dir,
    ws: Workspace,
}

mod tempfile_dir {
    /// A directory under the system temp folder, kept for the run.
    pub struct Dir(pub std::path::PathBuf);
    impl Dir {
        pub fn new() -> Dir {
            let p = std::env::temp_dir().join(format!("plumb-fuzz-{}", std::process::id()));
            std::fs::create_dir_all(p.join("ws/data")).unwrap();
            std::fs::create_dir_all(p.join("ws/.git")).unwrap();
            std::fs::write(p.join("ws/data/a.csv"), "a,b\n1,2\n").unwrap();
            std::fs::write(p.join("secret.csv"), "s\n1\n").unwrap();
            #[cfg(unix)]
            let _ = std::os::unix::fs::symlink(p.join("secret.csv"), p.join("ws/data/link.csv"));
            Dir(p)
        }
    }
}

fn fixture() -> &'static Fixture {
    static F: OnceLock<Fixture> = OnceLock::new();
    F.get_or_init(|| {
        let dir = tempfile_dir::Dir::new();
        let ws = Workspace::new(dir.0.join("ws"), &[], &[]).unwrap();
        Fixture { _dir: dir, ws }
    })
}

fuzz_target!(|input: &[u8]| {
    let f = fixture();
    let text = String::from_utf8_lossy(input);
    if let Ok(opened) = f.ws.resolve(&text) {
        // Judged by the handle: its real path lies inside the root.
        use std::os::fd::AsRawFd;
        let real =
            std::fs::read_link(format!("/proc/self/fd/{}", opened.file().as_raw_fd())).unwrap();
        assert!(
            real.starts_with(f.ws.root()),
            "{text:?} resolved to {real:?}"
        );
        let rel = real.strip_prefix(f.ws.root()).unwrap();
        assert!(!f.ws.is_reserved(rel), "{text:?} opened reserved {rel:?}");
    }
    if let Ok(args) = serde_json::from_slice::<serde_json::Value>(input) {
        let _ = repair(args.clone());
        let tools = Toolbox::new(f.ws.clone());
        for tool in ["data", "read"] {
            let answer = tools.call(tool, args.clone(), None);
            assert!(answer["ok"].is_boolean());
            assert!(!answer.to_string().contains("\"s\\n1\\n\""));
        }
    }
});
