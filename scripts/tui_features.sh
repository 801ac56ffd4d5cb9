#!/usr/bin/env bash
# The feature-selection job in the real binary, driven in tmux as a user
# would: leukemia with LW-k-means, the regularisation path (p), the cursor
# moved to about 30 genes and Enter to run there, the feature inspector (i)
# and its export of the selected names (e), a filter (/), and the confusion
# matrix with the per-cluster profiles (t). Each screen is saved under
# bench/out/tui_features/ and printed.
#
#   scripts/tui_features.sh [DATA] [GENES]   (default leukemia, 30 genes)
set -euo pipefail
cd "$(dirname "$0")/.."
DATA=${1:-../shared/data/leukemia.csv}
GENES=${2:-30}
BIN=target/release/meanscape
OUT=bench/out/tui_features
SESSION=meanscape-features
[ -f "$DATA" ] || { echo "no $DATA" >&2; exit 1; }
cargo build --release -q
mkdir -p "$OUT"
NAMES=$(realpath "$OUT")/selected_genes.txt
rm -f "$NAMES"
tmux kill-session -t "$SESSION" 2>/dev/null || true
tmux new-session -d -s "$SESSION" -x 120 -y 40 "$BIN tui --data $DATA --algo lw"

screen() { tmux capture-pane -p -t "$SESSION"; }
wait_for() {
  for _ in $(seq 1 600); do
    if screen | grep -Eq "$1"; then return 0; fi
    sleep 0.2
  done
  echo "timed out waiting for: $1" >&2; screen >&2; exit 1
}
save() { screen > "$OUT/$1.txt"; echo "=== $1"; cat "$OUT/$1.txt"; }
# The number of features selected at the path's cursor.
at_cursor() { screen | grep -Eo 'cursor λ [^·]+· [0-9]+ of' | grep -Eo '[0-9]+ of' | grep -Eo '[0-9]+'; }

wait_for "state     (converged|stopped)"
# Focus Feature weights (7), show the path (p).
tmux send-keys -t "$SESSION" 7 p
wait_for "cursor λ"
save 1_path

# → moves the cursor to larger λ (fewer genes): stop at GENES or below.
for _ in $(seq 1 40); do
  n=$(at_cursor)
  [ "$n" -le "$GENES" ] && break
  tmux send-keys -t "$SESSION" Right
  sleep 0.2
done
echo "cursor at $(at_cursor) genes"
save 2_path_cursor
tmux send-keys -t "$SESSION" Enter
sleep 1
wait_for "cursor λ"
save 3_path_applied

# The inspector, then export the selected names to $NAMES.
tmux send-keys -t "$SESSION" i
wait_for "inspector"
save 4_inspector
tmux send-keys -t "$SESSION" e
sleep 0.3
tmux send-keys -t "$SESSION" C-u
tmux send-keys -t "$SESSION" -l "$NAMES"
tmux send-keys -t "$SESSION" Enter
wait_for "wrote the [0-9]+ selected names"
save 5_exported
echo "$(wc -l < "$NAMES") names in $NAMES"

# Filter by name, then the confusion matrix and profiles.
tmux send-keys -t "$SESSION" /
tmux send-keys -t "$SESSION" -l "f1"
tmux send-keys -t "$SESSION" Enter
sleep 0.3
save 6_filtered
tmux send-keys -t "$SESSION" Escape Escape 8 t
wait_for "Confusion"
save 7_confusion

tmux send-keys -t "$SESSION" q
sleep 0.5
if tmux has-session -t "$SESSION" 2>/dev/null; then
  echo "still running after q" >&2; tmux kill-session -t "$SESSION"; exit 1
fi
echo "quit cleanly"
