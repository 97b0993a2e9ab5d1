//! tsoser: decide whether concurrent traces are conflict-serializable under x86-TSO
//! (Enea & Farzan, TACAS'16), exactly, with checkable witnesses.
//!
//! - [`trace`]: traces, executions, the YAML format, generators.
//! - [`graph`]: conflict graphs, the paper's event graph (Def. 4), the exact one (docs/semantics.md §5).
//! - [`check`]: the deciders (`brute`), the execution-level checks and SC-serializability.
//! - [`monitor`]: monitors on a trace read as an SC run (SC-serializability so far).
//! - [`report`]: the text and JSON output of the command line.

pub mod check;
pub mod error;
pub mod graph;
pub mod monitor;
pub mod program;
pub mod report;
pub mod text;
pub mod trace;

pub use error::{Error, FileError};
