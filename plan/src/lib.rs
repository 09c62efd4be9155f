//! nl2sql-plan: the typed query plan and everything that is pure SQL work.
//!
//! A plan is what the model writes instead of SQL ([`Plan`], [`Expr`]): plain data whose
//! JSON form accepts the reference engine's `PlanModel` as it is and adds CTEs, set
//! operations, subqueries, `EXISTS`, windows, `CAST` and `BETWEEN`. Around it: import from
//! SQL ([`import`]), the logical validator ([`validate`]), the generator for each dialect
//! ([`lower`]), the read-only guard ([`guard`]), the schema a plan is checked against
//! ([`schema`]) and the role policies ([`policy`]). Nothing here does I/O, and nothing
//! depends on the engine above it.

mod ast;
pub mod dialect;
mod display;
mod error;
pub mod functions;
pub mod guard;
pub mod import;
pub mod json;
mod json_schema;
pub mod lower;
pub mod policy;
mod read;
pub mod regex;
pub mod schema;
#[cfg(not(target_arch = "wasm32"))]
mod spark_sql;
mod tag;
#[cfg(any(test, feature = "fixtures"))]
pub mod test_fixtures;
mod units;
pub mod validate;
pub mod value;
pub mod walk;

pub use ast::{
    BinaryOp, CastType, Cte, Direction, Expr, Frame, FrameBound, FrameUnit, FuncCall, Join,
    JoinType, Literal, Nulls, OrderItem, Plan, SelectItem, SetOperation, SetOperator, TableRef,
    UnaryOp, When, Window,
};
pub use dialect::Dialect;
pub use error::{Error, ErrorKind};
pub use json_schema::plan_json_schema;
pub use schema::{Column, ColumnStats, ForeignKey, KeySource, SchemaSnapshot, Table, TypeCategory};
pub use value::Value;

#[cfg(test)]
mod plan_tests;
