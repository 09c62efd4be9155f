//! The nl2sql playground: a client-side Leptos app that runs the engine in the page.

mod app;
mod browser;
mod catalog;
mod components;
mod engine;
mod guided;
mod run;
mod state;
mod store;

fn main() {
    console_error_panic_hook::set_once();
    // When the page's wasm began to run: the download and compile of the engine before it.
    browser::mark("wasm-ms", catalog::now_ms());
    // index.html paints a line while the wasm downloads; the app takes its place.
    if let Some(boot) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id("boot"))
    {
        boot.remove();
    }
    leptos::mount::mount_to_body(app::App);
}
