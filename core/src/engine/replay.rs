//! Replay: a run fed the model answers a recorded run received, with no provider at all.
//! Each call is answered by the first unused recorded call of the same node whose system
//! prompt and messages match; when none matches, by the first unused one of that node, and
//! the difference is reported, so a changed prompt shows where it changed.


use super::model::{hash, Model};
use super::settings::Agent;
use super::trace::LlmCall;
use super::result::{Divergence, QueryResult};
use crate::datasource::LocalBoxFuture;
use crate::error::{ErrorCode, Node};
use crate::provider::chat::{ChatAnswer, ChatError};
use crate::provider::ChatRequest;
use crate::provider::{Message, ProviderFailure};
use std::cell::RefCell;

/// The recorded answers of one run.
#[derive(Debug, Default)]
pub struct Replay {
    calls: RefCell<Vec<(LlmCall, bool)>>,
    divergences: RefCell<Vec<Divergence>>,
    asked: RefCell<Vec<Node>>,
}

impl Replay {
    /// The model calls of a recorded run (a `QueryResult` as JSON, as `--trace` writes it).
    pub fn from_result_json(json: &str) -> Result<Replay, String> {
        let recorded: QueryResult = serde_json::from_str(json)
            .map_err(|e| format!("the recording is not a run's result: {e}"))?;
        Ok(Replay::from_result(&recorded))
    }

    /// The model calls of a recorded run.
    pub fn from_result(recorded: &QueryResult) -> Replay {
        let calls = recorded
            .trace
            .iter()
            .flat_map(|node| node.llm_calls.iter().cloned())
            .map(|call| (call, false))
            .collect();
        Replay {
            calls: RefCell::new(calls),
            ..Replay::default()
        }
    }

    /// How many recorded calls it holds.
    pub fn len(&self) -> usize {
        self.calls.borrow().len()
    }

    /// True when it holds none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Where the prompts differed so far.
    pub fn divergences(&self) -> Vec<Divergence> {
        self.divergences.borrow().clone()
    }

    /// The recorded answer for this call.
    pub fn answer(
        &self,
        node: Node,
        system: &str,
        messages: &[Message],
    ) -> Result<ChatAnswer, ChatError> {
        let call = {
            let mut asked = self.asked.borrow_mut();
            asked.push(node);
            asked.iter().filter(|n| **n == node).count() - 1
        };
        let system_hash = hash(system);
        let mut calls = self.calls.borrow_mut();
        let same = |c: &LlmCall| c.system_hash == system_hash && c.messages == messages;
        let position = calls
            .iter()
            .position(|(c, used)| !used && c.node == node && same(c))
            .or_else(|| calls.iter().position(|(c, used)| !used && c.node == node));
        let Some(i) = position else {
            self.diverge(node, call, "no recorded call");
            return Err(ChatError::Unreadable(format!(
                "the recording has no more answers for {node}"
            )));
        };
        calls[i].1 = true;
        let recorded = &calls[i].0;
        if recorded.system_hash != system_hash {
            self.diverge(node, call, "system prompt");
        } else if recorded.messages.len() != messages.len() {
            self.diverge(node, call, "message count");
        } else if let Some(m) = recorded
            .messages
            .iter()
            .zip(messages)
            .position(|(a, b)| a != b)
        {
            self.diverge(node, call, &format!("message {m}"));
        }
        match (&recorded.response, &recorded.error_code) {
            (Some(content), _) => Ok(ChatAnswer {
                content: content.clone(),
                stop: None,
                usage: recorded.usage,
            }),
            (None, Some(code)) if *code != ErrorCode::ModelOutputInvalid => {
                Err(ChatError::Provider(ProviderFailure {
                    code: *code,
                    provider: "The model provider".to_string(),
                    message: recorded.error.clone().unwrap_or_default(),
                    provider_response: None,
                    retry_after_ms: None,
                }))
            }
            _ => Err(ChatError::Unreadable(
                recorded
                    .error
                    .clone()
                    .unwrap_or_else(|| "no answer was recorded".into()),
            )),
        }
    }

    fn diverge(&self, node: Node, call: usize, what: &str) {
        self.divergences.borrow_mut().push(Divergence {
            node,
            call,
            what: what.to_string(),
        });
    }
}

impl Model for Replay {
    fn chat<'a>(
        &'a self,
        _agent: &'a Agent,
        node: Node,
        request: &'a ChatRequest,
        on_delta: &'a mut dyn FnMut(&str),
    ) -> LocalBoxFuture<'a, Result<ChatAnswer, ChatError>> {
        let answer = self.answer(node, &request.system, &request.messages);
        if let Ok(a) = &answer {
            on_delta(&a.content);
        }
        Box::pin(std::future::ready(answer))
    }
}
