//! The documented `--json` objects of `check`, `graph` and the trace summary, as serde
//! structs in one place; every object carries [`crate::output::witness::JSON_SCHEMA`]. (The
//! docs/json.md describes them; a test checks a sample against the output.)

use crate::trace::exec::{node_text, Execution, Node, Step};
use crate::trace::Trace;
use serde::{Serialize, Serializer};
use serde_json::Value;

/// The version of every `--json` object (its `"schema"` field): raised when a field
/// changes meaning or goes away; new fields may appear within a version.
pub const JSON_SCHEMA: u32 = 2;

/// The `trace` object: what was read.
#[derive(Clone, Debug, Serialize)]
pub struct TraceInfo {
    pub name: Option<String>,
    pub events: usize,
    pub threads: usize,
    pub transactions: usize,
    pub variables: usize,
    /// Every transaction ends with a fence or rmw (absent when not known: a streamed
    /// trace).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transaction_fenced: Option<bool>,
}

impl TraceInfo {
    pub fn of(trace: &Trace) -> TraceInfo {
        TraceInfo {
            name: trace.name.clone(),
            events: trace.len(),
            threads: trace.threads.len(),
            transactions: trace.txns.len(),
            variables: trace.vars.len(),
            transaction_fenced: Some(trace.is_transaction_fenced()),
        }
    }
}

/// `tsoser check --json`.
#[derive(Clone, Debug, Serialize)]
pub struct CheckReport<'a> {
    pub schema: u32,
    pub file: String,
    /// Null when `--timeout` ended the command before the trace was read.
    pub trace: Option<TraceInfo>,
    /// `tso` | `sc`.
    pub model: &'static str,
    /// `auto` | `brute` | `sat` | `fpt` | `sc`.
    pub algo: &'static str,
    /// `varisat` | `z3` with `--algo sat` or `auto`.
    pub solver: Option<&'static str>,
    /// `exact` | `fig4` with `--algo fpt`.
    pub profiles: Option<&'static str>,
    /// `exact` | `paper`.
    pub semantics: &'static str,
    /// `serializable` | `violation` | `unknown`.
    pub verdict: &'static str,
    /// Why the answer is unknown, in words.
    pub reason: Option<String>,
    /// Why the answer is unknown, typed: `{"kind": "deadline" | "cancelled" |
    /// "max_executions" (with `max`) | "orientations" (with `undirected`, `max`) |
    /// "max_jumps" | "solver_gave_up" | "memory" (with `why`)}`; absent unless a decider
    /// answered unknown.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unknown: Option<crate::check::Unknown>,
    /// Paper semantics, violation: does some execution have one (null: not known).
    pub paper_realizable: Option<bool>,
    /// Null unless a violation ([`crate::output::witness::witness_json`]).
    pub witness: Option<WitnessJson<'a>>,
    /// With `--stats`: phase seconds, counts, peak memory (and fpt's chains).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stats: Option<Value>,
}

/// The last line of a batch (`check`, `monitor` or `graph` of several files, `--json`):
/// one JSON object a file before it, then this.
#[derive(Clone, Debug, Serialize)]
pub struct BatchSummary {
    pub schema: u32,
    pub summary: BatchCounts,
}

/// The files of a batch by outcome, and the exit code.
#[derive(Clone, Debug, Serialize)]
pub struct BatchCounts {
    pub files: usize,
    /// Exit 0: serializable, robust, nothing reported.
    pub ok: usize,
    pub violation: usize,
    pub unknown: usize,
    /// Files (or arguments) that could not be read or parsed.
    pub input_errors: usize,
    pub internal_errors: usize,
    pub seconds: f64,
    /// The worst code of the files: internal error (4), input error (2), violation (1),
    /// unknown (3), ok (0).
    pub exit: u8,
}

/// `tsoser graph --json`.
#[derive(Clone, Debug, Serialize)]
pub struct GraphReport {
    pub schema: u32,
    pub file: String,
    pub semantics: &'static str,
    pub trace: TraceInfo,
    pub nodes: usize,
    pub directed_edges: usize,
    pub undirected_edges: usize,
    /// The forced conflicts alone have a cycle (not serializable).
    pub forced_cycle: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stats: Option<Value>,
}

/// The schema version, for the structs above.
pub const fn schema() -> u32 {
    JSON_SCHEMA
}

/// One monitor's answer in `tsoser monitor --json`.
#[derive(Clone, Debug, Serialize)]
pub struct MonitorEntry {
    /// `sc-ser` | `sober` | `tso` | `pso` | `fenced`.
    pub monitor: &'static str,
    /// `serializable`/`violation` (sc-ser), `no-report`/`violation` (sober, tso, pso),
    /// `no-report`/`violation`/`unknown` (fenced).
    pub verdict: &'static str,
    /// `{event, line, text}` of the event the monitor stopped at, or null.
    pub stopped_at: Option<Value>,
    /// The evidence in the paper's terms (docs/monitors.md), or null.
    pub report: Value,
    /// sc-ser only: the same as `report` (kept for earlier readers).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub witness: Option<Value>,
}

/// `tsoser monitor --json` with one monitor: its entry's fields at the top level.
#[derive(Clone, Debug, Serialize)]
pub struct MonitorOne {
    pub schema: u32,
    pub file: String,
    pub trace: TraceInfo,
    #[serde(flatten)]
    pub entry: MonitorEntry,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stats: Option<Value>,
}

/// `tsoser monitor --json --monitor all` (or several): one entry per monitor.
#[derive(Clone, Debug, Serialize)]
pub struct MonitorAll {
    pub schema: u32,
    pub file: String,
    pub trace: TraceInfo,
    pub monitors: Vec<MonitorEntry>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stats: Option<Value>,
}

/// `tsoser explore --json`.
#[derive(Clone, Debug, Serialize)]
pub struct ExploreReport {
    pub schema: u32,
    pub file: String,
    pub program: String,
    /// `sc` | `tso` | `pso`.
    pub model: &'static str,
    /// Whether the exploration finished (else the answers are partial).
    pub complete: bool,
    /// Why it did not finish.
    pub incomplete: Option<String>,
    /// `states` or `dpor`.
    pub engine: &'static str,
    /// Distinct states (states engine) or events executed (dpor).
    pub states: usize,
    /// The dpor engine's counts (null with the states engine).
    pub dpor: Option<DporJson>,
    pub outcomes: Vec<OutcomeJson>,
    pub condition: Option<ConditionJson>,
    /// Runs (dpor: maximal executions) cut by `assume` or a `lock` found taken.
    pub cut: u64,
    /// Runs (dpor: maximal executions) cut by the unrolling bound: when not 0, the
    /// answers hold up to the bound (`--unroll`, the program's `unroll`, or its own
    /// `loop_bound`).
    pub bound_hit: u64,
    /// The unrolling bound used (null with the reach engine, which has none, and for a
    /// program that bounds its loops itself: `--loop-bound entry`).
    pub unroll: Option<u32>,
    /// The line of a `nondet` whose range leaves out values of its type (C's
    /// `__VERIFIER_nondet_int` over `--nondet`), when the exploration reached one: the
    /// answers hold for the values in the ranges only. Null otherwise.
    pub nondet_cut: Option<usize>,
    pub assertion_failure: Option<FailureJson>,
    /// A thread taking a lock it holds itself (it waits forever), with a run to it.
    pub deadlock: Option<DeadlockJson>,
    /// When no run completes (and no assertion fails): where the runs are cut.
    pub no_run: Option<String>,
    /// Null under SC or with `--no-robustness`.
    pub robustness: Option<RobustnessJson>,
    pub exit: u8,
}

/// What the dpor engine explored: maximal executions, those that ended with every
/// enabled process asleep, and those with a thread stopped at a lock it found taken.
#[derive(Clone, Debug, Serialize)]
pub struct DporJson {
    pub executions: u64,
    pub sleep_blocked: u64,
    pub lock_waits: u64,
}

/// One final outcome: the observed values, the runs reaching it (dpor: the executions
/// explored that reach it), whether it satisfies the condition.
#[derive(Clone, Debug, Serialize)]
pub struct OutcomeJson {
    pub values: serde_json::Map<String, Value>,
    pub runs: u64,
    pub satisfies: Option<bool>,
}

/// The final condition and its answer (null when unknown).
#[derive(Clone, Debug, Serialize)]
pub struct ConditionJson {
    pub quantifier: &'static str,
    pub text: String,
    pub holds: Option<bool>,
    /// An old-style test's own answer (`with tso: …`) and whether the run agrees.
    pub stated: Option<Value>,
}

/// The first assertion failure, with a schedule that replays it.
#[derive(Clone, Debug, Serialize)]
pub struct FailureJson {
    pub thread: String,
    pub line: usize,
    pub schedule: String,
    pub steps: Vec<String>,
}

/// A self-deadlock: the thread, the line of the `lock` that waits, the line where the
/// thread took that lock, and a run to it.
#[derive(Clone, Debug, Serialize)]
pub struct DeadlockJson {
    pub thread: String,
    pub line: usize,
    pub held_since: usize,
    pub schedule: String,
    pub steps: Vec<String>,
}

/// Robustness: null when unknown, with `note` saying why.
#[derive(Clone, Debug, Serialize)]
pub struct RobustnessJson {
    pub robust: Option<bool>,
    pub states: usize,
    pub note: Option<String>,
    pub witness: Option<RobustnessWitness>,
}

/// A shortest non-SC run: its schedule, steps and happens-before cycle.
#[derive(Clone, Debug, Serialize)]
pub struct RobustnessWitness {
    pub schedule: String,
    pub steps: Vec<String>,
    pub cycle: Vec<String>,
}

/// `tsoser suite --json`.
#[derive(Clone, Debug, Serialize)]
pub struct SuiteReport {
    pub schema: u32,
    pub dir: String,
    pub model: &'static str,
    pub tests: usize,
    pub mismatches: usize,
    pub errors: usize,
    pub unknown: usize,
    pub without_expectation: usize,
    pub not_robust: usize,
    pub seconds: f64,
    pub results: Vec<SuiteRow>,
}

/// One test of a suite: its error, or its answers (milliseconds rounded to µs).
#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
pub enum SuiteRow {
    Error {
        test: String,
        error: String,
        ms: f64,
    },
    Done {
        test: String,
        /// `condition` (a litmus test: `holds` says whether its condition holds) or
        /// `assertion` (a C program: `holds` says whether an assertion fails).
        asks: &'static str,
        holds: Option<bool>,
        expected: Option<bool>,
        #[serde(rename = "match")]
        matches: Option<bool>,
        outcomes: usize,
        states: usize,
        robust: Option<bool>,
        ms: f64,
    },
}

/// One edge of an explicit execution's cycle (`check-exec --json`).
#[derive(Clone, Debug, Serialize)]
pub struct ExecEdge {
    /// The transactions (absent on the write-contraction's cycle of units).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub to: Option<String>,
    pub src: String,
    pub dst: String,
    pub src_step: usize,
    pub dst_step: usize,
    pub rule: crate::trace::conflict::Rule,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub explain: Option<&'static str>,
}

/// `tsoser check-exec --json`.
#[derive(Clone, Debug, Serialize)]
pub struct ExecReport {
    pub schema: u32,
    pub file: String,
    pub trace: TraceInfo,
    pub tso_serializable: bool,
    pub cycle: Option<Vec<ExecEdge>>,
    pub sc_equivalent: bool,
    pub contraction_cycle: Option<Vec<ExecEdge>>,
    /// Where each write commits.
    pub commits: Value,
}

/// A node of a witness: a trace event or the commit of a write (`event` is the write's
/// index), with the execution step when there is an execution.
#[derive(Clone, Debug, Serialize)]
pub struct NodeJson {
    /// `event` | `commit`.
    pub kind: &'static str,
    pub event: usize,
    pub text: String,
    pub line: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub step: Option<usize>,
}

impl NodeJson {
    /// Node `n` of `trace`, with its step in `exec` when there is one.
    pub fn of(trace: &Trace, n: Node, exec: Option<&Execution>) -> NodeJson {
        let (kind, e) = match n {
            Step::Event(e) => ("event", e),
            Step::Commit(w) => ("commit", w),
        };
        NodeJson {
            kind,
            event: e,
            text: node_text(trace, n),
            line: trace.events[e].line as usize,
            step: exec.map(|x| x.pos(n) + 1),
        }
    }
}

/// One edge of a witness cycle: the transactions, the two conflicting nodes, the rule.
#[derive(Clone, Debug, Serialize)]
pub struct EdgeJson {
    pub from: String,
    pub to: String,
    pub src: NodeJson,
    pub dst: NodeJson,
    pub rule: crate::trace::conflict::Rule,
    pub explain: &'static str,
}

/// Where one write commits: after which trace event, at which step.
#[derive(Clone, Debug, Serialize)]
pub struct CommitJson {
    pub write: usize,
    pub after_event: usize,
    pub step: usize,
}

impl CommitJson {
    /// Where write `w` commits in `exec`.
    pub fn of(exec: &Execution, w: usize) -> CommitJson {
        CommitJson {
            write: w,
            after_event: exec.commit_gap(w) - 1,
            step: exec.commit_pos(w) + 1,
        }
    }
}

/// The steps of an execution a witness shows (all, or those at the positions
/// `only` lists, ascending), made one at a time as they are written: an execution
/// of 10⁸ events is never held as JSON.
#[derive(Clone, Debug)]
pub struct StepsJson<'a> {
    pub trace: &'a Trace,
    pub exec: &'a Execution,
    pub only: Option<Vec<usize>>,
}

impl StepsJson<'_> {
    /// The positions shown, in order.
    pub fn positions(&self) -> Box<dyn Iterator<Item = usize> + '_> {
        match &self.only {
            Some(v) => Box::new(v.iter().copied()),
            None => Box::new(0..self.exec.len()),
        }
    }

    /// How many steps are shown.
    pub fn len(&self) -> usize {
        self.only.as_ref().map_or(self.exec.len(), Vec::len)
    }

    /// No step is shown.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The shown steps as [`NodeJson`]s.
    pub fn nodes(&self) -> impl Iterator<Item = NodeJson> + '_ {
        self.positions()
            .map(|p| NodeJson::of(self.trace, self.exec.step(p), Some(self.exec)))
    }

    /// Where each write commits whose commit step is shown, in write order.
    pub fn commits(&self) -> impl Iterator<Item = CommitJson> + '_ {
        self.trace
            .writes()
            .map(|w| CommitJson::of(self.exec, w))
            .filter(|c| {
                self.only
                    .as_ref()
                    .is_none_or(|v| v.binary_search(&(c.step - 1)).is_ok())
            })
    }
}

/// `execution`: the shown steps.
impl Serialize for StepsJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.nodes())
    }
}

/// `commits` beside `execution`: where each shown commit is placed.
#[derive(Clone, Debug)]
pub struct CommitsJson<'a>(pub StepsJson<'a>);

impl Serialize for CommitsJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.commits())
    }
}

/// A violation's witness (`kind`: `execution` | `orientation` | `sc`).
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum WitnessJson<'a> {
    /// An execution and a cycle of its conflict graph; `shown` says which steps
    /// `execution` and `commits` hold: `full` (every one), `cycle` (those the cycle
    /// touches: `--witness cycle`) or `none` (`--witness none`).
    Execution {
        shown: &'static str,
        /// The number of steps of the whole execution.
        steps: usize,
        execution: StepsJson<'a>,
        commits: CommitsJson<'a>,
        cycle: Vec<EdgeJson>,
    },
    /// Paper semantics: each undirected pair of Def. 4 as oriented, and the cycle.
    Orientation {
        oriented: Vec<(usize, usize)>,
        cycle: Vec<EdgeJson>,
    },
    /// A ⊙SC cycle of the trace read as an SC run.
    Sc { cycle: Vec<EdgeJson> },
}

/// An event of a monitor's evidence.
#[derive(Clone, Debug, Serialize)]
pub struct EventJson {
    pub event: usize,
    pub line: usize,
    pub text: String,
}

/// A happens-before edge of a path or cycle (`kind`: `po` | `rf` | `co` | `fr`).
#[derive(Clone, Debug, Serialize)]
pub struct HbEdgeJson {
    pub from: EventJson,
    pub to: EventJson,
    pub kind: &'static str,
}

/// Which conditions of SOBER's Lemma 1 hold for the report.
#[derive(Clone, Debug, Serialize)]
pub struct Lemma1Json {
    #[serde(rename = "1")]
    pub one: bool,
    #[serde(rename = "2i")]
    pub two_i: bool,
    #[serde(rename = "2ii")]
    pub two_ii: bool,
}

/// SOBER's report (Fig. 2): the load `e_k`, the coherence index it read,
/// `write(E, a, c)`, `last(E, p)`, `lastR(E, p)`, Lemma 1, the hb path of (1).
#[derive(Clone, Debug, Serialize)]
pub struct SoberJson {
    pub load: EventJson,
    pub reads: usize,
    pub write: EventJson,
    pub index: usize,
    pub last: EventJson,
    pub last_read: Option<EventJson>,
    pub lemma1: Lemma1Json,
    pub hb_path: Vec<HbEdgeJson>,
}

/// A step of a replayed TSO / PSO run (`kind`: `event` | `commit`).
#[derive(Clone, Debug, Serialize)]
pub struct RunStepJson {
    pub kind: &'static str,
    pub event: usize,
}

/// `monitor_TSO` / `monitor_PSO`'s report (Figs. 4, 5): `e`, `prev`, `e_i`, the path
/// `e →*hb prev`, the run of the proof and its hb cycle.
#[derive(Clone, Debug, Serialize)]
pub struct BurnimJson {
    pub e: EventJson,
    pub prev: EventJson,
    pub ei: EventJson,
    pub hb_path: Vec<HbEdgeJson>,
    pub run: Vec<RunStepJson>,
    pub cycle: Vec<HbEdgeJson>,
}

/// The transaction-fenced monitor's report (Theorem 3).
#[derive(Clone, Debug, Serialize)]
pub struct FencedJson<'a> {
    pub transaction_fenced: bool,
    /// The last event of the first transaction that does not end with a fence or rmw.
    pub unfenced: Option<EventJson>,
    pub sc_ser: Option<WitnessJson<'a>>,
    pub sober: Option<SoberJson>,
    pub implies_tso_violation: bool,
}

/// `tsoser consistent --json`: is a run with values SC (TSO) under a write order?
#[derive(Debug, serde::Serialize)]
pub struct ConsistentReport {
    pub schema: u32,
    pub file: String,
    pub model: crate::consistency::Model,
    pub write_order: crate::consistency::WriteOrder,
    /// `null` when unknown within the time limit.
    pub consistent: Option<bool>,
    /// Why the answer is unknown.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unknown: Option<String>,
    /// With `--order`: the serial order (SC) or commit order (TSO), as event numbers.
    pub order: Option<Vec<usize>>,
    /// With `--order` and `--write-order any`: each location's writes in the order
    /// found, as event numbers.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub write_orders: Option<Vec<LocationOrder>>,
    /// When not consistent: the constraint graph the cycle lies in and its edges.
    pub graph: Option<crate::consistency::Graph>,
    pub cycle: Option<Vec<ConsistentEdge>>,
    /// Whether the cycle has one edge per processor and per location at most.
    pub nice: Option<bool>,
    pub stats: crate::consistency::Stats,
}

/// One location's write order in `tsoser consistent --json`.
#[derive(Debug, serde::Serialize)]
pub struct LocationOrder {
    pub location: String,
    pub writes: Vec<usize>,
}

/// An edge of a `consistent` cycle: its label and its two events, shown.
#[derive(Debug, serde::Serialize)]
pub struct ConsistentEdge {
    /// `processor` or `location`.
    pub kind: &'static str,
    /// The thread or location's name.
    pub of: String,
    pub from: usize,
    pub to: usize,
    pub from_event: String,
    pub to_event: String,
}
