//! What the terminal tests share: a real terminal under tmux.
#![allow(dead_code)] // each test file uses its own part

use std::process::{Command, Output};
use std::time::Duration;

use unicode_width::UnicodeWidthStr;

/// The `plumb` binary under test.
pub fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_plumb")
}

/// Runs `plumb` with `args`, off a terminal, no colour, no `COLUMNS`.
pub fn plumb(args: &[&str]) -> Output {
    Command::new(bin())
        .args(args)
        .env("NO_COLOR", "1")
        .env_remove("COLUMNS")
        .output()
        .expect("the binary runs")
}

/// Every line of `text` fits in `width` terminal columns.
pub fn assert_fits(text: &str, width: usize, what: &str) {
    for line in text.lines() {
        assert!(
            UnicodeWidthStr::width(line) <= width,
            "{what}: a line of {} columns at width {width}: {line:?}",
            UnicodeWidthStr::width(line)
        );
    }
}

/// A tmux session running `script` in a pane of `width` × `height`; the
/// pane's text (with `-e`, its colour escapes; wrapped lines joined) once
/// `done` holds or the time is up.
pub struct Tmux {
    name: String,
}

impl Tmux {
    pub fn available() -> bool {
        let found = Command::new("tmux")
            .arg("-V")
            .output()
            .is_ok_and(|o| o.status.success());
        if !found {
            // CI installs tmux; a developer without it is told, not failed.
            assert!(std::env::var_os("CI").is_none(), "CI must have tmux");
            eprintln!("tmux is not installed: the terminal tests did not run");
        }
        found
    }

    pub fn start(width: u16, height: u16, script: &str, env: &[(&str, &str)]) -> Tmux {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static N: AtomicUsize = AtomicUsize::new(0);
        let name = format!(
            "plumb-test-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        );
        let mut cmd = Command::new("tmux");
        cmd.args([
            "-L",
            &name,
            "-f",
            "/dev/null",
            "start-server",
            ";",
            "set-option",
            "-g",
            "history-limit",
            "100000",
            ";",
            "new-session",
            "-d",
            "-s",
            &name,
        ])
        .args(["-x", &width.to_string(), "-y", &height.to_string()]);
        for (k, v) in env {
            cmd.args(["-e", &format!("{k}={v}")]);
        }
        cmd.arg(format!("{script}; echo __DONE__; sleep 30"));
        let status = cmd
            .env_remove("NO_COLOR")
            .env("TERM", "xterm-256color")
            .status()
            .unwrap();
        assert!(status.success());
        Tmux { name }
    }

    pub fn screen(&self) -> String {
        let out = Command::new("tmux")
            .args([
                "-L",
                &self.name,
                "capture-pane",
                "-p",
                "-e",
                "-J",
                "-t",
                &self.name,
            ])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// A session whose every byte of output, escapes and redraws
    /// included, is appended to `record`: `script` waits until the
    /// recording has started.
    pub fn start_recorded(
        width: u16,
        height: u16,
        script: &str,
        env: &[(&str, &str)],
        record: &std::path::Path,
    ) -> Tmux {
        let ready = record.with_extension("ready");
        let script = format!(
            "while [ ! -e '{}' ]; do sleep 0.05; done; {script}",
            ready.display()
        );
        let t = Tmux::start(width, height, &script, env);
        let status = Command::new("tmux")
            .args(["-L", &t.name, "pipe-pane", "-o", "-t", &t.name])
            .arg(format!("cat >> '{}'", record.display()))
            .status()
            .unwrap();
        assert!(status.success());
        std::fs::write(&ready, b"").unwrap();
        t
    }

    /// The pane's whole text, scrolled-off lines included, wrapped lines
    /// joined, no escapes.
    pub fn history(&self) -> String {
        let out = Command::new("tmux")
            .args(["-L", &self.name, "capture-pane", "-p", "-J", "-S", "-"])
            .args(["-t", &self.name])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    pub fn wait_for(&self, needle: &str) -> String {
        let start = std::time::Instant::now();
        loop {
            let s = self.screen();
            if s.contains(needle) || start.elapsed() > Duration::from_secs(60) {
                return s;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["-L", &self.name, "kill-server"])
            .status();
    }
}

pub fn strip_escapes(s: &str) -> String {
    let mut out = String::new();
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            for d in chars.by_ref() {
                if d.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}
