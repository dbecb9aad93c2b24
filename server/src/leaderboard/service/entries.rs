//! Entries: submit, view, hide/restore/withdraw/delete, edit.

use std::collections::BTreeMap;

use indexmap::IndexMap;
use serde_json::{Value, json};

use super::teams::shares_of;
use super::{Boards, audit, scorer, stored_files, stored_report, who};
use crate::files::{FileStream, NewFile};
use crate::leaderboard::competition::Competition;
use crate::leaderboard::dates::{iso8601, now_ms};
use crate::leaderboard::error::{LbError, internal};
use crate::leaderboard::input::{
    Actor, EditEntry, EntryAction, Submit, check_meta, check_text, uploads,
};
use crate::leaderboard::limits::{Client, HOUR_MS};
use crate::leaderboard::scoring::{self};
use crate::leaderboard::token;
use crate::leaderboard::views::{file_out, report_table};
use crate::store::{BoardRow, EntryRow, State, Status};
use bytes::Bytes;
use metrics_core::Report;
use tokio::sync::OwnedSemaphorePermit;
use workbench::wire::EntryDetail;

impl Boards {
    /// Score and store an entry; returns (entry id, entry token, report without samples).
    pub async fn submit(
        &self,
        slug: &str,
        req: Submit,
        sender: Client,
        body: OwnedSemaphorePermit,
    ) -> Result<(i64, String, Report), LbError> {
        check_text("model", &req.model, 200, true)?;
        let mut req = req;
        let meta = check_meta(std::mem::take(&mut req.meta))?;
        let board = self.board(slug).await?;
        if board.competition.is_some() {
            return Err(LbError::BadRequest(format!(
                "`{slug}` is a competition: its submissions are queued (send them with a team \
                 token)"
            )));
        }
        if req.files.is_empty() {
            return Err(LbError::BadRequest("no prediction files".into()));
        }
        // Refused before the scoring's CPU is spent when a limit is used up already (checked
        // again with the insert, where it is race-free).
        let refusals = sender.key(slug);
        let limits = self.anonymous_limits(refusals.clone());
        self.store.check_limits(slug, limits.clone()).await?;
        let refused = self.refused.count(&refusals, now_ms() - HOUR_MS);
        if refused >= self.limits.per_client_hour {
            return Err(LbError::Quota(format!(
                "this client address has had {refused} submissions to this board refused in the \
                 last hour, the most it may (the server's --anon-submits-per-hour): try again later"
            )));
        }
        // Counted as refused until it is stored: a client that hangs up while its files are
        // scored (the work goes on) has spent one too.
        let attempt = now_ms();
        self.refused.add(&refusals, attempt);
        let outcome = match self.resolve_named(slug, &mut req.files).await {
            Ok(_named) => {
                self.score_and_store(slug, &board, req, meta, limits, body)
                    .await
            }
            Err(e) => Err(e),
        };
        if outcome.is_ok() {
            self.refused.remove(&refusals, attempt);
        }
        outcome
    }

    /// [`Boards::submit`] after its checks: score, compare with the client's numbers, store.
    async fn score_and_store(
        &self,
        slug: &str,
        board: &BoardRow,
        req: Submit,
        meta: BTreeMap<String, String>,
        limits: crate::store::Limits,
        body: OwnedSemaphorePermit,
    ) -> Result<(i64, String, Report), LbError> {
        let gold = self.gold_files(board).await?;
        let (benchmark, variant) = (board.benchmark.clone(), board.variant.clone());
        let max_samples = self.limits.max_entry_samples;
        let files_in = req.files;
        // The scoring slot and the body's budget go with the work, so a client that hangs up
        // frees them only when the work is done; held here until the entry is stored.
        let slot = self.scoring_slot().await.map_err(internal)?;
        let (scored, _held) = tokio::task::spawn_blocking(move || {
            let work = || {
                let bench = scoring::benchmark(&benchmark)?;
                let variant = scoring::variant(bench, &variant)?;
                let files = scoring::with_roles(bench, uploads(files_in)?, false)?;
                let scored =
                    scoring::score_entry_limited(bench, variant, &gold, &files, max_samples)?;
                Ok::<_, LbError>((files, scored))
            };
            (work(), (slot, body))
        })
        .await
        .map_err(internal)?;
        let (files, scored) = scored?;
        let report = scored.report;
        if let Some(client) = &req.client_report {
            // Each file the server read, against the client's hash of the file it names the same
            // (a dropped file's hash may still be pending: ""; its gold may carry other names:
            // the numbers then tell).
            let mut differences: Vec<scoring::Difference> = Vec::new();
            for ours in &report.inputs {
                let theirs = client
                    .inputs
                    .iter()
                    .find(|i| i.path == ours.path && !i.sha256.is_empty());
                if let Some(theirs) = theirs.filter(|t| t.sha256 != ours.sha256) {
                    differences.push(scoring::Difference {
                        at: format!("inputs[{}].sha256", ours.path),
                        server: ours.sha256.clone().into(),
                        other: theirs.sha256.clone().into(),
                    });
                }
            }
            differences.extend(scoring::metric_differences(&report, client));
            if !differences.is_empty() {
                return Err(LbError::Mismatch {
                    message: format!(
                        "the client's numbers or input hashes differ from the server's in {} value(s), first {}",
                        differences.len(),
                        differences[0].at
                    ),
                    differences,
                });
            }
        }
        let entry_token = token::new_token(token::ENTRY_PREFIX).map_err(internal)?;
        let (refs, mut writing) = stored_files(&files);
        let now = now_ms();
        let metrics = scoring::overall_scalars(&report);
        let row = EntryRow {
            meta,
            files: refs,
            metrics_json: crate::store::json_text(&metrics),
            scorer_json: scorer().to_string(),
            entry_token_sha256: Some(token::hash(&entry_token)),
            ..EntryRow::new(req.model.clone(), Status::Verified, now)
        };
        let detail = json!({
            "model": req.model,
            "inputs": report.inputs,
            "primary": metrics.get(&board.primary_metric).copied().flatten(),
        });
        let report_json = serde_json::to_vec(&report).map_err(internal)?;
        writing.push(NewFile::of(Bytes::from(report_json)));
        let held = self.write_files(writing).await?;
        let (blobs, report_blob) = held.blobs.split_at(held.blobs.len() - 1);
        let added = self
            .store
            .add_entry(
                slug,
                row,
                report_blob.first().cloned(),
                blobs.to_vec(),
                limits,
                audit("public", "submit", None, detail),
            )
            .await;
        self.release(held, added.is_ok()).await;
        let id = added?;
        let mut shown = report;
        shown.samples = None;
        Ok((id, entry_token, shown))
    }

    /// The receipts of a board's visible verified entries, as its entries' JSON carries them
    /// (the JSON export adds them, so a receipt survives export); none on a competition board.
    pub async fn receipts(&self, slug: &str) -> Result<Vec<workbench::receipt::Receipt>, LbError> {
        let board = self.board(slug).await?;
        if board.competition.is_some() {
            return Ok(Vec::new());
        }
        let seed = self.signing_seed().await?;
        let gold: Vec<_> = board.gold.iter().map(|f| file_out(slug, f)).collect();
        Ok(self
            .store
            .entries(slug)
            .await?
            .into_iter()
            .filter(|e| e.status == Status::Verified && e.state == State::Visible)
            .map(|e| {
                let metrics = crate::store::parse_json(&e.metrics_json);
                receipt(&seed, &entry_detail(&board, e, metrics, gold.clone(), None))
            })
            .collect())
    }

    /// One entry with its full report (`samples` only when asked).
    ///
    /// A competition entry: visible to everyone once scored, with the metrics of the phase
    /// (public share while open, every item once closed); its report (per-item results hold
    /// the hidden gold) only for the owner; its queue status for the owner, its team and its
    /// entry token.
    pub async fn entry(
        &self,
        slug: &str,
        id: i64,
        samples: bool,
        token: Option<&str>,
    ) -> Result<EntryDetail, LbError> {
        let board = self.board(slug).await?;
        let comp = Competition::parse(board.competition.as_deref());
        if let Some(c) = &comp {
            return self.competition_entry(&board, c, id, samples, token).await;
        }
        // Hidden and withdrawn entries: the owner sees them (as on the board), and so does the
        // entry's own token; anyone else gets 404.
        let owner = token.is_some_and(|t| token::matches(t, &board.owner_token_sha256));
        let e = self
            .store
            .entry(slug, id)
            .await?
            .filter(|e| {
                e.state == State::Visible
                    || owner
                    || matches!((token, &e.entry_token_sha256),
                        (Some(t), Some(h)) if token::matches(t, h))
            })
            .ok_or_else(|| LbError::NotFound(format!("no entry {id} on `{slug}`")))?;
        let report: Option<Value> = match self.report_text(slug, id).await? {
            Some(text) => Some(stored_report(&text, samples).map_err(internal)?),
            None => None,
        };
        let metrics = crate::store::parse_json(&e.metrics_json);
        let gold = board.gold.iter().map(|f| file_out(slug, f)).collect();
        let state = e.state;
        let mut detail = EntryDetail {
            state: Some(state),
            ..entry_detail(&board, e, metrics, gold, report)
        };
        if detail.status == Status::Verified {
            let seed = self.signing_seed().await?;
            detail.receipt = Some(receipt(&seed, &detail));
        }
        Ok(detail)
    }

    async fn competition_entry(
        &self,
        board: &BoardRow,
        c: &Competition,
        id: i64,
        samples: bool,
        token: Option<&str>,
    ) -> Result<EntryDetail, LbError> {
        let slug = &board.slug;
        let not_found = || LbError::NotFound(format!("no entry {id} on `{slug}`"));
        let privileged = match token {
            Some(_) => match self.team_entry(slug, id, token).await {
                Ok((_, _, actor)) => Some(actor),
                Err(LbError::Forbidden(_)) => None,
                Err(e) => return Err(e),
            },
            None => None,
        };
        let e = self
            .store
            .entry(slug, id)
            .await?
            .filter(|e| {
                privileged.is_some() || (e.state == State::Visible && e.status == Status::Done)
            })
            .ok_or_else(not_found)?;
        let owner = privileged == Some("owner");
        let shares = shares_of(&e);
        let closed = c.closed_ms.is_some();
        let metrics = if e.status != Status::Done {
            IndexMap::new()
        } else if closed {
            crate::store::parse_json(&e.metrics_json)
        } else {
            shares.public.clone()
        };
        let report: Option<Value> = if owner {
            match self.report_text(slug, id).await? {
                Some(text) => Some(stored_report(&text, samples).map_err(internal)?),
                None => None,
            }
        } else {
            None
        };
        let done = e.status == Status::Done;
        let public_metrics = Some(done.then(|| shares.public.clone()));
        let private_metrics = Some((done && (closed || owner)).then(|| shares.private.clone()));
        let (team, reason) = (e.team.clone(), e.reason.clone());
        let queue = (e.attempts, e.completions, e.chosen);
        Ok(EntryDetail {
            team: Some(team),
            metrics_on: Some(if closed { "all items" } else { "public share" }.into()),
            public_metrics,
            private_metrics,
            hidden_gold: Some(true),
            // For the owner, the entry's team and its token: where it is in the queue.
            reason: privileged.map(|_| reason),
            attempts: privileged.map(|_| queue.0),
            completions: privileged.map(|_| queue.1),
            chosen: privileged.map(|_| queue.2),
            ..entry_detail(board, e, metrics, Vec::new(), report)
        })
    }

    /// A file of the board (gold or an entry's), by SHA-256. A competition's gold is never
    /// served; its entries' files only to the owner.
    pub async fn file(
        &self,
        slug: &str,
        sha256: &str,
        token: Option<&str>,
    ) -> Result<FileStream, LbError> {
        let board = self.board(slug).await?;
        if board.competition.is_some() {
            let owner = token.is_some_and(|t| token::matches(t, &board.owner_token_sha256));
            let gold = board.gold.iter().any(|f| f.sha256 == sha256);
            if gold || !owner {
                return Err(LbError::NotFound(
                    "no such file (a competition's files are not served)".into(),
                ));
            }
        }
        // The gold and the files of visible entries are public; a hidden or withdrawn entry's
        // files only for the owner (unless a visible entry has the same file).
        let owner = token.is_some_and(|t| token::matches(t, &board.owner_token_sha256));
        if !self.store.board_has_file(slug, sha256, owner).await? {
            return Err(LbError::NotFound(format!("no file {sha256} on `{slug}`")));
        }
        if let Some(stream) = self.files.stream(sha256).await? {
            return Ok(stream);
        }
        // Bytes of an older version not moved yet.
        let bytes = Bytes::from(self.blob(sha256).await?);
        Ok(FileStream {
            size: bytes.len() as u64,
            stream: Box::pin(futures_util::stream::once(async move { Ok(bytes) })),
        })
    }

    /// Hide, restore, withdraw or remove an entry with the owner or the entry token.
    pub async fn entry_action(
        &self,
        slug: &str,
        id: i64,
        token: Option<&str>,
        action: EntryAction,
    ) -> Result<&'static str, LbError> {
        let board = self.board(slug).await?;
        let e = self
            .store
            .entry(slug, id)
            .await?
            .ok_or_else(|| LbError::NotFound(format!("no entry {id} on `{slug}`")))?;
        let actor = who(&board, &e, token)?;
        if Competition::parse(board.competition.as_deref()).is_some_and(|c| c.closed_ms.is_some()) {
            return Err(LbError::Conflict(format!(
                "the phase of `{slug}` is closed: the ranking is final"
            )));
        }
        let (next, verb) = match (action, actor) {
            // Withdrawal is the submitter's decision: the owner can neither hide (and then
            // restore) a withdrawn entry nor undo it.
            (EntryAction::Hide, Actor::Owner) if e.state == State::Withdrawn => {
                return Err(LbError::Conflict(format!(
                    "entry {id} was withdrawn by its submitter; only they can undo that"
                )));
            }
            (EntryAction::Hide, Actor::Owner) => (State::Hidden, "hide"),
            (EntryAction::Restore, Actor::Owner) if e.state == State::Hidden => {
                (State::Visible, "restore")
            }
            (EntryAction::Restore, Actor::Owner) => {
                return Err(LbError::Conflict(format!(
                    "entry {id} is {}, only a hidden entry can be restored",
                    e.state
                )));
            }
            (EntryAction::Withdraw | EntryAction::Remove, Actor::Entry) => {
                (State::Withdrawn, "withdraw")
            }
            (EntryAction::Remove, Actor::Owner) => {
                self.store
                    .delete_entry(
                        slug,
                        id,
                        audit(
                            "owner",
                            "delete",
                            Some(id),
                            json!({"model": e.model, "inputs": e.files.iter().map(|f| &f.sha256).collect::<Vec<_>>()}),
                        ),
                    )
                    .await?;
                self.collect_files().await;
                return Ok("deleted");
            }
            (_, actor) => {
                return Err(LbError::Forbidden(format!(
                    "the {} token cannot {action:?} entry {id}",
                    actor.name()
                )));
            }
        };
        self.store
            .update_entry(
                slug,
                id,
                e.model.clone(),
                e.meta.clone(),
                next,
                audit(
                    actor.name(),
                    verb,
                    Some(id),
                    json!({"state": {"from": e.state, "to": next}}),
                ),
            )
            .await?;
        Ok(next.as_str())
    }

    /// Edit an entry's model name and metadata (entry token).
    pub async fn edit_entry(
        &self,
        slug: &str,
        id: i64,
        token: Option<&str>,
        edit: EditEntry,
    ) -> Result<(), LbError> {
        let board = self.board(slug).await?;
        let e = self
            .store
            .entry(slug, id)
            .await?
            .ok_or_else(|| LbError::NotFound(format!("no entry {id} on `{slug}`")))?;
        if who(&board, &e, token)? != Actor::Entry {
            return Err(LbError::Forbidden(format!(
                "only the entry token of entry {id} edits its metadata"
            )));
        }
        let model = edit.model.unwrap_or_else(|| e.model.clone());
        check_text("model", &model, 200, true)?;
        let meta = match edit.meta {
            Some(m) => check_meta(m.into_iter().filter(|(_, v)| !v.is_empty()).collect())?,
            None => e.meta.clone(),
        };
        let detail = json!({
            "model": {"from": e.model, "to": model},
            "meta": {"from": e.meta, "to": meta},
        });
        self.store
            .update_entry(
                slug,
                id,
                model,
                meta,
                e.state,
                audit("entry", "edit", Some(id), detail),
            )
            .await?;
        Ok(())
    }
}

/// The signed receipt of a verified entry as the API shows it.
fn receipt<R>(seed: &[u8; 32], detail: &EntryDetail<R>) -> workbench::receipt::Receipt {
    workbench::receipt::sign(seed, detail.signed())
}

/// The fields every entry's detail has; a competition's and the open board's add theirs.
fn entry_detail(
    board: &BoardRow,
    e: EntryRow,
    metrics: IndexMap<String, Option<f64>>,
    gold: Vec<workbench::wire::FileOut>,
    report: Option<Value>,
) -> EntryDetail {
    let slug = &board.slug;
    EntryDetail {
        board: board.slug.clone(),
        benchmark: board.benchmark.clone(),
        variant: board.variant.clone(),
        entry: e.id,
        inputs: e.files.iter().map(|f| file_out(slug, f)).collect(),
        gold,
        submitted: iso8601(e.created_ms),
        scorer: serde_json::from_str::<Value>(&e.scorer_json).unwrap_or(Value::Null),
        table: report_table(report.as_ref()),
        report,
        model: e.model,
        meta: e.meta,
        status: e.status,
        state: None,
        metrics,
        team: None,
        metrics_on: None,
        public_metrics: None,
        private_metrics: None,
        hidden_gold: None,
        reason: None,
        attempts: None,
        completions: None,
        chosen: None,
        receipt: None,
    }
}
