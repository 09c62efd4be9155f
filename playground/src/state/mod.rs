//! The page's state, by area, each provided through context as `Copy` handles: the engine
//! and what it lists ([`Engines`]), the settings ([`Settings`]), the run and its
//! conversation ([`RunState`]) and the page shown ([`Nav`]). A page's own inputs live in
//! the page.

mod engines;
mod runs;
mod saved;
mod settings;

pub use engines::{Engines, Load};
pub use runs::{AskFailure, RunState};
pub use settings::Settings;

use leptos::prelude::*;

/// The pages of the app.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Page {
    Ask,
    Sql,
    Inspect,
    Datasources,
    Verified,
    Settings,
    Traces,
}

impl Page {
    pub const ALL: [Page; 7] = [
        Page::Ask,
        Page::Sql,
        Page::Inspect,
        Page::Datasources,
        Page::Verified,
        Page::Settings,
        Page::Traces,
    ];

    pub fn label(self) -> &'static str {
        match self {
            Page::Ask => "Ask",
            Page::Sql => "SQL",
            Page::Inspect => "Routing",
            Page::Datasources => "Datasources",
            Page::Verified => "Verified queries",
            Page::Settings => "Settings",
            Page::Traces => "Traces",
        }
    }

    pub fn slug(self) -> &'static str {
        match self {
            Page::Ask => "ask",
            Page::Sql => "sql",
            Page::Inspect => "inspect",
            Page::Datasources => "datasources",
            Page::Verified => "verified",
            Page::Settings => "settings",
            Page::Traces => "traces",
        }
    }
}

/// The page shown.
#[derive(Clone, Copy)]
pub struct Nav(pub RwSignal<Page>);

impl Nav {
    /// A link's click handler that shows `page` instead of following the link.
    pub fn go(self, page: Page) -> impl Fn(leptos::ev::MouseEvent) + Copy + 'static {
        move |ev| {
            ev.prevent_default();
            self.0.set(page);
        }
    }
}
