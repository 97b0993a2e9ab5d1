//! The `tsoser` command line: a thin layer over the library.
//! Exit codes: 0 serializable, 1 violation, 2 usage or input error, 3 unknown within
//! the budget, 4 internal error (a witness that does not re-check: a bug).

use anyhow::{bail, Context, Result};
use clap::{Parser, Subcommand, ValueEnum};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use tsoser::check::fpt::{self, FptOptions};
use tsoser::check::sat::{self as satcheck, SolverKind};
use tsoser::check::{self, brute, execution, sc, Semantics, Verdict};
use tsoser::graph::{dot, exact::ExactGraph, paper::PaperGraph};
use tsoser::monitor;
use tsoser::program::{self, explore};
use tsoser::report::{self, Stats};
use tsoser::trace::{self, gen, Trace};

/// Writes to standard output; a closed pipe (`tsoser … | head`) ends the program quietly.
fn emit(s: &str) {
    use std::io::Write;
    if let Err(e) = std::io::stdout().lock().write_all(s.as_bytes()) {
        if e.kind() != std::io::ErrorKind::BrokenPipe {
            eprintln!("tsoser: cannot write output: {e}");
            std::process::exit(2);
        }
        std::process::exit(0);
    }
}

macro_rules! out {
    ($($t:tt)*) => { emit(&format!($($t)*)) };
}

macro_rules! outln {
    ($($t:tt)*) => { emit(&format!("{}\n", format_args!($($t)*))) };
}

#[derive(Parser)]
#[command(
    name = "tsoser",
    version,
    about = "Is every x86-TSO execution of a trace conflict-serializable?"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Algo {
    /// Enumerate every execution (the definition; the oracle of all tests).
    Brute,
    /// SAT/SMT encoding of executions (varisat, or z3 with --solver z3).
    Sat,
    /// Fixed-parameter enumeration of simple cycles over chains (Enea & Farzan Fig. 3).
    Fpt,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Model {
    /// TSO-serializability of every execution of the trace (Definition 3).
    Tso,
    /// SC-serializability of the trace read as an SC execution.
    Sc,
}

#[derive(Subcommand)]
enum BenchCmd {
    /// `--algo sat` on dense traces (few variables, no fences: the hard regime) against
    /// the number of threads, each solver with a time limit.
    Dense {
        #[arg(long, default_value_t = 2)]
        min_threads: usize,
        #[arg(long, default_value_t = 16)]
        max_threads: usize,
        #[arg(long, default_value_t = 200)]
        events: usize,
        #[arg(long, default_value_t = 3)]
        vars: usize,
        #[arg(long, default_value_t = 3)]
        seeds: u64,
        /// Mean events per transaction.
        #[arg(long, default_value_t = 1)]
        txn_len: usize,
        /// Probability of a write (the rest are reads).
        #[arg(long, default_value_t = 0.5)]
        write: f64,
        /// Seconds per run.
        #[arg(long, default_value_t = 60.0)]
        timeout: f64,
        /// Deciders to run on each trace.
        #[arg(
            long,
            value_enum,
            value_delimiter = ',',
            default_value = "fpt,varisat,z3"
        )]
        deciders: Vec<Decider>,
    },
    /// `--algo fpt` against `--algo sat` on the same generated traces: time against the
    /// trace length at each thread count, and against the thread count. One CSV row a
    /// run; the fitted exponent of time in n per decider and thread count on stderr.
    Scale {
        #[arg(
            long,
            value_delimiter = ',',
            default_value = "1000,10000,100000,1000000"
        )]
        events: Vec<usize>,
        #[arg(long, value_delimiter = ',', default_value = "2,3,4")]
        threads: Vec<usize>,
        /// Trace family (all: 1,000 variables, transactions of ~8 events, a fence every ~50).
        #[arg(long, value_enum, default_value = "serial")]
        family: Family,
        #[arg(long, default_value_t = 1000)]
        vars: usize,
        #[arg(long, default_value_t = 2)]
        seeds: u64,
        #[arg(long, value_enum, default_value = "exact")]
        semantics: Semantics,
        /// Seconds per run.
        #[arg(long, default_value_t = 120.0)]
        timeout: f64,
        #[arg(long, value_enum, value_delimiter = ',', default_value = "fpt,varisat")]
        deciders: Vec<Decider>,
    },
}

/// Profiles of `--algo fpt`.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Profiles {
    Exact,
    Fig4,
}

/// A decider of `tsoser bench`.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Decider {
    /// --algo fpt
    Fpt,
    /// --algo sat --solver varisat
    Varisat,
    /// --algo sat --solver z3 (skipped without the z3 feature)
    Z3,
}

impl Decider {
    fn name(self) -> &'static str {
        match self {
            Decider::Fpt => "fpt",
            Decider::Varisat => "sat/varisat",
            Decider::Z3 => "sat/z3",
        }
    }

    fn opts(self, semantics: Semantics, timeout: f64) -> CheckOpts {
        let (algo, solver) = match self {
            Decider::Fpt => (Algo::Fpt, SolverKind::Varisat),
            Decider::Varisat => (Algo::Sat, SolverKind::Varisat),
            Decider::Z3 => (Algo::Sat, SolverKind::Z3),
        };
        CheckOpts {
            algo,
            semantics,
            model: Model::Tso,
            max: brute::DEFAULT_MAX,
            solver,
            timeout: Some(std::time::Duration::from_secs_f64(timeout)),
            jobs: 0,
            max_jumps: fpt::DEFAULT_MAX,
            fig4: false,
        }
    }

    fn available(self) -> bool {
        self != Decider::Z3 || cfg!(feature = "z3")
    }
}

/// Trace families of `tsoser bench scale`.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Family {
    /// Serial schedule, no transaction fences: violations, found inside components.
    Serial,
    /// Serial schedule, every transaction ends with a fence: serializable.
    SerialFenced,
    /// Threads interleave event by event: violations, mostly forced cycles.
    Random,
    /// Blocks of 40 events (2 variables, single-event transactions, no fences: the
    /// hard regime of `bench dense`), each closed by a fence in every thread; --vars ignored.
    Blocks,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    /// DIMACS CNF with a variable table in comments.
    Dimacs,
    /// SMT-LIB 2 (integer positions; needs the z3 feature).
    Smt2,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Schedule {
    Random,
    Serial,
}

#[derive(Subcommand)]
enum Cmd {
    /// Decide whether the trace is TSO-serializable; print a witness when it is not.
    Check {
        file: PathBuf,
        #[arg(long, value_enum, default_value = "brute")]
        algo: Algo,
        #[arg(long, value_enum, default_value = "exact")]
        semantics: Semantics,
        #[arg(long, value_enum, default_value = "tso")]
        model: Model,
        /// Budget: execution prefixes (or paper-mode orientations) brute force may visit.
        #[arg(long, default_value_t = brute::DEFAULT_MAX)]
        max_executions: u64,
        /// Solver of --algo sat.
        #[arg(long, value_enum, default_value = "varisat")]
        solver: SolverKind,
        /// Worker threads of --algo fpt (0: one per core).
        #[arg(long, default_value_t = 0)]
        jobs: usize,
        /// Budget of --algo fpt: jumps tried (partial cycles extended) before unknown.
        #[arg(long, default_value_t = fpt::DEFAULT_MAX)]
        max_jumps: u64,
        /// Profiles of --algo fpt: `exact` entry/exit events, or `fig4`: one per
        /// (operation, variable) class and chain, as Fig. 4 does — NOT exact (a "yes"
        /// may be wrong; encodings/fpt.md), for reproducing and measuring the paper.
        #[arg(long, value_enum, default_value = "exact")]
        profiles: Profiles,
        /// Give up after this many seconds: the answer is unknown (exit 3).
        #[arg(long, value_name = "SECONDS")]
        timeout: Option<f64>,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
        /// Print phase times, counts and peak memory.
        #[arg(long)]
        stats: bool,
        /// Also write the event graph, witness highlighted, as Graphviz to this file.
        #[arg(long, value_name = "FILE")]
        dot: Option<PathBuf>,
    },
    /// Check one explicit execution (a trace with `commit` events): TSO-serializability
    /// and SC-equivalence (write-contraction, paper §4.2).
    CheckExec {
        file: PathBuf,
        #[arg(long)]
        json: bool,
    },
    /// Build a trace's event graph: print its size and whether its forced conflicts
    /// already have a cycle, or with --dot the graph in Graphviz.
    Graph {
        file: PathBuf,
        #[arg(long, value_enum, default_value = "exact")]
        semantics: Semantics,
        /// Print Graphviz (a witness cycle, found by brute force within the budget, in red).
        #[arg(long)]
        dot: bool,
        #[arg(long, default_value_t = 1_000_000)]
        max_executions: u64,
        #[arg(long)]
        json: bool,
        #[arg(long)]
        stats: bool,
    },
    /// Write the SAT/SMT encoding of the trace for an external solver: satisfiable iff
    /// the trace is not serializable (exact: no lazy cuts needed).
    Encode {
        file: PathBuf,
        #[arg(long, value_enum, default_value = "dimacs")]
        format: Format,
        #[arg(long, value_enum, default_value = "exact")]
        semantics: Semantics,
    },
    /// Experiments: print a CSV of measurements.
    Bench {
        #[command(subcommand)]
        which: BenchCmd,
    },
    /// Generate a trace (seeded) in compact YAML.
    Gen {
        #[arg(long, default_value_t = 1000)]
        events: usize,
        #[arg(long, default_value_t = 8)]
        threads: usize,
        #[arg(long, default_value_t = 1000)]
        vars: usize,
        #[arg(long, default_value_t = 8)]
        txn_len: usize,
        /// Mean events between fences of a thread (0: none).
        #[arg(long, default_value_t = 50)]
        fence_every: usize,
        #[arg(long, default_value_t = 0.01)]
        rmw: f64,
        #[arg(long, default_value_t = 0.4)]
        write: f64,
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// `random`: threads interleave event by event; `serial`: each transaction runs
        /// to its end before another is scheduled.
        #[arg(long, value_enum, default_value = "random")]
        schedule: Schedule,
        /// End every transaction with a fence (with `--schedule serial`: serializable traces).
        #[arg(long)]
        txn_fenced: bool,
        /// No read after a write inside a transaction (with `--schedule serial
        /// --txn-fenced`: robust traces the SC monitors read to their end).
        #[arg(long)]
        reads_first: bool,
        /// Output file (default: standard output).
        #[arg(short, long)]
        output: Option<PathBuf>,
    },
    /// Run a monitor on the trace read as an SC execution (docs/semantics.md §6).
    Monitor {
        file: PathBuf,
        /// Which monitor (README, "Monitors"); `all` runs every one in one pass.
        #[arg(long, value_enum, default_value = "sc-ser")]
        monitor: MonitorKind,
        #[arg(long)]
        json: bool,
        /// Print the time and throughput of the monitor.
        #[arg(long)]
        stats: bool,
    },
    /// Explore every run of a program (`.prog`) or X86 litmus test (`.litmus`) under
    /// SC, TSO or PSO: outcomes, the final condition, assertions, robustness.
    Explore {
        file: PathBuf,
        #[arg(long, value_enum, default_value = "tso")]
        model: ProgModel,
        /// Times a backward branch may be taken per thread before the run is cut.
        #[arg(long, default_value_t = 4)]
        unroll: u32,
        /// Distinct states before the answer is unknown (exit 3).
        #[arg(long, default_value_t = 2_000_000)]
        max_states: usize,
        /// Skip the robustness search.
        #[arg(long)]
        no_robustness: bool,
        /// Replay one schedule (as printed for a witness) instead of exploring.
        #[arg(long)]
        replay: Option<String>,
        /// Write the distinct traces of complete runs to DIR (SC runs as SC traces for
        /// `monitor`; TSO/PSO runs as issue-order traces for `check`).
        #[arg(long, value_name = "DIR")]
        emit_traces: Option<PathBuf>,
        /// At most this many traces with --emit-traces.
        #[arg(long, default_value_t = 1000)]
        max_traces: usize,
        #[arg(long)]
        json: bool,
        #[arg(long)]
        stats: bool,
    },
    /// Explore every `.litmus` test of a directory in one process and compare the final
    /// conditions with an expected-verdict CSV (`path,0|1`, as Dat3M's).
    Suite {
        dir: PathBuf,
        #[arg(long, value_enum, default_value = "tso")]
        model: ProgModel,
        /// CSV of expected verdicts: a line `…/NAME.litmus,1` when the condition holds.
        #[arg(long)]
        expected: Option<PathBuf>,
        #[arg(long, default_value_t = 4)]
        unroll: u32,
        #[arg(long, default_value_t = 2_000_000)]
        max_states: usize,
        /// Also decide robustness for each test.
        #[arg(long)]
        robustness: bool,
        #[arg(long)]
        json: bool,
    },
    /// Convert a trace between YAML and RAPID's STD format (README, "Trace format").
    Convert {
        file: PathBuf,
        /// Input format (default: by extension, `.std` is STD, anything else YAML).
        #[arg(long, value_enum)]
        from: Option<TraceFormat>,
        /// Output format (default: by the output file's extension, else the other format).
        #[arg(long, value_enum)]
        to: Option<TraceFormat>,
        /// Output file (default: standard output).
        #[arg(short, long)]
        output: Option<PathBuf>,
    },
}

/// Memory models of `tsoser explore`.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ProgModel {
    Sc,
    Tso,
    Pso,
}

impl ProgModel {
    fn model(self) -> explore::Model {
        match self {
            ProgModel::Sc => explore::Model::Sc,
            ProgModel::Tso => explore::Model::Tso,
            ProgModel::Pso => explore::Model::Pso,
        }
    }
}

/// Monitors of `tsoser monitor`.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum MonitorKind {
    /// SC-serializability: the ⊙SC conflict graph is acyclic (one pass, vector clocks).
    ScSer,
    /// SOBER's store-buffer-safety monitor (Burckhardt & Musuvathi, Figs. 2, 3).
    Sober,
    /// monitor_TSO (Burnim, Sen & Stergiou, Fig. 4).
    Tso,
    /// monitor_PSO (Burnim, Sen & Stergiou, Fig. 5).
    Pso,
    /// Transaction-fenced: robustness (SOBER) + SC-serializability (Enea & Farzan Thm. 3).
    Fenced,
    /// Every monitor, in one pass.
    All,
}

impl MonitorKind {
    fn kinds(self) -> Vec<monitor::Kind> {
        use monitor::Kind;
        match self {
            MonitorKind::ScSer => vec![Kind::ScSer],
            MonitorKind::Sober => vec![Kind::Sober],
            MonitorKind::Tso => vec![Kind::Tso],
            MonitorKind::Pso => vec![Kind::Pso],
            MonitorKind::Fenced => vec![Kind::Fenced],
            MonitorKind::All => Kind::ALL.to_vec(),
        }
    }
}

/// Trace file formats.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum TraceFormat {
    /// tsoser's YAML (canonical or compact events).
    Yaml,
    /// RAPID's STD: `THREAD|OP(ARG)|LOC` lines.
    Std,
}

impl TraceFormat {
    fn of(path: &Path) -> TraceFormat {
        match path.extension().and_then(|e| e.to_str()) {
            Some("std") => TraceFormat::Std,
            _ => TraceFormat::Yaml,
        }
    }
}

/// Writes `text` to `output`, or to standard output.
fn write_out(output: Option<&Path>, text: &str) -> Result<()> {
    match output {
        Some(p) => std::fs::write(p, text).with_context(|| format!("cannot write {}", p.display())),
        None => {
            out!("{text}");
            Ok(())
        }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("tsoser: {e:#}");
            ExitCode::from(2)
        }
    }
}

/// Reads a trace: RAPID's STD for a `.std` file, YAML otherwise.
fn load(path: &Path) -> Result<Trace> {
    read_as(path, TraceFormat::of(path))
}

fn run(cli: Cli) -> Result<u8> {
    match cli.cmd {
        Cmd::Check {
            file,
            algo,
            semantics,
            model,
            max_executions,
            solver,
            jobs,
            max_jumps,
            profiles,
            timeout,
            json,
            stats,
            dot,
        } => {
            if profiles == Profiles::Fig4 && algo != Algo::Fpt {
                bail!("--profiles fig4 is an option of --algo fpt");
            }
            let timeout = match timeout {
                Some(t) if !(t > 0.0 && t.is_finite()) => {
                    bail!("--timeout takes a positive number of seconds")
                }
                t => t.map(std::time::Duration::from_secs_f64),
            };
            let opts = CheckOpts {
                algo,
                semantics,
                model,
                max: max_executions,
                solver,
                timeout,
                jobs,
                max_jumps,
                fig4: profiles == Profiles::Fig4,
            };
            cmd_check(&file, opts, json, stats, dot.as_deref())
        }
        Cmd::Encode {
            file,
            format,
            semantics,
        } => cmd_encode(&file, format, semantics),
        Cmd::Bench {
            which:
                BenchCmd::Dense {
                    min_threads,
                    max_threads,
                    events,
                    vars,
                    seeds,
                    txn_len,
                    write,
                    timeout,
                    deciders,
                },
        } => {
            if min_threads == 0
                || vars == 0
                || min_threads > max_threads
                || timeout.is_nan()
                || timeout <= 0.0
            {
                bail!(
                    "need 1 ≤ --min-threads ≤ --max-threads, --vars ≥ 1 and a positive --timeout"
                );
            }
            let shape = gen::Shape {
                txn_len,
                write,
                ..gen::Shape::dense(events, min_threads, vars)
            };
            bench_dense(min_threads..=max_threads, shape, seeds, timeout, &deciders)
        }
        Cmd::Bench {
            which:
                BenchCmd::Scale {
                    events,
                    threads,
                    family,
                    vars,
                    seeds,
                    semantics,
                    timeout,
                    deciders,
                },
        } => {
            if threads.contains(&0) || vars == 0 || !(timeout > 0.0 && timeout.is_finite()) {
                bail!("need --threads ≥ 1, --vars ≥ 1 and a positive --timeout");
            }
            bench_scale(
                &events, &threads, family, vars, seeds, semantics, timeout, &deciders,
            )
        }
        Cmd::CheckExec { file, json } => cmd_check_exec(&file, json),
        Cmd::Graph {
            file,
            semantics,
            dot,
            max_executions,
            json,
            stats,
        } => cmd_graph(&file, semantics, dot, max_executions, json, stats),
        Cmd::Gen {
            events,
            threads,
            vars,
            txn_len,
            fence_every,
            rmw,
            write,
            seed,
            schedule,
            txn_fenced,
            reads_first,
            output,
        } => {
            if threads == 0 || vars == 0 {
                bail!("--threads and --vars must be at least 1");
            }
            if !(0.0..=1.0).contains(&(rmw + write)) || rmw < 0.0 || write < 0.0 {
                bail!("--rmw and --write are probabilities with rmw + write ≤ 1");
            }
            let shape = gen::Shape {
                events,
                threads,
                vars,
                txn_len,
                fence_every,
                rmw,
                write,
                serial: schedule == Schedule::Serial,
                txn_fenced,
                reads_first,
            };
            let text = gen::to_compact_yaml(&gen::generate(&shape, seed));
            write_out(output.as_deref(), &text)?;
            Ok(0)
        }
        Cmd::Monitor {
            file,
            monitor,
            json,
            stats,
        } => cmd_monitor(&file, monitor, json, stats),
        Cmd::Explore {
            file,
            model,
            unroll,
            max_states,
            no_robustness,
            replay,
            emit_traces,
            max_traces,
            json,
            stats,
        } => {
            let o = program::report::Options {
                model: model.model(),
                unroll,
                max_states,
                robustness: !no_robustness,
            };
            cmd_explore(
                &file,
                o,
                replay.as_deref(),
                emit_traces.as_deref(),
                max_traces,
                json,
                stats,
            )
        }
        Cmd::Suite {
            dir,
            model,
            expected,
            unroll,
            max_states,
            robustness,
            json,
        } => {
            let o = program::report::Options {
                model: model.model(),
                unroll,
                max_states,
                robustness,
            };
            cmd_suite(&dir, expected.as_deref(), o, json)
        }
        Cmd::Convert {
            file,
            from,
            to,
            output,
        } => {
            let from = from.unwrap_or_else(|| TraceFormat::of(&file));
            let trace = read_as(&file, from)?;
            let to = to.unwrap_or_else(|| match &output {
                Some(p) if p.extension().is_some() => TraceFormat::of(p),
                _ if from == TraceFormat::Std => TraceFormat::Yaml,
                _ => TraceFormat::Std,
            });
            let text = match to {
                TraceFormat::Yaml => gen::to_compact_yaml(&trace),
                TraceFormat::Std => trace::std_format::to_std(&trace)
                    .map_err(|e| anyhow::anyhow!("{}: cannot write STD: {e}", file.display()))?,
            };
            write_out(output.as_deref(), &text)?;
            Ok(0)
        }
    }
}

fn cmd_monitor(file: &Path, which: MonitorKind, as_json: bool, want_stats: bool) -> Result<u8> {
    let kinds = which.kinds();
    let mut stats = Stats::default();
    // An STD file is streamed (two passes, no trace in memory); the trace is built only
    // to explain a report, and then the in-memory run must agree with the streamed one.
    let (outcomes, trace, info, seen) = if TraceFormat::of(file) == TraceFormat::Std {
        let s = stats.time("monitor (streaming)", || monitor::stream(file, &kinds))?;
        let needs_trace = s.outcomes.iter().any(|(_, o)| {
            o.is_violation()
                || matches!(
                    o,
                    monitor::Outcome::Fenced {
                        unfenced: Some(_),
                        ..
                    }
                )
        });
        if needs_trace {
            let trace = load(file)?;
            let again = monitor::run(&trace, &kinds);
            if again != s.outcomes {
                eprintln!("tsoser: internal error: the streamed monitors found {:?}, the in-memory ones {again:?}; please report this trace", s.outcomes);
                return Ok(4);
            }
            let info = trace_json(&trace);
            (s.outcomes, Some(trace), info, s.events)
        } else {
            let info = json!({"name": null, "events": s.events, "threads": s.threads,
                              "transactions": s.transactions, "variables": s.variables});
            (s.outcomes, None, info, s.events)
        }
    } else {
        let trace = stats.time("parse", || load(file))?;
        // Set-up (allocating the state) is timed apart: right after a large parse, the
        // allocator's deferred clean-up lands on the first allocations.
        let suite = stats.time("set-up", || {
            monitor::Suite::new(&kinds, trace.threads.len(), trace.vars.len())
        });
        let outcomes = stats.time("monitor", || monitor::run_suite(suite, &trace));
        let seen = outcomes
            .iter()
            .map(|(_, o)| o.at().map_or(trace.len(), |i| i + 1))
            .max()
            .unwrap_or(0);
        let info = trace_json(&trace);
        (outcomes, Some(trace), info, seen)
    };
    let empty = Trace::new(None, vec![], vec![], vec![], vec![])?;
    let t = trace.as_ref().unwrap_or(&empty);
    let mut explained = Vec::new();
    for (kind, o) in &outcomes {
        match monitor::explain::explain(t, *kind, o) {
            Ok(x) => explained.push(x),
            Err(why) => {
                eprintln!("tsoser: internal error: the {} monitor's evidence does not re-check ({why}); please report this trace", kind.name());
                return Ok(4);
            }
        }
    }
    let secs: f64 = stats
        .phases
        .iter()
        .filter(|p| p.0.starts_with("monitor"))
        .map(|p| p.1)
        .sum();
    stats.count("events", seen as u64);
    stats.count("events per second", (seen as f64 / secs.max(1e-9)) as u64);
    // Exit: 1 if any monitor reports a violation, else 3 if one is unknown, else 0.
    let code =
        explained
            .iter()
            .map(|x| x.exit)
            .fold(0, |a, b| if a == 1 || b == 1 { 1 } else { a.max(b) });
    let fname = file.display().to_string();
    if as_json {
        let one = |x: &monitor::explain::Explained| {
            let mut v = json!({
                "monitor": x.kind.name(),
                "verdict": x.verdict,
                "stopped_at": x.stopped_at.map(|i| json!({"event": i, "line": t.events[i].line, "text": t.describe(i)})),
                "report": x.report,
            });
            if x.kind == monitor::Kind::ScSer {
                v["witness"] = x.report.clone();
            }
            v
        };
        let mut out = if let [x] = explained.as_slice() {
            let mut v = one(x);
            v["file"] = json!(fname);
            v["trace"] = info;
            v
        } else {
            json!({"file": fname, "trace": info, "monitors": explained.iter().map(one).collect::<Vec<_>>()})
        };
        if want_stats {
            out["stats"] = stats.to_json();
        }
        outln!("{}", serde_json::to_string_pretty(&out)?);
    } else {
        for x in &explained {
            outln!("{fname}: {}", x.headline);
            out!("{}", x.details);
        }
        if want_stats {
            eprint!("{}", stats.to_text());
        }
    }
    Ok(code)
}

fn read_as(path: &Path, format: TraceFormat) -> Result<Trace> {
    Ok(match format {
        TraceFormat::Yaml => trace::parse::read_trace(path)?,
        TraceFormat::Std => trace::std_format::read_std(path)?,
    })
}

fn algo_name(a: Algo, m: Model) -> &'static str {
    match (m, a) {
        (Model::Sc, _) => "sc",
        (_, Algo::Sat) => "sat",
        (_, Algo::Fpt) => "fpt",
        (_, Algo::Brute) => "brute",
    }
}

fn solver_name(s: SolverKind) -> &'static str {
    match s {
        SolverKind::Varisat => "varisat",
        SolverKind::Z3 => "z3",
    }
}

fn bench_dense(
    threads: std::ops::RangeInclusive<usize>,
    base: gen::Shape,
    seeds: u64,
    timeout: f64,
    deciders: &[Decider],
) -> Result<u8> {
    outln!("threads,events,vars,txn_len,seed,decider,verdict,seconds,variables,clauses,lazy_cuts,jumps_tried");
    for k in threads {
        for seed in 0..seeds {
            let shape = gen::Shape { threads: k, ..base };
            let trace = std::sync::Arc::new(gen::generate(&shape, seed));
            for d in deciders.iter().filter(|d| d.available()) {
                let (secs, run) = timed_run(&trace, d.opts(Semantics::Exact, timeout))?;
                outln!(
                    "{k},{},{},{},{seed},{},{},{secs:.4},{},{},{},{}",
                    shape.events,
                    shape.vars,
                    shape.txn_len,
                    d.name(),
                    run.verdict.name(),
                    run.count("variables"),
                    run.count("clauses"),
                    run.count("lazy cuts"),
                    run.count("jumps tried")
                );
            }
        }
    }
    Ok(0)
}

impl Decided {
    fn count(&self, name: &str) -> u64 {
        self.counts
            .iter()
            .find(|(k, _)| k == name)
            .map_or(0, |x| x.1)
    }
}

/// One decider run on a worker thread (so `--timeout` holds), timed.
fn timed_run(trace: &std::sync::Arc<Trace>, o: CheckOpts) -> Result<(f64, Decided)> {
    let t = std::time::Instant::now();
    let d = decide_within(trace.clone(), o).map_err(|e| anyhow::anyhow!(e))?;
    Ok((t.elapsed().as_secs_f64(), d))
}

/// Least-squares slope of log(seconds) against log(events): the fitted exponent.
fn fitted_exponent(points: &[(f64, f64)]) -> Option<f64> {
    let pts: Vec<(f64, f64)> = points
        .iter()
        .filter(|p| p.0 > 0.0 && p.1 > 0.0)
        .map(|&(n, t)| (n.ln(), t.ln()))
        .collect();
    if pts.len() < 2 {
        return None;
    }
    let k = pts.len() as f64;
    let (mx, my) = (
        pts.iter().map(|p| p.0).sum::<f64>() / k,
        pts.iter().map(|p| p.1).sum::<f64>() / k,
    );
    let sxx: f64 = pts.iter().map(|p| (p.0 - mx).powi(2)).sum();
    let sxy: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    (sxx > 0.0).then(|| sxy / sxx)
}

#[allow(clippy::too_many_arguments)]
fn bench_scale(
    events: &[usize],
    threads: &[usize],
    family: Family,
    vars: usize,
    seeds: u64,
    semantics: Semantics,
    timeout: f64,
    deciders: &[Decider],
) -> Result<u8> {
    let family_name = match family {
        Family::Serial => "serial",
        Family::SerialFenced => "serial-fenced",
        Family::Random => "random",
        Family::Blocks => "blocks",
    };
    outln!("family,semantics,events,threads,seed,decider,verdict,seconds,components,largest_component,jumps_tried,solver_calls");
    // (decider, k) → (n, seconds) of answered runs.
    let mut fit: std::collections::BTreeMap<(usize, usize), Vec<(f64, f64)>> = Default::default();
    for &k in threads {
        for &n in events {
            for seed in 0..seeds {
                let shape = gen::Shape {
                    threads: k,
                    vars,
                    serial: family != Family::Random,
                    txn_fenced: family == Family::SerialFenced,
                    ..gen::Shape::realistic(n)
                };
                let trace = std::sync::Arc::new(if family == Family::Blocks {
                    let block = gen::Shape::dense(40, k, 2);
                    gen::blocks(&block, (n / (40 + k)).max(1), seed)
                } else {
                    gen::generate(&shape, seed)
                });
                for (i, d) in deciders.iter().enumerate().filter(|(_, d)| d.available()) {
                    let (secs, run) = timed_run(&trace, d.opts(semantics, timeout))?;
                    outln!(
                        "{family_name},{},{n},{k},{seed},{},{},{secs:.4},{},{},{},{}",
                        semantics_name(semantics),
                        d.name(),
                        run.verdict.name(),
                        run.count("components"),
                        run.count("largest component"),
                        run.count("jumps tried"),
                        run.count("solver calls")
                    );
                    if !matches!(run.verdict, Verdict::Unknown { .. }) {
                        fit.entry((i, k)).or_default().push((n as f64, secs));
                    }
                }
            }
        }
    }
    for ((i, k), pts) in &fit {
        if let Some(e) = fitted_exponent(pts) {
            eprintln!(
                "fitted exponent of time in n: {} k={k}: {e:.2}",
                deciders[*i].name()
            );
        }
    }
    Ok(0)
}

fn cmd_encode(file: &Path, format: Format, semantics: Semantics) -> Result<u8> {
    let trace = load(file)?;
    match format {
        Format::Dimacs => {
            let f = satcheck::encode::export_formula(&trace, semantics).map_err(|e| {
                anyhow::anyhow!(
                    "{}: the exact formula is too large to write ({e}); decide it with `tsoser check --algo sat`",
                    file.display()
                )
            })?;
            out!("{}", satcheck::export::to_dimacs(&trace, &f))
        }
        Format::Smt2 => {
            #[cfg(feature = "z3")]
            {
                let f = satcheck::encode::whole_formula(&trace, semantics);
                out!("{}", satcheck::backend::Z3::new(&f, &trace, None).to_smt2());
            }
            #[cfg(not(feature = "z3"))]
            bail!("--format smt2 needs the z3 backend: build with `--features z3`");
        }
    }
    Ok(0)
}

fn semantics_name(s: Semantics) -> &'static str {
    match s {
        Semantics::Exact => "exact",
        Semantics::Paper => "paper",
    }
}

/// Re-checks a witness; an unverifiable one is a bug and is never printed as a witness.
fn verified(trace: &Trace, verdict: &Verdict) -> Result<(), String> {
    match verdict {
        Verdict::Violation(w) => check::verify(trace, w),
        _ => Ok(()),
    }
}

#[derive(Clone, Copy)]
struct CheckOpts {
    algo: Algo,
    semantics: Semantics,
    model: Model,
    max: u64,
    solver: SolverKind,
    timeout: Option<std::time::Duration>,
    jobs: usize,
    max_jumps: u64,
    fig4: bool,
}

impl CheckOpts {
    fn fpt(&self, timeout: Option<std::time::Duration>) -> FptOptions {
        FptOptions {
            jobs: self.jobs,
            max_jumps: self.max_jumps,
            timeout,
            fig4_representatives: self.fig4,
        }
    }
}

/// What one decider run produced.
struct Decided {
    verdict: Verdict,
    counts: Vec<(String, u64)>,
    phases: Vec<(String, f64)>,
    realizable: Option<bool>,
    /// `--algo fpt`: the chain partition with its profiles.
    chains: Option<Vec<fpt::profile::ChainProfile>>,
}

fn brute_counts(s: &brute::BruteStats) -> Vec<(String, u64)> {
    vec![
        ("visited".into(), s.visited),
        ("complete".into(), s.complete),
        ("slept".into(), s.slept),
        ("forced edges".into(), s.forced_edges),
    ]
}

fn decide(trace: &Trace, o: CheckOpts) -> Result<Decided, String> {
    let started = std::time::Instant::now();
    let mut d = Decided {
        verdict: Verdict::Serializable,
        counts: Vec::new(),
        phases: Vec::new(),
        realizable: None,
        chains: None,
    };
    match (o.model, o.algo) {
        (Model::Sc, _) => d.verdict = sc::check_sc(trace),
        (Model::Tso, Algo::Sat) => {
            let (v, s) = satcheck::check_sat(trace, o.semantics, o.solver, o.timeout)
                .map_err(|e| e.to_string())?;
            d.verdict = v;
            d.phases = s.phases.clone();
            d.counts = vec![
                ("variables".into(), s.variables),
                ("clauses".into(), s.clauses),
                ("order clauses".into(), s.order_clauses),
                ("solver calls".into(), s.solver_calls),
                ("lazy cuts".into(), s.lazy_cuts),
                ("components".into(), s.components),
                ("largest component".into(), s.largest_component),
                ("varying pairs".into(), s.varying_pairs),
                ("forced edges".into(), s.forced_edges),
            ];
        }
        (Model::Tso, Algo::Fpt) => {
            let (v, s) =
                fpt::check_fpt(trace, o.semantics, o.fpt(o.timeout)).map_err(|e| e.to_string())?;
            d.verdict = v;
            d.phases = s.phases.clone();
            d.counts = vec![
                ("forced edges".into(), s.forced_edges),
                ("varying".into(), s.varying),
                ("components".into(), s.components),
                ("largest component".into(), s.largest_component),
                ("chains".into(), s.width),
                ("jumps".into(), s.jumps),
                ("first jumps".into(), s.first_jumps),
                ("jumps tried".into(), s.extended),
                ("pruned (not simple)".into(), s.pruned_simple),
                ("pruned (not valid)".into(), s.pruned_invalid),
            ];
            d.chains = Some(s.chains);
        }
        (Model::Tso, Algo::Brute) => {
            let (v, s) = match o.semantics {
                Semantics::Exact => brute::check_exact(trace, o.max),
                Semantics::Paper => brute::check_paper(trace, o.max),
            };
            d.verdict = v;
            d.counts = brute_counts(&s);
        }
    }
    if o.model == Model::Tso && o.semantics == Semantics::Paper && d.verdict.is_violation() {
        // Is there an execution behind the paper's violation? Same algorithm, the time left.
        let exact = match o.algo {
            Algo::Sat => {
                let left = o.timeout.map(|t| t.saturating_sub(started.elapsed()));
                satcheck::check_sat(trace, Semantics::Exact, o.solver, left)
                    .map(|x| x.0)
                    .map_err(|e| e.to_string())?
            }
            Algo::Fpt => {
                let left = o.timeout.map(|t| t.saturating_sub(started.elapsed()));
                let exact = FptOptions {
                    fig4_representatives: false,
                    ..o.fpt(left)
                };
                fpt::check_fpt(trace, Semantics::Exact, exact)
                    .map(|x| x.0)
                    .map_err(|e| e.to_string())?
            }
            _ => brute::check_exact(trace, o.max).0,
        };
        d.realizable = match exact {
            Verdict::Violation(_) => Some(true),
            Verdict::Serializable => Some(false),
            Verdict::Unknown { .. } => None,
        };
    }
    Ok(d)
}

/// Runs the decider on a worker thread so that `--timeout` holds for every algorithm.
fn decide_within(trace: std::sync::Arc<Trace>, o: CheckOpts) -> Result<Decided, String> {
    let (tx, rx) = std::sync::mpsc::channel();
    let t = trace.clone();
    std::thread::spawn(move || {
        let _ = tx.send(decide(&t, o));
    });
    let got = match o.timeout {
        Some(limit) => rx.recv_timeout(limit),
        None => rx
            .recv()
            .map_err(|_| std::sync::mpsc::RecvTimeoutError::Disconnected),
    };
    got.unwrap_or_else(|e| {
        if e == std::sync::mpsc::RecvTimeoutError::Disconnected {
            return Err("internal error: the decider stopped without an answer (a bug; please report this trace)".into());
        }
        Ok(Decided {
            verdict: Verdict::Unknown {
                reason: format!("--timeout of {:.3} s reached", o.timeout.unwrap_or_default().as_secs_f64()),
            },
            counts: Vec::new(),
            phases: Vec::new(),
            realizable: None,
            chains: None,
        })
    })
}

fn cmd_check(
    file: &Path,
    o: CheckOpts,
    as_json: bool,
    want_stats: bool,
    dot_out: Option<&Path>,
) -> Result<u8> {
    let (semantics, model) = (o.semantics, o.model);
    let mut stats = Stats::default();
    let trace = std::sync::Arc::new(stats.time("parse", || load(file))?);
    let fname = file.display().to_string();
    let t = std::time::Instant::now();
    let decided = match decide_within(trace.clone(), o) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("tsoser: {e}");
            return Ok(if e.contains("internal error") { 4 } else { 2 });
        }
    };
    stats
        .phases
        .push(("decide".into(), t.elapsed().as_secs_f64()));
    for (k, v) in &decided.phases {
        stats.add_phase(&format!("  {k}"), *v);
    }
    let (verdict, realizable, decided_chains) =
        (decided.verdict, decided.realizable, decided.chains);
    if let Err(why) = verified(&trace, &verdict) {
        eprintln!("tsoser: internal error: the witness found does not re-check ({why}); please report this trace");
        return Ok(4);
    }
    for (k, v) in &decided.counts {
        stats.count(k, *v);
    }
    stats.count("events", trace.len() as u64);
    stats.count("transactions", trace.txns.len() as u64);
    if let Some(path) = dot_out {
        let cycle = match &verdict {
            Verdict::Violation(w) => Some(w.cycle()),
            _ => None,
        };
        let text = match (model, semantics) {
            (Model::Tso, Semantics::Paper) => {
                dot::paper_dot(&trace, &PaperGraph::new(&trace), cycle)
            }
            _ => dot::exact_dot(&trace, &ExactGraph::new(&trace), cycle),
        };
        std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))?;
    }
    let model_name = if model == Model::Sc { "sc" } else { "tso" };
    if as_json {
        let mut out = json!({
            "file": fname,
            "trace": trace_json(&trace),
            "model": model_name,
            "algo": algo_name(o.algo, o.model),
            "profiles": (o.algo == Algo::Fpt && o.model == Model::Tso).then_some(if o.fig4 { "fig4" } else { "exact" }),
            "solver": (o.algo == Algo::Sat && o.model == Model::Tso).then(|| solver_name(o.solver)),
            "semantics": semantics_name(semantics),
            "verdict": verdict.name(),
            "reason": match &verdict { Verdict::Unknown { reason } => json!(reason), _ => json!(null) },
            "witness": report::witness_json(&trace, &verdict),
            "paper_realizable": realizable,
        });
        if want_stats {
            out["stats"] = stats.to_json();
            if let Some(c) = &decided_chains {
                out["stats"]["chains"] = serde_json::to_value(c)?;
            }
        }
        outln!("{}", serde_json::to_string_pretty(&out)?);
    } else {
        let what = if model == Model::Sc {
            "SC-serializable (trace read as an SC run)".to_string()
        } else {
            let algo = match o.algo {
                Algo::Sat => format!("sat/{}", solver_name(o.solver)),
                Algo::Fpt if o.fig4 => "fpt, Fig. 4 profiles: a yes may be wrong".to_string(),
                Algo::Fpt => "fpt".to_string(),
                Algo::Brute => "brute".to_string(),
            };
            format!(
                "TSO-serializable [{} semantics, {algo}]",
                semantics_name(semantics)
            )
        };
        let name = trace
            .name
            .as_deref()
            .map(|n| format!("{n} ({fname})"))
            .unwrap_or(fname);
        match &verdict {
            Verdict::Serializable => outln!("{name}: {what}: yes"),
            Verdict::Unknown { reason } => outln!("{name}: {what}: unknown — {reason}"),
            Verdict::Violation(w) => {
                outln!("{name}: {what}: NO");
                out!("{}", report::witness_text(&trace, w));
                match realizable {
                    Some(true) => outln!("an execution has a violation too (exact semantics agrees)"),
                    Some(false) => outln!(
                        "no TSO execution of this trace has a violation: the paper's graph over-approximates here (docs/semantics.md §5)"
                    ),
                    None => {}
                }
            }
        }
        if want_stats {
            eprint!("{}", stats.to_text());
            if let Some(c) = &decided_chains {
                eprint!("{}", chains_text(c));
            }
        }
    }
    Ok(verdict.exit_code() as u8)
}

/// The chain partition of `--algo fpt --stats`: one line a chain (at most 32).
fn chains_text(chains: &[fpt::profile::ChainProfile]) -> String {
    let mut s = format!(
        "chain partition of the widest component (Thm. 8): {} chains\n",
        chains.len()
    );
    for (i, c) in chains.iter().enumerate().take(32) {
        s += &format!(
            "  chain {i}: {} transactions [{}], {} entries, {} exits, profiles: {} (Fig. 4 classes), {} (exact)\n",
            c.transactions,
            c.threads.join(" "),
            c.entries,
            c.exits,
            c.fig4_profiles,
            c.exact_profiles
        );
    }
    if chains.len() > 32 {
        s += &format!("  … {} more (all in --json)\n", chains.len() - 32);
    }
    s
}

fn trace_json(trace: &Trace) -> serde_json::Value {
    json!({
        "name": trace.name,
        "events": trace.len(),
        "threads": trace.threads.len(),
        "transactions": trace.txns.len(),
        "variables": trace.vars.len(),
        "transaction_fenced": trace.is_transaction_fenced(),
    })
}

fn cmd_check_exec(file: &Path, as_json: bool) -> Result<u8> {
    let (trace, exec) = trace::parse::read_execution(file)?;
    let cycle = execution::tso_cycle(&trace, &exec);
    let contraction = execution::sc_equivalence_cycle(&trace, &exec);
    if let Some(c) = &cycle {
        if let Err(why) = check::verify_execution_cycle(&trace, exec.steps(), c) {
            eprintln!("tsoser: internal error: the cycle found does not re-check ({why}); please report this execution");
            return Ok(4);
        }
    }
    let fname = file.display().to_string();
    if as_json {
        let edges = |c: &Option<Vec<tsoser::graph::Edge>>| {
            c.as_ref().map(|c| {
                c.iter()
                    .map(|e| {
                        json!({"src": report::node_text(&trace, e.src), "dst": report::node_text(&trace, e.dst),
                               "src_step": exec.pos(e.src) + 1, "dst_step": exec.pos(e.dst) + 1, "rule": e.rule})
                    })
                    .collect::<Vec<_>>()
            })
        };
        let out = json!({
            "file": fname,
            "trace": trace_json(&trace),
            "tso_serializable": cycle.is_none(),
            "cycle": cycle.as_ref().map(|c| c.iter().map(|e| json!({
                "from": trace.txns[e.from].name, "to": trace.txns[e.to].name,
                "src": report::node_text(&trace, e.src), "dst": report::node_text(&trace, e.dst),
                "src_step": exec.pos(e.src) + 1, "dst_step": exec.pos(e.dst) + 1,
                "rule": e.rule, "explain": e.rule.explain()})).collect::<Vec<_>>()),
            "sc_equivalent": contraction.is_none(),
            "contraction_cycle": edges(&contraction),
            "commits": report::placement_json(&trace, &exec),
        });
        outln!("{}", serde_json::to_string_pretty(&out)?);
    } else {
        match &cycle {
            None => outln!("{fname}: execution is TSO-serializable: yes"),
            Some(c) => {
                outln!("{fname}: execution is TSO-serializable: NO\ntransaction cycle:");
                out!("{}", report::cycle_text(&trace, c, Some(&exec)));
            }
        }
        match &contraction {
            None => outln!("SC-equivalent (write-contraction acyclic): yes"),
            Some(c) => {
                outln!("SC-equivalent (write-contraction acyclic): NO — cycle of units (a write with its commit is one unit):");
                for e in c {
                    outln!(
                        "  {} @{} → {} @{}  [{:?}]",
                        report::node_text(&trace, e.src),
                        exec.pos(e.src) + 1,
                        report::node_text(&trace, e.dst),
                        exec.pos(e.dst) + 1,
                        e.rule
                    );
                }
            }
        }
    }
    Ok(if cycle.is_some() { 1 } else { 0 })
}

fn cmd_graph(
    file: &Path,
    semantics: Semantics,
    as_dot: bool,
    max: u64,
    as_json: bool,
    want_stats: bool,
) -> Result<u8> {
    let mut stats = Stats::default();
    let trace = stats.time("parse", || load(file))?;
    let (nodes, directed, undirected, forced_cycle, dot_text) = match semantics {
        Semantics::Exact => {
            let g = stats.time("build exact graph", || ExactGraph::new(&trace));
            let cycle = stats.time("forced cycle check", || g.forced.find_cycle());
            stats.count("forced edges", g.forced.edges().len() as u64);
            let dot_text = as_dot.then(|| {
                let c = cycle
                    .clone()
                    .or_else(|| match brute::check_exact(&trace, max).0 {
                        Verdict::Violation(w) => Some(w.cycle().to_vec()),
                        _ => None,
                    });
                dot::exact_dot(&trace, &g, c.as_deref())
            });
            (
                g.node_count(),
                g.directed_count(),
                g.undirected.len(),
                cycle.is_some(),
                dot_text,
            )
        }
        Semantics::Paper => {
            let g = stats.time("build paper graph", || PaperGraph::new(&trace));
            let cycle = stats.time("forced cycle check", || {
                g.directed_conflicts(&trace).find_cycle()
            });
            let dot_text = as_dot.then(|| {
                let c = cycle
                    .clone()
                    .or_else(|| match brute::check_paper(&trace, max).0 {
                        Verdict::Violation(w) => Some(w.cycle().to_vec()),
                        _ => None,
                    });
                dot::paper_dot(&trace, &g, c.as_deref())
            });
            (
                g.node_count(),
                g.directed.len(),
                g.undirected.len(),
                cycle.is_some(),
                dot_text,
            )
        }
    };
    if let Some(d) = dot_text {
        out!("{d}");
        if want_stats {
            eprint!("{}", stats.to_text());
        }
        return Ok(0);
    }
    if as_json {
        let mut out = json!({
            "file": file.display().to_string(),
            "semantics": semantics_name(semantics),
            "trace": trace_json(&trace),
            "nodes": nodes, "directed_edges": directed, "undirected_edges": undirected,
            "forced_cycle": forced_cycle,
        });
        if want_stats {
            out["stats"] = stats.to_json();
        }
        outln!("{}", serde_json::to_string_pretty(&out)?);
    } else {
        outln!(
            "{}: {} semantics: {nodes} nodes, {directed} directed edges, {undirected} undirected edges; forced conflicts {}",
            file.display(),
            semantics_name(semantics),
            if forced_cycle { "have a cycle: NOT serializable" } else { "are acyclic" }
        );
        if want_stats {
            out!("{}", stats.to_text());
        }
    }
    Ok(if forced_cycle { 1 } else { 0 })
}

fn cmd_explore(
    file: &Path,
    o: program::report::Options,
    replay: Option<&str>,
    emit: Option<&Path>,
    max_traces: usize,
    as_json: bool,
    want_stats: bool,
) -> Result<u8> {
    let p = program::parse::read_program(file)?;
    let fname = file.display().to_string();
    if let Some(text) = replay {
        let steps =
            explore::parse_schedule(&p, text).map_err(|e| anyhow::anyhow!("--replay: {e}"))?;
        let out = program::report::replay_text(&p, o.model, o.unroll, &steps)
            .map_err(|e| anyhow::anyhow!("--replay: {e}"))?;
        out!("{out}");
        return Ok(0);
    }
    let mut stats = Stats::default();
    let mut emitted = None;
    let r = stats.time("explore", || program::report::run(&p, o));
    let r = match r {
        Ok(r) => r,
        Err(e) if e.starts_with("internal error") => {
            eprintln!("tsoser: {e}; please report this program");
            return Ok(4);
        }
        Err(e) => bail!("{fname}: {e}"),
    };
    if let Some(dir) = emit {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        let em = stats.time("emit traces", || {
            program::traces::traces(&p, o.model, o.unroll, max_traces, o.max_states)
        });
        for (i, t) in em.traces.iter().enumerate() {
            let path = dir.join(program::traces::file_name(&p.name, o.model, i + 1));
            std::fs::write(&path, trace::parse::to_yaml(t))
                .with_context(|| format!("cannot write {}", path.display()))?;
        }
        let n = em.traces.len();
        let why = match em.stop {
            program::traces::EmitStop::Complete if n == 0 => {
                " (no run of the program terminates within --unroll: nothing to emit)".to_string()
            }
            program::traces::EmitStop::Complete => " (all distinct traces)".to_string(),
            program::traces::EmitStop::MaxTraces => {
                format!(" — truncated at --max-traces {max_traces}: more traces may exist")
            }
            program::traces::EmitStop::MaxSteps => format!(
                " — truncated: the schedule enumeration reached --max-states {} steps; more traces may exist",
                o.max_states
            ),
        };
        if !as_json {
            eprintln!(
                "wrote {n} trace{} to {}{why}",
                if n == 1 { "" } else { "s" },
                dir.display()
            );
        }
        emitted = Some((n, em.stop));
    }
    let secs: f64 = stats
        .phases
        .iter()
        .filter(|p| p.0 == "explore")
        .map(|p| p.1)
        .sum();
    let states = r.exploration.states + r.robustness.as_ref().map_or(0, |x| x.states);
    stats.count("states (outcomes + robustness)", states as u64);
    stats.count("states per second", (states as f64 / secs.max(1e-9)) as u64);
    if as_json {
        let mut v = program::report::json(&p, &fname, &r);
        if let Some((n, stop)) = emitted {
            v["emitted"] = json!({"traces": n, "complete": stop == program::traces::EmitStop::Complete,
                                  "stop": stop.name()});
        }
        if want_stats {
            v["stats"] = stats.to_json();
        }
        outln!("{}", serde_json::to_string_pretty(&v)?);
    } else {
        out!("{}", program::report::text(&p, &fname, &r));
        if want_stats {
            out!("{}", stats.to_text());
        }
    }
    Ok(r.exit)
}

fn cmd_suite(
    dir: &Path,
    expected: Option<&Path>,
    o: program::report::Options,
    as_json: bool,
) -> Result<u8> {
    use program::suite;
    let want = expected.map(suite::read_expected).transpose()?;
    let sum = suite::run(dir, o, want.as_ref())
        .with_context(|| format!("cannot read {}", dir.display()))?;
    let (mismatches, errors, unknown) = (sum.mismatches(), sum.errors(), sum.unknown());
    let (missing, not_robust, n) = (sum.without_expectation(), sum.not_robust(), sum.rows.len());
    if as_json {
        let rows: Vec<_> = sum.rows.iter().map(|r| r.json()).collect();
        let v = json!({"dir": dir.display().to_string(), "model": o.model.name(), "tests": n,
                       "mismatches": mismatches, "errors": errors, "unknown": unknown,
                       "without_expectation": missing, "not_robust": not_robust,
                       "seconds": sum.seconds, "results": rows});
        outln!("{}", serde_json::to_string_pretty(&v)?);
        return Ok(sum.exit());
    }
    for r in &sum.rows {
        if let Some(e) = &r.error {
            outln!("ERROR     {}: {e}", r.test);
        } else if r.matches() == Some(false) {
            outln!(
                "MISMATCH  {}: condition {} (expected {})",
                r.test,
                r.holds.unwrap(),
                r.expected.unwrap()
            );
        }
    }
    let verdicts = if expected.is_some() {
        format!(
            "{} match, {mismatches} mismatch{}, {missing} without an expectation",
            n - mismatches - errors - unknown - missing,
            if mismatches == 1 { "" } else { "es" }
        )
    } else {
        format!("{} explored (no --expected)", n - errors - unknown)
    };
    outln!(
        "{n} tests under {}: {verdicts}, {errors} error{}, {unknown} unknown{}; {:.2} s",
        o.model.name().to_uppercase(),
        if errors == 1 { "" } else { "s" },
        if o.robustness {
            format!(", {not_robust} not robust")
        } else {
            String::new()
        },
        sum.seconds
    );
    Ok(sum.exit())
}
