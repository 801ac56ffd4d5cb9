//! The Data pane as a component: the dataset loaded (or loading), its
//! classes, k and the scaling in force. It holds no state; its keys (open
//! a file, the next bundled set, the scaling) act wherever the focus is,
//! and `App` carries them out, since they reload the data.

use crate::data::Scaling;
use crate::session::Loaded;
use crate::tui::keys::Action;
use crate::tui::panes;
use std::time::Duration;

#[derive(Debug, Default)]
pub struct DataPane;

/// The scaling in force and where it comes from.
#[derive(Clone, Copy)]
pub struct ScaleDraw<'a> {
    /// The algorithm's id and its default scaling.
    pub algo: &'a str,
    pub own: Scaling,
    /// The scaling in force (the loaded data may still have another).
    pub now: Scaling,
    /// The user chose it (z, --scale).
    pub chosen: bool,
}

/// What the Data pane draws.
#[derive(Clone, Copy)]
pub struct DataDraw<'a> {
    pub loaded: Option<&'a Loaded>,
    /// The dataset being loaded and for how long.
    pub loading: Option<(&'a str, Duration)>,
    /// The k a run would use now.
    pub k: usize,
    pub scale: ScaleDraw<'a>,
    pub focused: bool,
}

stateless_pane!(
    DataPane,
    DataDraw,
    panes::data::render,
    [
        Action::OpenFilePrompt,
        Action::NextBundled,
        Action::CycleScaling
    ]
);
