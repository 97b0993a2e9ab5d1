//! `--algo brute`: the definition itself. Exact mode enumerates Execs(τ)
//! (docs/semantics.md §2) and checks each conflict graph (§3–§4); paper mode enumerates
//! the orientations of EG_τ (Def. 4, Thm. 5).
//!
//! Exact enumeration is a depth-first search over execution prefixes with:
//! - the conflict graph kept incrementally (edges only grow along a prefix, so a
//!   cycle in a prefix is a violation of every completion: early exit);
//! - a root bound: if even every pair that could conflict (a same-thread pair in its
//!   fixed order, a cross-thread pair on one variable in both orders) leaves the
//!   transaction graph acyclic, the trace is serializable;
//! - sleep sets (Godefroid) over an independence relation under which swapping two
//!   adjacent steps keeps both the execution valid and its conflict graph: two
//!   commits of different threads and variables; a commit and a trace event that
//!   neither touches its variable nor is a fence/rmw of its thread. Each class of
//!   equivalent executions is then visited once.
//!
//! It depends on the definitions alone (the trace, executions, the conflict relation of
//! `trace::conflict`), never on the analysis the other deciders share: an oracle that
//! shared code with what it checks would weaken the conformance suite.

use super::{Unknown, Verdict, Witness};
use crate::graph::paper::PaperGraph;
use crate::graph::Edge;
use crate::stop::Stop;
use crate::trace::conflict::{access, conflict_by, same_thread_conflict, thread, txn, Access};
use crate::trace::exec::{Execution, Node, Step};
use crate::trace::{EventId, Op, Trace};
use crate::trace::{ThreadId, TiVec, VarId};
use std::collections::{HashMap, VecDeque};

/// Limits and counters of a brute-force run.
#[derive(Clone, Copy, Debug, Default, serde::Serialize)]
pub struct BruteStats {
    /// Search nodes (execution prefixes, or orientations in paper mode) visited.
    pub visited: u64,
    /// Complete executions (or valid orientations) checked.
    pub complete: u64,
    /// Branches skipped by sleep sets.
    pub slept: u64,
    /// Forced conflict edges added before the search.
    pub forced_edges: u64,
    /// Whether the forced edges alone decided.
    pub decided_by_forced: bool,
    /// Whether the root bound (all possible conflicts) decided.
    pub decided_by_bound: bool,
}

/// The default budget of search nodes.
pub const DEFAULT_MAX: u64 = 50_000_000;

/// A transaction graph with labelled edges that can grow and shrink in LIFO order.
struct IncGraph {
    adj: Vec<Vec<usize>>,
    label: HashMap<(usize, usize), (Edge, u32)>,
    undo: Vec<(usize, usize)>,
    stamp: Vec<u32>,
    parent: Vec<usize>,
    epoch: u32,
}

impl IncGraph {
    fn new(n: usize) -> IncGraph {
        IncGraph {
            adj: vec![Vec::new(); n],
            label: HashMap::new(),
            undo: Vec::new(),
            stamp: vec![0; n],
            parent: vec![0; n],
            epoch: 0,
        }
    }

    /// Adds `e`; returns the cycle it closes, if any.
    fn add(&mut self, e: Edge) -> Option<Vec<Edge>> {
        if e.from == e.to {
            return None;
        }
        let entry = self.label.entry((e.from, e.to)).or_insert((e, 0));
        entry.1 += 1;
        self.undo.push((e.from, e.to));
        if entry.1 > 1 {
            return None;
        }
        self.adj[e.from].push(e.to);
        self.path(e.to, e.from).map(|mut p| {
            p.push(e);
            p
        })
    }

    /// Undoes additions back to `mark` (a length of the undo log).
    fn undo_to(&mut self, mark: usize) {
        while self.undo.len() > mark {
            let key = self.undo.pop().unwrap();
            let entry = self.label.get_mut(&key).unwrap();
            entry.1 -= 1;
            if entry.1 == 0 {
                self.label.remove(&key);
                let popped = self.adj[key.0].pop();
                debug_assert_eq!(popped, Some(key.1));
            }
        }
    }

    /// A path of edges from `s` to `t`, if any.
    fn path(&mut self, s: usize, t: usize) -> Option<Vec<Edge>> {
        self.epoch += 1;
        let ep = self.epoch;
        self.stamp[s] = ep;
        let mut stack = vec![s];
        while let Some(u) = stack.pop() {
            if u == t {
                let mut p = Vec::new();
                let mut v = t;
                while v != s {
                    let u = self.parent[v];
                    p.push(self.label[&(u, v)].0);
                    v = u;
                }
                p.reverse();
                return Some(p);
            }
            for &v in &self.adj[u] {
                if self.stamp[v] != ep {
                    self.stamp[v] = ep;
                    self.parent[v] = u;
                    stack.push(v);
                }
            }
        }
        None
    }
}

struct Search<'a> {
    trace: &'a Trace,
    max: u64,
    /// Polled every 1,024 nodes: the budget's deadline or cancellation.
    stop: &'a Stop,
    stats: BruteStats,
    graph: IncGraph,
    steps: Vec<Step>,
    next: EventId,
    pending: TiVec<ThreadId, VecDeque<EventId>>,
    event_pos: Vec<usize>,
    commit_pos: Vec<usize>,
    /// Placed reads and memory writes per variable.
    placed: TiVec<VarId, Vec<Node>>,
    /// Placed steps per thread (same-thread conflicts, Eq. 1 (2)).
    mine: TiVec<ThreadId, Vec<Node>>,
}

enum Found {
    Cycle(Vec<Edge>),
    Budget,
    Stopped,
}

impl Search<'_> {
    fn pos(&self, n: Node) -> usize {
        match n {
            Step::Event(e) => self.event_pos[e],
            Step::Commit(w) => self.commit_pos[w],
        }
    }

    fn independent(&self, a: Step, b: Step) -> bool {
        let ev = |e: EventId| &self.trace.events[e];
        match (a, b) {
            (Step::Event(_), Step::Event(_)) => false,
            (Step::Commit(c1), Step::Commit(c2)) => {
                ev(c1).thread != ev(c2).thread && ev(c1).var != ev(c2).var
            }
            (Step::Commit(c), Step::Event(e)) | (Step::Event(e), Step::Commit(c)) => {
                ev(e).var != ev(c).var && !(ev(e).thread == ev(c).thread && ev(e).op.drains())
            }
        }
    }

    fn enabled(&self) -> Vec<Step> {
        let mut out = Vec::new();
        if self.next < self.trace.len() {
            let e = &self.trace.events[self.next];
            if !e.op.drains() || self.pending[e.thread].is_empty() {
                out.push(Step::Event(self.next));
            }
        }
        for q in &self.pending {
            if let Some(&w) = q.front() {
                out.push(Step::Commit(w));
            }
        }
        out
    }

    /// Places a step; returns a cycle if its new conflicts close one.
    fn place(&mut self, s: Step) -> Option<Vec<Edge>> {
        let p = self.steps.len();
        self.steps.push(s);
        match s {
            Step::Event(e) => {
                self.event_pos[e] = p;
                self.next = e + 1;
                if self.trace.events[e].op == Op::Wr {
                    self.pending[self.trace.events[e].thread].push_back(e);
                }
            }
            Step::Commit(w) => {
                self.commit_pos[w] = p;
                self.pending[self.trace.events[w].thread].pop_front();
            }
        }
        let t = thread(self.trace, s);
        let mut new_edges = Vec::new();
        // Same thread: every earlier step of the thread, by Eq. 1 (2).
        for &q in &self.mine[t] {
            if txn(self.trace, q) != txn(self.trace, s) {
                if let Some(rule) = same_thread_conflict(self.trace, q, s) {
                    new_edges.push(Edge {
                        from: txn(self.trace, q).index(),
                        to: txn(self.trace, s).index(),
                        src: q,
                        dst: s,
                        rule,
                    });
                }
            }
        }
        self.mine[t].push(s);
        let (kind, var) = access(self.trace, s);
        let (Access::Read | Access::MemWrite, Some(x)) = (kind, var) else {
            return self.add_all(new_edges);
        };
        let before = |a: Node, b: Node| self.pos(a) < self.pos(b);
        for &q in &self.placed[x] {
            if thread(self.trace, q) == t {
                continue;
            }
            if let Some(rule) = conflict_by(self.trace, q, s, &before) {
                new_edges.push(Edge {
                    from: txn(self.trace, q).index(),
                    to: txn(self.trace, s).index(),
                    src: q,
                    dst: s,
                    rule,
                });
            }
        }
        self.placed[x].push(s);
        self.add_all(new_edges)
    }

    fn add_all(&mut self, edges: Vec<Edge>) -> Option<Vec<Edge>> {
        for e in edges {
            if let Some(c) = self.graph.add(e) {
                return Some(c);
            }
        }
        None
    }

    fn unplace(&mut self, s: Step, mark: usize) {
        self.graph.undo_to(mark);
        self.steps.pop();
        self.mine[thread(self.trace, s)].pop();
        if let (Access::Read | Access::MemWrite, Some(x)) = access(self.trace, s) {
            self.placed[x].pop();
        }
        match s {
            Step::Event(e) => {
                self.event_pos[e] = usize::MAX;
                self.next = e;
                if self.trace.events[e].op == Op::Wr {
                    self.pending[self.trace.events[e].thread].pop_back();
                }
            }
            Step::Commit(w) => {
                self.commit_pos[w] = usize::MAX;
                self.pending[self.trace.events[w].thread].push_front(w);
            }
        }
    }

    fn dfs(&mut self, sleep: Vec<Step>) -> Result<(), Found> {
        self.stats.visited += 1;
        if self.stats.visited > self.max {
            return Err(Found::Budget);
        }
        if self.stats.visited.is_multiple_of(1024) && self.stop.expired() {
            return Err(Found::Stopped);
        }
        let enabled = self.enabled();
        if enabled.is_empty() {
            self.stats.complete += 1;
            return Ok(());
        }
        let mut done: Vec<Step> = Vec::new();
        for a in enabled {
            if sleep.contains(&a) {
                self.stats.slept += 1;
                continue;
            }
            let child_sleep: Vec<Step> = sleep
                .iter()
                .chain(done.iter())
                .copied()
                .filter(|&b| self.independent(a, b))
                .collect();
            let mark = self.graph.undo.len();
            if let Some(c) = self.place(a) {
                return Err(Found::Cycle(c));
            }
            self.dfs(child_sleep)?;
            self.unplace(a, mark);
            done.push(a);
        }
        Ok(())
    }
}

/// Traces with more nodes than this skip the root bound (it is quadratic).
const BOUND_MAX_NODES: usize = 4096;

/// The root bound: whether the transaction graph of every pair that could conflict in
/// some execution has a cycle. Same-thread pairs conflict in their fixed order (events
/// in trace order; a commit after its own write and before the thread's later fences
/// and rmws; commits in FIFO order); cross-thread pairs on one variable, not both
/// reads, in either order. Every execution's conflict graph is a subgraph. `true`
/// (no shortcut) for traces past [`BOUND_MAX_NODES`].
fn possible_cycle(trace: &Trace) -> bool {
    let mut nodes: Vec<Node> = (0..trace.len()).map(Step::Event).collect();
    nodes.extend(trace.writes().map(Step::Commit));
    if nodes.len() > BOUND_MAX_NODES {
        return true;
    }
    // Same-thread order: a commit sits after its write and every earlier event.
    let key = |n: Node| match n {
        Step::Event(e) => (e, 0),
        Step::Commit(w) => (w, 1),
    };
    let mut g = crate::graph::ConflictGraph::new(trace.txns.len());
    for (i, &a) in nodes.iter().enumerate() {
        for &b in &nodes[i + 1..] {
            if txn(trace, a) == txn(trace, b) {
                continue;
            }
            if thread(trace, a) == thread(trace, b) {
                // Commit vs a later non-draining event: no conflict in either order
                // (exception (ii)); otherwise the order is fixed.
                let (x, y) = if key(a) < key(b) { (a, b) } else { (b, a) };
                let (x, y) = match (x, y) {
                    (Step::Event(e), Step::Commit(w)) if e > w => (y, x),
                    _ => (x, y),
                };
                if let Some(rule) = same_thread_conflict(trace, x, y) {
                    g.add(txn(trace, x), txn(trace, y), x, y, rule);
                }
                continue;
            }
            let ((ka, va), (kb, vb)) = (access(trace, a), access(trace, b));
            let relevant = |k: Access| matches!(k, Access::Read | Access::MemWrite);
            if va.is_some()
                && va == vb
                && relevant(ka)
                && relevant(kb)
                && (ka, kb) != (Access::Read, Access::Read)
            {
                let rule = crate::trace::conflict::Rule::WriteWrite;
                g.add(txn(trace, a), txn(trace, b), a, b, rule);
                g.add(txn(trace, b), txn(trace, a), b, a, rule);
            }
        }
    }
    g.is_cyclic()
}

/// Decides docs/semantics.md §4 by enumerating executions, visiting at most `max`
/// prefixes; *unknown* once `stop` (polled as it goes) expires.
pub fn check_exact(trace: &Trace, max: u64, stop: &Stop) -> (Verdict, BruteStats) {
    let mut stats = BruteStats::default();
    if !possible_cycle(trace) {
        stats.decided_by_bound = true;
        return (Verdict::Serializable, stats);
    }
    let graph = IncGraph::new(trace.txns.len());
    let mut s = Search {
        trace,
        max,
        stop,
        stats,
        graph,
        steps: Vec::new(),
        next: 0,
        pending: trace.per_thread(VecDeque::new()),
        event_pos: vec![usize::MAX; trace.len()],
        commit_pos: vec![usize::MAX; trace.len()],
        placed: trace.per_var(Vec::new()),
        mine: trace.per_thread(Vec::new()),
    };
    let verdict = match s.dfs(Vec::new()) {
        Ok(()) => Verdict::Serializable,
        Err(Found::Budget) => Verdict::Unknown(Unknown::MaxExecutions { max }),
        Err(Found::Stopped) => Verdict::Unknown(Unknown::Deadline),
        Err(Found::Cycle(cycle)) => {
            let execution = Execution::complete(trace, &s.steps);
            Verdict::Violation(Box::new(Witness::Execution { execution, cycle }))
        }
    };
    (verdict, s.stats)
}

/// Decides the paper's Thm. 5 on its Def. 4 graph by enumerating orientations of the
/// undirected edges, checking at most `max` of them; *unknown* once `stop` (polled as
/// it goes) expires.
pub fn check_paper(trace: &Trace, max: u64, stop: &Stop) -> (Verdict, BruteStats) {
    let mut stats = BruteStats::default();
    let g = PaperGraph::new(trace);
    let forward = |g: &PaperGraph| g.undirected.clone();
    let directed = g.directed_conflicts(trace);
    stats.forced_edges = directed.edges().len() as u64;
    // Directed edges go forward in the trace, so orienting every undirected edge
    // forward too is a valid orientation.
    if let Some(cycle) = directed.find_cycle() {
        stats.decided_by_forced = true;
        let oriented = forward(&g);
        return (
            Verdict::Violation(Box::new(Witness::Orientation { oriented, cycle })),
            stats,
        );
    }
    let both = g.both_ways(trace);
    if !both.is_cyclic() {
        stats.decided_by_bound = true;
        return (Verdict::Serializable, stats);
    }
    let u = g.undirected.len();
    if u >= 64 || (1u128 << u) > max as u128 {
        return (
            Verdict::Unknown(Unknown::Orientations { undirected: u, max }),
            stats,
        );
    }
    for mask in 0..(1u64 << u) {
        stats.visited += 1;
        if mask % 1024 == 1023 && stop.expired() {
            return (Verdict::Unknown(Unknown::Deadline), stats);
        }
        let orient: Vec<bool> = (0..u).map(|k| mask >> k & 1 == 0).collect();
        let Some(cg) = g.oriented(trace, &orient) else {
            continue;
        };
        stats.complete += 1;
        if let Some(cycle) = cg.find_cycle() {
            let oriented = g
                .undirected
                .iter()
                .zip(&orient)
                .map(|(&(a, b), &fwd)| if fwd { (a, b) } else { (b, a) })
                .collect();
            return (
                Verdict::Violation(Box::new(Witness::Orientation { oriented, cycle })),
                stats,
            );
        }
    }
    (Verdict::Serializable, stats)
}
