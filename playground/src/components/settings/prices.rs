//! The price table costs are counted with, as JSON the person may edit.

use crate::state::Settings;
use leptos::prelude::*;
use nl2sql_core::config::PriceTable;

#[component]
pub fn Prices() -> impl IntoView {
    let settings = expect_context::<Settings>();
    let r = settings.run;
    let shown = r
        .get_untracked()
        .prices
        .unwrap_or_else(PriceTable::published);
    let (text, set_text) = signal(serde_json::to_string_pretty(&shown).unwrap_or_default());
    let (error, set_error) = signal(None::<String>);
    view! {
        <h2 id="prices-title">"Prices"</h2>
        <p class="muted" id="prices-help">"USD per million tokens, per model: [[model, {input, cached_input, cache_write, output}], …]. Costs of models not listed show as not priced."</p>
        <textarea id="prices" rows="8" spellcheck="false" aria-labelledby="prices-title" aria-describedby="prices-help" prop:value=text
            on:change=move |ev| {
                let typed = event_target_value(&ev);
                set_text.set(typed.clone());
                match serde_json::from_str::<PriceTable>(&typed) {
                    Ok(t) => {
                        r.update(|c| c.prices = Some(t));
                        set_error.set(None);
                        settings.save();
                    }
                    Err(e) => set_error.set(Some(format!("The prices do not read: {e}"))),
                }
            }></textarea>
        {move || error.get().map(|e| view! { <p class="error">{e}</p> })}
    }
}
