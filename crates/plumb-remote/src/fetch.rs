//! The requests a source makes: ranged GETs checked against the version
//! opened, resumed from their last byte when a body is cut, and the
//! streamed GET a sequential scan takes its pieces from.

use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use futures::StreamExt;
use object_store::{GetOptions, GetRange};

use plumb_core::{Refusal, RefusalReason};

use crate::scrub::{changed, refusal, scrub};
use crate::{Inner, REMOTE_RESUMES};

/// A lock that a panic elsewhere does not poison for good: the cache
/// holds whole ranges only, so what it holds is sound either way.
pub(crate) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// One ranged GET of `at..end`, pinned to the version opened: `If-Match`
/// with the ETag, and the answer's ETag and size checked.
pub(crate) async fn get(
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
pub(crate) fn cut_too_often(
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
pub(crate) async fn fetch(inner: &Inner, start: u64, end: u64) -> Result<Bytes, Refusal> {
    let stall = inner.stall();
    tokio::time::timeout(stall, fetch_resumed(inner, start, end))
        .await
        .unwrap_or_else(|_| Err(too_slow(inner, start, end, start, stall)))
}

/// The refusal for a range that brought too little in too long: a
/// server that trickles, answering every request just within its
/// timeout, would otherwise hold a read for as long as it likes.
pub(crate) fn too_slow(inner: &Inner, start: u64, end: u64, at: u64, stall: Duration) -> Refusal {
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

pub(crate) async fn fetch_resumed(inner: &Inner, start: u64, end: u64) -> Result<Bytes, Refusal> {
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
