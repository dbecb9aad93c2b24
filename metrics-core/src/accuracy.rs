//! Accuracy: the share of exact matches.
//!
//! Reference: `sklearn.metrics.accuracy_score(gold, pred)`.
//!
//! ```text
//! accuracy = #{i : gold_i = pred_i} / n
//! ```
//! Values compare as floats (1 and 1.0 match). An empty input is an error, as in
//! scikit-learn, where it raises.

use crate::error::MetricError;

pub fn accuracy(gold: &[f64], pred: &[f64]) -> Result<f64, MetricError> {
    if gold.len() != pred.len() {
        return Err(MetricError::LengthMismatch {
            left: gold.len(),
            right: pred.len(),
        });
    }
    if gold.is_empty() {
        return Err(MetricError::Empty);
    }
    let hits = gold.iter().zip(pred).filter(|(g, p)| g == p).count();
    Ok(hits as f64 / gold.len() as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sklearn_reference() {
        // sklearn.metrics.accuracy_score([0, 1, 2, 3], [0, 2, 2, 2]) == 0.5
        assert_eq!(
            accuracy(&[0.0, 1.0, 2.0, 3.0], &[0.0, 2.0, 2.0, 2.0]),
            Ok(0.5)
        );
        // sklearn.metrics.accuracy_score([1, 2, 3], [1, 2, 0]) == 0.6666666666666666
        assert_eq!(
            accuracy(&[1.0, 2.0, 3.0], &[1.0, 2.0, 0.0]),
            Ok(0.6666666666666666)
        );
    }

    #[test]
    fn bad_shapes() {
        assert_eq!(accuracy(&[], &[]), Err(MetricError::Empty));
        assert_eq!(
            accuracy(&[1.0], &[]),
            Err(MetricError::LengthMismatch { left: 1, right: 0 })
        );
    }
}
