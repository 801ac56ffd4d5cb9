//! Declared parameters: one description per tunable value, shared by the
//! CLI's validation, the JSON output and the UI's sliders.

use crate::error::Result;
pub use crate::error::{Bounds, ParamError};
pub use crate::numfmt::{fmt_num, round_sig};
use std::collections::BTreeMap;

/// How a slider moves through a parameter's range.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Scale {
    /// Steps add a fixed amount.
    Linear,
    /// Steps multiply the magnitude by a fixed factor (the sign is kept).
    Log,
}

/// Where a parameter's default comes from.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Default {
    Fixed(f64),
    /// Computed from the data by the algorithm; the string names the rule.
    Auto(&'static str),
}

/// One declared parameter.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ParamSpec {
    /// Name on the command line (`--param NAME=…`) and in JSON.
    pub name: &'static str,
    /// Short mathematical symbol for the UI (`s₀`, `η`, `λ`).
    pub symbol: &'static str,
    pub default: Default,
    /// Valid range, both ends included.
    pub min: f64,
    pub max: f64,
    pub scale: Scale,
    /// Fine step: an amount (linear) or a factor > 1 (log).
    pub step: f64,
    /// Coarse step, same units as `step`.
    pub coarse: f64,
    /// Only whole numbers.
    pub integer: bool,
    pub help: &'static str,
}

impl ParamSpec {
    /// A 0/1 switch (1 = on), stepped by 1.
    pub fn flag(
        name: &'static str,
        symbol: &'static str,
        default: f64,
        help: &'static str,
    ) -> Self {
        ParamSpec {
            name,
            symbol,
            default: Default::Fixed(default),
            min: 0.0,
            max: 1.0,
            scale: Scale::Linear,
            step: 1.0,
            coarse: 1.0,
            integer: true,
            help,
        }
    }

    pub fn contains(&self, v: f64) -> bool {
        v.is_finite() && v >= self.min && v <= self.max && (!self.integer || v.fract() == 0.0)
    }

    pub fn bounds(&self) -> Bounds {
        Bounds {
            min: self.min,
            max: self.max,
            integer: self.integer,
        }
    }

    pub fn range_text(&self) -> String {
        self.bounds().to_string()
    }

    /// Checks `v` and says why it is refused.
    ///
    /// # Errors
    /// [`ParamError::OutOfRange`] with the range.
    pub fn check(&self, v: f64) -> Result<f64, ParamError> {
        if self.contains(v) {
            Ok(v)
        } else {
            Err(ParamError::OutOfRange {
                name: self.name.to_string(),
                value: v,
                bounds: self.bounds(),
            })
        }
    }

    /// The value `steps` fine (or coarse) steps away from `v` (positive
    /// steps go numerically up), clamped into range. A log step never
    /// crosses zero.
    pub fn step_from(&self, v: f64, steps: i32, coarse: bool) -> f64 {
        let amount = if coarse { self.coarse } else { self.step };
        let next = match self.scale {
            Scale::Linear => v + amount * steps as f64,
            Scale::Log => v * amount.powi(if v < 0.0 { -steps } else { steps }),
        };
        // Snap to 4 significant digits so values stay readable and typeable.
        let next = if self.integer {
            next.round()
        } else {
            round_sig(next, 4)
        };
        next.clamp(self.min, self.max)
    }
}

/// Six significant digits.
pub fn fmt_sig(v: f64) -> String {
    if v == 0.0 || !v.is_finite() {
        return format!("{v}");
    }
    let mag = v.abs().log10().floor() as i32;
    if (-4..6).contains(&mag) {
        format!("{:.*}", (5 - mag).max(0) as usize, v)
    } else {
        format!("{v:.5e}")
    }
}

/// Four significant digits without trailing zeros, `-` for a non-finite
/// value (tables of scores that range over orders of magnitude).
pub fn fmt_sig4(v: f64) -> String {
    if !v.is_finite() {
        return "-".into();
    }
    let s = fmt_sig(round_sig(v, 4));
    if s.contains('.') && !s.contains('e') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// Resolved values for every declared parameter of an algorithm.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct Params(BTreeMap<String, f64>);

impl Params {
    /// The value under `name`, if there is one.
    pub fn value(&self, name: &str) -> Option<f64> {
        self.0.get(name).copied()
    }

    /// A real-valued parameter, for an algorithm's typed parameters.
    ///
    /// # Errors
    /// [`ParamError::Missing`] when the values hold no `name`.
    pub fn real(&self, name: &'static str) -> Result<f64, ParamError> {
        self.value(name).ok_or(ParamError::Missing { name })
    }

    /// A count (iterations, runs, dimensions).
    ///
    /// # Errors
    /// [`ParamError::Missing`], or [`ParamError::Kind`] for a value that is
    /// not a whole number ≥ 0.
    pub fn count(&self, name: &'static str) -> Result<usize, ParamError> {
        let v = self.real(name)?;
        if v.is_finite() && v >= 0.0 && v.fract() == 0.0 && v <= u32::MAX as f64 {
            Ok(v as usize)
        } else {
            Err(ParamError::Kind {
                name,
                value: v,
                what: "a whole number ≥ 0",
            })
        }
    }

    /// A 0/1 switch ([`ParamSpec::flag`]).
    ///
    /// # Errors
    /// [`ParamError::Missing`], or [`ParamError::Kind`] for a value other
    /// than 0 and 1.
    pub fn flag(&self, name: &'static str) -> Result<bool, ParamError> {
        match self.real(name)? {
            0.0 => Ok(false),
            1.0 => Ok(true),
            v => Err(ParamError::Kind {
                name,
                value: v,
                what: "0 (off) or 1 (on)",
            }),
        }
    }

    pub fn set(&mut self, name: &str, v: f64) {
        self.0.insert(name.to_string(), v);
    }

    pub fn iter(&self) -> impl Iterator<Item = (&str, f64)> {
        self.0.iter().map(|(k, v)| (k.as_str(), *v))
    }

    /// Builds the full set from the declared specs and the values the user
    /// gave. Unknown names and out-of-range values are refused with the
    /// reason; parameters left at an `Auto` default are filled by `auto`.
    ///
    /// # Errors
    /// [`Error::Param`] for an unknown name or a value out of range, and
    /// what `auto` fails with.
    pub fn resolve(
        algo: &str,
        specs: &[ParamSpec],
        given: &[(String, f64)],
        mut auto: impl FnMut(&str) -> Result<f64>,
    ) -> Result<Params> {
        let unknown = |name: &str| ParamError::Unknown {
            algo: algo.to_string(),
            name: name.to_string(),
            known: specs.iter().map(|s| s.name).collect(),
        };
        let mut out = Params::default();
        for (name, v) in given {
            let spec = specs
                .iter()
                .find(|s| s.name == name)
                .ok_or_else(|| unknown(name))?;
            out.set(name, spec.check(*v)?);
        }
        for spec in specs {
            if out.0.contains_key(spec.name) {
                continue;
            }
            let v = match spec.default {
                Default::Fixed(v) => v,
                Default::Auto(_) => auto(spec.name)?,
            };
            out.set(spec.name, v);
        }
        Ok(out)
    }
}

/// A field of a [`declare_params!`] struct: one declared value (`f64`,
/// a count, a switch) or a group declared with the macro itself (the
/// annealing schedule). `Spec` is what its declaration gives: one
/// [`ParamSpec`] for a value, the group's specs for a group.
pub trait Field: Sized {
    type Spec;
    /// The specs of the field named `name`, declared as `spec`.
    fn declare(name: &'static str, spec: Self::Spec) -> Vec<ParamSpec>;
    /// The field's value in resolved values.
    ///
    /// # Errors
    /// [`ParamError::Missing`] or [`ParamError::Kind`].
    fn take(v: &Params, name: &'static str) -> Result<Self, ParamError>;
}

/// One value under its field's name: the name is the field's, whatever
/// the spec helper named it, so the table and the struct cannot differ.
fn one(name: &'static str, spec: ParamSpec) -> Vec<ParamSpec> {
    vec![ParamSpec { name, ..spec }]
}

impl Field for f64 {
    type Spec = ParamSpec;
    fn declare(name: &'static str, spec: ParamSpec) -> Vec<ParamSpec> {
        one(name, spec)
    }
    fn take(v: &Params, name: &'static str) -> Result<Self, ParamError> {
        v.real(name)
    }
}

impl Field for usize {
    type Spec = ParamSpec;
    fn declare(name: &'static str, spec: ParamSpec) -> Vec<ParamSpec> {
        one(name, spec)
    }
    fn take(v: &Params, name: &'static str) -> Result<Self, ParamError> {
        v.count(name)
    }
}

/// A seed: a count, widened.
impl Field for u64 {
    type Spec = ParamSpec;
    fn declare(name: &'static str, spec: ParamSpec) -> Vec<ParamSpec> {
        one(name, spec)
    }
    fn take(v: &Params, name: &'static str) -> Result<Self, ParamError> {
        v.count(name).map(|c| c as u64)
    }
}

impl Field for bool {
    type Spec = ParamSpec;
    fn declare(name: &'static str, spec: ParamSpec) -> Vec<ParamSpec> {
        one(name, spec)
    }
    fn take(v: &Params, name: &'static str) -> Result<Self, ParamError> {
        v.flag(name)
    }
}

/// Declares an algorithm's parameters once, as a struct whose fields are
/// the parameters: `NAME::specs()` is the table the command line, the
/// JSON and the UI read (in field order), `NAME::read(&params)` the typed
/// values. Each field is `name: Type = spec`, with `Type` a [`Field`]:
/// `f64`, `usize`, `u64`, `bool` with a [`ParamSpec`], or a struct
/// declared with this macro with its specs (`schedule: Schedule = Schedule::specs()`).
macro_rules! declare_params {
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident {
            $( $(#[$fmeta:meta])* $field:ident : $ty:ty = $spec:expr ),* $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq)]
        $vis struct $name {
            $( $(#[$fmeta])* pub $field: $ty, )*
        }

        impl $name {
            /// The declared parameters, in the order they are shown.
            pub fn specs() -> Vec<$crate::solver::params::ParamSpec> {
                let mut specs = Vec::new();
                $( specs.extend(<$ty as $crate::solver::params::Field>::declare(
                    stringify!($field),
                    $spec,
                )); )*
                specs
            }

            /// The typed values of resolved parameters.
            ///
            /// # Errors
            /// A `ParamError` when a value is missing or not of its
            /// field's kind.
            pub fn read(
                v: &$crate::solver::params::Params,
            ) -> ::std::result::Result<Self, $crate::error::ParamError> {
                Ok($name {
                    $( $field: <$ty as $crate::solver::params::Field>::take(
                        v,
                        stringify!($field),
                    )?, )*
                })
            }
        }

        impl $crate::solver::params::Field for $name {
            type Spec = Vec<$crate::solver::params::ParamSpec>;
            fn declare(
                _name: &'static str,
                spec: Vec<$crate::solver::params::ParamSpec>,
            ) -> Vec<$crate::solver::params::ParamSpec> {
                spec
            }
            fn take(
                v: &$crate::solver::params::Params,
                _name: &'static str,
            ) -> ::std::result::Result<Self, $crate::error::ParamError> {
                Self::read(v)
            }
        }
    };
}
pub(crate) use declare_params;

#[cfg(test)]
mod tests {
    use super::*;

    fn s0() -> ParamSpec {
        ParamSpec {
            help: "",
            ..crate::solver::specs::s0_spec()
        }
    }

    #[test]
    fn numbers_print_short() {
        assert_eq!(fmt_num(3.0), "3");
        assert_eq!(fmt_num(0.25), "0.25");
        assert_eq!(fmt_num(0.000280034012), "0.000280034");
        assert_eq!(fmt_num(2.800336040324839e-7), "2.80034e-7");
        assert_eq!(fmt_num(1.5e-300), "1.5e-300");
        assert_eq!(fmt_num(-3.2e21), "-3.2e21");
    }

    #[test]
    fn resolve_fills_defaults_and_refuses_bad_values() {
        declare_params! {
            struct Start {
                s0: f64 = s0(),
            }
        }
        let specs = Start::specs();
        let p = Params::resolve("power", &specs, &[], |_| unreachable!()).unwrap();
        assert_eq!(Start::read(&p), Ok(Start { s0: -1.0 }));
        let e = Params::resolve("power", &specs, &[("s0".into(), 1.0)], |_| unreachable!())
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "s0 = 1 is out of range: must be in [-1000, -0.01]"
        );
        let crate::Error::Param(ParamError::OutOfRange { value, bounds, .. }) = e else {
            panic!("{e:?}")
        };
        assert_eq!((value, bounds.min, bounds.max), (1.0, -1000.0, -0.01));
        let e = Params::resolve("power", &specs, &[("eta".into(), 1.0)], |_| unreachable!())
            .unwrap_err()
            .to_string();
        assert!(e.contains("does not apply") && e.contains("s0"), "{e}");
    }

    #[test]
    fn log_steps_keep_sign_and_range() {
        let s = s0();
        // Up means numerically up: towards zero for a negative value.
        assert_eq!(s.step_from(-1.0, 1, false), -0.9091);
        assert_eq!(s.step_from(-1.0, -1, false), -1.1);
        assert_eq!(s.step_from(-900.0, -1, true), -1000.0);
    }
}
