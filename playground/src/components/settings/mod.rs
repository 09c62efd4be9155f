//! Settings: the engine (this page, or a server), the provider, the model per node, the
//! answer mode, limits and prices. The key is kept in memory only, unless "remember in
//! this tab" is ticked (sessionStorage); a server's API key only in memory.

mod engine_choice;
mod fields;
mod limits;
mod prices;
mod provider;

use crate::state::Engines;
use engine_choice::EngineChoice;
use fields::TextField;
use leptos::prelude::*;
use limits::RunLimits;
use prices::Prices;
use provider::ProviderFields;

#[component]
pub fn SettingsPage() -> impl IntoView {
    let engines = expect_context::<Engines>();
    view! {
        <section class="settings">
            <EngineChoice />
            <h2>"Model provider"</h2>
            {move || engines.own_model.get().then(|| view! {
                <p class="notice" id="provider-unused">"Asks go to the server, which uses its own model and key; the settings below apply when the engine is this page."</p>
            })}
            <ProviderFields />
            <h2>"Model per node"</h2>
            <p class="muted">"Empty: the model above."</p>
            <TextField label="Answerability check " id="model-resolver" get=|c| c.models.resolver.clone() set=|c, v| c.models.resolver = v />
            <TextField label="Planner " id="model-planner" get=|c| c.models.planner.clone() set=|c, v| c.models.planner = v />
            <TextField label="Decomposer " id="model-decomposer" get=|c| c.models.decomposer.clone() set=|c, v| c.models.decomposer = v />
            <TextField label="Written answer " id="model-answer" get=|c| c.models.answer.clone() set=|c, v| c.models.answer = v />
            <h2>"Answers and limits"</h2>
            <RunLimits />
            <Prices />
        </section>
    }
}
