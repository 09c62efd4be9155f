//! The plan's data types. Each is plain data: no behaviour beyond what reading it needs.
//! Their JSON form is [`super::wire`]'s: a plan deserializes through it and serializes to it.

use serde::{Deserialize, Serialize};

/// A read-only query, as a tree of plain data the engine can check and render.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
// Declared to TypeScript as an object: its fields are the wire format's, documented by the
// plan's JSON Schema (`plan_json_schema`).
#[cfg_attr(
    feature = "ts",
    derive(ts_rs::TS),
    ts(type = "{ [field: string]: unknown }")
)]
#[serde(try_from = "crate::wire::WirePlan", into = "crate::wire::WirePlan")]
pub struct Plan {
    /// Named sub-plans (`WITH name AS (…)`) that `tables` may read like tables.
    pub ctes: Vec<Cte>,
    /// `SELECT DISTINCT`.
    pub distinct: bool,
    /// The tables read, each under an alias; the first is the `FROM` table.
    pub tables: Vec<TableRef>,
    /// How the other tables join the first.
    pub joins: Vec<Join>,
    /// The result columns, in order.
    pub select_items: Vec<SelectItem>,
    /// The row filter (`WHERE`).
    pub filter: Option<Expr>,
    /// `GROUP BY` expressions.
    pub group_by: Vec<Expr>,
    /// The group filter (`HAVING`).
    pub having: Option<Expr>,
    /// `ORDER BY`; with set operations it orders the combined result.
    pub order_by: Vec<OrderItem>,
    /// At most this many rows (the engine's row cap applies on top). Signed, so that a
    /// negative value reaches the validator and gets its message there.
    pub limit: Option<i64>,
    /// Rows skipped before `limit`; needs an `order_by`. Signed for the same reason.
    pub offset: Option<i64>,
    /// Further plans combined with this one (`UNION`, `INTERSECT`, `EXCEPT`), in order.
    pub set_operations: Vec<SetOperation>,
    /// The model's explanation, kept for the trace; never affects the SQL.
    pub reasoning: Option<String>,
}

/// A named sub-plan.
#[derive(Debug, Clone, PartialEq)]
pub struct Cte {
    /// The name `tables` uses to read it.
    pub name: String,
    /// The sub-plan.
    pub plan: Plan,
}

/// A table read under an alias.
#[derive(Debug, Clone, PartialEq)]
pub struct TableRef {
    /// The table (or CTE) name.
    pub name: String,
    /// The schema, when the datasource has several.
    pub schema_name: Option<String>,
    /// The database, when the datasource has several.
    pub database: Option<String>,
    /// The alias every column reference uses.
    pub alias: String,
}

/// A join between two aliases.
#[derive(Debug, Clone, PartialEq)]
pub struct Join {
    /// The alias already in the query.
    pub left_alias: String,
    /// The alias this join brings in.
    pub right_alias: String,
    /// Inner or outer.
    pub join_type: JoinType,
    /// The `ON` condition.
    pub condition: Expr,
}

/// The kind of join.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum JoinType {
    /// Rows matching on both sides.
    #[default]
    Inner,
    /// Every row of the left side.
    Left,
    /// Every row of the right side.
    Right,
    /// Every row of both sides.
    Full,
}

/// One result column.
#[derive(Debug, Clone, PartialEq)]
pub struct SelectItem {
    /// What it computes.
    pub expr: Expr,
    /// Its name in the result.
    pub alias: Option<String>,
}

/// One ordering term.
#[derive(Debug, Clone, PartialEq)]
pub struct OrderItem {
    /// What to order by.
    pub expr: Expr,
    /// Ascending or descending.
    pub direction: Direction,
}

/// Sort direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    /// Smallest first.
    #[default]
    Asc,
    /// Largest first.
    Desc,
}

/// A plan combined with the one before it.
#[derive(Debug, Clone, PartialEq)]
pub struct SetOperation {
    /// How the two combine.
    pub op: SetOperator,
    /// The plan combined in; its own `order_by`, `limit` and `offset` must be empty.
    pub plan: Plan,
}

/// How two plans' rows combine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SetOperator {
    /// Rows of either, duplicates removed.
    Union,
    /// Rows of either, duplicates kept.
    UnionAll,
    /// Rows of both.
    Intersect,
    /// Rows of the first that are not in the second.
    Except,
}

/// An expression.
#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    /// A constant.
    Literal(Literal),
    /// A column of an alias (`column` may be `*`). Without an alias it names a result
    /// column or must be unambiguous across the plan's tables.
    Column {
        /// The table alias, if given.
        alias: Option<String>,
        /// The column name.
        column: String,
    },
    /// A function call, an aggregate, or a window function when `over` is set.
    Func(FuncCall),
    /// `left op right`.
    Binary {
        /// The operator.
        op: BinaryOp,
        /// The left operand.
        left: Box<Expr>,
        /// The right operand (for `IN`, a `TUPLE`/`LIST` call or a subquery).
        right: Box<Expr>,
    },
    /// `op expr`.
    Unary {
        /// The operator.
        op: UnaryOp,
        /// The operand.
        expr: Box<Expr>,
    },
    /// `CASE WHEN … THEN … [ELSE …] END`.
    Case {
        /// The branches, at least one.
        whens: Vec<When>,
        /// The value when no branch matches (NULL when absent).
        else_expr: Option<Box<Expr>>,
    },
    /// `CAST(expr AS to)`.
    Cast {
        /// The value converted.
        expr: Box<Expr>,
        /// The target type.
        to: CastType,
    },
    /// `expr [NOT] BETWEEN low AND high`.
    Between {
        /// The value tested.
        expr: Box<Expr>,
        /// The lower bound, inclusive.
        low: Box<Expr>,
        /// The upper bound, inclusive.
        high: Box<Expr>,
        /// `NOT BETWEEN`.
        negated: bool,
    },
    /// A subquery: a scalar when it stands alone, a set as the right side of `IN`.
    Subquery(Box<Plan>),
    /// `EXISTS (subquery)`; `NOT EXISTS` is a `NOT` around it.
    Exists(Box<Plan>),
}

/// A constant value.
#[derive(Debug, Clone, PartialEq)]
pub enum Literal {
    /// SQL NULL.
    Null,
    /// True or false.
    Bool(bool),
    /// A whole number.
    Integer(i64),
    /// A decimal number.
    Real(f64),
    /// Text, always rendered as an escaped string literal.
    Text(String),
}

/// A function call.
#[derive(Debug, Clone, PartialEq)]
pub struct FuncCall {
    /// The function name as the plan gives it; the validator checks it against an allow-list.
    pub name: String,
    /// The arguments.
    pub args: Vec<Expr>,
    /// `FUNC(DISTINCT …)`.
    pub distinct: bool,
    /// The window, for window functions and aggregates used as such.
    pub over: Option<Window>,
}

/// `OVER (PARTITION BY … ORDER BY … [frame])`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Window {
    /// The partitions.
    pub partition_by: Vec<Expr>,
    /// The order within a partition.
    pub order_by: Vec<OrderItem>,
    /// The frame, when not the default.
    pub frame: Option<Frame>,
}

/// A window frame.
#[derive(Debug, Clone, PartialEq)]
pub struct Frame {
    /// Rows or value range.
    pub unit: FrameUnit,
    /// Where the frame starts.
    pub start: FrameBound,
    /// Where it ends.
    pub end: FrameBound,
}

/// What a frame counts in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FrameUnit {
    /// Physical rows.
    Rows,
    /// Values of the ordering key.
    Range,
}

/// One end of a frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrameBound {
    /// From the partition's first row.
    UnboundedPreceding,
    /// This many rows (or values) before.
    Preceding(u64),
    /// The current row.
    CurrentRow,
    /// This many rows (or values) after.
    Following(u64),
    /// To the partition's last row.
    UnboundedFollowing,
}

/// A `CASE` branch.
#[derive(Debug, Clone, PartialEq)]
pub struct When {
    /// The condition.
    pub condition: Expr,
    /// The value when it holds.
    pub result: Expr,
}

/// A binary operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinaryOp {
    /// `=`
    Eq,
    /// `!=`
    NotEq,
    /// `>`
    Gt,
    /// `<`
    Lt,
    /// `>=`
    GtEq,
    /// `<=`
    LtEq,
    /// `+` (concatenation when an operand is a text literal)
    Plus,
    /// `-`
    Minus,
    /// `*`
    Multiply,
    /// `/`
    Divide,
    /// `%`
    Modulo,
    /// `||`, string concatenation
    Concat,
    /// `AND`
    And,
    /// `OR`
    Or,
    /// `LIKE`
    Like,
    /// `NOT LIKE`
    NotLike,
    /// `ILIKE`: case-insensitive `LIKE`
    ILike,
    /// `NOT ILIKE`
    NotILike,
    /// `IN`
    In,
    /// `NOT IN`
    NotIn,
    /// `IS` (with NULL, or a value for a null-safe comparison)
    Is,
    /// `IS NOT`
    IsNot,
    /// `NOT` as a binary operator: the reference schema admits it, the validator rejects it
    /// (`NOT` belongs on a unary expression).
    Not,
}

/// A unary operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnaryOp {
    /// `NOT`
    Not,
    /// `+`
    Plus,
    /// `-`
    Minus,
}

/// The types `CAST` converts to, portable across dialects.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CastType {
    /// A whole number.
    Integer,
    /// A decimal number.
    Real,
    /// Text.
    Text,
    /// A date (`YYYY-MM-DD`).
    Date,
}

/// Described to JSON Schema as an object, as to TypeScript: its fields are the wire
/// format's, documented by the plan's own JSON Schema (`plan_json_schema`), whose internal
/// references would not resolve inside another document.
#[cfg(feature = "schema")]
impl schemars::JsonSchema for Plan {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Plan".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "object",
            "description": "A typed query plan in its wire form (docs/plan.md).",
            "additionalProperties": true
        })
    }
}
