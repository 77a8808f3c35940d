//! The commands that read a file, from their arguments to their
//! output: the four data ops (`data`), `detect` and `read`; each shown
//! as JSON or for a person, refused with a reason, and ended with the
//! exit status the crate docs give.

use std::io::{IsTerminal, Write};
use std::path::Path;
use std::process::ExitCode;
use std::sync::atomic::AtomicU64;
use std::sync::Arc;

use plumb::read::{read_source, ReadRequest};
use plumb::{Layout, Op, Plumb, Refusal};
use serde_json::{json, Value};

use crate::args::{request, Common, LayerArgs};
use crate::open::{
    archive_member, merge_member, open_source, remote_note, remote_report, Progress,
};
use crate::terminal::{present, Screen};
use crate::{emit, plumb, refuse, render, screen};

fn show(answer: &Value, json: bool, screen: &Screen) -> Result<(), ExitCode> {
    if json {
        emit(&(answer.to_string() + "\n"))
    } else {
        present(&render::generic(answer, &screen.look()), screen)
    }
}

pub(crate) fn data(
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
            } else if a.layout() == Layout::LineHits {
                grep_lines(&a.to_json(), screen)
            } else {
                let look = screen.look();
                let layout = a.layout();
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
                // The file's size heads an inspect, not a window.
                let size = source.len().filter(|_| op == Op::Inspect);
                let mut text = render::answer(layout, &v, &look, size);
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

pub(crate) fn detect(
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

pub(crate) fn read_cmd(
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
