//! Accuracy: the share of exact matches.
//!
//! Reference: `sklearn.metrics.accuracy_score(gold, pred)`.
//!
//! ```text
//! accuracy = #{i : gold_i = pred_i} / n
//! ```
//! Values compare as floats (1 and 1.0 match). An empty input is an error, and NaN, infinite
//! and non-integer values are undefined: scikit-learn raises on all of them ("continuous is
//! not supported"), see [`crate::qwk`].

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
    crate::qwk::check_classification_targets(gold)?;
    crate::qwk::check_classification_targets(pred)?;
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

    #[test]
    fn non_integer_and_non_finite_labels_are_undefined_as_in_sklearn() {
        // sklearn.metrics.accuracy_score([2.5, 3], [2.5, 3]) and accuracy_score([nan], [nan])
        // raise ValueError; accuracy_score([1, 2, 3], [1, 2, 3.0]) == 1.0
        assert!(accuracy(&[2.5, 3.0], &[2.5, 3.0]).is_err());
        assert!(accuracy(&[f64::NAN], &[f64::NAN]).is_err());
        assert_eq!(accuracy(&[1.0, 2.0, 3.0], &[1.0, 2.0, 3.0]), Ok(1.0));
    }
}
