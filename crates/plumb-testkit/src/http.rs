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

/// What the server holds and how it misbehaves.
#[derive(Default)]
pub struct State {
    /// Objects by path, with their ETag.
    pub objects: Mutex<HashMap<String, (Vec<u8>, String)>>,
    /// Cut the next N bodies after this many bytes.
    pub cut_after: Mutex<Option<(usize, usize)>>,
    /// Sleep this long before each answer.
    pub delay: Mutex<Duration>,
    /// Body bytes sent.
    pub sent: AtomicU64,
    /// Requests served.
    pub requests: AtomicUsize,
    /// Answer every request with a redirect to this base URL.
    pub redirect: Mutex<Option<String>>,
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
    let path = parts.next().unwrap_or("").to_owned();
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
    let (status, start, end) = match headers.get("range").and_then(|r| r.strip_prefix("bytes=")) {
        Some(r) => {
            let (a, b) = r.split_once('-').unwrap_or((r, ""));
            let (start, end) = if a.is_empty() {
                let n: usize = b.parse().unwrap_or(0);
                (len.saturating_sub(n), len)
            } else {
                let a: usize = a.parse().unwrap_or(0);
                let b = if b.is_empty() {
                    len
                } else {
                    b.parse::<usize>().unwrap_or(len).saturating_add(1).min(len)
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
    let mut slice = &body[start..end];
    {
        let mut cut = state.cut_after.lock().unwrap();
        if let Some((after, times)) = *cut {
            if times > 0 && slice.len() > after {
                slice = &slice[..after];
                *cut = Some((after, times - 1));
            }
        }
    }
    state.sent.fetch_add(slice.len() as u64, Ordering::Relaxed);
    out.write_all(slice)?;
    out.flush()?;
    Ok(())
}
