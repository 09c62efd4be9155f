//! The aggregator: the sub-queries' results go into a scratch in-memory SQLite and one
//! query the engine writes itself (never the model) combines them. Keys from different
//! databases are made comparable first: numbers as integers, text trimmed and lower-cased.

use super::decompose::{CombineKind, Decomposition, KeyKind, Source};
use crate::datasource::{ExecLimits, ResultFrame};
use crate::error::{ErrorCode, Node, PipelineError, RunWarning, Severity};
use crate::scratch::{quote, Scratch, ScratchTable};
use crate::value::Value;

/// The hidden column each scratch table carries its comparable key in.
const KEY: &str = "__key";

/// One sub-query's result, its columns already named as the decomposition declared.
pub struct Part<'r> {
    /// Its result columns.
    pub columns: &'r [String],
    /// Its rows.
    pub rows: &'r [Vec<Value>],
    /// True when the row cap cut it.
    pub truncated: bool,
}

/// What combining gives: the rows, the SQL that made them, and any warnings.
pub struct Combined {
    /// The combined rows.
    pub frame: ResultFrame,
    /// The query run on the scratch database.
    pub sql: String,
    /// JOIN_KEY_UNCONVERTED when some keys matched nothing; RESULT_TRUNCATED when the
    /// combined rows reached the row cap.
    pub warnings: Vec<RunWarning>,
}

/// Combines `parts` as `d` says, reading at most `row_cap` rows.
pub async fn combine(
    d: &Decomposition,
    parts: &[Part<'_>],
    scratch: &dyn Scratch,
    row_cap: u64,
) -> Result<Combined, PipelineError> {
    let keyed = d.combine != CombineKind::Union;
    // A cut part of a union was already warned about by its executor; under a join or a
    // comparison the combination itself would be wrong.
    if keyed {
        if let Some((_, sub)) = parts.iter().zip(&d.sub_queries).find(|(p, _)| p.truncated) {
            return Err(error(
                ErrorCode::ResultTruncated,
                format!(
                    "The result of {} ({}) reached the row cap, so rows may be missing from the combined answer. A {} on a cut result would be wrong; ask a narrower question.",
                    sub.id,
                    sub.datasource,
                    kind_word(d.combine)
                ),
            ));
        }
    }
    let (keys, unconverted) = if keyed {
        comparable_keys(d, parts)
    } else {
        (vec![], None)
    };
    let tables: Vec<ScratchTable> = parts
        .iter()
        .zip(&d.sub_queries)
        .enumerate()
        .map(|(i, (part, sub))| {
            let mut columns = part.columns.to_vec();
            let mut rows = part.rows.to_vec();
            if let Some(k) = keys.get(i) {
                columns.push(KEY.to_string());
                for (row, key) in rows.iter_mut().zip(k) {
                    row.push(key.clone());
                }
            }
            ScratchTable {
                name: sub.id.clone(),
                columns,
                rows,
            }
        })
        .collect();
    let sql = combining_sql(d, row_cap);
    let mut frame = scratch
        .query(
            &tables,
            &sql,
            ExecLimits::rows(usize::try_from(row_cap).unwrap_or(usize::MAX)),
        )
        .await
        .map_err(|e| {
            error(
                ErrorCode::DbExecutionError,
                format!("The scratch database could not combine the results: {e}"),
            )
        })?;
    // The combining SQL's LIMIT is the cap, so a result as long as the cap may be cut; it
    // is warned about here, once. A union of a cut part is cut too, but that part's
    // executor already warned.
    let at_cap = u64::try_from(frame.row_count()).unwrap_or(u64::MAX) >= row_cap;
    let warn = frame.truncated || at_cap;
    frame.truncated = warn || parts.iter().any(|p| p.truncated);
    let mut warnings: Vec<RunWarning> = unconverted.into_iter().collect();
    if warn {
        warnings.push(RunWarning::new(
            Node::Aggregator,
            ErrorCode::ResultTruncated,
            format!("The combined result reached the row cap of {row_cap} rows; there may be more rows."),
        ));
    }
    Ok(Combined {
        frame,
        sql,
        warnings,
    })
}

/// Each part's keys as comparable values, converted to the kind the decomposer declared
/// (inferred when it declared none: numbers when every key is a whole number, or when one
/// part's keys are typed numbers; otherwise text). Numbers become integers, text is trimmed
/// and lower-cased, dates lose a midnight time. A value that does not convert becomes NULL,
/// so its row joins nothing, and the JOIN_KEY_UNCONVERTED warning says how many and which.
fn comparable_keys(d: &Decomposition, parts: &[Part<'_>]) -> (Vec<Vec<Value>>, Option<RunWarning>) {
    let raw: Vec<Vec<&Value>> = parts
        .iter()
        .zip(&d.sub_queries)
        .map(|(part, sub)| {
            let at = sub
                .key
                .as_ref()
                .and_then(|k| part.columns.iter().position(|c| c == k));
            part.rows
                .iter()
                .map(|r| at.and_then(|i| r.get(i)).unwrap_or(&Value::Null))
                .collect()
        })
        .collect();
    let kind = d
        .sub_queries
        .iter()
        .find_map(|p| p.key_type)
        .unwrap_or_else(|| inferred_kind(&raw));
    let mut missed: Vec<(usize, usize, String)> = Vec::new();
    let keys = raw
        .iter()
        .enumerate()
        .map(|(i, keys)| {
            keys.iter()
                .map(|v| {
                    let converted = convert(v, kind);
                    if converted == Value::Null && **v != Value::Null {
                        match missed.iter_mut().find(|(part, _, _)| *part == i) {
                            Some((_, n, _)) => *n += 1,
                            None => missed.push((i, 1, v.to_string())),
                        }
                    }
                    converted
                })
                .collect()
        })
        .collect();
    let warning = (!missed.is_empty()).then(|| {
        let each: Vec<String> = missed
            .iter()
            .filter_map(|(i, n, example)| {
                let sub = d.sub_queries.get(*i)?;
                Some(format!(
                    "{n} of {} ({}), such as {example:?}",
                    sub.id, sub.datasource
                ))
            })
            .collect();
        RunWarning::new(
            Node::Aggregator,
            ErrorCode::JoinKeyUnconverted,
            format!(
                "Some key values are not {} and so matched nothing: {}. Their rows are missing from the combined answer.",
                kind_noun(kind),
                each.join("; ")
            ),
        )
    });
    (keys, warning)
}

/// The key kind when the decomposer declared none: numbers when every key is a whole
/// number, or when one part's keys are all typed numbers (a numeric column, whose kind the
/// others must meet); otherwise text, which every value converts to.
fn inferred_kind(raw: &[Vec<&Value>]) -> KeyKind {
    let all_whole = raw
        .iter()
        .flatten()
        .all(|v| whole(v).is_some() || **v == Value::Null);
    let numeric_part = raw.iter().any(|keys| {
        let present: Vec<&&Value> = keys.iter().filter(|v| ***v != Value::Null).collect();
        !present.is_empty()
            && present
                .iter()
                .all(|v| matches!(v, Value::Integer(_) | Value::Real(_)))
    });
    if all_whole || numeric_part {
        KeyKind::Number
    } else {
        KeyKind::Text
    }
}

/// `v` as a key of `kind`; NULL when it does not convert.
fn convert(v: &Value, kind: KeyKind) -> Value {
    match (kind, v) {
        (_, Value::Null) => Value::Null,
        (KeyKind::Number, v) => whole(v).map_or(Value::Null, Value::Integer),
        (KeyKind::Text, Value::Text(t)) => Value::Text(t.trim().to_lowercase()),
        (KeyKind::Text, other) => Value::Text(other.to_string().trim().to_lowercase()),
        (KeyKind::Date, Value::Text(t)) => calendar_date(t.trim()).map_or(Value::Null, Value::Text),
        (KeyKind::Date, _) => Value::Null,
    }
}

/// A date spelled `YYYY-MM-DD`, alone or with a midnight time (as databases without a date
/// type store one), as `YYYY-MM-DD`.
fn calendar_date(t: &str) -> Option<String> {
    let (date, time) = match t.get(10..) {
        Some(rest) => (t.get(..10)?, rest),
        None => (t, ""),
    };
    let bytes = date.as_bytes();
    let shaped = bytes.len() == 10
        && bytes.iter().enumerate().all(|(i, b)| match i {
            4 | 7 => *b == b'-',
            _ => b.is_ascii_digit(),
        });
    let midnight = time.is_empty()
        || time.strip_prefix([' ', 'T']).is_some_and(|h| {
            h.trim_end_matches('Z')
                .chars()
                .all(|c| matches!(c, '0' | ':' | '.'))
        });
    (shaped && midnight).then(|| date.to_string())
}

fn kind_noun(kind: KeyKind) -> &'static str {
    match kind {
        KeyKind::Number => "whole numbers",
        KeyKind::Text => "text",
        KeyKind::Date => "dates (YYYY-MM-DD)",
    }
}

/// `v` as a whole number, when it is one (typed or spelled).
fn whole(v: &Value) -> Option<i64> {
    match v {
        Value::Integer(i) => Some(*i),
        // Exact for every whole number an i64 holds below 2^53, which is all a key needs.
        Value::Real(r) if r.fract() == 0.0 && r.abs() < 9.0e15 => Some(*r as i64),
        Value::Text(t) => t.trim().parse::<i64>().ok(),
        _ => None,
    }
}

/// The combining query over tables named by the sub-query ids.
fn combining_sql(d: &Decomposition, row_cap: u64) -> String {
    let layout = d.layout();
    let table = |part: usize| {
        d.sub_queries
            .get(part)
            .map(|p| quote(&p.id))
            .unwrap_or_default()
    };
    let select = || -> String {
        layout
            .iter()
            .map(|(name, source)| match source {
                Source::Part { part, column } => {
                    format!("{}.{} AS {}", table(*part), quote(column), quote(name))
                }
                Source::Key => {
                    let each: Vec<String> = d
                        .sub_queries
                        .iter()
                        .enumerate()
                        .filter_map(|(i, p)| {
                            p.key.as_ref().map(|k| format!("{}.{}", table(i), quote(k)))
                        })
                        .collect();
                    format!("COALESCE({}) AS {}", each.join(", "), quote(name))
                }
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    let body = match d.combine {
        CombineKind::Union => {
            let parts: Vec<String> = d
                .sub_queries
                .iter()
                .map(|p| {
                    let cols: Vec<String> = p.columns.iter().map(|c| quote(c)).collect();
                    format!("SELECT {} FROM {}", cols.join(", "), quote(&p.id))
                })
                .collect();
            format!("SELECT * FROM ({}) AS combined", parts.join(" UNION ALL "))
        }
        CombineKind::Join => {
            let mut from = table(0);
            for i in 1..d.sub_queries.len() {
                from.push_str(&format!(
                    " JOIN {t} ON {t}.{k} = {first}.{k}",
                    t = table(i),
                    first = table(0),
                    k = quote(KEY)
                ));
            }
            format!(
                "SELECT * FROM (SELECT {} FROM {from}) AS combined",
                select()
            )
        }
        CombineKind::Compare => {
            let keys: Vec<String> = (0..d.sub_queries.len())
                .map(|i| format!("SELECT {} FROM {}", quote(KEY), table(i)))
                .collect();
            let mut from = format!("({}) AS {}", keys.join(" UNION "), quote("keys"));
            for i in 0..d.sub_queries.len() {
                from.push_str(&format!(
                    " LEFT JOIN {t} ON {t}.{k} = {keys}.{k}",
                    t = table(i),
                    keys = quote("keys"),
                    k = quote(KEY)
                ));
            }
            format!(
                "SELECT * FROM (SELECT {} FROM {from} WHERE {keys}.{k} IS NOT NULL) AS combined",
                select(),
                keys = quote("keys"),
                k = quote(KEY)
            )
        }
    };
    // The asked order first, then every column, so equal rows always come out the same way.
    let mut order: Vec<String> = d
        .order_by
        .iter()
        .map(|o| {
            format!(
                "{}{}",
                quote(&o.column),
                if o.descending { " DESC" } else { "" }
            )
        })
        .collect();
    for (name, _) in &layout {
        if !d.order_by.iter().any(|o| &o.column == name) {
            order.push(quote(name));
        }
    }
    let limit = d.limit.map_or(row_cap, |l| l.min(row_cap));
    format!("{body} ORDER BY {} LIMIT {limit}", order.join(", "))
}

fn kind_word(kind: CombineKind) -> &'static str {
    match kind {
        CombineKind::Join => "join",
        CombineKind::Union => "union",
        CombineKind::Compare => "comparison",
    }
}

fn error(code: ErrorCode, message: String) -> PipelineError {
    PipelineError::new(Node::Aggregator, code, Severity::Error, message)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::decompose::{PostOrder, SubQuestion};

    fn part(id: &str, datasource: &str, columns: &[&str], key: Option<&str>) -> SubQuestion {
        SubQuestion {
            id: id.into(),
            datasource: datasource.into(),
            question: format!("part {id}"),
            columns: columns.iter().map(|c| c.to_string()).collect(),
            key: key.map(String::from),
            key_type: None,
        }
    }

    fn join() -> Decomposition {
        Decomposition {
            sub_queries: vec![
                part("q1", "support", &["email", "name"], Some("email")),
                part("q2", "chinook", &["email", "total"], Some("email")),
            ],
            combine: CombineKind::Join,
            order_by: vec![PostOrder {
                column: "total".into(),
                descending: true,
            }],
            limit: Some(5),
        }
    }

    #[test]
    fn the_engine_writes_the_combining_query() {
        assert_eq!(
            combining_sql(&join(), 100),
            "SELECT * FROM (SELECT \"q1\".\"email\" AS \"email\", \"q1\".\"name\" AS \"name\", \"q2\".\"total\" AS \"total\" FROM \"q1\" JOIN \"q2\" ON \"q2\".\"__key\" = \"q1\".\"__key\") AS combined ORDER BY \"total\" DESC, \"email\", \"name\" LIMIT 5"
        );
        let mut c = join();
        c.combine = CombineKind::Compare;
        c.order_by.clear();
        c.limit = None;
        let sql = combining_sql(&c, 100);
        assert!(
            sql.contains("COALESCE(\"q1\".\"email\", \"q2\".\"email\") AS \"email\""),
            "{sql}"
        );
        assert!(sql.contains("LEFT JOIN \"q2\""), "{sql}");
        assert!(sql.ends_with("LIMIT 100"), "{sql}");
        assert!(crate::guard::check_read_only(&sql).is_ok());
    }

    /// Two parts with the same columns.
    fn two<'p>(
        cols: &'p [String],
        first: &'p [Vec<Value>],
        second: &'p [Vec<Value>],
    ) -> [Part<'p>; 2] {
        let part = |rows| Part {
            columns: cols,
            rows,
            truncated: false,
        };
        [part(first), part(second)]
    }

    #[test]
    fn keys_become_comparable_and_what_does_not_convert_is_named() {
        let d = join();
        let cols = vec!["email".to_string(), "x".to_string()];
        let a = vec![vec![Value::Text(" Ann@X.org ".into()), Value::Null]];
        let b = vec![vec![Value::Text("ann@x.org".into()), Value::Null]];
        let (keys, warning) = comparable_keys(&d, &two(&cols, &a, &b));
        assert_eq!(keys[0], keys[1]);
        assert_eq!(warning, None);
        let n = vec![vec![Value::Integer(7), Value::Null]];
        let t = vec![vec![Value::Text("7".into()), Value::Null]];
        assert_eq!(
            comparable_keys(&d, &two(&cols, &n, &t)).0[1],
            vec![Value::Integer(7)]
        );
        let w = vec![
            vec![Value::Text("seven".into()), Value::Null],
            vec![Value::Text(" 7 ".into()), Value::Null],
        ];
        let (keys, warning) = comparable_keys(&d, &two(&cols, &n, &w));
        assert_eq!(keys[1], vec![Value::Null, Value::Integer(7)]);
        let warning = warning.expect("the unconverted key is reported");
        assert_eq!(warning.code, ErrorCode::JoinKeyUnconverted);
        assert!(
            warning
                .message
                .contains("1 of q2 (chinook), such as \"seven\""),
            "{}",
            warning.message
        );
    }

    #[test]
    fn a_declared_key_kind_decides_the_conversion() {
        let mut d = join();
        let cols = vec!["email".to_string(), "x".to_string()];
        for p in &mut d.sub_queries {
            p.key_type = Some(KeyKind::Date);
        }
        let a = vec![vec![Value::Text("2012-03-04 00:00:00".into()), Value::Null]];
        let b = vec![
            vec![Value::Text("2012-03-04".into()), Value::Null],
            vec![Value::Integer(20120304), Value::Null],
        ];
        let (keys, warning) = comparable_keys(&d, &two(&cols, &a, &b));
        assert_eq!(keys[0], vec![Value::Text("2012-03-04".into())]);
        assert_eq!(keys[1][0], keys[0][0]);
        assert_eq!(keys[1][1], Value::Null);
        assert!(warning.is_some_and(|w| w.message.contains("dates")));
        // Undeclared, a column mixing numbers and codes is compared as text: nothing lost.
        for p in &mut d.sub_queries {
            p.key_type = None;
        }
        let mixed = vec![
            vec![Value::Integer(123), Value::Null],
            vec![Value::Text("A-7".into()), Value::Null],
        ];
        let codes = vec![vec![Value::Text("a-7".into()), Value::Null]];
        let (keys, warning) = comparable_keys(&d, &two(&cols, &mixed, &codes));
        assert_eq!(keys[0][1], keys[1][0]);
        assert_eq!(warning, None);
        for p in &mut d.sub_queries {
            p.key_type = Some(KeyKind::Text);
        }
        let n = vec![vec![Value::Integer(7), Value::Null]];
        let t = vec![vec![Value::Text(" 7".into()), Value::Null]];
        let (keys, warning) = comparable_keys(&d, &two(&cols, &n, &t));
        assert_eq!(keys[0], keys[1]);
        assert_eq!(warning, None);
        assert_eq!(calendar_date("2012-03-04T10:00:00"), None);
        assert_eq!(calendar_date("2012-3-4"), None);
    }
}
