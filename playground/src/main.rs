//! The nl2sql playground: a client-side Leptos app that runs the engine in the page.

mod app;
mod browser;
mod catalog;
mod components;
mod guided;
mod run;
mod state;
mod store;

fn main() {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(app::App);
}
