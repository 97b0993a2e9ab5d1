//! Library errors. Every input error carries the line (1-based; 0 when unknown, and
//! then not shown) and, where there is one, the index of the event it concerns.

use thiserror::Error;

#[derive(Debug, Error)]
#[non_exhaustive]
pub enum Error {
    /// The file is not valid YAML.
    #[error("{}YAML syntax: {message}", at(*.line, Some(*.column)))]
    Syntax {
        line: usize,
        column: usize,
        message: String,
    },

    /// The YAML is valid but does not describe a trace (or execution).
    #[error("{}{message}", at(*.line, None))]
    Format { line: usize, message: String },

    /// An event breaks well-formedness (docs/semantics.md §1) or, in an execution, the TSO rules (§2).
    #[error("{}event #{event}: {message}", at(*.line, None))]
    Malformed {
        event: usize,
        line: usize,
        message: String,
    },

    /// Reading the file failed.
    #[error("cannot read: {0}")]
    Io(#[from] std::io::Error),

    /// A C file the system preprocessor could not turn into C (or no preprocessor).
    #[error("cannot preprocess: {0}")]
    Preprocess(String),

    /// An error in C source, at the file and line the preprocessor's markers name.
    #[error("{file}:{line}:{column}: {message}")]
    Source {
        file: String,
        line: usize,
        column: usize,
        message: String,
    },

    /// Writing the file failed ([`FileError`] shows `cannot write FILE: cause`).
    #[error("cannot write: {0}")]
    Write(std::io::Error),
}

/// `line:` (and `column:`) before a message; nothing for line 0 (unknown).
fn at(line: usize, column: Option<usize>) -> String {
    match (line, column) {
        (0, _) => String::new(),
        (l, Some(c)) => format!("{l}:{c}: "),
        (l, None) => format!("{l}: "),
    }
}

impl Error {
    /// The 1-based line the error points at, if known.
    pub fn line(&self) -> Option<usize> {
        match self {
            Error::Syntax { line, .. }
            | Error::Format { line, .. }
            | Error::Malformed { line, .. } => (*line > 0).then_some(*line),
            Error::Io(_) | Error::Write(_) | Error::Preprocess(_) | Error::Source { .. } => None,
        }
    }
}

/// An input error together with the file it came from; displays as `file:line: message`
/// (`file: message` when the line is unknown, `cannot write file: cause` for a write).
#[derive(Debug, Error)]
pub struct FileError {
    pub file: String,
    pub error: Error,
}

impl std::fmt::Display for FileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.error {
            Error::Write(e) => write!(f, "cannot write {}: {e}", self.file),
            // It names its own file (maybe a header the input includes).
            Error::Source { .. } => write!(f, "{}", self.error),
            e if e.line().is_some() => write!(f, "{}:{e}", self.file),
            e => write!(f, "{}: {e}", self.file),
        }
    }
}
