//! The typed query plan: what the model writes instead of SQL.
//!
//! [`Plan`] and [`Expr`] are plain data. Their JSON form (see [`wire`]) accepts the
//! reference engine's `PlanModel` exactly as it is (flat expressions discriminated by
//! `kind`, IN lists as a `TUPLE`/`LIST` function, absent keys taking their defaults, unknown
//! keys rejected) and adds what that language lacks: CTEs, set operations, subqueries,
//! `EXISTS`, window functions, `CAST` and `BETWEEN`. Parsing checks only the shape; whether a
//! plan makes sense against a schema and a role is the validator's job.

mod ast;
mod display;
pub mod functions;
mod schema;
pub mod wire;

pub use ast::{
    BinaryOp, CastType, Cte, Direction, Expr, Frame, FrameBound, FrameUnit, FuncCall, Join,
    JoinType, Literal, OrderItem, Plan, SelectItem, SetOperation, SetOperator, TableRef, UnaryOp,
    When, Window,
};
pub use schema::plan_json_schema;

#[cfg(test)]
mod tests;
