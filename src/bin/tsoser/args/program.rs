//! The flags of the commands on programs: explore, suite, crosscheck, gen-prog.

use super::*;

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum EngineArg {
    States,
    Dpor,
    Reach,
}

/// The model and bounds of `explore` and `suite` (each test of a suite has its own).
#[derive(clap::Args)]
pub(crate) struct Bounds {
    #[arg(long, value_enum, default_value = "tso")]
    pub(crate) model: ProgModel,
    /// `states`: every interleaving, states memoised (the oracle); `dpor`: source-DPOR
    /// over chronological traces (Abdulla et al.), one execution per trace or close;
    /// `reach`: every reachable state, breadth-first, with no loop bound (spin loops
    /// are cycles, not cut runs; a shortest failing run; outcomes as final states).
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
    /// [default: three quarters of the memory available].
    #[arg(long, value_name = "MIB")]
    pub(crate) max_memory: Option<usize>,
    /// Seconds for the whole command before the answer is unknown (exit 3); the
    /// searches poll it, so nothing keeps running after it.
    #[arg(long, value_name = "SECONDS")]
    pub(crate) timeout: Option<f64>,
    /// End the exploration with the first execution in which an assertion fails, as
    /// Nidhugg does; the executions counted are those up to and including it
    /// (`--engine dpor` only).
    #[arg(long)]
    pub(crate) stop_at_failure: bool,
}

/// The flags of `crosscheck`.
#[derive(clap::Args)]
pub(crate) struct CrosscheckArgs {
    /// Programs (`.prog`, `.litmus`, `.c`, `.i`) and directories of them (recursively).
    #[arg(required = true, value_name = "PROG")]
    pub(crate) programs: Vec<PathBuf>,
    /// Times a backward branch may be taken per thread (default 4; 100 with --runs,
    /// whose runs spin in their waiting loops).
    #[arg(long)]
    pub(crate) unroll: Option<u32>,
    /// States of each robustness search.
    #[arg(long, default_value_t = 1_000_000)]
    pub(crate) max_states: usize,
    /// Distinct traces per model (SC, TSO) before the answers that need all are unknown.
    #[arg(long, default_value_t = 10_000, conflicts_with = "runs")]
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
    /// Instead of every run: the monitors and `check` on N random SC runs of each
    /// program (Burnim et al.'s evaluation), violations keyed by the source lines
    /// blamed, the weak-model ones confirmed by the explorer.
    #[arg(long, value_name = "N")]
    pub(crate) runs: Option<usize>,
    /// The seed of the random runs (with --runs).
    #[arg(long, default_value_t = 0, requires = "runs")]
    pub(crate) seed: u64,
    #[command(flatten)]
    pub(crate) c: CReadArgs,
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

// The flags of `explore`.
#[derive(clap::Args)]
pub(crate) struct ExploreArgs {
    pub(crate) file: PathBuf,
    #[command(flatten)]
    pub(crate) bounds: Bounds,
    /// Skip the robustness search.
    #[arg(long)]
    pub(crate) no_robustness: bool,
    /// Replay one schedule (as printed for a witness) instead of exploring.
    #[arg(long)]
    pub(crate) replay: Option<String>,
    /// Write the distinct traces of complete runs to DIR (SC runs as SC traces for
    /// `monitor`; TSO/PSO runs as issue-order traces for `check`).
    #[arg(long, value_name = "DIR")]
    pub(crate) emit_traces: Option<PathBuf>,
    /// Write the distinct complete runs to DIR as runs with values, for `consistent`
    /// (stores where they reached memory, values renamed one per write).
    #[arg(long, value_name = "DIR")]
    pub(crate) emit_runs: Option<PathBuf>,
    /// At most this many distinct traces with --emit-traces (and --emit-runs: the
    /// runs of that many traces) [default: 1000].
    #[arg(long)]
    pub(crate) max_traces: Option<usize>,
    /// Output: tsoser's report; herd7's (`Test … States … Observation …`, for
    /// mcompare7; no robustness search); or the program itself in the `.prog`
    /// format (no exploration: a litmus test converted).
    #[arg(long, value_enum, default_value = "text")]
    pub(crate) format: ExploreFormat,
    #[arg(long)]
    pub(crate) json: bool,
    #[arg(long)]
    pub(crate) stats: bool,
    #[command(flatten)]
    pub(crate) c: CReadArgs,
}

/// How `explore`, `crosscheck` and `suite` read a C file (`.c`, `.i`).
#[derive(clap::Args)]
pub(crate) struct CReadArgs {
    /// C files: define a macro for the preprocessor (`NAME` or `NAME=VALUE`).
    #[arg(short = 'D', value_name = "NAME[=VALUE]")]
    pub(crate) define: Vec<String>,
    /// C files: a directory the preprocessor searches for `#include` files.
    #[arg(short = 'I', value_name = "DIR")]
    pub(crate) include: Vec<PathBuf>,
    /// C files: the values a `__VERIFIER_nondet_*` call takes when its type has more
    /// (at most 256; a negative low end as `--nondet=-5..5`); the answer then holds
    /// for these values only (NONDET CUT).
    #[arg(long, value_name = "LO..HI", default_value = "-1..2", value_parser = nondet_range, allow_hyphen_values = true)]
    pub(crate) nondet: (i64, i64),
    /// C files: the objects each `malloc`/`calloc` call site may give each thread
    /// (1 to 64); a run that asks for more is cut there (BOUND HIT).
    #[arg(long, value_name = "K", default_value_t = tsoser::program::DEFAULT_HEAP, value_parser = clap::value_parser!(u32).range(1..=tsoser::program::MAX_HEAP as i64))]
    pub(crate) heap: u32,
    /// C files: how `--unroll N` bounds loops: `thread`, N backward branches per
    /// thread; `entry`, N backward jumps per entry to each loop, counted in the program
    /// (for Nidhugg's `--unroll=N`; N from --unroll, else the file's `/* BOUND N */`,
    /// else 4; also with --engine reach).
    #[arg(long, value_enum, default_value = "thread")]
    pub(crate) loop_bound: LoopBoundArg,
}

impl CReadArgs {
    /// The options C files are read with; `unroll` is N for `--loop-bound entry`.
    pub(crate) fn options(&self, unroll: Option<u32>) -> tsoser::program::ReadOptions {
        tsoser::program::ReadOptions {
            defines: self.define.clone(),
            includes: self.include.clone(),
            nondet: self.nondet,
            heap: self.heap,
            loop_bound: match self.loop_bound {
                LoopBoundArg::Thread => tsoser::program::LoopBound::Thread,
                LoopBoundArg::Entry => tsoser::program::LoopBound::Entry(unroll),
            },
        }
    }
}

/// How `--loop-bound` bounds a C file's loops.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum LoopBoundArg {
    Thread,
    Entry,
}

/// `LO..HI`: a range of 1 to 256 values, low first.
fn nondet_range(s: &str) -> Result<(i64, i64), String> {
    let bad = || format!("`{s}`: a range `LO..HI` of 1 to 256 values, low first");
    let (lo, hi) = s.split_once("..").ok_or_else(bad)?;
    let (lo, hi): (i64, i64) = (
        lo.trim().parse().map_err(|_| bad())?,
        hi.trim().parse().map_err(|_| bad())?,
    );
    if lo > hi || hi.saturating_sub(lo) >= tsoser::program::MAX_NONDET {
        return Err(bad());
    }
    Ok((lo, hi))
}

// The flags of `suite`.
#[derive(clap::Args)]
pub(crate) struct SuiteArgs {
    pub(crate) dir: PathBuf,
    /// CSV of expected verdicts: a line `…/NAME.litmus,1` when the condition holds.
    #[arg(long)]
    pub(crate) expected: Option<PathBuf>,
    #[command(flatten)]
    pub(crate) bounds: Bounds,
    /// Also decide robustness for each test.
    #[arg(long)]
    pub(crate) robustness: bool,
    /// `herd`: herd7's report of every test on standard output (a herd log for
    /// mcompare7), the summary on standard error.
    #[arg(long, value_enum, default_value = "text")]
    pub(crate) format: SuiteFormat,
    #[arg(long)]
    pub(crate) json: bool,
    #[command(flatten)]
    pub(crate) c: CReadArgs,
}
