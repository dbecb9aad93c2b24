//! The server's own keys: the seed of the Ed25519 key that signs entry receipts.

use super::conn::{Conn, Param, params, query_opt};
use crate::store::StoreError;

/// The stored receipt key's seed, `fresh` stored first when there is none.
pub(crate) async fn signing_key<C: Conn>(
    c: &mut C,
    fresh: [u8; 32],
    now_ms: i64,
) -> Result<[u8; 32], StoreError> {
    c.execute(
        "INSERT INTO lb_key (name, secret, created_ms) VALUES ('receipts', $1, $2)
         ON CONFLICT (name) DO NOTHING",
        params![&fresh.to_vec(), now_ms],
    )
    .await?;
    let mut row = query_opt(
        c,
        "SELECT secret FROM lb_key WHERE name = 'receipts'",
        params![],
    )
    .await?
    .ok_or_else(|| StoreError::Backend("the receipt key was not stored".into()))?;
    let bytes = row.bytes(0)?;
    bytes
        .try_into()
        .map_err(|b: Vec<u8>| StoreError::Backend(format!("the receipt key has {} bytes", b.len())))
}
