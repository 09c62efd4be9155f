//! The constructs the plan language grew for analysts' SQL, as random plans over Chinook,
//! and the comparison of two engines' rows for one plan: shared by the SQLite-against-DuckDB
//! run (`engines.rs`) and the PostgreSQL one of the full run (`servers.rs`).

use nl2sql_core::datasource::Datasource;
use nl2sql_core::plan::Plan;
use nl2sql_core::policy::Policies;
use nl2sql_core::run::run_plan;
use nl2sql_core::schema::SchemaSnapshot;
use nl2sql_core::validate::ValidatorSettings;
use nl2sql_core::{Metadata, Value};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use serde_json::{json, Value as Json};

pub struct Engine {
    pub db: Box<dyn Datasource>,
    pub schema: SchemaSnapshot,
}

pub fn open(db: Box<dyn Datasource>) -> Engine {
    let schema = pollster::block_on(db.introspect()).expect("introspects");
    Engine { db, schema }
}

/// The rows of `plan` on `engine`, or why it did not run.
pub fn rows(engine: &Engine, plan: &Plan) -> Result<Vec<Vec<Value>>, String> {
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
pub fn same(a: &Value, b: &Value) -> bool {
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

pub fn key(row: &[Value]) -> String {
    format!("{row:?}")
}

/// The rows of `plan` on two engines, the same: in order when the plan's order is total,
/// else as multisets.
pub fn compare(
    (first, a): (&str, &Engine),
    (second, b): (&str, &Engine),
    plan: Json,
    ordered: bool,
) -> Result<(), TestCaseError> {
    let text = plan.to_string();
    let plan = Plan::from_json(&text).map_err(|e| TestCaseError::fail(format!("{e}: {text}")))?;
    let mut ours = rows(a, &plan).map_err(|e| TestCaseError::fail(format!("{first}: {e}")))?;
    let mut theirs = rows(b, &plan).map_err(|e| TestCaseError::fail(format!("{second}: {e}")))?;
    if !ordered {
        ours.sort_by_key(|r| key(r));
        theirs.sort_by_key(|r| key(r));
    }
    prop_assert_eq!(ours.len(), theirs.len(), "{}", plan);
    prop_assert!(!ours.is_empty(), "no rows, so nothing compared: {}", plan);
    for (x, y) in ours.iter().zip(&theirs) {
        let agree = x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same(p, q));
        prop_assert!(agree, "{:?} against {:?}\n{}", x, y, plan);
    }
    Ok(())
}

/// `sql`, written in `engine`'s own dialect, gives the same rows run as written and
/// imported as a plan (as multisets); `label` names the engine in failures.
pub fn spelt_as_written(engine: &Engine, label: &str, sql: &str) {
    let limits = nl2sql_core::datasource::ExecLimits {
        max_rows: 100_000,
        timeout_ms: None,
        reading: false,
    };
    let mut direct = pollster::block_on(engine.db.execute(sql, limits))
        .unwrap_or_else(|e| panic!("{label} runs {sql}: {e:?}"))
        .rows;
    let plan = nl2sql_core::import::import_sql(sql, &engine.schema, engine.schema.dialect)
        .unwrap_or_else(|e| panic!("{label} imports {sql}: {e:?}"));
    let mut through = rows(engine, &plan).unwrap_or_else(|e| panic!("{label}: {sql}: {e}"));
    direct.sort_by_key(|r| key(r));
    through.sort_by_key(|r| key(r));
    assert!(
        !direct.is_empty(),
        "{label}: no rows, so nothing compared: {sql}"
    );
    assert_eq!(direct.len(), through.len(), "{label}: {sql}");
    for (a, b) in direct.iter().zip(&through) {
        let agree = a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same(x, y));
        assert!(agree, "{label}: {a:?} against {b:?}\n{sql}\n{plan}");
    }
}

pub fn col(alias: &str, column: &str) -> Json {
    json!({"kind": "column", "alias": alias, "column_name": column})
}

pub fn lit(value: Json) -> Json {
    json!({"kind": "literal", "value": value})
}

pub fn func(name: &str, args: Vec<Json>) -> Json {
    json!({"kind": "func", "func_name": name, "args": args})
}

pub fn bin(op: &str, left: Json, right: Json) -> Json {
    json!({"kind": "binary", "op": op, "left": left, "right": right})
}

pub fn direction() -> impl Strategy<Value = &'static str> {
    prop_oneof![Just("asc"), Just("desc")]
}

pub fn nulls() -> impl Strategy<Value = &'static str> {
    prop_oneof![Just("first"), Just("last")]
}

/// Customers by a column with NULLs, NULLs where the plan puts them, a page of them.
pub fn null_ordering() -> impl Strategy<Value = Json> {
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
pub fn aggregate_filters() -> impl Strategy<Value = Json> {
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
pub fn cross_join() -> impl Strategy<Value = Json> {
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
pub fn grouping_sets() -> impl Strategy<Value = Json> {
    (
        prop_oneof![
            Just(vec![vec![0, 1], vec![0], vec![]]),
            Just(vec![vec![0, 1], vec![0], vec![1], vec![]]),
            Just(vec![vec![1], vec![0]]),
        ],
        any::<bool>(),
    )
        .prop_map(|(sets, windowed)| {
            let mut plan = json!({
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
            });
            if windowed {
                // TPC-DS's rank within each subtotal level, and each group's share of it.
                let level = bin(
                    "+",
                    func("GROUPING", vec![col("i", "BillingCountry")]),
                    func("GROUPING", vec![col("i", "BillingState")]),
                );
                let ranked = json!({"kind": "func", "func_name": "RANK", "args": [],
                    "over": {"partition_by": [level.clone()],
                             "order_by": [{"expr": func("SUM", vec![col("i", "Total")]), "direction": "desc"},
                                          {"expr": col("i", "BillingCountry"), "nulls": "first"},
                                          {"expr": col("i", "BillingState"), "nulls": "first"}]}});
                let level_total = json!({"kind": "func", "func_name": "SUM",
                    "args": [func("SUM", vec![col("i", "Total")])],
                    "over": {"partition_by": [level]}});
                if let Some(items) = plan["select_items"].as_array_mut() {
                    items.push(json!({"expr": ranked, "alias": "place"}));
                    items.push(json!({"expr": bin("/", func("SUM", vec![col("i", "Total")]), level_total), "alias": "share"}));
                }
                plan["order_by"] = json!([{"expr": {"kind": "column", "column_name": "place"}},
                                          {"expr": {"kind": "column", "column_name": "all_states"}},
                                          {"expr": col("i", "BillingCountry"), "nulls": "first"},
                                          {"expr": col("i", "BillingState"), "nulls": "first"}]);
                plan["limit"] = json!(30);
            }
            plan
        })
}

/// Invoice dates truncated, moved, taken apart, counted between and elapsed, in random units.
pub fn dates() -> impl Strategy<Value = Json> {
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

/// Spread of track lengths per media type (of the long ones only, or of all), how they go
/// with the tracks' sizes, and the names of its first tracks joined in order. SQLite
/// computes spreads and correlations from sums (its square root registered natively).
pub fn statistics() -> impl Strategy<Value = Json> {
    (
        prop_oneof![
            Just("VAR_SAMP"),
            Just("VAR_POP"),
            Just("STDDEV_SAMP"),
            Just("STDDEV_POP")
        ],
        any::<bool>(),
        prop_oneof![Just("CORR"), Just("COVAR_POP"), Just("COVAR_SAMP")],
        direction(),
        prop_oneof![Just(", "), Just("|")],
    )
        .prop_map(|(statistic, only_long, paired, direction, separator)| {
            let mut spread = func(statistic, vec![col("t", "Milliseconds")]);
            if only_long {
                spread["filter"] = bin(">", col("t", "Milliseconds"), lit(json!(200_000)));
            }
            json!({
                "tables": [{"name": "Track", "alias": "t"}],
                "select_items": [
                    {"expr": col("t", "MediaTypeId")},
                    {"expr": spread, "alias": "spread"},
                    {"expr": func(paired, vec![col("t", "Milliseconds"), col("t", "Bytes")]), "alias": "paired"},
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
pub fn percentiles() -> impl Strategy<Value = Json> {
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

/// The value on the row of the largest or smallest key (`ARG_MAX`/`ARG_MIN`), with the
/// value or the key NULL on many rows, filtered or not, per genre or over all, beside a
/// regression line of length on size. SQLite and PostgreSQL pick from numbered rows,
/// DuckDB has the aggregates. Each key is unique where present, so no tie decides.
pub fn picks() -> impl Strategy<Value = Json> {
    (
        prop_oneof![Just("ARG_MAX"), Just("ARG_MIN")],
        prop_oneof![
            Just(col("t", "Composer")),
            Just(col("t", "Name")),
            Just(col("t", "Milliseconds"))
        ],
        prop_oneof![
            Just(col("t", "TrackId")),
            // NULL for the first media type.
            Just(bin(
                "+",
                bin(
                    "*",
                    func("NULLIF", vec![col("t", "MediaTypeId"), lit(json!(1))]),
                    lit(json!(100_000))
                ),
                col("t", "TrackId")
            )),
        ],
        any::<bool>(),
        any::<bool>(),
        prop_oneof![Just("REGR_SLOPE"), Just("REGR_INTERCEPT")],
    )
        .prop_map(|(name, value, key, filtered, grouped, regression)| {
            let mut pick = func(name, vec![value, key]);
            if filtered {
                pick["filter"] = bin(">", col("t", "Milliseconds"), lit(json!(250_000)));
            }
            let line = func(
                regression,
                vec![col("t", "Milliseconds"), col("t", "Bytes")],
            );
            let mut plan = json!({
                "tables": [{"name": "Track", "alias": "t"}],
                "select_items": [
                    {"expr": pick, "alias": "picked"},
                    {"expr": line, "alias": "line"}
                ],
                "where": bin("<=", col("t", "GenreId"), lit(json!(12)))
            });
            if grouped {
                if let Some(items) = plan["select_items"].as_array_mut() {
                    items.insert(0, json!({"expr": col("t", "GenreId")}));
                }
                plan["group_by"] = json!([{"expr": col("t", "GenreId")}]);
            }
            plan
        })
}

/// Whether any / every customer of a country is in a state, or on a support rep: States
/// are NULL for most countries, so whole groups of NULLs (no answer) are compared too.
pub fn any_and_every() -> impl Strategy<Value = Json> {
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
pub fn without_from() -> impl Strategy<Value = Json> {
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
pub fn recursive_ctes() -> impl Strategy<Value = Json> {
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
pub fn time_frames() -> impl Strategy<Value = Json> {
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
