//! sql.js as a read-only datasource.

use js_sys::{Array, BigInt, Reflect, Uint8Array};
use nl2sql_core::adapter::check_read_only;
use nl2sql_core::adapter::sqlite::classify_error;
use nl2sql_core::adapter::{create_statement, insert_statement, Scratch, ScratchTable};
use nl2sql_core::adapter::{
    Datasource, DatasourceError, DatasourceErrorKind, Dialect, ExecLimits, LocalBoxFuture,
    ResultFrame, Value,
};
use wasm_bindgen::prelude::*;

#[wasm_bindgen(module = "/js/sqljs.js")]
extern "C" {
    #[wasm_bindgen(catch, js_name = initFromGlobal)]
    async fn init_from_global(wasm_url: &str) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch, js_name = initFromSource)]
    async fn init_from_source(source: &str, wasm: &[u8]) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch, js_name = openDatabase)]
    fn open_database(sql: &JsValue, bytes: &[u8]) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch)]
    fn query(db: &JsValue, sql: &str, max_rows: f64) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch, js_name = scratchQuery)]
    fn scratch_query(
        sql_js: &JsValue,
        tables: &JsValue,
        sql: &str,
        max_rows: f64,
    ) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(js_name = closeDatabase)]
    fn close_database(db: &JsValue);
}

/// A started sql.js module; opens databases.
pub struct SqlJs {
    module: JsValue,
}

impl SqlJs {
    /// Starts sql.js from the page's `initSqlJs` global, fetching its wasm from `wasm_url`.
    pub async fn from_global(wasm_url: &str) -> Result<SqlJs, String> {
        let module = init_from_global(wasm_url).await.map_err(js_message)?;
        Ok(SqlJs { module })
    }

    /// Starts sql.js from the text of `sql-wasm.js` and the bytes of `sql-wasm.wasm`.
    pub async fn from_source(source: &str, wasm: &[u8]) -> Result<SqlJs, String> {
        let module = init_from_source(source, wasm).await.map_err(js_message)?;
        Ok(SqlJs { module })
    }

    /// Uses a sql.js module the caller started (`await initSqlJs()`).
    pub fn from_module(module: JsValue) -> Result<SqlJs, String> {
        let has_database =
            Reflect::get(&module, &JsValue::from_str("Database")).is_ok_and(|d| d.is_function());
        if !has_database {
            return Err("this is not a started sql.js module (await initSqlJs() first)".into());
        }
        Ok(SqlJs { module })
    }

    /// Opens a database from the bytes of a SQLite file, read-only, as datasource `id`.
    pub fn open(
        &self,
        id: impl Into<String>,
        bytes: &[u8],
    ) -> Result<SqlJsDatabase, DatasourceError> {
        let db = open_database(&self.module, bytes).map_err(|e| {
            let mut err = classify_error(None, &js_message(e));
            // A file sql.js cannot open is never the query's fault.
            if err.kind == DatasourceErrorKind::InvalidQuery {
                err.kind = DatasourceErrorKind::Unavailable;
            }
            err
        })?;
        Ok(SqlJsDatabase { id: id.into(), db })
    }

    /// The aggregator's scratch databases, made by this sql.js.
    pub fn scratch(&self) -> SqlJsScratch {
        SqlJsScratch {
            module: self.module.clone(),
        }
    }
}

/// Fresh in-memory sql.js databases for combining sub-results.
pub struct SqlJsScratch {
    module: JsValue,
}

impl SqlJsScratch {
    fn run(
        &self,
        tables: &[ScratchTable],
        sql: &str,
        limits: ExecLimits,
    ) -> Result<ResultFrame, DatasourceError> {
        check_read_only(sql)?;
        let js_tables = scratch_tables(tables)?;
        let out = scratch_query(&self.module, &js_tables, sql, limits.max_rows as f64)
            .map_err(|e| classify_sqljs_error(&js_message(e)))?;
        frame(&out)
    }
}

impl Scratch for SqlJsScratch {
    fn query<'a>(
        &'a self,
        tables: &'a [ScratchTable],
        sql: &'a str,
        limits: ExecLimits,
    ) -> LocalBoxFuture<'a, Result<ResultFrame, DatasourceError>> {
        Box::pin(std::future::ready(self.run(tables, sql, limits)))
    }
}

/// `tables` as the scratch query reads them: `{create, insert, rows}` each.
pub(crate) fn scratch_tables(tables: &[ScratchTable]) -> Result<Array, DatasourceError> {
    let js_tables = Array::new();
    for table in tables {
        let rows = Array::new();
        for row in &table.rows {
            rows.push(&row.iter().map(to_js).collect::<Array>());
        }
        let t = js_sys::Object::new();
        let set = |k: &str, v: &JsValue| Reflect::set(&t, &JsValue::from_str(k), v);
        set("create", &JsValue::from_str(&create_statement(table)))
            .and_then(|_| set("insert", &JsValue::from_str(&insert_statement(table))))
            .and_then(|_| set("rows", &rows))
            .map_err(|e| unexpected(&js_message(e)))?;
        js_tables.push(&t);
    }
    Ok(js_tables)
}

/// A value as sql.js binds it: integers as BigInt, so none loses precision.
fn to_js(v: &Value) -> JsValue {
    match v {
        Value::Null => JsValue::NULL,
        Value::Integer(i) => BigInt::from(*i).into(),
        Value::Real(r) => JsValue::from_f64(*r),
        Value::Text(t) => JsValue::from_str(t),
        Value::Blob(b) => Uint8Array::from(b.as_slice()).into(),
    }
}

/// One database opened by sql.js. Behind the core guard, `PRAGMA query_only` refuses writes.
pub struct SqlJsDatabase {
    id: String,
    db: JsValue,
}

impl SqlJsDatabase {
    fn run(&self, sql: &str, limits: ExecLimits) -> Result<ResultFrame, DatasourceError> {
        check_read_only(sql)?;
        // JS numbers hold every usize a browser can allocate rows for.
        let out = query(&self.db, sql, limits.max_rows as f64)
            .map_err(|e| classify_sqljs_error(&js_message(e)))?;
        frame(&out)
    }
}

/// The rows `query` returned, typed.
pub(crate) fn frame(out: &JsValue) -> Result<ResultFrame, DatasourceError> {
    let columns = Array::from(&get(out, "columns")?)
        .iter()
        .map(|c| c.as_string().unwrap_or_default())
        .collect();
    let rows = Array::from(&get(out, "rows")?)
        .iter()
        .map(|row| Array::from(&row).iter().map(|v| to_value(&v)).collect())
        .collect::<Result<_, _>>()?;
    let truncated = get(out, "truncated")?.as_bool().unwrap_or(false);
    Ok(ResultFrame {
        columns,
        rows,
        truncated,
    })
}

impl Drop for SqlJsDatabase {
    fn drop(&mut self) {
        // sql.js memory lives in its own wasm heap and is not garbage-collected.
        close_database(&self.db);
    }
}

impl Datasource for SqlJsDatabase {
    fn id(&self) -> &str {
        &self.id
    }

    fn dialect(&self) -> Dialect {
        Dialect::Sqlite
    }

    fn execute<'a>(
        &'a self,
        sql: &'a str,
        limits: ExecLimits,
    ) -> LocalBoxFuture<'a, Result<ResultFrame, DatasourceError>> {
        Box::pin(std::future::ready(self.run(sql, limits)))
    }
}

/// Our own JS refusals start with "refused:"; everything else is SQLite's message.
pub(crate) fn classify_sqljs_error(message: &str) -> DatasourceError {
    if message.starts_with("refused:") {
        DatasourceError::new(DatasourceErrorKind::Refused, message)
    } else {
        classify_error(None, message)
    }
}

fn get(obj: &JsValue, key: &str) -> Result<JsValue, DatasourceError> {
    Reflect::get(obj, &JsValue::from_str(key)).map_err(|e| unexpected(&js_message(e)))
}

/// sql.js gives integers as BigInt (we ask for that), reals as numbers, blobs as Uint8Array.
fn to_value(v: &JsValue) -> Result<Value, DatasourceError> {
    if v.is_null() || v.is_undefined() {
        Ok(Value::Null)
    } else if v.is_bigint() {
        let big = BigInt::from(v.clone());
        i64::try_from(big)
            .map(Value::Integer)
            .map_err(|_| unexpected("an integer outside the 64-bit range"))
    } else if let Some(n) = v.as_f64() {
        Ok(Value::Real(n))
    } else if let Some(s) = v.as_string() {
        Ok(Value::Text(s))
    } else if v.is_instance_of::<Uint8Array>() {
        Ok(Value::Blob(Uint8Array::from(v.clone()).to_vec()))
    } else {
        Err(unexpected("a value of an unknown type"))
    }
}

fn unexpected(what: &str) -> DatasourceError {
    DatasourceError::new(
        DatasourceErrorKind::Unavailable,
        format!("sql.js returned {what}"),
    )
}

/// The message of a JS exception: an `Error`'s message, or the value as text.
pub fn js_message(e: JsValue) -> String {
    if let Some(err) = e.dyn_ref::<js_sys::Error>() {
        return String::from(err.message());
    }
    e.as_string().unwrap_or_else(|| format!("{e:?}"))
}
