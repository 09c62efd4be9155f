//! Each construct rendered in each dialect, compared with `snapshots/dialects.txt`.
//! Set `NL2SQL_BLESS=1` to rewrite the snapshot after a deliberate change, then read the
//! diff: it is the review of every dialect's SQL.

use super::*;
use crate::test_fixtures::json::{bin, c, func, invoices, lit, sel};
use crate::test_fixtures::schema;
use serde_json::{json, Value as Json};

fn constructs() -> Vec<(&'static str, Json)> {
    let date = c("i", "InvoiceDate");
    let unit = |u: &str| lit(json!(u));
    let album_join = json!([{"left_alias": "t", "right_alias": "a", "join_type": "left",
        "condition": bin("=", c("t", "AlbumId"), c("a", "AlbumId"))}]);
    vec![
        (
            "join, filter with a quote, limit with tie-breakers",
            json!({"tables": [{"name": "Track", "alias": "t"}, {"name": "Album", "alias": "a"}],
                   "joins": album_join,
                   "select_items": [{"expr": c("a", "Title"), "alias": "album"}, {"expr": c("t", "Name")}],
                   "where": bin("=", c("a", "Title"), lit(json!("Rock 'n' Roll"))),
                   "order_by": [{"expr": c("t", "Milliseconds"), "direction": "desc"}],
                   "limit": 10}),
        ),
        (
            "a right join mirrored when its table comes first",
            json!({"tables": [{"name": "Album", "alias": "a"}, {"name": "Track", "alias": "t"}],
                   "joins": [{"left_alias": "t", "right_alias": "a", "join_type": "left",
                              "condition": bin("=", c("t", "AlbumId"), c("a", "AlbumId"))}],
                   "select_items": sel(vec![c("a", "Title")])}),
        ),
        (
            "offset paging",
            invoices(
                vec![c("i", "InvoiceId")],
                json!({
                "order_by": [{"expr": c("i", "Total"), "direction": "desc"}], "limit": 5, "offset": 10}),
            ),
        ),
        (
            "distinct",
            invoices(vec![c("i", "BillingCountry")], json!({"distinct": true})),
        ),
        (
            "group by, having, count distinct",
            invoices(
                vec![
                    c("i", "BillingCountry"),
                    json!({"kind": "func", "func_name": "COUNT", "distinct": true, "args": [c("i", "CustomerId")]}),
                ],
                json!({"group_by": [{"expr": c("i", "BillingCountry")}],
                       "having": bin(">", func("SUM", vec![c("i", "Total")]), lit(json!(100.5)))}),
            ),
        ),
        (
            "IN list, NOT IN subquery",
            invoices(
                vec![c("i", "InvoiceId")],
                json!({"where": bin("AND",
                bin("IN", c("i", "BillingCountry"), func("TUPLE", vec![lit(json!("USA")), lit(json!("Canada"))])),
                bin("NOT IN", c("i", "CustomerId"), json!({"kind": "subquery", "plan": {
                    "tables": [{"name": "Customer", "alias": "c"}],
                    "select_items": sel(vec![c("c", "CustomerId")]),
                    "where": bin("=", c("c", "City"), lit(json!("Paris")))}})))}),
            ),
        ),
        (
            "NOT EXISTS, correlated",
            json!({"tables": [{"name": "Customer", "alias": "c"}],
                   "select_items": sel(vec![c("c", "FirstName")]),
                   "where": {"kind": "unary", "op": "NOT", "expr": {"kind": "exists", "plan": {
                       "tables": [{"name": "Invoice", "alias": "i"}],
                       "select_items": sel(vec![lit(json!(1))]),
                       "where": bin("=", c("i", "CustomerId"), c("c", "CustomerId"))}}}}),
        ),
        (
            "scalar subquery",
            invoices(
                vec![c("i", "InvoiceId")],
                json!({"where": bin(">", c("i", "Total"),
                json!({"kind": "subquery", "plan": {"tables": [{"name": "Invoice", "alias": "j"}],
                       "select_items": sel(vec![func("AVG", vec![c("j", "Total")])])}}))}),
            ),
        ),
        (
            "CTE",
            json!({"with": [{"name": "big", "plan": invoices(vec![c("i", "CustomerId"), c("i", "Total")],
                       json!({"where": bin(">", c("i", "Total"), lit(json!(10)))}))}],
                   "tables": [{"name": "big", "alias": "b"}],
                   "select_items": sel(vec![func("COUNT", vec![c("b", "CustomerId")])])}),
        ),
        (
            "UNION ALL, ordered by result name",
            json!({"tables": [{"name": "Customer", "alias": "c"}],
                   "select_items": [{"expr": c("c", "City"), "alias": "city"}],
                   "set_operations": [
                       {"op": "union_all", "plan": {"tables": [{"name": "Employee", "alias": "e"}],
                                                  "select_items": sel(vec![c("e", "City")])}},
                       {"op": "except", "plan": {"tables": [{"name": "Invoice", "alias": "i"}],
                                               "select_items": sel(vec![c("i", "BillingCountry")])}}],
                   "order_by": [{"expr": {"kind": "column", "column_name": "city"}}]}),
        ),
        (
            "windows: row number, running sum with a frame, lag",
            invoices(
                vec![
                    json!({"kind": "func", "func_name": "ROW_NUMBER", "args": [], "over": {
                    "partition_by": [c("i", "CustomerId")],
                    "order_by": [{"expr": c("i", "Total"), "direction": "desc"}]}}),
                    json!({"kind": "func", "func_name": "SUM", "args": [c("i", "Total")], "over": {
                    "order_by": [{"expr": c("i", "InvoiceDate")}],
                    "frame": {"unit": "rows", "start": {"kind": "unbounded_preceding"},
                              "end": {"kind": "current_row"}}}}),
                    json!({"kind": "func", "func_name": "LAG", "args": [c("i", "Total"), lit(json!(1)), lit(json!(0))],
                       "over": {"order_by": [{"expr": c("i", "InvoiceDate")}]}}),
                ],
                json!({}),
            ),
        ),
        (
            "a frame counted in time: the 7 days up to each invoice, and a month before it",
            invoices(
                vec![
                    json!({"kind": "func", "func_name": "SUM", "args": [c("i", "Total")], "over": {
                    "order_by": [{"expr": c("i", "InvoiceDate")}],
                    "frame": {"unit": "range", "offset_unit": "day",
                              "start": {"kind": "preceding", "offset": 6},
                              "end": {"kind": "current_row"}}}}),
                    json!({"kind": "func", "func_name": "COUNT", "args": [c("i", "InvoiceId")], "over": {
                    "order_by": [{"expr": c("i", "InvoiceDate")}],
                    "frame": {"unit": "range", "offset_unit": "month",
                              "start": {"kind": "preceding", "offset": 1},
                              "end": {"kind": "preceding", "offset": 0}}}}),
                ],
                json!({}),
            ),
        ),
        (
            "casts",
            invoices(
                vec![
                    json!({"kind": "cast", "expr": c("i", "Total"), "to": "integer"}),
                    json!({"kind": "cast", "expr": c("i", "CustomerId"), "to": "real"}),
                    json!({"kind": "cast", "expr": c("i", "Total"), "to": "text"}),
                    json!({"kind": "cast", "expr": c("i", "InvoiceDate"), "to": "date"}),
                ],
                json!({}),
            ),
        ),
        (
            "whole numbers divide as SQLite divides them; fractions as fractions",
            invoices(
                vec![
                    bin("/", c("i", "CustomerId"), lit(json!(2))),
                    bin(
                        "/",
                        func("SUM", vec![c("i", "CustomerId")]),
                        func("COUNT", vec![c("i", "InvoiceId")]),
                    ),
                    bin("/", c("i", "Total"), lit(json!(2))),
                    bin("/", c("i", "CustomerId"), lit(json!(2.0))),
                ],
                json!({}),
            ),
        ),
        (
            "between, like, ilike and their negations",
            invoices(
                vec![c("i", "InvoiceId")],
                json!({"where": bin("AND", bin("AND",
                json!({"kind": "between", "expr": c("i", "Total"), "low": lit(json!(1)), "high": lit(json!(5)), "negated": true}),
                bin("NOT LIKE", c("i", "BillingCountry"), lit(json!("U%")))),
                bin("ILIKE", c("i", "BillingCountry"), lit(json!("%land"))))}),
            ),
        ),
        (
            "IS NULL, IS NOT NULL, IS TRUE, null-safe IS",
            invoices(
                vec![c("i", "InvoiceId")],
                json!({"where": bin("OR", bin("OR",
                bin("IS", c("i", "BillingCountry"), json!({"kind": "literal", "is_null": true})),
                bin("IS NOT", c("i", "Total"), json!({"kind": "literal", "is_null": true}))),
                bin("OR", bin("IS", bin(">", c("i", "Total"), lit(json!(1))), lit(json!(true))),
                          bin("IS NOT", c("i", "BillingCountry"), lit(json!("USA")))))}),
            ),
        ),
        (
            "concatenation: ||, + with text, CONCAT",
            invoices(
                vec![
                    bin("||", c("i", "BillingCountry"), lit(json!("!"))),
                    bin("+", lit(json!("#")), c("i", "InvoiceId")),
                    func(
                        "CONCAT",
                        vec![
                            c("i", "BillingCountry"),
                            lit(json!("-")),
                            c("i", "InvoiceId"),
                        ],
                    ),
                ],
                json!({}),
            ),
        ),
        (
            "case and booleans",
            invoices(
                vec![json!({"kind": "case",
                "whens": [{"condition": bin(">", c("i", "Total"), lit(json!(10))), "result": lit(json!(true))}],
                "else_expr": lit(json!(false))})],
                json!({}),
            ),
        ),
        (
            "date parts",
            invoices(
                [
                    "year", "quarter", "month", "week", "day", "hour", "minute", "second", "dow",
                    "isodow", "doy", "epoch",
                ]
                .iter()
                .map(|u| func("DATE_PART", vec![unit(u), date.clone()]))
                .collect(),
                json!({}),
            ),
        ),
        (
            "date truncation",
            invoices(
                [
                    "year", "quarter", "month", "week", "day", "hour", "minute", "second",
                ]
                .iter()
                .map(|u| func("DATE_TRUNC", vec![unit(u), date.clone()]))
                .collect(),
                json!({}),
            ),
        ),
        (
            "date arithmetic and differences, today pinned",
            invoices(
                vec![
                    func(
                        "DATE_ADD",
                        vec![unit("month"), lit(json!(-3)), date.clone()],
                    ),
                    func("DATE_ADD", vec![unit("hour"), lit(json!(2)), date.clone()]),
                    func(
                        "DATE_DIFF",
                        vec![unit("month"), date.clone(), func("CURRENT_DATE", vec![])],
                    ),
                    func(
                        "DATE_DIFF",
                        vec![unit("day"), date.clone(), func("CURRENT_DATE", vec![])],
                    ),
                    func(
                        "DATE_DIFF",
                        vec![unit("week"), date.clone(), func("CURRENT_DATE", vec![])],
                    ),
                ],
                json!({}),
            ),
        ),
        (
            "day and month names",
            invoices(
                vec![
                    func("DAY_NAME", vec![date.clone()]),
                    func("MONTH_NAME", vec![date.clone()]),
                ],
                json!({}),
            ),
        ),
        (
            "whole periods elapsed: an age in years, hours",
            invoices(
                vec![
                    func(
                        "ELAPSED",
                        vec![unit("year"), date.clone(), func("CURRENT_DATE", vec![])],
                    ),
                    func(
                        "ELAPSED",
                        vec![
                            unit("hour"),
                            date.clone(),
                            func("CURRENT_TIMESTAMP", vec![]),
                        ],
                    ),
                ],
                json!({}),
            ),
        ),
        (
            "dates stay dates, timestamps stay timestamps",
            invoices(
                vec![
                    func(
                        "DATE_TRUNC",
                        vec![
                            unit("month"),
                            json!({"kind": "cast", "expr": date.clone(), "to": "date"}),
                        ],
                    ),
                    func(
                        "DATE_ADD",
                        vec![unit("day"), lit(json!(-30)), func("CURRENT_DATE", vec![])],
                    ),
                    func(
                        "DATE_ADD",
                        vec![
                            unit("minute"),
                            lit(json!(90)),
                            func("CURRENT_TIMESTAMP", vec![]),
                        ],
                    ),
                    func(
                        "DATE_DIFF",
                        vec![
                            unit("minute"),
                            date.clone(),
                            func("CURRENT_TIMESTAMP", vec![]),
                        ],
                    ),
                    func(
                        "DATE_DIFF",
                        vec![
                            unit("second"),
                            date.clone(),
                            func("CURRENT_TIMESTAMP", vec![]),
                        ],
                    ),
                    func(
                        "MAKE_DATE",
                        vec![
                            func("YEAR", vec![date.clone()]),
                            func("MONTH", vec![date.clone()]),
                            lit(json!(1)),
                        ],
                    ),
                ],
                json!({}),
            ),
        ),
        (
            "scalar functions that differ by dialect",
            invoices(
                vec![
                    func("IFNULL", vec![c("i", "BillingCountry"), lit(json!("?"))]),
                    func("MOD", vec![c("i", "InvoiceId"), lit(json!(7))]),
                    func("GREATEST", vec![c("i", "Total"), lit(json!(1))]),
                    func("LENGTH", vec![c("i", "BillingCountry")]),
                    func("SUBSTR", vec![c("i", "BillingCountry"), lit(json!(2))]),
                    func("CEIL", vec![c("i", "Total")]),
                    func("ROUND", vec![c("i", "Total"), lit(json!(1))]),
                    func("STRFTIME", vec![lit(json!("%Y-%m")), date.clone()]),
                ],
                json!({}),
            ),
        ),
        (
            "signs and negative numbers",
            invoices(
                vec![
                    json!({"kind": "unary", "op": "-", "expr": lit(json!(-5))}),
                    bin("-", c("i", "Total"), lit(json!(-2.5))),
                ],
                json!({}),
            ),
        ),
        (
            "hostile names and text stay quoted",
            json!({"tables": [{"name": "Invoice", "alias": "x\"; DROP TABLE t; --"}],
                   "select_items": [{"expr": c("x\"; DROP TABLE t; --", "Total"),
                                     "alias": "a`b]c\\\" --"}],
                   "where": bin("=", c("x\"; DROP TABLE t; --", "BillingCountry"),
                                lit(json!("'); DELETE FROM t; -- \\' ''")))}),
        ),
        (
            "NULLs placed, an aggregate filter",
            invoices(
                vec![
                    c("i", "BillingState"),
                    json!({"kind": "func", "func_name": "COUNT", "args": [c("i", "InvoiceId")],
                           "filter": bin(">", c("i", "Total"), lit(json!(5)))}),
                ],
                json!({"group_by": [{"expr": c("i", "BillingState")}],
                       "order_by": [{"expr": c("i", "BillingState"), "direction": "desc",
                                     "nulls": "last"}]}),
            ),
        ),
        (
            "statistics, string aggregation, truth",
            invoices(
                vec![
                    c("i", "BillingCountry"),
                    func("MEDIAN", vec![c("i", "Total")]),
                    func("STDDEV_SAMP", vec![c("i", "Total")]),
                    func("VAR_POP", vec![c("i", "Total")]),
                    json!({"kind": "func", "func_name": "STRING_AGG",
                           "args": [c("i", "BillingCity"), lit(json!(", "))],
                           "order_by": [{"expr": c("i", "BillingCity")}]}),
                    func("BOOL_OR", vec![bin(">", c("i", "Total"), lit(json!(10)))]),
                ],
                json!({"group_by": [{"expr": c("i", "BillingCountry")}]}),
            ),
        ),
        (
            "percentiles where the dialect has no aggregate for them: numbered rows",
            invoices(
                vec![
                    c("i", "BillingCountry"),
                    func("MEDIAN", vec![c("i", "Total")]),
                    json!({"kind": "func", "func_name": "PERCENTILE_DISC", "args": [lit(json!(0.9))],
                           "order_by": [{"expr": c("i", "Total"), "direction": "desc"}]}),
                ],
                json!({"group_by": [{"expr": c("i", "BillingCountry")}],
                       "having": bin(">", func("COUNT", vec![c("i", "InvoiceId")]), lit(json!(5)))}),
            ),
        ),
        (
            "truth and variance where SQLite has them",
            invoices(
                vec![
                    c("i", "BillingCountry"),
                    func("VAR_SAMP", vec![c("i", "Total")]),
                    func("BOOL_AND", vec![bin(">", c("i", "Total"), lit(json!(1)))]),
                ],
                json!({"group_by": [{"expr": c("i", "BillingCountry")}]}),
            ),
        ),
        (
            "grouping sets",
            invoices(
                vec![
                    c("i", "BillingCountry"),
                    c("i", "BillingState"),
                    func("SUM", vec![c("i", "Total")]),
                    func("GROUPING", vec![c("i", "BillingState")]),
                ],
                json!({"group_by": [{"expr": c("i", "BillingCountry")},
                                    {"expr": c("i", "BillingState")}],
                       "grouping_sets": [[0, 1], [0], []]}),
            ),
        ),
        (
            "the text at a JSON key",
            invoices(
                vec![
                    c("i", "InvoiceId"),
                    func(
                        "JSON_VALUE",
                        vec![c("i", "BillingAddress"), lit(json!("$.street.name"))],
                    ),
                ],
                json!({}),
            ),
        ),
        (
            "where a text is found; logarithms; truncation toward zero",
            invoices(
                vec![
                    func("INSTR", vec![c("i", "BillingCity"), lit(json!("a"))]),
                    func("TRUNC", vec![c("i", "Total")]),
                    func("LN", vec![c("i", "Total")]),
                    func("LOG10", vec![c("i", "Total")]),
                    func("EXP", vec![c("i", "Total")]),
                ],
                json!({}),
            ),
        ),
        (
            "the third piece of a text",
            invoices(
                vec![func(
                    "SPLIT_PART",
                    vec![c("i", "BillingCity"), lit(json!(" ")), lit(json!(3))],
                )],
                json!({}),
            ),
        ),
        (
            "padded on the left with zeros, on the right with spaces",
            invoices(
                vec![
                    func(
                        "LPAD",
                        vec![c("i", "BillingCity"), lit(json!(6)), lit(json!("0"))],
                    ),
                    func("RPAD", vec![c("i", "BillingCity"), lit(json!(3))]),
                ],
                json!({}),
            ),
        ),
        (
            "regular expressions: a match in any case, every match replaced, the first found",
            invoices(
                vec![
                    func(
                        "REGEXP_LIKE",
                        vec![
                            c("i", "BillingCity"),
                            lit(json!(r"^s\w+o$")),
                            lit(json!("i")),
                        ],
                    ),
                    func(
                        "REGEXP_REPLACE",
                        vec![
                            c("i", "BillingAddress"),
                            lit(json!(r"[0-9]+")),
                            lit(json!("#")),
                            lit(json!("g")),
                        ],
                    ),
                    func(
                        "REGEXP_SUBSTR",
                        vec![c("i", "BillingAddress"), lit(json!(r"\d{3,}"))],
                    ),
                ],
                json!({}),
            ),
        ),
        (
            "the first match replaced: exact where every match is replaced only when anchored",
            invoices(
                vec![
                    func(
                        "REGEXP_REPLACE",
                        vec![
                            c("i", "BillingCity"),
                            lit(json!(r"^the\s+")),
                            lit(json!("")),
                        ],
                    ),
                    func(
                        "REGEXP_REPLACE",
                        vec![c("i", "BillingCity"), lit(json!("a")), lit(json!("4"))],
                    ),
                ],
                json!({}),
            ),
        ),
        (
            "a pattern that can match the empty text: MySQL and MariaDB leave empty matches alone",
            invoices(
                vec![func(
                    "REGEXP_REPLACE",
                    vec![c("i", "BillingCity"), lit(json!("^a*")), lit(json!("X"))],
                )],
                json!({}),
            ),
        ),
        (
            "an invoice's UTC time on the wall clock of Tokyo and of its billing state",
            invoices(
                vec![
                    func(
                        "CONVERT_TZ",
                        vec![
                            c("i", "InvoiceDate"),
                            lit(json!("UTC")),
                            lit(json!("Asia/Tokyo")),
                        ],
                    ),
                    func(
                        "DATE_PART",
                        vec![
                            lit(json!("hour")),
                            func(
                                "CONVERT_TZ",
                                vec![
                                    c("i", "InvoiceDate"),
                                    lit(json!("UTC")),
                                    c("i", "BillingState"),
                                ],
                            ),
                        ],
                    ),
                ],
                json!({}),
            ),
        ),
        (
            "how totals go with invoice numbers, and a filtered spread",
            invoices(
                vec![
                    func("CORR", vec![c("i", "Total"), c("i", "InvoiceId")]),
                    json!({"kind": "func", "func_name": "VAR_SAMP", "args": [c("i", "Total")],
                           "filter": bin(">", c("i", "Total"), lit(json!(10)))}),
                ],
                json!({}),
            ),
        ),
        (
            "a rank within each subtotal level",
            invoices(
                vec![
                    c("i", "BillingCountry"),
                    func("SUM", vec![c("i", "Total")]),
                    json!({"kind": "func", "func_name": "RANK", "args": [],
                           "over": {"partition_by": [func("GROUPING", vec![c("i", "BillingCountry")])],
                                    "order_by": [{"expr": func("SUM", vec![c("i", "Total")]),
                                                  "direction": "desc"}]}}),
                ],
                json!({"group_by": [{"expr": c("i", "BillingCountry")}],
                       "grouping_sets": [[0], []]}),
            ),
        ),
        (
            "a recursive CTE: a chain of managers",
            json!({"with": [{"name": "chain", "recursive": true, "plan": {
                       "tables": [{"name": "Employee", "alias": "e"}],
                       "select_items": [{"expr": c("e", "EmployeeId")}, {"expr": lit(json!(0)), "alias": "depth"}],
                       "where": bin("=", c("e", "EmployeeId"), lit(json!(1))),
                       "set_operations": [{"op": "union_all", "plan": {
                           "tables": [{"name": "Employee", "alias": "e"}, {"name": "chain", "alias": "c"}],
                           "joins": [{"left_alias": "c", "right_alias": "e",
                                      "condition": bin("=", c("e", "ReportsTo"), c("c", "EmployeeId"))}],
                           "select_items": [{"expr": c("e", "EmployeeId")},
                                            {"expr": bin("+", c("c", "depth"), lit(json!(1)))}]}}]}}],
                   "tables": [{"name": "chain", "alias": "k"}],
                   "select_items": sel(vec![c("k", "EmployeeId"), c("k", "depth")])}),
        ),
        (
            "a cross join, and no FROM",
            json!({"tables": [{"name": "Artist", "alias": "g"}, {"name": "Employee", "alias": "m"}],
                   "joins": [{"left_alias": "g", "right_alias": "m", "join_type": "cross"}],
                   "select_items": [{"expr": c("g", "Name")}, {"expr": c("m", "LastName"), "alias": "who"},
                                    {"expr": {"kind": "subquery", "plan": {"tables": [],
                                      "select_items": sel(vec![lit(json!(1))])}}, "alias": "one"}]}),
        ),
    ]
}

fn render_all() -> String {
    let schema = schema();
    let options = LowerOptions {
        row_cap: 1000,
        today: Some("2026-11-30".to_string()),
    };
    let mut out = String::new();
    for (name, json) in constructs() {
        let plan: Plan = Plan::from_json(&json.to_string())
            .unwrap_or_else(|e| panic!("{name}: the test plan does not parse: {e}"));
        out.push_str(&format!("## {name}\nplan:      {plan}\n"));
        for d in Dialect::ALL {
            // A refusal is part of the snapshot: where a dialect has no exact form, the
            // snapshot says so in the plan's words.
            let sql = match to_sql(&plan, &schema, d, &options) {
                Ok(sql) => sql,
                Err(e) => {
                    out.push_str(&format!("{:<10} refused: {}\n", format!("{d}:"), e.message));
                    continue;
                }
            };
            let parse = |with: &dyn sqlparser::dialect::Dialect| {
                sqlparser::parser::Parser::parse_sql(with, &sql)
            };
            // sqlparser's T-SQL dialect does not read GROUPING SETS, which SQL Server has.
            let statements = parse(crate::dialect::sql_dialect(d))
                .or_else(|e| match d {
                    Dialect::SqlServer if sql.contains("GROUPING SETS") => {
                        parse(&sqlparser::dialect::GenericDialect {})
                    }
                    _ => Err(e),
                })
                .unwrap_or_else(|e| panic!("{name} ({d}) does not re-parse: {e}\n{sql}"));
            assert_eq!(statements.len(), 1, "{name} ({d}): {sql}");
            assert!(
                matches!(statements[0], sqlparser::ast::Statement::Query(_)),
                "{name} ({d}): {sql}"
            );
            out.push_str(&format!("{:<10} {sql}\n", format!("{d}:")));
        }
        out.push('\n');
    }
    out
}

#[test]
fn every_construct_renders_in_every_dialect_as_the_snapshot_says() {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/lower/snapshots/dialects.txt");
    let rendered = render_all();
    if std::env::var_os("NL2SQL_BLESS").is_some() {
        std::fs::write(&path, &rendered).expect("the snapshot is writable");
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_default();
    if rendered != expected {
        let first = rendered
            .lines()
            .zip(expected.lines())
            .find(|(a, b)| a != b)
            .map(|(a, b)| format!("\n  now:  {a}\n  was:  {b}"))
            .unwrap_or_default();
        panic!("the dialect snapshot changed (NL2SQL_BLESS=1 rewrites it):{first}");
    }
}

#[test]
fn the_row_cap_bounds_every_limit() {
    let plan: Plan =
        Plan::from_json(&(invoices(vec![c("i", "InvoiceId")], json!({"limit": 5000}))).to_string())
            .unwrap();
    let options = LowerOptions {
        row_cap: 100,
        today: None,
    };
    let sql = to_sql(&plan, &schema(), Dialect::Sqlite, &options).unwrap();
    assert!(sql.ends_with("LIMIT 100"), "{sql}");
    let plan: Plan =
        Plan::from_json(&(invoices(vec![c("i", "InvoiceId")], json!({}))).to_string()).unwrap();
    let sql = to_sql(&plan, &schema(), Dialect::Sqlite, &options).unwrap();
    assert!(sql.ends_with("ORDER BY i.InvoiceId ASC LIMIT 100"), "{sql}");
}

#[test]
fn names_take_their_declared_spelling_and_unknown_ones_never_reach_sql() {
    // The plan writes `t`, `name` and `pg_user` for what was declared `T`, `Name`, `Pg_user`;
    // PostgreSQL would read those as other names.
    let plan: Plan = Plan::from_json(&(json!({
        "with": [{"name": "Pg_user", "plan": {"tables": [{"name": "track", "alias": "T"}],
                                              "select_items": [{"expr": c("t", "name"), "alias": "usename"}]}}],
        "tables": [{"name": "pg_user", "alias": "u"}],
        "select_items": [{"expr": c("U", "USENAME")}]
    })).to_string())
    .unwrap();
    let sql = to_sql(
        &plan,
        &schema(),
        Dialect::Postgres,
        &LowerOptions::default(),
    )
    .unwrap();
    assert_eq!(
        sql,
        r#"WITH "Pg_user" AS (SELECT "T"."Name" AS usename FROM "Track" AS "T") SELECT u.usename FROM "Pg_user" AS u ORDER BY u.usename ASC LIMIT 100000"#
    );
    let unknown: Plan = Plan::from_json(
        &(json!({
            "tables": [{"name": "pg_user", "alias": "u"}],
            "select_items": [{"expr": c("u", "usename")}]
        }))
        .to_string(),
    )
    .unwrap();
    let err = to_sql(
        &unknown,
        &schema(),
        Dialect::Postgres,
        &LowerOptions::default(),
    )
    .unwrap_err();
    assert!(err.message.contains("not in the datasource"), "{err}");
}

#[test]
fn result_names_inside_expressions_become_the_selected_expression() {
    let plan: Plan = Plan::from_json(&(invoices(
        vec![c("i", "BillingCountry")],
        json!({
            "select_items": [{"expr": c("i", "BillingCountry")},
                             {"expr": func("SUM", vec![c("i", "Total")]), "alias": "total"}],
            "group_by": [{"expr": c("i", "BillingCountry")}],
            "having": bin(">", json!({"kind": "column", "column_name": "total"}), lit(json!(5))),
            "order_by": [{"expr": bin("*", json!({"kind": "column", "column_name": "total"}), lit(json!(2)))}]
        }),
    )).to_string())
    .unwrap();
    let sql = to_sql(
        &plan,
        &schema(),
        Dialect::Postgres,
        &LowerOptions::default(),
    )
    .unwrap();
    assert!(
        sql.contains(r#"HAVING SUM(i."Total") > 5 ORDER BY SUM(i."Total") * 2 ASC"#),
        "{sql}"
    );
}

#[test]
fn a_star_is_ordered_by_its_columns_when_rows_are_cut() {
    let plan: Plan = Plan::from_json(
        &(json!({"tables": [{"name": "Artist", "alias": "a"}],
                                      "select_items": [{"expr": c("a", "*")}], "limit": 5}))
        .to_string(),
    )
    .unwrap();
    let sql = to_sql(&plan, &schema(), Dialect::Sqlite, &LowerOptions::default()).unwrap();
    assert_eq!(
        sql,
        "SELECT a.* FROM Artist AS a ORDER BY a.ArtistId ASC, a.Name ASC LIMIT 5"
    );
}

#[test]
fn a_query_of_at_most_one_row_gets_no_tie_breaker() {
    let count = json!({"kind": "func", "func_name": "COUNT", "args": [{"kind": "column", "column_name": "*"}]});
    let sql = |extra: Json| {
        let plan: Plan =
            Plan::from_json(&(invoices(vec![count.clone()], extra)).to_string()).unwrap();
        to_sql(&plan, &schema(), Dialect::Sqlite, &LowerOptions::default()).unwrap()
    };
    assert_eq!(
        sql(json!({})),
        "SELECT COUNT(*) FROM Invoice AS i LIMIT 100000"
    );
    // A HAVING with no aggregate filters rows (MySQL reads it as a WHERE): still ordered.
    let plan: Plan = Plan::from_json(
        &(invoices(
            vec![c("i", "InvoiceId")],
            json!({"having": bin(">", c("i", "Total"), lit(json!(10)))}),
        ))
        .to_string(),
    )
    .unwrap();
    assert!(!crate::walk::at_most_one_row(&plan));
    // Grouped, it returns a row per group, and the groups are ordered.
    assert!(
        sql(json!({"group_by": [{"expr": c("i", "BillingCountry")}]})).contains("ORDER BY"),
        "a grouped count is ordered"
    );
}

#[test]
fn long_and_or_chains_stay_flat() {
    let id = || Expr::Column {
        alias: Some("i".into()),
        column: "InvoiceId".into(),
    };
    let equals = |k| Expr::Binary {
        op: crate::BinaryOp::Eq,
        left: Box::new(id()),
        right: Box::new(Expr::Literal(crate::Literal::Integer(k))),
    };
    let mut filter = equals(0);
    for k in 1..38 {
        filter = Expr::Binary {
            op: crate::BinaryOp::Or,
            left: Box::new(filter),
            right: Box::new(equals(k)),
        };
    }
    let mut plan: Plan =
        Plan::from_json(&(invoices(vec![c("i", "InvoiceId")], json!({}))).to_string()).unwrap();
    plan.filter = Some(filter);
    let sql = to_sql(&plan, &schema(), Dialect::Sqlite, &LowerOptions::default()).unwrap();
    assert!(
        sql.contains("WHERE (i.InvoiceId = 0) OR (i.InvoiceId = 1) OR"),
        "{sql}"
    );
    crate::guard::check_read_only(&sql).expect("the guard re-reads it");
}

#[test]
fn set_operations_combine_left_to_right_in_every_dialect() {
    let member = |table: &str, column: &str| json!({"tables": [{"name": table, "alias": "x"}], "select_items": [{"expr": c("x", column)}]});
    let plan: Plan = Plan::from_json(
        &(json!({
            "tables": [{"name": "Customer", "alias": "c"}],
            "select_items": [{"expr": c("c", "City")}],
            "set_operations": [{"op": "union", "plan": member("Employee", "City")},
                               {"op": "intersect", "plan": member("Invoice", "BillingCountry")}]
        }))
        .to_string(),
    )
    .unwrap();
    let options = LowerOptions::default();
    let sqlite = to_sql(&plan, &schema(), Dialect::Sqlite, &options).unwrap();
    assert!(
        sqlite.starts_with("SELECT c.City FROM Customer AS c UNION SELECT"),
        "{sqlite}"
    );
    let pg = to_sql(&plan, &schema(), Dialect::Postgres, &options).unwrap();
    assert!(
        pg.starts_with(r#"(SELECT c."City" FROM "Customer" AS c UNION SELECT"#),
        "{pg}"
    );
    assert!(pg.contains(r#") INTERSECT SELECT"#), "{pg}");
}

#[test]
fn positions_after_a_set_operation_count_every_result_column() {
    let upper = func("UPPER", vec![c("c", "City")]);
    let plan: Plan = Plan::from_json(&(json!({
        "tables": [{"name": "Customer", "alias": "c"}],
        "select_items": [{"expr": upper.clone()}, {"expr": c("c", "FirstName")}],
        "set_operations": [{"op": "union", "plan": {"tables": [{"name": "Employee", "alias": "e"}],
            "select_items": [{"expr": func("UPPER", vec![c("e", "City")])}, {"expr": c("e", "LastName")}]}}],
        "order_by": [{"expr": {"kind": "column", "column_name": "firstname"}}]
    })).to_string())
    .unwrap();
    let sql = to_sql(&plan, &schema(), Dialect::Sqlite, &LowerOptions::default()).unwrap();
    assert!(sql.ends_with("ORDER BY 2 ASC, 1 ASC LIMIT 100000"), "{sql}");
    let star: Plan = Plan::from_json(&(json!({
        "tables": [{"name": "Artist", "alias": "a"}],
        "select_items": [{"expr": c("a", "*")}, {"expr": func("UPPER", vec![c("a", "Name")])}],
        "set_operations": [{"op": "union", "plan": {"tables": [{"name": "Album", "alias": "b"}],
            "select_items": [{"expr": c("b", "AlbumId")}, {"expr": c("b", "Title")}, {"expr": c("b", "Title")}]}}],
        "order_by": [{"expr": func("UPPER", vec![c("a", "Name")])}]
    })).to_string())
    .unwrap();
    let sql = to_sql(&star, &schema(), Dialect::Sqlite, &LowerOptions::default()).unwrap();
    assert!(
        sql.ends_with("ORDER BY 3 ASC, 1 ASC, 2 ASC LIMIT 100000"),
        "{sql}"
    );
}

#[test]
fn a_cte_s_columns_keep_their_declared_spelling() {
    let plan: Plan = Plan::from_json(
        &(json!({
            "with": [{"name": "b", "plan": {"tables": [{"name": "Invoice", "alias": "i"}],
                                            "select_items": [{"expr": c("i", "customerid")}]}}],
            "tables": [{"name": "b", "alias": "b"}],
            "select_items": [{"expr": c("b", "*")}]
        }))
        .to_string(),
    )
    .unwrap();
    let sql = to_sql(
        &plan,
        &schema(),
        Dialect::Postgres,
        &LowerOptions::default(),
    )
    .unwrap();
    assert!(sql.contains(r#"ORDER BY b."CustomerId" ASC"#), "{sql}");
}

#[test]
fn join_aliases_match_whatever_their_case_and_constants_order_nothing() {
    let plan: Plan = Plan::from_json(
        &(json!({
            "tables": [{"name": "Track", "alias": "t"}, {"name": "Album", "alias": "a"}],
            "joins": [{"left_alias": "T", "right_alias": "A",
                       "condition": bin("=", c("T", "AlbumId"), c("A", "AlbumId"))}],
            "select_items": [{"expr": c("a", "Title")}],
            "order_by": [{"expr": lit(json!(2))}]
        }))
        .to_string(),
    )
    .unwrap();
    let sql = to_sql(&plan, &schema(), Dialect::Sqlite, &LowerOptions::default()).unwrap();
    assert_eq!(
        sql,
        "SELECT a.Title FROM Track AS t JOIN Album AS a ON t.AlbumId = a.AlbumId ORDER BY a.Title ASC LIMIT 100000"
    );
}

/// Two dates' difference is their days on every engine (PostgreSQL's integer), never the
/// engine's own reading of `a - b`; a difference of timestamps, which would be an interval,
/// is refused with the portable forms named.
#[test]
fn arithmetic_between_points_in_time_is_days_or_refused() {
    let as_date = |e: Json| json!({"kind": "cast", "expr": e, "to": "date"});
    let days = bin(
        "-",
        as_date(c("i", "InvoiceDate")),
        as_date(lit(json!("2024-01-01"))),
    );
    let plan = Plan::from_json(&invoices(vec![days], json!({})).to_string()).unwrap();
    for (dialect, days) in [
        (Dialect::Sqlite, "JULIANDAY("),
        (Dialect::MySql, "DATEDIFF("),
        (Dialect::SqlServer, "DATEDIFF("),
        (Dialect::Spark, "DATEDIFF("),
    ] {
        let sql = to_sql(&plan, &schema(), dialect, &LowerOptions::default()).unwrap();
        assert!(
            sql.to_ascii_uppercase().contains(days),
            "{dialect:?}: {sql}"
        );
    }

    let week_before = bin("-", as_date(c("i", "InvoiceDate")), lit(json!(7)));
    let plan = Plan::from_json(&invoices(vec![week_before], json!({})).to_string()).unwrap();
    let sqlite = to_sql(&plan, &schema(), Dialect::Sqlite, &LowerOptions::default()).unwrap();
    assert!(!sqlite.contains("- 7"), "{sqlite}");
    assert!(sqlite.contains("-7"), "{sqlite}");

    let seconds = bin("-", c("i", "InvoiceDate"), c("i", "InvoiceDate"));
    let plan = Plan::from_json(&invoices(vec![seconds], json!({})).to_string()).unwrap();
    let refused = to_sql(
        &plan,
        &schema(),
        Dialect::Postgres,
        &LowerOptions::default(),
    )
    .expect_err("a difference of timestamps");
    assert!(
        refused.message.contains("DATE_DIFF('unit'"),
        "{}",
        refused.message
    );
}

/// `ARG_MAX`/`ARG_MIN` natively on DuckDB, as `MAX_BY` on Spark (rows missing the value
/// skipped, as DuckDB does), elsewhere picked from rows numbered in a CTE; the regression
/// aggregates natively or from the covariance and variance.
#[test]
fn arg_max_and_regressions_render_everywhere() {
    let grouped = |agg: Json| {
        invoices(
            vec![c("i", "BillingCountry"), agg],
            json!({"group_by": [{"expr": c("i", "BillingCountry")}]}),
        )
    };
    let arg = grouped(func(
        "ARG_MAX",
        vec![c("i", "Total"), c("i", "InvoiceDate")],
    ));
    let plan = Plan::from_json(&arg.to_string()).unwrap();
    let sql = |d: Dialect| to_sql(&plan, &schema(), d, &LowerOptions::default()).unwrap();
    assert!(sql(Dialect::DuckDb).contains("ARG_MAX(i.Total, i.InvoiceDate)"));
    assert!(sql(Dialect::Spark).contains("MAX_BY(i.Total, CASE WHEN"));
    for d in [
        Dialect::Sqlite,
        Dialect::Postgres,
        Dialect::MySql,
        Dialect::SqlServer,
    ] {
        let s = sql(d);
        assert!(s.contains("ROW_NUMBER() OVER (PARTITION BY"), "{d:?}: {s}");
        assert!(!s.to_ascii_uppercase().contains("ARG_MAX"), "{d:?}: {s}");
    }
    let slope = grouped(func(
        "REGR_SLOPE",
        vec![c("i", "Total"), c("i", "InvoiceId")],
    ));
    let plan = Plan::from_json(&slope.to_string()).unwrap();
    let sql = |d: Dialect| to_sql(&plan, &schema(), d, &LowerOptions::default()).unwrap();
    assert!(sql(Dialect::Postgres).contains("REGR_SLOPE("));
    let sqlite = sql(Dialect::Sqlite);
    assert!(
        !sqlite.contains("REGR_SLOPE") && sqlite.contains("NULLIF("),
        "{sqlite}"
    );

    // A filter goes into the pairs where the aggregate is wrapped (DuckDB's NaN made NULL).
    let mut filtered = func("REGR_INTERCEPT", vec![c("i", "Total"), c("i", "InvoiceId")]);
    filtered["filter"] = bin(">", c("i", "Total"), lit(json!(2)));
    let plan = Plan::from_json(&grouped(filtered).to_string()).unwrap();
    let sql = |d: Dialect| to_sql(&plan, &schema(), d, &LowerOptions::default()).unwrap();
    let duckdb = sql(Dialect::DuckDb);
    assert!(duckdb.contains("REGR_INTERCEPT(CASE WHEN"), "{duckdb}");
    assert!(!duckdb.contains("FILTER"), "{duckdb}");
    // SQL Server averages whole numbers as whole numbers: the means are taken as reals.
    let tsql = sql(Dialect::SqlServer);
    assert!(tsql.contains("AVG(CAST("), "{tsql}");
}
