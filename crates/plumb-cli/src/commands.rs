//! The commands that read a file, from their arguments to their
//! output: the four data ops (`data`), `detect` and `read`; each shown
//! as JSON or for a person, refused with a reason, and ended with the
//! exit status the crate docs give.

use std::io::IsTerminal;
use std::path::Path;
use std::process::ExitCode;
use std::sync::atomic::AtomicU64;
use std::sync::Arc;

use plumb::read::{read_source, ReadRequest};
use plumb::{Answer, Layout, Op, Plumb, Refusal, Request, Source};
use serde_json::{json, Value};

use crate::args::{request, Common, LayerArgs};
use crate::open::{
    archive_member, merge_member, open_source, remote_note, remote_report, Progress,
};
use crate::terminal::{present, present_pages, Screen};
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
    more: &[std::path::PathBuf],
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
    let every_page =
        op == Op::Search && !common.json && std::io::stdout().is_terminal() && !limit_given();
    if every_page {
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
    if let Some(names) = crate::dataset::names(&common.path, more) {
        let format = common.format.as_deref();
        return crate::dataset::run(
            plumb,
            screen,
            Some(op),
            &names,
            &common.dataset,
            format,
            &req,
            common.json,
        );
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
    let progress = Progress::start(counter, source.len(), screen.progress_after(common.json));
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
                crate::emit_answer(a.as_ref())
            } else if op == Op::Search && req.options.flag("count_only") == Some(true) {
                count_line(&a.to_json())
            } else if every_page {
                let format = common.format.as_deref();
                search_pages(plumb, source.as_ref(), format, &req, a, screen)
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

/// Every hit of a search, for a person at a terminal: pages of as many
/// hits as one answer holds, each a search from where the page before
/// ended (its `next_offset`), shown through the pager as each is made,
/// and none made once the reader quits. The last page's total is the
/// whole search's. A page the source cannot give again (a stream read
/// past its replay) ends the text, with the refusal and where to go on
/// said after it.
fn search_pages(
    plumb: &Plumb,
    source: &dyn Source,
    format: Option<&str>,
    req: &Request,
    first: Box<dyn Answer>,
    screen: &Screen,
) -> Result<(), ExitCode> {
    let look = screen.look();
    let layout = first.layout();
    // Lines of text are small and read whole; a page of a table is
    // bounded for the screen like any answer.
    let tree = |a: Box<dyn Answer>| -> Result<Value, Refusal> {
        if layout == Layout::LineHits {
            Ok(a.to_json())
        } else {
            screen::tree(a).map_err(|m| Refusal::new(plumb::RefusalReason::ReadError, m))
        }
    };
    // Hits on the pages before; the last line printed, so context that
    // runs across pages is printed once.
    let mut before = 0u64;
    let mut last_line = None;
    let mut end = Value::Null;
    let mut page = |mut v: Value, last_line: &mut Option<u64>, before: &mut u64| -> String {
        let last = v["next_offset"].is_null();
        if last {
            v["total"] = Value::from(*before + v["total"].as_u64().unwrap_or(0));
        }
        *before += v["returned"].as_u64().unwrap_or(0);
        let mut text = render::search_page(layout, &v, &look, last_line, last);
        text.push_str(&screen::cut_note(&v, &look));
        if last {
            end = v;
        }
        text
    };
    let first = match tree(first) {
        Ok(v) => v,
        Err(r) => return Err(refuse(&r, false)),
    };
    let mut next = first["next_offset"].as_u64();
    let text = page(first, &mut last_line, &mut before);
    let mut failed = None;
    let all = present_pages(&text, screen, || {
        let offset = next.take()?;
        let mut again = req.clone();
        again.window.offset = Some(offset);
        match plumb
            .run_source(Op::Search, source, format, &again)
            .and_then(&tree)
        {
            Ok(v) => {
                next = v["next_offset"].as_u64();
                Some(page(v, &mut last_line, &mut before))
            }
            Err(r) => {
                failed = Some((r, offset));
                None
            }
        }
    })?;
    if let Some((r, offset)) = failed {
        eprintln!("plumb: refused ({}): {}", r.reason(), r.message());
        eprintln!("plumb: the hits before were shown; continue with --offset {offset}");
    } else if all && layout == Layout::LineHits {
        lines_note(&end);
    }
    Ok(())
}

/// A text search for a person (see [`render::grep`]), through the pager
/// on a terminal; then where to continue, on stderr.
fn grep_lines(answer: &Value, screen: &Screen) -> Result<(), ExitCode> {
    present(&render::grep(answer, &screen.look(), &mut None), screen)?;
    lines_note(answer);
    Ok(())
}

/// How many lines matched, or where to go on, on stderr (stdout holds
/// the lines alone, as grep's does).
fn lines_note(answer: &Value) {
    let total = &answer["total"];
    match answer["next_offset"].as_u64() {
        Some(next) => eprintln!("plumb: more hits follow; continue with --offset {next}"),
        None if answer["total_exact"] == Value::Bool(true) => {
            eprintln!("plumb: {total} matching lines")
        }
        None => eprintln!("plumb: at least {total} matching lines"),
    }
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
