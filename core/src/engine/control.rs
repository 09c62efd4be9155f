//! Controlling a run from outside: a cancel token, the run's deadline, and the live events
//! a UI follows.

use crate::error::Node;
use std::cell::{Cell, RefCell};
use std::fmt;
use std::rc::Rc;

/// Cancels one run. Clones share the flag. Hooks let the transport abort what is in flight
/// at once (`FetchTransport::cancel` in the browser); the engine also checks the flag at
/// every node boundary.
#[derive(Clone, Default)]
pub struct CancelToken(Rc<CancelState>);

#[derive(Default)]
struct CancelState {
    cancelled: Cell<bool>,
    hooks: RefCell<Vec<Box<dyn Fn()>>>,
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
        let hooks = std::mem::take(&mut *self.0.hooks.borrow_mut());
        for hook in hooks {
            hook();
        }
    }

    /// True once cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.0.cancelled.get()
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

/// What a run reports as it goes.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
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
        /// `ok` or `error`.
        status: String,
        /// How long it took.
        duration_ms: u64,
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
