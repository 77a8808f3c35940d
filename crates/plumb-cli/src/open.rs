//! A path opened as the source an op reads: a local file, a member of an
//! archive, a remote object; the bytes read counted for the progress
//! line, and what the remote reads cost reported.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use plumb::{FileSource, Refusal, Source, StreamSource};
use serde_json::Value;

/// A progress bar on stderr, shown once a scan has run for the time
/// asked (see `Screen::progress_after`).
pub(crate) struct Progress {
    pub(crate) done: Arc<AtomicBool>,
    pub(crate) thread: Option<std::thread::JoinHandle<()>>,
}

impl Progress {
    pub(crate) fn start(
        counter: Arc<AtomicU64>,
        total: Option<u64>,
        after: Option<Duration>,
    ) -> Progress {
        let done = Arc::new(AtomicBool::new(false));
        let Some(after) = after else {
            return Progress { done, thread: None };
        };
        let flag = done.clone();
        let thread = std::thread::spawn(move || {
            let start = std::time::Instant::now();
            // A stream's size is not known: it gets a spinner and the
            // bytes read, never a made-up total.
            let (b, template) = match total {
                Some(t) => (
                    indicatif::ProgressBar::with_draw_target(
                        Some(t),
                        indicatif::ProgressDrawTarget::hidden(),
                    ),
                    "{spinner} {bytes}/{total_bytes} {bar:30} {bytes_per_sec} eta {eta}",
                ),
                None => (
                    indicatif::ProgressBar::with_draw_target(
                        None,
                        indicatif::ProgressDrawTarget::hidden(),
                    ),
                    "{spinner} {bytes} read {bytes_per_sec}",
                ),
            };
            b.set_style(
                indicatif::ProgressStyle::with_template(template)
                    .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
            );
            // The bar follows the scan from its start, hidden: its rate
            // and ETA come from a moving window of what was read, and
            // it shows only once the scan has run for `after`.
            let mut shown = false;
            while !flag.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(100));
                // Parts of a split scan read a little past their ends
                // to finish a record, so the bytes read may pass the
                // size: the bar stops at the whole.
                let read = counter.load(Ordering::Relaxed);
                b.set_position(total.map_or(read, |t| read.min(t)));
                if !shown && start.elapsed() >= after {
                    b.set_draw_target(indicatif::ProgressDrawTarget::stderr());
                    shown = true;
                }
            }
            let bar = shown.then_some(b);
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
pub(crate) static REMOTE: std::sync::OnceLock<plumb_remote::RemoteSource> =
    std::sync::OnceLock::new();

/// What reading the remote object cost: `{url, bytes_fetched, requests,
/// etag}`; `None` for a local file.
pub(crate) fn remote_report() -> Option<Value> {
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
pub(crate) fn remote_note() {
    if let Some(r) = remote_report() {
        eprintln!(
            "plumb: fetched {} bytes of {} in {} requests",
            r["bytes_fetched"], r["size"], r["requests"]
        );
    }
}

/// A stream that counts the bytes read from it, for the progress bar.
pub(crate) struct Counted<R> {
    pub(crate) inner: R,
    pub(crate) counter: Arc<AtomicU64>,
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
pub(crate) fn open_source(
    path: &Path,
    counter: &Arc<AtomicU64>,
) -> Result<Box<dyn Source>, Refusal> {
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
pub(crate) fn archive_member(path: &Path) -> (PathBuf, Option<String>) {
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
pub(crate) fn merge_member(
    from_path: Option<String>,
    given: Option<&str>,
) -> Result<Option<String>, Refusal> {
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
