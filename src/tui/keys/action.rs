//! What the user can do and where: the panes, the actions keys and the
//! mouse map to, and the context that decides what a key means. Below the
//! app's state, so that the key map and the state both read it.

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Pane {
    Data,
    Algorithm,
    Parameters,
    Objective,
    Sizes,
    Weights,
    Metrics,
    Scatter,
    /// The run history: shown in place of the right-hand panes.
    History,
}

impl Pane {
    pub const ALL: [Pane; 9] = [
        Pane::Data,
        Pane::Algorithm,
        Pane::Parameters,
        Pane::Objective,
        Pane::Scatter,
        Pane::Sizes,
        Pane::Weights,
        Pane::Metrics,
        Pane::History,
    ];

    pub fn title(self) -> &'static str {
        match self {
            Pane::Data => "Data",
            Pane::Algorithm => "Algorithm",
            Pane::Parameters => "Parameters",
            Pane::Objective => "Objective",
            Pane::Sizes => "Cluster sizes",
            Pane::Weights => "Feature weights",
            Pane::Metrics => "Metrics",
            Pane::Scatter => "Scatter",
            Pane::History => "History",
        }
    }
}

/// Everything a user can do.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    Quit,
    NextPane,
    PrevPane,
    Focus(Pane),
    /// Up/down within the focused pane (list selection, slider focus).
    Move(i32),
    /// Left/right: move the focused slider by fine or coarse steps.
    Step {
        steps: i32,
        coarse: bool,
    },
    /// Mouse wheel over a slider row of the Parameters pane.
    StepParam {
        index: usize,
        steps: i32,
    },
    /// Enter: select the algorithm, or type an exact slider value.
    Activate,
    /// Re-run with the next seed.
    Reseed,
    /// Esc: close the overlay or prompt, else cancel the run.
    Cancel,
    ToggleHelp,
    /// Text entry into the open prompt.
    Input(char),
    Backspace,
    /// Ctrl-U in a prompt: clear the text.
    ClearInput,
    /// Ctrl-W in a prompt: delete the last word (or path component).
    DeleteWord,
    /// Tab inside a path prompt: complete.
    Complete,
    OpenFilePrompt,
    /// Cycle through the bundled datasets.
    NextBundled,
    /// Cycle the feature scaling (standard → minmax → none → the
    /// algorithm's default) and reload.
    CycleScaling,
    /// Every parameter, k, seed, restarts and the scaling back to their
    /// defaults.
    ResetAll,
    ExportPrompt,
    /// Scatter: principal components or two features.
    ToggleScatterMode,
    /// Scatter: next feature on the x (0) or y (1) axis.
    ScatterFeature(usize),
    /// Feature weights pane: toggle the regularisation-path view.
    TogglePath,
    /// Open the sweep prompt (marked sliders, else the focused one).
    OpenSweep,
    /// Open the k-scan prompt (range of k, resamples, seeds).
    KScan,
    /// Show or hide the sweep view.
    ToggleSweep,
    /// Sweep view: the next score.
    SweepScore,
    /// Sweep view: numbers in the cells on or off.
    SweepNumbers,
    /// Take the recommended setting (a k-scan's k).
    AdoptK,
    /// Sweep view: the cursor to the best cell.
    SweepBest,
    /// k-scan: the consensus CDF per k, or the scores again.
    SweepConsensus,
    /// k-scan: the silhouette per cluster of the cursor's k, or the
    /// scores again.
    SweepSilhouette,
    /// Open (or close) the list of non-numeric settings.
    OpenControls,
    /// History: sort by the next column.
    HistorySort,
    /// History: flip the sort order.
    HistoryReverse,
    /// History: pin or unpin the highlighted run (two are compared);
    /// Parameters: mark the focused slider as a sweep axis (or unmark it).
    Mark,
    /// History: the compare view of the two pinned runs, or the table.
    HistoryCompare,
    /// History: export it as NAME.csv and NAME.json.
    HistoryExportPrompt,
    /// Feature weights pane: the feature-selection inspector (every
    /// feature with its weight, rank and selected flag) or the weights.
    ToggleInspector,
    /// Feature inspector: filter the features by a part of their name.
    SearchPrompt,
    /// Metrics pane: the confusion matrix and per-cluster profiles.
    ToggleConfusion,
}

/// Where the user is, which decides what a key means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Context {
    /// The panes, with no overlay open.
    Panes,
    /// A prompt (a value, a path, an export name) is open.
    Prompt,
    /// The help overlay is open.
    Help,
    /// The sweep view is shown over the right-hand panes.
    Sweep,
    /// The list of non-numeric settings (kernel, init, label, …) is open.
    Controls,
}

/// The right-hand panes, in the order of their tabs.
pub const RIGHT_PANES: [Pane; 5] = [
    Pane::Objective,
    Pane::Scatter,
    Pane::Sizes,
    Pane::Weights,
    Pane::Metrics,
];
