use super::*;
use crate::dialect::Dialect;
use crate::lower::{lower, to_sql};
use crate::policy::Policies;
use crate::test_fixtures::json::{bin, c, func, invoices, lit};
use crate::test_fixtures::schema;
use serde_json::{json, Value as Json};

fn plan(v: serde_json::Value) -> Plan {
    Plan::from_json(&v.to_string()).expect("test plans are well-formed")
}

fn run_as(p: &Plan, role: &str, settings: &ValidatorSettings) -> Validation {
    let policies = Policies::demo();
    let scope = policies.scope(&[role.to_string()]);
    validate(Some(p), &schema(), &scope, settings)
}

fn run(p: &Plan) -> Validation {
    run_as(p, "admin", &ValidatorSettings::default())
}

fn codes(v: &Validation) -> Vec<ErrorCode> {
    v.errors.iter().map(|e| e.error_code).collect()
}

fn messages(v: &Validation) -> String {
    v.errors
        .iter()
        .map(|e| e.message.as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

fn tracks_of_albums() -> serde_json::Value {
    json!({
        "tables": [{"name": "Track", "alias": "t"}, {"name": "Album", "alias": "a"}],
        "joins": [{"left_alias": "t", "right_alias": "a",
                   "condition": bin("=", c("t", "AlbumId"), c("a", "AlbumId"))}],
        "select_items": [{"expr": c("a", "Title")}, {"expr": c("t", "Name")}]
    })
}

#[test]
fn a_good_plan_passes_all_three_checks_in_order() {
    let v = run(&plan(tracks_of_albums()));
    assert!(v.passed(), "{}", messages(&v));
    let names: Vec<CheckName> = v.checks.iter().map(|c| c.name).collect();
    assert_eq!(
        names,
        [
            CheckName::PlanPresent,
            CheckName::StructureAndSchema,
            CheckName::Policy
        ]
    );
    // The published names.
    let json = serde_json::to_string(&names).unwrap_or_default();
    assert_eq!(json, r#"["plan_present","structure_and_schema","policy"]"#);
    let published: Vec<&str> = names.iter().map(|n| n.as_str()).collect();
    assert_eq!(
        published,
        ["plan_present", "structure_and_schema", "policy"]
    );
    assert!(v.checks.iter().all(|c| c.passed && c.message.is_empty()));
    assert!(v.warnings.is_empty());
}

#[test]
fn no_plan_is_missing_plan_and_the_only_check() {
    let policies = Policies::demo();
    let v = validate(
        None,
        &schema(),
        &policies.scope(&[]),
        &ValidatorSettings::default(),
    );
    assert_eq!(codes(&v), [ErrorCode::MissingPlan]);
    assert_eq!(v.errors[0].severity, Severity::Critical);
    assert_eq!(v.checks.len(), 1);
    assert_eq!(v.checks[0].name, CheckName::PlanPresent);
    assert!(!v.checks[0].passed);
}

#[test]
fn the_policy_always_runs_and_its_errors_come_first() {
    // Broken (unknown column) and forbidden (Employee) at once.
    let p = plan(json!({
        "tables": [{"name": "Employee", "alias": "e"}],
        "select_items": [{"expr": c("e", "Salary")}]
    }));
    let v = run_as(&p, "analyst", &ValidatorSettings::default());
    // The static findings about a refused table are not told (they are data about it).
    assert_eq!(codes(&v), [ErrorCode::SecurityViolation]);
    assert!(!v.checks[1].passed);
    assert!(v.checks[1].message.starts_with("Not reported"));
    assert_eq!(v.errors[0].severity, Severity::Critical);
    assert!(!v.errors[0].is_retryable());
    // The demo policy names what it refused; the details are there either way.
    assert_eq!(
        v.errors[0].message,
        "Role analyst may not read chinook.Employee."
    );
    let details = v.errors[0].details.as_ref().expect("details for the trace");
    assert_eq!(details["table"], "Employee");
    assert_eq!(details["rule"], "role analyst denies chinook.employee");
    let policy = &v.checks[2];
    assert!(!policy.passed);
    assert_eq!(policy.message, v.errors[0].message);
}

#[test]
fn refusals_name_nothing_unless_the_policy_says_so() {
    let policies = Policies {
        refusal_names_tables: false,
        ..Policies::demo()
    };
    let p = plan(json!({
        "tables": [{"name": "Customer", "alias": "c"}],
        "select_items": [{"expr": c("c", "FirstName")}]
    }));
    for roles in [vec!["viewer".to_string()], vec!["nobody".to_string()]] {
        let v = validate(
            Some(&p),
            &schema(),
            &policies.scope(&roles),
            &ValidatorSettings::default(),
        );
        assert_eq!(codes(&v), [ErrorCode::SecurityViolation], "{roles:?}");
        assert_eq!(v.errors[0].message, REFUSAL_MESSAGE);
    }
}

#[test]
fn a_table_in_a_subquery_or_cte_is_checked_by_the_policy_too() {
    let p = plan(json!({
        "with": [{"name": "staff", "plan": {
            "tables": [{"name": "Employee", "alias": "e"}],
            "select_items": [{"expr": c("e", "EmployeeId")}]}}],
        "tables": [{"name": "staff", "alias": "s"}],
        "select_items": [{"expr": c("s", "EmployeeId")}]
    }));
    let v = run_as(&p, "analyst", &ValidatorSettings::default());
    assert_eq!(codes(&v), [ErrorCode::SecurityViolation]);
    assert!(run(&p).passed(), "{}", messages(&run(&p)));
}

#[test]
fn structure_errors_have_their_codes() {
    let cases: Vec<(serde_json::Value, ErrorCode, &str)> = vec![
        (
            json!({"tables": [], "select_items": [{"expr": lit(json!(1))}],
                   "joins": [{"left_alias": "t", "right_alias": "a", "join_type": "cross"}]}),
            ErrorCode::InvalidPlanStructure,
            "joins but no tables",
        ),
        (
            json!({"tables": [{"name": "Track", "alias": "t"}, {"name": "Album", "alias": "t"}],
                   "select_items": [{"expr": c("t", "Name")}]}),
            ErrorCode::InvalidPlanStructure,
            "declared twice",
        ),
        (
            json!({"tables": [{"name": "Track", "alias": "t"}],
                   "select_items": [{"expr": func("DISTINCT", vec![c("t", "Name")])}]}),
            ErrorCode::InvalidPlanStructure,
            "DISTINCT is not a function",
        ),
        (
            json!({"tables": [{"name": "Trak", "alias": "t"}],
                   "select_items": [{"expr": c("t", "Name")}]}),
            ErrorCode::TableNotFound,
            "Did you mean Track?",
        ),
        (
            json!({"tables": [{"name": "Track", "alias": "t"}],
                   "select_items": [{"expr": c("t", "Nmae")}]}),
            ErrorCode::ColumnNotFound,
            "Did you mean t.Name?",
        ),
        (
            json!({"tables": [{"name": "Track", "alias": "t"}],
                   "select_items": [{"expr": c("x", "Name")}]}),
            ErrorCode::ColumnNotFound,
            "no table in this plan has alias x",
        ),
        (
            json!({"tables": [{"name": "Track", "alias": "t"}, {"name": "Album", "alias": "a"}],
                   "joins": [{"left_alias": "t", "right_alias": "a",
                              "condition": bin("=", c("t", "AlbumId"), c("a", "AlbumId"))}],
                   "select_items": [{"expr": {"kind": "column", "column_name": "AlbumId"}}]}),
            ErrorCode::ColumnNotFound,
            "ambiguous",
        ),
        (
            json!({"tables": [{"name": "Track", "alias": "t"}],
                   "joins": [{"left_alias": "t", "right_alias": "z",
                              "condition": bin("=", c("t", "AlbumId"), c("z", "AlbumId"))}],
                   "select_items": [{"expr": c("t", "Name")}]}),
            ErrorCode::JoinTableNotInPlan,
            "z",
        ),
        (
            json!({"tables": [{"name": "Track", "alias": "t"}],
                   "select_items": [{"expr": c("t", "Name")}], "offset": 5}),
            ErrorCode::InvalidPlanStructure,
            "offset needs an order_by",
        ),
        (
            json!({"tables": [{"name": "Track", "alias": "t"}],
                   "select_items": [{"expr": c("t", "Name")}], "limit": 0}),
            ErrorCode::InvalidPlanStructure,
            "limit must be at least 1",
        ),
    ];
    for (p, code, needle) in cases {
        let v = run(&plan(p.clone()));
        assert!(codes(&v).contains(&code), "{p}: {:?}", v.errors);
        assert!(messages(&v).contains(needle), "{p}: {}", messages(&v));
        assert!(!v.checks[1].passed);
        assert!(v.errors.iter().all(|e| e.is_retryable()), "{p}");
    }
}

#[test]
fn unsupported_functions_list_what_is_allowed_but_not_the_legacy_one() {
    let p = plan(json!({
        "tables": [{"name": "Track", "alias": "t"}],
        "select_items": [{"expr": func("SELECT 1); DROP TABLE Track; --", vec![])},
                         {"expr": func("load_extension", vec![lit(json!("x"))])}]
    }));
    let v = run(&p);
    assert_eq!(codes(&v), [ErrorCode::UnsupportedFunction]);
    let m = &v.errors[0].message;
    assert!(
        m.contains("load_extension") && m.contains("DROP TABLE"),
        "{m}"
    );
    assert!(m.contains("DATE_TRUNC") && m.contains("ROW_NUMBER"), "{m}");
    assert!(!m.contains("STRFTIME") && !m.contains("TUPLE"), "{m}");
    assert_eq!(v.errors[0].severity, Severity::Error);
    // The legacy STRFTIME is still accepted.
    let legacy = plan(json!({
        "tables": [{"name": "Employee", "alias": "e"}],
        "select_items": [{"expr": func("strftime", vec![lit(json!("%Y")), c("e", "HireDate")])}]
    }));
    assert!(run(&legacy).passed(), "{}", messages(&run(&legacy)));
}

#[test]
fn binary_not_is_refused_before_anything_walks_the_plan() {
    let p = plan(json!({
        "tables": [{"name": "Track", "alias": "t"}],
        "select_items": [{"expr": c("t", "Nope")}],
        "where": bin("NOT", c("t", "Name"), lit(json!("x")))
    }));
    let v = run(&p);
    // Only the operator: the column check did not run.
    assert_eq!(codes(&v), [ErrorCode::InvalidPlanStructure]);
    assert!(messages(&v).contains("unary"));
}

#[test]
fn date_functions_need_a_known_unit_and_their_shape() {
    let date = c("e", "HireDate");
    let ok = [
        func("DATE_PART", vec![lit(json!("year")), date.clone()]),
        func("DATE_PART", vec![date.clone(), lit(json!("Quarter"))]),
        func("DATE_TRUNC", vec![lit(json!("week")), date.clone()]),
        func(
            "DATE_ADD",
            vec![lit(json!("hour")), lit(json!(3)), date.clone()],
        ),
        func(
            "DATE_DIFF",
            vec![
                lit(json!("day")),
                date.clone(),
                func("CURRENT_DATE", vec![]),
            ],
        ),
        func("MONTH", vec![date.clone()]),
    ];
    for e in ok {
        let p = plan(json!({"tables": [{"name": "Employee", "alias": "e"}],
                            "select_items": [{"expr": e}]}));
        assert!(run(&p).passed(), "{p}: {}", messages(&run(&p)));
    }
    let bad = [
        func("DATE_PART", vec![lit(json!("fortnight")), date.clone()]),
        func("DATE_TRUNC", vec![date.clone()]),
        func(
            "DATE_ADD",
            vec![c("e", "City"), lit(json!(1)), date.clone()],
        ),
        func("CURRENT_DATE", vec![date.clone()]),
    ];
    for e in bad {
        let p = plan(json!({"tables": [{"name": "Employee", "alias": "e"}],
                            "select_items": [{"expr": e}]}));
        let v = run(&p);
        assert_eq!(codes(&v), [ErrorCode::InvalidPlanStructure], "{p}");
        assert!(
            messages(&v).contains("DATE_TRUNC('unit', date)"),
            "{}",
            messages(&v)
        );
    }
}

#[test]
fn joins_on_foreign_keys_pass_typed_joins_warn_and_others_are_refused() {
    // Declared foreign key: clean.
    assert!(run(&plan(tracks_of_albums())).warnings.is_empty());
    // Same kind, no foreign key: allowed with a warning, refused under fk_only.
    let cities = plan(json!({
        "tables": [{"name": "Customer", "alias": "c"}, {"name": "Employee", "alias": "e"}],
        "joins": [{"left_alias": "c", "right_alias": "e",
                   "condition": bin("=", c("c", "City"), c("e", "City"))}],
        "select_items": [{"expr": c("c", "FirstName")}, {"expr": c("e", "LastName")}]
    }));
    let v = run(&cities);
    assert!(v.passed(), "{}", messages(&v));
    assert_eq!(v.warnings.len(), 1);
    assert_eq!(v.warnings[0].code, ErrorCode::UndeclaredJoin);
    let strict = ValidatorSettings {
        joins: JoinRule::FkOnly,
        ..ValidatorSettings::default()
    };
    let v = run_as(&cities, "admin", &strict);
    assert_eq!(codes(&v), [ErrorCode::InvalidPlanStructure]);
    assert!(messages(&v).contains("fk_only"));
    // A date against a number can never match.
    let mismatch = plan(json!({
        "tables": [{"name": "Customer", "alias": "c"}, {"name": "Employee", "alias": "e"}],
        "joins": [{"left_alias": "c", "right_alias": "e",
                   "condition": bin("=", c("c", "CustomerId"), c("e", "HireDate"))}],
        "select_items": [{"expr": c("c", "FirstName")}]
    }));
    let v = run(&mismatch);
    assert_eq!(codes(&v), [ErrorCode::JoinKeyTypeMismatch]);
    assert!(v.errors[0].is_retryable());
    assert!(
        messages(&v).contains("c.SupportRepId = e.EmployeeId"),
        "{}",
        messages(&v)
    );
    // No equality, but a condition relating the two sides: a range join, with a warning.
    let range = plan(json!({
        "tables": [{"name": "Track", "alias": "t"}, {"name": "Album", "alias": "a"}],
        "joins": [{"left_alias": "t", "right_alias": "a",
                   "condition": bin(">", c("t", "AlbumId"), c("a", "AlbumId"))}],
        "select_items": [{"expr": c("t", "Name")}]
    }));
    let v = run(&range);
    assert!(v.passed(), "{:?}", v.errors);
    assert!(v
        .warnings
        .iter()
        .any(|w| w.code == ErrorCode::UndeclaredJoin && w.message.contains("without an equality")));
    // A condition on one side only relates nothing: says what a join may be.
    let unrelated = plan(json!({
        "tables": [{"name": "Track", "alias": "t"}, {"name": "Album", "alias": "a"}],
        "joins": [{"left_alias": "t", "right_alias": "a",
                   "condition": bin(">", c("t", "AlbumId"), json!({"kind": "literal", "value": 3}))}],
        "select_items": [{"expr": c("t", "Name")}]
    }));
    let v = run(&unrelated);
    assert_eq!(codes(&v), [ErrorCode::InvalidPlanStructure]);
    assert!(
        messages(&v).contains("needs an equality"),
        "{}",
        messages(&v)
    );
}

#[test]
fn subqueries_see_outer_aliases_and_ctes_offer_their_columns() {
    // Correlated: the subquery's a.ArtistId resolves to the outer alias.
    let p = plan(json!({
        "tables": [{"name": "Artist", "alias": "ar"}],
        "select_items": [{"expr": c("ar", "Name")}],
        "where": {"kind": "exists", "plan": {
            "tables": [{"name": "Album", "alias": "al"}],
            "select_items": [{"expr": lit(json!(1))}],
            "where": bin("=", c("al", "ArtistId"), c("ar", "ArtistId"))}}
    }));
    assert!(run(&p).passed(), "{}", messages(&run(&p)));
    // A CTE's columns are its select aliases; anything else is not found.
    let p = plan(json!({
        "with": [{"name": "counts", "plan": {
            "tables": [{"name": "Album", "alias": "al"}],
            "select_items": [{"expr": c("al", "ArtistId")},
                             {"alias": "albums", "expr": func("COUNT", vec![c("al", "AlbumId")])}],
            "group_by": [{"expr": c("al", "ArtistId")}]}}],
        "tables": [{"name": "counts", "alias": "k"}, {"name": "Artist", "alias": "ar"}],
        "joins": [{"left_alias": "k", "right_alias": "ar",
                   "condition": bin("=", c("k", "ArtistId"), c("ar", "ArtistId"))}],
        "select_items": [{"expr": c("ar", "Name")}, {"expr": c("k", "albums")},
                         {"expr": c("k", "AlbumId")}]
    }));
    let v = run(&p);
    assert_eq!(codes(&v), [ErrorCode::ColumnNotFound]);
    assert!(
        messages(&v).contains("counts (alias k) has no column AlbumId"),
        "{}",
        messages(&v)
    );
    // The join to the CTE is typed, so it passes with a warning once the column is right.
    let mut fixed = p.clone();
    fixed.select_items.pop();
    let v = run(&fixed);
    assert!(v.passed(), "{}", messages(&v));
    assert_eq!(v.warnings[0].code, ErrorCode::UndeclaredJoin);
}

#[test]
fn windows_and_aggregates_only_where_sql_allows_them() {
    let rn = json!({"kind": "func", "func_name": "ROW_NUMBER", "args": [],
                    "over": {"order_by": [{"expr": c("t", "Milliseconds")}]}});
    let cases = [
        (
            json!({"where": bin(">", rn.clone(), lit(json!(1)))}),
            "window functions may only appear",
        ),
        (
            json!({"where": bin(">", func("COUNT", vec![c("t", "TrackId")]), lit(json!(1)))}),
            "Filter groups with having",
        ),
        (
            json!({"select_items": [{"expr": func("RANK", vec![])}]}),
            "give it an over clause",
        ),
        (
            json!({"select_items": [{"expr": func("SUM", vec![func("COUNT", vec![c("t", "TrackId")])])}]}),
            "inside another aggregate",
        ),
    ];
    for (extra, needle) in cases {
        let mut p = json!({"tables": [{"name": "Track", "alias": "t"}],
                           "select_items": [{"expr": c("t", "Name")}]});
        for (k, v) in extra.as_object().unwrap() {
            p[k] = v.clone();
        }
        let v = run(&plan(p.clone()));
        assert!(messages(&v).contains(needle), "{p}: {}", messages(&v));
    }
    // A window in SELECT is fine.
    let p = plan(json!({"tables": [{"name": "Track", "alias": "t"}],
                        "select_items": [{"expr": c("t", "Name")}, {"expr": rn}]}));
    assert!(run(&p).passed(), "{}", messages(&run(&p)));
}

#[test]
fn grouped_plans_select_only_grouped_or_aggregated_columns() {
    let p = plan(json!({
        "tables": [{"name": "Track", "alias": "t"}, {"name": "Album", "alias": "a"}],
        "joins": [{"left_alias": "t", "right_alias": "a",
                   "condition": bin("=", c("t", "AlbumId"), c("a", "AlbumId"))}],
        "select_items": [{"expr": c("a", "Title")}, {"expr": c("t", "Name")},
                         {"alias": "n", "expr": func("COUNT", vec![c("t", "TrackId")])}],
        "group_by": [{"expr": c("a", "Title")}],
        "order_by": [{"expr": {"kind": "column", "column_name": "n"}, "direction": "desc"}]
    }));
    let v = run(&p);
    assert_eq!(codes(&v), [ErrorCode::InvalidPlanStructure]);
    assert!(
        messages(&v).contains("t.Name (in select_items) is neither in group_by"),
        "{}",
        messages(&v)
    );
    // Grouping by the primary key makes every column of that table single-valued.
    let p = plan(json!({
        "tables": [{"name": "Track", "alias": "t"}, {"name": "Album", "alias": "a"}],
        "joins": [{"left_alias": "t", "right_alias": "a",
                   "condition": bin("=", c("t", "AlbumId"), c("a", "AlbumId"))}],
        "select_items": [{"expr": c("a", "Title")},
                         {"expr": func("COUNT", vec![c("t", "TrackId")])}],
        "group_by": [{"expr": c("a", "AlbumId")}]
    }));
    assert!(run(&p).passed(), "{}", messages(&run(&p)));
}

#[test]
fn unknown_columns_are_warnings_when_columns_are_not_strict() {
    let p = plan(json!({"tables": [{"name": "Track", "alias": "t"}],
                        "select_items": [{"expr": c("t", "Genre")}]}));
    let lenient = ValidatorSettings {
        strict_columns: false,
        ..ValidatorSettings::default()
    };
    let v = run_as(&p, "admin", &lenient);
    assert!(v.passed());
    assert_eq!(v.warnings[0].code, ErrorCode::ColumnNotFound);
}

/// Every plan shape the generator refuses, the validator refuses too, with a retryable
/// INVALID_PLAN_STRUCTURE that names the aliases, their tables and the foreign keys.
#[test]
fn the_validator_refuses_every_plan_the_generator_cannot_build() {
    let three = json!([{"name": "Artist", "alias": "t1"}, {"name": "Album", "alias": "t2"},
                       {"name": "Track", "alias": "t3"}]);
    let j = |l: &str, r: &str, lc: &str, rc: &str| json!({"left_alias": l, "right_alias": r, "condition": bin("=", c(l, lc), c(r, rc))});
    let shapes = [
        // A declared table never joined.
        json!({"tables": three, "joins": [j("t2", "t1", "ArtistId", "ArtistId")]}),
        // Several tables and no joins at all.
        json!({"tables": three}),
        // An island: t3 joins t2, but t2 never joins the FROM table t1.
        json!({"tables": [{"name": "Artist", "alias": "t1"}, {"name": "Album", "alias": "t2"},
                          {"name": "Track", "alias": "t3"}, {"name": "Album", "alias": "t4"}],
               "joins": [j("t3", "t4", "AlbumId", "AlbumId"), j("t1", "t2", "ArtistId", "ArtistId")]}),
        // The same pair joined twice.
        json!({"tables": three, "joins": [j("t2", "t1", "ArtistId", "ArtistId"),
                                          j("t3", "t2", "AlbumId", "AlbumId"),
                                          j("t2", "t1", "ArtistId", "ArtistId")]}),
    ];
    for shape in shapes {
        let mut p = shape.clone();
        p["select_items"] = json!([{"expr": c("t1", "Name")}]);
        let p = plan(p);
        let built = lower(&p, &schema(), Dialect::Sqlite, &Default::default());
        assert!(built.is_err(), "{shape}: the generator built it");
        let v = run(&p);
        assert_eq!(codes(&v), [ErrorCode::InvalidPlanStructure], "{shape}");
        assert!(v.errors[0].is_retryable());
        let m = &v.errors[0].message;
        assert!(m.contains("Plan tables: t1 = Artist, t2 = Album"), "{m}");
        assert!(
            m.contains("t2 (Album).ArtistId = t1 (Artist).ArtistId"),
            "{m}"
        );
    }
}

#[test]
fn every_accepted_test_plan_renders_in_every_dialect() {
    let p = plan(tracks_of_albums());
    assert!(run(&p).passed());
    for d in Dialect::ALL {
        let sql = lower(&p, &schema(), d, &Default::default())
            .unwrap_or_else(|e| panic!("{d}: {e}"))
            .to_string();
        let parsed = sqlparser::parser::Parser::parse_sql(crate::dialect::sql_dialect(d), &sql)
            .unwrap_or_else(|e| panic!("{d}: {sql}: {e}"));
        assert_eq!(parsed.len(), 1, "{d}: {sql}");
    }
}

#[test]
fn a_refusal_never_comes_with_the_refused_table_s_columns() {
    let p = plan(json!({
        "tables": [{"name": "Employee", "alias": "e"}],
        "select_items": [{"expr": c("e", "Salary")}]
    }));
    let v = run_as(&p, "viewer", &ValidatorSettings::default());
    assert_eq!(codes(&v), [ErrorCode::SecurityViolation]);
    assert!(!messages(&v).contains("LastName"), "{}", messages(&v));
    // A misspelt table is TABLE_NOT_FOUND for every role, and lists only readable tables.
    let p = plan(json!({
        "tables": [{"name": "Emploee", "alias": "e"}],
        "select_items": [{"expr": c("e", "LastName")}]
    }));
    let v = run_as(&p, "viewer", &ValidatorSettings::default());
    assert_eq!(codes(&v), [ErrorCode::TableNotFound]);
    assert!(v.errors[0].is_retryable());
    let m = messages(&v);
    assert!(
        m.contains("Track") && !m.contains("Employee") && !m.contains("Customer"),
        "{m}"
    );
}

#[test]
fn windows_must_be_well_formed() {
    let over = |frame: serde_json::Value, order: usize| {
        let order_by: Vec<serde_json::Value> = (0..order)
            .map(|_| json!({"expr": c("t", "Milliseconds")}))
            .collect();
        json!({"partition_by": [], "order_by": order_by, "frame": frame})
    };
    let bound = |kind: &str, offset: Option<u64>| match offset {
        Some(n) => json!({"kind": kind, "offset": n}),
        None => json!({"kind": kind}),
    };
    let cases = [
        (
            json!({"kind": "func", "func_name": "COUNT", "distinct": true, "args": [c("t", "Name")],
                   "over": {"order_by": [{"expr": c("t", "Name")}]}}),
            "cannot be a window function",
        ),
        (
            json!({"kind": "func", "func_name": "SUM", "args": [c("t", "Milliseconds")],
                   "over": over(json!({"unit": "rows", "start": bound("current_row", None),
                                       "end": bound("preceding", Some(2))}), 1)}),
            "ends before it starts",
        ),
        (
            json!({"kind": "func", "func_name": "SUM", "args": [c("t", "Milliseconds")],
                   "over": over(json!({"unit": "range", "start": bound("preceding", Some(2)),
                                       "end": bound("current_row", None)}), 2)}),
            "exactly one order_by term",
        ),
        (
            json!({"kind": "func", "func_name": "RANK", "args": [],
                   "over": {"order_by": [{"expr": {"kind": "func", "func_name": "ROW_NUMBER", "args": [],
                                                   "over": {"order_by": []}}}]}}),
            "contains another window function",
        ),
    ];
    for (e, needle) in cases {
        let p = plan(json!({"tables": [{"name": "Track", "alias": "t"}],
                            "select_items": [{"expr": e}]}));
        let v = run(&p);
        assert!(messages(&v).contains(needle), "{p}: {}", messages(&v));
    }
}

#[test]
fn a_cte_may_not_reuse_the_name_of_one_around_it() {
    let inner = json!({"with": [{"name": "x", "plan": {"tables": [{"name": "x", "alias": "y"}],
                                                        "select_items": [{"expr": c("y", "ArtistId")}]}}],
                       "tables": [{"name": "x", "alias": "z"}],
                       "select_items": [{"expr": c("z", "ArtistId")}]});
    let p = plan(json!({
        "with": [{"name": "x", "plan": {"tables": [{"name": "Artist", "alias": "a"}],
                                        "select_items": [{"expr": c("a", "ArtistId")}]}}],
        "tables": [{"name": "x", "alias": "w"}],
        "select_items": [{"expr": c("w", "ArtistId")}],
        "where": {"kind": "exists", "plan": inner}
    }));
    assert!(
        messages(&run(&p)).contains("reuses the name of a CTE"),
        "{}",
        messages(&run(&p))
    );
}

#[test]
fn set_operations_count_columns_not_items() {
    let p = plan(json!({
        "tables": [{"name": "Artist", "alias": "a"}],
        "select_items": [{"expr": c("a", "*")}],
        "set_operations": [{"op": "union", "plan": {
            "tables": [{"name": "Album", "alias": "b"}],
            "select_items": [{"expr": c("b", "Title")}]}}]
    }));
    let v = run(&p);
    assert!(
        messages(&v).contains("the first gives 2, another gives 1"),
        "{}",
        messages(&v)
    );
}

#[test]
fn result_names_are_checked_as_what_they_stand_for() {
    let rn = json!({"kind": "func", "func_name": "ROW_NUMBER", "args": [],
                    "over": {"order_by": [{"expr": c("t", "Milliseconds")}]}});
    let p = plan(json!({
        "tables": [{"name": "Track", "alias": "t"}],
        "select_items": [{"expr": c("t", "AlbumId")}, {"expr": rn, "alias": "rn"}],
        "group_by": [{"expr": c("t", "AlbumId")}],
        "having": bin("=", json!({"kind": "column", "column_name": "rn"}), lit(json!(1)))
    }));
    assert!(
        messages(&run(&p)).contains("window functions may only appear"),
        "{}",
        messages(&run(&p))
    );
    let p = plan(json!({
        "tables": [{"name": "Track", "alias": "t"}],
        "select_items": [{"expr": c("t", "AlbumId")},
                         {"expr": func("SUM", vec![c("t", "Milliseconds")]), "alias": "total"}],
        "group_by": [{"expr": c("t", "AlbumId")}],
        "order_by": [{"expr": func("MAX", vec![json!({"kind": "column", "column_name": "total"})])}]
    }));
    assert!(
        messages(&run(&p)).contains("inside another aggregate"),
        "{}",
        messages(&run(&p))
    );
}

#[test]
fn table_names_reach_into_ctes_set_operations_and_subqueries() {
    let s = schema();
    let sql = "WITH a AS (SELECT ArtistId FROM Album) \
               SELECT Name FROM Artist WHERE ArtistId IN (SELECT ArtistId FROM a) \
               UNION SELECT Title FROM Album";
    let p = crate::import::import_sql(sql, &s, s.dialect).unwrap_or_else(|e| panic!("{e:?}"));
    let names = p.table_names();
    assert_eq!(names, ["Artist", "Album", "Album", "a"]);
}

#[test]
fn a_declared_join_key_of_a_kind_that_never_converts_is_caught_before_running() {
    let policies = Policies::demo();
    let scope = policies.scope(&["admin".to_string()]);
    let hires = plan(json!({
        "tables": [{"name": "Employee", "alias": "e"}],
        "select_items": [{"expr": c("e", "HireDate"), "alias": "employee_id"},
                         {"expr": c("e", "LastName")},
                         {"expr": func("COUNT", vec![c("e", "EmployeeId")]), "alias": "n"}],
        "group_by": [{"expr": c("e", "HireDate")}, {"expr": c("e", "LastName")}]
    }));
    let key = |position, category| DeclaredKey {
        name: "employee_id",
        position,
        category,
    };
    let settings = ValidatorSettings::default();
    let check = |k| validate_part(Some(&hires), &schema(), &scope, &settings, Some(k));
    let v = check(key(0, TypeCategory::Number));
    assert_eq!(codes(&v), [ErrorCode::JoinKeyTypeMismatch]);
    assert!(v.errors[0].is_retryable());
    assert_eq!(
        v.errors[0].message,
        "The join key employee_id is declared a number, but e.HireDate is a date. Select a \
         column that holds a number for this key."
    );
    assert!(!v.checks[1].passed);
    // Text and dates convert, a date declared a date fits, and a computed column has no
    // stored type to hold against the declaration.
    assert!(check(key(0, TypeCategory::Text)).passed());
    assert!(check(key(0, TypeCategory::Temporal)).passed());
    assert!(check(key(2, TypeCategory::Temporal)).passed());
    assert!(check(key(7, TypeCategory::Number)).passed());
}

/// The deepest plans the JSON parser admits validate and render on a test thread's stack
/// (2 MiB, debug build): every kind of nesting, 40 levels.
#[test]
fn the_deepest_admitted_plans_validate_and_render() {
    let nest = |wrap: &dyn Fn(Json) -> Json| {
        let mut e = c("i", "Total");
        for _ in 1..40 {
            e = wrap(e);
        }
        e
    };
    let shapes: Vec<Json> = vec![
        nest(&|e| func("ABS", vec![e])),
        nest(&|e| bin("+", e, lit(json!(1)))),
        nest(&|e| json!({"kind": "unary", "op": "-", "expr": e})),
        nest(&|e| json!({"kind": "cast", "expr": e, "to": "real"})),
        nest(&|e| func("DATE_PART", vec![lit(json!("year")), e])),
    ];
    let mut plans: Vec<Json> = shapes
        .into_iter()
        .map(|e| invoices(vec![e], json!({})))
        .collect();
    // Sub-plans nest two path levels each (`where.plan`), so 19 of them.
    let mut deep = invoices(vec![c("i", "Total")], json!({}));
    for _ in 0..19 {
        deep = invoices(
            vec![c("i", "Total")],
            json!({"where": {"kind": "exists", "plan": deep}}),
        );
    }
    plans.push(deep);
    let policies = Policies::demo();
    let scope = policies.scope(&[]);
    for p in plans {
        let plan: Plan = Plan::from_json(&p.to_string()).expect("admitted");
        let v = validate(Some(&plan), &schema(), &scope, &Default::default());
        assert!(v.passed(), "{:?}", v.errors);
        for d in Dialect::ALL {
            to_sql(&plan, &schema(), d, &LowerOptions::default()).expect("renders");
        }
    }
}

/// A chain of managers from employee 1 down, as a recursive CTE; `member` is the part that
/// reads `chain`.
fn managers(member: Json) -> Json {
    json!({"with": [{"name": "chain", "recursive": true, "plan": {
               "tables": [{"name": "Employee", "alias": "e"}],
               "select_items": [{"expr": c("e", "EmployeeId")}, {"expr": lit(json!(0)), "alias": "depth"}],
               "where": bin("=", c("e", "EmployeeId"), lit(json!(1))),
               "set_operations": [{"op": "union_all", "plan": member}]}}],
           "tables": [{"name": "chain", "alias": "k"}],
           "select_items": [{"expr": c("k", "EmployeeId")}, {"expr": c("k", "depth")}]})
}

fn next_level(select: Vec<Json>) -> Json {
    json!({"tables": [{"name": "Employee", "alias": "e"}, {"name": "chain", "alias": "c"}],
           "joins": [{"left_alias": "c", "right_alias": "e",
                      "condition": bin("=", c("e", "ReportsTo"), c("c", "EmployeeId"))}],
           "select_items": select.into_iter().map(|e| json!({"expr": e})).collect::<Vec<_>>()})
}

#[test]
fn a_recursive_cte_reads_its_own_first_columns_in_its_last_member() {
    let good = managers(next_level(vec![
        c("e", "EmployeeId"),
        bin("+", c("c", "depth"), lit(json!(1))),
    ]));
    let v = run(&plan(good.clone()));
    assert!(v.passed(), "{}", messages(&v));

    // Without `recursive`, the CTE cannot see itself.
    let mut plain = good;
    plain["with"][0]["recursive"] = json!(false);
    let v = run(&plan(plain));
    assert!(codes(&v).contains(&ErrorCode::TableNotFound), "{v:?}");

    // A column the first part does not give is unknown to the member.
    let v = run(&plan(managers(next_level(vec![
        c("e", "EmployeeId"),
        c("c", "height"),
    ]))));
    assert!(codes(&v).contains(&ErrorCode::ColumnNotFound), "{v:?}");
}

#[test]
fn a_recursive_cte_of_another_shape_is_refused_with_its_reason() {
    let refused = |p: Json, words: &str| {
        let v = run(&plan(p));
        assert!(!v.passed(), "accepted: {words}");
        assert!(messages(&v).contains(words), "{words}: {}", messages(&v));
    };
    let aggregating = managers(next_level(vec![
        func("MAX", vec![c("e", "EmployeeId")]),
        lit(json!(1)),
    ]));
    refused(aggregating, "may not aggregate");

    let mut no_member = managers(next_level(vec![c("e", "EmployeeId"), lit(json!(1))]));
    no_member["with"][0]["plan"]["set_operations"] = json!([]);
    refused(no_member, "needs a first part");

    let mut first_reads = managers(next_level(vec![c("e", "EmployeeId"), lit(json!(1))]));
    first_reads["with"][0]["plan"]["tables"][0]["name"] = json!("chain");
    refused(first_reads, "Only the last set_operations member");

    let mut twice = next_level(vec![c("e", "EmployeeId"), lit(json!(1))]);
    twice["tables"][0]["name"] = json!("chain");
    refused(managers(twice), "exactly once");

    let mut outer = next_level(vec![c("e", "EmployeeId"), lit(json!(1))]);
    outer["joins"][0]["join_type"] = json!("left");
    refused(managers(outer), "inner joins only");

    let mut intersect = managers(next_level(vec![c("e", "EmployeeId"), lit(json!(1))]));
    intersect["with"][0]["plan"]["set_operations"][0]["op"] = json!("intersect");
    refused(intersect, "union_all (or union) only");
}
