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
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
