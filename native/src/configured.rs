//! A datasource as the project file configures it: only the schemas `schemas` lists
//! ([`Datasource::schemas`]) and the tables `include` and `exclude` let through
//! ([`Datasource::shows`]), and every query under the datasource's own limits (its row
//! limit for answers only).
//!
//! Hidden tables are never read (not even their statistics: the database user may not be
//! allowed to) and are left out of the snapshot, so the validator reports them as not found
//! and SQL mode cannot import a query that reads one; foreign keys to them go too. The
//! snapshot keeps the whole database's fingerprint (core's reading does that for any
//! datasource that hides a table), so the per-run schema check compares like with like.

use crate::project::{table_pattern, DatasourceEntry, Limits};
use nl2sql_core::adapter::Structure;
use nl2sql_core::adapter::{
    Datasource, DatasourceError, Dialect, ExecLimits, LocalBoxFuture, ResultFrame,
};
use nl2sql_core::config::Pattern;
use std::rc::Rc;

/// A datasource behind its configuration.
pub struct Configured {
    inner: Rc<dyn Datasource>,
    schemas: Option<Vec<String>>,
    include: Vec<Pattern>,
    exclude: Vec<Pattern>,
    limits: Limits,
}

impl Configured {
    /// `inner` under `entry`'s schemas, table patterns and limits; a pattern that does not
    /// parse is an error (the project file's check refuses it first), as is a schema list
    /// for SQLite, which has one schema.
    pub fn new(inner: Rc<dyn Datasource>, entry: &DatasourceEntry) -> Result<Configured, String> {
        let patterns = |globs: &[String]| -> Result<Vec<Pattern>, String> {
            globs.iter().map(|g| table_pattern(&entry.id, g)).collect()
        };
        if entry.schemas.is_some() && inner.dialect() == Dialect::Sqlite {
            return Err(format!(
                "datasources.{}.schemas: a {} datasource reads one schema; name each other \
                 database as a datasource of its own",
                entry.id,
                inner.dialect()
            ));
        }
        Ok(Configured {
            schemas: entry.schemas.clone(),
            inner,
            include: patterns(&entry.include)?,
            exclude: patterns(&entry.exclude)?,
            limits: entry.limits,
        })
    }

    /// `limits` under the datasource's own: the shorter time limit always, and the lower
    /// row cap for answers (a catalogue of many columns is not five rows).
    fn bounded(&self, limits: ExecLimits) -> ExecLimits {
        let max_rows = match self.limits.row_limit {
            Some(cap) if !limits.reading => limits.max_rows.min(cap),
            _ => limits.max_rows,
        };
        ExecLimits {
            max_rows,
            ..limits.within(self.limits.timeout_ms)
        }
    }
}

impl Datasource for Configured {
    fn id(&self) -> &str {
        self.inner.id()
    }

    fn dialect(&self) -> Dialect {
        self.inner.dialect()
    }

    fn execute<'a>(
        &'a self,
        sql: &'a str,
        limits: ExecLimits,
    ) -> LocalBoxFuture<'a, Result<ResultFrame, DatasourceError>> {
        self.inner.execute(sql, self.bounded(limits))
    }

    fn shows(&self, table: &str) -> bool {
        let id = self.inner.id();
        (self.include.is_empty() || self.include.iter().any(|p| p.covers(id, table)))
            && !self.exclude.iter().any(|p| p.covers(id, table))
    }

    fn schemas(&self) -> Option<&[String]> {
        self.schemas.as_deref()
    }

    fn catalogue(&self) -> LocalBoxFuture<'_, Result<Option<Structure>, DatasourceError>> {
        self.inner.catalogue()
    }
}
