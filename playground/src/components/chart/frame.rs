//! The plotting area of a line or scatter chart and its value axis.

use super::marks::Mark;
use super::text::{compact, CHAR, W};

pub struct Frame {
    pub left: f64,
    top: f64,
    pub bottom: f64,
    lo: f64,
    hi: f64,
}

impl Frame {
    /// A frame `height` high, for values from `lo` to `hi`, leaving `below` under it for
    /// the other axis.
    pub fn new(height: f64, (lo, hi): (f64, f64), below: f64) -> Frame {
        let ticks = [compact(lo), compact(hi)];
        let widest = ticks.iter().map(|t| t.chars().count()).max().unwrap_or(1);
        Frame {
            left: widest as f64 * CHAR + 10.0,
            top: 24.0,
            bottom: height - below,
            lo,
            hi: if hi > lo { hi } else { lo + 1.0 },
        }
    }

    pub fn width(&self) -> f64 {
        W - self.left - 8.0
    }

    /// Where value `v` is drawn, down the view box.
    pub fn y(&self, v: f64) -> f64 {
        self.bottom - (v - self.lo) / (self.hi - self.lo) * (self.bottom - self.top)
    }

    /// The value axis: lowest, middle and highest value, with faint rules.
    pub fn y_axis(&self) -> Vec<Mark> {
        [self.lo, (self.lo + self.hi) / 2.0, self.hi]
            .into_iter()
            .flat_map(|v| {
                let y = self.y(v);
                [
                    Mark::Rule {
                        from: (self.left, y),
                        to: (W - 8.0, y),
                        class: "chart-rule",
                    },
                    Mark::Text {
                        at: (self.left - 4.0, y + 4.0),
                        class: "chart-label",
                        anchor: Some("end"),
                        text: compact(v),
                    },
                ]
            })
            .collect()
    }
}
