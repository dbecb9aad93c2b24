//! Webhooks (issue 27): a board's hooks, the deliveries of its events, claims with a lease (so
//! servers sharing a store deliver each attempt once), and each attempt's outcome — the
//! delivery log.

use super::conn::{Conn, Param, Row, params, put_audit, query_opt};
use crate::store::{Attempt, AuditRow, DeliveryRow, DueDelivery, StoreError, WebhookRow};

pub(crate) async fn add_webhook<C: Conn>(
    c: &mut C,
    hook: WebhookRow,
    leaders: String,
    audit: AuditRow,
) -> Result<i64, StoreError> {
    let mut row = query_opt(
        c,
        "INSERT INTO lb_webhook (slug, url, secret, created_ms) VALUES ($1, $2, $3, $4)
         RETURNING id",
        params![&hook.slug, &hook.url, &hook.secret, hook.created_ms],
    )
    .await?
    .ok_or_else(|| StoreError::Backend("the webhook was not stored".into()))?;
    let id = row.int(0)?;
    // Events compare the leading group with this one from now on.
    c.execute(
        "UPDATE lb_board SET leaders = $2 WHERE slug = $1",
        params![&hook.slug, &leaders],
    )
    .await?;
    let mut audit = audit;
    audit.detail["webhook"] = id.into();
    put_audit(c, &hook.slug, &audit).await?;
    Ok(id)
}

fn webhook(mut r: Row) -> Result<WebhookRow, StoreError> {
    Ok(WebhookRow {
        id: r.int(0)?,
        slug: r.text(1)?,
        url: r.text(2)?,
        secret: r.text(3)?,
        created_ms: r.int(4)?,
    })
}

pub(crate) async fn webhooks<C: Conn>(
    c: &mut C,
    slug: &str,
) -> Result<Vec<WebhookRow>, StoreError> {
    c.query(
        "SELECT id, slug, url, secret, created_ms FROM lb_webhook WHERE slug = $1 ORDER BY id",
        params![slug],
    )
    .await?
    .into_iter()
    .map(webhook)
    .collect()
}

pub(crate) async fn delete_webhook<C: Conn>(
    c: &mut C,
    slug: &str,
    id: i64,
    audit: AuditRow,
) -> Result<bool, StoreError> {
    c.execute("DELETE FROM lb_delivery WHERE hook_id = $1", params![id])
        .await?;
    let n = c
        .execute(
            "DELETE FROM lb_webhook WHERE slug = $1 AND id = $2",
            params![slug, id],
        )
        .await?;
    if n == 1 {
        put_audit(c, slug, &audit).await?;
    }
    Ok(n == 1)
}

/// The leading group last announced (`None`: never).
pub(crate) async fn leaders<C: Conn>(c: &mut C, slug: &str) -> Result<Option<String>, StoreError> {
    match query_opt(
        c,
        "SELECT leaders FROM lb_board WHERE slug = $1",
        params![slug],
    )
    .await?
    {
        Some(mut r) => r.opt_text(0),
        None => Ok(None),
    }
}

/// Queue `events` (name, body) for every hook of `slug`, and remember `leaders` — in one
/// transaction, so an event is queued once however many servers noticed it.
pub(crate) async fn enqueue<C: Conn>(
    c: &mut C,
    slug: &str,
    expected_leaders: Option<String>,
    leaders: String,
    events: Vec<(String, String)>,
    now_ms: i64,
) -> Result<usize, StoreError> {
    // Only the server that moves the marker from what it read queues the leader event.
    let moved = c
        .execute(
            "UPDATE lb_board SET leaders = $2 WHERE slug = $1 AND COALESCE(leaders, '') = COALESCE($3, '')",
            params![slug, &leaders, &expected_leaders],
        )
        .await?;
    let mut queued = 0;
    for (event, body) in events {
        if event == "leader.changed" && moved == 0 {
            continue;
        }
        queued += c
            .execute(
                "INSERT INTO lb_delivery
                    (hook_id, slug, event, body, state, attempts, next_ms, created_ms, updated_ms)
                 SELECT id, slug, $2, $3, 'pending', 0, $4, $4, $4 FROM lb_webhook WHERE slug = $1",
                params![slug, &event, &body, now_ms],
            )
            .await? as usize;
    }
    Ok(queued)
}

/// Claim the oldest due delivery until `lease_until_ms` (a crashed server's claim is taken
/// again once it lapses).
pub(crate) async fn claim_delivery<C: Conn>(
    c: &mut C,
    now_ms: i64,
    lease_until_ms: i64,
) -> Result<Option<DueDelivery>, StoreError> {
    let skip_locked = c.dialect().skip_locked();
    let claimed = query_opt(
        c,
        &format!(
            "UPDATE lb_delivery SET next_ms = $2
             WHERE id = (
                SELECT id FROM lb_delivery WHERE state = 'pending' AND next_ms <= $1
                ORDER BY next_ms, id LIMIT 1{skip_locked})
             RETURNING id, hook_id, event, body, attempts"
        ),
        params![now_ms, lease_until_ms],
    )
    .await?;
    let Some(mut r) = claimed else {
        return Ok(None);
    };
    let (id, hook_id) = (r.int(0)?, r.int(1)?);
    let (event, body, attempts) = (r.text(2)?, r.text(3)?, r.int(4)?);
    let mut hook = query_opt(
        c,
        "SELECT url, secret FROM lb_webhook WHERE id = $1",
        params![hook_id],
    )
    .await?
    .ok_or_else(|| StoreError::Backend(format!("delivery {id} has no webhook")))?;
    Ok(Some(DueDelivery {
        id,
        url: hook.text(0)?,
        secret: hook.text(1)?,
        event,
        body,
        attempts,
    }))
}

/// Record one attempt of delivery `id`.
pub(crate) async fn record_delivery<C: Conn>(
    c: &mut C,
    id: i64,
    attempt: Attempt,
    now_ms: i64,
) -> Result<(), StoreError> {
    let (state, next_ms) = match attempt.retry_at_ms {
        _ if attempt.delivered => ("delivered", now_ms),
        Some(at) => ("pending", at),
        None => ("failed", now_ms),
    };
    c.execute(
        "UPDATE lb_delivery SET state = $2, attempts = attempts + 1, next_ms = $3,
            last_status = $4, last_error = $5, updated_ms = $6
         WHERE id = $1",
        params![id, state, next_ms, attempt.status, &attempt.error, now_ms],
    )
    .await?;
    Ok(())
}

/// A board's latest deliveries, newest first.
pub(crate) async fn deliveries<C: Conn>(
    c: &mut C,
    slug: &str,
    limit: i64,
) -> Result<Vec<DeliveryRow>, StoreError> {
    c.query(
        "SELECT d.id, d.hook_id, w.url, d.event, d.state, d.attempts, d.next_ms, d.last_status,
                d.last_error, d.created_ms, d.updated_ms
         FROM lb_delivery d JOIN lb_webhook w ON w.id = d.hook_id
         WHERE d.slug = $1 ORDER BY d.id DESC LIMIT $2",
        params![slug, limit],
    )
    .await?
    .into_iter()
    .map(|mut r| {
        Ok(DeliveryRow {
            id: r.int(0)?,
            hook_id: r.int(1)?,
            url: r.text(2)?,
            event: r.text(3)?,
            state: r.text(4)?,
            attempts: r.int(5)?,
            next_ms: r.int(6)?,
            last_status: r.opt_int(7)?,
            last_error: r.opt_text(8)?,
            created_ms: r.int(9)?,
            updated_ms: r.int(10)?,
        })
    })
    .collect()
}
