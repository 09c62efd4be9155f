//! A provider setting typed as text, and a run limit typed as a number; each saved when
//! it changes.

use crate::state::Settings;
use leptos::prelude::*;
use nl2sql_core::config::ProviderConfig;

/// A text setting of the provider, trimmed when it changes.
#[component]
pub fn TextField(
    label: &'static str,
    id: &'static str,
    get: fn(&ProviderConfig) -> String,
    set: fn(&mut ProviderConfig, String),
) -> impl IntoView {
    let settings = expect_context::<Settings>();
    let p = settings.provider;
    view! {
        <label>{label}
            <input type="text" id=id prop:value=move || p.with(get)
                on:change=move |ev| {
                    let v = event_target_value(&ev).trim().to_string();
                    p.update(|c| set(c, v));
                    settings.save();
                } />
        </label>
    }
}

/// A limit of one or more.
#[component]
pub fn NumberField(
    label: &'static str,
    id: &'static str,
    get: impl Fn() -> f64 + Send + Sync + 'static,
    set: impl Fn(f64) + 'static,
) -> impl IntoView {
    let settings = expect_context::<Settings>();
    view! {
        <label>{label}
            <input type="number" id=id min="1" prop:value=move || get().to_string()
                on:change=move |ev| {
                    if let Some(v) = event_target_value(&ev).trim().parse::<f64>().ok().filter(|v| v.is_finite() && *v >= 1.0) {
                        set(v);
                        settings.save();
                    }
                } />
        </label>
    }
}
