//! Waiting in the page: `setTimeout`, for the engine's backoff after a rate limit.

use nl2sql_core::adapter::LocalBoxFuture;
use nl2sql_core::adapter::Sleep;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

/// Waits with the global `setTimeout` (page or worker).
pub struct TimeoutSleep;

impl Sleep for TimeoutSleep {
    fn sleep(&self, ms: u64) -> LocalBoxFuture<'_, ()> {
        Box::pin(async move {
            let promise = js_sys::Promise::new(&mut |resolve, _| {
                let set_timeout =
                    js_sys::Reflect::get(&js_sys::global(), &JsValue::from_str("setTimeout"))
                        .ok()
                        .and_then(|f| f.dyn_into::<js_sys::Function>().ok());
                // Without setTimeout there is nothing to wait with: go on at once.
                let scheduled = set_timeout.is_some_and(|f| {
                    f.call2(&JsValue::NULL, &resolve, &JsValue::from(ms as f64))
                        .is_ok()
                });
                if !scheduled {
                    let _ = resolve.call0(&JsValue::NULL);
                }
            });
            let _ = JsFuture::from(promise).await;
        })
    }
}
