//! What a follow-up's plan changed in the previous one, part by part, in the plan's one-line
//! form: the tables, joins, result columns, each condition of the filter (its top-level
//! `AND`s), groups, the group filter, ordering, limit, offset, `DISTINCT`, CTEs and set
//! operations.

use crate::plan::{BinaryOp, Expr, Plan};
use serde::{Deserialize, Serialize};

/// A part of a plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum PlanPart {
    /// A table read.
    Table,
    /// A join.
    Join,
    /// A result column.
    Select,
    /// One condition of the row filter.
    Filter,
    /// A grouping expression.
    GroupBy,
    /// One condition of the group filter.
    Having,
    /// An ordering term.
    OrderBy,
    /// The row limit.
    Limit,
    /// The rows skipped.
    Offset,
    /// `DISTINCT`.
    Distinct,
    /// A named sub-plan.
    With,
    /// A combined plan (`UNION`, …).
    SetOperation,
}

impl PlanPart {
    /// The published name (as serialized), as a person reads it.
    pub fn as_str(self) -> &'static str {
        match self {
            PlanPart::Table => "table",
            PlanPart::Join => "join",
            PlanPart::Select => "select",
            PlanPart::Filter => "filter",
            PlanPart::GroupBy => "group_by",
            PlanPart::Having => "having",
            PlanPart::OrderBy => "order_by",
            PlanPart::Limit => "limit",
            PlanPart::Offset => "offset",
            PlanPart::Distinct => "distinct",
            PlanPart::With => "with",
            PlanPart::SetOperation => "set_operation",
        }
    }
}

/// Added, removed or changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum ChangeKind {
    /// In the new plan only.
    Added,
    /// In the previous plan only.
    Removed,
    /// A single-valued part (limit, offset, distinct) with another value.
    Changed,
}

/// One difference.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct PlanChange {
    /// Which part.
    pub part: PlanPart,
    /// How it changed.
    pub change: ChangeKind,
    /// The part in the one-line form (`before → after` when changed).
    pub text: String,
}

/// What changed from one plan to the next; empty when nothing did.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct PlanDiff {
    /// The differences, in the plan's order of parts.
    pub changes: Vec<PlanChange>,
}

impl PlanDiff {
    /// The changes of `part` that are `change`.
    pub fn of(&self, part: PlanPart, change: ChangeKind) -> Vec<&str> {
        self.changes
            .iter()
            .filter(|c| c.part == part && c.change == change)
            .map(|c| c.text.as_str())
            .collect()
    }
}

/// What `after` changed in `before`.
pub fn diff(before: &Plan, after: &Plan) -> PlanDiff {
    let mut changes = Vec::new();
    let mut lists = |part: PlanPart, old: Vec<String>, new: Vec<String>| {
        for o in &old {
            if !new.contains(o) {
                changes.push(PlanChange {
                    part,
                    change: ChangeKind::Removed,
                    text: o.clone(),
                });
            }
        }
        for n in &new {
            if !old.contains(n) {
                changes.push(PlanChange {
                    part,
                    change: ChangeKind::Added,
                    text: n.clone(),
                });
            }
        }
    };
    let ctes = |p: &Plan| -> Vec<String> {
        p.ctes
            .iter()
            .map(|c| format!("{} AS ({})", c.name, c.plan))
            .collect()
    };
    lists(PlanPart::With, ctes(before), ctes(after));
    lists(
        PlanPart::Table,
        before.tables.iter().map(ToString::to_string).collect(),
        after.tables.iter().map(ToString::to_string).collect(),
    );
    lists(
        PlanPart::Join,
        before
            .joins
            .iter()
            .map(join_text)
            .collect(),
        after
            .joins
            .iter()
            .map(join_text)
            .collect(),
    );
    lists(
        PlanPart::Select,
        before
            .select_items
            .iter()
            .map(ToString::to_string)
            .collect(),
        after.select_items.iter().map(ToString::to_string).collect(),
    );
    lists(
        PlanPart::Filter,
        conditions(before.filter.as_ref()),
        conditions(after.filter.as_ref()),
    );
    lists(
        PlanPart::GroupBy,
        before.group_by.iter().map(ToString::to_string).collect(),
        after.group_by.iter().map(ToString::to_string).collect(),
    );
    lists(
        PlanPart::Having,
        conditions(before.having.as_ref()),
        conditions(after.having.as_ref()),
    );
    lists(
        PlanPart::OrderBy,
        before.order_by.iter().map(ToString::to_string).collect(),
        after.order_by.iter().map(ToString::to_string).collect(),
    );
    let sets = |p: &Plan| -> Vec<String> {
        p.set_operations
            .iter()
            .map(|s| format!("{} {}", format!("{:?}", s.op).to_uppercase(), s.plan))
            .collect()
    };
    lists(PlanPart::SetOperation, sets(before), sets(after));
    let mut single = |part: PlanPart, old: Option<String>, new: Option<String>| {
        let change = match (&old, &new) {
            (None, None) => return,
            (Some(o), Some(n)) if o == n => return,
            (None, Some(_)) => ChangeKind::Added,
            (Some(_), None) => ChangeKind::Removed,
            (Some(_), Some(_)) => ChangeKind::Changed,
        };
        let text = match (old, new) {
            (Some(o), Some(n)) => format!("{o} → {n}"),
            (Some(v), None) | (None, Some(v)) => v,
            (None, None) => String::new(),
        };
        changes.push(PlanChange { part, change, text });
    };
    single(
        PlanPart::Limit,
        before.limit.map(|l| l.to_string()),
        after.limit.map(|l| l.to_string()),
    );
    single(
        PlanPart::Offset,
        before.offset.map(|l| l.to_string()),
        after.offset.map(|l| l.to_string()),
    );
    single(
        PlanPart::Distinct,
        before.distinct.then(|| "DISTINCT".to_string()),
        after.distinct.then(|| "DISTINCT".to_string()),
    );
    PlanDiff { changes }
}

/// A filter's conditions: its top-level `AND`s, each in the one-line form.
fn conditions(filter: Option<&Expr>) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack: Vec<&Expr> = filter.into_iter().collect();
    // Left to right: the right operand is pushed first so the left one is read first.
    while let Some(e) = stack.pop() {
        match e {
            Expr::Binary {
                op: BinaryOp::And,
                left,
                right,
            } => {
                stack.push(right);
                stack.push(left);
            }
            other => out.push(other.to_string()),
        }
    }
    out
}

/// A join as the difference names it: its condition, or the cross join it is.
fn join_text(j: &crate::plan::Join) -> String {
    match &j.condition {
        Some(on) => on.to_string(),
        None => format!("{} × {}", j.left_alias, j.right_alias),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(json: &str) -> Plan {
        serde_json::from_str(json).unwrap_or_else(|e| panic!("{e}"))
    }

    const BASE: &str = r#"{"tables":[{"name":"Invoice","alias":"i"}],
        "select_items":[{"expr":{"kind":"column","alias":"i","column_name":"BillingCountry"},"alias":"country"},
                        {"expr":{"kind":"func","func_name":"COUNT","args":[{"kind":"column","column_name":"*"}],"is_aggregate":true},"alias":"invoices"}],
        "group_by":[{"expr":{"kind":"column","alias":"i","column_name":"BillingCountry"}}]}"#;

    #[test]
    fn an_added_filter_and_a_changed_limit_are_named() {
        let before = plan(BASE);
        let mut after = before.clone();
        after.filter = Some(plan(r#"{"tables":[{"name":"Invoice","alias":"i"}],"select_items":[],
            "where":{"kind":"binary","op":"=","left":{"kind":"column","alias":"i","column_name":"BillingCountry"},"right":{"kind":"literal","value":"Germany"}}}"#)
            .filter
            .unwrap_or_else(|| panic!("a filter")));
        after.limit = Some(5);
        let d = diff(&before, &after);
        assert_eq!(d.of(PlanPart::Filter, ChangeKind::Added).len(), 1);
        assert!(d.of(PlanPart::Filter, ChangeKind::Added)[0].contains("Germany"));
        assert_eq!(d.of(PlanPart::Limit, ChangeKind::Added), vec!["5"]);
        assert!(diff(&before, &before).changes.is_empty());
    }

    #[test]
    fn a_changed_grouping_is_one_removed_and_one_added() {
        let before = plan(BASE);
        let mut after = before.clone();
        after.group_by = vec![Expr::Column {
            alias: Some("i".into()),
            column: "BillingCity".into(),
        }];
        let d = diff(&before, &after);
        assert_eq!(d.of(PlanPart::GroupBy, ChangeKind::Removed).len(), 1);
        assert_eq!(d.of(PlanPart::GroupBy, ChangeKind::Added).len(), 1);
        assert_eq!(d.changes.len(), 2);
    }
}
