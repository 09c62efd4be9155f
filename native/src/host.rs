//! The native [`Host`]: blocking HTTP that stops at cancel, the wall clock, an in-memory
//! scratch database per run and a sleeping thread between retries; and the demo databases
//! opened as a workspace for the facade.

use crate::clock::WallClock;
use crate::http::{BlockingTransport, ThreadSleep};
use crate::scratch::MemoryScratch;
use crate::sources::Sources;
use nl2sql_core::adapter::Clock;
use nl2sql_core::adapter::HttpTransport;
use nl2sql_core::adapter::Scratch;
use nl2sql_core::adapter::Sleep;
use nl2sql_core::config::Policies;
use nl2sql_core::error::Error;
use nl2sql_core::result::CancelToken;
use nl2sql_core::service::Host;
use nl2sql_core::service::Workspace;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// What native front ends lend the engine's runs.
#[derive(Default)]
pub struct NativeHost {
    clock: WallClock,
}

impl Host for NativeHost {
    fn transport(&self, cancel: &CancelToken) -> Box<dyn HttpTransport> {
        // A run tied to a flag another thread sets (a server's) gives up its requests as
        // soon as that flag is set, without waiting for the engine's next check.
        let flag = cancel
            .tied_flag()
            .unwrap_or_else(|| Arc::new(AtomicBool::new(false)));
        let set = Arc::clone(&flag);
        cancel.on_cancel(move || set.store(true, Ordering::SeqCst));
        Box::new(BlockingTransport::cancelled_by(flag))
    }

    fn clock(&self) -> &dyn Clock {
        &self.clock
    }

    fn scratch(&self) -> Option<Box<dyn Scratch>> {
        Some(Box::new(MemoryScratch))
    }

    fn sleep(&self) -> Option<&dyn Sleep> {
        Some(&ThreadSleep)
    }
}

/// The three demo databases in `data`, read and indexed, with their verified queries and
/// `policies`.
pub fn demo_workspace(data: &Path, policies: Policies) -> Result<Workspace, Error> {
    Sources::Demo(data.to_path_buf()).workspace(policies)
}
