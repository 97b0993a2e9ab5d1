//! `tsoser crosscheck`: the papers' programs give the literature's answers, random
//! programs give no disagreement, and a mutated monitor is caught as one.

use crate::common;

use common::{stdout, tsoser_exits};
use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::TestRunner;
use std::path::Path;
use tsoser::check::decide::Algo;
use tsoser::crosscheck::{crosscheck, Check, Config, Report};
use tsoser::monitor::sober::SoberReport;
use tsoser::monitor::{new_monitor, Kind, Monitor, Outcome};
use tsoser::program::read_program;
use tsoser::program::strategy::{programs, ProgParams};
use tsoser::solver::SolverKind;
use tsoser::trace::{EventId, Op, ThreadId, VarId};

fn example(name: &str) -> Report {
    let p = read_program(
        &Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("examples/programs")
            .join(name),
    )
    .unwrap();
    crosscheck(&p, &Config::default())
}

fn monitor(r: &Report, k: Kind) -> &tsoser::crosscheck::MonitorRow {
    r.monitors.iter().find(|m| m.kind == k).unwrap()
}

/// Store buffering (Burnim et al. Fig. 1, Enea & Farzan's SB): not robust, every
/// monitor reports on the SC runs that read both initial values' neighbours.
#[test]
fn the_papers_programs_give_the_literatures_answers() {
    let sb = example("sb.prog");
    assert_eq!((sb.robust_tso, sb.robust_pso), (Some(false), Some(false)));
    assert_eq!(sb.witness_tso, Some(6));
    for k in [Kind::Sober, Kind::Tso, Kind::Pso] {
        let m = monitor(&sb, k);
        assert!(m.reports > 0 && m.complete == Check::Holds && m.sound == Check::Holds);
    }
    let fenced = example("sb-fenced.prog");
    assert_eq!(
        (fenced.robust_tso, fenced.robust_pso),
        (Some(true), Some(true))
    );
    assert_eq!(fenced.theorem_2, Check::Holds);
    // Burnim et al. Fig. 6: not robust, yet SOBER reports on no SC run; monitor_TSO does.
    let fig6 = example("burnim-fig6.prog");
    assert_eq!(fig6.robust_tso, Some(false));
    assert!(matches!(
        monitor(&fig6, Kind::Sober).complete,
        Check::Fails(_)
    ));
    assert_eq!(monitor(&fig6, Kind::Tso).complete, Check::Holds);
    assert!(
        fig6.disagreements().is_empty(),
        "{:?}",
        fig6.disagreements()
    );
    // Message passing: robust under TSO, not under PSO (stores overtake each other).
    let mp = example("mp.prog");
    assert_eq!((mp.robust_tso, mp.robust_pso), (Some(true), Some(false)));
    assert!(monitor(&mp, Kind::Pso).reports > 0);
    assert_eq!(monitor(&mp, Kind::Tso).reports, 0);
    // The task pool, transaction-fenced: robust, but its atomicity bug is there under
    // SC already — Theorem 3 applies and holds, and the fenced monitor reports.
    let pool = example("task-pool-fenced.prog");
    assert_eq!(pool.transaction_fenced, Some(true));
    assert_eq!(pool.theorem_3, Check::Holds);
    assert_eq!(
        (pool.robust_tso, pool.sc_serializable, pool.tso_serializable),
        (Some(true), Some(false), Some(false))
    );
    assert!(monitor(&pool, Kind::Fenced).reports > 0);
    // Proposition 2: its TSO runs that are not TSO-serializable as executions all have
    // traces the deciders call not TSO-serializable.
    assert!(pool.tso_runs_unserializable > 0 && pool.tso_runs >= pool.tso_traces);
    assert_eq!(pool.proposition_2, Check::Holds);
    // Without transactions every execution is serializable: the premise never holds.
    assert_eq!(sb.proposition_2, Check::NotApplicable);
    // Theorem 2's example pair (Enea & Farzan §5).
    for name in [
        "thm2-left.prog",
        "thm2-right.prog",
        "sober-idle-notify.prog",
        "sober-idle-notify-fixed.prog",
    ] {
        let r = example(name);
        assert!(
            r.disagreements().is_empty(),
            "{name}: {:?}",
            r.disagreements()
        );
        assert_eq!(r.deciders, Check::Holds, "{name}");
    }
}

/// SOBER without its happens-before condition: it reports at a thread's first load
/// after one of its stores to another location, whether or not another thread could
/// have seen the store late — the mutation the cross-check must catch.
struct SoberWithoutRhb {
    stored: Vec<Option<(EventId, VarId)>>,
    report: Option<SoberReport>,
}

impl Monitor for SoberWithoutRhb {
    fn kind(&self) -> Kind {
        Kind::Sober
    }
    fn step(&mut self, e: EventId, t: ThreadId, op: Op, var: Option<VarId>) {
        let t = usize::from(t);
        if self.stored.len() <= t {
            self.stored.resize(t + 1, None);
        }
        match (op, var) {
            (Op::Wr, Some(x)) => self.stored[t] = Some((e, x)),
            (Op::Fence | Op::Rmw, _) => self.stored[t] = None,
            (Op::Rd, Some(x)) => {
                if let Some((w, y)) = self.stored[t] {
                    if y != x && self.report.is_none() {
                        self.report = Some(SoberReport {
                            load: e,
                            reads: 0,
                            write: w,
                            index: 0,
                            last: w,
                            last_read: None,
                        });
                    }
                }
            }
            _ => {}
        }
    }
    fn grow(&mut self, k: usize, _m: usize) {
        self.stored.resize(k, None);
    }
    fn done(&self) -> bool {
        self.report.is_some()
    }
    fn finish(&mut self) -> Outcome {
        self.report.clone().map_or(Outcome::Clean, Outcome::Sober)
    }
}

fn mutant(kind: Kind, k: usize, m: usize) -> Box<dyn Monitor> {
    match kind {
        Kind::Sober => Box::new(SoberWithoutRhb {
            stored: Vec::new(),
            report: None,
        }),
        _ => new_monitor(kind, k, m),
    }
}

/// On 150 random two-thread programs (fixed seed) the real monitors, the explorer, the
/// theorems and the deciders never disagree; the mutant SOBER is caught on some.
#[test]
fn random_programs_agree_and_a_mutated_sober_is_caught() {
    let strategy = programs(ProgParams {
        threads: 2,
        locs: 2,
        max_len: 3,
        weights: [5, 5, 1, 1, 1],
        txns: true,
        fenced: false,
        control: 0,
        sync: 0,
        exclusive: 0,
        nondet: 0,
    });
    let mut runner = TestRunner::new(common::config(150));
    let config = Config {
        deciders: vec![
            Algo::Brute,
            Algo::Sat(SolverKind::DEFAULT),
            Algo::Fpt { fig4: false },
        ],
        ..Config::default()
    };
    let (mut programs_checked, mut caught, mut prop_2) = (0, 0, 0);
    for _ in 0..150 {
        let p = strategy.new_tree(&mut runner).unwrap().current();
        let r = crosscheck(&p, &config);
        assert!(
            r.disagreements().is_empty(),
            "{:?}\n{p:?}",
            r.disagreements()
        );
        let m = crosscheck(
            &p,
            &Config {
                monitors: mutant,
                ..config.clone()
            },
        );
        prop_2 += usize::from(r.proposition_2 == Check::Holds);
        if m.disagreements().iter().any(|(q, _)| q == "sober sound") {
            caught += 1;
        }
        programs_checked += 1;
    }
    assert_eq!(programs_checked, 150);
    assert!(caught > 0, "the mutant SOBER was never caught");
    assert!(
        prop_2 > 0,
        "no program had a run that is not TSO-serializable"
    );
}

#[test]
fn the_command_tabulates_and_summarises() {
    let o = tsoser_exits(
        &[
            "crosscheck",
            "examples/programs/sb.prog",
            "examples/programs/mp.prog",
        ],
        0,
    );
    let text = stdout(&o);
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].starts_with("program") && lines[0].contains("monitor_TSO"),
        "{text}"
    );
    assert!(
        lines[1].starts_with("examples/programs/sb.prog") && lines[1].contains("no (6 steps)"),
        "{text}"
    );
    assert!(text.contains("summary (2 programs):"), "{text}");
    assert!(text.contains("monitor_PSO  2 agree, 0 disagree"), "{text}");
    assert!(
        text.contains("monitor_PSO reports and monitor_TSO does not: 1 runs"),
        "{text}"
    );
    // One model: only its questions.
    let o = tsoser_exits(
        &["crosscheck", "--model", "pso", "examples/programs/mp.prog"],
        0,
    );
    let text = stdout(&o);
    assert!(
        text.contains("monitor_PSO") && !text.contains("monitor_TSO"),
        "{text}"
    );
    assert!(
        text.contains("6/-") && text.contains("no (6 steps)"),
        "{text}"
    );
    let o = tsoser_exits(&["crosscheck", "examples/programs/sb.prog", "--json"], 0);
    let rows: Vec<serde_json::Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0]["robust_tso"], false);
    assert_eq!(rows[1]["summary"]["disagreements"], 0);
    assert_eq!(rows[0]["unknown"], serde_json::json!([]));
    // A bound that cuts the runs: the questions that need them all are unknown, each
    // with the reason.
    let o = tsoser_exits(
        &[
            "crosscheck",
            "examples/programs/burnim-fig6.prog",
            "--max-traces",
            "5",
            "--json",
        ],
        3,
    );
    let row: serde_json::Value = serde_json::from_str(stdout(&o).lines().next().unwrap()).unwrap();
    let unknown = row["unknown"].as_array().unwrap();
    assert!(
        unknown.iter().any(|u| u["question"] == "deciders"
            && u["reason"] == "more distinct traces than --max-traces"),
        "{row}"
    );
    // A program that does not parse is an input error naming its line; the rest run.
    let d = bad_and_good_programs("cc");
    let o = tsoser_exits(&["crosscheck", d.to_str().unwrap()], 2);
    assert!(stdout(&o).contains("bad.prog: error — "), "{}", stdout(&o));
    assert!(stdout(&o).contains("sb.prog"), "{}", stdout(&o));
}

/// Found by `crosscheck` on 100 generated programs: P1 branches on the value it read.
/// The program is robust and SC-serializable and every TSO run is TSO-serializable, so
/// Theorem 2 holds — but the trace of one run is not TSO-serializable (Def. 3), because
/// among its executions is one where P1's first read sees P0's store, which in the
/// program sends P1 down the other branch: that execution is no run. Theorems 2 and 3
/// speak of runs; a cross-check that read them over traces reported a false
/// disagreement.
#[test]
fn theorem_2_is_about_runs_not_traces() {
    let p = tsoser::program::parse::parse_program(
        "program random-0
thread P0 {
  begin
  [x1] = 10
  end
  begin
  r1 = [x1]
  end
}
thread P1 {
  begin
  r1 = [x1]
  end
  begin
  [x1] = 21
  if r1 == 0 goto L7
  r2 = [x1]
L7: end
}",
    )
    .unwrap();
    let r = crosscheck(&p, &Config::default());
    assert_eq!(
        (r.robust_tso, r.sc_serializable, r.tso_serializable),
        (Some(true), Some(true), Some(true))
    );
    assert_eq!(r.tso_traces_serializable, Some(false));
    assert_eq!(r.tso_runs_unserializable, 0);
    assert_eq!(r.theorem_2, Check::Holds);
    assert!(r.disagreements().is_empty(), "{:?}", r.disagreements());
}

/// Bug: `crosscheck --max-states 0` left every column unknown and exited 0 (`explore`
/// and `suite` exit 3 in the same case). An answer owed and left unknown is exit 3; an
/// input error (2) and a disagreement (1) still rank above it.
#[test]
fn crosscheck_exits_3_when_an_answer_it_owes_is_unknown() {
    let o = tsoser_exits(
        &[
            "crosscheck",
            "examples/programs/sb.prog",
            "--max-states",
            "0",
        ],
        3,
    );
    assert!(stdout(&o).contains("1 unknown"), "{}", stdout(&o));
    let o = tsoser_exits(
        &[
            "crosscheck",
            "examples/programs/sb.prog",
            "--max-states",
            "0",
            "--json",
        ],
        3,
    );
    let row: serde_json::Value = serde_json::from_str(stdout(&o).lines().next().unwrap()).unwrap();
    assert!(!row["unknown"].as_array().unwrap().is_empty(), "{row}");
    // With an input error too: 2.
    let d = bad_and_good_programs("cc3");
    let o = tsoser_exits(&["crosscheck", d.to_str().unwrap(), "--max-states", "0"], 2);
    assert!(stdout(&o).contains("bad.prog: error — "), "{}", stdout(&o));
    // Within the bounds nothing is unknown: 0, as before.
    tsoser_exits(&["crosscheck", "examples/programs/sb.prog"], 0);
}

/// Bug crosscheck_counted_joins_as_events: a TSO run taken as an execution of its
/// trace counted each `join` (and nondet choice) as an event, which the trace has not,
/// so `crosscheck` panicked on every program that joins: every C program with
/// `pthread_join`.
#[test]
fn crosscheck_of_a_program_that_joins() {
    let p = read_program(&Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/c/sb.c")).unwrap();
    let r = crosscheck(&p, &Config::default());
    assert_eq!((r.robust_tso, r.robust_pso), (Some(false), Some(false)));
    assert!(r.tso_runs > 0, "{:?}", r.tso_runs);
    assert!(r.disagreements().is_empty(), "{:?}", r.disagreements());
}

/// `crosscheck` reads a C file as `explore` does: `-D`, `--heap` and `--nondet` (the
/// flags they share) change the program it checks.
#[test]
fn crosscheck_reads_c_with_explores_flags() {
    let row_exits = |args: &[&str], code: i32| -> serde_json::Value {
        let mut all = vec!["crosscheck", "--json"];
        all.extend_from_slice(args);
        let o = tsoser_exits(&all, code);
        serde_json::from_str(stdout(&o).lines().next().unwrap()).unwrap()
    };
    let row = |args: &[&str]| row_exits(args, 0);
    let sb = "examples/c/sb.c";
    assert_eq!(row(&[sb])["robust_tso"], false);
    assert_eq!(row(&[sb, "-D", "FENCED"])["robust_tso"], true);
    // The second allocation of the loop asks the pool for a second object: with
    // --heap 1 every run is cut there, and no trace is left.
    let heap = common::source(
        "cc-heap",
        "nodes.c",
        "#include <stdlib.h>\n#include <pthread.h>\nstruct node { int v; };\n\
         struct node *nodes[2];\nint seen;\n\
         void *reader(void *arg) {\n  seen = nodes[0] != 0;\n  return NULL;\n}\n\
         int main(void) {\n  pthread_t t;\n  pthread_create(&t, NULL, reader, NULL);\n  \
         for (int i = 0; i < 2; i++)\n    nodes[i] = malloc(sizeof(struct node));\n  \
         pthread_join(t, NULL);\n  return 0;\n}\n",
    );
    let heap = heap.to_str().unwrap();
    assert!(row(&[heap])["sc_traces"].as_u64().unwrap() > 0);
    // Exit 3: the robustness it owes is unknown.
    let cut = row_exits(&[heap, "--heap", "1"], 3);
    assert_eq!(cut["sc_traces"], 0);
    // Only run prefixes were searched: robustness is unknown, not "yes".
    assert_eq!(cut["robust_tso"], serde_json::Value::Null, "{cut}");
    // A store only when the nondet value is 5, outside the default range -1..2.
    let nondet = common::source(
        "cc-nondet",
        "five.c",
        "int x;\nint main(void) {\n  int v = __VERIFIER_nondet_int();\n  \
         if (v == 5)\n    x = 1;\n  return 0;\n}\n",
    );
    let nondet = nondet.to_str().unwrap();
    assert_eq!(row(&[nondet])["sc_traces"], 1);
    assert_eq!(row(&[nondet, "--nondet", "4..5"])["sc_traces"], 2);
}

/// A folder holding a program that does not parse (`bad.prog`) and `sb.prog`.
fn bad_and_good_programs(tag: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("tsoser-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    std::fs::write(d.join("bad.prog"), "thread P0\n  frobnicate x\n").unwrap();
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/programs/sb.prog"),
        d.join("sb.prog"),
    )
    .unwrap();
    d
}
