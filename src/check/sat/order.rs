//! What the exact encoding's order atoms mean, for the backends that use it: the
//! [`OrderGraph`] CaDiCaL keeps acyclic during search, and z3's integer [`Positions`].
//!
//! The graph is the exact event graph (docs/semantics.md §5) restricted to the events
//! and commits the atoms name — the trace order among those events, `w → c(w)`,
//! `c(w) → h(w)`, FIFO between a thread's commits — plus one edge per assigned atom
//! (`c(w) ≺ p` true: `c(w) → p`, false: `p → c(w)`; likewise for two commits). Every
//! execution is acyclic in it, so the clauses it gives during search hold in every
//! execution; the lazy loop stays for what the restricted graph does not see, and
//! re-checks every model on the whole graph before it becomes a witness.
//!
//! The restriction loses no cycle among the atoms: a path through an event that no atom
//! names is a path along the trace order; one through a commit no atom names enters it
//! from its write or an earlier commit of its thread and leaves to a later commit of
//! the thread or its bound h(w) — both already ordered by the kept FIFO and bound edges.

use super::encode::{Atom, Formula};
use crate::solver::{Lit, Node, OrderGraph, Point, Positions, Term};
use crate::trace::exec::Step;
use crate::trace::{EventId, ThreadId, Trace};
use std::collections::HashMap;

/// The nodes and fixed edges of the restricted graph (module doc), before any atom.
pub(crate) struct Skeleton {
    /// The events kept, ascending.
    pub events: Vec<EventId>,
    /// The stores whose commits are kept, ascending.
    pub commits: Vec<EventId>,
    /// Trace order between consecutive kept events, `w → c(w)`, `c(w) → h(w)` and
    /// FIFO between a thread's kept commits.
    pub fixed: Vec<(Step, Step)>,
}

/// The events and commits `f`'s atoms name, with the fixed edges among them.
pub(crate) fn skeleton(trace: &Trace, f: &Formula) -> Skeleton {
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
    let mut fixed: Vec<(Step, Step)> = events
        .windows(2)
        .map(|p| (Step::Event(p[0]), Step::Event(p[1])))
        .collect();
    let mut last: HashMap<ThreadId, EventId> = HashMap::new();
    for &w in &commits {
        fixed.push((Step::Event(w), Step::Commit(w)));
        let h = trace.commit_bound(w);
        if h < trace.len() {
            fixed.push((Step::Commit(w), Step::Event(h)));
        }
        if let Some(prev) = last.insert(trace.events[w].thread, w) {
            fixed.push((Step::Commit(prev), Step::Commit(w)));
        }
    }
    Skeleton {
        events,
        commits,
        fixed,
    }
}

/// The graph of `f`'s order atoms over `trace`, with no atom assigned.
pub fn graph(trace: &Trace, f: &Formula) -> OrderGraph {
    let Skeleton {
        events,
        commits,
        fixed,
    } = skeleton(trace, f);
    let ev = |e: EventId| events.binary_search(&e).expect("a kept event") as Node;
    let cm =
        |w: EventId| (events.len() + commits.binary_search(&w).expect("a kept commit")) as Node;
    let node = |s: Step| match s {
        Step::Event(e) => ev(e),
        Step::Commit(w) => cm(w),
    };
    let nodes = events.len() + commits.len();
    let mut adj: Vec<Vec<(Node, Lit)>> = vec![Vec::new(); nodes];
    for (x, y) in fixed {
        adj[node(x) as usize].push((node(y), 0));
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
    OrderGraph::new(adj, ord, atom_edge)
}

/// The order atoms of `f` as integer positions: event p at `m·(p+1)`, the commit of
/// store w a point strictly between w and its bound h(w), with room for every commit in
/// one gap (m = commits + 1), after the thread's previous commit (FIFO).
pub fn positions(trace: &Trace, f: &Formula) -> Positions {
    let m = trace.writes().count() as i64 + 1;
    let at = |p: usize| m * (p as i64 + 1);
    let mut commits: Vec<EventId> = f
        .atoms
        .keys()
        .flat_map(|a| match *a {
            Atom::CommitBeforeEvent(w, _) => [Some(w), None],
            Atom::CommitBeforeCommit(w1, w2) => [Some(w1), Some(w2)],
        })
        .flatten()
        .collect();
    commits.sort_unstable();
    commits.dedup();
    let point = |w: EventId| Term::Point(commits.binary_search(&w).expect("a named commit"));
    let mut atoms: Vec<(Lit, Term, Term)> = f
        .atoms
        .iter()
        .map(|(a, &l)| match *a {
            Atom::CommitBeforeEvent(w, p) => (l, point(w), Term::At(at(p))),
            Atom::CommitBeforeCommit(w1, w2) => (l, point(w1), point(w2)),
        })
        .collect();
    atoms.sort_by_key(|a| a.0);
    let mut last: HashMap<ThreadId, usize> = HashMap::new();
    let points = commits
        .iter()
        .enumerate()
        .map(|(i, &w)| Point {
            name: format!("c{w}"),
            after: at(w),
            before: at(trace.commit_bound(w)),
            follows: last.insert(trace.events[w].thread, i),
        })
        .collect();
    Positions { atoms, points }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::sat::encode::whole_formula;
    use crate::check::Semantics;
    use crate::solver::Lit;
    use crate::trace::gen;

    /// `c(w) ≺ p` and not `c(w) ≺ q` for p < q is a cycle `c(w) → p → … → q → c(w)`: the
    /// second assignment returns the clause of the two; after backtracking it is gone.
    #[test]
    fn an_atom_closing_a_cycle_gives_its_clause_and_backtracking_removes_it() {
        let trace = gen::generate(&gen::Shape::dense(40, 5, 2), 1);
        let f = whole_formula(&trace, Semantics::Exact, &crate::stop::Stop::default()).unwrap();
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
        let mut g = graph(&trace, &f);
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
