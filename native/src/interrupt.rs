//! Stopping a query from outside it: at its time limit, or when its run is cancelled from
//! another thread (a server's client went away). SQLite checks both in its progress handler;
//! DuckDB and PostgreSQL are stopped from a watching thread ([`Watch`]).

use nl2sql_core::adapter::{DatasourceError, DatasourceErrorKind};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Where a database opened for a server's engine thread looks for the flag of the run it
/// is serving: the thread points it at each run's own cancel flag in turn
/// ([`Interrupt::watch`]), and a query stops when that flag is set. Clones share it.
#[derive(Debug, Clone, Default)]
pub struct Interrupt(Arc<Mutex<Option<Arc<AtomicBool>>>>);

impl Interrupt {
    /// An interrupt that watches no run yet.
    pub fn new() -> Interrupt {
        Interrupt::default()
    }

    /// From now on, queries stop when `flag` is set.
    pub fn watch(&self, flag: Arc<AtomicBool>) {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner) = Some(flag);
    }

    /// Watches no run any more.
    pub fn clear(&self) {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner) = None;
    }

    /// True while the watched run's flag is set.
    pub fn is_set(&self) -> bool {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .as_ref()
            .is_some_and(|f| f.load(Ordering::SeqCst))
    }
}

/// Why a watched query was stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stop {
    /// It reached its time limit.
    Deadline,
    /// Its run was cancelled.
    Interrupted,
}

impl Stop {
    /// The failure a stopped query reports, in the words every adapter uses.
    pub(crate) fn error(self, limit_ms: Option<u64>) -> DatasourceError {
        match self {
            Stop::Deadline => DatasourceError::new(
                DatasourceErrorKind::TimedOut,
                format!(
                    "it ran past its time limit of {} ms",
                    limit_ms.unwrap_or_default()
                ),
            ),
            Stop::Interrupted => DatasourceError::new(
                DatasourceErrorKind::Cancelled,
                "the query was stopped: its run was cancelled",
            ),
        }
    }
}

/// How often a watching thread looks at an interrupt: a cancelled query stops within this.
const POLL: Duration = Duration::from_millis(10);

/// Watches one query from its own thread and calls `stop` once, at the deadline or when the
/// interrupt is set, unless the query ended first.
pub(crate) struct Watch {
    done: mpsc::Sender<()>,
    fired: Arc<Mutex<Option<Stop>>>,
    thread: JoinHandle<()>,
}

impl Watch {
    /// Starts watching; `None` (no thread) when there is neither a limit nor an interrupt.
    pub(crate) fn start(
        limit_ms: Option<u64>,
        interrupt: Option<&Interrupt>,
        stop: impl FnOnce() + Send + 'static,
    ) -> Option<Watch> {
        if limit_ms.is_none() && interrupt.is_none() {
            return None;
        }
        let deadline = limit_ms.map(|ms| Instant::now() + Duration::from_millis(ms));
        let interrupt = interrupt.cloned();
        let (done, wait) = mpsc::channel::<()>();
        let fired = Arc::new(Mutex::new(None));
        let record = Arc::clone(&fired);
        let thread = std::thread::spawn(move || loop {
            let left = deadline.map(|d| d.saturating_duration_since(Instant::now()));
            let nap = match (&interrupt, left) {
                (Some(_), Some(left)) => left.min(POLL),
                (Some(_), None) => POLL,
                (None, Some(left)) => left,
                (None, None) => return,
            };
            match wait.recv_timeout(nap) {
                Err(RecvTimeoutError::Timeout) => {}
                Ok(()) | Err(RecvTimeoutError::Disconnected) => return,
            }
            let why = if interrupt.as_ref().is_some_and(Interrupt::is_set) {
                Some(Stop::Interrupted)
            } else if deadline.is_some_and(|d| Instant::now() >= d) {
                Some(Stop::Deadline)
            } else {
                None
            };
            if let Some(why) = why {
                *record.lock().unwrap_or_else(PoisonError::into_inner) = Some(why);
                stop();
                return;
            }
        });
        Some(Watch {
            done,
            fired,
            thread,
        })
    }

    /// Why the query was stopped, if the watch has fired yet.
    #[cfg(feature = "spark")]
    pub(crate) fn fired(&self) -> Option<Stop> {
        *self.fired.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Stops watching; why the query was stopped, if it was.
    pub(crate) fn finish(self) -> Option<Stop> {
        // A send fails only when the thread already ended, having fired.
        let _ = self.done.send(());
        let _ = self.thread.join();
        *self.fired.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Stops watching without waiting for a stop still on its way: for a stop that is a
    /// request to a server which may answer it late, and that cannot reach a later query.
    #[cfg(feature = "spark")]
    pub(crate) fn release(self) -> Option<Stop> {
        let _ = self.done.send(());
        self.fired()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_watch_stops_at_the_deadline_or_at_the_interrupt_and_not_after_the_end() {
        let stopped = Arc::new(AtomicBool::new(false));
        let seen = Arc::clone(&stopped);
        let watch = Watch::start(Some(20), None, move || seen.store(true, Ordering::SeqCst));
        std::thread::sleep(Duration::from_millis(60));
        assert_eq!(watch.and_then(Watch::finish), Some(Stop::Deadline));
        assert!(stopped.load(Ordering::SeqCst));

        let flag = Arc::new(AtomicBool::new(true));
        let interrupt = Interrupt::new();
        assert!(!interrupt.is_set(), "no run watched yet");
        interrupt.watch(Arc::clone(&flag));
        let watch = Watch::start(None, Some(&interrupt), || {});
        std::thread::sleep(Duration::from_millis(40));
        assert_eq!(watch.and_then(Watch::finish), Some(Stop::Interrupted));

        let quiet = Watch::start(Some(10_000), Some(&Interrupt::default()), || {});
        assert_eq!(quiet.and_then(Watch::finish), None);
        assert!(Watch::start(None, None, || {}).is_none());
    }
}
