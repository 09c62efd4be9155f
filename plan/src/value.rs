//! A database value, typed as SQLite stores it.

use serde::{Deserialize, Serialize};
use std::fmt;

/// One cell of a result. The variants are SQLite's five storage classes, so a value
/// keeps the type the database gave it (an integer never turns into a float on the way).
///
/// In JSON a value is written plainly: `null`, a number, a string, or, for a blob, an
/// array of byte values (the only JSON array a value ever becomes, so it reads back
/// unambiguously).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "Cell"))]
#[cfg_attr(
    feature = "schema",
    derive(schemars::JsonSchema),
    schemars(rename = "Cell")
)]
#[serde(untagged)]
pub enum Value {
    /// SQL NULL.
    Null,
    /// A 64-bit signed integer (in JavaScript a `bigint` beyond ±2^53, exactly).
    Integer(#[cfg_attr(feature = "ts", ts(type = "number | bigint"))] i64),
    /// An IEEE 754 double.
    Real(f64),
    /// UTF-8 text.
    Text(String),
    /// Raw bytes.
    Blob(Vec<u8>),
}

/// A short human form, as a result grid shows it: `NULL`, numbers as written, text as is,
/// a blob as `x'0a0b'` in the SQL literal style.
impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Null => f.write_str("NULL"),
            Value::Integer(i) => write!(f, "{i}"),
            Value::Real(r) => write!(f, "{r}"),
            Value::Text(s) => f.write_str(s),
            Value::Blob(b) => {
                f.write_str("x'")?;
                for byte in b {
                    write!(f, "{byte:02x}")?;
                }
                f.write_str("'")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_round_trips_every_storage_class() {
        let values = vec![
            Value::Null,
            Value::Integer(9_007_199_254_740_993),
            Value::Real(1.5),
            Value::Real(2.0),
            Value::Text("Ünïcødé 🎵".into()),
            Value::Blob(vec![0, 1, 255]),
        ];
        let json = serde_json::to_string(&values).unwrap();
        assert_eq!(
            json,
            r#"[null,9007199254740993,1.5,2.0,"Ünïcødé 🎵",[0,1,255]]"#
        );
        let back: Vec<Value> = serde_json::from_str(&json).unwrap();
        assert_eq!(back, values);
    }

    #[test]
    fn display_is_the_grid_form() {
        assert_eq!(Value::Null.to_string(), "NULL");
        assert_eq!(Value::Blob(vec![10, 11]).to_string(), "x'0a0b'");
        assert_eq!(Value::Real(0.99).to_string(), "0.99");
    }
}
