//! The command line as clap reads it: the subcommands, the flags every
//! op shares, and the flags of each reader's own options, built from the
//! registry's declarations so a registered reader's option is a flag.

use std::path::{Path, PathBuf};

use clap::{Args, CommandFactory, Parser, Subcommand};
use plumb::{DeclaredOption, Op, OptionKind, Refusal, Registry, Request};
use serde_json::Value;

use crate::agent::Agent;
use crate::open::{archive_member, merge_member};
use crate::terminal::Screen;

/// Look into a data or text file of any size without loading it.
#[derive(Parser, Debug)]
#[command(name = "plumb", version, about, long_about = None)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) cmd: Cmd,
    #[command(flatten)]
    pub(crate) screen: Screen,
}

#[derive(Subcommand, Debug)]
pub(crate) enum Cmd {
    /// What is in the file: format, columns and types, keys, counts, problems.
    #[command(
        after_help = "Examples:\n  plumb inspect data.csv\n  plumb inspect --stats data.parquet\n  plumb inspect 'exports/**/*.csv' --json\n  plumb inspect archive.zip::data/x.csv"
    )]
    Inspect {
        #[command(flatten)]
        common: Common,
        /// More files: with them (or a folder or a glob) the dataset is
        /// inspected as one.
        #[arg(value_name = "MORE")]
        more: Vec<PathBuf>,
    },
    /// A bounded window of the file, verbatim.
    #[command(
        after_help = "Examples:\n  plumb select data.csv --limit 10\n  plumb select data.csv --offset -5            # the last 5 rows\n  plumb select data.csv --columns name,city --vertical\n  plumb select book.xlsx --sheet Sales --json"
    )]
    Select {
        #[command(flatten)]
        common: Common,
    },
    /// Is the file well formed, and where is the first fault (exit 1 if not).
    #[command(
        after_help = "Examples:\n  plumb validate data.csv\n  plumb validate big.json --threads 2\n  plumb validate logs/ --depth 1 --json\n  plumb validate data.csv && echo ok"
    )]
    Validate {
        #[command(flatten)]
        common: Common,
        /// More files: valid when every one is.
        #[arg(value_name = "MORE")]
        more: Vec<PathBuf>,
    },
    /// Where a pattern or predicate holds: lines of any text file, rows of
    /// a table (--column), records or elements (--field); hits with their
    /// positions, and the offset to continue from.
    #[command(
        after_help = "Examples:\n  plumb search app.log 'timeout|refused' -C 2\n  plumb search data.csv --column amount --where '> 1000'\n  plumb search logs.jsonl --conditions 'level = error' --conditions 'ts >= 2024-03-01'\n  plumb search app.log error -c"
    )]
    Search {
        #[command(flatten)]
        common: Common,
        /// The pattern: a regex (Rust syntax); plain text is searched as
        /// a literal. Leave it out when --where gives a predicate.
        #[arg(value_name = "PATTERN", id = "pattern_arg")]
        pattern: Option<String>,
    },
    /// Which format plumb reads the file as, and how it decided.
    #[command(
        after_help = "Examples:\n  plumb detect data.txt\n  plumb detect logs.gz --json\n  plumb detect export.csv --encoding latin1"
    )]
    Detect {
        /// The file (or a folder, or a glob in quotes).
        path: PathBuf,
        /// More files.
        #[arg(value_name = "MORE")]
        more: Vec<PathBuf>,
        #[command(flatten)]
        dataset: DatasetArgs,
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
    #[command(
        after_help = "Examples:\n  plumb read notes.md --limit 40\n  plumb read app.log --offset -20              # the last 20 lines\n  plumb read app.log.gz --offset 1000 --limit 10"
    )]
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
    #[command(
        after_help = "Examples:\n  echo '{\"tool\": \"data\", \"args\": {\"op\": \"inspect\", \"path\": \"data.csv\"}}' | plumb tool\n  echo '{\"tool\": \"read\", \"args\": {\"path\": \"notes.md\"}}' | plumb tool --root ~/work\n  plumb tool --root . --reserve 'secrets/**' < call.json"
    )]
    Tool {
        #[command(flatten)]
        agent: Agent,
    },
    /// Serve the `data` and `read` tools over the Model Context Protocol on stdio.
    #[command(
        after_help = "Examples:\n  plumb mcp --root ~/data\n  plumb mcp --root . --reserve 'private/**'\n  plumb mcp --root . --allow-remote s3://bucket/logs/"
    )]
    Mcp {
        #[command(flatten)]
        agent: Agent,
    },
    /// Print a shell completion script.
    #[command(
        after_help = "Examples:\n  plumb completions bash > ~/.local/share/bash-completion/completions/plumb\n  plumb completions zsh > ~/.zfunc/_plumb\n  plumb completions fish > ~/.config/fish/completions/plumb.fish"
    )]
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
}

/// The source options of the commands whose flags are not made from
/// the registry's declarations (detect and read).
#[derive(Args, Debug)]
pub(crate) struct LayerArgs {
    /// The text encoding of a file without a byte order mark (latin1,
    /// windows-1252, shift_jis, utf-16le: any WHATWG label) [default: utf-8]
    #[arg(long, value_name = "ENCODING")]
    pub(crate) encoding: Option<String>,
    /// The member of a zip archive to read.
    #[arg(long, value_name = "NAME")]
    pub(crate) member: Option<String>,
}

impl LayerArgs {
    /// The choice, and the file: a path `ARCHIVE::MEMBER` names the
    /// archive and its member.
    pub(crate) fn choice(&self, path: &Path) -> Result<(plumb::SourceChoice, PathBuf), Refusal> {
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

/// How a dataset (a folder, a glob, several paths) is listed.
#[derive(Args, Debug, Default)]
pub(crate) struct DatasetArgs {
    /// Folders walked below a folder or `**` glob (1: the folder's own
    /// files) [default: 64]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) depth: Option<u64>,
    /// List names that start with a dot in folders and globs.
    #[arg(long)]
    pub(crate) hidden: bool,
    /// The most files one call reads [default: 100000]; the answer's
    /// `next.from` names where the next goes on.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) max_files: Option<u64>,
    /// The first path of a dataset to read (an answer's `next.from`).
    #[arg(long, value_name = "PATH")]
    pub(crate) from: Option<String>,
}

#[derive(Args, Debug)]
pub(crate) struct Common {
    /// The file (or a folder, or a glob in quotes: 'logs/**/*.csv').
    pub(crate) path: PathBuf,
    #[command(flatten)]
    pub(crate) dataset: DatasetArgs,
    /// The format (csv, tsv, json, jsonl, parquet, xlsx, xlsb, xls, ods); detected when left out.
    #[arg(long, value_name = "F")]
    pub(crate) format: Option<String>,
    /// Print one JSON object.
    #[arg(long)]
    pub(crate) json: bool,
    /// Any reader's option by name (repeatable), for readers whose
    /// options have no flag of their own.
    #[arg(long = "opt", value_name = "NAME=VALUE", value_parser = parse_opt)]
    pub(crate) opt: Vec<(String, String)>,
}

pub(crate) fn parse_opt(s: &str) -> Result<(String, String), String> {
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
pub(crate) fn command(registry: &Registry) -> clap::Command {
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

pub(crate) fn option_arg(d: &DeclaredOption, op: Op) -> clap::Arg {
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
        .allow_hyphen_values(
            matches!(d.spec.kind, OptionKind::Text | OptionKind::List) || d.spec.name == "offset",
        )
        // A list flag given again adds an item (`--conditions 'a = 1'
        // --conditions 'b = 2'`), each taken whole, commas and all.
        .action(if matches!(d.spec.kind, OptionKind::List) {
            clap::ArgAction::Append
        } else {
            clap::ArgAction::Set
        });
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
pub(crate) fn request(
    registry: &Registry,
    sub: &clap::ArgMatches,
    common: &Common,
) -> Result<Request, Refusal> {
    let mut given: Vec<(String, Value)> = Vec::new();
    for d in registry.options() {
        let Ok(Some(values)) = sub.try_get_many::<String>(d.spec.name) else {
            continue;
        };
        let values: Vec<&String> = values.collect();
        let value = match values.as_slice() {
            [one] => Value::from(one.as_str()),
            many => Value::from(many.iter().map(|v| v.as_str()).collect::<Vec<_>>()),
        };
        given.push((d.spec.name.to_owned(), value));
    }
    given.extend(
        common
            .opt
            .iter()
            .map(|(n, v)| (n.clone(), Value::from(v.as_str()))),
    );
    let mut req = Request::default();
    for (name, value) in given {
        req.set(&name, value)?;
    }
    Ok(req)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The words of one example line as a shell splits them: the part
    /// that runs plumb (after a pipe, before a redirection, `&&` or a
    /// comment), quotes removed.
    fn words(line: &str) -> Vec<String> {
        let start = line.find("plumb ").unwrap_or(0);
        let mut out = Vec::new();
        let mut word = String::new();
        let mut quote: Option<char> = None;
        for c in line[start..].chars() {
            match (quote, c) {
                (Some(q), c) if c == q => quote = None,
                (Some(_), c) => word.push(c),
                (None, '\'' | '"') => quote = Some(c),
                (None, '#' | '<' | '>' | '&' | '|') => break,
                (None, ' ') => {
                    if !word.is_empty() {
                        out.push(std::mem::take(&mut word));
                    }
                }
                (None, c) => word.push(c),
            }
        }
        if !word.is_empty() {
            out.push(word);
        }
        out
    }

    #[test]
    fn every_command_ends_its_help_with_examples_that_parse() {
        #[allow(unused_mut)]
        let mut registry = Registry::with_builtins();
        #[cfg(feature = "parquet")]
        registry.register(plumb_parquet::ParquetReader);
        #[cfg(feature = "sheets")]
        for reader in plumb_sheets::SheetsReader::ALL {
            registry.register(reader);
        }
        let cmd = command(&registry);
        let mut seen = 0;
        for sub in cmd.get_subcommands() {
            let help = sub
                .get_after_help()
                .map(|h| h.to_string())
                .unwrap_or_default();
            let examples: Vec<&str> = help.lines().filter(|l| l.contains("plumb ")).collect();
            assert!(
                (3..=4).contains(&examples.len()),
                "{}: {} examples",
                sub.get_name(),
                examples.len()
            );
            for line in examples {
                let args = words(line);
                assert_eq!(args.first().map(String::as_str), Some("plumb"), "{line}");
                let parsed = command(&registry).try_get_matches_from(&args);
                assert!(parsed.is_ok(), "{line}: {:?}", parsed.err());
                seen += 1;
            }
        }
        assert!(seen >= 27, "only {seen} examples");
    }

    #[test]
    fn the_top_level_help_names_every_command() {
        let registry = Registry::with_builtins();
        let about = command(&registry)
            .get_about()
            .map(|a| a.to_string())
            .unwrap_or_default();
        for sub in command(&registry).get_subcommands() {
            let name = sub.get_name();
            if name == "completions" || name == "help" {
                continue;
            }
            assert!(about.contains(name), "`{name}` is not named in: {about}");
        }
    }
}
