//! A circuit breaker around embedding calls: after `fail_max` failures in a row it opens and
//! refuses calls at once, until `reset_ms` have passed on the injected clock; then one trial
//! call decides whether it closes again.

use super::embed::{Embedder, Vector};
use crate::datasource::LocalBoxFuture;
use crate::error::Error;
use std::cell::Cell;
use std::rc::Rc;

/// Milliseconds from some fixed start: the page's clock, the system's, or a test's.
pub trait Clock {
    /// Now.
    fn now_ms(&self) -> u64;
}

/// The breaker's state.
#[derive(Debug)]
pub struct CircuitBreaker {
    fail_max: u32,
    reset_ms: u64,
    failures: Cell<u32>,
    opened_at: Cell<Option<u64>>,
    /// After the rest, one trial call is let through; until its outcome is recorded the
    /// breaker stays open for everyone else.
    trial: Cell<bool>,
}

impl CircuitBreaker {
    /// `VECTOR_BREAKER`: opens after 5 failures, tries again after 30 s.
    pub fn vector() -> CircuitBreaker {
        CircuitBreaker::new(5, 30_000)
    }

    /// A breaker with these limits.
    pub fn new(fail_max: u32, reset_ms: u64) -> CircuitBreaker {
        CircuitBreaker {
            fail_max,
            reset_ms,
            failures: Cell::new(0),
            opened_at: Cell::new(None),
            trial: Cell::new(false),
        }
    }

    /// May a call go ahead now? After the rest, the first caller gets the one trial call.
    pub fn allows(&self, now_ms: u64) -> bool {
        match self.opened_at.get() {
            None => true,
            Some(_) if self.trial.get() => false,
            Some(at) if now_ms.saturating_sub(at) >= self.reset_ms => {
                self.trial.set(true);
                true
            }
            Some(_) => false,
        }
    }

    /// Records a call's outcome.
    pub fn record(&self, ok: bool, now_ms: u64) {
        let was_trial = self.trial.replace(false);
        if ok {
            self.failures.set(0);
            self.opened_at.set(None);
            return;
        }
        let failures = self.failures.get().saturating_add(1);
        self.failures.set(failures);
        if failures >= self.fail_max || was_trial {
            self.opened_at.set(Some(now_ms));
        }
    }

    /// True while calls are refused (a pure look: it takes no trial).
    pub fn is_open(&self, now_ms: u64) -> bool {
        match self.opened_at.get() {
            None => false,
            Some(at) => self.trial.get() || now_ms.saturating_sub(at) < self.reset_ms,
        }
    }
}

/// An embedder behind a circuit breaker.
pub struct GuardedEmbedder {
    inner: Rc<dyn Embedder>,
    breaker: CircuitBreaker,
    clock: Rc<dyn Clock>,
}

impl GuardedEmbedder {
    /// Guards `inner` with `breaker`, timed by `clock`.
    pub fn new(inner: Rc<dyn Embedder>, breaker: CircuitBreaker, clock: Rc<dyn Clock>) -> Self {
        GuardedEmbedder {
            inner,
            breaker,
            clock,
        }
    }
}

impl Embedder for GuardedEmbedder {
    fn id(&self) -> String {
        self.inner.id()
    }

    fn dense_from(&self) -> Option<usize> {
        self.inner.dense_from()
    }

    fn embed<'b>(&'b self, texts: &'b [String]) -> LocalBoxFuture<'b, Result<Vec<Vector>, Error>> {
        Box::pin(async move {
            if !self.breaker.allows(self.clock.now_ms()) {
                return Err(crate::index::unsearchable(
                    "the embedding service failed repeatedly; it is given a rest \
                              before the next try"
                        .to_string(),
                ));
            }
            let result = self.inner.embed(texts).await;
            self.breaker.record(result.is_ok(), self.clock.now_ms());
            result
        })
    }
}
