//! Relationships the database does not declare, inferred from names, types, statistics and
//! a bounded look at the values: a column named for another table (`ArtistId`, `artist_id`,
//! `customer`) whose type is that table's key's, whose values fit the key's statistics and
//! whose sampled values are all key values. Each is kept as a foreign key marked
//! [`KeySource::Inferred`] with its evidence, so retrieval's join paths, the planner's schema
//! text and the join checks use it like a declared one — and anyone can see why it is there.

use super::{count_at, quote_table, run};
use crate::datasource::Datasource;
use crate::lower::quote_name;
use crate::schema::{Column, ForeignKey, KeySource, SchemaSnapshot, Table, TypeCategory};
use crate::value::Value;

/// At most this many of a column's values are looked up in the referenced table.
const SAMPLE: u64 = 1_000;
/// At most this many candidates have their values looked at; the rest are not inferred
/// (a warehouse of thousands of tables is read in bounded time).
const CHECKS: usize = 2_000;

/// A column that may refer to another table's key, and how well its name says so.
struct Candidate {
    table: usize,
    column: usize,
    parent: usize,
    key: usize,
    /// 2: the key has the column's own name (`ArtistId` → `Artist.ArtistId`); 1: the key
    /// is `id` or the table's name with `id`.
    rank: u8,
}

/// The relationships `snapshot` does not declare that its names, types, statistics and
/// values agree on, each as `(table, foreign key)`. A value check that cannot run leaves
/// the candidate out: nothing is inferred on names alone.
pub async fn infer<D: Datasource + ?Sized>(
    ds: &D,
    snapshot: &SchemaSnapshot,
) -> Vec<(String, ForeignKey)> {
    let mut found = Vec::new();
    for c in candidates(snapshot).into_iter().take(CHECKS) {
        let (table, parent) = (&snapshot.tables[c.table], &snapshot.tables[c.parent]);
        let (column, key) = (&table.columns[c.column], &parent.columns[c.key]);
        let Some(sampled) = contained(ds, snapshot, (table, column), (parent, key)).await else {
            continue;
        };
        let evidence = format!(
            "{}.{} is named for {} and has the type of its key {}; all {sampled} of its \
             values looked at are {} values",
            table.name, column.name, parent.name, key.name, key.name
        );
        found.push((
            table.name.clone(),
            ForeignKey {
                columns: vec![column.name.clone()],
                referenced_table: parent.name.clone(),
                referenced_columns: vec![key.name.clone()],
                source: KeySource::Inferred { evidence },
            },
        ));
    }
    found
}

/// Candidates by name, type and statistics, best first per column; a column whose best
/// match is shared by two tables is left out (ambiguous).
fn candidates(snapshot: &SchemaSnapshot) -> Vec<Candidate> {
    let tables = &snapshot.tables;
    // Each table's name forms, once: a warehouse's columns are compared with every table.
    let forms: Vec<Vec<String>> = (tables.iter())
        .map(|t| singulars(&normal(t.bare_name())))
        .collect();
    let mut out = Vec::new();
    for (ti, table) in tables.iter().enumerate() {
        // A table whose statistics ran past the time limit would only do so again.
        if table.view || table.unread.is_some() {
            continue;
        }
        let own_key = table.primary_key();
        for (ci, column) in table.columns.iter().enumerate() {
            let declared = table
                .foreign_keys
                .iter()
                .any(|k| k.columns.iter().any(|c| c.eq_ignore_ascii_case(&column.name)));
            let is_own_key = own_key.len() == 1 && own_key[0].eq_ignore_ascii_case(&column.name);
            if declared || is_own_key || !keyish(column.category) {
                continue;
            }
            let Some(stem) = stem(&column.name) else {
                continue;
            };
            let mut best: Vec<Candidate> = Vec::new();
            for (pi, parent) in tables.iter().enumerate() {
                if parent.view || parent.unread.is_some() {
                    continue;
                }
                let Some(named) = names(&stem, &forms[pi]) else {
                    continue;
                };
                // A table refers to itself only through a role (`parent_category_id`).
                if pi == ti && named != Named::Role {
                    continue;
                }
                let Some((key, key_rank)) = key_of(parent, column, &stem) else {
                    continue;
                };
                if pi == ti && key == ci {
                    continue;
                }
                let rank = (named as u8) * 3 + key_rank;
                if !fits(column, &parent.columns[key]) {
                    continue;
                }
                let candidate = Candidate {
                    table: ti,
                    column: ci,
                    parent: pi,
                    key,
                    rank,
                };
                match best.first().map(|b| b.rank) {
                    Some(r) if r > rank => {}
                    Some(r) if r == rank => best.push(candidate),
                    _ => best = vec![candidate],
                }
            }
            if best.len() == 1 {
                out.extend(best);
            }
        }
    }
    out
}

/// Kinds a key can be compared as on every engine.
fn keyish(category: TypeCategory) -> bool {
    matches!(category, TypeCategory::Number | TypeCategory::Text)
}

/// What a column's name says it refers to, normalised (lower case, no `_`): `ArtistId`,
/// `artist_id` and `artist_key` say `artist`; a plain `customer` says `customer`.
fn stem(column: &str) -> Option<String> {
    let lower = column.to_lowercase();
    let stem = ["_id", "_key", "_fk", "id"]
        .iter()
        .find_map(|suffix| lower.strip_suffix(suffix))
        .unwrap_or(&lower);
    let stem = normal(stem);
    (stem.len() >= 2).then_some(stem)
}

/// A name lower-cased without `_`, so `media_type`, `MediaType` and `mediatype` agree.
fn normal(name: &str) -> String {
    name.chars()
        .filter(|c| *c != '_')
        .flat_map(char::to_lowercase)
        .collect()
}

/// How a column's name names a table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Named {
    /// The column is named for a role the table plays (`home_branch_id` → `branch`,
    /// `parent_category_id` → `categories`), or the table's name qualifies the word
    /// (`run_id` → `payroll_runs`).
    Role = 1,
    /// The column is named for the table itself (`artist_id` → `artists`).
    Exactly = 2,
}

/// What a table's normalised name may be the plural of: `categories` → `category`,
/// `boxes` → `box`, `courses` → `course` (and `cours`, which names nothing).
fn singulars(table: &str) -> Vec<String> {
    let mut out = vec![table.to_string()];
    if let Some(s) = table.strip_suffix("ies") {
        out.push(format!("{s}y"));
    }
    if let Some(s) = table.strip_suffix("es") {
        out.push(s.to_string());
    }
    if let Some(s) = table.strip_suffix('s') {
        out.push(s.to_string());
    }
    out
}

/// Whether the table whose name has these `forms` ([`singulars`]) is what `stem` names, and
/// how: the same word (or its plural), or the word with a role before it or a qualifier in
/// the table's name. Affixes match only on three letters or more.
fn names(stem: &str, forms: &[String]) -> Option<Named> {
    if forms.iter().any(|f| f == stem) {
        return Some(Named::Exactly);
    }
    let affix = |long: &str, short: &str| {
        short.len() >= 3 && long.len() > short.len() && long.ends_with(short)
    };
    forms
        .iter()
        .any(|f| affix(stem, f) || affix(f, stem))
        .then_some(Named::Role)
}

/// The column of `parent` that `column` would refer to, and how well the names agree:
/// its single-column primary key, or (where it declares none) a column whose values are
/// all different; named as `column`, `id`, or the table's name with `id`.
fn key_of(parent: &Table, column: &Column, stem: &str) -> Option<(usize, u8)> {
    let rank = |name: &str| -> Option<u8> {
        let n = normal(name);
        if n == normal(&column.name) {
            Some(2)
        } else if n == "id"
            || n == format!("{stem}id")
            || singulars(&normal(parent.bare_name()))
                .iter()
                .any(|f| n == format!("{f}id"))
        {
            Some(1)
        } else {
            None
        }
    };
    let declared = parent.primary_key();
    let position = |name: &str| parent.columns.iter().position(|c| c.name == name);
    if let [only] = declared.as_slice() {
        return rank(only).and_then(|r| position(only).map(|at| (at, r)));
    }
    if !declared.is_empty() {
        return None;
    }
    let unique = |c: &Column| {
        parent.row_count > 0
            && c.stats.null_fraction == 0.0
            && c.stats.distinct_count == parent.row_count
    };
    parent
        .columns
        .iter()
        .enumerate()
        .filter(|(_, c)| unique(c))
        .filter_map(|(at, c)| rank(&c.name).map(|r| (at, r)))
        .max_by_key(|(_, r)| *r)
}

/// Whether a referencing column's type and statistics fit the key's: the same kind, no more
/// distinct values than the key has, and (for numbers) a range within the key's.
fn fits(column: &Column, key: &Column) -> bool {
    if column.category != key.category {
        return false;
    }
    if column.stats.distinct_count > key.stats.distinct_count && key.stats.distinct_count > 0 {
        return false;
    }
    let number = |v: &Option<Value>| match v {
        Some(Value::Integer(n)) => Some(*n as f64),
        Some(Value::Real(r)) => Some(*r),
        _ => None,
    };
    match (
        (number(&column.stats.min), number(&column.stats.max)),
        (number(&key.stats.min), number(&key.stats.max)),
    ) {
        ((Some(lo), Some(hi)), (Some(key_lo), Some(key_hi))) => lo >= key_lo && hi <= key_hi,
        _ => true,
    }
}

/// How many of up to [`SAMPLE`] of the column's values were looked up, when every one is a
/// key value; `None` when one is not, when there is none to look at (nothing is inferred on
/// names alone), or when the look could not be made.
async fn contained<D: Datasource + ?Sized>(
    ds: &D,
    snapshot: &SchemaSnapshot,
    (table, column): (&Table, &Column),
    (parent, key): (&Table, &Column),
) -> Option<u64> {
    let d = snapshot.dialect;
    let (c, k) = (quote_name(&column.name, d), quote_name(&key.name, d));
    let child = quote_table(table.schema.as_deref(), table.bare_name(), d);
    let referenced = quote_table(parent.schema.as_deref(), parent.bare_name(), d);
    let sql = format!(
        "SELECT COUNT(*), COUNT(p.{k}) FROM (SELECT {c} FROM {child} WHERE {c} IS NOT NULL \
         LIMIT {SAMPLE}) AS s LEFT JOIN {referenced} AS p ON p.{k} = s.{c}"
    );
    let frame = run(ds, &sql).await.ok()?;
    let row = frame.rows.first()?;
    let (looked, found) = (count_at(row, 0).ok()?, count_at(row, 1).ok()?);
    (looked > 0 && looked == found).then_some(looked)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named(stem: &str, table: &str) -> Option<Named> {
        names(stem, &singulars(&normal(table)))
    }

    #[test]
    fn a_name_says_which_table_it_refers_to() {
        assert_eq!(stem("ArtistId").as_deref(), Some("artist"));
        assert_eq!(stem("media_type_id").as_deref(), Some("mediatype"));
        assert_eq!(stem("customer").as_deref(), Some("customer"));
        assert_eq!(stem("id"), None);
        let exactly = Some(Named::Exactly);
        assert_eq!(named("artist", "Artist"), exactly);
        assert_eq!(named("artist", "artists"), exactly);
        assert_eq!(named("category", "categories"), exactly);
        assert_eq!(named("box", "boxes"), exactly);
        assert_eq!(named("mediatype", "media_types"), exactly);
        assert_eq!(named("homebranch", "Branch"), Some(Named::Role));
        assert_eq!(named("run", "payroll_runs"), Some(Named::Role));
        assert_eq!(named("artist", "artwork"), None);
        assert_eq!(named("xa", "boxa"), None, "too short to be a word");
        assert_eq!(named("course", "courses"), exactly);
    }
}
