//! Test support shared by plumb's crates: a counting global allocator,
//! (in [`hostile`]) a workspace under attack, and (in [`stats`]) the
//! comparison of answers whose statistics were merged from parts.
//!
//! Memory bounds are promises, so tests measure them deterministically:
//! install [`CountingAlloc`] as the test binary's global allocator, call
//! [`reset_peak`], run the work, and read [`peak_bytes`] (the most heap
//! live at once since the reset). Run such tests in a binary of their
//! own, one at a time, since the counters are process-wide.
//!
//! ```
//! // In a test binary:
//! // #[global_allocator]
//! // static ALLOC: plumb_testkit::CountingAlloc = plumb_testkit::CountingAlloc;
//! plumb_testkit::reset_peak();
//! assert!(plumb_testkit::peak_bytes() <= plumb_testkit::live_bytes().max(plumb_testkit::peak_bytes()));
//! ```
//!
//! This crate is the one place in the workspace with `unsafe`: the
//! `GlobalAlloc` trait is unsafe to implement. It forwards every call to
//! the system allocator unchanged and only counts.

pub mod calendar;
pub mod hostile;
pub mod http;
pub mod parquet;
pub mod stats;

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
static LIMIT: AtomicUsize = AtomicUsize::new(usize::MAX);

/// Whether `more` bytes may be allocated under the [`limit_heap`] cap.
fn room_for(more: usize) -> bool {
    more <= LIMIT
        .load(Ordering::Relaxed)
        .saturating_sub(LIVE.load(Ordering::Relaxed))
}

/// A global allocator that counts live and peak heap bytes.
#[derive(Debug, Clone, Copy, Default)]
pub struct CountingAlloc;

fn grew(by: usize) {
    let now = LIVE.fetch_add(by, Ordering::Relaxed) + by;
    PEAK.fetch_max(now, Ordering::Relaxed);
}

// SAFETY: every method forwards to `System` with the caller's arguments,
// so `System`'s guarantees hold; the counters are plain atomics.
unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if !room_for(layout.size()) {
            return std::ptr::null_mut();
        }
        // SAFETY: forwarded unchanged; the caller upholds `alloc`'s contract.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if !room_for(layout.size()) {
            return std::ptr::null_mut();
        }
        // SAFETY: forwarded unchanged.
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded unchanged; `ptr` came from this allocator.
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if !room_for(new_size.saturating_sub(layout.size())) {
            return std::ptr::null_mut();
        }
        // SAFETY: forwarded unchanged.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            if new_size >= layout.size() {
                grew(new_size - layout.size());
            } else {
                LIVE.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
            }
        }
        p
    }
}

/// Heap bytes live now.
pub fn live_bytes() -> usize {
    LIVE.load(Ordering::Relaxed)
}

/// The most heap bytes live at once since the last [`reset_peak`].
pub fn peak_bytes() -> usize {
    PEAK.load(Ordering::Relaxed)
}

/// Caps the heap: an allocation that would take the live bytes past
/// `bytes` fails (and Rust then aborts the process with "memory
/// allocation of N bytes failed"). A test of hostile input sets it so
/// that a bomb fails the test binary rather than exhausting the machine.
pub fn limit_heap(bytes: usize) {
    LIMIT.store(bytes, Ordering::Relaxed);
}

/// Starts a new peak measurement from the bytes live now.
pub fn reset_peak() {
    PEAK.store(LIVE.load(Ordering::Relaxed), Ordering::Relaxed);
}

/// Runs `work` and returns its result with the peak heap it added above
/// what was live when it started.
pub fn peak_during<T>(work: impl FnOnce() -> T) -> (T, usize) {
    let before = live_bytes();
    reset_peak();
    let out = work();
    (out, peak_bytes().saturating_sub(before))
}

/// Logs each panic as one line (its message and place), not a backtrace:
/// for runs that expect dependencies' panics, caught and answered as
/// refusals, by the thousand (a fuzz target), where symbolizing a
/// backtrace for each is slow and allocates past a capped heap.
pub fn one_line_panics() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        std::panic::set_hook(Box::new(|info| eprintln!("panic: {info}")));
    });
}
