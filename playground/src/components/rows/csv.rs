//! Cells as text, and the rows as a CSV file.

use nl2sql_core::result::Value;

/// A cell as the grid shows it; a blob by its size (its bytes would be noise).
pub fn cell_text(v: &Value) -> String {
    match v {
        Value::Blob(bytes) => format!("<{} bytes>", bytes.len()),
        other => other.to_string(),
    }
}

pub fn to_csv(columns: &[String], rows: &[Vec<Value>]) -> String {
    let field = |s: &str| {
        if s.contains([',', '"', '\n', '\r']) {
            format!("\"{}\"", s.replace('"', "\"\""))
        } else {
            s.to_string()
        }
    };
    let mut out = columns
        .iter()
        .map(|c| field(c))
        .collect::<Vec<_>>()
        .join(",");
    out.push('\n');
    for r in rows {
        let line: Vec<String> = r
            .iter()
            .map(|v| {
                if *v == Value::Null {
                    String::new()
                } else {
                    field(&cell_text(v))
                }
            })
            .collect();
        out.push_str(&line.join(","));
        out.push('\n');
    }
    out
}
