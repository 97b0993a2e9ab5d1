//! The reach engine (`explore::reach`, breadth-first over reachable states, no loop
//! bound) against the states engine on programs whose runs never hit the bound, its
//! failures replayed and shortest, and loops that only it can finish.

use crate::common;

use common::config;
use proptest::prelude::*;
use tsoser::explore::machine::{Machine, Settled, UNBOUNDED};
use tsoser::explore::reach::reach;
use tsoser::explore::states::explore;
use tsoser::explore::{Config, Incomplete, Model};
use tsoser::program::parse::parse_program;
use tsoser::program::strategy::{programs, ProgParams};
use tsoser::program::Program;

/// Reach against the states engine on `p`: where the states engine's runs never hit
/// its bound, the same outcomes and the same failure verdict; a failure's schedule
/// replays without a bound to the failing instruction, and is no longer than the states
/// engine's (breadth-first: a shortest one).
fn agree(p: &Program, model: Model) -> Result<(), TestCaseError> {
    common::with_program(p, agree_on(p, model))
}

fn agree_on(p: &Program, model: Model) -> Result<(), TestCaseError> {
    let c = Config::new(model).unroll(3).max_states(50_000);
    let s = explore(p, &c);
    let r = reach(p, &c);
    prop_assert!(s.complete, "{:?}", s.incomplete);
    if !r.complete {
        // A loop of stores fills a buffer, or of `exclusive_begin`s deepens a block,
        // without bound (the states engine's bound cuts that loop).
        prop_assert!(matches!(
            r.incomplete,
            Some(Incomplete::BufferLimit | Incomplete::MaxStates)
        ));
        prop_assert!(s.bound > 0);
        return Ok(());
    }
    prop_assert_eq!(r.bound, 0);
    if s.bound == 0 {
        let keys = |e: &tsoser::explore::Exploration| {
            e.outcomes.iter().map(|o| o.0.clone()).collect::<Vec<_>>()
        };
        prop_assert_eq!(keys(&s), keys(&r), "outcomes under {:?}", model);
        prop_assert_eq!(s.failure.is_some(), r.failure.is_some());
    } else {
        // The bound drops runs: whatever it finds, reach finds.
        prop_assert!(s.failure.is_none() || r.failure.is_some());
        for o in &s.outcomes {
            prop_assert!(r.outcomes.iter().any(|q| q.0 == o.0));
        }
    }
    if let (Some(f), Some(g)) = (&r.failure, &s.failure) {
        prop_assert!(f.schedule.len() <= g.schedule.len());
    }
    if let Some(f) = &r.failure {
        let m = Machine::new(p, model, UNBOUNDED);
        let (mut st, mut last) = m.initial();
        let mut steps = Vec::new();
        for &step in &f.schedule {
            prop_assert_eq!(last, Settled::Ok);
            m.enabled(&st, &mut steps);
            prop_assert!(steps.contains(&step));
            last = m.apply(&mut st, step).1;
        }
        prop_assert_eq!(last, Settled::Failed(f.thread, f.pc));
    }
    Ok(())
}

proptest! {
    #![proptest_config(config(1000))]

    /// With `assume`, `assert`, retry loops, locks, joins, spawns, arrays, exclusive
    /// blocks and `nondet`.
    #[test]
    fn reach_matches_the_states_engine(p in programs(ProgParams { threads: 2, locs: 2, max_len: 4, control: 1, sync: 1, exclusive: 1, nondet: 1, ..ProgParams::default() })) {
        for model in [Model::Sc, Model::Tso, Model::Pso] {
            agree(&p, model)?;
        }
    }
}

/// A flag spun on without a bound: the states engine hits its bound (its answer holds
/// up to it), reach finishes: the spin is a cycle of states.
#[test]
fn a_spin_loop_is_a_cycle_not_a_cut_run() {
    let p = parse_program(
        "program spin\nthread P0 {\n  [data] = 1\n  [flag] = 1\n}\nthread P1 {\nL:\n  f = [flag]\n  if f == 0 goto L\n  d = [data]\n  assert d == 1\n}\n",
    )
    .unwrap();
    for model in [Model::Sc, Model::Tso] {
        let c = Config::new(model);
        let s = explore(&p, &c);
        assert!(s.bound > 0 && s.failure.is_none());
        let r = reach(&p, &c);
        assert!(
            r.complete && r.bound == 0 && r.failure.is_none(),
            "{model:?}"
        );
        assert_eq!(r.outcomes.len(), 1);
    }
    // Under PSO the flag may overtake the data: found, by a shortest run.
    let r = reach(&p, &Config::new(Model::Pso));
    let f = r.failure.expect("PSO reorders the stores");
    assert_eq!(f.schedule.len(), 5, "{:?}", f.schedule);
}

/// A thread caught in a loop of register-only instructions never steps again, and the
/// others go on: a failure after its last store is still found.
#[test]
fn a_thread_stuck_in_a_register_loop_lets_the_others_go_on() {
    let p = parse_program(
        "program stuck\nthread P0 {\n  [x] = 1\nL:\n  r = r + 0\n  goto L\n}\nthread P1 {\n  r = [x]\n  assert r == 0\n}\n",
    )
    .unwrap();
    let r = reach(&p, &Config::new(Model::Sc));
    assert!(r.complete);
    assert!(r.failure.is_some());
    assert!(r.outcomes.is_empty(), "P0 never finishes: no final state");
}

/// `--engine reach` from the command line: no bound in the report, `--unroll` refused.
#[test]
fn the_reach_engine_from_the_command_line() {
    let o = common::tsoser_exits(
        &[
            "explore",
            "examples/programs/peterson.prog",
            "--engine",
            "reach",
            "--model",
            "sc",
        ],
        0,
    );
    let out = common::stdout(&o);
    assert!(out.contains("states reached, no loop bound"), "{out}");
    assert!(!out.contains("BOUND HIT"), "{out}");
    let o = common::tsoser_exits(
        &[
            "explore",
            "examples/programs/peterson.prog",
            "--engine",
            "reach",
            "--unroll",
            "3",
        ],
        2,
    );
    assert!(common::stderr(&o).contains("the reach engine follows them without a bound"));
    let o = common::tsoser_exits(
        &[
            "explore",
            "examples/programs/peterson.prog",
            "--engine",
            "reach",
            "--json",
        ],
        1,
    );
    let out = common::stdout(&o);
    assert!(
        out.contains("\"engine\": \"reach\"") && out.contains("\"unroll\": null"),
        "{out}"
    );
}
