//! The schema snapshot: what a datasource holds, read once and then kept in memory.

use crate::dialect::Dialect;
use crate::value::Value;
use serde::{Deserialize, Serialize};

/// Everything the engine knows about one datasource's structure and data distribution.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SchemaSnapshot {
    /// The datasource id.
    pub datasource_id: String,
    /// The SQL dialect.
    pub dialect: Dialect,
    /// Tables sorted by name.
    pub tables: Vec<Table>,
    /// A hash of the structure (tables, columns, declared types, nullability, keys), never
    /// of the data: the same schema with other rows has the same fingerprint.
    pub fingerprint: String,
    /// A short version label derived from the fingerprint, for people and traces.
    pub version: String,
    /// The connection's own schema (PostgreSQL's current schema, DuckDB's, MySQL's
    /// database), whose tables have bare names, when the engine has schemas.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<String>,
}

impl SchemaSnapshot {
    /// Builds a snapshot, sorting the tables and deriving the fingerprint and version.
    pub fn new(datasource_id: impl Into<String>, dialect: Dialect, mut tables: Vec<Table>) -> Self {
        tables.sort_by(|a, b| a.name.cmp(&b.name));
        let fingerprint = fingerprint(dialect, &tables);
        let version = format!("v{}", &fingerprint[..8]);
        SchemaSnapshot {
            datasource_id: datasource_id.into(),
            dialect,
            tables,
            fingerprint,
            version,
            schema: None,
        }
    }

    /// The schemas of `listed` of which this snapshot holds no table (its own schema's
    /// tables counting for its name): a name mistyped, a schema the login may not use or
    /// one whose tables are all hidden. Names compare as the engine compares them: exactly
    /// on PostgreSQL, without regard to case on MySQL and DuckDB.
    pub fn schemas_without_tables<'a>(
        &'a self,
        listed: &'a [String],
    ) -> impl Iterator<Item = &'a String> + 'a {
        let folds = matches!(
            self.dialect,
            Dialect::MySql | Dialect::DuckDb | Dialect::Spark
        );
        let same =
            move |a: &str, b: &str| a == b || (folds && a.to_lowercase() == b.to_lowercase());
        listed.iter().filter(move |listed| {
            !self.tables.iter().any(|t| match &t.schema {
                Some(s) => same(s, listed),
                None => self.schema.as_deref().is_some_and(|own| same(own, listed)),
            })
        })
    }

    /// This snapshot with `schema` as the connection's own schema.
    pub fn in_schema(self, schema: Option<String>) -> Self {
        SchemaSnapshot { schema, ..self }
    }

    /// The table SQL names as `schema.table` (`schema` `None`: a bare `table`): the one of
    /// that name in that schema, the connection's own schema being named or not; a bare
    /// name of another schema's table when no other table has it.
    pub fn resolve(&self, schema: Option<&str>, table: &str) -> Option<&Table> {
        let own = |s: &str| {
            self.schema
                .as_deref()
                .is_some_and(|own| own.eq_ignore_ascii_case(s))
        };
        match schema {
            Some(s) if own(s) => self.table(table).filter(|t| t.schema.is_none()),
            Some(s) => self.tables.iter().find(|t| {
                t.schema
                    .as_deref()
                    .is_some_and(|o| o.eq_ignore_ascii_case(s))
                    && t.bare_name().eq_ignore_ascii_case(table)
            }),
            None => self.table(table).or_else(|| {
                let mut elsewhere = self
                    .tables
                    .iter()
                    .filter(|t| t.schema.is_some() && t.bare_name().eq_ignore_ascii_case(table));
                match (elsewhere.next(), elsewhere.next()) {
                    (Some(only), None) => Some(only),
                    _ => None,
                }
            }),
        }
    }

    /// The table with this name, compared case-insensitively as SQLite does.
    pub fn table(&self, name: &str) -> Option<&Table> {
        self.tables
            .iter()
            .find(|t| t.name.eq_ignore_ascii_case(name))
    }
}

/// One table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Table {
    /// The table name as declared; `schema.table` for a table outside the connection's
    /// own schema (so a policy, a note or a verified query naming it keeps meaning that one
    /// table, whatever other schemas hold).
    pub name: String,
    /// The schema it lives in, when that is not the connection's own (PostgreSQL's current
    /// schema, DuckDB's `main`); SQL names it `schema.table`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<String>,
    /// Columns in declaration order.
    pub columns: Vec<Column>,
    /// Foreign keys declared on this table, each possibly over several columns.
    pub foreign_keys: Vec<ForeignKey>,
    /// How many rows the table held when the snapshot was taken.
    pub row_count: u64,
    /// A view (or a materialized view): read like a table, with no keys of its own.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub view: bool,
    /// Why its statistics (row count, column statistics, sample values) or the text values
    /// value linking reads are missing, when they are: reading them ran past the time
    /// limit. Its structure is complete, and questions about it still run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unread: Option<String>,
}

impl Table {
    /// The name within its schema: [`Table::name`] without the schema.
    pub fn bare_name(&self) -> &str {
        bare(&self.name, self.schema.as_deref())
    }

    /// The column with this name, compared case-insensitively as SQLite does.
    pub fn column(&self, name: &str) -> Option<&Column> {
        self.columns
            .iter()
            .find(|c| c.name.eq_ignore_ascii_case(name))
    }

    /// The primary-key columns in key order.
    pub fn primary_key(&self) -> Vec<&str> {
        let mut keyed: Vec<(u32, &str)> = self
            .columns
            .iter()
            .filter_map(|c| c.primary_key_position.map(|p| (p, c.name.as_str())))
            .collect();
        keyed.sort_unstable();
        keyed.into_iter().map(|(_, name)| name).collect()
    }
}

/// One column.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Column {
    /// The column name as declared.
    pub name: String,
    /// The declared type exactly as written, e.g. `NVARCHAR(160)`; may be empty.
    pub declared_type: String,
    /// What kind of values the column holds, from the declared type and, for text
    /// columns, the values themselves.
    pub category: TypeCategory,
    /// Whether the column may hold NULL.
    pub nullable: bool,
    /// 1-based position in the primary key, when the column is part of it.
    pub primary_key_position: Option<u32>,
    /// How the column's data is distributed.
    pub stats: ColumnStats,
}

/// The broad kind of a column's values; what the validator and the planner reason with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum TypeCategory {
    /// Integers and decimals.
    Number,
    /// Strings.
    Text,
    /// Dates and times, declared so or stored as ISO-8601 text.
    Temporal,
    /// True or false.
    Boolean,
    /// Anything else (blobs, untyped columns).
    Other,
}

/// A foreign key from this table's columns to another table's columns.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ForeignKey {
    /// The referencing columns on this table, in key order.
    pub columns: Vec<String>,
    /// The referenced table.
    pub referenced_table: String,
    /// The referenced columns, paired with `columns` by position.
    pub referenced_columns: Vec<String>,
    /// Who says so: the database (a declared key), the project file, or the engine's
    /// inference, with its evidence.
    #[serde(default, skip_serializing_if = "KeySource::is_database")]
    pub source: KeySource,
}

/// Where a relationship between tables comes from.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum KeySource {
    /// A foreign key the database declares.
    #[default]
    Database,
    /// Declared in the project file (`[[datasources.relationships]]`).
    Configured,
    /// Inferred by the engine where none is declared: what it rests on.
    Inferred {
        /// The names, types and values that agree, in words.
        evidence: String,
    },
}

impl KeySource {
    /// Whether the database declares it.
    pub fn is_database(&self) -> bool {
        *self == KeySource::Database
    }
}

/// How a column's data is distributed.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ColumnStats {
    /// The share of rows where the column is NULL, from 0 to 1 (0 for an empty table).
    pub null_fraction: f64,
    /// How many distinct non-null values the column holds.
    pub distinct_count: u64,
    /// The smallest value, for number and temporal columns.
    pub min: Option<Value>,
    /// The largest value, for number and temporal columns.
    pub max: Option<Value>,
    /// For text columns: every distinct value when there are at most
    /// [`SAMPLE_ALL_MAX`], otherwise the [`SAMPLE_TOP`] most frequent; most frequent first.
    pub sample_values: Vec<String>,
}

/// A text column with at most this many distinct values has all of them sampled.
pub const SAMPLE_ALL_MAX: u64 = 50;
/// A text column with more distinct values has this many of its most frequent sampled.
pub const SAMPLE_TOP: u64 = 5;

/// FNV-1a over a canonical description of the structure. Not cryptographic: it only has to
/// tell two schemas apart and stay stable across platforms and releases.
fn fingerprint(dialect: Dialect, tables: &[Table]) -> String {
    let mut canonical = format!("dialect={dialect}\n");
    for table in tables {
        let kind = if table.view { "view" } else { "table" };
        canonical.push_str(&format!("{kind} {}\n", table.name));
        for c in &table.columns {
            canonical.push_str(&format!(
                " column {} {} null={} pk={}\n",
                c.name,
                c.declared_type.trim().to_ascii_uppercase(),
                c.nullable,
                c.primary_key_position.unwrap_or(0)
            ));
        }
        // Relationships the engine or the project adds are not the database's structure.
        for fk in table.foreign_keys.iter().filter(|k| k.source.is_database()) {
            canonical.push_str(&format!(
                " fk {} -> {}({})\n",
                fk.columns.join(","),
                fk.referenced_table,
                fk.referenced_columns.join(",")
            ));
        }
    }
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in canonical.bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{hash:016x}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn column(name: &str, declared_type: &str, pk: Option<u32>) -> Column {
        Column {
            name: name.into(),
            declared_type: declared_type.into(),
            category: TypeCategory::Number,
            nullable: pk.is_none(),
            primary_key_position: pk,
            stats: ColumnStats::default(),
        }
    }

    fn table(name: &str, rows: u64) -> Table {
        Table {
            schema: None,
            name: name.into(),
            columns: vec![column("B", "INTEGER", Some(2)), column("A", "int", Some(1))],
            foreign_keys: vec![],
            row_count: rows,
            view: false,
            unread: None,
        }
    }

    #[test]
    fn fingerprint_ignores_data_but_not_structure() {
        let a = SchemaSnapshot::new("x", Dialect::Sqlite, vec![table("T", 1)]);
        let more_rows = SchemaSnapshot::new("x", Dialect::Sqlite, vec![table("T", 99)]);
        assert_eq!(a.fingerprint, more_rows.fingerprint);
        assert_eq!(a.version, format!("v{}", &a.fingerprint[..8]));

        let renamed = SchemaSnapshot::new("x", Dialect::Sqlite, vec![table("U", 1)]);
        assert_ne!(a.fingerprint, renamed.fingerprint);

        let mut retyped = table("T", 1);
        retyped.columns[0].declared_type = "TEXT".into();
        let retyped = SchemaSnapshot::new("x", Dialect::Sqlite, vec![retyped]);
        assert_ne!(a.fingerprint, retyped.fingerprint);
    }

    #[test]
    fn primary_key_is_in_key_order_and_lookups_ignore_case() {
        let snap = SchemaSnapshot::new("x", Dialect::Sqlite, vec![table("Track", 1)]);
        let t = snap.table("track").unwrap();
        assert_eq!(t.primary_key(), vec!["A", "B"]);
        assert_eq!(t.column("b").unwrap().name, "B");
        assert!(snap.table("Album").is_none());
    }
}

/// A table's structure as the catalogue declares it, before statistics.
#[derive(Debug, Clone, PartialEq)]
pub struct TableShape {
    /// The table's name as declared (`schema.table` outside the connection's own schema).
    pub name: String,
    /// Its schema, when that is not the connection's own.
    pub schema: Option<String>,
    /// Its columns, in declaration order.
    pub columns: Vec<ColumnShape>,
    /// Its foreign keys, in declaration order.
    pub foreign_keys: Vec<ForeignKey>,
    /// Whether it is a view.
    pub view: bool,
}

impl TableShape {
    /// A table of `schema` (`None` or empty: the connection's own) named `table` there.
    pub fn named(schema: Option<&str>, table: &str) -> (String, Option<String>) {
        match schema.filter(|s| !s.is_empty()) {
            Some(s) => (format!("{s}.{table}"), Some(s.to_string())),
            None => (table.to_string(), None),
        }
    }

    /// The name within its schema.
    pub fn bare_name(&self) -> &str {
        bare(&self.name, self.schema.as_deref())
    }
}

/// `name` without its `schema.` prefix.
fn bare<'a>(name: &'a str, schema: Option<&str>) -> &'a str {
    schema
        .and_then(|s| name.strip_prefix(s))
        .and_then(|rest| rest.strip_prefix('.'))
        .unwrap_or(name)
}

/// A column as the catalogue declares it.
#[derive(Debug, Clone, PartialEq)]
pub struct ColumnShape {
    /// The column's name as declared.
    pub name: String,
    /// The declared type as the engine writes it (`character varying(200)`, `int(11)`).
    pub declared_type: String,
    /// Whether it may hold NULL.
    pub nullable: bool,
    /// Its 1-based position in the primary key.
    pub primary_key_position: Option<u32>,
}

/// Every table of the schema a datasource reads.
pub type Structure = Vec<TableShape>;

/// The category of a declared type as PostgreSQL, MySQL/MariaDB and DuckDB write them. The
/// type's name alone decides (`numeric(10,2)` is `numeric`; `int unsigned` is `int`), so a
/// name that merely contains a word (`interval`, `point`) is not mistaken for another.
pub fn category_of(declared_type: &str) -> TypeCategory {
    let t = declared_type.trim().to_ascii_lowercase();
    let name = t.split(['(', '[']).next().unwrap_or_default().trim();
    let first = name.split_whitespace().next().unwrap_or_default();
    if name.ends_with("[]") || t.contains('[') {
        return TypeCategory::Other;
    }
    match first {
        "smallint" | "integer" | "int" | "bigint" | "int2" | "int4" | "int8" | "tinyint"
        | "mediumint" | "hugeint" | "uhugeint" | "utinyint" | "usmallint" | "uinteger"
        | "ubigint" | "serial" | "bigserial" | "smallserial" | "numeric" | "decimal" | "dec"
        | "fixed" | "real" | "double" | "float" | "float4" | "float8" | "money" => {
            TypeCategory::Number
        }
        "text" | "varchar" | "character" | "char" | "bpchar" | "nvarchar" | "nchar" | "citext"
        | "tinytext" | "mediumtext" | "longtext" | "enum" | "string" | "name" | "uuid" => {
            TypeCategory::Text
        }
        "date" | "time" | "timestamp" | "timestamptz" | "timetz" | "datetime" | "year"
        | "timestamp_ntz" | "timestamp_ltz" => TypeCategory::Temporal,
        "boolean" | "bool" => TypeCategory::Boolean,
        _ => TypeCategory::Other,
    }
}
