//! The `tsoser` command line: parses arguments (`args`), checks them into library
//! calls (one module per command), prints, and maps the answer to an exit code
//! (`out`): 0 serializable / robust / nothing found, 1 violation, 2 usage or input
//! error, 3 unknown within a budget, 4 internal error (a witness that does not
//! re-check: a bug, never printed as a witness).

#[macro_use]
mod out;
mod args;
mod check;
mod consistent;
mod crosscheck;
mod experiment;
mod explore;
mod inputs;
mod monitor;
mod traces;

use anyhow::Result;
use args::{Cli, Cmd};
use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
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
        Cmd::CheckExec { file, json } => check::cmd_check_exec(&file, json),
        Cmd::Consistent {
            files,
            model,
            write_order,
            solver,
            timeout,
            order,
            json,
        } => consistent::cmd_consistent(
            &files,
            &consistent::Config {
                model: model.into(),
                write_order: write_order.into(),
                solver,
                timeout,
                show_order: order,
                as_json: json,
            },
        ),
        Cmd::Graph {
            files,
            semantics,
            dot,
            max_executions,
            json,
            stats,
        } => check::cmd_graph(&files, semantics.lib(), dot, max_executions, json, stats),
        Cmd::Encode {
            file,
            format,
            semantics,
            timeout,
        } => check::cmd_encode(&file, format, semantics.lib(), timeout),
        Cmd::Bench { rest } => experiment::cmd_bench_removed(&rest),
        Cmd::Gen(a) => traces::cmd_gen(a),
        Cmd::GenProg(a) => explore::cmd_gen_prog(&a),
        Cmd::Crosscheck(a) => crosscheck::cmd_crosscheck(&a),
        Cmd::Experiment(a) => experiment::cmd_experiment(*a),
        Cmd::Report { records, output } => experiment::cmd_report(&records, &output),
        Cmd::Monitor {
            files,
            monitor,
            timeout,
            json,
            stats,
        } => monitor::cmd_monitor(&files, monitor, check::timeout_arg(timeout)?, json, stats),
        Cmd::Explore {
            file,
            bounds,
            no_robustness,
            replay,
            emit_traces,
            emit_runs,
            max_traces,
            format,
            json,
            stats,
        } => {
            let format = match (json, format) {
                (false, f) => f,
                (true, args::ExploreFormat::Text) => args::ExploreFormat::Json,
                (true, _) => {
                    return Err(anyhow::anyhow!(
                        "--json and --format herd|prog exclude each other"
                    ))
                }
            };
            let o = tsoser::explore::Options {
                config: explore::config(&bounds)?,
                robustness: !no_robustness,
                engine: explore::engine(&bounds),
                program_unroll: bounds.unroll.is_none(),
            };
            explore::cmd_explore(
                &file,
                o,
                replay.as_deref(),
                &explore::Emit {
                    traces: emit_traces.as_deref(),
                    runs: emit_runs.as_deref(),
                    max_traces,
                },
                format,
                stats,
            )
        }
        Cmd::Suite {
            dir,
            expected,
            bounds,
            robustness,
            format,
            json,
        } => {
            let o = tsoser::explore::Options {
                config: explore::config(&bounds)?,
                robustness,
                engine: explore::engine(&bounds),
                program_unroll: false,
            };
            let herd = format == args::SuiteFormat::Herd;
            if herd && json {
                return Err(anyhow::anyhow!(
                    "--json and --format herd exclude each other"
                ));
            }
            explore::cmd_suite(&dir, expected.as_deref(), o, json, herd)
        }
        Cmd::Convert {
            file,
            from,
            to,
            output,
        } => traces::cmd_convert(&file, from, to, output.as_deref()),
    }
}
