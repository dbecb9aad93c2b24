//! Private share links: ciphertext in, out, deleted, purged when expired.

use super::conn::{Conn, Param, params, query_opt};
use crate::store::{ShareInfo, ShareRow, StoreError};

pub(crate) async fn put_share<C: Conn>(c: &mut C, share: ShareRow) -> Result<(), StoreError> {
    let n = c
        .execute(
            "INSERT INTO shares (id, bytes, size_bytes, created_ms, expires_ms,
                 delete_token_sha256)
             VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (id) DO NOTHING",
            params![
                &share.id,
                &share.bytes,
                share.bytes.len() as i64,
                share.created_ms,
                share.expires_ms,
                &share.delete_token_sha256,
            ],
        )
        .await?;
    if n == 0 {
        return Err(StoreError::Conflict(format!(
            "a share `{}` exists already",
            share.id
        )));
    }
    Ok(())
}

pub(crate) async fn share<C: Conn>(c: &mut C, id: &str) -> Result<Option<ShareRow>, StoreError> {
    query_opt(
        c,
        "SELECT id, bytes, created_ms, expires_ms, delete_token_sha256
         FROM shares WHERE id = $1",
        params![id],
    )
    .await?
    .map(|mut r| {
        Ok(ShareRow {
            id: r.text(0)?,
            bytes: r.bytes(1)?,
            created_ms: r.int(2)?,
            expires_ms: r.int(3)?,
            delete_token_sha256: r.text(4)?,
        })
    })
    .transpose()
}

pub(crate) async fn share_info<C: Conn>(
    c: &mut C,
    id: &str,
) -> Result<Option<ShareInfo>, StoreError> {
    query_opt(
        c,
        "SELECT id, size_bytes, created_ms, expires_ms, delete_token_sha256
         FROM shares WHERE id = $1",
        params![id],
    )
    .await?
    .map(|mut r| {
        Ok(ShareInfo {
            id: r.text(0)?,
            size_bytes: r.int(1)?,
            created_ms: r.int(2)?,
            expires_ms: r.int(3)?,
            delete_token_sha256: r.text(4)?,
        })
    })
    .transpose()
}

pub(crate) async fn delete_share<C: Conn>(c: &mut C, id: &str) -> Result<bool, StoreError> {
    Ok(c.execute("DELETE FROM shares WHERE id = $1", params![id])
        .await?
        > 0)
}

pub(crate) async fn purge_shares<C: Conn>(c: &mut C, now_ms: i64) -> Result<u64, StoreError> {
    c.execute("DELETE FROM shares WHERE expires_ms <= $1", params![now_ms])
        .await
}
