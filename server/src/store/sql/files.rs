//! The file store's bookkeeping (issue 29): which files exist (`lb_blob`, a row per SHA-256,
//! its bytes in [`crate::files::Files`]), who is writing one (`lb_blob_hold`), and the two
//! steps of deleting one nothing refers to; and the move of an old database's bytes out.
//!
//! Why holds and a mark, and not one transaction: a file's object is written before the
//! transaction that refers to it, and deleted after the one that found it unreferenced, so a
//! writer and a collector of the same content (two submissions of one file, on two servers)
//! must be ordered. A writer first holds the row (a transaction that upserts it and adds a
//! hold, refused while a collector's mark is fresh), then writes the object, then commits its
//! references, then drops its hold. A collector marks a row that has no reference and no live
//! hold, deletes the object, and deletes the row only if its mark is still there. So an object
//! is deleted only while nobody holds its row, and a writer writes only while it holds it.

use super::conn::{Conn, Param, params, query_opt};
use crate::store::{Blob, StoreError, sorted_blobs};

/// A collector's mark older than this is taken to be of a dead collector: far longer than a
/// delete may take (`crate::files::DELETE_TIMEOUT`), with room for servers' clocks to differ.
pub const STALE_MARK_MS: i64 = 300_000;

/// The rows nothing refers to (`$1`: now): no file of a board or entry, no report, no live hold.
const UNREFERENCED: &str =
    "NOT EXISTS (SELECT 1 FROM lb_entry_file f WHERE f.sha256 = lb_blob.sha256)
    AND NOT EXISTS (SELECT 1 FROM lb_board_file f WHERE f.sha256 = lb_blob.sha256)
    AND NOT EXISTS (SELECT 1 FROM lb_entry e WHERE e.report_sha256 = lb_blob.sha256)
    AND NOT EXISTS (SELECT 1 FROM lb_blob_hold h
                    WHERE h.sha256 = lb_blob.sha256 AND h.until_ms > $1)";

/// Hold `blobs` for `holder` until `until_ms`: their rows exist afterwards and no collector
/// deletes them while the hold lasts. False when a collector is deleting one now (try again
/// shortly; holds already taken stay, under the same holder).
pub(crate) async fn hold_blobs<C: Conn>(
    c: &mut C,
    holder: &str,
    blobs: Vec<Blob>,
    now_ms: i64,
    until_ms: i64,
) -> Result<bool, StoreError> {
    for b in sorted_blobs(blobs) {
        // The upsert locks the row (PostgreSQL), so a collector's mark is read after its
        // transaction ended.
        let mut row = query_opt(
            c,
            "INSERT INTO lb_blob (sha256, size_bytes, legacy_bytes, in_files) VALUES ($1, $2, $3, $4)
             ON CONFLICT (sha256) DO UPDATE SET size_bytes = excluded.size_bytes
             RETURNING sweep_ms",
            params![&b.sha256, b.size_bytes, Param::Bytes(&[]), true],
        )
        .await?
        .ok_or_else(|| StoreError::Backend("an upsert returned no row".into()))?;
        if let Some(mark) = row.opt_int(0)? {
            if mark > now_ms - STALE_MARK_MS {
                return Ok(false);
            }
            // Its collector died: the row is the writer's again.
            c.execute(
                "UPDATE lb_blob SET sweep_ms = NULL WHERE sha256 = $1",
                params![&b.sha256],
            )
            .await?;
        }
        c.execute(
            "INSERT INTO lb_blob_hold (sha256, holder, until_ms) VALUES ($1, $2, $3)
             ON CONFLICT (sha256, holder) DO UPDATE SET until_ms = excluded.until_ms",
            params![&b.sha256, holder, until_ms],
        )
        .await?;
    }
    Ok(true)
}

/// Delete the holds that expired before `now_ms` (of writers that died, and uploads no
/// submission named): how many.
pub(crate) async fn purge_holds<C: Conn>(c: &mut C, now_ms: i64) -> Result<u64, StoreError> {
    c.execute(
        "DELETE FROM lb_blob_hold WHERE until_ms <= $1",
        params![now_ms],
    )
    .await
}

pub(crate) async fn release_holds<C: Conn>(c: &mut C, holder: &str) -> Result<(), StoreError> {
    c.execute(
        "DELETE FROM lb_blob_hold WHERE holder = $1",
        params![holder],
    )
    .await?;
    Ok(())
}

/// Whether a holder whose name starts with `prefix` holds `sha256` now (an upload to a board
/// not yet named by a submission: `crate::files::upload_holder`).
pub(crate) async fn held<C: Conn>(
    c: &mut C,
    sha256: &str,
    prefix: &str,
    now_ms: i64,
) -> Result<bool, StoreError> {
    Ok(c.query(
        "SELECT 1 FROM lb_blob_hold
         WHERE sha256 = $1 AND substr(holder, 1, length($2)) = $2 AND until_ms > $3",
        params![sha256, prefix, now_ms],
    )
    .await?
    .into_iter()
    .next()
    .is_some())
}

/// Up to `limit` rows a collector may delete now.
pub(crate) async fn unreferenced_blobs<C: Conn>(
    c: &mut C,
    now_ms: i64,
    limit: i64,
) -> Result<Vec<String>, StoreError> {
    c.query(
        &format!(
            "SELECT sha256 FROM lb_blob
             WHERE (sweep_ms IS NULL OR sweep_ms < $2) AND {UNREFERENCED}
             ORDER BY sha256 LIMIT $3"
        ),
        params![now_ms, now_ms - STALE_MARK_MS, limit],
    )
    .await?
    .into_iter()
    .map(|mut r| r.text(0))
    .collect()
}

/// Mark `sha256` as being deleted at `now_ms` if nothing refers to it and nobody holds it.
pub(crate) async fn mark_sweep<C: Conn>(
    c: &mut C,
    sha256: &str,
    now_ms: i64,
) -> Result<bool, StoreError> {
    if let Some(lock) = c.dialect().lock_blob() {
        c.execute(lock, params![sha256]).await?;
    }
    let n = c
        .execute(
            &format!(
                "UPDATE lb_blob SET sweep_ms = $1
                 WHERE sha256 = $2 AND (sweep_ms IS NULL OR sweep_ms < $3) AND {UNREFERENCED}"
            ),
            params![now_ms, sha256, now_ms - STALE_MARK_MS],
        )
        .await?;
    Ok(n == 1)
}

/// Delete the row of a file whose object is gone, if the mark made at `mark_ms` is still
/// there (a writer that took the row over cleared it); its expired holds go too.
pub(crate) async fn end_sweep<C: Conn>(
    c: &mut C,
    sha256: &str,
    mark_ms: i64,
) -> Result<bool, StoreError> {
    let n = c
        .execute(
            "DELETE FROM lb_blob WHERE sha256 = $1 AND sweep_ms = $2",
            params![sha256, mark_ms],
        )
        .await?;
    if n == 1 {
        c.execute(
            "DELETE FROM lb_blob_hold WHERE sha256 = $1",
            params![sha256],
        )
        .await?;
    }
    Ok(n == 1)
}

/// Up to `limit` files whose bytes are still in the database (written before issue 29).
pub(crate) async fn legacy_blobs<C: Conn>(
    c: &mut C,
    limit: i64,
) -> Result<Vec<String>, StoreError> {
    c.query(
        "SELECT sha256 FROM lb_blob WHERE in_files = $1 ORDER BY sha256 LIMIT $2",
        params![false, limit],
    )
    .await?
    .into_iter()
    .map(|mut r| r.text(0))
    .collect()
}

/// The bytes of a file still in the database (`None`: there is no such row, or its bytes moved).
pub(crate) async fn legacy_blob<C: Conn>(
    c: &mut C,
    sha256: &str,
) -> Result<Option<Vec<u8>>, StoreError> {
    match query_opt(
        c,
        "SELECT legacy_bytes FROM lb_blob WHERE sha256 = $1 AND in_files = $2",
        params![sha256, false],
    )
    .await?
    {
        Some(mut r) => r.bytes(0).map(Some),
        None => Ok(None),
    }
}

/// The file's bytes are in the file store now: the database drops its copy.
pub(crate) async fn blob_moved<C: Conn>(c: &mut C, sha256: &str) -> Result<(), StoreError> {
    c.execute(
        "UPDATE lb_blob SET in_files = $2, legacy_bytes = $3 WHERE sha256 = $1",
        params![sha256, true, Param::Bytes(&[])],
    )
    .await?;
    Ok(())
}

/// Up to `limit` entries whose report is still in the database: (slug, id).
pub(crate) async fn legacy_reports<C: Conn>(
    c: &mut C,
    limit: i64,
) -> Result<Vec<(String, i64)>, StoreError> {
    c.query(
        "SELECT slug, id FROM lb_entry WHERE report_json IS NOT NULL
         ORDER BY slug, id LIMIT $1",
        params![limit],
    )
    .await?
    .into_iter()
    .map(|mut r| Ok((r.text(0)?, r.int(1)?)))
    .collect()
}

/// The bytes the board's distinct files take.
pub(crate) async fn board_bytes<C: Conn>(c: &mut C, slug: &str) -> Result<i64, StoreError> {
    super::conn::query_one(c, crate::store::board_bytes_sql(), params![slug])
        .await?
        .int(0)
}

/// An entry's report still in the database.
pub(crate) async fn legacy_report<C: Conn>(
    c: &mut C,
    slug: &str,
    id: i64,
) -> Result<Option<String>, StoreError> {
    match query_opt(
        c,
        "SELECT report_json FROM lb_entry WHERE slug = $1 AND id = $2",
        params![slug, id],
    )
    .await?
    {
        Some(mut r) => r.opt_text(0),
        None => Ok(None),
    }
}

/// The bytes held by uploads to the board `prefix` names (`crate::files::upload_holder`) that
/// no submission named yet, now.
pub(crate) async fn held_upload_bytes<C: Conn>(
    c: &mut C,
    prefix: &str,
    now_ms: i64,
) -> Result<i64, StoreError> {
    let mut row = super::conn::query_one(
        c,
        "SELECT CAST(coalesce(sum(b.size_bytes), 0) AS BIGINT) FROM lb_blob b
         WHERE b.sha256 IN (SELECT h.sha256 FROM lb_blob_hold h
                            WHERE substr(h.holder, 1, length($1)) = $1 AND h.until_ms > $2)",
        params![prefix, now_ms],
    )
    .await?;
    row.int(0)
}

/// The entry's report is the file `sha256` now (held by the caller, so its row exists).
pub(crate) async fn report_moved<C: Conn>(
    c: &mut C,
    slug: &str,
    id: i64,
    sha256: &str,
) -> Result<(), StoreError> {
    c.execute(
        "UPDATE lb_entry SET report_sha256 = $3, report_json = NULL WHERE slug = $1 AND id = $2",
        params![slug, id, sha256],
    )
    .await?;
    Ok(())
}
