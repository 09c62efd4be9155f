//! Reading a plan, or any typed answer, from JSON text: a fault says where it is
//! (`select_items[0].expr.args[1]: …`), and a plan's nesting is bounded before anything
//! walks it.

use crate::tag::KIND_LATE;
use crate::{walk, Error, ErrorKind, Plan};
use serde::de::DeserializeOwned;
use serde_json::Value;

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
pub fn from_str<T: DeserializeOwned>(text: &str) -> Result<T, Error> {
    match read(text) {
        Err(e) if e.message.contains(KIND_LATE) => {
            // Someone wrote `kind` after other fields: rewrite every object with it first.
            let value: Value = serde_json::from_str(text).map_err(|e| shape("", &e))?;
            let mut fixed = String::with_capacity(text.len());
            write_kind_first(&value, &mut fixed);
            read(&fixed)
        }
        other => other,
    }
}

fn read<T: DeserializeOwned>(text: &str) -> Result<T, Error> {
    let mut reader = serde_json::Deserializer::from_str(text);
    let value = serde_path_to_error::deserialize(&mut reader).map_err(|e| {
        let path = e.path().to_string();
        shape(if path == "." { "" } else { &path }, e.inner())
    })?;
    reader.end().map_err(|e| shape("", &e))?;
    Ok(value)
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

/// `value` as JSON text, every object's `kind` first.
fn write_kind_first(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            out.push('{');
            let entries = map
                .get_key_value("kind")
                .into_iter()
                .chain(map.iter().filter(|(k, _)| *k != "kind"));
            for (i, (key, item)) in entries.enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(key.clone()).to_string());
                out.push(':');
                write_kind_first(item, out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_kind_first(item, out);
            }
            out.push(']');
        }
        scalar => out.push_str(&scalar.to_string()),
    }
}
