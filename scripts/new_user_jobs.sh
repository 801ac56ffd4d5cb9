#!/usr/bin/env bash
# The six new-user jobs of issue 27, repeated with the real binary in tmux
# with NO_COLOR, at 120x40 and at 80x24, each screen saved under
# bench/out/new_user/SIZE/ and printed:
#
#   1 sensitivity of power k-means on seeds: s0 x eta sweep at k = 3, k
#     changed to 4, the sweep shown again (v) and its best cell run with
#     Enter: it runs at the sweep's k = 3 and says so; on usps the o
#     marker says it marks the nearest cell to the sliders;
#   2 sigma for kpower on rings: a one-axis sweep, moved with the arrows,
#     best marked, the numbers (n);
#   3 the genes of leukemia: lw's path to the end where no gene is kept
#     (no score there);
#   4 k on yeast without labels: --label none leaves the label column out
#     (the Data pane says so), a k-scan, its suggestion adopted (a);
#   5 the History at 80x24: a run's detail with its whole command;
#   6 the headless equivalents (sweep JSON with its best cells, path
#     --out/--plot, --label none) printed to bench/out/new_user/headless.txt.
#
#   scripts/new_user_jobs.sh [SIZE ...]     (default: 120x40 80x24)
set -euo pipefail
cd "$(dirname "$0")/.."
DATA=../shared/data
BIN=$PWD/target/release/meanscape
OUT=bench/out/new_user
SIZES=${*:-120x40 80x24}
for f in seeds usps leukemia yeast; do
  [ -f "$DATA/$f.csv" ] || { echo "no $DATA/$f.csv (see docs/guide/reference-data.md)" >&2; exit 1; }
done
cargo build --release -q
mkdir -p "$OUT"
SESSION=meanscape-newuser
trap 'tmux kill-session -t "$SESSION" 2>/dev/null || true' EXIT

screen() { tmux capture-pane -p -t "$SESSION"; }
keys() { tmux send-keys -t "$SESSION" "$@"; sleep 0.3; }
wait_for() {
  for _ in $(seq 1 900); do
    if screen | grep -Eq "$1"; then return 0; fi
    sleep 0.2
  done
  echo "timed out waiting for: $1" >&2; screen >&2; exit 1
}
save() { screen > "$DIR/$1.txt"; echo "=== $SIZE $1"; cat "$DIR/$1.txt"; }
start() {
  tmux kill-session -t "$SESSION" 2>/dev/null || true
  tmux new-session -d -s "$SESSION" -x "${SIZE%x*}" -y "${SIZE#*x}" "NO_COLOR=1 $BIN $*"
  wait_for "q quit"
}
done_run() { sleep 0.8; wait_for "converged|stopped at"; }
# Type a value into the focused slider's prompt.
type_value() { keys Enter; keys C-u; tmux send-keys -t "$SESSION" -l "$1"; keys Enter; }

job1_sensitivity() {
  start tui --data "$DATA/seeds.csv" --algo power
  done_run
  # Parameters (3): k is the first slider, s0 the fourth, eta the fifth.
  keys 3 Down Down Down m Down m
  keys S
  wait_for "Sweep|sweep"
  keys C-u
  tmux send-keys -t "$SESSION" -l "s0=-10:-0.1:5:log eta=1.01:1.3:5 seeds=3"
  keys Enter
  wait_for "25 cells in"
  save 1a_sweep_k3
  keys Escape
  keys 3 Up Up Up Up
  type_value 4
  done_run
  keys v
  sleep 0.5
  save 1b_sweep_after_k4
  keys b
  save 1c_best_cell
  keys Enter
  sleep 1
  done_run
  save 1d_best_cell_run
  keys q

  start tui --data "$DATA/usps.csv" --algo power
  done_run
  keys 3 Down Down Down Down S
  wait_for "Sweep|sweep"
  keys Enter
  wait_for "cells in"
  keys o
  save 1e_usps_marker
  keys q
}

job2_sigma() {
  start tui --data gen:rings,n=1000,k=10 --algo kpower --k 10
  done_run
  # Parameters (3), up to the first slider, then down to sigma: the
  # focused slider's help below the list starts with its name.
  keys 3 Up Up Up Up Up Up
  for _ in $(seq 1 10); do
    screen | grep -Eq "σ sigma \[|sigma \[" && break
    keys Down
  done
  keys S
  wait_for "Sweep|sweep"
  keys Enter
  wait_for "cells in"
  save 2a_sigma_line
  keys Right Right
  save 2b_sigma_cursor
  keys n
  save 2c_sigma_numbers
  keys q
}

job3_genes() {
  start tui --data "$DATA/leukemia.csv" --algo lw
  done_run
  keys 7 p
  wait_for "cursor λ"
  for _ in $(seq 1 45); do keys Right; done
  save 3_path_nothing_kept
  keys q
}

job4_yeast() {
  start tui --data "$DATA/yeast.csv" --label none
  done_run
  save 4a_label_none
  keys K
  wait_for "k-scan.*cells in|k-scan.*done"
  save 4b_kscan
  keys a
  sleep 1
  done_run
  save 4c_adopted
  keys q
}

job5_history() {
  start tui --data "$DATA/seeds.csv" --algo power
  done_run
  keys 3 Down Down Down Right Right
  done_run
  keys 9
  wait_for "History"
  keys m Up m v
  sleep 0.5
  save 5a_compare
  keys v Enter
  sleep 0.5
  save 5b_history
  keys q
}

for SIZE in $SIZES; do
  DIR=$OUT/$SIZE
  mkdir -p "$DIR"
  job1_sensitivity
  job2_sigma
  job3_genes
  job4_yeast
  job5_history
done

{
  set -x
  "$BIN" sweep --data "$DATA/seeds.csv" --algo power --k 3 --grid s0=-10:-0.1:5:log \
    --grid eta=1.01:1.3:5 --seeds 3 --json --out "$OUT/seeds_sweep.json" --plot "$OUT/seeds_sweep.svg" --force
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print('best:', json.dumps(d.get('best'))[:600])" "$OUT/seeds_sweep.json"
  "$BIN" path --data "$DATA/leukemia.csv" --algo lw --out "$OUT/leukemia_path.csv" --plot "$OUT/leukemia_path.svg" --force
  head -3 "$OUT/leukemia_path.csv" | cut -d, -f1-11
  "$BIN" run --data "$DATA/yeast.csv" --label none --algo kmeans --k 8 2>&1 | head -12
  "$BIN" sweep --data "$DATA/yeast.csv" --label none --algo kmeans --grid k=2:15:14 --seeds 3 2>&1 | tail -20
} > "$OUT/headless.txt" 2>&1
cat "$OUT/headless.txt"
echo "screens in $OUT"
