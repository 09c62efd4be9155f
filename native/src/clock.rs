//! The engine's clock on a native machine.

use nl2sql_core::index::Clock;
use std::time::Instant;

/// Milliseconds since the clock was made, from the monotonic clock.
#[derive(Debug, Clone, Copy)]
pub struct WallClock(Instant);

impl WallClock {
    /// A clock reading 0 now.
    pub fn start() -> WallClock {
        WallClock(Instant::now())
    }
}

impl Default for WallClock {
    fn default() -> WallClock {
        WallClock::start()
    }
}

impl Clock for WallClock {
    fn now_ms(&self) -> u64 {
        u64::try_from(self.0.elapsed().as_millis()).unwrap_or(u64::MAX)
    }
}
