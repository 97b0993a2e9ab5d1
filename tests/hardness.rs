//! The reduction of docs/hardness.md on the literal definition: τ_φ is not
//! TSO-serializable ⟺ φ is satisfiable, by brute force and by every other decider,
//! against an independent search over assignments; the assignment a witness's cycle
//! encodes satisfies φ.

use crate::common;

use tsoser::check::decide::{decide, Algo, Budget, Question};
use tsoser::check::{brute, verify, Semantics, Verdict};
use tsoser::reduction::{decode, one_transaction, sat_to_trace, Cnf, Lit};
use tsoser::solver::SolverKind;
use tsoser::trace::exec::Step;

/// Satisfiability by trying every assignment (independent of the library's own).
fn satisfiable(f: &Cnf) -> bool {
    (0u32..1 << f.vars).any(|bits| {
        f.clauses.iter().all(|c| {
            c.iter()
                .any(|l| (bits >> (l.var - 1) & 1 == 1) == l.positive)
        })
    })
}

fn deciders() -> Vec<(&'static str, Algo, Budget)> {
    let one = Budget {
        jobs: 1,
        ..Budget::default()
    };
    let mut v = vec![
        ("sat/varisat", Algo::Sat(SolverKind::Varisat), one.clone()),
        ("fpt", Algo::Fpt { fig4: false }, one.clone()),
        ("auto", Algo::AUTO, one.clone()),
    ];
    if cfg!(feature = "z3") {
        v.push(("sat/z3", Algo::Sat(SolverKind::Z3), one.clone()));
    }
    if cfg!(feature = "cadical") {
        v.push(("sat/cadical", Algo::Sat(SolverKind::Cadical), one));
    }
    v
}

/// Checks one formula with every decider, and with brute if it has at most `brute_max`
/// writes; returns whether it is satisfiable and whether brute answered.
fn check_formula(f: &Cnf, what: &str, brute_max: usize) -> (bool, bool) {
    let want = satisfiable(f);
    let r = sat_to_trace(f);
    let t = &r.trace;
    let by_brute = r.writes <= brute_max;
    if by_brute {
        let (brute, _) = brute::check_exact(t, u64::MAX, &tsoser::Stop::default());
        assert_eq!(
            brute.is_violation(),
            want,
            "{what}: brute on the trace of\n{}",
            f.to_dimacs()
        );
    }
    for (name, algo, budget) in deciders() {
        let got = decide(t, Question::Tso(Semantics::Exact), algo, &budget)
            .unwrap_or_else(|e| panic!("{what}: {name}: {e}"))
            .verdict;
        assert_eq!(
            got.is_violation(),
            want,
            "{what}: {name}\n{}",
            f.to_dimacs()
        );
        if let Verdict::Violation(w) = &got {
            assert_eq!(verify(t, w), Ok(()), "{what}: {name}: witness");
            let names: Vec<&str> = w
                .cycle()
                .iter()
                .map(|e| match e.src {
                    Step::Event(x) | Step::Commit(x) => t.txn_name(x),
                })
                .collect();
            let a = decode(f, &names).unwrap_or_else(|| {
                panic!("{what}: {name}: cycle {names:?} decodes to no assignment")
            });
            assert!(f.satisfied_by(&a), "{what}: {name}: cycle {names:?}");
        } else {
            assert!(
                matches!(got, Verdict::Serializable),
                "{what}: {name}: {got:?}"
            );
        }
    }
    (want, by_brute)
}

/// The clauses of 1–2 literals over 2 variables (tautologies included).
fn small_clauses() -> Vec<Vec<Lit>> {
    let lits: Vec<Lit> = (1..=2)
        .flat_map(|v| [true, false].map(|positive| Lit { var: v, positive }))
        .collect();
    let mut clauses: Vec<Vec<Lit>> = lits.iter().map(|&l| vec![l]).collect();
    for i in 0..lits.len() {
        for j in i + 1..lits.len() {
            clauses.push(vec![lits[i], lits[j]]);
        }
    }
    clauses
}

/// Every formula of 1–3 clauses over 2 variables, clauses of 1–2 literals (tautologies
/// included: the construction drops them), as multisets: 285 formulas.
#[test]
fn every_small_formula_is_satisfiable_iff_its_trace_is_not_serializable() {
    let clauses = small_clauses();
    let (mut sat, mut unsat) = (0, 0);
    let n = clauses.len();
    let mut formulas: Vec<Vec<usize>> = Vec::new();
    for a in 0..n {
        formulas.push(vec![a]);
        for b in a..n {
            formulas.push(vec![a, b]);
            for c in b..n {
                formulas.push(vec![a, b, c]);
            }
        }
    }
    assert_eq!(formulas.len(), 285);
    for (i, pick) in formulas.iter().enumerate() {
        let f = Cnf {
            vars: 2,
            clauses: pick.iter().map(|&c| clauses[c].clone()).collect(),
        };
        let (is_sat, _) = check_formula(&f, &format!("formula {i}"), usize::MAX);
        if is_sat {
            sat += 1;
        } else {
            unsat += 1;
        }
    }
    assert_eq!((sat, unsat), (255, 30));
}

/// Theorem 1 of docs/hardness.md: with one transaction of two events (both placements
/// of its first read), the trace is still not serializable exactly when φ is
/// satisfiable — by auto, by varisat, and by brute up to 6 writes — on the same 285
/// formulas. A violation's witness re-checks.
#[test]
fn one_transaction_of_two_events_is_enough_for_hardness() {
    let clauses = small_clauses();
    let n = clauses.len();
    let one = Budget {
        jobs: 1,
        ..Budget::default()
    };
    let (mut sat, mut unsat, mut by_brute) = (0, 0, 0);
    for a in 0..n {
        for b in a..=n {
            for c in b..=n {
                // b == n or c == n: fewer clauses.
                let pick: Vec<usize> = [a, b, c].into_iter().filter(|&x| x < n).collect();
                let f = Cnf {
                    vars: 2,
                    clauses: pick.iter().map(|&c| clauses[c].clone()).collect(),
                };
                let want = satisfiable(&f);
                let r = sat_to_trace(&f);
                for at_start in [false, true] {
                    let t = one_transaction(&r, at_start);
                    let multi: Vec<usize> = tsoser::analysis::multi_event(&t)
                        .iter()
                        .enumerate()
                        .filter(|(_, &m)| m)
                        .map(|(i, _)| i)
                        .collect();
                    assert_eq!(multi.len(), 1, "{}", f.to_dimacs());
                    assert_eq!(t.txns[tsoser::trace::TxnId::new(multi[0])].name, "Zp");
                    for (name, algo) in [
                        ("auto", Algo::AUTO),
                        ("sat/varisat", Algo::Sat(SolverKind::Varisat)),
                    ] {
                        let got = decide(&t, Question::Tso(Semantics::Exact), algo, &one)
                            .unwrap_or_else(|e| panic!("{name}: {e}"))
                            .verdict;
                        assert_eq!(got.is_violation(), want, "{name} on\n{}", f.to_dimacs());
                        if let Verdict::Violation(w) = &got {
                            assert_eq!(verify(&t, w), Ok(()), "{name}: witness");
                        }
                    }
                    if r.writes <= 6 {
                        by_brute += 1;
                        let (v, _) = brute::check_exact(&t, u64::MAX, &tsoser::Stop::default());
                        assert_eq!(v.is_violation(), want, "brute on\n{}", f.to_dimacs());
                    }
                }
                if want {
                    sat += 1;
                } else {
                    unsat += 1;
                }
            }
        }
    }
    assert_eq!((sat, unsat), (255, 30));
    assert!(by_brute > 100, "{by_brute}");
}

/// 1,000 random formulas: 1–5 variables, 1–8 clauses of 1–3 literals, fixed seeds;
/// brute on those of at most 10 writes. Brute enumerates executions — on these traces
/// about 3^W classes for W writes (each commit before, between or after its two
/// reads): 0.3–1.4 s at W = 12–13, minutes for the 1,000. Past 10 writes the other
/// deciders answer alone (each is held to brute on generic traces by
/// tests/conformance.rs) and their witnesses are decoded.
#[test]
fn random_formulas_are_satisfiable_iff_their_traces_are_not_serializable() {
    let (mut sat, mut unsat, mut brute) = (0, 0, 0);
    for seed in 0..1000u64 {
        let vars = 1 + (seed % 5) as u32;
        let k = 1 + (seed / 5 % 3) as usize;
        let clauses = 1 + (seed / 15 % 8) as usize;
        let f = Cnf::random(vars.max(k as u32), clauses, k, seed);
        let (is_sat, by_brute) = check_formula(&f, &format!("seed {seed}"), 10);
        brute += usize::from(by_brute);
        if is_sat {
            sat += 1;
        } else {
            unsat += 1;
        }
    }
    assert!(sat > 300 && unsat > 100, "{sat} satisfiable, {unsat} not");
    assert!(brute > 200, "brute answered on {brute}");
}

/// The empty formula holds: its trace (one dummy gadget) has a cycle; a formula with
/// an empty clause does not hold: its trace is serializable.
#[test]
fn the_empty_formula_and_the_empty_clause() {
    assert!(
        check_formula(
            &Cnf {
                vars: 0,
                clauses: vec![]
            },
            "no clause",
            usize::MAX
        )
        .0
    );
    let f = Cnf {
        vars: 1,
        clauses: vec![vec![Lit::dimacs(1)], vec![]],
    };
    assert!(!check_formula(&f, "an empty clause", usize::MAX).0);
}

/// The size stated in docs/hardness.md: 3 events per write, W = 2L + D.
#[test]
fn the_trace_has_the_stated_size() {
    for seed in 0..50 {
        let f = Cnf::random(6, 20, 3, seed);
        let r = sat_to_trace(&f);
        let dummies = r.writes - 2 * r.occurrences;
        assert!(dummies <= 2 * r.vars);
        assert_eq!(r.trace.events.len(), 3 * r.writes);
        let threads = r.trace.threads.len();
        assert!(
            threads <= 2 * r.occurrences + dummies + r.clauses + 1,
            "{threads}"
        );
    }
}

/// How the paper's graph (Def. 4, Thm. 5) answers: a violation on satisfiable and
/// unsatisfiable formulas alike once a gadget has two options (docs/hardness.md), and
/// brute's paper mode agrees with that reading.
#[test]
fn the_papers_graph_reports_unsatisfiable_formulas_too() {
    let unsat = Cnf::parse("p cnf 1 2\n1 0\n-1 0\n").unwrap();
    let t = sat_to_trace(&unsat).trace;
    assert!(!brute::check_exact(&t, u64::MAX, &tsoser::Stop::default())
        .0
        .is_violation());
    assert!(brute::check_paper(&t, 1 << 22, &tsoser::Stop::default())
        .0
        .is_violation());
}

mod cli {
    use super::common::{stderr, stdout, tsoser, tsoser_exits};

    fn temp(name: &str, text: &str) -> String {
        let dir = std::env::temp_dir().join(format!("tsoser-hardness-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p.display().to_string()
    }

    #[test]
    fn gen_family_sat_writes_the_trace_of_a_cnf_file() {
        let sat = temp("sat.cnf", "c x1 or x2, not x1\np cnf 2 2\n1 2 0\n-1 0\n");
        let unsat = temp("unsat.cnf", "p cnf 1 2\n1 0\n-1 0\n");
        for (cnf, exit) in [(&sat, 1), (&unsat, 0)] {
            let trace = cnf.replace(".cnf", ".yaml");
            tsoser_exits(&["gen", "--family", "sat", "--cnf", cnf, "-o", &trace], 0);
            tsoser_exits(&["check", &trace], exit);
        }
    }

    #[test]
    fn gen_family_sat_random_repeats_with_its_seed_and_writes_the_formula() {
        let cnf = temp("random.cnf", "");
        let args = |seed: &'static str| {
            let mut a = vec!["gen", "--family", "sat", "--random", "--vars", "5"];
            a.extend(["--clauses", "12", "--seed", seed]);
            a
        };
        let one = stdout(&tsoser_exits(&args("3"), 0));
        assert_eq!(one, stdout(&tsoser_exits(&args("3"), 0)));
        assert_ne!(one, stdout(&tsoser_exits(&args("4"), 0)));
        let mut with_cnf = args("3");
        with_cnf.extend(["--write-cnf", &cnf]);
        tsoser_exits(&with_cnf, 0);
        let text = std::fs::read_to_string(&cnf).unwrap();
        assert!(text.starts_with("p cnf 5 12\n"), "{text}");
    }

    #[test]
    fn bad_formulas_and_flags_are_input_errors() {
        let bad = temp("bad.cnf", "p cnf 2 1\n1 3 0\n");
        let o = tsoser_exits(&["gen", "--family", "sat", "--cnf", &bad], 2);
        assert!(stderr(&o).contains("bad.cnf:2:"), "{}", stderr(&o));
        assert!(
            stderr(&o).contains("declares 2 variables"),
            "{}",
            stderr(&o)
        );
        let o = tsoser_exits(&["gen", "--family", "sat", "--cnf", "/nonexistent.cnf"], 2);
        assert!(stderr(&o).contains("/nonexistent.cnf"), "{}", stderr(&o));
        for (args, what) in [
            (&["gen", "--family", "sat"][..], "--cnf FILE or --random"),
            (&["gen", "--one-txn"][..], "go with --family sat"),
            (
                &[
                    "gen",
                    "--family",
                    "sat",
                    "--random",
                    "--vars",
                    "2",
                    "--clause-len",
                    "3",
                ][..],
                "--clause-len",
            ),
            (
                &["gen", "--family", "sat", "--random", "--vars", "0"][..],
                "--vars",
            ),
            (&["gen", "--random"][..], "--family sat"),
            (&["gen", "--clause-len", "2"][..], "--family sat"),
            (
                &["gen", "--family", "sat", "--cnf", &bad, "--vars", "3"][..],
                "not --cnf",
            ),
        ] {
            let o = tsoser(args);
            assert_eq!(o.status.code(), Some(2), "{args:?}");
            assert!(stderr(&o).contains(what), "{args:?}: {}", stderr(&o));
        }
    }
}

/// `--algo sat` starts without CaDiCaL's order propagator and builds it only once a
/// model needs a lazy cut: the reductions never need one (and solve 4–10× faster
/// without it at 125–200 variables, docs/performance.md), the dense traces do.
#[cfg(feature = "cadical")]
#[test]
fn sat_builds_the_order_propagator_only_after_a_lazy_cut() {
    use tsoser::check::sat::check_sat;
    use tsoser::trace::gen;
    let stop = tsoser::Stop::default();
    let f = Cnf::random(20, 85, 3, 0);
    let (v, st) = check_sat(
        &sat_to_trace(&f).trace,
        Semantics::Exact,
        SolverKind::Cadical,
        &stop,
    )
    .unwrap();
    assert_eq!(v.is_violation(), satisfiable(&f));
    assert_eq!((st.lazy_cuts, st.propagated_cuts), (0, 0));
    let dense = gen::pair_first(&gen::generate(&gen::Shape::dense(40, 5, 2), 1), 1);
    let (v, st) = check_sat(&dense, Semantics::Exact, SolverKind::Cadical, &stop).unwrap();
    assert!(v.is_serializable());
    assert!(st.lazy_cuts >= 1, "{st:?}");
    assert!(st.propagated_cuts >= 1, "{st:?}");
}
