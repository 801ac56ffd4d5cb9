#!/usr/bin/env bash
# Drives the real binary in tmux as a user would: opens leukemia with
# LW-k-means (unscaled by default, as the paper), raises λ and shows the Feature weights pane switching
# features off, changes the algorithm, and quits. Each screen is saved
# under bench/out/tui_demo/ and printed.
#
#   scripts/tui_demo.sh [DATA]     (default ../shared/data/leukemia.csv)
set -euo pipefail
cd "$(dirname "$0")/.."
DATA=${1:-../shared/data/leukemia.csv}
BIN=target/release/meanscape
OUT=bench/out/tui_demo
SESSION=meanscape-demo
[ -f "$DATA" ] || { echo "no $DATA" >&2; exit 1; }
cargo build --release -q
mkdir -p "$OUT"
tmux kill-session -t "$SESSION" 2>/dev/null || true
tmux new-session -d -s "$SESSION" -x 120 -y 40 "$BIN tui --data $DATA --algo lw"

screen() { tmux capture-pane -p -t "$SESSION"; }
# Waits until the screen matches a regex (and the run is not still going).
wait_for() {
  for _ in $(seq 1 300); do
    if screen | grep -Eq "$1" && ! screen | grep -q "state     running"; then return 0; fi
    sleep 0.2
  done
  echo "timed out waiting for: $1" >&2; screen >&2; exit 1
}
save() { screen > "$OUT/$1.txt"; echo "=== $1"; cat "$OUT/$1.txt"; }
selected() { screen | grep -Eo 'Feature weights · [0-9]+/[0-9]+' | head -1; }

wait_for "state     (converged|stopped)"
save 1_lw_default_lambda
before=$(selected)

# The Parameters pane has the focus; λ is the fourth slider (after k, seed,
# restarts). → is one fine step up (a factor on this log-scale slider).
tmux send-keys -t "$SESSION" Down Down Down
for _ in 1 2 3 4 5; do tmux send-keys -t "$SESSION" Right; sleep 0.1; done
sleep 0.5
wait_for "state     (converged|stopped)"
save 2_lw_larger_lambda
after=$(selected)
echo "Feature weights: '$before' -> '$after'"

# Focus the Algorithm pane (key 2) and move to the algorithm above (wkmeans).
tmux send-keys -t "$SESSION" 2 Up
sleep 0.5
wait_for "● wkmeans"
wait_for "state     (converged|stopped)"
save 3_wkmeans

tmux send-keys -t "$SESSION" q
sleep 0.5
if tmux has-session -t "$SESSION" 2>/dev/null; then
  echo "still running after q" >&2; tmux kill-session -t "$SESSION"; exit 1
fi
echo "quit cleanly"
