//! The datasource contract suite on rusqlite, natively, against the files in `data/`.
#![cfg(not(target_arch = "wasm32"))]

use nl2sql_core::DatasourceErrorKind;
use nl2sql_native::SqliteFile;
use nl2sql_tests::contract;
use nl2sql_tests::native::{data_dir, open};
use std::path::PathBuf;

macro_rules! native_checks {
    (; $($check:ident),* $(,)?) => {
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
