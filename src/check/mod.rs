//! Deciders of trace TSO-serializability (docs/semantics.md §4) and the polynomial
//! execution-level checks. Every violation carries a witness that [`verify`] re-checks
//! from scratch.

pub mod auto;
pub mod brute;
pub mod decide;
pub mod execution;
pub mod fpt;
pub mod front;
pub mod sat;
pub mod sc;

use crate::graph::paper::PaperGraph;
use crate::graph::{is_closed, Edge};
use crate::trace::conflict::{self, conflict, txn};
use crate::trace::exec::{Execution, Step};
use crate::trace::Trace;

/// Which question is decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Semantics {
    /// docs/semantics.md §4: every TSO execution is conflict-serializable (commit placement).
    Exact,
    /// The paper's Thm. 5 on its Def. 4 graph (over-approximates, docs/semantics.md §5).
    Paper,
}

/// A violation witness.
#[derive(Clone, Debug)]
pub enum Witness {
    /// An execution (where each write commits) and a cycle of its conflict graph.
    Execution {
        execution: Execution,
        cycle: Vec<Edge>,
    },
    /// Paper mode: an acyclic orientation of EG_τ's undirected edges (each pair as
    /// oriented, `a → b`) and a cycle of the induced conflict graph.
    Orientation {
        oriented: Vec<(usize, usize)>,
        cycle: Vec<Edge>,
    },
    /// SC-serializability: a cycle of the ⊙SC conflict graph of the trace read as an SC run.
    Sc { cycle: Vec<Edge> },
}

impl Witness {
    pub fn cycle(&self) -> &[Edge] {
        match self {
            Witness::Execution { cycle, .. }
            | Witness::Orientation { cycle, .. }
            | Witness::Sc { cycle } => cycle,
        }
    }
}

/// The answer of a decider.
#[derive(Clone, Debug)]
pub enum Verdict {
    Serializable,
    Violation(Box<Witness>),
    /// No answer within the budget: which part of it ran out.
    Unknown(Unknown),
}

pub use crate::stop::Unknown;

impl Verdict {
    pub fn is_serializable(&self) -> bool {
        matches!(self, Verdict::Serializable)
    }

    pub fn is_violation(&self) -> bool {
        matches!(self, Verdict::Violation(_))
    }

    pub fn name(&self) -> &'static str {
        match self {
            Verdict::Serializable => "serializable",
            Verdict::Violation(_) => "violation",
            Verdict::Unknown(_) => "unknown",
        }
    }
}

/// Re-checks an execution witness from scratch: the steps form an execution of the
/// trace (docs/semantics.md §2) and every cycle edge is a conflict of Eq. (1), in
/// execution order, between the transactions it names, closing a cycle.
pub fn verify_execution_cycle(trace: &Trace, steps: &[Step], cycle: &[Edge]) -> Result<(), String> {
    let exec = Execution::new(trace, steps.to_vec())?;
    if !is_closed(cycle) {
        return Err("the cycle is not closed".into());
    }
    for (i, e) in cycle.iter().enumerate() {
        if e.from == e.to {
            return Err(format!("edge {i} is a self-loop"));
        }
        if txn(trace, e.src).index() != e.from || txn(trace, e.dst).index() != e.to {
            return Err(format!(
                "edge {i}: its events are not in the transactions it names"
            ));
        }
        if exec.pos(e.src) >= exec.pos(e.dst) {
            return Err(format!(
                "edge {i}: source does not precede target in the execution"
            ));
        }
        match conflict(trace, &exec, e.src, e.dst) {
            Some(r) if r == e.rule => {}
            Some(r) => return Err(format!("edge {i}: conflict is {r:?}, not {:?}", e.rule)),
            None => return Err(format!("edge {i}: the two nodes do not conflict")),
        }
    }
    Ok(())
}

/// Re-checks any witness against its trace.
pub fn verify(trace: &Trace, w: &Witness) -> Result<(), String> {
    match w {
        Witness::Execution { execution, cycle } => {
            verify_execution_cycle(trace, execution.steps(), cycle)
        }
        Witness::Orientation { oriented, cycle } => {
            let g = PaperGraph::new(trace);
            let orient: Vec<bool> = g
                .undirected
                .iter()
                .map(|&(a, b)| {
                    if oriented.contains(&(a, b)) {
                        Ok(true)
                    } else if oriented.contains(&(b, a)) {
                        Ok(false)
                    } else {
                        Err(format!("undirected edge {a}–{b} is not oriented"))
                    }
                })
                .collect::<Result<_, _>>()?;
            let cg = g
                .oriented(trace, &orient)
                .ok_or("the orientation is cyclic (not valid)")?;
            if !is_closed(cycle) {
                return Err("the cycle is not closed".into());
            }
            for (i, e) in cycle.iter().enumerate() {
                if !cg.edges().iter().any(|f| f == e) {
                    return Err(format!("edge {i} is not an edge of the oriented graph"));
                }
            }
            Ok(())
        }
        Witness::Sc { cycle } => {
            if !is_closed(cycle) {
                return Err("the cycle is not closed".into());
            }
            for (i, e) in cycle.iter().enumerate() {
                let (Step::Event(a), Step::Event(b)) = (e.src, e.dst) else {
                    return Err(format!("edge {i}: SC edges join trace events"));
                };
                if a >= b || conflict::sc_conflict(trace, a, b) != Some(e.rule) {
                    return Err(format!("edge {i}: not a ⊙SC conflict in trace order"));
                }
                if trace.events[a].txn.index() != e.from
                    || trace.events[b].txn.index() != e.to
                    || e.from == e.to
                {
                    return Err(format!("edge {i}: wrong transactions"));
                }
            }
            Ok(())
        }
    }
}
