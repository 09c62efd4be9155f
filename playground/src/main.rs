//! The nl2sql playground: a client-side Leptos app that runs the engine in the page.

mod app;
mod catalog;
mod components;

fn main() {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(app::App);
}
