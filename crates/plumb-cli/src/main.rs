//! The `plumb` command: inspect, select, validate, search, detect and
//! read files of any size; `--json` for scripts and agents.
//!
//! Exit status: 0 success, 1 when `validate` finds the file invalid, 2 on
//! a refusal or bad usage. A closed stdout (`| head`) ends quietly.

mod panics;
mod render;
mod screen;

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand};
use plumb::read::{read_source, ReadRequest};
use plumb::{
    DeclaredOption, FileSource, Op, OptionKind, Plumb, Refusal, Registry, Request, Source,
    StreamSource,
};
use serde_json::{json, Value};

/// Look into a data or text file of any size without loading it.
#[derive(Parser, Debug)]
#[command(name = "plumb", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
    #[command(flatten)]
    screen: Screen,
}

/// How the readable output is laid out; `--json` ignores all of it.
#[derive(Args, Debug, Clone)]
struct Screen {
    /// The width to lay tables out to: 0 for unlimited [default: the
    /// terminal's, else COLUMNS, else 80].
    #[arg(long, value_name = "N", global = true)]
    width: Option<usize>,
    /// Colour by meaning: auto (on a terminal, never under NO_COLOR),
    /// always, never.
    #[arg(long, value_name = "WHEN", global = true, default_value = "auto",
          value_parser = ["auto", "always", "never"])]
    color: String,
    /// Show each row of a window as a record, one field per line.
    #[arg(long, global = true)]
    vertical: bool,
    /// Print straight to the terminal, never through PAGER.
    #[arg(long, global = true)]
    no_pager: bool,
}

/// The default width when neither a terminal nor COLUMNS gives one.
const DEFAULT_WIDTH: usize = 80;

impl Screen {
    fn look(&self) -> render::Look {
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
fn terminal_size() -> Option<(usize, usize)> {
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
fn present(text: &str, screen: &Screen) -> Result<(), ExitCode> {
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

#[derive(Subcommand, Debug)]
enum Cmd {
    /// What is in the file: format, columns and types, keys, counts, problems.
    Inspect {
        #[command(flatten)]
        common: Common,
    },
    /// A bounded window of the file, verbatim.
    Select {
        #[command(flatten)]
        common: Common,
    },
    /// Is the file well formed, and where is the first fault (exit 1 if not).
    Validate {
        #[command(flatten)]
        common: Common,
    },
    /// Where a pattern or predicate holds: lines of any text file, rows of
    /// a table (--column), records or elements (--field); hits with their
    /// positions, and the offset to continue from.
    Search {
        #[command(flatten)]
        common: Common,
        /// The pattern: a regex (Rust syntax); plain text is searched as
        /// a literal. Leave it out when --where gives a predicate.
        #[arg(value_name = "PATTERN", id = "pattern_arg")]
        pattern: Option<String>,
    },
    /// Which format plumb reads the file as, and how it decided.
    Detect {
        /// The file.
        path: PathBuf,
        /// Name the format instead of detecting it.
        #[arg(long, value_name = "F")]
        format: Option<String>,
        #[command(flatten)]
        layers: LayerArgs,
        /// Print one JSON object.
        #[arg(long)]
        json: bool,
    },
    /// Lines [offset, offset + limit) of any text file (negative offset: from the end).
    Read {
        /// The file.
        path: PathBuf,
        /// The first line, from 0; -N reads the last N lines.
        #[arg(
            long,
            value_name = "N",
            allow_hyphen_values = true,
            default_value_t = 0
        )]
        offset: i64,
        /// Lines to return (1 to 512; default 512).
        #[arg(long, value_name = "N")]
        limit: Option<u64>,
        #[command(flatten)]
        layers: LayerArgs,
        /// Print one JSON object.
        #[arg(long)]
        json: bool,
    },
    /// Answer one agent call: `{"tool": "data" | "read", "args": {...}}` on stdin, one JSON answer on stdout.
    Tool {
        #[command(flatten)]
        agent: Agent,
    },
    /// Serve the `data` and `read` tools over the Model Context Protocol on stdio.
    Mcp {
        #[command(flatten)]
        agent: Agent,
    },
    /// Print a shell completion script.
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
}

/// The source options of the commands whose flags are not made from
/// the registry's declarations (detect and read).
#[derive(Args, Debug)]
struct LayerArgs {
    /// The text encoding of a file without a byte order mark (latin1,
    /// windows-1252, shift_jis, utf-16le: any WHATWG label) [default: utf-8]
    #[arg(long, value_name = "ENCODING")]
    encoding: Option<String>,
    /// The member of a zip archive to read.
    #[arg(long, value_name = "NAME")]
    member: Option<String>,
}

impl LayerArgs {
    /// The choice, and the file: a path `ARCHIVE::MEMBER` names the
    /// archive and its member.
    fn choice(&self, path: &Path) -> Result<(plumb::SourceChoice, PathBuf), Refusal> {
        let (file, member) = archive_member(path);
        Ok((
            plumb::SourceChoice {
                encoding: match &self.encoding {
                    Some(label) => plumb::TextEncoding::for_label(label)?,
                    None => None,
                },
                member: merge_member(member, self.member.as_deref())?,
            },
            file,
        ))
    }
}

#[derive(Args, Debug)]
struct Agent {
    /// The workspace root: no path may lead outside it.
    #[arg(long, value_name = "DIR", default_value = ".")]
    root: PathBuf,
    /// A reserved subtree (a glob relative to the root; `.git/` always is).
    #[arg(long = "reserve", value_name = "GLOB")]
    reserve: Vec<String>,
    /// A catalog entry: NAME resolves to PATH before any file named NAME.
    #[arg(long = "catalog", value_name = "NAME=PATH", value_parser = parse_catalog)]
    catalog: Vec<(String, PathBuf)>,
    /// A remote prefix the agent may read under (s3://bucket/prefix,
    /// https://host/path; repeatable). Judged on the parsed URL: scheme,
    /// bucket or host, port, and whole key segments. Redirects are not
    /// followed. Without it, a URL is refused.
    #[arg(long = "allow-remote", value_name = "URL")]
    allow_remote: Vec<String>,
}

fn parse_catalog(s: &str) -> Result<(String, PathBuf), String> {
    match s.split_once('=') {
        Some((name, path)) if !name.trim().is_empty() && !path.trim().is_empty() => {
            Ok((name.trim().to_owned(), PathBuf::from(path.trim())))
        }
        _ => Err(format!("`{s}` is not NAME=PATH")),
    }
}

impl Agent {
    fn toolbox(&self) -> Result<plumb_tool::Toolbox, Refusal> {
        let ws = plumb_tool::Workspace::new(&self.root, &self.reserve, &self.catalog)?;
        #[allow(unused_mut)]
        let mut toolbox = plumb_tool::Toolbox::new(ws).with_plumb(plumb());
        #[cfg(feature = "remote")]
        {
            let list = plumb_remote::AllowList::new(&self.allow_remote)?;
            let config = plumb_remote::RemoteConfig {
                follow_redirects: false,
                ..plumb_remote::RemoteConfig::from_env()?
            };
            toolbox = toolbox.with_remote(
                plumb_tool::RemoteOpener(Arc::new(
                    move |path: &str, cancel: Option<plumb_core::CancelToken>| {
                        if !plumb_remote::is_remote(path) {
                            return None;
                        }
                        Some(
                            list.judge(path)
                                .and_then(|url| {
                                    plumb_remote::RemoteSource::open(url.as_str(), &config)
                                })
                                .map(|s| Box::new(s.with_cancel(cancel)) as Box<dyn Source>),
                        )
                    },
                )),
                &self.allow_remote,
            );
        }
        #[cfg(not(feature = "remote"))]
        if !self.allow_remote.is_empty() {
            return Err(Refusal::invalid_argument(
                "--allow-remote needs a build with the remote feature",
            ));
        }
        Ok(toolbox)
    }
}

fn tool_cmd(agent: &Agent) -> ExitCode {
    let toolbox = match agent.toolbox() {
        Ok(t) => t,
        Err(r) => return refuse(&r, true),
    };
    let answer = toolbox.call_reader(std::io::stdin().lock(), None);
    let ok = answer["ok"] == Value::Bool(true);
    if let Err(code) = emit(&(answer.to_string() + "\n")) {
        return code;
    }
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(2)
    }
}

fn mcp_cmd(agent: &Agent) -> ExitCode {
    let toolbox = match agent.toolbox() {
        Ok(t) => t,
        Err(r) => {
            eprintln!("plumb: refused ({}): {}", r.reason(), r.message());
            return ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("plumb: the async runtime did not start: {e}");
            return ExitCode::from(2);
        }
    };
    let served = runtime.block_on(plumb_tool::McpServer::new(toolbox).serve_stdio());
    // A scan still running on the blocking pool (or the blocking read of
    // stdin) must not hold the exit: the client is gone.
    runtime.shutdown_background();
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("plumb: the MCP server stopped: {e}");
            ExitCode::from(2)
        }
    }
}

#[derive(Args, Debug)]
struct Common {
    /// The file.
    path: PathBuf,
    /// The format (csv, tsv, json, jsonl, parquet, xlsx, xlsb, xls, ods); detected when left out.
    #[arg(long, value_name = "F")]
    format: Option<String>,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
    /// Any reader's option by name (repeatable), for readers whose
    /// options have no flag of their own.
    #[arg(long = "opt", value_name = "NAME=VALUE", value_parser = parse_opt)]
    opt: Vec<(String, String)>,
}

fn parse_opt(s: &str) -> Result<(String, String), String> {
    match s.split_once('=') {
        Some((name, value)) if !name.trim().is_empty() => {
            Ok((name.trim().replace('-', "_"), value.to_owned()))
        }
        _ => Err(format!("`{s}` is not NAME=VALUE")),
    }
}

/// The command line, with a flag for every option the registry's
/// readers declare (and the shared ones) on each op that takes it: the
/// flags are made from the declarations, never written here.
fn command(registry: &Registry) -> clap::Command {
    let declared = registry.options();
    let mut cmd = Cli::command();
    for op in Op::ALL {
        let options: Vec<&DeclaredOption> =
            declared.iter().filter(|d| d.ops.contains(&op)).collect();
        cmd = cmd.mut_subcommand(op.as_str(), |mut sub| {
            for d in options {
                let mut arg = option_arg(d, op);
                // grep's short flags, on the command that is grep's.
                if op == Op::Search {
                    let short = match d.spec.name {
                        "ignore_case" => Some('i'),
                        "word" => Some('w'),
                        "count_only" => Some('c'),
                        "context" => Some('C'),
                        _ => None,
                    };
                    if let Some(c) = short {
                        arg = arg.short(c);
                    }
                }
                sub = sub.arg(arg);
            }
            sub
        });
    }
    cmd
}

fn option_arg(d: &DeclaredOption, op: Op) -> clap::Arg {
    let value_name = match d.spec.kind {
        OptionKind::Count => "N".to_owned(),
        OptionKind::List => "A,B".to_owned(),
        OptionKind::Flag => "true|false".to_owned(),
        OptionKind::Choice(words) => words.join("|"),
        OptionKind::Text => d.spec.name.to_ascii_uppercase(),
    };
    let mut help = d.help();
    // The shared `limit` has a default of its own on search.
    let search_limit = plumb_core::SEARCH_DEFAULT_LIMIT.to_string();
    let default = if op == Op::Search && d.spec.name == "limit" {
        Some(search_limit.as_str())
    } else {
        d.spec.default
    };
    if let Some(default) = default.filter(|v| !v.is_empty()) {
        help.push_str(&format!(" [default: {default}]"));
    }
    let arg = clap::Arg::new(d.spec.name)
        .long(d.spec.flag())
        .value_name(value_name)
        .help(help)
        // `--offset -N`: the last N (select), refused elsewhere by name.
        .allow_hyphen_values(matches!(d.spec.kind, OptionKind::Text) || d.spec.name == "offset")
        .action(clap::ArgAction::Set);
    if matches!(d.spec.kind, OptionKind::Flag) {
        // `--stats` alone turns it on, as a switch does; `--stats=false`
        // spells the value (an equals sign, so a path after the flag is
        // never taken for one).
        arg.num_args(0..=1)
            .require_equals(true)
            .default_missing_value("true")
    } else {
        arg
    }
}

/// The request the flags and `--opt` pairs ask for: each value goes
/// through its declaration, so `--limit 10` and `--opt limit=10` agree.
fn request(
    registry: &Registry,
    sub: &clap::ArgMatches,
    common: &Common,
) -> Result<Request, Refusal> {
    let mut given: Vec<(String, String)> = Vec::new();
    for d in registry.options() {
        if let Ok(Some(v)) = sub.try_get_one::<String>(d.spec.name) {
            given.push((d.spec.name.to_owned(), v.clone()));
        }
    }
    given.extend(common.opt.iter().cloned());
    let mut req = Request::default();
    for (name, value) in given {
        req.set(&name, Value::from(value))?;
    }
    Ok(req)
}

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

/// A progress bar on stderr for scans that pass about a second, only on
/// a terminal and never in JSON mode.
struct Progress {
    done: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Progress {
    fn start(counter: Arc<AtomicU64>, total: Option<u64>, enabled: bool) -> Progress {
        let done = Arc::new(AtomicBool::new(false));
        if !enabled {
            return Progress { done, thread: None };
        }
        let flag = done.clone();
        let thread = std::thread::spawn(move || {
            let start = std::time::Instant::now();
            let mut bar: Option<indicatif::ProgressBar> = None;
            while !flag.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(100));
                if bar.is_none() && start.elapsed() >= Duration::from_secs(1) {
                    // A stream's size is not known: it gets a spinner
                    // and the bytes read, never a made-up total.
                    let (b, template) = match total {
                        Some(t) => (
                            indicatif::ProgressBar::new(t),
                            "{spinner} {bytes}/{total_bytes} {bar:30} {bytes_per_sec} eta {eta}",
                        ),
                        None => (
                            indicatif::ProgressBar::new_spinner(),
                            "{spinner} {bytes} read {bytes_per_sec}",
                        ),
                    };
                    b.set_style(
                        indicatif::ProgressStyle::with_template(template)
                            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
                    );
                    bar = Some(b);
                }
                if let Some(b) = &bar {
                    b.set_position(counter.load(Ordering::Relaxed));
                }
            }
            if let Some(b) = bar {
                b.finish_and_clear();
            }
        });
        Progress {
            done,
            thread: Some(thread),
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.done.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// The remote object this run reads, when its path is a URL: its
/// counters are reported beside the answer.
#[cfg(feature = "remote")]
static REMOTE: std::sync::OnceLock<plumb_remote::RemoteSource> = std::sync::OnceLock::new();

/// What reading the remote object cost: `{url, bytes_fetched, requests,
/// etag}`; `None` for a local file.
fn remote_report() -> Option<Value> {
    #[cfg(feature = "remote")]
    if let Some(r) = REMOTE.get() {
        return Some(serde_json::json!({
            "url": r.name(),
            "size": r.len(),
            "bytes_fetched": r.bytes_fetched(),
            "requests": r.requests(),
            "etag": r.etag(),
        }));
    }
    None
}

/// Says on stderr what a remote read cost, for a person.
fn remote_note() {
    if let Some(r) = remote_report() {
        eprintln!(
            "plumb: fetched {} bytes of {} in {} requests",
            r["bytes_fetched"], r["size"], r["requests"]
        );
    }
}

/// A stream that counts the bytes read from it, for the progress bar.
struct Counted<R> {
    inner: R,
    counter: Arc<AtomicU64>,
}

impl<R: std::io::Read> std::io::Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.counter.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// The source a command-line path names: `-` for standard input, a pipe
/// or FIFO named explicitly read once as a stream, any other path a file
/// (judged by the handle it opened, as ever).
fn open_source(path: &Path, counter: &Arc<AtomicU64>) -> Result<Box<dyn Source>, Refusal> {
    #[cfg(feature = "remote")]
    if let Some(url) = path.to_str().filter(|s| plumb_remote::is_remote(s)) {
        let source =
            plumb_remote::RemoteSource::open(url, &plumb_remote::RemoteConfig::from_env()?)?;
        let _ = REMOTE.set(source.clone());
        return Ok(Box::new(source));
    }
    if path == Path::new("-") {
        let stdin = Counted {
            inner: std::io::stdin(),
            counter: counter.clone(),
        };
        return Ok(Box::new(StreamSource::new("stdin", stdin)));
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if std::fs::metadata(path).is_ok_and(|m| m.file_type().is_fifo()) {
            let file = std::fs::File::open(path)
                .map_err(|e| Refusal::from_io(&e, Some(&path.display().to_string())))?;
            let file = Counted {
                inner: file,
                counter: counter.clone(),
            };
            return Ok(Box::new(StreamSource::new(
                path.display().to_string(),
                file,
            )));
        }
    }
    Ok(Box::new(
        FileSource::new(path)?.with_progress(counter.clone()),
    ))
}

/// `ARCHIVE::MEMBER`: a path that names no file, whose part before a
/// `::` does, is a member of that archive. A path that exists is always
/// the file it names.
fn archive_member(path: &Path) -> (PathBuf, Option<String>) {
    let text = path.to_string_lossy();
    if path.exists() || path == Path::new("-") {
        return (path.to_path_buf(), None);
    }
    for (at, _) in text.match_indices("::") {
        let archive = Path::new(&text[..at]);
        if archive.is_file() {
            return (archive.to_path_buf(), Some(text[at + 2..].to_owned()));
        }
    }
    (path.to_path_buf(), None)
}

/// The member a path names, merged with the one an option names.
fn merge_member(from_path: Option<String>, given: Option<&str>) -> Result<Option<String>, Refusal> {
    match (from_path, given) {
        (Some(a), Some(b)) if a != b => Err(Refusal::invalid_argument(format!(
            "the path names the member `{}` and the member option `{}`; name it once",
            plumb_core::echo(&a),
            plumb_core::echo(b)
        ))),
        (Some(a), _) => Ok(Some(a)),
        (None, b) => Ok(b.map(str::to_owned)),
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
            } else if op == Op::Search && a.format() == "text" {
                grep_lines(&a.to_json())
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

/// A text search for a person: `LINE:TEXT` per hit, as `grep -n` prints
/// it (context lines as `LINE-TEXT`), then where to continue, on stderr.
fn grep_lines(answer: &Value) -> Result<(), ExitCode> {
    let mut out = String::new();
    let line = |out: &mut String, v: &Value, sep: char| {
        out.push_str(&format!(
            "{}{sep}{}\n",
            v["line"],
            v["text"].as_str().unwrap_or_default()
        ));
    };
    let hits = answer["hits"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    for hit in hits {
        for b in hit["before"].as_array().into_iter().flatten() {
            line(&mut out, b, '-');
        }
        line(&mut out, hit, ':');
        for a in hit["after"].as_array().into_iter().flatten() {
            line(&mut out, a, '-');
        }
    }
    emit(&out)?;
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
