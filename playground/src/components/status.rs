//! Says that the databases are loading, then lists any that failed, in plain words.

use crate::state::{Engines, Load};
use leptos::prelude::*;

#[component]
pub fn LoadStatus() -> impl IntoView {
    let engines = expect_context::<Engines>();
    move || match engines.load.get() {
        Load::Loading => view! {
            <p class="status" role="status">"Loading the demo databases…"</p>
        }
        .into_any(),
        Load::Failed(e) => view! {
            <div class="load-errors" role="alert">
                <h2>"The databases could not be loaded"</h2>
                <p>{e}</p>
            </div>
        }
        .into_any(),
        Load::Ready { failures } if failures.is_empty() => ().into_any(),
        Load::Ready { failures } => view! {
            <div class="load-errors" role="alert">
                <h2>"Some databases could not be loaded"</h2>
                <ul>
                    {failures
                        .into_iter()
                        .map(|(id, message)| view! { <li><strong>{id}</strong>": "{message}</li> })
                        .collect_view()}
                </ul>
            </div>
        }
        .into_any(),
    }
}
