use crate::*;
use serde_json::json;

fn parse(v: serde_json::Value) -> Result<Plan, String> {
    Plan::from_json(&v.to_string()).map_err(|e| e.to_string())
}

fn col(alias: &str, column: &str) -> Expr {
    Expr::Column {
        alias: Some(alias.into()),
        column: column.into(),
    }
}

#[test]
fn the_reference_flat_form_with_every_field_parses() {
    // What a model prompted with the reference schema sends: every key present, nulls included.
    let plan = parse(json!({
        "query_type": "READ", "distinct": false,
        "tables": [{"name": "Genre", "schema_name": null, "database": null, "alias": "g"}],
        "joins": [],
        "select_items": [{"alias": null, "expr": {
            "kind": "column", "value": null, "is_null": false, "alias": "g", "column_name": "Name",
            "func_name": null, "args": [], "is_aggregate": false, "distinct": false, "op": null,
            "left": null, "right": null, "expr": null, "whens": [], "else_expr": null}}],
        "where": null, "group_by": [], "having": null, "order_by": [],
        "limit": null, "offset": null, "reasoning": null
    }))
    .unwrap();
    assert_eq!(plan.select_items[0].expr, col("g", "Name"));
    assert_eq!(plan.tables[0].alias, "g");
}

#[test]
fn unknown_keys_and_bad_shapes_are_rejected_with_their_place() {
    let cases = [
        (
            json!({"tables": [], "select_items": [], "colour": 1}),
            "unknown field `colour`",
        ),
        (json!({"query_type": "WRITE"}), "`query_type` is \"READ\""),
        (
            json!({"select_items": [{"expr": {"kind": "column", "alias": "t"}}]}),
            "select_items[0].expr: missing field `column_name`",
        ),
        (
            json!({"select_items": [{"expr": {"kind": "func", "func_name": "ROUND",
                "args": [{"kind": "literal"}]}}]}),
            "select_items[0].expr: args[0]: a literal needs a `value`, or `is_null: true`",
        ),
        (
            json!({"where": {"kind": "binary", "op": "XOR",
                "left": {"kind": "literal", "value": 1}, "right": {"kind": "literal", "value": 1}}}),
            "where.op: unknown binary op \"XOR\"",
        ),
        (
            json!({"where": {"kind": "binary", "op": "=", "left": {"kind": "literal", "value": 1}}}),
            "where: missing field `right`",
        ),
        (
            json!({"having": {"kind": "case", "whens": []}}),
            "having.whens: a case needs at least one",
        ),
        (
            json!({"order_by": [{"expr": {"kind": "column", "column_name": "x", "distinct": true}}]}),
            "order_by[0].expr: `distinct` does not apply to kind \"column\"",
        ),
        (
            json!({"where": {"kind": "exists", "negated": true, "plan": {}}}),
            "where: `negated` is not a field of kind \"exists\"",
        ),
        (
            json!({"where": {"kind": "binary", "op": "LIKE", "negated": true,
                "left": {"kind": "literal", "value": "a"}, "right": {"kind": "literal", "value": "b"}}}),
            "`negated` is not a field of kind \"binary\"",
        ),
        (
            json!({"where": {"kind": "unary", "op": "~", "expr": {"kind": "literal", "value": 1}}}),
            "unknown unary op",
        ),
        (
            json!({"where": {"kind": "exists"}}),
            "where: missing field `plan`",
        ),
        (
            json!({"select_items": [{"expr": {"kind": "cast", "expr": {"kind": "literal", "value": 1}}}]}),
            "select_items[0].expr: missing field `to`",
        ),
        (
            json!({"select_items": [{"expr": {"kind": "column", "column_name": "x", "bogus": 1}}]}),
            "`bogus` is not a field of kind \"column\" (its fields: alias, column_name)",
        ),
    ];
    for (input, says) in cases {
        let err = parse(input.clone()).expect_err(&input.to_string());
        assert!(err.contains(says), "{input}: {err}");
    }
}

#[test]
fn nesting_deeper_than_the_limit_is_refused_not_overflowed() {
    let mut expr = json!({"kind": "literal", "value": 1});
    for _ in 0..60 {
        expr = json!({"kind": "unary", "op": "-", "expr": expr});
    }
    let err = parse(json!({"where": expr})).unwrap_err();
    assert!(err.contains("nests more than 40 levels"), "{err}");
    let mut shallow = json!({"kind": "literal", "value": 1});
    for _ in 0..30 {
        shallow = json!({"kind": "unary", "op": "-", "expr": shallow});
    }
    assert!(parse(json!({"where": shallow})).is_ok());
}

#[test]
fn not_as_a_binary_op_parses_so_the_validator_can_refuse_it() {
    let plan = parse(json!({"where": {"kind": "binary", "op": "not",
        "left": {"kind": "literal", "value": true}, "right": {"kind": "literal", "value": false}}}))
    .unwrap();
    assert!(matches!(
        plan.filter,
        Some(Expr::Binary {
            op: BinaryOp::Not,
            ..
        })
    ));
}

#[test]
fn literals_keep_their_json_type() {
    let plan = parse(json!({"select_items": [
        {"expr": {"kind": "literal", "value": 2009}},
        {"expr": {"kind": "literal", "value": "2009"}},
        {"expr": {"kind": "literal", "value": 0.5}},
        {"expr": {"kind": "literal", "value": true}},
        {"expr": {"kind": "literal", "is_null": true}}
    ]}))
    .unwrap();
    let values: Vec<Expr> = plan.select_items.into_iter().map(|s| s.expr).collect();
    assert_eq!(
        values,
        vec![
            Expr::Literal(Literal::Integer(2009)),
            Expr::Literal(Literal::Text("2009".into())),
            Expr::Literal(Literal::Real(0.5)),
            Expr::Literal(Literal::Bool(true)),
            Expr::Literal(Literal::Null),
        ]
    );
}

/// Every construct of the superset, to check the JSON round trip and the one-line form.
fn superset_plan() -> Plan {
    let rank = Expr::Func(FuncCall {
        name: "RANK".into(),
        args: vec![],
        distinct: false,
        filter: None,
        order_by: vec![],
        over: Some(Window {
            partition_by: vec![col("t", "GenreId")],
            order_by: vec![OrderItem {
                expr: col("t", "Milliseconds"),
                direction: Direction::Desc,
                nulls: None,
            }],
            frame: Some(Frame {
                unit: FrameUnit::Rows,
                start: FrameBound::UnboundedPreceding,
                end: FrameBound::Preceding { offset: 2 },
                offset_unit: None,
            }),
        }),
    });
    let sub = Plan {
        tables: vec![TableRef {
            name: "InvoiceLine".into(),
            schema_name: None,
            database: None,
            alias: "il".into(),
        }],
        select_items: vec![SelectItem {
            expr: col("il", "TrackId"),
            alias: None,
        }],
        ..Plan::default()
    };
    Plan {
        ctes: vec![Cte {
            name: "sold".into(),
            plan: sub.clone(),
            recursive: false,
        }],
        distinct: true,
        tables: vec![TableRef {
            name: "Track".into(),
            schema_name: Some("main".into()),
            database: None,
            alias: "t".into(),
        }],
        select_items: vec![
            SelectItem {
                expr: col("t", "Name"),
                alias: Some("name".into()),
            },
            SelectItem {
                expr: rank,
                alias: Some("rank".into()),
            },
            SelectItem {
                expr: Expr::Cast {
                    expr: Box::new(col("t", "UnitPrice")),
                    to: CastType::Text,
                },
                alias: None,
            },
        ],
        filter: Some(Expr::Binary {
            op: BinaryOp::And,
            left: Box::new(Expr::Between {
                expr: Box::new(col("t", "Milliseconds")),
                low: Box::new(Expr::Literal(Literal::Integer(1))),
                high: Box::new(Expr::Literal(Literal::Real(2.5))),
                negated: true,
            }),
            right: Box::new(Expr::Unary {
                op: UnaryOp::Not,
                expr: Box::new(Expr::Exists {
                    plan: Box::new(sub.clone()),
                }),
            }),
        }),
        order_by: vec![OrderItem {
            expr: Expr::Case {
                whens: vec![When {
                    condition: Expr::Binary {
                        op: BinaryOp::NotIn,
                        left: Box::new(col("t", "TrackId")),
                        right: Box::new(Expr::Subquery {
                            plan: Box::new(sub.clone()),
                        }),
                    },
                    result: Expr::Literal(Literal::Text("it's".into())),
                }],
                else_expr: Some(Box::new(Expr::Literal(Literal::Null))),
            },
            direction: Direction::Asc,
            nulls: None,
        }],
        limit: Some(10),
        offset: Some(5),
        set_operations: vec![SetOperation {
            op: SetOperator::UnionAll,
            plan: sub,
        }],
        reasoning: Some("every construct".into()),
        ..Plan::default()
    }
}

#[test]
fn the_superset_round_trips_through_json() {
    let plan = superset_plan();
    let json = serde_json::to_value(&plan).unwrap();
    assert_eq!(json["set_operations"][0]["op"], "union_all");
    assert_eq!(json["where"]["left"]["kind"], "between");
    assert!(
        json["select_items"][0]["expr"].get("args").is_none(),
        "defaults are left out"
    );
    let back: Plan = Plan::from_json(&json.to_string()).unwrap();
    assert_eq!(back, plan);
    // Written by the plan itself, `kind` comes first and serde reads it in one pass.
    let text = plan.to_json();
    assert!(text.contains(r#"{"kind":"between","#), "{text}");
    assert_eq!(serde_json::from_str::<Plan>(&text).unwrap(), plan);
}

#[test]
fn kind_may_come_anywhere_in_an_expression() {
    let first = r#"{"where": {"kind": "binary", "op": "<>", "left": {"kind": "column", "column_name": "x"}, "right": {"kind": "literal", "value": 1}}}"#;
    let last = r#"{"where": {"op": "<>", "left": {"column_name": "x", "kind": "column"}, "right": {"value": 1, "kind": "literal"}, "kind": "binary"}}"#;
    let a = Plan::from_json(first).unwrap();
    assert_eq!(a, Plan::from_json(last).unwrap());
    assert!(matches!(
        a.filter,
        Some(Expr::Binary {
            op: BinaryOp::NotEq,
            ..
        })
    ));
    // Through serde alone too (a type that holds a plan), and from a JSON value.
    assert_eq!(serde_json::from_str::<Plan>(last).unwrap(), a);
    let value: serde_json::Value = serde_json::from_str(last).unwrap();
    assert_eq!(serde_json::from_value::<Plan>(value).unwrap(), a);
    let err = Plan::from_json(r#"{"where": {"op": "=", "left": {"column_name": "x"}}}"#)
        .unwrap_err()
        .to_string();
    assert!(err.contains("missing field `kind`"), "{err}");
}

#[test]
fn the_one_line_form_is_unambiguous() {
    let minus = |e: Expr| Expr::Unary {
        op: UnaryOp::Minus,
        expr: Box::new(e),
    };
    let plan = Plan {
        tables: vec![
            TableRef {
                name: "Album".into(),
                schema_name: None,
                database: None,
                alias: "a".into(),
            },
            TableRef {
                name: "Track".into(),
                schema_name: None,
                database: None,
                alias: "t".into(),
            },
            TableRef {
                name: "odd table".into(),
                schema_name: None,
                database: None,
                alias: "o".into(),
            },
        ],
        // The new table (t) is on the left of this join.
        joins: vec![Join {
            left_alias: "t".into(),
            right_alias: "a".into(),
            join_type: JoinType::Inner,
            condition: Some(Expr::Binary {
                op: BinaryOp::Eq,
                left: Box::new(col("t", "AlbumId")),
                right: Box::new(col("a", "AlbumId")),
            }),
        }],
        select_items: vec![SelectItem {
            expr: minus(minus(Expr::Literal(Literal::Integer(-5)))),
            alias: Some("x.y".into()),
        }],
        ..Plan::default()
    };
    assert_eq!(
        plan.to_string(),
        "SELECT -(-(-5)) AS \"x.y\" FROM Album a JOIN Track t ON t.AlbumId = a.AlbumId, \"odd table\" o"
    );
}

#[test]
fn the_one_line_form_reads_like_sql() {
    let text = superset_plan().to_string();
    assert_eq!(
        text,
        "WITH sold AS (SELECT il.TrackId FROM InvoiceLine il) \
         SELECT DISTINCT t.Name AS name, \
         RANK() OVER (PARTITION BY t.GenreId ORDER BY t.Milliseconds DESC \
         ROWS BETWEEN UNBOUNDED PRECEDING AND 2 PRECEDING) AS rank, \
         CAST(t.UnitPrice AS TEXT) FROM main.Track t \
         WHERE (t.Milliseconds NOT BETWEEN 1 AND 2.5) AND (NOT EXISTS (SELECT il.TrackId FROM InvoiceLine il)) \
         UNION ALL (SELECT il.TrackId FROM InvoiceLine il) \
         ORDER BY CASE WHEN t.TrackId NOT IN (SELECT il.TrackId FROM InvoiceLine il) THEN 'it''s' ELSE NULL END \
         LIMIT 10 OFFSET 5"
    );
}

mod json_schema {
    use super::*;
    use serde_json::json;
    use serde_json::Value;

    /// Every object is closed and requires all its properties (OpenAI strict mode).
    fn assert_strict(schema: &Value, at: &str) {
        match schema {
            Value::Object(map) => {
                if let Some(Value::Object(props)) = map.get("properties") {
                    assert_eq!(
                        map.get("additionalProperties"),
                        Some(&Value::Bool(false)),
                        "{at}"
                    );
                    let required: Vec<&str> = map["required"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|v| v.as_str().unwrap())
                        .collect();
                    let keys: Vec<&str> = props.keys().map(String::as_str).collect();
                    let mut sorted = required.clone();
                    sorted.sort_unstable();
                    let mut keys_sorted = keys.clone();
                    keys_sorted.sort_unstable();
                    assert_eq!(sorted, keys_sorted, "{at}: every property is required");
                }
                for (k, v) in map {
                    assert_strict(v, &format!("{at}/{k}"));
                }
            }
            Value::Array(items) => items.iter().for_each(|v| assert_strict(v, at)),
            _ => {}
        }
    }

    /// An instance a model could send for `schema`. With `fill` 0 it is the smallest: nulls
    /// where allowed, empty arrays. With `fill` n > 0 the first n levels take the non-null
    /// branch and one array item, so windows, frames and else branches are exercised too.
    /// Always the first choice of an enum and of an `anyOf`.
    fn example(schema: &Value, root: &Value, fill: usize) -> Value {
        let deeper = fill.saturating_sub(1);
        if let Some(r) = schema.get("$ref").and_then(Value::as_str) {
            let target = match r.strip_prefix("#/$defs/") {
                Some(name) => &root["$defs"][name],
                None => root,
            };
            return example(target, root, fill);
        }
        if let Some(c) = schema.get("const") {
            return c.clone();
        }
        if let Some(e) = schema.get("enum") {
            return e[0].clone();
        }
        if let Some(any) = schema.get("anyOf").and_then(Value::as_array) {
            if fill == 0 && any.contains(&json!({"type": "null"})) {
                return Value::Null;
            }
            return example(&any[0], root, fill);
        }
        match &schema["type"] {
            Value::Array(types) if fill == 0 && types.contains(&Value::from("null")) => Value::Null,
            Value::Array(types) => example(&json!({"type": types[0]}), root, fill),
            Value::String(t) => match t.as_str() {
                "object" => {
                    let mut object: serde_json::Map<String, Value> = schema["properties"]
                        .as_object()
                        .unwrap()
                        .iter()
                        .map(|(k, v)| (k.clone(), example(v, root, deeper)))
                        .collect();
                    // The schema cannot say "a value unless is_null"; the parser insists.
                    if object.get("kind") == Some(&json!("literal")) {
                        object.insert("value".into(), json!(1));
                    }
                    Value::Object(object)
                }
                "array" if fill > 0 => json!([example(&schema["items"], root, deeper)]),
                "array" => json!([]),
                "boolean" => json!(false),
                "integer" => json!(1),
                "string" => json!("x"),
                other => panic!("unexpected type {other}"),
            },
            other => panic!("unexpected schema {other}"),
        }
    }

    #[test]
    fn the_schema_is_compact_and_strict() {
        let schema = plan_json_schema();
        let size = serde_json::to_string(&schema).unwrap().len();
        assert!(size <= 8_000, "the schema is {size} characters");
        assert_strict(&schema, "#");
    }

    #[test]
    fn what_the_schema_admits_the_parser_reads() {
        let schema = plan_json_schema();
        let empty: Plan = Plan::from_json(&(example(&schema, &schema, 0)).to_string()).unwrap();
        assert_eq!(empty, Plan::default());
        let full = example(&schema, &schema, 6);
        assert!(
            full["with"][0]["plan"].is_object(),
            "the filled example nests"
        );
        let parsed: Result<Plan, _> = Plan::from_json(&(full.clone()).to_string());
        assert!(parsed.is_ok(), "{full}: {:?}", parsed.err());
        let kinds = schema["$defs"]["Expr"]["anyOf"].as_array().unwrap();
        assert_eq!(kinds.len(), 10);
        for alternative in kinds {
            // Filled, so a func carries a window with a frame, a case an else branch.
            let instance = example(alternative, &schema, 4);
            let plan = json!({"select_items": [{"expr": instance, "alias": null}]});
            let parsed: Result<Plan, _> = Plan::from_json(&(plan.clone()).to_string());
            assert!(parsed.is_ok(), "{plan}: {:?}", parsed.err());
        }
    }

    #[test]
    fn every_binary_op_in_the_schema_parses() {
        let schema = plan_json_schema();
        let binary = &schema["$defs"]["Expr"]["anyOf"][3];
        for op in binary["properties"]["op"]["enum"].as_array().unwrap() {
            let plan = json!({"where": {"kind": "binary", "op": op,
                "left": {"kind": "literal", "value": 1}, "right": {"kind": "literal", "value": 2}}});
            let parsed: Plan = Plan::from_json(&plan.to_string()).unwrap();
            let Some(Expr::Binary { op: parsed_op, .. }) = parsed.filter else {
                panic!("{op} did not parse as a binary")
            };
            assert_eq!(parsed_op.as_str(), op.as_str().unwrap());
            assert_ne!(
                parsed_op,
                BinaryOp::Not,
                "NOT is never offered as a binary op"
            );
        }
    }
}

/// PostgreSQL's series in a select list without `FROM` is read as the series in `FROM`:
/// a recursive CTE the select reads, its value under the call's alias.
#[test]
fn a_series_in_a_select_list_is_read_from_a_recursive_cte() {
    let mut schema = crate::test_fixtures::schema();
    schema.dialect = Dialect::Postgres;
    let sql = "SELECT generate_series(DATE '2024-01-01', DATE '2024-06-01', INTERVAL '1 month')::date AS month";
    let plan = crate::import::import_sql(sql, &schema, Dialect::Postgres).expect("imports");
    let [cte] = plan.ctes.as_slice() else {
        panic!("one CTE: {plan}");
    };
    assert!(cte.recursive, "{plan}");
    assert_eq!(plan.tables.len(), 1, "{plan}");
    assert_eq!(plan.tables[0].name, cte.name);
    assert_eq!(plan.select_items[0].alias.as_deref(), Some("month"));
    let shown = plan.to_string();
    assert!(shown.contains("DATE_ADD('month', 1,"), "{shown}");
    assert!(
        shown.contains("<= CAST('2024-06-01' AS DATE) UNION ALL"),
        "{shown}"
    );

    // Two series in one list (PostgreSQL pairs their rows) are refused.
    let two = "SELECT generate_series(1, 3) AS a, generate_series(1, 2) AS b";
    let error = crate::import::import_sql(two, &schema, Dialect::Postgres).expect_err(two);
    assert!(
        error.message.contains("Several generate_series"),
        "{}",
        error.message
    );
}

#[test]
fn each_dialects_json_text_extraction_imports_as_json_value() {
    let cases = [
        (
            Dialect::Postgres,
            "SELECT BillingAddress::json ->> 'street' FROM Invoice",
            "$.street",
        ),
        (
            Dialect::Postgres,
            "SELECT BillingAddress::jsonb -> 'street' ->> 'name' FROM Invoice",
            "$.street.name",
        ),
        (
            Dialect::Postgres,
            "SELECT BillingAddress::jsonb #>> '{street,name}' FROM Invoice",
            "$.street.name",
        ),
        (
            Dialect::Postgres,
            "SELECT jsonb_extract_path_text(BillingAddress::jsonb, 'street', 'name') FROM Invoice",
            "$.street.name",
        ),
        (
            Dialect::MySql,
            "SELECT JSON_UNQUOTE(JSON_EXTRACT(BillingAddress, '$.street.name')) FROM Invoice",
            "$.street.name",
        ),
        (
            Dialect::MySql,
            "SELECT BillingAddress ->> '$.street' FROM Invoice",
            "$.street",
        ),
        (
            Dialect::DuckDb,
            "SELECT BillingAddress ->> 'street' FROM Invoice",
            "$.street",
        ),
        (
            Dialect::DuckDb,
            "SELECT json_extract_string(BillingAddress, '$.street.name') FROM Invoice",
            "$.street.name",
        ),
    ];
    imports_as(cases.map(|(dialect, sql, path)| {
        (
            dialect,
            sql,
            format!("JSON_VALUE(BillingAddress, '{path}')"),
        )
    }));
    // An array index, a PostgreSQL key spelt as a path, and SQLite's typed extraction.
    import_refused([
        (
            Dialect::Postgres,
            "SELECT BillingAddress::json ->> 0 FROM Invoice",
        ),
        (
            Dialect::Postgres,
            "SELECT BillingAddress::json ->> '$.street' FROM Invoice",
        ),
        (
            Dialect::Sqlite,
            "SELECT BillingAddress ->> '$.street' FROM Invoice",
        ),
    ]);
}

#[test]
fn each_dialects_text_and_number_spellings_import_as_the_plans_functions() {
    let cases = [
        (
            Dialect::Postgres,
            "SELECT POSITION('a' IN BillingCountry) FROM Invoice",
            "INSTR(BillingCountry, 'a')",
        ),
        (
            Dialect::Postgres,
            "SELECT STRPOS(BillingCountry, 'a') FROM Invoice",
            "INSTR(BillingCountry, 'a')",
        ),
        (
            Dialect::MySql,
            "SELECT LOCATE('a', BillingCountry) FROM Invoice",
            "INSTR(BillingCountry, 'a')",
        ),
        (
            Dialect::Postgres,
            "SELECT LEFT(BillingCountry, 3) FROM Invoice",
            "SUBSTR(BillingCountry, 1, 3)",
        ),
        (
            Dialect::Postgres,
            "SELECT RIGHT(BillingCountry, 2) FROM Invoice",
            "SUBSTR(BillingCountry, GREATEST((LENGTH(BillingCountry) - 2) + 1, 1))",
        ),
        (
            Dialect::Postgres,
            "SELECT CHAR_LENGTH(BillingCountry) FROM Invoice",
            "LENGTH(BillingCountry)",
        ),
        (
            Dialect::Postgres,
            "SELECT LOG(Total) FROM Invoice",
            "LOG10(Total)",
        ),
        (
            Dialect::MySql,
            "SELECT LOG(Total) FROM Invoice",
            "LN(Total)",
        ),
        (
            Dialect::MySql,
            "SELECT TRUNCATE(Total, 0) FROM Invoice",
            "TRUNC(Total)",
        ),
        (
            Dialect::MySql,
            "SELECT FIND_IN_SET('b', BillingCountry) FROM Invoice",
            "INSTR((',' || BillingCountry) || ',', (',' || 'b') || ',')",
        ),
    ];
    imports_as(cases.map(|(dialect, sql, shown)| (dialect, sql, shown.to_string())));
    imports_as([
        (
            Dialect::Postgres,
            "SELECT InvoiceId FROM Invoice WHERE BillingCountry = ANY(ARRAY['USA', 'Canada'])",
            "BillingCountry IN TUPLE('USA', 'Canada')".to_string(),
        ),
        (
            Dialect::Postgres,
            "SELECT InvoiceId FROM Invoice WHERE InvoiceId <> ALL(SELECT InvoiceId FROM Invoice WHERE Total > 10)",
            "InvoiceId NOT IN (SELECT".to_string(),
        ),
    ]);
    import_refused([
        (
            Dialect::Postgres,
            "SELECT LEFT(BillingCountry, -2) FROM Invoice",
        ),
        (
            Dialect::Postgres,
            "SELECT RIGHT(BillingCountry, InvoiceId) FROM Invoice",
        ),
        (Dialect::Postgres, "SELECT LOG(2, Total) FROM Invoice"),
        (Dialect::MySql, "SELECT TRUNCATE(Total, 2) FROM Invoice"),
        (
            Dialect::Postgres,
            "SELECT InvoiceId FROM Invoice WHERE InvoiceId > ANY(ARRAY[1, 2])",
        ),
    ]);
}

#[test]
fn time_zone_conversions_of_zone_less_timestamps_import_as_convert_tz() {
    let converted = "CONVERT_TZ(InvoiceDate, 'UTC', 'Asia/Tokyo')".to_string();
    imports_as([
        (
            Dialect::Postgres,
            "SELECT (InvoiceDate AT TIME ZONE 'UTC') AT TIME ZONE 'Asia/Tokyo' FROM Invoice",
            converted.clone(),
        ),
        (
            Dialect::DuckDb,
            "SELECT timezone('Asia/Tokyo', timezone('UTC', InvoiceDate)) FROM Invoice",
            converted.clone(),
        ),
        (
            Dialect::Spark,
            "SELECT from_utc_timestamp(InvoiceDate, 'Asia/Tokyo') FROM Invoice",
            converted,
        ),
        (
            Dialect::Spark,
            "SELECT to_utc_timestamp(InvoiceDate, BillingCountry) FROM Invoice",
            "CONVERT_TZ(InvoiceDate, BillingCountry, 'UTC')".to_string(),
        ),
        (
            Dialect::MySql,
            "SELECT CONVERT_TZ(InvoiceDate, 'UTC', 'Europe/Paris') FROM Invoice",
            "CONVERT_TZ(InvoiceDate, 'UTC', 'Europe/Paris')".to_string(),
        ),
    ]);
    // A value of unknown zone (a text column), and one AT TIME ZONE alone: a moment, which
    // the plan does not hold.
    import_refused([
        (
            Dialect::Postgres,
            "SELECT (BillingCountry AT TIME ZONE 'UTC') AT TIME ZONE 'Asia/Tokyo' FROM Invoice",
        ),
        (
            Dialect::Postgres,
            "SELECT InvoiceDate AT TIME ZONE 'Asia/Tokyo' FROM Invoice",
        ),
    ]);
}

#[test]
fn sql_servers_top_and_date_functions_import_as_the_plans() {
    let cases = [
        (
            "SELECT TOP 5 InvoiceId FROM Invoice ORDER BY Total DESC",
            "ORDER BY Total DESC LIMIT 5",
        ),
        ("SELECT TOP (3) InvoiceId FROM Invoice", "LIMIT 3"),
        (
            "SELECT DATEADD(mm, -3, InvoiceDate) FROM Invoice",
            "DATE_ADD('month', -3, InvoiceDate)",
        ),
        (
            "SELECT DATEADD(dw, 2, InvoiceDate) FROM Invoice",
            "DATE_ADD('day', 2, InvoiceDate)",
        ),
        (
            "SELECT DATEDIFF(yy, InvoiceDate, GETDATE()) FROM Invoice",
            "DATE_DIFF('year', InvoiceDate, CURRENT_TIMESTAMP())",
        ),
        (
            "SELECT DATEDIFF(hour, InvoiceDate, SYSDATETIME()) FROM Invoice",
            "DATE_DIFF('hour', InvoiceDate, CURRENT_TIMESTAMP())",
        ),
        (
            "SELECT DATEPART(iso_week, InvoiceDate), DATEPART(dy, InvoiceDate) FROM Invoice",
            "DATE_PART('week', InvoiceDate), DATE_PART('doy', InvoiceDate)",
        ),
        (
            "SELECT EOMONTH(InvoiceDate) FROM Invoice",
            "DATE_ADD('day', -1, DATE_ADD('month', 1, DATE_TRUNC('month', CAST(InvoiceDate AS DATE))))",
        ),
        (
            "SELECT CHARINDEX('a', BillingCity), ISNULL(BillingState, 'none') FROM Invoice",
            "INSTR(BillingCity, 'a'), COALESCE(BillingState, 'none')",
        ),
    ];
    imports_as(cases.map(|(sql, shown)| (Dialect::SqlServer, sql, shown.to_string())));
    // Ties and shares of rows, weeks that start on the server's DATEFIRST, Sundays counted,
    // and a TOP that would bound a whole UNION.
    import_refused([
        (
            Dialect::SqlServer,
            "SELECT TOP 5 WITH TIES InvoiceId FROM Invoice ORDER BY Total",
        ),
        (
            Dialect::SqlServer,
            "SELECT TOP 10 PERCENT InvoiceId FROM Invoice",
        ),
        (
            Dialect::SqlServer,
            "SELECT DATEPART(week, InvoiceDate) FROM Invoice",
        ),
        (
            Dialect::SqlServer,
            "SELECT DATEPART(dw, InvoiceDate) FROM Invoice",
        ),
        (
            Dialect::SqlServer,
            "SELECT DATEDIFF(week, InvoiceDate, GETDATE()) FROM Invoice",
        ),
        (
            Dialect::SqlServer,
            "SELECT TOP 2 InvoiceId FROM Invoice UNION SELECT InvoiceId FROM Invoice",
        ),
    ]);
}

#[test]
fn sparks_date_functions_import_as_the_plans() {
    let cases = [
        (
            "SELECT add_months(InvoiceDate, 3) FROM Invoice",
            "DATE_ADD('month', 3, CAST(InvoiceDate AS DATE))",
        ),
        (
            "SELECT last_day(InvoiceDate) FROM Invoice",
            "DATE_ADD('day', -1, DATE_ADD('month', 1, DATE_TRUNC('month', CAST(InvoiceDate AS DATE))))",
        ),
        (
            "SELECT trunc(InvoiceDate, 'MM'), trunc(InvoiceDate, 'year') FROM Invoice",
            "DATE_TRUNC('month', CAST(InvoiceDate AS DATE)), DATE_TRUNC('year', CAST(InvoiceDate AS DATE))",
        ),
        ("SELECT to_date(InvoiceDate) FROM Invoice", "CAST(InvoiceDate AS DATE)"),
        (
            "SELECT weekofyear(InvoiceDate) FROM Invoice",
            "DATE_PART('week', InvoiceDate)",
        ),
    ];
    imports_as(cases.map(|(sql, shown)| (Dialect::Spark, sql, shown.to_string())));
    import_refused([
        (
            Dialect::Spark,
            "SELECT trunc(InvoiceDate, 'DD') FROM Invoice",
        ),
        (
            Dialect::Spark,
            "SELECT to_date(BillingCity, 'yyyy-MM-dd') FROM Invoice",
        ),
    ]);
}

#[test]
fn time_zones_must_be_iana_names() {
    for zone in [
        "UTC",
        "Europe/Paris",
        "America/Port-au-Prince",
        "Etc/GMT+5",
        "America/Argentina/Buenos_Aires",
    ] {
        assert!(crate::functions::zone_name(zone), "{zone}");
    }
    for zone in [
        "",
        "+05:00",
        "UTC+5",
        "EST5EDT",
        "Europe/",
        "/Paris",
        "Etc/GMT+",
        "Europe/Paris'",
    ] {
        assert!(!crate::functions::zone_name(zone), "{zone}");
    }
}

/// Each SQL, imported in its dialect, shows as a plan holding the expected text.
fn imports_as<const N: usize>(cases: [(Dialect, &str, String); N]) {
    let mut schema = crate::test_fixtures::schema();
    for (dialect, sql, expected) in cases {
        schema.dialect = dialect;
        let plan = crate::import::import_sql(sql, &schema, dialect).expect(sql);
        let shown = plan.to_string();
        assert!(shown.contains(&expected), "{sql}: {shown}");
    }
}

#[test]
fn each_dialects_regular_expressions_import_with_their_own_meaning() {
    imports_as([
        (
            Dialect::Postgres,
            r"SELECT InvoiceId FROM Invoice WHERE BillingCity ~* '^s\w+' AND BillingCity !~ 'x'",
            r"REGEXP_LIKE(BillingCity, '^s\w+', 'i')".to_string(),
        ),
        (
            Dialect::Postgres,
            "SELECT regexp_replace(lower(BillingCity), '^the\\s+', '') FROM Invoice",
            r"REGEXP_REPLACE(LOWER(BillingCity), '^the\s+', '')".to_string(),
        ),
        (
            Dialect::Postgres,
            "SELECT regexp_replace(BillingCity, 'a', 'b', 'gi') FROM Invoice",
            "REGEXP_REPLACE(BillingCity, 'a', 'b', 'gi')".to_string(),
        ),
        (
            Dialect::Postgres,
            "SELECT SUBSTRING(BillingAddress FROM '[0-9]+') FROM Invoice",
            "REGEXP_SUBSTR(BillingAddress, '[0-9]+')".to_string(),
        ),
        (
            Dialect::MySql,
            "SELECT InvoiceId FROM Invoice WHERE BillingCity NOT REGEXP '^[0-9]\\\\d'",
            r"NOT REGEXP_LIKE(BillingCity, '^[0-9]\d')".to_string(),
        ),
        (
            // MySQL's `.` stops at a newline and its `$` matches before a final one.
            Dialect::MySql,
            "SELECT InvoiceId FROM Invoice WHERE BillingCity REGEXP '[0-9].$'",
            r"REGEXP_LIKE(BillingCity, '[0-9][^\n]\n?$')".to_string(),
        ),
        (
            Dialect::MySql,
            "SELECT InvoiceId FROM Invoice WHERE REGEXP_LIKE(BillingCity, '^s', 'c')",
            "REGEXP_LIKE(BillingCity, '^s')".to_string(),
        ),
        (
            Dialect::MySql,
            "SELECT REGEXP_REPLACE(BillingCity, ' +', '-') FROM Invoice",
            "REGEXP_REPLACE(BillingCity, ' +', '-', 'g')".to_string(),
        ),
        (
            Dialect::DuckDb,
            "SELECT InvoiceId FROM Invoice WHERE BillingCity ~ 'S.*o'",
            r"REGEXP_LIKE(BillingCity, '^(?:S[^\n]*o)$')".to_string(),
        ),
        (
            Dialect::DuckDb,
            "SELECT regexp_extract(BillingAddress, '[0-9]+') FROM Invoice",
            "COALESCE(REGEXP_SUBSTR(BillingAddress, '[0-9]+'), '')".to_string(),
        ),
        (
            Dialect::Spark,
            "SELECT InvoiceId FROM Invoice WHERE BillingCity RLIKE '^S'",
            "REGEXP_LIKE(BillingCity, '^S')".to_string(),
        ),
        (
            Dialect::Spark,
            "SELECT regexp_replace(BillingCity, 'a', 'b') FROM Invoice",
            "REGEXP_REPLACE(BillingCity, 'a', 'b', 'g')".to_string(),
        ),
    ]);
    // A group PostgreSQL's substring would return, flags no other engine has, a group
    // extracted, MySQL's letters in the collation's case, MySQL's or MariaDB's extraction.
    import_refused([
        (
            Dialect::Postgres,
            "SELECT SUBSTRING(BillingAddress FROM '([0-9]+) ') FROM Invoice",
        ),
        (
            Dialect::Postgres,
            "SELECT regexp_replace(BillingCity, 'a', 'b', 'x') FROM Invoice",
        ),
        (
            Dialect::Spark,
            "SELECT regexp_extract(BillingCity, '(a)', 1) FROM Invoice",
        ),
        (
            Dialect::MySql,
            "SELECT InvoiceId FROM Invoice WHERE BillingCity REGEXP '^s'",
        ),
        (
            Dialect::MySql,
            "SELECT REGEXP_SUBSTR(BillingCity, '[0-9]+') FROM Invoice",
        ),
        (
            Dialect::Spark,
            "SELECT regexp_replace(BillingCity, ' +$', '') FROM Invoice",
        ),
    ]);
}

#[test]
fn a_lateral_values_unpivot_imports_as_a_join_on_row_numbers() {
    imports_as([
        (
            Dialect::Postgres,
            "SELECT s.k, s.v AS value FROM Invoice i CROSS JOIN LATERAL (VALUES (1, i.Total), \
             (2, i.InvoiceId)) AS s(k, v) WHERE i.InvoiceId < 3 ORDER BY s.k, value",
            "CASE WHEN s.values_row = 1 THEN 1 WHEN s.values_row = 2 THEN 2 END AS k".to_string(),
        ),
        (
            Dialect::Postgres,
            "SELECT s.k FROM Invoice i LEFT JOIN LATERAL (VALUES ('a'), ('b')) AS s(k) ON TRUE",
            "CROSS JOIN s s".to_string(),
        ),
    ]);
    // A column named without the alias, a star, a join with a condition, no column names.
    import_refused([
        (
            Dialect::Postgres,
            "SELECT k FROM Invoice i CROSS JOIN LATERAL (VALUES (1), (2)) AS s(k)",
        ),
        (
            Dialect::Postgres,
            "SELECT * FROM Invoice i CROSS JOIN LATERAL (VALUES (1), (2)) AS s(k)",
        ),
        (
            Dialect::Postgres,
            "SELECT s.k FROM Invoice i LEFT JOIN LATERAL (VALUES (1), (2)) AS s(k) ON s.k = 1",
        ),
        (
            Dialect::Postgres,
            "SELECT 1 FROM Invoice i CROSS JOIN LATERAL (VALUES (1), (2)) AS s",
        ),
    ]);
}

#[test]
fn a_date_parsed_from_a_literal_by_its_format_imports_as_the_date_itself() {
    imports_as([
        (
            Dialect::Postgres,
            "SELECT InvoiceId FROM Invoice WHERE InvoiceDate >= to_date('05/01/2024', 'dd/mm/YYYY')",
            "CAST('2024-01-05' AS DATE)".to_string(),
        ),
        (
            Dialect::MySql,
            "SELECT InvoiceId FROM Invoice WHERE InvoiceDate < STR_TO_DATE('2024-02-29', '%Y-%m-%d')",
            "CAST('2024-02-29' AS DATE)".to_string(),
        ),
        (
            Dialect::MySql,
            "SELECT STR_TO_DATE('2024-02-29 13:05', '%Y-%m-%d %H:%i') FROM Invoice",
            "CAST('2024-02-29 13:05:00' AS TIMESTAMP)".to_string(),
        ),
        (
            Dialect::DuckDb,
            "SELECT strptime('2024.03.01', '%Y.%m.%d') FROM Invoice",
            "CAST('2024-03-01 00:00:00' AS TIMESTAMP)".to_string(),
        ),
        (
            Dialect::Spark,
            "SELECT to_timestamp('2024-03-01 23:59:58', 'yyyy-MM-dd HH:mm:ss') FROM Invoice",
            "CAST('2024-03-01 23:59:58' AS TIMESTAMP)".to_string(),
        ),
    ]);
    // A column's text, a day that is not (PostgreSQL would give March 1st), a month of one
    // digit, a 12-hour clock, PostgreSQL's to_timestamp (a moment in the session's zone),
    // a time where a date is asked for.
    import_refused([
        (
            Dialect::Postgres,
            "SELECT to_date(BillingCity, 'YYYY-MM-DD') FROM Invoice",
        ),
        (
            Dialect::Postgres,
            "SELECT to_date('2024-02-30', 'YYYY-MM-DD') FROM Invoice",
        ),
        (
            Dialect::MySql,
            "SELECT STR_TO_DATE('2024-2-01', '%Y-%m-%d') FROM Invoice",
        ),
        (
            Dialect::Postgres,
            "SELECT to_date('2024-02-01 01', 'YYYY-MM-DD HH') FROM Invoice",
        ),
        (
            Dialect::Postgres,
            "SELECT to_timestamp('2024-02-01', 'YYYY-MM-DD') FROM Invoice",
        ),
        (
            Dialect::Spark,
            "SELECT to_date('2024-02-01 10', 'yyyy-MM-dd HH') FROM Invoice",
        ),
    ]);
}

#[test]
fn a_pattern_engines_read_differently_is_refused_by_the_validator_with_the_reason() {
    let schema = crate::test_fixtures::schema();
    for (sql, why) in [
        (
            r"SELECT regexp_replace(BillingCity, 'a|ab', '') FROM Invoice",
            "longest",
        ),
        (
            r"SELECT regexp_replace(BillingCity, 'x*', '', 'g') FROM Invoice",
            "empty text",
        ),
        (
            r"SELECT regexp_replace(BillingCity, 'a', '\1') FROM Invoice",
            "group",
        ),
        (
            r"SELECT InvoiceId FROM Invoice WHERE BillingCity ~ '\bS'",
            r"\b",
        ),
        (
            r"SELECT InvoiceId FROM Invoice WHERE Total ~ '^1'",
            "searches text",
        ),
        (
            r"SELECT InvoiceId FROM Invoice WHERE BillingCity ~* '^Zürich'",
            "beyond ASCII",
        ),
    ] {
        let plan = crate::import::import_sql(sql, &schema, Dialect::Postgres).expect(sql);
        let policies = crate::policy::Policies::demo();
        let scope = policies.scope(&["admin".to_string()]);
        let findings = crate::validate::validate(Some(&plan), &schema, &scope, &Default::default());
        let shown = format!("{:?}", findings.errors);
        assert!(shown.contains(why), "{sql}: {shown}");
    }
}

/// Each SQL, imported in its dialect, is refused as SQL_IMPORT_FAILED.
fn import_refused<const N: usize>(cases: [(Dialect, &str); N]) {
    let mut schema = crate::test_fixtures::schema();
    for (dialect, sql) in cases {
        schema.dialect = dialect;
        let error = crate::import::import_sql(sql, &schema, dialect).expect_err(sql);
        assert_eq!(
            error.error_code,
            nl2sql_error::ErrorCode::SqlImportFailed,
            "{sql}: {error:?}"
        );
    }
}

/// `OVERLAPS` is read as comparisons keeping PostgreSQL's reading (periods turned round,
/// an unknown end); a period that is not a pair is refused.
#[test]
fn overlaps_is_read_as_comparisons() {
    let mut schema = crate::test_fixtures::schema();
    schema.dialect = Dialect::Postgres;
    let sql = "SELECT InvoiceId FROM Invoice \
               WHERE (InvoiceDate, InvoiceDate + INTERVAL '3 days') OVERLAPS (DATE '2024-07-01', DATE '2024-08-01')";
    let plan = crate::import::import_sql(sql, &schema, Dialect::Postgres).expect(sql);
    let shown = plan.to_string();
    assert!(
        shown.contains("COALESCE(i.InvoiceDate") || shown.contains("COALESCE(InvoiceDate"),
        "{shown}"
    );
    assert!(!shown.contains("OVERLAPS"), "{shown}");
    // FALSE-or-NULL is a comparison, which SQL Server takes as a condition (no CASE is).
    let tsql = crate::lower::to_sql(&plan, &schema, Dialect::SqlServer, &Default::default())
        .expect("renders on SQL Server");
    assert!(tsql.contains("1 = CASE WHEN"), "{tsql}");
    import_refused([(
        Dialect::Postgres,
        "SELECT InvoiceId FROM Invoice WHERE (InvoiceDate, InvoiceDate, InvoiceDate) OVERLAPS (InvoiceDate, InvoiceDate)",
    )]);
}

/// `x + CASE … THEN INTERVAL … END` is read as the CASE of `x` moved by each branch.
#[test]
fn an_interval_chosen_per_row_moves_each_branch() {
    let mut schema = crate::test_fixtures::schema();
    schema.dialect = Dialect::Postgres;
    let sql = "SELECT InvoiceDate + CASE WHEN Total > 5 THEN INTERVAL '8 hours' ELSE INTERVAL '1 day' END AS due FROM Invoice";
    let plan = crate::import::import_sql(sql, &schema, Dialect::Postgres).expect(sql);
    let shown = plan.to_string();
    assert!(shown.contains("DATE_ADD('hour', 8,"), "{shown}");
    assert!(shown.contains("DATE_ADD('day', 1,"), "{shown}");
}

/// PostgreSQL's `make_interval` (by name or position) moves a value part by part, months
/// before days before time; SQLite's day assembled with `printf` is a `MAKE_DATE`.
#[test]
fn made_intervals_and_printed_days_are_read() {
    let mut schema = crate::test_fixtures::schema();
    schema.dialect = Dialect::Postgres;
    let sql = "SELECT InvoiceDate - make_interval(hours => InvoiceId % 3, days => 2) AS slot FROM Invoice";
    let plan = crate::import::import_sql(sql, &schema, Dialect::Postgres).expect(sql);
    let shown = plan.to_string();
    let (day, hour) = (shown.find("'day'"), shown.find("'hour'"));
    assert!(
        day.is_some() && hour.is_some() && hour < day,
        "hours applied last: {shown}"
    );
    // A year and a month are 13 months at once, as PostgreSQL adds them (Feb 29th + 1 year
    // 1 month is March 29th), and so are an interval's.
    for sql in [
        "SELECT InvoiceDate + make_interval(years => 1, months => 1) AS d FROM Invoice",
        "SELECT InvoiceDate + INTERVAL '1 year 1 month' AS d FROM Invoice",
    ] {
        let plan = crate::import::import_sql(sql, &schema, Dialect::Postgres).expect(sql);
        let shown = plan.to_string();
        assert!(shown.contains("DATE_ADD('month', 13,"), "{shown}");
        assert!(!shown.contains("'year'"), "{shown}");
    }
    import_refused([(
        Dialect::Postgres,
        "SELECT InvoiceDate + make_interval(fortnights => 1) AS d FROM Invoice",
    )]);

    schema.dialect = Dialect::Sqlite;
    let sql = "SELECT printf('%04d-%02d-%02d', InvoiceId, 1, 1) AS d FROM Invoice";
    let plan = crate::import::import_sql(sql, &schema, Dialect::Sqlite).expect(sql);
    assert!(plan.to_string().contains("MAKE_DATE("), "{plan}");
}

/// `LEFT JOIN LATERAL (… LIMIT 1) AS x ON TRUE` of one column is read as a correlated
/// scalar subquery where `x.column` is named; an inner lateral join, which drops rows,
/// and a lateral column named without its alias are refused.
#[test]
fn a_lateral_lookup_is_a_scalar_subquery() {
    let mut schema = crate::test_fixtures::schema();
    schema.dialect = Dialect::Postgres;
    let sql = "SELECT c.CustomerId, last.Total FROM Customer c \
               LEFT JOIN LATERAL (SELECT i.Total FROM Invoice i WHERE i.CustomerId = c.CustomerId \
               ORDER BY i.InvoiceDate DESC LIMIT 1) last ON TRUE";
    let plan = crate::import::import_sql(sql, &schema, Dialect::Postgres).expect(sql);
    assert_eq!(plan.tables.len(), 1, "{plan}");
    assert!(plan.joins.is_empty(), "{plan}");
    assert_eq!(
        plan.select_items[1].alias.as_deref(),
        Some("Total"),
        "{plan}"
    );
    import_refused([
        (
            Dialect::Postgres,
            "SELECT c.CustomerId, last.Total FROM Customer c \
             JOIN LATERAL (SELECT i.Total FROM Invoice i WHERE i.CustomerId = c.CustomerId \
             ORDER BY i.InvoiceDate DESC LIMIT 1) last ON TRUE",
        ),
        (
            Dialect::Postgres,
            "SELECT c.CustomerId, Total FROM Customer c \
             LEFT JOIN LATERAL (SELECT i.Total FROM Invoice i WHERE i.CustomerId = c.CustomerId \
             ORDER BY i.InvoiceDate DESC LIMIT 1) last ON TRUE",
        ),
        // A right join keeps customers-less rows, where the lateral join gave NULL.
        (
            Dialect::Postgres,
            "SELECT e.EmployeeId, last.Total FROM Customer c \
             LEFT JOIN LATERAL (SELECT i.Total FROM Invoice i WHERE i.CustomerId = c.CustomerId \
             ORDER BY i.InvoiceDate DESC LIMIT 1) last ON TRUE \
             RIGHT JOIN Employee e ON e.EmployeeId = c.SupportRepId",
        ),
        // Inside a nested query the alias may be another table's.
        (
            Dialect::Postgres,
            "SELECT c.CustomerId FROM Customer c \
             LEFT JOIN LATERAL (SELECT i.Total FROM Invoice i WHERE i.CustomerId = c.CustomerId \
             ORDER BY i.InvoiceDate DESC LIMIT 1) last ON TRUE \
             WHERE EXISTS (SELECT 1 FROM Invoice last WHERE last.Total > 5)",
        ),
    ]);
    // The lookup's own table may go by the lookup's alias inside it.
    let same_alias = "SELECT c.CustomerId, last.Total FROM Customer c \
               LEFT JOIN LATERAL (SELECT last.Total FROM Invoice last WHERE last.CustomerId = c.CustomerId \
               ORDER BY last.InvoiceDate DESC LIMIT 1) last ON TRUE";
    crate::import::import_sql(same_alias, &schema, Dialect::Postgres).expect(same_alias);
}
