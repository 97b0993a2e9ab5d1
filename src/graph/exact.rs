//! The exact event graph of a trace (docs/semantics.md §5): the trace as one directed chain,
//! a commit node per write with directed edges `w → c(w)`, `c(w) → ` the thread's next
//! fence/rmw, FIFO between a thread's commits; and undirected exactly the pairs whose
//! order varies between executions and can matter to Eq. (1):
//! - a commit and an event of another thread on its variable inside its window
//!   (reads and rmws conflict with it; write issues decide the parallel exception);
//! - a commit and a read of its own thread that it may buffer (decides reading from the buffer);
//! - two commits of one variable by different threads whose windows meet.
//!
//! Acyclic orientations are exactly the executions up to the order of unrelated pairs
//! (a topological sort is an execution), so no acyclicity side condition is lost.
//! Size: O(n) directed edges (implicit), undirected pairs output-sensitive.

use super::forced::{commit_times, forced_graph};
use super::ConflictGraph;
use crate::trace::exec::{Execution, Node, Step};
use crate::trace::ThreadId;
use crate::trace::TiVec;
use crate::trace::VarId;
use crate::trace::{EventId, Op, Trace};

/// The exact event graph of a trace.
#[derive(Clone, Debug)]
pub struct ExactGraph {
    /// The writes, each with a commit node.
    pub commits: Vec<EventId>,
    /// Pairs (commit of write `w`, other node) whose order varies; each once.
    pub undirected: Vec<(EventId, Node)>,
    /// Conflicts every execution has (see [`super::forced`]).
    pub forced: ConflictGraph,
    events: usize,
    directed: usize,
}

impl ExactGraph {
    pub fn new(trace: &Trace) -> ExactGraph {
        let n = trace.len();
        let commits: Vec<EventId> = trace.writes().collect();
        // Events per variable, in trace order.
        let mut by_var: TiVec<VarId, Vec<EventId>> = trace.per_var(Vec::new());
        for (i, e) in trace.events.iter().enumerate() {
            if let Some(x) = e.var {
                by_var[x].push(i);
            }
        }
        let mut undirected = Vec::new();
        let mut by_var_commits: TiVec<VarId, Vec<EventId>> = trace.per_var(Vec::new());
        for &w in &commits {
            let we = &trace.events[w];
            let x = we.var.unwrap();
            by_var_commits[x].push(w);
            let h = trace.commit_bound(w);
            // Events strictly inside the window: positions w+1 ..= h-1.
            let list = &by_var[x];
            let from = list.partition_point(|&p| p <= w);
            for &p in list[from..].iter().take_while(|&&p| p < h) {
                let e = &trace.events[p];
                let relevant = if e.thread != we.thread {
                    true
                } else {
                    e.op == Op::Rd && trace.buffered_by(p) == Some(w)
                };
                if relevant {
                    undirected.push((w, Step::Event(p)));
                }
            }
        }
        // Commit pairs of one variable, other threads, windows meeting (sorted by start).
        for list in &by_var_commits {
            for (i, &w1) in list.iter().enumerate() {
                let (_, late1) = commit_times(trace, w1);
                for &w2 in &list[i + 1..] {
                    let (early2, _) = commit_times(trace, w2);
                    if early2 > late1 {
                        break;
                    }
                    if trace.events[w1].thread != trace.events[w2].thread {
                        undirected.push((w1, Step::Commit(w2)));
                    }
                }
            }
        }
        let drains = commits
            .iter()
            .filter(|&&w| trace.commit_bound(w) < n)
            .count();
        let fifo = commits.len() - {
            let mut ts: Vec<ThreadId> = commits.iter().map(|&w| trace.events[w].thread).collect();
            ts.sort_unstable();
            ts.dedup();
            ts.len()
        };
        ExactGraph {
            directed: n.saturating_sub(1) + commits.len() + drains + fifo,
            commits,
            undirected,
            forced: forced_graph(trace),
            events: n,
        }
    }

    /// Number of nodes: events plus commits.
    pub fn node_count(&self) -> usize {
        self.events + self.commits.len()
    }

    /// Number of directed edges (chain, `w → c(w)`, commit → fence/rmw, FIFO).
    pub fn directed_count(&self) -> usize {
        self.directed
    }

    /// The directed edges, for drawing: (from, to).
    pub fn directed_edges<'a>(
        &'a self,
        trace: &'a Trace,
    ) -> impl Iterator<Item = (Node, Node)> + 'a {
        let chain = (1..self.events).map(|i| (Step::Event(i - 1), Step::Event(i)));
        let mut last: std::collections::HashMap<ThreadId, EventId> = Default::default();
        let mut fifo = Vec::new();
        for &w in &self.commits {
            if let Some(prev) = last.insert(trace.events[w].thread, w) {
                fifo.push((Step::Commit(prev), Step::Commit(w)));
            }
        }
        let commit = self.commits.iter().flat_map(move |&w| {
            let h = trace.commit_bound(w);
            std::iter::once((Step::Event(w), Step::Commit(w)))
                .chain((h < self.events).then_some((Step::Commit(w), Step::Event(h))))
        });
        chain.chain(commit).chain(fifo)
    }

    /// Calls `f` with the execution of every acyclic orientation of the undirected
    /// pairs (a topological sort of it); stops when `f` returns false or after `limit`
    /// orientations (returns false if the limit cut the enumeration). Exponential:
    /// for tests and small traces.
    pub fn for_each_orientation(
        &self,
        trace: &Trace,
        limit: u64,
        mut f: impl FnMut(&Execution) -> bool,
    ) -> bool {
        let u = self.undirected.len();
        if u >= 63 || (1u64 << u) > limit {
            return false;
        }
        let index = |n: Node| match n {
            Step::Event(e) => e,
            Step::Commit(w) => self.events + self.commits.binary_search(&w).unwrap(),
        };
        let nodes = self.node_count();
        let base: Vec<(usize, usize)> = self
            .directed_edges(trace)
            .map(|(a, b)| (index(a), index(b)))
            .collect();
        for mask in 0..(1u64 << u) {
            let mut adj: Vec<Vec<usize>> = vec![Vec::new(); nodes];
            let mut indeg = vec![0usize; nodes];
            let mut add = |a: usize, b: usize, adj: &mut Vec<Vec<usize>>| {
                adj[a].push(b);
                indeg[b] += 1;
            };
            for &(a, b) in &base {
                add(a, b, &mut adj);
            }
            for (k, &(w, other)) in self.undirected.iter().enumerate() {
                let (c, o) = (index(Step::Commit(w)), index(other));
                if mask >> k & 1 == 1 {
                    add(c, o, &mut adj);
                } else {
                    add(o, c, &mut adj);
                }
            }
            // Kahn; prefer trace events so the sort is deterministic.
            let mut ready: std::collections::BTreeSet<usize> =
                (0..nodes).filter(|&v| indeg[v] == 0).collect();
            let mut order = Vec::with_capacity(nodes);
            while let Some(v) = ready.pop_first() {
                order.push(v);
                for &s in &adj[v] {
                    indeg[s] -= 1;
                    if indeg[s] == 0 {
                        ready.insert(s);
                    }
                }
            }
            if order.len() < nodes {
                continue; // cyclic orientation: no execution
            }
            let steps = order
                .into_iter()
                .map(|v| {
                    if v < self.events {
                        Step::Event(v)
                    } else {
                        Step::Commit(self.commits[v - self.events])
                    }
                })
                .collect();
            let exec = Execution::new(trace, steps)
                .expect("a topological sort of the exact graph is an execution");
            if !f(&exec) {
                return true;
            }
        }
        true
    }
}
