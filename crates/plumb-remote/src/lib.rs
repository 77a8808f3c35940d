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

mod stream;

use std::collections::VecDeque;
use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use futures::StreamExt;
use object_store::aws::AmazonS3ConfigKey;
use object_store::azure::AzureConfigKey;
use object_store::gcp::GoogleConfigKey;
use object_store::path::Path as StorePath;
use object_store::{
    ClientConfigKey, ClientOptions, GetOptions, GetRange, ObjectStore, ObjectStoreExt,
    ObjectStoreScheme, RetryConfig,
};
use url::Url;

use plumb_core::{CancelToken, Refusal, RefusalReason, Source};

/// The largest range a sequential scan asks for, and the size of the
/// pieces a streamed scan is taken in, by default: measured on loopback,
/// 1 MiB pieces read as fast as 4 MiB ones and hold a quarter of the
/// memory.
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

/// How remote objects are read.
#[derive(Clone, Debug)]
pub struct RemoteConfig {
    /// The largest range a sequential scan asks for, and the size of the
    /// pieces a streamed one is taken in.
    pub range_bytes: usize,
    /// Ranges or pieces held ahead of the one being read (a stream holds
    /// at least one).
    pub read_ahead: usize,
    /// The longest one request may take, body included. A range read,
    /// or the next piece of a streamed one, may take at most
    /// `REMOTE_RESUMES + 1` times this, whatever the retries and resumes
    /// (a server that trickles is refused `read-error` then).
    pub timeout: Duration,
    /// The longest a connection may take to open.
    pub connect_timeout: Duration,
    /// Retries of a failed request (with exponential backoff), by
    /// object_store's retry policy.
    pub retries: usize,
    /// Whether a redirect is followed. The CLI follows them, as curl
    /// `-L` does; the agent surface does not, so an allowed server cannot
    /// send a read to a host the allow-list does not name.
    pub follow_redirects: bool,
}

impl Default for RemoteConfig {
    fn default() -> RemoteConfig {
        RemoteConfig {
            range_bytes: REMOTE_RANGE_BYTES,
            read_ahead: REMOTE_READ_AHEAD,
            timeout: Duration::from_secs(30),
            connect_timeout: Duration::from_secs(5),
            retries: 4,
            follow_redirects: true,
        }
    }
}

/// The environment variables [`RemoteConfig::from_env`] reads, each
/// with what it sets.
pub const REMOTE_ENV: [(&str, &str); 4] = [
    (
        "PLUMB_REMOTE_RANGE_BYTES",
        "the largest range of a sequential scan, and its streamed pieces, 65536 to 67108864 (default 1048576)",
    ),
    (
        "PLUMB_REMOTE_READ_AHEAD",
        "ranges or pieces held ahead of the one being read, 0 to 16 (default 2)",
    ),
    (
        "PLUMB_REMOTE_TIMEOUT",
        "seconds one request may take, body included, 1 to 3600 (default 30)",
    ),
    (
        "PLUMB_REMOTE_RETRIES",
        "retries of a failed request, with backoff, 0 to 10 (default 4)",
    ),
];

impl RemoteConfig {
    /// The defaults, with any of [`REMOTE_ENV`] set in the environment
    /// applied.
    ///
    /// # Errors
    /// `invalid-argument` naming the variable, for a value that is not a
    /// whole number in its range.
    pub fn from_env() -> Result<RemoteConfig, Refusal> {
        RemoteConfig::from_vars(|name| std::env::var(name).ok())
    }

    /// The defaults, with the variables that `get` gives applied (for
    /// [`RemoteConfig::from_env`] and its tests).
    ///
    /// # Errors
    /// As [`RemoteConfig::from_env`].
    pub fn from_vars(get: impl Fn(&str) -> Option<String>) -> Result<RemoteConfig, Refusal> {
        let mut config = RemoteConfig::default();
        let number = |i: usize, lo: u64, hi: u64| -> Result<Option<u64>, Refusal> {
            let name = REMOTE_ENV[i].0;
            let Some(raw) = get(name) else {
                return Ok(None);
            };
            match raw.trim().parse::<u64>() {
                Ok(n) if (lo..=hi).contains(&n) => Ok(Some(n)),
                _ => Err(Refusal::new(
                    RefusalReason::InvalidArgument,
                    format!(
                        "{name} must be a whole number from {lo} to {hi}, not `{}`",
                        plumb_core::echo(&raw)
                    ),
                )),
            }
        };
        if let Some(n) = number(0, 64 << 10, 64 << 20)? {
            config.range_bytes = n as usize;
        }
        if let Some(n) = number(1, 0, 16)? {
            config.read_ahead = n as usize;
        }
        if let Some(n) = number(2, 1, 3600)? {
            config.timeout = Duration::from_secs(n);
        }
        if let Some(n) = number(3, 0, 10)? {
            config.retries = n as usize;
        }
        Ok(config)
    }
}

/// Whether `s` is a URL plumb reads as a remote object (its scheme is
/// one of [`REMOTE_SCHEMES`]).
pub fn is_remote(s: &str) -> bool {
    s.split_once("://")
        .is_some_and(|(scheme, _)| REMOTE_SCHEMES.contains(&scheme.to_ascii_lowercase().as_str()))
}

/// A remote URL, parsed: what the store and the allow-list judge.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RemoteUrl {
    url: Url,
    shown: String,
}

impl RemoteUrl {
    /// Parses `s`. A URL with user information (a password in it) is
    /// refused without echoing it; a query or fragment is refused too,
    /// since a signed URL's query is a credential.
    ///
    /// # Errors
    /// `invalid-argument`.
    pub fn parse(s: &str) -> Result<RemoteUrl, Refusal> {
        let url = Url::parse(s.trim())
            .map_err(|e| Refusal::invalid_argument(format!("not a URL plumb can read ({e})")))?;
        if !REMOTE_SCHEMES.contains(&url.scheme()) {
            return Err(Refusal::invalid_argument(format!(
                "`{}` is not a remote scheme plumb reads; use one of {}",
                plumb_core::echo(url.scheme()),
                REMOTE_SCHEMES.join(", ")
            )));
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err(Refusal::invalid_argument(
                "the URL carries user information; plumb takes no credentials in a URL (they would be echoed and logged): give them through the environment",
            ));
        }
        if url.query().is_some() || url.fragment().is_some() {
            return Err(Refusal::invalid_argument(
                "the URL carries a query or fragment; plumb reads plain object URLs (a signed URL's query is a credential)",
            ));
        }
        if url.host_str().is_none_or(str::is_empty) {
            return Err(Refusal::invalid_argument("the URL names no bucket or host"));
        }
        let shown = url.to_string();
        Ok(RemoteUrl { url, shown })
    }

    /// The URL as answers and messages show it.
    pub fn as_str(&self) -> &str {
        &self.shown
    }

    /// The scheme (`s3`, `https`, ...).
    pub fn scheme(&self) -> &str {
        self.url.scheme()
    }

    /// The bucket, container or host, as the store names it: an HTTP
    /// host lowercased (DNS names are case-insensitive, and the URL
    /// parser lowercases them), a bucket or container exactly as given
    /// (S3, GCS and Azure names are case-sensitive where they allow
    /// capitals, so `BKT` is another bucket than `bkt`).
    pub fn host(&self) -> String {
        self.url.host_str().unwrap_or("").to_owned()
    }

    /// The port, when the URL names one.
    pub fn port(&self) -> Option<u16> {
        self.url.port()
    }

    /// The key: the path's segments, percent-decoded, with `.` and
    /// empty segments dropped and `..` refused (a key that climbs is
    /// not a key).
    ///
    /// # Errors
    /// `invalid-argument` for a `..` segment or one that decodes to a
    /// `/` or a NUL.
    pub fn key_segments(&self) -> Result<Vec<String>, Refusal> {
        let mut out = Vec::new();
        for seg in self.url.path_segments().into_iter().flatten() {
            let decoded = percent_decode(seg);
            if decoded.is_empty() || decoded == "." {
                continue;
            }
            if decoded == ".." || decoded.contains('/') || decoded.contains('\0') {
                return Err(Refusal::invalid_argument(format!(
                    "the key of `{}` has a segment `{}` that climbs or hides a separator",
                    self.shown,
                    plumb_core::echo(&decoded)
                )));
            }
            out.push(decoded);
        }
        Ok(out)
    }
}

/// The remote prefixes an agent may read under (`--allow-remote`),
/// judged on parsed URLs: the same scheme, the same host
/// (case-insensitive for HTTP) or bucket (exactly) and port, and a key whose segments begin with the
/// prefix's segments, after dot segments are resolved and
/// percent-encoding is decoded. The raw text of a URL is never compared.
#[derive(Clone, Debug, Default)]
pub struct AllowList {
    prefixes: Vec<(RemoteUrl, Vec<String>)>,
}

impl AllowList {
    /// Parses each prefix.
    ///
    /// # Errors
    /// `invalid-argument` for a prefix that is not a remote URL plumb
    /// reads (see [`RemoteUrl::parse`]).
    pub fn new<S: AsRef<str>>(prefixes: &[S]) -> Result<AllowList, Refusal> {
        let mut out = Vec::new();
        for p in prefixes {
            let url = RemoteUrl::parse(p.as_ref())?;
            let key = url.key_segments()?;
            out.push((url, key));
        }
        Ok(AllowList { prefixes: out })
    }

    /// Whether no prefix is allowed.
    pub fn is_empty(&self) -> bool {
        self.prefixes.is_empty()
    }

    /// The URL `s` parsed, if a prefix allows it.
    ///
    /// # Errors
    /// `outside-root` for a URL no prefix allows (or any, when the list
    /// is empty); `invalid-argument` for a URL that does not parse.
    pub fn judge(&self, s: &str) -> Result<RemoteUrl, Refusal> {
        if self.prefixes.is_empty() {
            return Err(Refusal::new(
                RefusalReason::OutsideRoot,
                "remote objects are not read here: the server was started without --allow-remote",
            ));
        }
        let url = RemoteUrl::parse(s)?;
        let key = url.key_segments()?;
        let allowed = self.prefixes.iter().any(|(p, pk)| {
            p.scheme() == url.scheme()
                && p.host() == url.host()
                && p.port() == url.port()
                && key.len() >= pk.len()
                && key[..pk.len()] == pk[..]
        });
        if allowed {
            Ok(url)
        } else {
            Err(Refusal::new(
                RefusalReason::OutsideRoot,
                format!(
                    "`{}` is under no prefix this server allows (--allow-remote)",
                    url.as_str()
                ),
            )
            .with_path(url.as_str()))
        }
    }
}

/// A key segment with its `%XX` escapes decoded (by the
/// percent-encoding crate, which the url crate decodes with too), bytes
/// that are not UTF-8 replaced.
fn percent_decode(s: &str) -> String {
    percent_encoding::percent_decode_str(s)
        .decode_utf8_lossy()
        .into_owned()
}

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

/// The runtime remote reads run on: one for the process, two workers.
fn runtime() -> &'static tokio::runtime::Runtime {
    static RT: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RT.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("plumb-remote")
            .enable_all()
            .build()
            .expect("a tokio runtime starts")
    })
}

/// Runs `fut` on the remote runtime and waits for it; safe to call from
/// any thread, a caller's own runtime included.
fn run<T: Send + 'static>(fut: impl Future<Output = T> + Send + 'static) -> T {
    let (tx, rx) = std::sync::mpsc::sync_channel(1);
    runtime().spawn(async move {
        let _ = tx.send(fut.await);
    });
    rx.recv().expect("the remote task answers")
}

/// Masks what could be a credential in a message: the query of any URL
/// in it, and the value of any environment variable whose name says
/// secret, token, key, password or signature.
pub fn scrub(message: &str) -> String {
    let mut out = message.to_owned();
    for (k, v) in std::env::vars() {
        let k = k.to_ascii_uppercase();
        let secret = [
            "SECRET",
            "TOKEN",
            "KEY",
            "PASSWORD",
            "SAS",
            "SIGNATURE",
            "CREDENTIAL",
        ]
        .iter()
        .any(|w| k.contains(w));
        if secret && v.len() >= 6 {
            out = out.replace(&v, "***");
        }
    }
    // Cut the query off every URL.
    let mut cleaned = String::with_capacity(out.len());
    let mut rest = out.as_str();
    while let Some(at) = rest.find("://") {
        let (head, tail) = rest.split_at(at + 3);
        cleaned.push_str(head);
        let end = tail
            .find(|c: char| c.is_whitespace() || c == '"' || c == '\'' || c == ')' || c == '>')
            .unwrap_or(tail.len());
        let url = &tail[..end];
        match url.find('?') {
            Some(q) => {
                cleaned.push_str(&url[..q]);
                cleaned.push_str("?***");
            }
            None => cleaned.push_str(url),
        }
        rest = &tail[end..];
    }
    cleaned.push_str(rest);
    cleaned
}

fn refusal(e: &object_store::Error, shown: &str) -> Refusal {
    let r = match e {
        object_store::Error::NotFound { .. } => Refusal::new(
            RefusalReason::NotFound,
            format!("`{shown}` does not exist in its store; check the bucket and key"),
        ),
        object_store::Error::Precondition { .. } => changed(shown),
        object_store::Error::PermissionDenied { .. }
        | object_store::Error::Unauthenticated { .. } => Refusal::new(
            RefusalReason::ReadError,
            format!(
                "`{shown}` cannot be read: the store denied access ({})",
                scrub(&e.to_string())
            ),
        ),
        object_store::Error::NotSupported { .. } => Refusal::new(
            RefusalReason::ReadError,
            format!(
                "`{shown}` cannot be read in place: its server does not serve byte ranges, which plumb reads remote objects by ({}); download it and read the local file",
                scrub(&e.to_string())
            ),
        ),
        other => Refusal::new(
            RefusalReason::ReadError,
            format!("reading `{shown}` failed: {}", scrub(&other.to_string())),
        ),
    };
    r.with_path(shown)
}

fn changed(shown: &str) -> Refusal {
    Refusal::new(
        RefusalReason::ReadError,
        format!("`{shown}` changed while it was read (its ETag is no longer the one it had when opened); read it again"),
    )
    .with_path(shown)
}

/// A client that answers a redirect as it is, an error, rather than
/// following it.
#[derive(Debug)]
struct NoRedirects {
    timeout: Duration,
    connect_timeout: Duration,
}

impl object_store::client::HttpConnector for NoRedirects {
    fn connect(
        &self,
        _options: &ClientOptions,
    ) -> object_store::Result<object_store::client::HttpClient> {
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(self.timeout)
            .connect_timeout(self.connect_timeout)
            .build()
            .map_err(|e| object_store::Error::Generic {
                store: "HTTP",
                source: Box::new(e),
            })?;
        Ok(object_store::client::HttpClient::new(client))
    }
}

fn store_for(
    url: &RemoteUrl,
    config: &RemoteConfig,
) -> Result<(Arc<dyn ObjectStore>, StorePath), Refusal> {
    let shown = url.as_str();
    let bad = |e: &dyn std::fmt::Display| {
        Refusal::invalid_argument(format!(
            "`{shown}` cannot be opened: {}",
            scrub(&e.to_string())
        ))
    };
    let (scheme, path) = ObjectStoreScheme::parse(&url.url).map_err(|e| bad(&e))?;
    let retry = RetryConfig {
        max_retries: config.retries,
        ..RetryConfig::default()
    };
    let pinned = || NoRedirects {
        timeout: config.timeout,
        connect_timeout: config.connect_timeout,
    };
    let follow = config.follow_redirects;
    let timeout = format!("{}ms", config.timeout.as_millis());
    let connect = format!("{}ms", config.connect_timeout.as_millis());
    // The cloud builders are different types with the same steps. The
    // timeouts are set as configuration keys on top of what the builder
    // read from the environment, so that the store's own client
    // variables (`AWS_ALLOW_HTTP`, `GOOGLE_PROXY_URL`, ...) still hold.
    macro_rules! built {
        ($b:expr, $key:path) => {{
            let mut b = $b
                .with_config($key(ClientConfigKey::Timeout), &timeout)
                .with_config($key(ClientConfigKey::ConnectTimeout), &connect)
                .with_retry(retry);
            if !follow {
                b = b.with_http_connector(pinned());
            }
            Arc::new(b.build().map_err(|e| bad(&e))?)
        }};
    }
    let store: Arc<dyn ObjectStore> = match scheme {
        ObjectStoreScheme::AmazonS3 => {
            let mut b = object_store::aws::AmazonS3Builder::from_env().with_url(url.url.as_str());
            // The AWS tools' own name for a custom endpoint.
            let endpoint = std::env::var("AWS_ENDPOINT")
                .or_else(|_| std::env::var("AWS_ENDPOINT_URL_S3"))
                .or_else(|_| std::env::var("AWS_ENDPOINT_URL"))
                .ok();
            if let Some(ep) = &endpoint {
                b = b.with_endpoint(ep);
                if ep.starts_with("http://") {
                    b = b.with_config(
                        AmazonS3ConfigKey::Client(ClientConfigKey::AllowHttp),
                        "true",
                    );
                }
            }
            if std::env::var("AWS_REGION").is_err() && std::env::var("AWS_DEFAULT_REGION").is_err()
            {
                b = b.with_region("us-east-1");
            } else if let Ok(region) = std::env::var("AWS_REGION") {
                b = b.with_region(region);
            }
            built!(b, AmazonS3ConfigKey::Client)
        }
        ObjectStoreScheme::GoogleCloudStorage => {
            let b =
                object_store::gcp::GoogleCloudStorageBuilder::from_env().with_url(url.url.as_str());
            built!(b, GoogleConfigKey::Client)
        }
        ObjectStoreScheme::MicrosoftAzure => {
            let b =
                object_store::azure::MicrosoftAzureBuilder::from_env().with_url(url.url.as_str());
            built!(b, AzureConfigKey::Client)
        }
        ObjectStoreScheme::Http => {
            let origin = &url.url[..url::Position::BeforePath];
            let mut b = object_store::http::HttpBuilder::new()
                .with_url(origin)
                .with_client_options(
                    ClientOptions::new()
                        .with_timeout(config.timeout)
                        .with_connect_timeout(config.connect_timeout)
                        .with_allow_http(true),
                )
                .with_retry(retry);
            if !follow {
                b = b.with_http_connector(pinned());
            }
            Arc::new(b.build().map_err(|e| bad(&e))?)
        }
        _ => {
            return Err(Refusal::invalid_argument(format!(
                "`{shown}` is not a remote object URL plumb reads"
            )))
        }
    };
    Ok((store, path))
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

/// A lock that a panic elsewhere does not poison for good: the cache
/// holds whole ranges only, so what it holds is sound either way.
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// One ranged GET of `at..end`, pinned to the version opened: `If-Match`
/// with the ETag, and the answer's ETag and size checked.
async fn get(
    inner: &Inner,
    at: u64,
    end: u64,
) -> Result<futures::stream::BoxStream<'static, object_store::Result<Bytes>>, Refusal> {
    let options = GetOptions {
        range: Some(GetRange::Bounded(at..end)),
        if_match: inner.etag.clone(),
        ..GetOptions::default()
    };
    inner.requests.fetch_add(1, Ordering::Relaxed);
    let got = inner
        .store
        .get_opts(&inner.path, options)
        .await
        .map_err(|e| refusal(&e, &inner.shown))?;
    if let (Some(a), Some(b)) = (&inner.etag, &got.meta.e_tag) {
        if a != b {
            return Err(changed(&inner.shown));
        }
    }
    if got.meta.size != inner.size {
        return Err(changed(&inner.shown));
    }
    Ok(got.into_stream())
}

/// The refusal for a range whose body was cut more than
/// [`REMOTE_RESUMES`] times.
fn cut_too_often(
    inner: &Inner,
    start: u64,
    end: u64,
    at: u64,
    why: Option<object_store::Error>,
) -> Refusal {
    let why = why.map_or_else(
        || "the body ended early".to_owned(),
        |e| scrub(&e.to_string()),
    );
    Refusal::new(
        RefusalReason::ReadError,
        format!(
            "reading `{}` failed: the connection was cut {} times in bytes {start}..{end} ({why})",
            inner.shown,
            REMOTE_RESUMES + 1
        ),
    )
    .with_path(inner.shown.clone())
    .with_byte_offset(at)
}

/// Bytes `start..end` of the object, resumed from the last byte received
/// when a body is cut short.
async fn fetch(inner: &Inner, start: u64, end: u64) -> Result<Bytes, Refusal> {
    let stall = inner.stall();
    tokio::time::timeout(stall, fetch_resumed(inner, start, end))
        .await
        .unwrap_or_else(|_| Err(too_slow(inner, start, end, start, stall)))
}

/// The refusal for a range that brought too little in too long: a
/// server that trickles, answering every request just within its
/// timeout, would otherwise hold a read for as long as it likes.
fn too_slow(inner: &Inner, start: u64, end: u64, at: u64, stall: Duration) -> Refusal {
    Refusal::new(
        RefusalReason::ReadError,
        format!(
            "reading `{}` failed: of bytes {start}..{end}, nothing more arrived after byte {at} within {:.1} s (the server sends too slowly; each request may take the timeout, {:.1} s, and a wait {} of them)",
            inner.shown,
            stall.as_secs_f64(),
            inner.config.timeout.as_secs_f64(),
            REMOTE_RESUMES + 1
        ),
    )
    .with_path(inner.shown.clone())
    .with_byte_offset(at)
}

async fn fetch_resumed(inner: &Inner, start: u64, end: u64) -> Result<Bytes, Refusal> {
    let want = usize::try_from(end.saturating_sub(start)).unwrap_or(usize::MAX);
    let mut buf = BytesMut::with_capacity(want.min(64 << 20));
    let mut resumes = 0;
    loop {
        let at = start + buf.len() as u64;
        if at >= end {
            return Ok(buf.freeze());
        }
        let mut body = get(inner, at, end).await?;
        let mut cut: Option<object_store::Error> = None;
        while let Some(chunk) = body.next().await {
            match chunk {
                Ok(b) => {
                    inner.fetched.fetch_add(b.len() as u64, Ordering::Relaxed);
                    let room = want - buf.len();
                    buf.extend_from_slice(&b[..b.len().min(room)]);
                }
                Err(e) => {
                    cut = Some(e);
                    break;
                }
            }
        }
        if buf.len() < want {
            resumes += 1;
            if resumes > REMOTE_RESUMES {
                return Err(cut_too_often(
                    inner,
                    start,
                    end,
                    start + buf.len() as u64,
                    cut,
                ));
            }
        }
    }
}

/// Streams bytes `start..end` of the object to `tx` in pieces of `piece`
/// bytes, over one GET (a new one, from the last byte received, when the
/// body is cut short). A piece is sent only with a credit from
/// `credits`, which the reader gives back as it takes pieces: until then
/// the body is not read, and the connection holds the rest back.
pub(crate) async fn stream_range(
    inner: Arc<Inner>,
    start: u64,
    end: u64,
    piece: usize,
    credits: Arc<tokio::sync::Semaphore>,
    tx: std::sync::mpsc::Sender<Result<Bytes, Refusal>>,
) {
    let piece = piece.max(1);
    let mut buf = BytesMut::new();
    // Bytes received (and sent or in `buf`) so far.
    let mut at = start;
    let mut resumes = 0;
    let send = |b: Bytes| {
        let credits = credits.clone();
        let tx = tx.clone();
        async move {
            match credits.acquire().await {
                Ok(permit) => permit.forget(),
                // The reader is gone.
                Err(_) => return false,
            }
            tx.send(Ok(b)).is_ok()
        }
    };
    // Each piece must arrive within the stall bound of the one before
    // (time the reader takes to ask for it not counted).
    let stall = inner.stall();
    let mut deadline = tokio::time::Instant::now() + stall;
    let slow = |at: u64| Err(too_slow(&inner, start, end, at, stall));
    while at < end {
        let attempt_from = at;
        let mut body = match tokio::time::timeout_at(deadline, get(&inner, at, end)).await {
            Ok(Ok(b)) => b,
            Ok(Err(r)) => {
                let _ = tx.send(Err(r));
                return;
            }
            Err(_) => {
                let _ = tx.send(slow(at));
                return;
            }
        };
        let mut cut: Option<object_store::Error> = None;
        loop {
            let Ok(next) = tokio::time::timeout_at(deadline, body.next()).await else {
                let _ = tx.send(slow(at));
                return;
            };
            let Some(chunk) = next else {
                break;
            };
            match chunk {
                Ok(b) => {
                    inner.fetched.fetch_add(b.len() as u64, Ordering::Relaxed);
                    let b = b.slice(..b.len().min(usize::try_from(end - at).unwrap_or(usize::MAX)));
                    at += b.len() as u64;
                    // Room for the whole piece at once: one allocation
                    // per piece, not a doubling series of copies.
                    buf.reserve(piece.saturating_sub(buf.len()).max(b.len()));
                    buf.extend_from_slice(&b);
                    while buf.len() >= piece {
                        if !send(buf.split_to(piece).freeze()).await {
                            return;
                        }
                        deadline = tokio::time::Instant::now() + stall;
                    }
                }
                Err(e) => {
                    cut = Some(e);
                    break;
                }
            }
        }
        if at < end {
            // A request's timeout bounds its body too, so a long stream
            // is cut every so often: the count is of cuts in a row that
            // brought less than a piece.
            if at - attempt_from >= piece as u64 {
                resumes = 0;
            }
            resumes += 1;
            if resumes > REMOTE_RESUMES {
                let _ = tx.send(Err(cut_too_often(&inner, start, end, at, cut)));
                return;
            }
        }
    }
    if !buf.is_empty() {
        send(buf.freeze()).await;
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
