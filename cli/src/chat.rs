//! `nl2sql chat`: a conversation. Each line continues the thread (a follow-up is planned as
//! an edit of the previous plan), a question asked back is answered by its number, Ctrl-C
//! cancels the running question (its model call and its database query), not the program.
//! Line editing and history by rustyline; the history is kept beside the feedback file.

use crate::ask::{AnswerWriter, ModelArgs};
use crate::Failure;
use nl2sql_core::config::RunConfig;
use nl2sql_core::config::QUERY_TIMEOUT_MS;
use nl2sql_core::feedback::{Answered, Given, Verdict};
use nl2sql_core::result::{ChangeKind, Thread};
use nl2sql_core::result::{Event, Events, QueryResult, Status, TraceForm};
use nl2sql_core::service::{Question, Service};
use nl2sql_native::{feedback_file, Interrupt, NativeHost, Sources};
use rustyline::error::ReadlineError;
use std::path::PathBuf;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

/// `nl2sql chat`'s command line.
#[derive(clap::Args)]
pub struct ChatArgs {
    /// A role the caller holds; repeat for several [default: the policy's default role]
    #[arg(long = "role", value_name = "ROLE")]
    roles: Vec<String>,
    /// Ask this datasource only, no routing
    #[arg(long, value_name = "ID")]
    datasource: Option<String>,
    #[command(flatten)]
    model: ModelArgs,
    /// Who writes the answer
    #[arg(long, value_enum, default_value_t = AnswerWriter::Llm)]
    answer: AnswerWriter,
    /// Stop any query that runs longer than this many milliseconds (QUERY_TIMEOUT)
    #[arg(long, value_name = "MS", value_parser = crate::query::positive,
          default_value_t = QUERY_TIMEOUT_MS)]
    timeout_ms: u64,
    /// Turns a thread keeps for its follow-ups
    #[arg(long, value_name = "N", default_value_t = nl2sql_core::result::DEFAULT_TURNS)]
    turns: usize,
    #[command(flatten)]
    dbs: crate::DbArgs,
}

const HELP: &str = "Ask a question; the next one may follow up (\"and only for 2012?\").
  /new          start a new thread
  /sql          the last answer's SQL
  /right        the last answer is right (proposes a verified query)
  /wrong [why]  the last answer is wrong
  /help         this
  /quit         leave (or Ctrl-D); Ctrl-C cancels the running question";

/// The run in flight's cancel flag, for the Ctrl-C handler.
type Current = Arc<Mutex<Option<Arc<AtomicBool>>>>;

/// Runs `nl2sql chat`.
pub fn run(args: &ChatArgs) -> Result<(), Failure> {
    let sources = args.dbs.sources()?;
    let provider = args.model.provider_config_with(sources.provider())?;
    let run = RunConfig {
        answer: args.answer.config(),
        query_timeout_ms: args.timeout_ms,
        thread_turns: args.turns.max(1),
        ..RunConfig::default()
    };
    let interrupt = Interrupt::new();
    let service = open(&sources, &interrupt, provider, run)?;
    let feedback = feedback_file::feedback_path(&sources);
    let book = feedback_file::load(&feedback).map_err(|e| Failure::Runtime(e.to_string()))?;
    pollster::block_on(service.use_approved(&book)).map_err(|e| Failure::Runtime(e.to_string()))?;
    let current: Current = Arc::new(Mutex::new(None));
    cancel_on_ctrl_c(Arc::clone(&current));
    let mut editor = rustyline::DefaultEditor::new()
        .map_err(|e| Failure::Runtime(format!("the line editor: {e}")))?;
    let history = feedback.with_file_name("chat-history");
    // No history yet is the usual first run.
    let _ = editor.load_history(&history);
    println!(
        "nl2sql chat: ask about {}. /help for commands.",
        service.workspace().ids().join(", ")
    );
    let mut chat = Chat {
        args,
        service: &service,
        interrupt: &interrupt,
        current: &current,
        feedback,
        thread: Thread::default(),
        last: None,
    };
    loop {
        match editor.readline("nl2sql> ") {
            Ok(line) => {
                let line = line.trim().to_string();
                if line.is_empty() {
                    continue;
                }
                let _ = editor.add_history_entry(line.as_str());
                if !chat.line(&line)? {
                    break;
                }
            }
            Err(ReadlineError::Interrupted) => println!("(/quit or Ctrl-D leaves)"),
            Err(ReadlineError::Eof) => break,
            Err(e) => return Err(Failure::Runtime(format!("reading a line: {e}"))),
        }
    }
    if let Some(dir) = history.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    if let Err(e) = editor.save_history(&history) {
        eprintln!(
            "nl2sql: the history was not saved to {}: {e}",
            history.display()
        );
    }
    Ok(())
}

/// The facade over the databases, each query stoppable by `interrupt`.
fn open(
    sources: &Sources,
    interrupt: &Interrupt,
    provider: nl2sql_core::config::ProviderConfig,
    run: RunConfig,
) -> Result<Service<NativeHost>, Failure> {
    for id in sources.ids() {
        sources.id(Some(&id)).map_err(crate::source_failure)?;
    }
    let readings = sources
        .read_all(false)
        .some()
        .map_err(|e| Failure::Runtime(e.to_string()))?;
    crate::say_cache_problems(&readings.cache);
    crate::say_unavailable(&readings.unavailable);
    let reads: Vec<_> = (readings.reads.into_iter())
        .map(|r| (r.profile.id.clone(), r.read))
        .collect();
    let workspace = sources
        .workspace_over(
            sources.policies(),
            Some(interrupt),
            (&reads, &readings.unavailable),
        )
        .map_err(|e| Failure::Runtime(e.to_string()))?;
    Ok(Service::new(
        NativeHost::default(),
        workspace,
        provider,
        run,
    ))
}

/// Ctrl-C sets the running question's cancel flag (and leaves the program running): a
/// thread waits for the signal for as long as the chat lasts.
fn cancel_on_ctrl_c(current: Current) {
    std::thread::spawn(move || {
        let Ok(runtime) = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
        else {
            return;
        };
        runtime.block_on(async move {
            while tokio::signal::ctrl_c().await.is_ok() {
                let running = current.lock().unwrap_or_else(PoisonError::into_inner);
                if let Some(flag) = running.as_ref() {
                    flag.store(true, Ordering::SeqCst);
                    eprintln!("\ncancelling…");
                }
            }
        });
    });
}

/// The conversation so far.
struct Chat<'a> {
    args: &'a ChatArgs,
    service: &'a Service<NativeHost>,
    interrupt: &'a Interrupt,
    current: &'a Current,
    feedback: PathBuf,
    thread: Thread,
    last: Option<QueryResult>,
}

impl Chat<'_> {
    /// Handles one line; false to leave.
    fn line(&mut self, line: &str) -> Result<bool, Failure> {
        let (command, rest) = line.split_once(' ').unwrap_or((line, ""));
        match command {
            "/quit" | "/exit" => return Ok(false),
            "/help" => println!("{HELP}"),
            "/new" => {
                self.thread = Thread::default();
                println!("A new thread.");
            }
            "/sql" => match self.last_sql() {
                Some(sql) => println!("{sql}"),
                None => println!("No SQL yet."),
            },
            "/right" => self.judge(Verdict::Right, None)?,
            "/wrong" => self.judge(Verdict::Wrong, Some(rest.trim()).filter(|r| !r.is_empty()))?,
            c if c.starts_with('/') => println!("Unknown command {c}; /help lists them."),
            _ => {
                // A number answers the question asked back.
                let chosen = self
                    .last
                    .as_ref()
                    .and_then(|r| r.clarification.as_ref())
                    .and_then(|c| {
                        let n: usize = line.parse().ok()?;
                        c.options.get(n.checked_sub(1)?)
                    })
                    .map(|o| o.question.clone());
                let question = chosen.unwrap_or_else(|| line.to_string());
                self.ask(&question)?;
            }
        }
        Ok(true)
    }

    fn last_sql(&self) -> Option<String> {
        let last = self.last.as_ref()?;
        let sqls: Vec<String> = last
            .sub_queries
            .iter()
            .filter_map(|s| s.sql.clone())
            .chain(last.combined.as_ref().map(|c| c.sql.clone()))
            .collect();
        (!sqls.is_empty()).then(|| sqls.join(";\n\n"))
    }

    fn ask(&mut self, text: &str) -> Result<(), Failure> {
        let flag = Arc::new(AtomicBool::new(false));
        *self.current.lock().unwrap_or_else(PoisonError::into_inner) = Some(Arc::clone(&flag));
        self.interrupt.watch(Arc::clone(&flag));
        let question = Question {
            question: text.to_string(),
            roles: self.args.roles.clone(),
            datasource: self.args.datasource.clone(),
            plan_only: false,
            trace: TraceForm::Full,
            thread: Some(self.thread.clone()),
        };
        let ask = self
            .service
            .request(question)
            .map_err(|e| Failure::Usage(e.to_string()))?
            .cancelled_by(Arc::clone(&flag));
        let streamed = Rc::new(std::cell::Cell::new(false));
        let seen = Rc::clone(&streamed);
        let events = Events(Rc::new(move |e: &Event| {
            if let Event::AnswerDelta { text } = e {
                if !seen.replace(true) {
                    println!();
                }
                print!("{text}");
                let _ = std::io::Write::flush(&mut std::io::stdout());
            }
        }));
        let result = pollster::block_on(self.service.ask(ask, Some(events)));
        self.interrupt.clear();
        *self.current.lock().unwrap_or_else(PoisonError::into_inner) = None;
        show(&result, streamed.get());
        self.thread = result.thread.clone();
        self.last = Some(result);
        Ok(())
    }

    fn judge(&mut self, verdict: Verdict, comment: Option<&str>) -> Result<(), Failure> {
        let Some(last) = &self.last else {
            println!("No answer yet.");
            return Ok(());
        };
        let mut book =
            feedback_file::load(&self.feedback).map_err(|e| Failure::Runtime(e.to_string()))?;
        let by = crate::feedback::who(&self.args.roles);
        let at = nl2sql_native::now_rfc3339();
        let recorded = self.service.feedback(
            &mut book,
            Given {
                answered: Answered::of(last),
                verdict,
                comment,
                by: &by,
                at: &at,
            },
        );
        feedback_file::save(&self.feedback, &book).map_err(Failure::Runtime)?;
        crate::feedback::say_recorded(&recorded, &self.feedback);
        Ok(())
    }
}

/// Prints a result: how it followed the thread, what it asked back, or its rows and answer.
fn show(r: &QueryResult, streamed: bool) {
    if let Some(f) = &r.follow_up {
        if f.continued {
            let changes: Vec<String> = f
                .diff
                .iter()
                .flat_map(|d| &d.changes)
                .map(|c| {
                    let sign = match c.change {
                        ChangeKind::Added => "+",
                        ChangeKind::Removed => "-",
                        ChangeKind::Changed => "~",
                    };
                    format!("{sign} {}", c.text)
                })
                .collect();
            println!(
                "(follows up: {}){}",
                f.reason,
                if changes.is_empty() {
                    String::new()
                } else {
                    format!("\n  {}", changes.join("\n  "))
                }
            );
        } else {
            println!("(a new thread: {})", f.reason);
        }
    }
    if let (Status::NeedsClarification, Some(c)) = (r.status, &r.clarification) {
        println!("{}", c.question);
        for (i, o) in c.options.iter().enumerate() {
            println!("  {}. {}", i + 1, o.label);
        }
        println!("Type a number to choose.");
        return;
    }
    if let Some(answer) = r.answer_rows().filter(|a| !a.columns.is_empty()) {
        crate::ask::print_rows(None, answer.columns, answer.rows, answer.rows.len());
    }
    match (&r.final_answer, streamed) {
        (Some(_), true) => println!(),
        (Some(a), false) => println!("{}", a.text),
        (None, _) => {}
    }
    for e in &r.errors {
        println!("{}: {}", e.error_code, e.message);
    }
}
