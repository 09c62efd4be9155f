//! Scoring one run against a case's expected outcome, as the reference scores it — once,
//! for `nl2sql eval` and the pipeline tests alike.

use crate::Case;
use crate::{compare, compare_lenient, Gold};
use nl2sql_core::error::ErrorCode;
use nl2sql_core::error::REFUSAL_MESSAGE;
use nl2sql_core::result::Value;
use nl2sql_core::result::{QueryResult, Status};

/// How one run went against what the case expects for one role.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scored {
    /// Strictly right: the gold rows (as ordered, when order matters), the refusal, or
    /// QUESTION_NOT_ANSWERABLE alone.
    pub pass: bool,
    /// Right up to column order and extra columns (the reference's lenient comparison).
    pub lenient: bool,
    /// Why not, when it did not pass.
    pub why: Option<String>,
}

/// Scores `r`, a run of `case` whose expected outcome is `expected` (`allowed`, `refused` or
/// `unanswerable`); `want` is the case's gold rows.
pub fn score(case: &Case, expected: &str, want: &[Vec<Gold>], r: &QueryResult) -> Scored {
    let codes: Vec<&str> = r.errors.iter().map(|e| e.error_code.as_str()).collect();
    let no_rows = r.sub_queries.iter().all(|q| q.rows.is_empty());
    let judged = |ok: bool, why: &dyn Fn() -> String| Scored {
        pass: ok,
        lenient: ok,
        why: (!ok).then(why),
    };
    match expected {
        "allowed" => match (r.status, rows_of(r)) {
            (Status::Success, Some(rows)) => {
                let strict = compare(rows, want, case.order_matters);
                let lenient =
                    strict.is_ok() || compare_lenient(rows, want, case.order_matters).is_ok();
                Scored {
                    pass: strict.is_ok(),
                    lenient,
                    why: strict.err(),
                }
            }
            _ => judged(false, &|| {
                format!("{}: {}", r.status.as_str(), codes.join(", "))
            }),
        },
        "refused" => {
            let refused = r.status == Status::Error
                && no_rows
                && r.errors.iter().any(|e| {
                    e.error_code == ErrorCode::SecurityViolation && e.message == REFUSAL_MESSAGE
                });
            judged(refused, &|| format!("not refused: {}", codes.join(", ")))
        }
        "unanswerable" => {
            let ok = r.status == Status::Error && no_rows && codes == ["QUESTION_NOT_ANSWERABLE"];
            judged(ok, &|| format!("not unanswerable: {}", codes.join(", ")))
        }
        other => judged(false, &|| format!("outcome {other} is not scored")),
    }
}

/// The rows a run answered with: the combined rows, or its one sub-query's.
fn rows_of(r: &QueryResult) -> Option<&[Vec<Value>]> {
    r.answer_rows().map(|a| a.rows)
}
