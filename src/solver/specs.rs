//! Parameter declarations shared by several algorithms: the tolerance,
//! the iteration cap, the annealing schedule (each of s₀, η, T and s_min,
//! gathered by `stopping::Schedule`) and the hardness condition.

use super::params::{Default, ParamSpec, Scale};

pub fn tol_spec(default: f64, help: &'static str) -> ParamSpec {
    ParamSpec {
        name: "tol",
        symbol: "tol",
        default: Default::Fixed(default),
        min: 0.0,
        max: 1.0,
        scale: Scale::Log,
        step: 2.0,
        coarse: 10.0,
        integer: false,
        help,
    }
}

pub fn max_iter_spec(default: f64) -> ParamSpec {
    ParamSpec {
        name: "max_iter",
        symbol: "max it",
        default: Default::Fixed(default),
        min: 1.0,
        max: 100_000.0,
        scale: Scale::Linear,
        step: 10.0,
        coarse: 100.0,
        integer: true,
        help: "Iteration cap; the run stops there even if not converged.",
    }
}

pub fn s0_spec() -> ParamSpec {
    ParamSpec {
        name: "s0",
        symbol: "s₀",
        default: Default::Fixed(-1.0),
        min: -1000.0,
        max: -0.01,
        scale: Scale::Log,
        step: 1.1,
        coarse: 2.0,
        integer: false,
        help: "Initial power-mean exponent (must be negative; −1 is the papers' default).",
    }
}

pub fn eta_spec() -> ParamSpec {
    ParamSpec {
        name: "eta",
        symbol: "η",
        default: Default::Fixed(1.04),
        min: 1.0,
        max: 3.0,
        scale: Scale::Linear,
        step: 0.01,
        coarse: 0.1,
        integer: false,
        help: "Annealing factor: s ← η·s every T iterations (1 = no annealing).",
    }
}

pub fn period_spec() -> ParamSpec {
    ParamSpec {
        name: "period",
        symbol: "T",
        default: Default::Fixed(5.0),
        min: 1.0,
        max: 1000.0,
        scale: Scale::Linear,
        step: 1.0,
        coarse: 5.0,
        integer: true,
        help: "Annealing period T: s is updated, and convergence tested, every T iterations.",
    }
}

pub fn s_min_spec() -> ParamSpec {
    ParamSpec {
        name: "s_min",
        symbol: "s_min",
        default: Default::Fixed(-1000.0),
        min: -1e6,
        max: -0.01,
        scale: Scale::Log,
        step: 1.5,
        coarse: 10.0,
        integer: false,
        help: "Floor for s: annealing stops there.",
    }
}

/// The hardness condition of the power family's stopping rule (power,
/// kpower, mkpower).
pub fn soft_tol_spec() -> ParamSpec {
    ParamSpec {
        name: "soft_tol",
        symbol: "ε_w",
        default: Default::Fixed(1e-2),
        min: 0.0,
        max: 1.0,
        scale: Scale::Log,
        step: 2.0,
        coarse: 10.0,
        integer: false,
        help: "While s is still annealing, convergence also needs the memberships to be nearly hard: mean share of a point's weight outside its cluster ≤ soft_tol (merged or near-merged centres separate only as s decreases). 1 turns the condition off.",
    }
}
