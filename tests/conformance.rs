//! One conformance suite, written once and applied to every decider backend
//! (brute is the oracle): same verdict in each semantics on generated traces, and every
//! witness re-checks. Backends: sat/varisat, sat/z3 (feature `z3`), fpt (one worker
//! and all cores).

mod common;

use common::config;
use proptest::prelude::*;
use tsoser::check::fpt::{check_fpt, FptOptions};
use tsoser::check::sat::{check_sat, SolverKind};
use tsoser::check::{brute, verify, Semantics, Verdict};
use tsoser::trace::strategy::{traces, Params};
use tsoser::trace::Trace;

/// A decider under test.
#[derive(Clone, Copy, Debug)]
enum Backend {
    Sat(SolverKind),
    Fpt { jobs: usize },
}

/// The backends under test.
fn backends() -> Vec<Backend> {
    let mut v = vec![Backend::Sat(SolverKind::Varisat)];
    if cfg!(feature = "z3") {
        v.push(Backend::Sat(SolverKind::Z3));
    }
    v.push(Backend::Fpt { jobs: 1 });
    v.push(Backend::Fpt { jobs: 0 });
    v
}

fn run(b: Backend, trace: &Trace, sem: Semantics) -> Result<Verdict, String> {
    match b {
        Backend::Sat(kind) => check_sat(trace, sem, kind, None)
            .map(|x| x.0)
            .map_err(|e| e.to_string()),
        Backend::Fpt { jobs } => {
            let o = FptOptions {
                jobs,
                ..FptOptions::default()
            };
            check_fpt(trace, sem, o)
                .map(|x| x.0)
                .map_err(|e| e.to_string())
        }
    }
}

fn oracle(trace: &Trace, sem: Semantics) -> Verdict {
    match sem {
        Semantics::Exact => brute::check_exact(trace, u64::MAX).0,
        Semantics::Paper => brute::check_paper(trace, 1 << 22).0,
    }
}

/// The conformance property for one trace.
fn conforms(trace: &Trace) -> Result<(), TestCaseError> {
    for sem in [Semantics::Exact, Semantics::Paper] {
        let want = oracle(trace, sem);
        if matches!(want, Verdict::Unknown { .. }) {
            continue;
        }
        for kind in backends() {
            let got = run(kind, trace, sem).map_err(TestCaseError::fail)?;
            prop_assert_eq!(got.name(), want.name(), "{:?} {:?}", kind, sem);
            if let Verdict::Violation(w) = &got {
                prop_assert_eq!(verify(trace, w), Ok(()), "{:?} {:?} witness", kind, sem);
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(config(5000))]

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
