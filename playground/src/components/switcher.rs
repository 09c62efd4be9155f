use crate::app::Catalog;
use leptos::prelude::*;

/// One button per datasource with its table and row counts; the pressed one is shown.
#[component]
pub fn DatasourceSwitcher(
    catalog: ReadSignal<Catalog>,
    selected: ReadSignal<String>,
    on_select: WriteSignal<String>,
) -> impl IntoView {
    view! {
        <nav class="switcher" aria-label="Datasources">
            <h2>"Datasources"</h2>
            {move || {
                catalog
                    .get()
                    .map(|all| {
                        all.iter()
                            .map(|d| {
                                let id = d.demo.id;
                                let summary = match &d.schema {
                                    Ok(s) => format!("{} tables · {} rows", s.tables.len(), d.total_rows()),
                                    Err(_) => "not loaded".to_string(),
                                };
                                view! {
                                    <button
                                        class="datasource"
                                        data-id=id
                                        aria-pressed=move || (selected.get() == id).to_string()
                                        on:click=move |_| on_select.set(id.to_string())
                                    >
                                        <span class="name">{id}</span>
                                        <span class="summary">{summary}</span>
                                    </button>
                                }
                            })
                            .collect_view()
                    })
            }}
        </nav>
    }
}
