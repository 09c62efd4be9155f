//! A server answering: asks stream from its API, SQL mode and routing run there, and
//! feedback goes to it; the key decides the role, so none is sent.

use super::{feedback, Server};
use crate::engine::{
    Action, Asking, Failure, LeftOut, Local, PageEngine, Roles, Running, Said, SourceInfo,
};
use nl2sql_core::api::{RouteRequest, SqlRequest};
use nl2sql_core::feedback::{Proposal, Verdict};
use nl2sql_core::result::{Event, QueryResult, Retrieval, Routing, SqlRun};
use nl2sql_core::service::Question;
use nl2sql_wasm::FetchTransport;
use std::rc::Rc;
use std::sync::Arc;

impl PageEngine for Server {
    fn sources(&self) -> Vec<SourceInfo> {
        self.listing.borrow().sources.clone()
    }

    fn left_out(&self) -> Vec<LeftOut> {
        self.listing.borrow().left_out.clone()
    }

    fn sources_owner(&self) -> Option<String> {
        Some(format!(
            "the server at {}, as its key's role sees them",
            self.base()
        ))
    }

    fn roles(&self) -> Roles {
        Roles::SetBy {
            shown: "the server's key",
            why: "The server's API key decides the role",
        }
    }

    fn can_read(&self, _role: &str, _datasource: &str, _table: &str) -> bool {
        // The server lists only what its key's role may read.
        true
    }

    fn own_model(&self) -> bool {
        true
    }

    fn ask(
        &self,
        asking: Asking,
        on_event: Rc<dyn Fn(&Event)>,
    ) -> Result<Running<Result<QueryResult, Failure>>, Failure> {
        let request = Question {
            question: asking.question,
            datasource: asking.datasource,
            plan_only: asking.plan_only,
            thread: asking.thread,
            // The server's key decides the role, and the server cleans the trace.
            ..Question::default()
        };
        let transport = FetchTransport::default();
        let remote = self.remote.clone();
        Ok(Running {
            // Closing the stream cancels the run on the server.
            cancel: Rc::new(transport.canceller()),
            done: Box::pin(async move {
                let asked = remote.ask(&transport, &request, &*on_event).await;
                asked.map_err(Failure::from)
            }),
        })
    }

    fn sql(
        &self,
        sql: String,
        datasource: Option<String>,
        _role: String,
    ) -> Running<Result<SqlRun, Failure>> {
        let request = SqlRequest {
            sql,
            datasource,
            role: None,
        };
        let transport = FetchTransport::default();
        let remote = self.remote.clone();
        Running {
            // Closing the request cancels the query on the server.
            cancel: Rc::new(transport.canceller()),
            done: Box::pin(async move {
                remote
                    .sql(&transport, &request)
                    .await
                    .map_err(Failure::from)
            }),
        }
    }

    fn route(&self, question: String, _role: String) -> Local<Result<Routing, String>> {
        let remote = self.remote.clone();
        let request = RouteRequest {
            question,
            role: None,
        };
        Box::pin(async move {
            let routed = remote.route(&FetchTransport::default(), &request).await;
            routed.map_err(|e| e.to_string())
        })
    }

    fn retrieve(
        &self,
        _: String,
        _: String,
        _: String,
    ) -> Local<Result<Option<Retrieval>, String>> {
        // The server's API routes; what retrieval would send its planner is not shown.
        Box::pin(async { Ok(None) })
    }

    fn judge(&self, result: Arc<QueryResult>, verdict: Verdict, _role: String) -> Local<Said> {
        Box::pin(feedback::judge(self.remote.clone(), result, verdict))
    }

    fn proposals(&self) -> Local<Result<Vec<Proposal>, Failure>> {
        let remote = self.remote.clone();
        Box::pin(async move { Ok(remote.proposals(&FetchTransport::default()).await?) })
    }

    fn may_approve(&self, _role: &str) -> bool {
        // The key's role decides; the server says so when it refuses.
        true
    }

    fn edits_proposals(&self) -> bool {
        false
    }

    fn decide(
        &self,
        proposal: Proposal,
        action: Action,
        _role: String,
    ) -> Local<Result<&'static str, Failure>> {
        Box::pin(feedback::decide(
            self.remote.clone(),
            proposal,
            action,
            self.changed,
        ))
    }
}
