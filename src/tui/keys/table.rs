//! Every key of the UI. Within a context the order is the help's and the
//! hint bar's (most useful first; the bar shows as many as fit).

use super::action::Action::*;
use super::action::Context::{self, Controls, Help, Panes, Prompt, Sweep};
use super::action::Pane;
use super::kinds::Binding;
use super::kinds::Does::{self, Act, FocusPointed, Type, Wheel};
use super::kinds::Key::{self, Char, Click, Code, Ctrl, Shift, Text, WheelDown, WheelUp};
use crossterm::event::KeyCode::{
    self, BackTab, Down, Enter, Esc, F, Left, PageDown, PageUp, Right, Tab, Up,
};

const fn fine(steps: i32) -> Does {
    Act(Step {
        steps,
        coarse: false,
    })
}

const fn coarse(steps: i32) -> Does {
    Act(Step {
        steps,
        coarse: true,
    })
}

const fn focus(i: usize) -> Does {
    Act(Focus(Pane::ALL[i]))
}

const fn row(
    context: Context,
    keys: &'static [(Key, Does)],
    hint: &'static str,
    help: &'static str,
) -> Binding {
    Binding {
        context,
        keys,
        hint,
        help,
    }
}

pub const KEYS: &[Binding] = &[
    row(
        Panes,
        &[(Char('?'), Act(ToggleHelp)), (Code(F(1)), Act(ToggleHelp))],
        "help",
        "open or close this help",
    ),
    row(
        Panes,
        &[(Char('q'), Act(Quit)), (Ctrl('c'), Act(Quit))],
        "quit",
        "quit (the terminal is restored on every exit, panics included)",
    ),
    row(
        Panes,
        &[(Code(Tab), Act(NextPane)), (Code(BackTab), Act(PrevPane))],
        "pane",
        "next / previous pane",
    ),
    row(
        Panes,
        &[
            (Code(Up), Act(Move(-1))),
            (Code(Down), Act(Move(1))),
            (Char('k'), Act(Move(-1))),
            (Char('j'), Act(Move(1))),
        ],
        "",
        "Algorithm: choose (starts a run) · Parameters: choose a slider · History: choose a run",
    ),
    row(
        Panes,
        &[
            (Code(Left), fine(-1)),
            (Code(Right), fine(1)),
            (Char('h'), fine(-1)),
            (Char('l'), fine(1)),
            (WheelUp, Wheel(1)),
            (WheelDown, Wheel(-1)),
        ],
        "adjust",
        "one fine slider step (the wheel: the slider, algorithm list or History under it)",
    ),
    row(
        Panes,
        &[
            (Shift(Left), coarse(-1)),
            (Shift(Right), coarse(1)),
            (Char('H'), coarse(-1)),
            (Char('L'), coarse(1)),
            (Code(PageUp), coarse(1)),
            (Code(PageDown), coarse(-1)),
        ],
        "",
        "one coarse slider step",
    ),
    row(
        Panes,
        &[(Code(Enter), Act(Activate))],
        "edit",
        "type an exact value (\"default\" resets it); shows the parameter's whole help · History: restore the run's settings (its dataset too) and re-run it",
    ),
    row(
        Panes,
        &[(Char('r'), Act(Reseed))],
        "reseed",
        "re-run with the next seed",
    ),
    row(
        Panes,
        &[(Char('R'), Act(ResetAll))],
        "reset all",
        "reset all: every parameter (of every algorithm), k, seed, restarts and the scaling back to their defaults",
    ),
    row(
        Panes,
        &[(Code(Esc), Act(Cancel))],
        "cancel",
        "cancel the run in flight and free the kernels and feature maps it holds",
    ),
    row(
        Panes,
        &[(Char('o'), Act(OpenFilePrompt))],
        "open",
        "open a delimited text, .npy, .mat or IDX file (Tab completes the path)",
    ),
    row(
        Panes,
        &[(Char('d'), Act(NextBundled))],
        "dataset",
        "switch to the next bundled dataset (values typed for data-derived parameters stay with their dataset)",
    ),
    row(
        Panes,
        &[(Char('z'), Act(CycleScaling))],
        "scale",
        "scaling: standard → minmax → none → the algorithm's default (reloads)",
    ),
    row(
        Panes,
        &[(Char('e'), Act(ExportPrompt))],
        "export",
        "export NAME.labels.csv and NAME.json (never over an input file, asks before replacing) and show the `meanscape run` command that reproduces the result",
    ),
    row(
        Panes,
        &[
            (Char('1'), focus(0)),
            (Char('2'), focus(1)),
            (Char('3'), focus(2)),
            (Char('4'), focus(3)),
            (Char('5'), focus(4)),
            (Char('6'), focus(5)),
            (Char('7'), focus(6)),
            (Char('8'), focus(7)),
            (Char('9'), focus(8)),
            (Click, FocusPointed),
        ],
        "focus",
        "focus Data, Algorithm, Parameters, Objective, Scatter, Sizes, Weights, Metrics, History (History takes the place of the right-hand panes; 4-8 bring them back; a click focuses the pane or tab under it)",
    ),
    row(
        Panes,
        &[(Char('s'), Act(ToggleScatterMode))],
        "",
        "Scatter: principal components ↔ two features",
    ),
    row(
        Panes,
        &[
            (Char('x'), Act(ScatterFeature(0))),
            (Char('y'), Act(ScatterFeature(1))),
        ],
        "",
        "Scatter: next feature on the x / y axis",
    ),
    row(
        Panes,
        &[(Char('p'), Act(TogglePath))],
        "",
        "Feature weights: regularisation path of the algorithms with one (elsewhere p names them): feature curves, score, count; ←/→ cursor, Enter sets λ",
    ),
    row(
        Panes,
        &[(Char('i'), Act(ToggleInspector))],
        "inspect",
        "Feature weights: inspector of every feature (rank, weight, selected); e writes the selected names",
    ),
    row(
        Panes,
        &[(Char('/'), Act(SearchPrompt))],
        "",
        "Feature inspector: filter the features by name",
    ),
    row(
        Panes,
        &[(Char('t'), Act(ToggleConfusion))],
        "",
        "Metrics: confusion matrix and per-cluster profiles",
    ),
    // The History's own keys: the hint bar shows them (help starting
    // "History:") while the History is focused.
    row(
        Panes,
        &[(Char('m'), Act(Mark))],
        "pin",
        "History: pin / unpin the highlighted run (a third pin replaces the oldest); in Parameters: mark the slider as a sweep axis (two at most; m again unmarks)",
    ),
    row(
        Panes,
        &[(Char('v'), Act(HistoryCompare))],
        "compare",
        "History: compare the two pinned runs (settings, scores, objective curves, sizes, Jaccard of the selected features) ↔ the table; elsewhere: show the last sweep or k-scan again",
    ),
    row(
        Panes,
        &[(Char('c'), Act(HistorySort))],
        "sort",
        "History: sort by the next column",
    ),
    row(
        Panes,
        &[(Char('C'), Act(HistoryReverse))],
        "reverse",
        "History: reverse the sort order",
    ),
    row(
        Panes,
        &[(Char('E'), Act(HistoryExportPrompt))],
        "export runs",
        "History: export every run as NAME.csv and NAME.json, each with the `meanscape run` command that repeats it",
    ),
    row(
        Panes,
        &[(Char('S'), Act(OpenSweep))],
        "sweep",
        "sweep the marked sliders (or the focused one) over seeds: edit the axes, seeds=N and resamples=N (0 by default: prediction strength, PAC, gap and a recommendation cost about 3 runs each per cell), Enter starts, the cells fill in as they finish",
    ),
    row(
        Panes,
        &[(Char('K'), Act(KScan))],
        "k-scan",
        "scan k: edit k=FROM:TO (default 2 to max(12, k + 3)), resamples=N (default 20; 0: none), seeds=N and algos=kmeans,spectral (several algorithms, one family of cells each), Enter starts; label-free scores (prediction strength, resampled stability, PAC, gap, silhouette, CH, DB, cost elbow, stability) and the k they recommend",
    ),
    row(
        Panes,
        &[(Char('O'), Act(OpenControls))],
        "options",
        "the settings that are not sliders: kernel, kernel list, views, tuning, seeding, label column, missing cells",
    ),
    row(
        Sweep,
        &[
            (Code(Up), Act(Move(-1))),
            (Code(Down), Act(Move(1))),
            (Code(Left), fine(-1)),
            (Code(Right), fine(1)),
            (Char('k'), Act(Move(-1))),
            (Char('j'), Act(Move(1))),
            (Char('h'), fine(-1)),
            (Char('l'), fine(1)),
        ],
        "cell",
        "move the cursor over the cells (a heatmap: ↑↓ rows, ←→ columns; one axis or a k-scan: any arrow along it; a k-scan over several algorithms: ←→ k, ↑↓ the algorithm)",
    ),
    row(
        Sweep,
        &[(Code(Enter), Act(Activate))],
        "run cell",
        "run the cursor's cell as the sweep ran its first seed: its values to the sliders and the sweep's other settings (algorithm, k, seed, fixed parameters; restarts 1) restored and said; refused on another dataset or scaling",
    ),
    row(
        Sweep,
        &[(Char('s'), Act(SweepScore))],
        "score",
        "the next score (NMI, ARI, ACC with labels; prediction strength with its 0.8 cutoff, resampled stability, PAC, gap with ±SE when resampled; stability, silhouette, cost, … always)",
    ),
    row(
        Sweep,
        &[(Char('b'), Act(SweepBest))],
        "best",
        "the cursor to the best cell by the score shown (among cells that kept k clusters), marked *",
    ),
    row(
        Sweep,
        &[(Char('n'), Act(SweepNumbers))],
        "numbers",
        "the values as numbers on or off: in the heatmap's cells, or a table in place of the curve",
    ),
    row(
        Sweep,
        &[(Char('a'), Act(AdoptK))],
        "adopt",
        "run the recommended setting (the k-scan's k, and its algorithm when it compares several; a sweep's with resamples=N) with the sweep's settings",
    ),
    row(
        Sweep,
        &[(Code(Esc), Act(Cancel)), (Char('v'), Act(ToggleSweep))],
        "cancel/close",
        "Esc cancels a running sweep (the cells done stay), else closes the view; v closes it",
    ),
    row(
        Sweep,
        &[(Char('S'), Act(OpenSweep)), (Char('K'), Act(KScan))],
        "",
        "a new sweep / a new k-scan",
    ),
    row(
        Sweep,
        &[
            (Char('?'), Act(ToggleHelp)),
            (Code(F(1)), Act(ToggleHelp)),
            (Char('q'), Act(Quit)),
            (Ctrl('c'), Act(Quit)),
        ],
        "help",
        "help / quit",
    ),
    // The k-scan's panels after help and quit: at 80 columns the hint
    // bar keeps ? help, and shows them where there is room.
    row(
        Sweep,
        &[(Char('c'), Act(SweepConsensus))],
        "consensus",
        "k-scan: the consensus CDF of each k (Monti et al.: the share of pairs of rows the resampled clusterings put together at most x of the time; PAC is its rise from 0.1 to 0.9, marked) ↔ the scores; needs resamples",
    ),
    row(
        Sweep,
        &[(Char('w'), Act(SweepSilhouette))],
        "silhouette",
        "k-scan: the silhouette of each cluster (mean, rows, share below 0, a bar each; the overall value) of the cursor's k, the recommended one when it opens, in the cell's lowest-objective run ↔ the scores",
    ),
    row(
        Controls,
        &[
            (Code(Up), Act(Move(-1))),
            (Code(Down), Act(Move(1))),
            (Char('k'), Act(Move(-1))),
            (Char('j'), Act(Move(1))),
        ],
        "choose",
        "choose a setting",
    ),
    row(
        Controls,
        &[
            (Code(Left), fine(-1)),
            (Code(Right), fine(1)),
            (Char('h'), fine(-1)),
            (Char('l'), fine(1)),
        ],
        "value",
        "the previous / next common value (checked; refused with the reason)",
    ),
    row(
        Controls,
        &[(Code(Enter), Act(Activate))],
        "type",
        "type a value (checked; refused with the reason)",
    ),
    row(
        Controls,
        &[
            (Code(Esc), Act(Cancel)),
            (Char('O'), Act(OpenControls)),
            (Char('q'), Act(Quit)),
            (Ctrl('c'), Act(Quit)),
            (Char('?'), Act(ToggleHelp)),
        ],
        "close",
        "close the list (q quits, ? help)",
    ),
    row(
        Prompt,
        &[(Code(Enter), Act(Activate))],
        "accept",
        "accept the value, path or name",
    ),
    row(
        Prompt,
        &[(Code(Esc), Act(Cancel))],
        "cancel",
        "close the prompt; nothing changes",
    ),
    row(
        Prompt,
        &[(Code(Tab), Act(Complete))],
        "complete",
        "complete the path (opening a file)",
    ),
    row(
        Prompt,
        &[
            (Code(KeyCode::Backspace), Act(Backspace)),
            (Ctrl('w'), Act(DeleteWord)),
            (Ctrl('u'), Act(ClearInput)),
        ],
        "",
        "delete a character / a word or path component / everything",
    ),
    row(Prompt, &[(Ctrl('c'), Act(Quit))], "", "quit"),
    row(
        Prompt,
        &[(Text, Type)],
        "",
        "typed in (asked to replace a file: y replaces, any other key keeps it)",
    ),
    row(
        Help,
        &[
            (Code(Esc), Act(Cancel)),
            (Char('?'), Act(ToggleHelp)),
            (Code(F(1)), Act(ToggleHelp)),
            (Char('q'), Act(Quit)),
            (Ctrl('c'), Act(Quit)),
        ],
        "close",
        "close the help",
    ),
    row(
        Help,
        &[
            (Code(Up), Act(Move(-1))),
            (Code(Down), Act(Move(1))),
            (Char('k'), Act(Move(-1))),
            (Char('j'), Act(Move(1))),
            (WheelUp, Act(Move(-1))),
            (WheelDown, Act(Move(1))),
        ],
        "scroll",
        "scroll the help",
    ),
];
