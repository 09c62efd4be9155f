//! The template answer: a deterministic sentence from the rows, with no model call, so
//! every number and name in it is in the rows by construction.

use crate::value::Value;

fn show(v: &Value) -> String {
    match v {
        Value::Null => "nothing".to_string(),
        Value::Integer(i) => i.to_string(),
        Value::Real(r) => {
            let rounded = (r * 100.0).round() / 100.0;
            format!("{rounded}")
        }
        Value::Text(t) => t.clone(),
        Value::Blob(b) => format!("{} bytes", b.len()),
    }
}

/// One sentence about `rows` under `columns`.
pub fn template(columns: &[String], rows: &[Vec<Value>], truncated: bool) -> String {
    let more = if truncated {
        " (the row cap was reached, so there may be more)"
    } else {
        ""
    };
    match (rows, columns) {
        ([], _) => "The query ran and found no rows.".to_string(),
        ([row], [column]) => format!(
            "{}: {}.",
            column,
            row.first().map_or_else(String::new, show)
        ),
        ([row], _) => {
            let parts: Vec<String> = columns
                .iter()
                .zip(row)
                .map(|(c, v)| format!("{c} {}", show(v)))
                .collect();
            format!("One row: {}.", parts.join(", "))
        }
        (rows, _) => {
            let first: Vec<String> = rows
                .iter()
                .take(3)
                .map(|r| r.iter().map(show).collect::<Vec<_>>().join(", "))
                .collect();
            format!(
                "{} rows{more}; the first: {}.",
                rows.len(),
                first.join("; ")
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sentences_only_repeat_the_rows() {
        let cols = |names: &[&str]| names.iter().map(|n| n.to_string()).collect::<Vec<_>>();
        assert_eq!(
            template(&cols(&["n"]), &[], false),
            "The query ran and found no rows."
        );
        assert_eq!(
            template(&cols(&["total"]), &[vec![Value::Real(1.234)]], false),
            "total: 1.23."
        );
        let rows = vec![
            vec![Value::Text("USA".into()), Value::Integer(13)],
            vec![Value::Text("Canada".into()), Value::Integer(8)],
        ];
        assert_eq!(
            template(&cols(&["country", "n"]), &rows, true),
            "2 rows (the row cap was reached, so there may be more); the first: USA, 13; Canada, 8."
        );
    }
}
