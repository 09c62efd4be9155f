//! `nl2sql copy` into DuckDB on keys SQLite holds and DuckDB cannot: a key to a column that
//! is not its table's primary key, keys that form a cycle between tables, rows of one table
//! that point at each other in a cycle, and a chain of rows pointing at earlier rows. Each
//! such key is left out with a note; everything else lands.
#![cfg(feature = "duckdb")]

use nl2sql_core::adapter::Metadata;
use nl2sql_native::address::Address;
use nl2sql_native::DuckDbFile;

#[test]
fn keys_duckdb_cannot_hold_are_left_out_with_a_note_and_the_rows_land() {
    let dir = std::env::temp_dir().join(format!("nl2sql-copy-duckdb-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let source = dir.join("keys.sqlite");
    let db = rusqlite::Connection::open(&source).unwrap();
    db.execute_batch(
        "CREATE TABLE parent (id INTEGER PRIMARY KEY, code TEXT UNIQUE);
         CREATE TABLE child (id INTEGER PRIMARY KEY, code TEXT REFERENCES parent (code),
                             parent_id INTEGER REFERENCES parent (id));
         CREATE TABLE a (id INTEGER PRIMARY KEY, b_id INTEGER REFERENCES b (id));
         CREATE TABLE b (id INTEGER PRIMARY KEY, c_id INTEGER REFERENCES c (id));
         CREATE TABLE c (id INTEGER PRIMARY KEY, b_id INTEGER REFERENCES b (id));
         CREATE TABLE person (id INTEGER PRIMARY KEY, boss INTEGER REFERENCES person (id));
         CREATE TABLE ring (id INTEGER PRIMARY KEY, next INTEGER REFERENCES ring (id));
         INSERT INTO parent VALUES (1, 'x'), (2, 'y');
         INSERT INTO child VALUES (1, 'x', 1), (2, 'y', 2);
         INSERT INTO b VALUES (1, NULL); INSERT INTO c VALUES (1, 1); INSERT INTO a VALUES (1, 1);
         INSERT INTO person VALUES (3, 2), (2, 1), (1, NULL), (4, 3);
         INSERT INTO ring VALUES (1, 2), (2, 1), (3, 3);",
    )
    .unwrap();
    drop(db);
    let target = dir.join("keys.duckdb");
    let address = Address::parse(&target.to_string_lossy()).unwrap();
    let report = nl2sql_native::copy::copy(&source, &address, false, &mut |_| {})
        .unwrap_or_else(|e| panic!("{e}"));
    let notes = report.notes.join("\n");
    assert!(
        notes.contains("child (code) → parent: not kept: DuckDB keeps a key only"),
        "{notes}"
    );
    // The cycle is b ⇄ c: one of its keys goes, and a's key to b stays.
    assert!(notes.contains("form a cycle"), "{notes}");
    assert!(!notes.contains("a (b_id)"), "{notes}");
    assert!(
        notes.contains("ring (next) → ring: not kept: rows of the table point at each other"),
        "{notes}"
    );
    assert!(
        !notes.contains("person"),
        "a chain of bosses is ordered: {notes}"
    );
    let rows: u64 = report.tables.iter().map(|(_, n)| n).sum();
    assert_eq!(rows, 2 + 2 + 3 + 4 + 3);
    let copied = DuckDbFile::open("keys", &target).unwrap();
    let schema = pollster::block_on(copied.introspect()).unwrap();
    let keys = |t: &str| schema.table(t).map(|t| t.foreign_keys.len()).unwrap_or(99);
    assert_eq!(
        (keys("child"), keys("person"), keys("ring"), keys("a")),
        (1, 1, 0, 1)
    );
    let _ = std::fs::remove_dir_all(dir);
}
