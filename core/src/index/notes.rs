//! The words people use: what a datasource's owner says about its tables, columns and
//! values, and the business terms of its domain — a light semantic layer. Descriptions and
//! synonyms become entries of the index (routing and retrieval find a table by them), value
//! synonyms link a question's word to a stored value ("waiting" → `status = 'pending'`),
//! and the planner's prompt shows the notes of the tables it is given.

use crate::schema::{ForeignKey, KeySource, SchemaSnapshot, TypeCategory};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A datasource's notes, as its configuration gives them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Notes {
    /// Per table name.
    #[serde(default)]
    pub tables: BTreeMap<String, TableNotes>,
    /// Business terms.
    #[serde(default)]
    pub terms: Vec<Term>,
    /// Joins the owner declares where the database does not, or rejects where the engine
    /// would infer them.
    #[serde(default)]
    pub relationships: Vec<Relationship>,
}

/// A join the owner declares (`from` refers to `to`) or rejects (`reject`: the engine never
/// infers one from `from`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Relationship {
    /// The referring column, `table.column` (`schema.table.column` outside the
    /// connection's own schema).
    pub from: String,
    /// The column it refers to, `table.column`; none when rejecting.
    #[serde(default)]
    pub to: Option<String>,
    /// Never infer a relationship from `from` (and drop one inferred already).
    #[serde(default)]
    pub reject: bool,
}

impl Relationship {
    /// `schema` with this relationship declared (as a foreign key from the project file,
    /// replacing an inferred one from the same column) or rejected (every inferred one from
    /// `from` dropped); why it cannot be, when it names a table or column `schema` does not
    /// have or types that cannot be compared.
    pub fn apply(&self, schema: &mut SchemaSnapshot) -> Result<(), String> {
        let id = schema.datasource_id.clone();
        let column_of = |schema: &SchemaSnapshot, at: &str| -> Result<(String, String, TypeCategory), String> {
            let (table, column) = at
                .rsplit_once('.')
                .ok_or_else(|| format!("the relationship {at:?} of {id}: name table.column"))?;
            let t = schema
                .table(table)
                .ok_or_else(|| format!("the relationship from {at} of {id}: it has no table {table}"))?;
            let c = t
                .column(column)
                .ok_or_else(|| format!("the relationship from {at} of {id}: {} has no column {column}", t.name))?;
            Ok((t.name.clone(), c.name.clone(), c.category))
        };
        let (table, column, kind) = column_of(schema, &self.from)?;
        let inferred_from = |k: &ForeignKey| {
            matches!(k.source, KeySource::Inferred { .. })
                && k.columns.iter().any(|c| c.eq_ignore_ascii_case(&column))
        };
        let to = match (&self.to, self.reject) {
            (None, true) => None,
            (Some(to), false) => Some(column_of(schema, to)?),
            (None, false) => {
                return Err(format!(
                    "the relationship from {} of {id}: give `to`, or `reject = true`",
                    self.from
                ))
            }
            (Some(_), true) => {
                return Err(format!(
                    "the relationship from {} of {id}: give `to` or `reject = true`, not both",
                    self.from
                ))
            }
        };
        if let Some((_, to_column, to_kind)) = &to {
            if *to_kind != kind {
                return Err(format!(
                    "the relationship from {} of {id}: {column} and {to_column} hold different kinds of values",
                    self.from
                ));
            }
        }
        let Some(t) = schema.tables.iter_mut().find(|t| t.name == table) else {
            return Ok(());
        };
        t.foreign_keys.retain(|k| !inferred_from(k));
        if let Some((to_table, to_column, _)) = to {
            // The database declaring it already says as much.
            let declared = t.foreign_keys.iter().any(|k| {
                k.referenced_table == to_table
                    && k.columns.len() == 1
                    && k.columns.first() == Some(&column)
                    && k.referenced_columns.first() == Some(&to_column)
            });
            if declared {
                return Ok(());
            }
            t.foreign_keys.push(ForeignKey {
                columns: vec![column],
                referenced_table: to_table,
                referenced_columns: vec![to_column],
                source: KeySource::Configured,
            });
        }
        Ok(())
    }
}

/// What a table is, in words.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct TableNotes {
    /// What one row is.
    #[serde(default)]
    pub description: String,
    /// Other names people give it ("visit" for `sessions`).
    #[serde(default)]
    pub synonyms: Vec<String>,
    /// Per column name.
    #[serde(default)]
    pub columns: BTreeMap<String, ColumnNotes>,
}

/// What a column holds, in words.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ColumnNotes {
    /// What it holds.
    #[serde(default)]
    pub description: String,
    /// Other names people give it.
    #[serde(default)]
    pub synonyms: Vec<String>,
    /// Per stored value, the words people use for it.
    #[serde(default)]
    pub values: BTreeMap<String, Vec<String>>,
}

/// A term of the business and what it means in this data.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Term {
    /// The word or phrase ("bounce").
    pub term: String,
    /// What it means, in the data's terms ("a session with exactly one page view").
    pub means: String,
    /// The tables it is about: it is found through them, and shown only to callers who
    /// may read them all.
    #[serde(default)]
    pub tables: Vec<String>,
}

impl Notes {
    /// True when there is nothing in them.
    pub fn is_empty(&self) -> bool {
        self.tables.is_empty() && self.terms.is_empty() && self.relationships.is_empty()
    }

    /// `schema` with the relationships these notes declare or reject applied, each alone;
    /// why each that could not be applied was left out.
    pub fn apply_relationships(&self, schema: &mut SchemaSnapshot) -> Vec<String> {
        let relationships = self.relationships.iter();
        relationships.filter_map(|r| r.apply(schema).err()).collect()
    }

    /// The notes that fit `schema`, spelled as it declares its names, and a sentence for
    /// each part left out (a table, column or value it does not have; a term about no table
    /// it has). Matched as SQLite matches names, without regard to case.
    pub fn fitting(&self, schema: &SchemaSnapshot) -> (Notes, Vec<String>) {
        let mut kept = Notes::default();
        let mut dropped = Vec::new();
        let id = &schema.datasource_id;
        for (name, notes) in &self.tables {
            let Some(table) = schema.table(name) else {
                dropped.push(format!("the notes of {id}.{name}: it has no such table"));
                continue;
            };
            let mut fit = TableNotes {
                description: notes.description.clone(),
                synonyms: notes.synonyms.clone(),
                columns: BTreeMap::new(),
            };
            for (column, notes) in &notes.columns {
                let Some(col) = table.column(column) else {
                    dropped.push(format!(
                        "the notes of {id}.{}.{column}: it has no such column",
                        table.name
                    ));
                    continue;
                };
                let mut values = notes.values.clone();
                if !values.is_empty() && col.category != crate::schema::TypeCategory::Text {
                    dropped.push(format!(
                        "the value words of {id}.{}.{}: it is not a text column",
                        table.name, col.name
                    ));
                    values.clear();
                }
                fit.columns.insert(
                    col.name.clone(),
                    ColumnNotes {
                        description: notes.description.clone(),
                        synonyms: notes.synonyms.clone(),
                        values,
                    },
                );
            }
            kept.tables.insert(table.name.clone(), fit);
        }
        for term in &self.terms {
            let tables: Vec<String> = term
                .tables
                .iter()
                .filter_map(|t| schema.table(t).map(|t| t.name.clone()))
                .collect();
            if tables.len() != term.tables.len() || tables.is_empty() {
                dropped.push(format!(
                    "the term {:?} of {id}: it must name tables {id} has",
                    term.term
                ));
                continue;
            }
            kept.terms.push(Term {
                term: term.term.clone(),
                means: term.means.clone(),
                tables,
            });
        }
        (kept, dropped)
    }

    /// The lines the planner is shown for `tables` and `columns` (`Table.Column`): each
    /// table's and column's description and other names, and the terms about those tables
    /// that `readable` lets the caller see whole.
    pub fn lines(
        &self,
        tables: &[String],
        columns: &[String],
        readable: &dyn Fn(&str) -> bool,
    ) -> Vec<String> {
        let mut out = Vec::new();
        let said = |description: &str, synonyms: &[String]| -> Option<String> {
            let mut text = description.trim().to_string();
            if !synonyms.is_empty() {
                if !text.is_empty() {
                    text.push(' ');
                }
                text.push_str(&format!("(also called: {})", synonyms.join(", ")));
            }
            (!text.is_empty()).then_some(text)
        };
        for (name, notes) in &self.tables {
            if !tables.contains(name) {
                continue;
            }
            if let Some(text) = said(&notes.description, &notes.synonyms) {
                out.push(format!("{name}: {text}"));
            }
            for (column, c) in &notes.columns {
                let at = format!("{name}.{column}");
                if !columns.contains(&at) {
                    continue;
                }
                if let Some(text) = said(&c.description, &c.synonyms) {
                    out.push(format!("{at}: {text}"));
                }
            }
        }
        for term in &self.terms {
            let about_shown = term.tables.iter().any(|t| tables.contains(t));
            if about_shown && term.tables.iter().all(|t| readable(t)) {
                out.push(format!("\"{}\" means {}", term.term, term.means.trim()));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nl2sql_plan::test_fixtures::schema as snapshot;

    #[test]
    fn notes_that_name_what_the_schema_lacks_are_dropped_alone_and_said() {
        let schema = snapshot();
        let table = schema.tables[0].name.clone();
        let column = schema.tables[0].columns[0].name.clone();
        let mut notes = Notes::default();
        notes.tables.insert(
            table.to_uppercase(),
            TableNotes {
                description: "One row per thing.".into(),
                synonyms: vec!["thing".into()],
                columns: [
                    (column.to_uppercase(), ColumnNotes::default()),
                    ("nope".to_string(), ColumnNotes::default()),
                ]
                .into_iter()
                .collect(),
            },
        );
        notes.tables.insert("ghost".into(), TableNotes::default());
        notes.terms.push(Term {
            term: "churn".into(),
            means: "leaving".into(),
            tables: vec!["ghost".into()],
        });
        let (kept, dropped) = notes.fitting(&schema);
        assert_eq!(kept.tables.keys().collect::<Vec<_>>(), vec![&table]);
        assert!(kept.tables[&table].columns.contains_key(&column));
        assert_eq!(dropped.len(), 3, "{dropped:?}");
        assert!(kept.terms.is_empty());
        let lines = kept.lines(std::slice::from_ref(&table), &[], &|_| true);
        assert_eq!(
            lines,
            vec![format!("{table}: One row per thing. (also called: thing)")]
        );
    }
}
