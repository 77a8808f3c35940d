//! Cancellation: a cheap flag shared between the caller and a scan.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// A token the caller keeps to cancel a scan from another thread.
///
/// Scans check it at least once per chunk and then refuse `aborted`; the
/// check is one relaxed atomic load, so it costs nothing measurable.
///
/// ```
/// let token = plumb_core::CancelToken::new();
/// let seen_by_scan = token.clone();
/// token.cancel();
/// assert!(seen_by_scan.is_cancelled());
/// ```
#[derive(Clone, Debug, Default)]
pub struct CancelToken(Arc<AtomicBool>);

impl CancelToken {
    /// A token that is not cancelled.
    pub fn new() -> CancelToken {
        CancelToken::default()
    }

    /// Cancels every scan that holds a clone of this token.
    pub fn cancel(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    /// Whether [`CancelToken::cancel`] was called on any clone.
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}
