//! `--algo brute`: the definition itself. Exact mode enumerates Execs(τ)
//! (docs/semantics.md §2) and checks each conflict graph (§3–§4); paper mode enumerates
//! the orientations of EG_τ (Def. 4, Thm. 5).
//!
//! Exact enumeration is a depth-first search over execution prefixes with:
//! - the conflict graph kept incrementally (edges only grow along a prefix, so a
//!   cycle in a prefix is a violation of every completion: early exit);
//! - forced edges (same-thread and always-ordered conflicts) added up front: a cycle
//!   among them needs no search;
//! - a root bound: if even every possible conflict in both directions leaves the
//!   transaction graph acyclic, the trace is serializable;
//! - sleep sets (Godefroid) over an independence relation under which swapping two
//!   adjacent steps keeps both the execution valid and its conflict graph: two
//!   commits of different threads and variables; a commit and a trace event that
//!   neither touches its variable nor is a fence/rmw of its thread. Each class of
//!   equivalent executions is then visited once.

use super::conflict::{access, conflict_by, thread, txn, Access};
use super::{Verdict, Witness};
use crate::graph::paper::PaperGraph;
use crate::graph::Edge;
use crate::trace::exec::{Execution, Node, Step};
use crate::trace::{EventId, Op, Trace};
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
    stats: BruteStats,
    graph: IncGraph,
    steps: Vec<Step>,
    next: EventId,
    pending: Vec<VecDeque<EventId>>,
    event_pos: Vec<usize>,
    commit_pos: Vec<usize>,
    /// Placed reads and memory writes per variable.
    placed: Vec<Vec<Node>>,
}

enum Found {
    Cycle(Vec<Edge>),
    Budget,
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
        let (kind, var) = access(self.trace, s);
        let (Access::Read | Access::MemWrite, Some(x)) = (kind, var) else {
            return None;
        };
        let t = thread(self.trace, s);
        let before = |a: Node, b: Node| self.pos(a) < self.pos(b);
        let mut new_edges = Vec::new();
        for &q in &self.placed[x] {
            if thread(self.trace, q) == t {
                continue;
            }
            if let Some(rule) = conflict_by(self.trace, q, s, &before) {
                new_edges.push(Edge {
                    from: txn(self.trace, q),
                    to: txn(self.trace, s),
                    src: q,
                    dst: s,
                    rule,
                });
            }
        }
        self.placed[x].push(s);
        for e in new_edges {
            if let Some(c) = self.graph.add(e) {
                return Some(c);
            }
        }
        None
    }

    fn unplace(&mut self, s: Step, mark: usize) {
        self.graph.undo_to(mark);
        self.steps.pop();
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

/// Decides docs/semantics.md §4 by enumerating executions, visiting at most `max` prefixes.
pub fn check_exact(trace: &Trace, max: u64) -> (Verdict, BruteStats) {
    let mut stats = BruteStats::default();
    let forced = crate::graph::forced::forced_graph(trace);
    stats.forced_edges = forced.edges().len() as u64;
    if let Some(cycle) = forced.find_cycle() {
        stats.decided_by_forced = true;
        let execution = Execution::sc(trace);
        return (
            Verdict::Violation(Box::new(Witness::Execution { execution, cycle })),
            stats,
        );
    }
    let pairs = super::sat::encode::varying_pairs(trace);
    if !super::sat::encode::possible_graph(trace, &forced, &pairs).is_cyclic() {
        stats.decided_by_bound = true;
        return (Verdict::Serializable, stats);
    }
    let mut graph = IncGraph::new(trace.txns.len());
    for &e in forced.edges() {
        graph.add(e);
    }
    let mut s = Search {
        trace,
        max,
        stats,
        graph,
        steps: Vec::new(),
        next: 0,
        pending: vec![VecDeque::new(); trace.threads.len()],
        event_pos: vec![usize::MAX; trace.len()],
        commit_pos: vec![usize::MAX; trace.len()],
        placed: vec![Vec::new(); trace.vars.len()],
    };
    let verdict = match s.dfs(Vec::new()) {
        Ok(()) => Verdict::Serializable,
        Err(Found::Budget) => Verdict::Unknown {
            reason: format!(
                "brute force visited {max} execution prefixes (--max-executions) without an answer"
            ),
        },
        Err(Found::Cycle(cycle)) => {
            let execution = Execution::complete(trace, &s.steps);
            Verdict::Violation(Box::new(Witness::Execution { execution, cycle }))
        }
    };
    (verdict, s.stats)
}

/// Decides the paper's Thm. 5 on its Def. 4 graph by enumerating orientations of the
/// undirected edges, checking at most `max` of them.
pub fn check_paper(trace: &Trace, max: u64) -> (Verdict, BruteStats) {
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
            Verdict::Unknown {
                reason: format!(
                    "{u} undirected edges: 2^{u} orientations exceed --max-executions {max}"
                ),
            },
            stats,
        );
    }
    for mask in 0..(1u64 << u) {
        stats.visited += 1;
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
