//! What a remote read is allowed and how it is tuned: the prefixes a
//! caller may reach, the range and read-ahead sizes, the timeouts, read
//! from the caller's options and the environment.

use std::time::Duration;

use plumb_core::{Refusal, RefusalReason};

use crate::{REMOTE_RANGE_BYTES, REMOTE_READ_AHEAD, REMOTE_SCHEMES};

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
