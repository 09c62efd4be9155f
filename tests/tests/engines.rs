//! The constructs the plan language grew for analysts' SQL mean the same on every engine:
//! random plans with NULL ordering, aggregate filters, cross joins, grouping sets, dates
//! that keep their kind, statistics, string aggregation, BOOL_OR/BOOL_AND, a query
//! without FROM, recursive CTEs, frames counted in time and percentiles, each run on
//! Chinook in SQLite and in DuckDB (a copy the tests make) and compared row for row, ties
//! and NULLs included (on PostgreSQL too in the full run: `servers.rs`). And each dialect's own spelling of them,
//! imported, gives the rows the database gives for the SQL as written.
#![cfg(not(target_arch = "wasm32"))]

mod constructs;

use constructs::*;
use nl2sql_core::plan::Plan;
use nl2sql_core::Value;
use nl2sql_tests::servers::Server;
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use serde_json::{json, Value as Json};

thread_local! {
    // Each test's thread opens Chinook once in each engine (datasources stay on a thread).
    static ENGINES: (Engine, Engine) = (
        open(Box::new(nl2sql_tests::native::chinook())),
        open(Server::DuckDb.open("chinook")),
    );
}

/// SQLite's rows against DuckDB's.
fn check(plan: Json, ordered: bool) -> Result<(), TestCaseError> {
    ENGINES.with(|(sqlite, duckdb)| compare(("SQLite", sqlite), ("DuckDB", duckdb), plan, ordered))
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 24,
        failure_persistence: None,
        rng_seed: proptest::test_runner::RngSeed::Fixed(0x656e_6769_6e65),
        ..ProptestConfig::default()
    })]

    #[test]
    fn nulls_go_where_the_plan_puts_them(plan in null_ordering()) {
        check(plan, true)?;
    }

    #[test]
    fn aggregate_filters_count_the_same(plan in aggregate_filters()) {
        check(plan, false)?;
    }

    #[test]
    fn cross_joins_pair_the_same_rows(plan in cross_join()) {
        check(plan, false)?;
    }

    #[test]
    fn grouping_sets_give_the_same_subtotals(plan in grouping_sets()) {
        check(plan, false)?;
    }

    #[test]
    fn dates_keep_their_kind_and_values(plan in dates()) {
        check(plan, true)?;
    }

    #[test]
    fn statistics_and_string_aggregation_agree(plan in statistics()) {
        check(plan, false)?;
    }

    #[test]
    fn any_and_every_agree_nulls_included(plan in any_and_every()) {
        check(plan, false)?;
    }

    #[test]
    fn a_query_without_from_answers_the_same(plan in without_from()) {
        check(plan, true)?;
    }

    #[test]
    fn frames_counted_in_time_sum_the_same_rows(plan in time_frames()) {
        check(plan, true)?;
    }

    #[test]
    fn percentiles_pick_the_same_values(plan in percentiles()) {
        check(plan, false)?;
    }

    #[test]
    fn recursive_ctes_reach_the_same_rows(plan in recursive_ctes()) {
        check(plan, false)?;
    }

    #[test]
    fn picks_and_regressions_agree_nulls_included(plan in picks()) {
        check(plan, false)?;
    }
}

/// Whole periods elapsed, at the edges where counting boundaries would differ: a month
/// that has not reached its day (or its time), a leap day, both directions.
#[test]
fn elapsed_periods_count_whole_ones_on_both_engines() {
    let cases: [(&str, &str, &str, i64); 9] = [
        ("month", "2024-01-31", "2024-02-29", 0),
        ("month", "2024-01-31", "2024-03-01", 1),
        ("month", "2024-01-15 10:00:00", "2024-02-15 09:59:59", 0),
        ("month", "2024-01-15 10:00:00", "2024-02-15 10:00:00", 1),
        ("year", "2000-02-29", "2024-02-28", 23),
        ("year", "2024-06-30", "2023-06-30 00:00:01", 0),
        ("year", "2024-06-30", "2023-06-30", -1),
        ("quarter", "2024-03-31", "2023-12-30", -1),
        ("day", "2024-01-01 10:00:00", "2024-01-03 09:00:00", 1),
    ];
    for (unit, a, b, expected) in cases {
        let plan: Plan = serde_json::from_value(json!({
            "tables": [],
            "select_items": [{"expr": func("ELAPSED", vec![lit(json!(unit)), lit(json!(a)), lit(json!(b))]), "alias": "n"}]
        }))
        .expect("a plan");
        ENGINES.with(|(sqlite, duckdb)| {
            for (name, engine) in [("SQLite", sqlite), ("DuckDB", duckdb)] {
                let got = rows(engine, &plan).unwrap_or_else(|e| panic!("{name}: {e}"));
                assert_eq!(
                    got,
                    vec![vec![Value::Integer(expected)]],
                    "{name}: ELAPSED('{unit}', '{a}', '{b}')"
                );
            }
        });
    }
}

/// Day and month names are English on every engine, chosen by number.
#[test]
fn day_and_month_names_are_english_everywhere() {
    let plan: Plan = serde_json::from_value(json!({
        "tables": [],
        "select_items": [
            {"expr": func("DAY_NAME", vec![lit(json!("2024-06-30"))]), "alias": "day"},
            {"expr": func("MONTH_NAME", vec![lit(json!("2024-06-30 12:00:00"))]), "alias": "month"},
            {"expr": func("DAY_NAME", vec![json!({"kind": "literal", "is_null": true})]), "alias": "none"}
        ]
    }))
    .expect("a plan");
    ENGINES.with(|(sqlite, duckdb)| {
        for (name, engine) in [("SQLite", sqlite), ("DuckDB", duckdb)] {
            let got = rows(engine, &plan).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(
                got,
                vec![vec![
                    Value::Text("Sunday".into()),
                    Value::Text("June".into()),
                    Value::Null
                ]],
                "{name}"
            );
        }
    });
}

/// Series the plan cannot count, and moments whose zone the plan cannot know, are refused
/// by what stops them, never run differently.
#[test]
fn series_and_zones_the_plan_cannot_keep_are_refused_by_name() {
    let refused = [
        ("SELECT n FROM Invoice i, generate_series(1, i.InvoiceId) AS s(n)", "over a column"),
        ("SELECT x FROM range(1, 9, 0) t(x)", "not a constant"),
        ("SELECT x FROM range(DATE '2013-01-01', DATE '2013-02-01', INTERVAL '1 month -1 day') t(x)", "mixed"),
        ("SELECT * FROM unnest([1, 2]) t(x)", "table function unnest"),
        ("SELECT to_timestamp(InvoiceId) FROM Invoice", "session's time zone"),
        ("SELECT to_timestamp(InvoiceId) AT TIME ZONE 'Europe/Paris' FROM Invoice", "AT TIME ZONE"),
    ];
    ENGINES.with(|(_, duckdb)| {
        for (sql, words) in refused {
            let error = nl2sql_core::import::import_sql(sql, &duckdb.schema, duckdb.schema.dialect)
                .expect_err(sql);
            assert!(error.message.contains(words), "{sql}: {}", error.message);
        }
    });
}

/// A standard deviation, and the math functions the bundled SQLite lacks (registered on
/// every native connection), give DuckDB's numbers on SQLite, a constant column's spread
/// exactly 0 rather than NULL.
#[test]
fn deviations_and_roots_agree_on_sqlite_and_duckdb() {
    let json = json!({
        "tables": [{"name": "Track", "alias": "t"}],
        "select_items": [
            {"expr": col("t", "GenreId")},
            {"expr": func("STDDEV_SAMP", vec![col("t", "Milliseconds")]), "alias": "spread"},
            {"expr": func("STDDEV_POP", vec![col("t", "MediaTypeId")]), "alias": "flat"},
            {"expr": func("MAX", vec![func("SQRT", vec![col("t", "Bytes")])]), "alias": "root"},
            {"expr": func("MIN", vec![func("CEIL", vec![bin("/", col("t", "Milliseconds"), lit(json!(1000.0)))])]), "alias": "up"},
            {"expr": func("MIN", vec![func("FLOOR", vec![bin("/", col("t", "Milliseconds"), lit(json!(1000.0)))])]), "alias": "down"},
            {"expr": func("MAX", vec![func("POWER", vec![col("t", "MediaTypeId"), lit(json!(2))])]), "alias": "squared"}
        ],
        "where": bin("=", col("t", "MediaTypeId"), lit(json!(1))),
        "group_by": [{"expr": col("t", "GenreId")}]
    });
    let plan: Plan = serde_json::from_value(json.clone()).expect("a plan");
    let on_sqlite = ENGINES
        .with(|(sqlite, _)| rows(sqlite, &plan))
        .expect("SQLite runs it");
    assert!(on_sqlite.len() > 5, "{on_sqlite:?}");
    assert!(
        on_sqlite.iter().all(|row| row[2] == Value::Real(0.0)),
        "{on_sqlite:?}"
    );
    check(json, false).unwrap_or_else(|e| panic!("{e}"));
}

/// Correlations and covariances (from sums on SQLite) give DuckDB's numbers per group,
/// NULL where a variance is 0; a statistic from sums with a FILTER sums the filtered
/// values only.
#[test]
fn correlations_and_filtered_deviations_agree_on_sqlite_and_duckdb() {
    let long = bin(">", col("t", "Milliseconds"), lit(json!(250_000)));
    let filtered = |name: &str| json!({"kind": "func", "func_name": name, "args": [col("t", "Bytes")], "filter": long});
    // A price present for long tracks only: pairs with a NULL side are left out.
    let sometimes = json!({"kind": "case",
        "whens": [{"condition": long, "result": col("t", "UnitPrice")}]});
    let json = json!({
        "tables": [{"name": "Track", "alias": "t"}],
        "select_items": [
            {"expr": col("t", "GenreId")},
            {"expr": func("CORR", vec![col("t", "Milliseconds"), col("t", "Bytes")]), "alias": "r"},
            {"expr": func("COVAR_POP", vec![col("t", "Milliseconds"), col("t", "UnitPrice")]), "alias": "cp"},
            {"expr": func("COVAR_SAMP", vec![col("t", "Bytes"), sometimes]), "alias": "cs"},
            {"expr": func("CORR", vec![col("t", "MediaTypeId"), col("t", "Bytes")]), "alias": "flat"},
            {"expr": filtered("VAR_SAMP"), "alias": "v"},
            {"expr": filtered("STDDEV_POP"), "alias": "sd"}
        ],
        "where": bin("=", col("t", "MediaTypeId"), lit(json!(1))),
        "group_by": [{"expr": col("t", "GenreId")}]
    });
    let row = first_row_on_sqlite(&json);
    assert_eq!(row[4], Value::Null, "a constant's correlation: {row:?}");
    assert!(matches!(row[1], Value::Real(r) if r > 0.5), "{row:?}");
    check(json, false).unwrap_or_else(|e| panic!("{e}"));
}

fn text(t: &str) -> Value {
    Value::Text(t.to_string())
}

/// The first row SQLite gives for the plan `json`.
fn first_row_on_sqlite(json: &Json) -> Vec<Value> {
    let plan: Plan = serde_json::from_value(json.clone()).expect("a plan");
    let rows = ENGINES
        .with(|(sqlite, _)| rows(sqlite, &plan))
        .expect("SQLite runs it");
    rows.into_iter().next().expect("a row")
}

#[test]
fn the_text_at_a_json_key_is_the_same_on_sqlite_and_duckdb() {
    // A document per invoice holding every kind of JSON value.
    let doc = func(
        "CONCAT",
        vec![
            lit(json!("{\"id\": ")),
            col("i", "InvoiceId"),
            lit(json!(", \"city\": \"")),
            col("i", "BillingCity"),
            lit(json!("\", \"paid\": true, \"void\": false, \"none\": null, \"arr\": [1, 2], \"obj\": {\"inner\": \"x")),
            col("i", "InvoiceId"),
            lit(json!("\"}}")),
        ],
    );
    let keys = [
        "id",
        "city",
        "paid",
        "void",
        "none",
        "arr",
        "obj",
        "obj.inner",
        "missing",
    ];
    let json = json!({
        "tables": [{"name": "Invoice", "alias": "i"}],
        "select_items": keys.iter().map(|k| json!({
            "expr": func("JSON_VALUE", vec![doc.clone(), lit(json!(format!("$.{k}")))]),
            "alias": k.replace('.', "_"),
        })).collect::<Vec<_>>(),
        "where": bin("<", col("i", "InvoiceId"), lit(json!(4))),
        "order_by": [{"expr": col("i", "InvoiceId")}]
    });
    assert_eq!(
        first_row_on_sqlite(&json),
        vec![
            text("1"),
            text("Stuttgart"),
            text("true"),
            text("false"),
            Value::Null,
            Value::Null,
            Value::Null,
            text("x1"),
            Value::Null,
        ]
    );
    check(json, true).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn split_parts_are_the_same_pieces_on_sqlite_and_duckdb() {
    let part = |column: &str, delimiter: &str, n: i64| {
        func(
            "SPLIT_PART",
            vec![col("c", column), lit(json!(delimiter)), lit(json!(n))],
        )
    };
    let json = json!({
        "tables": [{"name": "Customer", "alias": "c"}],
        "select_items": [
            {"expr": col("c", "CustomerId")},
            {"expr": part("Email", "@", 2), "alias": "domain"},
            {"expr": part("Email", ".", 1), "alias": "first"},
            {"expr": part("Email", ".", 3), "alias": "third"},
            {"expr": part("Email", "o", 8), "alias": "far"},
            {"expr": part("Company", " ", 2), "alias": "company_word"}
        ],
        "order_by": [{"expr": col("c", "CustomerId")}]
    });
    // Customer 1 is luisg@embraer.com.br of Embraer - Empresa Brasileira de Aeronáutica S.A.
    assert_eq!(
        first_row_on_sqlite(&json)[1..],
        [
            text("embraer.com.br"),
            text("luisg@embraer"),
            text("br"),
            text(""),
            text("-"),
        ]
    );
    check(json, true).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn padding_fills_and_cuts_alike_on_sqlite_and_duckdb() {
    let pad = |name: &str, column: &str, width: i64, fill: &str| {
        func(
            name,
            vec![col("c", column), lit(json!(width)), lit(json!(fill))],
        )
    };
    let json = json!({
        "tables": [{"name": "Customer", "alias": "c"}],
        "select_items": [
            {"expr": col("c", "CustomerId")},
            {"expr": pad("LPAD", "CustomerId", 4, "0"), "alias": "id"},
            {"expr": pad("RPAD", "FirstName", 8, "."), "alias": "name"},
            {"expr": pad("LPAD", "Company", 5, "*"), "alias": "company"},
            {"expr": pad("RPAD", "State", 0, " "), "alias": "nothing"},
            {"expr": func("LPAD", vec![col("c", "Country"), lit(json!(12))]), "alias": "spaced"}
        ],
        "order_by": [{"expr": col("c", "CustomerId")}]
    });
    // Customer 1: Luís of Embraer (company cut to 5), in Brazil, state SP.
    assert_eq!(
        first_row_on_sqlite(&json)[1..],
        [
            text("0001"),
            text("Luís...."),
            text("Embra"),
            text(""),
            text("      Brazil"),
        ]
    );
    check(json, true).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn mysqls_find_in_set_counts_the_same_places_on_sqlite_and_duckdb() {
    let sql = "SELECT InvoiceId, FIND_IN_SET('b', 'a,b,c') AS b, FIND_IN_SET('x', 'a,b') AS x, \
               FIND_IN_SET('', '') AS empty, FIND_IN_SET(NULL, 'a') AS unknown, \
               FIND_IN_SET('a,b', 'a,b,c') AS comma, FIND_IN_SET('', 'a,,b') AS blank, \
               FIND_IN_SET('c', 'a,b,c') AS last FROM Invoice WHERE InvoiceId = 1";
    ENGINES.with(|(sqlite, duckdb)| {
        for engine in [sqlite, duckdb] {
            let plan =
                nl2sql_core::import::import_sql(sql, &engine.schema, nl2sql_core::Dialect::MySql)
                    .expect("imports");
            let got = rows(engine, &plan).expect("runs");
            let n = Value::Integer;
            assert_eq!(
                got,
                vec![vec![n(1), n(2), n(0), n(0), Value::Null, n(0), n(2), n(3)]],
                "{plan}"
            );
        }
    });
}

/// SQL as analysts write it for SQLite, then for DuckDB: each imported as a plan, rendered
/// and run must give the rows the database gives for the SQL itself.
const SPELLINGS: [(&str, &str); 39] = [
    ("sqlite", "SELECT c.Country, COUNT(*) FROM Customer c, Invoice i WHERE i.CustomerId = c.CustomerId GROUP BY c.Country"),
    ("sqlite", "SELECT Name FROM Track JOIN Album USING (AlbumId) WHERE Title LIKE 'A%'"),
    ("sqlite", "SELECT InvoiceId, date(InvoiceDate, 'start of month', '+1 month', '-1 day') FROM Invoice WHERE InvoiceId < 30"),
    ("sqlite", "SELECT InvoiceId, CAST(julianday('2013-12-31') - julianday(InvoiceDate) AS INTEGER) FROM Invoice WHERE InvoiceId < 30"),
    ("sqlite", "SELECT strftime('%Y-%m', InvoiceDate) AS m, SUM(Total) FROM Invoice GROUP BY m"),
    ("sqlite", "SELECT GenreId, COUNT(*) FILTER (WHERE Milliseconds > 300000) FROM Track GROUP BY GenreId"),
    ("sqlite", "SELECT Company, CustomerId FROM Customer ORDER BY Company DESC NULLS LAST, CustomerId"),
    ("sqlite", "SELECT (SELECT COUNT(*) FROM Track) * 1.0 / (SELECT COUNT(*) FROM Album)"),
    ("sqlite", "SELECT AlbumId, GROUP_CONCAT(Name, '|' ORDER BY Name) FROM Track WHERE AlbumId < 9 GROUP BY AlbumId"),
    ("duckdb", "SELECT BillingCountry, InvoiceId, Total FROM Invoice QUALIFY ROW_NUMBER() OVER (PARTITION BY BillingCountry ORDER BY Total DESC, InvoiceId) = 1"),
    ("duckdb", "SELECT DISTINCT ON (CustomerId) CustomerId, InvoiceId FROM Invoice ORDER BY CustomerId, InvoiceDate DESC, InvoiceId"),
    ("duckdb", "SELECT BillingCountry, COUNT(*) FROM Invoice GROUP BY ALL"),
    ("sqlite", "SELECT BillingCity, instr(BillingCity, 'a'), instr(BillingCity, ''), log(Total), ln(Total), exp(InvoiceId % 7), trunc(-Total) FROM Invoice WHERE InvoiceId < 60"),
    ("duckdb", "SELECT Email, SPLIT_PART(Email, '@', 2) FROM Customer WHERE CustomerId = ANY(SELECT CustomerId FROM Invoice WHERE Total > 20) OR CustomerId <> ALL(SELECT CustomerId FROM Invoice)"),
    ("duckdb", "SELECT BillingCity, LEFT(BillingCity, 3), RIGHT(BillingCity, 4), RIGHT(BillingCity, 40), POSITION('o' IN BillingCity), STRPOS(BillingCity, 'e'), CHAR_LENGTH(BillingCity), LOG(Total), TRUNC(-Total) FROM Invoice WHERE InvoiceId < 60"),
    ("duckdb", "SELECT InvoiceId, InvoiceDate + INTERVAL 1 MONTH, DATE_TRUNC('month', InvoiceDate) FROM Invoice WHERE InvoiceId < 30"),
    ("duckdb", "SELECT GenreId, MEDIAN(Milliseconds), STDDEV_SAMP(Milliseconds) FROM Track GROUP BY GenreId"),
    ("duckdb", "SELECT GenreId, arg_max(Name, TrackId), arg_min(Composer, Milliseconds * 10000 + TrackId), max_by(Bytes, TrackId), regr_slope(Milliseconds, Bytes), regr_intercept(Milliseconds, Bytes) FROM Track GROUP BY GenreId HAVING COUNT(*) > 1"),
    ("duckdb", "SELECT MediaTypeId, STRING_AGG(Name, ', ' ORDER BY Name, TrackId) FROM Track WHERE TrackId < 40 GROUP BY MediaTypeId"),
    ("duckdb", "SELECT BillingCountry, Total FROM Invoice WHERE InvoiceDate >= DATE '2013-12-31' - INTERVAL '30 days'"),
    ("duckdb", "SELECT BillingCountry, BillingCity, COUNT(*) FROM Invoice GROUP BY CUBE (BillingCountry, BillingCity)"),
    ("duckdb", "SELECT a.Title, t.Name FROM Album a CROSS JOIN MediaType t WHERE a.AlbumId < 4"),
    ("sqlite", "SELECT x FROM (SELECT Name AS x FROM Artist WHERE ArtistId < 4) a UNION SELECT y FROM (SELECT Title AS y FROM Album WHERE AlbumId < 4) b"),
    ("sqlite", "SELECT Album.Title, Artist.Name FROM (SELECT Title, ArtistId FROM Album WHERE AlbumId < 9) Album JOIN Artist ON Artist.ArtistId = Album.ArtistId"),
    ("duckdb", "SELECT Name FROM Artist WHERE ArtistId < 5 UNION (SELECT Title FROM Album WHERE AlbumId < 9 INTERSECT SELECT Title FROM Album WHERE AlbumId > 3)"),
    ("duckdb", "(SELECT Name FROM Track ORDER BY Milliseconds DESC, TrackId LIMIT 3) UNION ALL (SELECT Name FROM Track ORDER BY Milliseconds, TrackId LIMIT 3)"),
    ("duckdb", "SELECT InvoiceId, MAKE_DATE(YEAR(InvoiceDate), MONTH(InvoiceDate), 1) FROM Invoice WHERE InvoiceId < 30"),
    ("duckdb", "SELECT a.InvoiceId, b.InvoiceId FROM Invoice a JOIN Invoice b ON b.CustomerId = a.CustomerId AND b.InvoiceDate > a.InvoiceDate WHERE b.InvoiceDate - a.InvoiceDate <= INTERVAL '400 days' AND INTERVAL '90 days' < b.InvoiceDate - a.InvoiceDate"),
    ("duckdb", "SELECT CAST(d AS DATE) AS day, COUNT(i.InvoiceId) FROM range(DATE '2013-11-25', DATE '2014-01-01', INTERVAL 1 DAY) t(d) LEFT JOIN Invoice i ON CAST(i.InvoiceDate AS DATE) = CAST(d AS DATE) GROUP BY 1"),
    ("duckdb", "SELECT g, Name FROM generate_series(10, 1, -3) AS s(g) JOIN Genre ON GenreId = g"),
    ("duckdb", "SELECT InvoiceId, dayname(InvoiceDate), monthname(InvoiceDate), strftime(InvoiceDate, '%a %d %b %Y, %A in %B') FROM Invoice WHERE InvoiceId < 60"),
    ("sqlite", "SELECT InvoiceId, datetime(InvoiceId * 86400 + 1230000000, 'unixepoch'), date(InvoiceId * 86400, 'unixepoch', 'start of month') FROM Invoice WHERE InvoiceId < 20"),
    ("duckdb", "SELECT InvoiceId, epoch_ms(InvoiceId * 86400000 + 1500), make_timestamp(2013, 1 + InvoiceId % 12, 1 + InvoiceId % 28, InvoiceId % 24, 30, 15.5), to_timestamp(InvoiceId * 1000) AT TIME ZONE 'UTC' FROM Invoice WHERE InvoiceId < 20"),
    ("duckdb", "SELECT InvoiceId, isoyear(InvoiceDate), EXTRACT(isoyear FROM InvoiceDate), EXTRACT(week FROM InvoiceDate) FROM Invoice"),
    ("sqlite", "WITH RECURSIVE days(day) AS (SELECT '2013-12-01' UNION ALL SELECT date(day, '+1 day') FROM days WHERE day < '2013-12-31') SELECT d.day, COUNT(i.InvoiceId) FROM days d LEFT JOIN Invoice i ON date(i.InvoiceDate) = d.day GROUP BY d.day"),
    ("duckdb", "WITH RECURSIVE up AS (SELECT EmployeeId, ReportsTo, 0 AS hops FROM Employee WHERE EmployeeId = 7 UNION ALL SELECT e.EmployeeId, e.ReportsTo, u.hops + 1 FROM Employee e JOIN up u ON e.EmployeeId = u.ReportsTo) SELECT EmployeeId, hops FROM up"),
    ("duckdb", "SELECT InvoiceId, strptime('2009.01.06 10:30', '%Y.%m.%d %H:%M') FROM Invoice WHERE InvoiceDate >= strptime('2009-01-06', '%Y-%m-%d') AND InvoiceId < 20"),
    ("duckdb", "SELECT ArtistId, regexp_matches(Name, '^[A-Z][a-z]+ [A-Z]'), regexp_replace(Name, '[aeiou]', '_', 'g'), regexp_extract(Name, '[0-9]+'), regexp_full_match(Name, 'A.*') FROM Artist WHERE Name ~ '.*[Tt]he.*' OR regexp_matches(Name, 'ac/dc', 'i')"),
    ("duckdb", "SELECT InvoiceId, (InvoiceDate AT TIME ZONE 'UTC') AT TIME ZONE 'America/New_York', EXTRACT(hour FROM timezone('Australia/Sydney', timezone('Europe/London', InvoiceDate))) FROM Invoice"),
];

#[test]
fn each_dialects_own_spelling_gives_the_databases_own_rows() {
    ENGINES.with(|(sqlite, duckdb)| {
        for (engine, sql) in SPELLINGS {
            let engine_ref = if engine == "sqlite" { sqlite } else { duckdb };
            spelt_as_written(engine_ref, engine, sql);
        }
    });
}
