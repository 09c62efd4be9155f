//! Result comparison as the reference suites score it. Strict: column names ignored, column
//! order kept, numbers equal within 0.005, a number equal to a string that spells it, row
//! order compared only when the case says it matters. Lenient: extra or reordered result
//! columns allowed, as long as each gold column is matched by its own result column.

use nl2sql_core::result::Value;

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

/// The lenient comparison: at most `max(2g, g + 2)` result columns for `g` gold columns;
/// each gold column is matched, as a multiset of cells, by a distinct result column (a
/// constant or all-NULL column stands in for nothing when there are several rows); the
/// rows must then match through that choice of columns.
pub fn compare_lenient(
    got: &[Vec<Value>],
    want: &[Vec<Gold>],
    ordered: bool,
) -> Result<(), String> {
    let width = want.first().map_or(0, Vec::len);
    let got_width = got.first().map_or(0, Vec::len);
    if got.len() != want.len() {
        return Err(format!("{} rows, gold has {}", got.len(), want.len()));
    }
    if got_width > (2 * width).max(width + 2) {
        return Err(format!("{got_width} columns for {width} gold columns"));
    }
    let column = |rows: &[Vec<Value>], i: usize| -> Vec<Value> {
        rows.iter()
            .map(|r| r.get(i).cloned().unwrap_or(Value::Null))
            .collect()
    };
    let degenerate = |cells: &[Value]| {
        cells.len() > 1
            && (cells.iter().all(|c| *c == Value::Null) || cells.windows(2).all(|p| p[0] == p[1]))
    };
    let candidates: Vec<Vec<usize>> = (0..width)
        .map(|g| {
            let gold: Vec<Gold> = want.iter().map(|r| r[g].clone()).collect();
            (0..got_width)
                .filter(|&i| {
                    let cells = column(got, i);
                    let constant_gold = gold.len() > 1 && gold.windows(2).all(|p| p[0] == p[1]);
                    (!degenerate(&cells) || constant_gold)
                        && compare(
                            &cells.iter().map(|c| vec![c.clone()]).collect::<Vec<_>>(),
                            &gold.iter().map(|c| vec![c.clone()]).collect::<Vec<_>>(),
                            false,
                        )
                        .is_ok()
                })
                .collect()
        })
        .collect();
    let mut chosen = Vec::with_capacity(width);
    if assign(&candidates, &mut chosen, &|cols: &[usize]| {
        let projected: Vec<Vec<Value>> = got
            .iter()
            .map(|r| {
                cols.iter()
                    .map(|&i| r.get(i).cloned().unwrap_or(Value::Null))
                    .collect()
            })
            .collect();
        compare(&projected, want, ordered).is_ok()
    }) {
        Ok(())
    } else {
        Err("no choice of result columns matches the gold columns".to_string())
    }
}

/// Tries every assignment of distinct candidate columns, depth first, until `fits` accepts.
fn assign(
    candidates: &[Vec<usize>],
    chosen: &mut Vec<usize>,
    fits: &dyn Fn(&[usize]) -> bool,
) -> bool {
    let Some(options) = candidates.get(chosen.len()) else {
        return fits(chosen);
    };
    for &c in options {
        if chosen.contains(&c) {
            continue;
        }
        chosen.push(c);
        if assign(candidates, chosen, fits) {
            return true;
        }
        chosen.pop();
    }
    false
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

    #[test]
    fn lenient_allows_extra_and_reordered_columns_but_not_stand_ins() {
        let got = vec![
            vec![
                Value::Text("x".into()),
                Value::Integer(1),
                Value::Text("a".into()),
            ],
            vec![
                Value::Text("x".into()),
                Value::Integer(2),
                Value::Text("b".into()),
            ],
        ];
        let want = vec![
            vec![Gold::Text("a".into()), Gold::Number(1.0)],
            vec![Gold::Text("b".into()), Gold::Number(2.0)],
        ];
        assert!(compare(&got, &want, false).is_err());
        assert!(compare_lenient(&got, &want, true).is_ok());
        let swapped = vec![
            vec![Gold::Text("a".into()), Gold::Number(2.0)],
            vec![Gold::Text("b".into()), Gold::Number(1.0)],
        ];
        assert!(compare_lenient(&got, &swapped, false).is_err());
    }
}
