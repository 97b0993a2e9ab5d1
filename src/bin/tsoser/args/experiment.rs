//! The flags of gen, experiment and report.

use super::*;

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Schedule {
    Random,
    Serial,
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
    /// `--family sat`: the construction with one transaction of two events
    /// (docs/hardness.md, Theorem 1); `first`: that transaction opens the trace.
    #[arg(long, value_name = "WHERE", num_args = 0..=1, default_missing_value = "gadget")]
    pub(crate) one_txn: Option<OneTxn>,
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

// The flags of `report`.
#[derive(clap::Args)]
pub(crate) struct ReportArgs {
    /// Records files of one matrix (e.g. one per shard).
    #[arg(required = true)]
    pub(crate) records: Vec<PathBuf>,
    /// The directory for table.csv and the plots.
    #[arg(short, long)]
    pub(crate) output: PathBuf,
}

// The flags of `bench`.
#[derive(clap::Args)]
pub(crate) struct BenchArgs {
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    pub(crate) rest: Vec<String>,
}

/// Where `gen --family sat --one-txn` puts the first read of its one transaction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum OneTxn {
    /// Just before the reads it joins: the construction of the proof.
    Gadget,
    /// First in the trace: the first two events of the first thread (`--pairs 1`'s shape).
    First,
}
