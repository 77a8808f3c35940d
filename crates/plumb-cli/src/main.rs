//! The `plumb` command: inspect, select, validate, detect and read files
//! of any size; `--json` for scripts and agents.
//!
//! Exit status: 0 success, 1 when `validate` finds the file invalid, 2 on
//! a refusal or bad usage. A closed stdout (`| head`) ends quietly.

mod render;

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use clap::{Args, CommandFactory, Parser, Subcommand};
use plumb::read::{read, ReadRequest};
use plumb::{FileSource, Op, Plumb, ReadOptions, Refusal};
use serde_json::{json, Value};

/// Look into a data or text file of any size without loading it.
#[derive(Parser, Debug)]
#[command(name = "plumb", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand, Debug)]
enum Cmd {
    /// What is in the file: format, columns and types, keys, counts, problems.
    Inspect {
        #[command(flatten)]
        common: Common,
        /// Rows (records, elements) in the sample.
        #[arg(long, value_name = "N")]
        sample_rows: Option<usize>,
        /// Stop after N rows; the answer is then sampled.
        #[arg(long, value_name = "N")]
        max_rows: Option<u64>,
    },
    /// A bounded window of the file, verbatim.
    Select {
        #[command(flatten)]
        common: Common,
        /// Rows (records, elements) to skip.
        #[arg(long, value_name = "N")]
        offset: Option<u64>,
        /// Rows to return (1 to 1000; default 50).
        #[arg(long, value_name = "N")]
        limit: Option<u64>,
        /// CSV/TSV: columns by header name or 0-based index, comma-separated.
        #[arg(long, value_name = "a,b|0,2")]
        columns: Option<String>,
        /// JSON: an RFC 6901 pointer ("" is the whole document).
        #[arg(long, value_name = "P", allow_hyphen_values = true)]
        pointer: Option<String>,
    },
    /// Is the file well formed, and where is the first fault (exit 1 if not).
    Validate {
        #[command(flatten)]
        common: Common,
        /// Stop after N rows; the verdict is then null unless a fault was found.
        #[arg(long, value_name = "N")]
        max_rows: Option<u64>,
    },
    /// Which format plumb reads the file as, and how it decided.
    Detect {
        /// The file.
        path: PathBuf,
        /// Name the format instead of detecting it.
        #[arg(long, value_name = "F")]
        format: Option<String>,
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
        Ok(plumb_tool::Toolbox::new(ws))
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
    /// The format (csv, tsv, json, jsonl); detected when left out.
    #[arg(long, value_name = "F")]
    format: Option<String>,
    /// CSV/TSV: the delimiter (one character, or `tab`).
    #[arg(long, value_name = "D")]
    delimiter: Option<String>,
    /// CSV/TSV: whether the first record is a header.
    #[arg(long, value_name = "auto|true|false")]
    header: Option<String>,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

impl Common {
    fn options(&self) -> ReadOptions {
        ReadOptions {
            delimiter: self.delimiter.clone(),
            header: self.header.clone(),
            ..ReadOptions::default()
        }
    }
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

fn show(answer: &Value, json: bool) -> Result<(), ExitCode> {
    if json {
        emit(&(answer.to_string() + "\n"))
    } else {
        let colour = render::colour(std::io::stdout().is_terminal());
        emit(&render::render(answer, colour))
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
                    let b = match total {
                        Some(t) => indicatif::ProgressBar::new(t),
                        None => indicatif::ProgressBar::new_spinner(),
                    };
                    b.set_style(
                        indicatif::ProgressStyle::with_template(
                            "{spinner} {bytes}/{total_bytes} {bar:30} {bytes_per_sec} eta {eta}",
                        )
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

fn data(op: Op, common: &Common, opts: ReadOptions) -> ExitCode {
    let plumb = Plumb::new();
    let counter = Arc::new(AtomicU64::new(0));
    let source = match FileSource::new(&common.path) {
        Ok(s) => s.with_progress(counter.clone()),
        Err(r) => return refuse(&r, common.json),
    };
    let bar = !common.json && std::io::stderr().is_terminal();
    let progress = Progress::start(counter, plumb::ByteSource::len(&source), bar);
    let answer = plumb.run_source(op, &source, common.format.as_deref(), &opts);
    drop(progress);
    match answer {
        Err(r) => refuse(&r, common.json),
        Ok(a) => {
            let shown = if common.json {
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
            } else {
                show(&a.to_json(), false)
            };
            if let Err(code) = shown {
                return code;
            }
            match a.verdict() {
                Some(Some(false)) => ExitCode::from(1),
                _ => ExitCode::SUCCESS,
            }
        }
    }
}

fn detect(path: &Path, format: Option<&str>, json: bool) -> ExitCode {
    let plumb = Plumb::new();
    match plumb.detect(path, format) {
        Ok(d) => {
            let v = json!({"ok": true, "path": path.display().to_string(), "format": d.reader.name(), "by": d.by});
            match show(&v, json) {
                Ok(()) => ExitCode::SUCCESS,
                Err(code) => code,
            }
        }
        Err(r) if r.reason() == plumb::RefusalReason::UnsupportedFormat && format.is_none() => {
            // Unrecognised is an answer for detect: format null.
            let v = json!({"ok": true, "path": path.display().to_string(), "format": null, "by": null,
                           "supported": r.extra("supported").cloned().unwrap_or(Value::Null)});
            match show(&v, json) {
                Ok(()) => ExitCode::SUCCESS,
                Err(code) => code,
            }
        }
        Err(r) => refuse(&r, json),
    }
}

fn read_cmd(path: &Path, offset: i64, limit: Option<u64>, json: bool) -> ExitCode {
    let req = ReadRequest {
        offset,
        limit,
        ..ReadRequest::default()
    };
    match read(path, &req) {
        Err(r) => refuse(&r, json),
        Ok(a) => {
            if json {
                let v = serde_json::to_value(&a).unwrap_or(Value::Null);
                return match show(&v, true) {
                    Ok(()) => ExitCode::SUCCESS,
                    Err(code) => code,
                };
            }
            if let Err(code) = emit(&a.text) {
                return code;
            }
            if a.line_truncated {
                eprintln!("plumb: the line was cut at {} bytes", a.bytes);
            }
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

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.cmd {
        Cmd::Inspect {
            common,
            sample_rows,
            max_rows,
        } => {
            let opts = ReadOptions {
                sample_rows,
                max_rows,
                ..common.options()
            };
            data(Op::Inspect, &common, opts)
        }
        Cmd::Select {
            common,
            offset,
            limit,
            columns,
            pointer,
        } => {
            let opts = ReadOptions {
                offset,
                limit,
                columns: columns.map(|c| {
                    c.split(',')
                        .map(|s| s.trim().to_owned())
                        .filter(|s| !s.is_empty())
                        .collect()
                }),
                pointer,
                ..common.options()
            };
            data(Op::Select, &common, opts)
        }
        Cmd::Validate { common, max_rows } => {
            let opts = ReadOptions {
                max_rows,
                ..common.options()
            };
            data(Op::Validate, &common, opts)
        }
        Cmd::Detect { path, format, json } => detect(&path, format.as_deref(), json),
        Cmd::Read {
            path,
            offset,
            limit,
            json,
        } => read_cmd(&path, offset, limit, json),
        Cmd::Tool { agent } => tool_cmd(&agent),
        Cmd::Mcp { agent } => mcp_cmd(&agent),
        Cmd::Completions { shell } => {
            let mut out = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "plumb", &mut out);
            match emit(&String::from_utf8_lossy(&out)) {
                Ok(()) => ExitCode::SUCCESS,
                Err(code) => code,
            }
        }
    }
}
