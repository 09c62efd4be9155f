//! Schema retrieval: the part of a datasource's schema the planner sees for a question, and
//! its compact rendering for prompts.

use super::embed::{EmbedError, Embedder};
use super::store::{EntryKind, SchemaIndex};
use super::values::ValueHint;
use crate::policy::Scope;
use crate::schema::{SchemaSnapshot, Table, TypeCategory};
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
}

impl Default for RetrieveSettings {
    fn default() -> Self {
        RetrieveSettings {
            full_snapshot_max_tables: 15,
            table_k: 2,
            column_k: 10,
        }
    }
}

/// What the planner gets for one datasource.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Retrieval {
    /// The datasource.
    pub datasource: String,
    /// Tables, in schema order.
    pub tables: Vec<String>,
    /// Columns, as `Table.Column`.
    pub columns: Vec<String>,
    /// Values the question names, as hints.
    pub values: Vec<ValueHint>,
    /// True when the whole (readable) schema was sent without searching.
    pub full_snapshot: bool,
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
) -> Result<Retrieval, EmbedError> {
    let Some(schema) = index.schema(datasource) else {
        return Err(EmbedError::new(format!(
            "datasource {datasource} is not in the index"
        )));
    };
    let readable: Vec<&Table> = schema
        .tables
        .iter()
        .filter(|t| scope.can_read(datasource, &t.name))
        .collect();
    let values = index.values().link(question, Some(datasource), scope, 10);
    if readable.len() <= settings.full_snapshot_max_tables && !force_search {
        return Ok(Retrieval {
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
            values,
            full_snapshot: true,
        });
    }
    let query = index.embed_query(embedder, question).await?;
    let visible = index.visibility(scope);
    let mut tables: Vec<String> = Vec::new();
    let mut columns: Vec<(String, String)> = Vec::new();
    let add_table = |tables: &mut Vec<String>, t: &str| {
        if !tables.iter().any(|x| x == t) {
            tables.push(t.to_string());
        }
    };
    for h in index.search_visible(
        &query,
        EntryKind::Table,
        Some(datasource),
        &visible,
        Some(settings.table_k),
    ) {
        if let Some(t) = &h.entry.table {
            add_table(&mut tables, t);
        }
    }
    // The best columns, at most seven in ten from one table: a column's entry names its
    // table, so a question naming one table ("tickets") would otherwise fill the list with
    // that table's columns and crowd out the one column of another it also needs.
    let per_table = (settings.column_k * 7 / 10).max(1);
    let mut from_search: Vec<(String, String)> = Vec::new();
    for h in index.search_visible(
        &query,
        EntryKind::Column,
        Some(datasource),
        &visible,
        Some(settings.column_k * 3),
    ) {
        let (Some(t), Some(c)) = (&h.entry.table, &h.entry.column) else {
            continue;
        };
        let same_table = from_search.iter().filter(|(x, _)| x == t).count();
        if from_search.len() < settings.column_k && same_table < per_table {
            from_search.push((t.clone(), c.clone()));
        }
    }
    for (t, c) in from_search {
        add_table(&mut tables, &t);
        columns.push((t, c));
    }
    // A value the question names brings its column; a fuzzy match stays a hint only.
    for v in values
        .iter()
        .filter(|v| v.matched != super::values::MatchKind::Fuzzy)
    {
        add_table(&mut tables, &v.table);
        columns.push((v.table.clone(), v.column.clone()));
    }
    for bridge in bridges(schema, &tables, scope) {
        add_table(&mut tables, &bridge);
    }
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
    Ok(Retrieval {
        datasource: datasource.to_string(),
        tables: ordered_tables,
        columns: ordered_columns,
        values,
        full_snapshot: false,
    })
}

/// Tables on the shortest foreign-key path between chosen tables, so a join is always
/// possible: one breadth-first search over the readable key graph from each chosen table.
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
            let mut at = to;
            while let Some(p) = previous[at] {
                if p != from && !targets.contains(&p) && !extra.contains(&p) {
                    extra.push(p);
                }
                at = p;
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
            }
            let key = c.primary_key_position.is_some()
                || t.foreign_keys.iter().any(|fk| fk.columns.contains(&c.name));
            match c.category {
                TypeCategory::Text
                    if c.stats.distinct_count <= crate::schema::SAMPLE_ALL_MAX
                        && !c.stats.sample_values.is_empty() =>
                {
                    part.push_str(&format!(" e.g. {}", c.stats.sample_values.join(" | ")));
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
