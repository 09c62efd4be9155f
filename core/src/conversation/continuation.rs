//! Whether a question continues its thread or starts fresh. Only one case is settled by
//! code: a question that answers what the engine asked back continues, by construction.
//! Every other question with a thread is judged by the resolver's model, which reads the
//! earlier turns (questions, plans, columns) beside it, in whatever language they are
//! written and however they are phrased (`engine::prompts::CONTINUATION_SYSTEM`).

use super::Thread;
use serde::Deserialize;

/// How a question relates to its thread.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Continuation {
    /// True when it continues the thread.
    pub follows: bool,
    /// Why, in words, for the trace.
    pub reason: String,
}

/// What code settles without a model: no earlier turn, or a last turn that asked back;
/// anything else is the model's to judge ([`read_judgement`]).
pub fn settled(thread: &Thread) -> Settled {
    match thread.last() {
        None => Settled::NoThread,
        Some(last) if last.clarification.is_some() => Settled::Decided(Continuation {
            follows: true,
            reason: "it answers the question the engine asked back".into(),
        }),
        Some(_) => Settled::AskTheModel,
    }
}

/// What code could settle about a question's thread.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Settled {
    /// No earlier turn: nothing to continue.
    NoThread,
    /// Decided without a model.
    Decided(Continuation),
    /// Only the model can tell.
    AskTheModel,
}

/// The model's judgement, as its structured output (`continuation`) says it.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Judgement {
    continues: bool,
    #[serde(default)]
    reason: String,
}

/// Reads the model's answer; an answer that is not the structured output is an error the
/// caller sends back to the model.
pub fn read_judgement(text: &str) -> Result<Continuation, String> {
    let judged: Judgement = serde_json::from_str(text).map_err(|e| e.to_string())?;
    let reason = judged.reason.split_whitespace().collect::<Vec<_>>().join(" ");
    let reason = if reason.is_empty() {
        if judged.continues {
            "the model read it as continuing the last turn".to_string()
        } else {
            "the model read it as a question of its own".to_string()
        }
    } else {
        reason
    };
    Ok(Continuation {
        follows: judged.continues,
        reason,
    })
}

#[cfg(test)]
mod tests {
    use super::super::{Clarification, Turn};
    use super::*;

    fn turn(clarification: Option<Clarification>) -> Thread {
        Thread::default().with(
            Turn {
                question: "How many tracks are in Classical?".into(),
                clarification,
                ..Turn::default()
            },
            5,
        )
    }

    #[test]
    fn only_an_empty_thread_and_an_answer_to_a_question_asked_back_are_settled_by_code() {
        assert_eq!(settled(&Thread::default()), Settled::NoThread);
        assert_eq!(settled(&turn(None)), Settled::AskTheModel);
        let asked = turn(Some(Clarification {
            question: "Which Classical?".into(),
            options: vec![],
        }));
        assert!(matches!(settled(&asked), Settled::Decided(c) if c.follows));
    }

    #[test]
    fn the_models_judgement_is_read_strictly() {
        let read = read_judgement(r#"{"continues": true, "reason": "it narrows\nthe last answer"}"#);
        assert_eq!(
            read,
            Ok(Continuation {
                follows: true,
                reason: "it narrows the last answer".into()
            })
        );
        let fresh = read_judgement(r#"{"continues": false}"#);
        assert!(fresh.is_ok_and(|c| !c.follows && c.reason.contains("its own")));
        assert!(read_judgement(r#"{"continues": "yes"}"#).is_err());
        assert!(read_judgement(r#"{"continues": true, "plan": {}}"#).is_err());
        assert!(read_judgement("yes").is_err());
    }
}
