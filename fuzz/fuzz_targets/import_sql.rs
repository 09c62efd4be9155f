//! Any text as SQL to import: never panics; whatever imports is validated and, if accepted,
//! renders SQL that is again exactly one read-only query.
#![no_main]

use libfuzzer_sys::fuzz_target;
use nl2sql_core::import::import_sql;
use nl2sql_core::lower::to_sql;
use nl2sql_plan::dialect::sql_dialect;
use nl2sql_core::policy::Policies;
use nl2sql_core::validate::{validate, ValidatorSettings};
use nl2sql_core::Dialect;

mod schema;

fuzz_target!(|data: &[u8]| {
    let Ok(sql) = std::str::from_utf8(data) else {
        return;
    };
    let schema = schema::schema();
    let Ok(plan) = import_sql(sql, &schema, Dialect::Sqlite) else {
        return;
    };
    let policies = Policies::demo();
    let settings = ValidatorSettings::default();
    if !validate(Some(&plan), &schema, &policies.scope(&[]), &settings).passed() {
        return;
    }
    let rendered = to_sql(&plan, &schema, Dialect::Sqlite, &settings.lower)
        .expect("an accepted plan renders");
    if let Err(e) = nl2sql_core::guard::parse_read_only(&rendered, sql_dialect(Dialect::Sqlite)) {
        panic!("{e}: {rendered}");
    }
});
