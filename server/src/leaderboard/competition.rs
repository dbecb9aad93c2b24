//! Competitions (issue 14): hidden-gold boards with a submission phase, team quotas, a seeded
//! public share of the items, and the scoring queue's worker.
//!
//! - The gold of a competition board is stored like any board's but never served: not listed,
//!   not downloadable, not in reports shown to anyone but the owner, not in the audit detail.
//! - Scores during the phase are on the **public share**: a seeded choice of
//!   `round(n × public_share)` item positions per stratum of the benchmark's paired records
//!   ([`workbench::benchmark::Paired`], the bootstrap's resampling unit: records in the gold's
//!   order, aligned by id). The metrics of a share are the benchmark's own metric functions on
//!   those records, so they equal `scorebench score` on the gold and prediction files filtered
//!   to the share's items. Benchmarks with a paired unit: EOTGC, ASAP-AES, MSQA, SAS-Bench,
//!   pairs; SGI-Bench has none (its boards need `public_share = 1`).
//! - Submissions go into the store's queue (`status` queued → scoring → done | failed |
//!   cancelled), which [`super::queue`]'s workers drain.

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::scoring::{self, ScoringError};
use workbench::compare::Xoshiro256StarStar;
use workbench::session::{Scored, Variant, WorkFile};
pub use workbench::wire::Counts;

/// A competition board's settings (stored as JSON on the board).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Competition {
    /// Share of the items scored during the phase, in (0, 1].
    pub public_share: f64,
    /// Seed of the public share.
    pub seed: u64,
    /// Submission window (Unix ms); open-ended when `None`.
    pub opens_ms: Option<i64>,
    pub closes_ms: Option<i64>,
    /// Per team: submissions per UTC day and in total (failed and cancelled ones do not count).
    pub daily_quota: Option<i64>,
    pub total_quota: Option<i64>,
    pub counts: Counts,
    /// Set when the owner closed the phase: private scores revealed, ranking final.
    pub closed_ms: Option<i64>,
}

pub const DEFAULT_PUBLIC_SHARE: f64 = 0.3;

impl Default for Competition {
    fn default() -> Self {
        Self {
            public_share: DEFAULT_PUBLIC_SHARE,
            seed: 0,
            opens_ms: None,
            closes_ms: None,
            daily_quota: None,
            total_quota: None,
            counts: Counts::Best,
            closed_ms: None,
        }
    }
}

impl Competition {
    pub fn parse(text: Option<&str>) -> Option<Self> {
        serde_json::from_str(text?).ok()
    }

    pub fn check(&self) -> Result<(), String> {
        if !(self.public_share > 0.0 && self.public_share <= 1.0) {
            return Err(format!(
                "public share {} is not in (0, 1]",
                self.public_share
            ));
        }
        if let (Some(o), Some(c)) = (self.opens_ms, self.closes_ms)
            && c <= o
        {
            return Err("the window closes before it opens".into());
        }
        for (what, q) in [("daily", self.daily_quota), ("total", self.total_quota)] {
            if q.is_some_and(|q| q < 1) {
                return Err(format!("the {what} quota must be at least 1"));
            }
        }
        Ok(())
    }

    /// Why a submission at `now` is refused, if it is.
    pub fn window_refusal(&self, now: i64) -> Option<String> {
        if self.closed_ms.is_some() {
            return Some("the phase is closed: the ranking is final".into());
        }
        if let Some(o) = self.opens_ms.filter(|&o| now < o) {
            return Some(format!(
                "the submission window opens at {}",
                super::dates::iso8601(o)
            ));
        }
        if let Some(c) = self.closes_ms.filter(|&c| now >= c) {
            return Some(format!(
                "the submission window closed at {}",
                super::dates::iso8601(c)
            ));
        }
        None
    }
}

/// The public positions of each stratum (sorted): a seeded partial Fisher–Yates shuffle picks
/// `round(n × share)` of the `n` positions (at least 1 of a non-empty stratum).
pub fn public_share(strata: &[usize], share: f64, seed: u64) -> Vec<Vec<usize>> {
    strata
        .iter()
        .enumerate()
        .map(|(s, &n)| {
            if share >= 1.0 {
                return (0..n).collect();
            }
            let k = ((n as f64 * share).round() as usize).clamp(usize::from(n > 0), n);
            let mut rng = Xoshiro256StarStar::seed_from_u64(
                seed ^ (s as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15),
            );
            let mut idx: Vec<usize> = (0..n).collect();
            for i in 0..k {
                let j = i + rng.below((n - i) as u64) as usize;
                idx.swap(i, j);
            }
            let mut picked = idx[..k].to_vec();
            picked.sort_unstable();
            picked
        })
        .collect()
}

/// The complement of `public` in each stratum.
pub fn private_share(strata: &[usize], public: &[Vec<usize>]) -> Vec<Vec<usize>> {
    strata
        .iter()
        .zip(public)
        .map(|(&n, p)| (0..n).filter(|i| p.binary_search(i).is_err()).collect())
        .collect()
}

/// Metrics of one scored entry on its board's public and private shares.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct ShareScores {
    pub public: IndexMap<String, Option<f64>>,
    pub private: IndexMap<String, Option<f64>>,
}

/// The entry's metrics on the shares, through the benchmark's paired unit (the entry paired with
/// itself). With a share of 1 the public metrics are the report's and there is no private part.
pub fn share_scores(
    benchmark: &dyn workbench::Benchmark,
    variant: Variant,
    scored: &Scored,
    comp: &Competition,
) -> Result<ShareScores, ScoringError> {
    if comp.public_share >= 1.0 {
        return Ok(ShareScores {
            public: scoring::overall_scalars(&scored.report),
            private: IndexMap::new(),
        });
    }
    let paired = benchmark.paired(scored, scored, variant).map_err(|e| {
        ScoringError(format!(
            "{} has no per-item share ({e}); this board needs a public share of 1",
            benchmark.label()
        ))
    })?;
    let strata = paired.strata();
    let public = public_share(&strata, comp.public_share, comp.seed);
    let private = private_share(&strata, &public);
    let keys = paired.keys();
    let of = |draw: &[Vec<usize>]| -> IndexMap<String, Option<f64>> {
        keys.iter()
            .zip(paired.metrics(draw))
            .map(|(k, (a, _))| ((*k).to_string(), a))
            .collect()
    };
    Ok(ShareScores {
        public: of(&public),
        private: of(&private),
    })
}

/// Score a competition entry: the full report, its metrics on the shares.
pub fn score_competition_entry(
    benchmark: &str,
    variant: &str,
    gold: &[WorkFile],
    files: &[WorkFile],
    comp: &Competition,
    max_samples: usize,
) -> Result<(Scored, ShareScores), ScoringError> {
    let bench = scoring::benchmark(benchmark)?;
    let variant = scoring::variant(bench, variant)?;
    let scored = scoring::score_entry_limited(bench, variant, gold, files, max_samples)?;
    let shares = share_scores(bench, variant, &scored, comp)?;
    Ok((scored, shares))
}

/// A failure reason that may be shown to the team: a message naming a gold file (it could quote
/// the gold) is replaced.
pub fn public_reason(reason: &str, gold_names: &[String]) -> String {
    if gold_names
        .iter()
        .any(|n| !n.is_empty() && reason.contains(n.as_str()))
    {
        "the scorer could not read the board's gold with these files (the owner sees the detail)"
            .into()
    } else {
        reason.into()
    }
}

/// `{"public": …, "private": …}` as stored.
pub fn scores_json(s: &ShareScores) -> String {
    json!({"public": s.public, "private": s.private}).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn share_is_seeded_sorted_and_sized() {
        let a = public_share(&[185, 10, 0], 0.3, 7);
        assert_eq!(a, public_share(&[185, 10, 0], 0.3, 7));
        assert_ne!(a, public_share(&[185, 10, 0], 0.3, 8));
        assert_eq!(a[0].len(), 56); // round(55.5)
        assert_eq!(a[1].len(), 3);
        assert!(a[2].is_empty());
        assert!(a[0].windows(2).all(|w| w[0] < w[1]));
        let p = private_share(&[185, 10, 0], &a);
        assert_eq!(p[0].len(), 185 - 56);
        assert!(p[0].iter().all(|i| a[0].binary_search(i).is_err()));
        assert_eq!(public_share(&[4], 1.0, 1), vec![vec![0, 1, 2, 3]]);
    }

    #[test]
    fn window_and_settings() {
        let c = Competition {
            opens_ms: Some(1000),
            closes_ms: Some(2000),
            ..Default::default()
        };
        assert!(c.window_refusal(999).unwrap().contains("opens"));
        assert!(c.window_refusal(1500).is_none());
        assert!(c.window_refusal(2000).unwrap().contains("closed"));
        assert!(
            Competition {
                public_share: 0.0,
                ..Default::default()
            }
            .check()
            .is_err()
        );
        assert!(public_reason("gold.json line 3: x", &["gold.json".into()]).contains("owner"));
    }
}
