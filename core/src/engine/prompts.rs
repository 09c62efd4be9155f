//! The prompts. Each keeps its stable part (instructions, datasource list) in the system
//! message, byte-identical across questions so providers can cache it, and everything
//! about this question in the last user message.

use super::decompose::SubQuestion;
use crate::conversation::Thread;
use crate::error::PipelineError;
use crate::index::{render, Retrieval, ValueHint};
use crate::plan::Plan;
use crate::schema::SchemaSnapshot;
use serde_json::json;

/// The planner's instructions; the plan's JSON Schema travels as the tool's parameters.
pub const PLANNER_SYSTEM: &str = "You turn a question about a database into a query plan: a JSON object the engine checks and renders as SQL.

- `tables` lists every table read, each with a short alias; `joins` connect them on key columns.
- Expressions are objects with a `kind` and that kind's fields in the schema.
- Give each select item a readable `alias`; grouped columns go in `group_by`, filters on aggregates in `having`; add a `limit` when the question asks for a number of rows.
- Use only the tables and columns shown; match text values exactly as the hints spell them.
- Dates: DATE_PART, DATE_TRUNC, DATE_ADD, DATE_DIFF, ELAPSED (whole units: ages), DAY_NAME, MONTH_NAME, CONVERT_TZ(ts, 'UTC', zone); units 'month', 'day'…; today as given. JSON: JSON_VALUE(col, '$.key').
- Write a one-sentence `reasoning`.";

/// The planner's question message: today, the datasource's schema as retrieved, the values
/// the question names, the earlier turns of its thread when it follows up one (`context`,
/// bounded; empty otherwise), the question itself, exactly as the user wrote it, and for a
/// part of a decomposed question, the part and the columns it must return.
pub fn planner_user(
    today: Option<&str>,
    schema: &SchemaSnapshot,
    retrieval: &Retrieval,
    question: &str,
    part: Option<&SubQuestion>,
    context: &str,
) -> String {
    let mut text = String::new();
    if let Some(day) = today {
        text.push_str(&format!("Today: {day}\n"));
    }
    text.push_str(&format!(
        "Datasource: {} ({})\nSchema (one line per table; PK primary key, -> foreign key, e.g. sample values, [min .. max]):\n",
        schema.datasource_id, schema.dialect
    ));
    text.push_str(&render(schema, retrieval));
    if !retrieval.values.is_empty() {
        text.push_str("Values the question names:\n");
        for v in &retrieval.values {
            text.push_str(&format!("- {}\n", hint(v)));
        }
    }
    text.push_str(context);
    text.push_str(&format!("Question: {question}"));
    if let Some(p) = part {
        text.push_str(&format!(
            "\nThe question needs other datasources too; plan only this part of it, on this datasource: {}\nReturn exactly these columns, in this order: {}.",
            p.question,
            p.columns.join(", ")
        ));
    }
    text
}

fn hint(v: &ValueHint) -> String {
    format!("{} (from \"{}\")", v.render(), v.span)
}

/// The message that sends a rejected plan's problems back to the planner.
pub fn planner_feedback(errors: &[String]) -> String {
    let mut text = String::from("The engine rejected that plan:\n");
    for e in errors {
        text.push_str(&format!("- {e}\n"));
    }
    text.push_str("Write the whole corrected plan.");
    text
}

/// The refiner's instructions (`feedback = refiner`).
const REFINER_INSTRUCTIONS: &str = "A query plan was rejected by the engine that checks and runs it. Explain to the planner, in a few short sentences, what to change so the next plan succeeds: name the tables, columns, joins or values of the schema below to use instead. Do not write SQL or a plan.";

/// The refiner's system message: the instructions, then the schema the planner saw — the
/// same for every retry on this datasource, so a provider can cache it.
pub fn refiner_system(schema: &SchemaSnapshot, retrieval: &Retrieval) -> String {
    format!(
        "{REFINER_INSTRUCTIONS}\n\nDatasource: {} ({})\nSchema (one line per table; PK primary key, -> foreign key, e.g. sample values, [min .. max]):\n{}",
        schema.datasource_id,
        schema.dialect,
        render(schema, retrieval)
    )
}

/// The refiner's message: the question, the run's date, the failed plan (its compact
/// JSON), that attempt's errors as `- [node] CODE: message`, and the planner's reasoning.
pub fn refiner_user(
    question: &str,
    today: Option<&str>,
    plan: &Plan,
    errors: &[PipelineError],
) -> String {
    let mut text = format!("Question: {question}\n");
    if let Some(day) = today {
        text.push_str(&format!("Today: {day}\n"));
    }
    text.push_str(&format!(
        "Failed plan: {}\nErrors:\n",
        serde_json::to_string(plan).unwrap_or_default()
    ));
    for e in errors {
        text.push_str(&format!("- [{}] {}: {}\n", e.node, e.error_code, e.message));
    }
    text.push_str(&format!(
        "Reasoning: {}",
        plan.reasoning.as_deref().unwrap_or("(none given)")
    ));
    text
}

/// The planner's feedback with the refiner's advice after the reasons.
pub fn refined_feedback(reasons: &[String], advice: &str) -> String {
    let mut text = planner_feedback(reasons);
    text.push_str(&format!("\nAdvice: {}", advice.trim()));
    text
}

/// The answerability check's instructions: the same for every question and role, so a
/// provider can cache them.
pub const ANSWERABILITY_SYSTEM: &str = "Before any query is planned, decide which of the datasources listed with the question could answer it. You see each one's description and table names, not its data.

Rules:
1. Name every datasource that could hold data the question needs, even in part; a question that needs several names them all.
2. When in doubt, name it: refusing an answerable question is worse than running one that finds nothing.
3. Name none only when the question is plainly about something no datasource holds (the weather, general knowledge, small talk).
4. Use only the ids listed.
5. Set `combine` to true only when the answer needs facts from two or more of them put together (one fact from each); false when any one of them can answer on its own.
6. Give the reason in one short sentence.";

/// The answerability check's message: the datasources it may name (routing's candidates,
/// sorted by id; each with its description and sorted table names, never columns or data),
/// the earlier questions a follow-up continues (each on one line), and the question.
pub fn answerability_user(
    question: &str,
    earlier: &[&str],
    datasources: &[(&str, &str, Vec<String>)],
) -> String {
    let mut sorted: Vec<&(&str, &str, Vec<String>)> = datasources.iter().collect();
    sorted.sort_by(|a, b| a.0.cmp(b.0));
    let list: Vec<serde_json::Value> = sorted
        .iter()
        .map(|(id, description, tables)| {
            let mut tables = tables.clone();
            tables.sort();
            json!({"id": id, "description": description, "tables": tables})
        })
        .collect();
    let mut context = String::new();
    if !earlier.is_empty() {
        context.push_str("Earlier in this conversation (the question follows up the last):\n");
        for q in earlier {
            let line: Vec<&str> = q.split_whitespace().collect();
            context.push_str(&format!("- \"{}\"\n", line.join(" ")));
        }
        context.push('\n');
    }
    format!(
        "Datasources:\n{}\n\n{context}Question: {question}",
        serde_json::to_string(&list).unwrap_or_default()
    )
}

/// Whether a question continues its conversation: the resolver's model reads the earlier
/// turns and the question, in any language, before routing (a follow-up is routed to the
/// datasource of the turn it continues, and planned as an edit of that turn's plan).
pub const CONTINUATION_SYSTEM: &str = "A person is asking a data assistant questions one after another. Decide whether their new question continues the conversation or starts a new subject.

It continues when it only makes full sense together with the last turn: it changes that turn's answer (narrows, widens, filters, regroups, re-sorts, limits, compares, asks for another measure of the same thing), refers to it (them, those, the same, that list), or is too short to name a subject of its own.
It starts fresh when it names its own subject and can be answered on its own, even about the same database or tables.

The questions may be in any language; judge their meaning, not particular words. Give the reason in one short sentence.";

/// The continuation check's message: the earlier turns (each question on one line, with its
/// plan and columns, newest kept within the context budget) and the new question.
pub fn continuation_user(question: &str, thread: &Thread) -> String {
    let question: Vec<&str> = question.split_whitespace().collect();
    format!(
        "Conversation so far (oldest first):\n{}\nNew question: {}",
        thread.turns_text(),
        question.join(" ")
    )
}

/// The continuation judgement's JSON Schema.
pub fn continuation_schema() -> serde_json::Value {
    json!({
        "type": "object",
        "properties": {
            "continues": {"type": "boolean",
                "description": "True when the new question continues the last turn; false when it starts a new subject."},
            "reason": {"type": "string"}
        },
        "required": ["continues", "reason"],
        "additionalProperties": false
    })
}

/// The answerability verdict's JSON Schema.
pub fn answerability_schema() -> serde_json::Value {
    json!({
        "type": "object",
        "properties": {
            "datasources": {"type": "array", "items": {"type": "string"},
                "description": "The ids of the datasources that could answer; empty when none can."},
            "combine": {"type": "boolean",
                "description": "True when the answer needs data from several of them together."},
            "reason": {"type": "string"}
        },
        "required": ["datasources", "combine", "reason"],
        "additionalProperties": false
    })
}
