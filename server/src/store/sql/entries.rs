//! Entries: the limits an insert must respect, insert with the board's next number, read, edit,
//! delete (and the files nothing uses any more).

use std::collections::{BTreeMap, HashMap, HashSet};

use super::conn::{
    Conn, Param, Row, file_ref, lock_board, params, put_audit, put_blobs, query_one, query_opt,
};
use crate::store::{
    AuditRow, Blob, EntryRow, FileRef, Limits, State, StoreError, StoredReport, anonymous_error,
    anonymous_sql, board_bytes_sql, bytes_error, json_text, parse_json, quota_error, quota_sql,
};

pub(crate) const ENTRY_COLUMNS: &str = "id, model, meta_json, status, state, metrics_json, scorer_json, \
                             entry_token_sha256, created_ms, updated_ms, team, reason, attempts, \
                             completions, scores_json, chosen";

pub(crate) fn entry_row(mut r: Row) -> Result<EntryRow, StoreError> {
    Ok(EntryRow {
        id: r.int(0)?,
        model: r.text(1)?,
        meta: parse_json(&r.text(2)?),
        status: r.status(3)?,
        state: r.state(4)?,
        files: Vec::new(),
        metrics_json: r.text(5)?,
        scorer_json: r.text(6)?,
        entry_token_sha256: r.opt_text(7)?,
        created_ms: r.int(8)?,
        updated_ms: r.int(9)?,
        team: r.opt_text(10)?,
        reason: r.opt_text(11)?,
        attempts: r.int(12)?,
        completions: r.int(13)?,
        scores_json: r.opt_text(14)?,
        chosen: r.bool(15)?,
    })
}

/// Refuse a write when one of `limits` is used up. With `lock` (the insert's own check) the
/// board's row is locked first where rows can be, so the counts of concurrent submissions from
/// any server cannot be stale; the early, read-only check does not wait behind it.
pub(crate) async fn check_limits_in<C: Conn>(
    c: &mut C,
    slug: &str,
    limits: &Limits,
    blobs: &[Blob],
    lock: bool,
) -> Result<(), StoreError> {
    if limits.is_empty() {
        return Ok(());
    }
    if lock {
        lock_board(c, slug).await?;
    }
    if let Some(q) = &limits.quota {
        let (sql, key) = quota_sql(q);
        let mut r = query_one(c, &sql, params![slug, &key, q.since_ms]).await?;
        if let Some(e) = quota_error(q, r.int(0)?, r.int(1)?) {
            return Err(e);
        }
    }
    if let Some(a) = &limits.anonymous {
        let mut r = query_one(c, anonymous_sql(), params![slug, &a.client, a.since_ms]).await?;
        if let Some(e) = anonymous_error(a, r.int(0)?, r.int(1)?) {
            return Err(e);
        }
    }
    if let Some(cap) = limits.max_board_bytes {
        let held = query_one(c, board_bytes_sql(), params![slug])
            .await?
            .int(0)?;
        let mut new = 0i64;
        let mut seen = HashSet::new();
        for blob in blobs.iter().filter(|b| seen.insert(b.sha256.as_str())) {
            let known = query_one(
                c,
                "SELECT EXISTS (SELECT 1 FROM lb_entry_file WHERE slug = $1 AND sha256 = $2)
                    OR EXISTS (SELECT 1 FROM lb_board_file WHERE slug = $1 AND sha256 = $2)",
                params![slug, &blob.sha256],
            )
            .await?
            .bool(0)?;
            if !known {
                new += blob.size_bytes;
            }
        }
        if let Some(e) = bytes_error(cap, held, new) {
            return Err(e);
        }
    }
    Ok(())
}

/// Insert an entry with the board's next number (shared by `add_entry` and `add_submission`);
/// `submitter` is the anonymous client's hash, for the hourly limits. The board row's update
/// gives concurrent submissions distinct numbers.
pub(crate) async fn insert_entry<C: Conn>(
    c: &mut C,
    slug: &str,
    entry: &EntryRow,
    report: Option<Blob>,
    mut blobs: Vec<Blob>,
    submitter: Option<&str>,
    audit: &mut AuditRow,
) -> Result<i64, StoreError> {
    let Some(mut row) = query_opt(
        c,
        "UPDATE lb_board SET next_entry = next_entry + 1 WHERE slug = $1
         RETURNING next_entry",
        params![slug],
    )
    .await?
    else {
        return Err(StoreError::NotFound(format!("no board `{slug}`")));
    };
    let id = row.int(0)?;
    let report_sha256 = report.as_ref().map(|b| b.sha256.clone());
    blobs.extend(report);
    put_blobs(c, blobs).await?;
    let meta = json_text(&entry.meta);
    c.execute(
        "INSERT INTO lb_entry (slug, id, model, meta_json, status, state, metrics_json,
            report_sha256, scorer_json, entry_token_sha256, created_ms, updated_ms, team, chosen,
            submitter)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)",
        params![
            slug,
            id,
            &entry.model,
            &meta,
            entry.status,
            entry.state,
            &entry.metrics_json,
            &report_sha256,
            &entry.scorer_json,
            &entry.entry_token_sha256,
            entry.created_ms,
            entry.updated_ms,
            &entry.team,
            entry.chosen,
            submitter,
        ],
    )
    .await?;
    for (i, f) in entry.files.iter().enumerate() {
        c.execute(
            "INSERT INTO lb_entry_file (slug, entry_id, position, name, role, sha256)
             VALUES ($1, $2, $3, $4, $5, $6)",
            params![slug, id, i as i64, &f.name, &f.role, &f.sha256],
        )
        .await?;
    }
    audit.entry = Some(id);
    put_audit(c, slug, audit).await?;
    Ok(id)
}

pub(crate) async fn add_entry<C: Conn>(
    c: &mut C,
    slug: &str,
    entry: EntryRow,
    report: Option<Blob>,
    blobs: Vec<Blob>,
    limits: Limits,
    mut audit: AuditRow,
) -> Result<i64, StoreError> {
    check_limits_in(c, slug, &limits, &blobs, true).await?;
    insert_entry(c, slug, &entry, report, blobs, limits.client(), &mut audit).await
}

pub(crate) async fn entries<C: Conn>(c: &mut C, slug: &str) -> Result<Vec<EntryRow>, StoreError> {
    let mut entries: Vec<EntryRow> = c
        .query(
            &format!("SELECT {ENTRY_COLUMNS} FROM lb_entry WHERE slug = $1 ORDER BY id"),
            params![slug],
        )
        .await?
        .into_iter()
        .map(entry_row)
        .collect::<Result<_, _>>()?;
    let mut by_id: HashMap<i64, Vec<FileRef>> = HashMap::new();
    for row in c
        .query(
            "SELECT f.entry_id, f.name, f.role, f.sha256, b.size_bytes
             FROM lb_entry_file f JOIN lb_blob b ON b.sha256 = f.sha256
             WHERE f.slug = $1 ORDER BY f.entry_id, f.position",
            params![slug],
        )
        .await?
    {
        let (id, f) = file_ref(row)?;
        by_id.entry(id).or_default().push(f);
    }
    for e in &mut entries {
        e.files = by_id.remove(&e.id).unwrap_or_default();
    }
    Ok(entries)
}

pub(crate) async fn entry<C: Conn>(
    c: &mut C,
    slug: &str,
    id: i64,
) -> Result<Option<EntryRow>, StoreError> {
    let Some(row) = query_opt(
        c,
        &format!("SELECT {ENTRY_COLUMNS} FROM lb_entry WHERE slug = $1 AND id = $2"),
        params![slug, id],
    )
    .await?
    else {
        return Ok(None);
    };
    let mut entry = entry_row(row)?;
    entry.files = c
        .query(
            "SELECT f.entry_id, f.name, f.role, f.sha256, b.size_bytes
             FROM lb_entry_file f JOIN lb_blob b ON b.sha256 = f.sha256
             WHERE f.slug = $1 AND f.entry_id = $2 ORDER BY f.position",
            params![slug, id],
        )
        .await?
        .into_iter()
        .map(|r| file_ref(r).map(|(_, f)| f))
        .collect::<Result<_, _>>()?;
    Ok(Some(entry))
}

pub(crate) async fn entry_report<C: Conn>(
    c: &mut C,
    slug: &str,
    id: i64,
) -> Result<Option<StoredReport>, StoreError> {
    let Some(mut r) = query_opt(
        c,
        "SELECT report_sha256, report_json FROM lb_entry WHERE slug = $1 AND id = $2",
        params![slug, id],
    )
    .await?
    else {
        return Ok(None);
    };
    Ok(match (r.opt_text(0)?, r.opt_text(1)?) {
        (Some(sha256), _) => Some(StoredReport::File(sha256)),
        (None, Some(text)) => Some(StoredReport::Text(text)),
        (None, None) => None,
    })
}

pub(crate) async fn update_entry<C: Conn>(
    c: &mut C,
    slug: &str,
    id: i64,
    model: String,
    meta: BTreeMap<String, String>,
    state: State,
    audit: AuditRow,
) -> Result<(), StoreError> {
    let meta = json_text(&meta);
    let n = c
        .execute(
            "UPDATE lb_entry SET model = $3, meta_json = $4, state = $5, updated_ms = $6
             WHERE slug = $1 AND id = $2",
            params![slug, id, &model, &meta, state, audit.at_ms],
        )
        .await?;
    if n == 0 {
        return Err(StoreError::NotFound(format!("no entry {id} on `{slug}`")));
    }
    put_audit(c, slug, &audit).await
}

pub(crate) async fn delete_entry<C: Conn>(
    c: &mut C,
    slug: &str,
    id: i64,
    audit: AuditRow,
) -> Result<(), StoreError> {
    // Lock the board row first, as add_entry does.
    lock_board(c, slug).await?;
    c.execute(
        "DELETE FROM lb_entry_file WHERE slug = $1 AND entry_id = $2",
        params![slug, id],
    )
    .await?;
    let n = c
        .execute(
            "DELETE FROM lb_entry WHERE slug = $1 AND id = $2",
            params![slug, id],
        )
        .await?;
    if n == 0 {
        return Err(StoreError::NotFound(format!("no entry {id} on `{slug}`")));
    }
    c.execute(
        "DELETE FROM lb_interval WHERE slug = $1 AND entry_id = $2",
        params![slug, id],
    )
    .await?;
    put_audit(c, slug, &audit).await
}

pub(crate) async fn check_limits<C: Conn>(
    c: &mut C,
    slug: &str,
    limits: Limits,
) -> Result<(), StoreError> {
    check_limits_in(c, slug, &limits, &[], false).await
}
