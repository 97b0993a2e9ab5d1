//! tsoser: decide whether concurrent traces are conflict-serializable under x86-TSO
//! (Enea & Farzan, TACAS'16), exactly, with checkable witnesses; run the classic
//! memory-model monitors on traces read as SC runs; explore programs and litmus tests
//! under SC, TSO and PSO. What every part decides is specified in `docs/semantics.md`
//! (cited as §N).
//!
//! # The front door
//!
//! One entry point per question, re-exported here:
//! - [`decide`]: is every TSO execution of a [`Trace`] conflict-serializable (or the
//!   trace, read as an SC run, SC-serializable)? A [`Question`], an [`Algo`] and a
//!   [`Budget`] give a [`Decision`]: a [`Verdict`] whose witness was re-checked, or
//!   *unknown* with the part of the budget that ran out ([`Unknown`]).
//! - [`monitor::run_suite`] runs a [`MonitorSuite`] of [`Monitor`]s on a trace read as an
//!   SC run ([`monitor::stream`] on an STD file, in one pass).
//! - [`explore::run`] explores a [`Program`] ([`read_program`]: `.prog` or herd `.litmus`)
//!   under SC, TSO or PSO: outcomes, its condition, robustness with a witness.
//! - [`consistent`]: is a run with values ([`ValueRun`]) SC or TSO (Qadeer)?
//!
//! ```no_run
//! use tsoser::{decide, Algo, Budget, Question, Semantics, Verdict};
//! let trace = tsoser::trace::read_file("examples/rmw-sb.yaml".as_ref()).unwrap();
//! let d = decide(&trace, Question::Tso(Semantics::Exact), Algo::AUTO, &Budget::default());
//! if let Verdict::Violation(w) = d.unwrap().verdict {
//!     println!("{}", tsoser::output::witness::cycle_text(&trace, w.cycle(), None));
//! }
//! ```
//!
//! # Modules
//!
//! From the bottom floor up: each imports only modules listed before it
//! (`tests/architecture.rs` checks it; docs/architecture.md draws it).
//! - [`stop`]: a deadline and cancellation flags every search polls, and why a search
//!   answered unknown; [`error`]: input errors with their file, line and event;
//!   [`mem`]: memory budgets; [`text`]: input excerpts made safe to print.
//! - [`trace`]: the definitions — traces and their builder, executions, the conflict
//!   relation of Eq. (1) and ⊙SC ([`trace::conflict`]), the YAML and STD formats,
//!   generators, proptest strategies (feature `proptest`). [`cnf`]: CNF formulas
//!   (DIMACS, random k-SAT). [`solver`]: SAT and SMT backends behind one trait
//!   (varisat, CaDiCaL with an order propagator, z3): clauses in, a model out; it knows
//!   no trace.
//! - [`graph`]: conflict graphs and cycles, forced edges, the exact event graph
//!   (§5) and the paper's EG_τ (Def. 4), shortest labelled paths. [`reduction`]: CNF
//!   satisfiability to non-serializability (docs/hardness.md).
//! - [`analysis`]: what `sat` and `fpt` share — time windows, fixed orders, varying
//!   pairs, the graph of possible conflicts and its components, what a conflict
//!   requires of a commit placement, chosen orders to an execution.
//! - [`check`]: the deciders behind [`decide`]: `brute` (the oracle, on the definitions
//!   alone), `sat`, `fpt`, `auto`; execution-level checks and SC-serializability;
//!   witness verification ([`check::verify`]). [`consistency`]: runs with values
//!   (Qadeer 2001), SC and TSO, under the run's write order or any.
//! - [`monitor`]: SC-serializability, SOBER, Burnim et al.'s monitor_TSO / monitor_PSO
//!   and the transaction-fenced monitor (Theorem 3), on a trace read as an SC run, in
//!   memory or streamed from STD; their evidence re-checked. [`program`]: programs
//!   (`.prog`) and herd X86 litmus tests: syntax, parsers, printer.
//! - [`explore`]: their exact exploration under SC / TSO / PSO by two
//!   engines behind one trait (state memoisation, source-DPOR), robustness with a
//!   witness, litmus suites.
//! - [`crosscheck`]: the monitors, the explorer and the theorems against each other on
//!   a program, over all of its runs or over random SC runs. [`experiment`]: declared
//!   matrices of runs as child processes, resumable JSON-lines records, shards, and
//!   their report.
//! - [`output`]: what is printed — witnesses as text and JSON, the documented `--json`
//!   objects as serde structs, Graphviz, the monitors' outcomes, the explorer's reports,
//!   herd7's format, the random-run table.

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

pub use check::decide::{decide, Algo, Budget, Decision, Question};
pub use check::{Semantics, Verdict, Witness};
pub use consistency::{check as consistent, ValueRun};
pub use error::{Error, FileError};
pub use explore::{Options as ExploreOptions, Report as ExploreReport};
pub use monitor::{Monitor, Suite as MonitorSuite};
pub use program::{read_program, Program};
pub use stop::{Stop, Unknown};
pub use trace::Trace;
