//! The monitors against the papers' definitions, on thousands of generated traces:
//! SOBER's clocks (Theorem 5) and the classic hb clock against a brute-force transitive
//! closure; SOBER's first report against Lemma 1 evaluated from Definitions 1–3; every
//! `monitor_TSO` / `monitor_PSO` report replayed into a run that is checked from the
//! definitions (streamed runs against in-memory ones: tests/std_format.rs).

#![allow(clippy::needless_range_loop)]

use crate::common;

use common::*;
use proptest::prelude::*;
use tsoser::monitor::burnim::{Burnim, Model};
use tsoser::monitor::hb::{self, HbClock};
use tsoser::monitor::sober::{Rhb, Sober, SoberOp};
use tsoser::monitor::{replay, run, Kind, Outcome};
use tsoser::trace::strategy::{traces, Params};
use tsoser::trace::{Op, Trace};

fn params() -> Params {
    Params {
        min_events: 3,
        max_events: 14,
        threads: 3,
        vars: 2,
        max_txn_len: 3,
        weights: [6, 6, 0, 0],
    }
}

/// An event in Burckhardt & Musuvathi's notation o(p, i, a, c); a fence is `il` on a
/// location of its own (footnote 1).
#[derive(Clone, Copy, Debug)]
struct Ev {
    o: SoberOp,
    p: usize,
    i: usize,
    a: usize,
    c: usize,
}

/// The events of a trace read as an SC run, with issue and coherence indices (E1–E3).
fn sober_events(trace: &Trace) -> Vec<Ev> {
    let m = trace.vars.len();
    let mut count = vec![0; m + trace.threads.len()];
    let mut issued = vec![0; trace.threads.len()];
    trace
        .events
        .iter()
        .map(|e| {
            let o = SoberOp::of(e.op);
            let t = e.thread.index();
            let a = e.var.map_or(m + t, |v| v.index());
            issued[t] += 1;
            if o != SoberOp::Ld {
                count[a] += 1;
            }
            Ev {
                o,
                p: t,
                i: issued[t],
                a,
                c: count[a],
            }
        })
        .collect()
}

fn is_w(o: SoberOp) -> bool {
    o != SoberOp::Ld
}

/// e →p e'.
fn po(e: &Ev, f: &Ev) -> bool {
    e.p == f.p && e.i < f.i
}

/// e →c e' (§2: (1) e' writes and c(e) < c(e'), or (2) e writes, e' is a load, c(e) ≤ c(e')).
fn co(e: &Ev, f: &Ev) -> bool {
    e.a == f.a && ((is_w(f.o) && e.c < f.c) || (is_w(e.o) && f.o == SoberOp::Ld && e.c <= f.c))
}

/// Reflexive-transitive closure of a relation on n nodes.
fn closure(n: usize, rel: impl Fn(usize, usize) -> bool) -> Vec<Vec<bool>> {
    let mut r: Vec<Vec<bool>> = (0..n)
        .map(|i| (0..n).map(|j| i == j || rel(i, j)).collect())
        .collect();
    for k in 0..n {
        for i in 0..n {
            if r[i][k] {
                for j in 0..n {
                    if r[k][j] {
                        r[i][j] = true;
                    }
                }
            }
        }
    }
    r
}

fn hb_rel(es: &[Ev]) -> impl Fn(usize, usize) -> bool + '_ {
    move |i, j| po(&es[i], &es[j]) || co(&es[i], &es[j])
}

fn rhb_rel(es: &[Ev]) -> impl Fn(usize, usize) -> bool + '_ {
    move |i, j| {
        hb_rel(es)(i, j)
            && !(po(&es[i], &es[j]) && es[i].o == SoberOp::St && es[j].o == SoberOp::Ld)
    }
}

fn acyclic(n: usize, rel: impl Fn(usize, usize) -> bool) -> bool {
    let self_loop = (0..n).any(|i| rel(i, i));
    let r = closure(n, rel);
    !self_loop && (0..n).all(|i| (0..n).all(|j| i == j || !(r[i][j] && r[j][i])))
}

/// Definition 2 (SC) and Definition 3 (TSO) of a trace given as events.
fn is_sc(es: &[Ev]) -> bool {
    acyclic(es.len(), hb_rel(es))
}

fn is_tso(es: &[Ev]) -> bool {
    let n = es.len();
    acyclic(n, rhb_rel(es))
        && (0..n).all(|i| (0..n).all(|j| !(po(&es[i], &es[j]) && co(&es[j], &es[i]))))
}

/// The first load e_k at which E_k (the events before it) is borderline through e_k's
/// thread: some load like e_k that reads an older value gives a TSO trace that is not
/// SC (Definition 6 with the locally deterministic program the run fixes).
fn first_borderline(trace: &Trace) -> Option<usize> {
    let es = sober_events(trace);
    (0..es.len()).find(|&k| {
        let e = es[k];
        e.o == SoberOp::Ld
            && (0..e.c).any(|v| {
                let mut ext = es[..k].to_vec();
                ext.push(Ev { c: v, ..e });
                is_tso(&ext) && !is_sc(&ext)
            })
    })
}

proptest! {
    #![proptest_config(config(3000))]

    /// Sober Theorem 5: e_i →*rhb e_j iff i ≤ j and t_i ≤ t_j, with the timestamps of
    /// Fig. 3; and the one-entry test the monitor uses (a store's own count) agrees.
    #[test]
    fn fig3_timestamps_decide_rhb(trace in traces(params())) {
        let es = sober_events(&trace);
        let n = es.len();
        let want = closure(n, rhb_rel(&es));
        let mut clock = Rhb::new(trace.threads.len(), trace.vars.len());
        let ts: Vec<Vec<u32>> = trace.events.iter().map(|e| {
            let a = clock.address(e.thread.index(), e.var.map(|v| v.index()));
            clock.process(e.thread.index(), SoberOp::of(e.op), a).to_vec()
        }).collect();
        for i in 0..n {
            for j in 0..n {
                let le = i <= j && ts[i].iter().zip(&ts[j]).all(|(a, b)| a <= b);
                prop_assert_eq!(le, want[i][j], "e{} →*rhb e{}: clock {} closure {}", i, j, le, want[i][j]);
                if is_w(es[i].o) && i <= j {
                    let g = 2 * es[i].p + 1;
                    prop_assert_eq!(ts[j][g] >= ts[i][g], want[i][j], "one-entry test e{} e{}", i, j);
                }
            }
        }
    }

    /// The classic vector clock decides →*hb: after e_j, e_i →*hb e_j iff the clock of
    /// e_j's thread has seen e_i's epoch.
    #[test]
    fn hb_clock_decides_hb(trace in traces(params())) {
        let es = sober_events(&trace);
        let want = closure(es.len(), hb_rel(&es));
        let mut clock = HbClock::new(trace.threads.len(), trace.vars.len());
        let mut epoch = Vec::new();
        for (j, e) in trace.events.iter().enumerate() {
            epoch.push(clock.step(e.thread.index(), e.op, e.var.map(|v| v.index())));
            for i in 0..=j {
                let seen = clock.seen(e.thread.index(), trace.events[i].thread.index(), epoch[i]);
                prop_assert_eq!(seen, want[i][j], "e{} →*hb e{}", i, j);
            }
        }
        // And hb::path finds a path exactly where the closure has one, each edge re-checked.
        for i in 0..es.len() {
            for j in 0..es.len() {
                let p = hb::path(&trace, trace.len(), i, j);
                prop_assert_eq!(p.is_some(), want[i][j] && i <= j, "path e{} e{}", i, j);
                if let Some(p) = p {
                    prop_assert_eq!(hb::check_path(&trace, i, j, &p), Ok(()));
                }
            }
        }
    }

}

proptest! {
    #![proptest_config(config(20000))]

    /// SOBER (Fig. 2 with the clocks) reports at exactly the first load where Lemma 1,
    /// evaluated from Definitions 2 and 3, says an older value gives a TSO, non-SC trace.
    #[test]
    fn sober_reports_at_the_first_borderline_load(trace in traces(params())) {
        let mut m = Sober::new(trace.threads.len(), trace.vars.len());
        let got = trace.events.iter().find_map(|e| m.step(e.thread, e.op, e.var));
        prop_assert_eq!(got.as_ref().map(|r| r.load), first_borderline(&trace));
        // The same trace among 8 threads: clocks of 8 entries and timestamps of 16,
        // which SOBER handles as arrays (`HbClock::step_rows`, `Rhb::process_rows`).
        let mut wide = trace.clone();
        wide.threads = (0..8).map(|t| format!("w{t}")).collect();
        wide.events.iter_mut().for_each(|e| e.thread = tsoser::trace::ThreadId::new(e.thread.index() * 2 + 1));
        let mut m8 = Sober::new(8, wide.vars.len());
        let got8 = wide.events.iter().find_map(|e| m8.step(e.thread, e.op, e.var));
        prop_assert_eq!(got8.map(|r| (r.load, r.write, r.index)), got.as_ref().map(|r| (r.load, r.write, r.index)));
        if let Some(r) = got {
            let p = hb::path(&trace, r.load, r.write, r.last);
            prop_assert!(p.is_some(), "write(E,a,c) →*hb last(E,p) has a path");
            prop_assert_eq!(hb::check_path(&trace, r.write, r.last, &p.unwrap()), Ok(()));
        }
    }

    /// Every report of monitor_TSO / monitor_PSO replays into a run of its model that
    /// keeps every other read's source and has a happens-before cycle through `e`.
    #[test]
    fn burnim_reports_replay_into_non_sc_runs(trace in traces(params())) {
        for model in [Model::Tso, Model::Pso] {
            let mut m = Burnim::new(model, trace.threads.len(), trace.vars.len());
            if let Some(r) = trace.events.iter().find_map(|e| m.step(e.thread, e.op, e.var)) {
                let run = replay::replay(&trace, &r);
                let cycle = replay::check_run(&trace, &r, &run);
                prop_assert!(cycle.is_ok(), "{:?}: {:?}", model, cycle);
                let path = hb::path(&trace, r.ei, r.e, r.prev);
                prop_assert!(path.is_some(), "e →*hb prev");
            }
        }
    }

}

proptest! {
    #![proptest_config(config(3000))]

    /// The transaction-fenced monitor is its two parts plus the fenced check.
    #[test]
    fn fenced_is_sober_and_sc_ser(trace in traces(params())) {
        let out = run(&trace, &[Kind::ScSer, Kind::Sober, Kind::Fenced]);
        let sc = match &out[0].1 { Outcome::ScSer(i) => Some(*i), _ => None };
        let so = match &out[1].1 { Outcome::Sober(r) => Some(r.clone()), _ => None };
        prop_assert_eq!(&out[2].1, &Outcome::Fenced {
            unfenced: if trace.is_transaction_fenced() { None } else { out_unfenced(&out[2].1) },
            sc_ser: sc,
            sober: so,
        });
        prop_assert_eq!(out_unfenced(&out[2].1).is_none(), trace.is_transaction_fenced());
    }
}

fn out_unfenced(o: &Outcome) -> Option<usize> {
    match o {
        Outcome::Fenced { unfenced, .. } => *unfenced,
        _ => None,
    }
}

/// The generated traces exercise the monitors: each reports on a fair share of them.
#[test]
fn generated_traces_make_every_monitor_report() {
    use proptest::strategy::{Strategy, ValueTree};
    use proptest::test_runner::{Config, TestRunner};
    let mut runner = TestRunner::new_with_rng(
        Config::default(),
        proptest::test_runner::TestRng::deterministic_rng(
            proptest::test_runner::RngAlgorithm::ChaCha,
        ),
    );
    let strat = traces(params());
    let mut hits = [0usize; 4];
    for _ in 0..2000 {
        let t = strat.new_tree(&mut runner).unwrap().current();
        let out = run(&t, &[Kind::ScSer, Kind::Sober, Kind::Tso, Kind::Pso]);
        for (i, (_, o)) in out.iter().enumerate() {
            hits[i] += o.is_violation() as usize;
        }
    }
    for (i, h) in hits.iter().enumerate() {
        assert!(*h > 40, "monitor {i} reported on only {h} of 2000 traces");
    }
}

/// Burnim et al. §4 and Fig. 8, SOBER Fig. 1(b), Enea & Farzan's task pool and the
/// programs after Theorem 2: each with the outcome the paper states.
#[test]
fn paper_examples_have_the_papers_outcomes() {
    let cases: &[(&str, [bool; 4])] = &[
        // name: sc-ser, sober, tso, pso report
        ("burnim-fig7-sc-run", [false, false, true, true]),
        ("burnim-fig8", [false, true, false, false]),
        ("sb-borderline", [false, true, true, true]),
        ("task-pool-serial", [false, true, true, true]),
        ("task-pool-fenced-serial", [false, false, false, false]),
        ("thm2-right", [true, false, false, false]),
    ];
    for (name, want) in cases {
        let t =
            tsoser::trace::yaml::read_trace(std::path::Path::new(&format!("examples/{name}.yaml")))
                .unwrap();
        let out = run(&t, &[Kind::ScSer, Kind::Sober, Kind::Tso, Kind::Pso]);
        let got: Vec<bool> = out.iter().map(|o| o.1.is_violation()).collect();
        assert_eq!(got, want.to_vec(), "{name}");
    }
}

/// Fences and rmw drain the buffer: SB with a fence on each side is quiet, and under
/// PSO an rmw drains only its own variable (docs/semantics.md §7).
#[test]
fn fences_and_rmw_drain_as_the_models_say() {
    let sb_fenced = tsoser::trace::compact(&[
        "t1 wr x", "t1 fence", "t1 rd y", "t2 wr y", "t2 fence", "t2 rd x",
    ]);
    for k in [Kind::Sober, Kind::Tso, Kind::Pso] {
        assert_eq!(run(&sb_fenced, &[k])[0].1, Outcome::Clean, "{k:?}");
    }
    // t1's rmw on z drains t1's store to x under TSO, not under PSO.
    let sb_rmw = tsoser::trace::compact(&[
        "t1 wr x", "t1 rmw z", "t1 rd y", "t2 wr y", "t2 fence", "t2 rd x",
    ]);
    assert_eq!(run(&sb_rmw, &[Kind::Tso])[0].1, Outcome::Clean);
    assert!(run(&sb_rmw, &[Kind::Pso])[0].1.is_violation());
    let _ = Op::Rd;
}

/// Bug: monitor_TSO reported on `T2 wr v0; T2 rd v1; T0 wr v1; T0 rmw v0` (rightly:
/// `#0 →po #1 →fr #2 →po #3 →co #0` once the rmw runs before `#0` commits), but the
/// replayed run issued the rmw `e_i` with `#2` still in its buffer and the evidence
/// failed its re-check (exit 4). A fence or rmw `e_i` now drains first.
#[test]
fn monitor_tso_rmw_at_ei_drains_first() {
    let t = tsoser::trace::compact(&["T2 wr v0", "T2 rd v1", "T0 wr v1", "T0 rmw v0"]);
    for kind in [Kind::Tso, Kind::Pso] {
        let out = run(&t, &[kind]);
        assert!(out[0].1.is_violation(), "{kind:?}");
        let x = tsoser::output::monitor::explain(&t, kind, &out[0].1);
        assert!(x.is_ok(), "{kind:?}: {:?}", x.err());
    }
    // The same with a fence at e_i's place is not a report (a fence touches no x).
    let f = tsoser::trace::compact(&["T2 wr v0", "T2 rd v1", "T0 wr v1", "T0 fence", "T0 rd v0"]);
    for kind in Kind::ALL {
        let out = run(&f, &[kind]);
        assert!(tsoser::output::monitor::explain(&f, kind, &out[0].1).is_ok());
    }
}

proptest! {
    #![proptest_config(config(100_000))]

    /// Differential: on 100,000 traces with fences and rmw, every monitor's evidence
    /// re-checks from the definitions (what `tsoser monitor` does before printing).
    #[test]
    fn every_monitors_evidence_rechecks_with_rmw_and_fences(trace in traces(Params {
        min_events: 3, max_events: 12, threads: 3, vars: 2, max_txn_len: 3, weights: [5, 5, 2, 2],
    })) {
        for (kind, o) in run(&trace, &Kind::ALL) {
            let x = tsoser::output::monitor::explain(&trace, kind, &o);
            prop_assert!(x.is_ok(), "{:?}: {:?}", kind, x.err());
        }
    }
}

proptest! {
    #![proptest_config(common::config(500))]

    /// SOBER's pruning (write records below every thread's frontier dropped) changes no
    /// report: long runs over two variables, against SOBER keeping every record; and the
    /// pruning does drop records.
    #[test]
    fn sober_pruning_changes_no_report(trace in tsoser::trace::strategy::traces(tsoser::trace::strategy::Params { min_events: 100, max_events: 400, threads: 3, vars: 2, max_txn_len: 3, weights: [5, 5, 1, 1] })) {
        use tsoser::monitor::sober::Sober;
        let (k, m) = (trace.threads.len(), trace.vars.len());
        let (mut a, mut b) = (Sober::new(k, m), Sober::unpruned(k, m));
        for e in &trace.events {
            let (x, y) = (a.step(e.thread, e.op, e.var), b.step(e.thread, e.op, e.var));
            prop_assert_eq!(&x, &y);
            if x.is_some() {
                break;
            }
        }
        prop_assert!(a.records() <= b.records());
    }
}

/// SOBER's pruning on long generated runs of 2–5 threads over 2–8 variables (serial
/// and random schedules, with and without fences): the same report, at the same event,
/// as SOBER keeping every record — and on many of them records were dropped.
#[test]
fn sober_pruning_changes_no_report_on_long_runs() {
    use tsoser::monitor::sober::Sober;
    use tsoser::trace::gen::{generate, Shape};
    let (mut runs, mut pruned) = (0, 0);
    for seed in 0..240u64 {
        let mut shape = Shape::dense(3000, 2 + (seed % 4) as usize, 2 + (seed % 7) as usize);
        shape.txn_len = 1 + (seed % 5) as usize;
        shape.serial = seed % 2 == 0;
        shape.txn_fenced = seed % 3 == 0;
        shape.reads_first = seed % 2 == 0;
        shape.fence_every = if seed % 5 == 0 { 4 } else { 0 };
        let trace = generate(&shape, seed);
        let (k, m) = (trace.threads.len(), trace.vars.len());
        let (mut a, mut b) = (Sober::new(k, m), Sober::unpruned(k, m));
        for (i, e) in trace.events.iter().enumerate() {
            let (x, y) = (a.step(e.thread, e.op, e.var), b.step(e.thread, e.op, e.var));
            assert_eq!(x, y, "seed {seed}, event {i}");
            if x.is_some() {
                break;
            }
        }
        runs += 1;
        pruned += usize::from(a.records() < b.records());
    }
    // Many runs report early (dense random schedules); at these seeds 54 prune.
    assert!(
        pruned * 5 > runs,
        "records dropped on {pruned} of {runs} runs"
    );
}

#[test]
fn sober_pruning_drops_records_of_a_long_run() {
    use tsoser::monitor::sober::Sober;
    use tsoser::trace::{Op, ThreadId, VarId};
    // Two threads write and read one variable in turn: each reads the other's writes,
    // so every thread's frontier moves up and old records go.
    let mut s = Sober::new(2, 1);
    let x = Some(VarId::new(0));
    for i in 0..10_000 {
        let t = ThreadId::new(i % 2);
        assert!(s.step(t, Op::Wr, x).is_none());
        assert!(s.step(t, Op::Rd, x).is_none());
    }
    assert!(s.records() < 200, "{} records kept of 10,000", s.records());
    // Grown (as a stream grows it), a thread that first runs after a pruning could
    // have needed a dropped record: the answer is no longer exact.
    s.grow(3, 1);
    assert!(s.exact());
    s.step(ThreadId::new(0), Op::Rd, x);
    assert!(s.exact());
    s.step(ThreadId::new(2), Op::Rd, x);
    assert!(!s.exact());
}

/// A thread that first appears after SOBER pruned makes the stream run again knowing
/// every thread: the answers are those of the trace in memory.
#[test]
fn a_late_thread_after_pruning_streams_exactly() {
    use tsoser::monitor::{run, stream, Kind};
    let mut text = String::new();
    for i in 0..2000 {
        let t = i % 2;
        text += &format!("T{t}|w(x)|{i}\nT{t}|r(x)|{i}\n");
    }
    // T2 stores to y, then loads x: SOBER reports (store buffering with T0 and T1).
    text += "T2|w(y)|1\nT2|r(x)|2\nT0|w(x)|3\nT0|r(y)|4\n";
    let dir = std::env::temp_dir().join(format!("tsoser-late-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("late.std");
    std::fs::write(&f, &text).unwrap();
    let back = tsoser::trace::std_format::read_std(&f).unwrap();
    let s = stream(&f, &Kind::ALL, usize::MAX, &Default::default()).unwrap();
    assert_eq!(s.outcomes, run(&back, &Kind::ALL));
    assert_eq!((s.threads, s.events), (3, back.len()));
}
