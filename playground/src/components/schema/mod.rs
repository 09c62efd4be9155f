//! The schema of one datasource (chosen here): tables, columns, types, keys and sample
//! values; tables the current plan uses are marked, tables the role may not read are
//! shown as hidden.

mod column;
mod source;
mod table;

use crate::state::Engines;
use leptos::prelude::*;
use source::SchemaOf;

#[component]
pub fn SchemaPanel() -> impl IntoView {
    let engines = expect_context::<Engines>();
    let shown = Memo::new(move |_| {
        let id = engines.schema_of.get();
        engines
            .sources
            .with(|all| all.iter().find(|s| s.id == id).or(all.first()).cloned())
    });
    let is_shown = move |id: &str| shown.with(|s| s.as_ref().is_some_and(|s| s.id == id));
    view! {
        <section class="schema-panel" aria-label="Schema">
            <h2>"Schema"</h2>
            <div class="switcher" role="group" aria-label="Datasources">
                {move || engines.sources.get().into_iter().map(|s| {
                    let id = s.id.clone();
                    let pressed = id.clone();
                    let summary = format!(
                        "{} tables · {} rows",
                        s.schema.tables.len(),
                        s.schema.tables.iter().map(|t| t.row_count).sum::<u64>()
                    );
                    view! {
                        <button type="button" class="datasource" data-id=s.id.clone()
                            aria-pressed=move || is_shown(&pressed).to_string()
                            on:click=move |_| engines.schema_of.set(id.clone())>
                            <span class="name">{s.id.clone()}</span>
                            <span class="summary">{summary}</span>
                        </button>
                    }
                }).collect_view()}
            </div>
            {move || shown.get().map(|d| view! { <SchemaOf source=d /> })}
        </section>
    }
}
