//! Cross-crate test support.
//!
//! [`contract`] is the datasource contract suite: one set of checks every adapter must pass
//! on the real demo databases. `tests/native.rs` runs it on rusqlite, `tests/browser.rs` on
//! sql.js in headless Chromium, both through [`for_each_contract_check!`] so neither can
//! skip a check.

pub mod bench;
pub mod compare;
pub mod contract;
pub mod gold;
#[cfg(not(target_arch = "wasm32"))]
pub mod mock;
pub mod pipeline;
pub mod routing;
#[cfg(target_arch = "wasm32")]
pub mod sqljs;

/// Calls `$harness!(check, check, …)` with every check of the contract suite.
#[macro_export]
macro_rules! for_each_contract_check {
    ($harness:ident) => {
        $harness!(
            chinook_tables_and_row_counts,
            chinook_keys_and_nullability,
            chinook_types_and_categories,
            statistics_match_hand_counts,
            fingerprints_are_structural_and_stable,
            typed_values_round_trip,
            writes_attach_and_batches_are_refused,
            query_faults_are_invalid_queries,
            row_cap_is_honoured_and_reported,
            empty_results_keep_their_columns,
            every_demo_database_introspects,
        );
    };
}
