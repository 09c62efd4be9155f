//! A small Chinook-shaped schema for the fuzz targets (structure only, no data).

use nl2sql_core::schema::{Column, ColumnStats, ForeignKey, SchemaSnapshot, Table, TypeCategory};
use nl2sql_core::Dialect;

fn column(name: &str, category: TypeCategory, key: bool) -> Column {
    Column {
        name: name.into(),
        declared_type: match category {
            TypeCategory::Number => "INTEGER".into(),
            TypeCategory::Temporal => "DATETIME".into(),
            _ => "TEXT".into(),
        },
        category,
        nullable: !key,
        primary_key_position: key.then_some(1),
        stats: ColumnStats::default(),
    }
}

pub fn schema() -> SchemaSnapshot {
    use TypeCategory::{Number, Temporal, Text};
    let fk = |c: &str, t: &str, r: &str| ForeignKey {
        columns: vec![c.into()],
        referenced_table: t.into(),
        referenced_columns: vec![r.into()],
    };
    let tables = vec![
        Table {
            name: "Artist".into(),
            columns: vec![column("ArtistId", Number, true), column("Name", Text, false)],
            foreign_keys: vec![],
            row_count: 0,
            view: false,
            unread: None,
        },
        Table {
            name: "Album".into(),
            columns: vec![
                column("AlbumId", Number, true),
                column("Title", Text, false),
                column("ArtistId", Number, false),
            ],
            foreign_keys: vec![fk("ArtistId", "Artist", "ArtistId")],
            row_count: 0,
            view: false,
            unread: None,
        },
        Table {
            name: "Invoice".into(),
            columns: vec![
                column("InvoiceId", Number, true),
                column("InvoiceDate", Temporal, false),
                column("Total", Number, false),
            ],
            foreign_keys: vec![],
            row_count: 0,
            view: false,
            unread: None,
        },
    ];
    SchemaSnapshot::new("chinook", Dialect::Sqlite, tables)
}
