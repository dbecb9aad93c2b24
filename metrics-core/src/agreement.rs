//! Agreement between raters: Krippendorff's α across any number of raters (missing ratings
//! allowed), and for one pair of raters the share of exact and adjacent (±1) agreement.
//!
//! Reference for α: the `krippendorff` package on PyPI (0.9.0, `krippendorff.alpha`), which
//! follows Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability":
//!
//! ```text
//! ratings    M raters × N units, a value or missing
//! domain     D = sorted distinct values (or a declared domain; a value outside it is an error)
//! counts     c[u][v] = #raters who gave unit u the value D_v;   m_u = Σ_v c[u][v]
//! o[v][w]    = Σ_u (c[u][v]·c[u][w] − [v = w]·c[u][v]) / (max(m_u, 2) − 1)     (coincidences)
//! n[w]       = Σ_v o[v][w]                 e[v][w] = (n[v]·n[w] − [v = w]·n[v]) / (Σ n − 1)
//! δ²[v][w]   nominal  [v ≠ w]
//!            ordinal  (Σ_{k=min(v,w)}^{max(v,w)} n[k] − (n[v] + n[w]) / 2)²   (over ranks;
//!                     the Σ as `np.add.reduceat`: n[min] + the pairwise sum of the rest)
//!            interval (D_v − D_w)²
//!            ratio    ((D_v − D_w) / (D_v + D_w))², 0 where D_v + D_w = 0
//! α          = 1 − Σ o∘δ² / Σ e∘δ²
//! ```
//! Sums follow numpy's order: over units and over rows one after the other (`sum(axis=0)`),
//! the flat V × V products and `Σ n` pairwise ([`crate::numpy_sum`]), so results match the
//! package bit for bit. Where the package raises (a domain of one value, no unit rated twice) or
//! divides by zero (every pairable value the same), α is [`MetricError::Undefined`]. A unit one
//! rater alone rated adds nothing (its coincidences are 0), as in the package.

use crate::error::MetricError;
use crate::numpy_sum::{pairwise_sum, pairwise_sum_by};

/// Stevens' level of measurement of the ratings: which distance α uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    Nominal,
    Ordinal,
    Interval,
    Ratio,
}

/// Most distinct values α accepts (its matrices are V × V).
pub const MAX_VALUES: usize = 2_000;

/// Krippendorff's α of `ratings[rater][unit]` (`None`: not rated), the domain being the sorted
/// distinct values rated.
pub fn krippendorff_alpha(ratings: &[Vec<Option<f64>>], level: Level) -> Result<f64, MetricError> {
    alpha(ratings, level, None)
}

/// [`krippendorff_alpha`] over a declared, sorted `domain` (the package's `value_domain`): the
/// ordinal distance then counts values no rater used as empty ranks; a rating outside the
/// domain is an error.
pub fn krippendorff_alpha_with_domain(
    ratings: &[Vec<Option<f64>>],
    level: Level,
    domain: &[f64],
) -> Result<f64, MetricError> {
    alpha(ratings, level, Some(domain))
}

fn alpha(
    ratings: &[Vec<Option<f64>>],
    level: Level,
    domain: Option<&[f64]>,
) -> Result<f64, MetricError> {
    let units = ratings.first().map_or(0, Vec::len);
    if let Some(other) = ratings.iter().find(|r| r.len() != units) {
        return Err(MetricError::LengthMismatch {
            left: units,
            right: other.len(),
        });
    }
    // NaN is "not rated", as in the package.
    let given = |v: &Option<f64>| v.filter(|x| !x.is_nan());
    if let Some(bad) = ratings
        .iter()
        .flatten()
        .filter_map(given)
        .find(|v| !v.is_finite())
    {
        return Err(MetricError::undefined(format!("non-finite rating {bad}")));
    }
    let domain: Vec<f64> = match domain {
        Some(d) => {
            if d.windows(2).any(|w| w[0] >= w[1]) || d.iter().any(|v| !v.is_finite()) {
                return Err(MetricError::undefined(
                    "the declared domain must be finite, sorted and without repeats",
                ));
            }
            d.to_vec()
        }
        None => {
            let mut values: Vec<f64> = ratings.iter().flatten().filter_map(given).collect();
            values.sort_by(f64::total_cmp);
            values.dedup_by(|a, b| a == b);
            values
        }
    };
    if domain.len() <= 1 {
        return Err(MetricError::undefined(
            "there has to be more than one value in the domain",
        ));
    }
    if domain.len() > MAX_VALUES {
        return Err(MetricError::undefined(format!(
            "more than {MAX_VALUES} distinct values"
        )));
    }
    let index_of = |v: f64| {
        domain
            .binary_search_by(|d| d.total_cmp(&v))
            .ok()
            .or_else(|| domain.iter().position(|d| *d == v))
    };
    let k = domain.len();
    // counts[u][v], units in order.
    let mut counts = vec![vec![0u32; k]; units];
    for rater in ratings {
        for (u, v) in rater.iter().enumerate() {
            if let Some(v) = given(v) {
                let i = index_of(v).ok_or_else(|| {
                    MetricError::undefined(format!("rating {v} is outside the declared domain"))
                })?;
                counts[u][i] += 1;
            }
        }
    }
    if counts.iter().all(|c| c.iter().sum::<u32>() <= 1) {
        return Err(MetricError::undefined(
            "there has to be at least one unit rated by at least two raters",
        ));
    }
    // Coincidences, summed over units one after the other.
    let mut o = vec![0.0f64; k * k];
    for c in &counts {
        let pairable = f64::from(c.iter().sum::<u32>().max(2) - 1);
        for v in 0..k {
            for w in 0..k {
                let product = i64::from(c[v]) * i64::from(c[w]);
                let unnormalised = product - if v == w { i64::from(c[v]) } else { 0 };
                o[v * k + w] += unnormalised as f64 / pairable;
            }
        }
    }
    // n[w]: the column sums, row after row.
    let mut n = vec![0.0f64; k];
    for v in 0..k {
        for w in 0..k {
            n[w] += o[v * k + w];
        }
    }
    let total = pairwise_sum(&n) - 1.0;
    let e = |v: usize, w: usize| (n[v] * n[w] - if v == w { n[v] } else { 0.0 }) / total;
    let delta = |v: usize, w: usize| -> f64 {
        match level {
            Level::Nominal => f64::from(u8::from(v != w)),
            Level::Ordinal => {
                let (lo, hi) = (v.min(w), v.max(w));
                // `np.add.reduceat` starts from the slice's first element and adds the
                // pairwise sum of the rest.
                let between = n[lo] + pairwise_sum(&n[lo + 1..=hi]);
                (between - (n[v] + n[w]) / 2.0).powi(2)
            }
            Level::Interval => (domain[v] - domain[w]).powi(2),
            Level::Ratio => {
                let sum = domain[v] + domain[w];
                if sum == 0.0 {
                    0.0
                } else {
                    ((domain[v] - domain[w]) / sum).powi(2)
                }
            }
        }
    };
    let d: Vec<f64> = (0..k * k).map(|i| delta(i / k, i % k)).collect();
    let observed = pairwise_sum_by(k * k, |i| o[i] * d[i]);
    let expected = pairwise_sum_by(k * k, |i| e(i / k, i % k) * d[i]);
    let a = 1.0 - observed / expected;
    if a.is_finite() {
        Ok(a)
    } else {
        Err(MetricError::undefined(
            "no disagreement is possible: every pairable rating has the same value",
        ))
    }
}

/// How two raters agree on the units both rated.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PairAgreement {
    /// Units both rated.
    pub n: usize,
    /// Share with the same value.
    pub exact: Option<f64>,
    /// Share whose values differ by at most 1 (adjacent levels).
    pub adjacent: Option<f64>,
}

/// Exact and adjacent agreement of two raters' values on the same units (`None`: not rated);
/// shares are `None` when no unit was rated by both.
pub fn pair_agreement(a: &[Option<f64>], b: &[Option<f64>]) -> PairAgreement {
    let both: Vec<(f64, f64)> = a
        .iter()
        .zip(b)
        .filter_map(|(x, y)| Some(((*x)?, (*y)?)))
        .collect();
    let n = both.len();
    let share = |count: usize| (n > 0).then(|| count as f64 / n as f64);
    PairAgreement {
        n,
        exact: share(both.iter().filter(|(x, y)| x == y).count()),
        adjacent: share(both.iter().filter(|(x, y)| (x - y).abs() <= 1.0).count()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(data: &[&[f64]]) -> Vec<Vec<Option<f64>>> {
        data.iter()
            .map(|r| r.iter().map(|v| (!v.is_nan()).then_some(*v)).collect())
            .collect()
    }

    const N: f64 = f64::NAN;

    /// The package's own doctests (its values, rounded as it prints them).
    #[test]
    fn the_reference_packages_examples() {
        let data = rows(&[
            &[N, N, N, N, N, 3., 4., 1., 2., 1., 1., 3., 3., N, 3.],
            &[1., N, 2., 1., 3., 3., 4., 3., N, N, N, N, N, N, N],
            &[N, N, 2., 1., 3., 4., 4., N, 2., 1., 1., 3., 3., N, 4.],
        ]);
        let round = |v: f64, d: i32| (v * 10f64.powi(d)).round() / 10f64.powi(d);
        let nominal = krippendorff_alpha(&data, Level::Nominal).unwrap();
        assert_eq!(round(nominal, 6), 0.691358);
        let interval = krippendorff_alpha(&data, Level::Interval).unwrap();
        assert_eq!(round(interval, 6), 0.810845);
        let data = rows(&[
            &[1., 2., 3., 3., 2., 1., 4., 1., 2., N, N, N],
            &[1., 2., 3., 3., 2., 2., 4., 1., 2., 5., N, 3.],
            &[N, 3., 3., 3., 2., 3., 4., 2., 2., 5., 1., N],
            &[1., 2., 3., 3., 2., 4., 4., 1., 2., 5., 1., N],
        ]);
        let ordinal = krippendorff_alpha(&data, Level::Ordinal).unwrap();
        assert_eq!(round(ordinal, 3), 0.815);
        let declared =
            krippendorff_alpha_with_domain(&data, Level::Ordinal, &[1., 2., 3., 4., 5.]).unwrap();
        assert_eq!(declared, ordinal);
        assert_eq!(
            round(krippendorff_alpha(&data, Level::Ratio).unwrap(), 3),
            0.797
        );
    }

    #[test]
    fn where_the_package_raises_alpha_is_undefined() {
        let one_value = rows(&[&[1., 1.], &[1., 1.]]);
        assert!(krippendorff_alpha(&one_value, Level::Ordinal).is_err());
        let never_twice = rows(&[&[1., N], &[N, 2.]]);
        assert!(krippendorff_alpha(&never_twice, Level::Nominal).is_err());
        let outside = rows(&[&[1., 2.], &[1., 3.]]);
        assert!(krippendorff_alpha_with_domain(&outside, Level::Ordinal, &[1., 2.]).is_err());
        assert!(krippendorff_alpha(&[vec![Some(1.)], vec![]], Level::Nominal).is_err());
    }

    #[test]
    fn perfect_agreement_is_one_and_pairs_count_shared_units() {
        let same = rows(&[&[1., 2., 3., N], &[1., 2., 3., 4.]]);
        assert_eq!(krippendorff_alpha(&same, Level::Ordinal), Ok(1.0));
        let p = pair_agreement(&same[0], &same[1]);
        assert_eq!((p.n, p.exact, p.adjacent), (3, Some(1.0), Some(1.0)));
        let p = pair_agreement(
            &[Some(1.), Some(2.), Some(4.)],
            &[Some(2.), Some(2.), Some(1.)],
        );
        assert_eq!((p.exact, p.adjacent), (Some(1. / 3.), Some(2. / 3.)));
        assert_eq!(pair_agreement(&[None], &[Some(1.)]).exact, None);
    }
}
