//! Checks of one explicit execution (polynomial): its TSO-serializability
//! (Theorem 1 with ⊙TSO) and its SC-equivalence by write-contraction (paper §4.2).

use crate::graph::forced::same_thread_graph;
use crate::graph::{ConflictGraph, Edge};
use crate::trace::conflict::{access, conflict, same_thread_conflict, thread, txn, Access, Rule};
use crate::trace::exec::{Execution, Node, Step};
use crate::trace::TiVec;
use crate::trace::Trace;
use crate::trace::{ThreadId, VarId};

/// Cross-thread conflicts of an execution (Eq. 1 (1) with exception (i)) as a
/// reachability-preserving subset, O(n·k·log n): per variable and other thread, the
/// latest conflicting memory write before a node and the first one after a read;
/// the others are reached through that thread's FIFO chain.
fn cross_thread_edges(trace: &Trace, exec: &Execution, mut f: impl FnMut(Node, Node, Rule)) {
    // Per variable, per thread: memory writes (commits, rmws) in execution order.
    let mut mw: TiVec<VarId, TiVec<ThreadId, Vec<(usize, Node)>>> =
        trace.per_var(trace.per_thread(Vec::new()));
    let mut threads_of: TiVec<VarId, Vec<ThreadId>> = trace.per_var(Vec::new());
    for (p, s) in exec.steps().enumerate() {
        if let (Access::MemWrite | Access::Read, Some(x)) = access(trace, s) {
            let t = thread(trace, s);
            if !threads_of[x].contains(&t) {
                threads_of[x].push(t);
            }
            if access(trace, s).0 == Access::MemWrite {
                mw[x][t].push((p, s));
            }
        }
    }
    for (p, s) in exec.steps().enumerate() {
        let (kind, Some(x)) = access(trace, s) else {
            continue;
        };
        let t = thread(trace, s);
        match kind {
            Access::MemWrite => {
                for &o in threads_of[x].iter().filter(|&&o| o != t) {
                    let list = &mw[x][o];
                    let i = list.partition_point(|&(q, _)| q < p);
                    if i > 0 {
                        f(list[i - 1].1, s, Rule::WriteWrite);
                    }
                }
            }
            Access::Read => {
                let Step::Event(r) = s else { unreachable!() };
                // Reading from the buffer (pending w): memory writes between w and c(w)
                // are parallel (i); before w they precede it, after c(w) they follow.
                let (before, after) = match trace.buffered_by(r) {
                    Some(w) if exec.reads_from_buffer(trace, r) => {
                        (exec.pos(Step::Event(w)), exec.commit_pos(w))
                    }
                    _ => (p, p),
                };
                for &o in threads_of[x].iter().filter(|&&o| o != t) {
                    let list = &mw[x][o];
                    let i = list.partition_point(|&(q, _)| q < before);
                    if i > 0 {
                        f(list[i - 1].1, s, Rule::WriteRead);
                    }
                    let j = list.partition_point(|&(q, _)| q <= after);
                    if j < list.len() {
                        f(s, list[j].1, Rule::ReadWrite);
                    }
                }
            }
            Access::None => {}
        }
    }
}

/// The TSO conflict graph of an execution over transactions (Defs. 1–2 with ⊙TSO).
pub fn tso_graph(trace: &Trace, exec: &Execution) -> ConflictGraph {
    let mut g = same_thread_graph(trace);
    cross_thread_edges(trace, exec, |a, b, r| {
        g.add(txn(trace, a), txn(trace, b), a, b, r)
    });
    g
}

/// The same graph from the definition, every pair of nodes: O(n²). The reference for tests.
pub fn tso_graph_naive(trace: &Trace, exec: &Execution) -> ConflictGraph {
    let mut g = ConflictGraph::new(trace.txns.len());
    let steps: Vec<Step> = exec.steps().collect();
    for (i, &a) in steps.iter().enumerate() {
        for &b in &steps[i + 1..] {
            if let Some(r) = conflict(trace, exec, a, b) {
                g.add(txn(trace, a), txn(trace, b), a, b, r);
            }
        }
    }
    g
}

/// A cycle of the execution's TSO conflict graph, or `None` if it is TSO-serializable.
pub fn tso_cycle(trace: &Trace, exec: &Execution) -> Option<Vec<Edge>> {
    tso_graph(trace, exec).find_cycle()
}

/// The write-contraction of an execution (paper §4.2): each write with its commit is one
/// unit (numbered by the write's event index), every other event a unit of its own;
/// conflicts are ⊙TSO-po (⊙TSO with program order kept between all trace events of a
/// thread). Acyclic iff the execution is SC-equivalent.
pub fn contraction_graph(trace: &Trace, exec: &Execution) -> ConflictGraph {
    let unit = |n: Node| n.event();
    let mut g = ConflictGraph::new(trace.len());
    let mut last: TiVec<ThreadId, Option<usize>> = trace.per_thread(None);
    for (i, e) in trace.events.iter().enumerate() {
        if let Some(p) = last[e.thread].replace(i) {
            g.add(p, i, Step::Event(p), Step::Event(i), Rule::ProgramOrder);
        }
    }
    cross_thread_edges(trace, exec, |a, b, r| g.add(unit(a), unit(b), a, b, r));
    g
}

/// A cycle of the write-contraction, or `None` if the execution is SC-equivalent.
pub fn sc_equivalence_cycle(trace: &Trace, exec: &Execution) -> Option<Vec<Edge>> {
    contraction_graph(trace, exec).find_cycle()
}

/// ⊙TSO-po for `a` before `b` (tests): ⊙TSO, with every same-thread pair of trace events conflicting.
pub fn tso_po_conflict(trace: &Trace, exec: &Execution, a: Node, b: Node) -> Option<Rule> {
    match (a, b) {
        (Step::Event(_), Step::Event(_)) if thread(trace, a) == thread(trace, b) => {
            Some(Rule::ProgramOrder)
        }
        _ if thread(trace, a) == thread(trace, b) => same_thread_conflict(trace, a, b),
        _ => conflict(trace, exec, a, b),
    }
}
