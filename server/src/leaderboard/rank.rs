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
//! ```
//! The rank range is the LMArena-style reading of overlapping intervals against a common
//! reference (the leader, resampled on the same draws as each entry), not a full pairwise test.

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
pub fn rank_ranges(spreads: &[Option<Spread>]) -> Vec<Option<[usize; 2]>> {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn c(value: Option<f64>, created_ms: i64, id: i64) -> Candidate {
        Candidate {
            value,
            created_ms,
            id,
        }
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
