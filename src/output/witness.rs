//! What the command line prints: verdicts and witnesses as text a person can check
//! step by step, and as one JSON object (schema in docs/json.md).

use crate::check::{Unknown, Verdict, Witness};
use crate::graph::Edge;
use crate::trace::exec::{Execution, Node, Step};
use crate::trace::Trace;
use crate::trace::TxnId;
use serde_json::{json, Value};
use std::time::Instant;

pub use crate::output::json::JSON_SCHEMA;
use crate::output::json::{CommitJson, CommitsJson, EdgeJson, NodeJson, StepsJson, WitnessJson};

/// Why a decider answered unknown, in the command line's words (naming its flags).
pub fn unknown_text(u: &Unknown) -> String {
    match u {
        Unknown::Deadline => "--timeout reached".into(),
        Unknown::Cancelled => "cancelled".into(),
        Unknown::MaxExecutions { max } => format!(
            "brute force visited {max} execution prefixes (--max-executions) without an answer"
        ),
        Unknown::Orientations { undirected: u, max } => {
            format!("{u} undirected edges: 2^{u} orientations exceed --max-executions {max}")
        }
        Unknown::MaxJumps => "the --max-jumps budget ran out".into(),
        Unknown::SolverGaveUp => "the solver gave up (--timeout)".into(),
        Unknown::Memory { why } => why.to_string(),
        Unknown::WritePairs { pairs, max } => {
            format!("{pairs} pairs of writes to order, more than the {max} tsoser tries")
        }
    }
}

/// Phase times, counters and peak memory, for `--stats`: the text names phases and
/// counters in words; `--json` in snake_case (docs/json.md).
#[derive(Clone, Debug, Default)]
pub struct Stats {
    pub phases: Vec<(String, f64)>,
    pub counts: Vec<(String, u64)>,
    /// The `counts` object of `--json` when a serde struct gives it (a decider's
    /// stats); otherwise `counts` with their names in snake_case.
    pub json_counts: Option<serde_json::Map<String, Value>>,
}

/// A phase's or counter's name as a JSON key: lower case, words joined by `_`
/// (`"components of single events"` → `"components_of_single_events"`).
pub fn snake_case(name: &str) -> String {
    let mut s = String::new();
    for w in name
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        if !s.is_empty() {
            s.push('_');
        }
        s.push_str(&w.to_lowercase());
    }
    s
}

impl Stats {
    /// Adds `secs` to phase `name` (phases repeated, e.g. solver calls, are summed).
    pub fn add_phase(&mut self, name: &str, secs: f64) {
        match self.phases.iter_mut().find(|(k, _)| k == name) {
            Some((_, v)) => *v += secs,
            None => self.phases.push((name.to_string(), secs)),
        }
    }

    /// Runs `f`, recording its wall time under `name`.
    pub fn time<T>(&mut self, name: &str, f: impl FnOnce() -> T) -> T {
        let t = Instant::now();
        let out = f();
        self.phases
            .push((name.to_string(), t.elapsed().as_secs_f64()));
        out
    }

    pub fn count(&mut self, name: &str, v: u64) {
        self.counts.push((name.to_string(), v));
    }

    /// Peak resident memory of this process in KiB (Linux `VmHWM`), if known.
    pub fn peak_memory_kib() -> Option<u64> {
        crate::mem::peak_rss().map(|bytes| bytes / 1024)
    }

    pub fn to_json(&self) -> Value {
        let phases: serde_json::Map<String, Value> = self
            .phases
            .iter()
            .map(|(k, v)| (snake_case(k), json!(v)))
            .collect();
        let counts = self.json_counts.clone().unwrap_or_else(|| {
            self.counts
                .iter()
                .map(|(k, v)| (snake_case(k), json!(v)))
                .collect()
        });
        json!({"seconds": phases, "counts": counts, "peak_memory_kib": Stats::peak_memory_kib()})
    }

    pub fn to_text(&self) -> String {
        let mut s = String::from("stats:\n");
        for (k, v) in &self.phases {
            s.push_str(&format!("  {k:<24} {:>10.3} ms\n", v * 1e3));
        }
        for (k, v) in &self.counts {
            s.push_str(&format!("  {k:<24} {v:>10}\n"));
        }
        if let Some(m) = Stats::peak_memory_kib() {
            s.push_str(&format!(
                "  {:<24} {:>10.1} MiB\n",
                "peak memory",
                m as f64 / 1024.0
            ));
        }
        s
    }
}

pub use crate::trace::exec::node_text;

fn line_of(trace: &Trace, n: Node) -> usize {
    match n {
        Step::Event(e) | Step::Commit(e) => trace.events[e].line as usize,
    }
}

fn node_json(trace: &Trace, n: Node, exec: Option<&Execution>) -> NodeJson {
    NodeJson::of(trace, n, exec)
}

fn edge_json(trace: &Trace, e: &Edge, exec: Option<&Execution>) -> EdgeJson {
    EdgeJson {
        from: trace.txns[TxnId::new(e.from)].name.to_string(),
        to: trace.txns[TxnId::new(e.to)].name.to_string(),
        src: node_json(trace, e.src, exec),
        dst: node_json(trace, e.dst, exec),
        rule: e.rule,
        explain: e.rule.explain(),
    }
}

/// The execution as numbered lines; commits marked `⇒`.
pub fn execution_text(trace: &Trace, exec: &Execution) -> String {
    let all: Vec<usize> = (0..exec.len()).collect();
    steps_text(trace, exec, &all)
}

/// Where each write commits: after which trace event.
pub fn placement(trace: &Trace, exec: &Execution) -> Vec<CommitJson> {
    trace.writes().map(|w| CommitJson::of(exec, w)).collect()
}

/// [`placement`] as a JSON value.
pub fn placement_json(trace: &Trace, exec: &Execution) -> Value {
    serde_json::to_value(placement(trace, exec)).expect("plain data")
}

/// The cycle, one edge a line.
pub fn cycle_text(trace: &Trace, cycle: &[Edge], exec: Option<&Execution>) -> String {
    let mut s = String::new();
    for e in cycle {
        let at = |n: Node| exec.map_or(String::new(), |x| format!(" @{}", x.pos(n) + 1));
        s.push_str(&format!(
            "  {} → {}: {}{} → {}{}\n      [{:?}] {}\n",
            trace.txns[TxnId::new(e.from)].name,
            trace.txns[TxnId::new(e.to)].name,
            node_text(trace, e.src),
            at(e.src),
            node_text(trace, e.dst),
            at(e.dst),
            e.rule,
            e.rule.explain()
        ));
    }
    s
}

/// The witness as JSON, every step of an execution (`None` when there is none).
pub fn witness_json<'a>(trace: &'a Trace, verdict: &'a Verdict) -> Option<WitnessJson<'a>> {
    witness_json_with(trace, verdict, Detail::Full)
}

/// [`witness_json`] with an execution's steps as `detail` asks: all, those the cycle
/// touches, or none (the cycle alone; a 10⁶-event execution is hundreds of MiB of
/// JSON).
pub fn witness_json_with<'a>(
    trace: &'a Trace,
    verdict: &'a Verdict,
    detail: Detail,
) -> Option<WitnessJson<'a>> {
    let Verdict::Violation(w) = verdict else {
        return None;
    };
    let cycle = |c: &[Edge], exec: Option<&Execution>| -> Vec<EdgeJson> {
        c.iter().map(|e| edge_json(trace, e, exec)).collect()
    };
    Some(match &**w {
        Witness::Execution {
            execution,
            cycle: c,
        } => {
            let steps = StepsJson {
                trace,
                exec: execution,
                only: match detail {
                    Detail::Full => None,
                    Detail::Cycle => Some(touched(trace, execution, c)),
                    Detail::None => Some(Vec::new()),
                },
            };
            WitnessJson::Execution {
                shown: match detail {
                    Detail::Full => "full",
                    Detail::Cycle => "cycle",
                    Detail::None => "none",
                },
                steps: execution.len(),
                execution: steps.clone(),
                commits: CommitsJson(steps),
                cycle: cycle(c, Some(execution)),
            }
        }
        Witness::Orientation { oriented, cycle: c } => WitnessJson::Orientation {
            // `--witness none`: the cycle alone.
            oriented: if detail == Detail::None {
                Vec::new()
            } else {
                oriented.clone()
            },
            cycle: cycle(c, None),
        },
        Witness::Sc { cycle: c } => WitnessJson::Sc {
            cycle: cycle(c, None),
        },
    })
}

/// How much of a witness the text shows (`--witness`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Detail {
    /// The cycle, then only the execution steps it touches (default): a 10⁵-event
    /// witness stays a few lines.
    #[default]
    Cycle,
    /// The cycle, then the whole execution.
    Full,
    /// No witness text (the verdict line only).
    None,
}

/// The steps of `exec` an execution cycle touches: its nodes, the write of each
/// commit, and for each buffered read its pending write and that write's commit (what
/// the parallel exception (i) depends on); in execution order.
fn touched(trace: &Trace, exec: &Execution, cycle: &[Edge]) -> Vec<usize> {
    let mut pos: Vec<usize> = Vec::new();
    for e in cycle {
        for n in [e.src, e.dst] {
            pos.push(exec.pos(n));
            match n {
                Step::Commit(w) => pos.push(exec.pos(Step::Event(w))),
                Step::Event(r) => {
                    if let Some(w) = trace.buffered_by(r) {
                        pos.push(exec.pos(Step::Event(w)));
                        pos.push(exec.pos(Step::Commit(w)));
                    }
                }
            }
        }
    }
    pos.sort_unstable();
    pos.dedup();
    pos
}

/// The execution steps at `positions` as numbered lines (`⇒` marks a commit), with a
/// `…` line for each run of steps left out.
fn steps_text(trace: &Trace, exec: &Execution, positions: &[usize]) -> String {
    let mut s = String::new();
    let mut last: Option<usize> = None;
    for &p in positions {
        if last.map_or(p > 0, |l| p > l + 1) {
            s.push_str("         …\n");
        }
        last = Some(p);
        let st = exec.step(p);
        let line = line_of(trace, st);
        let at = if line > 0 {
            format!("  (line {line})")
        } else {
            String::new()
        };
        match st {
            Step::Event(e) => s.push_str(&format!(
                "  {:>4}. {}{at}\n",
                p + 1,
                node_text(trace, Step::Event(e))
            )),
            Step::Commit(w) => s.push_str(&format!(
                "  {:>4}.   ⇒ commit {}{at}\n",
                p + 1,
                node_text(trace, Step::Event(w))
            )),
        }
    }
    if last.is_some_and(|l| l + 1 < exec.len()) {
        s.push_str("         …\n");
    }
    s
}

/// The witness as text: the cycle first, then the execution as `detail` asks.
pub fn witness_text(trace: &Trace, w: &Witness) -> String {
    witness_text_with(trace, w, Detail::Full)
}

/// [`witness_text`] at the given [`Detail`].
pub fn witness_text_with(trace: &Trace, w: &Witness, detail: Detail) -> String {
    if detail == Detail::None {
        return String::new();
    }
    match w {
        Witness::Execution { execution, cycle } => {
            let mut s = format!(
                "transaction cycle (each edge: the two conflicting steps, @ = step of the execution):\n{}",
                cycle_text(trace, cycle, Some(execution))
            );
            if detail == Detail::Full {
                s += &format!(
                    "witness execution (⇒ marks where each write commits):\n{}",
                    execution_text(trace, execution)
                );
            } else {
                let pos = touched(trace, execution, cycle);
                s += &format!(
                    "witness execution, the {} of its {} steps the cycle touches (⇒ marks a commit; --witness full prints every step):\n{}",
                    pos.len(),
                    execution.steps().len(),
                    steps_text(trace, execution, &pos)
                );
            }
            s
        }
        Witness::Orientation { oriented, cycle } => {
            let mut s = String::from("conflict-graph cycle:\n");
            s.push_str(&cycle_text(trace, cycle, None));
            let shown = if detail == Detail::Full {
                oriented.len()
            } else {
                oriented.len().min(20)
            };
            s.push_str(&format!(
                "witness orientation of EG_τ's undirected edges (Def. 4){}:\n",
                if shown < oriented.len() {
                    format!(
                        ", {shown} of {} (--witness full prints all)",
                        oriented.len()
                    )
                } else {
                    String::new()
                }
            ));
            for &(a, b) in &oriented[..shown] {
                s.push_str(&format!(
                    "  {} → {}\n",
                    node_text(trace, Step::Event(a)),
                    node_text(trace, Step::Event(b))
                ));
            }
            s
        }
        Witness::Sc { cycle } => format!(
            "⊙SC conflict-graph cycle (trace read as an SC run):\n{}",
            cycle_text(trace, cycle, None)
        ),
    }
}
