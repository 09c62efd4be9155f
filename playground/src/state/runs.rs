//! The run the page shows and the conversation around it: asking (on whichever engine is
//! in use), its events folded in as they come, Cancel, and the thread's earlier turns.

use crate::browser::mark;
use crate::catalog::now_ms;
use crate::engine::{Asking, Failure, PageEngine};
use crate::run::RunView;
use leptos::prelude::*;
use leptos::task::spawn_local;
use nl2sql_core::result::{Event, QueryResult, Thread};
use std::rc::Rc;
use std::sync::Arc;

/// Why a question got no answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AskFailure {
    /// It could not start: the page's settings cannot run a question.
    NotStarted(Failure),
    /// The engine stopped it (a server's refusal).
    Stopped(Failure),
}

#[derive(Clone, Copy)]
pub struct RunState {
    pub view: RwSignal<RunView>,
    /// The conversation the next follow-up continues (the last result's thread).
    pub thread: RwSignal<Thread>,
    /// The thread's earlier turns, oldest first, shown above the latest answer.
    pub turns: RwSignal<Vec<Arc<QueryResult>>>,
    /// Stops the run this page started, not every run of the engine.
    cancel: StoredValue<Option<Rc<dyn Fn()>>, LocalStorage>,
    pub running: Memo<bool>,
    /// The finished run's result (or an opened trace's), the same `Arc` until it changes.
    pub result: Memo<Option<Arc<QueryResult>>>,
}

impl RunState {
    pub fn new() -> RunState {
        let view = RwSignal::new(RunView::default());
        RunState {
            view,
            thread: RwSignal::new(Thread::default()),
            turns: RwSignal::new(Vec::new()),
            cancel: StoredValue::new_local(None),
            running: Memo::new(move |_| view.with(|r| r.running)),
            result: Memo::new_with_compare(move |_| view.with(|r| r.result.clone()), other),
        }
    }

    /// Asks on `engine`: continuing the conversation when `follow` (keeping `keep` earlier
    /// turns), or starting a new one. Why it got no answer goes to `failed`.
    pub fn ask(
        self,
        engine: Rc<dyn PageEngine>,
        mut asking: Asking,
        (follow, keep): (bool, usize),
        failed: WriteSignal<Option<AskFailure>>,
    ) {
        asking.question = asking.question.trim().to_string();
        if asking.question.is_empty() || self.view.with_untracked(|r| r.running) {
            return;
        }
        failed.set(None);
        asking.thread = follow.then(|| self.thread.get_untracked());
        self.stack(follow, keep);
        let question = asking.question.clone();
        let view = self.view;
        let on_event = Rc::new(move |event: &Event| {
            let now = now_ms();
            view.update(|r| {
                if r.first_update_ms.is_none() {
                    mark("first-update-ms", now);
                }
                r.apply(event, now);
            });
        });
        let running = match engine.ask(asking, on_event) {
            Ok(running) => running,
            Err(f) => return failed.set(Some(AskFailure::NotStarted(f))),
        };
        self.cancel.set_value(Some(running.cancel));
        let asked = now_ms();
        mark("ask-ms", asked);
        view.set(RunView::start(&question, asked));
        spawn_local(async move {
            match running.done.await {
                Ok(result) => self.finished(result),
                Err(f) => {
                    view.update(|r| r.running = false);
                    failed.set(Some(AskFailure::Stopped(f)));
                }
            }
            mark("done-ms", now_ms());
        });
    }

    /// Stops the run this page started.
    pub fn cancel(&self) {
        if let Some(cancel) = self.cancel.get_value() {
            cancel();
        }
    }

    /// Starts over: no thread, no turns, no run.
    pub fn new_thread(&self) {
        self.thread.set(Thread::default());
        self.turns.set(Vec::new());
        self.view.set(RunView::default());
    }

    /// The latest answer moves up into the thread's earlier turns (as many as the thread
    /// keeps); a new conversation clears them.
    fn stack(&self, follow: bool, keep: usize) {
        let latest = self.view.with_untracked(|r| r.result.clone());
        self.turns.update(|turns| match (follow, latest) {
            (true, Some(latest)) => {
                turns.push(latest);
                let extra = turns.len().saturating_sub(keep);
                turns.drain(..extra);
            }
            (true, None) => {}
            (false, _) => turns.clear(),
        });
    }

    /// A run ended: its result is shown, its thread is the one the next follow-up
    /// continues, and a question that started fresh leaves no earlier turns above it.
    fn finished(&self, result: QueryResult) {
        if result.follow_up.as_ref().is_some_and(|f| !f.continued) {
            self.turns.set(Vec::new());
        }
        self.thread.set(result.thread.clone());
        self.view.update(|r| r.finish(result));
    }
}

/// Results compare by identity: comparing their rows would cost more than showing them.
fn other(old: Option<&Option<Arc<QueryResult>>>, new: Option<&Option<Arc<QueryResult>>>) -> bool {
    match (old, new) {
        (Some(Some(a)), Some(Some(b))) => !Arc::ptr_eq(a, b),
        (Some(None), Some(None)) => false,
        _ => true,
    }
}
