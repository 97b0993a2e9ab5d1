//! `tsoser encode --format asp`: the lazy formula ([`super::encode::whole_formula`]) as
//! an ASP program for clingo 5.8, where `#edge` directives keep the order acyclic in
//! place of the lazy cuts (and of the DIMACS export's eager closure). It has an answer
//! set iff the trace is not serializable.
//!
//! - *exact*: the graph CaDiCaL's propagator watches (`check::sat::order`): its fixed
//!   edges, and per order atom its edge one way when true and the other way when
//!   false. Acyclic: a topological sort is an execution where every atom holds.
//! - *paper*: the directed edges of Def. 4 and each used undirected edge; acyclic: it
//!   extends to a valid orientation (`encodings/README.md`, "paper").
//!
//! Variable N of the formula is the atom `v(N)`, listed with its meaning in comments;
//! nodes are `e(P)` (event P) and, in exact semantics, `c(W)` (the commit of store W).

use super::encode::{Atom, Formula, VarRole};
use super::export::describe_var;
use crate::check::Semantics;
use crate::graph::paper::PaperGraph;
use crate::solver::Lit;
use crate::trace::exec::Step;
use crate::trace::Trace;
use std::fmt::Write as _;

/// The node name of `s` in the program.
fn node(s: Step) -> String {
    match s {
        Step::Event(p) => format!("e({p})"),
        Step::Commit(w) => format!("c({w})"),
    }
}

/// The ASP program of `f` (from [`super::encode::whole_formula`] with `semantics`):
/// a choice of every variable, one integrity constraint per clause, and the `#edge`
/// graph that must stay acyclic. `f.order_clauses` are left out: the acyclicity implies
/// them, and clingo proves serializable dense traces faster without them.
pub fn to_asp(trace: &Trace, f: &Formula, semantics: Semantics) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "% tsoser encoding of {} ({} semantics), an ASP program for clingo 5.8\n\
         % an answer set exists (SATISFIABLE) <=> NOT TSO-serializable\n\
         % v(N): variable N; {}",
        crate::text::escaped(trace.name.as_deref().unwrap_or("trace")),
        match semantics {
            Semantics::Exact => "exact",
            Semantics::Paper => "paper",
        },
        match semantics {
            Semantics::Exact => "e(P): event P; c(W): the commit of store W",
            Semantics::Paper => "e(P): event P",
        }
    );
    for (i, r) in f.roles.iter().enumerate() {
        let what = describe_var(trace, r);
        let _ = writeln!(s, "% v({}): {}", i + 1, crate::text::escaped(&what));
    }
    if f.num_vars() > 0 {
        let _ = writeln!(s, "{{ v(1..{}) }}.", f.num_vars());
    }
    s.push_str("% each clause: no answer set makes all its literals false\n");
    for c in &f.clauses {
        let body: Vec<String> = c
            .iter()
            .map(|&l| {
                if l > 0 {
                    format!("not v({l})")
                } else {
                    format!("v({})", -l)
                }
            })
            .collect();
        if body.is_empty() {
            s.push_str(":- #true.\n");
        } else {
            let _ = writeln!(s, ":- {}.", body.join(", "));
        }
    }
    match semantics {
        Semantics::Exact => exact_edges(&mut s, trace, f),
        Semantics::Paper => paper_edges(&mut s, trace, f),
    }
    s
}

/// Exact semantics: the fixed edges, then each order atom's two edges.
fn exact_edges(s: &mut String, trace: &Trace, f: &Formula) {
    s.push_str("% fixed: trace order, w -> c(w), c(w) -> h(w), FIFO\n");
    for (x, y) in super::order::skeleton(trace, f).fixed {
        let _ = writeln!(s, "#edge ({}, {}).", node(x), node(y));
    }
    s.push_str("% order atoms: true puts the first node before the second, false after\n");
    let mut atoms: Vec<(Lit, Atom)> = f.atoms.iter().map(|(&a, &l)| (l, a)).collect();
    atoms.sort_unstable_by_key(|a| a.0);
    for (l, a) in atoms {
        let (x, y) = match a {
            Atom::CommitBeforeEvent(w, p) => (Step::Commit(w), Step::Event(p)),
            Atom::CommitBeforeCommit(w1, w2) => (Step::Commit(w1), Step::Commit(w2)),
        };
        let (x, y) = (node(x), node(y));
        let _ = writeln!(
            s,
            "#edge ({x}, {y}) : v({l}).\n#edge ({y}, {x}) : not v({l})."
        );
    }
}

/// Paper semantics: the directed edges of Def. 4, then each used undirected edge.
fn paper_edges(s: &mut String, trace: &Trace, f: &Formula) {
    s.push_str("% directed edges (a subset with the same reachability)\n");
    for &(a, b) in &PaperGraph::new(trace).directed {
        let _ = writeln!(s, "#edge (e({a}), e({b})).");
    }
    s.push_str("% undirected edges, as used\n");
    for (i, r) in f.roles.iter().enumerate() {
        if let VarRole::Used(a, b) = r {
            let _ = writeln!(s, "#edge (e({a}), e({b})) : v({}).", i + 1);
        }
    }
}
