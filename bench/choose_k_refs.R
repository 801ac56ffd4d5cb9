# Reference values from R for the Rust tests of the sweep's k rules, on fixed
# inputs (no RNG in the numbers printed):
#   (a) cluster::maxSE, methods firstSEmax and Tibs2001SEmax (and the other three);
#   (b) clusGap's W_k and log W_k for fixed partitions of a fixed small data set;
#   (c) fpc's prediction strength for fixed test clusterings and training-centroid
#       assignments.
#
#   Rscript bench/choose_k_refs.R
suppressPackageStartupMessages({
  library(cluster)
  library(fpc)
})
f10 <- function(v) paste(trimws(formatC(v, digits = 10, format = "g")), collapse = ", ")
cat("cluster", format(packageVersion("cluster")), " fpc", format(packageVersion("fpc")), "\n")

# (a) maxSE: the index (1-based, k = index when the vector starts at k = 1).
cat("\n(a) maxSE\n")
cases <- list(
  list(f = c(0.10, 0.35, 0.52, 0.50, 0.58, 0.57), se = c(0.02, 0.03, 0.03, 0.04, 0.03, 0.05)),
  list(f = c(0.10, 0.20, 0.30, 0.40, 0.50), se = c(0.01, 0.01, 0.01, 0.01, 0.01)),
  list(f = c(0.50, 0.45, 0.60, 0.62, 0.20), se = c(0.10, 0.05, 0.10, 0.05, 0.05))
)
for (i in seq_along(cases)) {
  cs <- cases[[i]]
  cat(sprintf("case %d: f = c(%s); SE.f = c(%s)\n", i, f10(cs$f), f10(cs$se)))
  for (m in c("firstSEmax", "Tibs2001SEmax", "globalSEmax", "firstmax", "globalmax")) {
    cat(sprintf("  %-13s -> %d\n", m, maxSE(cs$f, cs$se, method = m)))
  }
}

# (b) clusGap's W.k: 0.5 * sum over clusters r of sum(dist(x_r)^d.power) / n_r, dist()
# over unordered pairs. clusGap's default is d.power = 1 (plain distances); d.power = 2
# (squared, Tibshirani et al.) gives half the within-cluster sum of squares.
cat("\n(b) clusGap W_k\n")
x <- rbind(c(0, 0), c(1, 0), c(0, 2), c(5, 5), c(6, 5), c(5, 7), c(6, 8),
           c(10, 0), c(11, 1), c(10, 2))
parts <- list(
  rep(1L, 10),
  c(1L, 1L, 1L, 2L, 2L, 2L, 2L, 2L, 2L, 2L),
  c(1L, 1L, 1L, 2L, 2L, 2L, 2L, 3L, 3L, 3L),
  c(1L, 1L, 1L, 2L, 2L, 2L, 4L, 3L, 3L, 3L)
)
cat("x (rows) =", paste(apply(x, 1, function(r) sprintf("(%g, %g)", r[1], r[2])), collapse = " "), "\n")
wk <- function(X, clus, d.power) {
  0.5 * sum(vapply(split(seq_len(nrow(X)), clus), function(I) {
    xs <- X[I, , drop = FALSE]
    sum(dist(xs)^d.power / nrow(xs))
  }, 0))
}
for (dp in c(1, 2)) {
  w <- sapply(parts, function(p) wk(x, p, dp))
  # The same from clusGap itself (its logW column uses no random numbers; B = 1 reference
  # set is drawn but not printed).
  fixed <- function(X, k) list(cluster = if (nrow(X) == 10 && all(X == x)) parts[[k]] else
    rep_len(seq_len(k), nrow(X)))
  set.seed(1)
  g <- clusGap(x, FUNcluster = fixed, K.max = 4, B = 1, d.power = dp, verbose = FALSE)
  cat(sprintf("d.power = %d%s\n", dp, if (dp == 1) " (clusGap's default)" else ""))
  for (k in 1:4) {
    cat(sprintf("  k = %d partition c(%s): W_k = %s, log W_k = %s\n", k,
                paste(parts[[k]], collapse = ","), f10(w[k]), f10(log(w[k]))))
  }
  cat("  equal to clusGap's logW column:", isTRUE(all.equal(unname(g$Tab[, "logW"]), log(w),
                                                               tolerance = 1e-14)), "\n")
}

# (c) prediction strength, as fpc::prediction.strength computes it for one half: for
# each test cluster kk in 1..k, the share of ordered pairs of its points that the
# training centroids also put together, sum_c (n_kc^2 - n_kc) / (n_k (n_k - 1)); a
# cluster with n_k <= 1 (a singleton, or a label in 1..k no test point has) counts 1.
# The half's value is the min over kk; fpc averages the two halves' values, then
# over the M splits.
cat("\n(c) prediction strength\n")
ps_half <- function(test, assign, k) {
  ct <- fpc:::xtable(test, assign, k)
  sapply(1:k, function(kk) {
    nik <- sum(test == kk)
    if (nik > 1) sum(ct[kk, ]^2 - ct[kk, ]) / (nik * (nik - 1)) else 1
  })
}
# Case 1: 8 test points assigned to the 2 centroids of a training half by fpc's own
# classifnp, as prediction.strength calls it (the training points keep their labels,
# the test points are -1; nearest centroid, no ties), test clustering given.
xtr <- rbind(c(0, 0), c(1, 0), c(3, 0), c(3.4, 0))
cent <- rbind(c(0.5, 0), c(3.2, 0))
xt <- rbind(c(0, 0), c(0.5, 0.2), c(1.4, 0), c(2.6, 0.1), c(3, 0), c(3.5, 0.5), c(4, 0), c(0.2, 0.4))
assign1 <- classifnp(rbind(xtr, xt), c(1L, 1L, 2L, 2L, rep(-1L, nrow(xt))), method = "centroid",
                     centroids = cent)[-(1:4)]
test1 <- c(1L, 1L, 1L, 1L, 2L, 2L, 2L, 1L)
# Case 2: k = 3 with a singleton test cluster and a split one (labels given).
test2 <- c(1L, 1L, 1L, 1L, 2L, 2L, 2L, 2L, 2L, 3L)
assign2 <- c(1L, 1L, 2L, 2L, 3L, 3L, 3L, 1L, 3L, 2L)
# Case 3: k = 3, test label 3 unused (n_3 = 0 counts 1), a cluster split 3 ways.
test3 <- c(1L, 1L, 1L, 1L, 1L, 1L, 2L, 2L, 2L)
assign3 <- c(1L, 1L, 2L, 2L, 3L, 3L, 2L, 2L, 2L)
cat("case 1: test points (rows) =",
    paste(apply(xt, 1, function(r) sprintf("(%g, %g)", r[1], r[2])), collapse = " "), "\n")
cat("        training centroids =", paste(apply(cent, 1, function(r) sprintf("(%g, %g)", r[1], r[2])),
                                        collapse = " "), "\n")
for (cs in list(list(1, test1, assign1, 2), list(2, test2, assign2, 3), list(3, test3, assign3, 3))) {
  v <- ps_half(cs[[2]], cs[[3]], cs[[4]])
  cat(sprintf("case %d: k = %d, test clustering c(%s), training assignment c(%s)\n", cs[[1]], cs[[4]],
              paste(cs[[2]], collapse = ","), paste(cs[[3]], collapse = ",")))
  cat(sprintf("  per cluster = %s; min = %s\n", f10(v), f10(min(v))))
}
cat(sprintf("one split's value is the mean of its two halves' mins; cases 2 and 3 as the halves of a k = 3 split: %s\n",
            f10(mean(c(min(ps_half(test2, assign2, 3)), min(ps_half(test3, assign3, 3)))))))
