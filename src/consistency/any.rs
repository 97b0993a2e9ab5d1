//! `--write-order any`: is there a write order of each location under which the run
//! is SC (or x86-TSO)? Gibbons & Korach showed the question NP-complete (Qadeer §1),
//! so it goes to a SAT solver, an encoding on top of [`crate::solver`]: one variable
//! per pair of writes of a location, and the constraint graphs of [`super::graph`]
//! with their location edges left open, kept acyclic by [`OrderGraph`]s — during
//! search (CaDiCaL's propagator) and on every model (lazy cuts, the only check for the
//! other backends). The write order of an acyclic model is then checked as a given
//! one ([`super::check_order`]), so every "yes" is re-checked by replay.
//!
//! The graphs' nodes are the events, a node L(w) per write w — "after w and its plain
//! reads" — and a node L(init_x) per location. Fixed edges: program order (SC), ppo
//! (TSO's global graph) or po-loc (TSO's uniproc graph); rf (only rfe in the global
//! graph); w → L(w) and r → L(w) for each plain read r of w; r → L(init_x) for each
//! plain read of x's initial value, and L(init_x) → each write of x. The variable of
//! writes a < b (in the file) means co(a, b) and adds L(a) → b — one edge for a's
//! co edge to b and the fr edges of a's readers to b; false, it adds L(b) → a.
//!
//! An rmw u is no reader of its source's L node (its own write would follow it, a
//! cycle). Reading w it comes right after w — the clauses co(w, u) and, for each
//! other write b, co(w, b) → co(u, b); reading the initial value it comes first —
//! co(u, b) for each b. Its fr edges are then those of L(u).

use super::graph::{self, Which};
use super::run::{Kind, ValueRun};
use super::Model;
use crate::graph::csr::Csr;
use crate::solver::{self, Answer, Lit, Node, OrderGraph, Problem, SolverError, SolverKind};
use crate::stop::{Stop, Unknown};
use std::collections::HashMap;

/// Most pair variables tried: beyond, the answer is unknown (memory, not time).
pub const MAX_VARS: usize = 20_000_000;

/// Figures of one search.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct SatStats {
    pub solver: &'static str,
    /// Pair variables (one per two writes of a location).
    pub variables: u64,
    /// Clauses of rmw atomicity.
    pub clauses: u64,
    pub solver_calls: u64,
    /// Cycles of a model blocked between calls.
    pub lazy_cuts: u64,
    /// Cycles refuted during search (CaDiCaL's propagator).
    pub propagated_cuts: u64,
    /// The solver's conflicts, if it counts them.
    pub conflicts: Option<u64>,
}

/// What the search found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Found {
    /// A write order per location whose constraint graphs are acyclic.
    Order(Vec<Vec<usize>>),
    /// No write order: the solver refuted them all, or the fixed edges alone are cyclic.
    NoOrder,
    /// The budget ran out, or the run has more pairs than [`MAX_VARS`]; why.
    Unknown(Unknown),
}

/// The pair variables: `co(a, b)` for writes a, b of one location.
struct Pairs {
    /// Per event: its location's first variable, and its rank among the location's
    /// writes (writes only).
    base: Vec<usize>,
    rank: Vec<usize>,
    /// Per location: its number of writes.
    count: Vec<usize>,
    vars: usize,
}

impl Pairs {
    fn new(run: &ValueRun) -> Pairs {
        let n = run.events.len();
        let (mut base, mut rank) = (vec![0; n], vec![0; n]);
        let mut vars = 0usize;
        for ws in &run.writes {
            for (i, &w) in ws.iter().enumerate() {
                base[w] = vars + 1;
                rank[w] = i;
            }
            vars = vars.saturating_add(ws.len() * ws.len().saturating_sub(1) / 2);
        }
        Pairs {
            base,
            rank,
            count: run.writes.iter().map(Vec::len).collect(),
            vars,
        }
    }

    /// The literal of co(a, b): a before b (distinct writes of one location).
    fn co(&self, run: &ValueRun, a: usize, b: usize) -> Lit {
        let k = self.count[run.events[a].loc.expect("a write has a location")];
        let (i, j) = (self.rank[a], self.rank[b]);
        let (lo, hi) = (i.min(j), i.max(j));
        // Row-major upper triangle: row lo holds lo+1..k.
        let index = lo * k - lo * (lo + 1) / 2 + (hi - lo - 1);
        let v = (self.base[a] + index) as Lit;
        if i < j {
            v
        } else {
            -v
        }
    }
}

/// Nodes: events `0..n`, then L(w) for each write in `writes` order, then L(init_x).
struct Nodes {
    n: usize,
    /// Per event: its L node (writes only).
    l: Vec<Node>,
    init: Node,
}

/// Searches a write order of each location under which `run` is consistent with
/// `model`, with the solver `kind` until `stop`.
pub fn find(
    run: &ValueRun,
    model: Model,
    kind: SolverKind,
    stop: &Stop,
    st: &mut SatStats,
) -> Result<Found, SolverError> {
    let pairs = Pairs::new(run);
    st.variables = pairs.vars as u64;
    if pairs.vars > MAX_VARS {
        return Ok(Found::Unknown(Unknown::WritePairs {
            pairs: pairs.vars,
            max: MAX_VARS,
        }));
    }
    let n = run.events.len();
    let mut l = vec![Node::MAX; n];
    let mut next = n;
    for ws in &run.writes {
        for &w in ws {
            l[w] = next as Node;
            next += 1;
        }
    }
    let nodes = Nodes {
        n,
        l,
        init: next as Node,
    };
    // The atoms' edges, the same in every graph.
    let mut atoms: HashMap<Lit, [(Node, Node); 2]> = HashMap::with_capacity(pairs.vars);
    for ws in &run.writes {
        for (i, &a) in ws.iter().enumerate() {
            for &b in &ws[i + 1..] {
                let v = pairs.co(run, a, b);
                atoms.insert(v, [(nodes.l[a], b as Node), (nodes.l[b], a as Node)]);
            }
        }
    }
    let whiches: &[Which] = match model {
        Model::Sc => &[Which::Sc],
        Model::Tso => &[Which::TsoGlobal, Which::TsoUniproc],
    };
    let mut graphs = Vec::with_capacity(whiches.len());
    let mut first_ord = Vec::new();
    for &which in whiches {
        match order_graph(run, which, &nodes, &atoms) {
            Some((g, ord)) => {
                graphs.push(g);
                if first_ord.is_empty() {
                    first_ord = ord;
                }
            }
            None => return Ok(Found::NoOrder),
        }
    }
    let clauses = atomicity(run, &pairs);
    st.clauses = clauses.len() as u64;
    let problem = Problem {
        vars: pairs.vars,
        clauses: &clauses,
        graphs: graphs.clone(),
        ..Problem::default()
    };
    let mut solver = solver::new(kind, problem, stop)?;
    st.solver = solver.name();
    // First guess: the writes in a topological order of the fixed edges (program
    // order and reads-from agree with it).
    for ws in &run.writes {
        for (i, &a) in ws.iter().enumerate() {
            for &b in &ws[i + 1..] {
                let v = pairs.co(run, a, b);
                solver.phase(if first_ord[a] < first_ord[b] { v } else { -v });
            }
        }
    }
    let found = loop {
        if stop.expired() {
            break Found::Unknown(Unknown::Deadline);
        }
        st.solver_calls += 1;
        match solver.solve() {
            Answer::Unsat => break Found::NoOrder,
            Answer::Unknown => break Found::Unknown(Unknown::Deadline),
            Answer::Sat => {}
        }
        let mut cuts = Vec::new();
        for g in &mut graphs {
            g.new_level();
            for v in 1..=pairs.vars as Lit {
                let lit = if solver.value(v) { v } else { -v };
                cuts.extend(g.assign(lit));
            }
            g.backtrack(0);
        }
        if cuts.is_empty() {
            break Found::Order(write_order(run, &pairs, |v| solver.value(v)));
        }
        st.lazy_cuts += cuts.len() as u64;
        for c in &cuts {
            solver.add_clause(c);
        }
    };
    st.propagated_cuts = solver.propagated_cuts();
    st.conflicts = solver.conflicts();
    Ok(found)
}

/// The graph `which` with the location edges open (module doc) and the topological
/// order of its fixed edges (each node's position), or None when its fixed edges
/// alone close a cycle.
fn order_graph(
    run: &ValueRun,
    which: Which,
    nodes: &Nodes,
    atoms: &HashMap<Lit, [(Node, Node); 2]>,
) -> Option<(OrderGraph, Vec<u32>)> {
    let n = nodes.n;
    let total = nodes.init as usize + run.locs.len();
    // Program order (or ppo, po-loc): the graph of no write order at all.
    let none: Vec<Vec<usize>> = vec![Vec::new(); run.locs.len()];
    let po = graph::build(run, &none, which);
    let mut edges: Vec<(usize, usize, ())> = Vec::with_capacity(4 * n);
    for u in 0..n {
        edges.extend(po.succ(u).iter().map(|&(v, _)| (u, v as usize, ())));
    }
    let init = |x: usize| nodes.init as usize + x;
    for (i, ev) in run.events.iter().enumerate() {
        if ev.kind.writes() {
            edges.push((i, nodes.l[i] as usize, ()));
            edges.push((init(ev.loc.expect("a write has a location")), i, ()));
        }
        if !ev.kind.reads() {
            continue;
        }
        let plain = ev.kind == Kind::Read;
        match ev.rf {
            Some(w) => {
                let internal = run.events[w].thread == ev.thread;
                if !(which == Which::TsoGlobal && internal) {
                    edges.push((w, i, ()));
                }
                if plain {
                    edges.push((i, nodes.l[w] as usize, ()));
                }
            }
            None if plain => edges.push((i, init(ev.loc.expect("a read has a location")), ())),
            None => {}
        }
    }
    let fixed = Csr::from_edges(total, &edges);
    let topo = fixed.topological().ok()?;
    let mut ord = vec![0u32; total];
    for (k, &u) in topo.iter().enumerate() {
        ord[u] = k as u32;
    }
    let adj: Vec<Vec<(Node, Lit)>> = (0..total)
        .map(|u| fixed.succ(u).iter().map(|&(v, ())| (v, 0)).collect())
        .collect();
    Some((OrderGraph::new(adj, ord.clone(), atoms.clone()), ord))
}

/// The clauses that make each rmw follow the write it read, with nothing between.
fn atomicity(run: &ValueRun, pairs: &Pairs) -> Vec<Vec<Lit>> {
    let mut clauses = Vec::new();
    for (u, ev) in run.events.iter().enumerate() {
        if ev.kind != Kind::Rmw {
            continue;
        }
        let ws = &run.writes[ev.loc.expect("an rmw has a location")];
        match ev.rf {
            Some(w) => {
                clauses.push(vec![pairs.co(run, w, u)]);
                for &b in ws.iter().filter(|&&b| b != u && b != w) {
                    clauses.push(vec![-pairs.co(run, w, b), pairs.co(run, u, b)]);
                }
            }
            None => {
                for &b in ws.iter().filter(|&&b| b != u) {
                    clauses.push(vec![pairs.co(run, u, b)]);
                }
            }
        }
    }
    clauses
}

/// Each location's writes sorted by the model's pair variables (a total order when
/// the graphs are acyclic: a cycle of co would be one of theirs).
fn write_order(run: &ValueRun, pairs: &Pairs, value: impl Fn(Lit) -> bool) -> Vec<Vec<usize>> {
    run.writes
        .iter()
        .map(|ws| {
            let before = |a: usize, b: usize| {
                let l = pairs.co(run, a, b);
                value(l.abs()) == (l > 0)
            };
            // Writes each one precedes: n-1, n-2, …, 0 down a total order.
            let mut keyed: Vec<(usize, usize)> = ws
                .iter()
                .map(|&a| (ws.iter().filter(|&&b| b != a && before(a, b)).count(), a))
                .collect();
            keyed.sort_unstable_by(|x, y| y.0.cmp(&x.0).then(x.1.cmp(&y.1)));
            keyed.into_iter().map(|(_, a)| a).collect()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(text: &str) -> ValueRun {
        ValueRun::from_trace(&crate::trace::yaml::parse_trace(text).unwrap()).unwrap()
    }

    #[test]
    fn pair_literals_are_one_variable_per_pair_and_opposite_ways() {
        let r = run("events:\n  - \"a wr x 1\"\n  - \"b wr y 1\"\n  - \"b wr x 2\"\n  - \"c wr x 3\"\n  - \"c wr y 2\"\n");
        let p = Pairs::new(&r);
        // x: 3 writes, 3 pairs; y: 2 writes, 1 pair.
        assert_eq!(p.vars, 4);
        let mut seen: Vec<Lit> = Vec::new();
        for ws in &r.writes {
            for &a in ws {
                for &b in ws.iter().filter(|&&b| b != a) {
                    assert_eq!(p.co(&r, a, b), -p.co(&r, b, a));
                    seen.push(p.co(&r, a, b).abs());
                }
            }
        }
        seen.sort_unstable();
        seen.dedup();
        assert_eq!(seen, vec![1, 2, 3, 4]);
    }

    #[test]
    fn too_many_pairs_is_unknown_before_any_memory_is_spent() {
        let k = 6400; // 6400·6399/2 > MAX_VARS
        let mut text = String::from("events:\n");
        for v in 1..=k {
            text.push_str(&format!("  - \"t{} wr x {v}\"\n", v % 8));
        }
        let mut st = SatStats::default();
        let found = find(
            &run(&text),
            Model::Sc,
            SolverKind::Varisat,
            &Stop::default(),
            &mut st,
        );
        assert!(matches!(
            found,
            Ok(Found::Unknown(Unknown::WritePairs { .. }))
        ));
        assert_eq!(st.variables, 6400 * 6399 / 2);
    }
}
