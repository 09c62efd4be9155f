//! The playground's components, one concern each, grouped by page.

mod answer;
mod ask;
mod chart;
mod conversation;
mod datasources;
mod inspect;
mod result;
mod role;
mod rows;
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
pub use inspect::{InspectPage, RetrievalTables, RoutingTables};
pub use result::{Checks, PlanText, Problems, ResultPanels, SqlBlock};
pub use role::RolePicker;
pub use rows::RowsView;
pub use schema::SchemaPanel;
pub use settings::SettingsPage;
pub use sql::SqlPage;
pub use status::LoadStatus;
pub use timeline::{ErrorLine, Timeline};
pub use traces::TracesPage;
pub use verified::VerifiedPage;
