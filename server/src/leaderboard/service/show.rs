//! The ranked board, its rank ranges and the background bootstrap that fills them.

use std::collections::HashMap;
use std::sync::Arc;

use indexmap::IndexMap;
use serde_json::Value;

use super::teams::{counted, shares_of};
use super::{BOOTSTRAP_BATCH, Boards, interval_key};
use crate::leaderboard::competition::Competition;
use crate::leaderboard::dates::iso8601;
use crate::leaderboard::error::{LbError, internal};
use crate::leaderboard::rank::{self, Candidate, Spread};
use crate::leaderboard::scoring::{self, LeaderInterval, ScoringError};
use crate::leaderboard::token;
use crate::leaderboard::views::{BoardView, BootstrapInfo, EntryOut, board_info_for, file_out};
use crate::store::{BoardRow, EntryRow, IntervalRow, State, Status};

impl Boards {
    /// The ranked board: visible entries, or every entry for the owner.
    pub async fn show(
        self: &Arc<Self>,
        slug: &str,
        owner_token: Option<&str>,
    ) -> Result<BoardView, LbError> {
        let board = self.board(slug).await?;
        let include_all = owner_token.is_some_and(|t| token::matches(t, &board.owner_token_sha256));
        let entries: Vec<EntryRow> = self
            .store
            .entries(slug)
            .await?
            .into_iter()
            .filter(|e| include_all || e.state == State::Visible)
            .collect();
        let comp = Competition::parse(board.competition.as_deref());
        let entries = match &comp {
            Some(c) => counted(&board, c, entries),
            None => entries,
        };
        let Ranking {
            metrics,
            candidates,
            ranked,
            leader,
            lower,
        } = ranking(&board, &entries);
        let primary = board.primary_metric.clone();
        let intervals = match leader {
            Some(l) => {
                let have = self.cached_intervals(&board, entries[l].id).await?;
                if !missing(&entries, &ranked, l, &have).is_empty() {
                    self.spawn_bootstrap(board.slug.clone());
                }
                have
            }
            None => Default::default(),
        };
        let sign = if lower { -1.0 } else { 1.0 };
        let leader_value = leader.and_then(|l| candidates[l].value);
        let spreads: Vec<Option<Spread>> = ranked
            .iter()
            .map(|&(i, r)| {
                r?;
                if Some(i) == leader {
                    return Some(Spread {
                        low: 0.0,
                        high: 0.0,
                        computed: true,
                    });
                }
                if let Some(iv) = intervals.get(&entries[i].id)
                    && let (Some(lo), Some(hi)) = (iv.low, iv.high)
                {
                    let (lo, hi) = (sign * lo, sign * hi);
                    return Some(Spread {
                        low: lo.min(hi),
                        high: lo.max(hi),
                        computed: true,
                    });
                }
                let d = sign * (candidates[i].value? - leader_value?);
                Some(Spread {
                    low: d,
                    high: d,
                    computed: false,
                })
            })
            .collect();
        let ranges = rank::rank_ranges(&spreads);
        let tiers = rank::tiers(&ranges);
        let leader_position = ranked.iter().position(|&(i, _)| Some(i) == leader);
        let resolution = rank::resolution(&spreads, leader_position);
        let smallest_resolved = rank::smallest_resolved(
            &ranked
                .iter()
                .zip(&spreads)
                .map(|(&(i, _), s)| {
                    let d = intervals.get(&entries[i].id).and_then(|v| v.difference);
                    (*s, d)
                })
                .collect::<Vec<_>>(),
        );
        let verified_pending = ranked
            .iter()
            .filter(|&&(i, r)| {
                r.is_some()
                    && entries[i].status == Status::Verified
                    && Some(i) != leader
                    && !intervals.contains_key(&entries[i].id)
            })
            .count();
        let out: Vec<EntryOut> = ranked
            .iter()
            .zip(ranges)
            .zip(tiers)
            .map(|((&(i, r), range), tier)| {
                let e = &entries[i];
                let versus = intervals.get(&e.id).cloned();
                let tied = versus.as_ref().and_then(|v| match (v.low, v.high) {
                    (Some(lo), Some(hi)) => Some(lo <= 0.0 && 0.0 <= hi),
                    _ => None,
                });
                EntryOut {
                    entry: e.id,
                    rank: r,
                    rank_range: range,
                    tier,
                    tied_with_leader: if Some(i) == leader { None } else { tied },
                    versus_leader: versus,
                    model: e.model.clone(),
                    metrics: metrics[i].clone(),
                    status: e.status,
                    state: e.state,
                    inputs: e.files.iter().map(|f| file_out(slug, f)).collect(),
                    meta: e.meta.clone(),
                    submitted: iso8601(e.created_ms),
                    submitted_ms: e.created_ms,
                    scorer: serde_json::from_str(&e.scorer_json).unwrap_or(Value::Null),
                    team: e.team.clone(),
                    public_metrics: comp.as_ref().map(|_| shares_of(e).public),
                    private_metrics: comp
                        .as_ref()
                        .filter(|c| c.closed_ms.is_some())
                        .map(|_| shares_of(e).private),
                }
            })
            .collect();
        Ok(BoardView {
            bootstrap: BootstrapInfo {
                metric: primary,
                seed: scoring::BOOTSTRAP_SEED,
                resamples: scoring::BOOTSTRAP_RESAMPLES,
                leader: leader.map(|l| entries[l].id),
                computed: ranked
                    .iter()
                    .filter(|&&(i, _)| intervals.contains_key(&entries[i].id))
                    .count(),
                pending: verified_pending,
                resolution,
                smallest_resolved,
            },
            board: board_info_for(&board, include_all),
            entries: out,
        })
    }

    async fn cached_intervals(
        &self,
        board: &BoardRow,
        leader_id: i64,
    ) -> Result<HashMap<i64, LeaderInterval>, LbError> {
        let cached = self
            .store
            .intervals(&board.slug, leader_id, &interval_key(board))
            .await?;
        Ok(cached
            .into_iter()
            .filter_map(|(id, json)| Some((id, serde_json::from_str(&json).ok()?)))
            .collect())
    }

    /// Compute the board's missing intervals in the background, unless this process is
    /// computing already; `show` returns the cached ones meanwhile (`bootstrap.pending`).
    fn spawn_bootstrap(self: &Arc<Self>, slug: String) {
        let Ok(guard) = self.bootstrap_lock.clone().try_lock_owned() else {
            return;
        };
        let this = Arc::clone(self);
        tokio::spawn(async move {
            let _guard = guard;
            let mut computed = 0;
            loop {
                match this.bootstrap_batch(&slug).await {
                    Ok(0) => break,
                    Ok(n) => computed += n,
                    Err(e) => {
                        tracing::warn!(slug, "leaderboard bootstrap stopped: {e}");
                        break;
                    }
                }
            }
            // The tiers are known now: the leading group may have changed.
            if computed > 0
                && let Err(e) = this.announce(&slug, None).await
            {
                tracing::warn!(slug, "webhook events: {e}");
            }
        });
    }

    /// Compute and store up to [`BOOTSTRAP_BATCH`] missing intervals of the public ranking (best
    /// ranked first); returns how many.
    async fn bootstrap_batch(&self, slug: &str) -> Result<usize, LbError> {
        let board = self.board(slug).await?;
        let entries: Vec<EntryRow> = self
            .store
            .entries(slug)
            .await?
            .into_iter()
            .filter(|e| e.state == State::Visible)
            .collect();
        let ranking = ranking(&board, &entries);
        let Some(leader) = ranking.leader else {
            return Ok(0);
        };
        let leader_id = entries[leader].id;
        let have = self.cached_intervals(&board, leader_id).await?;
        let todo: Vec<usize> = missing(&entries, &ranking.ranked, leader, &have)
            .into_iter()
            .take(BOOTSTRAP_BATCH)
            .collect();
        if todo.is_empty() {
            return Ok(0);
        }
        let gold = self.gold_files(&board).await?;
        let leader_files = self.entry_files(&entries[leader]).await?;
        let mut jobs = Vec::new();
        for &i in &todo {
            jobs.push((entries[i].id, self.entry_files(&entries[i]).await?));
        }
        let (benchmark, variant, metric) = (
            board.benchmark.clone(),
            board.variant.clone(),
            board.primary_metric.clone(),
        );
        let slot = self.scoring_slot().await.map_err(internal)?;
        let results = tokio::task::spawn_blocking(move || {
            let _slot = slot;
            let bench = scoring::benchmark(&benchmark)?;
            let variant = scoring::variant(bench, &variant)?;
            let leader = scoring::score_records(bench, variant, &gold, &leader_files)?;
            Ok::<_, ScoringError>(
                jobs.into_iter()
                    .map(|(id, files)| {
                        let interval = scoring::score_records(bench, variant, &gold, &files)
                            .map(|s| scoring::leader_interval(&s, &leader, variant, &metric))
                            .unwrap_or_else(|e| LeaderInterval {
                                difference: None,
                                low: None,
                                high: None,
                                resamples_defined: 0,
                                unavailable: Some(e.0),
                            });
                        (id, interval)
                    })
                    .collect::<Vec<_>>(),
            )
        })
        .await
        .map_err(internal)??;
        let key = interval_key(&board);
        let rows: Vec<IntervalRow> = results
            .iter()
            .map(|(id, interval)| IntervalRow {
                entry: *id,
                leader: leader_id,
                key: key.clone(),
                result_json: crate::store::json_text(interval),
            })
            .collect();
        self.store.put_intervals(slug, rows).await?;
        Ok(results.len())
    }
}

/// The ranked entries of a board.
struct Ranking {
    metrics: Vec<IndexMap<String, Option<f64>>>,
    candidates: Vec<Candidate>,
    /// (index into the entries, rank) in ranked order.
    ranked: Vec<(usize, Option<usize>)>,
    /// The best-ranked verified entry: every interval is against it.
    leader: Option<usize>,
    lower: bool,
}

fn ranking(board: &BoardRow, entries: &[EntryRow]) -> Ranking {
    let metrics: Vec<IndexMap<String, Option<f64>>> = entries
        .iter()
        .map(|e| crate::store::parse_json(&e.metrics_json))
        .collect();
    let primary = &board.primary_metric;
    let lower = rank::lower_is_better(&board.benchmark, primary);
    // Hidden and withdrawn entries (listed for the owner only) take no rank.
    let candidates: Vec<Candidate> = entries
        .iter()
        .zip(&metrics)
        .map(|(e, m)| Candidate {
            value: m
                .get(primary)
                .copied()
                .flatten()
                .filter(|_| e.state == State::Visible),
            created_ms: e.created_ms,
            id: e.id,
        })
        .collect();
    let ranked = rank::rank(&candidates, lower);
    let leader = ranked
        .iter()
        .find(|&&(i, r)| r.is_some() && entries[i].status == Status::Verified)
        .map(|&(i, _)| i);
    Ranking {
        metrics,
        candidates,
        ranked,
        leader,
        lower,
    }
}

/// Ranked verified entries other than the leader without a cached interval, best first.
fn missing(
    entries: &[EntryRow],
    ranked: &[(usize, Option<usize>)],
    leader: usize,
    have: &HashMap<i64, LeaderInterval>,
) -> Vec<usize> {
    ranked
        .iter()
        .filter(|&&(i, r)| {
            r.is_some()
                && i != leader
                && entries[i].status == Status::Verified
                && !have.contains_key(&entries[i].id)
        })
        .map(|&(i, _)| i)
        .collect()
}
