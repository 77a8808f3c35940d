//! Remote objects as plumb sources: `s3://`, `gs://`, `az://` (and
//! `abfss://`), `http(s)://` URLs read by ranges, without a local copy.
//!
//! ```no_run
//! use plumb_core::Op;
//! use plumb_remote::{RemoteConfig, RemoteSource};
//!
//! // Credentials and endpoints come from the environment, as the AWS,
//! // Google and Azure tools read them (AWS_ACCESS_KEY_ID, AWS_REGION,
//! // AWS_ENDPOINT_URL, ...).
//! let source = RemoteSource::open("s3://bucket/logs/2026-12-01.jsonl", &RemoteConfig::default())?;
//! let answer = plumb::Plumb::new().run_source(Op::Inspect, &source, None, &Default::default())?;
//! println!("{} bytes fetched of {}", source.bytes_fetched(), plumb_core::Source::len(&source).unwrap_or(0));
//! # Ok::<(), plumb_core::Refusal>(())
//! ```
//!
//! Built on `object_store`, the crate DataFusion, Polars and delta-rs
//! read object storage through: one interface over the four kinds of
//! store, their credential chains, and retries with backoff. It brings
//! tokio and an HTTP client, so it lives in this crate of its own,
//! which the engines never depend on; the CLI registers it behind its
//! `remote` cargo feature.
//!
//! How a source reads: the object's size and ETag come from one HEAD
//! request when it is opened. Random access ([`Source::read_range`]) is
//! one ranged GET per call, except that a small read near either end
//! fetches that end's [`REMOTE_EDGE_BYTES`] and the last few small ranges
//! are kept: detection's head, a sniff, a tail read and a Parquet footer
//! cost a request or two. A sequential scan ([`Source::open`]) fetches
//! ranges growing from 256 KiB, fetched ahead only as the ones before
//! them are read (a sniff stays cheap); once they reach
//! [`RemoteConfig::range_bytes`], and from the start for a part of a
//! split scan ([`Source::open_range`]), the rest comes over one streamed
//! GET, taken in pieces of that size with at most
//! [`RemoteConfig::read_ahead`] (at least one) held ahead of the reader.
//! Every GET carries `If-Match` with the ETag, and the ETag each answer
//! carries is checked too, so every byte read is of the version opened:
//! an object replaced before a request is refused rather than read half
//! old, half new. A body cut short (a dropped connection) is resumed
//! from its last byte by a new ranged GET, up to [`REMOTE_RESUMES`]
//! times. Every byte received is counted ([`RemoteSource::bytes_fetched`]).
//! Messages never carry credentials: the URL is shown without user
//! information or query, and values of secret-looking environment
//! variables are masked.
//!
//! The rooms: what a read may reach and how it is tuned (`config`), a
//! URL parsed and judged (`address`), the runtime bridge (`runtime`),
//! messages without credentials (`scrub`), a store per scheme (`store`),
//! the requests (`fetch`) and the sequential reader (`stream`); the
//! source, with its cache of small ranges, is here.

mod address;
mod config;
mod fetch;
mod list;
mod runtime;
mod scrub;
mod store;
mod stream;

pub use address::{AllowList, RemoteUrl};
pub use config::{is_remote, RemoteConfig, REMOTE_ENV};
pub use list::{list_prefix, REMOTE_LIST_MAX};
pub use scrub::scrub;

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use object_store::path::Path as StorePath;
use object_store::{ObjectStore, ObjectStoreExt};

use plumb_core::{CancelToken, Refusal, Source};

use fetch::{fetch, lock};
use runtime::run;
use scrub::refusal;
use store::store_for;

/// The largest range a sequential scan asks for, and the size of the
/// pieces a streamed scan is taken in, by default: large enough that a
/// scan's requests are few and each is mostly payload, small enough that
/// the pieces held ahead stay a few MiB.
pub const REMOTE_RANGE_BYTES: usize = 1 << 20;

/// Ranges (or streamed pieces) a sequential scan holds ahead of the one
/// being read, by default: at most `(2 + read_ahead) × range_bytes` of
/// the object (the range being read, the next being received, and these)
/// are held per stream, 4 MiB by default.
pub const REMOTE_READ_AHEAD: usize = 2;

/// Bytes fetched at once for a small random read near either end of an
/// object: detection, sniffing, a Parquet footer and a tail read each
/// ask for a few kilobytes there, several times over.
pub const REMOTE_EDGE_BYTES: usize = 64 << 10;

/// Recent random-read ranges an open object keeps, so a read inside one
/// is no new request.
pub const REMOTE_CACHE_RANGES: usize = 8;

/// The largest random-read range kept: at most
/// `REMOTE_CACHE_RANGES × REMOTE_CACHE_RANGE_BYTES` (8 MiB) are held.
pub const REMOTE_CACHE_RANGE_BYTES: usize = 1 << 20;

/// Times a body cut short is resumed from its last byte.
pub const REMOTE_RESUMES: usize = 4;

/// The schemes read as remote objects.
pub const REMOTE_SCHEMES: [&str; 10] = [
    "s3", "s3a", "gs", "az", "azure", "abfs", "abfss", "adl", "http", "https",
];

/// The object and the store it lives in.
pub(crate) struct Inner {
    shown: String,
    store: Arc<dyn ObjectStore>,
    path: StorePath,
    size: u64,
    etag: Option<String>,
    fetched: AtomicU64,
    requests: AtomicU64,
    config: RemoteConfig,
    /// Small ranges fetched lately, newest last: detection, sniffing and
    /// a tail read ask for the same few kilobytes several times.
    cache: Mutex<VecDeque<(u64, Bytes)>>,
}

impl Inner {
    /// The longest a range, or the next piece of a stream, may take:
    /// every request it may need (one, and [`REMOTE_RESUMES`] more) at
    /// the request timeout each, retries and waits included.
    fn stall(&self) -> Duration {
        self.config
            .timeout
            .saturating_mul(u32::try_from(REMOTE_RESUMES + 1).unwrap_or(u32::MAX))
    }
}

/// A remote object, opened: its size and ETag known.
#[derive(Clone)]
pub struct RemoteSource {
    inner: Arc<Inner>,
    cancel: Option<CancelToken>,
}

impl std::fmt::Debug for RemoteSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RemoteSource")
            .field("url", &self.inner.shown)
            .field("size", &self.inner.size)
            .finish_non_exhaustive()
    }
}

impl RemoteSource {
    /// Opens the object `url` names: one HEAD request for its size and
    /// ETag.
    ///
    /// # Errors
    /// `invalid-argument` for a URL plumb does not read (see
    /// [`RemoteUrl::parse`]); `not-found` for a missing object;
    /// `read-error` for a denied or failed request (credentials never in
    /// the message).
    pub fn open(url: &str, config: &RemoteConfig) -> Result<RemoteSource, Refusal> {
        let parsed = RemoteUrl::parse(url)?;
        let (store, path) = store_for(&parsed, config)?;
        let shown = parsed.as_str().to_owned();
        let head = {
            let (store, path) = (store.clone(), path.clone());
            run(async move { store.head(&path).await })
        }
        .map_err(|e| refusal(&e, &shown))?;
        Ok(RemoteSource {
            inner: Arc::new(Inner {
                shown,
                store,
                path,
                size: head.size,
                etag: head.e_tag,
                fetched: AtomicU64::new(0),
                requests: AtomicU64::new(1),
                config: config.clone(),
                cache: Mutex::new(VecDeque::new()),
            }),
            cancel: None,
        })
    }

    /// The same source, cancelled by `token`.
    #[must_use]
    pub fn with_cancel(mut self, token: Option<CancelToken>) -> RemoteSource {
        self.cancel = token;
        self
    }

    /// Body bytes received so far, over every request (a resumed range
    /// counts what each attempt received).
    pub fn bytes_fetched(&self) -> u64 {
        self.inner.fetched.load(Ordering::Relaxed)
    }

    /// Requests made so far (the HEAD included).
    pub fn requests(&self) -> u64 {
        self.inner.requests.load(Ordering::Relaxed)
    }

    /// The ETag the object had when it was opened, if its store gives one.
    pub fn etag(&self) -> Option<&str> {
        self.inner.etag.as_deref()
    }

    /// Bytes `start..end` for a random read: from a range held, or
    /// fetched. A small read near either end of the object fetches the
    /// whole [`REMOTE_EDGE_BYTES`] there, so the reads a detection, a
    /// sniff, a footer or a tail make cost one request at each end.
    fn fetch(&self, start: u64, end: u64) -> Result<Bytes, Refusal> {
        if let Some(b) = self.cached(start, end) {
            return Ok(b);
        }
        let size = self.inner.size;
        let edge = REMOTE_EDGE_BYTES as u64;
        let (from, to) = if end <= edge.min(size) {
            (0, edge.min(size))
        } else if start >= size.saturating_sub(edge) && end - start < edge {
            (size.saturating_sub(edge), size)
        } else {
            (start, end)
        };
        let inner = self.inner.clone();
        let got = run(async move { fetch(&inner, from, to).await })?;
        if got.len() <= REMOTE_CACHE_RANGE_BYTES {
            let mut cache = lock(&self.inner.cache);
            if cache.len() == REMOTE_CACHE_RANGES {
                cache.pop_front();
            }
            cache.push_back((from, got.clone()));
        }
        let (a, b) = ((start - from) as usize, (end - from) as usize);
        Ok(got.slice(a..b.min(got.len())))
    }

    /// `start..end` from a range held, if one holds all of it.
    fn cached(&self, start: u64, end: u64) -> Option<Bytes> {
        let cache = lock(&self.inner.cache);
        cache.iter().rev().find_map(|(at, b)| {
            (*at <= start && end <= at + b.len() as u64)
                .then(|| b.slice((start - at) as usize..(end - at) as usize))
        })
    }

    /// The bytes held from `start` on, in the longest range held there.
    fn cached_from(&self, start: u64) -> Option<Bytes> {
        let cache = lock(&self.inner.cache);
        cache
            .iter()
            .filter(|(at, b)| *at <= start && start < at + b.len() as u64)
            .map(|(at, b)| b.slice((start - at) as usize..))
            .max_by_key(Bytes::len)
    }
}

impl Source for RemoteSource {
    fn open(&self) -> Result<Box<dyn std::io::BufRead + Send + '_>, Refusal> {
        Ok(Box::new(stream::Sequential::new(
            self.clone(),
            0,
            self.inner.size,
            false,
        )))
    }

    fn open_range(
        &self,
        start: u64,
        end: u64,
    ) -> Option<Result<Box<dyn std::io::BufRead + Send + '_>, Refusal>> {
        Some(Ok(Box::new(stream::Sequential::new(
            self.clone(),
            start,
            end,
            true,
        ))))
    }

    fn name(&self) -> &str {
        &self.inner.shown
    }

    fn len(&self) -> Option<u64> {
        Some(self.inner.size)
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> Option<std::io::Result<usize>> {
        let end = offset.saturating_add(buf.len() as u64).min(self.inner.size);
        if offset >= end {
            return Some(Ok(0));
        }
        Some(match self.fetch(offset, end) {
            Ok(b) => {
                buf[..b.len()].copy_from_slice(&b);
                Ok(b.len())
            }
            Err(r) => Err(std::io::Error::other(r.message().to_owned())),
        })
    }

    fn read_range(&self, offset: u64, len: usize) -> Option<Result<Bytes, Refusal>> {
        let end = offset.saturating_add(len as u64).min(self.inner.size);
        if offset >= end {
            return Some(Ok(Bytes::new()));
        }
        Some(self.fetch(offset, end))
    }

    fn head(&self, max: usize) -> Result<Vec<u8>, Refusal> {
        self.read_range(0, max)
            .unwrap_or_else(|| Ok(Bytes::new()))
            .map(|b| b.to_vec())
    }

    fn cancel_token(&self) -> Option<&CancelToken> {
        self.cancel.as_ref()
    }

    fn to_shared(&self) -> Option<Arc<dyn Source>> {
        Some(Arc::new(self.clone()))
    }
}
