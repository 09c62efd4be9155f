//! The constructs the plan language grew for analysts' SQL mean the same on every engine:
//! random plans with NULL ordering, aggregate filters, cross joins, grouping sets, dates
//! that keep their kind, statistics, string aggregation, BOOL_OR/BOOL_AND, a query
//! without FROM and recursive CTEs, each run on Chinook in SQLite and in DuckDB (a copy the tests make) and
//! compared row for row, ties and NULLs included. And each dialect's own spelling of them,
//! imported, gives the rows the database gives for the SQL as written.
#![cfg(not(target_arch = "wasm32"))]

use nl2sql_core::datasource::{Datasource, ExecLimits};
use nl2sql_core::plan::Plan;
use nl2sql_core::policy::Policies;
use nl2sql_core::run::run_plan;
use nl2sql_core::schema::SchemaSnapshot;
use nl2sql_core::validate::ValidatorSettings;
use nl2sql_core::{Metadata, Value};
use nl2sql_tests::servers::Server;
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use serde_json::{json, Value as Json};

struct Engine {
    db: Box<dyn Datasource>,
    schema: SchemaSnapshot,
}

fn open(db: Box<dyn Datasource>) -> Engine {
    let schema = pollster::block_on(db.introspect()).expect("introspects");
    Engine { db, schema }
}

thread_local! {
    // Each test's thread opens Chinook once in each engine (datasources stay on a thread).
    static ENGINES: (Engine, Engine) = (
        open(Box::new(nl2sql_tests::native::chinook())),
        open(Server::DuckDb.open("chinook")),
    );
}

/// The rows of `plan` on `engine`, or why it did not run.
fn rows(engine: &Engine, plan: &Plan) -> Result<Vec<Vec<Value>>, String> {
    let policies = Policies::demo();
    let scope = policies.scope(&[]);
    let run = pollster::block_on(run_plan(
        plan,
        &*engine.db,
        &engine.schema,
        &scope,
        &ValidatorSettings::default(),
    ));
    match run.frame {
        Some(f) if run.succeeded() => Ok(f.rows),
        _ => Err(format!("{:?}\n{:?}", run.errors, run.sql)),
    }
}

/// Two values the same: numbers within a relative 1e-9 (sums of squares, 1e-6), anything
/// else exactly.
fn same(a: &Value, b: &Value) -> bool {
    let number = |v: &Value| match v {
        Value::Integer(i) => Some(*i as f64),
        Value::Real(r) => Some(*r),
        _ => None,
    };
    match (number(a), number(b)) {
        (Some(x), Some(y)) => (x - y).abs() <= 1e-6 * x.abs().max(y.abs()).max(1.0),
        _ => a == b,
    }
}

fn key(row: &[Value]) -> String {
    format!("{row:?}")
}

/// SQLite's rows against DuckDB's: in order when the plan's order is total, else as
/// multisets.
fn check(plan: Json, ordered: bool) -> Result<(), TestCaseError> {
    let text = plan.to_string();
    let plan = Plan::from_json(&text).map_err(|e| TestCaseError::fail(format!("{e}: {text}")))?;
    let (ours, theirs) =
        ENGINES.with(|(sqlite, duckdb)| (rows(sqlite, &plan), rows(duckdb, &plan)));
    let mut ours = ours.map_err(|e| TestCaseError::fail(format!("SQLite: {e}")))?;
    let mut theirs = theirs.map_err(|e| TestCaseError::fail(format!("DuckDB: {e}")))?;
    if !ordered {
        ours.sort_by_key(|r| key(r));
        theirs.sort_by_key(|r| key(r));
    }
    prop_assert_eq!(ours.len(), theirs.len(), "{}", plan);
    prop_assert!(!ours.is_empty(), "no rows, so nothing compared: {}", plan);
    for (a, b) in ours.iter().zip(&theirs) {
        let agree = a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same(x, y));
        prop_assert!(agree, "{:?} against {:?}\n{}", a, b, plan);
    }
    Ok(())
}

fn col(alias: &str, column: &str) -> Json {
    json!({"kind": "column", "alias": alias, "column_name": column})
}

fn lit(value: Json) -> Json {
    json!({"kind": "literal", "value": value})
}

fn func(name: &str, args: Vec<Json>) -> Json {
    json!({"kind": "func", "func_name": name, "args": args})
}

fn bin(op: &str, left: Json, right: Json) -> Json {
    json!({"kind": "binary", "op": op, "left": left, "right": right})
}

fn direction() -> impl Strategy<Value = &'static str> {
    prop_oneof![Just("asc"), Just("desc")]
}

fn nulls() -> impl Strategy<Value = &'static str> {
    prop_oneof![Just("first"), Just("last")]
}

/// Customers by a column with NULLs, NULLs where the plan puts them, a page of them.
fn null_ordering() -> impl Strategy<Value = Json> {
    (
        prop_oneof![Just("Company"), Just("State"), Just("Fax")],
        direction(),
        nulls(),
        1i64..60,
    )
        .prop_map(|(column, direction, nulls, limit)| {
            json!({
                "tables": [{"name": "Customer", "alias": "c"}],
                "select_items": [{"expr": col("c", column), "alias": "v"}, {"expr": col("c", "CustomerId")}],
                "order_by": [{"expr": col("c", column), "direction": direction, "nulls": nulls},
                             {"expr": col("c", "CustomerId")}],
                "limit": limit
            })
        })
}

/// Counts and sums per genre, each over the rows a filter keeps.
fn aggregate_filters() -> impl Strategy<Value = Json> {
    (100_000i64..400_000, any::<bool>()).prop_map(|(threshold, composer_known)| {
        json!({
            "tables": [{"name": "Track", "alias": "t"}],
            "select_items": [
                {"expr": col("t", "GenreId")},
                {"expr": {"kind": "func", "func_name": "COUNT", "args": [col("t", "*")],
                          "filter": bin(">", col("t", "Milliseconds"), lit(json!(threshold)))}, "alias": "long"},
                {"expr": {"kind": "func", "func_name": "SUM", "args": [col("t", "Bytes")],
                          "filter": bin(if composer_known { "IS NOT" } else { "IS" }, col("t", "Composer"), json!({"kind": "literal", "is_null": true}))},
                 "alias": "bytes"}
            ],
            "group_by": [{"expr": col("t", "GenreId")}]
        })
    })
}

/// Every pairing of a few genres and media types.
fn cross_join() -> impl Strategy<Value = Json> {
    (1i64..8, 1i64..6).prop_map(|(genres, media)| {
        json!({
            "tables": [{"name": "Genre", "alias": "g"}, {"name": "MediaType", "alias": "m"}],
            "joins": [{"left_alias": "g", "right_alias": "m", "join_type": "cross"}],
            "select_items": [{"expr": col("g", "Name")}, {"expr": col("m", "Name"), "alias": "media"}],
            "where": bin("AND", bin("<=", col("g", "GenreId"), lit(json!(genres))),
                         bin("<=", col("m", "MediaTypeId"), lit(json!(media))))
        })
    })
}

/// Invoice totals by country and state, with the subtotals a rollup or cube adds.
fn grouping_sets() -> impl Strategy<Value = Json> {
    prop_oneof![
        Just(vec![vec![0, 1], vec![0], vec![]]),
        Just(vec![vec![0, 1], vec![0], vec![1], vec![]]),
        Just(vec![vec![1], vec![0]]),
    ]
    .prop_map(|sets| {
        json!({
            "tables": [{"name": "Invoice", "alias": "i"}],
            "select_items": [
                {"expr": col("i", "BillingCountry"), "alias": "country"},
                {"expr": col("i", "BillingState"), "alias": "state"},
                {"expr": func("COUNT", vec![col("i", "*")]), "alias": "invoices"},
                {"expr": func("SUM", vec![col("i", "Total")]), "alias": "total"},
                {"expr": func("GROUPING", vec![col("i", "BillingState")]), "alias": "all_states"}
            ],
            "group_by": [{"expr": col("i", "BillingCountry")}, {"expr": col("i", "BillingState")}],
            "grouping_sets": sets
        })
    })
}

/// Invoice dates truncated, moved, taken apart, counted between and elapsed, in random units.
fn dates() -> impl Strategy<Value = Json> {
    let period = prop_oneof![
        Just("year"),
        Just("quarter"),
        Just("month"),
        Just("week"),
        Just("day"),
        Just("hour"),
        Just("minute"),
        Just("second")
    ];
    let part = prop_oneof![
        Just("year"),
        Just("quarter"),
        Just("month"),
        Just("week"),
        Just("day"),
        Just("hour"),
        Just("dow"),
        Just("isodow"),
        Just("doy"),
        Just("epoch")
    ];
    (period.clone(), period, part, -40i64..40, any::<bool>()).prop_map(
        |(cut, step, part, n, as_date)| {
            let date = if as_date {
                json!({"kind": "cast", "expr": col("i", "InvoiceDate"), "to": "date"})
            } else {
                col("i", "InvoiceDate")
            };
            json!({
                "tables": [{"name": "Invoice", "alias": "i"}],
                "select_items": [
                    {"expr": col("i", "InvoiceId")},
                    {"expr": func("DATE_TRUNC", vec![lit(json!(cut)), date.clone()]), "alias": "cut"},
                    {"expr": func("DATE_ADD", vec![lit(json!(step)), lit(json!(n)), date.clone()]), "alias": "moved"},
                    {"expr": func("DATE_PART", vec![lit(json!(part)), date.clone()]), "alias": "part"},
                    {"expr": func("DATE_DIFF", vec![lit(json!(step)), date.clone(), lit(json!("2012-06-15 12:30:45"))]), "alias": "between"},
                    {"expr": func("ELAPSED", vec![lit(json!(step)), date.clone(), lit(json!("2012-06-15 12:30:45"))]), "alias": "since"},
                    {"expr": func("ELAPSED", vec![lit(json!(step)), lit(json!("2011-01-31 18:00:00")), date]), "alias": "until"}
                ],
                "where": bin("<=", col("i", "InvoiceId"), lit(json!(40))),
                "order_by": [{"expr": col("i", "InvoiceId")}]
            })
        },
    )
}

/// Spread of track lengths per media type, and the names of its first tracks joined in
/// order. (Standard deviations need SQLite's optional SQRT: see the test below.)
fn statistics() -> impl Strategy<Value = Json> {
    (
        prop_oneof![Just("VAR_SAMP"), Just("VAR_POP")],
        direction(),
        prop_oneof![Just(", "), Just("|")],
    )
        .prop_map(|(statistic, direction, separator)| {
            json!({
                "tables": [{"name": "Track", "alias": "t"}],
                "select_items": [
                    {"expr": col("t", "MediaTypeId")},
                    {"expr": func(statistic, vec![col("t", "Milliseconds")]), "alias": "spread"},
                    {"expr": {"kind": "func", "func_name": "STRING_AGG",
                              "args": [col("t", "Name"), lit(json!(separator))],
                              "order_by": [{"expr": col("t", "Name"), "direction": direction},
                                           {"expr": col("t", "TrackId")}]},
                     "alias": "names"}
                ],
                "where": bin("<=", col("t", "TrackId"), lit(json!(60))),
                "group_by": [{"expr": col("t", "MediaTypeId")}]
            })
        })
}

/// Medians and percentiles (continuous and discrete, either order) of track lengths or
/// composers' name lengths (NULL for many), per genre or over all, beside other aggregates
/// and a HAVING: SQLite numbers its rows with window functions, DuckDB has the aggregate.
fn percentiles() -> impl Strategy<Value = Json> {
    (
        prop_oneof![
            Just("MEDIAN"),
            Just("PERCENTILE_CONT"),
            Just("PERCENTILE_DISC")
        ],
        prop_oneof![
            Just(0.0),
            Just(0.1),
            Just(0.25),
            Just(0.5),
            Just(0.9),
            Just(1.0)
        ],
        direction(),
        any::<bool>(),
        any::<bool>(),
        1i64..30,
    )
        .prop_map(|(name, p, direction, grouped, nullable, top)| {
            let measured = if nullable {
                func("LENGTH", vec![col("t", "Composer")])
            } else {
                col("t", "Milliseconds")
            };
            let statistic = if name == "MEDIAN" {
                func("MEDIAN", vec![measured])
            } else {
                json!({"kind": "func", "func_name": name, "args": [lit(json!(p))],
                       "order_by": [{"expr": measured, "direction": direction}]})
            };
            let mut plan = json!({
                "tables": [{"name": "Track", "alias": "t"}],
                "select_items": [
                    {"expr": statistic, "alias": "pct"},
                    {"expr": func("COUNT", vec![col("t", "TrackId")]), "alias": "tracks"}
                ],
                "where": bin("<=", col("t", "GenreId"), lit(json!(top)))
            });
            if grouped {
                if let Some(items) = plan["select_items"].as_array_mut() {
                    items.insert(0, json!({"expr": col("t", "GenreId")}));
                }
                plan["group_by"] = json!([{"expr": col("t", "GenreId")}]);
                plan["having"] = bin(">", func("COUNT", vec![col("t", "TrackId")]), lit(json!(2)));
            }
            plan
        })
}

/// Whether any / every customer of a country is in a state, or on a support rep: States
/// are NULL for most countries, so whole groups of NULLs (no answer) are compared too.
fn any_and_every() -> impl Strategy<Value = Json> {
    (
        prop_oneof![Just("BOOL_OR"), Just("BOOL_AND")],
        prop_oneof![
            Just(bin("=", col("c", "State"), lit(json!("CA")))),
            Just(bin("<", col("c", "State"), lit(json!("M")))),
            Just(bin("=", col("c", "SupportRepId"), lit(json!(3)))),
        ],
    )
        .prop_map(|(aggregate, condition)| {
            json!({
                "tables": [{"name": "Customer", "alias": "c"}],
                "select_items": [
                    {"expr": col("c", "Country")},
                    {"expr": func(aggregate, vec![condition]), "alias": "flag"}
                ],
                "group_by": [{"expr": col("c", "Country")}]
            })
        })
}

/// A ratio of two counts, with no table of its own.
fn without_from() -> impl Strategy<Value = Json> {
    (1i64..25).prop_map(|genre| {
        let count = |table: &str, alias: &str, filter: Option<Json>| {
            let mut plan = json!({
                "tables": [{"name": table, "alias": alias}],
                "select_items": [{"expr": func("COUNT", vec![col(alias, "*")])}]
            });
            if let Some(f) = filter {
                plan["where"] = f;
            }
            json!({"kind": "subquery", "plan": plan})
        };
        json!({
            "tables": [],
            "select_items": [{
                "expr": bin("/", {
                    let mut c = count("Track", "t", Some(bin("=", col("t", "GenreId"), lit(json!(genre)))));
                    c = json!({"kind": "cast", "expr": c, "to": "real"});
                    c
                }, count("Track", "u", None)),
                "alias": "share"
            }]
        })
    })
}

/// Recursive CTEs: the chain of people under a random manager with their depth, and a
/// series of numbers with a random step, each read by a plan that aggregates it.
fn recursive_ctes() -> impl Strategy<Value = Json> {
    let chain = (1i64..9).prop_map(|root| {
        json!({
            "with": [{"name": "chain", "recursive": true, "plan": {
                "tables": [{"name": "Employee", "alias": "e"}],
                "select_items": [{"expr": col("e", "EmployeeId")}, {"expr": lit(json!(0)), "alias": "depth"}],
                "where": bin("=", col("e", "EmployeeId"), lit(json!(root))),
                "set_operations": [{"op": "union_all", "plan": {
                    "tables": [{"name": "Employee", "alias": "e"}, {"name": "chain", "alias": "c"}],
                    "joins": [{"left_alias": "c", "right_alias": "e",
                               "condition": bin("=", col("e", "ReportsTo"), col("c", "EmployeeId"))}],
                    "select_items": [{"expr": col("e", "EmployeeId")},
                                     {"expr": bin("+", col("c", "depth"), lit(json!(1)))}]}}]}}],
            "tables": [{"name": "chain", "alias": "k"}],
            "select_items": [{"expr": col("k", "depth")},
                             {"expr": func("COUNT", vec![col("k", "EmployeeId")]), "alias": "people"}],
            "group_by": [{"expr": col("k", "depth")}]
        })
    });
    let series = (1i64..4, 5i64..40, prop_oneof![Just("union_all"), Just("union")]).prop_map(
        |(step, top, op)| {
            json!({
                "with": [{"name": "series", "recursive": true, "plan": {
                    "tables": [],
                    "select_items": [{"expr": lit(json!(1)), "alias": "n"}],
                    "set_operations": [{"op": op, "plan": {
                        "tables": [{"name": "series", "alias": "s"}],
                        "select_items": [{"expr": bin("+", col("s", "n"), lit(json!(step)))}],
                        "where": bin("<=", bin("+", col("s", "n"), lit(json!(step))), lit(json!(top)))}}]}}],
                "tables": [{"name": "series", "alias": "x"}, {"name": "Genre", "alias": "g"}],
                "joins": [{"left_alias": "x", "right_alias": "g", "join_type": "left",
                           "condition": bin("=", col("g", "GenreId"), col("x", "n"))}],
                "select_items": [{"expr": col("x", "n")}, {"expr": col("g", "Name")}]
            })
        },
    );
    prop_oneof![chain, series]
}

/// Sums over frames counted in time (the last n days, hours or weeks before each invoice,
/// up to it or short of it), per customer or over all.
fn time_frames() -> impl Strategy<Value = Json> {
    (
        prop_oneof![Just("day"), Just("hour"), Just("week")],
        0u64..60,
        prop_oneof![
            Just(json!({"kind": "current_row"})),
            Just(json!({"kind": "preceding", "offset": 1})),
            Just(json!({"kind": "following", "offset": 2}))
        ],
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(unit, n, end, per_customer, as_date)| {
            let date = if as_date {
                json!({"kind": "cast", "expr": col("i", "InvoiceDate"), "to": "date"})
            } else {
                col("i", "InvoiceDate")
            };
            let start = n.max(2);
            let partition = if per_customer {
                vec![col("i", "CustomerId")]
            } else {
                vec![]
            };
            json!({
                "tables": [{"name": "Invoice", "alias": "i"}],
                "select_items": [
                    {"expr": col("i", "InvoiceId")},
                    {"expr": {"kind": "func", "func_name": "SUM", "args": [col("i", "Total")],
                              "over": {"partition_by": partition,
                                       "order_by": [{"expr": date}],
                                       "frame": {"unit": "range", "offset_unit": unit,
                                                 "start": {"kind": "preceding", "offset": start},
                                                 "end": end}}},
                     "alias": "rolling"}
                ],
                "where": bin("<=", col("i", "InvoiceId"), lit(json!(120))),
                "order_by": [{"expr": col("i", "InvoiceId")}]
            })
        })
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

/// A standard deviation runs on DuckDB and, on SQLite, whose square root is optional, stops
/// before the database with a message that names the variance instead.
#[test]
fn a_deviation_on_sqlite_names_the_variance() {
    let plan: Plan = serde_json::from_value(json!({
        "tables": [{"name": "Track", "alias": "t"}],
        "select_items": [{"expr": func("STDDEV_SAMP", vec![col("t", "Milliseconds")]), "alias": "spread"}]
    }))
    .expect("a plan");
    ENGINES.with(|(sqlite, duckdb)| {
        let on_duckdb = rows(duckdb, &plan).expect("DuckDB has STDDEV_SAMP");
        assert_eq!(on_duckdb.len(), 1);
        assert!(
            matches!(on_duckdb[0][0], Value::Real(r) if r > 0.0),
            "{on_duckdb:?}"
        );
        let refused = rows(sqlite, &plan).expect_err("SQLite has no SQRT here");
        assert!(refused.contains("VAR_SAMP"), "{refused}");
    });
}

/// SQL as analysts write it for SQLite, then for DuckDB: each imported as a plan, rendered
/// and run must give the rows the database gives for the SQL itself.
const SPELLINGS: [(&str, &str); 31] = [
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
    ("duckdb", "SELECT InvoiceId, InvoiceDate + INTERVAL 1 MONTH, DATE_TRUNC('month', InvoiceDate) FROM Invoice WHERE InvoiceId < 30"),
    ("duckdb", "SELECT GenreId, MEDIAN(Milliseconds), STDDEV_SAMP(Milliseconds) FROM Track GROUP BY GenreId"),
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
    ("sqlite", "WITH RECURSIVE days(day) AS (SELECT '2013-12-01' UNION ALL SELECT date(day, '+1 day') FROM days WHERE day < '2013-12-31') SELECT d.day, COUNT(i.InvoiceId) FROM days d LEFT JOIN Invoice i ON date(i.InvoiceDate) = d.day GROUP BY d.day"),
    ("duckdb", "WITH RECURSIVE up AS (SELECT EmployeeId, ReportsTo, 0 AS hops FROM Employee WHERE EmployeeId = 7 UNION ALL SELECT e.EmployeeId, e.ReportsTo, u.hops + 1 FROM Employee e JOIN up u ON e.EmployeeId = u.ReportsTo) SELECT EmployeeId, hops FROM up"),
];

#[test]
fn each_dialects_own_spelling_gives_the_databases_own_rows() {
    ENGINES.with(|(sqlite, duckdb)| {
        for (engine, sql) in SPELLINGS {
            let engine_ref = if engine == "sqlite" { sqlite } else { duckdb };
            let limits = ExecLimits {
                max_rows: 100_000,
                timeout_ms: None,
                reading: false,
            };
            let mut direct = pollster::block_on(engine_ref.db.execute(sql, limits))
                .unwrap_or_else(|e| panic!("{engine} runs {sql}: {e:?}"))
                .rows;
            let plan =
                nl2sql_core::import::import_sql(sql, &engine_ref.schema, engine_ref.schema.dialect)
                    .unwrap_or_else(|e| panic!("{engine} imports {sql}: {e:?}"));
            let mut through =
                rows(engine_ref, &plan).unwrap_or_else(|e| panic!("{engine}: {sql}: {e}"));
            direct.sort_by_key(|r| key(r));
            through.sort_by_key(|r| key(r));
            assert!(
                !direct.is_empty(),
                "{engine}: no rows, so nothing compared: {sql}"
            );
            assert_eq!(direct.len(), through.len(), "{engine}: {sql}");
            for (a, b) in direct.iter().zip(&through) {
                let agree = a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same(x, y));
                assert!(agree, "{engine}: {a:?} against {b:?}\n{sql}\n{plan}");
            }
        }
    });
}
