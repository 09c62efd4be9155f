//! The plan's JSON Schema, for model structured output.
//!
//! Compact on purpose (the reference engine sends 22,000 characters of schema with every
//! planner call): expressions are an `anyOf` discriminated by `kind`, each alternative
//! listing only the fields its kind uses. Every object is closed and lists all its
//! properties as required, nullable where optional, which OpenAI's strict mode demands and
//! Anthropic's tool input accepts. Operator, type and bound names come from the same tables
//! the parser reads, so the two cannot disagree.

use crate::ast::{BinaryOp, CastType, Direction, FrameUnit, JoinType, SetOperator};
use crate::wire::{binary_op_text, WireBoundKind, ALL_BINARY_OPS};
use serde_json::{json, Map, Value};

/// A closed object whose every property is required.
fn object(properties: Vec<(&str, Value)>) -> Value {
    let required: Vec<&str> = properties.iter().map(|(k, _)| *k).collect();
    let properties: Map<String, Value> = properties
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
    json!({"type": "object", "additionalProperties": false, "required": required, "properties": properties})
}

fn nullable(schema: Value) -> Value {
    json!({"anyOf": [schema, {"type": "null"}]})
}

fn array(items: Value) -> Value {
    json!({"type": "array", "items": items})
}

fn names<T: serde::Serialize>(values: &[T]) -> Value {
    Value::Array(
        values
            .iter()
            .filter_map(|v| serde_json::to_value(v).ok())
            .collect(),
    )
}

fn expr() -> Value {
    json!({"$ref": "#/$defs/expr"})
}

fn plan() -> Value {
    json!({"$ref": "#"})
}

fn kind(name: &str) -> (&str, Value) {
    ("kind", json!({"type": "string", "const": name}))
}

/// A string from a fixed list; typed, since strict validators want a `type` on every node.
fn one_of(values: Value) -> Value {
    json!({"type": "string", "enum": values})
}

/// The schema of a plan, as sent to the model.
pub fn plan_json_schema() -> Value {
    let binary_ops: Vec<&str> = ALL_BINARY_OPS
        .into_iter()
        .filter(|op| *op != BinaryOp::Not)
        .map(binary_op_text)
        .collect();
    let expressions = vec![
        object(vec![
            kind("literal"),
            (
                "value",
                json!({"type": ["string", "number", "boolean", "null"]}),
            ),
            ("is_null", json!({"type": "boolean"})),
        ]),
        object(vec![
            kind("column"),
            ("alias", json!({"type": ["string", "null"]})),
            ("column_name", json!({"type": "string"})),
        ]),
        object(vec![
            kind("func"),
            ("func_name", json!({"type": "string"})),
            ("args", array(expr())),
            ("distinct", json!({"type": "boolean"})),
            ("over", nullable(json!({"$ref": "#/$defs/window"}))),
        ]),
        object(vec![
            kind("binary"),
            ("op", one_of(json!(binary_ops))),
            ("left", expr()),
            ("right", expr()),
        ]),
        object(vec![
            kind("unary"),
            ("op", one_of(json!(["NOT", "+", "-"]))),
            ("expr", expr()),
        ]),
        object(vec![
            kind("case"),
            (
                "whens",
                array(object(vec![("condition", expr()), ("result", expr())])),
            ),
            ("else_expr", nullable(expr())),
        ]),
        object(vec![
            kind("cast"),
            ("expr", expr()),
            (
                "to",
                one_of(names(&[
                    CastType::Integer,
                    CastType::Real,
                    CastType::Text,
                    CastType::Date,
                ])),
            ),
        ]),
        object(vec![
            kind("between"),
            ("expr", expr()),
            ("low", expr()),
            ("high", expr()),
            ("negated", json!({"type": "boolean"})),
        ]),
        object(vec![kind("subquery"), ("plan", plan())]),
        object(vec![kind("exists"), ("plan", plan())]),
    ];
    let order = object(vec![
        ("expr", expr()),
        (
            "direction",
            one_of(names(&[Direction::Asc, Direction::Desc])),
        ),
    ]);
    let bound = object(vec![
        (
            "kind",
            one_of(names(&[
                WireBoundKind::UnboundedPreceding,
                WireBoundKind::Preceding,
                WireBoundKind::CurrentRow,
                WireBoundKind::Following,
                WireBoundKind::UnboundedFollowing,
            ])),
        ),
        ("offset", json!({"type": ["integer", "null"]})),
    ]);
    let window = object(vec![
        ("partition_by", array(expr())),
        ("order_by", array(json!({"$ref": "#/$defs/order"}))),
        (
            "frame",
            nullable(object(vec![
                ("unit", one_of(names(&[FrameUnit::Rows, FrameUnit::Range]))),
                ("start", json!({"$ref": "#/$defs/bound"})),
                ("end", json!({"$ref": "#/$defs/bound"})),
            ])),
        ),
    ]);
    let mut root = object(vec![
        ("reasoning", json!({"type": ["string", "null"]})),
        (
            "with",
            array(object(vec![
                ("name", json!({"type": "string"})),
                ("plan", plan()),
            ])),
        ),
        ("distinct", json!({"type": "boolean"})),
        (
            "tables",
            array(object(vec![
                ("name", json!({"type": "string"})),
                ("alias", json!({"type": "string"})),
            ])),
        ),
        (
            "joins",
            array(object(vec![
                ("left_alias", json!({"type": "string"})),
                ("right_alias", json!({"type": "string"})),
                (
                    "join_type",
                    one_of(names(&[
                        JoinType::Inner,
                        JoinType::Left,
                        JoinType::Right,
                        JoinType::Full,
                    ])),
                ),
                ("condition", expr()),
            ])),
        ),
        (
            "select_items",
            array(object(vec![
                ("expr", expr()),
                ("alias", json!({"type": ["string", "null"]})),
            ])),
        ),
        ("where", nullable(expr())),
        ("group_by", array(object(vec![("expr", expr())]))),
        ("having", nullable(expr())),
        ("order_by", array(json!({"$ref": "#/$defs/order"}))),
        ("limit", json!({"type": ["integer", "null"]})),
        ("offset", json!({"type": ["integer", "null"]})),
        (
            "set_operations",
            array(object(vec![
                (
                    "op",
                    one_of(names(&[
                        SetOperator::Union,
                        SetOperator::UnionAll,
                        SetOperator::Intersect,
                        SetOperator::Except,
                    ])),
                ),
                ("plan", plan()),
            ])),
        ),
    ]);
    root["$defs"] = json!({
        "expr": {"anyOf": expressions},
        "order": order,
        "window": window,
        "bound": bound,
    });
    root
}
