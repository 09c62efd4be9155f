//! Controlling a run from outside: a cancel token, the run's deadline, and the live events
//! a UI follows.

use crate::error::Node;
use std::cell::{Cell, RefCell};
use std::fmt;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Cancels one run. Clones share the flag. Hooks let the transport abort what is in flight
/// at once (`FetchTransport::cancel` in the browser); the engine also checks the flag at
/// every node boundary. A token may also be tied to a flag another thread sets (a server's
/// request whose client went away): the run sees it at the next check, and a native
/// transport or database reads the same flag while it waits.
#[derive(Clone, Default)]
pub struct CancelToken(Rc<CancelState>);

#[derive(Default)]
struct CancelState {
    cancelled: Cell<bool>,
    hooks: RefCell<Vec<Box<dyn Fn()>>>,
    tied: RefCell<Option<Arc<AtomicBool>>>,
}

impl CancelToken {
    /// A token not yet cancelled.
    pub fn new() -> CancelToken {
        CancelToken::default()
    }

    /// Cancels: sets the flag, then runs every hook once.
    pub fn cancel(&self) {
        if self.0.cancelled.replace(true) {
            return;
        }
        if let Some(flag) = self.0.tied.borrow().as_ref() {
            flag.store(true, Ordering::SeqCst);
        }
        let hooks = std::mem::take(&mut *self.0.hooks.borrow_mut());
        for hook in hooks {
            hook();
        }
    }

    /// True once cancelled (here, or through the flag it is tied to: then the hooks run).
    pub fn is_cancelled(&self) -> bool {
        if self.0.cancelled.get() {
            return true;
        }
        let tied = self
            .0
            .tied
            .borrow()
            .as_ref()
            .is_some_and(|f| f.load(Ordering::SeqCst));
        if tied {
            self.cancel();
        }
        tied
    }

    /// Ties this token to `flag`, which something outside the run sets to cancel it; a
    /// cancel here sets the flag too.
    pub fn tie(&self, flag: Arc<AtomicBool>) {
        *self.0.tied.borrow_mut() = Some(flag);
    }

    /// The flag this token is tied to, if any, for a transport or a database that waits
    /// outside the engine's checks.
    pub fn tied_flag(&self) -> Option<Arc<AtomicBool>> {
        self.0.tied.borrow().clone()
    }

    /// True while another clone of this token exists (a holder that could still run).
    pub fn is_shared(&self) -> bool {
        Rc::strong_count(&self.0) > 1
    }

    /// Runs `hook` on cancel (at once, if already cancelled).
    pub fn on_cancel(&self, hook: impl Fn() + 'static) {
        if self.is_cancelled() {
            hook();
        } else {
            self.0.hooks.borrow_mut().push(Box::new(hook));
        }
    }
}

impl fmt::Debug for CancelToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "CancelToken({})", self.is_cancelled())
    }
}

impl PartialEq for CancelToken {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for CancelToken {}

/// Waits. The engine waits only before calling a provider again after it said it is
/// rate-limited or unavailable; the browser waits with `setTimeout`, natively a thread
/// sleeps, and without one the engine does not wait (nor retry).
pub trait Sleep {
    /// Resolves after `ms` milliseconds.
    fn sleep(&self, ms: u64) -> crate::datasource::LocalBoxFuture<'_, ()>;
}

/// How long to wait before try `attempt` (from 1) after a rate limit or an outage: what the
/// provider asked for, else 1 s doubling to at most 10 s; plus up to 0.5 s of jitter drawn
/// from `seed`, so runs that failed together do not retry together (and a run's waits are
/// reproducible).
pub fn backoff_ms(attempt: u32, retry_after_ms: Option<u64>, seed: u64) -> u64 {
    let base = retry_after_ms.unwrap_or_else(|| {
        1_000u64
            .saturating_mul(1 << attempt.saturating_sub(1).min(10))
            .min(10_000)
    });
    let mut x = seed ^ u64::from(attempt).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    base + x % 500
}

/// What a run reports as it goes.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "EngineEvent"))]
#[cfg_attr(
    feature = "schema",
    derive(schemars::JsonSchema),
    schemars(rename = "EngineEvent")
)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    /// A node began.
    NodeStarted {
        /// Which.
        node: Node,
        /// Its try.
        attempt: u32,
    },
    /// A node ended.
    NodeFinished {
        /// Which.
        node: Node,
        /// Its try.
        attempt: u32,
        /// How it ended.
        status: super::NodeStatus,
        /// How long it took.
        duration_ms: u64,
    },
    /// Routing chose where the question goes (before any model is asked): the candidates,
    /// best first, and the ranking behind them (none when the caller named a datasource or
    /// there is only one).
    Routed {
        /// The datasources kept, best first.
        candidates: Vec<String>,
        /// The ranking with its signals.
        routing: Option<crate::index::Routing>,
    },
    /// A model call ended.
    LlmCall {
        /// The node that made it.
        node: Node,
        /// The model.
        model: String,
        /// How long it took.
        latency_ms: u64,
    },
    /// The rows are ready (before the answer is written).
    Rows {
        /// The sub-query.
        sub_query_id: String,
        /// The SQL that produced them.
        sql: Option<String>,
        /// Result columns.
        columns: Vec<String>,
        /// The first rows (at most 50).
        preview: Vec<Vec<crate::value::Value>>,
        /// How many rows in all.
        row_count: usize,
    },
    /// More of the written answer.
    AnswerDelta {
        /// The new text.
        text: String,
    },
}

/// Receives a run's events.
#[derive(Clone)]
pub struct Events(pub Rc<dyn Fn(&Event)>);

impl fmt::Debug for Events {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Events")
    }
}

impl PartialEq for Events {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for Events {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_to_a_cap_honours_retry_after_and_jitters_reproducibly() {
        let base = |attempt| backoff_ms(attempt, None, 7) / 1_000 * 1_000;
        assert_eq!(
            [base(1), base(2), base(3), base(5)],
            [1_000, 2_000, 4_000, 10_000]
        );
        assert!((3_000..3_500).contains(&backoff_ms(1, Some(3_000), 7)));
        assert_eq!(backoff_ms(2, None, 42), backoff_ms(2, None, 42));
        assert_ne!(
            backoff_ms(2, None, 42) % 1_000,
            backoff_ms(2, None, 43) % 1_000
        );
    }

    #[test]
    fn a_tied_flag_cancels_the_token_and_runs_its_hooks_once() {
        let token = CancelToken::new();
        let flag = Arc::new(AtomicBool::new(false));
        token.tie(Arc::clone(&flag));
        let hooked = Rc::new(Cell::new(0));
        let count = Rc::clone(&hooked);
        token.on_cancel(move || count.set(count.get() + 1));
        assert!(!token.is_cancelled());
        flag.store(true, Ordering::SeqCst);
        assert!(token.is_cancelled() && token.is_cancelled());
        assert_eq!(hooked.get(), 1);

        let other = CancelToken::new();
        let set = Arc::new(AtomicBool::new(false));
        other.tie(Arc::clone(&set));
        other.cancel();
        assert!(
            set.load(Ordering::SeqCst),
            "a cancel here reaches the tied flag"
        );
    }
}
