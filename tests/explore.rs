//! The program explorer against run enumeration (the definitions), the litmus suite
//! against Dat3M's expected verdicts, and the monitors against the robustness theorems.

use crate::common;

use common::config;
use proptest::prelude::*;
use std::collections::{BTreeMap, BTreeSet};
use tsoser::explore::machine::{Machine, Settled, Step};
use tsoser::explore::replay::replay;
use tsoser::explore::robust::{check_witness, hb_cycle, robust};
use tsoser::explore::states::explore;
use tsoser::explore::{Config, Model};
use tsoser::program::strategy::{programs, ProgParams};
use tsoser::program::Program;

/// Every complete run of a program (no memoisation: the definition).
fn all_runs(m: &Machine) -> Vec<Vec<Step>> {
    fn go(
        m: &Machine,
        s: &tsoser::explore::machine::State,
        path: &mut Vec<Step>,
        out: &mut Vec<Vec<Step>>,
    ) {
        if m.is_final(s) {
            out.push(path.clone());
            return;
        }
        let mut steps = Vec::new();
        m.enabled(s, &mut steps);
        for st in steps {
            let mut s2 = s.clone();
            let (_, settled) = m.apply(&mut s2, st);
            assert_eq!(
                settled,
                Settled::Ok,
                "generated programs have no assume/assert"
            );
            path.push(st);
            go(m, &s2, path, out);
            path.pop();
        }
    }
    let (s0, _) = m.initial();
    let mut out = Vec::new();
    go(m, &s0, &mut Vec::new(), &mut out);
    out
}

/// Outcomes with run counts, and the shortest prefix of a run with an hb cycle.
fn oracle(p: &Program, model: Model) -> (BTreeMap<Vec<i64>, u64>, Option<usize>) {
    let m = Machine::new(p, model, 4);
    let places = p.observed();
    let mut outcomes = BTreeMap::new();
    let mut shortest: Option<usize> = None;
    for run in all_runs(&m) {
        let r = replay(&m, &run).expect("a run replays");
        *outcomes
            .entry(m.observe(r.end.as_ref().unwrap(), &places))
            .or_insert(0) += 1;
        if hb_cycle(&r).is_some() {
            let k = (1..=run.len())
                .find(|&k| hb_cycle(&replay(&m, &run[..k]).unwrap()).is_some())
                .unwrap();
            shortest = Some(shortest.map_or(k, |s| s.min(k)));
        }
    }
    (outcomes, shortest)
}

proptest! {
    #![proptest_config(config(1500))]

    /// The memoised explorer finds exactly the outcomes (and run counts) of run
    /// enumeration; the robustness search answers as enumeration does, with a witness of
    /// the shortest length that re-checks; SC ⊆ TSO ⊆ PSO outcomes.
    #[test]
    fn explorer_and_robustness_match_run_enumeration(p in programs(ProgParams { threads: 2, locs: 2, max_len: 3, weights: [5, 5, 1, 1, 1], ..ProgParams::default() })) {
        let mut sets = Vec::new();
        for model in [Model::Sc, Model::Tso, Model::Pso] {
            let (want, shortest) = oracle(&p, model);
            let e = explore(&p, &Config::new(model).unroll(4).max_states(1_000_000));
            prop_assert!(e.complete);
            let got: BTreeMap<Vec<i64>, u64> = e.outcomes.iter().cloned().collect();
            prop_assert_eq!(&got, &want, "{:?}", model);
            let r = robust(&p, &Config::new(model).unroll(4).max_states(1_000_000)).unwrap();
            prop_assert_eq!(r.robust, Some(shortest.is_none()), "{:?}", model);
            if let Some(w) = &r.witness {
                prop_assert_eq!(Some(w.len()), shortest);
                prop_assert!(check_witness(&p, model, 4, w).is_ok());
            }
            sets.push(want.into_keys().collect::<BTreeSet<_>>());
        }
        prop_assert!(sets[0].is_subset(&sets[1]) && sets[1].is_subset(&sets[2]));
    }
}

proptest! {
    #![proptest_config(config(300))]

    /// Three threads: the same agreement on wider programs.
    #[test]
    fn three_threads_match_run_enumeration(p in programs(ProgParams { threads: 3, locs: 2, max_len: 2, weights: [5, 5, 1, 1, 0], ..ProgParams::default() })) {
        for model in [Model::Tso, Model::Pso] {
            let (want, shortest) = oracle(&p, model);
            let e = explore(&p, &Config::new(model).unroll(4).max_states(1_000_000));
            let got: BTreeMap<Vec<i64>, u64> = e.outcomes.iter().cloned().collect();
            prop_assert_eq!(&got, &want);
            let r = robust(&p, &Config::new(model).unroll(4).max_states(1_000_000)).unwrap();
            prop_assert_eq!(r.robust, Some(shortest.is_none()));
            if let Some(w) = &r.witness {
                prop_assert_eq!(Some(w.len()), shortest);
            }
        }
    }
}

/// PSO lets U's `[z] = 1` overtake its `[x] = 2`: the cycle
/// `r →fr [x]=2 →po [z]=1 →rf a →po r` exists under PSO only (TSO keeps U's stores in
/// order), and the search finds it at the length run enumeration gives.
#[test]
fn pso_store_overtaking_closes_a_cycle_tso_does_not() {
    let p = tsoser::program::parse::parse_program(
        "thread T {\n [x] = 1\n a = [z]\n r = [x]\n}\nthread U {\n [x] = 2\n [z] = 1\n}\n",
    )
    .unwrap();
    let (_, shortest) = oracle(&p, Model::Pso);
    assert!(shortest.is_some(), "run enumeration finds the PSO cycle");
    let r = robust(&p, &Config::new(Model::Pso).unroll(4).max_states(1_000_000)).unwrap();
    assert_eq!(r.robust, Some(false));
    assert_eq!(r.witness.as_ref().map(Vec::len), shortest);
    // Under TSO, U's stores commit in order: robust.
    assert_eq!(oracle(&p, Model::Tso).1, None);
    assert_eq!(
        robust(&p, &Config::new(Model::Tso).unroll(4).max_states(1_000_000))
            .unwrap()
            .robust,
        Some(true)
    );
}

/// Which monitors report on some SC run of the program (its SC traces).
fn monitors_on_sc_runs(p: &Program) -> [bool; 3] {
    use tsoser::monitor::{run, Kind};
    let traces = tsoser::explore::traces::traces(p, Model::Sc, 4, 1_000_000, usize::MAX).traces;
    let mut any = [false; 3];
    for t in &traces {
        for (i, (_, o)) in run(t, &[Kind::Sober, Kind::Tso, Kind::Pso])
            .iter()
            .enumerate()
        {
            any[i] |= o.is_violation();
        }
    }
    any
}

proptest! {
    #![proptest_config(config(1500))]

    /// The monitors' theorems, at the program level: monitor_TSO (monitor_PSO) reports on
    /// some SC run iff some TSO (PSO) run is not SC (Burnim et al. Thms. 3–6); SOBER
    /// reports only on non-robust programs (soundness). SOBER's completeness is checked
    /// on the examples (it misses Burnim's Fig. 6, see `burnim_fig6_*`).
    #[test]
    fn monitors_on_sc_runs_decide_robustness(p in programs(ProgParams { threads: 2, locs: 2, max_len: 3, weights: [5, 5, 1, 1, 1], ..ProgParams::default() })) {
        let [sober, tso, pso] = monitors_on_sc_runs(&p);
        let robust_tso = robust(&p, &Config::new(Model::Tso).unroll(4).max_states(1_000_000)).unwrap().robust.unwrap();
        let robust_pso = robust(&p, &Config::new(Model::Pso).unroll(4).max_states(1_000_000)).unwrap().robust.unwrap();
        prop_assert_eq!(tso, !robust_tso, "monitor_TSO vs TSO robustness");
        prop_assert_eq!(pso, !robust_pso, "monitor_PSO vs PSO robustness");
        prop_assert!(!sober || !robust_tso, "SOBER reported on a robust program");
    }
}

/// (robust under TSO, every SC trace SC-serializable, every TSO trace TSO-serializable)
/// of a branch-free program: its TSO executions are exactly the TSO executions of its
/// issue-order traces, so trace-level answers are program-level answers.
fn enea_farzan_facts(p: &Program) -> (bool, bool, bool) {
    use tsoser::check::{brute, sc};
    use tsoser::explore::traces::traces;
    let robust_tso = robust(p, &Config::new(Model::Tso).unroll(4).max_states(1_000_000))
        .unwrap()
        .robust
        .unwrap();
    let sc_ser = traces(p, Model::Sc, 4, 1_000_000, usize::MAX)
        .traces
        .iter()
        .all(|t| !sc::check_sc(t).is_violation());
    let tso_ser = traces(p, Model::Tso, 4, 1_000_000, usize::MAX)
        .traces
        .iter()
        .all(|t| {
            !brute::check_exact(t, u64::MAX, &tsoser::Stop::default())
                .0
                .is_violation()
        });
    (robust_tso, sc_ser, tso_ser)
}

proptest! {
    #![proptest_config(config(1000))]

    /// Enea & Farzan Theorem 2 on random programs with transactions: robust and
    /// SC-serializable ⟹ TSO-serializable (the explorer, the SC checker and brute agree).
    #[test]
    fn theorem_2_robust_and_sc_serializable_implies_tso_serializable(p in programs(ProgParams { threads: 2, locs: 2, max_len: 3, weights: [5, 5, 1, 1, 0], txns: true, fenced: false, control: 0, sync: 0, exclusive: 0, nondet: 0 })) {
        let (robust_tso, sc_ser, tso_ser) = enea_farzan_facts(&p);
        prop_assert!(!(robust_tso && sc_ser) || tso_ser);
    }

    /// Theorem 3: for transaction-fenced programs, TSO-serializable ⟺ robust and
    /// SC-serializable.
    #[test]
    fn theorem_3_on_transaction_fenced_programs(p in programs(ProgParams { threads: 2, locs: 2, max_len: 3, weights: [5, 5, 0, 1, 0], txns: true, fenced: true, control: 0, sync: 0, exclusive: 0, nondet: 0 })) {
        let (robust_tso, sc_ser, tso_ser) = enea_farzan_facts(&p);
        prop_assert_eq!(tso_ser, robust_tso && sc_ser);
    }
}
