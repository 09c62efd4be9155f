//! Feedback as the page keeps it: in this browser's IndexedDB (`js/feedback-store.js`),
//! never sent anywhere; exported and imported as a file.

use nl2sql_core::feedback::FeedbackBook;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

#[wasm_bindgen(module = "/js/feedback-store.js")]
extern "C" {
    #[wasm_bindgen(js_name = loadFeedback, catch)]
    fn load_feedback() -> Result<js_sys::Promise, JsValue>;
    #[wasm_bindgen(js_name = saveFeedback, catch)]
    fn save_feedback(text: &str) -> Result<js_sys::Promise, JsValue>;
}

fn said(e: JsValue) -> String {
    e.as_string()
        .or_else(|| {
            js_sys::Reflect::get(&e, &"message".into())
                .ok()?
                .as_string()
        })
        .unwrap_or_else(|| "IndexedDB is not available".to_string())
}

/// The stored book (an empty one when there is none); why not, when it cannot be read.
pub async fn load() -> Result<FeedbackBook, String> {
    let text = JsFuture::from(load_feedback().map_err(said)?)
        .await
        .map_err(said)?;
    match text.as_string() {
        Some(text) => FeedbackBook::from_json(&text).map_err(|e| e.to_string()),
        None => Ok(FeedbackBook::default()),
    }
}

/// Keeps `book`.
pub async fn save(book: &FeedbackBook) -> Result<(), String> {
    JsFuture::from(save_feedback(&book.to_json()).map_err(said)?)
        .await
        .map(|_| ())
        .map_err(said)
}
