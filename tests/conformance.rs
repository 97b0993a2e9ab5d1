//! One conformance suite, written once and applied to every decider through the
//! library's front door (`check::decide`), with brute as the oracle: same verdict in
//! each semantics on generated traces, and every witness re-checks. A new decider or
//! solver backend is one line in [`backends`].

use crate::common;

use common::config;
use proptest::prelude::*;
use tsoser::check::decide::{decide, Algo, Budget, Question};
use tsoser::check::{brute, verify, Semantics, Verdict};
use tsoser::solver::SolverKind;
use tsoser::trace::strategy::{traces, Params};
use tsoser::trace::Trace;

/// The deciders under test, each with its budget.
fn backends() -> Vec<(&'static str, Algo, Budget)> {
    let jobs = |jobs| Budget {
        jobs,
        ..Budget::default()
    };
    let mut v = vec![
        (
            "sat/varisat",
            Algo::Sat(SolverKind::Varisat),
            Budget::default(),
        ),
        ("fpt, 1 worker", Algo::Fpt { fig4: false }, jobs(1)),
        ("fpt, all cores", Algo::Fpt { fig4: false }, jobs(0)),
        ("auto", Algo::AUTO, jobs(1)),
        (
            "auto, all to sat",
            Algo::Auto {
                solver: SolverKind::Varisat,
                first_jumps: 0,
            },
            jobs(1),
        ),
        (
            "auto, fpt for 3 jumps then sat",
            Algo::Auto {
                solver: SolverKind::Varisat,
                first_jumps: 3,
            },
            jobs(1),
        ),
    ];
    if cfg!(feature = "z3") {
        v.push(("sat/z3", Algo::Sat(SolverKind::Z3), Budget::default()));
    }
    if cfg!(feature = "cadical") {
        v.push((
            "sat/cadical",
            Algo::Sat(SolverKind::Cadical),
            Budget::default(),
        ));
    }
    // `TSOSER_CONFORMANCE=z3` runs only the deciders whose name contains "z3".
    if let Ok(only) = std::env::var("TSOSER_CONFORMANCE") {
        v.retain(|(name, _, _)| name.contains(only.as_str()));
    }
    v
}

fn oracle(trace: &Trace, sem: Semantics) -> Verdict {
    match sem {
        Semantics::Exact => brute::check_exact(trace, u64::MAX, &tsoser::Stop::default()).0,
        Semantics::Paper => brute::check_paper(trace, 1 << 22, &tsoser::Stop::default()).0,
    }
}

/// The conformance property for one trace.
fn conforms(trace: &Trace) -> Result<(), TestCaseError> {
    for sem in [Semantics::Exact, Semantics::Paper] {
        let want = oracle(trace, sem);
        if matches!(want, Verdict::Unknown(_)) {
            continue;
        }
        for (name, algo, budget) in backends() {
            let got = decide(trace, Question::Tso(sem), algo, &budget)
                .map_err(|e| TestCaseError::fail(e.to_string()))?
                .verdict;
            prop_assert_eq!(got.name(), want.name(), "{} {:?}", name, sem);
            if let Verdict::Violation(w) = &got {
                prop_assert_eq!(verify(trace, w), Ok(()), "{} {:?} witness", name, sem);
            }
        }
    }
    Ok(())
}

proptest! {
    // 4,000 traces a shape: the suite is the longest of CI's (z3's line most of it).
    #![proptest_config(config(4000))]

    #[test]
    fn backends_agree_with_brute(trace in traces(Params { min_events: 5, max_events: 9, ..Params::default() })) {
        conforms(&trace)?;
    }

    /// Biased toward buffered reads, fences and rmw (two threads, two variables).
    #[test]
    fn backends_agree_with_brute_buffered(trace in traces(Params { min_events: 6, max_events: 10, threads: 2, weights: [6, 6, 2, 2], ..Params::buffered() })) {
        conforms(&trace)?;
    }

    /// More threads (k = 4, 5): longer cycles.
    #[test]
    fn backends_agree_with_brute_many_threads(trace in traces(Params { min_events: 6, max_events: 10, threads: 5, vars: 3, ..Params::default() })) {
        conforms(&trace)?;
    }
}

/// The hard regime, small enough for brute: 1,000 dense traces (no fences, no rmw,
/// two variables), k = 2…6, 8–11 events; single-event transactions with the first two
/// of one thread merged (`gen --pairs 1`, the hard family of docs/performance.md) or mean
/// transactions of two events. Verdicts: brute's, in both semantics.
#[test]
fn backends_agree_with_brute_on_dense_traces() {
    use tsoser::trace::gen::{generate, pair_first, Shape};
    let mut violations = 0;
    for i in 0..1000u64 {
        let k = 2 + (i % 5) as usize;
        let shape = Shape {
            txn_len: if i % 4 == 3 { 2 } else { 1 },
            ..Shape::dense(8 + (i % 4) as usize, k, 2)
        };
        let mut trace = generate(&shape, i);
        if shape.txn_len == 1 {
            trace = pair_first(&trace, 1);
        }
        violations += usize::from(oracle(&trace, Semantics::Exact).is_violation());
        if let Err(e) = conforms(&trace) {
            panic!("dense trace {i} (k = {k}): {e}");
        }
    }
    // Both answers occur, so neither half is vacuous.
    assert!((100..900).contains(&violations), "{violations} violations");
}
