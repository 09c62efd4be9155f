//! The caller's role, for every page: what they may read decides what they are shown. An
//! engine whose role is set elsewhere (a server's key) shows that instead.

use crate::engine::Roles;
use crate::state::Engines;
use leptos::prelude::*;

#[component]
pub fn RolePicker() -> impl IntoView {
    let engines = expect_context::<Engines>();
    let role = engines.role;
    let set_by = move || match engines.roles.get() {
        Some(Roles::SetBy { why, .. }) => Some(why),
        _ => None,
    };
    let options = move || {
        match engines.roles.get() {
        Some(Roles::Pick(roles)) => roles
            .into_iter()
            .map(|(name, description)| {
                let selected = name == role.get_untracked();
                view! { <option value=name.clone() title=description selected=selected>{name.clone()}</option> }
            })
            .collect_view()
            .into_any(),
        Some(Roles::SetBy { shown, .. }) => view! { <option value="">{shown}</option> }.into_any(),
        None => ().into_any(),
    }
    };
    view! {
        <label class="role">
            "Role "
            <select
                id="role"
                disabled=move || set_by().is_some()
                title=move || set_by().unwrap_or_default()
                on:change=move |ev| role.set(event_target_value(&ev))
                prop:value=move || if set_by().is_some() { String::new() } else { role.get() }
            >
                {options}
            </select>
        </label>
    }
}
