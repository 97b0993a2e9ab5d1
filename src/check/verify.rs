//! Witnesses re-checked from scratch, apart from the deciders that found them.

use crate::graph::paper::PaperGraph;
use crate::graph::{is_closed, Edge};
use crate::trace::conflict::{self, conflict, txn, Rule};
use crate::trace::exec::{Execution, NotAnExecution, Step};
use crate::trace::Trace;

use super::Witness;

/// Why a witness does not re-check: the rule it breaks, at a 0-based cycle edge.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Rejected {
    /// The steps are not an execution of the trace (docs/semantics.md §2).
    #[error(transparent)]
    NotAnExecution(#[from] NotAnExecution),
    #[error("the cycle is not closed")]
    NotClosed,
    #[error("edge {edge} is a self-loop")]
    SelfLoop { edge: usize },
    #[error("edge {edge}: its events are not in the transactions it names")]
    OutsideItsTransactions { edge: usize },
    #[error("edge {edge}: source does not precede target in the execution")]
    NotInExecutionOrder { edge: usize },
    /// The nodes conflict (Eq. (1)), by another rule than the edge claims.
    #[error("edge {edge}: conflict is {found:?}, not {claimed:?}")]
    OtherRule {
        edge: usize,
        found: Rule,
        claimed: Rule,
    },
    #[error("edge {edge}: the two nodes do not conflict")]
    NoConflict { edge: usize },
    /// An undirected edge of EG_τ (Def. 4) the orientation leaves out.
    #[error("undirected edge {a}–{b} is not oriented")]
    NotOriented { a: usize, b: usize },
    /// The orders a cycle needs of the commit placements (§4) admit no execution.
    #[error("the placement orders of the cycle are cyclic")]
    CyclicPlacementOrders,
    #[error("the orientation is cyclic (not valid)")]
    CyclicOrientation,
    #[error("edge {edge} is not an edge of the oriented graph")]
    NotInOrientedGraph { edge: usize },
    #[error("edge {edge}: SC edges join trace events")]
    NotEvents { edge: usize },
    #[error("edge {edge}: not a ⊙SC conflict in trace order")]
    NotScConflict { edge: usize },
    #[error("edge {edge}: wrong transactions")]
    WrongTransactions { edge: usize },
}

/// Re-checks an execution witness from scratch: the steps form an execution of the
/// trace (docs/semantics.md §2, [`Execution::recheck`], which also checks the
/// positions it indexes) and every cycle edge is a conflict of Eq. (1), in execution
/// order, between the transactions it names, closing a cycle.
pub fn verify_execution_cycle(
    trace: &Trace,
    exec: &Execution,
    cycle: &[Edge],
) -> Result<(), Rejected> {
    exec.recheck(trace)?;
    if !is_closed(cycle) {
        return Err(Rejected::NotClosed);
    }
    for (i, e) in cycle.iter().enumerate() {
        if e.from == e.to {
            return Err(Rejected::SelfLoop { edge: i });
        }
        if txn(trace, e.src).index() != e.from || txn(trace, e.dst).index() != e.to {
            return Err(Rejected::OutsideItsTransactions { edge: i });
        }
        if exec.pos(e.src) >= exec.pos(e.dst) {
            return Err(Rejected::NotInExecutionOrder { edge: i });
        }
        match conflict(trace, exec, e.src, e.dst) {
            Some(r) if r == e.rule => {}
            Some(found) => {
                return Err(Rejected::OtherRule {
                    edge: i,
                    found,
                    claimed: e.rule,
                })
            }
            None => return Err(Rejected::NoConflict { edge: i }),
        }
    }
    Ok(())
}

/// Re-checks any witness against its trace.
pub fn verify(trace: &Trace, w: &Witness) -> Result<(), Rejected> {
    match w {
        Witness::Execution { execution, cycle } => verify_execution_cycle(trace, execution, cycle),
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
                        Err(Rejected::NotOriented { a, b })
                    }
                })
                .collect::<Result<_, _>>()?;
            let cg = g
                .oriented(trace, &orient)
                .ok_or(Rejected::CyclicOrientation)?;
            if !is_closed(cycle) {
                return Err(Rejected::NotClosed);
            }
            for (i, e) in cycle.iter().enumerate() {
                if !cg.edges().iter().any(|f| f == e) {
                    return Err(Rejected::NotInOrientedGraph { edge: i });
                }
            }
            Ok(())
        }
        Witness::Sc { cycle } => {
            if !is_closed(cycle) {
                return Err(Rejected::NotClosed);
            }
            for (i, e) in cycle.iter().enumerate() {
                let (Step::Event(a), Step::Event(b)) = (e.src, e.dst) else {
                    return Err(Rejected::NotEvents { edge: i });
                };
                if a >= b || conflict::sc_conflict(trace, a, b) != Some(e.rule) {
                    return Err(Rejected::NotScConflict { edge: i });
                }
                if trace.events[a].txn.index() != e.from
                    || trace.events[b].txn.index() != e.to
                    || e.from == e.to
                {
                    return Err(Rejected::WrongTransactions { edge: i });
                }
            }
            Ok(())
        }
    }
}
