//! The YAML trace format (docs/formats.md "Traces (YAML)"): one reader and one writer.
//!
//! A file is a mapping with `events:` (and optional `name:`), or a bare sequence of
//! events. An event is a mapping `{thread, txn?, op, var?, val?}` or a compact string
//! `"thread txn op [var] [val]"` (`txn` may be left out when the op is the second word).
//! Executions (for `check-exec`) may also contain `commit` events. Every name and value
//! is the text written, whatever YAML would make of it.

mod fast;
mod read;
mod write;

pub use read::{
    is_op_word, parse_execution, parse_trace, parse_trace_general, read_execution, read_trace,
};
pub(crate) use read::{parse_compact, RawOp};
pub use write::{document, event, quote, write, write_execution, Fields, Form};
