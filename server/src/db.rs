//! The SQLite database: one file (default `./data/scorebench.sqlite3`), migrated on open.
//!
//! Migrations are numbered SQL scripts applied in order inside a transaction; the schema
//! version lives in `PRAGMA user_version`, so reopening an up-to-date file changes nothing.

use std::path::Path;

use rusqlite::Connection;

/// Schema migrations, oldest first. Never edit a released entry: append a new one.
const MIGRATIONS: &[&str] = &[
    // 1: published reports (the leaderboard reads these).
    "CREATE TABLE published_report (
        id            TEXT PRIMARY KEY,
        created_unix  INTEGER NOT NULL,
        benchmark     TEXT NOT NULL,
        model         TEXT NOT NULL,
        report_json   TEXT NOT NULL
    );
    CREATE INDEX published_report_benchmark ON published_report (benchmark, created_unix);",
    // 2: the upstream reply cache (= resume) and benchmark runs with their token use.
    "CREATE TABLE reply_cache (
        key           TEXT PRIMARY KEY,
        upstream      TEXT NOT NULL,
        model         TEXT NOT NULL,
        endpoint      TEXT NOT NULL,
        created_unix  INTEGER NOT NULL,
        reply         BLOB NOT NULL
    );
    CREATE TABLE run (
        id            TEXT PRIMARY KEY,
        created_unix  INTEGER NOT NULL,
        kind          TEXT NOT NULL,
        model         TEXT NOT NULL,
        state         TEXT NOT NULL,
        out_dir       TEXT NOT NULL
    );
    CREATE TABLE run_usage (
        run_id            TEXT NOT NULL,
        role              TEXT NOT NULL,
        upstream_calls    INTEGER NOT NULL,
        cache_hits        INTEGER NOT NULL,
        prompt_tokens     INTEGER NOT NULL,
        completion_tokens INTEGER NOT NULL,
        cost              REAL,
        PRIMARY KEY (run_id, role)
    );",
    // 3: runs kept in the store: how to start one again (`request`: the HTTP body, or the
    // command line's {"cwd", "args"}), who started it, its last error and update. States:
    // running, paused, finished, failed, cancelled, interrupted.
    "ALTER TABLE run ADD COLUMN origin TEXT NOT NULL DEFAULT 'http';
    ALTER TABLE run ADD COLUMN request BLOB;
    ALTER TABLE run ADD COLUMN error TEXT;
    ALTER TABLE run ADD COLUMN updated_unix INTEGER;",
];

/// The schema version this build migrates to.
pub const SCHEMA_VERSION: usize = MIGRATIONS.len();

#[derive(Debug, thiserror::Error)]
pub enum DbError {
    #[error("cannot create the database folder {path}: {source}")]
    CreateDir {
        path: String,
        source: std::io::Error,
    },
    #[error("cannot open the database {path}: {source}")]
    Open {
        path: String,
        source: rusqlite::Error,
    },
    #[error("database {path}: migration {version} failed: {source}")]
    Migrate {
        path: String,
        version: usize,
        source: rusqlite::Error,
    },
    #[error("database {path} has schema version {found}, newer than this scorebench ({known})")]
    TooNew {
        path: String,
        found: usize,
        known: usize,
    },
}

/// Open (creating if needed) and migrate the database at `path`.
pub fn open(path: &Path) -> Result<Connection, DbError> {
    let shown = path.display().to_string();
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|source| DbError::CreateDir {
            path: dir.display().to_string(),
            source,
        })?;
    }
    let mut conn = Connection::open(path).map_err(|source| DbError::Open {
        path: shown.clone(),
        source,
    })?;
    // The leaderboard store writes to the same file from its own connection: wait, don't fail.
    conn.busy_timeout(std::time::Duration::from_secs(30))
        .and_then(|_| conn.pragma_update(None, "journal_mode", "WAL"))
        .and_then(|_| conn.pragma_update(None, "foreign_keys", "ON"))
        .map_err(|source| DbError::Open {
            path: shown.clone(),
            source,
        })?;
    migrate(&mut conn, &shown)?;
    Ok(conn)
}

/// The schema version of an open database.
pub fn schema_version(conn: &Connection) -> rusqlite::Result<usize> {
    conn.query_row("PRAGMA user_version", [], |row| row.get::<_, i64>(0))
        .map(|v| v as usize)
}

fn migrate(conn: &mut Connection, path: &str) -> Result<(), DbError> {
    let err = |version: usize| {
        move |source| DbError::Migrate {
            path: path.to_string(),
            version,
            source,
        }
    };
    let current = schema_version(conn).map_err(err(0))?;
    if current > MIGRATIONS.len() {
        return Err(DbError::TooNew {
            path: path.to_string(),
            found: current,
            known: MIGRATIONS.len(),
        });
    }
    for (index, sql) in MIGRATIONS.iter().enumerate().skip(current) {
        let version = index + 1;
        let tx = conn.transaction().map_err(err(version))?;
        tx.execute_batch(sql).map_err(err(version))?;
        tx.pragma_update(None, "user_version", version as i64)
            .map_err(err(version))?;
        tx.commit().map_err(err(version))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn creates_migrates_and_reopens_a_real_file() {
        let dir = std::env::temp_dir().join(format!("scorebench-db-{}", std::process::id()));
        let path = dir.join("nested/scorebench.sqlite3");
        let _ = std::fs::remove_dir_all(&dir);
        let conn = open(&path).unwrap();
        assert_eq!(schema_version(&conn).unwrap(), MIGRATIONS.len());
        conn.execute(
            "INSERT INTO published_report VALUES ('a', 1, 'sasbench', 'm', '{}')",
            [],
        )
        .unwrap();
        drop(conn);
        let conn = open(&path).unwrap();
        let n: i64 = conn
            .query_row("SELECT count(*) FROM published_report", [], |r| r.get(0))
            .unwrap();
        assert_eq!(
            n, 1,
            "reopening keeps the data and does not re-run migrations"
        );
        drop(conn);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn refuses_a_newer_schema() {
        let dir = std::env::temp_dir().join(format!("scorebench-db-new-{}", std::process::id()));
        let path = dir.join("db.sqlite3");
        let _ = std::fs::remove_dir_all(&dir);
        let conn = open(&path).unwrap();
        conn.pragma_update(None, "user_version", 999).unwrap();
        drop(conn);
        assert!(matches!(
            open(&path),
            Err(DbError::TooNew { found: 999, .. })
        ));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
