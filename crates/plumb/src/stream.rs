//! Sources read once: standard input, a pipe or FIFO named on the
//! command line.
//!
//! Detection needs the first bytes before the operation reads them all,
//! and a stream cannot be read twice. A [`StreamSource`] keeps what is
//! read of the stream's start (up to [`STREAM_REPLAY_BYTES`]) and replays
//! it to every reader, so detection, a decoder's own sniff and the
//! operation each read from the first byte, and the stream itself is
//! read once. A second full read (the same stream asked twice) is
//! refused with the reason, never served from a second read of the
//! stream.

use std::io::{self, BufRead, BufReader, Read};
use std::sync::{Arc, Mutex, MutexGuard};

use plumb_core::{CancelToken, Refusal, Source};

/// How much of a stream's start is kept for replay: enough for the
/// format sniff, and for a decoder to find its first output (a bzip2
/// block is up to 900 kB).
pub const STREAM_REPLAY_BYTES: usize = 1 << 20;

struct State {
    /// The stream's first bytes, as read so far.
    kept: Vec<u8>,
    /// The stream beyond them.
    rest: Box<dyn Read + Send>,
    /// A reader went past what is kept: no later reader can start over.
    passed: bool,
}

/// A byte stream read once (standard input, a pipe), whose start is
/// replayed to every reader until one reads past it.
///
/// ```
/// use plumb::{Op, Plumb, Request, StreamSource};
/// let piped = StreamSource::new("stdin", &b"id,name\n1,ann\n2,bob\n"[..]);
/// let answer = Plumb::new().run_source(Op::Validate, &piped, None, &Request::default())?;
/// assert_eq!(answer.to_json()["rows_scanned"], 2);
/// # Ok::<(), plumb::Refusal>(())
/// ```
pub struct StreamSource {
    name: String,
    state: Arc<Mutex<State>>,
    cancel: Option<CancelToken>,
}

impl std::fmt::Debug for StreamSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StreamSource")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

impl StreamSource {
    /// `reader`, called `name` in answers and refusals.
    pub fn new(name: impl Into<String>, reader: impl Read + Send + 'static) -> StreamSource {
        StreamSource {
            name: name.into(),
            state: Arc::new(Mutex::new(State {
                kept: Vec::new(),
                rest: Box::new(reader),
                passed: false,
            })),
            cancel: None,
        }
    }

    /// Standard input, called `stdin`.
    pub fn stdin() -> StreamSource {
        StreamSource::new("stdin", io::stdin())
    }

    /// Arms `token` for the operations run on this source.
    pub fn with_cancel(mut self, token: Option<CancelToken>) -> StreamSource {
        self.cancel = token;
        self
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// One reader of a [`StreamSource`]: the kept start, then the stream.
struct Replay {
    state: Arc<Mutex<State>>,
    pos: usize,
}

impl Read for Replay {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let mut st = self.state.lock().unwrap_or_else(|p| p.into_inner());
        if self.pos < st.kept.len() {
            let n = buf.len().min(st.kept.len() - self.pos);
            buf[..n].copy_from_slice(&st.kept[self.pos..self.pos + n]);
            self.pos += n;
            return Ok(n);
        }
        let n = st.rest.read(buf)?;
        let room = STREAM_REPLAY_BYTES.saturating_sub(st.kept.len());
        if st.passed || n > room {
            st.passed = true;
        } else {
            st.kept.extend_from_slice(&buf[..n]);
        }
        self.pos += n;
        Ok(n)
    }
}

impl Source for StreamSource {
    fn open(&self) -> Result<Box<dyn BufRead + Send + '_>, Refusal> {
        if self.lock().passed {
            return Err(Refusal::invalid_argument(format!(
                "`{}` is a stream, read once, and this needs to read it again from the start; \
                 save it to a file and name the file",
                self.name
            )));
        }
        Ok(Box::new(BufReader::new(Replay {
            state: Arc::clone(&self.state),
            pos: 0,
        })))
    }

    fn name(&self) -> &str {
        &self.name
    }

    /// A stream's length is not known until it ends.
    fn len(&self) -> Option<u64> {
        None
    }

    fn cancel_token(&self) -> Option<&CancelToken> {
        self.cancel.as_ref()
    }

    /// No extension: a stream has no name to judge.
    fn extension(&self) -> Option<String> {
        None
    }
}
