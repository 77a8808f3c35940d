//! A command over a dataset: several paths, a folder, a glob or a zip's
//! members, read as one (`plumb::dataset`), shown as JSON or for a
//! person (the merged view, then a line per file).

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::AtomicU64;
use std::sync::Arc;

use plumb::dataset::{is_glob, Dataset, DatasetOp, ListOptions, OpenContext};
use plumb::{Answer, Op, Plumb, Request};

use crate::args::DatasetArgs;
use crate::open::Progress;
use crate::terminal::{present, Screen};
use crate::{refuse, render};

/// The names, when they name a dataset: more than one path, a folder,
/// a glob that is not itself a file's name, or `ARCHIVE::GLOB`.
pub(crate) fn names(first: &Path, more: &[PathBuf]) -> Option<Vec<String>> {
    let all: Vec<String> = std::iter::once(first)
        .chain(more.iter().map(PathBuf::as_path))
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let one = &all[0];
    let remote_prefix = |n: &str| {
        n.split_once("://").is_some_and(|(scheme, rest)| {
            scheme.len() < 8 && (rest.ends_with('/') || is_glob(rest))
        })
    };
    let dataset = all.len() > 1
        || remote_prefix(one)
        || first.is_dir()
        || (is_glob(one) && !first.exists())
        || one.split_once("::").is_some_and(|(_, m)| is_glob(m));
    dataset.then_some(all)
}

/// The listing options the flags ask for.
fn list_options(args: &DatasetArgs, sizes: bool) -> ListOptions {
    ListOptions {
        sizes,
        depth: args.depth.map(|d| usize::try_from(d).unwrap_or(usize::MAX)),
        hidden: args.hidden,
        max_files: args
            .max_files
            .map_or(plumb::dataset::DATASET_MAX_FILES, |n| {
                usize::try_from(n).unwrap_or(usize::MAX)
            }),
        from: args.from.clone(),
    }
}

/// Runs `op` over the dataset `names` name.
#[allow(clippy::too_many_arguments)]
pub(crate) fn run(
    plumb: &Plumb,
    screen: &Screen,
    op: Option<Op>,
    names: &[String],
    args: &DatasetArgs,
    format: Option<&str>,
    req: &Request,
    json: bool,
) -> ExitCode {
    // Sizes are asked as files are listed only for a progress bar's total.
    let after = screen.progress_after(json);
    let opts = list_options(args, after.is_some());
    let listed = if names.iter().any(|n| n.contains("://")) {
        remote(names, &opts)
    } else {
        Dataset::local(names, &opts)
    };
    let data = match listed {
        Ok(d) => d,
        Err(r) => return refuse(&r, json),
    };
    let op = match op {
        None => DatasetOp::Detect,
        Some(op) => match DatasetOp::of(op, &data) {
            Ok(o) => o,
            Err(r) => return refuse(&r, json),
        },
    };
    let counter = Arc::new(AtomicU64::new(0));
    let total = data.members().iter().filter_map(|m| m.bytes).sum::<u64>();
    let progress = Progress::start(counter.clone(), Some(total), after);
    let cx = OpenContext {
        cancel: None,
        progress: Some(counter),
    };
    let answer = data.run_with(plumb, op, format, req, &cx);
    drop(progress);
    let answer = match answer {
        Ok(a) => a,
        Err(r) => return refuse(&r, json),
    };
    let verdict = answer.verdict();
    let shown = if json {
        crate::emit_answer(&answer)
    } else {
        // Read back within the screen's bounds, as a file's answer is.
        let look = screen.look();
        let layout = answer.layout();
        match crate::screen::tree(Box::new(answer)) {
            Ok(v) => {
                let mut text = render::answer(layout, &v, &look, None);
                text.push_str(&crate::screen::cut_note(&v, &look));
                drop(v);
                present(&text, screen)
            }
            Err(message) => Err(refuse(
                &plumb::Refusal::new(plumb::RefusalReason::ReadError, message),
                false,
            )),
        }
    };
    if let Err(code) = shown {
        return code;
    }
    if verdict == Some(Some(false)) {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// A dataset of objects in a store: each name a prefix
/// (`s3://bucket/logs/`), a glob below one (`s3://bucket/logs/*.jsonl`)
/// or an object. Each object is opened when its turn comes, so requests
/// in flight are at most the threads.
#[cfg(feature = "remote")]
fn remote(names: &[String], opts: &ListOptions) -> Result<Dataset, plumb::Refusal> {
    let config = plumb_remote::RemoteConfig::from_env()?;
    let mut members = Vec::new();
    for name in names {
        if !plumb_remote::is_remote(name) {
            return Err(plumb::Refusal::invalid_argument(format!(
                "`{}` is a local path among remote ones: a dataset is read from one place",
                plumb_core::echo(name)
            )));
        }
        let (scheme, rest) = name.split_once("://").unwrap_or_default();
        if !rest.ends_with('/') && !is_glob(rest) {
            members.push(plumb::dataset::Member::file(name.clone(), None));
            continue;
        }
        // A glob is listed from the folder above its first pattern.
        let (folder, pattern) = plumb::dataset::split_glob(rest);
        let prefix = format!("{scheme}://{folder}");
        let matcher = if pattern.is_empty() {
            None
        } else {
            Some(plumb::dataset::Glob::new(pattern, name)?)
        };
        for (url, size) in plumb_remote::list_prefix(&prefix, &config)? {
            let below = url.strip_prefix(&prefix).unwrap_or(&url);
            let hidden = below.split('/').any(|part| part.starts_with('.'));
            let deep = below.matches('/').count() + 1;
            if (hidden && !opts.hidden)
                || opts.depth.is_some_and(|d| deep > d)
                || !matcher.as_ref().is_none_or(|m| m.is_match(below))
            {
                continue;
            }
            members.push(plumb::dataset::Member::file(url, Some(size)));
        }
    }
    Ok(Dataset::from_members(
        names.to_vec(),
        members,
        opts,
        Arc::new(RemoteOpener(config)),
    ))
}

#[cfg(not(feature = "remote"))]
fn remote(names: &[String], _: &ListOptions) -> Result<Dataset, plumb::Refusal> {
    Err(plumb::Refusal::invalid_argument(format!(
        "`{}` is a remote address, and this build reads no remote objects",
        plumb_core::echo(&names[0])
    )))
}

/// Opens a remote dataset's objects.
#[cfg(feature = "remote")]
#[derive(Debug)]
struct RemoteOpener(plumb_remote::RemoteConfig);

#[cfg(feature = "remote")]
impl plumb::dataset::Opener for RemoteOpener {
    fn open(
        &self,
        member: &plumb::dataset::Member,
        cx: &OpenContext,
    ) -> Result<Box<dyn plumb::Source>, plumb::Refusal> {
        let source = plumb_remote::RemoteSource::open(&member.path, &self.0)?;
        Ok(Box::new(source.with_cancel(cx.cancel.clone())))
    }
}
