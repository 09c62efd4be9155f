//! The follow-up box under the latest answer, and a way to start over.

use crate::state::RunState;
use leptos::prelude::*;
use nl2sql_core::result::Status;

#[component]
pub fn FollowUp(ask: Callback<(String, bool)>) -> impl IntoView {
    let run = expect_context::<RunState>();
    let (text, set_text) = signal(String::new());
    let send = move || {
        let q = text.get_untracked();
        if !q.trim().is_empty() {
            ask.run((q, true));
            set_text.set(String::new());
        }
    };
    // Open under any finished answer of a thread (a failed follow-up too: the thread is
    // kept, and the next one continues it); a question asked back has its buttons.
    let open = Memo::new(move |_| {
        !run.running.get()
            && run
                .result
                .get()
                .is_some_and(|r| r.status != Status::NeedsClarification)
            && run.thread.with(|t| !t.turns.is_empty())
    });
    move || {
        open.get().then(|| {
            view! {
                <form class="follow-up-box" on:submit=move |ev| { ev.prevent_default(); send(); }>
                    <label for="follow-up" class="visually-hidden">"A follow-up question"</label>
                    <input id="follow-up" type="text" placeholder="Follow up: “and only for 2012?”, “now by month”…"
                        prop:value=text
                        on:input=move |ev| set_text.set(event_target_value(&ev)) />
                    <button type="submit" class="primary" id="ask-follow-up">"Ask follow-up"</button>
                    <button type="button" id="new-thread" on:click=move |_| run.new_thread()>"New thread"</button>
                    <span class="hint">{move || format!("{} turns in this thread", run.thread.with(|t| t.turns.len()))}</span>
                </form>
            }
        })
    }
}
