//! Conflict graphs over transactions (Def. 2) with labelled edges, cycle search,
//! and the two event graphs of a trace: the paper's (Def. 4) and the exact one
//! (docs/semantics.md §5).

pub mod dot;
pub mod exact;
pub mod forced;
pub mod paper;
pub mod path;

use crate::trace::conflict::Rule;
use crate::trace::exec::Node;
use petgraph::graph::{DiGraph, NodeIndex};
use serde::Serialize;

/// One conflict edge between two groups (transactions), with the two nodes behind it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Edge {
    pub from: usize,
    pub to: usize,
    pub src: Node,
    pub dst: Node,
    pub rule: Rule,
}

/// A directed graph over groups (transactions, or contraction units) whose edges
/// remember the nodes that cause them. Self-edges are dropped on insertion.
#[derive(Clone, Debug, Default)]
pub struct ConflictGraph {
    groups: usize,
    edges: Vec<Edge>,
}

impl ConflictGraph {
    pub fn new(groups: usize) -> ConflictGraph {
        ConflictGraph {
            groups,
            edges: Vec::new(),
        }
    }

    /// Adds edge `from → to` caused by `src → dst` (ignored when `from == to`).
    pub fn add(
        &mut self,
        from: impl Into<usize>,
        to: impl Into<usize>,
        src: Node,
        dst: Node,
        rule: Rule,
    ) {
        let (from, to) = (from.into(), to.into());
        if from != to {
            self.edges.push(Edge {
                from,
                to,
                src,
                dst,
                rule,
            });
        }
    }

    pub fn edges(&self) -> &[Edge] {
        &self.edges
    }

    pub fn group_count(&self) -> usize {
        self.groups
    }

    /// A shortest cycle through some node of a non-trivial strongly connected
    /// component (Kosaraju: iterative, so a chain of 10⁵ transactions does not overflow the
    /// stack as recursive Tarjan did), or `None` when the graph is acyclic (Theorem 1).
    pub fn find_cycle(&self) -> Option<Vec<Edge>> {
        let mut g: DiGraph<(), usize, u32> = DiGraph::with_capacity(self.groups, self.edges.len());
        for _ in 0..self.groups {
            g.add_node(());
        }
        for (i, e) in self.edges.iter().enumerate() {
            g.add_edge(NodeIndex::new(e.from), NodeIndex::new(e.to), i);
        }
        let scc = petgraph::algo::kosaraju_scc(&g)
            .into_iter()
            .find(|c| c.len() > 1)?;
        let mut comp = vec![false; self.groups];
        for n in &scc {
            comp[n.index()] = true;
        }
        let start = scc.iter().map(|n| n.index()).min().unwrap();
        // BFS from `start` inside the component until an edge returns to it.
        let mut via: Vec<Option<usize>> = vec![None; self.groups];
        let mut seen = vec![false; self.groups];
        seen[start] = true;
        let mut queue = std::collections::VecDeque::from([start]);
        while let Some(u) = queue.pop_front() {
            let mut outs: Vec<_> = g.edges(NodeIndex::new(u)).map(|er| *er.weight()).collect();
            outs.sort_unstable();
            for ei in outs {
                let e = &self.edges[ei];
                if !comp[e.to] {
                    continue;
                }
                if e.to == start {
                    let mut cycle = vec![*e];
                    let mut at = u;
                    while at != start {
                        let back = self.edges[via[at].unwrap()];
                        cycle.push(back);
                        at = back.from;
                    }
                    cycle.reverse();
                    return Some(cycle);
                }
                if !seen[e.to] {
                    seen[e.to] = true;
                    via[e.to] = Some(ei);
                    queue.push_back(e.to);
                }
            }
        }
        unreachable!("a strongly connected component with two nodes has a cycle")
    }

    /// Whether the graph has a cycle.
    pub fn is_cyclic(&self) -> bool {
        self.find_cycle().is_some()
    }
}

/// Checks that `cycle` is a closed walk: each edge starts where the previous ended.
pub fn is_closed(cycle: &[Edge]) -> bool {
    !cycle.is_empty()
        && cycle
            .iter()
            .zip(cycle.iter().cycle().skip(1))
            .all(|(a, b)| a.to == b.from)
}
