//! SC-serializability (Papadimitriou; docs/semantics.md §6): the trace read as an SC
//! execution, conflicts ⊙SC, acyclic conflict graph. One pass, O(n): per thread an
//! edge between consecutive transactions; per variable the last write and the reads
//! since it (a reachability-preserving subset of ⊙SC).

use super::{Verdict, Witness};
use crate::graph::ConflictGraph;
use crate::trace::conflict::Rule;
use crate::trace::exec::Step;
use crate::trace::TiVec;
use crate::trace::{Op, Trace};
use crate::trace::{ThreadId, VarId};

/// The ⊙SC conflict graph of the trace read as an SC execution.
pub fn sc_graph(trace: &Trace) -> ConflictGraph {
    sc_graph_upto(trace, trace.len())
}

/// The ⊙SC conflict graph of the first `n` events (the nodes are all transactions).
pub fn sc_graph_upto(trace: &Trace, n: usize) -> ConflictGraph {
    let mut g = ConflictGraph::new(trace.txns.len());
    let mut last_of_thread: TiVec<ThreadId, Option<usize>> = trace.per_thread(None);
    let mut last_write: TiVec<VarId, Option<usize>> = trace.per_var(None);
    let mut reads: TiVec<VarId, Vec<usize>> = trace.per_var(Vec::new());
    let ev = |e: usize| Step::Event(e);
    for (i, e) in trace.events.iter().enumerate().take(n) {
        if let Some(p) = last_of_thread[e.thread].replace(i) {
            if trace.events[p].txn != e.txn {
                g.add(
                    trace.events[p].txn,
                    e.txn,
                    ev(p),
                    ev(i),
                    Rule::ScProgramOrder,
                );
            }
        }
        let Some(x) = e.var else { continue };
        let thread_of = |a: usize| trace.events[a].thread;
        // An rmw's read part is covered by its write part (⊙SC write-write).
        if e.op == Op::Rd {
            if let Some(w) = last_write[x].filter(|&w| thread_of(w) != e.thread) {
                g.add(trace.events[w].txn, e.txn, ev(w), ev(i), Rule::ScWriteRead);
            }
        }
        if matches!(e.op, Op::Wr | Op::Rmw) {
            for r in reads[x].drain(..) {
                if thread_of(r) != e.thread {
                    g.add(trace.events[r].txn, e.txn, ev(r), ev(i), Rule::ScReadWrite);
                }
            }
            if let Some(w) = last_write[x].filter(|&w| thread_of(w) != e.thread) {
                g.add(trace.events[w].txn, e.txn, ev(w), ev(i), Rule::ScWriteWrite);
            }
            last_write[x] = Some(i);
        } else {
            reads[x].push(i);
        }
    }
    g
}

/// Decides SC-serializability of the trace read as an SC execution.
pub fn check_sc(trace: &Trace) -> Verdict {
    match sc_graph(trace).find_cycle() {
        None => Verdict::Serializable,
        Some(cycle) => Verdict::Violation(Box::new(Witness::Sc { cycle })),
    }
}
