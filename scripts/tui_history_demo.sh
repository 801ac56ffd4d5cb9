#!/usr/bin/env bash
# Drives the real binary in tmux through the History: lw on iris with the
# default λ and a smaller one, the History (9), both runs pinned and
# compared, Enter re-running the first, the History exported (CSV/JSON,
# whose commands are run again here), quit; then the session is opened
# again and must hold the runs, and a corrupt session file must be kept.
# Screens are saved under bench/out/tui_history/ and printed.
#
#   scripts/tui_history_demo.sh [WIDTH HEIGHT]     (default 120 40)
set -euo pipefail
cd "$(dirname "$0")/.."
W=${1:-120}
H=${2:-40}
BIN=$PWD/target/release/meanscape
OUT=bench/out/tui_history
TMP=$(mktemp -d)
SESSION=meanscape-history-demo
cargo build --release -q
mkdir -p "$OUT"
trap 'tmux kill-session -t "$SESSION" 2>/dev/null || true; rm -rf "$TMP"' EXIT

screen() { tmux capture-pane -p -t "$SESSION"; }
# Waits until the screen matches a regex.
wait_for() {
  for _ in $(seq 1 300); do
    if screen | grep -Eq "$1"; then return 0; fi
    sleep 0.2
  done
  echo "timed out waiting for: $1" >&2; screen >&2; exit 1
}
save() { screen > "$OUT/$1.txt"; echo "=== $1"; cat "$OUT/$1.txt"; }
start() {
  tmux kill-session -t "$SESSION" 2>/dev/null || true
  tmux new-session -d -s "$SESSION" -x "$W" -y "$H" "$BIN $*"
}

start --data iris --algo lw --session "$TMP/s.json"
tmux send-keys -t "$SESSION" 9
wait_for "History · 1 runs"
# λ is the fourth slider (after k, seed, restarts): typed as 0.01, which
# keeps all four features.
tmux send-keys -t "$SESSION" 3 Down Down Down Enter
tmux send-keys -t "$SESSION" 0.01 Enter 9
wait_for "History · 2 runs"
save 1_table
# Pin both (the cursor is on run 2), compare.
tmux send-keys -t "$SESSION" m Up m v
wait_for "compare A #2 with B #1"
save 2_compare
# Back to the table; Enter on run 1 re-runs it (run 3, the same scores).
tmux send-keys -t "$SESSION" v Enter
wait_for "History · 3 runs"
save 3_rerun
tmux send-keys -t "$SESSION" E C-u "$TMP/runs" Enter
wait_for "wrote .*runs.csv"
save 4_export
tmux send-keys -t "$SESSION" q
sleep 0.5
if tmux has-session -t "$SESSION" 2>/dev/null; then
  echo "still running after q" >&2; exit 1
fi
echo "=== the exported commands, run again"
tail -n +2 "$TMP/runs.csv" | awk -F, '{print $NF}' | while read -r cmd; do
  echo "\$ $cmd"
  # shellcheck disable=SC2086
  "$BIN" ${cmd#meanscape } | grep -E "NMI|selected"
done

start --session "$TMP/s.json"
wait_for "session .* restored: 3 runs"
tmux send-keys -t "$SESSION" 9
wait_for "History · 4 runs"
save 5_restored_session
tmux send-keys -t "$SESSION" q
sleep 0.5

printf '{"meanscape_session": 1, "hist' > "$TMP/bad.json"
start --session "$TMP/bad.json"
wait_for "kept as .*bad.json.corrupt-1"
save 6_corrupt_session
tmux send-keys -t "$SESSION" q
sleep 0.5
cmp <(printf '{"meanscape_session": 1, "hist') "$TMP/bad.json.corrupt-1"
echo "corrupt file kept as bad.json.corrupt-1; all done"
