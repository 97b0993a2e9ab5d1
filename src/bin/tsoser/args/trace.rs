//! The flags of the commands on traces and runs: check, check-exec, graph, encode,
//! monitor, consistent, convert.

use super::*;

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
    /// An ASP program for clingo, its order kept acyclic by `#edge`.
    Asp,
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
    /// Threads that lex a trace file (STD, or YAML as tsoser writes it) beside the one
    /// that builds it in order (0: none) [default: the cores left over, at most 8; with
    /// several files, 0].
    #[arg(long, value_name = "N")]
    pub(crate) read_threads: Option<usize>,
    /// Give up once the heap holds more than this many MiB: the answer is unknown
    /// (exit 3). Checked as the run goes (the trace read, between the phases, in the
    /// searches) [default: none, beyond three quarters of the memory available for the graph].
    #[arg(long, value_name = "MIB")]
    pub(crate) max_memory: Option<usize>,
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

// The flags of `check-exec`.
#[derive(clap::Args)]
pub(crate) struct CheckExecArgs {
    pub(crate) file: PathBuf,
    #[arg(long)]
    pub(crate) json: bool,
}

// The flags of `consistent`.
#[derive(clap::Args)]
pub(crate) struct ConsistentArgs {
    /// Run files, or directories of them (one line or JSON record per file when
    /// there are several).
    #[arg(required = true)]
    pub(crate) files: Vec<PathBuf>,
    #[arg(long, value_enum, default_value = "sc")]
    pub(crate) model: ConsistentModel,
    /// The write order of each location: `simple`, the writes' order in the run;
    /// `any`, whichever order works (a SAT search).
    #[arg(long, value_enum, default_value = "simple")]
    pub(crate) write_order: WriteOrderArg,
    /// Solver of --write-order any [default: cadical; varisat when built without it].
    #[arg(long, value_enum)]
    pub(crate) solver: Option<Solver>,
    /// Give up --write-order any after this many seconds: unknown (exit 3).
    #[arg(long, value_name = "SECONDS")]
    pub(crate) timeout: Option<f64>,
    /// Print the serial order (SC) or commit order (TSO) that shows a "yes", and
    /// with --write-order any the write order found.
    #[arg(long)]
    pub(crate) order: bool,
    #[arg(long)]
    pub(crate) json: bool,
}

// The flags of `graph`.
#[derive(clap::Args)]
pub(crate) struct GraphArgs {
    /// Trace files, directories of them and `-`, as `check` takes.
    #[arg(required = true, value_name = "FILE")]
    pub(crate) files: Vec<PathBuf>,
    #[arg(long, value_enum, default_value = "exact")]
    pub(crate) semantics: SemanticsArg,
    /// Print Graphviz (a witness cycle, found by brute force within the budget, in red).
    #[arg(long)]
    pub(crate) dot: bool,
    #[arg(long, default_value_t = 1_000_000)]
    pub(crate) max_executions: u64,
    #[arg(long)]
    pub(crate) json: bool,
    #[arg(long)]
    pub(crate) stats: bool,
}

// The flags of `encode`.
#[derive(clap::Args)]
pub(crate) struct EncodeArgs {
    pub(crate) file: PathBuf,
    #[arg(long, value_enum, default_value = "dimacs")]
    pub(crate) format: Format,
    #[arg(long, value_enum, default_value = "exact")]
    pub(crate) semantics: SemanticsArg,
    /// Give up after this many seconds: no formula, the answer is unknown (exit 3).
    #[arg(long, value_name = "SECONDS")]
    pub(crate) timeout: Option<f64>,
}

// The flags of `monitor`.
#[derive(clap::Args)]
pub(crate) struct MonitorArgs {
    /// Trace files, directories of them and `-`, as `check` takes.
    #[arg(required = true, value_name = "FILE")]
    pub(crate) files: Vec<PathBuf>,
    /// Which monitor (docs/monitors.md); `all` runs every one in one pass.
    #[arg(long, value_enum, default_value = "sc-ser")]
    pub(crate) monitor: MonitorKind,
    /// Give up on a file after this many seconds: its answer is unknown (exit 3).
    #[arg(long, value_name = "SECONDS")]
    pub(crate) timeout: Option<f64>,
    /// Threads that lex a trace file beside the one that lowers it (0: none) [default:
    /// the cores left over by the lowering and the monitors of an STD stream, or by the
    /// reader of a YAML file, at most 8; with several files, 0].
    #[arg(long, value_name = "N")]
    pub(crate) read_threads: Option<usize>,
    #[arg(long)]
    pub(crate) json: bool,
    /// Print the time and throughput of the monitor.
    #[arg(long)]
    pub(crate) stats: bool,
}

// The flags of `convert`.
#[derive(clap::Args)]
pub(crate) struct ConvertArgs {
    pub(crate) file: PathBuf,
    /// Input format (default: by extension, `.std` is STD, anything else YAML).
    #[arg(long, value_enum)]
    pub(crate) from: Option<TraceFormat>,
    /// Output format (default: by the output file's extension, else the other format).
    #[arg(long, value_enum)]
    pub(crate) to: Option<TraceFormat>,
    /// Output file (default: standard output).
    #[arg(short, long)]
    pub(crate) output: Option<PathBuf>,
}
