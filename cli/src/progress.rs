//! Progress for the long commands (indexing, copying, evaluating), with `indicatif`: a bar
//! when the work is counted, a spinner otherwise, drawn on standard error only when it is a
//! terminal, with the command's own lines printed above it. Elsewhere (a pipe, a script,
//! CI) nothing is drawn and the lines are printed as before.

use indicatif::{ProgressBar, ProgressStyle};
use std::time::Duration;

/// A bar or a spinner, cleared when dropped.
pub struct Progress(ProgressBar);

impl Progress {
    /// `total` steps of `what` ("cases").
    pub fn counted(total: u64, what: &str) -> Progress {
        let bar = ProgressBar::new(total);
        if let Ok(style) =
            ProgressStyle::with_template("{bar:30} {pos}/{len} {msg} ({elapsed}, {eta} left)")
        {
            bar.set_style(style);
        }
        bar.set_message(what.to_string());
        Progress(bar)
    }

    /// Work that is not counted, named `what` ("reading 14 datasources").
    pub fn spinner(what: &str) -> Progress {
        let bar = ProgressBar::new_spinner();
        if let Ok(style) = ProgressStyle::with_template("{spinner} {msg} ({elapsed})") {
            bar.set_style(style);
        }
        bar.set_message(what.to_string());
        bar.enable_steady_tick(Duration::from_millis(120));
        Progress(bar)
    }

    /// One step done.
    pub fn step(&self) {
        self.0.inc(1);
    }

    /// A line on standard error: above the bar on a terminal (which a plain print would
    /// tear), as it is elsewhere.
    pub fn line(&self, text: &str) {
        if self.0.is_hidden() {
            eprintln!("{text}");
        } else {
            self.0.println(text);
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.0.finish_and_clear();
    }
}
