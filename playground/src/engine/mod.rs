//! The page's engine: one trait, two implementations. [`InPage`] runs the engine in this
//! page (an nl2sql-wasm `Session` over sql.js and the person's model key); [`Server`] asks
//! `nl2sql serve` with one of its API keys. Components hold an `Rc<dyn PageEngine>` and
//! never ask which it is: where the two differ (who picks the role, whose model answers,
//! who may change the datasources and proposals) the engine says so itself.

mod in_page;
mod server;
mod types;

pub use in_page::InPage;
pub use server::Server;
pub use types::{Action, Asking, Failure, LeftOut, Local, Roles, Running, Said, SourceInfo};

use nl2sql_core::feedback::{Proposal, Verdict};
use nl2sql_core::result::{Event, QueryResult, Retrieval, Routing, SqlRun};
use std::rc::Rc;
use std::sync::Arc;

/// What the components need from an engine, whichever it is.
pub trait PageEngine {
    /// The datasources it answers from (a server's: those its key's role may reach).
    fn sources(&self) -> Vec<SourceInfo>;
    /// The datasources it left out for now, each with why (a server's that it could not
    /// reach or read; none in the page, which refuses a file it cannot read when added).
    fn left_out(&self) -> Vec<LeftOut> {
        Vec::new()
    }
    /// Whose those datasources are, in words, when not this page's (then they are not
    /// changed here).
    fn sources_owner(&self) -> Option<String>;
    /// Who chooses the role.
    fn roles(&self) -> Roles;
    /// Whether `role` may read `table` of `datasource` (to mark the others hidden).
    fn can_read(&self, role: &str, datasource: &str, table: &str) -> bool;
    /// True when it asks its own model (the page's provider settings are not used).
    fn own_model(&self) -> bool;

    /// Starts asking, `on_event` hearing the run as it goes; fails before starting when
    /// the page's settings cannot run a question.
    fn ask(
        &self,
        asking: Asking,
        on_event: Rc<dyn Fn(&Event)>,
    ) -> Result<Running<Result<QueryResult, Failure>>, Failure>;
    /// SQL mode: `sql` imported as a plan, checked for `role` and run.
    fn sql(
        &self,
        sql: String,
        datasource: Option<String>,
        role: String,
    ) -> Running<Result<SqlRun, Failure>>;
    /// How `question` is routed, with no model call.
    fn route(&self, question: String, role: String) -> Local<Result<Routing, String>>;
    /// What the planner would be sent from `datasource` (none where it cannot say).
    fn retrieve(
        &self,
        question: String,
        datasource: String,
        role: String,
    ) -> Local<Result<Option<Retrieval>, String>>;

    /// Right or Wrong on an answer ("Right" may propose a verified query).
    fn judge(&self, result: Arc<QueryResult>, verdict: Verdict, role: String) -> Local<Said>;
    /// The verified queries proposed.
    fn proposals(&self) -> Local<Result<Vec<Proposal>, Failure>>;
    /// Whether `role` may approve proposals.
    fn may_approve(&self, role: &str) -> bool;
    /// Whether proposals are edited and deleted here (approving always is).
    fn edits_proposals(&self) -> bool;
    /// Does `action` to `proposal` as `role`; what was done, in words.
    fn decide(
        &self,
        proposal: Proposal,
        action: Action,
        role: String,
    ) -> Local<Result<&'static str, Failure>>;
}
