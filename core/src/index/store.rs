//! The schema index: one entry per datasource description, example question, table and
//! column, each with its vector, searched exactly.
//!
//! Exact search, not an approximate graph: the demo's three databases make 160 entries, which
//! a scan ranks in about 80 µs against 144 µs for an `instant-distance` HNSW search, with no
//! build (the graph takes 0.4 s to build, and pays only past about a thousand entries).
//! At warehouse scale (about 96,000 entries) the vectors' [`Layout`] keeps exact search
//! within a few milliseconds. `docs/benchmarks.md` records the measurements.

use super::embed::{Embedder, Vector};
use super::layout::{self, Layout};
use super::values::ValueIndex;
use crate::introspect::Metadata;
use crate::error::{Error, ErrorCode};
use crate::policy::Scope;
use crate::schema::{SchemaSnapshot, Table, TypeCategory};

/// What an entry describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EntryKind {
    /// A datasource's description.
    Datasource,
    /// One of a datasource's example questions.
    Example,
    /// A verified query's description or phrasing.
    Verified,
    /// A table: its name, split, and its columns.
    Table,
    /// A column: its table, name, type and sample values.
    Column,
}

/// One searchable entry.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Entry {
    /// What it describes.
    pub kind: EntryKind,
    /// The datasource it belongs to.
    pub datasource: String,
    /// Its table, for table and column entries.
    pub table: Option<String>,
    /// Its column, for column entries.
    pub column: Option<String>,
    /// The verified query it phrases, for verified entries.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verified_query: Option<String>,
    /// The tables a verified query reads, or whose names stand in for a missing
    /// description: the entry is visible only to callers who may read them all.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub reads: Vec<String>,
    /// The text that was embedded (for a datasource with no description, which stays
    /// empty here, its tables' names were embedded instead).
    pub text: String,
}

/// What the index knows of a datasource beyond its schema.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DatasourceProfile {
    /// The datasource id.
    pub id: String,
    /// What it holds, in plain words.
    pub description: String,
    /// Questions it answers, for the examples signal.
    pub examples: Vec<String>,
    /// Its verified queries' descriptions and phrasings, for the verified signal.
    pub verified: Vec<VerifiedPhrase>,
    /// What its owner says about its tables, columns, values and terms.
    pub notes: super::Notes,
}

/// One description or phrasing of a verified query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifiedPhrase {
    /// The verified query's id.
    pub query_id: String,
    /// The tables its SQL reads.
    pub reads: Vec<String>,
    /// The description or phrasing (`{param}` placeholders kept as words).
    pub text: String,
}

/// What to do when a datasource's live schema differs from the one the index was built from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MismatchPolicy {
    /// Refuse the question (INVALID_STATE): rebuild the index first.
    Fail,
    /// Go on with a SCHEMA_CHANGED warning.
    #[default]
    Warn,
    /// Go on silently.
    Ignore,
}

/// The index over every datasource.
#[derive(Debug, Clone)]
pub struct SchemaIndex {
    embedder: String,
    entries: Vec<Entry>,
    /// The `(datasource, table)` pairs table and column entries belong to, once each.
    tables: Vec<(String, String)>,
    /// Each entry's place in `tables` (`None` for entries of no table).
    owners: Vec<Option<u32>>,
    /// The entries' vectors, a group per kind and datasource.
    groups: Vec<Group>,
    schemas: Vec<SchemaSnapshot>,
    values: ValueIndex,
    /// Each datasource's notes, as far as they fit its schema.
    notes: Vec<(String, super::Notes)>,
    /// The parts of the notes left out, each in a sentence, with its datasource.
    dropped: Vec<(String, String)>,
}

/// The entries of one kind and one datasource, their vectors laid out together: a search
/// reads only the groups it asks about (routing's table signal, 2,000 entries of a
/// warehouse's 95,000; retrieval, one datasource's).
#[derive(Debug, Clone)]
struct Group {
    kind: EntryKind,
    datasource: String,
    /// The entries' places in [`SchemaIndex::entries`], in order.
    members: Vec<usize>,
    layout: Layout,
}

impl Group {
    /// The groups of `entries`, whose vectors are `vectors` (one each, all of one length),
    /// dense from dimension `split` on (the same for every group, so every part of the
    /// index adds the same terms in the same order).
    fn all(entries: &[Entry], vectors: Vec<Vector>, split: usize) -> Vec<Group> {
        let mut parts: Vec<(EntryKind, &str, Vec<usize>, Vec<Vector>)> = Vec::new();
        for (at, (e, v)) in entries.iter().zip(vectors).enumerate() {
            let found = (parts.iter_mut().rev())
                .find(|(kind, datasource, _, _)| *kind == e.kind && *datasource == e.datasource);
            match found {
                Some((_, _, members, vectors)) => {
                    members.push(at);
                    vectors.push(v);
                }
                None => parts.push((e.kind, &e.datasource, vec![at], vec![v])),
            }
        }
        (parts.into_iter())
            .map(|(kind, datasource, members, vectors)| Group {
                kind,
                datasource: datasource.to_string(),
                members,
                layout: Layout::new(&vectors, split),
            })
            .collect()
    }
}

/// A search hit: an entry and its similarity to the query.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hit<'a> {
    /// The entry.
    pub entry: &'a Entry,
    /// Cosine similarity, -1 to 1.
    pub similarity: f32,
}

/// A table's entry is its name: its columns have entries of their own, and listing them here
/// would let a wide table's name weigh less than a narrow one's.
fn table_text(t: &Table) -> String {
    t.name.clone()
}

/// A schema's table names, as one text.
fn table_names(schema: &SchemaSnapshot) -> String {
    (schema.tables.iter())
        .map(|t| t.name.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

fn column_text(t: &Table, c: &crate::schema::Column) -> String {
    let kind = match c.category {
        TypeCategory::Number => "number",
        TypeCategory::Text => "text",
        TypeCategory::Temporal => "date",
        TypeCategory::Boolean => "flag",
        TypeCategory::Other => "value",
    };
    let samples = c
        .stats
        .sample_values
        .iter()
        .take(5)
        .cloned()
        .collect::<Vec<_>>();
    let mut text = format!("{} {} ({kind})", t.name, c.name);
    if !samples.is_empty() {
        text.push_str(": ");
        text.push_str(&samples.join(", "));
    }
    text
}

impl SchemaIndex {
    /// Builds the index: every entry embedded with `embedder` (in one batch), plus the value
    /// index already read from the databases.
    pub async fn build(
        profiles: &[(DatasourceProfile, SchemaSnapshot)],
        mut values: ValueIndex,
        embedder: &dyn Embedder,
    ) -> Result<SchemaIndex, Error> {
        let mut entries = Vec::new();
        let mut notes = Vec::new();
        let mut dropped = Vec::new();
        for (profile, schema) in profiles {
            let (fitting, left_out) = profile.notes.fitting(schema);
            dropped.extend(left_out.into_iter().map(|why| (profile.id.clone(), why)));
            let ds = &profile.id;
            let entry = |kind, table: Option<&str>, column: Option<&str>, text: String| Entry {
                kind,
                datasource: ds.clone(),
                table: table.map(str::to_string),
                column: column.map(str::to_string),
                verified_query: None,
                reads: Vec::new(),
                text,
            };
            let mut description = entry(
                EntryKind::Datasource,
                None,
                None,
                profile.description.clone(),
            );
            // Searched by its tables' names (below), it is seen only by roles that read
            // them all: a name must not vote for a role that may not read its table.
            if description.text.trim().is_empty() {
                description.reads = schema.tables.iter().map(|t| t.name.clone()).collect();
            }
            entries.push(description);
            for q in &profile.examples {
                entries.push(entry(EntryKind::Example, None, None, q.clone()));
            }
            for v in &profile.verified {
                // As the schema names them, so `sales.deals` written bare, or
                // `public.tickets` on a connection whose schema is `public`, meets the
                // policy under the name a pattern gives it.
                let reads = (v.reads.iter())
                    .map(|r| {
                        let (in_schema, table) = match r.rsplit_once('.') {
                            Some((s, t)) => (Some(s), t),
                            None => (None, r.as_str()),
                        };
                        schema
                            .resolve(in_schema, table)
                            .map_or_else(|| r.clone(), |t| t.name.clone())
                    })
                    .collect();
                entries.push(Entry {
                    verified_query: Some(v.query_id.clone()),
                    reads,
                    ..entry(EntryKind::Verified, None, None, v.text.clone())
                });
            }
            // A view that could not be read has no columns to ask about.
            for t in schema.tables.iter().filter(|t| !t.columns.is_empty()) {
                entries.push(entry(EntryKind::Table, Some(&t.name), None, table_text(t)));
                for c in &t.columns {
                    entries.push(entry(
                        EntryKind::Column,
                        Some(&t.name),
                        Some(&c.name),
                        column_text(t, c),
                    ));
                }
            }
            // The words people use are entries of their own: a table is found by its
            // description or another name as by its own.
            for (table, t) in &fitting.tables {
                let said = std::iter::once(&t.description).chain(&t.synonyms);
                for text in said.filter(|s| !s.trim().is_empty()) {
                    entries.push(entry(EntryKind::Table, Some(table), None, text.clone()));
                }
                for (column, c) in &t.columns {
                    let said = std::iter::once(&c.description).chain(&c.synonyms);
                    for text in said.filter(|s| !s.trim().is_empty()) {
                        entries.push(entry(
                            EntryKind::Column,
                            Some(table),
                            Some(column),
                            format!("{table} {text}"),
                        ));
                    }
                    for (value, words) in &c.values {
                        if !values.alias(ds, table, column, value, words) {
                            dropped.push((ds.clone(), format!(
                                "the words for {value:?} of {ds}.{table}.{column}: the column \
                                 holds no such value"
                            )));
                        }
                    }
                }
            }
            for term in &fitting.terms {
                for table in &term.tables {
                    let text = format!("{}: {}", term.term, term.means);
                    entries.push(entry(EntryKind::Table, Some(table), None, text));
                }
            }
            notes.push((ds.clone(), fitting));
        }
        // A datasource with no description is searched by its tables' names, which say
        // together what it holds (a sub-word embedder places "Customer, Account,
        // CardTransaction" near banking); its description stays empty.
        let texts: Vec<String> = (entries.iter())
            .map(|e| match e.kind {
                EntryKind::Datasource if e.text.trim().is_empty() => profiles
                    .iter()
                    .find(|(p, _)| p.id == e.datasource)
                    .map(|(_, schema)| table_names(schema))
                    .unwrap_or_default(),
                _ => e.text.clone(),
            })
            .collect();
        let vectors = embedder.embed(&texts).await?;
        if vectors.len() != entries.len() {
            return Err(crate::index::unsearchable(format!(
                "the embedder returned {} vectors for {} texts",
                vectors.len(),
                entries.len()
            )));
        }
        let dims = vectors.first().map_or(0, Vec::len);
        if let Some(odd) = vectors.iter().find(|v| v.len() != dims) {
            return Err(crate::index::unsearchable(format!(
                "the embedder returned vectors of {} and of {dims} dimensions",
                odd.len()
            )));
        }
        let split = match embedder.dense_from() {
            Some(from) => from.min(dims),
            None => layout::split(&vectors),
        };
        let groups = Group::all(&entries, vectors, split);
        let mut tables: Vec<(String, String)> = Vec::new();
        let mut places: std::collections::HashMap<(String, String), u32> = Default::default();
        let owners = (entries.iter())
            .map(|e| {
                let t = e.table.as_ref()?;
                let key = (e.datasource.clone(), t.clone());
                let next = tables.len() as u32;
                let place = *places.entry(key.clone()).or_insert(next);
                if place == next {
                    tables.push(key);
                }
                Some(place)
            })
            .collect();
        Ok(SchemaIndex {
            embedder: embedder.id(),
            entries,
            tables,
            owners,
            groups,
            schemas: profiles.iter().map(|(_, s)| s.clone()).collect(),
            values,
            notes,
            dropped,
        })
    }

    /// A datasource's notes, as far as they fit its schema.
    pub fn notes(&self, datasource: &str) -> Option<&super::Notes> {
        self.notes
            .iter()
            .find(|(d, _)| d == datasource)
            .map(|(_, n)| n)
    }

    /// The parts of the datasources' notes that did not fit their schemas and were left
    /// out, each in a sentence, with its datasource.
    pub fn dropped_notes(&self) -> &[(String, String)] {
        &self.dropped
    }

    /// Reads each datasource's schema and text values (up to `value_cap` per column) and
    /// builds the index: what every front end does with its datasources.
    pub async fn read_and_build(
        sources: &[(DatasourceProfile, &dyn crate::datasource::Datasource)],
        value_cap: usize,
        embedder: &dyn Embedder,
    ) -> Result<SchemaIndex, Error> {
        let mut profiles = Vec::with_capacity(sources.len());
        let mut values = ValueIndex::default();
        for (profile, ds) in sources {
            let mut schema = ds.introspect().await.map_err(|e| {
                Error::new(
                    ErrorCode::DatasourceUnreadable,
                    format!("{}: {e}", profile.id),
                )
            })?;
            let columns = ValueIndex::read(*ds, &mut schema, value_cap)
                .await
                .map_err(|e| {
                    Error::new(
                        ErrorCode::DatasourceUnreadable,
                        format!("{}: reading values: {e}", profile.id),
                    )
                })?;
            values.add(&profile.id, columns);
            profiles.push((profile.clone(), schema));
        }
        SchemaIndex::build(&profiles, values, embedder)
            .await
            .map_err(|e| Error {
                message: format!("building the index: {e}"),
                ..e.with_code(ErrorCode::IndexBuildFailed)
            })
    }

    /// A datasource's description, as its profile gave it.
    pub fn description(&self, datasource: &str) -> Option<&str> {
        self.entries
            .iter()
            .find(|e| e.kind == EntryKind::Datasource && e.datasource == datasource)
            .map(|e| e.text.as_str())
    }

    /// The embedder that built the index.
    pub fn embedder(&self) -> &str {
        &self.embedder
    }

    /// Every entry.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// Entry `at`'s vector, as laid out (empty past the last entry).
    pub fn vector(&self, at: usize) -> Vector {
        (self.groups.iter())
            .find_map(|g| {
                let i = g.members.binary_search(&at).ok()?;
                Some(g.layout.vector(i))
            })
            .unwrap_or_default()
    }

    /// The schema snapshots the index was built from.
    pub fn schemas(&self) -> &[SchemaSnapshot] {
        &self.schemas
    }

    /// Compares a datasource's live schema with the indexed one, by fingerprint: `Ok(None)`
    /// when they agree (or the policy ignores a difference), a warning or an error otherwise.
    pub fn check_schema(
        &self,
        live: &SchemaSnapshot,
        policy: MismatchPolicy,
    ) -> Result<Option<crate::error::RunWarning>, crate::error::PipelineError> {
        self.check_fingerprint(&live.datasource_id, &live.fingerprint, policy)
    }

    /// [`SchemaIndex::check_schema`] with only the live fingerprint, which adapters read
    /// without statistics.
    pub fn check_fingerprint(
        &self,
        datasource: &str,
        live: &str,
        policy: MismatchPolicy,
    ) -> Result<Option<crate::error::RunWarning>, crate::error::PipelineError> {
        use crate::error::{ErrorCode, Node, PipelineError, RunWarning, Severity};
        let indexed = self.schema(datasource);
        let same = indexed.is_some_and(|s| s.fingerprint == live);
        if same || policy == MismatchPolicy::Ignore {
            return Ok(None);
        }
        let now = live.get(..8).unwrap_or(live);
        let message = match indexed {
            Some(s) => format!(
                "Datasource {datasource} changed since it was indexed (schema {} then, v{now} \
                 now); rebuild the index.",
                s.version
            ),
            None => format!("Datasource {datasource} is not in the index; rebuild it."),
        };
        match policy {
            MismatchPolicy::Fail => Err(PipelineError::new(
                Node::DatasourceResolver,
                ErrorCode::InvalidState,
                Severity::Error,
                message,
            )),
            _ => Ok(Some(RunWarning::new(
                Node::DatasourceResolver,
                ErrorCode::SchemaChanged,
                message,
            ))),
        }
    }

    /// The schema of one datasource.
    pub fn schema(&self, datasource: &str) -> Option<&SchemaSnapshot> {
        self.schemas.iter().find(|s| s.datasource_id == datasource)
    }

    /// The value index.
    pub fn values(&self) -> &ValueIndex {
        &self.values
    }

    /// About how many bytes the index holds (vectors, entry texts, values and their
    /// lookups), for the benchmarks.
    pub fn approx_bytes(&self) -> usize {
        let vectors: usize = (self.groups.iter())
            .map(|g| g.layout.approx_bytes() + g.members.len() * 8)
            .sum();
        let texts: usize = self.entries.iter().map(|e| e.text.len() + 96).sum();
        vectors + texts + self.values.approx_bytes()
    }

    /// Embeds a question with the embedder that built the index; any other is refused.
    pub async fn embed_query(&self, embedder: &dyn Embedder, text: &str) -> Result<Vector, Error> {
        if embedder.id() != self.embedder {
            return Err(crate::index::unsearchable(format!(
                "the index was built by {} and cannot be searched with vectors from {}",
                self.embedder,
                embedder.id()
            )));
        }
        let texts = [text.to_string()];
        let mut v = embedder.embed(&texts).await?;
        v.pop().ok_or_else(|| {
            crate::index::unsearchable("the embedder returned no vector".to_string())
        })
    }

    /// Which entries the scope lets the caller see, one flag per entry: asked once per
    /// question, then used by every search.
    pub fn visibility(&self, scope: &Scope<'_>) -> Vec<bool> {
        // A table's many column entries share its answer: the policy is asked once a table.
        let readable: Vec<bool> = (self.tables.iter())
            .map(|(d, t)| scope.can_read(d, t))
            .collect();
        (self.entries.iter())
            .zip(&self.owners)
            .map(|(e, owner)| match owner {
                Some(t) => readable.get(*t as usize).copied().unwrap_or(false),
                None => visible(e, scope),
            })
            .collect()
    }

    /// Entries of `kind` the scope lets the caller see, most similar first, at most `k`
    /// (`None`: all). Ties keep index order, so results are deterministic.
    pub fn search(
        &self,
        query: &[f32],
        kind: EntryKind,
        datasource: Option<&str>,
        scope: &Scope<'_>,
        k: Option<usize>,
    ) -> Vec<Hit<'_>> {
        self.search_visible(query, kind, datasource, &self.visibility(scope), k)
    }

    /// [`SchemaIndex::search`] with visibility already worked out.
    pub fn search_visible(
        &self,
        query: &[f32],
        kind: EntryKind,
        datasource: Option<&str>,
        visible: &[bool],
        k: Option<usize>,
    ) -> Vec<Hit<'_>> {
        // Places and scores alone while ranking (a warehouse's column search ranks 93,000).
        let mut ranked: Vec<(u32, f32)> = Vec::new();
        let asked = (self.groups.iter())
            .filter(|g| g.kind == kind && datasource.is_none_or(|d| g.datasource == d));
        for g in asked {
            let wanted = |i: usize| visible.get(g.members[i]).copied().unwrap_or(false);
            let scores = g.layout.scores(query, wanted);
            // A zero is made +0.0 (products of signed features can sum to -0.0), so
            // entries that share nothing with the question tie, in index order.
            ranked.extend(
                (g.members.iter().enumerate())
                    .filter(|(i, _)| wanted(*i))
                    .map(|(i, &at)| (at as u32, scores[i] + 0.0)),
            );
        }
        // Most similar first, ties in index order (deterministic); only the first `k` are
        // put in order.
        let order =
            |a: &(u32, f32), b: &(u32, f32)| (b.1.total_cmp(&a.1)).then(a.0.cmp(&b.0));
        if let Some(k) = k.filter(|k| *k < ranked.len()) {
            if k == 0 {
                return Vec::new();
            }
            ranked.select_nth_unstable_by(k - 1, order);
            ranked.truncate(k);
        }
        ranked.sort_unstable_by(order);
        (ranked.into_iter())
            .map(|(at, similarity)| Hit {
                entry: &self.entries[at as usize],
                similarity,
            })
            .collect()
    }
}

/// May the caller see this entry? Table and column entries of unreadable tables never vote
/// and never appear in a trace; a datasource's own entries need it to be reachable.
pub fn visible(e: &Entry, scope: &Scope<'_>) -> bool {
    match &e.table {
        Some(t) => scope.can_read(&e.datasource, t),
        None => {
            scope.can_reach(&e.datasource)
                && e.reads.iter().all(|t| scope.can_read(&e.datasource, t))
        }
    }
}
