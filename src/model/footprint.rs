//! What a model costs in memory, from its dimensions alone: the arrays it
//! stores, what predicting prepares once (an rff map's frequencies), and
//! the work per row of a block. The same numbers serve the check made
//! before a file's arrays are built (from the outline) and the block size
//! of [`super::Model::predict`] (from the model).

use crate::memory::{Budget, fmt_need};

/// Bytes of an f64 or usize.
const W: u128 = 8;

/// Aim for blocks of rows whose work is about this many bytes.
const BLOCK_BYTES: u128 = 8 << 20;

/// The dimensions that decide the memory.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Dims {
    pub k: u64,
    pub p: u64,
    pub shape: Shape,
}

#[derive(Debug, Clone, PartialEq)]
pub(super) enum Shape {
    Centroids,
    Weighted,
    /// n training rows; per kernel, whether it stores the centring and
    /// normalising statistics (n values each).
    Kernel {
        n: u64,
        kernels: Vec<(bool, bool)>,
    },
    /// Per map: columns read, D.
    Rff {
        maps: Vec<(u64, u64)>,
    },
}

impl Dims {
    /// The arrays the model stores, with where they are (for messages).
    pub fn parts(&self) -> Vec<(String, u128)> {
        let (k, p) = (u128::from(self.k), u128::from(self.p));
        let mut out = vec![
            ("fit.sizes".to_string(), k * W),
            ("scaling".to_string(), 3 * p * W),
        ];
        match &self.shape {
            Shape::Centroids => out.push(("model.centroids".into(), k * p * W)),
            Shape::Weighted => {
                out.push(("model.centroids".into(), k * p * W));
                out.push(("model's per-feature arrays".into(), 4 * p * W));
            }
            Shape::Kernel { n, kernels } => {
                let n = u128::from(*n);
                out.push(("model.train".into(), n * p * W));
                out.push(("model.labels".into(), n * W));
                for (i, (c, z)) in kernels.iter().enumerate() {
                    let per = k + n * (u128::from(*c) + u128::from(*z));
                    out.push((format!("model.kernels[{i}]"), per * W));
                }
            }
            Shape::Rff { maps } => {
                for (i, &(_, d)) in maps.iter().enumerate() {
                    out.push((
                        format!("model.maps[{i}].centres"),
                        k * 2 * u128::from(d) * W,
                    ));
                }
            }
        }
        out
    }

    /// What predicting prepares once: the rff frequencies (columns × D per
    /// map), the norms of centres and training rows, cluster counts.
    pub fn prepared(&self) -> Vec<(String, u128)> {
        let k = u128::from(self.k);
        match &self.shape {
            Shape::Centroids | Shape::Weighted => vec![("the centres' norms".into(), k * W)],
            Shape::Kernel { n, kernels } => vec![(
                "the training rows' norms".into(),
                (u128::from(*n) * kernels.len() as u128 + k) * W,
            )],
            Shape::Rff { maps } => maps
                .iter()
                .enumerate()
                .map(|(i, &(c, d))| {
                    (
                        format!("the frequencies of model.maps[{i}] ({c} × {d})"),
                        (u128::from(c) * u128::from(d) + k) * W,
                    )
                })
                .collect(),
        }
    }

    /// Bytes of work per row of a block: its distances, its mapped or
    /// standardised copy, its kernel values with every training row, its
    /// random features.
    pub fn per_row(&self) -> u128 {
        let (k, p) = (u128::from(self.k), u128::from(self.p));
        let base = 3 * k * W + 2 * p * W;
        base + match &self.shape {
            Shape::Centroids | Shape::Weighted => 0,
            Shape::Kernel { n, .. } => 2 * u128::from(*n) * W,
            // The features (2D), their arguments (D) and map_rows' own
            // row buffer (2D), with room for the norms.
            Shape::Rff { maps } => maps
                .iter()
                .map(|&(_, d)| 6 * u128::from(d) * W)
                .max()
                .unwrap_or(0),
        }
    }

    /// Rows per block: about [`BLOCK_BYTES`] of work, between 1 and `max`.
    pub fn block_rows(&self, max: usize) -> usize {
        let rows = BLOCK_BYTES / self.per_row().max(1);
        usize::try_from(rows).unwrap_or(usize::MAX).clamp(1, max)
    }

    /// The peak of predicting `rows` rows with `threads` blocks at once,
    /// the model's arrays included (not the data's own).
    pub fn predict_need(&self, rows: u64, threads: usize, max_block: usize) -> u128 {
        let stored: u128 = self.parts().iter().map(|(_, b)| b).sum();
        let prepared: u128 = self.prepared().iter().map(|(_, b)| b).sum();
        let block = self.block_rows(max_block) as u128 * self.per_row();
        let rows = u128::from(rows);
        // The scaled copy of the rows and their labels.
        let data = rows * (u128::from(self.p) + 1) * W;
        stored + prepared + threads as u128 * block + data
    }

    /// Refuses (one line, naming `origin` and the largest part) a model
    /// whose reading or predicting needs more than the budget: `text` is
    /// the file's length (read, and held while its arrays are built, which
    /// may take twice their size as they grow).
    pub fn check(
        &self,
        origin: &str,
        text: u64,
        budget: &Budget,
        max_block: usize,
    ) -> crate::Result<()> {
        let parts = self.parts();
        let stored: u128 = parts.iter().map(|(_, b)| b).sum();
        let reading = 2 * u128::from(text) + 2 * stored;
        let threads = rayon::current_num_threads();
        let predicting = self.predict_need(1, threads, max_block);
        let need = reading.max(predicting);
        if need <= u128::from(budget.limit) {
            return Ok(());
        }
        let mut all = parts;
        all.extend(self.prepared());
        all.push((
            format!("a block of rows to predict, on {threads} threads"),
            threads as u128 * self.per_row(),
        ));
        all.sort_by_key(|b| std::cmp::Reverse(b.1));
        let what = all
            .iter()
            .take(2)
            .filter(|(_, b)| *b > 0)
            .map(|(w, b)| format!("{w}: {}", fmt_need(*b)))
            .collect::<Vec<_>>()
            .join(", ");
        budget.check(
            origin,
            need,
            &format!("{} declared; {what}", self.summary()),
        )
    }

    /// The declared sizes, for messages: `k = 3, n_features = 4, D = 1000000`.
    fn summary(&self) -> String {
        let mut s = format!("k = {}, n_features = {}", self.k, self.p);
        match &self.shape {
            Shape::Kernel { n, .. } => s.push_str(&format!(", {n} training rows")),
            Shape::Rff { maps } => {
                let d: Vec<String> = maps.iter().map(|(_, d)| d.to_string()).collect();
                s.push_str(&format!(", D = {}", d.join("/")));
            }
            _ => {}
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn big_declared_sizes_are_refused_with_the_largest_part() {
        let d = Dims {
            k: 3,
            p: 4,
            shape: Shape::Rff {
                maps: vec![(4, 1_000_000)],
            },
        };
        let b = Budget::from_limit(Some(100 << 20));
        let e = d.check("m.json", 1000, &b, 256).unwrap_err().to_string();
        assert!(e.starts_with("m.json: loading it needs"), "{e}");
        assert!(
            e.contains("D = 1000000") && e.contains("model.maps[0].centres"),
            "{e}"
        );
        // One row per block when a row's work is tens of megabytes.
        assert_eq!(d.block_rows(256), 1);
        let small = Dims {
            k: 3,
            p: 4,
            shape: Shape::Centroids,
        };
        assert_eq!(small.block_rows(256), 256);
        assert!(small.check("m.json", 1000, &b, 256).is_ok());
    }
}
