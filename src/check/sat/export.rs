//! `tsoser encode`: the formula in DIMACS CNF (with a variable table in comments) or
//! SMT-LIB 2, for any external solver; and a DIMACS reader for round trips.

use super::encode::{Atom, Formula, VarRole};
use crate::solver::Lit;
use crate::trace::exec::node_text;
use crate::trace::exec::Step;
use crate::trace::Trace;
use crate::trace::{ThreadId, TxnId};

/// What a variable means, in words (the DIMACS variable table).
pub fn describe_var(trace: &Trace, role: &VarRole) -> String {
    let txn = |t: usize| trace.txns[TxnId::new(t)].name.as_str();
    match role {
        VarRole::Atom(Atom::CommitBeforeEvent(w, p)) => {
            format!(
                "order: {} precedes {}",
                node_text(trace, Step::Commit(*w)),
                node_text(trace, Step::Event(*p))
            )
        }
        VarRole::Atom(Atom::CommitBeforeCommit(a, b)) => {
            format!(
                "order: {} precedes {}",
                node_text(trace, Step::Commit(*a)),
                node_text(trace, Step::Commit(*b))
            )
        }
        VarRole::InSet(t) => format!("cycle set: transaction {} is in S", txn(*t)),
        VarRole::Succ(t, u) => format!(
            "cycle edge: {} → {} with {} in S",
            txn(*t),
            txn(*u),
            txn(*u)
        ),
        VarRole::Conflict(a, b, r) => {
            format!(
                "conflict {:?}: {} → {}",
                r,
                node_text(trace, *a),
                node_text(trace, *b)
            )
        }
        VarRole::Precedes(a, b) => {
            format!(
                "paper: {} precedes {} in the orientation's topological order",
                node_text(trace, Step::Event(*a)),
                node_text(trace, Step::Event(*b))
            )
        }
        VarRole::Used(a, b) => {
            format!(
                "paper: undirected edge used as {} → {}",
                node_text(trace, Step::Event(*a)),
                node_text(trace, Step::Event(*b))
            )
        }
    }
}

/// DIMACS CNF of the formula with its order encoding. From
/// [`super::encode::export_formula`] it is exact: satisfiable iff not serializable.
pub fn to_dimacs(trace: &Trace, f: &Formula) -> String {
    let mut s = String::new();
    s.push_str(&format!(
        "c tsoser encoding of {}\n",
        crate::text::escaped(trace.name.as_deref().unwrap_or("trace"))
    ));
    s.push_str("c satisfiable <=> NOT TSO-serializable (exact: no lazy cuts needed)\n");
    for (i, r) in f.roles.iter().enumerate() {
        let what = describe_var(trace, r);
        s.push_str(&format!(
            "c var {} {}\n",
            i + 1,
            crate::text::escaped(&what)
        ));
    }
    let all: Vec<&Vec<Lit>> = f.clauses.iter().chain(&f.order_clauses).collect();
    s.push_str(&format!("p cnf {} {}\n", f.num_vars(), all.len()));
    for c in all {
        for l in c {
            s.push_str(&l.to_string());
            s.push(' ');
        }
        s.push_str("0\n");
    }
    s
}

/// Reads DIMACS CNF: (number of variables, clauses) — [`crate::cnf::Cnf::parse`]'s
/// formula with DIMACS literals.
pub fn parse_dimacs(text: &str) -> Result<(usize, Vec<Vec<Lit>>), crate::Error> {
    let f = crate::cnf::Cnf::parse(text)?;
    let lit = |l: crate::cnf::Lit| {
        let v = l.var as Lit;
        if l.positive {
            v
        } else {
            -v
        }
    };
    let clauses = f
        .clauses
        .iter()
        .map(|c| c.iter().map(|&l| lit(l)).collect())
        .collect();
    Ok((f.vars as usize, clauses))
}

/// SMT-LIB 2 (QF_LIDL: integer positions in difference logic) of the exact formula,
/// written without z3: each order atom is a comparison of commit positions (event p at
/// `m·(p+1)`, a commit strictly inside its window, FIFO per thread, room for every
/// commit in a gap with m = commits + 1), so no transitivity cut is needed; the other
/// variables are Booleans. Paper semantics (no positions) takes the eagerly closed
/// formula ([`super::encode::export_formula`]) as Booleans. Satisfiable iff not
/// serializable.
pub fn to_smt2(trace: &Trace, f: &Formula, semantics: crate::check::Semantics) -> String {
    use std::collections::BTreeMap;
    use std::fmt::Write as _;
    let mut s = String::new();
    let _ =
        writeln!(
        s,
        "; tsoser encoding of {} ({} semantics)\n; sat <=> NOT TSO-serializable\n(set-logic {})",
        crate::text::escaped(trace.name.as_deref().unwrap_or("trace")).replace('\n', " "),
        match semantics {
            crate::check::Semantics::Exact => "exact",
            crate::check::Semantics::Paper => "paper",
        },
        if semantics == crate::check::Semantics::Exact { "QF_LIA" } else { "QF_UF" }
    );
    let m = trace.writes().count() as i64 + 1;
    let at = |p: usize| m * (p as i64 + 1);
    let positions = semantics == crate::check::Semantics::Exact;
    let mut atom_of: BTreeMap<Lit, Atom> = BTreeMap::new();
    if positions {
        for (&a, &l) in &f.atoms {
            atom_of.insert(l, a);
        }
    }
    let mut commits: Vec<usize> = atom_of
        .values()
        .flat_map(|a| match *a {
            Atom::CommitBeforeEvent(w, _) => [Some(w), None],
            Atom::CommitBeforeCommit(a, b) => [Some(a), Some(b)],
        })
        .flatten()
        .collect();
    commits.sort_unstable();
    commits.dedup();
    for &w in &commits {
        let _ = writeln!(s, "(declare-fun c{w} () Int)");
        let _ = writeln!(
            s,
            "(assert (and (< {} c{w}) (< c{w} {})))",
            at(w),
            at(trace.commit_bound(w))
        );
    }
    let mut last: BTreeMap<ThreadId, usize> = BTreeMap::new();
    for &w in &commits {
        if let Some(prev) = last.insert(trace.events[w].thread, w) {
            let _ = writeln!(s, "(assert (< c{prev} c{w}))");
        }
    }
    for v in 1..=f.num_vars() as Lit {
        match atom_of.get(&v) {
            Some(Atom::CommitBeforeEvent(w, p)) => {
                let _ = writeln!(s, "(define-fun v{v} () Bool (< c{w} {}))", at(*p));
            }
            Some(Atom::CommitBeforeCommit(a, b)) => {
                let _ = writeln!(s, "(define-fun v{v} () Bool (< c{a} c{b}))");
            }
            None => {
                let _ = writeln!(s, "(declare-fun v{v} () Bool)");
            }
        }
    }
    let lit = |l: Lit| {
        if l > 0 {
            format!("v{l}")
        } else {
            format!("(not v{})", -l)
        }
    };
    let clauses: Vec<&Vec<Lit>> = if positions {
        f.clauses.iter().collect()
    } else {
        f.clauses.iter().chain(&f.order_clauses).collect()
    };
    for c in clauses {
        match c.as_slice() {
            [] => s.push_str("(assert false)\n"),
            [l] => {
                let _ = writeln!(s, "(assert {})", lit(*l));
            }
            ls => {
                let body: Vec<String> = ls.iter().map(|&l| lit(l)).collect();
                let _ = writeln!(s, "(assert (or {}))", body.join(" "));
            }
        }
    }
    s.push_str("(check-sat)\n");
    s
}
