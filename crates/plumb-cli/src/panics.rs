//! How a panic is logged.

/// A panic (a dependency's, caught and answered as a refusal) is logged
/// as one line on stderr, on every surface: an agent host keeps stderr
/// as its log, where a backtrace (RUST_BACKTRACE set) hides the next
/// entries, and a person reads the refusal that follows it.
pub(crate) fn one_line() {
    std::panic::set_hook(Box::new(|info| {
        let payload = info.payload();
        let message = payload
            .downcast_ref::<&str>()
            .copied()
            .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
            .unwrap_or("(no message)");
        let place = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        eprintln!(
            "plumb: panic{place}: {}",
            plumb_core::echo(message).replace('\n', " ")
        );
    }));
}
