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
}

/// The default width when neither a terminal nor COLUMNS gives one.
pub(crate) const DEFAULT_WIDTH: usize = 80;

impl Screen {
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
    if screen.no_pager {
        return emit(text);
    }
    let Some((rows, _)) = terminal_size() else {
        return emit(text);
    };
    if text.lines().count() < rows {
        return emit(text);
    }
    let pager = std::env::var("PAGER").unwrap_or_else(|_| "less".to_owned());
    let pager = pager.trim();
    if pager.is_empty() || pager == "cat" {
        return emit(text);
    }
    let mut cmd = std::process::Command::new("sh");
    cmd.arg("-c").arg(pager).stdin(std::process::Stdio::piped());
    if std::env::var_os("LESS").is_none() {
        cmd.env("LESS", "FRX");
    }
    let Ok(mut child) = cmd.spawn() else {
        return emit(text);
    };
    if let Some(mut stdin) = child.stdin.take() {
        // The reader quitting early (`q` in less) closes the pipe: fine.
        let _ = stdin.write_all(text.as_bytes());
    }
    let _ = child.wait();
    Ok(())
}
