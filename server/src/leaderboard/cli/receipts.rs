//! `scorebench leaderboard verify --slug S [--entry ID] --receipt`: each verified entry's signed
//! receipt checked here, offline, against the server's published key
//! (`GET /.well-known/scorebench-key`) and against the entry's listed fields
//! ([`workbench::receipt::check`], the rule the entry page follows too).

use serde_json::Value;
use workbench::receipt::{self, PublicKey};
use workbench::wire::{EntryDetail, Status};

use super::client::{Client, Failure, out};

pub(super) async fn verify(c: &Client, slug: &str, entry: Option<i64>) -> Result<(), Failure> {
    let key: PublicKey = serde_json::from_value(
        c.json(c.http.get(c.url("/.well-known/scorebench-key")))
            .await?,
    )
    .map_err(|e| Failure::Error(format!("the server's public key: {e}")))?;
    let path = format!("/api/v1/leaderboards/{slug}");
    let board = c.json(c.http.get(c.url(&path))).await?;
    let listed: Vec<&Value> = board["entries"]
        .as_array()
        .map(|v| v.iter().collect())
        .unwrap_or_default();
    let ids: Vec<i64> = match entry {
        Some(id) => vec![id],
        None => listed
            .iter()
            .filter(|e| e["status"] == Status::Verified.as_str())
            .filter_map(|e| e["entry"].as_i64())
            .collect(),
    };
    if ids.is_empty() {
        return Err(Failure::Error(format!(
            "`{slug}` has no verified entry: only verified entries carry receipts"
        )));
    }
    let mut problems = Vec::new();
    for id in ids {
        let detail: EntryDetail = serde_json::from_value(
            c.json(c.http.get(c.url(&format!("{path}/entries/{id}"))))
                .await?,
        )
        .map_err(|e| Failure::Error(format!("entry {id}: {e}")))?;
        let Some(r) = &detail.receipt else {
            problems.push(format!(
                "entry {id} ({}): no receipt (status {})",
                detail.model, detail.status
            ));
            continue;
        };
        match receipt::check(r, &key, &detail.signed()) {
            Ok(()) => out(&format!(
                "entry {id} ({}): receipt holds — {} metrics, {} inputs, signed by key {}\n",
                detail.model,
                r.signed.metrics.len(),
                r.signed.inputs.len(),
                r.key_id
            ))?,
            Err(failure) => problems.push(format!(
                "entry {id} ({}): the receipt does not hold:\n  {}",
                detail.model,
                failure
                    .receipt
                    .iter()
                    .chain(&failure.fields)
                    .cloned()
                    .collect::<Vec<_>>()
                    .join("\n  ")
            )),
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(Failure::Differs(problems.join("\n")))
    }
}
