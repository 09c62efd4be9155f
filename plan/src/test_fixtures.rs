//! Test fixtures shared by the unit tests: a slice of Chinook with enough tables, keys and
//! types for every rule.

use crate::dialect::Dialect;
use crate::schema::{Column, ColumnStats, ForeignKey, SchemaSnapshot, Table, TypeCategory};

fn column(name: &str, declared: &str, category: TypeCategory, pk: Option<u32>) -> Column {
    Column {
        name: name.into(),
        declared_type: declared.into(),
        category,
        nullable: pk.is_none(),
        primary_key_position: pk,
        stats: ColumnStats::default(),
    }
}

fn fk(columns: &str, table: &str, referenced: &str) -> ForeignKey {
    ForeignKey {
        source: Default::default(),
        columns: vec![columns.into()],
        referenced_table: table.into(),
        referenced_columns: vec![referenced.into()],
    }
}

fn table(name: &str, columns: Vec<Column>, foreign_keys: Vec<ForeignKey>) -> Table {
    Table {
        schema: None,
        name: name.into(),
        columns,
        foreign_keys,
        row_count: 10,
        view: false,
        unread: None,
    }
}

/// The fixture schema.
pub fn schema() -> SchemaSnapshot {
    use TypeCategory::{Number, Temporal, Text};
    SchemaSnapshot::new(
        "chinook",
        Dialect::Sqlite,
        vec![
            table(
                "Artist",
                vec![
                    column("ArtistId", "INTEGER", Number, Some(1)),
                    column("Name", "NVARCHAR(120)", Text, None),
                ],
                vec![],
            ),
            table(
                "Album",
                vec![
                    column("AlbumId", "INTEGER", Number, Some(1)),
                    column("Title", "NVARCHAR(160)", Text, None),
                    column("ArtistId", "INTEGER", Number, None),
                ],
                vec![fk("ArtistId", "Artist", "ArtistId")],
            ),
            table(
                "Track",
                vec![
                    column("TrackId", "INTEGER", Number, Some(1)),
                    column("Name", "NVARCHAR(200)", Text, None),
                    column("AlbumId", "INTEGER", Number, None),
                    column("Milliseconds", "INTEGER", Number, None),
                ],
                vec![fk("AlbumId", "Album", "AlbumId")],
            ),
            table(
                "Employee",
                vec![
                    column("EmployeeId", "INTEGER", Number, Some(1)),
                    column("LastName", "NVARCHAR(20)", Text, None),
                    column("ReportsTo", "INTEGER", Number, None),
                    column("HireDate", "DATETIME", Temporal, None),
                    column("City", "NVARCHAR(40)", Text, None),
                ],
                vec![fk("ReportsTo", "Employee", "EmployeeId")],
            ),
            table(
                "Customer",
                vec![
                    column("CustomerId", "INTEGER", Number, Some(1)),
                    column("FirstName", "NVARCHAR(40)", Text, None),
                    column("City", "NVARCHAR(40)", Text, None),
                    column("SupportRepId", "INTEGER", Number, None),
                ],
                vec![fk("SupportRepId", "Employee", "EmployeeId")],
            ),
            table(
                "Invoice",
                vec![
                    column("InvoiceId", "INTEGER", Number, Some(1)),
                    column("CustomerId", "INTEGER", Number, None),
                    column("InvoiceDate", "DATETIME", Temporal, None),
                    column("BillingCountry", "NVARCHAR(40)", Text, None),
                    column("Total", "NUMERIC(10,2)", Number, None),
                ],
                vec![fk("CustomerId", "Customer", "CustomerId")],
            ),
        ],
    )
}

/// Plan JSON built the way the tests write it.
pub mod json {
    use serde_json::{json, Value as Json};

    pub fn c(alias: &str, column: &str) -> Json {
        json!({"kind": "column", "alias": alias, "column_name": column})
    }

    pub fn lit(v: Json) -> Json {
        json!({"kind": "literal", "value": v})
    }

    pub fn bin(op: &str, l: Json, r: Json) -> Json {
        json!({"kind": "binary", "op": op, "left": l, "right": r})
    }

    pub fn func(name: &str, args: Vec<Json>) -> Json {
        json!({"kind": "func", "func_name": name, "args": args})
    }

    pub fn sel(exprs: Vec<Json>) -> Json {
        Json::Array(exprs.into_iter().map(|e| json!({"expr": e})).collect())
    }

    pub fn invoices(select: Vec<Json>, extra: Json) -> Json {
        let mut p =
            json!({"tables": [{"name": "Invoice", "alias": "i"}], "select_items": sel(select)});
        if let (Some(p), Some(extra)) = (p.as_object_mut(), extra.as_object()) {
            for (k, v) in extra {
                p.insert(k.clone(), v.clone());
            }
        }
        p
    }
}
