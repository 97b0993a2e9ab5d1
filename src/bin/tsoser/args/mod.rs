//! Command-line arguments (clap) — the raw layer; each command's module checks them into
//! library calls. One file per family of commands.

use crate::out::TraceFormat;
use clap::{Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

mod experiment;
mod program;
mod trace;

pub(crate) use experiment::*;
pub(crate) use program::*;
pub(crate) use trace::*;
use tsoser::check::Semantics;
use tsoser::explore;
use tsoser::solver::SolverKind;

#[derive(Parser)]
#[command(
    name = "tsoser",
    version,
    about = "Is every x86-TSO execution of a trace conflict-serializable?"
)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) cmd: Cmd,
}

#[derive(Subcommand)]
pub(crate) enum Cmd {
    /// Decide whether the trace is TSO-serializable; print a witness when it is not.
    Check(CheckArgs),
    /// Check one explicit execution (a trace with `commit` events): TSO-serializability
    /// and SC-equivalence (write-contraction, paper §4.2).
    CheckExec(CheckExecArgs),
    /// Is a run with values (each read's `val`: the value it returned) sequentially
    /// consistent, or a legal x86-TSO run? Qadeer's constraint graph under the run's
    /// write order (a nice cycle when not), or under any write order (SAT).
    Consistent(ConsistentArgs),
    /// Build a trace's event graph: print its size and whether its forced conflicts
    /// already have a cycle, or with --dot the graph in Graphviz.
    Graph(GraphArgs),
    /// Write the SAT/SMT encoding of the trace for an external solver: satisfiable iff
    /// the trace is not serializable (exact: no lazy cuts needed).
    Encode(EncodeArgs),
    /// Run a declared matrix of runs (families × parameters × seeds × deciders ×
    /// semantics), one child process each with a timeout and a memory limit, appending
    /// one JSON line per run to the records file; an interrupted experiment resumes.
    Experiment(Box<ExperimentArgs>),
    /// Turn experiment records into a CSV table and SVG plots (time against threads and
    /// against trace length per family, and the cactus plot); shards' files combine.
    Report(ReportArgs),
    /// Removed: `bench dense|scale` are `experiment --family …` (the error says how).
    #[command(hide = true)]
    Bench(BenchArgs),
    /// Generate a trace (seeded) in compact YAML.
    Gen(GenArgs),
    /// Generate seeded random programs (`.prog`) in families that make the theorems
    /// bite: one to standard output, or `--count N` files in `--out DIR`.
    GenProg(GenProgArgs),
    /// Run a monitor on the trace read as an SC execution (docs/semantics.md §6).
    Monitor(MonitorArgs),
    /// The monitors, the explorer and the theorems against each other on programs
    /// (`.prog`, `.litmus`, or directories of them), over all of their runs.
    Crosscheck(CrosscheckArgs),
    /// Explore every run of a program (`.prog`), X86 litmus test (`.litmus`) or C file
    /// (`.c`, `.i`; docs/c.md) under SC, TSO or PSO: outcomes, the final condition,
    /// assertions, robustness.
    Explore(ExploreArgs),
    /// Explore every `.litmus` test of a directory in one process and compare the final
    /// conditions with an expected-verdict CSV (`path,0|1`, as Dat3M's).
    Suite(SuiteArgs),
    /// Convert a trace between YAML and RAPID's STD format (docs/formats.md).
    Convert(ConvertArgs),
}
