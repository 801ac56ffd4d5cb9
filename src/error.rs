//! Library errors. Every variant carries a message meant for the user, on
//! one line, that says what was wrong and where.

use thiserror::Error;

#[derive(Debug, Error)]
pub enum Error {
    /// A data file or data source that cannot be read as given: names the
    /// file, line and column where there is one.
    #[error("{0}")]
    Data(String),
    /// An algorithm, parameter or option that is unknown or out of range.
    #[error("{0}")]
    Param(String),
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

impl Error {
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
            Error::Param(m) => Error::Param(named(m)),
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
        let e = Error::Param("x.csv: bad".into()).about("x.csv");
        assert_eq!(e.to_string(), "x.csv: bad");
        assert!(matches!(Error::Cancelled.about("x"), Error::Cancelled));
    }
}
