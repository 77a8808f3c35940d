//! A remote URL parsed and judged on its parsed form, never its text:
//! its scheme, bucket and key, the form shown in messages (no user
//! information, no query), and the allow-list of prefixes it must fall
//! under.

use url::Url;

use plumb_core::{Refusal, RefusalReason};

use crate::REMOTE_SCHEMES;

/// A remote URL, parsed: what the store and the allow-list judge.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RemoteUrl {
    pub(crate) url: Url,
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
pub(crate) fn percent_decode(s: &str) -> String {
    percent_encoding::percent_decode_str(s)
        .decode_utf8_lossy()
        .into_owned()
}
