//! One structured model call as a node makes it: the request, the answer parsed into its
//! type, the parse retry that sends the answer back with its errors, and the record the
//! trace and the usage totals read.

use super::model::{hash, Model};
use super::settings::Agent;
use super::trace::LlmCall;
use crate::error::{ErrorCode, Node, PipelineError, Severity};
use crate::provider::chat::{ChatError, PriceTable};
use crate::provider::{ChatRequest, Message, Output, Role, Usage};
use std::cell::Cell;

/// What a run may still spend: model calls (`max_llm_calls`) and dollars (`max_cost_usd`,
/// priced with the engine's table; calls of unpriced models cost nothing here). Shared by
/// the calls a run makes at the same time.
#[derive(Debug)]
pub struct Budget {
    calls_left: Cell<u32>,
    max_cost_usd: Option<f64>,
    spent_usd: Cell<f64>,
    prices: PriceTable,
}

impl Budget {
    /// A run's budget.
    pub fn new(max_calls: u32, max_cost_usd: Option<f64>, prices: PriceTable) -> Budget {
        Budget {
            calls_left: Cell::new(max_calls),
            max_cost_usd,
            spent_usd: Cell::new(0.0),
            prices,
        }
    }

    /// Takes one call, or says which limit the run reached.
    fn take(&self, node: Node) -> Result<(), PipelineError> {
        let limit = |what: &str| {
            Err(PipelineError::new(
                node,
                ErrorCode::RunLimitReached,
                Severity::Error,
                format!("The run reached its limit of {what} before it could answer."),
            ))
        };
        if self.calls_left.get() == 0 {
            return limit("model calls (max_llm_calls)");
        }
        if self
            .max_cost_usd
            .is_some_and(|max| self.spent_usd.get() >= max)
        {
            return limit("spending (max_cost_usd)");
        }
        self.calls_left.set(self.calls_left.get() - 1);
        Ok(())
    }

    /// Records what a call cost.
    fn spend(&self, model: &str, usage: &Usage) {
        if let Some(cost) = self.prices.cost(model, usage) {
            self.spent_usd.set(self.spent_usd.get() + cost);
        }
    }
}

/// Milliseconds now, from the engine's clock.
pub type Now<'a> = &'a dyn Fn() -> u64;

/// How a node's calls are made: the model they go to, and the clock that times them.
pub struct Caller<'a> {
    /// Where requests go: a provider, or a recording.
    pub model: &'a dyn Model,
    /// The clock.
    pub now: Now<'a>,
}

/// What a structured call needs besides the agent.
pub struct Structured<'a> {
    /// The node asking.
    pub node: Node,
    /// The structured output's name, e.g. `plan`.
    pub name: &'a str,
    /// What it is, for the model.
    pub description: &'a str,
    /// Its JSON Schema.
    pub schema: serde_json::Value,
    /// The stable instructions.
    pub system: String,
    /// The conversation so far, the question last.
    pub messages: Vec<Message>,
}

/// Asks for a structured answer and parses it with `parse`, sending an answer that does
/// not parse back with its errors up to `agent.parse_retries` times. Every call is pushed to
/// `calls`, successful or not; each call is taken from `budget`, which stops the asking
/// at a limit.
pub async fn structured<T>(
    caller: &Caller<'_>,
    agent: &Agent,
    ask: Structured<'_>,
    parse: &dyn Fn(&str) -> Result<T, String>,
    calls: &mut Vec<LlmCall>,
    budget: &Budget,
) -> Result<T, PipelineError> {
    let now = caller.now;
    let mut messages = ask.messages;
    let mut last_error = String::new();
    for _ in 0..=agent.parse_retries {
        budget.take(ask.node)?;
        let request = ChatRequest {
            model: agent.model.clone(),
            system: ask.system.clone(),
            messages: messages.clone(),
            temperature: agent.temperature,
            max_tokens: agent.max_tokens,
            output: Output::Structured {
                name: ask.name.to_string(),
                description: ask.description.to_string(),
                schema: ask.schema.clone(),
                method: agent.method,
            },
            stream: false,
            timeout_ms: agent.timeout_ms,
        };
        let started = now();
        let answer = caller
            .model
            .chat(agent, ask.node, &request, &mut |_| {})
            .await;
        let mut record = LlmCall {
            node: ask.node,
            model: agent.model.clone(),
            system_hash: hash(&ask.system),
            system: ask.system.clone(),
            messages: messages.clone(),
            response: None,
            error: None,
            error_code: None,
            quoted: Vec::new(),
            usage: Usage::default(),
            latency_ms: now().saturating_sub(started),
        };
        let answer = match answer {
            Ok(a) => a,
            Err(ChatError::Provider(failure)) => {
                record.error = Some(failure.message.clone());
                record.error_code = Some(failure.code);
                calls.push(record);
                return Err(failure.into_error(ask.node));
            }
            Err(ChatError::Rejected(why)) => {
                // The provider refused the request as it stands (a parameter the model does
                // not take, a prompt too large): the same request would be refused again.
                record.error = Some(format!("the request was refused: {why}"));
                calls.push(record);
                return Err(PipelineError::new(
                    ask.node,
                    ErrorCode::ModelOutputInvalid,
                    Severity::Error,
                    format!(
                        "The provider refused the {} agent's request ({why}). Set another structured_output for it (tool_calling, json_schema or json_mode), or use another model.",
                        ask.node
                    ),
                ));
            }
            Err(other) => {
                // An answer that could not be read: the call is spent; the model may do
                // better on the next try.
                record.error = Some(other.to_string());
                calls.push(record);
                last_error = other.to_string();
                continue;
            }
        };
        record.usage = answer.usage;
        budget.spend(&agent.model, &answer.usage);
        record.response = Some(answer.content.clone());
        match parse(&answer.content) {
            Ok(value) => {
                calls.push(record);
                return Ok(value);
            }
            Err(why) => {
                record.error = Some(why.clone());
                calls.push(record);
                messages.push(Message {
                    role: Role::Assistant,
                    content: answer.content,
                });
                messages.push(Message {
                    role: Role::User,
                    content: format!(
                        "That answer is not a valid {}: {why}\nAnswer again with the whole corrected object.",
                        ask.name
                    ),
                });
                last_error = why;
            }
        }
    }
    Err(PipelineError::new(
        ask.node,
        ErrorCode::ModelOutputInvalid,
        Severity::Error,
        format!(
            "The {} agent's answer did not match {} after {} attempts. Set another structured_output for it (tool_calling, json_schema or json_mode), or use a stronger model.",
            ask.node,
            ask.name,
            agent.parse_retries + 1
        ),
    )
    .with_details(serde_json::json!({ "last_error": last_error })))
}

/// What a text call needs besides the agent.
pub struct TextAsk<'a> {
    /// The node asking.
    pub node: Node,
    /// The instructions.
    pub system: &'a str,
    /// The one user message.
    pub user: String,
}

/// Asks for streamed text (the written answer, the refiner's advice), handing each piece to
/// `on_delta`; the call is pushed to `calls` whatever its outcome.
pub async fn text(
    caller: &Caller<'_>,
    agent: &Agent,
    ask: TextAsk<'_>,
    on_delta: &mut dyn FnMut(&str),
    calls: &mut Vec<LlmCall>,
    budget: &Budget,
) -> Result<String, PipelineError> {
    let TextAsk { node, system, user } = ask;
    let now = caller.now;
    budget.take(node)?;
    let messages = vec![Message {
        role: Role::User,
        content: user,
    }];
    let request = ChatRequest {
        model: agent.model.clone(),
        system: system.to_string(),
        messages: messages.clone(),
        temperature: agent.temperature,
        max_tokens: agent.max_tokens,
        output: Output::Text,
        stream: true,
        timeout_ms: agent.timeout_ms,
    };
    let started = now();
    let answer = caller.model.chat(agent, node, &request, on_delta).await;
    let mut record = LlmCall {
        node,
        model: agent.model.clone(),
        system_hash: hash(system),
        system: system.to_string(),
        messages,
        response: None,
        error: None,
        error_code: None,
        quoted: Vec::new(),
        usage: Usage::default(),
        latency_ms: now().saturating_sub(started),
    };
    let outcome = match answer {
        Ok(a) => {
            record.usage = a.usage;
            budget.spend(&agent.model, &a.usage);
            record.response = Some(a.content.clone());
            Ok(a.content)
        }
        Err(ChatError::Provider(failure)) => {
            record.error = Some(failure.message.clone());
            record.error_code = Some(failure.code);
            Err(failure.into_error(node))
        }
        Err(other) => {
            record.error = Some(other.to_string());
            Err(PipelineError::new(
                node,
                ErrorCode::ModelOutputInvalid,
                Severity::Error,
                format!("The {node} agent's answer could not be used: {other}."),
            ))
        }
    };
    calls.push(record);
    outcome
}
