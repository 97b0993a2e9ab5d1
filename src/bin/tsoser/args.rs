//! Command-line arguments (clap) — the raw layer; `main` checks them into library calls.

use crate::out::TraceFormat;
use clap::{Parser, Subcommand, ValueEnum};
use std::path::PathBuf;
use tsoser::check::sat::SolverKind;
use tsoser::check::Semantics;
use tsoser::explore;

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

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Algo {
    /// Per component fpt for up to 10⁶ jumps, then sat (the default; README).
    Auto,
    /// Enumerate every execution (the definition; the oracle of all tests).
    Brute,
    /// SAT/SMT encoding of executions (CaDiCaL, or --solver varisat|z3).
    Sat,
    /// Fixed-parameter enumeration of simple cycles over chains (Enea & Farzan Fig. 3).
    Fpt,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Model {
    /// TSO-serializability of every execution of the trace (Definition 3).
    Tso,
    /// SC-serializability of the trace read as an SC execution.
    Sc,
}

/// Profiles of `--algo fpt`.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Profiles {
    Exact,
    Fig4,
}

/// `--witness`.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum WitnessArg {
    Cycle,
    Full,
    None,
}

impl WitnessArg {
    pub(crate) fn lib(self) -> tsoser::output::witness::Detail {
        match self {
            WitnessArg::Cycle => tsoser::output::witness::Detail::Cycle,
            WitnessArg::Full => tsoser::output::witness::Detail::Full,
            WitnessArg::None => tsoser::output::witness::Detail::None,
        }
    }
}

/// Semantics of `check`, `graph`, `encode`.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum SemanticsArg {
    /// docs/semantics.md §4: every TSO execution is conflict-serializable (commit placement).
    Exact,
    /// The paper's Thm. 5 on its Def. 4 graph (over-approximates, docs/semantics.md §5).
    Paper,
}

impl SemanticsArg {
    pub(crate) fn lib(self) -> Semantics {
        match self {
            SemanticsArg::Exact => Semantics::Exact,
            SemanticsArg::Paper => Semantics::Paper,
        }
    }
}

/// Solvers of `--algo sat`.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Solver {
    /// varisat, pure Rust CDCL (the default when built without `cadical`).
    Varisat,
    /// z3 SMT, integer positions in difference logic (cargo feature `z3`).
    Z3,
    /// CaDiCaL, C++ CDCL (cargo feature `cadical`, on by default): the default; interruptible.
    Cadical,
}

impl Solver {
    pub(crate) fn lib(self) -> SolverKind {
        match self {
            Solver::Varisat => SolverKind::Varisat,
            Solver::Z3 => SolverKind::Z3,
            Solver::Cadical => SolverKind::Cadical,
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Format {
    /// DIMACS CNF with a variable table in comments.
    Dimacs,
    /// SMT-LIB 2 (integer commit positions in exact semantics).
    Smt2,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Schedule {
    Random,
    Serial,
}

/// The flags of `check`.
#[derive(clap::Args)]
pub(crate) struct CheckArgs {
    /// Trace files (`.yaml`, `.yml`, `.std`), directories of them (recursively) and
    /// `-` (standard input). With several, one line (or JSON line) a file and a summary.
    #[arg(required = true, value_name = "FILE")]
    pub(crate) files: Vec<PathBuf>,
    /// The decider [default: auto].
    #[arg(long, value_enum)]
    pub(crate) algo: Option<Algo>,
    /// `exact` (docs/semantics.md §4) or `paper` (Thm. 5 on Def. 4) [default: exact].
    #[arg(long, value_enum)]
    pub(crate) semantics: Option<SemanticsArg>,
    /// `sc`: SC-serializability of the trace read as an SC run (no --algo,
    /// --semantics or decider options apply).
    #[arg(long, value_enum, default_value = "tso")]
    pub(crate) model: Model,
    /// Budget of --algo brute: execution prefixes (or paper-mode orientations)
    /// visited [default: 50000000].
    #[arg(long)]
    pub(crate) max_executions: Option<u64>,
    /// Solver of --algo sat and auto [default: cadical; varisat when built without it].
    #[arg(long, value_enum)]
    pub(crate) solver: Option<Solver>,
    /// Worker threads of --algo fpt (0: one per core, at most 1024) [default: 0].
    #[arg(long)]
    pub(crate) jobs: Option<usize>,
    /// Budget of --algo fpt: jumps tried (partial cycles extended) before unknown
    /// [default: 1000000000].
    #[arg(long)]
    pub(crate) max_jumps: Option<u64>,
    /// Profiles of --algo fpt: `exact` entry/exit events, or `fig4`: one per
    /// (operation, variable) class and chain, as Fig. 4 does — NOT exact (a "yes"
    /// may be wrong; encodings/fpt.md), for reproducing and measuring the paper
    /// [default: exact].
    #[arg(long, value_enum)]
    pub(crate) profiles: Option<Profiles>,
    /// Give up after this many seconds: the answer is unknown (exit 3).
    #[arg(long, value_name = "SECONDS")]
    pub(crate) timeout: Option<f64>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub(crate) json: bool,
    /// Print phase times, counts and peak memory.
    #[arg(long)]
    pub(crate) stats: bool,
    /// Also write Graphviz to this file: with a violation and `--witness cycle`,
    /// only the cycle's transactions; otherwise the whole event graph (the witness
    /// cycle in red).
    #[arg(long, value_name = "FILE")]
    pub(crate) dot: Option<PathBuf>,
    /// How much of a witness to show: `cycle` (the cycle and the execution steps it
    /// touches), `full` (the whole execution), `none` (text: the verdict line; JSON:
    /// the cycle alone) [default: cycle; with --json: full].
    #[arg(long, value_enum)]
    pub(crate) witness: Option<WitnessArg>,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum GenFamily {
    /// Random traces of the shape the flags give.
    Random,
    /// The trace of a CNF formula (`--cnf` or `--random`): not serializable iff the
    /// formula is satisfiable (docs/hardness.md).
    Sat,
}

/// The flags of `gen`.
#[derive(clap::Args)]
pub(crate) struct GenArgs {
    #[arg(long, value_enum, default_value = "random")]
    pub(crate) family: GenFamily,
    /// `--family sat`: the formula, in DIMACS CNF.
    #[arg(long, conflicts_with = "random")]
    pub(crate) cnf: Option<PathBuf>,
    /// `--family sat`: a random k-SAT formula of `--vars` variables and `--clauses`
    /// clauses of `--clause-len` distinct variables, drawn with `--seed`.
    #[arg(long)]
    pub(crate) random: bool,
    /// `--family sat --random`: clauses [default: 4.26 per variable, rounded].
    #[arg(long)]
    pub(crate) clauses: Option<usize>,
    /// `--family sat --random`: literals per clause [default: 3].
    #[arg(long)]
    pub(crate) clause_len: Option<usize>,
    /// `--family sat`: also write the formula (DIMACS) to this file.
    #[arg(long)]
    pub(crate) write_cnf: Option<PathBuf>,
    #[arg(long, default_value_t = 1000)]
    pub(crate) events: usize,
    #[arg(long, default_value_t = 8)]
    pub(crate) threads: usize,
    /// Variables (memory locations; with `--family sat`, of the formula) [default:
    /// 1000; with `--family sat`, 10].
    #[arg(long)]
    pub(crate) vars: Option<usize>,
    #[arg(long, default_value_t = 8)]
    pub(crate) txn_len: usize,
    /// Mean events between fences of a thread (0: none).
    #[arg(long, default_value_t = 50)]
    pub(crate) fence_every: usize,
    #[arg(long, default_value_t = 0.01)]
    pub(crate) rmw: f64,
    #[arg(long, default_value_t = 0.4)]
    pub(crate) write: f64,
    #[arg(long, default_value_t = 0)]
    pub(crate) seed: u64,
    /// `random`: threads interleave event by event; `serial`: each transaction runs
    /// to its end before another is scheduled.
    #[arg(long, value_enum, default_value = "random")]
    pub(crate) schedule: Schedule,
    /// End every transaction with a fence (with `--schedule serial`: serializable traces).
    #[arg(long)]
    pub(crate) txn_fenced: bool,
    /// No read after a write inside a transaction (with `--schedule serial
    /// --txn-fenced`: robust traces the SC monitors read to their end).
    #[arg(long)]
    pub(crate) reads_first: bool,
    /// Merge the first two transactions of the first N threads (in order of first
    /// event) into one: on single-event traces, serializable by docs/semantics.md §5.6,
    /// the smallest change that lets a cycle exist.
    #[arg(long, default_value_t = 0)]
    pub(crate) pairs: usize,
    /// Output file (default: standard output).
    #[arg(short, long)]
    pub(crate) output: Option<PathBuf>,
}

/// `consistent --model`.
#[derive(Clone, Copy, ValueEnum)]
pub(crate) enum ConsistentModel {
    Sc,
    Tso,
}

impl From<ConsistentModel> for tsoser::consistency::Model {
    fn from(m: ConsistentModel) -> Self {
        match m {
            ConsistentModel::Sc => tsoser::consistency::Model::Sc,
            ConsistentModel::Tso => tsoser::consistency::Model::Tso,
        }
    }
}

/// `consistent --write-order`.
#[derive(Clone, Copy, ValueEnum)]
pub(crate) enum WriteOrderArg {
    /// The writes' order in the run (Qadeer's simple witness).
    Simple,
    /// Any order of each location's writes (NP-complete: a SAT search).
    Any,
}

impl From<WriteOrderArg> for tsoser::consistency::WriteOrder {
    fn from(w: WriteOrderArg) -> Self {
        match w {
            WriteOrderArg::Simple => tsoser::consistency::WriteOrder::Simple,
            WriteOrderArg::Any => tsoser::consistency::WriteOrder::Any,
        }
    }
}

#[derive(Subcommand)]
pub(crate) enum Cmd {
    /// Decide whether the trace is TSO-serializable; print a witness when it is not.
    Check(CheckArgs),
    /// Check one explicit execution (a trace with `commit` events): TSO-serializability
    /// and SC-equivalence (write-contraction, paper §4.2).
    CheckExec {
        file: PathBuf,
        #[arg(long)]
        json: bool,
    },
    /// Is a run with values (each read's `val`: the value it returned) sequentially
    /// consistent, or a legal x86-TSO run? Qadeer's constraint graph under the run's
    /// write order (a nice cycle when not), or under any write order (SAT).
    Consistent {
        /// Run files, or directories of them (one line or JSON record per file when
        /// there are several).
        #[arg(required = true)]
        files: Vec<PathBuf>,
        #[arg(long, value_enum, default_value = "sc")]
        model: ConsistentModel,
        /// The write order of each location: `simple`, the writes' order in the run;
        /// `any`, whichever order works (a SAT search).
        #[arg(long, value_enum, default_value = "simple")]
        write_order: WriteOrderArg,
        /// Solver of --write-order any [default: cadical; varisat when built without it].
        #[arg(long, value_enum)]
        solver: Option<Solver>,
        /// Give up --write-order any after this many seconds: unknown (exit 3).
        #[arg(long, value_name = "SECONDS")]
        timeout: Option<f64>,
        /// Print the serial order (SC) or commit order (TSO) that shows a "yes", and
        /// with --write-order any the write order found.
        #[arg(long)]
        order: bool,
        #[arg(long)]
        json: bool,
    },
    /// Build a trace's event graph: print its size and whether its forced conflicts
    /// already have a cycle, or with --dot the graph in Graphviz.
    Graph {
        /// Trace files, directories of them and `-`, as `check` takes.
        #[arg(required = true, value_name = "FILE")]
        files: Vec<PathBuf>,
        #[arg(long, value_enum, default_value = "exact")]
        semantics: SemanticsArg,
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
        semantics: SemanticsArg,
        /// Give up after this many seconds: no formula, the answer is unknown (exit 3).
        #[arg(long, value_name = "SECONDS")]
        timeout: Option<f64>,
    },
    /// Run a declared matrix of runs (families × parameters × seeds × deciders ×
    /// semantics), one child process each with a timeout and a memory limit, appending
    /// one JSON line per run to the records file; an interrupted experiment resumes.
    Experiment(Box<ExperimentArgs>),
    /// Turn experiment records into a CSV table and SVG plots (time against threads and
    /// against trace length per family, and the cactus plot); shards' files combine.
    Report {
        /// Records files of one matrix (e.g. one per shard).
        #[arg(required = true)]
        records: Vec<PathBuf>,
        /// The directory for table.csv and the plots.
        #[arg(short, long)]
        output: PathBuf,
    },
    /// Removed: `bench dense|scale` are `experiment --family …` (the error says how).
    #[command(hide = true)]
    Bench {
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        rest: Vec<String>,
    },
    /// Generate a trace (seeded) in compact YAML.
    Gen(GenArgs),
    /// Generate seeded random programs (`.prog`) in families that make the theorems
    /// bite: one to standard output, or `--count N` files in `--out DIR`.
    GenProg(GenProgArgs),
    /// Run a monitor on the trace read as an SC execution (docs/semantics.md §6).
    Monitor {
        /// Trace files, directories of them and `-`, as `check` takes.
        #[arg(required = true, value_name = "FILE")]
        files: Vec<PathBuf>,
        /// Which monitor (docs/monitors.md); `all` runs every one in one pass.
        #[arg(long, value_enum, default_value = "sc-ser")]
        monitor: MonitorKind,
        /// Give up on a file after this many seconds: its answer is unknown (exit 3).
        #[arg(long, value_name = "SECONDS")]
        timeout: Option<f64>,
        #[arg(long)]
        json: bool,
        /// Print the time and throughput of the monitor.
        #[arg(long)]
        stats: bool,
    },
    /// The monitors, the explorer and the theorems against each other on programs
    /// (`.prog`, `.litmus`, or directories of them), over all of their runs.
    Crosscheck(CrosscheckArgs),
    /// Explore every run of a program (`.prog`) or X86 litmus test (`.litmus`) under
    /// SC, TSO or PSO: outcomes, the final condition, assertions, robustness.
    Explore {
        file: PathBuf,
        #[command(flatten)]
        bounds: Bounds,
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
        /// Write the distinct complete runs to DIR as runs with values, for `consistent`
        /// (stores where they reached memory, values renamed one per write).
        #[arg(long, value_name = "DIR")]
        emit_runs: Option<PathBuf>,
        /// At most this many distinct traces with --emit-traces (and --emit-runs: the
        /// runs of that many traces) [default: 1000].
        #[arg(long)]
        max_traces: Option<usize>,
        /// Output: tsoser's report; herd7's (`Test … States … Observation …`, for
        /// mcompare7; no robustness search); or the program itself in the `.prog`
        /// format (no exploration: a litmus test converted).
        #[arg(long, value_enum, default_value = "text")]
        format: ExploreFormat,
        #[arg(long)]
        json: bool,
        #[arg(long)]
        stats: bool,
    },
    /// Explore every `.litmus` test of a directory in one process and compare the final
    /// conditions with an expected-verdict CSV (`path,0|1`, as Dat3M's).
    Suite {
        dir: PathBuf,
        /// CSV of expected verdicts: a line `…/NAME.litmus,1` when the condition holds.
        #[arg(long)]
        expected: Option<PathBuf>,
        #[command(flatten)]
        bounds: Bounds,
        /// Also decide robustness for each test.
        #[arg(long)]
        robustness: bool,
        /// `herd`: herd7's report of every test on standard output (a herd log for
        /// mcompare7), the summary on standard error.
        #[arg(long, value_enum, default_value = "text")]
        format: SuiteFormat,
        #[arg(long)]
        json: bool,
    },
    /// Convert a trace between YAML and RAPID's STD format (docs/formats.md).
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

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum EngineArg {
    States,
    Dpor,
}

/// The model and bounds of `explore` and `suite` (each test of a suite has its own).
#[derive(clap::Args)]
pub(crate) struct Bounds {
    #[arg(long, value_enum, default_value = "tso")]
    pub(crate) model: ProgModel,
    /// `states`: every interleaving, states memoised (the oracle); `dpor`: source-DPOR
    /// over chronological traces (Abdulla et al.), one execution per trace or close.
    #[arg(long, value_enum, default_value = "states")]
    pub(crate) engine: EngineArg,
    /// Times a backward branch may be taken per thread before the run is cut
    /// [default: the program's `unroll N`, else 4].
    #[arg(long)]
    pub(crate) unroll: Option<u32>,
    /// Distinct states before the answer is unknown (exit 3; the states engine).
    #[arg(long, default_value_t = 2_000_000)]
    pub(crate) max_states: usize,
    /// Executions before the answer is unknown (exit 3; `--engine dpor` only)
    /// [default: 10⁷].
    #[arg(long)]
    pub(crate) max_executions: Option<u64>,
    /// MiB the search may hold before the answer is unknown (exit 3)
    /// [default: half the memory available].
    #[arg(long, value_name = "MIB")]
    pub(crate) max_memory: Option<usize>,
    /// Seconds for the whole command before the answer is unknown (exit 3); the
    /// searches poll it, so nothing keeps running after it.
    #[arg(long, value_name = "SECONDS")]
    pub(crate) timeout: Option<f64>,
}

/// The flags of `crosscheck`.
#[derive(clap::Args)]
pub(crate) struct CrosscheckArgs {
    /// Programs (`.prog`, `.litmus`) and directories of them (recursively).
    #[arg(required = true, value_name = "PROG")]
    pub(crate) programs: Vec<PathBuf>,
    /// Times a backward branch may be taken per thread.
    #[arg(long, default_value_t = 4)]
    pub(crate) unroll: u32,
    /// States of each robustness search.
    #[arg(long, default_value_t = 1_000_000)]
    pub(crate) max_states: usize,
    /// Distinct traces per model (SC, TSO) before the answers that need all are unknown.
    #[arg(long, default_value_t = 10_000)]
    pub(crate) max_traces: usize,
    /// Seconds of each decider call on a TSO trace.
    #[arg(long, default_value_t = 10.0)]
    pub(crate) timeout: f64,
    /// Only the questions of one model (default: both).
    #[arg(long, value_enum)]
    pub(crate) model: Option<WeakModel>,
    /// One JSON object a program, then a summary.
    #[arg(long)]
    pub(crate) json: bool,
}

/// The weak models of `crosscheck --model`.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum WeakModel {
    /// Robustness under TSO, SOBER, monitor_TSO, the fenced monitor, Theorems 2 and 3,
    /// Proposition 2, the deciders.
    Tso,
    /// Robustness under PSO and monitor_PSO.
    Pso,
}

/// Output formats of `tsoser suite --format`.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum SuiteFormat {
    Text,
    Herd,
}

/// Output formats of `tsoser explore --format`.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ExploreFormat {
    Text,
    Herd,
    Prog,
    /// Chosen with `--json`.
    #[value(skip)]
    Json,
}

/// Memory models of `tsoser explore`.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ProgModel {
    Sc,
    Tso,
    Pso,
}

impl ProgModel {
    pub(crate) fn model(self) -> explore::Model {
        match self {
            ProgModel::Sc => explore::Model::Sc,
            ProgModel::Tso => explore::Model::Tso,
            ProgModel::Pso => explore::Model::Pso,
        }
    }
}

/// Monitors of `tsoser monitor`.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum MonitorKind {
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
    pub(crate) fn kinds(self) -> Vec<tsoser::monitor::Kind> {
        use tsoser::monitor::Kind;
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

/// The flags of `experiment`: a TOML declaration, or one family given by flags.
#[derive(clap::Args)]
pub(crate) struct ExperimentArgs {
    /// The declaration (TOML, see docs/cli.md); or give `--family` and its flags.
    #[arg(required_unless_present = "family", conflicts_with = "family")]
    pub(crate) config: Option<PathBuf>,
    /// The records file (JSON lines): created, or resumed if it holds this matrix's.
    #[arg(short, long, required_unless_present = "traces_only")]
    pub(crate) output: Option<PathBuf>,
    /// Only write the matrix's generated traces (to `--traces`), e.g. as tasks for
    /// BenchExec, and stop.
    #[arg(long, requires = "traces")]
    pub(crate) traces_only: bool,
    /// Runs at a time (each gets an equal share of the cores) [default: 1].
    #[arg(long, default_value_t = 1)]
    pub(crate) parallel: usize,
    /// Only shard I of N (1-based): the runs at positions ≡ I − 1 (mod N) of the matrix.
    #[arg(long, value_name = "I/N")]
    pub(crate) shard: Option<String>,
    /// Where the generated traces go [default: RECORDS.traces/ beside the records].
    #[arg(long)]
    pub(crate) traces: Option<PathBuf>,
    /// List the runs (those still to do) and stop.
    #[arg(long)]
    pub(crate) dry_run: bool,
    /// Stop after this many runs (the rest are done on the next invocation).
    #[arg(long)]
    pub(crate) max_runs: Option<usize>,
    /// One family by flags: dense, blocks, serial, serial-fenced, random, sat, dir.
    #[arg(long)]
    pub(crate) family: Option<String>,
    #[arg(long, value_delimiter = ',')]
    pub(crate) events: Vec<usize>,
    #[arg(long, value_delimiter = ',')]
    pub(crate) threads: Vec<usize>,
    #[arg(long, value_delimiter = ',')]
    pub(crate) vars: Vec<usize>,
    #[arg(long, value_delimiter = ',')]
    pub(crate) txn_len: Vec<usize>,
    #[arg(long, value_delimiter = ',')]
    pub(crate) pairs: Vec<usize>,
    /// `dense`: the probability of a write [default: 0.5].
    #[arg(long, value_delimiter = ',')]
    pub(crate) write: Vec<f64>,
    #[arg(long)]
    pub(crate) seeds: Option<u64>,
    /// `sat`: clauses per variable [default: 4.26].
    #[arg(long)]
    pub(crate) ratio: Option<f64>,
    #[arg(long)]
    pub(crate) clause_len: Option<usize>,
    /// `dir`: the directory of traces.
    #[arg(long)]
    pub(crate) path: Option<PathBuf>,
    /// Deciders: auto, fpt, sat/cadical, sat/varisat, sat/z3, brute [default: auto].
    #[arg(long, value_delimiter = ',')]
    pub(crate) deciders: Vec<String>,
    /// exact, paper [default: exact].
    #[arg(long, value_delimiter = ',')]
    pub(crate) semantics: Vec<String>,
    /// Seconds per run [default: 60].
    #[arg(long)]
    pub(crate) timeout: Option<f64>,
    /// MiB per run [default: 4096].
    #[arg(long)]
    pub(crate) memory: Option<u64>,
}

/// Program families of `tsoser gen-prog`.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ProgFamily {
    /// Loads, stores, fences, locked operations, branches, loops.
    Random,
    /// Each thread stores to its own locations, then loads the others'.
    Sb,
    /// Thread 0 writes data then a flag; the others read the flag then the data.
    Mp,
    /// Every transaction ends with a fence (Theorem 3's premise).
    Fenced,
    /// The four families in turn (program i of family i mod 4).
    Mixed,
}

/// The flags of `gen-prog`.
#[derive(clap::Args)]
pub(crate) struct GenProgArgs {
    #[arg(long, value_enum, default_value = "random")]
    pub(crate) family: ProgFamily,
    #[arg(long, default_value_t = 2)]
    pub(crate) threads: usize,
    /// Shared locations.
    #[arg(long, default_value_t = 2)]
    pub(crate) vars: usize,
    /// Memory accesses per thread, at most.
    #[arg(long, default_value_t = 3)]
    pub(crate) len: usize,
    /// Probability of a fence at each access.
    #[arg(long, default_value_t = 0.1)]
    pub(crate) fences: f64,
    /// Probability of a locked operation (xchg, fadd, cas) at each access.
    #[arg(long, default_value_t = 0.1)]
    pub(crate) locked: f64,
    /// No transactions (each access its own); `fenced` always has them.
    #[arg(long)]
    pub(crate) no_txns: bool,
    /// Iterations of a counted loop, at most (0: none); explore with --unroll ≥ this.
    #[arg(long, default_value_t = 0)]
    pub(crate) loops: u32,
    /// The first seed; program i uses seed + i.
    #[arg(long, default_value_t = 0)]
    pub(crate) seed: u64,
    /// Programs to write (into --out).
    #[arg(long, default_value_t = 1)]
    pub(crate) count: u64,
    /// Directory for the programs (`FAMILY-SEED.prog`); without it, one program to
    /// standard output.
    #[arg(long, value_name = "DIR")]
    pub(crate) out: Option<PathBuf>,
}
