//! `nl2sql plan` and `nl2sql sql`: a plan (or SQL imported as one) through the validator,
//! the generator and the database, reported as text or as one JSON object.

use crate::{source_failure, DbArgs, Failure};
use clap::ValueEnum;
use nl2sql_core::adapter::Dialect;
use nl2sql_core::config::LowerOptions;
use nl2sql_core::config::{JoinRule, ValidatorSettings, QUERY_TIMEOUT_MS};
use nl2sql_core::result::Value;
use nl2sql_core::service::{sql_mode, SqlQuery, SqlRun, SqlStatus, Statement};
use std::io::Read;
use std::path::{Path, PathBuf};

/// `nl2sql plan`'s command line.
#[derive(clap::Args)]
pub struct PlanArgs {
    /// The plan JSON file, or - for standard input
    #[arg(value_name = "FILE")]
    file: PathBuf,
    #[command(flatten)]
    options: Args,
}

/// `nl2sql sql`'s command line.
#[derive(clap::Args)]
pub struct SqlArgs {
    /// One SQL query, in quotes
    #[arg(value_name = "SQL")]
    sql: String,
    #[command(flatten)]
    options: Args,
}

/// The options `plan` and `sql` share.
#[derive(clap::Args)]
pub struct Args {
    /// The demo database to check against and run on: chinook (default), support or
    /// webanalytics
    #[arg(long, value_name = "ID")]
    datasource: Option<String>,
    /// The caller's role [default: the policy's default role, admin]
    #[arg(long, value_name = "ROLE")]
    role: Option<String>,
    /// Print one JSON object: status, sql, plan, checks, errors, warnings, columns, rows,
    /// row_count
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    dbs: DbArgs,
    /// Render for this dialect; one other than the datasource's is rendered, not run
    /// [default: the datasource's]
    #[arg(long, value_enum)]
    dialect: Option<DialectName>,
    /// The day CURRENT_DATE means [default: the database's own date]
    #[arg(long, value_name = "YYYY-MM-DD", value_parser = iso_day)]
    today: Option<String>,
    /// Whether joins need a declared foreign key
    #[arg(long, value_enum, default_value_t = Joins::Typed)]
    joins: Joins,
    /// The most rows a result may have
    #[arg(long, value_name = "N", value_parser = positive,
          default_value_t = LowerOptions::default().row_cap)]
    row_cap: u64,
    /// Unknown columns are warnings, not errors
    #[arg(long)]
    lenient_columns: bool,
    /// Stop the query if it runs longer than this many milliseconds (QUERY_TIMEOUT)
    #[arg(long, value_name = "MS", value_parser = positive, default_value_t = QUERY_TIMEOUT_MS)]
    timeout_ms: u64,
}

/// The dialects `--dialect` takes: `Dialect` cannot derive clap's trait (the core crate
/// does not depend on clap), so this mirrors it; a test keeps the names equal.
#[derive(Clone, Copy, ValueEnum)]
enum DialectName {
    Sqlite,
    Postgres,
    Mysql,
    Duckdb,
    Sqlserver,
    /// Spark SQL, which Databricks SQL also reads
    Spark,
}

impl From<DialectName> for Dialect {
    fn from(name: DialectName) -> Dialect {
        match name {
            DialectName::Sqlite => Dialect::Sqlite,
            DialectName::Postgres => Dialect::Postgres,
            DialectName::Mysql => Dialect::MySql,
            DialectName::Duckdb => Dialect::DuckDb,
            DialectName::Sqlserver => Dialect::SqlServer,
            DialectName::Spark => Dialect::Spark,
        }
    }
}

/// `--joins`, mirroring `JoinRule` with the names the command line has always used.
#[derive(Clone, Copy, ValueEnum)]
enum Joins {
    /// Declared foreign keys, and equalities between columns of the same kind (with an
    /// UNDECLARED_JOIN warning)
    Typed,
    /// Declared foreign keys only
    #[value(name = "fk_only")]
    FkOnly,
}

impl From<Joins> for JoinRule {
    fn from(joins: Joins) -> JoinRule {
        match joins {
            Joins::Typed => JoinRule::Typed,
            Joins::FkOnly => JoinRule::FkOnly,
        }
    }
}

/// `--today`'s value parser: the shape `YYYY-MM-DD` (the database judges the date itself).
fn iso_day(text: &str) -> Result<String, String> {
    let b = text.as_bytes();
    let shaped = b.len() == 10
        && b.iter().enumerate().all(|(i, c)| match i {
            4 | 7 => *c == b'-',
            _ => c.is_ascii_digit(),
        });
    if shaped {
        Ok(text.to_string())
    } else {
        Err("not YYYY-MM-DD".into())
    }
}

/// `--row-cap`'s and `--timeout-ms`'s value parser: 0 would refuse every result.
pub(crate) fn positive(text: &str) -> Result<u64, String> {
    match text.parse::<u64>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err("not a positive whole number".into()),
    }
}

impl Args {
    fn settings(&self) -> ValidatorSettings {
        ValidatorSettings {
            strict_columns: !self.lenient_columns,
            joins: self.joins.into(),
            lower: LowerOptions {
                row_cap: self.row_cap,
                today: self.today.clone(),
            },
            query_timeout_ms: Some(self.timeout_ms),
        }
    }
}

/// Runs `nl2sql plan`.
pub fn plan_command(args: &PlanArgs) -> Result<(), Failure> {
    let text = read_plan(&args.file)?;
    run(&args.options, Statement::Plan(text))
}

/// Runs `nl2sql sql`.
pub fn sql_command(args: &SqlArgs) -> Result<(), Failure> {
    run(&args.options, Statement::Sql(args.sql.clone()))
}

/// The plan file's text; `-` is standard input. Unreadable is a usage error: the command
/// line named the file.
fn read_plan(file: &Path) -> Result<String, Failure> {
    if file == Path::new("-") {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .map_err(|e| Failure::Usage(format!("reading standard input: {e}")))?;
        return Ok(text);
    }
    std::fs::read_to_string(file)
        .map_err(|e| Failure::Usage(format!("reading {}: {e}", file.display())))
}

/// SQL mode through the engine's facade on the one datasource named (or the only one):
/// checked for the role, then run (or rendered for another dialect), and the report
/// printed: SQL mode's one contract, [`SqlRun`].
fn run(o: &Args, statement: Statement) -> Result<(), Failure> {
    let sources = o.dbs.sources()?;
    let (db, schema, cache) = sources
        .schema(o.datasource.as_deref())
        .map_err(source_failure)?;
    crate::say_cache_problems(&cache);
    let settings = o.settings();
    let query = SqlQuery {
        statement,
        datasource: Some(db.id().to_string()),
        roles: o.role.iter().cloned().collect(),
        dialect: o.dialect.map(Dialect::from),
    };
    let report = pollster::block_on(sql_mode(
        &*db,
        &schema,
        &sources.policies(),
        &query,
        &settings,
    ));
    if o.json {
        let text =
            serde_json::to_string_pretty(&report).map_err(|e| Failure::Runtime(e.to_string()))?;
        println!("{text}");
    } else {
        print(&report, &settings.lower);
    }
    Ok(())
}

fn print(report: &SqlRun, lower: &LowerOptions) {
    if let Some(plan) = &report.plan {
        println!("plan: {plan}");
    }
    if let Some(sql) = &report.sql {
        println!("sql:  {sql}");
    }
    for c in &report.checks {
        let mark = if c.passed { "ok  " } else { "FAIL" };
        let message = if c.message.is_empty() {
            String::new()
        } else {
            format!(": {}", c.message.replace('\n', " "))
        };
        println!("check {mark} {}{message}", c.name.as_str());
    }
    for e in &report.errors {
        println!(
            "error {} ({:?}, {}): {}",
            e.error_code, e.severity, e.node, e.message
        );
    }
    for w in &report.warnings {
        println!("warning {}: {}", w.code, w.message);
    }
    if report.status == SqlStatus::Ok && report.sql.is_some() && !report.columns.is_empty() {
        print_table(&report.columns, &report.rows);
        let capped = if report.rows.len() as u64 >= lower.row_cap {
            " (the row cap)"
        } else {
            ""
        };
        let noun = if report.rows.len() == 1 {
            "row"
        } else {
            "rows"
        };
        println!("({} {noun}{capped})", report.rows.len());
    }
}

/// At most this many rows are printed as text; `--json` gives them all.
const PRINTED_ROWS: usize = 100;

fn print_table(columns: &[String], rows: &[Vec<Value>]) {
    let cell = |v: &Value| match v {
        Value::Null => "NULL".to_string(),
        Value::Integer(i) => i.to_string(),
        Value::Real(x) => x.to_string(),
        Value::Text(t) => t.replace(['\n', '\t'], " "),
        Value::Blob(b) => format!("<{} bytes>", b.len()),
    };
    let shown: Vec<Vec<String>> = rows
        .iter()
        .take(PRINTED_ROWS)
        .map(|r| r.iter().map(cell).collect())
        .collect();
    let width = |i: usize| {
        shown
            .iter()
            .filter_map(|r| r.get(i))
            .map(|c| c.chars().count())
            .chain([columns[i].chars().count()])
            .max()
            .unwrap_or(0)
            .min(40)
    };
    let widths: Vec<usize> = (0..columns.len()).map(width).collect();
    let line = |cells: &[String]| {
        let parts: Vec<String> = cells
            .iter()
            .zip(&widths)
            .map(|(c, w)| {
                let c: String = c.chars().take(*w).collect();
                format!("{c:<w$}")
            })
            .collect();
        println!("{}", parts.join("  ").trim_end());
    };
    line(columns);
    for r in &shown {
        line(r);
    }
    if rows.len() > PRINTED_ROWS {
        println!(
            "… {} more rows (use --json for all)",
            rows.len() - PRINTED_ROWS
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_dialect_has_its_own_name_on_the_command_line() {
        for dialect in Dialect::ALL {
            let name = DialectName::from_str(&dialect.to_string(), false)
                .unwrap_or_else(|e| panic!("{dialect}: {e}"));
            assert_eq!(Dialect::from(name), dialect);
        }
        assert_eq!(DialectName::value_variants().len(), Dialect::ALL.len());
    }

    #[test]
    fn values_are_checked_as_they_are_read() {
        assert_eq!(iso_day("2026-11-30"), Ok("2026-11-30".into()));
        assert!(iso_day("30/11/2026").is_err());
        assert_eq!(positive("5"), Ok(5));
        assert!(positive("0").is_err() && positive("-3").is_err() && positive("x").is_err());
    }
}
