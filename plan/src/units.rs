//! The calendar units of the plan's date functions and of a frame's offsets: plain data,
//! apart from the functions so that the plan's types can name a unit.

use std::fmt;

/// A calendar unit of the portable date functions (and of a `range` frame's offsets).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DateUnit {
    /// Calendar year.
    Year,
    /// Calendar quarter (1–4).
    Quarter,
    /// Calendar month (1–12).
    Month,
    /// Week, starting on Monday.
    Week,
    /// Day.
    Day,
    /// Hour (0–23).
    Hour,
    /// Minute (0–59).
    Minute,
    /// Second (0–59), whole.
    Second,
    /// Day of the week, 0 for Sunday to 6 for Saturday (a part only).
    #[serde(rename = "dow")]
    DayOfWeek,
    /// ISO day of the week, 1 for Monday to 7 for Sunday (a part only).
    #[serde(rename = "isodow")]
    IsoDayOfWeek,
    /// Day of the year, 1–366 (a part only).
    #[serde(rename = "doy")]
    DayOfYear,
    /// Whole seconds since 1970-01-01 00:00:00, the value read as UTC (a part only).
    Epoch,
}

impl DateUnit {
    /// Every unit, in the order messages list them.
    pub const ALL: [DateUnit; 12] = [
        DateUnit::Year,
        DateUnit::Quarter,
        DateUnit::Month,
        DateUnit::Week,
        DateUnit::Day,
        DateUnit::Hour,
        DateUnit::Minute,
        DateUnit::Second,
        DateUnit::DayOfWeek,
        DateUnit::IsoDayOfWeek,
        DateUnit::DayOfYear,
        DateUnit::Epoch,
    ];

    /// The unit's name as plans write it.
    pub fn as_str(self) -> &'static str {
        match self {
            DateUnit::Year => "year",
            DateUnit::Quarter => "quarter",
            DateUnit::Month => "month",
            DateUnit::Week => "week",
            DateUnit::Day => "day",
            DateUnit::Hour => "hour",
            DateUnit::Minute => "minute",
            DateUnit::Second => "second",
            DateUnit::DayOfWeek => "dow",
            DateUnit::IsoDayOfWeek => "isodow",
            DateUnit::DayOfYear => "doy",
            DateUnit::Epoch => "epoch",
        }
    }

    /// Whether the unit is a period a value can be truncated to, moved by or counted in
    /// (the others are parts only).
    pub fn is_period(self) -> bool {
        !matches!(
            self,
            DateUnit::DayOfWeek | DateUnit::IsoDayOfWeek | DateUnit::DayOfYear | DateUnit::Epoch
        )
    }

    /// Whether every one of the unit is as long as every other (weeks and shorter; months
    /// and years vary).
    pub fn is_fixed_length(self) -> bool {
        matches!(
            self,
            DateUnit::Week | DateUnit::Day | DateUnit::Hour | DateUnit::Minute | DateUnit::Second
        )
    }

    /// Whether the unit is shorter than a day, so a value moved by or truncated to it
    /// keeps a time of day.
    pub fn is_time_of_day(self) -> bool {
        matches!(self, DateUnit::Hour | DateUnit::Minute | DateUnit::Second)
    }

    pub(crate) fn parse(text: &str) -> Option<DateUnit> {
        DateUnit::ALL
            .into_iter()
            .find(|u| u.as_str().eq_ignore_ascii_case(text.trim()))
    }
}

impl fmt::Display for DateUnit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
