//! The order atoms as a graph the solver builds while it assigns them: fixed edges,
//! plus one edge per assigned atom (its positive literal adds one edge, its negative
//! literal the reverse). An assignment that closes a cycle gives the clause "not all of
//! these atoms"; when every execution the encoding describes is acyclic in the graph,
//! such a clause holds in all of them, so adding it during search (CaDiCaL's external
//! propagator) is sound whatever the solver does next. It replaces the lazy cuts of a
//! solve–block loop (the encodings keep the loop for what their graph does not see, and
//! re-check every model before it becomes a witness).

use super::Lit;
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
    /// The graph with fixed out-edges `adj` (node → successors, each with literal 0),
    /// `ord` distinct keys in which every fixed edge goes forward (a topological
    /// order), and each atom variable's edges: the one its positive literal adds and
    /// the one its negative literal adds. No atom is assigned.
    pub fn new(
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
    use rand::{Rng, SeedableRng};

    /// A random graph: `n` nodes whose fixed edges go forward in index order (the
    /// topological order given), and `atoms` variables each between two random nodes.
    fn random_graph(rng: &mut impl Rng, n: usize, atoms: usize) -> OrderGraph {
        let mut adj: Vec<Vec<(Node, Lit)>> = vec![Vec::new(); n];
        for (u, out) in adj.iter_mut().enumerate() {
            for v in u + 1..n {
                if rng.random_bool(0.08) {
                    out.push((v as Node, 0));
                }
            }
        }
        let mut atom_edge = HashMap::new();
        for v in 1..=atoms as Lit {
            let x = rng.random_range(0..n) as Node;
            let y = (x + rng.random_range(1..n) as Node) % n as Node;
            atom_edge.insert(v, [(x, y), (y, x)]);
        }
        OrderGraph::new(adj, (0..n as u32).collect(), atom_edge)
    }

    /// `a → b` then `b → c` then `c → a` closes a cycle: the clause of the three; after
    /// backtracking over the second, the third is consistent.
    #[test]
    fn an_atom_closing_a_cycle_gives_its_clause_and_backtracking_removes_it() {
        let atoms = HashMap::from([
            (1, [(0, 1), (1, 0)]),
            (2, [(1, 2), (2, 1)]),
            (3, [(2, 0), (0, 2)]),
        ]);
        let mut g = OrderGraph::new(vec![Vec::new(); 3], vec![0, 1, 2], atoms);
        assert_eq!(g.assign(1), None);
        g.new_level();
        assert_eq!(g.assign(2), None);
        g.new_level();
        let mut clause = g.assign(3).expect("a cycle");
        clause.sort_unstable();
        assert_eq!(clause, vec![-3, -2, -1]);
        g.backtrack(0);
        assert_eq!(g.assign(3), None);
        assert_eq!(g.assign(-2), None);
    }

    /// Random assignments and backtracks: the answer is the one a plain search of the
    /// whole graph gives, each clause is a cycle of assigned atoms, and the order stays
    /// topological.
    #[test]
    fn the_dynamic_order_finds_the_cycles_a_full_search_finds() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        for seed in 0..6 {
            let mut g = random_graph(&mut rng, 30 + 10 * seed, 60);
            let vars: Vec<Lit> = g.vars().collect();
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
