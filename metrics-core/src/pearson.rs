//! Pearson product-moment correlation.
//!
//! Reference: `scipy.stats.pearsonr(x, y).statistic` (SciPy 1.17), computed the same way so
//! that extreme magnitudes neither overflow nor underflow:
//!
//! ```text
//! x̄      = np.mean(x)                       (numpy's pairwise sum / n)
//! xm     = x − x̄;  ‖xm‖ = max|xm| · sqrt(Σ (xm / max|xm|)²)      (likewise y)
//! r      = Σ (xm / ‖xm‖)(ym / ‖ym‖),  clipped to [−1, 1];  n = 2 → rounded (exactly ±1)
//! ```
//! Undefined where scipy gives NaN ([`MetricError::Undefined`]): a constant input (every
//! value == the first), a NaN or infinite value, a mean that overflows (values near ±1.8e308);
//! n < 2 is an error there and here. When only ‖xm‖ overflows, scipy divides by infinity and
//! returns 0: so does this. scipy's dot products go through BLAS, so agreement is to
//! ~1e-15, not bit for bit (`scripts/diff-stats.sh`).

use crate::error::MetricError;
use crate::numpy_sum::numpy_sum;

/// `x − mean(x)` divided by its length, as scipy computes both (NaN when the mean overflows;
/// zeros when only the length does, as in scipy).
fn unit_deviations(v: &[f64]) -> Vec<f64> {
    let mean = numpy_sum(v) / v.len() as f64;
    let mut dev: Vec<f64> = v.iter().map(|&a| a - mean).collect();
    let max = dev
        .iter()
        .fold(0.0_f64, |m, d| if d.is_nan() { *d } else { m.max(d.abs()) });
    let scaled_norm = dev
        .iter()
        .map(|d| (d / max) * (d / max))
        .sum::<f64>()
        .sqrt();
    let norm = max * scaled_norm;
    for d in &mut dev {
        *d /= norm;
    }
    dev
}

/// The length of two inputs a correlation is defined on, or why it is not: different lengths,
/// none, one, a non-finite value, a constant input (as scipy).
fn defined(x: &[f64], y: &[f64]) -> Result<usize, MetricError> {
    if x.len() != y.len() {
        return Err(MetricError::LengthMismatch {
            left: x.len(),
            right: y.len(),
        });
    }
    let n = x.len();
    if n == 0 {
        return Err(MetricError::Empty);
    }
    if n < 2 {
        return Err(MetricError::undefined(
            "correlation needs at least 2 observations",
        ));
    }
    if x.iter().chain(y).any(|v| !v.is_finite()) {
        return Err(MetricError::undefined("input contains a non-finite value"));
    }
    let constant = |v: &[f64]| v.iter().all(|&a| a == v[0]);
    if constant(x) || constant(y) {
        return Err(MetricError::undefined("an input is constant"));
    }
    Ok(n)
}

/// Pearson's r as the formula is written: plain means, then Σ dx·dy, Σ dx², Σ dy² left to
/// right, then `Σ dx·dy / (sqrt(Σ dx²) · sqrt(Σ dy²))`, clipped to [−1, 1]; n = 2 gives ±1;
/// undefined exactly where [`pearson`] is. For moderate values only (no scaling: magnitudes
/// near 1e±154 overflow). Used where the reference computes it this way: EOTGC's guideline
/// formula (its golden vectors bit for bit) and Spearman on ranks (the SAS-Bench ECS golden
/// vectors from `scipy.stats.spearmanr` match it more often than the scaled form: 66 vs 53 of
/// 116 values bit for bit, all within 1e-12).
pub fn pearson_sums(x: &[f64], y: &[f64]) -> Result<f64, MetricError> {
    let n = defined(x, y)?;
    if n == 2 {
        return Ok((x[1] - x[0]).signum() * (y[1] - y[0]).signum());
    }
    let mean = |v: &[f64]| v.iter().sum::<f64>() / n as f64;
    let (mx, my) = (mean(x), mean(y));
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (&a, &b) in x.iter().zip(y) {
        let (dx, dy) = (a - mx, b - my);
        sxy += dx * dy;
        sxx += dx * dx;
        syy += dy * dy;
    }
    Ok((sxy / (sxx.sqrt() * syy.sqrt())).clamp(-1.0, 1.0))
}

pub fn pearson(x: &[f64], y: &[f64]) -> Result<f64, MetricError> {
    let n = defined(x, y)?;
    let (xm, ym) = (unit_deviations(x), unit_deviations(y));
    let r = xm.iter().zip(&ym).map(|(a, b)| a * b).sum::<f64>();
    if r.is_nan() {
        return Err(MetricError::undefined(
            "the mean overflows (values near the largest float)",
        ));
    }
    let r = r.clamp(-1.0, 1.0);
    Ok(if n == 2 { r.round() } else { r })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scipy_reference_values() {
        // scipy.stats.pearsonr([1, 2, 3, 4, 5], [5, 6, 7, 8, 7]).statistic == 0.8320502943378437
        let r = pearson(&[1.0, 2.0, 3.0, 4.0, 5.0], &[5.0, 6.0, 7.0, 8.0, 7.0]).unwrap();
        assert!((r - 0.8320502943378437).abs() < 1e-15, "{r}");
        assert_eq!(pearson(&[1.0, 2.0], &[3.0, 1.0]), Ok(-1.0));
    }

    #[test]
    fn undefined_cases() {
        assert!(matches!(
            pearson(&[1.0, 1.0, 1.0], &[1.0, 2.0, 3.0]),
            Err(MetricError::Undefined { .. })
        ));
        assert!(matches!(
            pearson(&[1.0], &[2.0]),
            Err(MetricError::Undefined { .. })
        ));
        assert_eq!(pearson(&[], &[]), Err(MetricError::Empty));
    }

    #[test]
    fn extreme_magnitudes_follow_scipy() {
        // scipy.stats.pearsonr([1e-300, 2e-300, 3e-300, 4e-300, 5e-300],
        //                      [5e300, 6e300, 7e300, 8e300, 7e300]).statistic == 0.8320502943378436
        // (a naive Σ dx·dy underflows to 0/0 for the first input, overflows for the second)
        let r = pearson(
            &[1e-300, 2e-300, 3e-300, 4e-300, 5e-300],
            &[5e300, 6e300, 7e300, 8e300, 7e300],
        )
        .unwrap();
        assert!((r - 0.8320502943378436).abs() < 1e-15, "{r}");
        // scipy: ‖xm‖ overflows to inf, xm / inf = 0, statistic == 0.0
        let r = pearson(
            &[
                -1.1271052071752213e308,
                1.1909203969616623e308,
                1.2664294527528872e308,
            ],
            &[
                -0.5919202762678613,
                1.5130830656115504,
                -0.11163367012354396,
            ],
        );
        assert_eq!(r, Ok(0.0));
        // scipy: the mean of [1.7e308, 1.6e308] overflows: statistic is nan (n = 2 included)
        assert!(matches!(
            pearson(&[1.7e308, 1.6e308], &[1.0, 2.0]),
            Err(MetricError::Undefined { .. })
        ));
    }
}
