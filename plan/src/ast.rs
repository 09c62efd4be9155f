//! The plan's data types: plain data, and the one description of the plan's grammar. Their
//! serde attributes are its JSON form (what a model writes and a trace holds) and, derived
//! by schemars, the JSON Schema a model is given ([`crate::plan_json_schema`]); the
//! importer builds the same types from SQL. Expressions and frame bounds are objects tagged
//! by `kind`, read and written through [`crate::tag`].

use crate::tag::{deserialize_tagged, Ignored, KindFirst, Lenient, Tagged, Tolerance};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A read-only query, as a tree of plain data the engine can check and render.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(remote = "Self", deny_unknown_fields)]
#[cfg_attr(
    feature = "schema",
    derive(schemars::JsonSchema),
    schemars(rename = "Plan")
)]
// Declared to TypeScript as an object: its fields are the JSON form's, documented by the
// plan's JSON Schema (`plan_json_schema`).
#[cfg_attr(
    feature = "ts",
    derive(ts_rs::TS),
    ts(type = "{ [field: string]: unknown }")
)]
pub struct Plan {
    /// Named sub-plans (`WITH name AS (…)`) that `tables` may read like tables.
    #[serde(rename = "with", default, skip_serializing_if = "Vec::is_empty")]
    pub ctes: Vec<Cte>,
    /// `SELECT DISTINCT`.
    #[serde(default, skip_serializing_if = "is_false")]
    pub distinct: bool,
    /// The tables read, each under an alias; the first is the `FROM` table. None: one row of
    /// computed values (a ratio of two sub-queries).
    #[serde(default)]
    pub tables: Vec<TableRef>,
    /// How the other tables join the first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub joins: Vec<Join>,
    /// The result columns, in order.
    #[serde(default)]
    pub select_items: Vec<SelectItem>,
    /// The row filter (`WHERE`).
    #[serde(rename = "where", default, skip_serializing_if = "Option::is_none")]
    pub filter: Option<Expr>,
    /// `GROUP BY` expressions (each written `{"expr": …}`, as the reference writes them).
    #[serde(default, skip_serializing_if = "Vec::is_empty", with = "group_items")]
    #[cfg_attr(feature = "schema", schemars(with = "Vec<GroupItem>"))]
    pub group_by: Vec<Expr>,
    /// Grouping sets over `group_by` (`ROLLUP`, `CUBE`, `GROUPING SETS`): each a list of
    /// positions in `group_by`; the result has each set's groups, the columns outside a set
    /// NULL in its rows. Empty: one grouping by all of `group_by`. Read from SQL and JSON;
    /// left out of the model's schema to keep its prompt within budget.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(feature = "schema", schemars(skip))]
    pub grouping_sets: Vec<Vec<usize>>,
    /// The group filter (`HAVING`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub having: Option<Expr>,
    /// `ORDER BY`; with set operations it orders the combined result.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub order_by: Vec<OrderItem>,
    /// At most this many rows (the engine's row cap applies on top). Signed, so that a
    /// negative value reaches the validator and gets its message there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<i64>,
    /// Rows skipped before `limit`; needs an `order_by`. Signed for the same reason.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset: Option<i64>,
    /// Further plans combined with this one (`UNION`, `INTERSECT`, `EXCEPT`), in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub set_operations: Vec<SetOperation>,
    /// The model's explanation, kept for the trace; never affects the SQL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<String>,
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// One `GROUP BY` term as JSON writes it.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
struct GroupItem {
    expr: Expr,
}

/// `group_by` as a list of [`GroupItem`]s.
mod group_items {
    use super::{Expr, GroupItem};
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<S: Serializer>(items: &[Expr], s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(items.iter().map(|expr| GroupRef { expr }))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Expr>, D::Error> {
        Ok(Vec::<GroupItem>::deserialize(d)?
            .into_iter()
            .map(|g| g.expr)
            .collect())
    }

    #[derive(Serialize)]
    struct GroupRef<'a> {
        expr: &'a Expr,
    }
}

/// A named sub-plan.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Cte {
    /// The name `tables` uses to read it.
    pub name: String,
    /// The sub-plan.
    pub plan: Plan,
    /// `WITH RECURSIVE`: the sub-plan's first part gives the starting rows, and each plan in
    /// its `set_operations` (UNION ALL) reads `name` once to add rows made from the rows
    /// added last, until none are added (a hierarchy's levels, a series of dates).
    #[serde(default, skip_serializing_if = "is_false")]
    pub recursive: bool,
}

/// A table read under an alias.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct TableRef {
    /// The table (or CTE) name.
    pub name: String,
    /// The schema, when the datasource has several.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", schemars(skip))]
    pub schema_name: Option<String>,
    /// The database, when the datasource has several.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", schemars(skip))]
    pub database: Option<String>,
    /// The alias every column reference uses.
    pub alias: String,
}

/// A join between two aliases.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Join {
    /// The alias already in the query.
    pub left_alias: String,
    /// The alias this join brings in.
    pub right_alias: String,
    /// Inner, outer or cross.
    #[serde(default)]
    pub join_type: JoinType,
    /// The `ON` condition; absent exactly for a cross join.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub condition: Option<Expr>,
}

/// The kind of join.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
    /// Every pairing of the two sides' rows (no condition).
    Cross,
}

/// One result column.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SelectItem {
    /// What it computes.
    pub expr: Expr,
    /// Its name in the result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alias: Option<String>,
}

/// One ordering term.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct OrderItem {
    /// What to order by.
    pub expr: Expr,
    /// Ascending or descending.
    #[serde(default)]
    pub direction: Direction,
    /// Where NULLs go; absent: where the database puts them (first ascending on SQLite,
    /// MySQL, SQL Server and Spark; last ascending on PostgreSQL; last both ways on DuckDB).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nulls: Option<Nulls>,
}

/// Where an ordering puts NULLs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum Nulls {
    /// Before every value.
    First,
    /// After every value.
    Last,
}

/// Sort direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    /// Smallest first.
    #[default]
    Asc,
    /// Largest first.
    Desc,
}

/// A plan combined with the one before it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SetOperation {
    /// How the two combine.
    pub op: SetOperator,
    /// The plan combined in; its own `order_by`, `limit` and `offset` must be empty.
    pub plan: Plan,
}

/// How two plans' rows combine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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

/// An expression: an object tagged by `kind`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self", rename_all = "lowercase", deny_unknown_fields)]
#[cfg_attr(
    feature = "schema",
    derive(schemars::JsonSchema),
    schemars(rename = "Expr", tag = "kind")
)]
pub enum Expr {
    /// A constant.
    Literal(Literal),
    /// A column of an alias (`column` may be `*`). Without an alias it names a result
    /// column or must be unambiguous across the plan's tables.
    Column {
        /// The table alias, if given.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        alias: Option<String>,
        /// The column name.
        #[serde(rename = "column_name")]
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
        #[serde(deserialize_with = "at_least_one")]
        whens: Vec<When>,
        /// The value when no branch matches (NULL when absent).
        #[serde(default, skip_serializing_if = "Option::is_none")]
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
        #[serde(default, skip_serializing_if = "is_false")]
        negated: bool,
    },
    /// A subquery: a scalar when it stands alone, a set as the right side of `IN`.
    Subquery {
        /// The query.
        plan: Box<Plan>,
    },
    /// `EXISTS (subquery)`; `NOT EXISTS` is a `NOT` around it.
    Exists {
        /// The query.
        plan: Box<Plan>,
    },
}

/// The reference engine's flat expression carries every field on every kind; those a kind
/// does not use are ignored while they hold their default.
const EXPR_TOLERANCE: Tolerance = &[
    ("value", Ignored::Default),
    ("is_null", Ignored::Default),
    ("alias", Ignored::Default),
    ("column_name", Ignored::Default),
    ("func_name", Ignored::Default),
    ("args", Ignored::Default),
    ("is_aggregate", Ignored::AnyBool),
    ("distinct", Ignored::Default),
    ("op", Ignored::Default),
    ("left", Ignored::Default),
    ("right", Ignored::Default),
    ("expr", Ignored::Default),
    ("whens", Ignored::Default),
    ("else_expr", Ignored::Default),
];

/// The reference's plan carries `query_type`, which is always `READ`.
const PLAN_TOLERANCE: Tolerance = &[("query_type", Ignored::Read)];

fn at_least_one<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<When>, D::Error> {
    let whens = Vec::<When>::deserialize(d)?;
    if whens.is_empty() {
        return Err(serde::de::Error::custom(
            "a case needs at least one entry in `whens`",
        ));
    }
    Ok(whens)
}

/// A constant value. Written `{"value": …}` or `{"is_null": true}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "LiteralForm", into = "LiteralForm")]
#[cfg_attr(
    feature = "schema",
    derive(schemars::JsonSchema),
    schemars(with = "LiteralForm")
)]
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

/// A literal's fields.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
struct LiteralForm {
    /// The value (null only with `is_null`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    value: Option<Scalar>,
    /// SQL NULL.
    #[serde(default, skip_serializing_if = "is_false")]
    is_null: bool,
}

impl TryFrom<LiteralForm> for Literal {
    type Error = &'static str;

    fn try_from(form: LiteralForm) -> Result<Literal, &'static str> {
        Ok(match (form.value, form.is_null) {
            (_, true) => Literal::Null,
            (Some(Scalar(l)), false) => l,
            (None, false) => return Err("a literal needs a `value`, or `is_null: true`"),
        })
    }
}

impl From<Literal> for LiteralForm {
    fn from(l: Literal) -> LiteralForm {
        match l {
            Literal::Null => LiteralForm {
                value: None,
                is_null: true,
            },
            l => LiteralForm {
                value: Some(Scalar(l)),
                is_null: false,
            },
        }
    }
}

/// A JSON scalar as the literal it writes: its JSON type is kept.
struct Scalar(Literal);

impl Serialize for Scalar {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match &self.0 {
            Literal::Null => s.serialize_unit(),
            Literal::Bool(b) => s.serialize_bool(*b),
            Literal::Integer(i) => s.serialize_i64(*i),
            Literal::Real(r) => s.serialize_f64(*r),
            Literal::Text(t) => s.serialize_str(t),
        }
    }
}

impl<'de> Deserialize<'de> for Scalar {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Scalar, D::Error> {
        struct Of;
        impl serde::de::Visitor<'_> for Of {
            type Value = Scalar;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a string, number or boolean")
            }
            fn visit_bool<E>(self, b: bool) -> Result<Scalar, E> {
                Ok(Scalar(Literal::Bool(b)))
            }
            fn visit_i64<E>(self, i: i64) -> Result<Scalar, E> {
                Ok(Scalar(Literal::Integer(i)))
            }
            fn visit_u64<E: serde::de::Error>(self, u: u64) -> Result<Scalar, E> {
                // Beyond i64, a number is kept as the decimal JSON says it is.
                Ok(Scalar(
                    i64::try_from(u).map_or(Literal::Real(u as f64), Literal::Integer),
                ))
            }
            fn visit_f64<E>(self, r: f64) -> Result<Scalar, E> {
                Ok(Scalar(Literal::Real(r)))
            }
            fn visit_str<E>(self, t: &str) -> Result<Scalar, E> {
                Ok(Scalar(Literal::Text(t.to_string())))
            }
            fn visit_string<E>(self, t: String) -> Result<Scalar, E> {
                Ok(Scalar(Literal::Text(t)))
            }
        }
        d.deserialize_any(Of)
    }
}

#[cfg(feature = "schema")]
impl schemars::JsonSchema for Scalar {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Scalar".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({"type": ["string", "number", "boolean"]})
    }
}

/// A function call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct FuncCall {
    /// The function name as the plan gives it; the validator checks it against an allow-list.
    #[serde(rename = "func_name")]
    pub name: String,
    /// The arguments.
    #[serde(default)]
    pub args: Vec<Expr>,
    /// `FUNC(DISTINCT …)`.
    #[serde(default, skip_serializing_if = "is_false")]
    pub distinct: bool,
    /// An aggregate's row filter (`COUNT(*) FILTER (WHERE …)`): only rows where it holds
    /// are aggregated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filter: Option<Box<Expr>>,
    /// The order the values are read in, for `PERCENTILE_CONT`/`PERCENTILE_DISC` (`WITHIN
    /// GROUP (ORDER BY x)`: the value measured) and `STRING_AGG` (the order joined). Read
    /// from SQL and JSON; left out of the model's schema to keep its prompt within budget
    /// (a model asks for `MEDIAN(x)`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(feature = "schema", schemars(skip))]
    pub order_by: Vec<OrderItem>,
    /// The window, for window functions and aggregates used as such.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub over: Option<Window>,
}

/// `OVER (PARTITION BY … ORDER BY … [frame])`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Window {
    /// The partitions.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub partition_by: Vec<Expr>,
    /// The order within a partition.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub order_by: Vec<OrderItem>,
    /// The frame, when not the default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame: Option<Frame>,
}

/// A window frame.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Frame {
    /// Rows or value range.
    pub unit: FrameUnit,
    /// Where the frame starts.
    pub start: FrameBound,
    /// Where it ends.
    pub end: FrameBound,
    /// For a `range` frame ordered by a date or timestamp: what its offsets count (`day`,
    /// `hour`, …), so a frame can span the last 7 days whatever rows there are. Read from
    /// SQL and JSON; left out of the model's schema to keep its prompt within budget.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", schemars(skip))]
    pub offset_unit: Option<crate::units::DateUnit>,
}

/// What a frame counts in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum FrameUnit {
    /// Physical rows.
    Rows,
    /// Values of the ordering key.
    Range,
}

/// One end of a frame: an object tagged by `kind` (`{"kind": "preceding", "offset": 3}`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(remote = "Self", rename_all = "snake_case", deny_unknown_fields)]
pub enum FrameBound {
    /// From the partition's first row.
    UnboundedPreceding,
    /// This many rows (or values) before.
    Preceding {
        /// How many.
        offset: u64,
    },
    /// The current row.
    CurrentRow,
    /// This many rows (or values) after.
    Following {
        /// How many.
        offset: u64,
    },
    /// To the partition's last row.
    UnboundedFollowing,
}

/// A strict structured-output schema sends `"offset": null` with the bounds that have none.
const BOUND_TOLERANCE: Tolerance = &[("offset", Ignored::Default)];

/// Described as one flat object, `offset` null where a bound has none: a fifth of the size
/// of one alternative per kind, in every planner call's schema. The reader takes both.
#[cfg(feature = "schema")]
impl schemars::JsonSchema for FrameBound {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "FrameBound".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "object",
            "properties": {
                "kind": {
                    "type": "string",
                    "enum": ["unbounded_preceding", "preceding", "current_row", "following", "unbounded_following"]
                },
                "offset": {"type": ["integer", "null"]}
            }
        })
    }
}

/// A `CASE` branch.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct When {
    /// The condition.
    pub condition: Expr,
    /// The value when it holds.
    pub result: Expr,
}

/// Reads the operators of one table both ways, and describes them to JSON Schema.
macro_rules! operators {
    ($(#[$doc:meta])* $name:ident, $what:literal, offered: $offered:expr, aliases: $aliases:expr,
     { $($(#[$vdoc:meta])* $variant:ident => $text:literal,)* }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum $name {
            $($(#[$vdoc])* $variant,)*
        }

        impl $name {
            /// Every operator, in the table's order.
            pub const ALL: &'static [$name] = &[$($name::$variant,)*];

            /// The operator as JSON (and the one-line form) writes it.
            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $text,)*
                }
            }

            /// Reads an operator, ignoring case and spacing.
            pub fn parse(text: &str) -> Option<$name> {
                let normal = text
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" ")
                    .to_ascii_uppercase();
                let aliases: &[(&str, $name)] = $aliases;
                Self::ALL
                    .iter()
                    .copied()
                    .find(|op| op.as_str() == normal)
                    .or_else(|| aliases.iter().find(|(a, _)| *a == normal).map(|(_, op)| *op))
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<$name, D::Error> {
                struct Op;
                impl serde::de::Visitor<'_> for Op {
                    type Value = $name;
                    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                        f.write_str($what)
                    }
                    fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<$name, E> {
                        $name::parse(text).ok_or_else(|| {
                            let offered: fn(&$name) -> bool = $offered;
                            let known: Vec<&str> = $name::ALL
                                .iter()
                                .filter(|op| offered(op))
                                .map(|o| o.as_str())
                                .collect();
                            E::custom(format!(
                                "unknown {} {text:?}; use one of {}",
                                $what,
                                known.join(" ")
                            ))
                        })
                    }
                }
                d.deserialize_str(Op)
            }
        }

        #[cfg(feature = "schema")]
        impl schemars::JsonSchema for $name {
            fn schema_name() -> std::borrow::Cow<'static, str> {
                stringify!($name).into()
            }

            fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
                let offered: fn(&$name) -> bool = $offered;
                let names: Vec<&str> = $name::ALL
                    .iter()
                    .filter(|op| offered(op))
                    .map(|op| op.as_str())
                    .collect();
                schemars::json_schema!({"type": "string", "enum": names})
            }
        }
    };
}

operators! {
    /// A binary operator.
    BinaryOp, "binary op",
    // NOT is read so the validator can refuse it by name, never offered.
    offered: |op| *op != BinaryOp::Not,
    aliases: &[("<>", BinaryOp::NotEq)],
    {
        /// `=`
        Eq => "=",
        /// `!=` (`<>` reads as this too)
        NotEq => "!=",
        /// `>`
        Gt => ">",
        /// `<`
        Lt => "<",
        /// `>=`
        GtEq => ">=",
        /// `<=`
        LtEq => "<=",
        /// `+` (concatenation when an operand is a text literal)
        Plus => "+",
        /// `-`
        Minus => "-",
        /// `*`
        Multiply => "*",
        /// `/`
        Divide => "/",
        /// `%`
        Modulo => "%",
        /// `||`, string concatenation
        Concat => "||",
        /// `AND`
        And => "AND",
        /// `OR`
        Or => "OR",
        /// `LIKE`
        Like => "LIKE",
        /// `NOT LIKE`
        NotLike => "NOT LIKE",
        /// `ILIKE`: case-insensitive `LIKE`
        ILike => "ILIKE",
        /// `NOT ILIKE`
        NotILike => "NOT ILIKE",
        /// `IN`
        In => "IN",
        /// `NOT IN`
        NotIn => "NOT IN",
        /// `IS` (with NULL, or a value for a null-safe comparison)
        Is => "IS",
        /// `IS NOT`
        IsNot => "IS NOT",
        /// `NOT` as a binary operator: the reference schema admits it, the validator rejects
        /// it (`NOT` belongs on a unary expression).
        Not => "NOT",
    }
}

operators! {
    /// A unary operator.
    UnaryOp, "unary op",
    offered: |_| true,
    aliases: &[],
    {
        /// `NOT`
        Not => "NOT",
        /// `+`
        Plus => "+",
        /// `-`
        Minus => "-",
    }
}

/// The types `CAST` converts to, portable across dialects.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum CastType {
    /// A whole number.
    Integer,
    /// A decimal number.
    Real,
    /// Text.
    Text,
    /// An exact decimal number (a real on SQLite, which has no exact decimals).
    Numeric,
    /// A date (`YYYY-MM-DD`).
    Date,
    /// A date and time of day (`YYYY-MM-DD HH:MM:SS` on SQLite).
    Timestamp,
}

/// The serde traits of the types derived under `remote = "Self"`: the derived code
/// around the adapters of [`crate::tag`].
impl Serialize for Plan {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        Plan::serialize(self, s)
    }
}

impl<'de> Deserialize<'de> for Plan {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Plan, D::Error> {
        Plan::deserialize(Lenient {
            inner: d,
            tolerance: PLAN_TOLERANCE,
        })
    }
}

macro_rules! tagged {
    ($($name:ident: $tolerance:expr;)*) => {
        $(
            impl Serialize for $name {
                fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                    $name::serialize(self, KindFirst(s))
                }
            }

            impl<'de> Deserialize<'de> for $name {
                fn deserialize<D: Deserializer<'de>>(d: D) -> Result<$name, D::Error> {
                    deserialize_tagged(d)
                }
            }

            impl Tagged for $name {
                const TOLERANCE: Tolerance = $tolerance;

                fn derived<'de, D: Deserializer<'de>>(d: D) -> Result<$name, D::Error> {
                    $name::deserialize(d)
                }
            }
        )*
    };
}

tagged! {
    Expr: EXPR_TOLERANCE;
    FrameBound: BOUND_TOLERANCE;
}

/// `name(args)`: a plain call, with no `DISTINCT`, filter, order or window. The importer's
/// and the lowering's plan rewrites build their calls with it.
pub(crate) fn call(name: &str, args: Vec<Expr>) -> Expr {
    Expr::Func(FuncCall {
        name: name.to_string(),
        args,
        distinct: false,
        filter: None,
        order_by: vec![],
        over: None,
    })
}
