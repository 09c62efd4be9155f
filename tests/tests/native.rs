//! The datasource contract suite on rusqlite, natively, against the files in `data/`; a
//! DuckDB file with several schemas.
#![cfg(not(target_arch = "wasm32"))]

use nl2sql_core::DatasourceErrorKind;
use nl2sql_native::SqliteFile;
use nl2sql_tests::contract;
use nl2sql_tests::native::{data_dir, open};
use std::path::PathBuf;

macro_rules! native_checks {
    (; $($check:ident),* $(,)?) => {
        $(
            #[test]
            fn $check() {
                pollster::block_on(contract::$check(&open));
            }
        )*
    };
}

nl2sql_tests::for_each_contract_check!(native_checks);

#[test]
fn a_file_that_is_not_a_database_is_unavailable() {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml");
    let err = SqliteFile::open("x", manifest)
        .err()
        .expect("a TOML file is not a database");
    assert_eq!(err.kind, DatasourceErrorKind::Unavailable, "{err}");
    let err = SqliteFile::open("x", data_dir().join("no-such.sqlite"))
        .err()
        .expect("missing file");
    assert_eq!(err.kind, DatasourceErrorKind::Unavailable, "{err}");
}

/// Tables of a schema other than `main` are read too, named `schema.table`, with their
/// statistics, and SQL naming them qualified (or bare, where unique) runs on them.
#[test]
fn every_schema_is_read_and_the_others_are_named_schema_table() {
    use nl2sql_core::policy::Policies;
    use nl2sql_core::run::{sql_mode, SqlQuery};
    use nl2sql_core::validate::ValidatorSettings;
    use nl2sql_core::Metadata;
    use nl2sql_core::Value;
    use nl2sql_native::DuckDbFile;
    let path = duckdb_file(
        "schemas.duckdb",
        "CREATE TABLE t (a BIGINT PRIMARY KEY); INSERT INTO t VALUES (1); \
         CREATE SCHEMA sales; \
         CREATE TABLE sales.deals (id INTEGER PRIMARY KEY, amount DECIMAL(10,2)); \
         INSERT INTO sales.deals VALUES (1, 9.50), (2, 20.00); \
         CREATE TABLE sales.t (z VARCHAR); INSERT INTO sales.t VALUES ('a'), ('b')",
    );
    let db = DuckDbFile::open("shop", &path).unwrap();
    let schema = pollster::block_on(db.introspect()).unwrap();
    let names: Vec<(&str, Option<&str>)> = (schema.tables.iter())
        .map(|t| (t.name.as_str(), t.schema.as_deref()))
        .collect();
    assert_eq!(
        names,
        [
            ("sales.deals", Some("sales")),
            ("sales.t", Some("sales")),
            ("t", None)
        ]
    );
    assert_eq!(schema.schema.as_deref(), Some("main"));
    assert_eq!(schema.table("sales.t").map(|t| t.row_count), Some(2));
    let run = |sql: &str| {
        let ran = pollster::block_on(sql_mode(
            &db,
            &schema,
            &Policies::read_all(),
            &SqlQuery::sql(sql),
            &ValidatorSettings::default(),
        ));
        assert!(ran.errors.is_empty(), "{sql}: {:?}", ran.errors);
        ran.rows
    };
    let total = vec![vec![Value::Real(29.5)]];
    assert_eq!(run("SELECT SUM(amount) FROM sales.deals"), total);
    assert_eq!(run("SELECT SUM(amount) FROM deals"), total);
    assert_eq!(run("SELECT COUNT(*) FROM main.t"), [[Value::Integer(1)]]);
    assert_eq!(run("SELECT COUNT(*) FROM t"), [[Value::Integer(1)]]);
    assert_eq!(run("SELECT COUNT(*) FROM sales.t"), [[Value::Integer(2)]]);
}

/// A project file's `schemas` limits what is read: only the listed schemas' tables (the
/// connection's own schema too only when listed), and a listed schema that holds nothing
/// is said on `nl2sql schema`'s report and on every run, not silently empty. SQLite reads
/// one schema, so a list for it leaves that datasource out with CONFIG_INVALID.
#[test]
fn a_project_reads_only_the_schemas_it_lists_and_says_which_hold_nothing() {
    use nl2sql_core::error::ErrorCode;
    use nl2sql_core::policy::Policies;
    use nl2sql_native::project::Project;
    use nl2sql_native::Sources;
    use std::rc::Rc;
    let path = duckdb_file(
        "listed.duckdb",
        "CREATE TABLE t (a BIGINT); INSERT INTO t VALUES (1); \
         CREATE SCHEMA sales; CREATE TABLE sales.deals (id INTEGER, amount DECIMAL(10,2)); \
         INSERT INTO sales.deals VALUES (1, 9.50); \
         CREATE SCHEMA finance; CREATE TABLE finance.ledger (id INTEGER); \
         INSERT INTO finance.ledger VALUES (1)",
    );
    let sources = |schemas: &str| {
        let toml = format!(
            "[[datasources]]\nid = \"shop\"\nconnection = {:?}\nschemas = {schemas}\n",
            path.display().to_string()
        );
        let project = Project::parse(&toml, &path.with_file_name("nl2sql.toml")).unwrap();
        Sources::Project(Rc::new(project))
    };
    let names = |sources: &Sources| {
        let (_, schema, report) = sources.schema(Some("shop")).unwrap();
        let names: Vec<String> = schema.tables.iter().map(|t| t.name.clone()).collect();
        (names, report.dropped)
    };
    assert_eq!(
        names(&sources(r#"["sales"]"#)),
        (vec!["sales.deals".to_string()], vec![])
    );
    // DuckDB reads names without regard to case, schemas' too.
    assert_eq!(
        names(&sources(r#"["SALES"]"#)),
        (vec!["sales.deals".to_string()], vec![])
    );
    let (read, dropped) = names(&sources(r#"["main", "finance", "nowhere"]"#));
    assert_eq!(read, ["finance.ledger", "t"]);
    assert_eq!(
        dropped,
        ["schema nowhere of shop, listed in its schemas, holds no table it may read"]
    );
    let workspace = sources(r#"["sales", "nowhere"]"#)
        .workspace(Policies::read_all())
        .unwrap();
    let said: Vec<_> = workspace
        .notices()
        .iter()
        .map(|n| (&n.audience, n.warning.code, n.warning.message.as_str()))
        .collect();
    let shop = nl2sql_core::workspace::Audience::Whole {
        datasource: "shop".into(),
    };
    assert_eq!(
        said,
        [(
            &shop,
            ErrorCode::ConfigInvalid,
            "Schema nowhere of shop, listed in its schemas, holds no table it may read."
        )]
    );

    let sqlite = data_dir().join("support.sqlite");
    let toml = format!(
        "[[datasources]]\nid = \"support\"\nconnection = {:?}\nschemas = [\"main\"]\n",
        sqlite.display().to_string()
    );
    let project = Project::parse(&toml, &path.with_file_name("nl2sql.toml")).unwrap();
    let readings = Sources::Project(Rc::new(project)).read_all(false);
    let left_out: Vec<_> = (readings.unavailable.iter())
        .map(|u| (u.id.as_str(), u.code))
        .collect();
    assert_eq!(left_out, [("support", ErrorCode::ConfigInvalid)]);
    assert!(
        readings.unavailable[0].reason.contains("reads one schema"),
        "{}",
        readings.unavailable[0].reason
    );
}

/// A DuckDB file `name`, made anew in this process's temporary folder by `sql`.
fn duckdb_file(name: &str, sql: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("nl2sql-duckdb-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    let _ = std::fs::remove_file(&path);
    ::duckdb::Connection::open(&path)
        .and_then(|w| w.execute_batch(sql))
        .unwrap();
    path
}
