//! A hostile-input corpus: SQL hidden in every string a plan or a query carries, comment
//! markers, semicolons, quote tricks, Unicode look-alikes, huge and deeply nested inputs.
//! Each is refused with the right code or rendered harmlessly, and nothing is ever written.
//! The checks live in `nl2sql_tests::hostile`; this file runs them on SQLite.
#![cfg(not(target_arch = "wasm32"))]

use nl2sql_tests::hostile::{self, Env};
use nl2sql_tests::native::chinook;

macro_rules! sqlite_checks {
    (; $($check:ident),* $(,)?) => {
        $(
            #[test]
            fn $check() {
                hostile::$check(&Env::new(Box::new(chinook())));
            }
        )*
    };
}

nl2sql_tests::for_each_hostile_check!(sqlite_checks);
