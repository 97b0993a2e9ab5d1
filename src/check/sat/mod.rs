//! `--algo sat`: trace TSO-serializability by SAT (CaDiCaL, varisat) or SMT (z3), an
//! encoding on top of [`crate::solver`].
//!
//! Pipeline: forced conflicts (a cycle answers at once) → varying pairs and the
//! possible graph (no cycle: serializable without a solver) → one formula per strongly
//! connected component ([`encode`]) → solve, turn the model into an execution (a
//! topological sort of the oriented exact graph) or an orientation (paper), block it
//! if it is cyclic (lazy cut) and solve again. A model's cycle is re-checked on the
//! execution it describes before it becomes a witness.

pub mod asp;
pub mod encode;
pub mod export;
pub(crate) mod order;

use super::{verify, verify_execution_cycle, Semantics, Unknown, Verdict, Witness};
use crate::analysis::sort::{orient_paper, sort_exact};
use crate::graph::paper::PaperGraph;
use crate::graph::Edge;
use crate::solver::{self, Answer, Lit, Problem, Solver, SolverError, SolverKind};
use crate::stop::Stop;
use crate::trace::exec::{Node, Step};
use crate::trace::Trace;
use encode::{Atom, Formula, VarRole};
use std::collections::HashMap;

/// Counters and phase times of one run (the counters are `stats.counts` of
/// `check --json`, docs/json.md).
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct SatStats {
    #[serde(skip)]
    pub phases: Vec<(String, f64)>,
    pub variables: u64,
    pub clauses: u64,
    pub order_clauses: u64,
    pub solver_calls: u64,
    pub lazy_cuts: u64,
    /// Cycles of order atoms refuted during search (CaDiCaL's propagator), not by cuts.
    pub propagated_cuts: u64,
    /// The solver's conflicts, summed over calls (`None`: the solver does not count).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub conflicts: Option<u64>,
    pub components: u64,
    /// Components of the possible graph left out: no transaction of two events
    /// (docs/semantics.md §5.6).
    pub single_event_components: u64,
    pub largest_component: u64,
    pub varying_pairs: u64,
    pub forced_edges: u64,
}

impl SatStats {
    /// Runs `f`, adding its wall time to phase `name`.
    fn time<T>(&mut self, name: &str, f: impl FnOnce() -> T) -> T {
        super::front::timed(&mut self.phases, name, f)
    }
}

/// Why the SAT route could not answer.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SatError {
    #[error(transparent)]
    Solver(#[from] SolverError),
    #[error(
        "internal error: a model did not re-check on its execution ({0}); please report this trace"
    )]
    Unverified(crate::check::Rejected),
}

/// A solver of `kind` on `f`, told what its order atoms mean in `trace` in the way
/// the backend uses (CaDiCaL: the order graph, when `propagate`; z3: positions).
fn make_solver(
    kind: SolverKind,
    f: &Formula,
    trace: &Trace,
    stop: &Stop,
    propagate: bool,
) -> Result<Box<dyn Solver>, SatError> {
    let graphs = if propagate && kind.propagates_order() && !f.atoms.is_empty() {
        vec![order::graph(trace, f)]
    } else {
        Vec::new()
    };
    let problem = Problem {
        vars: f.num_vars(),
        clauses: &f.clauses,
        order_clauses: &f.order_clauses,
        graphs,
        positions: kind.uses_positions().then(|| order::positions(trace, f)),
    };
    let mut s = solver::new(kind, problem, stop)?;
    s.declare(f.num_vars());
    Ok(s)
}

/// Decides trace TSO-serializability (exact: docs/semantics.md §4; paper: Thm. 5)
/// until `stop` says so (polled between solver calls, and inside them by every
/// backend: CaDiCaL's terminator, varisat's proof output, z3's watcher).
pub fn check_sat(
    trace: &Trace,
    semantics: Semantics,
    solver: SolverKind,
    stop: &Stop,
) -> Result<(Verdict, SatStats), SatError> {
    let mut st = SatStats::default();
    match semantics {
        Semantics::Exact => exact(trace, solver, stop, &mut st),
        Semantics::Paper => paper(trace, solver, stop, &mut st),
    }
    .map(|v| (v, st))
}

/// One solver call within the deadline: `Ok(true)` satisfiable, `Ok(false)`
/// unsatisfiable, `Err(unknown)` when time or the solver ran out.
fn solve_once(b: &mut dyn Solver, st: &mut SatStats, stop: &Stop) -> Result<bool, Verdict> {
    if stop.expired() {
        return Err(Verdict::Unknown(Unknown::Deadline));
    }
    st.solver_calls += 1;
    let (cuts, conflicts) = (b.propagated_cuts(), b.conflicts());
    let answer = st.time("solving", || b.solve());
    st.propagated_cuts += b.propagated_cuts() - cuts;
    if let Some(now) = b.conflicts() {
        let more = now.saturating_sub(conflicts.unwrap_or(0));
        st.conflicts = Some(st.conflicts.unwrap_or(0) + more);
    }
    match answer {
        Answer::Sat => Ok(true),
        Answer::Unsat => Ok(false),
        Answer::Unknown => Err(Verdict::Unknown(Unknown::SolverGaveUp)),
    }
}

fn exact(
    trace: &Trace,
    kind: SolverKind,
    stop: &Stop,
    st: &mut SatStats,
) -> Result<Verdict, SatError> {
    let (mut phases, mut seen) = (Vec::new(), super::front::Seen::default());
    let v = super::front::exact_each(trace, &mut phases, &mut seen, stop, |front| {
        exact_components(trace, front, &front.all(), kind, stop, st)
    });
    st.phases = super::front::merged(phases, std::mem::take(&mut st.phases));
    record_front(st, &seen);
    v
}

/// The exact route on the components `which` of `front`: a violation in the first
/// component that has one, else serializable (or unknown past the deadline).
pub(crate) fn exact_components(
    trace: &Trace,
    front: &super::front::Front<(Node, Node)>,
    which: &[usize],
    kind: SolverKind,
    stop: &Stop,
    st: &mut SatStats,
) -> Result<Verdict, SatError> {
    let comps: Vec<Vec<usize>> = which.iter().map(|&i| front.comps[i].clone()).collect();
    let encode = |k: usize, comp: &[usize]| {
        let i = which[k];
        encode::encode_exact(
            trace,
            &crate::graph::unpack_edges(trace, &front.forced[i]),
            &front.varying[i],
            comp,
            &front.multi,
        )
    };
    solve_components(trace, kind, stop, st, &comps, encode, |f, b| {
        let cycle = model_cycle(f, b);
        // Only the atoms the model's cycle relies on: each conflict's order atom and
        // one true disjunct of "not parallel". The others are free.
        let truth = |l: Lit| if l > 0 { b.value(l) } else { !b.value(-l) };
        let mut needed: Vec<Lit> = Vec::new();
        for (_, _, _, ways) in f
            .succ
            .iter()
            .filter(|s| cycle.iter().any(|e| e.from == s.0 && e.to == s.1))
        {
            for (k, e) in ways {
                if *k == 0 || !cycle.contains(e) || !truth(*k) {
                    continue;
                }
                if let Some((order, np)) = f.conflict_deps.get(k) {
                    needed.extend(order.iter().copied());
                    needed.extend(np.iter().copied().find(|&l| truth(l)));
                }
            }
        }
        needed.sort_unstable();
        needed.dedup();
        let atom_of: HashMap<Lit, Atom> = f.atoms.iter().map(|(&a, &l)| (l, a)).collect();
        let orient: Vec<(Node, Node, Lit)> = needed
            .iter()
            .map(|&l| {
                let (x, y) = match atom_of[&l.abs()] {
                    Atom::CommitBeforeEvent(w, p) => (Step::Commit(w), Step::Event(p)),
                    Atom::CommitBeforeCommit(w1, w2) => (Step::Commit(w1), Step::Commit(w2)),
                };
                if l > 0 {
                    (x, y, l)
                } else {
                    (y, x, l)
                }
            })
            .collect();
        Ok(match sort_exact(trace, &orient) {
            Err(true_lits) => Judged::Block(true_lits),
            Ok(execution) => match verify_execution_cycle(trace, &execution, &cycle) {
                Ok(()) => Judged::Found(Verdict::Violation(Box::new(Witness::Execution {
                    execution,
                    cycle,
                }))),
                Err(why) => return Err(SatError::Unverified(why)),
            },
        })
    })
}

/// What a model means: a verified verdict, or true literals to block (a lazy cut).
enum Judged {
    Found(Verdict),
    Block(Vec<Lit>),
}

/// Encodes and solves each component in turn; `judge` turns a model into a witness or
/// a cut. Serializable when every component is unsatisfiable.
fn solve_components(
    trace: &Trace,
    kind: SolverKind,
    stop: &Stop,
    st: &mut SatStats,
    comps: &[Vec<usize>],
    encode: impl Fn(usize, &[usize]) -> Formula,
    judge: impl Fn(&Formula, &dyn Solver) -> Result<Judged, SatError>,
) -> Result<Verdict, SatError> {
    for (i, comp) in comps.iter().enumerate() {
        let f = st.time("encoding", || encode(i, comp));
        record_formula(st, &f);
        // Lazy first: the order propagator pays on every assignment, and many
        // formulas never need a cut (the 3-SAT reductions: 4-10x faster without it).
        // The first cut shows the order matters; the solver is then built again with
        // the propagator, and takes that cut.
        let mut propagating = false;
        let mut b = make_solver(kind, &f, trace, stop, propagating)?;
        loop {
            match solve_once(&mut *b, st, stop) {
                Err(v) => return Ok(v),
                Ok(false) => break,
                Ok(true) => {}
            }
            match judge(&f, &*b)? {
                Judged::Found(v) => return Ok(v),
                Judged::Block(true_lits) => {
                    st.lazy_cuts += 1;
                    if !propagating && kind.propagates_order() {
                        propagating = true;
                        b = make_solver(kind, &f, trace, stop, true)?;
                    }
                    let clause: Vec<Lit> = true_lits.iter().map(|l| -l).collect();
                    b.add_clause(&clause);
                }
            }
        }
    }
    Ok(Verdict::Serializable)
}

fn record_front(st: &mut SatStats, seen: &super::front::Seen) {
    st.forced_edges = seen.forced_edges;
    st.varying_pairs = seen.varying;
    st.components = seen.components;
    st.single_event_components = seen.single_event;
    st.largest_component = seen.largest;
}

fn record_formula(st: &mut SatStats, f: &Formula) {
    st.variables += f.num_vars() as u64;
    st.clauses += f.clauses.len() as u64;
    st.order_clauses += f.order_clauses.len() as u64;
}

/// The transaction cycle of a model: follow chosen successors inside S.
fn model_cycle(f: &Formula, b: &dyn Solver) -> Vec<Edge> {
    let truth = |l: Lit| l == 0 || (l > 0 && b.value(l)) || (l < 0 && !b.value(-l));
    let in_s: HashMap<usize, bool> = f.in_set.iter().map(|&(t, v)| (t, b.value(v))).collect();
    let mut next: HashMap<usize, Edge> = HashMap::new();
    for (t, u, y, ways) in &f.succ {
        if in_s[t] && in_s[u] && b.value(*y) && !next.contains_key(t) {
            if let Some((_, e)) = ways.iter().find(|(l, _)| truth(*l)) {
                next.insert(*t, *e);
            }
        }
    }
    let start = f
        .in_set
        .iter()
        .find(|(t, v)| b.value(*v) && next.contains_key(t))
        .map(|x| x.0);
    let Some(mut at) = start else {
        return Vec::new();
    };
    let mut seen: HashMap<usize, usize> = HashMap::new();
    let mut path: Vec<Edge> = Vec::new();
    while let Some(e) = next.get(&at) {
        if let Some(&i) = seen.get(&at) {
            return path[i..].to_vec();
        }
        seen.insert(at, path.len());
        path.push(*e);
        at = e.to;
    }
    Vec::new()
}

fn paper(
    trace: &Trace,
    kind: SolverKind,
    stop: &Stop,
    st: &mut SatStats,
) -> Result<Verdict, SatError> {
    let g = st.time("paper graph", || PaperGraph::new(trace));
    let front = match super::front::paper(trace, &g, &mut st.phases) {
        Ok(f) => f,
        Err(v) => return Ok(v),
    };
    let mut seen = super::front::Seen::default();
    seen.add(&front);
    record_front(st, &seen);
    let comps = &front.comps;
    let encode = |i: usize, comp: &[usize]| {
        encode::encode_paper(
            trace,
            &crate::graph::unpack_edges(trace, &front.forced[i]),
            &front.varying[i],
            comp,
        )
    };
    solve_components(trace, kind, stop, st, comps, encode, |f, b| {
        let cycle = model_cycle(f, b);
        // The oriented edges the cycle uses, with their literals.
        let used: Vec<(usize, usize, Lit)> = cycle
            .iter()
            .filter(|e| e.rule == crate::trace::conflict::Rule::PaperOriented)
            .map(|e| {
                let (Step::Event(a), Step::Event(c)) = (e.src, e.dst) else {
                    unreachable!()
                };
                let l = f
                    .roles
                    .iter()
                    .position(|r| matches!(r, VarRole::Used(x, y) if *x == a && *y == c))
                    .expect("a used-edge variable") as Lit
                    + 1;
                (a, c, l)
            })
            .collect();
        Ok(match orient_paper(&g, trace.len(), &used) {
            Err(lits) => Judged::Block(lits),
            Ok(oriented) => {
                let w = Witness::Orientation { oriented, cycle };
                match verify(trace, &w) {
                    Ok(()) => Judged::Found(Verdict::Violation(Box::new(w))),
                    Err(why) => return Err(SatError::Unverified(why)),
                }
            }
        })
    })
}
