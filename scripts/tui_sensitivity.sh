#!/usr/bin/env bash
# The sensitivity job in the real binary, driven in tmux as a user would:
# power k-means on seeds.csv, s0 and eta marked as sweep axes (m), a
# 6 x 6 sweep with 5 seeds per cell (S), the heatmap filling in, the
# numbers (n), the cursor to the best cell (b) and Enter to run it, then the
# History (9) with the default run and the best cell's run pinned and
# compared (m, v). A k-scan (K) last. Each screen is saved under
# bench/out/tui_sensitivity/ and printed.
#
#   scripts/tui_sensitivity.sh [DATA]   (default ../shared/data/seeds.csv)
set -euo pipefail
cd "$(dirname "$0")/.."
DATA=${1:-../shared/data/seeds.csv}
BIN=target/release/meanscape
OUT=bench/out/tui_sensitivity
SESSION=meanscape-sensitivity
[ -f "$DATA" ] || { echo "no $DATA" >&2; exit 1; }
cargo build --release -q
mkdir -p "$OUT"
tmux kill-session -t "$SESSION" 2>/dev/null || true
tmux new-session -d -s "$SESSION" -x 120 -y 40 "$BIN tui --data $DATA --algo power"
trap 'tmux kill-session -t "$SESSION" 2>/dev/null || true' EXIT

screen() { tmux capture-pane -p -t "$SESSION"; }
wait_for() {
  for _ in $(seq 1 600); do
    if screen | grep -Eq "$1"; then return 0; fi
    sleep 0.2
  done
  echo "timed out waiting for: $1" >&2; screen >&2; exit 1
}
save() { screen > "$OUT/$1.txt"; echo "=== $1"; cat "$OUT/$1.txt"; }

wait_for "converged"
# Parameters (3): s0 is the fourth slider, eta the fifth; mark both.
tmux send-keys -t "$SESSION" 3 Down Down Down m Down m
wait_for "sweep axes: s0 × eta"
save 1_marked
tmux send-keys -t "$SESSION" S
wait_for "Sweep"
tmux send-keys -t "$SESSION" C-u
tmux send-keys -t "$SESSION" -l "s0=-10:-0.1:6:log eta=1.01:1.3:6 seeds=5"
tmux send-keys -t "$SESSION" Enter
wait_for "36 cells in"
save 2_heatmap
tmux send-keys -t "$SESSION" n
save 3_numbers
# The best cell by NMI, run with Enter.
tmux send-keys -t "$SESSION" b
sleep 0.3
save 4_best_cell
tmux send-keys -t "$SESSION" Enter
sleep 1
wait_for "converged|stopped at"
# The History: the default run (#1) and the best cell's (#2), pinned and
# compared.
tmux send-keys -t "$SESSION" 9
wait_for "History"
tmux send-keys -t "$SESSION" m Up m v
wait_for "compare"
save 5_compare
# A k-scan, from the panes.
tmux send-keys -t "$SESSION" v 3 K
wait_for "k-scan .* cells in"
save 6_kscan
tmux send-keys -t "$SESSION" q
echo "screens in $OUT"
