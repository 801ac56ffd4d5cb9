//! Library errors. Every variant carries a message meant for the user, on
//! one line, that says what was wrong and where.

use crate::numfmt::fmt_num;
use thiserror::Error;

#[derive(Debug, Error)]
pub enum Error {
    /// A data file or data source that cannot be read as given: names the
    /// file, line and column where there is one.
    #[error("{0}")]
    Data(String),
    /// An algorithm, parameter or option that is unknown or out of range:
    /// which one, and why, in a [`ParamError`] a caller can match.
    #[error("{0}")]
    Param(ParamError),
    /// Work refused because it would need more memory or time than allowed.
    #[error("{0}")]
    Resource(String),
    /// I/O failure on a named path.
    #[error("{path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    /// A saved model that cannot be read, or data it cannot be applied to
    /// (another format version, a column mismatch, non-finite values).
    #[error("{0}")]
    Model(String),
    /// The run was cancelled before it finished.
    #[error("cancelled")]
    Cancelled,
}

/// Why an algorithm, a parameter value or an option cannot be used. Each
/// displays as the one line the user reads.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ParamError {
    /// An id that is not an algorithm; `known` are those that are.
    #[error("'{id}' is not an algorithm; available: {}", .known.join(", "))]
    UnknownAlgorithm {
        id: String,
        known: Vec<&'static str>,
    },
    /// A name the algorithm does not declare; `known` names those it does.
    #[error("parameter {name} does not apply to algorithm {algo} ({})", declared(.known))]
    Unknown {
        algo: String,
        name: String,
        known: Vec<&'static str>,
    },
    /// A value outside the declared bounds (or not whole where it must be).
    #[error("{name} = {} is out of range: must be {bounds}", fmt_num(*.value))]
    OutOfRange {
        name: String,
        value: f64,
        bounds: Bounds,
    },
    /// A value the typed parameters cannot hold: a count that is negative
    /// or fractional, a switch that is neither 0 nor 1.
    #[error("{name} = {} must be {what}", fmt_num(*.value))]
    Kind {
        name: &'static str,
        value: f64,
        what: &'static str,
    },
    /// An algorithm's typed parameters ask for a name its table does not
    /// declare (or the values were not resolved from that table).
    #[error(
        "parameter {name} is missing: resolve the values from the algorithm's declared parameters"
    )]
    Missing { name: &'static str },
    /// An option, or a combination of settings, that is refused; the
    /// message names it and says why.
    #[error("{0}")]
    Invalid(String),
    /// `error`, in a place it does not name itself (a data file, a sweep
    /// cell): shown as `place: error`.
    #[error("{place}: {error}")]
    In {
        place: String,
        error: Box<ParamError>,
    },
}

/// The range a parameter must lie in, both ends included.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bounds {
    pub min: f64,
    pub max: f64,
    /// Only whole numbers.
    pub integer: bool,
}

impl std::fmt::Display for Bounds {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = if self.integer { "an integer " } else { "" };
        write!(f, "{kind}in [{}, {}]", fmt_num(self.min), fmt_num(self.max))
    }
}

fn declared(names: &[&str]) -> String {
    if names.is_empty() {
        "it has none".to_string()
    } else {
        format!("its parameters: {}", names.join(", "))
    }
}

impl ParamError {
    /// `error` in `place`, unless its message names `place` already.
    pub fn within(self, place: &str) -> Self {
        if self.to_string().contains(place) {
            self
        } else {
            ParamError::In {
                place: place.to_string(),
                error: Box::new(self),
            }
        }
    }
}

impl From<ParamError> for Error {
    fn from(e: ParamError) -> Self {
        Error::Param(e)
    }
}

impl Error {
    /// A refused option or combination of settings ([`ParamError::Invalid`]).
    pub fn param(message: impl Into<String>) -> Self {
        Error::Param(ParamError::Invalid(message.into()))
    }

    pub fn io(path: impl std::fmt::Display, source: std::io::Error) -> Self {
        Error::Io {
            path: path.to_string(),
            source,
        }
    }

    /// The error with the data it is about named first (`iris.csv: …`),
    /// for checks that depend on the data but do not know its name (k
    /// against the rows, distinct points). Messages that already name it,
    /// I/O errors and cancellation are left as they are.
    pub fn about(self, data: &str) -> Self {
        let named = |m: String| {
            if m.contains(data) {
                m
            } else {
                format!("{data}: {m}")
            }
        };
        match self {
            Error::Data(m) => Error::Data(named(m)),
            Error::Param(e) => Error::Param(e.within(data)),
            Error::Model(m) => Error::Model(named(m)),
            other => other,
        }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn about_names_the_data_once() {
        let e = Error::Data("fewer than k = 3 distinct points".into()).about("x.csv");
        assert_eq!(e.to_string(), "x.csv: fewer than k = 3 distinct points");
        let e = Error::param("x.csv: bad").about("x.csv");
        assert_eq!(e.to_string(), "x.csv: bad");
        let e = Error::from(ParamError::Missing { name: "tol" }).about("x.csv");
        assert!(
            matches!(&e, Error::Param(ParamError::In { error, .. }) if **error == ParamError::Missing { name: "tol" }),
            "{e:?}"
        );
        assert!(matches!(Error::Cancelled.about("x"), Error::Cancelled));
    }
}
