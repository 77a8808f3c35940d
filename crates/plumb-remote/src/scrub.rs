//! Messages without credentials: the query of any URL cut off and the
//! values of secret-looking environment variables masked; a store's
//! error turned into the refusal a caller sees.

use plumb_core::{Refusal, RefusalReason};

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

pub(crate) fn refusal(e: &object_store::Error, shown: &str) -> Refusal {
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

pub(crate) fn changed(shown: &str) -> Refusal {
    Refusal::new(
        RefusalReason::ReadError,
        format!("`{shown}` changed while it was read (its ETag is no longer the one it had when opened); read it again"),
    )
    .with_path(shown)
}
