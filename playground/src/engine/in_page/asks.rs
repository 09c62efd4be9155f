//! The in-page engine answering: asks, SQL mode and routing run here, as the role chosen
//! in the page, with full traces (the person owns the data they opened).

use super::InPage;
use crate::engine::{Action, Asking, Failure, Local, PageEngine, Roles, Running, Said, SourceInfo};
use nl2sql_core::feedback::{Proposal, Verdict};
use nl2sql_core::result::{Event, Events, QueryResult, Retrieval, Routing, SqlRun, TraceForm};
use nl2sql_core::service::Question;
use nl2sql_wasm::DatabaseHost;
use std::rc::Rc;
use std::sync::Arc;

impl PageEngine for InPage {
    fn sources(&self) -> Vec<SourceInfo> {
        self.listed()
    }

    fn sources_owner(&self) -> Option<String> {
        None
    }

    fn roles(&self) -> Roles {
        let policies = self.session.policies();
        Roles::Pick(
            policies
                .roles
                .into_iter()
                .map(|(name, role)| (name, role.description))
                .collect(),
        )
    }

    fn can_read(&self, role: &str, datasource: &str, table: &str) -> bool {
        let workspace = self.session.workspace();
        let scope = workspace.policies().scope(&[role.to_string()]);
        scope.can_read(datasource, table)
    }

    fn own_model(&self) -> bool {
        false
    }

    fn ask(
        &self,
        asking: Asking,
        on_event: Rc<dyn Fn(&Event)>,
    ) -> Result<Running<Result<QueryResult, Failure>>, Failure> {
        // The request is registered before the run starts, so Cancel always reaches it.
        let request = self.session.request(Question {
            question: asking.question,
            roles: vec![asking.role],
            datasource: asking.datasource,
            plan_only: asking.plan_only,
            trace: TraceForm::Full,
            thread: asking.thread,
        })?;
        let token = request.canceller();
        let session = Rc::clone(&self.session);
        Ok(Running {
            cancel: Rc::new(move || token.cancel()),
            done: Box::pin(async move { Ok(session.ask(request, Some(Events(on_event))).await) }),
        })
    }

    fn sql(
        &self,
        sql: String,
        datasource: Option<String>,
        role: String,
    ) -> Running<Result<SqlRun, Failure>> {
        // Cancel stops the query in its worker (it ends CANCELLED): the datasource named,
        // else the first, which is where SQL mode runs it.
        let target = datasource.clone().or_else(|| {
            self.session
                .workspace()
                .ids()
                .first()
                .map(|id| id.to_string())
        });
        let stopper = Rc::clone(&self.session);
        let session = Rc::clone(&self.session);
        Running {
            cancel: Rc::new(move || {
                if let (DatabaseHost::Workers(workers), Some(id)) =
                    (stopper.host().databases(), &target)
                {
                    workers.interrupt_one(id);
                }
            }),
            done: Box::pin(
                async move { Ok(session.sql(&sql, datasource.as_deref(), &[role]).await) },
            ),
        }
    }

    fn route(&self, question: String, role: String) -> Local<Result<Routing, String>> {
        let session = Rc::clone(&self.session);
        Box::pin(async move {
            session
                .route(&question, &[role])
                .await
                .map_err(|e| e.to_string())
        })
    }

    fn retrieve(
        &self,
        question: String,
        datasource: String,
        role: String,
    ) -> Local<Result<Option<Retrieval>, String>> {
        let session = Rc::clone(&self.session);
        Box::pin(async move {
            let found = session.retrieve(&question, &datasource, &[role]).await;
            found.map(Some).map_err(|e| e.to_string())
        })
    }

    fn judge(&self, result: Arc<QueryResult>, verdict: Verdict, role: String) -> Local<Said> {
        let this = self.clone();
        Box::pin(async move { this.judged(&result, verdict, &role).await })
    }

    fn proposals(&self) -> Local<Result<Vec<Proposal>, Failure>> {
        let proposals = self.book.borrow().proposals.clone();
        Box::pin(async move { Ok(proposals) })
    }

    fn may_approve(&self, role: &str) -> bool {
        self.session.may_approve(&[role.to_string()])
    }

    fn edits_proposals(&self) -> bool {
        true
    }

    fn decide(
        &self,
        proposal: Proposal,
        action: Action,
        role: String,
    ) -> Local<Result<&'static str, Failure>> {
        let this = self.clone();
        Box::pin(async move { this.decided(&proposal, action, role).await })
    }
}
