//! The engine threads. Each holds its own `Service` over its own connections (the engine
//! is single-threaded: `Rc` databases, futures that are not `Send`) and takes one job at a
//! time from a shared queue. The schemas are read once, before the threads start, and
//! every thread builds its workspace from that read.

use nl2sql_core::api::Streamed;
use nl2sql_core::config::{ProviderConfig, RunConfig};
use nl2sql_core::error::Error;
use nl2sql_core::error::{ErrorCode, Node, PipelineError, Severity};
use nl2sql_core::feedback::Curated;
use nl2sql_core::result::Routing;
use nl2sql_core::result::SqlRun;
use nl2sql_core::result::{Event, Events, QueryResult};
use nl2sql_core::service::ReadSource;
use nl2sql_core::service::{DatasourceInfo, Question, Service};
use nl2sql_native::{Interrupt, NativeHost, Sources};
use std::path::PathBuf;
use std::rc::Rc;
use std::sync::atomic::AtomicBool;
use std::sync::mpsc;
use std::sync::{Arc, Mutex, PoisonError, RwLock};
use std::time::Instant;
use tokio::sync::{mpsc as live, oneshot, OwnedSemaphorePermit};

/// Where the databases are, as the command line names them; every engine thread opens
/// them again (a `Sources` holds `Rc`s and stays on its thread).
#[derive(Debug, Clone, Default)]
pub struct SourcesSpec {
    /// `--db`.
    pub db: Option<String>,
    /// `--id`.
    pub id: Option<String>,
    /// `--config`.
    pub config: Option<PathBuf>,
    /// `--data`.
    pub data: PathBuf,
}

impl SourcesSpec {
    /// The databases this names.
    pub fn sources(&self) -> Result<Sources, String> {
        Sources::new(
            self.db.as_deref(),
            self.id.as_deref(),
            self.config.as_deref(),
            &self.data,
        )
        .map_err(|e| e.to_string())
    }
}

/// What a job asks of an engine thread.
pub enum Work {
    /// A question; with `events`, the engine's events as they happen, then the result.
    Ask {
        /// The question, roles already decided.
        question: Question,
        /// Where the live events go.
        events: Option<live::UnboundedSender<Streamed>>,
    },
    /// SQL mode.
    Sql {
        /// The SQL.
        sql: String,
        /// Where (none: the first datasource).
        datasource: Option<String>,
        /// The caller's role.
        role: String,
    },
    /// Routing alone.
    Route {
        /// The question.
        question: String,
        /// The caller's role.
        role: String,
    },
}

/// What a job answers.
#[derive(Debug)]
pub enum Reply {
    /// An ask's result.
    Ask(Box<QueryResult>),
    /// SQL mode's report.
    Sql(Box<SqlRun>),
    /// Routing.
    Route(Result<Routing, Error>),
    /// The run could not be made (a configuration the engine refused).
    Refused(Error),
    /// The engine failed on this job (a bug, logged); the thread goes on with the next.
    Failed,
}

struct Job {
    work: Work,
    /// Set by whoever waits for the reply when they stop waiting.
    cancel: Arc<AtomicBool>,
    /// The key's slot, held until the job is done here (not merely until its client left),
    /// so a client that disconnects and asks again cannot pile up runs.
    permit: Option<OwnedSemaphorePermit>,
    /// Who asked, for the run's log line.
    key: String,
    reply: oneshot::Sender<Reply>,
}

/// The verified queries approved from feedback, as every engine thread puts them in force:
/// each takes the newest before its next job.
#[derive(Debug, Default)]
pub struct Approved(RwLock<(u64, Curated)>);

impl Approved {
    /// Puts `curated` in force from every thread's next job.
    pub fn set(&self, curated: Curated) {
        let mut held = self.0.write().unwrap_or_else(PoisonError::into_inner);
        held.0 += 1;
        held.1 = curated;
    }

    /// The approved queries when they changed since `version`.
    fn newer_than(&self, version: u64) -> Option<(u64, Curated)> {
        let held = self.0.read().unwrap_or_else(PoisonError::into_inner);
        (held.0 != version).then(|| held.clone())
    }
}

/// The engine threads and their queue.
pub struct Lanes {
    queue: Mutex<Option<mpsc::Sender<Job>>>,
    count: usize,
    datasources: Vec<DatasourceInfo>,
    approved: Arc<Approved>,
}

impl Lanes {
    /// Reads the databases once, then starts `count` engine threads over them; fails when
    /// any cannot open its databases or build its workspace.
    pub fn start(
        spec: &SourcesSpec,
        provider: &ProviderConfig,
        run: &RunConfig,
        count: usize,
    ) -> Result<Lanes, String> {
        let count = count.max(1);
        let reads = Arc::new(read_once(spec)?);
        let approved = Arc::new(Approved::default());
        let (queue, jobs) = mpsc::channel::<Job>();
        let jobs = Arc::new(Mutex::new(jobs));
        let mut datasources = None;
        for n in 0..count {
            let (ready, started) = mpsc::channel();
            let (spec, provider, run) = (spec.clone(), provider.clone(), run.clone());
            let (reads, jobs) = (Arc::clone(&reads), Arc::clone(&jobs));
            let approved = Arc::clone(&approved);
            std::thread::Builder::new()
                .name(format!("nl2sql-engine-{n}"))
                .spawn(move || lane(&spec, (provider, run), &reads, (&jobs, &approved), &ready))
                .map_err(|e| format!("cannot start an engine thread: {e}"))?;
            let listed = started
                .recv()
                .map_err(|_| "an engine thread ended while starting".to_string())??;
            datasources.get_or_insert(listed);
        }
        Ok(Lanes {
            queue: Mutex::new(Some(queue)),
            count,
            datasources: datasources.unwrap_or_default(),
            approved,
        })
    }

    /// How many engine threads there are.
    pub fn count(&self) -> usize {
        self.count
    }

    /// The datasources with their schemas, as read at start.
    pub fn datasources(&self) -> &[DatasourceInfo] {
        &self.datasources
    }

    /// Where the approved verified queries are put in force for every thread.
    pub fn approved(&self) -> &Approved {
        &self.approved
    }

    /// Queues `work` for the next free engine thread; the reply comes on the receiver.
    /// Setting `cancel` stops the run, before it starts or while it runs.
    pub fn submit(
        &self,
        work: Work,
        cancel: Arc<AtomicBool>,
        permit: Option<OwnedSemaphorePermit>,
        key: &str,
    ) -> Result<oneshot::Receiver<Reply>, String> {
        let (reply, answer) = oneshot::channel();
        let job = Job {
            work,
            cancel,
            permit,
            key: key.to_string(),
            reply,
        };
        let queue = self.queue.lock().unwrap_or_else(PoisonError::into_inner);
        // A send fails only when every engine thread has stopped (the job comes back).
        let sent = queue.as_ref().is_some_and(|q| q.send(job).is_ok());
        if sent {
            Ok(answer)
        } else {
            Err("the engine threads have stopped".into())
        }
    }
}

impl Drop for Lanes {
    fn drop(&mut self) {
        // Closing the queue ends every engine thread once it finishes its job.
        self.queue
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
    }
}

/// Every database's schema and values, read once (through a project's schema cache).
fn read_once(spec: &SourcesSpec) -> Result<Vec<(String, ReadSource)>, String> {
    let sources = spec.sources()?;
    let (reads, report) = sources.read_all(false).map_err(|e| e.to_string())?;
    for problem in &report.problems {
        tracing::warn!(target: "nl2sql::serve", problem = %problem, "the schema cache was not used");
    }
    Ok(reads
        .into_iter()
        .map(|r| (r.profile.id.clone(), r.read))
        .collect())
}

/// One engine thread: its own connections and service, then jobs until the queue closes.
fn lane(
    spec: &SourcesSpec,
    (provider, run): (ProviderConfig, RunConfig),
    reads: &[(String, ReadSource)],
    (jobs, approved): (&Mutex<mpsc::Receiver<Job>>, &Approved),
    ready: &mpsc::Sender<Result<Vec<DatasourceInfo>, String>>,
) {
    let interrupt = Interrupt::new();
    let service = spec.sources().and_then(|sources| {
        let workspace = sources
            .workspace_over(sources.policies(), Some(&interrupt), reads)
            .map_err(|e| e.to_string())?;
        Ok(Service::new(
            NativeHost::default(),
            workspace,
            provider,
            run,
        ))
    });
    let service = match service {
        Ok(service) => {
            let _ = ready.send(Ok(service.datasources()));
            service
        }
        Err(why) => {
            let _ = ready.send(Err(why));
            return;
        }
    };
    let mut in_force = 0;
    loop {
        // The lock is held only while waiting: one thread waits, the others work.
        let job = jobs.lock().unwrap_or_else(PoisonError::into_inner).recv();
        let Ok(job) = job else {
            return;
        };
        if let Some((version, curated)) = approved.newer_than(in_force) {
            match pollster::block_on(service.use_verified(curated)) {
                Ok(()) => in_force = version,
                Err(e) => {
                    tracing::error!(target: "nl2sql::serve", error = %e, "the approved verified queries were not put in force");
                }
            }
        }
        interrupt.watch(Arc::clone(&job.cancel));
        let started = Instant::now();
        // A failure inside the engine is a bug; it costs this job, never the thread.
        let served = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            serve_job(&service, job.work, &job.cancel)
        }));
        let (kind, reply) = served.unwrap_or_else(|_| {
            tracing::error!(target: "nl2sql::run", key = %job.key, "the engine failed on a job");
            ("failed", Reply::Failed)
        });
        interrupt.clear();
        drop(job.permit);
        let cancelled = job.cancel.load(std::sync::atomic::Ordering::SeqCst);
        tracing::info!(
            target: "nl2sql::run",
            work = kind,
            key = %job.key,
            outcome = outcome(&reply),
            cancelled,
            duration_ms = started.elapsed().as_millis() as u64,
            "run"
        );
        // The caller may have gone; its run was cancelled then, and nobody reads this.
        let _ = job.reply.send(reply);
    }
}

fn serve_job(
    service: &Service<NativeHost>,
    work: Work,
    cancel: &Arc<AtomicBool>,
) -> (&'static str, Reply) {
    match work {
        Work::Ask { question, events } => {
            let ask = match service.request(question) {
                Ok(ask) => ask.cancelled_by(Arc::clone(cancel)),
                Err(e) => return ("ask", Reply::Refused(e)),
            };
            let live = events.clone().map(|tx| {
                Events(Rc::new(move |e: &Event| {
                    // A client that went away has cancelled the run already.
                    let _ = tx.send(Streamed::Event(e.clone()));
                }))
            });
            let result = pollster::block_on(service.ask(ask, live));
            if let Some(tx) = events {
                let _ = tx.send(Streamed::Result(Box::new(result.clone())));
            }
            ("ask", Reply::Ask(Box::new(result)))
        }
        Work::Sql {
            sql,
            datasource,
            role,
        } => {
            // Cancelled while it waited: the query is not started.
            if cancel.load(std::sync::atomic::Ordering::SeqCst) {
                let e = PipelineError::new(
                    Node::Executor,
                    ErrorCode::Cancelled,
                    Severity::Critical,
                    "The query was cancelled before it started.",
                );
                let ds = datasource.unwrap_or_default();
                return ("sql", Reply::Sql(Box::new(SqlRun::failed(&ds, &sql, e))));
            }
            let run = pollster::block_on(service.sql(&sql, datasource.as_deref(), &[role]));
            ("sql", Reply::Sql(Box::new(run.cleaned())))
        }
        Work::Route { question, role } => {
            let routing = pollster::block_on(service.route(&question, &[role]));
            ("route", Reply::Route(routing))
        }
    }
}

/// The run's outcome for its log line: a stable code, never a message.
fn outcome(reply: &Reply) -> &'static str {
    match reply {
        Reply::Ask(result) => result
            .errors
            .first()
            .map_or("ok", |e| e.error_code.as_str()),
        Reply::Sql(run) => run.errors.first().map_or("ok", |e| e.error_code.as_str()),
        Reply::Route(Ok(_)) => "ok",
        Reply::Route(Err(e)) | Reply::Refused(e) => e.code.as_str(),
        Reply::Failed => ErrorCode::Internal.as_str(),
    }
}
