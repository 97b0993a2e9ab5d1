//! The `tsoser` command line: parses arguments (`args`), checks them into library
//! calls (one module per command), prints, and maps the answer to an exit code
//! (`out`): 0 serializable / robust / nothing found, 1 violation, 2 usage or input
//! error, 3 unknown within a budget, 4 internal error (a witness that does not
//! re-check: a bug, never printed as a witness).

/// Counts the heap, for `check --max-memory`.
#[global_allocator]
static ALLOC: tsoser::mem::Counting = tsoser::mem::Counting;

#[macro_use]
mod out;
mod args;
mod check;
mod consistent;
mod crosscheck;
mod encode;
mod exec;
mod experiment;
mod explore;
mod gen_prog;
mod graph;
mod inputs;
mod monitor;
mod report;
mod sample;
mod suite;
mod traces;

use anyhow::Result;
use args::{Cli, Cmd};
use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    tsoser::mem::return_large_blocks();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // --help and --version print to standard output and exit 0; usage errors
            // exit 2. A closed output must not panic either way.
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { out::USAGE } else { out::OK });
        }
    };
    let code = match run(cli) {
        Ok(code) => code,
        Err(e) => {
            // One line, input excerpts escaped and short (docs: error messages).
            let msg = format!("{e:#}");
            out::warn(&format!("tsoser: {}", tsoser::text::message(&msg)));
            out::USAGE
        }
    };
    out::flush();
    ExitCode::from(code)
}

fn run(cli: Cli) -> Result<u8> {
    match cli.cmd {
        Cmd::Check(a) => check::cmd_check(a),
        Cmd::CheckExec(a) => exec::cmd_check_exec(&a),
        Cmd::Consistent(a) => consistent::cmd_consistent(&a),
        Cmd::Graph(a) => graph::cmd_graph(&a),
        Cmd::Encode(a) => encode::cmd_encode(&a),
        Cmd::Bench(a) => experiment::cmd_bench_removed(&a),
        Cmd::Gen(a) => traces::cmd_gen(a),
        Cmd::GenProg(a) => gen_prog::cmd_gen_prog(&a),
        Cmd::Crosscheck(a) => crosscheck::cmd_crosscheck(&a),
        Cmd::Experiment(a) => experiment::cmd_experiment(*a),
        Cmd::Report(a) => report::cmd_report(&a),
        Cmd::Monitor(a) => monitor::cmd_monitor(&a),
        Cmd::Explore(a) => explore::explore_args(a),
        Cmd::Suite(a) => suite::suite_args(a),
        Cmd::Convert(a) => traces::cmd_convert(&a),
    }
}
