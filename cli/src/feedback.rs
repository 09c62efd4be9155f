//! `nl2sql feedback`: Right or Wrong on a recorded answer, the verified queries "Right"
//! proposed (list, approve, edit, delete), and the approved ones as eval cases. The file is
//! `.nl2sql/feedback.json` beside the project file (or in the working directory without
//! one), or `--file`; nothing is sent anywhere.

use crate::Failure;
use nl2sql_core::config::{ProviderConfig, RunConfig};
use nl2sql_core::feedback::VerifiedQuery;
use nl2sql_core::feedback::{Answered, FeedbackBook, Given, ProposalStatus, Recorded, Verdict};
use nl2sql_core::result::QueryResult;
use nl2sql_core::service::Service;
use nl2sql_native::{feedback_file, NativeHost};
use std::path::{Path, PathBuf};

/// `nl2sql feedback`'s command line.
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    action: Action,
}

#[derive(clap::Subcommand)]
enum Action {
    /// Mark a recorded answer (nl2sql ask --trace FILE) right: proposes a verified query
    /// whose literals from the question are parameters
    Right(Judge),
    /// Mark a recorded answer wrong
    Wrong(Judge),
    /// The proposed and approved verified queries, and how much feedback there is
    List(Listing),
    /// Approve a proposed verified query (DATASOURCE.ID): the matcher answers with it
    Approve(Pick),
    /// Replace a proposal's query with a verified query read from a JSON file
    Edit(Edit),
    /// Delete a proposal, approved or not
    Delete(Pick),
    /// Write the approved queries as eval cases (--good), or the whole file as JSON
    Export(Export),
    /// Add another feedback file's entries and proposals to this one
    Import(Import),
}

/// Where the feedback file is.
#[derive(clap::Args)]
struct Place {
    /// The feedback file [default: .nl2sql/feedback.json beside the project file, or in the
    /// working directory]
    #[arg(long, value_name = "FILE")]
    file: Option<PathBuf>,
    #[command(flatten)]
    dbs: crate::DbArgs,
}

#[derive(clap::Args)]
struct Judge {
    /// The recorded result (from nl2sql ask --trace FILE)
    #[arg(long, value_name = "FILE")]
    trace: PathBuf,
    /// What you would add
    #[arg(long, value_name = "TEXT")]
    comment: Option<String>,
    #[command(flatten)]
    place: Place,
}

#[derive(clap::Args)]
struct Listing {
    /// Print the file's proposals as JSON
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    place: Place,
}

#[derive(clap::Args)]
struct Pick {
    /// The proposal: DATASOURCE.ID (as listed)
    #[arg(value_name = "DATASOURCE.ID")]
    proposal: String,
    /// A role the person holds; it must approve (approves = true in the policies)
    #[arg(long = "role", value_name = "ROLE")]
    roles: Vec<String>,
    #[command(flatten)]
    place: Place,
}

#[derive(clap::Args)]
struct Edit {
    /// The proposal: DATASOURCE.ID (as listed)
    #[arg(value_name = "DATASOURCE.ID")]
    proposal: String,
    /// The verified query as JSON (id, description, questions, params, sql)
    #[arg(long, value_name = "FILE")]
    query: PathBuf,
    /// A role the person holds; it must approve
    #[arg(long = "role", value_name = "ROLE")]
    roles: Vec<String>,
    #[command(flatten)]
    place: Place,
}

#[derive(clap::Args)]
struct Export {
    /// The approved queries as eval cases in the suite format (nl2sql eval --suite)
    #[arg(long)]
    good: bool,
    /// Write here instead of standard output
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    #[command(flatten)]
    place: Place,
}

#[derive(clap::Args)]
struct Import {
    /// The feedback file to add (from nl2sql feedback export or the playground)
    #[arg(value_name = "FILE")]
    from: PathBuf,
    #[command(flatten)]
    place: Place,
}

/// Who gave feedback: the person's login, and the roles they asked with.
pub(crate) fn who(roles: &[String]) -> String {
    let user = std::env::var("USER")
        .or_else(|_| std::env::var("USERNAME"))
        .unwrap_or_else(|_| "someone".into());
    if roles.is_empty() {
        user
    } else {
        format!("{user} ({})", roles.join(", "))
    }
}

/// Says what recording did.
pub(crate) fn say_recorded(recorded: &Recorded, file: &Path) {
    let e = &recorded.entry;
    println!(
        "Recorded {} as {:?} in {}.",
        e.id,
        e.verdict,
        file.display()
    );
    match (&recorded.proposal, &e.not_proposed) {
        (Some(p), _) => println!(
            "Proposed verified query {}.{}: {}\nSomeone whose role approves runs: nl2sql feedback approve {}.{} --role admin",
            p.datasource,
            p.query.id,
            p.query.questions.join(" | "),
            p.datasource,
            p.query.id
        ),
        (None, Some(why)) => println!("No verified query was proposed: {why}."),
        (None, None) => {}
    }
}

impl Place {
    fn path(&self) -> Result<PathBuf, Failure> {
        match &self.file {
            Some(f) => Ok(f.clone()),
            None => Ok(feedback_file::feedback_path(&self.dbs.sources()?)),
        }
    }

    fn load(&self) -> Result<(PathBuf, FeedbackBook), Failure> {
        let path = self.path()?;
        let book = feedback_file::load(&path).map_err(|e| Failure::Runtime(e.to_string()))?;
        Ok((path, book))
    }

    /// The databases, for the schemas proposals are checked against and the policies.
    fn service(&self) -> Result<Service<NativeHost>, Failure> {
        let sources = self.dbs.sources()?;
        let workspace = sources
            .workspace(sources.policies())
            .map_err(|e| Failure::Runtime(e.to_string()))?;
        crate::say_unavailable(workspace.unavailable());
        Ok(Service::new(
            NativeHost::default(),
            workspace,
            ProviderConfig::default(),
            RunConfig::default(),
        ))
    }
}

fn split(id: &str) -> Result<(&str, &str), Failure> {
    id.split_once('.')
        .filter(|(d, q)| !d.is_empty() && !q.is_empty())
        .ok_or_else(|| {
            Failure::Usage(format!(
                "{id:?} is not DATASOURCE.ID (nl2sql feedback list shows them)"
            ))
        })
}

fn refused(e: nl2sql_core::error::Error) -> Failure {
    crate::source_failure(e)
}

/// Runs `nl2sql feedback`.
pub fn run(args: &Args) -> Result<(), Failure> {
    match &args.action {
        Action::Right(j) => judge(j, Verdict::Right),
        Action::Wrong(j) => judge(j, Verdict::Wrong),
        Action::List(l) => list(l),
        Action::Approve(p) => {
            let (path, mut book) = p.place.load()?;
            let service = p.place.service()?;
            let at = nl2sql_native::now_rfc3339();
            let by = who(&p.roles);
            let approved = pollster::block_on(service.approve(
                &mut book,
                split(&p.proposal)?,
                &p.roles,
                (&by, &at),
            ))
            .map_err(refused)?;
            feedback_file::save(&path, &book).map_err(Failure::Runtime)?;
            println!(
                "Approved {}.{}: the matcher answers \"{}\" with it.",
                approved.datasource,
                approved.query.id,
                approved.query.questions.join("\" or \"")
            );
            Ok(())
        }
        Action::Edit(e) => {
            let (path, mut book) = e.place.load()?;
            let text = std::fs::read_to_string(&e.query)
                .map_err(|x| Failure::Runtime(format!("cannot read {}: {x}", e.query.display())))?;
            let query: VerifiedQuery = serde_json::from_str(&text).map_err(|x| {
                Failure::Runtime(format!(
                    "{} is not a verified query: {x}",
                    e.query.display()
                ))
            })?;
            let service = e.place.service()?;
            let edited = pollster::block_on(service.edit_proposal(
                &mut book,
                split(&e.proposal)?,
                query,
                &e.roles,
            ))
            .map_err(refused)?;
            feedback_file::save(&path, &book).map_err(Failure::Runtime)?;
            println!("Edited {}.{}.", edited.datasource, edited.query.id);
            Ok(())
        }
        Action::Delete(p) => {
            let (path, mut book) = p.place.load()?;
            let service = p.place.service()?;
            pollster::block_on(service.delete_proposal(&mut book, split(&p.proposal)?, &p.roles))
                .map_err(refused)?;
            feedback_file::save(&path, &book).map_err(Failure::Runtime)?;
            println!("Deleted {}.", p.proposal);
            Ok(())
        }
        Action::Export(x) => {
            let (_, book) = x.place.load()?;
            let text = if x.good {
                nl2sql_suite::good_cases(&book).map_err(Failure::Runtime)?
            } else {
                book.to_json()
            };
            match &x.out {
                Some(out) => std::fs::write(out, text)
                    .map_err(|e| Failure::Runtime(format!("cannot write {}: {e}", out.display()))),
                None => {
                    println!("{text}");
                    Ok(())
                }
            }
        }
        Action::Import(i) => {
            let (path, mut book) = i.place.load()?;
            let other =
                feedback_file::load(&i.from).map_err(|e| Failure::Runtime(e.to_string()))?;
            let entries = other.entries.len();
            let added = book.merge(other);
            feedback_file::save(&path, &book).map_err(Failure::Runtime)?;
            println!(
                "Imported {entries} entries and {added} new proposals into {}.",
                path.display()
            );
            Ok(())
        }
    }
}

fn judge(j: &Judge, verdict: Verdict) -> Result<(), Failure> {
    let text = std::fs::read_to_string(&j.trace)
        .map_err(|e| Failure::Runtime(format!("cannot read {}: {e}", j.trace.display())))?;
    let result: QueryResult = serde_json::from_str(&text).map_err(|e| {
        Failure::Runtime(format!(
            "{} is not a run's result (nl2sql ask --trace): {e}",
            j.trace.display()
        ))
    })?;
    let (path, mut book) = j.place.load()?;
    let service = j.place.service()?;
    let by = who(&result.roles);
    let at = nl2sql_native::now_rfc3339();
    let recorded = service.feedback(
        &mut book,
        Given {
            answered: Answered::of(&result),
            verdict,
            comment: j.comment.as_deref(),
            by: &by,
            at: &at,
        },
    );
    feedback_file::save(&path, &book).map_err(Failure::Runtime)?;
    say_recorded(&recorded, &path);
    Ok(())
}

fn list(l: &Listing) -> Result<(), Failure> {
    let (path, book) = l.place.load()?;
    if l.json {
        let json = serde_json::to_string_pretty(&book.proposals)
            .map_err(|e| Failure::Runtime(e.to_string()))?;
        println!("{json}");
        return Ok(());
    }
    let right = book
        .entries
        .iter()
        .filter(|e| e.verdict == Verdict::Right)
        .count();
    println!(
        "{}: {} answers marked right, {} wrong; {} verified queries proposed.",
        path.display(),
        right,
        book.entries.len() - right,
        book.proposals.len()
    );
    for p in &book.proposals {
        let status = match p.status {
            ProposalStatus::Proposed => "proposed".to_string(),
            ProposalStatus::Approved => format!(
                "approved by {}",
                p.approved_by.as_deref().unwrap_or("someone")
            ),
        };
        println!(
            "{}.{}  [{status}; proposed by {} at {}]\n  {}\n  {}",
            p.datasource,
            p.query.id,
            p.proposed_by,
            p.proposed_at,
            p.query.questions.join(" | "),
            p.query.sql
        );
    }
    Ok(())
}
