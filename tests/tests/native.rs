//! The datasource contract suite on rusqlite, natively, against the files in `data/`.
#![cfg(not(target_arch = "wasm32"))]

use nl2sql_cli::SqliteFile;
use nl2sql_core::demo::demo_database;
use nl2sql_core::{Datasource, DatasourceErrorKind};
use nl2sql_tests::contract;
use std::path::PathBuf;

fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../data")
}

fn open(id: &str) -> Box<dyn Datasource> {
    let demo = demo_database(id).unwrap_or_else(|| panic!("no demo database {id}"));
    let path = data_dir().join(demo.file);
    assert!(
        path.is_file(),
        "{} is missing: run `cargo xtask data`",
        path.display()
    );
    match SqliteFile::open(id, &path) {
        Ok(file) => Box::new(file),
        Err(e) => panic!("opening {}: {e}", path.display()),
    }
}

macro_rules! native_checks {
    ($($check:ident),* $(,)?) => {
        $(
            #[test]
            fn $check() {
                pollster::block_on(contract::$check(&open));
            }
        )*
    };
}

nl2sql_tests::for_each_contract_check!(native_checks);

#[test]
fn a_file_that_is_not_a_database_is_unavailable() {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml");
    let err = SqliteFile::open("x", manifest)
        .err()
        .expect("a TOML file is not a database");
    assert_eq!(err.kind, DatasourceErrorKind::Unavailable, "{err}");
    let err = SqliteFile::open("x", data_dir().join("no-such.sqlite"))
        .err()
        .expect("missing file");
    assert_eq!(err.kind, DatasourceErrorKind::Unavailable, "{err}");
}
