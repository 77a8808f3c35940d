//! The objects under a prefix (`s3://bucket/logs/`), for a dataset: one
//! `list` of the store, paged by object_store, each object with its size,
//! sorted by URL. At most [`REMOTE_LIST_MAX`] are kept; past it the
//! listing is refused rather than cut, so no object is silently left out.

use futures::TryStreamExt;

use plumb_core::{Refusal, RefusalReason};

use crate::address::RemoteUrl;
use crate::config::RemoteConfig;
use crate::runtime::run;
use crate::scrub::refusal;
use crate::store::store_for;

/// The most objects one listing keeps.
pub const REMOTE_LIST_MAX: usize = 1_000_000;

/// The objects under the prefix `url` names (every object whose key
/// starts with the URL's path; end it with `/` for a folder), as URLs
/// with their sizes, sorted.
///
/// # Errors
/// `invalid-argument` for a URL plumb does not read, or a store that
/// cannot list (HTTP); `read-error` for a denied or failed listing;
/// `budget-exhausted` past [`REMOTE_LIST_MAX`] objects.
pub fn list_prefix(url: &str, config: &RemoteConfig) -> Result<Vec<(String, u64)>, Refusal> {
    let parsed = RemoteUrl::parse(url)?;
    if matches!(parsed.scheme(), "http" | "https") {
        return Err(Refusal::invalid_argument(format!(
            "`{}` is an HTTP address, which lists no objects: name each file",
            parsed.as_str()
        )));
    }
    let (store, prefix) = store_for(&parsed, config)?;
    let shown = parsed.as_str().to_owned();
    // The URL up to the key: what each object's key is appended to.
    let key = prefix.as_ref().to_owned();
    let base = shown
        .strip_suffix('/')
        .unwrap_or(&shown)
        .strip_suffix(key.as_str())
        .unwrap_or(&shown)
        .trim_end_matches('/')
        .to_owned();
    let folder = shown.ends_with('/');
    let listed = run(async move {
        let mut out = Vec::new();
        let mut stream = store.list(Some(&prefix));
        while let Some(meta) = stream.try_next().await? {
            if out.len() == REMOTE_LIST_MAX {
                return Ok(None);
            }
            out.push((meta.location.as_ref().to_owned(), meta.size));
        }
        Ok(Some(out))
    })
    .map_err(|e: object_store::Error| refusal(&e, &shown))?;
    let Some(mut objects) = listed else {
        return Err(Refusal::new(
            RefusalReason::BudgetExhausted,
            format!("`{shown}` holds more than {REMOTE_LIST_MAX} objects: name a narrower prefix"),
        ));
    };
    // object_store lists whole path segments under the prefix; a prefix
    // that ends mid-name (`logs/2024-0`) is matched by the text.
    if !folder && !key.is_empty() {
        objects.retain(|(k, _)| k == &key || k.starts_with(&format!("{key}/")));
    }
    let mut out: Vec<(String, u64)> = objects
        .into_iter()
        .map(|(k, size)| (format!("{base}/{k}"), size))
        .collect();
    out.sort();
    Ok(out)
}
