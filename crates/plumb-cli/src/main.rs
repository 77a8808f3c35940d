//! The `plumb` command: inspect, select, validate, search, detect and
//! read files of any size; `--json` for scripts and agents.
//!
//! Exit status: 0 success, 1 when `validate` finds the file invalid, 2 on
//! a refusal or bad usage. A closed stdout (`| head`) ends quietly.
//!
//! The rooms: the command line (`args`), the commands that read a file
//! (`commands`), the agent surface's commands (`agent`), a path opened
//! as a source (`open`), the terminal and its pager (`terminal`), the
//! answer's tree bounded for the screen (`screen`), its rendering
//! (`render`); here, the dispatch, stdout and refusals.

mod agent;
mod args;
mod commands;
mod dataset;
mod open;
mod panics;
mod render;
mod screen;
mod terminal;

use std::io::Write;
use std::process::ExitCode;

use clap::FromArgMatches;
use plumb::{Op, Plumb, Refusal};

use crate::agent::{mcp_cmd, tool_cmd};
use crate::args::{command, Cli, Cmd};
use crate::commands::{data, detect, read_cmd};

/// Writes to stdout; a closed pipe is not an error worth a word.
pub(crate) fn emit(text: &str) -> Result<(), ExitCode> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Err(ExitCode::SUCCESS),
        Err(_) => Err(ExitCode::from(2)),
    }
}

/// Writes an answer's JSON to stdout straight from the typed answer (no
/// JSON tree), one line; a closed pipe ends quietly.
pub(crate) fn emit_answer(answer: &dyn plumb::Answer) -> Result<(), ExitCode> {
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    answer
        .write_json(&mut out)
        .and_then(|()| out.write_all(b"\n"))
        .and_then(|()| out.flush())
        .map_err(|e| {
            if e.kind() == std::io::ErrorKind::BrokenPipe {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(2)
            }
        })
}

pub(crate) fn refuse(refusal: &Refusal, json: bool) -> ExitCode {
    if json {
        let text = serde_json::to_string(refusal).unwrap_or_default() + "\n";
        if let Err(code) = emit(&text) {
            return code;
        }
    } else {
        eprintln!(
            "plumb: refused ({}): {}",
            refusal.reason(),
            refusal.message()
        );
    }
    ExitCode::from(2)
}

/// A usage error: clap's text on stderr, as ever, unless the command
/// line asks for `--json` (before any `--`), when it is a refusal on
/// stdout like every other; exit 2 either way. Help and version are not
/// errors and print as clap prints them.
fn usage_error(e: clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    if matches!(
        e.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        e.exit()
    }
    let json = std::env::args_os()
        .skip(1)
        .take_while(|a| a != "--")
        .any(|a| a == "--json");
    if !json {
        e.exit()
    }
    let text = e.render().to_string();
    // clap's first paragraph is the error; the rest is advice on --help.
    let message = text
        .split("\n\n")
        .next()
        .unwrap_or_default()
        .trim()
        .trim_start_matches("error: ")
        .to_owned();
    let refusal = Refusal::invalid_argument(format!("usage: {message}"));
    refuse(&refusal, true)
}

/// The dispatcher with every reader this build carries: the built-in
/// text formats, and the binary ones behind their cargo features (each
/// its own crate on the public reader seam).
pub(crate) fn plumb() -> Plumb {
    #[allow(unused_mut)]
    let mut plumb = Plumb::new();
    #[cfg(feature = "parquet")]
    plumb.registry_mut().register(plumb_parquet::ParquetReader);
    #[cfg(feature = "sheets")]
    for reader in plumb_sheets::SheetsReader::ALL {
        plumb.registry_mut().register(reader);
    }
    plumb
}

fn main() -> ExitCode {
    panics::one_line();
    let plumb = plumb();
    let matches = match command(plumb.registry()).try_get_matches() {
        Ok(m) => m,
        Err(e) => return usage_error(e),
    };
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(e) => e.exit(),
    };
    let sub = |name: &str| {
        matches
            .subcommand_matches(name)
            .cloned()
            .unwrap_or_default()
    };
    let screen = &cli.screen;
    match cli.cmd {
        Cmd::Inspect { common, more } => data(
            &plumb,
            screen,
            Op::Inspect,
            &common,
            &more,
            &sub("inspect"),
            None,
        ),
        Cmd::Select { common } => data(
            &plumb,
            screen,
            Op::Select,
            &common,
            &[],
            &sub("select"),
            None,
        ),
        Cmd::Validate { common, more } => data(
            &plumb,
            screen,
            Op::Validate,
            &common,
            &more,
            &sub("validate"),
            None,
        ),
        Cmd::Search { common, pattern } => data(
            &plumb,
            screen,
            Op::Search,
            &common,
            &[],
            &sub("search"),
            pattern.as_deref(),
        ),
        Cmd::Detect {
            path,
            more,
            dataset,
            format,
            layers,
            json,
        } => match crate::dataset::names(&path, &more) {
            Some(names) => crate::dataset::run(
                &plumb,
                screen,
                None,
                &names,
                &dataset,
                format.as_deref(),
                &plumb::Request::default(),
                json,
            ),
            None => detect(&path, format.as_deref(), &layers, json, screen),
        },
        Cmd::Read {
            path,
            offset,
            limit,
            layers,
            json,
        } => read_cmd(screen, &path, offset, limit, &layers, json),
        Cmd::Tool { agent } => tool_cmd(&agent),
        Cmd::Mcp { agent } => mcp_cmd(&agent),
        Cmd::Completions { shell } => {
            let mut out = Vec::new();
            clap_complete::generate(shell, &mut command(plumb.registry()), "plumb", &mut out);
            match emit(&String::from_utf8_lossy(&out)) {
                Ok(()) => ExitCode::SUCCESS,
                Err(code) => code,
            }
        }
    }
}
