//! The store a `--db` argument names: PostgreSQL for a `postgres://` URL, else SQLite.

use std::sync::Arc;

use super::postgres::PgStore;
use super::sqlite::SqliteStore;
use super::{Store, StoreError};

/// A store chosen by `--db`: a `postgres://` or `postgresql://` URL, else a SQLite file path.
pub async fn open(db: &str) -> Result<Arc<dyn Store>, StoreError> {
    if is_postgres_url(db) {
        Ok(Arc::new(PgStore::connect(db).await?))
    } else {
        Ok(Arc::new(SqliteStore::open(std::path::Path::new(db))?))
    }
}

/// Whether `--db` names a PostgreSQL database.
pub fn is_postgres_url(db: &str) -> bool {
    db.starts_with("postgres://") || db.starts_with("postgresql://")
}
