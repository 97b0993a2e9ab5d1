//! The programs of the papers (examples/programs) with the verdicts the literature
//! states, the Dat3M x86 litmus suite against its expected TSO verdicts, and Enea &
//! Farzan's theorems on the emitted traces.

use std::path::Path;
use tsoser::check::{brute, sc, Verdict};
use tsoser::explore::robust::robust;
use tsoser::explore::states::explore;
use tsoser::explore::traces::traces;
use tsoser::explore::{run as report, EngineKind, Options};
use tsoser::explore::{Config, Model};
use tsoser::monitor::{run, Kind};
use tsoser::program::read_program;
use tsoser::program::Program;

fn load(name: &str) -> Program {
    read_program(
        &Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("examples/programs")
            .join(name),
    )
    .unwrap()
}

fn opts(model: Model) -> Options {
    Options {
        config: Config::new(model),
        robustness: true,
        engine: EngineKind::States,
        program_unroll: false,
    }
}

/// (condition holds, robust, an assertion fails) under the model.
fn verdict(p: &Program, model: Model) -> (Option<bool>, Option<bool>, bool) {
    let r = report(p, opts(model)).unwrap();
    assert!(r.exploration.complete);
    (
        r.exploration.condition(p),
        r.robustness.as_ref().and_then(|x| x.robust),
        r.exploration.failure.is_some(),
    )
}

#[test]
fn store_buffering_is_not_robust_under_tso_and_fences_make_it_robust() {
    let p = load("sb.prog");
    assert_eq!(verdict(&p, Model::Sc).0, Some(false));
    assert_eq!(verdict(&p, Model::Tso), (Some(true), Some(false), false));
    let f = load("sb-fenced.prog");
    assert_eq!(verdict(&f, Model::Tso), (Some(false), Some(true), false));
    assert_eq!(verdict(&f, Model::Pso), (Some(false), Some(true), false));
}

#[test]
fn mutual_exclusion_fails_under_tso_without_fences_and_holds_with_them() {
    for (plain, fenced) in [
        ("dekker.prog", "dekker-fenced.prog"),
        ("peterson.prog", "peterson-fenced.prog"),
        ("bakery.prog", "bakery-fenced.prog"),
    ] {
        let p = load(plain);
        assert!(
            !verdict(&p, Model::Sc).2,
            "{plain}: mutual exclusion holds under SC"
        );
        assert_eq!(
            verdict(&p, Model::Tso),
            (None, Some(false), true),
            "{plain}"
        );
        let f = load(fenced);
        assert_eq!(
            verdict(&f, Model::Tso),
            (None, Some(true), false),
            "{fenced}"
        );
    }
}

#[test]
fn message_passing_is_robust_under_tso_not_under_pso() {
    let p = load("mp.prog");
    assert_eq!(verdict(&p, Model::Tso), (Some(false), Some(true), false));
    assert_eq!(verdict(&p, Model::Pso), (Some(true), Some(false), false));
}

#[test]
fn sober_idle_notify_loses_a_wake_up_under_tso_only_and_the_fix_is_robust() {
    let p = load("sober-idle-notify.prog");
    assert_eq!(verdict(&p, Model::Sc).0, Some(false));
    assert_eq!(verdict(&p, Model::Tso), (Some(true), Some(false), false));
    let f = load("sober-idle-notify-fixed.prog");
    assert_eq!(verdict(&f, Model::Tso), (Some(false), Some(true), false));
}

/// Burnim et al. §4: Fig. 6 is not robust under TSO; monitor_TSO reports on one of its
/// SC runs, SOBER on none (SOBER's TSO forbids the Fig. 7 trace). Reproduced.
#[test]
fn burnim_fig6_sober_misses_it_monitor_tso_reports() {
    let p = load("burnim-fig6.prog");
    assert_eq!(
        robust(&p, &Config::new(Model::Tso).unroll(4).max_states(1_000_000))
            .unwrap()
            .robust,
        Some(false)
    );
    let ts = traces(&p, Model::Sc, 4, 100_000, usize::MAX).traces;
    assert!(!ts.is_empty());
    let report_on = |k: Kind| {
        ts.iter()
            .filter(|t| run(t, &[k])[0].1.is_violation())
            .count()
    };
    assert_eq!(report_on(Kind::Sober), 0, "SOBER reports on no SC run");
    assert!(
        report_on(Kind::Tso) > 0,
        "monitor_TSO reports on some SC run"
    );
}

/// Enea & Farzan Fig. 1: under TSO both threads take the one task; the program is not
/// robust and some TSO run's trace is not TSO-serializable.
///
/// Finding: §1 says every SC execution of the task pool is conflict-serializable. With
/// head + 1 = tail it is not: after α and δ (head = 1, tail = 0) both checks fail, and
/// β and γ interleave their reads and undo writes — β reads tail before γ's `tail++`,
/// γ reads head before β's `head--`: the cycle β → γ → β, in an SC run where no task is
/// taken. So the transaction-fenced version is robust but not SC-serializable, and,
/// as Theorem 3 then says, not TSO-serializable either.
#[test]
fn task_pool_and_its_transaction_fenced_version() {
    let p = load("task-pool.prog");
    assert_eq!(verdict(&p, Model::Sc).0, Some(false));
    assert_eq!(verdict(&p, Model::Tso), (Some(true), Some(false), false));
    let tso = traces(&p, Model::Tso, 4, 100_000, usize::MAX).traces;
    assert!(tso.iter().any(
        |t| brute::check_exact(t, u64::MAX, &tsoser::Stop::default())
            .0
            .is_violation()
    ));
    let sc_runs = traces(&p, Model::Sc, 4, 100_000, usize::MAX).traces;
    let bad = sc_runs
        .iter()
        .find(|t| sc::check_sc(t).is_violation())
        .expect("the both-undo interleaving");
    // Both threads undo: each writes its own pointer back inside its second transaction.
    let undo = |th: &str, x: &str| {
        bad.events.iter().any(|e| {
            bad.threads[e.thread] == th
                && bad.txns[e.txn].name.ends_with(".t2")
                && e.op == tsoser::trace::Op::Wr
                && e.var.map(|v| bad.vars[v].as_str()) == Some(x)
        })
    };
    assert!(undo("a", "head") && undo("b", "tail"));

    let f = load("task-pool-fenced.prog");
    assert_eq!(verdict(&f, Model::Tso), (Some(false), Some(true), false));
    let tso = traces(&f, Model::Tso, 4, 100_000, usize::MAX).traces;
    assert!(tso.iter().all(|t| t.is_transaction_fenced()));
    // Theorem 3 on a transaction-fenced program: robust ∧ SC-serializable ⟺ TSO-serializable.
    let sc_ser = traces(&f, Model::Sc, 4, 100_000, usize::MAX)
        .traces
        .iter()
        .all(|t| !sc::check_sc(t).is_violation());
    let tso_ser = tso.iter().all(|t| {
        !brute::check_exact(t, u64::MAX, &tsoser::Stop::default())
            .0
            .is_violation()
    });
    assert!(!sc_ser);
    assert_eq!(tso_ser, sc_ser);
}

/// The two programs after Enea & Farzan's Theorem 2: both TSO-serializable; the left
/// is not robust, the right not SC-serializable (the converse of Thm. 2 fails).
#[test]
fn theorem_2_converse_fails_on_both_programs() {
    let left = load("thm2-left.prog");
    assert_eq!(
        robust(&left, &Config::new(Model::Tso).unroll(4).max_states(1000))
            .unwrap()
            .robust,
        Some(false)
    );
    for t in traces(&left, Model::Tso, 4, 1000, usize::MAX).traces {
        assert!(matches!(
            brute::check_exact(&t, u64::MAX, &tsoser::Stop::default()).0,
            Verdict::Serializable
        ));
    }
    let right = load("thm2-right.prog");
    assert_eq!(
        robust(&right, &Config::new(Model::Tso).unroll(4).max_states(1000))
            .unwrap()
            .robust,
        Some(true)
    );
    assert!(traces(&right, Model::Sc, 4, 1000, usize::MAX)
        .traces
        .iter()
        .any(|t| sc::check_sc(t).is_violation()));
    for t in traces(&right, Model::Tso, 4, 1000, usize::MAX).traces {
        assert!(matches!(
            brute::check_exact(&t, u64::MAX, &tsoser::Stop::default()).0,
            Verdict::Serializable
        ));
    }
}

#[test]
fn locked_instructions_of_the_litmus_import() {
    let p = load("lock-inc.litmus");
    for m in [Model::Sc, Model::Tso, Model::Pso] {
        let e = explore(&p, &Config::new(m).unroll(4).max_states(100_000));
        assert_eq!(e.condition(&p), Some(true), "{m:?}");
        assert_eq!(e.outcomes.len(), 3);
    }
    let p = load("cmpxchg-spin.litmus");
    assert_eq!(
        explore(&p, &Config::new(Model::Tso).unroll(4).max_states(100_000)).condition(&p),
        Some(true)
    );
    // PSO: the unlock overtakes the store to x, the other thread loses the update.
    assert_eq!(
        explore(&p, &Config::new(Model::Pso).unroll(4).max_states(100_000)).condition(&p),
        Some(false)
    );
}

/// Dat3M's 487 x86 litmus tests: every one parses, its final condition under TSO is the
/// expected one, and for each the SC outcomes ⊆ TSO outcomes ⊆ PSO outcomes.
#[test]
fn dat3m_x86_suite_matches_expected_tso_verdicts() {
    // `TSOSER_DAT3M`, else `../shared/external/dat3m-x86` beside the checkout.
    let dir = std::env::var_os("TSOSER_DAT3M")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| {
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/external/dat3m-x86")
        });
    // Absent on a fresh clone with nothing beside it: the test says so and skips;
    // CI sets TSOSER_REQUIRE_DAT3M=1, which makes it mandatory (bug:
    // fresh_clone_passes_without_dat3m).
    let csv = match std::fs::read_to_string(dir.join("TSO-expected.csv")) {
        Ok(csv) => csv,
        Err(e) if std::env::var_os("TSOSER_REQUIRE_DAT3M").is_none() => {
            // Written past the test harness's capture, so a plain `cargo test` shows it.
            use std::io::Write;
            let _ = writeln!(
                std::io::stderr(),
                "SKIPPED: the Dat3M x86 suite is not at {} ({e}); set TSOSER_DAT3M to run it",
                dir.display()
            );
            return;
        }
        Err(e) => panic!(
            "TSOSER_REQUIRE_DAT3M is set but the Dat3M x86 suite is not at {}: {e}",
            dir.display()
        ),
    };
    let (mut n, mut stated) = (0, 0);
    for line in csv.lines().filter(|l| !l.trim().is_empty()) {
        let (path, want) = line.rsplit_once(',').unwrap();
        let name = Path::new(path).file_name().unwrap();
        let p = read_program(&dir.join("litmus").join(name)).unwrap_or_else(|e| panic!("{e}"));
        let mut sets = Vec::new();
        for m in [Model::Sc, Model::Tso, Model::Pso] {
            let e = explore(&p, &Config::new(m).unroll(4).max_states(1_000_000));
            assert!(e.complete, "{path}");
            if m == Model::Tso {
                assert_eq!(e.condition(&p), Some(want.trim() == "1"), "{path}");
                // Old-style tests state their TSO answer (`with tso: ~exists;`).
                if let Some((_, agrees)) = tsoser::explore::stated(&p, &e) {
                    assert_eq!(agrees, Some(true), "{path}: the test's own `with tso:`");
                    stated += 1;
                }
            }
            sets.push(
                e.outcomes
                    .into_iter()
                    .map(|o| o.0)
                    .collect::<std::collections::BTreeSet<_>>(),
            );
        }
        // The test as `.prog` text gives the same condition and outcomes, and herd's
        // report lists the same states.
        assert_round_trip(&p, &[Model::Tso]);
        assert_herd_agrees(&p, Model::Tso);
        assert!(sets[0].is_subset(&sets[1]), "{path}: SC ⊄ TSO");
        assert!(sets[1].is_subset(&sets[2]), "{path}: TSO ⊄ PSO");
        n += 1;
    }
    assert_eq!(n, 487);
    assert_eq!(stated, 7, "the old-style tests with a `with tso:` block");
}

/// The outcomes of `p` under `model` as name → value maps (only the places named in
/// `keep`, if given), with their runs: comparable across programs whose registers are
/// numbered differently.
fn named_outcomes(
    p: &Program,
    model: Model,
    keep: Option<&[String]>,
) -> std::collections::BTreeMap<Vec<(String, i64)>, u64> {
    let e = explore(p, &Config::new(model).unroll(4).max_states(1_000_000));
    assert!(e.complete, "{}", p.name);
    let mut out = std::collections::BTreeMap::new();
    for (vals, runs) in &e.outcomes {
        let mut named: Vec<(String, i64)> = e
            .places
            .iter()
            .zip(vals)
            .map(|(pl, v)| (p.place_name(pl), *v))
            .filter(|(n, _)| keep.is_none_or(|k| k.contains(n)))
            .collect();
        named.sort();
        *out.entry(named).or_insert(0) += runs;
    }
    out
}

/// `to_prog` then `parse_program` gives the same program: the same text when printed
/// again, the same code, and the same outcomes (with their run counts) under every model.
fn assert_round_trip(p: &Program, models: &[Model]) {
    use tsoser::program::parse::parse_program;
    use tsoser::program::print::to_prog;
    let text = to_prog(p);
    let q = parse_program(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(to_prog(&q), text, "printing is not stable");
    let keep: Option<Vec<String>> = p.final_cond.as_ref().map(|_| {
        let mut places = Vec::new();
        p.final_cond.as_ref().unwrap().cond.places(&mut places);
        places.iter().map(|pl| p.place_name(pl)).collect()
    });
    for &m in models {
        assert_eq!(
            named_outcomes(p, m, keep.as_deref()),
            named_outcomes(&q, m, keep.as_deref()),
            "{} under {m:?}:\n{text}",
            p.name
        );
    }
}

/// Every family of `gen-prog`, with loops and locked operations, prints to `.prog` text
/// that reads back as the same program (bug: none yet; the printer is new).
#[test]
fn generated_programs_print_and_read_back() {
    use tsoser::program::gen::{generate, Family, Shape};
    for seed in 0..400u64 {
        let f = Family::ALL[(seed % 4) as usize];
        let s = Shape {
            threads: 2 + (seed % 2) as usize,
            len: 3,
            loops: (seed % 3) as u32,
            locked: 0.2,
            ..Shape::new(f)
        };
        let p = generate(&s, seed);
        let models: &[Model] = if seed < 60 {
            &[Model::Sc, Model::Tso, Model::Pso]
        } else {
            &[]
        };
        assert_round_trip(&p, models);
        let q =
            tsoser::program::parse::parse_program(&tsoser::program::print::to_prog(&p)).unwrap();
        for (a, b) in p.threads.iter().zip(&q.threads) {
            assert_eq!(a.code, b.code, "{}", p.name);
        }
    }
}

/// Random programs with exclusive blocks (nested, unmatched), `nondet`, locks, joins,
/// spawns, arrays, `assume` and `assert` print and read back as the same program.
#[test]
fn random_programs_with_exclusive_blocks_print_and_read_back() {
    use proptest::strategy::{Strategy, ValueTree};
    use proptest::test_runner::TestRunner;
    use tsoser::program::strategy::{programs, ProgParams};
    let strategy = programs(ProgParams {
        threads: 3,
        locs: 2,
        max_len: 5,
        control: 1,
        sync: 1,
        exclusive: 2,
        nondet: 1,
        ..ProgParams::default()
    });
    let mut runner = TestRunner::new(crate::common::config(300));
    for i in 0..300 {
        let p = strategy.new_tree(&mut runner).unwrap().current();
        let models: &[Model] = if i < 60 {
            &[Model::Sc, Model::Tso]
        } else {
            &[]
        };
        assert_round_trip(&p, models);
    }
}

/// The papers' programs and litmus tests print and read back with the same outcomes;
/// a CMPXCHG's flag register survives (`cas [x], e, n, f`).
#[test]
fn the_examples_print_and_read_back() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/programs");
    let mut n = 0;
    for e in std::fs::read_dir(&dir).unwrap() {
        let path = e.unwrap().path();
        let p = read_program(&path).unwrap();
        // The bakery's and Peterson's loops make SC enough for a round trip.
        assert_round_trip(&p, &[Model::Sc]);
        n += 1;
    }
    assert!(n >= 18);
    let p = load("cmpxchg-spin.litmus");
    assert!(tsoser::program::print::to_prog(&p).contains("EAX = cas [lock], EAX, ECX, ZF"));
    assert_round_trip(&p, &[Model::Sc, Model::Tso, Model::Pso]);
}

/// `explore --format herd`: the states herd's report lists are the outcomes tsoser
/// explored (registers named `T:r`), and `Ok`/`No` is the condition's verdict.
fn assert_herd_agrees(p: &Program, model: Model) {
    let e = explore(p, &Config::new(model).unroll(4).max_states(1_000_000));
    let text = tsoser::output::herd::herd(p, &e, 0.0).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let n: usize = lines[1].strip_prefix("States ").unwrap().parse().unwrap();
    let herd_states: std::collections::BTreeSet<std::collections::BTreeSet<String>> = lines
        [2..2 + n]
        .iter()
        .map(|l| {
            l.split(';')
                .map(str::trim)
                .filter(|b| !b.is_empty())
                .map(String::from)
                .collect()
        })
        .collect();
    let ours: std::collections::BTreeSet<std::collections::BTreeSet<String>> = e
        .outcomes
        .iter()
        .map(|(vals, _)| {
            e.places
                .iter()
                .zip(vals)
                .map(|(pl, v)| match pl {
                    tsoser::program::Place::Reg(t, r) => {
                        format!("{t}:{}={v}", p.threads[*t].regs[*r])
                    }
                    tsoser::program::Place::Mem(x) => format!("{}={v}", p.locs[*x]),
                })
                .collect()
        })
        .collect();
    assert_eq!(herd_states, ours, "{}:\n{text}", p.name);
    assert_eq!(n, e.outcomes.len());
    let ok = lines[2 + n] == "Ok";
    assert!(ok || lines[2 + n] == "No", "{text}");
    if p.final_cond.is_some() {
        assert_eq!(Some(ok), e.condition(p), "{}:\n{text}", p.name);
    }
    let last = lines
        .iter()
        .find(|l| l.starts_with("Observation "))
        .unwrap();
    let words: Vec<&str> = last.split(' ').collect();
    let (yes, no): (usize, usize) = (words[3].parse().unwrap(), words[4].parse().unwrap());
    assert_eq!(yes + no, n, "{text}");
    let kind = match (yes, no) {
        (0, _) => "Never",
        (_, 0) => "Always",
        _ => "Sometimes",
    };
    assert_eq!(words[2], kind, "{text}");
}

#[test]
fn herd_reports_list_the_explored_states() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/programs");
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = read_program(&e.unwrap().path()).unwrap();
        assert_herd_agrees(&p, Model::Sc);
    }
    // Store buffering under TSO reads exactly as herd7's x86-TSO report of SB.
    let p = load("sb.prog");
    let e = explore(&p, &Config::new(Model::Tso));
    let text = tsoser::output::herd::herd(&p, &e, 0.0).unwrap();
    assert_eq!(
        text,
        "Test sb Allowed\nStates 4\n0:r0=0; 1:r1=0;\n0:r0=0; 1:r1=1;\n0:r0=1; 1:r1=0;\n\
         0:r0=1; 1:r1=1;\nOk\nWitnesses\nPositive: 1 Negative: 3\n\
         Condition exists (0:r0=0 /\\ 1:r1=0)\nObservation sb Sometimes 1 3\nTime sb 0.00\n"
    );
    // An exploration cut by its budget has no herd report.
    let cut = explore(
        &load("bakery.prog"),
        &Config::new(Model::Tso).max_states(10),
    );
    assert!(tsoser::output::herd::herd(&load("bakery.prog"), &cut, 0.0).is_err());
}

/// Bug: a program built in memory (no source lines: `gen`, the strategies) had its
/// failures, cuts and deadlocks reported at "line 0"; reports never name line 0.
#[test]
fn reports_never_name_line_0() {
    use tsoser::program::{Addr, Expr, Instr, Operand, Thread};
    let mut p = Program::new("mem");
    let m = p.loc("m");
    let mut t = Thread::new("P0");
    t.push(Instr::Lock(Addr::from(m)), 0);
    t.push(Instr::Lock(Addr::from(m)), 0);
    p.threads.push(t);
    let mut u = Thread::new("P1");
    u.push(Instr::Assert(Expr::Op(Operand::Const(0))), 0);
    p.threads.push(u);
    let mut v = Thread::new("P2");
    v.push(Instr::Assume(Expr::Op(Operand::Const(0))), 0);
    p.threads.push(v);
    for engine in [EngineKind::States, EngineKind::Dpor] {
        // Each thread alone, then all three: a failure, a deadlock, a cut.
        for keep in [vec![0], vec![1], vec![2], vec![0, 1, 2]] {
            let mut q = p.clone();
            q.threads = keep.iter().map(|&i| p.threads[i].clone()).collect();
            let r = report(
                &q,
                Options {
                    engine,
                    ..opts(Model::Tso)
                },
            )
            .unwrap();
            let text = tsoser::output::explore::text(&q, "mem", &r);
            assert!(!text.contains("line 0"), "{engine:?} {keep:?}:\n{text}");
            assert!(
                r.exploration.failure.is_some() || r.deadlock.is_some() || r.no_run,
                "{engine:?} {keep:?}:\n{text}"
            );
        }
    }
}

/// `spawn T` starts T only then, after draining the spawning thread's buffer as a fence
/// does (Nidhugg's `pthread_create`): T always reads the store made before the spawn,
/// under every model and with both engines; the program prints and reads back, and a
/// thread that spawns itself, or that a spawn starts at an `assume`, is refused.
#[test]
fn spawn_starts_a_thread_after_a_drain() {
    use tsoser::explore::dpor::explore_dpor;
    use tsoser::program::parse::parse_program;
    let text = "program spawn\nthread main {\n  [x] = 1\n  spawn T\n  [y] = 1\n}\n\
                thread T {\n  a = [x]\n  b = [y]\n}\n";
    let p = parse_program(text).unwrap();
    for m in [Model::Sc, Model::Tso, Model::Pso] {
        // Outcomes (T:a, T:b, x, y): T reads y before or after main's store.
        let e = explore(&p, &Config::new(m));
        let d = explore_dpor(&p, &Config::new(m), false);
        for o in [&e.outcomes, &d.exploration.outcomes] {
            assert_eq!(o.len(), 2, "{m:?}");
            assert!(o.iter().all(|(v, _)| v[0] == 1), "{m:?}: {o:?}");
        }
        assert_eq!(d.stats.complete, 2, "{m:?}");
    }
    assert_round_trip(&p, &[Model::Sc, Model::Tso, Model::Pso]);
    let own = "program s\nthread T {\n  spawn T\n}\n";
    assert!(parse_program(own)
        .unwrap_err()
        .to_string()
        .contains("cannot start itself"));
    let early =
        "program s\nthread main {\n  spawn T\n}\nthread T {\n  assume a == 0\n  [x] = 1\n}\n";
    let e = parse_program(early).unwrap_err().to_string();
    assert!(e.starts_with("6: thread `T` is spawned"), "{e}");
}
