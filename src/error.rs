//! Library errors. Every input error carries the line (1-based; 0 when unknown) and,
//! where there is one, the index of the event it concerns.

use thiserror::Error;

#[derive(Debug, Error)]
pub enum Error {
    /// The file is not valid YAML.
    #[error("{line}:{column}: YAML syntax: {message}")]
    Syntax {
        line: usize,
        column: usize,
        message: String,
    },

    /// The YAML is valid but does not describe a trace (or execution).
    #[error("{line}: {message}")]
    Format { line: usize, message: String },

    /// An event breaks well-formedness (docs/semantics.md §1) or, in an execution, the TSO rules (§2).
    #[error("{line}: event #{event}: {message}")]
    Malformed {
        event: usize,
        line: usize,
        message: String,
    },

    /// Reading the file failed.
    #[error("cannot read: {0}")]
    Io(#[from] std::io::Error),
}

impl Error {
    /// The 1-based line the error points at, if known.
    pub fn line(&self) -> Option<usize> {
        match self {
            Error::Syntax { line, .. }
            | Error::Format { line, .. }
            | Error::Malformed { line, .. } => (*line > 0).then_some(*line),
            Error::Io(_) => None,
        }
    }
}

/// An input error together with the file it came from; displays as `file:line: message`.
#[derive(Debug, Error)]
pub struct FileError {
    pub file: String,
    pub error: Error,
}

impl std::fmt::Display for FileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.error {
            Error::Io(_) => write!(f, "{}: {}", self.file, self.error),
            e => write!(f, "{}:{}", self.file, e),
        }
    }
}
