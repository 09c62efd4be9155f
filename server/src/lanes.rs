//! The engine threads. Each holds its own `Service` over its own connections (the engine
//! is single-threaded: `Rc` databases, futures that are not `Send`) and takes one job at a
//! time from a shared queue. The schemas are read once, before the threads start, and
//! every thread builds its workspace from that read.
//!
//! A database that cannot be opened or read is left out alone; a retry thread tries it
//! again every so often and, once it reads, every engine thread adds it before its next
//! job ([`Known`]).

use crate::metrics::Metrics;
use crate::traces::Traces;
use nl2sql_core::api::Streamed;
use nl2sql_core::config::{ProviderConfig, RunConfig};
use nl2sql_core::error::Error;
use nl2sql_core::error::{ErrorCode, Node, PipelineError, Severity};
use nl2sql_core::feedback::Curated;
use nl2sql_core::result::Routing;
use nl2sql_core::result::SqlRun;
use nl2sql_core::result::{Event, Events, QueryResult};
use nl2sql_core::service::{DatasourceInfo, Question, Service};
use nl2sql_core::service::{Opening, ReadSource, Unavailable};
use nl2sql_native::{Interrupt, NativeHost, Sources};
use std::path::PathBuf;
use std::rc::Rc;
use std::sync::atomic::AtomicBool;
use std::sync::mpsc;
use std::sync::{Arc, Mutex, PoisonError, RwLock};
use std::time::{Duration, Instant, SystemTime};
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

/// What the server knows of its datasources: those read, with their schemas, and those
/// left out, with why. The retry thread changes it; each engine thread catches up before
/// its next job.
#[derive(Debug, Clone, Default)]
pub struct Known {
    /// The datasources read, with their schemas.
    pub datasources: Vec<DatasourceInfo>,
    /// Those left out, each with its code and reason.
    pub unavailable: Vec<Unavailable>,
    /// The reads of those that came back since the start, for the engine threads to add.
    recovered: Vec<(String, ReadSource)>,
}

/// [`Known`], shared.
#[derive(Debug, Default)]
struct Shared(RwLock<Arc<Known>>);

impl Shared {
    fn now(&self) -> Arc<Known> {
        Arc::clone(&self.0.read().unwrap_or_else(PoisonError::into_inner))
    }

    fn change(&self, change: impl FnOnce(&mut Known)) {
        let mut held = self.0.write().unwrap_or_else(PoisonError::into_inner);
        let mut next = Known::clone(&held);
        change(&mut next);
        *held = Arc::new(next);
    }
}

/// The engine threads and their queue.
pub struct Lanes {
    queue: Mutex<Option<mpsc::Sender<Job>>>,
    count: usize,
    known: Arc<Shared>,
    approved: Arc<Approved>,
    /// Dropped with the lanes, which ends the retry thread.
    _retrying: Option<mpsc::Sender<()>>,
}

impl Lanes {
    /// Reads the databases once, then starts `count` engine threads over them; a database
    /// that cannot be opened or read is left out and tried again every `retry`. Fails when
    /// an engine thread cannot start or build its workspace.
    pub fn start(
        spec: &SourcesSpec,
        (provider, run): (&ProviderConfig, &RunConfig),
        count: usize,
        retry: Duration,
        (metrics, traces): (Arc<Metrics>, Option<Arc<Traces>>),
    ) -> Result<Lanes, String> {
        let count = count.max(1);
        let (reads, unavailable) = read_once(spec)?;
        let reads = Arc::new((reads, unavailable.clone()));
        let known = Arc::new(Shared::default());
        let approved = Arc::new(Approved::default());
        let (queue, jobs) = mpsc::channel::<Job>();
        let jobs = Arc::new(Mutex::new(jobs));
        let mut datasources = None;
        for n in 0..count {
            let (ready, started) = mpsc::channel();
            let (spec, provider, run) = (spec.clone(), provider.clone(), run.clone());
            let (reads, jobs) = (Arc::clone(&reads), Arc::clone(&jobs));
            let (approved, known) = (Arc::clone(&approved), Arc::clone(&known));
            let metrics = Arc::clone(&metrics);
            let traces = traces.clone();
            std::thread::Builder::new()
                .name(format!("nl2sql-engine-{n}"))
                .spawn(move || {
                    let (reads, unavailable) = reads.as_ref();
                    let shared = Catching {
                        jobs: &jobs,
                        approved: &approved,
                        known: &known,
                        metrics: &metrics,
                        traces: traces.as_deref(),
                    };
                    lane(&spec, (provider, run), (reads, unavailable), shared, &ready);
                })
                .map_err(|e| format!("cannot start an engine thread: {e}"))?;
            let listed = started
                .recv()
                .map_err(|_| "an engine thread ended while starting".to_string())??;
            datasources.get_or_insert(listed);
        }
        // Every datasource read is listed, also one the first thread could not open (it
        // catches up before a job).
        let mut datasources = datasources.unwrap_or_default();
        let sources = spec.sources()?;
        for (id, read) in &reads.0 {
            if !datasources.iter().any(|d| d.id == *id) {
                datasources.push(described(&sources, id, read));
            }
        }
        known.change(|k| {
            k.datasources = datasources;
            k.unavailable = unavailable;
        });
        let retrying = match known.now().unavailable.is_empty() {
            true => None,
            false => Some(start_retrying(spec, Arc::clone(&known), retry)?),
        };
        Ok(Lanes {
            queue: Mutex::new(Some(queue)),
            count,
            known,
            approved,
            _retrying: retrying,
        })
    }

    /// How many engine threads there are.
    pub fn count(&self) -> usize {
        self.count
    }

    /// The datasources read, with their schemas, and those left out, as now.
    pub fn known(&self) -> Arc<Known> {
        self.known.now()
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

/// Every database's schema and values, read once (through a project's schema cache), and
/// those left out, each logged with why.
type ReadOnce = (Vec<(String, ReadSource)>, Vec<Unavailable>);

fn read_once(spec: &SourcesSpec) -> Result<ReadOnce, String> {
    let sources = spec.sources()?;
    let readings = sources.read_all(false);
    for problem in &readings.cache.problems {
        tracing::warn!(target: "nl2sql::serve", problem = %problem, "the schema cache was not used");
    }
    for left_out in &readings.unavailable {
        tracing::warn!(target: "nl2sql::serve", datasource = %left_out.id, code = %left_out.code, reason = %left_out.reason, "a datasource was left out; it is tried again later");
    }
    let reads = readings.reads.into_iter();
    let reads = reads.map(|r| (r.profile.id.clone(), r.read)).collect();
    Ok((reads, readings.unavailable))
}

/// Tries the datasources left out again every `every` (at first after one `every`), on a
/// thread of its own, until the sender it returns is dropped. A datasource that reads is
/// moved to the known ones; one that still fails keeps its newest reason.
fn start_retrying(
    spec: &SourcesSpec,
    known: Arc<Shared>,
    every: Duration,
) -> Result<mpsc::Sender<()>, String> {
    let (stop, stopped) = mpsc::channel::<()>();
    let spec = spec.clone();
    std::thread::Builder::new()
        .name("nl2sql-retry".into())
        .spawn(move || {
            while let Err(mpsc::RecvTimeoutError::Timeout) = stopped.recv_timeout(every) {
                let left_out = known.now().unavailable.clone();
                if left_out.is_empty() {
                    return;
                }
                let sources = match spec.sources() {
                    Ok(sources) => sources,
                    Err(why) => {
                        tracing::error!(target: "nl2sql::serve", error = %why, "the datasources could not be named again");
                        continue;
                    }
                };
                for before in left_out {
                    retry(&sources, &known, &before);
                }
            }
        })
        .map_err(|e| format!("cannot start the retry thread: {e}"))?;
    Ok(stop)
}

/// One more try of a datasource left out.
fn retry(sources: &Sources, known: &Shared, before: &Unavailable) {
    let id = before.id.clone();
    match sources.open_read(&id) {
        Ok(Opening {
            read_ahead: Some(read),
            ..
        }) => {
            tracing::info!(target: "nl2sql::serve", datasource = %id, "a datasource left out was read; it is in use from the next run");
            let info = described(sources, &id, &read);
            known.change(|k| {
                k.unavailable.retain(|u| u.id != id);
                k.datasources.push(info);
                k.recovered.push((id, read));
            });
        }
        // `open_read` always reads; nothing to add without a read.
        Ok(_) => {}
        Err(e) => {
            let now = Unavailable::new(&id, &e);
            if now != *before {
                known.change(|k| {
                    for u in k.unavailable.iter_mut().filter(|u| u.id == id) {
                        *u = now.clone();
                    }
                });
            }
        }
    }
}

/// Datasource `id` as the server lists it: its description, and the schema `read` gave with
/// the project's word on relationships applied, as each engine thread applies it.
fn described(sources: &Sources, id: &str, read: &ReadSource) -> DatasourceInfo {
    let profile = sources.profile(id);
    let mut schema = read.schema.clone();
    for why in profile.notes.apply_relationships(&mut schema) {
        tracing::warn!(target: "nl2sql::serve", datasource = %id, problem = %why, "a relationship was dropped");
    }
    DatasourceInfo {
        id: id.to_string(),
        description: profile.description,
        schema,
    }
}

/// What every engine thread shares: the queue, and what it catches up with before a job.
struct Catching<'a> {
    jobs: &'a Mutex<mpsc::Receiver<Job>>,
    approved: &'a Approved,
    known: &'a Shared,
    metrics: &'a Metrics,
    traces: Option<&'a Traces>,
}

/// One engine thread: its own connections and service, then jobs until the queue closes.
fn lane(
    spec: &SourcesSpec,
    (provider, run): (ProviderConfig, RunConfig),
    reads: (&[(String, ReadSource)], &[Unavailable]),
    shared: Catching<'_>,
    ready: &mpsc::Sender<Result<Vec<DatasourceInfo>, String>>,
) {
    let Catching {
        jobs,
        approved,
        known,
        metrics,
        traces,
    } = shared;
    let interrupt = Interrupt::new();
    let service = spec.sources().and_then(|sources| {
        let workspace = sources
            .workspace_over(sources.policies(), Some(&interrupt), reads)
            .map_err(|e| e.to_string())?;
        let service = Service::new(NativeHost::default(), workspace, provider, run);
        Ok((sources, service))
    });
    let (sources, service) = match service {
        Ok((sources, service)) => {
            let _ = ready.send(Ok(service.datasources()));
            (sources, service)
        }
        Err(why) => {
            let _ = ready.send(Err(why));
            return;
        }
    };
    let mut in_force = 0;
    let mut tried = Vec::new();
    loop {
        // The lock is held only while waiting: one thread waits, the others work.
        let job = jobs.lock().unwrap_or_else(PoisonError::into_inner).recv();
        let Ok(job) = job else {
            return;
        };
        catch_up(&sources, &service, &interrupt, (known, reads.0, &mut tried));
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
        let began = SystemTime::now();
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
        let took = started.elapsed();
        tracing::info!(
            target: "nl2sql::run",
            work = kind,
            key = %job.key,
            outcome = outcome(&reply),
            cancelled,
            duration_ms = took.as_millis() as u64,
            "run"
        );
        metrics.run(kind, outcome(&reply), cancelled, took.as_secs_f64());
        match &reply {
            Reply::Ask(result) => metrics.asked(result),
            Reply::Sql(_) => metrics.queried(took.as_secs_f64()),
            _ => {}
        }
        if let Some(traces) = traces {
            match &reply {
                Reply::Ask(result) => traces.asked(began, result, cancelled),
                Reply::Sql(_) => traces.queried(began, took, outcome(&reply)),
                _ => {}
            }
        }
        // The caller may have gone; its run was cancelled then, and nobody reads this.
        let _ = job.reply.send(reply);
    }
}

/// How long an engine thread waits before it tries again to open a datasource it could not.
const REOPEN: Duration = Duration::from_secs(5);

/// The datasources an engine thread could not open, and when it last tried.
type Tried = Vec<(String, Instant)>;

/// Adds to `service` every datasource the server has read (at the start, or since, by the
/// retry thread) that this thread does not have yet — one that came back, or one this
/// thread alone could not open — each alone; one that still cannot be opened here is tried
/// again after [`REOPEN`].
fn catch_up(
    sources: &Sources,
    service: &Service<NativeHost>,
    interrupt: &Interrupt,
    (known, reads, tried): (&Shared, &[(String, ReadSource)], &mut Tried),
) {
    let now = known.now();
    let workspace = service.workspace();
    // An id is in one of the two lists: a datasource recovered was not read at the start.
    let missing: Vec<&(String, ReadSource)> = (reads.iter().chain(&now.recovered))
        .filter(|(id, _)| now.datasources.iter().any(|d| d.id == *id))
        .filter(|(id, _)| workspace.source(id).is_none())
        .collect();
    drop(workspace);
    for (id, read) in missing {
        let waited = tried.iter().find(|(t, _)| t == id);
        if waited.is_some_and(|(_, at)| at.elapsed() < REOPEN) {
            continue;
        }
        let opened = sources.opening(id, Some(interrupt), read.clone());
        match opened.and_then(|opening| pollster::block_on(service.add(opening))) {
            Ok(()) => tried.retain(|(t, _)| t != id),
            Err(e) => {
                tracing::error!(target: "nl2sql::serve", datasource = %id, error = %e, "a datasource could not be added on this engine thread; it is tried again");
                tried.retain(|(t, _)| t != id);
                tried.push((id.clone(), Instant::now()));
            }
        }
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
