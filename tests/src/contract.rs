//! The datasource contract, checked on the real demo databases.
//!
//! Each check takes an opener that returns the named demo database as a [`Datasource`]. The
//! expected numbers were counted by hand with the sqlite3 shell on the published files.

use nl2sql_core::lower::quote_name;
use nl2sql_core::Metadata;
use nl2sql_core::{
    Datasource, DatasourceErrorKind, Dialect, ExecLimits, ResultFrame, SchemaSnapshot,
    TypeCategory, Value,
};

/// Opens a demo database by id (`chinook`, `support`, `webanalytics`).
pub type Opener<'a> = &'a dyn Fn(&str) -> Box<dyn Datasource>;

const ALL_ROWS: ExecLimits = ExecLimits::rows(100_000);

async fn snapshot(open: Opener<'_>, id: &str) -> SchemaSnapshot {
    let ds = open(id);
    match ds.introspect().await {
        Ok(s) => s,
        Err(e) => panic!("introspecting {id} failed: {e}"),
    }
}

/// `template` written for `ds`'s engine: each `{Name}` becomes that name quoted as the
/// generator quotes it (PostgreSQL folds bare names to lower case; Chinook's are mixed).
fn written_for(ds: &dyn Datasource, template: &str) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let Some(close) = rest[open..].find('}') else {
            break;
        };
        out.push_str(&quote_name(&rest[open + 1..open + close], ds.dialect()));
        rest = &rest[open + close + 1..];
    }
    out.push_str(rest);
    out
}

async fn rows(ds: &dyn Datasource, template: &str, limits: ExecLimits) -> ResultFrame {
    let sql = written_for(ds, template);
    match ds.execute(&sql, limits).await {
        Ok(frame) => frame,
        Err(e) => panic!("{sql} failed: {e}"),
    }
}

/// A Chinook table's name as SQLite spells it. Spark's catalogue keeps table names in
/// lower case (as Hive's and Unity Catalog's do), so only there is the name matched
/// without case; every other engine must keep the spelling.
fn as_cased(s: &nl2sql_core::SchemaSnapshot, name: &str) -> String {
    const CHINOOK: [&str; 11] = [
        "Album",
        "Artist",
        "Customer",
        "Employee",
        "Genre",
        "Invoice",
        "InvoiceLine",
        "MediaType",
        "Playlist",
        "PlaylistTrack",
        "Track",
    ];
    match CHINOOK.iter().find(|t| t.eq_ignore_ascii_case(name)) {
        Some(t) if s.dialect == Dialect::Spark => t.to_string(),
        _ => name.to_string(),
    }
}

pub async fn chinook_tables_and_row_counts(open: Opener<'_>) {
    let s = snapshot(open, "chinook").await;
    let counts: Vec<(String, u64)> = s
        .tables
        .iter()
        .map(|t| (as_cased(&s, &t.name), t.row_count))
        .collect();
    let counts: Vec<(&str, u64)> = counts.iter().map(|(t, n)| (t.as_str(), *n)).collect();
    assert_eq!(
        counts,
        vec![
            ("Album", 347),
            ("Artist", 275),
            ("Customer", 59),
            ("Employee", 8),
            ("Genre", 25),
            ("Invoice", 412),
            ("InvoiceLine", 2240),
            ("MediaType", 5),
            ("Playlist", 18),
            ("PlaylistTrack", 8715),
            ("Track", 3503),
        ]
    );
    assert_eq!(s.datasource_id, "chinook");
}

pub async fn chinook_keys_and_nullability(open: Opener<'_>) {
    let s = snapshot(open, "chinook").await;
    let fk = |table: &str| -> Vec<String> {
        s.table(table)
            .unwrap()
            .foreign_keys
            .iter()
            .map(|k| {
                format!(
                    "{}->{}.{}",
                    k.columns.join(","),
                    as_cased(&s, &k.referenced_table),
                    k.referenced_columns.join(",")
                )
            })
            .collect()
    };
    assert_eq!(fk("Album"), vec!["ArtistId->Artist.ArtistId"]);
    assert_eq!(
        fk("InvoiceLine"),
        vec!["InvoiceId->Invoice.InvoiceId", "TrackId->Track.TrackId"]
    );
    assert_eq!(fk("Employee"), vec!["ReportsTo->Employee.EmployeeId"]);
    assert_eq!(
        fk("Track"),
        vec![
            "AlbumId->Album.AlbumId",
            "GenreId->Genre.GenreId",
            "MediaTypeId->MediaType.MediaTypeId"
        ]
    );
    let total: usize = s.tables.iter().map(|t| t.foreign_keys.len()).sum();
    assert_eq!(total, 11);

    assert_eq!(
        s.table("PlaylistTrack").unwrap().primary_key(),
        vec!["PlaylistId", "TrackId"]
    );
    assert_eq!(s.table("Track").unwrap().primary_key(), vec!["TrackId"]);
    let track = s.table("Track").unwrap();
    assert!(!track.column("TrackId").unwrap().nullable);
    assert!(!track.column("Name").unwrap().nullable);
    assert!(track.column("Composer").unwrap().nullable);
}

pub async fn chinook_types_and_categories(open: Opener<'_>) {
    let s = snapshot(open, "chinook").await;
    let col = |t: &str, c: &str| s.table(t).unwrap().column(c).unwrap().clone();
    // Declared types as each engine writes them (`nl2sql copy` maps SQLite's).
    let (datetime, numeric, nvarchar) = match s.dialect {
        Dialect::Postgres => ("timestamp without time zone", "numeric(10,2)", "text"),
        Dialect::MySql => ("datetime", "decimal(10,2)", "longtext"),
        Dialect::DuckDb => ("TIMESTAMP", "DECIMAL(10,2)", "VARCHAR"),
        Dialect::Spark => ("timestamp_ntz", "decimal(10,2)", "string"),
        _ => ("DATETIME", "NUMERIC(10,2)", "NVARCHAR(200)"),
    };
    let date = col("Invoice", "InvoiceDate");
    assert_eq!(
        (date.declared_type.as_str(), date.category),
        (datetime, TypeCategory::Temporal)
    );
    let total = col("Invoice", "Total");
    assert_eq!(
        (total.declared_type.as_str(), total.category),
        (numeric, TypeCategory::Number)
    );
    let name = col("Track", "Name");
    assert_eq!(
        (name.declared_type.as_str(), name.category),
        (nvarchar, TypeCategory::Text)
    );
    assert_eq!(col("Track", "Bytes").category, TypeCategory::Number);
}

pub async fn statistics_match_hand_counts(open: Opener<'_>) {
    let s = snapshot(open, "chinook").await;
    let stats = |t: &str, c: &str| s.table(t).unwrap().column(c).unwrap().stats.clone();

    let composer = stats("Track", "Composer");
    assert!((composer.null_fraction - 978.0 / 3503.0).abs() < 1e-12);
    assert_eq!(composer.distinct_count, 852);
    assert_eq!(
        composer.sample_values,
        vec![
            "Steve Harris",
            "U2",
            "Jagger/Richards",
            "Billy Corgan",
            "Kurt Cobain"
        ]
    );
    assert_eq!(
        (composer.min, composer.max),
        (None, None),
        "text has no range"
    );

    let genres = stats("Genre", "Name");
    assert_eq!(
        genres.sample_values.len(),
        25,
        "all values of a small column"
    );
    assert!(genres.sample_values.contains(&"Jazz".to_string()));

    let ms = stats("Track", "Milliseconds");
    assert_eq!(
        (ms.min, ms.max),
        (Some(Value::Integer(1071)), Some(Value::Integer(5_286_953)))
    );
    assert_eq!(ms.distinct_count, 3080);
    assert!(ms.sample_values.is_empty(), "numbers are not sampled");
    assert_eq!(ms.null_fraction, 0.0);

    let total = stats("Invoice", "Total");
    assert_eq!(
        (total.min, total.max),
        (Some(Value::Real(0.99)), Some(Value::Real(25.86)))
    );
    let date = stats("Invoice", "InvoiceDate");
    assert_eq!(date.min, Some(Value::Text("2009-01-01 00:00:00".into())));
    assert_eq!(date.max, Some(Value::Text("2013-12-22 00:00:00".into())));

    let support = snapshot(open, "support").await;
    let tickets = support.table("tickets").unwrap();
    let priority = &tickets.column("priority").unwrap().stats;
    assert_eq!(
        priority.sample_values,
        vec!["medium", "low", "high", "urgent"]
    );
    let opened = tickets.column("opened_at").unwrap();
    assert_eq!(
        opened.category,
        TypeCategory::Temporal,
        "ISO text is recognised as dates"
    );
    assert_eq!(
        opened.stats.min,
        Some(Value::Text("2009-01-02 12:34:40".into()))
    );
    assert!(opened.stats.sample_values.is_empty());
    let closed = &tickets.column("closed_at").unwrap().stats;
    assert!((closed.null_fraction - 86.0 / 284.0).abs() < 1e-12);
    let satisfaction = &tickets.column("satisfaction").unwrap().stats;
    assert_eq!(
        (satisfaction.min.clone(), satisfaction.max.clone()),
        (Some(Value::Integer(3)), Some(Value::Integer(5)))
    );
}

/// The same structure gives the same fingerprint on every adapter and platform.
pub async fn fingerprints_are_structural_and_stable(open: Opener<'_>) {
    let chinook = snapshot(open, "chinook").await;
    if chinook.dialect == Dialect::Sqlite {
        assert_eq!(chinook.fingerprint, CHINOOK_FINGERPRINT);
    }
    assert_eq!(chinook.version, format!("v{}", &chinook.fingerprint[..8]));
    let again = snapshot(open, "chinook").await;
    assert_eq!(
        chinook, again,
        "introspection is deterministic, statistics included"
    );
    let support = snapshot(open, "support").await;
    assert_ne!(chinook.fingerprint, support.fingerprint);
    // The cheap per-run fingerprint agrees with the full read on every demo database.
    for (id, full) in [
        ("chinook", &chinook),
        ("support", &support),
        ("webanalytics", &snapshot(open, "webanalytics").await),
    ] {
        let cheap = open(id).fingerprint().await;
        assert_eq!(cheap.as_deref(), Ok(full.fingerprint.as_str()), "{id}");
    }
}

/// Chinook's structural fingerprint, as both SQLite adapters compute it.
pub const CHINOOK_FINGERPRINT: &str = "22df977ad176f0c7";

pub async fn typed_values_round_trip(open: Opener<'_>) {
    let ds = open("chinook");
    let blob = match ds.dialect() {
        Dialect::Postgres => "'\\x00ff10'::bytea",
        Dialect::DuckDb => "'\\x00\\xFF\\x10'::BLOB",
        Dialect::Spark => "X'00FF10'",
        _ => "x'00ff10'",
    };
    let frame = rows(
        &*ds,
        &format!(
            "SELECT 1 AS i, 1.5 AS r, 2.0 AS whole_real, 'Ünïcødé 🎵' AS t, NULL AS n, \
             {blob} AS b, 9007199254740993 AS big, -9223372036854775808 AS min_i"
        ),
        ALL_ROWS,
    )
    .await;
    assert_eq!(
        frame.columns,
        vec!["i", "r", "whole_real", "t", "n", "b", "big", "min_i"]
    );
    assert_eq!(
        frame.rows,
        vec![vec![
            Value::Integer(1),
            Value::Real(1.5),
            Value::Real(2.0),
            Value::Text("Ünïcødé 🎵".into()),
            Value::Null,
            Value::Blob(vec![0, 255, 16]),
            Value::Integer(9_007_199_254_740_993),
            Value::Integer(i64::MIN),
        ]]
    );
    let track = rows(
        &*ds,
        "SELECT {TrackId}, {Name}, {UnitPrice}, {Bytes}, {Composer} FROM {Track} \
         WHERE {TrackId} IN (1, 63) ORDER BY {TrackId}",
        ALL_ROWS,
    )
    .await;
    assert_eq!(
        track.rows[0],
        vec![
            Value::Integer(1),
            Value::Text("For Those About To Rock (We Salute You)".into()),
            Value::Real(0.99),
            Value::Integer(11_170_334),
            Value::Text("Angus Young, Malcolm Young, Brian Johnson".into()),
        ]
    );
    assert_eq!(track.rows[1][4], Value::Null, "track 63 has no composer");
}

pub async fn writes_attach_and_batches_are_refused(open: Opener<'_>) {
    let ds = open("chinook");
    for sql in [
        "INSERT INTO {Genre} ({Name}) VALUES ('x')",
        "UPDATE {Track} SET {Name} = 'x'",
        "DELETE FROM {Track}",
        "DROP TABLE {Track}",
        "CREATE TABLE t (a INTEGER)",
        "ATTACH DATABASE ':memory:' AS other",
        "PRAGMA query_only = OFF",
        "SELECT 1; DELETE FROM {Track}",
        "SELECT 1; SELECT 2",
        "",
    ] {
        let sql = written_for(&*ds, sql);
        match ds.execute(&sql, ALL_ROWS).await {
            Ok(_) => panic!("{sql:?} ran"),
            Err(e) => assert_eq!(e.kind, DatasourceErrorKind::Refused, "{sql:?}: {e}"),
        }
    }
    let count = rows(&*ds, "SELECT count(*) FROM {Track}", ALL_ROWS).await;
    assert_eq!(
        count.rows,
        vec![vec![Value::Integer(3503)]],
        "nothing was written"
    );
}

pub async fn query_faults_are_invalid_queries(open: Opener<'_>) {
    let ds = open("chinook");
    for (sql, mentions) in [
        ("SELECT {Nope} FROM {Track}", "Nope"),
        ("SELECT * FROM {NoSuchTable}", "NoSuchTable"),
        ("SELEC 1", "parse"),
    ] {
        let sql = written_for(&*ds, sql);
        match ds.execute(&sql, ALL_ROWS).await {
            Ok(_) => panic!("{sql:?} ran"),
            Err(e) => {
                assert_eq!(e.kind, DatasourceErrorKind::InvalidQuery, "{sql:?}: {e}");
                assert!(e.message.contains(mentions), "{sql:?}: {}", e.message);
            }
        }
    }
}

pub async fn row_cap_is_honoured_and_reported(open: Opener<'_>) {
    let ds = open("chinook");
    let sql = "SELECT {TrackId} FROM {Track} ORDER BY {TrackId}";
    for (cap, expect_rows, expect_truncated) in [
        (10, 10, true),
        (3502, 3502, true),
        (3503, 3503, false),
        (5000, 3503, false),
        (0, 0, true),
    ] {
        let frame = rows(&*ds, sql, ExecLimits::rows(cap)).await;
        assert_eq!(frame.row_count(), expect_rows, "cap {cap}");
        assert_eq!(frame.truncated, expect_truncated, "cap {cap}");
    }
    let first = rows(&*ds, sql, ExecLimits::rows(3)).await;
    assert_eq!(
        first.rows,
        vec![
            vec![Value::Integer(1)],
            vec![Value::Integer(2)],
            vec![Value::Integer(3)]
        ]
    );
}

pub async fn empty_results_keep_their_columns(open: Opener<'_>) {
    let ds = open("chinook");
    let frame = rows(
        &*ds,
        "SELECT {GenreId}, {Name} FROM {Genre} WHERE 1 = 0",
        ALL_ROWS,
    )
    .await;
    assert_eq!(frame.columns, vec!["GenreId", "Name"]);
    assert_eq!(frame.row_count(), 0);
    assert!(!frame.truncated);
}

pub async fn every_demo_database_introspects(open: Opener<'_>) {
    let support = snapshot(open, "support").await;
    let counts: Vec<(&str, u64)> = support
        .tables
        .iter()
        .map(|t| (t.name.as_str(), t.row_count))
        .collect();
    assert_eq!(
        counts,
        vec![
            ("agents", 10),
            ("customers", 59),
            ("ticket_messages", 1125),
            ("tickets", 284)
        ]
    );
    let web = snapshot(open, "webanalytics").await;
    let counts: Vec<(&str, u64)> = web
        .tables
        .iter()
        .map(|t| (t.name.as_str(), t.row_count))
        .collect();
    assert_eq!(
        counts,
        vec![
            ("conversions", 83),
            ("devices", 12),
            ("page_views", 2455),
            ("referrers", 11),
            ("sessions", 768)
        ]
    );
    let channel = &web
        .table("referrers")
        .unwrap()
        .column("channel")
        .unwrap()
        .stats;
    assert_eq!(
        channel.sample_values,
        vec!["organic", "social", "referral", "direct", "email", "paid"]
    );
    let value = &web
        .table("conversions")
        .unwrap()
        .column("value_usd")
        .unwrap()
        .stats;
    assert_eq!(
        (value.min.clone(), value.max.clone()),
        (Some(Value::Real(1.96)), Some(Value::Real(24.91)))
    );
    assert!((value.null_fraction - 48.0 / 83.0).abs() < 1e-12);
}
