//! The npm package's JavaScript API: the `Engine` class over a [`Session`].
//!
//! Results cross into JavaScript as their published JSON (the same shape `nl2sql ask
//! --json` prints and trace files hold), typed by the declarations generated into
//! `results.d.ts`; options are typed by `api.d.ts`. Every
//! method that can fail rejects with an `Error` carrying a stable `code`; `ask` itself
//! never rejects for anything that happens during the run (those are in the result).

use crate::session::{add_file, open_session, DatabaseFile, Session};
use crate::SqlJs;
use js_sys::{Array, Function, Promise, Reflect, Uint8Array, JSON};
use nl2sql_core::config::{ProviderConfig, RunConfig};
use nl2sql_core::curated::Curated;
use nl2sql_core::engine::{Event, Events, TraceForm};
use nl2sql_core::error::ErrorCode;
use nl2sql_core::policy::Policies;
use nl2sql_core::service::{Question, ServiceError};
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::future_to_promise;
use web_sys::AbortSignal;

// What the engine emits, generated from the Rust types (`cargo xtask typescript`).
#[wasm_bindgen(typescript_custom_section)]
const RESULTS: &str = include_str!("results.d.ts");

// What the package takes: options and inputs, written here (they are read leniently,
// absent fields defaulting, which generated declarations would not show).
#[wasm_bindgen(typescript_custom_section)]
const OPTIONS: &str = include_str!("api.d.ts");

// Option arguments typed by the declarations, so TypeScript sees them as optional.
#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(typescript_type = "AskOptions")]
    pub type AskOptionsArg;
    #[wasm_bindgen(typescript_type = "RouteOptions")]
    pub type RouteOptionsArg;
    #[wasm_bindgen(typescript_type = "SqlOptions")]
    pub type SqlOptionsArg;
}

/// The engine over a set of SQLite databases, asking a model provider from the page.
#[wasm_bindgen(js_name = Engine)]
pub struct JsEngine {
    session: Rc<Session>,
}

#[wasm_bindgen(js_class = Engine)]
impl JsEngine {
    /// Opens the databases, reads and indexes them. Rejects with `code` set when a
    /// database cannot be opened or the options do not read.
    #[wasm_bindgen(unchecked_return_type = "Promise<Engine>")]
    pub fn create(
        #[wasm_bindgen(unchecked_param_type = "EngineOptions")] options: JsValue,
    ) -> Promise {
        future_to_promise(async move {
            renamed_options(&options)?;
            let sqljs = start_sqljs(&options).await?;
            let files = database_files(&field(&options, "datasources"))?;
            let policies = match from_js::<Policies>(&field(&options, "policies"))? {
                Some(p) => {
                    p.validate()
                        .map_err(|e| fail(ErrorCode::ConfigInvalid, &format!("policies: {e}")))?;
                    p
                }
                None => Policies::read_all(),
            };
            let curated = from_js::<Curated>(&field(&options, "verified_queries"))?;
            let provider = from_js::<ProviderConfig>(&field(&options, "provider"))?;
            let run = from_js::<RunConfig>(&field(&options, "settings"))?;
            let session = open_session(
                sqljs,
                files,
                policies,
                curated.unwrap_or_default(),
                provider.unwrap_or_default(),
                run.unwrap_or_default(),
            )
            .await
            .map_err(|e| error(e.code(), &e.to_string()))?;
            Ok(JsEngine {
                session: Rc::new(session),
            }
            .into())
        })
    }

    /// Asks `question`. Resolves with the whole result; `on_event` hears the run as it goes.
    /// Rejects only when the provider settings cannot be used (`CONFIG_INVALID`).
    #[wasm_bindgen(unchecked_return_type = "Promise<QueryResult>")]
    pub fn ask(&self, question: String, options: Option<AskOptionsArg>) -> Promise {
        let options = options.map_or(JsValue::UNDEFINED, JsValue::from);
        let session = Rc::clone(&self.session);
        // The request is made before the promise's future starts, so `cancel()` in the same
        // tick stops it; options or a configuration that cannot be used register nothing.
        let request = renamed_options(&options)
            .and_then(|()| trace_form(&options))
            .and_then(|trace| {
                session
                    .request(Question {
                        text: question,
                        roles: roles(&options),
                        datasource: field(&options, "datasource").as_string(),
                        plan_only: field(&options, "plan_only").is_truthy(),
                        trace,
                    })
                    .map_err(service_error)
            });
        // `signal` cancels this run alone, at once, even in the same tick.
        if let (Ok(ask), Ok(signal)) = (
            &request,
            field(&options, "signal").dyn_into::<AbortSignal>(),
        ) {
            let token = ask.canceller();
            if signal.aborted() {
                token.cancel();
            } else {
                let on_abort = Closure::once_into_js(move || token.cancel());
                let _ = signal.add_event_listener_with_callback("abort", on_abort.unchecked_ref());
            }
        }
        future_to_promise(async move {
            let ask = request?;
            let events = field(&options, "on_event")
                .dyn_into::<Function>()
                .ok()
                .map(forward_events);
            to_js(&session.ask(ask, events).await)
        })
    }

    /// Stops every run in flight at once (`signal` in `ask`'s options stops one).
    pub fn cancel(&self) {
        self.session.cancel();
    }

    /// Ranks the datasources for `question` (no model call): the routing trace.
    #[wasm_bindgen(unchecked_return_type = "Promise<Routing>")]
    pub fn route(&self, question: String, options: Option<RouteOptionsArg>) -> Promise {
        let options = options.map_or(JsValue::UNDEFINED, JsValue::from);
        let session = Rc::clone(&self.session);
        future_to_promise(async move {
            let routing = session
                .route(&question, &roles(&options))
                .await
                .map_err(service_error)?;
            to_js(&routing)
        })
    }

    /// SQL mode: `sql` imported as a plan, validated for the role, rendered and run.
    #[wasm_bindgen(unchecked_return_type = "Promise<SqlRun>")]
    pub fn sql(&self, sql: String, options: Option<SqlOptionsArg>) -> Promise {
        let options = options.map_or(JsValue::UNDEFINED, JsValue::from);
        let session = Rc::clone(&self.session);
        future_to_promise(async move {
            let datasource = field(&options, "datasource").as_string();
            let run = session
                .sql(&sql, datasource.as_deref(), &roles(&options))
                .await;
            to_js(&run)
        })
    }

    /// The datasources with their schemas, in the order they were added.
    #[wasm_bindgen(unchecked_return_type = "DatasourceInfo[]")]
    pub fn datasources(&self) -> Result<JsValue, JsValue> {
        to_js(&self.session.datasources())
    }

    /// Opens, reads and indexes one more database; routable as soon as this resolves.
    #[wasm_bindgen(js_name = addDatasource, unchecked_return_type = "Promise<void>")]
    pub fn add_datasource(
        &self,
        #[wasm_bindgen(unchecked_param_type = "DatasourceInput")] input: JsValue,
    ) -> Promise {
        let session = Rc::clone(&self.session);
        future_to_promise(async move {
            let file = database_file(&input)?;
            add_file(&session, file).await.map_err(service_error)?;
            Ok(JsValue::UNDEFINED)
        })
    }

    /// Removes datasource `id`.
    #[wasm_bindgen(js_name = removeDatasource, unchecked_return_type = "Promise<void>")]
    pub fn remove_datasource(&self, id: String) -> Promise {
        let session = Rc::clone(&self.session);
        future_to_promise(async move {
            session.remove(&id).await.map_err(service_error)?;
            Ok(JsValue::UNDEFINED)
        })
    }

    /// Replaces the provider and/or the run settings (each only when given).
    pub fn configure(
        &self,
        #[wasm_bindgen(
            unchecked_param_type = "{ provider?: ProviderOptions; settings?: RunSettings }"
        )]
        options: JsValue,
    ) -> Result<(), JsValue> {
        let provider = from_js::<ProviderConfig>(&field(&options, "provider"))?;
        let run = from_js::<RunConfig>(&field(&options, "settings"))?;
        self.session.configure(provider, run);
        Ok(())
    }

    /// One tiny call to the configured provider and model; rejects with the provider's
    /// failure code (`PROVIDER_AUTH_FAILED`, …) and its message in plain words.
    #[wasm_bindgen(js_name = testConnection, unchecked_return_type = "Promise<Probe>")]
    pub fn test_connection(&self) -> Promise {
        let session = Rc::clone(&self.session);
        future_to_promise(async move {
            let probe = session.test_connection().await.map_err(service_error)?;
            to_js(&probe)
        })
    }
}

/// Option names of earlier versions and what they are called now: an old name is an
/// error, never silently ignored (`planOnly: true` would otherwise run the query).
const RENAMED: [(&str, &str); 5] = [
    ("sqlJs", "sql_js"),
    ("sqlJsWasmUrl", "sql_js_wasm_url"),
    ("verifiedQueries", "verified_queries"),
    ("planOnly", "plan_only"),
    ("onEvent", "on_event"),
];

/// CONFIG_INVALID when `options` uses an old option name.
fn renamed_options(options: &JsValue) -> Result<(), JsValue> {
    match RENAMED
        .iter()
        .find(|(old, _)| !field(options, old).is_undefined())
    {
        Some((old, new)) => Err(fail(
            ErrorCode::ConfigInvalid,
            &format!("the option `{old}` is now called `{new}` (every option is snake_case)"),
        )),
        None => Ok(()),
    }
}

/// The `trace` option: `full` (default) or `cleaned`.
fn trace_form(options: &JsValue) -> Result<TraceForm, JsValue> {
    let value = field(options, "trace");
    if value.is_undefined() || value.is_null() {
        return Ok(TraceForm::Full);
    }
    match value.as_string().as_deref() {
        Some("full") => Ok(TraceForm::Full),
        Some("cleaned") => Ok(TraceForm::Cleaned),
        _ => Err(fail(
            ErrorCode::ConfigInvalid,
            "the option `trace` is \"full\" or \"cleaned\"",
        )),
    }
}

/// sql.js: the module the caller started, else the page's global `initSqlJs`.
async fn start_sqljs(options: &JsValue) -> Result<SqlJs, JsValue> {
    let module = field(options, "sql_js");
    if !module.is_undefined() && !module.is_null() {
        return SqlJs::from_module(module).map_err(|e| fail(ErrorCode::ConfigInvalid, &e));
    }
    let url = field(options, "sql_js_wasm_url")
        .as_string()
        .unwrap_or_else(|| "sql-wasm.wasm".into());
    SqlJs::from_global(&url).await.map_err(|e| {
        fail(
            ErrorCode::ConfigInvalid,
            &format!("sql.js did not start: {e}"),
        )
    })
}

fn database_files(list: &JsValue) -> Result<Vec<DatabaseFile>, JsValue> {
    if !Array::is_array(list) {
        return Err(fail(
            ErrorCode::ConfigInvalid,
            "datasources must be a list of { id, description, bytes }",
        ));
    }
    Array::from(list)
        .iter()
        .map(|d| database_file(&d))
        .collect()
}

fn database_file(d: &JsValue) -> Result<DatabaseFile, JsValue> {
    let id = field(d, "id").as_string().unwrap_or_default();
    let bytes = field(d, "bytes");
    let bytes = if let Some(buffer) = bytes.dyn_ref::<js_sys::ArrayBuffer>() {
        Uint8Array::new(buffer).to_vec()
    } else if let Some(array) = bytes.dyn_ref::<Uint8Array>() {
        array.to_vec()
    } else {
        return Err(fail(
            ErrorCode::ConfigInvalid,
            &format!("datasource {id:?}: bytes must be a Uint8Array or an ArrayBuffer"),
        ));
    };
    let examples = strings(&field(d, "examples"));
    let notes = from_js(&field(d, "notes"))?.unwrap_or_default();
    Ok(DatabaseFile {
        description: field(d, "description").as_string().unwrap_or_default(),
        id,
        examples,
        bytes,
        read_ahead: None,
        notes,
    })
}

/// `role` as a string or a list of strings; none when absent.
fn roles(options: &JsValue) -> Vec<String> {
    let role = field(options, "role");
    match role.as_string() {
        Some(r) => vec![r],
        None => strings(&role),
    }
}

/// The strings of a JavaScript array; none for anything else (`Array.from` throws on
/// `undefined`, so it is never called on what is not an array).
fn strings(list: &JsValue) -> Vec<String> {
    if !Array::is_array(list) {
        return Vec::new();
    }
    Array::from(list)
        .iter()
        .filter_map(|s| s.as_string())
        .collect()
}

fn forward_events(callback: Function) -> Events {
    Events(Rc::new(move |event: &Event| {
        // A listener that throws must not stop the run.
        if let Ok(value) = to_js(event) {
            let _ = callback.call1(&JsValue::NULL, &value);
        }
    }))
}

/// `object[key]`, or `undefined`.
fn field(object: &JsValue, key: &str) -> JsValue {
    if object.is_object() {
        Reflect::get(object, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
    } else {
        JsValue::UNDEFINED
    }
}

/// A JSON-shaped JavaScript value read as `T`; `None` when absent.
fn from_js<T: DeserializeOwned>(value: &JsValue) -> Result<Option<T>, JsValue> {
    if value.is_undefined() || value.is_null() {
        return Ok(None);
    }
    let text = JSON::stringify(value)
        .ok()
        .and_then(|s| s.as_string())
        .ok_or_else(|| fail(ErrorCode::ConfigInvalid, "the options are not plain data"))?;
    serde_json::from_str(&text)
        .map(Some)
        .map_err(|e| fail(ErrorCode::ConfigInvalid, &e.to_string()))
}

fn to_js<T: Serialize>(value: &T) -> Result<JsValue, JsValue> {
    let text =
        serde_json::to_string(value).map_err(|e| fail(ErrorCode::InvalidState, &e.to_string()))?;
    JSON::parse(&text)
}

/// An `Error` carrying one of the engine's stable codes.
fn fail(code: ErrorCode, message: &str) -> JsValue {
    error(code.as_str(), message)
}

/// A facade call's failure as an `Error` with its code.
fn service_error(e: ServiceError) -> JsValue {
    error(e.code(), &e.to_string())
}

fn error(code: &str, message: &str) -> JsValue {
    let e = js_sys::Error::new(message);
    let _ = Reflect::set(&e, &JsValue::from_str("code"), &JsValue::from_str(code));
    e.into()
}
