//! Confusion matrix of gold × predicted values: the data behind the heat map.
//!
//! ```text
//! labels     = sorted distinct values of gold ∪ pred
//! counts[i][j] = #{r : gold_r = labels[i], pred_r = labels[j]}   (row = gold, column = predicted)
//! ```
//! Same layout as scikit-learn `confusion_matrix(gold, pred)`.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConfusionMatrix {
    pub labels: Vec<f64>,
    /// Row-major, `labels.len()²` counts; row = gold, column = predicted.
    pub counts: Vec<u64>,
}

impl ConfusionMatrix {
    pub fn new(gold: &[f64], pred: &[f64]) -> Self {
        let mut labels: Vec<f64> = gold
            .iter()
            .chain(pred)
            .copied()
            .filter(|v| v.is_finite())
            .collect();
        labels.sort_by(f64::total_cmp);
        labels.dedup();
        let k = labels.len();
        let mut counts = vec![0; k * k];
        let index = |v: f64| labels.binary_search_by(|l| l.total_cmp(&v)).ok();
        for (&g, &p) in gold.iter().zip(pred) {
            if let (Some(i), Some(j)) = (index(g), index(p)) {
                counts[i * k + j] += 1;
            }
        }
        Self { labels, counts }
    }

    pub fn size(&self) -> usize {
        self.labels.len()
    }

    /// Count of records with gold label `i` and predicted label `j` (by rank).
    pub fn count(&self, gold_rank: usize, pred_rank: usize) -> u64 {
        self.counts[gold_rank * self.size() + pred_rank]
    }

    pub fn max_count(&self) -> u64 {
        self.counts.iter().copied().max().unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_gold_columns_are_predicted() {
        // sklearn.metrics.confusion_matrix([0, 1, 2, 2], [0, 2, 2, 1]) -> [[1,0,0],[0,0,1],[0,1,1]]
        let cm = ConfusionMatrix::new(&[0.0, 1.0, 2.0, 2.0], &[0.0, 2.0, 2.0, 1.0]);
        assert_eq!(cm.labels, vec![0.0, 1.0, 2.0]);
        assert_eq!(cm.counts, vec![1, 0, 0, 0, 0, 1, 0, 1, 1]);
        assert_eq!(cm.count(1, 2), 1);
        assert_eq!(cm.max_count(), 1);
    }
}
