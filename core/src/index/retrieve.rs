//! Schema retrieval: the part of a datasource's schema the planner sees for a question, and
//! its compact rendering for prompts.

use super::embed::Embedder;
use super::store::{EntryKind, SchemaIndex};
use super::text::terms;
use super::values::ValueHint;
use crate::error::Error;
use crate::policy::Scope;
use crate::schema::{SchemaSnapshot, Table, TypeCategory};
use nl2sql_derive::Clean;
use serde::Serialize;

/// Retrieval settings.
#[derive(Debug, Clone, PartialEq)]
pub struct RetrieveSettings {
    /// A datasource with at most this many readable tables is sent whole.
    pub full_snapshot_max_tables: usize,
    /// Tables taken from the table search.
    pub table_k: usize,
    /// Columns taken from the column search (their tables come along), at most seven in ten
    /// from one table. With `table_k` 2, measured on the reference Chinook suite: every
    /// needed table, 97.4 % of needed columns, 21.6 columns sent per question.
    pub column_k: usize,
    /// At most this many tables the column search brings beyond the table search's: in a
    /// large schema a word such as "cost" names a column of dozens of tables.
    pub column_tables: usize,
    /// The schema as the planner's prompt shows it is trimmed towards this many characters
    /// (about 2,000 tokens), so that with its instructions and the plan's JSON Schema the
    /// planner's input stays near 4,000 tokens however large the schema: the tables the
    /// column search brought go first, the last-ranked first. A target, not a guarantee:
    /// the tables the question names, the table search's and their bridges are kept.
    pub schema_chars: usize,
}

impl Default for RetrieveSettings {
    fn default() -> Self {
        RetrieveSettings {
            full_snapshot_max_tables: 15,
            table_k: 2,
            column_k: 10,
            column_tables: 5,
            schema_chars: 6_000,
        }
    }
}

/// The least schema a planner is shown when something else shares its prompt.
pub const MIN_SCHEMA_CHARS: usize = 3_000;

impl RetrieveSettings {
    /// These settings for a prompt that also carries `other` characters (a thread's earlier
    /// turns): the schema's target shrinks by as much, down to [`MIN_SCHEMA_CHARS`].
    pub fn sharing(&self, other: usize) -> RetrieveSettings {
        RetrieveSettings {
            schema_chars: self
                .schema_chars
                .saturating_sub(other)
                .max(MIN_SCHEMA_CHARS.min(self.schema_chars)),
            ..self.clone()
        }
    }
}

/// What the planner gets for one datasource.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize, Clean)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Retrieval {
    /// The datasource.
    #[clean(keep)]
    pub datasource: String,
    /// Tables, in schema order.
    #[clean(keep)]
    pub tables: Vec<String>,
    /// Columns, as `Table.Column`.
    #[clean(keep)]
    pub columns: Vec<String>,
    /// Values the question names, as hints.
    #[clean(keep)]
    pub values: Vec<ValueHint>,
    /// True when the whole (readable) schema was sent without searching.
    #[clean(keep)]
    pub full_snapshot: bool,
    /// What the datasource's notes say about the tables and columns shown, and the terms
    /// about them: the lines the planner reads under the schema.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[clean(keep)]
    pub notes: Vec<String>,
}

impl Retrieval {
    /// Nothing retrieved from `datasource` (retrieval failed).
    pub fn empty(datasource: &str) -> Retrieval {
        Retrieval {
            datasource: datasource.to_string(),
            tables: vec![],
            columns: vec![],
            values: vec![],
            full_snapshot: false,
            notes: vec![],
        }
    }
}

/// Retrieves the schema for `question` in `datasource`. Tables the scope hides never appear.
pub async fn retrieve(
    index: &SchemaIndex,
    embedder: &dyn Embedder,
    datasource: &str,
    question: &str,
    scope: &Scope<'_>,
    settings: &RetrieveSettings,
    force_search: bool,
) -> Result<Retrieval, Error> {
    let Some(schema) = index.schema(datasource) else {
        return Err(crate::index::unsearchable(format!(
            "datasource {datasource} is not in the index"
        )));
    };
    // A view that could not be read has no columns to show.
    let readable: Vec<&Table> = schema
        .tables
        .iter()
        .filter(|t| !t.columns.is_empty() && scope.can_read(datasource, &t.name))
        .collect();
    let values = index.values().link(question, Some(datasource), scope, 10);
    if readable.len() <= settings.full_snapshot_max_tables && !force_search {
        let whole = Retrieval {
            datasource: datasource.to_string(),
            tables: readable.iter().map(|t| t.name.clone()).collect(),
            columns: readable
                .iter()
                .flat_map(|t| {
                    t.columns
                        .iter()
                        .map(move |c| format!("{}.{}", t.name, c.name))
                })
                .collect(),
            values: values.clone(),
            full_snapshot: true,
            notes: Vec::new(),
        };
        let whole = with_notes(index, whole, scope);
        // A few tables that are very wide are searched like a large schema.
        if render(schema, &whole).len() <= settings.schema_chars {
            return Ok(whole);
        }
    }
    let query = index.embed_query(embedder, question).await?;
    let visible = index.visibility(scope);
    let mut chosen: Vec<String> = Vec::new();
    let mut columns: Vec<(String, String)> = Vec::new();
    let add_table = |tables: &mut Vec<String>, t: &str| {
        if !tables.iter().any(|x| x == t) {
            tables.push(t.to_string());
        }
    };
    // A table may have several entries (its name, its description, its other names): the
    // best `table_k` tables, not entries.
    for h in index.search_visible(&query, EntryKind::Table, Some(datasource), &visible, None) {
        if chosen.len() == settings.table_k {
            break;
        }
        if let Some(t) = &h.entry.table {
            add_table(&mut chosen, t);
        }
    }
    // A table the question names outright (every word of its name, stemmed, is one of the
    // question's) is chosen too, the longest names first: among hundreds of tables the two
    // nearest vectors may be its neighbours (`ad_group` for "ads and their clicks"). Its
    // name is its own, without its schema (`purchasing.purchase_order` is named by
    // "purchase orders") or a warehouse layer's prefix (`dim_ticket` by "tickets").
    let asked: std::collections::BTreeSet<String> = terms(question).into_iter().collect();
    let notes = index.notes(datasource);
    let mut named: Vec<(&Table, (usize, usize, bool))> = readable
        .iter()
        .filter_map(|t| {
            // Its name, or another name its notes give it.
            let other = notes.and_then(|n| n.tables.get(&t.name));
            std::iter::once(t.bare_name())
                .chain(other.into_iter().flat_map(|o| o.synonyms.iter().map(String::as_str)))
                .map(|name| {
                    let mut words = terms(name);
                    if words.len() > 1 && LAYER_PREFIXES.contains(&words[0].as_str()) {
                        words.remove(0);
                    }
                    words
                })
                .filter(|words| !words.is_empty() && words.iter().all(|w| asked.contains(w)))
                .map(|words| words.len())
                .max()
                .map(|words| {
                    let schema_words = (t.schema.iter())
                        .flat_map(|s| terms(s))
                        .filter(|w| asked.contains(w))
                        .count();
                    let found = chosen.iter().any(|c| c == &t.name);
                    (*t, (words, schema_words, found))
                })
        })
        .collect();
    // A name several schemas hold names none of them alone: the ones whose schema the
    // question names too are taken, else those the search chose, else none.
    let held = named.clone();
    named.retain(|(t, (_, schema_words, found))| {
        let rivals: Vec<_> = (held.iter())
            .filter(|(o, _)| o.bare_name().eq_ignore_ascii_case(t.bare_name()))
            .collect();
        let best = rivals.iter().map(|(_, (_, s, _))| *s).max().unwrap_or(0);
        rivals.len() == 1 || (best > 0 && *schema_words == best) || (best == 0 && *found)
    });
    named.sort_by_key(|(_, rank)| std::cmp::Reverse(*rank));
    for (t, _) in named.into_iter().map(|(t, rank)| (t.name.as_str(), rank)).take(NAMED_TABLES) {
        add_table(&mut chosen, t);
    }
    // The best columns, at most seven in ten from one table: a column's entry names its
    // table, so a question naming one table ("tickets") would otherwise fill the list with
    // that table's columns and crowd out the one column of another it also needs.
    let per_table = (settings.column_k * 7 / 10).max(1);
    let mut from_search: Vec<(String, String)> = Vec::new();
    // The tables the column search brings, best first: the first to go when the schema
    // would not fit the prompt.
    let mut brought: Vec<String> = Vec::new();
    // All hits, best first, until `column_k` columns are taken: a column may have several
    // entries, and one table's many may come before another table's one.
    for h in index.search_visible(&query, EntryKind::Column, Some(datasource), &visible, None) {
        if from_search.len() == settings.column_k {
            break;
        }
        let (Some(t), Some(c)) = (&h.entry.table, &h.entry.column) else {
            continue;
        };
        // A column may have several entries too.
        if from_search.iter().any(|(x, y)| x == t && y == c) {
            continue;
        }
        let same_table = from_search.iter().filter(|(x, _)| x == t).count();
        let new_table = !chosen.contains(t) && !brought.contains(t);
        if from_search.len() < settings.column_k
            && same_table < per_table
            && !(new_table && brought.len() >= settings.column_tables)
        {
            if new_table {
                brought.push(t.clone());
            }
            from_search.push((t.clone(), c.clone()));
        }
    }
    // A value the question names brings its column, and its table when the value is
    // specific (held by few columns): "Iron Maiden" brings the artists, but "approved",
    // held by every status column of a large schema, only points into tables the search
    // chose. A fuzzy match stays a hint only.
    let spread = |v: &ValueHint| {
        values
            .iter()
            .filter(|o| o.value.eq_ignore_ascii_case(&v.value))
            .count()
    };
    for v in values
        .iter()
        .filter(|v| v.matched != super::values::MatchKind::Fuzzy)
    {
        let known = chosen.contains(&v.table) || brought.contains(&v.table);
        if spread(v) <= SPECIFIC_VALUE_COLUMNS || known {
            add_table(&mut chosen, &v.table);
            brought.retain(|b| b != &v.table);
            columns.push((v.table.clone(), v.column.clone()));
        }
    }
    columns.extend(from_search);
    loop {
        let mut tables = chosen.clone();
        tables.extend(brought.iter().cloned());
        let retrieval = with_notes(
            index,
            assemble(datasource, schema, tables, &columns, &values, scope),
            scope,
        );
        // The schema fits the prompt, or nothing is left to give up.
        if brought.is_empty() || render(schema, &retrieval).len() <= settings.schema_chars {
            return Ok(retrieval);
        }
        if let Some(last) = brought.pop() {
            columns.retain(|(t, _)| *t != last);
        }
    }
}

/// The retrieval of `tables` (bridged, then each with its keys and labels) and `columns`,
/// in schema order, with the value hints about tables it shows.
fn assemble(
    datasource: &str,
    schema: &SchemaSnapshot,
    mut tables: Vec<String>,
    picked: &[(String, String)],
    values: &[ValueHint],
    scope: &Scope<'_>,
) -> Retrieval {
    for bridge in bridges(schema, &tables, scope) {
        if !tables.contains(&bridge) {
            tables.push(bridge);
        }
    }
    let mut columns: Vec<(String, String)> = picked
        .iter()
        .filter(|(t, _)| tables.contains(t))
        .cloned()
        .collect();
    // Every chosen table brings the keys it joins on and the columns that label its rows.
    for t in &tables {
        let Some(table) = schema.table(t) else {
            continue;
        };
        for c in &table.columns {
            // Its primary key, and the key columns that join it to another chosen table.
            let is_key = c.primary_key_position.is_some()
                || table.foreign_keys.iter().any(|fk| {
                    fk.columns.iter().any(|x| x == &c.name) && tables.contains(&fk.referenced_table)
                })
                || schema.tables.iter().any(|o| {
                    tables.contains(&o.name)
                        && o.foreign_keys.iter().any(|fk| {
                            fk.referenced_table == table.name
                                && fk.referenced_columns.iter().any(|x| x == &c.name)
                        })
                });
            if is_key {
                columns.push((t.clone(), c.name.clone()));
            }
        }
        // And its labels: the columns that name a row (a name or a title), which any
        // answer listing its rows shows; failing those, its first text column.
        let labels: Vec<&str> = table
            .columns
            .iter()
            .filter(|c| {
                let lower = c.name.to_ascii_lowercase();
                c.category == TypeCategory::Text
                    && (lower.contains("name") || lower.contains("title"))
            })
            .map(|c| c.name.as_str())
            .collect();
        if labels.is_empty() {
            if let Some(first) = table
                .columns
                .iter()
                .find(|c| c.category == TypeCategory::Text)
            {
                columns.push((t.clone(), first.name.clone()));
            }
        }
        columns.extend(labels.into_iter().map(|l| (t.clone(), l.to_string())));
    }
    // Schema order, no repeats.
    let mut ordered_tables = Vec::new();
    let mut ordered_columns = Vec::new();
    for t in &schema.tables {
        if !tables.contains(&t.name) {
            continue;
        }
        ordered_tables.push(t.name.clone());
        for c in &t.columns {
            if columns
                .iter()
                .any(|(ct, cn)| *ct == t.name && *cn == c.name)
            {
                ordered_columns.push(format!("{}.{}", t.name, c.name));
            }
        }
    }
    Retrieval {
        datasource: datasource.to_string(),
        tables: ordered_tables,
        columns: ordered_columns,
        // Hints only about tables the planner is shown.
        values: values
            .iter()
            .filter(|v| tables.contains(&v.table))
            .cloned()
            .collect(),
        full_snapshot: false,
        notes: Vec::new(),
    }
}

/// `retrieval` with the notes about what it shows, for a caller in `scope`.
fn with_notes(index: &SchemaIndex, mut retrieval: Retrieval, scope: &Scope<'_>) -> Retrieval {
    if let Some(notes) = index.notes(&retrieval.datasource) {
        let readable = |t: &str| scope.can_read(&retrieval.datasource, t);
        retrieval.notes = notes.lines(&retrieval.tables, &retrieval.columns, &readable);
    }
    retrieval
}

/// At most this many tables are chosen for being named in the question.
const NAMED_TABLES: usize = 3;

/// The prefixes warehouses give a table by its layer (a dimension, a fact, staging), which a
/// question does not say: `dim_customer` is named by "customers".
const LAYER_PREFIXES: [&str; 4] = ["dim", "fct", "fact", "stg"];

/// A value held by at most this many of the datasource's columns (as linked) is specific
/// enough to bring its table into the schema the planner sees.
const SPECIFIC_VALUE_COLUMNS: usize = 2;

/// At most this many tables stand between two chosen ones on a bridge: a path longer than
/// that joins tables whose question rarely needs the join, and in a large schema it would
/// fill the prompt with the tables along it.
const BRIDGE_LENGTH: usize = 3;

/// Tables on the shortest foreign-key path between chosen tables, so a join is possible:
/// one breadth-first search over the readable key graph from each chosen table; paths with
/// more than [`BRIDGE_LENGTH`] tables between are left out.
fn bridges(schema: &SchemaSnapshot, chosen: &[String], scope: &Scope<'_>) -> Vec<String> {
    let names: Vec<&str> = schema.tables.iter().map(|t| t.name.as_str()).collect();
    let index_of = |name: &str| names.iter().position(|n| n.eq_ignore_ascii_case(name));
    let readable: Vec<bool> = names
        .iter()
        .map(|t| scope.can_read(&schema.datasource_id, t))
        .collect();
    // The key graph, both directions, readable tables only; built once.
    let mut adjacent: Vec<Vec<usize>> = vec![Vec::new(); names.len()];
    for (i, table) in schema.tables.iter().enumerate() {
        for fk in &table.foreign_keys {
            if let Some(j) = index_of(&fk.referenced_table) {
                if readable[i] && readable[j] && i != j {
                    adjacent[i].push(j);
                    adjacent[j].push(i);
                }
            }
        }
    }
    let targets: Vec<usize> = chosen.iter().filter_map(|c| index_of(c)).collect();
    let mut extra: Vec<usize> = Vec::new();
    for (k, &from) in targets.iter().enumerate() {
        let mut previous: Vec<Option<usize>> = vec![None; names.len()];
        let mut seen = vec![false; names.len()];
        seen[from] = true;
        let mut frontier = vec![from];
        while !frontier.is_empty() {
            let mut next = Vec::new();
            for t in frontier {
                for &n in &adjacent[t] {
                    if !seen[n] {
                        seen[n] = true;
                        previous[n] = Some(t);
                        next.push(n);
                    }
                }
            }
            frontier = next;
        }
        for &to in &targets[k + 1..] {
            let mut between = Vec::new();
            let mut at = to;
            while let Some(p) = previous[at] {
                if p != from {
                    between.push(p);
                }
                at = p;
            }
            if between.len() > BRIDGE_LENGTH {
                continue;
            }
            for p in between {
                if !targets.contains(&p) && !extra.contains(&p) {
                    extra.push(p);
                }
            }
        }
    }
    extra.into_iter().map(|i| names[i].to_string()).collect()
}

/// The schema as the planner's prompt shows it: one line per table with columns and types,
/// the primary key, foreign keys, sample values of low-cardinality text columns and ranges
/// of numeric and date columns. Only the retrieved tables and columns.
pub fn render(schema: &SchemaSnapshot, retrieval: &Retrieval) -> String {
    let mut out = String::new();
    for t in &schema.tables {
        if !retrieval.tables.contains(&t.name) {
            continue;
        }
        let mut parts = Vec::new();
        for c in &t.columns {
            if !retrieval
                .columns
                .contains(&format!("{}.{}", t.name, c.name))
            {
                continue;
            }
            let mut part = format!("{} {}", c.name, c.declared_type);
            if c.primary_key_position.is_some() {
                part.push_str(" PK");
            }
            // Only references to tables the planner is shown: a reference to any other
            // could name a table the caller may not read.
            if let Some(fk) = t.foreign_keys.iter().find(|fk| {
                fk.columns.contains(&c.name) && retrieval.tables.contains(&fk.referenced_table)
            }) {
                let at = fk.columns.iter().position(|x| x == &c.name).unwrap_or(0);
                let to = fk.referenced_columns.get(at).map_or("?", String::as_str);
                part.push_str(&format!(" -> {}.{to}", fk.referenced_table));
                // The planner weighs a join the database does not declare itself.
                if matches!(fk.source, crate::schema::KeySource::Inferred { .. }) {
                    part.push_str(" (inferred)");
                }
            }
            let key = c.primary_key_position.is_some()
                || t.foreign_keys.iter().any(|fk| fk.columns.contains(&c.name));
            match c.category {
                TypeCategory::Text
                    if c.stats.distinct_count <= crate::schema::SAMPLE_ALL_MAX
                        && !c.stats.sample_values.is_empty() =>
                {
                    part.push_str(&format!(" e.g. {}", samples(&c.stats.sample_values)));
                }
                TypeCategory::Number | TypeCategory::Temporal if !key => {
                    if let (Some(min), Some(max)) = (&c.stats.min, &c.stats.max) {
                        part.push_str(&format!(" [{} .. {}]", show(min), show(max)));
                    }
                }
                _ => {}
            }
            parts.push(part);
        }
        out.push_str(&format!("{}({})\n", t.name, parts.join(", ")));
    }
    for v in &retrieval.values {
        out.push_str(&format!("value: {}\n", v.render()));
    }
    if !retrieval.notes.is_empty() {
        out.push_str("Notes:\n");
        for line in &retrieval.notes {
            out.push_str(&format!("- {line}\n"));
        }
    }
    out
}

/// At most this many characters of a column's sample values in the prompt: enough for the
/// categories a question names (Chinook's 25 genres fit), not a page of names.
const SAMPLE_CHARS: usize = 200;

/// Sample values joined by ` | `, cut before [`SAMPLE_CHARS`] with `…` when there are more.
fn samples(values: &[String]) -> String {
    let mut out = String::new();
    for (i, v) in values.iter().enumerate() {
        let sep = if i == 0 { "" } else { " | " };
        if out.chars().count() + sep.len() + v.chars().count() > SAMPLE_CHARS {
            out.push_str(" | …");
            break;
        }
        out.push_str(sep);
        out.push_str(v);
    }
    out
}

fn show(v: &crate::value::Value) -> String {
    match v {
        crate::value::Value::Text(t) => t.clone(),
        crate::value::Value::Integer(i) => i.to_string(),
        crate::value::Value::Real(x) => x.to_string(),
        crate::value::Value::Null => "NULL".to_string(),
        crate::value::Value::Blob(b) => format!("<{} bytes>", b.len()),
    }
}
