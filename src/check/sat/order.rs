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
pub type Node = u32;

/// A trail entry for an atom whose edge closed a cycle: not added (see [`OrderGraph::assign`]).
const SKIPPED: (Node, Node) = (Node::MAX, Node::MAX);

/// The order graph of one formula, with a trail for backtracking and a topological
/// order kept by Pearce & Kelly's dynamic algorithm ("A dynamic topological sort
/// algorithm for directed acyclic graphs", JEA 2007): an edge that agrees with the
/// order needs no search; one against it searches only the nodes between its ends in
/// the order, then moves them. Removing edges (backtracking) keeps an order valid.
#[derive(Clone, Debug)]
pub struct OrderGraph {
    /// Out-edges with the literal that put them there (0: fixed), and in-edges.
    adj: Vec<Vec<(Node, Lit)>>,
    radj: Vec<Vec<Node>>,
    /// The topological order: distinct keys, smaller first.
    ord: Vec<u32>,
    /// For each atom variable: the edges its positive and its negative literal add.
    atom_edge: HashMap<Lit, [(Node, Node); 2]>,
    /// Each atom edge added, in order ([`SKIPPED`] for those not added).
    trail: Vec<(Node, Node)>,
    /// Trail length at the start of each decision level above 0.
    levels: Vec<usize>,
    /// Search scratch: visit stamps, the edge each node was reached by, the nodes
    /// reached forward and backward.
    seen: Vec<u32>,
    stamp: u32,
    via: Vec<(Node, Lit)>,
    stack: Vec<Node>,
    forward: Vec<Node>,
    backward: Vec<Node>,
    keys: Vec<u32>,
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
        // Every fixed edge goes forward in "event p at 2p, c(w) just after w": trace
        // order, w → c(w), c(w) → h(w) with h(w) > w, FIFO in write order.
        let key = |e: EventId| {
            u32::try_from(e)
                .unwrap_or(u32::MAX / 2 - 1)
                .saturating_mul(2)
        };
        let ord: Vec<u32> = events
            .iter()
            .map(|&e| key(e))
            .chain(commits.iter().map(|&w| key(w) + 1))
            .collect();
        let atom_edge = f
            .atoms
            .iter()
            .map(|(a, &l)| {
                let (x, y) = match *a {
                    Atom::CommitBeforeEvent(w, p) => (cm(w), ev(p)),
                    Atom::CommitBeforeCommit(w1, w2) => (cm(w1), cm(w2)),
                };
                (l, [(x, y), (y, x)])
            })
            .collect();
        OrderGraph::from_parts(adj, ord, atom_edge)
    }

    /// The graph with fixed out-edges `adj` (node → successors, each with literal 0),
    /// `ord` distinct keys in which every fixed edge goes forward (a topological
    /// order), and each atom variable's edges: the one its positive literal adds and
    /// the one its negative literal adds. No atom is assigned.
    pub fn from_parts(
        adj: Vec<Vec<(Node, Lit)>>,
        ord: Vec<u32>,
        atom_edge: HashMap<Lit, [(Node, Node); 2]>,
    ) -> OrderGraph {
        let nodes = adj.len();
        debug_assert_eq!(ord.len(), nodes);
        let mut radj: Vec<Vec<Node>> = vec![Vec::new(); nodes];
        for (u, out) in adj.iter().enumerate() {
            for &(v, _) in out {
                debug_assert!(ord[u] < ord[v as usize], "a fixed edge against the order");
                radj[v as usize].push(u as Node);
            }
        }
        OrderGraph {
            adj,
            radj,
            ord,
            atom_edge,
            trail: Vec::new(),
            levels: Vec::new(),
            seen: vec![0; nodes],
            stamp: 0,
            via: vec![(0, 0); nodes],
            stack: Vec::new(),
            forward: Vec::new(),
            backward: Vec::new(),
            keys: Vec::new(),
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
    /// That edge is then left out, so the order stays topological: the solver must
    /// backtrack over the clause anyway, and an edge missing later only means a cycle
    /// the model re-check (the lazy loop) finds instead.
    pub fn assign(&mut self, lit: Lit) -> Option<Vec<Lit>> {
        let &[pos, neg] = self.atom_edge.get(&lit.abs())?;
        let (from, to) = if lit > 0 { pos } else { neg };
        if self.ord[from as usize] > self.ord[to as usize] || from == to {
            if let Some(mut lits) = self.forward_to(to, from) {
                lits.push(lit);
                self.trail.push(SKIPPED);
                return Some(lits.iter().map(|&l| -l).collect());
            }
            self.backward_from(from, self.ord[to as usize]);
            self.reorder();
        }
        self.adj[from as usize].push((to, lit));
        self.radj[to as usize].push(from);
        self.trail.push((from, to));
        None
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
            match self.trail.pop() {
                Some(SKIPPED) | None => {}
                Some((from, to)) => {
                    self.adj[from as usize].pop();
                    self.radj[to as usize].pop();
                }
            }
        }
    }

    fn next_stamp(&mut self) -> u32 {
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.seen.iter_mut().for_each(|s| *s = 0);
            self.stamp = 1;
        }
        self.stamp
    }

    /// Depth first from `from` over the nodes not after `to` in the order: the atom
    /// literals of a path `from ⇝ to` if there is one, else `None` with the nodes
    /// reached left in `self.forward`.
    fn forward_to(&mut self, from: Node, to: Node) -> Option<Vec<Lit>> {
        let stamp = self.next_stamp();
        let bound = self.ord[to as usize];
        self.forward.clear();
        self.stack.clear();
        self.stack.push(from);
        self.seen[from as usize] = stamp;
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
            self.forward.push(v);
            for &(s, l) in &self.adj[v as usize] {
                let si = s as usize;
                if self.seen[si] != stamp && self.ord[si] <= bound {
                    self.seen[si] = stamp;
                    self.via[si] = (v, l);
                    self.stack.push(s);
                }
            }
        }
        None
    }

    /// Depth first backwards from `to` over the nodes not before `lower` in the order,
    /// into `self.backward` (disjoint from `self.forward`: a node in both would be on
    /// the path [`Self::forward_to`] did not find).
    fn backward_from(&mut self, to: Node, lower: u32) {
        let stamp = self.next_stamp();
        self.backward.clear();
        self.stack.clear();
        self.stack.push(to);
        self.seen[to as usize] = stamp;
        while let Some(v) = self.stack.pop() {
            self.backward.push(v);
            for &p in &self.radj[v as usize] {
                let pi = p as usize;
                if self.seen[pi] != stamp && self.ord[pi] >= lower {
                    self.seen[pi] = stamp;
                    self.stack.push(p);
                }
            }
        }
    }

    /// Pearce & Kelly's reorder: the nodes that reach the new edge's source go first,
    /// then those its target reaches, on the same keys.
    fn reorder(&mut self) {
        let ord = &mut self.ord;
        self.backward.sort_unstable_by_key(|&v| ord[v as usize]);
        self.forward.sort_unstable_by_key(|&v| ord[v as usize]);
        self.keys.clear();
        self.keys.extend(
            self.backward
                .iter()
                .chain(&self.forward)
                .map(|&v| ord[v as usize]),
        );
        self.keys.sort_unstable();
        for (&v, &k) in self.backward.iter().chain(&self.forward).zip(&self.keys) {
            ord[v as usize] = k;
        }
    }

    /// Whether the order is topological for every edge present (for tests).
    #[cfg(test)]
    fn order_is_topological(&self) -> bool {
        self.adj
            .iter()
            .enumerate()
            .all(|(u, out)| out.iter().all(|&(v, _)| self.ord[u] < self.ord[v as usize]))
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

    /// Random assignments and backtracks: the answer is the one a plain search of the
    /// whole graph gives, each clause is a cycle of assigned atoms, and the order stays
    /// topological.
    #[test]
    fn the_dynamic_order_finds_the_cycles_a_full_search_finds() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        for seed in 0..6 {
            let trace = gen::generate(&gen::Shape::dense(30, 3 + seed as usize % 3, 2), seed);
            let f = whole_formula(&trace, Semantics::Exact);
            let vars: Vec<Lit> = f.atoms.values().copied().collect();
            let mut g = OrderGraph::new(&trace, &f);
            let fixed = g.adj.clone();
            // The assigned literals by level, as the solver would hold them.
            let mut levels: Vec<Vec<Lit>> = vec![Vec::new()];
            let mut cycles = 0;
            for _ in 0..3000 {
                match rng.random_range(0..10) {
                    0 => {
                        g.new_level();
                        levels.push(Vec::new());
                    }
                    1 if levels.len() > 1 => {
                        let to = rng.random_range(0..levels.len() - 1);
                        g.backtrack(to);
                        levels.truncate(to + 1);
                    }
                    _ => {
                        let assigned: Vec<Lit> = levels.iter().flatten().map(|l| l.abs()).collect();
                        let free: Vec<Lit> = vars
                            .iter()
                            .copied()
                            .filter(|v| !assigned.contains(v))
                            .collect();
                        if free.is_empty() {
                            continue;
                        }
                        let v = free[rng.random_range(0..free.len())];
                        let lit = if rng.random_bool(0.5) { v } else { -v };
                        // The plain answer: the edges of the literals whose edge was
                        // added (those that closed no cycle when assigned), then a search.
                        let mut adj = fixed.clone();
                        for &l in levels.iter().flatten() {
                            let [pos, neg] = g.atom_edge[&l.abs()];
                            let (x, y) = if l > 0 { pos } else { neg };
                            adj[x as usize].push((y, l));
                        }
                        let [pos, neg] = g.atom_edge[&v];
                        let (x, y) = if lit > 0 { pos } else { neg };
                        let mut seen = vec![false; adj.len()];
                        let mut stack = vec![y];
                        let mut closes = false;
                        while let Some(n) = stack.pop() {
                            if n == x {
                                closes = true;
                                break;
                            }
                            for &(s, _) in &adj[n as usize] {
                                if !seen[s as usize] {
                                    seen[s as usize] = true;
                                    stack.push(s);
                                }
                            }
                        }
                        let got = g.assign(lit);
                        assert_eq!(got.is_some(), closes, "seed {seed}");
                        if let Some(clause) = got {
                            cycles += 1;
                            assert!(clause.contains(&-lit));
                            let held: Vec<Lit> = levels.iter().flatten().copied().collect();
                            assert!(clause.iter().all(|&l| -l == lit || held.contains(&-l)));
                            // Left out: the next answers are those of the graph without it.
                        } else {
                            levels.last_mut().unwrap().push(lit);
                        }
                        assert!(g.order_is_topological());
                    }
                }
            }
            assert!(cycles > 20, "seed {seed}: {cycles} cycles");
        }
    }
}
