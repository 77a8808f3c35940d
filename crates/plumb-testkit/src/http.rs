//! A small HTTP/1.1 server on loopback that honours `Range` and
//! `If-Match`, with faults to order: a body cut after some bytes, a slow
//! answer, an object replaced between requests. Written for the tests
//! (no crate needed): it reads one request per connection and closes.
//! plumb-remote's tests and the CLI's use it.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

/// Fills `buf` with an object's bytes from `offset` on.
pub type Generator = Arc<dyn Fn(u64, &mut [u8]) + Send + Sync>;

/// An object's bytes: held, or made on demand so that a test can serve
/// an object of gigabytes without holding it.
#[derive(Clone)]
pub enum Body {
    /// Bytes held in memory.
    Held(Arc<Vec<u8>>),
    /// `len` bytes made by a generator as they are sent.
    Generated(u64, Generator),
}

impl Body {
    fn len(&self) -> u64 {
        match self {
            Body::Held(b) => b.len() as u64,
            Body::Generated(len, _) => *len,
        }
    }

    fn write(&self, out: &mut impl Write, start: u64, end: u64) -> std::io::Result<()> {
        match self {
            Body::Held(b) => out.write_all(&b[start as usize..end as usize]),
            Body::Generated(_, make) => {
                let mut buf = vec![0u8; 64 << 10];
                let mut at = start;
                while at < end {
                    let n = (end - at).min(buf.len() as u64) as usize;
                    make(at, &mut buf[..n]);
                    out.write_all(&buf[..n])?;
                    at += n as u64;
                }
                Ok(())
            }
        }
    }
}

/// What the server holds and how it misbehaves.
#[derive(Default)]
pub struct State {
    /// Objects by path, with their ETag.
    pub objects: Mutex<HashMap<String, (Body, String)>>,
    /// Cut the next N bodies after this many bytes.
    pub cut_after: Mutex<Option<(usize, usize)>>,
    /// Sleep this long before each answer.
    pub delay: Mutex<Duration>,
    /// Body bytes sent.
    pub sent: AtomicU64,
    /// Requests served.
    pub requests: AtomicUsize,
    /// Ignore `Range`, as a server that does not serve ranges does
    /// (Python's `http.server`): every GET answers the whole object.
    pub no_ranges: std::sync::atomic::AtomicBool,
    /// Answer every request with a redirect to this base URL.
    pub redirect: Mutex<Option<String>>,
    /// Send bodies a byte at a time, this long apart (a server that
    /// trickles).
    pub trickle: Mutex<Duration>,
}

/// A running server: its base URL and its state.
pub struct Server {
    /// `http://127.0.0.1:PORT`.
    pub base: String,
    /// What it holds and how it misbehaves.
    pub state: Arc<State>,
}

impl Server {
    /// Starts a server on a free loopback port.
    ///
    /// # Panics
    /// When no port can be bound.
    pub fn start() -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let state = Arc::new(State::default());
        let s = state.clone();
        thread::spawn(move || {
            for conn in listener.incoming() {
                let Ok(conn) = conn else { continue };
                let s = s.clone();
                thread::spawn(move || {
                    let _ = serve(conn, &s);
                });
            }
        });
        Server { base, state }
    }

    /// Puts an object at `path` (a new ETag each time).
    ///
    /// # Panics
    /// When a lock is poisoned.
    pub fn put(&self, path: &str, bytes: Vec<u8>) {
        self.put_body(path, Body::Held(Arc::new(bytes)));
    }

    /// Puts an object of `len` bytes made by `make` as they are asked
    /// for (a new ETag each time).
    ///
    /// # Panics
    /// When a lock is poisoned.
    pub fn put_generated(&self, path: &str, len: u64, make: Generator) {
        self.put_body(path, Body::Generated(len, make));
    }

    fn put_body(&self, path: &str, bytes: Body) {
        let mut objects = self.state.objects.lock().unwrap();
        let tag = format!("\"v{}-{}\"", objects.len(), bytes.len());
        let tag = match objects.get(path) {
            Some((_, old)) => format!("{}x\"", old.trim_end_matches('"')),
            None => tag,
        };
        objects.insert(path.to_owned(), (bytes, tag));
    }

    /// The URL of `path` on this server.
    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.base, path)
    }
}

fn serve(conn: TcpStream, state: &State) -> std::io::Result<()> {
    let mut reader = BufReader::new(conn.try_clone()?);
    let mut line = String::new();
    reader.read_line(&mut line)?;
    let mut parts = line.split_whitespace();
    let method = parts.next().unwrap_or("").to_owned();
    // Stores' clients encode key characters (`-` as `%2D`): the object
    // is looked up by the decoded path, without its query.
    let raw = parts.next().unwrap_or("");
    let path = percent_encoding::percent_decode_str(raw.split('?').next().unwrap_or(""))
        .decode_utf8_lossy()
        .into_owned();
    let mut headers = HashMap::new();
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h)? == 0 || h == "\r\n" {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            headers.insert(k.trim().to_ascii_lowercase(), v.trim().to_owned());
        }
    }
    state.requests.fetch_add(1, Ordering::Relaxed);
    let delay = *state.delay.lock().unwrap();
    if !delay.is_zero() {
        thread::sleep(delay);
    }
    let mut out = conn;
    if let Some(to) = state.redirect.lock().unwrap().clone() {
        write!(
            out,
            "HTTP/1.1 302 Found\r\nLocation: {to}{path}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        )?;
        return Ok(());
    }
    let found = state.objects.lock().unwrap().get(&path).cloned();
    let Some((body, etag)) = found else {
        write!(
            out,
            "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        )?;
        return Ok(());
    };
    if let Some(m) = headers.get("if-match") {
        if m != "*" && m.split(',').all(|t| t.trim() != etag) {
            write!(out, "HTTP/1.1 412 Precondition Failed\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")?;
            return Ok(());
        }
    }
    let len = body.len();
    let range = headers
        .get("range")
        .filter(|_| !state.no_ranges.load(Ordering::Relaxed));
    let (status, start, end) = match range.and_then(|r| r.strip_prefix("bytes=")) {
        Some(r) => {
            let (a, b) = r.split_once('-').unwrap_or((r, ""));
            let (start, end) = if a.is_empty() {
                let n: u64 = b.parse().unwrap_or(0);
                (len.saturating_sub(n), len)
            } else {
                let a: u64 = a.parse().unwrap_or(0);
                let b = if b.is_empty() {
                    len
                } else {
                    b.parse::<u64>().unwrap_or(len).saturating_add(1).min(len)
                };
                (a, b)
            };
            if start >= len && len > 0 {
                write!(out, "HTTP/1.1 416 Range Not Satisfiable\r\nContent-Range: bytes */{len}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")?;
                return Ok(());
            }
            ("206 Partial Content", start, end)
        }
        None => ("200 OK", 0, len),
    };
    let mut head = format!(
        "HTTP/1.1 {status}\r\nContent-Length: {}\r\nETag: {etag}\r\nAccept-Ranges: bytes\r\nLast-Modified: Tue, 01 Dec 2026 00:00:00 GMT\r\nConnection: close\r\n",
        end - start
    );
    if status.starts_with("206") {
        head.push_str(&format!(
            "Content-Range: bytes {start}-{}/{len}\r\n",
            end.saturating_sub(1)
        ));
    }
    head.push_str("\r\n");
    out.write_all(head.as_bytes())?;
    if method == "HEAD" {
        return Ok(());
    }
    let mut end = end;
    {
        let mut cut = state.cut_after.lock().unwrap();
        if let Some((after, times)) = *cut {
            if times > 0 && end - start > after as u64 {
                end = start + after as u64;
                *cut = Some((after, times - 1));
            }
        }
    }
    state.sent.fetch_add(end - start, Ordering::Relaxed);
    let trickle = *state.trickle.lock().unwrap();
    if !trickle.is_zero() {
        for at in start..end {
            body.write(&mut out, at, at + 1)?;
            out.flush()?;
            thread::sleep(trickle);
        }
        return Ok(());
    }
    body.write(&mut out, start, end)?;
    out.flush()?;
    Ok(())
}
