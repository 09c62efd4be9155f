//! Reading a plan, or any typed answer, from JSON text: a fault says where it is
//! (`select_items[0].expr.args[1]: …`), and a plan's nesting is bounded before anything
//! walks it.

pub use crate::read::from_str;
use crate::{walk, Error, ErrorKind, Plan};

/// How deep expressions and sub-plans may nest. Far beyond any real question (the deepest
/// gold plan nests 6), and low enough that validating, rendering and re-parsing the SQL
/// (sqlparser stops at 50) never run out of stack, even in wasm.
pub const MAX_DEPTH: usize = 40;

impl Plan {
    /// Reads a plan from its JSON text: the shape checked field by field (unknown fields
    /// refused, the reference's own fields on a kind that does not use them ignored while
    /// they hold their default), then its nesting bounded by [`MAX_DEPTH`]. Whether it makes
    /// sense against a schema is the validator's question, not this one's.
    pub fn from_json(text: &str) -> Result<Plan, Error> {
        let plan: Plan = from_str(text)?;
        if walk::nesting(&plan, MAX_DEPTH) > MAX_DEPTH {
            return Err(Error::new(
                ErrorKind::Shape {
                    path: String::new(),
                },
                format!("the plan nests more than {MAX_DEPTH} levels deep; write it flatter"),
            ));
        }
        Ok(plan)
    }

    /// The plan's JSON text, in its compact form (defaults left out, `kind` first).
    pub fn to_json(&self) -> String {
        // Plain data with string keys: writing it cannot fail.
        serde_json::to_string(self).unwrap_or_default()
    }
}
