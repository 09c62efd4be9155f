//! Any bytes as plan JSON: parsing, validating and lowering never panic, and a plan the
//! validator accepts always renders SQL that re-parses as exactly one query.
#![no_main]

use libfuzzer_sys::fuzz_target;
use nl2sql_core::lower::to_sql;
use nl2sql_plan::dialect::sql_dialect;
use nl2sql_core::plan::Plan;
use nl2sql_core::policy::Policies;
use nl2sql_core::validate::{validate, ValidatorSettings};
use nl2sql_core::Dialect;

mod schema;

fuzz_target!(|data: &[u8]| {
    let Ok(plan) = serde_json::from_slice::<Plan>(data) else {
        return;
    };
    let schema = schema::schema();
    let policies = Policies::demo();
    let scope = policies.scope(&[]);
    let settings = ValidatorSettings::default();
    let accepted = validate(Some(&plan), &schema, &scope, &settings).passed();
    for dialect in Dialect::ALL {
        let sql = to_sql(&plan, &schema, dialect, &settings.lower);
        if accepted {
            let sql = sql.expect("an accepted plan renders");
            let statements = sqlparser_parse(dialect, &sql);
            assert_eq!(statements, 1, "{dialect}: {sql}");
        }
    }
});

fn sqlparser_parse(dialect: Dialect, sql: &str) -> usize {
    nl2sql_core::guard::parse_read_only(sql, sql_dialect(dialect))
        .map(|_| 1)
        .unwrap_or_else(|e| panic!("{dialect}: {e}: {sql}"))
}
