//! The value index: distinct text values of every text column, so a question that names a
//! value ("Iron Maiden", "urgent", "/pricing") finds its column, and value linking, which
//! turns those mentions into hints for the planner (`Artist.Name = 'Iron Maiden'`).

use super::fasthash::FastMap;
use crate::datasource::{Datasource, DatasourceError, DatasourceErrorKind, Dialect, ExecLimits};
use crate::lower::{to_sql, LowerOptions};
use crate::plan::{
    BinaryOp, Direction, Expr, FuncCall, Literal, OrderItem, Plan, SelectItem, TableRef,
};
use crate::policy::Scope;
use crate::schema::{SchemaSnapshot, TypeCategory};
use crate::value::Value;

/// Values longer than this are prose (message bodies), not names a question repeats.
const LONGEST_VALUE: usize = 80;

/// One column's values.
#[derive(Debug, Clone, PartialEq)]
struct ValueColumn {
    datasource: String,
    table: String,
    column: String,
    values: Vec<String>,
}

/// How a question's words matched a value.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum MatchKind {
    /// Exactly, case included.
    Exact,
    /// Up to letter case.
    CaseInsensitive,
    /// The words are one of the value's synonyms, as the datasource's notes give them
    /// ("waiting" for `pending`).
    Synonym,
    /// Closely (character trigrams), e.g. a misspelling.
    Fuzzy,
    /// One content word of the question is a word of a category ("refunds" for the
    /// category "Refund request"); categorical columns only.
    Word,
}

impl MatchKind {
    /// The published name (as serialized).
    pub fn as_str(self) -> &'static str {
        match self {
            MatchKind::Exact => "exact",
            MatchKind::CaseInsensitive => "case_insensitive",
            MatchKind::Fuzzy => "fuzzy",
            MatchKind::Word => "word",
            MatchKind::Synonym => "synonym",
        }
    }
}

/// A value the question names.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ValueHint {
    /// The datasource.
    pub datasource: String,
    /// The table.
    pub table: String,
    /// The column.
    pub column: String,
    /// The value as stored.
    pub value: String,
    /// The words of the question that named it.
    pub span: String,
    /// How they matched.
    pub matched: MatchKind,
    /// 1 for exact matches; the trigram similarity for fuzzy ones.
    pub score: f32,
}

impl ValueHint {
    /// `Table.Column = 'value'`, as the planner reads it.
    pub fn render(&self) -> String {
        format!(
            "{}.{} = '{}'",
            self.table,
            self.column,
            self.value.replace('\'', "''")
        )
    }
}

/// Distinct text values per column, with exact and trigram lookups.
#[derive(Debug, Clone, Default)]
pub struct ValueIndex {
    columns: Vec<ValueColumn>,
    /// Lower-cased value → (column, value) positions.
    exact: FastMap<String, Vec<(usize, usize)>>,
    /// Trigram → (column, value) positions.
    grams: FastMap<Gram, Vec<(usize, usize)>>,
    /// How many distinct trigrams each value has, per column.
    gram_counts: Vec<Vec<u32>>,
    /// Stemmed content word → (column, value) positions, for categorical columns only.
    words: FastMap<String, Vec<(usize, usize)>>,
    /// A value's synonym, lower-cased → (column, value) positions.
    aliases: FastMap<String, Vec<(usize, usize)>>,
}

/// Words shorter than this say too little to name a category ("app", "new").
const SHORTEST_CATEGORY_WORD: usize = 4;

/// Values of more words than this are not category labels.
const CATEGORY_WORDS: usize = 3;

/// Three characters packed into one number (21 bits each: every `char` fits).
type Gram = u64;

fn trigrams(text: &str) -> Vec<Gram> {
    let padded: Vec<char> = format!("  {} ", text.to_lowercase()).chars().collect();
    let mut out: Vec<Gram> = padded
        .windows(3)
        .map(|w| (u64::from(w[0]) << 42) | (u64::from(w[1]) << 21) | u64::from(w[2]))
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// `SELECT DISTINCT column … ORDER BY column LIMIT cap` over the short non-null values,
/// written as a plan and rendered in the datasource's own dialect.
fn distinct_values_sql(
    schema: &SchemaSnapshot,
    dialect: Dialect,
    table: &str,
    column: &str,
    cap: usize,
) -> Result<String, DatasourceError> {
    let value = || Expr::Column {
        alias: Some("t".into()),
        column: column.to_string(),
    };
    let binary = |op, left, right| Expr::Binary {
        op,
        left: Box::new(left),
        right: Box::new(right),
    };
    let longest = i64::try_from(LONGEST_VALUE).unwrap_or(i64::MAX);
    let plan = Plan {
        distinct: true,
        tables: vec![TableRef {
            name: table.to_string(),
            schema_name: None,
            database: None,
            alias: "t".into(),
        }],
        select_items: vec![SelectItem {
            expr: value(),
            alias: None,
        }],
        filter: Some(binary(
            BinaryOp::And,
            binary(BinaryOp::IsNot, value(), Expr::Literal(Literal::Null)),
            binary(
                BinaryOp::LtEq,
                Expr::Func(FuncCall {
                    name: "LENGTH".into(),
                    args: vec![value()],
                    distinct: false,
                    filter: None,
                    order_by: vec![],
                    over: None,
                }),
                Expr::Literal(Literal::Integer(longest)),
            ),
        )),
        order_by: vec![OrderItem {
            expr: value(),
            direction: Direction::Asc,
            nulls: None,
        }],
        ..Plan::default()
    };
    let options = LowerOptions {
        row_cap: u64::try_from(cap).unwrap_or(u64::MAX),
        today: None,
    };
    to_sql(&plan, schema, dialect, &options).map_err(|e| {
        DatasourceError::new(
            DatasourceErrorKind::InvalidQuery,
            format!(
                "the values of {table}.{column} cannot be read: {}",
                e.message
            ),
        )
    })
}

impl ValueIndex {
    /// Reads up to `cap` distinct values of every text column of a datasource, each read
    /// under the read time limit. A table whose statistics were not read is passed over,
    /// and a column whose read runs past the limit is left out, which its table's `unread`
    /// says.
    pub async fn read(
        ds: &dyn Datasource,
        schema: &mut SchemaSnapshot,
        cap: usize,
    ) -> Result<Vec<(String, String, Vec<String>)>, DatasourceError> {
        let mut out = Vec::new();
        let mut late: Vec<(String, String)> = Vec::new();
        for t in schema.tables.iter().filter(|t| t.unread.is_none()) {
            for c in &t.columns {
                if c.category != TypeCategory::Text {
                    continue;
                }
                let sql = distinct_values_sql(schema, ds.dialect(), &t.name, &c.name, cap)?;
                let frame = match ds.execute(&sql, ExecLimits::reading(cap)).await {
                    Ok(frame) => frame,
                    Err(e) if e.kind == DatasourceErrorKind::TimedOut => {
                        late.push((t.name.clone(), format!("{}: {}", c.name, e.message)));
                        continue;
                    }
                    Err(e) => return Err(e),
                };
                let values = frame
                    .rows
                    .into_iter()
                    .filter_map(|r| match r.into_iter().next() {
                        Some(Value::Text(s)) if !s.trim().is_empty() => Some(s),
                        _ => None,
                    })
                    .collect();
                out.push((t.name.clone(), c.name.clone(), values));
            }
        }
        for (table, why) in late {
            if let Some(t) = schema.tables.iter_mut().find(|t| t.name == table) {
                let note = format!("the values of column {why}");
                t.unread = Some(match t.unread.take() {
                    Some(before) => format!("{before}; {note}"),
                    None => note,
                });
            }
        }
        Ok(out)
    }

    /// Adds one datasource's columns (as [`ValueIndex::read`] returns them).
    pub fn add(&mut self, datasource: &str, columns: Vec<(String, String, Vec<String>)>) {
        for (table, column, mut values) in columns {
            values.retain(|v| v.chars().count() <= LONGEST_VALUE);
            let ci = self.columns.len();
            let mut counts = Vec::with_capacity(values.len());
            for (vi, v) in values.iter().enumerate() {
                self.exact
                    .entry(v.to_lowercase())
                    .or_default()
                    .push((ci, vi));
                let grams = trigrams(v);
                counts.push(u32::try_from(grams.len()).unwrap_or(u32::MAX));
                for g in grams {
                    self.grams.entry(g).or_default().push((ci, vi));
                }
            }
            self.gram_counts.push(counts);
            if values.len() <= crate::schema::SAMPLE_ALL_MAX as usize {
                // Category labels are short; longer values are subjects and sentences,
                // whose every word would otherwise claim a mention.
                let labels = values
                    .iter()
                    .enumerate()
                    .filter(|(_, v)| v.split_whitespace().count() <= CATEGORY_WORDS);
                for (vi, v) in labels {
                    let mut terms = super::text::terms(v);
                    terms.sort();
                    terms.dedup();
                    for t in terms {
                        if t.chars().count() >= SHORTEST_CATEGORY_WORD {
                            self.words.entry(t).or_default().push((ci, vi));
                        }
                    }
                }
            }
            self.columns.push(ValueColumn {
                datasource: datasource.to_string(),
                table,
                column,
                values,
            });
        }
    }

    /// Gives `value` of `datasource.table.column` the synonyms `words`; false, and nothing
    /// given, when the column does not hold the value (as read).
    pub fn alias(
        &mut self,
        datasource: &str,
        table: &str,
        column: &str,
        value: &str,
        words: &[String],
    ) -> bool {
        let Some(ci) = self.columns.iter().position(|c| {
            c.datasource == datasource
                && c.table.eq_ignore_ascii_case(table)
                && c.column.eq_ignore_ascii_case(column)
        }) else {
            return false;
        };
        let Some(vi) = self.columns[ci].values.iter().position(|v| v == value) else {
            return false;
        };
        for word in words.iter().map(|w| w.trim().to_lowercase()) {
            if !word.is_empty() {
                self.aliases.entry(word).or_default().push((ci, vi));
            }
        }
        true
    }

    /// How many values the index holds.
    pub fn len(&self) -> usize {
        self.columns.iter().map(|c| c.values.len()).sum()
    }

    /// About how many bytes the values and their lookups take.
    pub fn approx_bytes(&self) -> usize {
        let values: usize = self
            .columns
            .iter()
            .flat_map(|c| c.values.iter())
            .map(|v| v.len() + 24)
            .sum();
        let exact: usize = self
            .exact
            .iter()
            .map(|(k, v)| k.len() + 48 + v.len() * 16)
            .sum();
        let grams: usize = self.grams.values().map(|v| 60 + v.len() * 16).sum();
        values + exact + grams
    }

    /// The `k` values of one column closest to `text` (character trigrams; at least a
    /// third alike), best first: what a filter that matched nothing probably meant.
    pub fn closest(
        &self,
        datasource: &str,
        table: &str,
        column: &str,
        text: &str,
        k: usize,
    ) -> Vec<String> {
        let Some(ci) = self.columns.iter().position(|c| {
            c.datasource == datasource
                && c.table.eq_ignore_ascii_case(table)
                && c.column.eq_ignore_ascii_case(column)
        }) else {
            return Vec::new();
        };
        let mine = trigrams(text);
        let mut scored: Vec<(f32, &String)> = self.columns[ci]
            .values
            .iter()
            .map(|v| {
                let theirs = trigrams(v);
                let shared = mine
                    .iter()
                    .filter(|g| theirs.binary_search(g).is_ok())
                    .count();
                (
                    2.0 * shared as f32 / (mine.len() + theirs.len()).max(1) as f32,
                    v,
                )
            })
            .filter(|(score, _)| *score >= 0.34)
            .collect();
        scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(b.1)));
        scored.into_iter().take(k).map(|(_, v)| v.clone()).collect()
    }

    /// True when it holds no value.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The values `question` names, in columns the caller may read (of `datasource`, when
    /// given): each span of one to five words, exact first, then case-insensitive, then fuzzy
    /// (trigram similarity at least 0.6); longer spans win, at most `limit` hints.
    pub fn link(
        &self,
        question: &str,
        datasource: Option<&str>,
        scope: &Scope<'_>,
        limit: usize,
    ) -> Vec<ValueHint> {
        let words: Vec<&str> = question
            .split(|c: char| {
                c.is_whitespace() || matches!(c, ',' | '?' | '!' | ';' | '"' | '(' | ')')
            })
            .filter(|w| !w.is_empty())
            // A question is a sentence; past this, text is not a question to link.
            .take(64)
            .collect();
        // Asked once per column, not once per candidate value.
        let allowed: Vec<bool> = self
            .columns
            .iter()
            .map(|c| {
                datasource.is_none_or(|d| d == c.datasource)
                    && scope.can_read(&c.datasource, &c.table)
            })
            .collect();
        let visible = |ci: usize| allowed.get(ci).copied().unwrap_or(false);
        let all_visible = allowed.iter().all(|a| *a);
        let mut hints: Vec<ValueHint> = Vec::new();
        let mut seen = std::collections::HashSet::new();
        let mut covered = vec![false; words.len()];
        // Exact matches first over the whole question, then fuzzy ones over what is left, so
        // a near miss never hides an exact name; longer spans first in each pass.
        for fuzzy in [false, true] {
            // Names run to five words; a misspelt one is looked for in up to three.
            let longest = if fuzzy { 3 } else { 5 };
            for len in (1..=longest.min(words.len())).rev() {
                for start in 0..=words.len() - len {
                    if covered[start..start + len].iter().any(|c| *c) {
                        continue;
                    }
                    let span = words[start..start + len]
                        .join(" ")
                        .trim_matches(|c: char| matches!(c, '.' | ':' | '\''))
                        .to_string();
                    if span.chars().count() < 3 || span.chars().all(|c| c.is_ascii_digit()) {
                        continue;
                    }
                    let found = if fuzzy {
                        self.fuzzy(&span, &visible, all_visible)
                    } else {
                        let mut found = self.exact(&span, &visible);
                        found.extend(self.synonyms(&span, &visible));
                        found
                    };
                    if found.is_empty() {
                        continue;
                    }
                    for h in found {
                        let key = (
                            h.datasource.clone(),
                            h.table.clone(),
                            h.column.clone(),
                            h.value.clone(),
                        );
                        if seen.insert(key) {
                            hints.push(h);
                        }
                    }
                    covered[start..start + len]
                        .iter_mut()
                        .for_each(|c| *c = true);
                }
            }
        }
        // Last, single content words that are words of a category, over what is left.
        for (i, word) in words.iter().enumerate() {
            if covered[i] {
                continue;
            }
            for h in self.by_word(word, &visible) {
                let key = (
                    h.datasource.clone(),
                    h.table.clone(),
                    h.column.clone(),
                    h.value.clone(),
                );
                if seen.insert(key) {
                    hints.push(h);
                }
            }
        }
        hints.sort_by(|a, b| {
            a.matched
                .cmp(&b.matched)
                .then(b.span.len().cmp(&a.span.len()))
                .then(b.score.total_cmp(&a.score))
                .then(a.table.cmp(&b.table))
                .then(a.column.cmp(&b.column))
        });
        hints.truncate(limit);
        hints
    }

    fn hint(&self, ci: usize, vi: usize, span: &str, matched: MatchKind, score: f32) -> ValueHint {
        let c = &self.columns[ci];
        ValueHint {
            datasource: c.datasource.clone(),
            table: c.table.clone(),
            column: c.column.clone(),
            value: c.values[vi].clone(),
            span: span.to_string(),
            matched,
            score,
        }
    }

    fn synonyms(&self, span: &str, visible: &dyn Fn(usize) -> bool) -> Vec<ValueHint> {
        self.aliases
            .get(&span.to_lowercase())
            .into_iter()
            .flatten()
            .filter(|(ci, _)| visible(*ci))
            .map(|&(ci, vi)| self.hint(ci, vi, span, MatchKind::Synonym, 1.0))
            .collect()
    }

    fn exact(&self, span: &str, visible: &dyn Fn(usize) -> bool) -> Vec<ValueHint> {
        if span.chars().count() > LONGEST_VALUE {
            return vec![];
        }
        let Some(found) = self.exact.get(&span.to_lowercase()) else {
            return vec![];
        };
        let one_word = !span.contains(' ');
        found
            .iter()
            .filter(|(ci, _)| visible(*ci))
            .filter_map(|&(ci, vi)| {
                let column = &self.columns[ci];
                let kind = if column.values[vi] == span {
                    MatchKind::Exact
                } else {
                    MatchKind::CaseInsensitive
                };
                // One ordinary word ("release") that happens to be one of thousands of names
                // (a track called "Release") is no mention of it; in a short list of
                // categories ("urgent", "jazz") it is.
                let categorical = column.values.len() <= crate::schema::SAMPLE_ALL_MAX as usize;
                (kind == MatchKind::Exact || !one_word || categorical)
                    .then(|| self.hint(ci, vi, span, kind, 1.0))
            })
            .collect()
    }

    /// Categories having `word` (stemmed) as one of their words: at most three per word,
    /// and none when the word is in more than three values of a column (then it is no
    /// mention of one of them).
    fn by_word(&self, word: &str, visible: &dyn Fn(usize) -> bool) -> Vec<ValueHint> {
        let terms = super::text::terms(word);
        let [term] = terms.as_slice() else {
            return vec![];
        };
        let Some(found) = self.words.get(term) else {
            return vec![];
        };
        let mut per_column: FastMap<usize, usize> = FastMap::default();
        for (ci, _) in found {
            *per_column.entry(*ci).or_default() += 1;
        }
        let span = word.trim_matches(|c: char| !c.is_alphanumeric());
        found
            .iter()
            .filter(|(ci, _)| visible(*ci) && per_column.get(ci).is_some_and(|n| *n <= 3))
            .take(3)
            .map(|&(ci, vi)| {
                let words = self.columns[ci].values[vi].split_whitespace().count();
                self.hint(ci, vi, span, MatchKind::Word, 1.0 / words.max(1) as f32)
            })
            .collect()
    }

    fn fuzzy(
        &self,
        span: &str,
        visible: &dyn Fn(usize) -> bool,
        all_visible: bool,
    ) -> Vec<ValueHint> {
        // Only spans long enough that a near miss is not simply a different word, and that
        // hold a word with content (not "of the").
        let length = span.chars().count();
        let content = super::text::terms(span)
            .iter()
            .any(|t| t.chars().count() >= 4);
        if length < 5 || !content {
            return vec![];
        }
        let mine = trigrams(span);
        let mut counts: FastMap<(usize, usize), usize> = FastMap::default();
        for g in &mine {
            if let Some(list) = self.grams.get(g) {
                // Only values the caller may see count, in the cutoff too: what hidden tables
                // hold must not change what a role is told.
                let mut seen = list.iter().filter(|(ci, _)| visible(*ci));
                // A trigram shared by very many values says little and costs much. (Counting
                // the visible ones is needed only when some are hidden.)
                let many = if all_visible {
                    list.len() > 500
                } else {
                    seen.clone().nth(500).is_some()
                };
                if many {
                    continue;
                }
                for pos in seen.by_ref() {
                    *counts.entry(*pos).or_default() += 1;
                }
            }
        }
        let one_word = !span.contains(' ');
        let mut best: Vec<((usize, usize), f32)> = counts
            .into_iter()
            .filter(|((ci, _), _)| visible(*ci))
            // As for exact matches: one word names a value only among a few categories.
            .filter(|((ci, _), _)| {
                !one_word
                    || self.columns[*ci].values.len() <= crate::schema::SAMPLE_ALL_MAX as usize
            })
            .filter_map(|((ci, vi), shared)| {
                let value = &self.columns[ci].values[vi];
                // A misspelling is about as long as what it misspells.
                let theirs_len = value.chars().count();
                if theirs_len * 4 < length * 3 || length * 4 < theirs_len * 3 {
                    return None;
                }
                let theirs = self
                    .gram_counts
                    .get(ci)
                    .and_then(|c| c.get(vi))
                    .map_or(0, |n| *n as usize);
                let dice = 2.0 * shared as f32 / (mine.len() + theirs) as f32;
                (dice >= 0.6).then_some(((ci, vi), dice))
            })
            .collect();
        best.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        best.truncate(3);
        best.into_iter()
            .map(|((ci, vi), s)| self.hint(ci, vi, span, MatchKind::Fuzzy, s))
            .collect()
    }
}

#[cfg(test)]
mod reading_tests {
    use super::*;

    #[test]
    fn the_values_are_read_in_the_datasource_s_own_dialect() {
        let schema = nl2sql_plan::test_fixtures::schema();
        let sqlite = distinct_values_sql(&schema, Dialect::Sqlite, "Artist", "Name", 50);
        assert_eq!(
            sqlite.as_deref(),
            Ok("SELECT DISTINCT t.Name FROM Artist AS t WHERE (t.Name IS NOT NULL) AND (LENGTH(t.Name) <= 80) ORDER BY t.Name ASC LIMIT 50")
        );
        let mysql = distinct_values_sql(&schema, Dialect::MySql, "Artist", "Name", 50);
        // Characters, not bytes, on every engine.
        assert_eq!(
            mysql.as_deref(),
            Ok("SELECT DISTINCT t.Name FROM Artist AS t WHERE (t.Name IS NOT NULL) AND (CHAR_LENGTH(t.Name) <= 80) ORDER BY t.Name ASC LIMIT 50")
        );
    }
}
