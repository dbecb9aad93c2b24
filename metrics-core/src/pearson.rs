//! Pearson product-moment correlation.
//!
//! Reference: `scipy.stats.pearsonr(x, y).statistic`.
//!
//! ```text
//! r = Σ (x_i − x̄)(y_i − ȳ) / ( sqrt(Σ (x_i − x̄)²) · sqrt(Σ (y_i − ȳ)²) ),  clipped to [−1, 1]
//! ```
//! Like scipy: n = 2 gives exactly ±1; a constant input is undefined (scipy warns and returns
//! NaN; here [`MetricError::Undefined`]); n < 2 is an error. scipy computes the sums with BLAS,
//! so agreement is to ~1e-15, not bit for bit.

use crate::error::MetricError;

pub fn pearson(x: &[f64], y: &[f64]) -> Result<f64, MetricError> {
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
    if n == 2 {
        let sign = (x[1] - x[0]).signum() * (y[1] - y[0]).signum();
        return Ok(sign);
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
}
