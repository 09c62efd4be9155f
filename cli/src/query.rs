//! `nl2sql plan` and `nl2sql sql`: a plan (or SQL imported as one) through the validator,
//! the generator and the database, reported as text or as one JSON object.

use crate::{demo_path, Failure};
use nl2sql_core::error::{ErrorCode, Node, PipelineError, RunWarning, Severity};
use nl2sql_core::import::import_sql;
use nl2sql_core::lower::{to_sql, LowerOptions};
use nl2sql_core::plan::Plan;
use nl2sql_core::policy::Policies;
use nl2sql_core::run::{run_plan, PlanRun};
use nl2sql_core::validate::{JoinRule, Validation, ValidationCheck, ValidatorSettings};
use nl2sql_core::{Datasource, Dialect, Value};
use nl2sql_native::SqliteFile;
use serde::Serialize;
use std::io::Read;
use std::path::PathBuf;

/// What the command reads the plan from.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Input {
    /// A plan JSON file, or `-` for standard input.
    PlanFile,
    /// A SQL query given on the command line.
    Sql,
}

struct Options {
    datasource: String,
    role: Option<String>,
    json: bool,
    data: PathBuf,
    dialect: Option<Dialect>,
    settings: ValidatorSettings,
    input: String,
}

fn parse(args: &[String], input: Input) -> Result<Options, Failure> {
    let mut o = Options {
        datasource: "chinook".to_string(),
        role: None,
        json: false,
        data: PathBuf::from("data"),
        dialect: None,
        settings: ValidatorSettings::default(),
        input: String::new(),
    };
    let mut positional = Vec::new();
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let mut value = |what: &str| {
            it.next()
                .cloned()
                .ok_or_else(|| Failure::Usage(format!("{arg} needs {what}")))
        };
        match arg.as_str() {
            "--datasource" => o.datasource = value("an id")?,
            "--role" => o.role = Some(value("a role")?),
            "--json" => o.json = true,
            "--data" => o.data = value("a folder")?.into(),
            "--today" => {
                let day = value("a date (YYYY-MM-DD)")?;
                if !is_iso_day(&day) {
                    return Err(Failure::Usage(format!("--today {day:?} is not YYYY-MM-DD")));
                }
                o.settings.lower.today = Some(day);
            }
            "--joins" => {
                o.settings.joins = match value("typed or fk_only")?.as_str() {
                    "typed" => JoinRule::Typed,
                    "fk_only" => JoinRule::FkOnly,
                    other => {
                        return Err(Failure::Usage(format!(
                            "--joins {other:?}: typed or fk_only"
                        )))
                    }
                }
            }
            "--row-cap" => {
                let text = value("a number")?;
                o.settings.lower.row_cap =
                    text.parse::<u64>().ok().filter(|n| *n > 0).ok_or_else(|| {
                        Failure::Usage(format!("--row-cap {text:?} is not a positive number"))
                    })?;
            }
            "--lenient-columns" => o.settings.strict_columns = false,
            "--dialect" => {
                let name = value("a dialect")?;
                o.dialect = Some(
                    Dialect::ALL
                        .into_iter()
                        .find(|d| d.to_string() == name)
                        .ok_or_else(|| {
                            let all: Vec<String> =
                                Dialect::ALL.iter().map(|d| d.to_string()).collect();
                            Failure::Usage(format!("--dialect {name:?}: one of {}", all.join(", ")))
                        })?,
                );
            }
            "-" => positional.push(arg.clone()),
            other if other.starts_with("--") => {
                return Err(Failure::Usage(format!("unknown option {other:?}")))
            }
            _ => positional.push(arg.clone()),
        }
    }
    let what = match input {
        Input::PlanFile => "a plan file (or - for standard input)",
        Input::Sql => "one SQL query",
    };
    o.input = match positional.as_slice() {
        [one] => one.clone(),
        [] => return Err(Failure::Usage(format!("give {what}"))),
        _ => return Err(Failure::Usage(format!("give exactly {what}, in quotes"))),
    };
    Ok(o)
}

fn is_iso_day(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 10
        && b.iter().enumerate().all(|(i, c)| match i {
            4 | 7 => *c == b'-',
            _ => c.is_ascii_digit(),
        })
}

/// Runs `nl2sql plan` or `nl2sql sql`.
pub fn run(args: &[String], input: Input) -> Result<(), Failure> {
    let o = parse(args, input)?;
    let plan_text = match input {
        Input::PlanFile if o.input == "-" => {
            let mut text = String::new();
            std::io::stdin()
                .read_to_string(&mut text)
                .map_err(|e| Failure::Usage(format!("reading standard input: {e}")))?;
            Some(text)
        }
        Input::PlanFile => Some(
            std::fs::read_to_string(&o.input)
                .map_err(|e| Failure::Usage(format!("reading {}: {e}", o.input)))?,
        ),
        Input::Sql => None,
    };
    let (id, path) = demo_path(&o.datasource, &o.data)?;
    let runtime = |e: nl2sql_core::DatasourceError| Failure::Runtime(e.to_string());
    let db = SqliteFile::open(id, &path).map_err(runtime)?;
    let schema = pollster::block_on(db.introspect()).map_err(runtime)?;
    let policies = Policies::demo();
    let roles: Vec<String> = o.role.iter().cloned().collect();
    let scope = policies.scope(&roles);

    let plan: Result<Plan, PipelineError> = match &plan_text {
        Some(text) => serde_json::from_str::<Plan>(text).map_err(|e| {
            PipelineError::new(
                Node::LogicalValidator,
                ErrorCode::InvalidPlanStructure,
                Severity::Error,
                format!("The plan is not valid plan JSON: {e}"),
            )
        }),
        None => import_sql(&o.input, &schema, schema.dialect),
    };
    let report = match plan {
        Err(e) => Report::failed(None, e),
        Ok(plan) => match o.dialect.filter(|d| *d != schema.dialect) {
            // Another dialect: validate against this schema, render, do not execute.
            Some(dialect) => {
                let validation =
                    nl2sql_core::validate::validate(Some(&plan), &schema, &scope, &o.settings);
                let rendered = validation
                    .passed()
                    .then(|| to_sql(&plan, &schema, dialect, &o.settings.lower));
                let mut report = Report::rendered(plan, validation);
                match rendered {
                    Some(Ok(sql)) => report.sql = Some(sql),
                    // Valid for the datasource, but not expressible in that dialect.
                    Some(Err(e)) => report.errors.push(PipelineError::new(
                        Node::Generator,
                        ErrorCode::InvalidPlanStructure,
                        Severity::Error,
                        format!("Cannot render for {dialect}: {e}"),
                    )),
                    None => {}
                }
                report
            }
            None => {
                let run = pollster::block_on(run_plan(&plan, &db, &schema, &scope, &o.settings));
                Report::ran(plan, run)
            }
        },
    };
    if o.json {
        let text = serde_json::to_string_pretty(&report.to_json())
            .map_err(|e| Failure::Runtime(e.to_string()))?;
        println!("{text}");
    } else {
        report.print(&o.settings.lower);
    }
    Ok(())
}

/// The `--json` output, fields in the documented order.
#[derive(Serialize)]
struct JsonReport<'a> {
    status: &'static str,
    sql: Option<&'a str>,
    plan: Option<&'a Plan>,
    checks: &'a [ValidationCheck],
    errors: Vec<JsonError>,
    warnings: Vec<JsonWarning<'a>>,
    columns: &'a [String],
    rows: &'a [Vec<Value>],
    row_count: usize,
}

#[derive(Serialize)]
struct JsonError {
    code: ErrorCode,
    severity: Severity,
    message: String,
    node: Node,
}

#[derive(Serialize)]
struct JsonWarning<'a> {
    code: ErrorCode,
    message: &'a str,
}

struct Report {
    plan: Option<Plan>,
    sql: Option<String>,
    validation: Validation,
    errors: Vec<PipelineError>,
    warnings: Vec<RunWarning>,
    columns: Vec<String>,
    rows: Vec<Vec<Value>>,
}

impl Report {
    fn failed(plan: Option<Plan>, e: PipelineError) -> Report {
        Report {
            plan,
            sql: None,
            validation: Validation::default(),
            errors: vec![e],
            warnings: vec![],
            columns: vec![],
            rows: vec![],
        }
    }

    fn rendered(plan: Plan, validation: Validation) -> Report {
        Report {
            plan: Some(plan),
            sql: None,
            errors: validation.errors.clone(),
            warnings: validation.warnings.clone(),
            validation,
            columns: vec![],
            rows: vec![],
        }
    }

    fn ran(plan: Plan, run: PlanRun) -> Report {
        let (columns, rows) = run.frame.map(|f| (f.columns, f.rows)).unwrap_or_default();
        Report {
            plan: Some(plan),
            sql: run.sql,
            validation: run.validation,
            errors: run.errors,
            warnings: run.warnings,
            columns,
            rows,
        }
    }

    fn ok(&self) -> bool {
        !self.errors.iter().any(|e| e.severity.is_blocking())
    }

    fn to_json(&self) -> JsonReport<'_> {
        JsonReport {
            status: if self.ok() { "ok" } else { "error" },
            sql: self.sql.as_deref(),
            plan: self.plan.as_ref(),
            checks: &self.validation.checks,
            errors: self
                .errors
                .iter()
                .map(|e| {
                    let e = e.for_client();
                    JsonError {
                        code: e.error_code,
                        severity: e.severity,
                        message: e.message,
                        node: e.node,
                    }
                })
                .collect(),
            warnings: self
                .warnings
                .iter()
                .map(|w| JsonWarning {
                    code: w.code,
                    message: &w.message,
                })
                .collect(),
            columns: &self.columns,
            rows: &self.rows,
            row_count: self.rows.len(),
        }
    }

    fn print(&self, lower: &LowerOptions) {
        if let Some(plan) = &self.plan {
            println!("plan: {plan}");
        }
        if let Some(sql) = &self.sql {
            println!("sql:  {sql}");
        }
        for c in &self.validation.checks {
            let mark = if c.passed { "ok  " } else { "FAIL" };
            let message = if c.message.is_empty() {
                String::new()
            } else {
                format!(": {}", c.message.replace('\n', " "))
            };
            println!("check {mark} {}{message}", c.name);
        }
        for e in &self.errors {
            let e = e.for_client();
            println!(
                "error {} ({:?}, {}): {}",
                e.error_code, e.severity, e.node, e.message
            );
        }
        for w in &self.warnings {
            println!("warning {}: {}", w.code, w.message);
        }
        if self.ok() && self.sql.is_some() && !self.columns.is_empty() {
            print_table(&self.columns, &self.rows);
            let capped = if self.rows.len() as u64 >= lower.row_cap {
                " (the row cap)"
            } else {
                ""
            };
            let noun = if self.rows.len() == 1 { "row" } else { "rows" };
            println!("({} {noun}{capped})", self.rows.len());
        }
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
