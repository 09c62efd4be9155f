//! A generated warehouse the size of real ones, for the warehouse-scale benchmark: the
//! enterprise of [`crate::large`] as a team's warehouse holds it, in four datasources of
//! one schema per business area each — 2,000 tables in 100 schemas, no key declared
//! anywhere, the reporting marts' tables wide (many past 100 columns).
//!
//! - `erp`: the operational tables as the applications write them (`sales.sales_order`).
//! - `staging`: each of them cleaned, its key renamed and load columns added
//!   (`stg_sales.stg_sales_order`).
//! - `history`: every version of each record, its references included, with when it was
//!   valid (`sales_history.sales_order_history`).
//! - `marts`: a fact or dimension table per operational one, denormalised for reporting: its
//!   own attributes, then those of the tables it refers to, then theirs
//!   (`sales_mart.fct_sales_order`, `crm_mart.dim_customer`).
//!
//! Deterministic, and plain data: the native benchmark writes it into DuckDB files and reads
//! them back as any datasource is read; the page's benchmark builds the same schema with
//! [`read`], which computes what introspection would find, and indexes it.

use crate::gold::{suite, Case};
use crate::large::{designs, hash, value, Cell, Design, Kind, AREAS};
use nl2sql_core::schema::{category_of, Column, ColumnStats, Table, TypeCategory};
use nl2sql_core::value::Value;
use nl2sql_core::workspace::ReadSource;
use nl2sql_core::{Dialect, SchemaSnapshot};
use std::collections::BTreeMap;

/// Questions written for the warehouse before retrieval first ran on it.
const QUESTIONS: &str = include_str!("../gold/retrieval_warehouse.yaml");
/// Written for the 500-table database before it was first searched; asked here of each of
/// the warehouse's four datasources.
const LARGE_QUESTIONS: &str = include_str!("../gold/retrieval_large.yaml");

/// A mart table stops taking the attributes of tables two references away at this width.
const MART_WIDTH: usize = 120;

/// One generated datasource.
pub struct Source {
    /// Its id.
    pub id: &'static str,
    /// What it holds, as its owner would describe it.
    pub description: &'static str,
    /// Its tables, schema by schema.
    pub tables: Vec<WarehouseTable>,
}

/// One generated table.
pub struct WarehouseTable {
    /// Its schema.
    pub schema: String,
    /// Its name within the schema.
    pub name: String,
    /// The operational table it is made from (its own name in `erp`).
    pub origin: &'static str,
    /// Its columns, in order.
    pub columns: Vec<WarehouseColumn>,
    /// How many rows it holds.
    pub rows: usize,
}

/// One generated column.
pub struct WarehouseColumn {
    /// Its name.
    pub name: String,
    /// What it holds: `None` for a key (an integer from 1 to 20).
    pub kind: Option<Kind>,
    /// Varies its values between the tables that share the column's name.
    seed: u64,
}

impl WarehouseTable {
    /// `schema.table`, as DuckDB's catalogue names a table outside its `main` schema.
    pub fn qualified(&self) -> String {
        format!("{}.{}", self.schema, self.name)
    }

    /// The value of column `column` in row `row`.
    pub fn cell(&self, column: usize, row: usize) -> Cell {
        let c = &self.columns[column];
        match c.kind {
            // Keys of the table itself count its rows; references point at ids 1 to 20,
            // which every table has.
            None if column == 0 => Cell::Int(row as i64 + 1),
            None => Cell::Int(((row * 7 + column * 3) % 20) as i64 + 1),
            Some(kind) => value(kind, &c.name, row, c.seed),
        }
    }
}

impl WarehouseColumn {
    fn key(name: String) -> WarehouseColumn {
        WarehouseColumn {
            name,
            kind: None,
            seed: 0,
        }
    }

    fn attribute(name: String, kind: Kind, seed: u64) -> WarehouseColumn {
        WarehouseColumn {
            name,
            kind: Some(kind),
            seed,
        }
    }

    /// The type DuckDB declares it with.
    pub fn declared(&self) -> &'static str {
        match self.kind {
            None | Some(Kind::Count) | Some(Kind::Flag) => "INTEGER",
            Some(Kind::Money) => "DECIMAL(12,2)",
            Some(Kind::Ratio) => "DOUBLE",
            Some(Kind::Date) => "DATE",
            Some(Kind::Stamp) => "TIMESTAMP",
            Some(_) => "VARCHAR",
        }
    }
}

/// A key column per table `d` refers to.
fn references(d: &Design) -> impl Iterator<Item = WarehouseColumn> + '_ {
    (d.references.iter()).map(|r| WarehouseColumn::key(format!("{r}_id")))
}

/// Columns a layer adds to every table: `(name, kind, seed)`.
fn added(columns: &[(&str, Kind, u64)]) -> Vec<WarehouseColumn> {
    (columns.iter())
        .map(|(name, kind, seed)| WarehouseColumn::attribute(name.to_string(), *kind, *seed))
        .collect()
}

/// The four datasources.
pub fn sources() -> Vec<Source> {
    let designs = designs();
    let area_of: BTreeMap<&str, &str> = AREAS
        .iter()
        .flat_map(|(area, tables)| tables.iter().map(move |t| (*t, *area)))
        .collect();
    let by_name: BTreeMap<&str, &Design> = designs.iter().map(|d| (d.name, d)).collect();
    let referenced: std::collections::BTreeSet<&str> = designs
        .iter()
        .flat_map(|d| d.references.iter().copied())
        .collect();
    let area = |d: &Design| area_of.get(d.name).copied().unwrap_or("misc");
    let attributes = |d: &Design, prefix: &str| -> Vec<WarehouseColumn> {
        let h = hash(d.name);
        (d.attributes.iter().enumerate())
            .map(|(i, (name, kind))| {
                WarehouseColumn::attribute(
                    format!("{prefix}{name}"),
                    *kind,
                    h.wrapping_add(i as u64),
                )
            })
            .collect()
    };
    let rows = |d: &Design| 20 + (hash(d.name) % 41) as usize;

    let erp = (designs.iter())
        .map(|d| {
            let mut columns = vec![WarehouseColumn::key("id".into())];
            columns.extend(references(d));
            columns.extend(attributes(d, ""));
            WarehouseTable {
                schema: area(d).into(),
                name: d.name.into(),
                origin: d.name,
                columns,
                rows: rows(d),
            }
        })
        .collect();

    let staging = (designs.iter())
        .map(|d| {
            let h = hash(d.name);
            let mut columns = vec![WarehouseColumn::key(format!("{}_id", d.name))];
            columns.extend(references(d));
            columns.extend(attributes(d, ""));
            columns.extend(added(&[
                ("_loaded_at", Kind::Stamp, h),
                ("_source_system", Kind::Label, h),
                ("_batch_id", Kind::Count, h),
            ]));
            WarehouseTable {
                schema: format!("stg_{}", area(d)),
                name: format!("stg_{}", d.name),
                origin: d.name,
                columns,
                rows: rows(d),
            }
        })
        .collect();

    let history = (designs.iter())
        .map(|d| {
            let h = hash(d.name);
            let mut columns = vec![
                WarehouseColumn::key("history_id".into()),
                WarehouseColumn::key(format!("{}_id", d.name)),
            ];
            columns.extend(references(d));
            columns.extend(attributes(d, ""));
            columns.extend(added(&[
                ("valid_from", Kind::Date, h),
                ("valid_to", Kind::Date, h ^ 1),
                ("is_current", Kind::Flag, h),
                ("change_type", Kind::Status, h),
            ]));
            WarehouseTable {
                schema: format!("{}_history", area(d)),
                name: format!("{}_history", d.name),
                origin: d.name,
                columns,
                rows: rows(d) * 2,
            }
        })
        .collect();

    let marts = (designs.iter())
        .map(|d| {
            let mut columns = vec![WarehouseColumn::key(format!("{}_key", d.name))];
            columns.extend(attributes(d, ""));
            let mut seen: Vec<&str> = vec![d.name];
            // What the tables it refers to say, then what theirs say, as a reporting table
            // spells out its joins once so dashboards need none.
            let mut wave: Vec<&str> = d.references.clone();
            let mut hops = 0;
            while !wave.is_empty() && (hops == 0 || columns.len() < MART_WIDTH) {
                let mut next = Vec::new();
                for r in wave {
                    if seen.contains(&r) {
                        continue;
                    }
                    seen.push(r);
                    let Some(parent) = by_name.get(r) else {
                        continue;
                    };
                    columns.push(WarehouseColumn::key(format!("{r}_key")));
                    columns.extend(attributes(parent, &format!("{r}_")));
                    next.extend(parent.references.iter().copied());
                    if hops > 0 && columns.len() >= MART_WIDTH {
                        break;
                    }
                }
                wave = next;
                hops += 1;
            }
            let prefix = if referenced.contains(d.name) {
                "dim"
            } else {
                "fct"
            };
            WarehouseTable {
                schema: format!("{}_mart", area(d)),
                name: format!("{prefix}_{}", d.name),
                origin: d.name,
                columns,
                rows: rows(d),
            }
        })
        .collect();

    vec![
        Source {
            id: "erp",
            description: "The enterprise's operational systems as the applications write \
                them, one schema per business area: sales, purchasing, inventory, shipping, \
                HR, payroll, finance, CRM, marketing, support, manufacturing, quality, \
                projects, assets, fleet, IT, legal, compliance, retail, e-commerce, \
                subscriptions, billing, facilities, research and planning.",
            tables: erp,
        },
        Source {
            id: "staging",
            description: "The warehouse's staging layer: every operational table cleaned \
                and typed, with when it was loaded, from which source system and in which \
                batch.",
            tables: staging,
        },
        Source {
            id: "history",
            description: "History of changes: every version of each operational record, \
                with the dates it was valid from and to and whether it is the current one.",
            tables: history,
        },
        Source {
            id: "marts",
            description: "The reporting marts: wide fact and dimension tables per business \
                area, denormalised for dashboards and analysis.",
            tables: marts,
        },
    ]
}

/// The questions, each turned to its datasource's tables: the warehouse's own, then the
/// large schema's asked of each datasource. A table whose columns a mart table of the same
/// question already carries (`fct_supplier_rating` has `supplier_key` and the supplier's
/// attributes) is not needed there: a right query reads the mart table alone.
pub fn gold_cases(sources: &[Source]) -> Vec<Case> {
    let in_source = |mut case: Case, source: &Source| {
        let made: Vec<&WarehouseTable> = (case.tables.iter())
            .map(|t| {
                (source.tables.iter())
                    .find(|w| w.origin == t)
                    .unwrap_or_else(|| panic!("{}: no table made from {t}", case.id))
            })
            .collect();
        let carried = |t: &WarehouseTable| {
            let key = format!("{}_key", t.origin);
            (made.iter()).any(|o| o.origin != t.origin && o.columns.iter().any(|c| c.name == key))
        };
        case.tables = (made.iter())
            .filter(|t| !carried(t))
            .map(|t| t.qualified())
            .collect();
        // Two tables carrying each other would leave nothing to find: a case measured as
        // nothing is no case.
        assert!(!case.tables.is_empty(), "{}: every table carried", case.id);
        case.datasources = vec![source.id.to_string()];
        // Columns are named per layer; the goal is the tables.
        case.columns.clear();
        case
    };
    let by_id = |id: &str| {
        (sources.iter())
            .find(|s| s.id == id)
            .unwrap_or_else(|| panic!("no datasource {id}"))
    };
    let mut out: Vec<Case> = (suite(QUESTIONS).cases.into_iter())
        .map(|c| {
            let source = by_id(c.datasources.first().map_or("", String::as_str));
            in_source(c, source)
        })
        .collect();
    for source in sources {
        for mut c in suite(LARGE_QUESTIONS).cases {
            c.id = format!("{}@{}", c.id, source.id);
            out.push(in_source(c, source));
        }
    }
    out
}

/// What reading `source` finds, computed from the generated rows as introspection computes
/// it (types, counts, distinct values, ranges, samples; no keys, none being declared), and
/// its text columns' distinct values as value linking reads them.
pub fn read(source: &Source) -> ReadSource {
    let mut values = Vec::new();
    let tables = (source.tables.iter())
        .map(|t| {
            let name = t.qualified();
            let columns = (t.columns.iter().enumerate())
                .map(|(i, c)| {
                    let cells: Vec<Cell> = (0..t.rows).map(|row| t.cell(i, row)).collect();
                    let category = category_of(c.declared());
                    let (stats, texts) = stats(&cells, category == TypeCategory::Text);
                    if let Some(texts) = texts {
                        values.push((name.clone(), c.name.clone(), texts));
                    }
                    Column {
                        name: c.name.clone(),
                        declared_type: c.declared().into(),
                        category,
                        nullable: true,
                        primary_key_position: None,
                        stats,
                    }
                })
                .collect();
            Table {
                name,
                schema: Some(t.schema.clone()),
                columns,
                foreign_keys: Vec::new(),
                row_count: t.rows as u64,
                view: false,
                unread: None,
            }
        })
        .collect();
    ReadSource {
        schema: SchemaSnapshot::new(source.id, Dialect::DuckDb, tables),
        values,
    }
}

/// A column's statistics, and its distinct values when it holds text.
fn stats(cells: &[Cell], is_text: bool) -> (ColumnStats, Option<Vec<String>>) {
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for c in cells {
        *counts.entry(text(c)).or_default() += 1;
    }
    let distinct_count = counts.len() as u64;
    let (mut min, mut max) = (None, None);
    let mut sample_values = Vec::new();
    let mut texts = None;
    if is_text {
        let mut ranked: Vec<(&String, &usize)> = counts.iter().collect();
        ranked.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        let keep = if distinct_count <= nl2sql_core::schema::SAMPLE_ALL_MAX {
            ranked.len()
        } else {
            nl2sql_core::schema::SAMPLE_TOP as usize
        };
        sample_values = ranked
            .iter()
            .take(keep)
            .map(|(v, _)| (*v).clone())
            .collect();
        texts = Some(counts.keys().cloned().collect());
    } else {
        // Numbers by value; dates and times are ISO texts, which sort as they fall.
        let order = |a: &&Cell, b: &&Cell| match (a, b) {
            (Cell::Text(x), Cell::Text(y)) => x.cmp(y),
            _ => number(a).total_cmp(&number(b)),
        };
        min = cells.iter().min_by(order).map(as_value);
        max = cells.iter().max_by(order).map(as_value);
    }
    let stats = ColumnStats {
        null_fraction: 0.0,
        distinct_count,
        min,
        max,
        sample_values,
    };
    (stats, texts)
}

fn number(c: &Cell) -> f64 {
    match c {
        Cell::Int(n) => *n as f64,
        Cell::Real(x) => *x,
        Cell::Text(_) => f64::NAN,
    }
}

fn text(c: &Cell) -> String {
    match c {
        Cell::Int(n) => n.to_string(),
        Cell::Real(x) => x.to_string(),
        Cell::Text(t) => t.clone(),
    }
}

fn as_value(c: &Cell) -> Value {
    match c {
        Cell::Int(n) => Value::Integer(*n),
        Cell::Real(x) => Value::Real(*x),
        Cell::Text(t) => Value::Text(t.clone()),
    }
}
