//! With the `duckdb` feature, the command line links the DuckDB library that `npm ci` (run
//! by `cargo xtask setup`) puts in `node_modules/` (.cargo/config.toml says where, as
//! `DUCKDB_LIB_DIR`). A build without it would end in the linker's "unable to find library
//! -lduckdb"; this says instead what to run. And a binary installed elsewhere
//! (`cargo install --path cli`) finds the library by its absolute path, which the relative
//! run paths of .cargo/config.toml cannot give it.

use std::path::Path;

fn main() {
    println!("cargo::rerun-if-env-changed=DUCKDB_LIB_DIR");
    if std::env::var_os("CARGO_FEATURE_DUCKDB").is_none() {
        return;
    }
    let Some(dir) = std::env::var_os("DUCKDB_LIB_DIR") else {
        return;
    };
    let dir = Path::new(&dir);
    let library = dir.join("libduckdb.so");
    println!("cargo::rerun-if-changed={}", library.display());
    if cfg!(target_os = "linux") && !library.is_file() {
        println!(
            "cargo::error=The DuckDB library is not at {}. Run `npm ci` in the project folder \
             (or `cargo xtask setup`, which does it with the rest), then build again; or build \
             without DuckDB files: `cargo build -p nl2sql-cli --no-default-features --features \
             spark`.",
            library.display()
        );
        return;
    }
    println!("cargo::rustc-link-arg-bins=-Wl,-rpath,{}", dir.display());
}
