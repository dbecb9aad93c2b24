//! Competitions: teams, phases, submissions to the scoring queue and the entries that count.

use indexmap::IndexMap;
use serde_json::{Value, json};

use super::{Boards, audit, scorer, stored_files};
use crate::files::{Held, NewFile};
use crate::leaderboard::competition::{self, Competition, Counts};
use crate::leaderboard::dates::{day_start, iso8601, now_ms};
use crate::leaderboard::error::{LbError, internal};
use crate::leaderboard::input::{
    AddTeam, PhaseSettings, Submit, TEAM_PREFIX, apply_settings, check_meta, check_text, uploads,
};
use crate::leaderboard::limits::Client;
use crate::leaderboard::scoring::{self};
use crate::leaderboard::token;
use crate::leaderboard::views::{
    CompetitionInfo, FileOut, SubmissionOut, competition_info, file_out,
};
use crate::store::{BoardRow, EntryRow, Job, JobResult, Quota, Status, Submitter, TeamRow};
use tokio::sync::OwnedSemaphorePermit;
use workbench::wire::Team;

pub(super) fn shares_of(e: &EntryRow) -> competition::ShareScores {
    e.scores_json
        .as_deref()
        .and_then(|t| serde_json::from_str(t).ok())
        .unwrap_or_default()
}

/// The entries that count on a competition board: done ones, one per team (an entry without a
/// team counts alone), chosen by `counts` on the public share; each with the metrics shown now
/// (public share while open, every item once closed).
pub(super) fn counted(board: &BoardRow, c: &Competition, entries: Vec<EntryRow>) -> Vec<EntryRow> {
    let primary = &board.primary_metric;
    let sign = if crate::leaderboard::rank::lower_is_better(&board.benchmark, primary) {
        -1.0
    } else {
        1.0
    };
    let mut best: IndexMap<String, EntryRow> = IndexMap::new();
    for e in entries.into_iter().filter(|e| e.status == Status::Done) {
        let key = e.team.clone().unwrap_or_else(|| format!("#{}", e.id));
        let public = |e: &EntryRow| {
            shares_of(e)
                .public
                .get(primary)
                .copied()
                .flatten()
                .map(|v| sign * v)
        };
        let replace = match best.get(&key) {
            None => true,
            Some(cur) => match c.counts {
                Counts::Latest => true,
                Counts::Chosen => e.chosen || !cur.chosen,
                // Strictly better replaces: ties keep the earlier entry.
                Counts::Best => match (public(&e), public(cur)) {
                    (Some(a), Some(b)) => a > b,
                    (Some(_), None) => true,
                    _ => false,
                },
            },
        };
        if replace {
            best.insert(key, e);
        }
    }
    best.into_values()
        .map(|mut e| {
            if c.closed_ms.is_none() {
                e.metrics_json = crate::store::json_text(&shares_of(&e).public);
            }
            e
        })
        .collect()
}

impl Boards {
    /// The team whose token this is, on a competition board.
    pub(super) async fn team_of(
        &self,
        slug: &str,
        token: Option<&str>,
    ) -> Result<Option<String>, LbError> {
        let Some(t) = token else { return Ok(None) };
        Ok(self
            .store
            .teams(slug)
            .await?
            .into_iter()
            .find(|team| token::matches(t, &team.token_sha256))
            .map(|team| team.name))
    }

    /// Issue a team token (owner); returns it (shown once).
    pub async fn add_team(
        &self,
        slug: &str,
        token: Option<&str>,
        req: AddTeam,
    ) -> Result<String, LbError> {
        let board = self.owned(slug, token).await?;
        if board.competition.is_none() {
            return Err(LbError::BadRequest(format!(
                "`{slug}` is not a competition (create it with hidden gold)"
            )));
        }
        check_text("team name", &req.name, 100, true)?;
        let team_token = token::new_token(TEAM_PREFIX).map_err(internal)?;
        let now = now_ms();
        self.store
            .add_team(
                slug,
                TeamRow {
                    name: req.name.clone(),
                    token_sha256: token::hash(&team_token),
                    created_ms: now,
                },
                audit("owner", "add team", None, json!({"team": req.name})),
            )
            .await?;
        Ok(team_token)
    }

    /// A competition's teams with their submission counts (owner).
    pub async fn teams(&self, slug: &str, token: Option<&str>) -> Result<Vec<Team>, LbError> {
        self.owned(slug, token).await?;
        let entries = self.store.entries(slug).await?;
        Ok(self
            .store
            .teams(slug)
            .await?
            .into_iter()
            .map(|t| {
                let own = entries.iter().filter(|e| e.team.as_ref() == Some(&t.name));
                Team {
                    created: iso8601(t.created_ms),
                    submissions: own.clone().count(),
                    counting: own
                        .filter(|e| e.status != Status::Failed && e.status != Status::Cancelled)
                        .count(),
                    name: t.name,
                }
            })
            .collect())
    }

    /// Change the phase settings or close the phase (owner).
    pub async fn set_phase(
        &self,
        slug: &str,
        token: Option<&str>,
        settings: PhaseSettings,
    ) -> Result<CompetitionInfo, LbError> {
        let board = self.owned(slug, token).await?;
        let Some(mut c) = Competition::parse(board.competition.as_deref()) else {
            return Err(LbError::BadRequest(format!(
                "`{slug}` is not a competition (create it with hidden gold)"
            )));
        };
        if c.closed_ms.is_some() {
            return Err(LbError::Conflict(format!(
                "the phase of `{slug}` is closed: the ranking is final"
            )));
        }
        let before = c.clone();
        let close = settings.close;
        apply_settings(&mut c, settings)?;
        if close {
            let pending = self
                .store
                .entries(slug)
                .await?
                .iter()
                .filter(|e| e.status == Status::Queued || e.status == Status::Scoring)
                .count();
            if pending > 0 {
                return Err(LbError::Conflict(format!(
                    "{pending} submission(s) are still queued or scoring; close when they are done"
                )));
            }
            c.closed_ms = Some(now_ms());
        }
        let detail = json!({"from": before, "to": c});
        self.store
            .set_competition(
                slug,
                crate::store::json_text(&c),
                audit(
                    "owner",
                    if close {
                        "close phase"
                    } else {
                        "phase settings"
                    },
                    None,
                    detail,
                ),
            )
            .await?;
        Ok(competition_info(&c, true))
    }

    /// Queue a submission to a competition board; returns (entry, entry token, team).
    pub async fn submit_competition(
        &self,
        slug: &str,
        token: Option<&str>,
        req: Submit,
        sender: Client,
        body: OwnedSemaphorePermit,
    ) -> Result<(i64, String, Option<String>, Vec<FileOut>), LbError> {
        check_text("model", &req.model, 200, true)?;
        let meta = check_meta(req.meta)?;
        let board = self.board(slug).await?;
        let Some(c) = Competition::parse(board.competition.as_deref()) else {
            return Err(LbError::BadRequest(format!(
                "`{slug}` is not a competition"
            )));
        };
        if req.client_report.is_some() {
            return Err(LbError::BadRequest(
                "a competition's gold is hidden: client numbers cannot be compared".into(),
            ));
        }
        let now = now_ms();
        if let Some(why) = c.window_refusal(now) {
            return Err(LbError::Conflict(why));
        }
        let has_teams = !self.store.teams(slug).await?.is_empty();
        let team = self.team_of(slug, token).await?;
        if has_teams && team.is_none() {
            return Err(LbError::Forbidden(format!(
                "`{slug}` takes submissions with a team token the owner issued \
                 (Authorization: Bearer sbt_…)"
            )));
        }
        if req.files.is_empty() {
            return Err(LbError::BadRequest("no prediction files".into()));
        }
        // The quota counts per team; without teams, per client address, which then also has
        // the anonymous hourly limits. Checked before the files are read, and again with the
        // insert (race-free).
        let limits = match &team {
            Some(t) => crate::store::Limits {
                quota: Some(Quota {
                    who: Submitter::Team(t.clone()),
                    daily: c.daily_quota,
                    total: c.total_quota,
                    since_ms: day_start(now),
                }),
                anonymous: None,
                max_board_bytes: Some(self.limits.max_board_bytes),
            },
            None => {
                let client = sender.key(slug);
                let mut limits = self.anonymous_limits(client.clone());
                limits.quota = Some(Quota {
                    who: Submitter::Client(client),
                    daily: c.daily_quota,
                    total: c.total_quota,
                    since_ms: day_start(now),
                });
                limits
            }
        };
        self.store.check_limits(slug, limits.clone()).await?;
        let benchmark = board.benchmark.clone();
        let mut files_in = req.files;
        let _named = self.resolve_named(slug, &mut files_in).await?;
        let (files, _body) = tokio::task::spawn_blocking(move || {
            let work = || {
                let bench = scoring::benchmark(&benchmark)?;
                Ok::<_, LbError>(scoring::with_roles(bench, uploads(files_in)?, false)?)
            };
            (work(), body)
        })
        .await
        .map_err(internal)?;
        let files = files?;
        let entry_token = token::new_token(token::ENTRY_PREFIX).map_err(internal)?;
        let (refs, writing) = stored_files(&files);
        let inputs: Vec<FileOut> = refs.iter().map(|f| file_out(slug, f)).collect();
        let row = EntryRow {
            meta,
            files: refs,
            scorer_json: scorer().to_string(),
            entry_token_sha256: Some(token::hash(&entry_token)),
            team: team.clone(),
            ..EntryRow::new(req.model.clone(), Status::Queued, now)
        };
        let detail = json!({
            "model": req.model, "team": team,
            "inputs": inputs.iter().map(|f| json!({"name": f.name, "sha256": f.sha256})).collect::<Vec<_>>(),
        });
        let held = self.write_files(writing).await?;
        let added = self
            .store
            .add_submission(
                slug,
                row,
                held.blobs.clone(),
                limits,
                // Who submitted: the team whose token it was, else an anonymous client.
                audit(
                    if team.is_some() { "team" } else { "public" },
                    "submit",
                    None,
                    detail,
                ),
            )
            .await;
        self.release(held, added.is_ok()).await;
        let id = added?;
        self.queue_notify.notify_one();
        Ok((id, entry_token, team, inputs))
    }

    /// Score a claimed job. `Err` only when the store failed (the lease then expires and the
    /// job is retried); a scoring error is a failed result with a reason the team may read.
    /// The report's file is held: commit the result, then [`Boards::release_result`].
    pub async fn score_job(&self, job: &Job) -> Result<(JobResult, Option<Held>), String> {
        let board = self.board(&job.slug).await.map_err(|e| e.to_string())?;
        let c = Competition::parse(board.competition.as_deref()).unwrap_or_default();
        let e = self
            .store
            .entry(&job.slug, job.entry)
            .await
            .map_err(|e| e.to_string())?
            .ok_or_else(|| format!("entry {} of `{}` is gone", job.entry, job.slug))?;
        let gold = self.gold_files(&board).await.map_err(|e| e.to_string())?;
        let files = self.entry_files(&e).await.map_err(|e| e.to_string())?;
        let gold_names: Vec<String> = gold.iter().map(|f| f.name.clone()).collect();
        let (benchmark, variant) = (board.benchmark.clone(), board.variant.clone());
        let max_samples = self.limits.max_entry_samples;
        let slot = self.scoring_slot().await.map_err(|e| e.to_string())?;
        let scored = tokio::task::spawn_blocking(move || {
            let _slot = slot;
            competition::score_competition_entry(
                &benchmark,
                &variant,
                &gold,
                &files,
                &c,
                max_samples,
            )
        })
        .await
        .map_err(|e| e.to_string())?;
        let at_ms = now_ms();
        Ok(match scored {
            Ok((scored, shares)) => {
                let report = scored.report;
                let text = serde_json::to_vec(&report).map_err(|e| e.to_string())?;
                let held = self
                    .write_files(vec![NewFile::of(text.into())])
                    .await
                    .map_err(|e| e.to_string())?;
                let result = JobResult {
                    status: Status::Done,
                    reason: None,
                    metrics_json: crate::store::json_text(&scoring::overall_scalars(&report)),
                    scores_json: Some(competition::scores_json(&shares)),
                    report: held.blobs.first().cloned(),
                    at_ms,
                };
                (result, Some(held))
            }
            Err(e) => (
                JobResult {
                    status: Status::Failed,
                    reason: Some(competition::public_reason(&e.0, &gold_names)),
                    metrics_json: "{}".into(),
                    scores_json: None,
                    report: None,
                    at_ms,
                },
                None,
            ),
        })
    }

    /// After a job's result was `committed` (or refused): the report's hold dropped, and its
    /// file deleted if the result was not the one kept.
    pub async fn release_result(&self, held: Option<Held>, committed: bool) {
        if let Some(held) = held {
            self.release(held, committed).await;
        }
    }

    /// A competition's submissions: all for the owner, the team's own for a team token.
    pub async fn submissions(
        &self,
        slug: &str,
        token: Option<&str>,
    ) -> Result<Vec<SubmissionOut>, LbError> {
        let board = self.board(slug).await?;
        let Some(c) = Competition::parse(board.competition.as_deref()) else {
            return Err(LbError::BadRequest(format!(
                "`{slug}` is not a competition"
            )));
        };
        let owner = token.is_some_and(|t| token::matches(t, &board.owner_token_sha256));
        let team = if owner {
            None
        } else {
            match self.team_of(slug, token).await? {
                Some(t) => Some(t),
                None => {
                    return Err(LbError::Forbidden(format!(
                        "the owner token of `{slug}` or a team token is required"
                    )));
                }
            }
        };
        let entries = self.store.entries(slug).await?;
        // A queued submission's place: 1 + the board's queued ones submitted before it (the
        // queue takes the oldest first).
        let mut queued: Vec<i64> = entries
            .iter()
            .filter(|e| e.status == Status::Queued)
            .map(|e| e.id)
            .collect();
        queued.sort_unstable();
        Ok(entries
            .into_iter()
            .filter(|e| owner || e.team == team)
            .map(|e| {
                let shares = shares_of(&e);
                let done = e.status == Status::Done;
                SubmissionOut {
                    entry: e.id,
                    team: e.team.clone(),
                    model: e.model.clone(),
                    status: e.status,
                    position: queued.binary_search(&e.id).ok().map(|i| i as i64 + 1),
                    reason: e.reason.clone(),
                    attempts: e.attempts,
                    completions: e.completions,
                    chosen: e.chosen,
                    counts_against_quota: e.status != Status::Failed
                        && e.status != Status::Cancelled,
                    public_metrics: done.then(|| shares.public.clone()),
                    private_metrics: (done && (owner || c.closed_ms.is_some()))
                        .then(|| shares.private.clone()),
                    inputs: e.files.iter().map(|f| file_out(slug, f)).collect(),
                    submitted: iso8601(e.created_ms),
                    updated: iso8601(e.updated_ms),
                    scorer: serde_json::from_str(&e.scorer_json).unwrap_or(Value::Null),
                }
            })
            .collect())
    }

    /// The entry when `token` is its team's, its own entry token or the owner's.
    pub(super) async fn team_entry(
        &self,
        slug: &str,
        id: i64,
        token: Option<&str>,
    ) -> Result<(BoardRow, EntryRow, &'static str), LbError> {
        let board = self.board(slug).await?;
        let e = self
            .store
            .entry(slug, id)
            .await?
            .ok_or_else(|| LbError::NotFound(format!("no entry {id} on `{slug}`")))?;
        let t = token.ok_or_else(|| {
            LbError::Forbidden("a token is required (Authorization: Bearer …)".into())
        })?;
        if token::matches(t, &board.owner_token_sha256) {
            return Ok((board, e, "owner"));
        }
        if e.entry_token_sha256
            .as_deref()
            .is_some_and(|h| token::matches(t, h))
        {
            return Ok((board, e, "entry"));
        }
        let team = self.team_of(slug, Some(t)).await?;
        if team.is_some() && team == e.team {
            return Ok((board, e, "team"));
        }
        Err(LbError::Forbidden(format!(
            "this token is not the owner's, the team's or entry {id}'s"
        )))
    }

    /// Cancel a queued submission (team, entry or owner token): it no longer counts against
    /// the quota.
    pub async fn cancel(&self, slug: &str, id: i64, token: Option<&str>) -> Result<(), LbError> {
        let (_, e, actor) = self.team_entry(slug, id, token).await?;
        let job = Job {
            slug: slug.into(),
            entry: id,
        };
        let detail = json!({"status": {"from": e.status, "to": Status::Cancelled}});
        if self
            .store
            .cancel_job(&job, audit(actor, "cancel", Some(id), detail))
            .await?
        {
            Ok(())
        } else {
            Err(LbError::Conflict(format!(
                "entry {id} is {}: only a queued submission can be cancelled",
                e.status
            )))
        }
    }

    /// Make a done entry its team's chosen one (team or entry token).
    pub async fn choose(&self, slug: &str, id: i64, token: Option<&str>) -> Result<(), LbError> {
        let (board, e, actor) = self.team_entry(slug, id, token).await?;
        let c = Competition::parse(board.competition.as_deref()).unwrap_or_default();
        if c.closed_ms.is_some() {
            return Err(LbError::Conflict("the phase is closed".into()));
        }
        let Some(team) = e.team.clone() else {
            return Err(LbError::BadRequest(format!("entry {id} has no team")));
        };
        if e.status != Status::Done {
            return Err(LbError::Conflict(format!(
                "entry {id} is {}: only a scored entry can be chosen",
                e.status
            )));
        }
        self.store
            .choose_entry(
                slug,
                &team,
                id,
                audit(actor, "choose", Some(id), json!({"team": team})),
            )
            .await?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn board_row() -> BoardRow {
        BoardRow {
            slug: "c".into(),
            title: "c".into(),
            description: String::new(),
            benchmark: "eotgc".into(),
            variant: "official".into(),
            primary_metric: "score".into(),
            metrics: vec!["score".into()],
            gold: vec![],
            owner_token_sha256: String::new(),
            created_ms: 0,
            updated_ms: 0,
            competition: Some("{}".into()),
            description_html: None,
        }
    }

    fn done(id: i64, team: Option<&str>, public: f64, status: Status, chosen: bool) -> EntryRow {
        EntryRow {
            id,
            team: team.map(str::to_string),
            chosen,
            metrics_json: json!({"score": 0.5}).to_string(),
            scores_json: Some(
                json!({"public": {"score": public}, "private": {"score": 0.1}}).to_string(),
            ),
            ..EntryRow::new(format!("m{id}"), status, id)
        }
    }

    #[test]
    fn one_entry_per_team_counts_by_the_boards_rule() {
        let entries = || {
            vec![
                done(1, Some("a"), 0.7, Status::Done, false),
                done(2, Some("a"), 0.9, Status::Done, true),
                done(3, Some("a"), 0.9, Status::Done, false),
                done(4, Some("a"), 0.99, Status::Failed, false),
                done(5, Some("a"), 0.6, Status::Done, false),
                done(6, None, 0.2, Status::Done, false),
                done(7, None, 0.3, Status::Queued, false),
            ]
        };
        let ids = |counts: Counts, closed: Option<i64>| {
            let c = Competition {
                counts,
                closed_ms: closed,
                ..Default::default()
            };
            counted(&board_row(), &c, entries())
                .iter()
                .map(|e| (e.id, e.metrics_json.clone()))
                .collect::<Vec<_>>()
        };
        let public = |v: f64| json!({"score": v}).to_string();
        // Best public score, the earlier of equal ones; failed and queued entries never count.
        assert_eq!(
            ids(Counts::Best, None),
            vec![(2, public(0.9)), (6, public(0.2))]
        );
        assert_eq!(ids(Counts::Latest, None)[0].0, 5);
        assert_eq!(ids(Counts::Chosen, None)[0].0, 2);
        // Closed: the metrics on every item.
        assert_eq!(
            ids(Counts::Best, Some(1))[0].1,
            json!({"score": 0.5}).to_string()
        );
    }
}
