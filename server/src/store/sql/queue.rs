//! Competitions: teams, submissions into the scoring queue, claims with a lease, results
//! committed once, cancel, the chosen entry.

use super::conn::{Conn, Param, params, put_audit, put_blobs, query_opt};
use super::entries::{check_limits_in, insert_entry};
use crate::store::{
    AuditRow, Blob, EntryRow, Job, JobResult, Limits, MAX_ATTEMPTS, StoreError, TeamRow,
};

pub(crate) async fn add_team<C: Conn>(
    c: &mut C,
    slug: &str,
    team: TeamRow,
    audit: AuditRow,
) -> Result<(), StoreError> {
    let n = c
        .execute(
            "INSERT INTO lb_team (slug, name, token_sha256, created_ms)
             VALUES ($1, $2, $3, $4) ON CONFLICT (slug, name) DO NOTHING",
            params![slug, &team.name, &team.token_sha256, team.created_ms],
        )
        .await?;
    if n == 0 {
        return Err(StoreError::Conflict(format!(
            "`{slug}` has a team `{}` already",
            team.name
        )));
    }
    put_audit(c, slug, &audit).await
}

pub(crate) async fn teams<C: Conn>(c: &mut C, slug: &str) -> Result<Vec<TeamRow>, StoreError> {
    c.query(
        "SELECT name, token_sha256, created_ms FROM lb_team WHERE slug = $1
         ORDER BY created_ms, name",
        params![slug],
    )
    .await?
    .into_iter()
    .map(|mut r| {
        Ok(TeamRow {
            name: r.text(0)?,
            token_sha256: r.text(1)?,
            created_ms: r.int(2)?,
        })
    })
    .collect()
}

pub(crate) async fn add_submission<C: Conn>(
    c: &mut C,
    slug: &str,
    entry: EntryRow,
    blobs: Vec<Blob>,
    limits: Limits,
    mut audit: AuditRow,
) -> Result<i64, StoreError> {
    check_limits_in(c, slug, &limits, &blobs, true).await?;
    insert_entry(c, slug, &entry, None, blobs, limits.client(), &mut audit).await
}

pub(crate) async fn claim_job<C: Conn>(
    c: &mut C,
    worker: &str,
    now_ms: i64,
    lease_ms: i64,
) -> Result<Option<Job>, StoreError> {
    let skip_locked = c.dialect().skip_locked();
    // Jobs whose worker died too often fail.
    c.execute(
        &format!(
            "UPDATE lb_entry SET status = 'failed', lease_owner = NULL,
                completions = completions + 1, updated_ms = $1,
                reason = 'the scorer stopped before finishing ' || attempts || ' times'
             WHERE (slug, id) IN (
                SELECT slug, id FROM lb_entry
                WHERE status = 'scoring' AND lease_until_ms < $1 AND attempts >= $2{skip_locked})"
        ),
        params![now_ms, MAX_ATTEMPTS],
    )
    .await?;
    let claimed = query_opt(
        c,
        &format!(
            "UPDATE lb_entry SET status = 'scoring', lease_owner = $1, lease_until_ms = $2,
                attempts = attempts + 1, updated_ms = $3
             WHERE (slug, id) = (
                SELECT slug, id FROM lb_entry
                WHERE status = 'queued' OR (status = 'scoring' AND lease_until_ms < $3)
                ORDER BY created_ms, slug, id LIMIT 1{skip_locked})
             RETURNING slug, id"
        ),
        params![worker, now_ms + lease_ms, now_ms],
    )
    .await?;
    claimed
        .map(|mut r| {
            Ok(Job {
                slug: r.text(0)?,
                entry: r.int(1)?,
            })
        })
        .transpose()
}

pub(crate) async fn renew_lease<C: Conn>(
    c: &mut C,
    job: &Job,
    worker: &str,
    until_ms: i64,
) -> Result<bool, StoreError> {
    let n = c
        .execute(
            "UPDATE lb_entry SET lease_until_ms = $4
             WHERE slug = $1 AND id = $2 AND status = 'scoring' AND lease_owner = $3",
            params![&job.slug, job.entry, worker, until_ms],
        )
        .await?;
    Ok(n == 1)
}

pub(crate) async fn finish_job<C: Conn>(
    c: &mut C,
    job: &Job,
    worker: &str,
    result: JobResult,
) -> Result<bool, StoreError> {
    put_blobs(c, result.report.iter().cloned().collect()).await?;
    let n = c
        .execute(
            "UPDATE lb_entry SET status = $4, reason = $5, metrics_json = $6,
                scores_json = $7, report_sha256 = $8, updated_ms = $9, lease_owner = NULL,
                completions = completions + 1
             WHERE slug = $1 AND id = $2 AND status = 'scoring' AND lease_owner = $3",
            params![
                &job.slug,
                job.entry,
                worker,
                result.status,
                &result.reason,
                &result.metrics_json,
                &result.scores_json,
                result.report.as_ref().map(|b| b.sha256.as_str()),
                result.at_ms,
            ],
        )
        .await?;
    Ok(n == 1)
}

pub(crate) async fn cancel_job<C: Conn>(
    c: &mut C,
    job: &Job,
    audit: AuditRow,
) -> Result<bool, StoreError> {
    let n = c
        .execute(
            "UPDATE lb_entry SET status = 'cancelled', updated_ms = $3
             WHERE slug = $1 AND id = $2 AND status = 'queued'",
            params![&job.slug, job.entry, audit.at_ms],
        )
        .await?;
    if n == 1 {
        put_audit(c, &job.slug, &audit).await?;
    }
    Ok(n == 1)
}

pub(crate) async fn choose_entry<C: Conn>(
    c: &mut C,
    slug: &str,
    team: &str,
    entry: i64,
    audit: AuditRow,
) -> Result<(), StoreError> {
    c.execute(
        "UPDATE lb_entry SET chosen = (id = $3) WHERE slug = $1 AND team = $2",
        params![slug, team, entry],
    )
    .await?;
    put_audit(c, slug, &audit).await
}
