//! What the page and its engines say to each other.

use nl2sql_core::api::ErrorBody;
use nl2sql_core::error::Error;
use nl2sql_core::feedback::VerifiedQuery;
use nl2sql_core::result::{SchemaSnapshot, Thread};
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;

/// Work an engine finishes later, on the page's one thread.
pub type Local<T> = Pin<Box<dyn Future<Output = T>>>;

/// A failure as the page shows it: its code and its words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    pub code: String,
    pub message: String,
}

impl Failure {
    pub fn new(code: impl Into<String>, message: impl Into<String>) -> Failure {
        Failure {
            code: code.into(),
            message: message.into(),
        }
    }
}

impl From<Error> for Failure {
    fn from(e: Error) -> Failure {
        Failure::new(e.code.as_str(), e.to_string())
    }
}

/// A run under way: how to stop it, and how it ends.
pub struct Running<T> {
    pub cancel: Rc<dyn Fn()>,
    pub done: Local<T>,
}

/// A question as the Ask page puts it.
#[derive(Debug, Clone, PartialEq)]
pub struct Asking {
    pub question: String,
    /// The role chosen in the page (an engine whose role is set elsewhere ignores it).
    pub role: String,
    pub datasource: Option<String>,
    pub plan_only: bool,
    /// The conversation it continues.
    pub thread: Option<Thread>,
}

/// One datasource as the page lists it.
#[derive(Debug, Clone, PartialEq)]
pub struct SourceInfo {
    pub id: String,
    pub description: String,
    pub schema: SchemaSnapshot,
    pub demo: bool,
}

/// A datasource the engine left out for now: its id, and why as a stable code and words.
#[derive(Debug, Clone, PartialEq)]
pub struct LeftOut {
    /// Its id.
    pub id: String,
    /// Why, as the server says it (never its address).
    pub why: ErrorBody,
}

/// Who chooses the role the engine is asked as.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Roles {
    /// The person, from these (name, what the role is for).
    Pick(Vec<(String, String)>),
    /// Someone else: what the picker shows instead, and why.
    SetBy {
        shown: &'static str,
        why: &'static str,
    },
}

/// What was said of an answer judged Right or Wrong: its kind (`data-verdict`) and words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Said {
    pub kind: &'static str,
    pub text: String,
}

/// What a role that approves does with a proposal.
#[derive(Debug, Clone)]
pub enum Action {
    Approve,
    Edit(Box<VerifiedQuery>),
    Delete,
}
