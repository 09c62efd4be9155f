//! The npm package's JavaScript API: the `Engine` class over a [`Session`].
//!
//! Results cross into JavaScript as their published JSON (the same shape `nl2sql ask
//! --json` prints and trace files hold), typed by the declarations generated into
//! `results.d.ts`; options are typed by `api.d.ts`. Every
//! method that can fail rejects with an `Error` carrying a stable `code`; `ask` itself
//! never rejects for anything that happens during the run (those are in the result).

use crate::session::{add_file, open_session, DatabaseFile, DatabaseHost, NamedBytes, Session};
use crate::{DuckDbUrls, SqlJs, Workers};
use js_sys::{Array, Function, Promise, Reflect, Uint8Array, JSON};
use nl2sql_core::config::Policies;
use nl2sql_core::config::{ProviderConfig, RunConfig};
use nl2sql_core::error::Error;
use nl2sql_core::error::ErrorCode;
use nl2sql_core::feedback::{Answered, FeedbackBook, Given, Verdict};
use nl2sql_core::feedback::{Curated, VerifiedQuery};
use nl2sql_core::result::Thread;
use nl2sql_core::result::{Event, Events, QueryResult, TraceForm};
use nl2sql_core::service::Question;
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::cell::RefCell;
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
    /// Feedback and the verified queries it proposed, held here; the caller keeps it
    /// (`feedbackBook`, `loadFeedback`): nothing is sent anywhere.
    book: Rc<RefCell<FeedbackBook>>,
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
            known_options(&options, ENGINE_OPTIONS)?;
            let sqlite = start_databases(&options).await?;
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
                sqlite,
                files,
                policies,
                curated.unwrap_or_default(),
                provider.unwrap_or_default(),
                run.unwrap_or_default(),
            )
            .await
            .map_err(service_error)?;
            Ok(JsEngine {
                session: Rc::new(session),
                book: Rc::new(RefCell::new(FeedbackBook::default())),
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
        let request = known_options(&options, ASK_OPTIONS)
            .and_then(|()| trace_form(&options))
            .and_then(|trace| Ok((trace, from_js::<Thread>(&field(&options, "thread"))?)))
            .and_then(|(trace, thread)| {
                session
                    .request(Question {
                        question,
                        roles: roles(&options),
                        datasource: field(&options, "datasource").as_string(),
                        plan_only: field(&options, "plan_only").is_truthy(),
                        trace,
                        thread,
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

    /// Stops every run and every SQL-mode query in flight at once (`signal` in `ask`'s or
    /// `sql`'s options stops one).
    pub fn cancel(&self) {
        self.session.cancel();
        // SQL mode's queries belong to no run: each worker with one in flight stops it.
        if let DatabaseHost::Workers(workers) = self.session.host().databases() {
            workers.interrupt();
        }
    }

    /// Forgets every cached plan.
    #[wasm_bindgen(js_name = clearPlanCache)]
    pub fn clear_plan_cache(&self) {
        self.session.clear_plan_cache();
    }

    /// Right or wrong on a result `ask` gave: "right" proposes a verified query. Returns
    /// what was recorded (and proposed).
    #[wasm_bindgen(unchecked_return_type = "Recorded")]
    pub fn feedback(
        &self,
        #[wasm_bindgen(unchecked_param_type = "QueryResult")] result: JsValue,
        #[wasm_bindgen(unchecked_param_type = "Verdict")] verdict: JsValue,
        #[wasm_bindgen(unchecked_param_type = "FeedbackOptions")] options: Option<js_sys::Object>,
    ) -> Result<JsValue, JsValue> {
        let options = options.map_or(JsValue::UNDEFINED, JsValue::from);
        known_options(&options, FEEDBACK_OPTIONS)?;
        let result = from_js::<QueryResult>(&result)?.ok_or_else(|| {
            fail(
                ErrorCode::ConfigInvalid,
                "feedback needs the result ask gave",
            )
        })?;
        let verdict = from_js::<Verdict>(&verdict)?.ok_or_else(|| {
            fail(
                ErrorCode::ConfigInvalid,
                "the verdict is \"right\" or \"wrong\"",
            )
        })?;
        let comment = field(&options, "comment").as_string();
        let by = who(&options);
        let at = now();
        let recorded = self.session.feedback(
            &mut self.book.borrow_mut(),
            Given {
                answered: Answered::of(&result),
                verdict,
                comment: comment.as_deref(),
                by: &by,
                at: &at,
            },
        );
        to_js(&recorded)
    }

    /// Every piece of feedback and every proposal, to keep (JSON-shaped data).
    #[wasm_bindgen(js_name = feedbackBook, unchecked_return_type = "FeedbackBook")]
    pub fn feedback_book(&self) -> Result<JsValue, JsValue> {
        to_js(&*self.book.borrow())
    }

    /// Replaces the feedback held with `book` (a `FeedbackBook`, or its JSON text) and
    /// puts its approved queries in force. Rejects with `FEEDBACK_UNREADABLE` when it does
    /// not read.
    #[wasm_bindgen(js_name = loadFeedback, unchecked_return_type = "Promise<void>")]
    pub fn load_feedback(
        &self,
        #[wasm_bindgen(unchecked_param_type = "FeedbackBook | string")] book: JsValue,
    ) -> Promise {
        let session = Rc::clone(&self.session);
        let held = Rc::clone(&self.book);
        future_to_promise(async move {
            let text = match book.as_string() {
                Some(text) => text,
                None => JSON::stringify(&book)
                    .ok()
                    .and_then(|s| s.as_string())
                    .unwrap_or_default(),
            };
            let read = FeedbackBook::from_json(&text).map_err(service_error)?;
            session.use_approved(&read).await.map_err(service_error)?;
            *held.borrow_mut() = read;
            Ok(JsValue::UNDEFINED)
        })
    }

    /// Approves a proposed verified query for a caller whose role approves; the matcher
    /// answers with it from the next question on.
    #[wasm_bindgen(unchecked_return_type = "Promise<Proposal>")]
    pub fn approve(
        &self,
        datasource: String,
        id: String,
        #[wasm_bindgen(unchecked_param_type = "FeedbackOptions")] options: Option<js_sys::Object>,
    ) -> Promise {
        let options = options.map_or(JsValue::UNDEFINED, JsValue::from);
        let (session, held) = (Rc::clone(&self.session), Rc::clone(&self.book));
        future_to_promise(async move {
            known_options(&options, FEEDBACK_OPTIONS)?;
            let roles = roles(&options);
            let by = who(&options);
            let mut book = held.borrow().clone();
            let approved = session
                .approve(&mut book, (&datasource, &id), &roles, (&by, &now()))
                .await
                .map_err(service_error)?;
            *held.borrow_mut() = book;
            to_js(&approved)
        })
    }

    /// Replaces a proposal's query (checked against its datasource's schema) for a caller
    /// whose role approves.
    #[wasm_bindgen(js_name = editProposal, unchecked_return_type = "Promise<Proposal>")]
    pub fn edit_proposal(
        &self,
        datasource: String,
        id: String,
        #[wasm_bindgen(unchecked_param_type = "VerifiedQuery")] query: JsValue,
        #[wasm_bindgen(unchecked_param_type = "FeedbackOptions")] options: Option<js_sys::Object>,
    ) -> Promise {
        let options = options.map_or(JsValue::UNDEFINED, JsValue::from);
        let (session, held) = (Rc::clone(&self.session), Rc::clone(&self.book));
        future_to_promise(async move {
            known_options(&options, FEEDBACK_OPTIONS)?;
            let query = from_js::<VerifiedQuery>(&query)?
                .ok_or_else(|| fail(ErrorCode::ConfigInvalid, "editProposal needs a query"))?;
            let mut book = held.borrow().clone();
            let edited = session
                .edit_proposal(&mut book, (&datasource, &id), query, &roles(&options))
                .await
                .map_err(service_error)?;
            *held.borrow_mut() = book;
            to_js(&edited)
        })
    }

    /// Deletes a proposal (approved or not) for a caller whose role approves.
    #[wasm_bindgen(js_name = deleteProposal, unchecked_return_type = "Promise<void>")]
    pub fn delete_proposal(
        &self,
        datasource: String,
        id: String,
        #[wasm_bindgen(unchecked_param_type = "FeedbackOptions")] options: Option<js_sys::Object>,
    ) -> Promise {
        let options = options.map_or(JsValue::UNDEFINED, JsValue::from);
        let (session, held) = (Rc::clone(&self.session), Rc::clone(&self.book));
        future_to_promise(async move {
            known_options(&options, FEEDBACK_OPTIONS)?;
            let mut book = held.borrow().clone();
            session
                .delete_proposal(&mut book, (&datasource, &id), &roles(&options))
                .await
                .map_err(service_error)?;
            *held.borrow_mut() = book;
            Ok(JsValue::UNDEFINED)
        })
    }

    /// Ranks the datasources for `question` (no model call): the routing trace.
    #[wasm_bindgen(unchecked_return_type = "Promise<Routing>")]
    pub fn route(&self, question: String, options: Option<RouteOptionsArg>) -> Promise {
        let options = options.map_or(JsValue::UNDEFINED, JsValue::from);
        let session = Rc::clone(&self.session);
        future_to_promise(async move {
            known_options(&options, ROUTE_OPTIONS)?;
            let routing = session
                .route(&question, &roles(&options))
                .await
                .map_err(service_error)?;
            to_js(&routing)
        })
    }

    /// Blends the semantic embedder into routing and retrieval: `weights` are the bytes of
    /// `semantic-wordllama-256.bin` (`cargo xtask embedder`; 9.3 MB, fetch it when the page
    /// is idle). Resolves to the index's embedder id; rejects with CONFIG_INVALID for bytes
    /// that are not such weights, leaving the engine as it was.
    #[wasm_bindgen(js_name = useSemanticWeights, unchecked_return_type = "Promise<string>")]
    pub fn use_semantic_weights(&self, weights: Uint8Array) -> Promise {
        let session = Rc::clone(&self.session);
        let bytes = weights.to_vec();
        future_to_promise(async move {
            let id = crate::session::blend_semantic(&session, &bytes)
                .await
                .map_err(service_error)?;
            Ok(JsValue::from_str(&id))
        })
    }

    /// SQL mode: `sql` imported as a plan, validated for the role, rendered and run.
    #[wasm_bindgen(unchecked_return_type = "Promise<SqlRun>")]
    pub fn sql(&self, sql: String, options: Option<SqlOptionsArg>) -> Promise {
        let options = options.map_or(JsValue::UNDEFINED, JsValue::from);
        if let Err(e) = known_options(&options, SQL_OPTIONS) {
            return Promise::reject(&e);
        }
        let session = Rc::clone(&self.session);
        let datasource = field(&options, "datasource")
            .as_string()
            .or_else(|| session.workspace().ids().first().map(|id| id.to_string()));
        let signal = field(&options, "signal").dyn_into::<AbortSignal>().ok();
        if signal.as_ref().is_some_and(AbortSignal::aborted) {
            return Promise::reject(&fail(
                ErrorCode::Cancelled,
                "the signal was aborted before the query started",
            ));
        }
        // `signal` stops the query in flight on that datasource (in its worker), for as
        // long as this call runs: the listener goes with it.
        let listener = match (session.host().databases(), signal, datasource.clone()) {
            (DatabaseHost::Workers(workers), Some(signal), Some(id)) => {
                let workers = workers.clone();
                let on_abort = Closure::<dyn FnMut()>::new(move || workers.interrupt_one(&id));
                let _ = signal
                    .add_event_listener_with_callback("abort", on_abort.as_ref().unchecked_ref());
                Some((signal, on_abort))
            }
            _ => None,
        };
        future_to_promise(async move {
            let run = session
                .sql(&sql, datasource.as_deref(), &roles(&options))
                .await;
            if let Some((signal, on_abort)) = listener {
                let _ = signal.remove_event_listener_with_callback(
                    "abort",
                    on_abort.as_ref().unchecked_ref(),
                );
            }
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

    /// Sets datasource `id`'s own query time limit in milliseconds (`null`: the run's
    /// `query_timeout_ms` alone); it can only shorten the run's. Throws `CONFIG_INVALID`
    /// when no datasource has that id or its queries run on the calling thread.
    #[wasm_bindgen(js_name = setQueryTimeout)]
    pub fn set_query_timeout(&self, id: String, ms: Option<f64>) -> Result<(), JsValue> {
        let limit = match ms {
            None => None,
            Some(ms) if ms.is_finite() && ms >= 1.0 => Some(ms as u64),
            Some(ms) => {
                return Err(fail(
                    ErrorCode::ConfigInvalid,
                    &format!("a time limit is a number of milliseconds of at least 1, not {ms}"),
                ))
            }
        };
        match self.session.host().databases() {
            DatabaseHost::Workers(workers) if workers.set_limit(&id, limit) => Ok(()),
            DatabaseHost::Workers(_) => Err(fail(
                ErrorCode::ConfigInvalid,
                &format!("no datasource is called {id:?}"),
            )),
            DatabaseHost::Here(_) => Err(fail(
                ErrorCode::ConfigInvalid,
                "queries on a sql.js module passed as `sql_js` run on the calling thread and cannot be stopped",
            )),
        }
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
        known_options(&options, CONFIGURE_OPTIONS)?;
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

/// Each method's option names, as `api.d.ts` declares them.
const ENGINE_OPTIONS: &[&str] = &[
    "datasources",
    "sql_js_url",
    "sql_js_wasm_url",
    "duckdb",
    "sql_js",
    "provider",
    "settings",
    "policies",
    "verified_queries",
];
const ASK_OPTIONS: &[&str] = &[
    "role",
    "datasource",
    "plan_only",
    "trace",
    "thread",
    "on_event",
    "signal",
];
const SQL_OPTIONS: &[&str] = &["datasource", "role", "signal"];
const ROUTE_OPTIONS: &[&str] = &["role"];
const FEEDBACK_OPTIONS: &[&str] = &["role", "by", "comment"];
const CONFIGURE_OPTIONS: &[&str] = &["provider", "settings"];

/// CONFIG_INVALID naming the first option of `options` that `known` does not list (an old
/// name says what it is called now): a misspelt option is refused, never silently ignored,
/// as one inside `settings` is.
fn known_options(options: &JsValue, known: &[&str]) -> Result<(), JsValue> {
    if !options.is_object() {
        return Ok(());
    }
    let keys = js_sys::Object::keys(options.unchecked_ref::<js_sys::Object>());
    let Some(unknown) = (keys.iter())
        .filter_map(|k| k.as_string())
        .find(|k| !known.contains(&k.as_str()))
    else {
        return Ok(());
    };
    let message = match RENAMED.iter().find(|(old, _)| *old == unknown) {
        Some((old, new)) => {
            format!("the option `{old}` is now called `{new}` (every option is snake_case)")
        }
        None => format!(
            "there is no option `{unknown}`; the options here are {}",
            known.join(", ")
        ),
    };
    Err(fail(ErrorCode::ConfigInvalid, &message))
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

/// Where DuckDB-WASM's three files are (the `duckdb` option).
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct DuckDbOption {
    module_url: String,
    worker_url: String,
    wasm_url: String,
}

/// Where the databases run: in Web Workers loading sql.js from `sql_js_url` (the default
/// wherever there are workers); on the calling thread through the module the caller
/// started (`sql_js`), or else through the global `initSqlJs` (Node).
async fn start_databases(options: &JsValue) -> Result<DatabaseHost, JsValue> {
    let module = field(options, "sql_js");
    if !module.is_undefined() && !module.is_null() {
        let sqljs = SqlJs::from_module(module).map_err(|e| fail(ErrorCode::ConfigInvalid, &e))?;
        return Ok(DatabaseHost::Here(sqljs));
    }
    let wasm_url = field(options, "sql_js_wasm_url")
        .as_string()
        .unwrap_or_else(|| "sql-wasm.wasm".into());
    let has_workers =
        Reflect::has(&js_sys::global(), &JsValue::from_str("Worker")).unwrap_or(false);
    if !has_workers {
        let sqljs = SqlJs::from_global(&wasm_url).await.map_err(|e| {
            fail(
                ErrorCode::ConfigInvalid,
                &format!("sql.js did not start: {e}"),
            )
        })?;
        return Ok(DatabaseHost::Here(sqljs));
    }
    let script_url = field(options, "sql_js_url")
        .as_string()
        .unwrap_or_else(|| "sql-wasm.js".into());
    let mut workers = Workers::new(&script_url, &wasm_url);
    if let Some(urls) = from_js::<DuckDbOption>(&field(options, "duckdb"))? {
        workers = workers.with_duckdb(DuckDbUrls {
            module: urls.module_url,
            worker: urls.worker_url,
            wasm: urls.wasm_url,
        });
    }
    workers.start().await.map_err(|e| {
        fail(
            ErrorCode::ConfigInvalid,
            &format!(
                "sql.js did not start in a Web Worker from {script_url:?} and {wasm_url:?} \
                 (the options sql_js_url and sql_js_wasm_url): {e}"
            ),
        )
    })?;
    Ok(DatabaseHost::Workers(workers))
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
    let listed = field(d, "files");
    let files = if Array::is_array(&listed) {
        Array::from(&listed)
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let name = field(&f, "name").as_string().ok_or_else(|| {
                    fail(
                        ErrorCode::ConfigInvalid,
                        &format!("datasource {id:?}: file {} has no name", i + 1),
                    )
                })?;
                Ok(NamedBytes::new(name, bytes_of(&id, &field(&f, "bytes"))?))
            })
            .collect::<Result<Vec<_>, JsValue>>()?
    } else {
        // One file: a SQLite or DuckDB database, or a Parquet file, known by its bytes;
        // a CSV file by its `name`.
        let name = field(d, "name")
            .as_string()
            .unwrap_or_else(|| format!("{id}.sqlite"));
        vec![NamedBytes::new(name, bytes_of(&id, &field(d, "bytes"))?)]
    };
    let examples = strings(&field(d, "examples"));
    let notes = from_js(&field(d, "notes"))?.unwrap_or_default();
    let query_timeout_ms = from_js::<u64>(&field(d, "query_timeout_ms"))
        .map_err(|_| {
            fail(
                ErrorCode::ConfigInvalid,
                &format!("datasource {id:?}: query_timeout_ms is a whole number of milliseconds"),
            )
        })?
        .filter(|ms| *ms > 0);
    Ok(DatabaseFile {
        query_timeout_ms,
        description: field(d, "description").as_string().unwrap_or_default(),
        id,
        examples,
        files,
        read_ahead: None,
        notes,
    })
}

/// A file's bytes, from a `Uint8Array` or an `ArrayBuffer`.
fn bytes_of(id: &str, bytes: &JsValue) -> Result<Vec<u8>, JsValue> {
    if let Some(buffer) = bytes.dyn_ref::<js_sys::ArrayBuffer>() {
        Ok(Uint8Array::new(buffer).to_vec())
    } else if let Some(array) = bytes.dyn_ref::<Uint8Array>() {
        Ok(array.to_vec())
    } else {
        Err(fail(
            ErrorCode::ConfigInvalid,
            &format!("datasource {id:?}: bytes must be a Uint8Array or an ArrayBuffer"),
        ))
    }
}

/// `role` as a string or a list of strings; none when absent.
fn roles(options: &JsValue) -> Vec<String> {
    let role = field(options, "role");
    match role.as_string() {
        Some(r) => vec![r],
        None => strings(&role),
    }
}

/// Who gives feedback or approves: the `by` option, else the roles.
fn who(options: &JsValue) -> String {
    field(options, "by")
        .as_string()
        .unwrap_or_else(|| roles(options).join(", "))
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

/// `value` as JavaScript data, shaped as its JSON. Integers beyond ±2^53 become `bigint`s,
/// exactly: `JSON.parse` would round them to the nearest double without a word.
fn to_js<T: Serialize>(value: &T) -> Result<JsValue, JsValue> {
    let failed = |e: serde_json::Error| fail(ErrorCode::InvalidState, &e.to_string());
    let tree = serde_json::to_value(value).map_err(failed)?;
    if !has_unsafe_integer(&tree) {
        // The common case, and `JSON.parse` is far faster than building the objects here.
        // From the value itself, not the tree, whose objects have lost their field order.
        return JSON::parse(&serde_json::to_string(value).map_err(failed)?);
    }
    // Rare (a result holding an integer beyond ±2^53): fields come in name order.
    Ok(exact(&tree))
}

/// The largest integer a JavaScript number holds exactly (`Number.MAX_SAFE_INTEGER`).
const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

fn is_unsafe(n: &serde_json::Number) -> bool {
    match (n.as_i64(), n.as_u64()) {
        (Some(i), _) => i.unsigned_abs() > MAX_SAFE_INTEGER,
        (None, Some(u)) => u > MAX_SAFE_INTEGER,
        (None, None) => false,
    }
}

fn has_unsafe_integer(value: &serde_json::Value) -> bool {
    use serde_json::Value as J;
    match value {
        J::Number(n) => is_unsafe(n),
        J::Array(items) => items.iter().any(has_unsafe_integer),
        J::Object(fields) => fields.values().any(has_unsafe_integer),
        J::Null | J::Bool(_) | J::String(_) => false,
    }
}

/// The JavaScript value of a JSON tree, every unsafe integer a `bigint`.
fn exact(value: &serde_json::Value) -> JsValue {
    use serde_json::Value as J;
    match value {
        J::Null => JsValue::NULL,
        J::Bool(b) => JsValue::from_bool(*b),
        J::Number(n) if is_unsafe(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => js_sys::BigInt::from(i).into(),
            (None, Some(u)) => js_sys::BigInt::from(u).into(),
            (None, None) => JsValue::from_f64(n.as_f64().unwrap_or(f64::NAN)),
        },
        J::Number(n) => JsValue::from_f64(n.as_f64().unwrap_or(f64::NAN)),
        J::String(s) => JsValue::from_str(s),
        J::Array(items) => items.iter().map(exact).collect::<Array>().into(),
        J::Object(fields) => {
            let object = js_sys::Object::new();
            for (key, field) in fields {
                let _ = Reflect::set(&object, &JsValue::from_str(key), &exact(field));
            }
            object.into()
        }
    }
}

/// Now, as the page's clock tells it (ISO 8601, UTC).
fn now() -> String {
    js_sys::Date::new_0()
        .to_iso_string()
        .as_string()
        .unwrap_or_default()
}

/// An `Error` carrying one of the engine's stable codes.
fn fail(code: ErrorCode, message: &str) -> JsValue {
    error(code.as_str(), message)
}

/// A facade call's failure as an `Error` with its code.
fn service_error(e: Error) -> JsValue {
    error(e.code.as_str(), &e.to_string())
}

fn error(code: &str, message: &str) -> JsValue {
    let e = js_sys::Error::new(message);
    let _ = Reflect::set(&e, &JsValue::from_str("code"), &JsValue::from_str(code));
    e.into()
}
