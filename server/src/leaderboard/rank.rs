//! Ranking, pure.
//!
//! ```text
//! order       primary metric at full precision (f64 total order; descending, ascending for a
//!             metric where lower is better), undefined values last; then earlier submission,
//!             then lower entry number
//! rank        1 + the number of entries with a strictly better value ("1, 2, 2, 4"): equal
//!             values share a rank; display rounding never enters
//! intervals   per entry, the paired bootstrap interval [lo, hi] of (entry − leader) on the
//!             primary metric (the leader's is [0, 0]; an entry without a computed interval —
//!             a reported entry, or one not bootstrapped yet — counts at its observed
//!             difference [d, d] for the others)
//! rank_range  best  = 1 + #{j : lo_j > hi_i}        (entries clearly above i)
//!             worst = 1 + #{j ≠ i : hi_j ≥ lo_i}    (entries not clearly below i)
//!             only for entries with a computed interval
//! tied        the interval of (entry − leader) contains 0: not distinguishable from the leader
//! tier        walking the ranked entries that have a rank range: an entry opens a new tier when
//!             its best possible rank is worse than the worst possible rank of the tier's first
//!             entry (it cannot share a place with it); tiers are numbered from 1, so entries of
//!             one tier are statistically tied with its first entry
//! resolution  the median half-width of the computed intervals (the leader's [0, 0] left out):
//!             differences smaller than this are usually within the noise of this board
//! smallest resolved  the smallest |observed difference| of an entry whose interval excludes 0
//! ```
//! The rank range is the LMArena-style reading of overlapping intervals against a common
//! reference (the leader, resampled on the same draws as each entry), not a full pairwise test.

/// The metrics where lower is better (none of the built-in benchmarks' headline metrics
/// today); everything else ranks descending, except a spec's primary metric when the spec says
/// `lower_is_better` ([`lower_is_better`]).
pub const LOWER_IS_BETTER: &[&str] = &[];

/// Whether a board of `benchmark` ranked by `metric` puts lower values first.
pub fn lower_is_better(benchmark: &str, metric: &str) -> bool {
    LOWER_IS_BETTER.contains(&metric)
        || workbench::registry::spec(benchmark)
            .is_some_and(|s| s.spec.lower_is_better && s.spec.primary_metric() == metric)
}

/// One entry to rank.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Candidate {
    pub value: Option<f64>,
    pub created_ms: i64,
    pub id: i64,
}

/// Positions of `candidates` in ranked order, each with its rank (`None` when the value is
/// undefined).
pub fn rank(candidates: &[Candidate], lower_is_better: bool) -> Vec<(usize, Option<usize>)> {
    let key = |c: &Candidate| c.value.map(|v| if lower_is_better { -v } else { v });
    let mut order: Vec<usize> = (0..candidates.len()).collect();
    order.sort_by(|&a, &b| {
        let (ca, cb) = (&candidates[a], &candidates[b]);
        match (key(ca), key(cb)) {
            (Some(x), Some(y)) => y.total_cmp(&x),
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (None, None) => std::cmp::Ordering::Equal,
        }
        .then(ca.created_ms.cmp(&cb.created_ms))
        .then(ca.id.cmp(&cb.id))
    });
    let mut out = Vec::with_capacity(order.len());
    let mut rank = 0;
    let mut previous: Option<f64> = None;
    for (position, &i) in order.iter().enumerate() {
        match key(&candidates[i]) {
            Some(v) => {
                if previous.is_none_or(|p| p.total_cmp(&v) != std::cmp::Ordering::Equal) {
                    rank = position + 1;
                    previous = Some(v);
                }
                out.push((i, Some(rank)));
            }
            None => out.push((i, None)),
        }
    }
    out
}

/// The interval of (entry − leader), oriented so that higher is better.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Spread {
    pub low: f64,
    pub high: f64,
    /// From a bootstrap (else the observed difference as a point).
    pub computed: bool,
}

/// The rank range of every entry (same order as `spreads`; `None` entries take no part:
/// undefined values). Only entries with a computed spread get a range.
///
/// Range of an entry with spread `s`: [1 + others whose low end is above `s.high`, 1 + others
/// whose high end reaches `s.low`]. Counted by binary search in the sorted ends (a 10,000-entry
/// board: 2 × 10⁴ searches instead of 10⁸ comparisons); NaN ends compare false, as in the
/// definition.
pub fn rank_ranges(spreads: &[Option<Spread>]) -> Vec<Option<[usize; 2]>> {
    let sorted = |end: fn(&Spread) -> f64| {
        let mut v: Vec<f64> = spreads
            .iter()
            .flatten()
            .map(end)
            .filter(|x| !x.is_nan())
            .collect();
        v.sort_by(f64::total_cmp);
        v
    };
    let (lows, highs) = (sorted(|s| s.low), sorted(|s| s.high));
    spreads
        .iter()
        .map(|s| {
            let s = s.filter(|s| s.computed)?;
            // `x > s.high` for every low end; the entry's own low is not above its high.
            let above = if s.high.is_nan() {
                0
            } else {
                lows.len() - lows.partition_point(|&x| x <= s.high)
            };
            // `x >= s.low` for every high end, less the entry's own.
            let reaching = if s.low.is_nan() {
                0
            } else {
                highs.len() - highs.partition_point(|&x| x < s.low)
            };
            let own = usize::from(s.high >= s.low);
            Some([1 + above, 1 + reaching - own])
        })
        .collect()
}

/// The tier of each entry (same order as `ranges`, which is ranked order); `None` for entries
/// without a rank range.
pub fn tiers(ranges: &[Option<[usize; 2]>]) -> Vec<Option<usize>> {
    let mut tier = 0;
    let mut head_worst: Option<usize> = None;
    ranges
        .iter()
        .map(|r| {
            let [best, worst] = (*r)?;
            if head_worst.is_none_or(|w| best > w) {
                tier += 1;
                head_worst = Some(worst);
            }
            Some(tier)
        })
        .collect()
}

/// The median half-width of the computed intervals of entries other than the leader (`None`
/// without one).
pub fn resolution(spreads: &[Option<Spread>], leader: Option<usize>) -> Option<f64> {
    let mut halves: Vec<f64> = spreads
        .iter()
        .enumerate()
        .filter(|&(i, _)| Some(i) != leader)
        .filter_map(|(_, s)| s.filter(|s| s.computed))
        .map(|s| (s.high - s.low) / 2.0)
        .filter(|h| h.is_finite())
        .collect();
    if halves.is_empty() {
        return None;
    }
    halves.sort_by(f64::total_cmp);
    let n = halves.len();
    Some(if n % 2 == 1 {
        halves[n / 2]
    } else {
        (halves[n / 2 - 1] + halves[n / 2]) / 2.0
    })
}

/// The smallest |difference| among (spread, observed difference) pairs whose computed interval
/// excludes 0.
pub fn smallest_resolved(pairs: &[(Option<Spread>, Option<f64>)]) -> Option<f64> {
    pairs
        .iter()
        .filter_map(|(s, d)| {
            let s = s.filter(|s| s.computed)?;
            (s.low > 0.0 || s.high < 0.0).then_some(d.map(f64::abs)?)
        })
        .min_by(f64::total_cmp)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The definition, pair by pair.
    fn rank_ranges_naive(spreads: &[Option<Spread>]) -> Vec<Option<[usize; 2]>> {
        spreads
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let s = s.filter(|s| s.computed)?;
                let others = spreads
                    .iter()
                    .enumerate()
                    .filter(|&(j, _)| j != i)
                    .filter_map(|(_, o)| *o);
                let (mut above, mut not_below) = (0, 0);
                for o in others {
                    above += usize::from(o.low > s.high);
                    not_below += usize::from(o.high >= s.low);
                }
                Some([1 + above, 1 + not_below])
            })
            .collect()
    }

    #[test]
    fn rank_ranges_by_search_equal_the_definition() {
        // A seeded LCG: coarse values (many equal ends), points, missing entries, NaN ends.
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = move || {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (state >> 33) as u32
        };
        for round in 0..200 {
            let n = 1 + round % 40;
            let spreads: Vec<Option<Spread>> = (0..n)
                .map(|_| {
                    let kind = next() % 10;
                    if kind == 0 {
                        return None;
                    }
                    let a = f64::from(next() % 7) / 4.0 - 1.0;
                    let b = f64::from(next() % 7) / 4.0 - 1.0;
                    let (low, high) = match kind {
                        1 => (a, a),
                        2 => (f64::NAN, a),
                        3 => (a, f64::NAN),
                        _ => (a.min(b), a.max(b)),
                    };
                    Some(Spread {
                        low,
                        high,
                        computed: kind != 4,
                    })
                })
                .collect();
            assert_eq!(
                rank_ranges(&spreads),
                rank_ranges_naive(&spreads),
                "{spreads:?}"
            );
        }
    }

    fn c(value: Option<f64>, created_ms: i64, id: i64) -> Candidate {
        Candidate {
            value,
            created_ms,
            id,
        }
    }

    #[test]
    fn tiers_open_where_a_place_cannot_be_shared() {
        // #2 may share a place with the leader; #3 may share one with #2 but not with the
        // leader (its best, 3, is below the leader's worst, 2): a new tier; a reported entry
        // has none; #5 is clear of all.
        let ranges = [Some([1, 2]), Some([2, 3]), Some([3, 3]), None, Some([5, 5])];
        assert_eq!(tiers(&ranges), [Some(1), Some(1), Some(2), None, Some(3)]);
        // Everything tied with the leader: one tier.
        assert_eq!(
            tiers(&[Some([1, 3]), Some([1, 3]), Some([2, 3])]),
            [Some(1); 3]
        );
        assert_eq!(tiers(&[]), Vec::<Option<usize>>::new());
    }

    #[test]
    fn resolution_is_the_median_half_width_without_the_leader() {
        let s = |low: f64, high: f64, computed: bool| {
            Some(Spread {
                low,
                high,
                computed,
            })
        };
        let spreads = [
            s(0.0, 0.0, true),
            s(-0.02, 0.04, true),
            s(-0.10, -0.02, true),
            s(-0.30, -0.30, false),
            s(-0.5, -0.3, true),
            None,
        ];
        // Half-widths 0.03, 0.04, 0.1 → median 0.04 (the leader and the point left out).
        assert_eq!(resolution(&spreads, Some(0)), Some((-0.02 - -0.10) / 2.0));
        assert_eq!(
            resolution(&spreads[..3], Some(0)),
            Some(((0.04 - -0.02) / 2.0 + (-0.02 - -0.10) / 2.0) / 2.0)
        );
        assert_eq!(resolution(&spreads[..1], Some(0)), None);
        let pairs: Vec<(Option<Spread>, Option<f64>)> = spreads
            .iter()
            .zip([
                Some(0.0),
                Some(0.01),
                Some(-0.06),
                Some(-0.3),
                Some(-0.4),
                None,
            ])
            .map(|(s, d)| (*s, d))
            .collect();
        // Excluding 0: −0.06 and −0.4 (the point is not a computed interval).
        assert_eq!(smallest_resolved(&pairs), Some(0.06));
    }

    #[test]
    fn full_precision_decides_and_ties_share_a_rank() {
        // 0.8123 and 0.8124 both show as 0.81; the later submission with the higher value wins.
        let cs = [
            c(Some(0.8123), 1, 1),
            c(Some(0.8124), 2, 2),
            c(Some(0.5), 3, 3),
            c(Some(0.8124), 4, 4),
            c(None, 0, 5),
            c(Some(0.1 + 0.2), 6, 6),
            c(Some(0.3), 5, 7),
        ];
        let ranked = rank(&cs, false);
        let ids: Vec<i64> = ranked.iter().map(|&(i, _)| cs[i].id).collect();
        let ranks: Vec<Option<usize>> = ranked.iter().map(|&(_, r)| r).collect();
        assert_eq!(ids, [2, 4, 1, 3, 6, 7, 5]);
        // 0.1 + 0.2 = 0.30000000000000004 > 0.3: different ranks.
        assert_eq!(
            ranks,
            [Some(1), Some(1), Some(3), Some(4), Some(5), Some(6), None]
        );
        let ranked = rank(&cs[..3], true);
        let ids: Vec<i64> = ranked.iter().map(|&(i, _)| cs[i].id).collect();
        assert_eq!(ids, [3, 1, 2]);
    }

    #[test]
    fn rank_ranges_from_overlapping_intervals() {
        let s = |low: f64, high: f64| {
            Some(Spread {
                low,
                high,
                computed: true,
            })
        };
        let point = |d: f64| {
            Some(Spread {
                low: d,
                high: d,
                computed: false,
            })
        };
        // leader, one tied with it, one clearly below both, a reported point, an undefined one.
        let spreads = [
            s(0.0, 0.0),
            s(-0.02, 0.01),
            s(-0.2, -0.1),
            point(-0.15),
            None,
        ];
        let ranges = rank_ranges(&spreads);
        assert_eq!(
            ranges,
            [Some([1, 2]), Some([1, 2]), Some([3, 4]), None, None]
        );
    }
}
