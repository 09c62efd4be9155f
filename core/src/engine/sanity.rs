//! Sanity checks on a result that ran: an empty result whose filter names a value its
//! column does not hold (VALUE_NOT_FOUND, with the closest values it does hold), an
//! aggregate over rows a join repeats (JOIN_FAN_OUT, confirmed by a probe), and a result
//! column that is NULL in every row (ALL_NULL_COLUMN).

use crate::datasource::{Datasource, ExecLimits};
use crate::index::ValueIndex;
use crate::lower::to_sql;
use crate::plan::{BinaryOp, Expr, FuncCall, Literal, Plan, SelectItem, TableRef};
use crate::schema::SchemaSnapshot;
use crate::validate::ValidatorSettings;
use crate::value::Value;

/// A filter value its column does not hold.
#[derive(Debug, Clone, PartialEq)]
pub struct Missing {
    /// The table.
    pub table: String,
    /// The column.
    pub column: String,
    /// The value the plan looked for.
    pub value: String,
    /// The column's values closest to it, best first.
    pub closest: Vec<String>,
}

impl Missing {
    /// One sentence for the planner and the person.
    pub fn sentence(&self) -> String {
        let quoted = |v: &str| format!("'{}'", v.replace('\'', "''"));
        if self.closest.is_empty() {
            format!(
                "No {}.{} is {}, and none is close to it.",
                self.table,
                self.column,
                quoted(&self.value)
            )
        } else {
            format!(
                "No {}.{} is {}; the closest values it holds are {}.",
                self.table,
                self.column,
                quoted(&self.value),
                self.closest
                    .iter()
                    .map(|v| quoted(v))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        }
    }
}

/// One row, under the queries' time limit: a probe must never outlast the query it checks.
fn probe_limits(settings: &ValidatorSettings) -> ExecLimits {
    ExecLimits {
        max_rows: 1,
        ..crate::datasource::ExecLimits::for_plan(settings)
    }
}

/// The most literals looked up per result: a long `IN` list is not a name the person typed.
const MOST_LITERALS: usize = 5;

/// The text values the plan's top-level filter compares a column with (`=`, `IN`, `LIKE`
/// without wildcards), whose column holds none of them.
pub async fn missing_values(
    plan: &Plan,
    schema: &SchemaSnapshot,
    db: &dyn Datasource,
    values: &ValueIndex,
    settings: &ValidatorSettings,
) -> Vec<Missing> {
    let mut found = Vec::new();
    if let Some(filter) = &plan.filter {
        comparisons(filter, &mut found);
    }
    let mut out = Vec::new();
    for (alias, column, value) in found.into_iter().take(MOST_LITERALS) {
        let Some(table) = table_of(plan, schema, alias.as_deref(), &column) else {
            continue;
        };
        // Written as a plan and rendered like any other, so the probe is in the
        // datasource's own dialect (quoting, string escapes).
        let probe = Plan {
            tables: vec![TableRef {
                name: table.clone(),
                schema_name: None,
                database: None,
                alias: "t".into(),
            }],
            select_items: vec![SelectItem {
                expr: Expr::Literal(Literal::Integer(1)),
                alias: Some("found".into()),
            }],
            filter: Some(Expr::Binary {
                op: BinaryOp::Eq,
                left: Box::new(Expr::Column {
                    alias: Some("t".into()),
                    column: column.clone(),
                }),
                right: Box::new(Expr::Literal(Literal::Text(value.clone()))),
            }),
            limit: Some(1),
            ..Plan::default()
        };
        // A probe that cannot be rendered or run proves nothing either way.
        let Ok(sql) = to_sql(&probe, schema, db.dialect(), &settings.lower) else {
            continue;
        };
        let Ok(frame) = db.execute(&sql, probe_limits(settings)).await else {
            continue;
        };
        if frame.rows.is_empty() {
            let closest = values.closest(&schema.datasource_id, &table, &column, &value, 3);
            out.push(Missing {
                table,
                column,
                value,
                closest,
            });
        }
    }
    out
}

/// An aggregate that reads a table's rows more than once, because a join repeats them.
#[derive(Debug, Clone, PartialEq)]
pub struct FanOut {
    /// The table whose rows repeat.
    pub table: String,
    /// The aggregate, as the plan writes it (`SUM(i.Total)`).
    pub aggregate: String,
    /// The tables joined to it.
    pub repeated_by: Vec<String>,
    /// True for COUNT (a retry asks for distinct); false for SUM and AVG.
    pub counts: bool,
}

impl FanOut {
    /// One sentence for the planner (`retry`) or the person.
    pub fn sentence(&self, retry: bool) -> String {
        let base = format!(
            "{} reads rows of {} that the join with {} repeats, so it counts some of them more than once",
            self.aggregate,
            self.table,
            self.repeated_by.join(", ")
        );
        if retry {
            format!(
                "{base}; count distinct keys, or aggregate {} before joining.",
                self.table
            )
        } else {
            format!("{base}; the total may be too large.")
        }
    }
}

/// COUNT, SUM and AVG over one column (not DISTINCT) of a table with a one-column primary
/// key, in a plan with joins, whose rows the joins repeat: a probe groups the plan's rows by
/// its groups and that key and looks for a group of more than one.
pub async fn fan_outs(
    plan: &Plan,
    schema: &SchemaSnapshot,
    db: &dyn Datasource,
    settings: &ValidatorSettings,
) -> Vec<FanOut> {
    if plan.joins.is_empty() || !plan.set_operations.is_empty() || !plan.ctes.is_empty() {
        return Vec::new();
    }
    let mut out: Vec<FanOut> = Vec::new();
    for item in &plan.select_items {
        let Expr::Func(f) = &item.expr else { continue };
        let name = f.name.to_ascii_uppercase();
        let counts = name == "COUNT";
        if !(counts || name == "SUM" || name == "AVG") || f.distinct || f.over.is_some() {
            continue;
        }
        let [Expr::Column {
            alias: Some(alias),
            column,
        }] = f.args.as_slice()
        else {
            continue;
        };
        if column == "*" {
            continue;
        }
        let Some(table_ref) = plan
            .tables
            .iter()
            .find(|t| t.alias.eq_ignore_ascii_case(alias))
        else {
            continue;
        };
        let Some(table) = schema.table(&table_ref.name) else {
            continue;
        };
        let keys: Vec<&str> = table
            .columns
            .iter()
            .filter(|c| c.primary_key_position.is_some())
            .map(|c| c.name.as_str())
            .collect();
        let [pk] = keys.as_slice() else { continue };
        let key = Expr::Column {
            alias: Some(table_ref.alias.clone()),
            column: pk.to_string(),
        };
        let not_null = Expr::Binary {
            op: BinaryOp::IsNot,
            left: Box::new(key.clone()),
            right: Box::new(Expr::Literal(Literal::Null)),
        };
        let count_all = Expr::Func(FuncCall {
            name: "COUNT".into(),
            args: vec![Expr::Column {
                alias: None,
                column: "*".into(),
            }],
            distinct: false,
            filter: None,
            order_by: vec![],
            over: None,
        });
        let mut group_by = plan.group_by.clone();
        group_by.push(key);
        let probe = Plan {
            select_items: vec![SelectItem {
                expr: Expr::Literal(Literal::Integer(1)),
                alias: Some("repeated".into()),
            }],
            filter: Some(match &plan.filter {
                Some(f) => Expr::Binary {
                    op: BinaryOp::And,
                    left: Box::new(f.clone()),
                    right: Box::new(not_null),
                },
                None => not_null,
            }),
            group_by,
            having: Some(Expr::Binary {
                op: BinaryOp::Gt,
                left: Box::new(count_all),
                right: Box::new(Expr::Literal(Literal::Integer(1))),
            }),
            order_by: vec![],
            limit: Some(1),
            offset: None,
            distinct: false,
            reasoning: None,
            ..plan.clone()
        };
        // A probe that cannot be rendered or run proves nothing either way.
        let Ok(sql) = to_sql(&probe, schema, db.dialect(), &settings.lower) else {
            continue;
        };
        let Ok(frame) = db.execute(&sql, probe_limits(settings)).await else {
            continue;
        };
        if frame.rows.is_empty() {
            continue;
        }
        out.push(FanOut {
            table: table.name.clone(),
            aggregate: format!("{name}({alias}.{column})"),
            repeated_by: plan
                .tables
                .iter()
                .filter(|t| !t.alias.eq_ignore_ascii_case(alias))
                .map(|t| t.name.clone())
                .collect(),
            counts,
        });
    }
    out
}

/// Result columns that are NULL in every row.
pub fn all_null_columns(columns: &[String], rows: &[Vec<Value>]) -> Vec<String> {
    if rows.is_empty() {
        return Vec::new();
    }
    columns
        .iter()
        .enumerate()
        .filter(|(i, _)| {
            rows.iter()
                .all(|r| matches!(r.get(*i), Some(Value::Null) | None))
        })
        .map(|(_, c)| c.clone())
        .collect()
}

/// Collects `(alias, column, text)` from comparisons under `AND`/`OR`.
fn comparisons(e: &Expr, out: &mut Vec<(Option<String>, String, String)>) {
    let Expr::Binary { op, left, right } = e else {
        return;
    };
    match op {
        BinaryOp::And | BinaryOp::Or => {
            comparisons(left, out);
            comparisons(right, out);
        }
        BinaryOp::Eq | BinaryOp::Like => {
            let pair = match (left.as_ref(), right.as_ref()) {
                (Expr::Column { alias, column }, Expr::Literal(Literal::Text(t)))
                | (Expr::Literal(Literal::Text(t)), Expr::Column { alias, column }) => {
                    Some((alias.clone(), column.clone(), t.clone()))
                }
                _ => None,
            };
            // A LIKE pattern with wildcards is not one value.
            if let Some(p) = pair.filter(|(_, _, t)| *op == BinaryOp::Eq || !t.contains(['%', '_']))
            {
                out.push(p);
            }
        }
        BinaryOp::In => {
            if let (Expr::Column { alias, column }, Expr::Func(list)) =
                (left.as_ref(), right.as_ref())
            {
                for arg in &list.args {
                    if let Expr::Literal(Literal::Text(t)) = arg {
                        out.push((alias.clone(), column.clone(), t.clone()));
                    }
                }
            }
        }
        _ => {}
    }
}

/// The schema table a column reference reads: its alias's table, or the one plan table
/// that has the column.
fn table_of(
    plan: &Plan,
    schema: &SchemaSnapshot,
    alias: Option<&str>,
    column: &str,
) -> Option<String> {
    let has = |t: &str| {
        schema.table(t).is_some_and(|t| {
            t.columns
                .iter()
                .any(|c| c.name.eq_ignore_ascii_case(column))
        })
    };
    let candidates: Vec<&str> = plan
        .tables
        .iter()
        .filter(|t| alias.is_none_or(|a| t.alias.eq_ignore_ascii_case(a)))
        .map(|t| t.name.as_str())
        .filter(|t| has(t))
        .collect();
    match candidates.as_slice() {
        [one] => schema.table(one).map(|t| t.name.clone()),
        _ => None,
    }
}
