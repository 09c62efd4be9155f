//! Reading a plan, or any typed answer, from JSON text: a fault says where it is
//! (`select_items[0].expr.args[1]: …`), and a plan's nesting is bounded before anything
//! walks it.

use crate::{walk, Error, ErrorKind, Plan};
use serde::de::DeserializeOwned;

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

/// Reads `T` from JSON text, saying where a fault is. serde_json bounds the nesting of the
/// text itself (128 levels), so reading never runs out of stack.
///
/// It reads once without tracking where it is (tracking costs a third of a plan's parse),
/// and only when that fails a second time, to say where.
pub fn from_str<T: DeserializeOwned>(text: &str) -> Result<T, Error> {
    serde_json::from_str(text).map_err(|first| {
        let mut reader = serde_json::Deserializer::from_str(text);
        match serde_path_to_error::deserialize::<_, T>(&mut reader) {
            Err(e) => {
                let path = e.path().to_string();
                shape(if path == "." { "" } else { &path }, e.inner())
            }
            // Text after the value: only the whole read (the first) sees it.
            Ok(_) => shape("", &first),
        }
    })
}

fn shape(path: &str, e: &serde_json::Error) -> Error {
    // serde_json ends its messages with the place in the text, which the path says better.
    let message = e.to_string();
    let message = match message.rfind(" at line ") {
        Some(at) if !path.is_empty() => message[..at].to_string(),
        _ => message,
    };
    Error::new(
        ErrorKind::Shape {
            path: path.to_string(),
        },
        message,
    )
}
