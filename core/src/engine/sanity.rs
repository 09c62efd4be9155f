//! Sanity checks on a result that ran: an empty result whose filter names a value its
//! column does not hold (VALUE_NOT_FOUND, with the closest values it does hold), and a
//! result column that is NULL in every row (ALL_NULL_COLUMN).

use crate::datasource::{Datasource, ExecLimits};
use crate::index::ValueIndex;
use crate::plan::{BinaryOp, Expr, Literal, Plan};
use crate::schema::SchemaSnapshot;
use crate::sqlite::quote_ident;
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

/// The most literals looked up per result: a long `IN` list is not a name the person typed.
const MOST_LITERALS: usize = 5;

/// The text values the plan's top-level filter compares a column with (`=`, `IN`, `LIKE`
/// without wildcards), whose column holds none of them.
pub async fn missing_values(
    plan: &Plan,
    schema: &SchemaSnapshot,
    db: &dyn Datasource,
    values: &ValueIndex,
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
        let sql = format!(
            "SELECT 1 FROM {} WHERE {} = '{}' LIMIT 1",
            quote_ident(&table),
            quote_ident(&column),
            value.replace('\'', "''")
        );
        // A failed probe proves nothing either way.
        let Ok(frame) = db.execute(&sql, ExecLimits { max_rows: 1 }).await else {
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
