//! Introspection of shapes the demo databases lack: multi-column foreign keys, keys that
//! name only the referenced table, very wide tables, empty tables, odd names.

use nl2sql_core::adapter::Metadata;
use nl2sql_core::adapter::{TypeCategory, Value};
use nl2sql_native::SqliteFile;
use std::path::PathBuf;

fn temp_db(name: &str, sql: &str) -> PathBuf {
    let path = std::env::temp_dir().join(format!("nl2sql-{}-{name}.sqlite", std::process::id()));
    let _ = std::fs::remove_file(&path);
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute_batch(sql).unwrap();
    path
}

#[test]
fn composite_and_implicit_foreign_keys() {
    let path = temp_db(
        "keys",
        "CREATE TABLE parent (a INTEGER, b TEXT, PRIMARY KEY (a, b));
         CREATE TABLE child (id INTEGER PRIMARY KEY, pa INTEGER, pb TEXT,
                             FOREIGN KEY (pa, pb) REFERENCES parent (a, b));
         CREATE TABLE implicit (id INTEGER PRIMARY KEY, p INTEGER, q TEXT,
                                FOREIGN KEY (p, q) REFERENCES parent);
         CREATE TABLE shouting (id INTEGER PRIMARY KEY, p INTEGER, q TEXT,
                                FOREIGN KEY (p, q) REFERENCES PARENT);
         CREATE TABLE \"odd \"\"name\" (\"col'1\" TEXT);
         INSERT INTO \"odd \"\"name\" VALUES ('x'), ('x'), (NULL);",
    );
    let db = SqliteFile::open("keys", &path).unwrap();
    let s = pollster::block_on(db.introspect()).unwrap();
    let child = &s.table("child").unwrap().foreign_keys[0];
    assert_eq!(
        (child.columns.clone(), child.referenced_columns.clone()),
        (
            vec!["pa".to_string(), "pb".into()],
            vec!["a".to_string(), "b".into()]
        )
    );
    let implicit = &s.table("implicit").unwrap().foreign_keys[0];
    assert_eq!(implicit.referenced_table, "parent");
    assert_eq!(
        implicit.referenced_columns,
        vec!["a", "b"],
        "a bare table reference means its primary key"
    );
    assert_eq!(s.table("parent").unwrap().primary_key(), vec!["a", "b"]);
    // SQLite matches the referenced table without regard to case, and so must the cheap
    // per-run fingerprint, or every run would see a changed schema.
    let shouting = &s.table("shouting").unwrap().foreign_keys[0];
    assert_eq!(shouting.referenced_columns, vec!["a", "b"]);
    assert_eq!(
        pollster::block_on(db.fingerprint()).as_deref(),
        Ok(s.fingerprint.as_str())
    );
    assert_eq!(s.table("parent").unwrap().row_count, 0);
    let odd = s.table("odd \"name").unwrap();
    let col = odd.column("col'1").unwrap();
    assert_eq!(col.stats.sample_values, vec!["x"]);
    assert!((col.stats.null_fraction - 1.0 / 3.0).abs() < 1e-12);
    let _ = std::fs::remove_file(path);
}

#[test]
fn tables_wider_than_one_statistics_pass() {
    let columns: Vec<String> = (0..700).map(|i| format!("c{i} INTEGER")).collect();
    let values: Vec<String> = (0..700).map(|i| i.to_string()).collect();
    let path = temp_db(
        "wide",
        &format!(
            "CREATE TABLE wide ({}); INSERT INTO wide VALUES ({});",
            columns.join(", "),
            values.join(", ")
        ),
    );
    let db = SqliteFile::open("wide", &path).unwrap();
    let s = pollster::block_on(db.introspect()).unwrap();
    let wide = s.table("wide").unwrap();
    assert_eq!(wide.columns.len(), 700);
    assert_eq!(wide.row_count, 1);
    let last = wide.column("c699").unwrap();
    assert_eq!(last.category, TypeCategory::Number);
    assert_eq!(last.stats.max, Some(Value::Integer(699)));
    let _ = std::fs::remove_file(path);
}

#[test]
fn views_are_read_like_tables_and_marked() {
    let path = temp_db(
        "views",
        "CREATE TABLE tickets (id INTEGER PRIMARY KEY, priority TEXT NOT NULL);
         INSERT INTO tickets (priority) VALUES ('low'), ('high'), ('high');
         CREATE VIEW ticket_load AS
             SELECT t.priority, COUNT(*) AS n FROM tickets AS t GROUP BY t.priority;",
    );
    let db = SqliteFile::open("views", &path).unwrap();
    let s = pollster::block_on(db.introspect()).unwrap();
    let view = s.table("ticket_load").expect("the view is in the snapshot");
    assert!(view.view && !s.table("tickets").unwrap().view);
    assert_eq!(view.row_count, 2);
    assert!(view.foreign_keys.is_empty() && view.primary_key().is_empty());
    let priority = view.column("priority").unwrap();
    assert_eq!(priority.category, TypeCategory::Text);
    assert_eq!(priority.stats.sample_values, vec!["high", "low"]);
    // The cheap per-run fingerprint sees the view too, and a view differs from a table.
    assert_eq!(
        pollster::block_on(db.fingerprint()).as_deref(),
        Ok(s.fingerprint.as_str())
    );
    let mut as_table = s.clone();
    for t in &mut as_table.tables {
        t.view = false;
    }
    let as_table = nl2sql_core::adapter::SchemaSnapshot::new("views", s.dialect, as_table.tables);
    assert_ne!(as_table.fingerprint, s.fingerprint);
    let _ = std::fs::remove_file(path);
}

#[test]
fn a_view_sqlite_cannot_read_stays_empty_and_the_rest_is_read() {
    let path = temp_db(
        "broken-view",
        "CREATE TABLE kept (id INTEGER PRIMARY KEY, name TEXT);
         INSERT INTO kept (name) VALUES ('a');
         CREATE TABLE gone (x INTEGER);
         CREATE VIEW over_gone AS SELECT x FROM gone;
         DROP TABLE gone;",
    );
    let db = SqliteFile::open("broken", &path).unwrap();
    let s = pollster::block_on(db.introspect()).unwrap();
    let broken = s.table("over_gone").expect("the view is named");
    assert!(broken.view && broken.columns.is_empty());
    assert!(broken
        .unread
        .as_deref()
        .is_some_and(|why| why.contains("cannot be read")));
    assert_eq!(s.table("kept").map(|t| t.row_count), Some(1));
    assert_eq!(
        pollster::block_on(db.fingerprint()).as_deref(),
        Ok(s.fingerprint.as_str())
    );
    let _ = std::fs::remove_file(path);
}
