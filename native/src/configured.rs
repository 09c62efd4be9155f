//! A datasource as the project file configures it: only the tables `include` and
//! `exclude` let through, and every query under the datasource's own limits.
//!
//! Hidden tables are never read (not even their statistics: the database user may not be
//! allowed to) and are left out of the snapshot, so the validator reports them as not found
//! and SQL mode cannot import a query that reads one; foreign keys to them go too. The
//! snapshot keeps the whole database's fingerprint, so the per-run schema check compares
//! like with like (a change to a hidden table still counts as a change).

use crate::project::{table_pattern, DatasourceEntry, Limits};
use nl2sql_core::introspect::Structure;
use nl2sql_core::policy::Pattern;
use nl2sql_core::{
    Datasource, DatasourceError, Dialect, ExecLimits, LocalBoxFuture, ResultFrame, SchemaSnapshot,
};
use std::rc::Rc;

/// A datasource behind its configuration.
pub struct Configured {
    inner: Rc<dyn Datasource>,
    include: Vec<Pattern>,
    exclude: Vec<Pattern>,
    limits: Limits,
}

impl Configured {
    /// `inner` under `entry`'s table patterns and limits; a pattern that does not parse is
    /// an error (the project file's check refuses it first).
    pub fn new(inner: Rc<dyn Datasource>, entry: &DatasourceEntry) -> Result<Configured, String> {
        let patterns = |globs: &[String]| -> Result<Vec<Pattern>, String> {
            globs.iter().map(|g| table_pattern(&entry.id, g)).collect()
        };
        Ok(Configured {
            inner,
            include: patterns(&entry.include)?,
            exclude: patterns(&entry.exclude)?,
            limits: entry.limits,
        })
    }

    fn shows(&self, table: &str) -> bool {
        let id = self.inner.id();
        (self.include.is_empty() || self.include.iter().any(|p| p.covers(id, table)))
            && !self.exclude.iter().any(|p| p.covers(id, table))
    }

    /// `limits` under the datasource's own: the lower row cap and the shorter time limit.
    fn bounded(&self, limits: ExecLimits) -> ExecLimits {
        ExecLimits {
            max_rows: self
                .limits
                .row_limit
                .map_or(limits.max_rows, |cap| limits.max_rows.min(cap)),
            ..limits.within(self.limits.timeout_ms)
        }
    }
}

/// The datasource as its catalogue reads see it: under its time limit, but not its row
/// limit, which is for answers (a catalogue of many columns is not five rows).
struct Reading<'a> {
    inner: &'a dyn Datasource,
    timeout_ms: Option<u64>,
}

impl Datasource for Reading<'_> {
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
        self.inner.execute(sql, limits.within(self.timeout_ms))
    }

    fn introspect(&self) -> LocalBoxFuture<'_, Result<SchemaSnapshot, DatasourceError>> {
        Box::pin(async move {
            match self.dialect() {
                Dialect::Sqlite => nl2sql_core::sqlite::introspect(self).await,
                _ => nl2sql_core::introspect::introspect(self).await,
            }
        })
    }

    fn catalogue(&self) -> LocalBoxFuture<'_, Result<Option<Structure>, DatasourceError>> {
        self.inner.catalogue()
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

    fn introspect(&self) -> LocalBoxFuture<'_, Result<SchemaSnapshot, DatasourceError>> {
        Box::pin(async move {
            let keep = |table: &str| self.shows(table);
            let reading = Reading {
                inner: &*self.inner,
                timeout_ms: self.limits.timeout_ms,
            };
            let mut snapshot = match reading.dialect() {
                Dialect::Sqlite => nl2sql_core::sqlite::introspect_only(&reading, &keep).await?,
                _ => nl2sql_core::introspect::introspect_only(&reading, &keep).await?,
            };
            // The whole database's fingerprint, as the per-run check reads it.
            let whole = self.fingerprint().await?;
            snapshot.version = format!("v{}", whole.get(..8).unwrap_or(&whole));
            snapshot.fingerprint = whole;
            Ok(snapshot)
        })
    }

    fn fingerprint(&self) -> LocalBoxFuture<'_, Result<String, DatasourceError>> {
        Box::pin(async move {
            let reading = Reading {
                inner: &*self.inner,
                timeout_ms: self.limits.timeout_ms,
            };
            match reading.dialect() {
                Dialect::Sqlite => nl2sql_core::sqlite::fingerprint(&reading).await,
                _ => nl2sql_core::introspect::fingerprint(&reading).await,
            }
        })
    }

    fn catalogue(&self) -> LocalBoxFuture<'_, Result<Option<Structure>, DatasourceError>> {
        self.inner.catalogue()
    }
}
