//! The YAML trace format (docs/formats.md "Traces (YAML)"): a reader, with a line fast path
//! for the layout tsoser writes, and a writer.
//!
//! A file is a mapping with `events:` (and optional `name:`), or a bare sequence of
//! events. An event is a mapping `{thread, txn?, op, var?, val?}` or a compact string
//! `"thread txn op [var] [val]"` (`txn` may be left out when the op is the second word).
//! Executions (for `check-exec`) may also contain `commit` events. Every name and value
//! is the text written, whatever YAML would make of it.

mod fast;
mod read;
mod write;

pub use read::{is_op_word, parse_execution, parse_trace_general, read_execution};
pub(crate) use read::{parse_compact, RawOp};
pub use write::{document, event, quote, write, write_execution, Fields, Form};

use crate::error::{Error, FileError};
use crate::trace::Trace;

/// Parses a trace from YAML text: the layout tsoser writes line by line (`fast`),
/// anything else with the full YAML reader ([`parse_trace_general`]); both give the
/// same answer.
pub fn parse_trace(src: &str) -> Result<Trace, Error> {
    fast::parse_trace(src).unwrap_or_else(|| parse_trace_general(src))
}

/// [`parse_trace`] with the fast path's lines parsed on `lexers` threads
/// ([`crate::trace::split`]; 0: none): the same trace, or the same error.
pub fn parse_trace_on(src: &str, lexers: usize) -> Result<Trace, Error> {
    fast::read_trace(src.as_bytes(), lexers).unwrap_or_else(|| parse_trace_general(src))
}

/// The fast path alone on `input`, read in blocks of `block` bytes and parsed on
/// `lexers` threads (`None`: it leaves the input to the full reader): the tests' hook.
#[doc(hidden)]
pub fn fast_path_in_blocks(
    input: impl std::io::Read + Send,
    lexers: usize,
    block: usize,
) -> Option<Result<Trace, Error>> {
    fast::read_in_blocks(input, lexers, block)
}

/// Reads and parses a trace file; errors name the file. A regular file in the layout
/// tsoser writes is read line by line, never held whole (`fast`); any other file is
/// read whole, then parsed as [`parse_trace`] does. On the caller's thread.
pub fn read_trace(path: &std::path::Path) -> Result<Trace, FileError> {
    read_trace_on(path, 0)
}

/// [`read_trace`] with the fast path's lines parsed on `lexers` threads
/// ([`crate::trace::split`]; 0: none): the same trace, or the same error.
pub fn read_trace_on(path: &std::path::Path, lexers: usize) -> Result<Trace, FileError> {
    let named = |error| FileError {
        file: path.display().to_string(),
        error,
    };
    let regular = std::fs::metadata(path).is_ok_and(|m| m.is_file());
    if let Some(fast) = regular
        .then(|| std::fs::File::open(path).ok())
        .flatten()
        .and_then(|f| fast::read_trace(f, lexers))
    {
        return fast.map_err(named);
    }
    let src = read::read(path)?;
    // A regular file the fast path left goes straight to the full reader.
    match regular {
        true => parse_trace_general(&src),
        false => parse_trace(&src),
    }
    .map_err(named)
}
