//! The conversation around the latest answer: its earlier turns stacked above it, what the
//! engine asks back as buttons, Right/Wrong under the answer, and the follow-up box.

mod clarify;
mod follow_up;
mod followed;
mod judge;
mod turns;

pub use clarify::Clarify;
pub use follow_up::FollowUp;
pub use followed::FollowedAs;
pub use judge::Judge;
pub use turns::EarlierTurns;
