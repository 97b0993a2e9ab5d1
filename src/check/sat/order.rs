//! The order atoms as a graph the solver builds while it assigns them: the exact event
//! graph (docs/semantics.md §5) restricted to the events and commits the atoms name —
//! the trace order among those events, `w → c(w)`, `c(w) → h(w)`, FIFO between a
//! thread's commits — plus one edge per assigned atom (`c(w) ≺ p` true: `c(w) → p`,
//! false: `p → c(w)`; likewise for two commits). An assignment that closes a cycle
//! gives the clause "not all of these atoms": every such clause holds in every
//! execution, so adding it during search (CaDiCaL's external propagator) is sound
//! whatever the solver does next. It replaces the lazy cuts of the solve–block loop
//! (the loop stays for what the restricted graph does not see, and re-checks every
//! model on the whole graph before it becomes a witness).
//!
//! The restriction loses no cycle among the atoms: a path through an event that no atom
//! names is a path along the trace order; one through a commit no atom names enters it
//! from its write or an earlier commit of its thread and leaves to a later commit of
//! the thread or its bound h(w) — both already ordered by the kept FIFO and bound edges.

use super::encode::{Atom, Formula, Lit};
use crate::trace::{EventId, ThreadId, Trace};
use std::collections::HashMap;

/// A node: an event or a commit of the restricted graph.
type Node = u32;

/// The order graph of one formula, with a trail for backtracking.
#[derive(Clone, Debug)]
pub struct OrderGraph {
    /// Out-edges with the literal that put them there (0: fixed).
    adj: Vec<Vec<(Node, Lit)>>,
    /// For each atom variable: the edge its positive literal adds (the negative adds
    /// the reverse).
    atom_edge: HashMap<Lit, (Node, Node)>,
    /// Source node of each atom edge added, in order.
    trail: Vec<Node>,
    /// Trail length at the start of each decision level above 0.
    levels: Vec<usize>,
    /// Depth-first search scratch: visit stamps and the edge each node was reached by.
    seen: Vec<u32>,
    stamp: u32,
    via: Vec<(Node, Lit)>,
    stack: Vec<Node>,
}

impl OrderGraph {
    /// The graph of `f`'s order atoms over `trace`, with no atom assigned.
    pub fn new(trace: &Trace, f: &Formula) -> OrderGraph {
        let mut events: Vec<EventId> = Vec::new();
        let mut commits: Vec<EventId> = Vec::new();
        for a in f.atoms.keys() {
            match *a {
                Atom::CommitBeforeEvent(w, p) => {
                    commits.push(w);
                    events.push(p);
                }
                Atom::CommitBeforeCommit(w1, w2) => commits.extend([w1, w2]),
            }
        }
        commits.sort_unstable();
        commits.dedup();
        for &w in &commits {
            events.push(w);
            if trace.commit_bound(w) < trace.len() {
                events.push(trace.commit_bound(w));
            }
        }
        events.sort_unstable();
        events.dedup();
        let ev = |e: EventId| events.binary_search(&e).expect("a kept event") as Node;
        let cm =
            |w: EventId| (events.len() + commits.binary_search(&w).expect("a kept commit")) as Node;
        let nodes = events.len() + commits.len();
        let mut adj: Vec<Vec<(Node, Lit)>> = vec![Vec::new(); nodes];
        for i in 1..events.len() {
            adj[i - 1].push((i as Node, 0));
        }
        let mut last: HashMap<ThreadId, EventId> = HashMap::new();
        for &w in &commits {
            adj[ev(w) as usize].push((cm(w), 0));
            let h = trace.commit_bound(w);
            if h < trace.len() {
                adj[cm(w) as usize].push((ev(h), 0));
            }
            if let Some(prev) = last.insert(trace.events[w].thread, w) {
                adj[cm(prev) as usize].push((cm(w), 0));
            }
        }
        let atom_edge = f
            .atoms
            .iter()
            .map(|(a, &l)| {
                let e = match *a {
                    Atom::CommitBeforeEvent(w, p) => (cm(w), ev(p)),
                    Atom::CommitBeforeCommit(w1, w2) => (cm(w1), cm(w2)),
                };
                (l, e)
            })
            .collect();
        OrderGraph {
            adj,
            atom_edge,
            trail: Vec::new(),
            levels: Vec::new(),
            seen: vec![0; nodes],
            stamp: 0,
            via: vec![(0, 0); nodes],
            stack: Vec::new(),
        }
    }

    /// The atom variables (to observe).
    pub fn vars(&self) -> impl Iterator<Item = Lit> + '_ {
        self.atom_edge.keys().copied()
    }

    /// Number of nodes (events and commits kept).
    pub fn node_count(&self) -> usize {
        self.adj.len()
    }

    /// Records an assigned literal; if it is an atom's and its edge closes a cycle,
    /// returns the clause that forbids the cycle's atoms together (a literal of each).
    pub fn assign(&mut self, lit: Lit) -> Option<Vec<Lit>> {
        let &(a, b) = self.atom_edge.get(&lit.abs())?;
        let (from, to) = if lit > 0 { (a, b) } else { (b, a) };
        let cycle = self.path(to, from).map(|mut lits| {
            lits.push(lit);
            lits.iter().map(|&l| -l).collect()
        });
        self.adj[from as usize].push((to, lit));
        self.trail.push(from);
        cycle
    }

    /// The solver opened a new decision level.
    pub fn new_level(&mut self) {
        self.levels.push(self.trail.len());
    }

    /// The solver went back to decision level `level`: edges of later levels go.
    pub fn backtrack(&mut self, level: usize) {
        if level >= self.levels.len() {
            return;
        }
        let keep = self.levels[level];
        self.levels.truncate(level);
        while self.trail.len() > keep {
            if let Some(from) = self.trail.pop() {
                self.adj[from as usize].pop();
            }
        }
    }

    /// The atom literals of a path `from ⇝ to`, if there is one (depth first).
    fn path(&mut self, from: Node, to: Node) -> Option<Vec<Lit>> {
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.seen.iter_mut().for_each(|s| *s = 0);
            self.stamp = 1;
        }
        self.stack.clear();
        self.stack.push(from);
        self.seen[from as usize] = self.stamp;
        while let Some(v) = self.stack.pop() {
            if v == to {
                let mut lits = Vec::new();
                let mut at = to;
                while at != from {
                    let (prev, l) = self.via[at as usize];
                    if l != 0 {
                        lits.push(l);
                    }
                    at = prev;
                }
                return Some(lits);
            }
            for &(s, l) in &self.adj[v as usize] {
                if self.seen[s as usize] != self.stamp {
                    self.seen[s as usize] = self.stamp;
                    self.via[s as usize] = (v, l);
                    self.stack.push(s);
                }
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::sat::encode::whole_formula;
    use crate::check::Semantics;
    use crate::trace::gen;

    /// `c(w) ≺ p` and not `c(w) ≺ q` for p < q is a cycle `c(w) → p → … → q → c(w)`: the
    /// second assignment returns the clause of the two; after backtracking it is gone.
    #[test]
    fn an_atom_closing_a_cycle_gives_its_clause_and_backtracking_removes_it() {
        let trace = gen::generate(&gen::Shape::dense(40, 5, 2), 1);
        let f = whole_formula(&trace, Semantics::Exact);
        let mut by_commit: HashMap<EventId, Vec<(EventId, Lit)>> = HashMap::new();
        for (a, &l) in &f.atoms {
            if let Atom::CommitBeforeEvent(w, p) = *a {
                by_commit.entry(w).or_default().push((p, l));
            }
        }
        let mut two = by_commit
            .into_values()
            .find(|v| v.len() >= 2)
            .expect("a commit with two breakpoints");
        two.sort_unstable();
        let ((_, before_p), (_, before_q)) = (two[0], two[1]);
        let mut g = OrderGraph::new(&trace, &f);
        assert!(g.node_count() > 2);
        g.new_level();
        assert_eq!(g.assign(before_p), None);
        g.new_level();
        let clause = g.assign(-before_q).expect("a cycle");
        let mut want = vec![-before_p, before_q];
        let mut got = clause.clone();
        want.sort_unstable();
        got.sort_unstable();
        assert_eq!(got, want);
        // Back to level 1: only `c(w) ≺ p` stays, and `c(w) ≺ q` is consistent with it.
        g.backtrack(1);
        assert_eq!(g.assign(before_q), None);
        // Back to level 0: nothing stays, and the reverse of the first atom is fine.
        g.backtrack(0);
        assert_eq!(g.assign(-before_q), None);
        assert_eq!(g.assign(-before_p), None);
    }
}
