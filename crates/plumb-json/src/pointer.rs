//! RFC 6901 JSON Pointers, and tracking the pointer of the value about
//! to start as events stream by.

use plumb_core::{echo, Refusal};

use crate::parser::{JSON_MAX_DEPTH, KEY_CAPTURE_BYTES};

/// A parsed JSON Pointer: its reference tokens, unescaped.
///
/// ```
/// use plumb_json::Pointer;
/// let p = Pointer::parse("/meta/a~1b/~0x")?;
/// assert_eq!(p.tokens(), ["meta", "a/b", "~x"]);
/// assert!(Pointer::parse("")?.tokens().is_empty());
/// # Ok::<(), plumb_core::Refusal>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Pointer {
    tokens: Vec<String>,
}

impl Pointer {
    /// Parses a pointer. `""` is the whole document.
    ///
    /// # Errors
    /// `invalid-argument` when the pointer does not start with `/` or
    /// holds a `~` not followed by `0` or `1`.
    pub fn parse(text: &str) -> Result<Pointer, Refusal> {
        // The URI fragment form (RFC 6901 section 6): `#/a%20b`.
        if let Some(fragment) = text.strip_prefix('#') {
            let decoded = percent_decode(fragment).ok_or_else(|| {
                Refusal::invalid_argument(format!(
                    "pointer `{}` is a URI fragment with a bad percent escape; write %XX with two hex digits",
                    echo(text)
                ))
            })?;
            return Pointer::parse_string(&decoded);
        }
        Pointer::parse_string(text)
    }

    /// Parses the JSON String Representation only (RFC 6901 section 5),
    /// without the `#` fragment form.
    ///
    /// # Errors
    /// As [`Pointer::parse`].
    pub fn parse_string(text: &str) -> Result<Pointer, Refusal> {
        if text.is_empty() {
            return Ok(Pointer::default());
        }
        let Some(rest) = text.strip_prefix('/') else {
            return Err(Refusal::invalid_argument(format!(
                "pointer `{}` does not start with `/`; write a JSON Pointer such as /items/0/id, or \"\" for the whole document",
                echo(text)
            )));
        };
        // No document plumb reads is deeper than JSON_MAX_DEPTH, so a
        // longer pointer cannot resolve: refuse it before holding its tokens.
        let depth = text.bytes().filter(|&b| b == b'/').count();
        if depth > JSON_MAX_DEPTH {
            return Err(Refusal::invalid_argument(format!(
                "pointer `{}` has {depth} segments, deeper than any document plumb reads ({JSON_MAX_DEPTH} levels); pass a shorter pointer",
                echo(text)
            )));
        }
        let mut tokens = Vec::new();
        for raw in rest.split('/') {
            let mut token = String::with_capacity(raw.len());
            let mut chars = raw.chars();
            while let Some(c) = chars.next() {
                if c != '~' {
                    token.push(c);
                    continue;
                }
                match chars.next() {
                    Some('0') => token.push('~'),
                    Some('1') => token.push('/'),
                    _ => {
                        return Err(Refusal::invalid_argument(format!(
                            "pointer `{}` holds a `~` that is not `~0` (for ~) or `~1` (for /)",
                            echo(text)
                        )))
                    }
                }
            }
            // A key is read to KEY_CAPTURE_BYTES and a longer one is
            // marked cut: a longer token could never be found.
            if token.len() > KEY_CAPTURE_BYTES {
                return Err(Refusal::invalid_argument(format!(
                    "pointer `{}` names a key of {} bytes; keys are read to their first {KEY_CAPTURE_BYTES} bytes, so a longer one cannot be named",
                    echo(text),
                    token.len()
                )));
            }
            tokens.push(token);
        }
        Ok(Pointer { tokens })
    }

    /// The reference tokens, unescaped.
    pub fn tokens(&self) -> &[String] {
        &self.tokens
    }

    /// The pointer text of the first `n` tokens.
    pub fn prefix(&self, n: usize) -> String {
        render(self.tokens.iter().take(n).map(String::as_str))
    }

    /// The `pointer-not-found` refusal for this pointer, whose first
    /// `deepest` tokens exist: it names the deepest part that exists,
    /// so the caller can look there.
    pub fn not_found(&self, deepest: usize) -> Refusal {
        let asked = self.prefix(self.tokens().len());
        let deepest = self.prefix(deepest);
        let shown = if deepest.is_empty() {
            "the document root".to_owned()
        } else {
            format!("`{}`", plumb_core::echo(&deepest))
        };
        Refusal::new(
            plumb_core::RefusalReason::PointerNotFound,
            format!(
                "pointer `{}` does not resolve; the deepest part that exists is {shown}; inspect or select it to see what it holds",
                plumb_core::echo(&asked)
            ),
        )
        .with_pointer(plumb_core::echo(&asked))
        .with_extra("deepest", serde_json::Value::from(plumb_core::echo(&deepest)))
    }
}

fn percent_decode(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = std::str::from_utf8(b.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// Escapes one reference token (`~` -> `~0`, `/` -> `~1`).
pub(crate) fn escape_token(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

fn render<'a>(tokens: impl Iterator<Item = &'a str>) -> String {
    let mut out = String::new();
    for t in tokens {
        out.push('/');
        out.push_str(&escape_token(t));
    }
    out
}

/// Whether an array index token (`0`, `12`, no leading zeros) names `index`.
pub(crate) fn index_matches(token: &str, index: u64) -> bool {
    // RFC 6901 array-index: "0", or digits without a leading zero; no sign.
    if token.is_empty() || !token.bytes().all(|b| b.is_ascii_digit()) {
        return false;
    }
    if token.len() > 1 && token.starts_with('0') {
        return false;
    }
    token.parse::<u64>() == Ok(index)
}

/// The longest key a frame keeps in place.
const SHORT_KEY: usize = 32;

/// The key of an open object's current member. Every key of a scan
/// passes through here, so short ones (most) are kept in place with
/// fixed-width moves, which cost less than a call into `memcpy`; longer
/// ones go to the heap.
#[derive(Clone, Debug, Default)]
struct KeyBuf {
    short: [u8; SHORT_KEY],
    len: usize,
    long: Vec<u8>,
}

impl KeyBuf {
    fn set(&mut self, key: &[u8]) {
        let n = key.len();
        self.len = n;
        let d = &mut self.short;
        // Two moves of a fixed width that overlap cover any length
        // between that width and twice it.
        if n > SHORT_KEY {
            self.long.clear();
            self.long.extend_from_slice(key);
        } else if n >= 16 {
            d[..16].copy_from_slice(&key[..16]);
            d[n - 16..n].copy_from_slice(&key[n - 16..]);
        } else if n >= 8 {
            d[..8].copy_from_slice(&key[..8]);
            d[n - 8..n].copy_from_slice(&key[n - 8..]);
        } else if n >= 4 {
            d[..4].copy_from_slice(&key[..4]);
            d[n - 4..n].copy_from_slice(&key[n - 4..]);
        } else {
            d[..n].copy_from_slice(key);
        }
    }

    fn get(&self) -> &[u8] {
        if self.len > SHORT_KEY {
            &self.long
        } else {
            &self.short[..self.len]
        }
    }

    fn clear(&mut self) {
        self.len = 0;
    }
}

#[derive(Clone, Debug)]
enum Frame {
    /// Keys are kept as bytes and read as text only when a pointer is
    /// asked for: most scans never ask.
    Object {
        key: KeyBuf,
    },
    Array {
        next: u64,
    },
}

/// Tracks where the stream is: the pointer of the value about to start.
///
/// Feed it every structural event (before acting on a value, call
/// [`PathTracker::value_starts`]); ask [`PathTracker::pointer`] for the
/// pointer. Keys are kept as captured (at most 1 KiB each) and depth is
/// capped by the parser, so memory stays bounded.
#[derive(Clone, Debug, Default)]
pub struct PathTracker {
    /// Frames past `open` are kept, closed, for reuse: opening an object
    /// then costs no allocation for its key buffer.
    frames: Vec<Frame>,
    open: usize,
}

impl PathTracker {
    /// A value is about to start (a scalar or a container): for an array
    /// element, this advances the index.
    pub fn value_starts(&mut self) {
        if let Some(Frame::Array { next }) = self.last_mut() {
            *next += 1;
        }
    }

    /// A container opened (after [`PathTracker::value_starts`]).
    pub fn open(&mut self, object: bool) {
        let frame = match self.frames.get_mut(self.open) {
            Some(f) => f,
            None => {
                self.frames.push(Frame::Array { next: 0 });
                let last = self.frames.len() - 1;
                &mut self.frames[last]
            }
        };
        match (frame, object) {
            (Frame::Object { key }, true) => key.clear(),
            (f, true) => {
                *f = Frame::Object {
                    key: KeyBuf::default(),
                }
            }
            (f, false) => *f = Frame::Array { next: 0 },
        }
        self.open += 1;
    }

    /// The innermost container closed.
    pub fn close(&mut self) {
        self.open = self.open.saturating_sub(1);
    }

    fn last_mut(&mut self) -> Option<&mut Frame> {
        self.open
            .checked_sub(1)
            .and_then(|i| self.frames.get_mut(i))
    }

    /// A key was read in the innermost object.
    pub fn key(&mut self, key: &[u8]) {
        if let Some(Frame::Object { key: k }) = self.last_mut() {
            k.set(key);
        }
    }

    /// [`PathTracker::key`] for a key the parser may have cut
    /// (`truncated`): a cut key matches no pointer token, as its whole
    /// text is unknown (a token is never longer than the cut, see
    /// [`Pointer::parse`]).
    pub fn key_read(&mut self, key: &[u8], truncated: bool) {
        if truncated {
            // A byte no UTF-8 token holds, past the longest token.
            let mut cut = Vec::with_capacity(key.len() + 1);
            cut.extend_from_slice(key);
            cut.push(0xFF);
            self.key(&cut);
        } else {
            self.key(key);
        }
    }

    /// The depth (open containers).
    pub fn depth(&self) -> usize {
        self.open
    }

    /// The reference token of the current value in its container at
    /// `level` (0 is the root container): a key, or an element index.
    pub fn token_at(&self, level: usize) -> Option<PathToken<'_>> {
        match self.frames.get(level).filter(|_| level < self.open)? {
            Frame::Object { key } => Some(PathToken::Key(
                std::str::from_utf8(key.get()).unwrap_or_default(),
            )),
            Frame::Array { next } => Some(PathToken::Index(next.saturating_sub(1))),
        }
    }

    /// The reference token the next value in the container at `level`
    /// will have, before [`PathTracker::value_starts`] is called for it.
    pub fn upcoming_at(&self, level: usize) -> Option<PathToken<'_>> {
        match self.frames.get(level).filter(|_| level < self.open)? {
            Frame::Object { key } => Some(PathToken::Key(
                std::str::from_utf8(key.get()).unwrap_or_default(),
            )),
            Frame::Array { next } => Some(PathToken::Index(*next)),
        }
    }

    /// The pointer of the current value (after `value_starts`), or of
    /// the member whose key was just read.
    pub fn pointer(&self) -> String {
        self.pointer_upto(self.open)
    }

    /// The pointer through the first `n` open containers: with `n` one
    /// less than the depth, the pointer of the innermost container.
    pub fn pointer_upto(&self, n: usize) -> String {
        let mut out = String::new();
        for f in self.frames.iter().take(n.min(self.open)) {
            out.push('/');
            match f {
                Frame::Object { key } => {
                    out.push_str(&escape_token(&String::from_utf8_lossy(key.get())))
                }
                Frame::Array { next } => out.push_str(&next.saturating_sub(1).to_string()),
            }
        }
        out
    }
}

/// One step of a tracked path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PathToken<'a> {
    /// A member key.
    Key(&'a str),
    /// An element index.
    Index(u64),
}

impl PathToken<'_> {
    /// Whether the pointer token names this step.
    pub fn matches(&self, token: &str) -> bool {
        match self {
            PathToken::Key(k) => *k == token,
            PathToken::Index(i) => index_matches(token, *i),
        }
    }
}
