//! Result comparison as the reference suites score it: column names ignored, column order
//! kept, numbers equal within 0.005, a number equal to a string that spells it, row order
//! compared only when the case says it matters.

use nl2sql_core::Value;

/// The tolerance for numbers.
pub const TOLERANCE: f64 = 0.005 + 1e-9;

/// A gold cell: what a suite file holds.
#[derive(Debug, Clone, PartialEq)]
pub enum Gold {
    /// A missing value.
    Null,
    /// A number.
    Number(f64),
    /// Text.
    Text(String),
    /// True or false.
    Bool(bool),
}

fn number_of(text: &str) -> Option<f64> {
    text.trim().parse::<f64>().ok()
}

/// Does a result cell match a gold cell?
pub fn cell_matches(got: &Value, want: &Gold) -> bool {
    let got_number = match got {
        Value::Integer(i) => Some(*i as f64),
        Value::Real(x) => Some(*x),
        Value::Text(t) => number_of(t),
        _ => None,
    };
    match want {
        Gold::Null => matches!(got, Value::Null),
        Gold::Number(w) => got_number.is_some_and(|g| (g - w).abs() <= TOLERANCE),
        Gold::Text(w) => match got {
            Value::Text(t) => t == w,
            Value::Integer(_) | Value::Real(_) => {
                number_of(w).is_some_and(|w| got_number.is_some_and(|g| (g - w).abs() <= TOLERANCE))
            }
            _ => false,
        },
        Gold::Bool(b) => match got {
            Value::Integer(i) => (*i != 0) == *b,
            _ => false,
        },
    }
}

fn row_matches(got: &[Value], want: &[Gold]) -> bool {
    got.len() == want.len() && got.iter().zip(want).all(|(g, w)| cell_matches(g, w))
}

/// Compares a result with the gold rows; `Err` says how they differ.
pub fn compare(got: &[Vec<Value>], want: &[Vec<Gold>], ordered: bool) -> Result<(), String> {
    if got.len() != want.len() {
        return Err(format!("{} rows, gold has {}", got.len(), want.len()));
    }
    if ordered {
        for (i, (g, w)) in got.iter().zip(want).enumerate() {
            if !row_matches(g, w) {
                return Err(format!("row {i}: got {g:?}, gold {w:?}"));
            }
        }
        return Ok(());
    }
    let mut used = vec![false; got.len()];
    for w in want {
        let found = got
            .iter()
            .enumerate()
            .find(|(i, g)| !used[*i] && row_matches(g, w));
        match found {
            Some((i, _)) => used[i] = true,
            None => return Err(format!("no result row matches gold row {w:?}")),
        }
    }
    Ok(())
}

/// A result cell as a gold cell, to compare two results with each other.
pub fn gold_of(v: &Value) -> Gold {
    match v {
        Value::Null => Gold::Null,
        Value::Integer(i) => Gold::Number(*i as f64),
        Value::Real(x) => Gold::Number(*x),
        Value::Text(t) => Gold::Text(t.clone()),
        Value::Blob(b) => Gold::Text(format!("{b:?}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_match_within_the_tolerance_and_strings_that_spell_them() {
        assert!(cell_matches(&Value::Real(1.004), &Gold::Number(1.0)));
        assert!(!cell_matches(&Value::Real(1.006), &Gold::Number(1.0)));
        assert!(cell_matches(
            &Value::Integer(2009),
            &Gold::Text("2009".into())
        ));
        assert!(cell_matches(
            &Value::Text("2009".into()),
            &Gold::Number(2009.0)
        ));
        assert!(!cell_matches(
            &Value::Text("a".into()),
            &Gold::Text("b".into())
        ));
        assert!(!cell_matches(&Value::Null, &Gold::Number(0.0)));
    }

    #[test]
    fn order_counts_only_when_asked() {
        let got = vec![vec![Value::Integer(1)], vec![Value::Integer(2)]];
        let want = vec![vec![Gold::Number(2.0)], vec![Gold::Number(1.0)]];
        assert!(compare(&got, &want, false).is_ok());
        assert!(compare(&got, &want, true).is_err());
        assert!(compare(&got[..1], &want, false).is_err());
    }
}
