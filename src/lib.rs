//! tsoser: decide whether concurrent traces are conflict-serializable under x86-TSO
//! (Enea & Farzan, TACAS'16), exactly, with checkable witnesses; run the classic
//! memory-model monitors on traces read as SC runs; explore programs and litmus tests
//! under SC, TSO and PSO. What every part decides is specified in `docs/semantics.md`
//! (cited as §N).
//!
//! Modules, from the definitions up (each depends only on those before it):
//! - [`trace`]: the definitions — traces and their builder, executions, the conflict
//!   relation of Eq. (1) and ⊙SC ([`trace::conflict`]), the YAML and STD formats,
//!   generators, proptest strategies (feature `proptest`).
//! - [`graph`]: conflict graphs and cycles, forced edges, the exact event graph
//!   (§5) and the paper's EG_τ (Def. 4), shortest labelled paths.
//! - [`solver`]: SAT and SMT backends behind one trait (varisat, CaDiCaL with an order
//!   propagator, z3): clauses in, a model out; it knows no trace.
//! - [`analysis`]: what `sat` and `fpt` share — time windows, fixed orders, varying
//!   pairs, the graph of possible conflicts and its components, what a conflict
//!   requires of a commit placement, chosen orders to an execution.
//! - [`check`]: the deciders behind one front door ([`check::decide::decide`]: question,
//!   decider, budget → verified verdict, typed stats, typed errors): `brute` (the
//!   oracle, on the definitions alone), `sat`, `fpt`, `auto`; execution-level checks
//!   and SC-serializability; witness verification ([`check::verify`]).
//! - [`monitor`]: SC-serializability, SOBER, Burnim et al.'s monitor_TSO / monitor_PSO
//!   and the transaction-fenced monitor, on a trace read as an SC run, in memory or
//!   streamed from STD; their evidence re-checked.
//! - [`program`]: programs (`.prog`) and herd X86 litmus tests: syntax, parsers, printer.
//! - [`explore`]: their exact exploration under SC / TSO / PSO by two engines behind one
//!   trait (state memoisation, source-DPOR), robustness with a witness, litmus suites.
//! - [`crosscheck`]: the monitors, the explorer and the theorems against each other on
//!   a program, over all of its runs.
//! - [`cnf`]: CNF formulas (DIMACS, random k-SAT); [`reduction`]: CNF satisfiability
//!   to non-serializability (docs/hardness.md), the hard family by construction.
//! - [`experiment`]: declared matrices of runs as child processes, resumable JSON-lines
//!   records, shards, and their report (tables, fitted exponents, plots).
//! - [`output`]: what is printed — witnesses as text and JSON, the documented `--json`
//!   objects as serde structs, Graphviz, the monitors' outcomes, the explorer's reports
//!   and herd7's format; [`text`]: input excerpts made safe to print.
//! - [`error`]: input errors with their file, line and event; [`mem`]: memory budgets;
//!   [`stop`]: when a run must stop (a deadline, cancellation flags).

pub mod analysis;
pub mod check;
pub mod cnf;
pub mod consistency;
pub mod crosscheck;
pub mod error;
pub mod experiment;
pub mod explore;
pub mod graph;
pub mod mem;
pub mod monitor;
pub mod output;
pub mod program;
pub mod reduction;
pub mod solver;
pub mod stop;
pub mod text;
pub mod trace;

pub use error::{Error, FileError};
