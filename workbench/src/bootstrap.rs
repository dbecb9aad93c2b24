//! The paired bootstrap of two models' scored jobs, run in chunks so the page shows progress:
//! the benchmark's paired resampling unit ([`crate::benchmark::Paired`]) drawn with the seeded
//! PRNG, percentile intervals of each model's metrics and of their difference.
//!
//! Paired bootstrap (Efron & Tibshirani 1993, ch. 13; the percentile interval):
//! ```text
//! align     records of model A and model B on their id (SAS-Bench: file + id; EOTGC, MSQA: id;
//!           pairs: line position, same gold required); unmatched records are left out
//! observed  Δ = metric(A) − metric(B) on the aligned records
//! repeat R times (R ≥ 1,000):
//!           draw n record indices uniformly with replacement (SAS-Bench: within each file, so
//!           every file keeps its size — the overall value is the mean over files)
//!           Δ*_r = metric(A on the draw) − metric(B on the same draw)
//! interval  [P2.5, P97.5] of the Δ*_r that are defined, numpy.percentile's linear rule
//! ```
//! A resample on which a metric is undefined for either model (a constant draw for Pearson) is
//! left out of that metric's percentiles; `resamples_defined` says how many remained.
//!
//! Randomness: xoshiro256** seeded through splitmix64 (Blackman & Vigna, reference C code at
//! prng.di.unimi.it), indices by Lemire's unbiased multiply-shift rejection. The same seed gives
//! the same intervals on every platform. The work is chunked: [`Bootstrap::step`] does a few
//! resamples and returns [`Progress`], so the page can yield between chunks.

use serde::Serialize;

use crate::benchmark::Paired;
use crate::compare::{CompareError, Xoshiro256StarStar, percentile};
use crate::registry;
use crate::session::{Scored, Variant};

/// How far the bootstrap is.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, serde::Deserialize)]
pub struct Progress {
    pub done: usize,
    pub total: usize,
    /// `done / total`, for a progress bar.
    pub fraction: f64,
}

/// One metric's observed difference and its bootstrap interval.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
pub struct MetricInterval {
    pub metric: String,
    /// The metric of each model on the aligned records.
    pub a: Option<f64>,
    pub b: Option<f64>,
    /// `a − b` (`None` when either is undefined).
    pub difference: Option<f64>,
    /// The 2.5 % and 97.5 % percentiles of the resampled differences.
    pub low: Option<f64>,
    pub high: Option<f64>,
    /// Resamples on which the difference was defined.
    pub resamples_defined: usize,
}

/// The smallest number of resamples [`Bootstrap::new`] accepts.
pub const MIN_RESAMPLES: usize = 1_000;

/// A paired bootstrap, run in chunks.
pub struct Bootstrap {
    aligned: Box<dyn Paired>,
    rng: Xoshiro256StarStar,
    total: usize,
    done: usize,
    observed: Vec<(Option<f64>, Option<f64>)>,
    differences: Vec<Vec<f64>>,
    /// Records aligned in both models.
    pub aligned_records: usize,
}

impl Bootstrap {
    /// Align the two models' records and compute the observed metrics; `resamples` is raised to
    /// [`MIN_RESAMPLES`]. Both must be scored with the same variant (`a`'s is used).
    pub fn new(
        a: &Scored,
        b: &Scored,
        variant: Variant,
        seed: u64,
        resamples: usize,
    ) -> Result<Self, CompareError> {
        if a.report.benchmark != b.report.benchmark {
            return Err(CompareError(format!(
                "different benchmarks: {} vs {}",
                a.report.benchmark, b.report.benchmark
            )));
        }
        let benchmark = registry::get(&a.report.benchmark).ok_or_else(|| {
            CompareError(format!("no benchmark `{}` to compare", a.report.benchmark))
        })?;
        let aligned = benchmark.paired(a, b, variant)?;
        let strata = aligned.strata();
        let identity: Vec<Vec<usize>> = strata.iter().map(|&n| (0..n).collect()).collect();
        let observed = aligned.metrics(&identity);
        let keys = aligned.keys().len();
        Ok(Self {
            aligned,
            rng: Xoshiro256StarStar::seed_from_u64(seed),
            total: resamples.max(MIN_RESAMPLES),
            done: 0,
            observed,
            differences: vec![Vec::new(); keys],
            aligned_records: strata.iter().sum(),
        })
    }

    pub fn progress(&self) -> Progress {
        Progress {
            done: self.done,
            total: self.total,
            fraction: self.done as f64 / self.total as f64,
        }
    }

    pub fn is_done(&self) -> bool {
        self.done >= self.total
    }

    /// Run up to `n` more resamples.
    pub fn step(&mut self, n: usize) -> Progress {
        let strata = self.aligned.strata();
        for _ in 0..n.min(self.total - self.done) {
            let draw: Vec<Vec<usize>> = strata
                .iter()
                .map(|&size| {
                    (0..size)
                        .map(|_| self.rng.below(size as u64) as usize)
                        .collect()
                })
                .collect();
            for (k, (a, b)) in self.aligned.metrics(&draw).into_iter().enumerate() {
                if let (Some(a), Some(b)) = (a, b) {
                    self.differences[k].push(a - b);
                }
            }
            self.done += 1;
        }
        self.progress()
    }

    /// The intervals from the resamples done so far (all of them once [`Self::is_done`]).
    pub fn finish(&self) -> Vec<MetricInterval> {
        self.aligned
            .keys()
            .into_iter()
            .zip(&self.observed)
            .zip(&self.differences)
            .map(|((metric, &(a, b)), diffs)| {
                let mut sorted = diffs.clone();
                sorted.sort_by(f64::total_cmp);
                MetricInterval {
                    metric: metric.into(),
                    a,
                    b,
                    difference: a.zip(b).map(|(a, b)| a - b),
                    low: percentile(&sorted, 2.5),
                    high: percentile(&sorted, 97.5),
                    resamples_defined: sorted.len(),
                }
            })
            .collect()
    }
}
