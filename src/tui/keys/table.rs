//! Every key of the UI. Within a context the order is the help's and the
//! hint bar's (most useful first; the bar shows as many as fit).

use super::action::Action::*;
use super::action::Context::{self, Help, Panes, Prompt};
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
        "Algorithm: choose (starts a run) · Parameters: choose a slider",
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
        "one fine slider step (the wheel: the slider or algorithm list under it)",
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
        "type an exact value (\"default\" resets it); shows the parameter's whole help",
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
            (Click, FocusPointed),
        ],
        "focus",
        "focus Data, Algorithm, Parameters, Objective, Scatter, Sizes, Weights, Metrics (a click focuses the pane or tab under it)",
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
        "Feature weights: regularisation path (lw, sparse-kmeans): feature curves, score, count; ←/→ cursor, Enter sets λ",
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
