//! The playground's components, one concern each.

mod schema;
mod status;
mod switcher;

pub use schema::SchemaPanel;
pub use status::LoadStatus;
pub use switcher::DatasourceSwitcher;
