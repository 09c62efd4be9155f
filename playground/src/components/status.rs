use crate::app::Catalog;
use leptos::prelude::*;

/// Says that the databases are loading, then lists any that failed, in plain words.
#[component]
pub fn LoadStatus(catalog: ReadSignal<Catalog>) -> impl IntoView {
    move || match catalog.get() {
        None => view! {
            <p class="status" role="status">"Loading the demo databases…"</p>
        }
        .into_any(),
        Some(all) => {
            let failures: Vec<(String, String)> = all
                .iter()
                .filter_map(|d| {
                    d.schema
                        .as_ref()
                        .err()
                        .map(|e| (d.demo.id.to_string(), e.clone()))
                })
                .collect();
            if failures.is_empty() {
                ().into_any()
            } else {
                view! {
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
                .into_any()
            }
        }
    }
}
