//! The browser's HTTP transport: `fetch`, with an `AbortController` per transport so a run
//! can be cancelled at once, and `AbortSignal.timeout` for each request's time limit.

use js_sys::{Array, Function, Promise, Reflect, Uint8Array};
use nl2sql_core::adapter::LocalBoxFuture;
use nl2sql_core::adapter::{HttpFailure, HttpRequest, HttpResponse, HttpTransport, Utf8Chunks};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{AbortController, AbortSignal, DomException, Headers, RequestInit, Response};

/// Sends requests with the page's (or worker's) `fetch`. [`FetchTransport::cancel`] aborts
/// every request in flight and refuses new ones: make one transport per run.
pub struct FetchTransport {
    controller: Option<AbortController>,
}

impl Default for FetchTransport {
    fn default() -> Self {
        FetchTransport {
            controller: AbortController::new().ok(),
        }
    }
}

impl FetchTransport {
    /// Aborts what is in flight; later requests fail as cancelled without being sent.
    pub fn cancel(&self) {
        if let Some(c) = &self.controller {
            c.abort();
        }
    }

    /// A closure that cancels this transport, for a run's cancel token to hold.
    pub fn canceller(&self) -> impl Fn() + 'static {
        let controller = self.controller.clone();
        move || {
            if let Some(c) = &controller {
                c.abort();
            }
        }
    }

    fn is_cancelled(&self) -> bool {
        self.controller
            .as_ref()
            .is_some_and(|c| c.signal().aborted())
    }

    /// `GET request.url` with its headers (the body is not sent): a server's listings.
    pub async fn get(&self, request: &HttpRequest) -> Result<HttpResponse, HttpFailure> {
        self.send("GET", request, None).await
    }

    /// Sends `request`; with `on_chunk`, a successful body is handed over as it arrives.
    async fn send(
        &self,
        method: &str,
        request: &HttpRequest,
        on_chunk: Option<&mut dyn FnMut(&str)>,
    ) -> Result<HttpResponse, HttpFailure> {
        if self.is_cancelled() {
            return Err(HttpFailure::Cancelled);
        }
        let unreachable = |e: JsValue| HttpFailure::Unreachable(crate::js_message(e));
        let headers = Headers::new().map_err(unreachable)?;
        headers
            .set("content-type", "application/json")
            .map_err(unreachable)?;
        for (name, value) in &request.headers {
            headers.set(name, value).map_err(unreachable)?;
        }
        let timeout = AbortSignal::timeout_with_f64(request.timeout_ms as f64);
        let signals = Array::of1(&timeout);
        if let Some(c) = &self.controller {
            signals.push(&c.signal());
        }
        let init = RequestInit::new();
        init.set_method(method);
        init.set_headers(&headers);
        if method != "GET" {
            init.set_body(&JsValue::from_str(&request.body));
        }
        init.set_signal(Some(&AbortSignal::any(&signals)));
        let fetch: Function = Reflect::get(&js_sys::global(), &JsValue::from_str("fetch"))
            .and_then(|f| f.dyn_into())
            .map_err(|_| HttpFailure::Unreachable("this environment has no fetch".into()))?;
        let failure = |e: JsValue| self.failure(&timeout, e);
        let promise: Promise = fetch
            .call2(&JsValue::NULL, &JsValue::from_str(&request.url), &init)
            .and_then(|p| p.dyn_into())
            .map_err(failure)?;
        let response: Response = JsFuture::from(promise)
            .await
            .and_then(|r| r.dyn_into())
            .map_err(failure)?;
        let status = response.status();
        let headers = header_pairs(&response.headers());
        let streaming = on_chunk.filter(|_| (200..300).contains(&status));
        let body = match (streaming, response.body()) {
            (Some(on_chunk), Some(stream)) => {
                self.stream(&stream, on_chunk, &failure).await?;
                String::new()
            }
            _ => {
                let text = response.text().map_err(failure)?;
                let body = JsFuture::from(text).await.map_err(failure)?;
                body.as_string().unwrap_or_default()
            }
        };
        Ok(HttpResponse {
            status,
            headers,
            body,
        })
    }

    /// Reads a body stream piece by piece (`getReader().read()` until `done`).
    async fn stream(
        &self,
        stream: &web_sys::ReadableStream,
        on_chunk: &mut dyn FnMut(&str),
        failure: &dyn Fn(JsValue) -> HttpFailure,
    ) -> Result<(), HttpFailure> {
        let reader = stream.get_reader();
        let read: Function = Reflect::get(&reader, &JsValue::from_str("read"))
            .and_then(|f| f.dyn_into())
            .map_err(|_| HttpFailure::Unreachable("the body stream cannot be read".into()))?;
        let mut text = Utf8Chunks::default();
        loop {
            let promise: Promise = read
                .call0(&reader)
                .and_then(|p| p.dyn_into())
                .map_err(failure)?;
            let step = JsFuture::from(promise).await.map_err(failure)?;
            let done = Reflect::get(&step, &JsValue::from_str("done"))
                .map(|d| d.is_truthy())
                .unwrap_or(true);
            if done {
                break;
            }
            let value = Reflect::get(&step, &JsValue::from_str("value")).map_err(failure)?;
            let piece = text.push(&Uint8Array::new(&value).to_vec());
            if !piece.is_empty() {
                on_chunk(&piece);
            }
        }
        let rest = text.finish();
        if !rest.is_empty() {
            on_chunk(&rest);
        }
        Ok(())
    }

    /// A rejected fetch: our timeout, our cancel, or the network.
    fn failure(&self, timeout: &AbortSignal, e: JsValue) -> HttpFailure {
        if timeout.aborted() {
            HttpFailure::Timeout
        } else if self.is_cancelled() {
            HttpFailure::Cancelled
        } else if let Some(d) = e.dyn_ref::<DomException>() {
            HttpFailure::Unreachable(format!("{}: {}", d.name(), d.message()))
        } else {
            HttpFailure::Unreachable(crate::js_message(e))
        }
    }
}

fn header_pairs(headers: &Headers) -> Vec<(String, String)> {
    let Ok(Some(entries)) = js_sys::try_iter(headers) else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|pair| {
            let pair: Array = pair.dyn_into().ok()?;
            let name = pair.get(0).as_string()?.to_ascii_lowercase();
            Some((name, pair.get(1).as_string()?))
        })
        .collect()
}

impl HttpTransport for FetchTransport {
    fn post<'a>(
        &'a self,
        request: &'a HttpRequest,
    ) -> LocalBoxFuture<'a, Result<HttpResponse, HttpFailure>> {
        Box::pin(self.send("POST", request, None))
    }

    fn post_streaming<'a>(
        &'a self,
        request: &'a HttpRequest,
        on_chunk: &'a mut dyn FnMut(&str),
    ) -> LocalBoxFuture<'a, Result<HttpResponse, HttpFailure>> {
        Box::pin(self.send("POST", request, Some(on_chunk)))
    }
}
