//! Every engine the native front ends reach beyond SQLite (PostgreSQL, MariaDB, DuckDB and
//! Spark), held to what SQLite does: the
//! datasource contract suite, the reference's 43 gold plans for every role, our own 57 gold
//! queries (run on SQLite as written, imported as plans and rendered for the engine), the
//! hostile corpus, a runaway query stopped at its limit, and (on PostgreSQL) the random
//! plans of the plan language's newer constructs against SQLite. The server suites need the
//! servers `cargo xtask test` starts and are ignored in a plain `cargo test`; DuckDB's runs
//! on files the tests copy themselves.
#![cfg(not(target_arch = "wasm32"))]

mod constructs;

/// `$item` with the attributes in braces before it.
macro_rules! marked {
    ({ $(#[$meta:meta])* } $item:item) => {
        $(#[$meta])*
        $item
    };
}

/// The contract suite's checks on the engine `$opener` opens, each test marked `$marks`.
macro_rules! contract_on {
    ($marks:tt $opener:path ; $($check:ident),* $(,)?) => {
        $(
            marked!($marks #[test] fn $check() {
                pollster::block_on(nl2sql_tests::contract::$check(&$opener));
            });
        )*
    };
}

/// The hostile corpus on Chinook on the engine `$opener` opens, each test marked `$marks`.
macro_rules! hostile_on {
    ($marks:tt $opener:path ; $($check:ident),* $(,)?) => {
        $(
            marked!($marks #[test] fn $check() {
                let env = nl2sql_tests::hostile::Env::new($opener("chinook"));
                nl2sql_tests::hostile::$check(&env);
            });
        )*
    };
}

/// One engine's whole suite, in a module named after it, each test marked `$meta` (a
/// server's: ignored unless the servers run).
macro_rules! server_suite {
    ($engine:ident, $server:expr, $opener:path $(, #[$meta:meta])*) => {
        mod $engine {
            use nl2sql_core::{DatasourceErrorKind, ExecLimits, Metadata, Value};
            use nl2sql_tests::gold::{run_own_suite_against, run_reference_suite};
            use nl2sql_tests::native::chinook;
            use nl2sql_tests::servers::Server;
            use std::time::Instant;

            const SERVER: Server = $server;

            mod contract {
                nl2sql_tests::for_each_contract_check!(contract_on, { $(#[$meta])* }, $opener);
            }

            mod hostile {
                nl2sql_tests::for_each_hostile_check!(hostile_on, { $(#[$meta])* }, $opener);
            }

            #[test]
            $(#[$meta])*
            fn returns_the_gold_rows_for_every_reference_plan_and_role() {
                let outcome = pollster::block_on(run_reference_suite(&*SERVER.open("chinook")));
                assert_eq!(outcome.runs, 129, "43 plans, 3 roles each");
                outcome.assert_passed();
            }

            #[test]
            $(#[$meta])*
            fn agrees_with_sqlite_on_our_own_gold_queries() {
                let mut outcome =
                    pollster::block_on(run_own_suite_against(&*SERVER.open("chinook"), &chinook()));
                assert_eq!(outcome.runs, 57);
                // A difference by nature, kept: Canada's average spend is exactly 37.995.
                // The servers' exact decimals round it to 38.00; SQLite's binary floats
                // (and DuckDB's, whose average of decimals is a double) hold 37.99499… and
                // round down. The servers' answer is the right one (docs/engines.md).
                let before = outcome.failures.len();
                outcome
                    .failures
                    .retain(|f| !(f.starts_with("own_026:") && f.contains("Real(38.0)")));
                let exact = SERVER != Server::DuckDb;
                assert_eq!(
                    before - outcome.failures.len(),
                    usize::from(exact),
                    "own_026 differs as documented"
                );
                outcome.assert_passed();
            }

            #[test]
            $(#[$meta])*
            fn reads_a_view_like_a_table_and_marks_it() {
                let db = super::with_view(SERVER);
                let s = pollster::block_on(db.introspect()).unwrap_or_else(|e| panic!("{e}"));
                let view = s.table("ticket_load").expect("the view is in the snapshot");
                assert!(view.view && !s.table("tickets").unwrap().view);
                assert_eq!(view.row_count, 4, "one row per priority");
                assert!(view.foreign_keys.is_empty() && view.primary_key().is_empty());
                let priority = view.column("priority").unwrap();
                assert_eq!(priority.category, nl2sql_core::TypeCategory::Text);
                assert_eq!(
                    priority.stats.sample_values,
                    vec!["high", "low", "medium", "urgent"]
                );
                assert_eq!(
                    pollster::block_on(db.fingerprint()).as_deref(),
                    Ok(s.fingerprint.as_str())
                );
                // A question's plan reads it as it reads a table.
                let sql = "SELECT l.n FROM ticket_load AS l WHERE l.priority = 'urgent'";
                let plan = nl2sql_core::import::import_sql(sql, &s, nl2sql_core::Dialect::Sqlite)
                    .unwrap_or_else(|e| panic!("{e:?}"));
                let policies = nl2sql_core::policy::Policies::demo();
                let run = pollster::block_on(nl2sql_core::run::run_plan(
                    &plan,
                    &*db,
                    &s,
                    &policies.scope(&["admin".to_string()]),
                    &nl2sql_core::validate::ValidatorSettings::default(),
                ));
                assert!(run.succeeded(), "{:?}", run.errors);
                let urgent = run.frame.map(|f| f.rows).unwrap_or_default();
                assert!(matches!(urgent.as_slice(), [row] if matches!(row[0], Value::Integer(n) if n > 0)));
            }

            #[test]
            $(#[$meta])*
            fn percentiles_agree_with_sqlites_numbered_rows() {
                super::percentiles_agree(&*SERVER.open("chinook"));
            }

            /// A name written for the server's dialect.
            fn q(db: &dyn nl2sql_core::Datasource, name: &str) -> String {
                nl2sql_core::lower::quote_name(name, db.dialect())
            }

            #[test]
            $(#[$meta])*
            fn stops_a_runaway_query_at_its_limit_and_stays_usable() {
                let db = SERVER.open("chinook");
                // A self-join on a key with five values, twice: billions of rows.
                let (track, m) = (q(&*db, "Track"), q(&*db, "MediaTypeId"));
                let sql = format!(
                    "SELECT COUNT(*) FROM {track} a JOIN {track} b ON a.{m} = b.{m} \
                     JOIN {track} c ON b.{m} = c.{m}"
                );
                let started = Instant::now();
                let limits = ExecLimits {
                    max_rows: 10,
                    timeout_ms: Some(300),
                    reading: false,
                };
                let err =
                    pollster::block_on(db.execute(&sql, limits)).expect_err("it runs for minutes");
                let took = started.elapsed();
                assert_eq!(err.kind, DatasourceErrorKind::TimedOut, "{err}");
                assert!(err.message.contains("300 ms"), "{err}");
                eprintln!(
                    "{:?}: runaway query stopped after {} ms",
                    SERVER,
                    took.as_millis()
                );
                // The session is still usable, and a later query without a limit has none.
                let count = pollster::block_on(db.execute(
                    &format!("SELECT COUNT(*) FROM {track}"),
                    ExecLimits::rows(10),
                ));
                assert_eq!(count.map(|f| f.rows), Ok(vec![vec![Value::Integer(3503)]]));
            }

            #[test]
            $(#[$meta])*
            fn stops_a_query_when_its_run_is_cancelled_and_stays_usable() {
                use std::sync::atomic::{AtomicBool, Ordering};
                use std::sync::Arc;
                let interrupt = nl2sql_native::Interrupt::new();
                let db = SERVER.open_interruptible("chinook", interrupt.clone());
                let (track, m) = (q(&*db, "Track"), q(&*db, "MediaTypeId"));
                let sql = format!(
                    "SELECT COUNT(*) FROM {track} a JOIN {track} b ON a.{m} = b.{m} \
                     JOIN {track} c ON b.{m} = c.{m}"
                );
                let flag = Arc::new(AtomicBool::new(false));
                interrupt.watch(Arc::clone(&flag));
                let setter = Arc::clone(&flag);
                let cancel = std::thread::spawn(move || {
                    std::thread::sleep(std::time::Duration::from_millis(200));
                    setter.store(true, Ordering::SeqCst);
                });
                let started = Instant::now();
                let limits = ExecLimits {
                    max_rows: 10,
                    timeout_ms: Some(60_000),
                    reading: false,
                };
                let err = pollster::block_on(db.execute(&sql, limits)).expect_err("cancelled");
                let took = started.elapsed();
                let _ = cancel.join();
                assert_eq!(err.kind, DatasourceErrorKind::Cancelled, "{err}");
                assert!(took.as_millis() < 3_000, "{} ms", took.as_millis());
                eprintln!(
                    "{:?}: cancelled query stopped {} ms after its start (cancel at 200 ms)",
                    SERVER,
                    took.as_millis()
                );
                // The next run's queries are not stopped.
                interrupt.clear();
                let count = pollster::block_on(db.execute(
                    &format!("SELECT COUNT(*) FROM {track}"),
                    ExecLimits::rows(10),
                ));
                assert_eq!(count.map(|f| f.rows), Ok(vec![vec![Value::Integer(3503)]]));
            }

            #[test]
            $(#[$meta])*
            fn sessions_are_read_only_whatever_the_guard_says() {
                // A write that got past the guard would meet a read-only transaction: the
                // server itself refuses it. Spark has no such session: there the guard is
                // the barrier, and it must hold against what reaches past the tables.
                let db = SERVER.open("chinook");
                if db.dialect() == nl2sql_core::Dialect::Spark {
                    super::spark_reaches_nothing_outside(&*db);
                    return;
                }
                if db.dialect() == nl2sql_core::Dialect::Postgres {
                    // A query that turns the session's settings off changes them only in its
                    // own transaction, which is rolled back.
                    for off in [
                        "SELECT set_config('default_transaction_read_only', 'off', false)",
                        "SELECT set_config('transaction_read_only', 'off', false)",
                        "SELECT set_config('statement_timeout', '0', false)",
                    ] {
                        let _ = pollster::block_on(db.execute(off, ExecLimits::rows(1)));
                    }
                    let still = pollster::block_on(db.execute(
                        "SELECT current_setting('default_transaction_read_only')",
                        ExecLimits::rows(1),
                    ));
                    assert_eq!(still.map(|f| f.rows), Ok(vec![vec![Value::Text("on".into())]]));
                }
                if db.dialect() == nl2sql_core::Dialect::MySql {
                    // Code the server would run from inside a comment never reaches it.
                    for hidden in [
                        "SELECT 1 /*!50000 , SLEEP(5) */",
                        "SELECT 1 /*M! , SLEEP(5) */",
                        "SELECT /*+ MAX_EXECUTION_TIME(0) */ 1",
                    ] {
                        let out = pollster::block_on(db.execute(hidden, ExecLimits::rows(1)));
                        assert!(
                            matches!(&out, Err(e) if e.kind == DatasourceErrorKind::Refused),
                            "{hidden}: {out:?}"
                        );
                    }
                }
                if db.dialect() == nl2sql_core::Dialect::DuckDb {
                    // Nothing outside the file, and no setting can be changed back.
                    for outside in [
                        "SELECT * FROM read_csv('/etc/passwd')",
                        "SELECT * FROM glob('/etc/*')",
                    ] {
                        let out = pollster::block_on(db.execute(outside, ExecLimits::rows(1)));
                        assert!(out.is_err(), "{outside}: {out:?}");
                    }
                }
                let sql = match db.dialect() {
                    nl2sql_core::Dialect::Postgres => {
                        "SELECT current_setting('transaction_read_only')"
                    }
                    nl2sql_core::Dialect::DuckDb => "SELECT current_setting('access_mode')",
                    // MariaDB's name; MySQL 8 calls it transaction_read_only.
                    _ => "SELECT @@session.tx_read_only",
                };
                let out = pollster::block_on(db.execute(sql, ExecLimits::rows(1))).map(|f| f.rows);
                let on = match db.dialect() {
                    nl2sql_core::Dialect::Postgres => Value::Text("on".into()),
                    nl2sql_core::Dialect::DuckDb => Value::Text("read_only".into()),
                    _ => Value::Integer(1),
                };
                assert_eq!(out, Ok(vec![vec![on]]));
            }
        }
    };
}

/// What a Spark query must never do, each refused by the guard before Spark sees it, and
/// the file read the session's own setting refuses behind the guard.
fn spark_reaches_nothing_outside(db: &dyn nl2sql_core::Datasource) {
    use nl2sql_core::{DatasourceErrorKind, ExecLimits};
    let refused = |sql: &str| {
        let out = pollster::block_on(db.execute(sql, ExecLimits::rows(1)));
        assert!(
            matches!(&out, Err(e) if e.kind == DatasourceErrorKind::Refused),
            "{sql}: {out:?}"
        );
    };
    for sql in [
        "SELECT * FROM csv.`/etc/passwd`",
        "SELECT * FROM text.`/etc/passwd`",
        "SELECT * FROM PARQUET.`/tmp`",
        "SELECT java_method('java.lang.System', 'exit', 1)",
        "SELECT reflect('java.lang.Thread', 'sleep', 60000L)",
        "SELECT a.x FROM (SELECT try_reflect('java.lang.System', 'getenv', 'HOME') AS x) a",
        "SELECT * FROM read_files('/etc')",
        "SELECT * FROM IDENTIFIER('csv.`/etc/passwd`')",
        "TABLE csv.`/etc/passwd`",
        "SELECT R'\\' AS a, reflect('java.lang.System', 'exit', 1) AS b --'",
        "SELECT secret('scope', 'key')",
        "SET spark.sql.runSQLOnFiles = true",
        "ADD JAR '/tmp/x.jar'",
        "CACHE TABLE Track",
        "INSERT OVERWRITE DIRECTORY '/tmp/out' SELECT 1",
        "SELECT 1; DROP TABLE Track",
        "SELECT \"x\"; DROP TABLE Track",
        "SELECT 'a\\\\'; DROP TABLE Track",
    ] {
        refused(sql);
    }
    // Read as Spark reads them: one string, one nested comment, so nothing runs after.
    for harmless in [
        "SELECT 'a\\'; DROP TABLE Track; --' AS s",
        "SELECT \"x; DROP TABLE Track\" AS s",
        "SELECT 1 /* /* */ ; DROP TABLE Track; */ AS one",
    ] {
        let out = pollster::block_on(db.execute(harmless, ExecLimits::rows(1)));
        assert!(out.is_ok(), "{harmless}: {out:?}");
    }
    let count = pollster::block_on(db.execute("SELECT COUNT(*) FROM Track", ExecLimits::rows(1)));
    assert_eq!(
        count.map(|f| f.rows),
        Ok(vec![vec![nl2sql_core::Value::Integer(3503)]]),
        "nothing was dropped"
    );
}

/// A median, a descending quartile, the last track's length and a regression slope per
/// genre on `db` (natively, or from numbered rows and sums where the server has no such
/// aggregate) and on SQLite (numbered rows, sums): the same values, within a double's
/// rounding.
fn percentiles_agree(db: &dyn nl2sql_core::Datasource) {
    use nl2sql_core::{Metadata, Value};
    let plan: nl2sql_core::plan::Plan = serde_json::from_value(serde_json::json!({
        "tables": [{"name": "Track", "alias": "t"}],
        "select_items": [
            {"expr": {"kind": "column", "alias": "t", "column_name": "GenreId"}},
            {"expr": {"kind": "func", "func_name": "MEDIAN",
                      "args": [{"kind": "column", "alias": "t", "column_name": "Milliseconds"}]},
             "alias": "median"},
            {"expr": {"kind": "func", "func_name": "PERCENTILE_CONT",
                      "args": [{"kind": "literal", "value": 0.25}],
                      "order_by": [{"expr": {"kind": "column", "alias": "t", "column_name": "Milliseconds"},
                                    "direction": "desc"}]},
             "alias": "upper_quartile"},
            {"expr": {"kind": "func", "func_name": "ARG_MAX",
                      "args": [{"kind": "column", "alias": "t", "column_name": "Milliseconds"},
                               {"kind": "column", "alias": "t", "column_name": "TrackId"}]},
             "alias": "last_track_length"},
            {"expr": {"kind": "func", "func_name": "REGR_SLOPE",
                      "args": [{"kind": "column", "alias": "t", "column_name": "Milliseconds"},
                               {"kind": "column", "alias": "t", "column_name": "Bytes"}]},
             "alias": "ms_per_byte"}
        ],
        "group_by": [{"expr": {"kind": "column", "alias": "t", "column_name": "GenreId"}}],
        "order_by": [{"expr": {"kind": "column", "alias": "t", "column_name": "GenreId"}}]
    }))
    .unwrap_or_else(|e| panic!("{e}"));
    let rows = |db: &dyn nl2sql_core::Datasource| {
        let schema = pollster::block_on(db.introspect()).unwrap_or_else(|e| panic!("{e}"));
        let policies = nl2sql_core::policy::Policies::demo();
        let run = pollster::block_on(nl2sql_core::run::run_plan(
            &plan,
            db,
            &schema,
            &policies.scope(&["admin".to_string()]),
            &nl2sql_core::validate::ValidatorSettings::default(),
        ));
        assert!(run.succeeded(), "{:?} {:?}", run.errors, run.sql);
        run.frame.map(|f| f.rows).unwrap_or_default()
    };
    let number = |v: &Value| match v {
        Value::Integer(i) => *i as f64,
        Value::Real(r) => *r,
        Value::Text(t) => t.parse().unwrap_or(f64::NAN),
        other => panic!("not a number: {other:?}"),
    };
    let theirs = rows(db);
    let ours = rows(&nl2sql_tests::native::chinook());
    assert_eq!(theirs.len(), 25, "one row per genre");
    assert_eq!(theirs.len(), ours.len());
    for (a, b) in theirs.iter().zip(&ours) {
        for (x, y) in a.iter().zip(b) {
            // A genre of one track has no slope on either.
            if matches!((x, y), (Value::Null, Value::Null)) {
                continue;
            }
            let (x, y) = (number(x), number(y));
            assert!(
                (x - y).abs() <= 1e-9 * x.abs().max(1.0),
                "{a:?} against {b:?}"
            );
        }
    }
}

/// The support desk copied into a database of its own on `server`, with a view
/// `ticket_load` (tickets per priority) written into it by a client that may write.
fn with_view(server: nl2sql_tests::servers::Server) -> Box<dyn nl2sql_core::Datasource> {
    use nl2sql_core::lower::quote_name;
    use nl2sql_tests::servers::Server;
    let name = format!("views_{}", std::process::id());
    let address = match server {
        Server::DuckDb => std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("{name}.duckdb"))
            .to_string_lossy()
            .into_owned(),
        _ => server.address(&name),
    };
    if server == Server::DuckDb {
        let _ = std::fs::remove_file(&address);
    }
    let target = nl2sql_native::address::Address::parse(&address).unwrap();
    let support = nl2sql_tests::native::data_dir().join("support.sqlite");
    nl2sql_native::copy::copy(&support, &target, true, &mut |_| {})
        .unwrap_or_else(|e| panic!("{e}"));
    let dialect = match server {
        Server::Postgres => nl2sql_core::Dialect::Postgres,
        Server::MariaDb => nl2sql_core::Dialect::MySql,
        Server::DuckDb => nl2sql_core::Dialect::DuckDb,
        Server::Spark => nl2sql_core::Dialect::Spark,
    };
    let q = |n: &str| quote_name(n, dialect);
    // Spark's session reads its current database, not the address's: names are qualified.
    let within = |table: &str| match server {
        Server::Spark => format!("{}.{}", q(&name), q(table)),
        _ => q(table),
    };
    let create = format!(
        "CREATE OR REPLACE VIEW {} AS SELECT {p}, COUNT(*) AS {n} FROM {} GROUP BY {p}",
        within("ticket_load"),
        within("tickets"),
        p = q("priority"),
        n = q("n"),
    );
    match server {
        Server::Postgres => {
            let mut client = ::postgres::Client::connect(&address, ::postgres::NoTls).unwrap();
            client.batch_execute(&create).unwrap();
        }
        Server::MariaDb => {
            use ::mysql::prelude::Queryable;
            let mut conn = ::mysql::Conn::new(::mysql::Opts::from_url(&address).unwrap()).unwrap();
            conn.query_drop(&create).unwrap();
        }
        Server::DuckDb => {
            let conn = ::duckdb::Connection::open(&address).unwrap();
            conn.execute_batch(&create).unwrap();
        }
        Server::Spark => {
            let spark = ::spark_connect::SparkSession::builder()
                .remote(&server.url())
                .get_or_create()
                .unwrap();
            spark.sql(&create).unwrap().collect().unwrap();
        }
    }
    server.open_address(&name, &address)
}

server_suite!(
    postgres,
    Server::Postgres,
    nl2sql_tests::servers::postgres,
    #[ignore = "needs the servers cargo xtask test starts"]
);
server_suite!(
    mariadb,
    Server::MariaDb,
    nl2sql_tests::servers::mariadb,
    #[ignore = "needs the servers cargo xtask test starts"]
);
server_suite!(duckdb, Server::DuckDb, nl2sql_tests::servers::duckdb);
server_suite!(
    spark,
    Server::Spark,
    nl2sql_tests::servers::spark,
    #[ignore = "needs the servers cargo xtask test starts"]
);

/// TLS to each server as an address asks: `verify-full` checks the certificate against the
/// authority `sslrootcert` names (and refuses one it cannot check), `require` encrypts
/// without checking, `disable` does not encrypt. Whether the session is encrypted is read
/// from the server itself.
#[test]
#[ignore = "needs the servers cargo xtask test starts"]
fn connects_over_tls_as_the_address_asks() {
    use nl2sql_core::{ExecLimits, Value};
    use nl2sql_tests::servers::Server;
    let ca = std::env::var("NL2SQL_TLS_CA")
        .unwrap_or_else(|_| panic!("NL2SQL_TLS_CA is not set: `cargo xtask test` sets it"));
    for server in [Server::Postgres, Server::MariaDb] {
        let base = server.address("chinook");
        let encrypted = |query: &str| -> bool {
            let db = server.open_address("chinook", &format!("{base}?{query}"));
            let sql = match server {
                Server::Postgres => "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()",
                _ => {
                    "SELECT VARIABLE_VALUE FROM information_schema.SESSION_STATUS \
                     WHERE VARIABLE_NAME = 'Ssl_cipher'"
                }
            };
            let rows = pollster::block_on(db.execute(sql, ExecLimits::rows(1)))
                .map(|f| f.rows)
                .unwrap_or_else(|e| panic!("{server:?} {query}: {e}"));
            match rows.first().and_then(|r| r.first()) {
                Some(Value::Integer(1)) => true,
                Some(Value::Text(cipher)) => !cipher.is_empty(),
                Some(Value::Blob(cipher)) => !cipher.is_empty(),
                _ => false,
            }
        };
        assert!(
            encrypted(&format!("sslmode=verify-full&sslrootcert={ca}")),
            "{server:?}: verify-full with the authority"
        );
        assert!(encrypted("sslmode=require"), "{server:?}: require");
        assert!(!encrypted("sslmode=disable"), "{server:?}: disable");
        // Without the authority the certificate cannot be checked: no connection, and a
        // password given is not in what is said.
        let unchecked = format!(
            "{}?sslmode=verify-full",
            base.replacen("nl2sql@", "nl2sql:hunter2@", 1)
        );
        match server.connect("chinook", &unchecked) {
            Ok(_) => panic!("{server:?}: verify-full took a certificate it could not check"),
            Err(e) => {
                assert!(
                    e.message.to_lowercase().contains("certificate")
                        && !e.message.contains("hunter2"),
                    "{server:?}: {e}"
                );
            }
        }
    }
}

/// A login the server refuses (a user it does not know) is DATASOURCE_AUTH_FAILED, and a
/// port where nothing listens DATASOURCE_UNREACHABLE: each said by its code, on PostgreSQL
/// and MariaDB alike.
#[test]
#[ignore = "needs the servers cargo xtask test starts"]
fn a_login_the_server_refuses_is_said_by_code() {
    use nl2sql_core::error::ErrorCode;
    use nl2sql_tests::servers::Server;
    let data = nl2sql_tests::native::data_dir();
    let opened = |address: &str| {
        nl2sql_native::Sources::new(Some(address), None, None, &data)
            .and_then(|sources| sources.open(None).map(|_| ()))
    };
    for server in [Server::Postgres, Server::MariaDb] {
        let base = server.address("chinook");
        let stranger = base.replacen("nl2sql@", "nobody_here:hunter2@", 1);
        assert_ne!(stranger, base, "{server:?}: the address names its user");
        match opened(&stranger) {
            Ok(()) => panic!("{server:?}: a user it does not know logged in"),
            Err(e) => assert!(
                e.code == ErrorCode::DatasourceAuthFailed && !e.message.contains("hunter2"),
                "{server:?}: {e:?}"
            ),
        }
    }
    let nowhere = Server::Postgres.address("chinook");
    let port = nowhere
        .rsplit_once(':')
        .map(|(_, rest)| rest)
        .unwrap_or_default();
    let port = port.split('/').next().unwrap_or_default();
    let nowhere = nowhere.replacen(&format!(":{port}/"), ":1/", 1);
    match opened(&nowhere) {
        Ok(()) => panic!("something listens on port 1"),
        Err(e) => assert_eq!(e.code, ErrorCode::DatasourceUnreachable, "{e:?}"),
    }
}

/// A PostgreSQL database with tables in `public` and in two other schemas, one table name
/// in both, a key across schemas: a plain address reads every schema the login may use
/// (the system's excepted), the current schema's tables by bare names and the others as
/// `schema.table`; SQL naming them either way (qualified, or bare where unique) imports
/// and runs against the right table; a policy can hide a whole schema; and a search path
/// makes another schema the current one.
#[test]
#[ignore = "needs the servers cargo xtask test starts"]
fn reads_every_postgresql_schema_and_names_the_others_schema_table() {
    use nl2sql_core::policy::Policies;
    use nl2sql_core::run::{sql_mode, SqlQuery};
    use nl2sql_core::validate::ValidatorSettings;
    use nl2sql_core::{Metadata, Value};
    use nl2sql_tests::servers::Server;
    let name = format!("schemas_{}", std::process::id());
    let base = Server::Postgres.address(&name);
    let target = nl2sql_native::address::Address::parse(&base).unwrap();
    let support = nl2sql_tests::native::data_dir().join("support.sqlite");
    nl2sql_native::copy::copy(&support, &target, true, &mut |_| {})
        .unwrap_or_else(|e| panic!("{e}"));
    let mut client = ::postgres::Client::connect(&base, ::postgres::NoTls).unwrap();
    client
        .batch_execute(
            "CREATE SCHEMA IF NOT EXISTS sales; CREATE SCHEMA IF NOT EXISTS \"Audit\"; \
             CREATE TABLE IF NOT EXISTS sales.deals (id integer PRIMARY KEY, \
               ticket_id integer REFERENCES public.tickets (ticket_id), amount numeric(10,2)); \
             INSERT INTO sales.deals VALUES (1, 1, 9.50), (2, 2, 20.00) ON CONFLICT DO NOTHING; \
             CREATE TABLE IF NOT EXISTS \"Audit\".tickets (id integer, note text); \
             INSERT INTO \"Audit\".tickets SELECT 1, 'seen' WHERE NOT EXISTS (SELECT 1 FROM \"Audit\".tickets)",
        )
        .unwrap();
    let db = Server::Postgres.open_address(&name, &base);
    let s = pollster::block_on(db.introspect()).unwrap_or_else(|e| panic!("{e}"));
    let names: Vec<&str> = s.tables.iter().map(|t| t.name.as_str()).collect();
    assert!(
        names.contains(&"tickets")
            && names.contains(&"sales.deals")
            && names.contains(&"Audit.tickets"),
        "{names:?}"
    );
    assert!(
        !names
            .iter()
            .any(|n| n.starts_with("pg_") || n.starts_with("information_schema")),
        "{names:?}"
    );
    assert_eq!(s.schema.as_deref(), Some("public"));
    let deals = s.table("sales.deals").unwrap();
    assert_eq!(deals.schema.as_deref(), Some("sales"));
    assert_eq!(
        deals.row_count, 2,
        "statistics read from the schema's own table"
    );
    assert_eq!(deals.foreign_keys[0].referenced_table, "tickets");

    let run = |sql: &str, policies: &Policies| {
        let query = SqlQuery {
            roles: vec!["admin".into()],
            ..SqlQuery::sql(sql)
        };
        let ran = pollster::block_on(sql_mode(
            &*db,
            &s,
            policies,
            &query,
            &ValidatorSettings::default(),
        ));
        let codes: Vec<_> = ran.errors.iter().map(|e| e.error_code).collect();
        (ran.rows, codes)
    };
    let all = Policies::demo();
    let total = vec![vec![Value::Real(29.5)]];
    for sql in [
        "SELECT SUM(amount) FROM sales.deals",
        "SELECT SUM(d.amount) FROM deals d",
        "SELECT SUM(d.amount) FROM sales.deals d JOIN public.tickets t ON t.ticket_id = d.ticket_id",
    ] {
        assert_eq!(run(sql, &all), (total.clone(), vec![]), "{sql}");
    }
    // A bare name shared by two schemas is the current schema's table.
    let (rows, codes) = run("SELECT COUNT(*) FROM \"Audit\".tickets", &all);
    assert_eq!((rows, codes), (vec![vec![Value::Integer(1)]], vec![]));
    let (bare, _) = run("SELECT COUNT(*) FROM tickets", &all);
    assert_ne!(
        bare,
        vec![vec![Value::Integer(1)]],
        "public.tickets, not Audit's"
    );
    // A schema the datasource does not have is named, not read from elsewhere.
    let (_, codes) = run("SELECT COUNT(*) FROM nowhere.tickets", &all);
    assert_eq!(codes, vec![nl2sql_core::error::ErrorCode::TableNotFound]);
    // A policy hides a whole schema by its pattern.
    let no_sales: Policies = serde_json::from_str(&format!(
        r#"{{"default_role": "admin", "roles": {{"admin": {{"allow": ["*"], "deny": ["{name}.sales.*"]}}}}}}"#
    ))
    .unwrap();
    for sql in [
        "SELECT SUM(amount) FROM sales.deals",
        "SELECT SUM(d.amount) FROM deals d",
    ] {
        let (_, codes) = run(sql, &no_sales);
        assert_eq!(
            codes,
            vec![nl2sql_core::error::ErrorCode::SecurityViolation],
            "{sql}"
        );
    }
    let (rows, _) = run("SELECT COUNT(*) FROM \"Audit\".tickets", &no_sales);
    assert_eq!(
        rows,
        vec![vec![Value::Integer(1)]],
        "other schemas stay readable"
    );

    // Through a search path, sales is the current schema: its tables are bare.
    let db =
        Server::Postgres.open_address("sales", &format!("{base}?options=-csearch_path%3Dsales"));
    let s = pollster::block_on(db.introspect()).unwrap_or_else(|e| panic!("{e}"));
    let names: Vec<&str> = s.tables.iter().map(|t| t.name.as_str()).collect();
    assert!(
        names.contains(&"deals") && names.contains(&"public.tickets"),
        "{names:?}"
    );

    // A project's schema list reads those schemas alone, the current one left out unless
    // listed; their tables keep the names they have when every schema is read.
    let (listed, dropped) = read_listed(&name, &base, r#"["sales", "Audit"]"#);
    assert_eq!(listed, ["Audit.tickets", "sales.deals"]);
    assert!(dropped.is_empty(), "{dropped:?}");
    let (listed, dropped) = read_listed(&name, &base, r#"["public", "audit"]"#);
    assert!(
        listed.contains(&"tickets".to_string()) && listed.iter().all(|n| !n.contains('.')),
        "{listed:?}"
    );
    assert_eq!(
        dropped,
        [format!(
            "schema audit of {name}, listed in its schemas, holds no table it may read"
        )],
        "PostgreSQL's names are case-sensitive"
    );
}

/// The table names and the report's dropped parts of datasource `id` at `address` read
/// through a project file whose `schemas` is `schemas` (a TOML array).
fn read_listed(id: &str, address: &str, schemas: &str) -> (Vec<String>, Vec<String>) {
    use nl2sql_native::project::Project;
    let toml = format!(
        "[[datasources]]\nid = \"{id}\"\nconnection = \"{address}\"\nschemas = {schemas}\n"
    );
    let project = Project::parse(&toml, std::path::Path::new("nl2sql.toml"))
        .unwrap_or_else(|e| panic!("{e}"));
    let sources = nl2sql_native::Sources::Project(std::rc::Rc::new(project));
    let (db, schema, report) = sources.schema(Some(id)).unwrap_or_else(|e| panic!("{e}"));
    // What the per-run check and the schema cache compare with is what was read, keys to
    // schemas not listed left out on both sides.
    let now = pollster::block_on(nl2sql_core::Metadata::fingerprint(&*db));
    assert_eq!(now.as_ref().ok(), Some(&schema.fingerprint), "{schemas}");
    let names = schema.tables.iter().map(|t| t.name.clone()).collect();
    (names, report.dropped)
}

/// MariaDB's databases are its schemas: a project's schema list reads other databases on
/// the same server, their tables named `database.table` (the address's own keep bare
/// names), with their statistics and keys, and SQL naming them runs on them.
#[test]
#[ignore = "needs the servers cargo xtask test starts"]
fn a_mariadb_datasource_reads_the_other_databases_it_lists() {
    use ::mysql::prelude::Queryable;
    use nl2sql_core::policy::Policies;
    use nl2sql_core::run::{sql_mode, SqlQuery};
    use nl2sql_core::validate::ValidatorSettings;
    use nl2sql_core::Value;
    use nl2sql_tests::servers::Server;
    let name = format!("listed_{}", std::process::id());
    let other = format!("{name}_ops");
    let base = Server::MariaDb.address(&name);
    let target = nl2sql_native::address::Address::parse(&base).unwrap();
    let support = nl2sql_tests::native::data_dir().join("support.sqlite");
    nl2sql_native::copy::copy(&support, &target, true, &mut |_| {})
        .unwrap_or_else(|e| panic!("{e}"));
    let mut conn = ::mysql::Conn::new(::mysql::Opts::from_url(&base).unwrap()).unwrap();
    conn.query_drop(format!(
        "CREATE DATABASE IF NOT EXISTS `{other}`; \
         CREATE TABLE IF NOT EXISTS `{other}`.shifts (id INT PRIMARY KEY, hours INT); \
         CREATE TABLE IF NOT EXISTS `{other}`.shift_notes (id INT PRIMARY KEY, \
           shift_id INT, FOREIGN KEY (shift_id) REFERENCES `{other}`.shifts (id)); \
         INSERT IGNORE INTO `{other}`.shifts VALUES (1, 8), (2, 6), (3, 4)"
    ))
    .unwrap();
    let project = format!(r#"["{name}", "{other}"]"#);
    let (listed, dropped) = read_listed(&name, &base, &project);
    assert!(dropped.is_empty(), "{dropped:?}");
    let shifts = format!("{other}.shifts");
    assert!(
        listed.contains(&"tickets".to_string()) && listed.contains(&shifts),
        "{listed:?}"
    );
    let (mut alone, _) = read_listed(&name, &base, &format!(r#"["{other}"]"#));
    alone.sort();
    assert_eq!(alone, [format!("{other}.shift_notes"), shifts.clone()]);

    // Read as a command reads it: statistics, keys, and SQL on the other database.
    let toml =
        format!("[[datasources]]\nid = \"{name}\"\nconnection = \"{base}\"\nschemas = {project}\n");
    let project = nl2sql_native::project::Project::parse(&toml, std::path::Path::new("x.toml"))
        .unwrap_or_else(|e| panic!("{e}"));
    let sources = nl2sql_native::Sources::Project(std::rc::Rc::new(project));
    let (db, schema, _) = sources
        .schema(Some(&name))
        .unwrap_or_else(|e| panic!("{e}"));
    let table = schema.table(&shifts).unwrap();
    assert_eq!(
        (table.row_count, table.schema.as_deref()),
        (3, Some(other.as_str()))
    );
    let notes = schema.table(&format!("{other}.shift_notes")).unwrap();
    assert_eq!(notes.foreign_keys[0].referenced_table, shifts);
    for sql in [
        format!("SELECT SUM(hours) FROM `{other}`.shifts"),
        "SELECT SUM(hours) FROM shifts".to_string(),
    ] {
        let ran = pollster::block_on(sql_mode(
            &*db,
            &schema,
            &Policies::read_all(),
            &SqlQuery::sql(&sql),
            &ValidatorSettings::default(),
        ));
        assert!(ran.errors.is_empty(), "{sql}: {:?}", ran.errors);
        assert_eq!(ran.rows, [[Value::Integer(18)]], "{sql}");
    }
}

/// Spark's databases are its schemas too: a project's schema list reads other databases of
/// the server's catalogue, their tables named `database.table` (the address's own keep
/// bare names), one the server does not have said, and SQL naming them runs on them.
#[test]
#[ignore = "needs the servers cargo xtask test starts"]
fn a_spark_datasource_reads_the_other_databases_it_lists() {
    use nl2sql_core::policy::Policies;
    use nl2sql_core::run::{sql_mode, SqlQuery};
    use nl2sql_core::validate::ValidatorSettings;
    use nl2sql_core::Value;
    use nl2sql_tests::servers::Server;
    let base = Server::Spark.address("chinook");
    let (listed, dropped) = read_listed(
        "lake",
        &base,
        r#"["Chinook", "SUPPORT", "nowhere", "support"]"#,
    );
    let mut once = listed.clone();
    once.sort();
    once.dedup();
    assert_eq!(
        once.len(),
        listed.len(),
        "a database listed twice is read once"
    );
    assert!(
        listed.iter().any(|n| n == "album") && listed.iter().any(|n| n == "support.tickets"),
        "{listed:?}"
    );
    assert!(
        listed.iter().all(|n| !n.starts_with("webanalytics.")),
        "a database not listed is not read: {listed:?}"
    );
    assert_eq!(
        dropped,
        ["schema nowhere of lake, listed in its schemas, holds no table it may read"]
    );
    let (alone, _) = read_listed("lake", &base, r#"["support"]"#);
    assert!(
        !alone.is_empty() && alone.iter().all(|n| n.starts_with("support.")),
        "{alone:?}"
    );

    let toml = format!(
        "[[datasources]]\nid = \"lake\"\nconnection = \"{base}\"\nschemas = [\"chinook\", \"support\"]\n"
    );
    let project = nl2sql_native::project::Project::parse(&toml, std::path::Path::new("x.toml"))
        .unwrap_or_else(|e| panic!("{e}"));
    let sources = nl2sql_native::Sources::Project(std::rc::Rc::new(project));
    let (db, schema, _) = sources
        .schema(Some("lake"))
        .unwrap_or_else(|e| panic!("{e}"));
    let tickets = schema.table("support.tickets").unwrap();
    assert_eq!(tickets.schema.as_deref(), Some("support"));
    let support = nl2sql_tests::native::open_file("support");
    let expected = pollster::block_on(nl2sql_core::Datasource::execute(
        &support,
        "SELECT COUNT(*) FROM tickets",
        nl2sql_core::datasource::ExecLimits::rows(1),
    ))
    .unwrap_or_else(|e| panic!("{e}"))
    .rows;
    for sql in [
        "SELECT COUNT(*) FROM support.tickets",
        "SELECT COUNT(*) FROM tickets",
        "SELECT COUNT(*) FROM chinook.album a JOIN chinook.artist r ON r.artistid = a.artistid WHERE a.albumid < 0",
    ] {
        let ran = pollster::block_on(sql_mode(
            &*db,
            &schema,
            &Policies::read_all(),
            &SqlQuery::sql(sql),
            &ValidatorSettings::default(),
        ));
        assert!(ran.errors.is_empty(), "{sql}: {:?}", ran.errors);
        if sql.contains("tickets") {
            assert_eq!(ran.rows, expected, "{sql}");
        } else {
            assert_eq!(ran.rows, [[Value::Integer(0)]], "{sql}");
        }
    }
}

/// The plan path plus execution on every engine (parse, validate, render, run, read the
/// rows), per gold plan, as an admin: p50 and p95 over rounds of the 43 plans, one in the
/// test run (Spark's are seconds each), `NL2SQL_LATENCY_ROUNDS` of them when asked
/// (docs/benchmarks.md's figures are five). Prints the figures (run with `--nocapture`);
/// asserts only that every run succeeded.
#[test]
#[ignore = "needs the servers cargo xtask test starts"]
fn gold_plan_latency_on_every_engine() {
    use nl2sql_core::plan::Plan;
    use nl2sql_core::policy::Policies;
    use nl2sql_core::run::run_plan;
    use nl2sql_core::validate::ValidatorSettings;
    use nl2sql_core::Metadata;
    use nl2sql_tests::bench::{gold_plan_json, percentiles};
    use nl2sql_tests::servers::Server;
    use std::time::Instant;

    let plans = gold_plan_json();
    let rounds: usize = std::env::var("NL2SQL_LATENCY_ROUNDS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(1);
    let policies = Policies::demo();
    let scope = policies.scope(&["admin".to_string()]);
    let settings = ValidatorSettings::default();
    let engines: Vec<(&str, Box<dyn nl2sql_core::Datasource>)> = vec![
        ("SQLite", Box::new(nl2sql_tests::native::chinook())),
        ("PostgreSQL", Server::Postgres.open("chinook")),
        ("MariaDB", Server::MariaDb.open("chinook")),
        ("DuckDB", Server::DuckDb.open("chinook")),
        ("Spark", Server::Spark.open("chinook")),
    ];
    for (name, db) in &engines {
        let schema = pollster::block_on(db.introspect()).unwrap_or_else(|e| panic!("{e}"));
        let mut times = Vec::new();
        for _ in 0..rounds {
            for (id, json) in &plans {
                let started = Instant::now();
                let plan: Plan = serde_json::from_str(json).unwrap_or_else(|e| panic!("{e}"));
                let run = pollster::block_on(run_plan(&plan, &**db, &schema, &scope, &settings));
                times.push(started.elapsed().as_secs_f64() * 1000.0);
                assert!(run.succeeded(), "{name} {id}: {:?}", run.errors);
            }
        }
        let (p50, p95) = percentiles(times);
        eprintln!("{name}: plan path + execution per gold plan p50 {p50:.2} ms, p95 {p95:.2} ms");
    }
}

/// Each server's own spellings of zone conversions and dates, and of a date parsed from a
/// literal by a format, imported as plans, give the rows the server gives for the SQL as
/// written.
#[test]
#[ignore = "needs the servers cargo xtask test starts"]
fn each_servers_own_spelling_gives_its_own_rows() {
    use constructs::{open, spelt_as_written};
    use nl2sql_tests::servers::Server;
    let postgres = open(Server::Postgres.open("chinook"));
    spelt_as_written(
        &postgres,
        "PostgreSQL",
        "SELECT \"InvoiceId\", (\"InvoiceDate\" AT TIME ZONE 'UTC') AT TIME ZONE 'America/New_York', \
         EXTRACT(HOUR FROM timezone('Australia/Sydney', timezone('Europe/London', \"InvoiceDate\"))) \
         FROM \"Invoice\"",
    );
    spelt_as_written(
        &postgres,
        "PostgreSQL",
        "SELECT \"InvoiceId\", to_date('06/01/2009', 'DD/MM/YYYY') FROM \"Invoice\" \
         WHERE \"InvoiceDate\" < to_date('2009.02.01', 'yyyy.mm.dd')",
    );
    spelt_as_written(
        &postgres,
        "PostgreSQL",
        "SELECT i.\"InvoiceId\", s.part, s.amount FROM \"Invoice\" i \
         CROSS JOIN LATERAL (VALUES ('total', i.\"Total\"), ('customer', i.\"CustomerId\"), \
         ('none', NULL)) AS s(part, amount) WHERE i.\"InvoiceId\" < 20",
    );
    let mariadb = open(Server::MariaDb.open("chinook"));
    spelt_as_written(
        &mariadb,
        "MariaDB",
        "SELECT InvoiceId, STR_TO_DATE('2009-01-06 10:30', '%Y-%m-%d %H:%i') FROM Invoice \
         WHERE InvoiceDate < STR_TO_DATE('01/02/2009', '%d/%m/%Y')",
    );
    let spark = open(Server::Spark.open("chinook"));
    spelt_as_written(
        &spark,
        "Spark",
        "SELECT InvoiceId, from_utc_timestamp(InvoiceDate, 'America/New_York'), \
         to_utc_timestamp(InvoiceDate, 'Asia/Kolkata'), add_months(InvoiceDate, 1), \
         last_day(InvoiceDate), trunc(InvoiceDate, 'QUARTER'), weekofyear(InvoiceDate), \
         to_date(InvoiceDate) FROM Invoice",
    );
    spelt_as_written(
        &spark,
        "Spark",
        "SELECT InvoiceId, to_timestamp('2009-01-06 10:30:05', 'yyyy-MM-dd HH:mm:ss') FROM Invoice \
         WHERE InvoiceDate < to_date('01.02.2009', 'dd.MM.yyyy')",
    );
}

/// Regular expressions read alike on DuckDB, PostgreSQL, MariaDB and Spark: each plan's
/// rows are the same on all four (ties and NULLs included), accented letters, ASCII
/// classes and any case (spelt letter by letter) too, and each server's own spelling
/// imports with the meaning it has there.
#[test]
#[ignore = "needs the servers cargo xtask test starts"]
fn regular_expressions_match_replace_and_find_alike_on_every_engine() {
    use constructs::{key, open, rows, same, spelt_as_written};
    use nl2sql_tests::servers::Server;
    let duckdb = open(Server::DuckDb.open("chinook"));
    let others = [
        ("PostgreSQL", open(Server::Postgres.open("chinook"))),
        ("MariaDB", open(Server::MariaDb.open("chinook"))),
        ("Spark", open(Server::Spark.open("chinook"))),
    ];
    for sql in [
        r"SELECT ArtistId, Name FROM Artist WHERE REGEXP_LIKE(Name, '^the\s', 'i')",
        r"SELECT ArtistId, REGEXP_REPLACE(LOWER(Name), '^the\s+', '') FROM Artist",
        r"SELECT TrackId, REGEXP_REPLACE(Name, '[aeiou]+', '*', 'gi') FROM Track WHERE TrackId < 400",
        r"SELECT CustomerId, REGEXP_SUBSTR(Phone, '[0-9]{3,}'), REGEXP_SUBSTR(Email, '@[a-z]+\.') FROM Customer",
        r"SELECT COUNT(*) FROM Track WHERE REGEXP_LIKE(Name, '(love|heart)s?', 'i')",
        r"SELECT AlbumId, Title FROM Album WHERE REGEXP_LIKE(Title, '\d$') OR REGEXP_LIKE(Title, '^(?:[A-Z]\w*\s){3}')",
        "SELECT ArtistId, Name FROM Artist WHERE REGEXP_LIKE(Name, 'ant[ôÔ]nio|^[Éé]|^[tT]he')",
        r"SELECT ArtistId, Name FROM Artist WHERE REGEXP_LIKE(Name, '^[^a-m\d]+ [q-z]', 'i')",
        r"SELECT TrackId FROM Track WHERE NOT REGEXP_LIKE(Composer, '[,/&]') AND TrackId < 500",
    ] {
        let plan = nl2sql_core::import::import_sql(sql, &duckdb.schema, duckdb.schema.dialect)
            .unwrap_or_else(|e| panic!("{sql}: {e:?}"));
        let mut expected = rows(&duckdb, &plan).unwrap_or_else(|e| panic!("DuckDB: {sql}: {e}"));
        expected.sort_by_key(|r| key(r));
        assert!(!expected.is_empty(), "no rows, so nothing compared: {sql}");
        for (label, engine) in &others {
            let mut got = rows(engine, &plan).unwrap_or_else(|e| panic!("{label}: {sql}: {e}"));
            got.sort_by_key(|r| key(r));
            assert_eq!(expected.len(), got.len(), "{label}: {sql}");
            for (a, b) in expected.iter().zip(&got) {
                let agree = a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same(x, y));
                assert!(agree, "DuckDB's {a:?} against {label}'s {b:?}\n{sql}");
            }
        }
    }
    let [(_, postgres), (_, mariadb), (_, spark)] = &others;
    spelt_as_written(
        postgres,
        "PostgreSQL",
        r#"SELECT "ArtistId", regexp_replace(lower("Name"), '^the\s+', ''), "Name" ~* 'black',
           substring("Name" from '[A-Z][a-z]+'), regexp_replace("Name", 'a', '4', 'g')
           FROM "Artist" WHERE "Name" !~ '^[0-9]'"#,
    );
    spelt_as_written(
        mariadb,
        "MariaDB",
        "SELECT ArtistId, Name REGEXP '[0-9]', REGEXP_REPLACE(Name, '[ /]+', '_') FROM Artist \
         WHERE Name NOT RLIKE '^[.!?]'",
    );
    spelt_as_written(
        spark,
        "Spark",
        "SELECT ArtistId, Name RLIKE 'Black', regexp_replace(Name, 'a', 'x'), \
         regexp_extract(Name, '[A-Z][a-z]+', 0) FROM Artist WHERE NOT regexp(Name, '^The')",
    );
}

/// The random plans `engines.rs` runs on SQLite and DuckDB, run on SQLite and PostgreSQL.
mod postgres_constructs {
    use super::constructs::*;
    use nl2sql_tests::servers::Server;
    use proptest::prelude::*;
    use proptest::test_runner::TestCaseError;
    use serde_json::Value as Json;

    thread_local! {
        static ENGINES: (Engine, Engine) = (
            open(Box::new(nl2sql_tests::native::chinook())),
            open(Server::Postgres.open("chinook")),
        );
    }

    fn check(plan: Json, ordered: bool) -> Result<(), TestCaseError> {
        ENGINES.with(|(sqlite, postgres)| {
            compare(("SQLite", sqlite), ("PostgreSQL", postgres), plan, ordered)
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig {
            cases: 24,
            failure_persistence: None,
            rng_seed: proptest::test_runner::RngSeed::Fixed(0x706f_7374_6772_6573),
            ..ProptestConfig::default()
        })]

        #[test]
        #[ignore = "needs the servers cargo xtask test starts"]
        fn nulls_go_where_the_plan_puts_them(plan in null_ordering()) {
            check(plan, true)?;
        }

        #[test]
        #[ignore = "needs the servers cargo xtask test starts"]
        fn aggregate_filters_count_the_same(plan in aggregate_filters()) {
            check(plan, false)?;
        }

        #[test]
        #[ignore = "needs the servers cargo xtask test starts"]
        fn cross_joins_pair_the_same_rows(plan in cross_join()) {
            check(plan, false)?;
        }

        #[test]
        #[ignore = "needs the servers cargo xtask test starts"]
        fn grouping_sets_give_the_same_subtotals(plan in grouping_sets()) {
            check(plan, false)?;
        }

        #[test]
        #[ignore = "needs the servers cargo xtask test starts"]
        fn dates_keep_their_kind_and_values(plan in dates()) {
            check(plan, true)?;
        }

        #[test]
        #[ignore = "needs the servers cargo xtask test starts"]
        fn statistics_and_string_aggregation_agree(plan in statistics()) {
            check(plan, false)?;
        }

        #[test]
        #[ignore = "needs the servers cargo xtask test starts"]
        fn any_and_every_agree_nulls_included(plan in any_and_every()) {
            check(plan, false)?;
        }

        #[test]
        #[ignore = "needs the servers cargo xtask test starts"]
        fn a_query_without_from_answers_the_same(plan in without_from()) {
            check(plan, true)?;
        }

        #[test]
        #[ignore = "needs the servers cargo xtask test starts"]
        fn frames_counted_in_time_sum_the_same_rows(plan in time_frames()) {
            check(plan, true)?;
        }

        #[test]
        #[ignore = "needs the servers cargo xtask test starts"]
        fn percentiles_pick_the_same_values(plan in percentiles()) {
            check(plan, false)?;
        }

        #[test]
        #[ignore = "needs the servers cargo xtask test starts"]
        fn recursive_ctes_reach_the_same_rows(plan in recursive_ctes()) {
            check(plan, false)?;
        }

        #[test]
        #[ignore = "needs the servers cargo xtask test starts"]
        fn picks_and_regressions_agree_nulls_included(plan in picks()) {
            check(plan, false)?;
        }
    }
}
