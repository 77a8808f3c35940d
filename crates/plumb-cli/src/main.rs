//! The `plumb` command: inspect, select, validate, search, detect and
//! read files of any size; `--json` for scripts and agents.
//!
//! Exit status: 0 success, 1 when `validate` finds the file invalid, 2 on
//! a refusal or bad usage. A closed stdout (`| head`) ends quietly.
//!
//! The rooms: the command line (`args`), the agent surface's commands
//! (`agent`), a path opened as a source (`open`), the terminal and its
//! pager (`terminal`), the answer's tree bounded for the screen
//! (`screen`), its rendering (`render`); here, each op from arguments to
//! output.

mod agent;
mod args;
mod open;
mod panics;
mod render;
mod screen;
mod terminal;

use std::io::{IsTerminal, Write};
use std::path::Path;
use std::process::ExitCode;
use std::sync::atomic::AtomicU64;
use std::sync::Arc;

use clap::FromArgMatches;
use plumb::read::{read_source, ReadRequest};
use plumb::{Op, Plumb, Refusal};
use serde_json::{json, Value};

use crate::agent::{mcp_cmd, tool_cmd};
use crate::args::{command, request, Cli, Cmd, Common, LayerArgs};
use crate::open::{
    archive_member, merge_member, open_source, remote_note, remote_report, Progress,
};
use crate::terminal::{present, Screen};

/// Writes to stdout; a closed pipe is not an error worth a word.
fn emit(text: &str) -> Result<(), ExitCode> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Err(ExitCode::SUCCESS),
        Err(_) => Err(ExitCode::from(2)),
    }
}

fn refuse(refusal: &Refusal, json: bool) -> ExitCode {
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

fn show(answer: &Value, json: bool, screen: &Screen) -> Result<(), ExitCode> {
    if json {
        emit(&(answer.to_string() + "\n"))
    } else {
        present(&render::generic(answer, &screen.look()), screen)
    }
}

fn data(
    plumb: &Plumb,
    screen: &Screen,
    op: Op,
    common: &Common,
    sub: &clap::ArgMatches,
    pattern: Option<&str>,
) -> ExitCode {
    let mut req = match request(plumb.registry(), sub, common) {
        Ok(r) => r,
        Err(r) => return refuse(&r, common.json),
    };
    // A person at a terminal reads hits through the pager: a search
    // without a limit shows as many as one answer holds, not the short
    // default that keeps an agent's answer small.
    // (Asked only of search, the one command here with a `limit`.)
    let limit_given = || {
        sub.value_source("limit") == Some(clap::parser::ValueSource::CommandLine)
            || common.opt.iter().any(|(n, _)| n == "limit")
    };
    if op == Op::Search && !common.json && std::io::stdout().is_terminal() && !limit_given() {
        if let Err(r) = req.set("limit", Value::from(plumb_core::SEARCH_MAX_LIMIT as u64)) {
            return refuse(&r, common.json);
        }
    }
    if let Some(p) = pattern {
        if req.options.get("pattern").is_some() {
            let r = Refusal::invalid_argument(
                "the pattern is given twice (as PATTERN and as --pattern); give it once",
            );
            return refuse(&r, common.json);
        }
        req.options.set("pattern", Value::from(p));
    }
    let (path, member) = archive_member(&common.path);
    if member.is_some() {
        let given = req.options.text("member").map(str::to_owned);
        match merge_member(member, given.as_deref()) {
            Ok(Some(m)) => {
                req.options.set("member", Value::from(m));
            }
            Ok(None) => {}
            Err(r) => return refuse(&r, common.json),
        }
    }
    let counter = Arc::new(AtomicU64::new(0));
    let source = match open_source(&path, &counter) {
        Ok(s) => s,
        Err(r) => return refuse(&r, common.json),
    };
    let bar = !common.json && std::io::stderr().is_terminal();
    let progress = Progress::start(counter, source.len(), bar);
    let answer = plumb.run_source(op, source.as_ref(), common.format.as_deref(), &req);
    drop(progress);
    match answer {
        Err(r) => refuse(&r, common.json),
        Ok(a) => {
            let verdict = a.verdict();
            let remote = remote_report();
            let shown = if let (true, Some(r)) = (common.json, &remote) {
                let mut v = a.to_json();
                v["remote"] = r.clone();
                show(&v, true, screen)
            } else if common.json {
                // Straight from the typed answer to stdout: no JSON tree.
                let mut out = std::io::BufWriter::new(std::io::stdout().lock());
                a.write_json(&mut out)
                    .and_then(|()| out.write_all(b"\n"))
                    .and_then(|()| out.flush())
                    .map_err(|e| {
                        if e.kind() == std::io::ErrorKind::BrokenPipe {
                            ExitCode::SUCCESS
                        } else {
                            ExitCode::from(2)
                        }
                    })
            } else if op == Op::Search && req.options.flag("count_only") == Some(true) {
                count_line(&a.to_json())
            } else if op == Op::Search && a.format() == "text" {
                grep_lines(&a.to_json(), screen)
            } else {
                let look = screen.look();
                // The typed answer is written out and freed while a tree
                // within the screen's bounds is read back.
                let v = match screen::tree(a) {
                    Ok(v) => v,
                    Err(message) => {
                        return refuse(
                            &plumb::Refusal::new(plumb::RefusalReason::ReadError, message),
                            false,
                        )
                    }
                };
                let mut text = match op {
                    Op::Inspect => render::inspect(&v, &look, source.len()),
                    Op::Select => render::select(&v, &look),
                    Op::Validate => render::validate(&v, &look),
                    Op::Search => render::search(&v, &look),
                    _ => render::generic(&v, &look),
                };
                text.push_str(&screen::cut_note(&v, &look));
                // The text is all that is shown: the tree goes first.
                drop(v);
                present(&text, screen)
            };
            if let Err(code) = shown {
                return code;
            }
            if !common.json {
                remote_note();
            }
            if verdict == Some(Some(false)) {
                ExitCode::from(1)
            } else {
                ExitCode::SUCCESS
            }
        }
    }
}

/// A text search for a person (see [`render::grep`]), through the pager
/// on a terminal; then where to continue, on stderr.
fn grep_lines(answer: &Value, screen: &Screen) -> Result<(), ExitCode> {
    present(&render::grep(answer, &screen.look()), screen)?;
    let total = &answer["total"];
    match answer["next_offset"].as_u64() {
        Some(next) => eprintln!("plumb: more hits follow; continue with --offset {next}"),
        None if answer["total_exact"] == Value::Bool(true) => {
            eprintln!("plumb: {total} matching lines")
        }
        None => eprintln!("plumb: at least {total} matching lines"),
    }
    Ok(())
}

/// `search -c` for a person: the count alone on standard output, as
/// `grep -c` prints it; a count the scan could not finish is said to be
/// a lower bound, on standard error.
fn count_line(answer: &Value) -> Result<(), ExitCode> {
    let total = answer["total"].as_u64().unwrap_or(0);
    emit(&format!("{total}\n"))?;
    if answer["total_exact"] == Value::Bool(false) {
        eprintln!("plumb: at least {total}: the scan stopped before the end");
    }
    Ok(())
}

fn detect(
    path: &Path,
    format: Option<&str>,
    layers: &LayerArgs,
    json: bool,
    screen: &Screen,
) -> ExitCode {
    let plumb = plumb();
    let (choice, path) = match layers.choice(path) {
        Ok(c) => c,
        Err(r) => return refuse(&r, json),
    };
    let source = match open_source(&path, &Arc::new(AtomicU64::new(0))) {
        Ok(s) => s,
        Err(r) => return refuse(&r, json),
    };
    match plumb.detect_with(source.as_ref(), format, &choice) {
        Ok(d) => {
            let mut v = json!({"ok": true, "path": path.display().to_string(), "format": d.reader.name(), "by": d.by});
            if let Some(container) = d.container {
                v["container"] = Value::from(container);
            }
            if let Some(member) = &choice.member {
                v["member"] = Value::from(member.as_str());
            }
            if let Some(encoding) = d.encoding {
                v["encoding"] = Value::from(encoding);
            }
            match show(&v, json, screen) {
                Ok(()) => ExitCode::SUCCESS,
                Err(code) => code,
            }
        }
        Err(r)
            if r.reason() == plumb::RefusalReason::UnsupportedFormat
                && (format.is_none() || r.extra("found").is_some()) =>
        {
            // Unrecognised is an answer for detect: format null, and what
            // the first bytes say the file is when they say (gzip, UTF-16).
            let mut v = json!({"ok": true, "path": path.display().to_string(), "format": null, "by": null,
                           "supported": r.extra("supported").cloned().unwrap_or(Value::Null)});
            if let Some(found) = r.extra("found") {
                v["found"] = found.clone();
                v["message"] = Value::from(r.message());
            }
            match show(&v, json, screen) {
                Ok(()) => ExitCode::SUCCESS,
                Err(code) => code,
            }
        }
        Err(r) => refuse(&r, json),
    }
}

fn read_cmd(
    screen: &Screen,
    path: &Path,
    offset: i64,
    limit: Option<u64>,
    layers: &LayerArgs,
    json: bool,
) -> ExitCode {
    let (choice, path) = match layers.choice(path) {
        Ok(c) => c,
        Err(r) => return refuse(&r, json),
    };
    let path = path.as_path();
    let req = ReadRequest {
        offset,
        limit,
        encoding: choice.encoding,
        member: choice.member,
        ..ReadRequest::default()
    };
    let source = match open_source(path, &Arc::new(AtomicU64::new(0))) {
        Ok(s) => s,
        Err(r) => return refuse(&r, json),
    };
    match read_source(source.as_ref(), &req) {
        Err(r) => refuse(&r, json),
        Ok(a) => {
            if json {
                let mut v = serde_json::to_value(&a).unwrap_or(Value::Null);
                if let Some(r) = remote_report() {
                    v["remote"] = r;
                }
                return match show(&v, true, screen) {
                    Ok(()) => ExitCode::SUCCESS,
                    Err(code) => code,
                };
            }
            let on_terminal = std::io::stdout().is_terminal();
            let shown = if on_terminal {
                present(&a.text, screen)
            } else {
                emit(&a.text)
            };
            if let Err(code) = shown {
                return code;
            }
            if on_terminal && !a.text.is_empty() && !a.text.ends_with('\n') {
                // The prompt would run on after the last line; say why
                // the line break plumb adds is not the file's.
                if let Err(code) = emit("\n") {
                    return code;
                }
                eprintln!("plumb: (no newline at the end of the text)");
            }
            if a.line_truncated {
                eprintln!("plumb: the line was cut at {} bytes", a.bytes);
            }
            remote_note();
            match (a.total_lines, a.next_offset) {
                (Some(t), Some(n)) => {
                    eprintln!("plumb: {t} lines in all; continue with --offset {n}")
                }
                (Some(t), None) => eprintln!("plumb: {t} lines in all"),
                _ => {}
            }
            ExitCode::SUCCESS
        }
    }
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
fn plumb() -> Plumb {
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
        Cmd::Inspect { common } => {
            data(&plumb, screen, Op::Inspect, &common, &sub("inspect"), None)
        }
        Cmd::Select { common } => data(&plumb, screen, Op::Select, &common, &sub("select"), None),
        Cmd::Validate { common } => data(
            &plumb,
            screen,
            Op::Validate,
            &common,
            &sub("validate"),
            None,
        ),
        Cmd::Search { common, pattern } => data(
            &plumb,
            screen,
            Op::Search,
            &common,
            &sub("search"),
            pattern.as_deref(),
        ),
        Cmd::Detect {
            path,
            format,
            layers,
            json,
        } => detect(&path, format.as_deref(), &layers, json, screen),
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
