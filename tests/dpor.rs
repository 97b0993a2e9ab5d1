//! The DPOR engine (`explore::dpor`) against the states engine (`explore::states`), the
//! oracle: the same outcomes, the same condition answers and the same assertion
//! verdicts under SC, TSO and PSO on random programs, and failures that replay.

use crate::common;

use common::config;
use proptest::prelude::*;
use tsoser::explore::dpor::explore_dpor;
use tsoser::explore::machine::{Machine, Settled};
use tsoser::explore::robust::{check_witness, robust};
use tsoser::explore::states::explore;
use tsoser::explore::{Config, Model};
use tsoser::program::strategy::{programs, ProgParams};
use tsoser::program::Program;

/// Both engines on `p` under `model`: outcome sets, failure verdicts, robustness, the
/// DPOR failure's schedule replayed to the failing assertion and its robustness witness
/// re-checked.
fn agree(p: &Program, model: Model) -> Result<(), TestCaseError> {
    common::with_program(p, agree_on(p, model))
}

fn agree_on(p: &Program, model: Model) -> Result<(), TestCaseError> {
    let c = Config::new(model).unroll(2);
    let states = explore(p, &c);
    if std::env::var_os("DPOR_DEBUG").is_some() {
        eprintln!("=== {model:?}\n{}", tsoser::program::print::to_prog(p));
    }
    let d = explore_dpor(p, &c, true);
    let (dpor, stats) = (&d.exploration, d.stats);
    prop_assert!(states.complete && dpor.complete);
    let keys = |e: &tsoser::explore::Exploration| {
        e.outcomes.iter().map(|o| o.0.clone()).collect::<Vec<_>>()
    };
    prop_assert_eq!(keys(&states), keys(dpor), "outcomes under {:?}", model);
    prop_assert_eq!(
        states.failure.is_some(),
        dpor.failure.is_some(),
        "assertion verdicts under {:?}: {:?}",
        model,
        dpor.failure
    );
    prop_assert_eq!(states.condition(p), dpor.condition(p));
    prop_assert!(stats.executions >= dpor.outcomes.len() as u64);
    let rb = d.robustness.as_ref().expect("asked");
    let want = robust(p, &c).expect("a small program");
    prop_assert_eq!(want.robust, rb.robust, "robustness under {:?}", model);
    if let Some(w) = &rb.witness {
        prop_assert!(check_witness(p, model, c.unroll, w).is_ok());
    }
    if let Some(f) = &dpor.failure {
        let m = Machine::new(p, model, c.unroll);
        let (mut s, st) = m.initial();
        let mut last = st;
        let mut steps = Vec::new();
        for &step in &f.schedule {
            prop_assert_eq!(
                last,
                Settled::Ok,
                "the schedule goes on after the run ended"
            );
            m.enabled(&s, &mut steps);
            prop_assert!(steps.contains(&step), "step {:?} not enabled", step);
            last = m.apply(&mut s, step).1;
        }
        prop_assert_eq!(last, Settled::Failed(f.thread, f.pc));
    }
    Ok(())
}

proptest! {
    #![proptest_config(config(1500))]

    /// Two threads of loads, stores, fences, locked operations and forward branches.
    #[test]
    fn dpor_matches_the_states_engine(p in programs(ProgParams { threads: 2, locs: 2, max_len: 4, ..ProgParams::default() })) {
        for model in [Model::Sc, Model::Tso, Model::Pso] {
            agree(&p, model)?;
        }
    }

    /// With `assume`, `assert` and retry loops on loaded values (threads stopped
    /// midway, failures, the unrolling bound).
    #[test]
    fn dpor_matches_the_states_engine_with_control(p in programs(ProgParams { threads: 2, locs: 2, max_len: 4, control: 1, ..ProgParams::default() })) {
        for model in [Model::Sc, Model::Tso, Model::Pso] {
            agree(&p, model)?;
        }
    }
}

proptest! {
    #![proptest_config(config(1500))]

    /// With locks, joins, spawns and arrays indexed by loaded values (out of bounds too).
    #[test]
    fn dpor_matches_the_states_engine_with_sync(p in programs(ProgParams { threads: 3, locs: 2, max_len: 3, control: 1, sync: 2, ..ProgParams::default() })) {
        for model in [Model::Sc, Model::Tso, Model::Pso] {
            agree(&p, model)?;
        }
    }
}

proptest! {
    #![proptest_config(config(1500))]

    /// With `nondet` values (each its own branch), used by `assume`, `assert`, retry
    /// loops and array indices, beside exclusive blocks.
    #[test]
    fn dpor_matches_the_states_engine_with_nondet(p in programs(ProgParams { threads: 2, locs: 2, max_len: 4, control: 1, sync: 1, exclusive: 1, nondet: 2, ..ProgParams::default() })) {
        for model in [Model::Sc, Model::Tso, Model::Pso] {
            agree(&p, model)?;
        }
    }

    /// With exclusive blocks (SV-COMP's atomic sections), nested and unmatched too,
    /// beside locks, joins, `assume` and `assert`: each block runs as one step.
    #[test]
    fn dpor_matches_the_states_engine_with_exclusive_blocks(p in programs(ProgParams { threads: 3, locs: 2, max_len: 4, control: 1, sync: 1, exclusive: 2, ..ProgParams::default() })) {
        for model in [Model::Sc, Model::Tso, Model::Pso] {
            agree(&p, model)?;
        }
    }
}

proptest! {
    #![proptest_config(config(400))]

    /// Three threads, where most races reverse into runs with several initials.
    #[test]
    fn dpor_matches_the_states_engine_on_three_threads(p in programs(ProgParams { threads: 3, locs: 2, max_len: 3, control: 1, ..ProgParams::default() })) {
        for model in [Model::Sc, Model::Tso, Model::Pso] {
            agree(&p, model)?;
        }
    }
}

/// The papers' programs (`examples/programs`) and Dat3M's x86 tests (when beside the
/// checkout, as in tests/programs.rs): both engines agree under SC, TSO and PSO on the
/// outcomes, the condition, the assertions and robustness.
#[test]
fn dpor_matches_the_states_engine_on_examples_and_dat3m() {
    use std::path::Path;
    use tsoser::program::read_program;
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dat3m = std::env::var_os("TSOSER_DAT3M")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| root.join("../shared/external/dat3m-x86"))
        .join("litmus");
    let mut files: Vec<_> = std::fs::read_dir(root.join("examples/programs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    let examples = files.len();
    if let Ok(rd) = std::fs::read_dir(&dat3m) {
        files.extend(rd.map(|e| e.unwrap().path()));
    } else if std::env::var_os("TSOSER_REQUIRE_DAT3M").is_some() {
        panic!(
            "TSOSER_REQUIRE_DAT3M is set but {} is missing",
            dat3m.display()
        );
    }
    files.sort();
    assert!(examples >= 18);
    for f in &files {
        let p = read_program(f).unwrap_or_else(|e| panic!("{e}"));
        for model in [Model::Sc, Model::Tso, Model::Pso] {
            let c = Config::new(model).unroll(4).max_states(1_000_000);
            let s = explore(&p, &c);
            let d = explore_dpor(&p, &c, true);
            let keys = |e: &tsoser::explore::Exploration| {
                e.outcomes.iter().map(|o| o.0.clone()).collect::<Vec<_>>()
            };
            let what = format!("{} under {model:?}", f.display());
            assert!(s.complete && d.exploration.complete, "{what}");
            assert_eq!(keys(&s), keys(&d.exploration), "{what}");
            assert_eq!(s.condition(&p), d.exploration.condition(&p), "{what}");
            assert_eq!(
                s.failure.is_some(),
                d.exploration.failure.is_some(),
                "{what}"
            );
            let want = robust(&p, &c).unwrap().robust;
            let rb = d.robustness.as_ref().unwrap();
            assert_eq!(want, rb.robust, "{what}");
            if let Some(w) = &rb.witness {
                check_witness(&p, model, c.unroll, w).unwrap();
            }
        }
    }
}

/// Bug a_thread_never_races_its_own_commit (found by the first run of the proptests
/// above): a locked instruction follows its thread's last commit, which is also the
/// last write to its location; that commit was taken for a race and reversed, putting
/// the locked instruction first in a backtrack set where it was not enabled (a panic).
/// A thread's events and its own commits are ordered by the buffer, never raced.
#[test]
fn a_thread_never_races_its_own_commit() {
    let p = tsoser::program::parse::parse_program(
        "program own\nthread P0 {\n  [x] = 1\n  r = xchg [x], 0\n}\nthread P1 {\n  s = [x]\n}\n",
    )
    .unwrap();
    for model in [Model::Sc, Model::Tso, Model::Pso] {
        agree(&p, model).unwrap();
    }
}

/// The Shasha–Snir trace of a complete run: each thread's events with the write each
/// read takes its value from, and the commit order of each location, with events named
/// by (thread, number in the thread).
type SsTrace = (
    Vec<(usize, usize, Option<(usize, usize)>)>,
    Vec<Vec<(usize, usize)>>,
);

fn ss_trace(run: &tsoser::explore::replay::Run) -> SsTrace {
    let mut count: Vec<usize> = Vec::new();
    let name: Vec<(usize, usize)> = run
        .events
        .iter()
        .map(|e| {
            let t = e.effect.thread();
            if count.len() <= t {
                count.resize(t + 1, 0);
            }
            count[t] += 1;
            (t, count[t])
        })
        .collect();
    let mut events: Vec<_> = run
        .events
        .iter()
        .zip(&name)
        .map(|(e, &(t, k))| (t, k, e.rf.map(|w| name[w])))
        .collect();
    events.sort();
    let co = run
        .co
        .iter()
        .map(|ws| ws.iter().map(|&w| name[w]).collect())
        .collect();
    (events, co)
}

/// The distinct Shasha–Snir traces of `p`'s complete runs under `model`, by
/// enumerating every run (no memoisation: small programs only).
fn ss_traces(p: &Program, model: Model, unroll: u32) -> usize {
    use tsoser::explore::machine::Step;
    use tsoser::explore::replay::replay;
    let m = Machine::new(p, model, unroll);
    let (s, st) = m.initial();
    let mut seen = std::collections::HashSet::new();
    if st != Settled::Ok {
        return 0;
    }
    let mut path: Vec<Step> = Vec::new();
    let mut stack = vec![(s, Vec::new(), 0usize)];
    while let Some((s, steps, next)) = stack.last_mut() {
        if *next == 0 {
            m.enabled(s, steps);
            if steps.is_empty() && m.is_final(s) {
                let run = replay(&m, &path).expect("a run");
                seen.insert(ss_trace(&run));
            }
        }
        if let Some(&step) = steps.get(*next) {
            *next += 1;
            let mut s2 = s.clone();
            if m.apply(&mut s2, step).1 == Settled::Ok {
                path.push(step);
                stack.push((s2, Vec::new(), 0));
            }
        } else {
            stack.pop();
            path.pop();
        }
    }
    seen.len()
}

/// DPOR's complete executions against the distinct Shasha–Snir traces of the complete
/// runs: at least one execution per trace (Thm. 3.2), and exactly one when no execution
/// stops (sleep sets keep source-DPOR from two equivalent complete executions; what it
/// explores in vain ends sleep-set blocked). With `exact` false, only at least one: a
/// process about to begin an exclusive block never sleeps, so traces may repeat.
fn traces_covered(p: &Program, model: Model, exact: bool) -> Result<(), TestCaseError> {
    let c = Config::new(model).unroll(2);
    let d = explore_dpor(p, &c, false);
    let want = ss_traces(p, model, c.unroll) as u64;
    let s = d.stats;
    prop_assert!(
        s.complete >= want,
        "{} complete executions < {want} traces under {model:?}",
        s.complete
    );
    if exact && s.executions == s.complete {
        prop_assert_eq!(s.complete, want, "under {:?}", model);
    }
    Ok(())
}

proptest! {
    #![proptest_config(config(1000))]

    /// Random programs without blocking: one execution per Shasha–Snir trace.
    #[test]
    fn one_execution_per_shasha_snir_trace(p in programs(ProgParams { threads: 2, locs: 2, max_len: 4, ..ProgParams::default() })) {
        for model in [Model::Sc, Model::Tso, Model::Pso] {
            traces_covered(&p, model, true)?;
        }
    }

    /// With `assume`, `assert`, retry loops, locks and joins: at least one.
    #[test]
    fn every_shasha_snir_trace_is_explored(p in programs(ProgParams { threads: 2, locs: 2, max_len: 4, control: 1, sync: 1, ..ProgParams::default() })) {
        for model in [Model::Sc, Model::Tso, Model::Pso] {
            traces_covered(&p, model, true)?;
        }
    }

    /// With exclusive blocks: at least one, each block one step.
    #[test]
    fn every_shasha_snir_trace_is_explored_with_exclusive_blocks(p in programs(ProgParams { threads: 2, locs: 2, max_len: 4, exclusive: 2, ..ProgParams::default() })) {
        for model in [Model::Sc, Model::Tso, Model::Pso] {
            traces_covered(&p, model, false)?;
        }
    }
}
