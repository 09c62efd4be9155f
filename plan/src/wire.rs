//! The plan's JSON form, and its conversion to and from the typed plan.
//!
//! Expressions are flat objects discriminated by `kind`, every field optional, exactly as
//! the reference engine's `PlanModel` writes them, so its plans (and a model prompted with
//! its schema) parse unchanged. Unknown keys are rejected. The typed plan serializes back to
//! the compact form: only the fields its kind uses, defaults left out.

use crate::ast::*;
use crate::{Error, ErrorKind};
use serde::{Deserialize, Serialize};
use std::fmt;

/// Only reads are plans; the reference's `query_type` admits nothing else either.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum QueryType {
    /// A read-only query.
    #[default]
    #[serde(rename = "READ")]
    Read,
}

fn is_false(b: &bool) -> bool {
    !*b
}

fn is_read(q: &QueryType) -> bool {
    *q == QueryType::Read
}

/// A plan as JSON has it.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WirePlan {
    #[serde(default, skip_serializing_if = "is_read")]
    pub query_type: QueryType,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub with: Vec<WireCte>,
    #[serde(default, skip_serializing_if = "is_false")]
    pub distinct: bool,
    #[serde(default)]
    pub tables: Vec<WireTable>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub joins: Vec<WireJoin>,
    #[serde(default)]
    pub select_items: Vec<WireSelectItem>,
    #[serde(default, rename = "where", skip_serializing_if = "Option::is_none")]
    pub filter: Option<WireExpr>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub group_by: Vec<WireGroupItem>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub having: Option<WireExpr>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub order_by: Vec<WireOrderItem>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset: Option<i64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub set_operations: Vec<WireSetOperation>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WireCte {
    pub name: String,
    pub plan: WirePlan,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WireTable {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schema_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub database: Option<String>,
    pub alias: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WireJoin {
    pub left_alias: String,
    pub right_alias: String,
    #[serde(default)]
    pub join_type: JoinType,
    pub condition: WireExpr,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WireSelectItem {
    pub expr: WireExpr,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alias: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WireGroupItem {
    pub expr: WireExpr,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WireOrderItem {
    pub expr: WireExpr,
    #[serde(default)]
    pub direction: Direction,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WireSetOperation {
    pub op: SetOperator,
    pub plan: WirePlan,
}

/// The expression kinds: the reference's six, then ours.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum WireKind {
    #[default]
    Literal,
    Column,
    Func,
    Binary,
    Unary,
    Case,
    Cast,
    Between,
    Subquery,
    Exists,
}

/// A literal's `value`: the JSON scalar as written.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum WireValue {
    Bool(bool),
    Integer(i64),
    Real(f64),
    Text(String),
}

/// A flat expression: `kind` says which of the other fields apply.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WireExpr {
    pub kind: WireKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<WireValue>,
    #[serde(default, skip_serializing_if = "is_false")]
    pub is_null: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alias: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub column_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub func_name: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<WireExpr>,
    /// Accepted for compatibility; nothing reads it (aggregates are known by name).
    #[serde(default, skip_serializing)]
    pub is_aggregate: bool,
    #[serde(default, skip_serializing_if = "is_false")]
    pub distinct: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub op: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub left: Option<Box<WireExpr>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub right: Option<Box<WireExpr>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expr: Option<Box<WireExpr>>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub whens: Vec<WireWhen>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub else_expr: Option<Box<WireExpr>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to: Option<CastType>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub low: Option<Box<WireExpr>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub high: Option<Box<WireExpr>>,
    #[serde(default, skip_serializing_if = "is_false")]
    pub negated: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plan: Option<Box<WirePlan>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub over: Option<WireWindow>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WireWhen {
    pub condition: WireExpr,
    pub result: WireExpr,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WireWindow {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub partition_by: Vec<WireExpr>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub order_by: Vec<WireOrderItem>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame: Option<WireFrame>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WireFrame {
    pub unit: FrameUnit,
    pub start: WireFrameBound,
    pub end: WireFrameBound,
}

/// `{"kind": "preceding", "offset": 3}`, `{"kind": "current_row"}`, … A flat object, so that
/// a strict structured-output schema can send `"offset": null` with every kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WireFrameBound {
    pub kind: WireBoundKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset: Option<u64>,
}

/// Where a frame bound sits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WireBoundKind {
    UnboundedPreceding,
    Preceding,
    CurrentRow,
    Following,
    UnboundedFollowing,
}

// ---- JSON → typed --------------------------------------------------------------------

impl TryFrom<WirePlan> for Plan {
    type Error = Error;

    fn try_from(wire: WirePlan) -> Result<Plan, Error> {
        plan_from(wire, &Path::ROOT)
    }
}

/// Where in the plan a node sits, e.g. `select_items[0].expr.args[1]`. Built as a chain of
/// borrowed steps and written out only when an error needs it: parsing a good plan builds no
/// strings.
#[derive(Clone, Copy)]
struct Path<'a> {
    parent: Option<&'a Path<'a>>,
    step: Step,
    /// Field steps below the top level: one per `.expr`, `.left`, `.plan`, …
    depth: usize,
}

#[derive(Clone, Copy)]
enum Step {
    Root,
    Field(&'static str),
    Index(usize),
}

impl<'a> Path<'a> {
    const ROOT: Path<'static> = Path {
        parent: None,
        step: Step::Root,
        depth: 0,
    };

    fn field(&'a self, name: &'static str) -> Path<'a> {
        Path {
            parent: Some(self),
            step: Step::Field(name),
            depth: if matches!(self.step, Step::Root) {
                0
            } else {
                self.depth + 1
            },
        }
    }

    fn index(&'a self, i: usize) -> Path<'a> {
        Path {
            parent: Some(self),
            step: Step::Index(i),
            depth: self.depth,
        }
    }
}

impl fmt::Display for Path<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(parent) = self.parent {
            parent.fmt(f)?;
        }
        match self.step {
            Step::Root => Ok(()),
            Step::Field(name) => match self.parent.map(|p| p.step) {
                None | Some(Step::Root) => f.write_str(name),
                Some(_) => write!(f, ".{name}"),
            },
            Step::Index(i) => write!(f, "[{i}]"),
        }
    }
}

fn shape(path: &Path<'_>, message: impl Into<String>) -> Error {
    Error::new(
        ErrorKind::Shape {
            path: path.to_string(),
        },
        message,
    )
}

/// How deep expressions and sub-plans may nest. Far beyond any real question (the deepest
/// gold plan nests 6), and low enough that converting, validating, rendering and
/// re-parsing (sqlparser stops at 50) never run out of stack, even in wasm.
pub const MAX_DEPTH: usize = 40;

/// At most this many set operations in one plan: each nests the rendered query one level.
pub const MAX_SET_OPERATIONS: usize = 100;

fn check_depth(path: &Path<'_>) -> Result<(), Error> {
    if path.depth > MAX_DEPTH {
        return Err(shape(
            path,
            format!("the plan nests more than {MAX_DEPTH} levels deep; write it flatter"),
        ));
    }
    Ok(())
}

fn plan_from(w: WirePlan, path: &Path<'_>) -> Result<Plan, Error> {
    check_depth(path)?;
    if w.set_operations.len() > MAX_SET_OPERATIONS {
        return Err(shape(
            &path.field("set_operations"),
            format!("at most {MAX_SET_OPERATIONS} set operations; split the question"),
        ));
    }
    Ok(Plan {
        ctes: w
            .with
            .into_iter()
            .enumerate()
            .map(|(i, c)| {
                Ok(Cte {
                    name: c.name,
                    plan: plan_from(c.plan, &path.field("with").index(i).field("plan"))?,
                })
            })
            .collect::<Result<_, _>>()?,
        distinct: w.distinct,
        tables: w
            .tables
            .into_iter()
            .map(|t| TableRef {
                name: t.name,
                schema_name: t.schema_name,
                database: t.database,
                alias: t.alias,
            })
            .collect(),
        joins: w
            .joins
            .into_iter()
            .enumerate()
            .map(|(i, j)| {
                Ok(Join {
                    left_alias: j.left_alias,
                    right_alias: j.right_alias,
                    join_type: j.join_type,
                    condition: expr_from(
                        j.condition,
                        &path.field("joins").index(i).field("condition"),
                    )?,
                })
            })
            .collect::<Result<_, _>>()?,
        select_items: w
            .select_items
            .into_iter()
            .enumerate()
            .map(|(i, s)| {
                Ok(SelectItem {
                    expr: expr_from(s.expr, &path.field("select_items").index(i).field("expr"))?,
                    alias: s.alias,
                })
            })
            .collect::<Result<_, _>>()?,
        filter: w
            .filter
            .map(|e| expr_from(e, &path.field("where")))
            .transpose()?,
        group_by: w
            .group_by
            .into_iter()
            .enumerate()
            .map(|(i, g)| expr_from(g.expr, &path.field("group_by").index(i).field("expr")))
            .collect::<Result<_, _>>()?,
        having: w
            .having
            .map(|e| expr_from(e, &path.field("having")))
            .transpose()?,
        order_by: order_from(w.order_by, &path.field("order_by"))?,
        limit: w.limit,
        offset: w.offset,
        set_operations: w
            .set_operations
            .into_iter()
            .enumerate()
            .map(|(i, s)| {
                Ok(SetOperation {
                    op: s.op,
                    plan: plan_from(s.plan, &path.field("set_operations").index(i).field("plan"))?,
                })
            })
            .collect::<Result<_, _>>()?,
        reasoning: w.reasoning,
    })
}

fn order_from(items: Vec<WireOrderItem>, path: &Path<'_>) -> Result<Vec<OrderItem>, Error> {
    items
        .into_iter()
        .enumerate()
        .map(|(i, o)| {
            Ok(OrderItem {
                expr: expr_from(o.expr, &path.index(i).field("expr"))?,
                direction: o.direction,
            })
        })
        .collect()
}

fn boxed(
    e: Option<Box<WireExpr>>,
    path: &Path<'_>,
    field: &'static str,
    what: &str,
) -> Result<Box<Expr>, Error> {
    let e = e.ok_or_else(|| shape(path, format!("{what} needs `{field}`")))?;
    Ok(Box::new(expr_from(*e, &path.field(field))?))
}

/// Our own fields (unlike the reference's, which it tolerates anywhere) are refused on kinds
/// that do not use them: a `negated` ignored on the wrong kind would silently flip an answer.
fn check_fields(w: &WireExpr, path: &Path<'_>) -> Result<(), Error> {
    let misplaced = [
        ("distinct", w.distinct, w.kind == WireKind::Func),
        ("over", w.over.is_some(), w.kind == WireKind::Func),
        ("negated", w.negated, w.kind == WireKind::Between),
        ("low", w.low.is_some(), w.kind == WireKind::Between),
        ("high", w.high.is_some(), w.kind == WireKind::Between),
        ("to", w.to.is_some(), w.kind == WireKind::Cast),
        (
            "plan",
            w.plan.is_some(),
            matches!(w.kind, WireKind::Subquery | WireKind::Exists),
        ),
    ];
    for (field, present, allowed) in misplaced {
        if present && !allowed {
            let kind = serde_json::to_value(w.kind)
                .ok()
                .and_then(|v| v.as_str().map(String::from))
                .unwrap_or_default();
            return Err(shape(
                path,
                format!("`{field}` does not apply to kind {kind:?}"),
            ));
        }
    }
    Ok(())
}

fn expr_from(w: WireExpr, path: &Path<'_>) -> Result<Expr, Error> {
    check_depth(path)?;
    check_fields(&w, path)?;
    Ok(match w.kind {
        WireKind::Literal => Expr::Literal(match (w.value, w.is_null) {
            (_, true) => Literal::Null,
            (Some(WireValue::Bool(b)), false) => Literal::Bool(b),
            (Some(WireValue::Integer(i)), false) => Literal::Integer(i),
            (Some(WireValue::Real(r)), false) => Literal::Real(r),
            (Some(WireValue::Text(t)), false) => Literal::Text(t),
            (None, false) => {
                return Err(shape(path, "a literal needs a `value`, or `is_null: true`"))
            }
        }),
        WireKind::Column => Expr::Column {
            alias: w.alias,
            column: w
                .column_name
                .ok_or_else(|| shape(path, "a column needs `column_name`"))?,
        },
        WireKind::Func => Expr::Func(FuncCall {
            name: w
                .func_name
                .ok_or_else(|| shape(path, "a func needs `func_name`"))?,
            args: w
                .args
                .into_iter()
                .enumerate()
                .map(|(i, a)| expr_from(a, &path.field("args").index(i)))
                .collect::<Result<_, _>>()?,
            distinct: w.distinct,
            over: w
                .over
                .map(|o| window_from(o, &path.field("over")))
                .transpose()?,
        }),
        WireKind::Binary => {
            let op =
                w.op.as_deref()
                    .ok_or_else(|| shape(path, "a binary needs `op`"))?;
            Expr::Binary {
                op: binary_op(op).ok_or_else(|| {
                    shape(
                        path,
                        format!("unknown binary op {op:?}; use one of {BINARY_OPS}"),
                    )
                })?,
                left: boxed(w.left, path, "left", "a binary")?,
                right: boxed(w.right, path, "right", "a binary")?,
            }
        }
        WireKind::Unary => {
            let op =
                w.op.as_deref()
                    .ok_or_else(|| shape(path, "a unary needs `op`"))?;
            let op = match op.to_ascii_uppercase().as_str() {
                "NOT" => UnaryOp::Not,
                "+" => UnaryOp::Plus,
                "-" => UnaryOp::Minus,
                _ => {
                    return Err(shape(
                        path,
                        format!("unknown unary op {op:?}; use NOT, + or -"),
                    ))
                }
            };
            Expr::Unary {
                op,
                expr: boxed(w.expr, path, "expr", "a unary")?,
            }
        }
        WireKind::Case => {
            if w.whens.is_empty() {
                return Err(shape(path, "a case needs at least one entry in `whens`"));
            }
            let whens_path = path.field("whens");
            Expr::Case {
                whens: w
                    .whens
                    .into_iter()
                    .enumerate()
                    .map(|(i, wh)| {
                        let at = whens_path.index(i);
                        Ok(When {
                            condition: expr_from(wh.condition, &at.field("condition"))?,
                            result: expr_from(wh.result, &at.field("result"))?,
                        })
                    })
                    .collect::<Result<_, _>>()?,
                else_expr: w
                    .else_expr
                    .map(|e| expr_from(*e, &path.field("else_expr")).map(Box::new))
                    .transpose()?,
            }
        }
        WireKind::Cast => Expr::Cast {
            to: w
                .to
                .ok_or_else(|| shape(path, "a cast needs `to`: integer, real, text or date"))?,
            expr: boxed(w.expr, path, "expr", "a cast")?,
        },
        WireKind::Between => Expr::Between {
            expr: boxed(w.expr, path, "expr", "a between")?,
            low: boxed(w.low, path, "low", "a between")?,
            high: boxed(w.high, path, "high", "a between")?,
            negated: w.negated,
        },
        WireKind::Subquery => Expr::Subquery(Box::new(sub_plan(w.plan, path, "a subquery")?)),
        WireKind::Exists => Expr::Exists(Box::new(sub_plan(w.plan, path, "an exists")?)),
    })
}

fn sub_plan(plan: Option<Box<WirePlan>>, path: &Path<'_>, what: &str) -> Result<Plan, Error> {
    let plan = plan.ok_or_else(|| shape(path, format!("{what} needs `plan`")))?;
    plan_from(*plan, &path.field("plan"))
}

fn window_from(w: WireWindow, path: &Path<'_>) -> Result<Window, Error> {
    Ok(Window {
        partition_by: w
            .partition_by
            .into_iter()
            .enumerate()
            .map(|(i, e)| expr_from(e, &path.field("partition_by").index(i)))
            .collect::<Result<_, _>>()?,
        order_by: order_from(w.order_by, &path.field("order_by"))?,
        frame: w
            .frame
            .map(|f| {
                let at = path.field("frame");
                Ok::<_, Error>(Frame {
                    unit: f.unit,
                    start: bound_from(f.start, &at.field("start"))?,
                    end: bound_from(f.end, &at.field("end"))?,
                })
            })
            .transpose()?,
    })
}

fn bound_from(b: WireFrameBound, path: &Path<'_>) -> Result<FrameBound, Error> {
    let offset = || {
        b.offset
            .ok_or_else(|| shape(path, "preceding and following need `offset`"))
    };
    Ok(match b.kind {
        WireBoundKind::UnboundedPreceding => FrameBound::UnboundedPreceding,
        WireBoundKind::Preceding => FrameBound::Preceding(offset()?),
        WireBoundKind::CurrentRow => FrameBound::CurrentRow,
        WireBoundKind::Following => FrameBound::Following(offset()?),
        WireBoundKind::UnboundedFollowing => FrameBound::UnboundedFollowing,
    })
}

/// Every binary operator as the JSON spells it, for error messages.
const BINARY_OPS: &str =
    "= != > < >= <= + - * / % || AND OR LIKE NOT LIKE ILIKE NOT ILIKE IN NOT IN IS IS NOT";

pub(crate) const ALL_BINARY_OPS: [BinaryOp; 23] = [
    BinaryOp::Eq,
    BinaryOp::NotEq,
    BinaryOp::Gt,
    BinaryOp::Lt,
    BinaryOp::GtEq,
    BinaryOp::LtEq,
    BinaryOp::Plus,
    BinaryOp::Minus,
    BinaryOp::Multiply,
    BinaryOp::Divide,
    BinaryOp::Modulo,
    BinaryOp::Concat,
    BinaryOp::And,
    BinaryOp::Or,
    BinaryOp::Like,
    BinaryOp::NotLike,
    BinaryOp::ILike,
    BinaryOp::NotILike,
    BinaryOp::In,
    BinaryOp::NotIn,
    BinaryOp::Is,
    BinaryOp::IsNot,
    BinaryOp::Not,
];

/// Reads an operator, ignoring case and spacing; `<>` is taken for `!=`.
fn binary_op(text: &str) -> Option<BinaryOp> {
    let normal = text
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_ascii_uppercase();
    if normal == "<>" {
        return Some(BinaryOp::NotEq);
    }
    ALL_BINARY_OPS
        .into_iter()
        .find(|op| binary_op_text(*op) == normal)
}

/// The operator as the JSON (and the one-line form) writes it.
pub fn binary_op_text(op: BinaryOp) -> &'static str {
    match op {
        BinaryOp::Eq => "=",
        BinaryOp::NotEq => "!=",
        BinaryOp::Gt => ">",
        BinaryOp::Lt => "<",
        BinaryOp::GtEq => ">=",
        BinaryOp::LtEq => "<=",
        BinaryOp::Plus => "+",
        BinaryOp::Minus => "-",
        BinaryOp::Multiply => "*",
        BinaryOp::Divide => "/",
        BinaryOp::Modulo => "%",
        BinaryOp::Concat => "||",
        BinaryOp::And => "AND",
        BinaryOp::Or => "OR",
        BinaryOp::Like => "LIKE",
        BinaryOp::NotLike => "NOT LIKE",
        BinaryOp::ILike => "ILIKE",
        BinaryOp::NotILike => "NOT ILIKE",
        BinaryOp::In => "IN",
        BinaryOp::NotIn => "NOT IN",
        BinaryOp::Is => "IS",
        BinaryOp::IsNot => "IS NOT",
        BinaryOp::Not => "NOT",
    }
}

// ---- typed → JSON --------------------------------------------------------------------

impl From<Plan> for WirePlan {
    fn from(p: Plan) -> WirePlan {
        WirePlan {
            query_type: QueryType::Read,
            with: p
                .ctes
                .into_iter()
                .map(|c| WireCte {
                    name: c.name,
                    plan: c.plan.into(),
                })
                .collect(),
            distinct: p.distinct,
            tables: p
                .tables
                .into_iter()
                .map(|t| WireTable {
                    name: t.name,
                    schema_name: t.schema_name,
                    database: t.database,
                    alias: t.alias,
                })
                .collect(),
            joins: p
                .joins
                .into_iter()
                .map(|j| WireJoin {
                    left_alias: j.left_alias,
                    right_alias: j.right_alias,
                    join_type: j.join_type,
                    condition: j.condition.into(),
                })
                .collect(),
            select_items: p
                .select_items
                .into_iter()
                .map(|s| WireSelectItem {
                    expr: s.expr.into(),
                    alias: s.alias,
                })
                .collect(),
            filter: p.filter.map(Into::into),
            group_by: p
                .group_by
                .into_iter()
                .map(|e| WireGroupItem { expr: e.into() })
                .collect(),
            having: p.having.map(Into::into),
            order_by: p.order_by.into_iter().map(order_to).collect(),
            limit: p.limit,
            offset: p.offset,
            set_operations: p
                .set_operations
                .into_iter()
                .map(|s| WireSetOperation {
                    op: s.op,
                    plan: s.plan.into(),
                })
                .collect(),
            reasoning: p.reasoning,
        }
    }
}

fn order_to(o: OrderItem) -> WireOrderItem {
    WireOrderItem {
        expr: o.expr.into(),
        direction: o.direction,
    }
}

fn boxed_to(e: Expr) -> Option<Box<WireExpr>> {
    Some(Box::new(e.into()))
}

impl From<Expr> for WireExpr {
    fn from(e: Expr) -> WireExpr {
        match e {
            Expr::Literal(l) => {
                let (value, is_null) = match l {
                    Literal::Null => (None, true),
                    Literal::Bool(b) => (Some(WireValue::Bool(b)), false),
                    Literal::Integer(i) => (Some(WireValue::Integer(i)), false),
                    Literal::Real(r) => (Some(WireValue::Real(r)), false),
                    Literal::Text(t) => (Some(WireValue::Text(t)), false),
                };
                WireExpr {
                    kind: WireKind::Literal,
                    value,
                    is_null,
                    ..WireExpr::default()
                }
            }
            Expr::Column { alias, column } => WireExpr {
                kind: WireKind::Column,
                alias,
                column_name: Some(column),
                ..WireExpr::default()
            },
            Expr::Func(f) => WireExpr {
                kind: WireKind::Func,
                func_name: Some(f.name),
                args: f.args.into_iter().map(Into::into).collect(),
                distinct: f.distinct,
                over: f.over.map(|w| WireWindow {
                    partition_by: w.partition_by.into_iter().map(Into::into).collect(),
                    order_by: w.order_by.into_iter().map(order_to).collect(),
                    frame: w.frame.map(|f| WireFrame {
                        unit: f.unit,
                        start: bound_to(f.start),
                        end: bound_to(f.end),
                    }),
                }),
                ..WireExpr::default()
            },
            Expr::Binary { op, left, right } => WireExpr {
                kind: WireKind::Binary,
                op: Some(binary_op_text(op).to_string()),
                left: boxed_to(*left),
                right: boxed_to(*right),
                ..WireExpr::default()
            },
            Expr::Unary { op, expr } => WireExpr {
                kind: WireKind::Unary,
                op: Some(
                    match op {
                        UnaryOp::Not => "NOT",
                        UnaryOp::Plus => "+",
                        UnaryOp::Minus => "-",
                    }
                    .to_string(),
                ),
                expr: boxed_to(*expr),
                ..WireExpr::default()
            },
            Expr::Case { whens, else_expr } => WireExpr {
                kind: WireKind::Case,
                whens: whens
                    .into_iter()
                    .map(|w| WireWhen {
                        condition: w.condition.into(),
                        result: w.result.into(),
                    })
                    .collect(),
                else_expr: else_expr.map(|e| Box::new((*e).into())),
                ..WireExpr::default()
            },
            Expr::Cast { expr, to } => WireExpr {
                kind: WireKind::Cast,
                expr: boxed_to(*expr),
                to: Some(to),
                ..WireExpr::default()
            },
            Expr::Between {
                expr,
                low,
                high,
                negated,
            } => WireExpr {
                kind: WireKind::Between,
                expr: boxed_to(*expr),
                low: boxed_to(*low),
                high: boxed_to(*high),
                negated,
                ..WireExpr::default()
            },
            Expr::Subquery(plan) => WireExpr {
                kind: WireKind::Subquery,
                plan: Some(Box::new((*plan).into())),
                ..WireExpr::default()
            },
            Expr::Exists(plan) => WireExpr {
                kind: WireKind::Exists,
                plan: Some(Box::new((*plan).into())),
                ..WireExpr::default()
            },
        }
    }
}

fn bound_to(b: FrameBound) -> WireFrameBound {
    let (kind, offset) = match b {
        FrameBound::UnboundedPreceding => (WireBoundKind::UnboundedPreceding, None),
        FrameBound::Preceding(n) => (WireBoundKind::Preceding, Some(n)),
        FrameBound::CurrentRow => (WireBoundKind::CurrentRow, None),
        FrameBound::Following(n) => (WireBoundKind::Following, Some(n)),
        FrameBound::UnboundedFollowing => (WireBoundKind::UnboundedFollowing, None),
    };
    WireFrameBound { kind, offset }
}
