//! One row of the Parameters pane.

use crate::algo::params::{Default as PDefault, ParamSpec};

/// A slider row: run-level (k, seed, restarts) or an algorithm parameter.
#[derive(Debug, Clone)]
pub struct Slider {
    pub spec: ParamSpec,
    pub value: f64,
    /// Automatic default resolved on this data (shown as "auto").
    pub auto: Option<f64>,
    pub is_default: bool,
}

impl Slider {
    /// The value the slider returns to on "default" (None while an
    /// automatic default is not known yet).
    pub fn default_value(&self) -> Option<f64> {
        match self.spec.default {
            PDefault::Fixed(v) => Some(v),
            PDefault::Auto(_) => self.auto,
        }
        .filter(|v| v.is_finite())
    }
}
