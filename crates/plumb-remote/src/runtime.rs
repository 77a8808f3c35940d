//! The one process-wide tokio runtime every remote future runs on, and
//! the bridge a synchronous caller waits through (a channel, so a caller
//! on a runtime of its own never nests one).

use std::future::Future;
use std::sync::OnceLock;

/// The runtime remote reads run on: one for the process, two workers.
pub(crate) fn runtime() -> &'static tokio::runtime::Runtime {
    static RT: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RT.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("plumb-remote")
            .enable_all()
            .build()
            .expect("a tokio runtime starts")
    })
}

/// Runs `fut` on the remote runtime and waits for it; safe to call from
/// any thread, a caller's own runtime included.
pub(crate) fn run<T: Send + 'static>(fut: impl Future<Output = T> + Send + 'static) -> T {
    let (tx, rx) = std::sync::mpsc::sync_channel(1);
    runtime().spawn(async move {
        let _ = tx.send(fut.await);
    });
    rx.recv().expect("the remote task answers")
}
