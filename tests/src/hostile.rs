//! A hostile-input corpus: SQL hidden in every string a plan or a query carries, comment
//! markers, semicolons, quote tricks, Unicode look-alikes, huge and deeply nested inputs.
//! Each is refused with the right code or rendered harmlessly, and nothing is ever written.
//!
//! The SQL here is written for SQLite and imported as SQLite's, whatever engine then runs
//! it. Each check takes Chinook on some engine: `tests/hostile.rs` runs them on SQLite,
//! `tests/servers.rs` on every server.

use nl2sql_core::datasource::ExecLimits;
use nl2sql_core::error::ErrorCode;
use nl2sql_core::import::import_sql;
use nl2sql_core::lower::quote_name;
use nl2sql_core::plan::Plan;
use nl2sql_core::policy::Policies;
use nl2sql_core::run::{run_plan, PlanRun};
use nl2sql_core::validate::ValidatorSettings;
use nl2sql_core::Metadata;
use nl2sql_core::{Datasource, Dialect, SchemaSnapshot, Value};
use serde_json::{json, Value as Json};

/// A database under attack, with its schema as read.
pub struct Env {
    /// Chinook, on any engine.
    pub db: Box<dyn Datasource>,
    /// Its schema.
    pub schema: SchemaSnapshot,
}

impl Env {
    /// Chinook on `db`, its schema read.
    pub fn new(db: Box<dyn Datasource>) -> Env {
        let schema = pollster::block_on(db.introspect()).unwrap_or_else(|e| panic!("{e}"));
        Env { db, schema }
    }
}

fn run(env: &Env, plan: &Plan) -> PlanRun {
    let policies = Policies::demo();
    let scope = policies.scope(&[]);
    pollster::block_on(run_plan(
        plan,
        &*env.db,
        &env.schema,
        &scope,
        &ValidatorSettings::default(),
    ))
}

fn plan(v: Json) -> Plan {
    Plan::from_json(&v.to_string()).expect("the corpus plans are well-formed JSON plans")
}

fn col(alias: &str, column: &str) -> Json {
    json!({"kind": "column", "alias": alias, "column_name": column})
}

fn track_plan(select: Json) -> Json {
    json!({"tables": [{"name": "Track", "alias": "t"}], "select_items": [select], "limit": 3})
}

fn assert_import_refused(env: &Env, sql: &[&str], code: ErrorCode) {
    for sql in sql {
        let err = import_sql(sql, &env.schema, Dialect::Sqlite).expect_err(sql);
        assert_eq!(err.error_code, code, "{sql}: {err}");
        assert_eq!(
            err.is_retryable(),
            code != ErrorCode::SecurityViolation,
            "{sql}"
        );
    }
}

fn first_code(run: &PlanRun) -> Option<ErrorCode> {
    run.errors.first().map(|e| e.error_code)
}

fn track_count(env: &Env) -> Value {
    let frame = pollster::block_on(env.db.execute(
        &format!(
            "SELECT COUNT(*) FROM {}",
            quote_name("Track", env.db.dialect())
        ),
        ExecLimits::rows(1),
    ))
    .expect("counting works");
    frame.rows[0][0].clone()
}

const SQL_PAYLOADS: &[&str] = &[
    "x'); DROP TABLE Track; --",
    "1; DELETE FROM Track",
    "*/ DROP TABLE Track /*",
    "\" OR 1=1 --",
    "` OR 1=1 #",
    "\\'; DROP TABLE Track; --",
    "'' OR ''='",
    "]; DROP TABLE Track; --",
    "\u{ff07}; DROP TABLE Track; --",
    "\u{202e}kcarT ELBAT PORD",
    "a\u{200d}b",
    "$$; DROP TABLE Track; $$",
];

pub fn sql_in_literals_and_aliases_is_rendered_harmlessly(env: &Env) {
    let before = track_count(env);
    for payload in SQL_PAYLOADS {
        // In a text literal: a filter that matches nothing, and the payload comes back as data.
        let p = plan(json!({
            "tables": [{"name": "Track", "alias": "t"}],
            "select_items": [{"expr": {"kind": "literal", "value": payload}, "alias": payload}],
            "where": {"kind": "binary", "op": "=", "left": col("t", "Name"),
                      "right": {"kind": "literal", "value": payload}}
        }));
        let r = run(env, &p);
        let frame = r
            .frame
            .as_ref()
            .unwrap_or_else(|| panic!("{payload:?}: {:?}", r.errors));
        assert!(frame.rows.is_empty(), "{payload:?}");
        assert_eq!(frame.columns, [payload.to_string()], "{payload:?}");
        // As a table alias: quoted, so the query runs and reads what it should.
        let p = plan(json!({
            "tables": [{"name": "Track", "alias": payload}],
            "select_items": [{"expr": {"kind": "literal", "value": payload}}],
            "limit": 1
        }));
        let r = run(env, &p);
        let frame = r
            .frame
            .as_ref()
            .unwrap_or_else(|| panic!("alias {payload:?}: {:?}", r.errors));
        assert_eq!(
            frame.rows[0][0],
            Value::Text(payload.to_string()),
            "{payload:?}"
        );
    }
    assert_eq!(track_count(env), before, "nothing was written");
}

pub fn sql_in_names_is_refused_with_the_right_code(env: &Env) {
    for payload in SQL_PAYLOADS {
        let cases = [
            (
                track_plan(json!({"expr": {"kind": "func", "func_name": payload, "args": []}})),
                ErrorCode::UnsupportedFunction,
            ),
            (
                track_plan(json!({"expr": col("t", payload)})),
                ErrorCode::ColumnNotFound,
            ),
            (
                json!({"tables": [{"name": payload, "alias": "t"}],
                       "select_items": [{"expr": col("t", "Name")}]}),
                ErrorCode::TableNotFound,
            ),
        ];
        for (p, code) in cases {
            let r = run(env, &plan(p));
            assert_eq!(first_code(&r), Some(code), "{payload:?}: {:?}", r.errors);
            assert!(r.sql.is_none() && r.frame.is_none());
        }
    }
}

pub fn unicode_look_alikes_name_nothing(env: &Env) {
    // Cyrillic а in "Trаck", Greek Ν in "Νame", fullwidth letters.
    let cases = [
        (
            json!({"tables": [{"name": "Tr\u{430}ck", "alias": "t"}],
                "select_items": [{"expr": col("t", "Name")}]}),
            ErrorCode::TableNotFound,
        ),
        (
            track_plan(json!({"expr": col("t", "\u{39d}ame")})),
            ErrorCode::ColumnNotFound,
        ),
        (
            track_plan(
                json!({"expr": {"kind": "func", "func_name": "\u{ff23}OUNT", "args": [col("t", "Name")]}}),
            ),
            ErrorCode::UnsupportedFunction,
        ),
    ];
    for (p, code) in cases {
        let r = run(env, &plan(p));
        assert_eq!(first_code(&r), Some(code), "{:?}", r.errors);
    }
}

pub fn a_nul_byte_is_refused(env: &Env) {
    let r = run(
        env,
        &plan(track_plan(
            json!({"expr": {"kind": "literal", "value": "a\u{0}b"}}),
        )),
    );
    assert_eq!(first_code(&r), Some(ErrorCode::InvalidPlanStructure));
}

pub fn huge_plans_are_handled_and_deep_ones_refused_without_a_crash(env: &Env) {
    // 5,000 values in an IN list and a 1 MB literal: rendered and run.
    let values: Vec<Json> = (0..5_000)
        .map(|i| json!({"kind": "literal", "value": i}))
        .collect();
    let big = "x".repeat(1 << 20);
    let p = plan(json!({
        "tables": [{"name": "Track", "alias": "t"}],
        "select_items": [{"expr": col("t", "TrackId")}],
        "where": {"kind": "binary", "op": "AND",
            "left": {"kind": "binary", "op": "IN", "left": col("t", "TrackId"),
                     "right": {"kind": "func", "func_name": "TUPLE", "args": values}},
            "right": {"kind": "binary", "op": "!=", "left": col("t", "Name"),
                      "right": {"kind": "literal", "value": big}}}
    }));
    let r = run(env, &p);
    assert_eq!(
        r.frame.as_ref().map(|f| f.rows.len()),
        Some(3503),
        "{:?}",
        r.errors
    );
    // 2,000 select items.
    let items: Vec<Json> = (0..2_000)
        .map(|_| json!({"expr": col("t", "Name")}))
        .collect();
    let r = run(
        env,
        &plan(
            json!({"tables": [{"name": "Track", "alias": "t"}], "select_items": items, "limit": 1}),
        ),
    );
    // PostgreSQL's select list holds at most 1,664 entries: its own clear refusal stands.
    match env.db.dialect() {
        Dialect::Postgres => assert!(
            r.errors
                .iter()
                .any(|e| e.error_code == ErrorCode::ExecutionFailed && e.message.contains("1664")),
            "{:?}",
            r.errors
        ),
        _ => assert_eq!(
            r.frame.map(|f| f.columns.len()),
            Some(2_000),
            "{:?}",
            r.errors
        ),
    }
    // Nesting beyond the cap is a shape error, in the parse, not a stack overflow.
    let mut deep = json!({"kind": "literal", "value": 1});
    for _ in 0..60 {
        deep = json!({"kind": "unary", "op": "-", "expr": deep});
    }
    let text = track_plan(json!({"expr": deep})).to_string();
    let err = Plan::from_json(&text).expect_err("too deep");
    assert!(err.to_string().contains("deep"), "{err}");
    // JSON nested far past any limit is refused by the parser itself.
    let text = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    assert!(Plan::from_json(&text).is_err());
}

/// Writes, several statements and other tricks, each refused on import
/// (SECURITY_VIOLATION); every front end that takes SQL runs this list.
pub const REFUSED_SQL: [&str; 12] = [
    "SELECT 1; DROP TABLE Track",
    "DELETE FROM Track",
    "UPDATE Track SET Name = 'x'",
    "DROP TABLE Track",
    "PRAGMA writable_schema = 1",
    "ATTACH DATABASE 'x.db' AS x",
    "SELECT * INTO Copy FROM Track",
    "WITH x AS (SELECT 1) DELETE FROM Track",
    "INSERT INTO Genre (Name) SELECT 'x'",
    "VACUUM",
    "",
    "   -- only a comment",
];

/// Read-only, but reaching outside the schema or the allow-list: refused with these codes.
pub const OUTSIDE_SQL: [(&str, ErrorCode); 4] = [
    ("SELECT name FROM sqlite_master", ErrorCode::TableNotFound),
    (
        "SELECT load_extension('evil')",
        ErrorCode::UnsupportedFunction,
    ),
    (
        "SELECT t.Name FROM Track t WHERE load_extension('evil') = 1",
        ErrorCode::UnsupportedFunction,
    ),
    (
        "SELECT t.Name FROM Track t WHERE t.Name GLOB '*'",
        ErrorCode::SqlImportFailed,
    ),
];

pub fn hostile_sql_is_refused_on_import(env: &Env) {
    assert_import_refused(env, &REFUSED_SQL, ErrorCode::SecurityViolation);
    // Read-only, but reaching outside the schema or the allow-list: refused by the validator.
    let policies = Policies::demo();
    let scope = policies.scope(&[]);
    for (sql, code) in OUTSIDE_SQL {
        let got = match import_sql(sql, &env.schema, Dialect::Sqlite) {
            Err(e) => e.error_code,
            Ok(plan) => {
                let r = pollster::block_on(run_plan(
                    &plan,
                    &*env.db,
                    &env.schema,
                    &scope,
                    &ValidatorSettings::default(),
                ));
                first_code(&r).unwrap_or_else(|| panic!("{sql} ran"))
            }
        };
        assert_eq!(got, code, "{sql}");
    }
    // Comments and odd spacing in an honest query are fine.
    let plan = import_sql(
        "SELECT/**/t.Name -- the name\nFROM Track t WHERE t.TrackId = 1",
        &env.schema,
        Dialect::Sqlite,
    )
    .expect("imports");
    let r = pollster::block_on(run_plan(
        &plan,
        &*env.db,
        &env.schema,
        &scope,
        &ValidatorSettings::default(),
    ));
    assert_eq!(r.frame.map(|f| f.rows.len()), Some(1));
}

pub fn long_chains_are_bounded_or_flattened(env: &Env) {
    let policies = Policies::demo();
    let scope = policies.scope(&[]);
    // 101 set operations: too large to check, refused before parsing.
    let unions = vec!["SELECT g.Name FROM Genre g"; 102].join(" UNION ");
    let err = import_sql(&unions, &env.schema, Dialect::Sqlite).expect_err("too many");
    assert_eq!(err.error_code, ErrorCode::SecurityViolation, "{err}");
    // The same in a plan: the validator's static checks refuse it before anything renders.
    let member = json!({"op": "union", "plan": {"tables": [{"name": "Genre", "alias": "g"}],
                        "select_items": [{"expr": col("g", "Name")}]}});
    let text = json!({"tables": [{"name": "Genre", "alias": "g"}],
                      "select_items": [{"expr": col("g", "Name")}],
                      "set_operations": vec![member; 101]})
    .to_string();
    let wide = Plan::from_json(&text).expect("the shape is fine");
    let v = nl2sql_core::validate::validate(Some(&wide), &env.schema, &scope, &Default::default());
    assert!(
        v.errors
            .iter()
            .any(|e| e.message.contains("100 set operations")),
        "{:?}",
        v.errors
    );
    // A 300-term OR chain from SQL imports (as a balanced tree), renders flat and runs.
    let terms: Vec<String> = (1..=300).map(|i| format!("t.TrackId = {i}")).collect();
    let sql = format!("SELECT t.Name FROM Track t WHERE {}", terms.join(" OR "));
    let imported = import_sql(&sql, &env.schema, Dialect::Sqlite).expect("imports");
    let r = pollster::block_on(run_plan(
        &imported,
        &*env.db,
        &env.schema,
        &scope,
        &ValidatorSettings::default(),
    ));
    assert_eq!(r.frame.map(|f| f.rows.len()), Some(300), "{:?}", r.errors);
    // A variadic call with more arguments than any real one is refused.
    let args: Vec<Json> = (0..101)
        .map(|i| json!({"kind": "literal", "value": i}))
        .collect();
    let r = run(
        env,
        &plan(track_plan(
            json!({"expr": {"kind": "func", "func_name": "COALESCE", "args": args}}),
        )),
    );
    assert_eq!(
        first_code(&r),
        Some(ErrorCode::InvalidPlanStructure),
        "{:?}",
        r.errors
    );
}

pub fn sql_whose_meaning_a_plan_cannot_keep_is_refused(env: &Env) {
    let refused = [
        "SELECT value FROM json_each('[1, 2]')",
        "SELECT * EXCLUDE (Name) FROM Genre",
        "SELECT CAST(t.UnitPrice AS NUMERIC) FROM Track t",
        "SELECT CAST(t.Name AS VARCHAR(3)) FROM Track t",
        "SELECT CAST(i.InvoiceDate AS DATE) FROM Invoice i",
        "SELECT t.Name FROM Track t WHERE t.Name LIKE 'a!%' ESCAPE '!'",
    ];
    assert_import_refused(env, &refused, ErrorCode::SqlImportFailed);
    // Another schema is kept, so the validator refuses it instead of reading main.
    let imported = import_sql(
        "SELECT g.Name FROM aux.Genre g",
        &env.schema,
        Dialect::Sqlite,
    )
    .expect("imports");
    let r = run(env, &imported);
    assert_eq!(
        first_code(&r),
        Some(ErrorCode::TableNotFound),
        "{:?}",
        r.errors
    );
}
