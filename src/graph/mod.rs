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

    /// The graph over `groups` with `edges` (self-edges dropped).
    pub fn from_edges(groups: usize, edges: impl IntoIterator<Item = Edge>) -> ConflictGraph {
        ConflictGraph {
            groups,
            edges: edges.into_iter().filter(|e| e.from != e.to).collect(),
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
        let scc = strong_components(self.groups, self.edges.iter())
            .into_iter()
            .next()?;
        let mut adj: Vec<Vec<usize>> = vec![Vec::new(); self.groups];
        for (i, e) in self.edges.iter().enumerate() {
            adj[e.from].push(i);
        }
        let mut comp = vec![false; self.groups];
        for &n in &scc {
            comp[n] = true;
        }
        let start = scc[0];
        // BFS from `start` inside the component until an edge returns to it.
        let mut via: Vec<Option<usize>> = vec![None; self.groups];
        let mut seen = vec![false; self.groups];
        seen[start] = true;
        let mut queue = std::collections::VecDeque::from([start]);
        while let Some(u) = queue.pop_front() {
            for &ei in &adj[u] {
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

/// The strongly connected components of more than one node of the graph over
/// `0..nodes` with `edges` (self-edges never make one), each sorted, in order of their
/// least node. One pass of Tarjan's algorithm (petgraph) over adjacency lists: no
/// reverse edges, unlike Kosaraju's two passes.
pub fn strong_components<'a>(
    nodes: usize,
    edges: impl Iterator<Item = &'a Edge>,
) -> Vec<Vec<usize>> {
    let mut g: petgraph::adj::List<(), u32> = petgraph::adj::List::with_capacity(nodes);
    for _ in 0..nodes {
        g.add_node();
    }
    for e in edges {
        if e.from != e.to {
            g.add_edge(e.from as u32, e.to as u32, ());
        }
    }
    let mut comps: Vec<Vec<usize>> = petgraph::algo::tarjan_scc(&g)
        .into_iter()
        .filter(|c| c.len() > 1)
        .map(|c| {
            let mut v: Vec<usize> = c.into_iter().map(|n| n as usize).collect();
            v.sort_unstable();
            v
        })
        .collect();
    comps.sort_unstable();
    comps
}

/// Checks that `cycle` is a closed walk: each edge starts where the previous ended.
pub fn is_closed(cycle: &[Edge]) -> bool {
    !cycle.is_empty()
        && cycle
            .iter()
            .zip(cycle.iter().cycle().skip(1))
            .all(|(a, b)| a.to == b.from)
}
