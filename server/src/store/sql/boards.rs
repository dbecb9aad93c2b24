//! Boards: create, read, list, edit, rotate the owner token, delete; their files, audit log, interval cache and competition
//! settings.

use std::collections::HashMap;

use super::conn::{
    Conn, Param, file_ref, lock_board, params, put_audit, put_blobs, query_one, query_opt,
};
use crate::store::{
    AuditRow, Blob, BoardEdit, BoardRow, BoardSummary, IntervalRow, StoreError, json_text,
    parse_json,
};

pub(crate) async fn create_board<C: Conn>(
    c: &mut C,
    board: BoardRow,
    blobs: Vec<Blob>,
    audit: AuditRow,
) -> Result<(), StoreError> {
    let metrics = json_text(&board.metrics);
    let inserted = c
        .execute(
            "INSERT INTO lb_board (slug, title, description, benchmark, variant,
                primary_metric, metrics_json, owner_token_sha256, created_ms, updated_ms,
                competition_json, description_html)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
             ON CONFLICT (slug) DO NOTHING",
            params![
                &board.slug,
                &board.title,
                &board.description,
                &board.benchmark,
                &board.variant,
                &board.primary_metric,
                &metrics,
                &board.owner_token_sha256,
                board.created_ms,
                board.updated_ms,
                &board.competition,
                &board.description_html,
            ],
        )
        .await?;
    if inserted == 0 {
        return Err(StoreError::Conflict(format!(
            "a board `{}` exists already",
            board.slug
        )));
    }
    put_blobs(c, blobs).await?;
    for (i, f) in board.gold.iter().enumerate() {
        c.execute(
            "INSERT INTO lb_board_file (slug, position, name, role, sha256)
             VALUES ($1, $2, $3, $4, $5)",
            params![&board.slug, i as i64, &f.name, &f.role, &f.sha256],
        )
        .await?;
    }
    put_audit(c, &board.slug, &audit).await
}

pub(crate) async fn board<C: Conn>(c: &mut C, slug: &str) -> Result<Option<BoardRow>, StoreError> {
    let Some(mut r) = query_opt(
        c,
        "SELECT slug, title, description, benchmark, variant, primary_metric,
            metrics_json, owner_token_sha256, created_ms, updated_ms, competition_json,
            description_html
         FROM lb_board WHERE slug = $1",
        params![slug],
    )
    .await?
    else {
        return Ok(None);
    };
    let gold = c
        .query(
            "SELECT f.position, f.name, f.role, f.sha256, b.size_bytes
             FROM lb_board_file f JOIN lb_blob b ON b.sha256 = f.sha256
             WHERE f.slug = $1 ORDER BY f.position",
            params![slug],
        )
        .await?
        .into_iter()
        .map(|row| file_ref(row).map(|(_, f)| f))
        .collect::<Result<_, _>>()?;
    Ok(Some(BoardRow {
        slug: r.text(0)?,
        title: r.text(1)?,
        description: r.text(2)?,
        benchmark: r.text(3)?,
        variant: r.text(4)?,
        primary_metric: r.text(5)?,
        metrics: parse_json(&r.text(6)?),
        gold,
        owner_token_sha256: r.text(7)?,
        created_ms: r.int(8)?,
        updated_ms: r.int(9)?,
        competition: r.opt_text(10)?,
        description_html: r.opt_text(11)?,
    }))
}

pub(crate) async fn boards<C: Conn>(c: &mut C) -> Result<Vec<BoardSummary>, StoreError> {
    c.query(
        "SELECT b.slug, b.title, b.benchmark, b.created_ms,
            (SELECT count(*) FROM lb_entry e WHERE e.slug = b.slug AND e.state = 'visible')
         FROM lb_board b ORDER BY b.created_ms DESC, b.slug",
        params![],
    )
    .await?
    .into_iter()
    .map(|mut r| {
        Ok(BoardSummary {
            slug: r.text(0)?,
            title: r.text(1)?,
            benchmark: r.text(2)?,
            created_ms: r.int(3)?,
            entries: r.int(4)?,
        })
    })
    .collect()
}

pub(crate) async fn edit_board<C: Conn>(
    c: &mut C,
    slug: &str,
    edit: BoardEdit,
    audit: AuditRow,
) -> Result<(), StoreError> {
    let metrics = json_text(&edit.metrics);
    let n = c
        .execute(
            "UPDATE lb_board SET title = $2, description = $3, primary_metric = $4,
                metrics_json = $5, updated_ms = $6, description_html = $7
             WHERE slug = $1",
            params![
                slug,
                &edit.title,
                &edit.description,
                &edit.primary_metric,
                &metrics,
                audit.at_ms,
                &edit.description_html,
            ],
        )
        .await?;
    if n == 0 {
        return Err(StoreError::NotFound(format!("no board `{slug}`")));
    }
    c.execute("DELETE FROM lb_interval WHERE slug = $1", params![slug])
        .await?;
    put_audit(c, slug, &audit).await
}

/// Replace the owner token's hash; the old token stops working when this commits.
pub(crate) async fn rotate_owner_token<C: Conn>(
    c: &mut C,
    slug: &str,
    owner_token_sha256: String,
    audit: AuditRow,
) -> Result<(), StoreError> {
    let n = c
        .execute(
            "UPDATE lb_board SET owner_token_sha256 = $2, updated_ms = $3 WHERE slug = $1",
            params![slug, &owner_token_sha256, audit.at_ms],
        )
        .await?;
    if n == 0 {
        return Err(StoreError::NotFound(format!("no board `{slug}`")));
    }
    put_audit(c, slug, &audit).await
}

/// Delete a board with its entries, teams, intervals and audit log, and the files nothing
/// else refers to.
pub(crate) async fn delete_board<C: Conn>(c: &mut C, slug: &str) -> Result<(), StoreError> {
    lock_board(c, slug).await?;
    for table in [
        "lb_delivery",
        "lb_webhook",
        "lb_entry_file",
        "lb_interval",
        "lb_entry",
        "lb_board_file",
        "lb_team",
        "lb_audit",
    ] {
        c.execute(
            &format!("DELETE FROM {table} WHERE slug = $1"),
            params![slug],
        )
        .await?;
    }
    let n = c
        .execute("DELETE FROM lb_board WHERE slug = $1", params![slug])
        .await?;
    if n == 0 {
        return Err(StoreError::NotFound(format!("no board `{slug}`")));
    }
    Ok(())
}

pub(crate) async fn board_has_file<C: Conn>(
    c: &mut C,
    slug: &str,
    sha256: &str,
    any_entry: bool,
) -> Result<bool, StoreError> {
    query_one(
        c,
        "SELECT EXISTS (SELECT 1 FROM lb_board_file WHERE slug = $1 AND sha256 = $2)
             OR EXISTS (SELECT 1 FROM lb_entry_file f JOIN lb_entry e
                          ON e.slug = f.slug AND e.id = f.entry_id
                        WHERE f.slug = $1 AND f.sha256 = $2
                          AND ($3 OR e.state = 'visible'))",
        params![slug, sha256, any_entry],
    )
    .await?
    .bool(0)
}

pub(crate) async fn audit<C: Conn>(c: &mut C, slug: &str) -> Result<Vec<AuditRow>, StoreError> {
    c.query(
        "SELECT at_ms, actor, action, entry_id, detail_json FROM lb_audit
         WHERE slug = $1 ORDER BY id",
        params![slug],
    )
    .await?
    .into_iter()
    .map(|mut r| {
        Ok(AuditRow {
            at_ms: r.int(0)?,
            actor: r.text(1)?,
            action: r.text(2)?,
            entry: r.opt_int(3)?,
            detail: serde_json::from_str(&r.text(4)?).unwrap_or(serde_json::Value::Null),
        })
    })
    .collect()
}

pub(crate) async fn intervals<C: Conn>(
    c: &mut C,
    slug: &str,
    leader: i64,
    key: &str,
) -> Result<HashMap<i64, String>, StoreError> {
    c.query(
        "SELECT entry_id, result_json FROM lb_interval
         WHERE slug = $1 AND leader_id = $2 AND key = $3",
        params![slug, leader, key],
    )
    .await?
    .into_iter()
    .map(|mut r| Ok((r.int(0)?, r.text(1)?)))
    .collect()
}

pub(crate) async fn put_intervals<C: Conn>(
    c: &mut C,
    slug: &str,
    mut rows: Vec<IntervalRow>,
) -> Result<(), StoreError> {
    // A fixed row order: two servers caching the same intervals cannot deadlock.
    rows.sort_by_key(|r| r.entry);
    for r in &rows {
        c.execute(
            "INSERT INTO lb_interval (slug, entry_id, leader_id, key, result_json)
             VALUES ($1, $2, $3, $4, $5)
             ON CONFLICT (slug, leader_id, key, entry_id)
             DO UPDATE SET result_json = excluded.result_json",
            params![slug, r.entry, r.leader, &r.key, &r.result_json],
        )
        .await?;
    }
    Ok(())
}

pub(crate) async fn set_competition<C: Conn>(
    c: &mut C,
    slug: &str,
    competition_json: String,
    audit: AuditRow,
) -> Result<(), StoreError> {
    let n = c
        .execute(
            "UPDATE lb_board SET competition_json = $2, updated_ms = $3 WHERE slug = $1",
            params![slug, &competition_json, audit.at_ms],
        )
        .await?;
    if n == 0 {
        return Err(StoreError::NotFound(format!("no board `{slug}`")));
    }
    put_audit(c, slug, &audit).await
}
