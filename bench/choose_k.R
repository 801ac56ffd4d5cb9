# R's rules for choosing k, one per call, for bench/choose_k.py.
#
#   Rscript bench/choose_k.R DATA.csv METHOD KMAX SEED [LABELS_OUT.csv]
#
# DATA.csv: a header row and numeric columns only (the z-scored features).
# METHOD:
#   gap          cluster::clusGap(x, kmeans, K.max=KMAX, B=50, nstart=10),
#                k = maxSE(gap, SE.sim, "firstSEmax") (may be 1: K.max counts k = 1)
#   ps           fpc::prediction.strength(x, Gmin=2, Gmax=KMAX, M=50, cutoff=0.8)$optimalk
#                (1 when no k reaches the cutoff)
#   nselectboot  fpc::nselectboot(x, clustermethod=kmeansCBI, krange=2:KMAX, B=50)$kopt
#   kmeans       kmeans(x, k, nstart=10) for k = 2..KMAX, labels written to LABELS_OUT.csv
#                (one column per k), for the NMI of the R rows
# Prints one JSON object on stdout: the chosen k, the method's elapsed seconds (the
# call only, not R's start or loading the packages) and the method's curve.
suppressPackageStartupMessages({
  library(cluster)
  library(fpc)
})

args <- commandArgs(trailingOnly = TRUE)
if (length(args) < 4) stop("usage: choose_k.R DATA.csv METHOD KMAX SEED [LABELS_OUT.csv]")
x <- as.matrix(read.csv(args[1]))
method <- args[2]
kmax <- as.integer(args[3])
set.seed(as.integer(args[4]))

num <- function(v) {
  v <- as.numeric(v)
  s <- ifelse(is.finite(v), formatC(v, digits = 10, format = "g"), "null")
  paste0("[", paste(trimws(s), collapse = ","), "]")
}

t0 <- proc.time()[["elapsed"]]
if (method == "gap") {
  g <- suppressWarnings(clusGap(x, FUNcluster = kmeans, K.max = kmax, B = 50, nstart = 10,
                                verbose = FALSE))
  tab <- g$Tab
  k <- maxSE(tab[, "gap"], tab[, "SE.sim"], method = "firstSEmax")
  extra <- paste0('"gap":', num(tab[, "gap"]), ',"se":', num(tab[, "SE.sim"]))
} else if (method == "ps") {
  ps <- suppressWarnings(prediction.strength(x, Gmin = 2, Gmax = kmax, M = 50, cutoff = 0.8))
  k <- ps$optimalk
  extra <- paste0('"mean_pred":', num(unlist(ps$mean.pred)))
} else if (method == "nselectboot") {
  nb <- suppressWarnings(nselectboot(x, clustermethod = kmeansCBI, krange = 2:kmax, B = 50))
  k <- nb$kopt
  extra <- paste0('"stabk":', num(nb$stabk))
} else if (method == "kmeans") {
  if (length(args) < 5) stop("kmeans needs LABELS_OUT.csv")
  lab <- sapply(2:kmax, function(kk) suppressWarnings(kmeans(x, kk, nstart = 10))$cluster)
  colnames(lab) <- paste0("k", 2:kmax)
  write.csv(lab, args[5], row.names = FALSE)
  k <- NA
  extra <- '"labels":true'
} else {
  stop(paste("unknown method", method))
}
secs <- proc.time()[["elapsed"]] - t0
cat(sprintf('{"k":%s,"seconds":%.3f,%s}\n', if (is.na(k)) "null" else k, secs, extra))
