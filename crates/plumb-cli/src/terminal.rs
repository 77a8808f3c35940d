//! The terminal the answer is shown on: its size, whether to colour and
//! page, and the pager the text goes through.

use std::io::{IsTerminal, Write};
use std::process::ExitCode;

use clap::Args;

use crate::emit;
use crate::render;

/// How the readable output is laid out; `--json` ignores all of it.
#[derive(Args, Debug, Clone)]
pub(crate) struct Screen {
    /// The width to lay tables out to: 0 for unlimited [default: the
    /// terminal's, else COLUMNS, else 80].
    #[arg(long, value_name = "N", global = true)]
    pub(crate) width: Option<usize>,
    /// Colour by meaning: auto (on a terminal, never under NO_COLOR),
    /// always, never.
    #[arg(long, value_name = "WHEN", global = true, default_value = "auto",
          value_parser = ["auto", "always", "never"])]
    pub(crate) color: String,
    /// Show each row of a window as a record, one field per line.
    #[arg(long, global = true)]
    pub(crate) vertical: bool,
    /// Print straight to the terminal, never through PAGER.
    #[arg(long, global = true)]
    pub(crate) no_pager: bool,
    /// The progress bar on stderr: auto (once a scan has run a second),
    /// always (from the start of a scan), never. Drawn only on a
    /// terminal, never under --json.
    #[arg(long, value_name = "WHEN", global = true, default_value = "auto",
          value_parser = ["auto", "always", "never"])]
    pub(crate) progress: String,
}

/// How long a scan runs before its bar shows, by default: a shorter
/// scan would only flicker one.
pub(crate) const PROGRESS_AFTER: std::time::Duration = std::time::Duration::from_secs(1);

/// The default width when neither a terminal nor COLUMNS gives one.
pub(crate) const DEFAULT_WIDTH: usize = 80;

impl Screen {
    /// How long a scan runs before its progress bar shows; `None` for no
    /// bar (stderr not a terminal, `--json`, `--progress never`).
    pub(crate) fn progress_after(&self, json: bool) -> Option<std::time::Duration> {
        if json || !std::io::stderr().is_terminal() {
            return None;
        }
        match self.progress.as_str() {
            "never" => None,
            "always" => Some(std::time::Duration::ZERO),
            _ => Some(PROGRESS_AFTER),
        }
    }

    pub(crate) fn look(&self) -> render::Look {
        let stdout = std::io::stdout();
        let width = match self.width {
            Some(0) => None,
            Some(n) => Some(n),
            None => Some(
                std::env::var("COLUMNS")
                    .ok()
                    .and_then(|c| c.trim().parse::<usize>().ok())
                    .filter(|c| *c > 0)
                    .or_else(|| terminal_size().map(|(_, w)| w))
                    .unwrap_or(DEFAULT_WIDTH),
            ),
        };
        render::Look {
            width,
            colour: render::colour(&self.color, stdout.is_terminal()),
            vertical: self.vertical,
        }
    }
}

/// The terminal's rows and columns, when stdout is one.
pub(crate) fn terminal_size() -> Option<(usize, usize)> {
    if !std::io::stdout().is_terminal() {
        return None;
    }
    console::Term::stdout()
        .size_checked()
        .map(|(rows, cols)| (usize::from(rows), usize::from(cols)))
        .filter(|(_, cols)| *cols > 0)
}

/// Readable output to stdout: through the pager when stdout is a
/// terminal and the text is taller than it (`PAGER`, else `less`, with
/// `LESS=FRX` unless set, as git does), else straight out.
pub(crate) fn present(text: &str, screen: &Screen) -> Result<(), ExitCode> {
    let tall = terminal_size().is_some_and(|(rows, _)| text.lines().count() >= rows);
    match tall.then(|| pager(screen)).flatten() {
        Some(mut out) => {
            out.write(text);
            out.close();
            Ok(())
        }
        None => emit(text),
    }
}

/// Readable output made a page at a time (a search's hits): `first`,
/// then each text `next` makes until it gives none, written as made so
/// the reader sees the first page while the rest is read. Through the
/// pager on a terminal, where a page waits until the reader scrolls to
/// it, and no further page is made once the reader quits; else to
/// stdout. Returns whether every page was shown.
pub(crate) fn present_pages(
    first: &str,
    screen: &Screen,
    mut next: impl FnMut() -> Option<String>,
) -> Result<bool, ExitCode> {
    let pager = terminal_size().and_then(|_| pager(screen));
    let Some(mut out) = pager else {
        emit(first)?;
        while let Some(text) = next() {
            emit(&text)?;
        }
        return Ok(true);
    };
    let mut shown = out.write(first);
    while shown {
        match next() {
            Some(text) => shown = out.write(&text),
            None => break,
        }
    }
    out.close();
    Ok(shown)
}

/// The pager a person reads long output in, started; none when asked
/// not to page, when `PAGER` is empty or `cat`, or when it cannot start.
fn pager(screen: &Screen) -> Option<Pager> {
    if screen.no_pager {
        return None;
    }
    let pager = std::env::var("PAGER").unwrap_or_else(|_| "less".to_owned());
    let pager = pager.trim();
    if pager.is_empty() || pager == "cat" {
        return None;
    }
    let mut cmd = std::process::Command::new("sh");
    cmd.arg("-c").arg(pager).stdin(std::process::Stdio::piped());
    if std::env::var_os("LESS").is_none() {
        cmd.env("LESS", "FRX");
    }
    let mut child = cmd.spawn().ok()?;
    let stdin = child.stdin.take()?;
    Some(Pager { child, stdin })
}

/// A running pager and the pipe to it.
struct Pager {
    child: std::process::Child,
    stdin: std::process::ChildStdin,
}

impl Pager {
    /// Writes `text`; false once the reader has quit (`q` in less closes
    /// the pipe), which is no error.
    fn write(&mut self, text: &str) -> bool {
        self.stdin.write_all(text.as_bytes()).is_ok()
    }

    /// Ends the text and waits for the reader to quit.
    fn close(self) {
        let Pager { mut child, stdin } = self;
        drop(stdin);
        let _ = child.wait();
    }
}
