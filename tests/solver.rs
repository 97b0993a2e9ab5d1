//! The solver layer's conformance suite: the same tests on every backend, one line per
//! backend (the way rustsat's `solvertests` macros test its solvers). A new backend
//! adds its line.

use std::collections::HashMap;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tsoser::solver::{
    self, Answer, Lit, OrderGraph, Point, Positions, Problem, Solver, SolverKind, Term,
};
use tsoser::stop::Stop;

/// The tests of one backend, as a module named after it.
macro_rules! conformance {
    ($name:ident, $kind:expr) => {
        mod $name {
            use super::*;

            #[test]
            fn a_satisfiable_formula_has_a_model_of_its_clauses() {
                satisfiable($kind);
            }

            #[test]
            fn an_unsatisfiable_formula_is_unsat() {
                unsatisfiable($kind);
            }

            #[test]
            fn clauses_added_after_a_solve_count_in_the_next() {
                incremental($kind);
            }

            #[test]
            fn an_expired_deadline_or_a_set_flag_is_unknown() {
                stopped($kind);
            }

            #[test]
            fn a_deadline_ends_a_long_call() {
                deadline_mid_call($kind);
            }

            #[test]
            fn a_cycle_of_order_atoms_is_refuted() {
                order_cycle($kind);
            }
        }
    };
}

conformance!(varisat, SolverKind::Varisat);
#[cfg(feature = "cadical")]
conformance!(cadical, SolverKind::Cadical);
#[cfg(feature = "z3")]
conformance!(z3, SolverKind::Z3);

fn solver(kind: SolverKind, vars: usize, clauses: &[Vec<Lit>], stop: &Stop) -> Box<dyn Solver> {
    let problem = Problem {
        vars,
        clauses,
        ..Problem::default()
    };
    solver::new(kind, problem, stop).expect("the backend is built in")
}

/// Whether the last model satisfies every clause.
fn model_satisfies(s: &dyn Solver, clauses: &[Vec<Lit>]) -> bool {
    clauses
        .iter()
        .all(|c| c.iter().any(|&l| s.value(l.abs()) == (l > 0)))
}

/// `pigeons` pigeons into one hole fewer: unsatisfiable, and hard for CDCL from about ten.
fn pigeonhole(pigeons: Lit) -> (usize, Vec<Vec<Lit>>) {
    let holes = pigeons - 1;
    let v = |p: Lit, h: Lit| p * holes + h + 1;
    let mut clauses: Vec<Vec<Lit>> = (0..pigeons)
        .map(|p| (0..holes).map(|h| v(p, h)).collect())
        .collect();
    for h in 0..holes {
        for p in 0..pigeons {
            for q in p + 1..pigeons {
                clauses.push(vec![-v(p, h), -v(q, h)]);
            }
        }
    }
    ((pigeons * holes) as usize, clauses)
}

fn satisfiable(kind: SolverKind) {
    // Only 1 false, 2 true, 3 false (4 either way) satisfies it.
    let clauses = vec![
        vec![1, 2],
        vec![-1, 3],
        vec![-2, -3],
        vec![-3, 4],
        vec![2, -4],
    ];
    let mut s = solver(kind, 4, &clauses, &Stop::default());
    assert_eq!(s.solve(), Answer::Sat);
    assert!(model_satisfies(&*s, &clauses));
    assert!(!s.value(1) && s.value(2) && !s.value(3));
}

fn unsatisfiable(kind: SolverKind) {
    let (vars, clauses) = pigeonhole(4);
    let mut s = solver(kind, vars, &clauses, &Stop::default());
    assert_eq!(s.solve(), Answer::Unsat);
}

fn incremental(kind: SolverKind) {
    let mut clauses = vec![vec![1, 2], vec![-1, -2, 3]];
    let mut s = solver(kind, 3, &clauses, &Stop::default());
    assert_eq!(s.solve(), Answer::Sat);
    for (more, answer) in [
        (vec![-1], Answer::Sat),
        (vec![-3], Answer::Sat),
        (vec![-2, 1], Answer::Unsat),
    ] {
        s.add_clause(&more);
        clauses.push(more);
        assert_eq!(s.solve(), answer, "after {clauses:?}");
        if answer == Answer::Sat {
            assert!(model_satisfies(&*s, &clauses), "{clauses:?}");
        }
    }
}

fn stopped(kind: SolverKind) {
    let (vars, clauses) = pigeonhole(10);
    let set = Arc::new(AtomicBool::new(true));
    let stops = [
        ("expired deadline", Stop::at(Some(Instant::now()))),
        ("set flag", Stop::default().or_flag(&set)),
    ];
    for (what, stop) in stops {
        let mut s = solver(kind, vars, &clauses, &stop);
        assert_eq!(s.solve(), Answer::Unknown, "{what}");
    }
}

fn deadline_mid_call(kind: SolverKind) {
    let (vars, clauses) = pigeonhole(12);
    let stop = Stop::after(Some(Duration::from_millis(300)));
    let mut s = solver(kind, vars, &clauses, &stop);
    let t = Instant::now();
    assert_eq!(s.solve(), Answer::Unknown);
    assert!(
        t.elapsed() < Duration::from_millis(600),
        "{:?}",
        t.elapsed()
    );
}

/// Atoms 1: a before b, 2: b before c, 3: c before a, all three asserted: each clause
/// alone is fine, the order is cyclic. A backend with an order theory (CaDiCaL's
/// propagator on the graph, z3's positions) refutes it in one call; the others give
/// cyclic models, which the caller's lazy loop cuts, to the same answer.
fn order_cycle(kind: SolverKind) {
    let atoms: HashMap<Lit, [(u32, u32); 2]> = [(1, (0, 1)), (2, (1, 2)), (3, (2, 0))]
        .into_iter()
        .map(|(l, (x, y))| (l, [(x, y), (y, x)]))
        .collect();
    let graph = OrderGraph::new(vec![Vec::new(); 3], vec![0, 1, 2], atoms);
    let point = |name: &str| Point {
        name: name.into(),
        after: 0,
        before: 10,
        follows: None,
    };
    let positions = Positions {
        atoms: vec![
            (1, Term::Point(0), Term::Point(1)),
            (2, Term::Point(1), Term::Point(2)),
            (3, Term::Point(2), Term::Point(0)),
        ],
        points: vec![point("a"), point("b"), point("c")],
    };
    let clauses = vec![vec![1], vec![2], vec![3]];
    let problem = Problem {
        vars: 3,
        clauses: &clauses,
        graphs: vec![graph.clone()],
        positions: Some(positions),
        ..Problem::default()
    };
    let mut s = solver::new(kind, problem, &Stop::default()).expect("built in");
    let mut lazy_cuts = 0;
    loop {
        match s.solve() {
            Answer::Unsat => break,
            Answer::Unknown => panic!("no stop was given"),
            Answer::Sat => {}
        }
        let mut g = graph.clone();
        let cuts: Vec<Vec<Lit>> = (1..=3)
            .filter_map(|v| g.assign(if s.value(v) { v } else { -v }))
            .collect();
        assert!(!cuts.is_empty(), "an acyclic model of a cyclic order");
        lazy_cuts += cuts.len();
        cuts.iter().for_each(|c| s.add_clause(c));
    }
    let theory = kind.propagates_order() || kind.uses_positions();
    assert_eq!(lazy_cuts == 0, theory, "{lazy_cuts} lazy cuts");
    assert_eq!(s.propagated_cuts() > 0, kind.propagates_order());
}
