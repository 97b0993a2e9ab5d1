//! The paper's trace event graph EG_τ (Enea & Farzan, Def. 4) and its conflict graph
//! (Def. 5), taken literally. A write stands for its issue and its commit.
//!
//! `e →TSO e'` (directed) for `e` before `e'`: same thread, except (iii) `wr x` before
//! `rd y` and buffered `rd x` before `rd y` (x ≠ y); or other threads with
//! `e ⊙SC e'` and either fence-separated, or `e` a non-buffered read and `e'` a write.
//! `e ←TSO e'` (undirected): other threads, `e ⊙SC e'`, not directed.
//!
//! rmw is not in the paper. Here an rmw is a read and a write of its variable (for
//! ⊙SC) whose write reaches memory at once, and it drains its thread's buffer: it
//! separates like a fence, and as the earlier event it is ordered with every later
//! conflicting event. docs/semantics.md §5 shows this graph over-approximates: some acyclic
//! orientations match no execution.

use crate::graph::forced::same_thread_edges;
use crate::graph::ConflictGraph;
use crate::trace::conflict::Rule;
use crate::trace::exec::Step;
use crate::trace::TiVec;
use crate::trace::{EventId, Op, Trace};
use crate::trace::{ThreadId, VarId};

/// EG_τ: directed and undirected edges over trace events.
#[derive(Clone, Debug)]
pub struct PaperGraph {
    /// Directed edges, as a reachability-preserving subset (same-thread ones, and across
    /// threads only the latest fence-separated conflicting event per thread).
    pub directed: Vec<(EventId, EventId)>,
    /// Undirected edges `{a, b}` with `a` before `b` in the trace.
    pub undirected: Vec<(EventId, EventId)>,
    events: usize,
}

/// One thread's accesses of one variable: (thread, all positions, write/rmw positions).
type ThreadAccesses = (ThreadId, Vec<EventId>, Vec<EventId>);

fn writes(op: Op) -> bool {
    matches!(op, Op::Wr | Op::Rmw)
}

impl PaperGraph {
    pub fn new(trace: &Trace) -> PaperGraph {
        let mut directed = Vec::new();
        same_thread_edges(trace, |a, b| directed.push((a, b)));
        // Positions of each thread's fences and rmws.
        let mut drains: TiVec<ThreadId, Vec<usize>> = trace.per_thread(Vec::new());
        for (i, e) in trace.events.iter().enumerate() {
            if e.op.drains() {
                drains[e.thread].push(i);
            }
        }
        // Per variable and thread: positions of its accesses and of its writes (wr, rmw).
        let mut by_var: TiVec<VarId, Vec<ThreadAccesses>> = trace.per_var(Vec::new());
        for (i, e) in trace.events.iter().enumerate() {
            let Some(x) = e.var else { continue };
            let lists = &mut by_var[x];
            let k = match lists.iter().position(|l| l.0 == e.thread) {
                Some(k) => k,
                None => {
                    lists.push((e.thread, Vec::new(), Vec::new()));
                    lists.len() - 1
                }
            };
            lists[k].1.push(i);
            if writes(e.op) {
                lists[k].2.push(i);
            }
        }
        // For each later event b and each other thread t: events of t on b's variable
        // at or before t's last drain before b are fence-separated (directed; only the
        // latest ⊙SC one gets an edge, earlier ones reach it through t's chain); those
        // after it are directed (rmw first, or a non-buffered read before a write) or
        // undirected.
        let mut undirected = Vec::new();
        for (b, eb) in trace.events.iter().enumerate() {
            let Some(x) = eb.var else { continue };
            for (t, all, wrs) in &by_var[x] {
                if *t == eb.thread {
                    continue;
                }
                let d = &drains[*t];
                let last_drain = d[..d.partition_point(|&f| f < b)].last().copied();
                let fenced_end = last_drain.map_or(0, |l| all.partition_point(|&a| a <= l));
                let candidates = if writes(eb.op) {
                    &all[..fenced_end]
                } else {
                    let w_end = last_drain.map_or(0, |l| wrs.partition_point(|&a| a <= l));
                    &wrs[..w_end]
                };
                if let Some(&a) = candidates.last() {
                    directed.push((a, b));
                }
                for &a in all[fenced_end..].iter().take_while(|&&a| a < b) {
                    let ea = &trace.events[a];
                    if !(writes(ea.op) || writes(eb.op)) {
                        continue;
                    }
                    let forced = ea.op == Op::Rmw
                        || (ea.op == Op::Rd && !trace.is_buffered(a) && writes(eb.op));
                    if forced {
                        directed.push((a, b));
                    } else {
                        undirected.push((a, b));
                    }
                }
            }
        }
        undirected.sort_unstable();
        PaperGraph {
            directed,
            undirected,
            events: trace.len(),
        }
    }

    pub fn node_count(&self) -> usize {
        self.events
    }

    /// CG_τ restricted to directed edges (Def. 5, E').
    pub fn directed_conflicts(&self, trace: &Trace) -> ConflictGraph {
        let mut g = ConflictGraph::new(trace.txns.len());
        for &(a, b) in &self.directed {
            g.add(
                trace.events[a].txn.index(),
                trace.events[b].txn.index(),
                Step::Event(a),
                Step::Event(b),
                Rule::PaperDirected,
            );
        }
        g
    }

    /// For each undirected edge {a, b} (a before b), whether the directed edges already
    /// order a before b (then only a → b keeps an orientation acyclic). Directed edges
    /// point forward in the trace, so a search from a never passes b: cost per edge is
    /// bounded by the trace between its ends.
    pub fn ordered_undirected(&self) -> Vec<bool> {
        let mut adj: Vec<Vec<EventId>> = vec![Vec::new(); self.events];
        for &(a, b) in &self.directed {
            adj[a].push(b);
        }
        let mut stamp = vec![usize::MAX; self.events];
        let mut stack = Vec::new();
        self.undirected
            .iter()
            .enumerate()
            .map(|(k, &(a, b))| {
                stack.clear();
                stack.push(a);
                stamp[a] = k;
                while let Some(u) = stack.pop() {
                    for &v in &adj[u] {
                        if v == b {
                            return true;
                        }
                        if v < b && stamp[v] != k {
                            stamp[v] = k;
                            stack.push(v);
                        }
                    }
                }
                false
            })
            .collect()
    }

    /// CG_τ with every undirected edge taken both ways: contains the conflict graph of
    /// every orientation, so no cycle here means none anywhere.
    pub fn both_ways(&self, trace: &Trace) -> ConflictGraph {
        let mut g = self.directed_conflicts(trace);
        for &(a, b) in &self.undirected {
            let (ta, tb) = (trace.events[a].txn.index(), trace.events[b].txn.index());
            g.add(ta, tb, Step::Event(a), Step::Event(b), Rule::PaperOriented);
            g.add(tb, ta, Step::Event(b), Step::Event(a), Rule::PaperOriented);
        }
        g
    }

    /// The conflict graph induced by an orientation (`orient[k]` true: `a → b` for
    /// undirected edge `k = (a, b)`), or `None` when the orientation is cyclic (not valid).
    pub fn oriented(&self, trace: &Trace, orient: &[bool]) -> Option<ConflictGraph> {
        let edges: Vec<(EventId, EventId, Rule)> = self
            .directed
            .iter()
            .map(|&(a, b)| (a, b, Rule::PaperDirected))
            .chain(self.undirected.iter().zip(orient).map(|(&(a, b), &fwd)| {
                if fwd {
                    (a, b, Rule::PaperOriented)
                } else {
                    (b, a, Rule::PaperOriented)
                }
            }))
            .collect();
        // Acyclicity at the level of events (a valid orientation).
        let mut ev = ConflictGraph::new(self.events);
        for &(a, b, r) in &edges {
            ev.add(a, b, Step::Event(a), Step::Event(b), r);
        }
        if ev.is_cyclic() {
            return None;
        }
        let mut g = ConflictGraph::new(trace.txns.len());
        for (a, b, r) in edges {
            g.add(
                trace.events[a].txn.index(),
                trace.events[b].txn.index(),
                Step::Event(a),
                Step::Event(b),
                r,
            );
        }
        Some(g)
    }
}
