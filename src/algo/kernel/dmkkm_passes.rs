//! The passes of DMKKM (and MKKM) over all their kernels, by row blocks of
//! the stored Gram matrices (`Gram::row_block`, each tile read once and
//! contiguously), with a fixed task per block so the sums never depend on
//! the thread count: the kernel products M, the alignments d with a
//! partition, and the combined kernel K_α.

use crate::error::Result;
use crate::kernel::Gram;
use crate::solver::reduce::fold_blocks;
use crate::solver::{Ctx, Problem};
use ndarray::Array2;
use rayon::prelude::*;
use std::sync::Arc;

crate::solver::cache::cache_key! {
    /// The kernels' products ⟨K_p, K_q⟩_F, under the kernels' keys.
    ProductsKey => Vec<f64>
}

/// M_pq = ⟨K_p, K_q⟩_F, v×v row-major, cached on the problem under the
/// kernels' keys. One task per row block of the kernels, summed in block
/// order.
pub fn gram_products(
    problem: &Problem,
    gs: &[Arc<Gram>],
    ident: &str,
    ctx: &Ctx,
) -> Result<Arc<Vec<f64>>> {
    let key = ProductsKey(format!("dmkkm:M|{ident}"));
    problem.cached(&key, || {
        ctx.check()?;
        let label = "dmkkm: kernel products ⟨K_p, K_q⟩";
        ctx.stage(label, 0.0);
        let v = gs.len();
        let mut m = fold_blocks(
            gs[0].row_blocks().len(),
            1,
            |blocks| {
                let mut acc = vec![0.0; v * v];
                for bi in blocks {
                    // Two blocks held at a time, not v.
                    for p in 0..v {
                        let bp = gs[p].row_block(bi);
                        acc[p * v + p] += dot(&bp, &bp);
                        for q in p + 1..v {
                            let bq = gs[q].row_block(bi);
                            acc[p * v + q] += dot(&bp, &bq);
                        }
                    }
                }
                acc
            },
            vec![0.0; v * v],
            add_into,
        );
        for p in 0..v {
            for q in 0..p {
                m[p * v + q] = m[q * v + p];
            }
        }
        ctx.stage(label, 1.0);
        Ok(m)
    })
}

fn dot(a: &Array2<f64>, b: &Array2<f64>) -> f64 {
    let (a, b) = (a.as_slice().expect("dense"), b.as_slice().expect("dense"));
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

fn add_into(mut tot: Vec<f64>, part: Vec<f64>) -> Vec<f64> {
    for (t, p) in tot.iter_mut().zip(part) {
        *t += p;
    }
    tot
}

/// d_p = Σ_l A_l(K_p)/n_l = ⟨K_p, P⟩_F for every kernel: one pass over the
/// rows, summing each row within the point's own cluster.
pub fn cluster_alignment(gs: &[Arc<Gram>], labels: &[usize], k: usize) -> Vec<f64> {
    let v = gs.len();
    let mut sizes = vec![0usize; k];
    for &l in labels {
        sizes[l] += 1;
    }
    let ranges = gs[0].row_blocks();
    fold_blocks(
        ranges.len(),
        1,
        |blocks| {
            let mut acc = vec![0.0; v];
            for bi in blocks {
                let r0 = ranges[bi].start;
                for (p, g) in gs.iter().enumerate() {
                    let block = g.row_block(bi);
                    for (ii, row) in block.rows().into_iter().enumerate() {
                        let li = labels[r0 + ii];
                        let mut s = 0.0;
                        for (x, &lj) in row.iter().zip(labels) {
                            if lj == li {
                                s += x;
                            }
                        }
                        acc[p] += s / sizes[li] as f64;
                    }
                }
            }
            acc
        },
        vec![0.0; v],
        add_into,
    )
}

/// K_α = Σ_p α_p K_p, dense (row i is contiguous for the F-step); each row
/// block summed by one task in kernel order.
pub fn combine(gs: &[Arc<Gram>], alpha: &[f64]) -> Array2<f64> {
    let n = gs[0].n();
    let mut out = Array2::<f64>::zeros((n, n));
    let slice = out.as_slice_mut().expect("standard layout");
    // Row blocks are full except the last, so chunks of the first block's
    // height line up with them.
    let height = gs[0].row_blocks().first().map_or(1, |r| r.len().max(1));
    slice
        .par_chunks_mut(height * n.max(1))
        .enumerate()
        .for_each(|(bi, chunk)| {
            for (g, &a) in gs.iter().zip(alpha) {
                if a != 0.0 {
                    let block = g.row_block(bi);
                    let src = block.as_slice().expect("dense");
                    for (o, x) in chunk.iter_mut().zip(src) {
                        *o += a * x;
                    }
                }
            }
        });
    out
}
