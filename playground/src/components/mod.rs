//! The playground's components, one concern each.

mod answer;
mod ask;
mod chart;
mod conversation;
mod datasources;
mod grid;
mod inspect;
mod result;
mod schema;
mod settings;
mod sql;
mod status;
mod timeline;
mod traces;
mod verified;

pub use answer::AnswerCard;
pub use ask::AskPage;
pub use conversation::{Clarify, EarlierTurns, FollowUp, FollowedAs, Judge};
pub use datasources::DatasourcesPage;
pub use grid::RowsView;
pub use inspect::{InspectPage, RetrievalTables, RoutingTables};
pub use result::{Checks, Problems, ResultPanels, SqlBlock};
pub use schema::SchemaPanel;
pub use settings::SettingsPage;
pub use sql::SqlPage;
pub use status::LoadStatus;
pub use timeline::{ErrorLine, Timeline};
pub use traces::TracesPage;
pub use verified::VerifiedPage;
