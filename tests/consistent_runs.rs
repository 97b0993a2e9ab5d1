//! The explorer's runs as runs with values (`explore --emit-runs`) against
//! `tsoser consistent`: every SC run is SC, every TSO run is TSO, and a TSO run is not
//! SC under its own write order exactly when the robustness check's happens-before of
//! that run has a cycle (issue 17's validation against the explorer).

use tsoser::consistency::{self, Model, ValueRun, Verdict, WriteOrder};
use tsoser::explore::machine::Machine;
use tsoser::explore::traces::{run_of, traces_with, value_run, Issued};
use tsoser::explore::{self, robust};
use tsoser::program::{gen, Program};

const UNROLL: u32 = 2;

/// Every complete run of `p` under `model`, with its value run; None when there are
/// too many schedules to enumerate.
fn runs(p: &Program, model: explore::Model) -> Option<Vec<(Vec<Issued>, ValueRun)>> {
    let mut out = Vec::new();
    let em = traces_with(
        p,
        model,
        UNROLL,
        usize::MAX,
        200_000,
        true,
        &mut |_, _, run| {
            out.push((run.to_vec(), value_run(p, model, run)));
        },
    );
    (em.stop == tsoser::explore::traces::EmitStop::Complete).then_some(out)
}

/// The robustness check's happens-before of one run has a cycle.
fn hb_cyclic(p: &Program, model: explore::Model, run: &[Issued]) -> bool {
    robust::hb_cyclic(&run_of(&Machine::new(p, model, UNROLL), run))
}

fn consistent(run: &ValueRun, model: Model, order: WriteOrder) -> bool {
    match consistency::check(
        run,
        model,
        order,
        tsoser::solver::SolverKind::DEFAULT,
        &tsoser::Stop::default(),
    ) {
        Ok((Verdict::Consistent { .. }, _)) => true,
        Ok((Verdict::Cycle { .. } | Verdict::NoWriteOrder, _)) => false,
        other => panic!("{other:?}\n{}", run.to_yaml()),
    }
}

/// Figures of one program's runs.
#[derive(Default, Debug)]
struct Counts {
    sc_runs: usize,
    tso_runs: usize,
    /// TSO runs not SC under their own write order (= with a happens-before cycle).
    not_sc: usize,
    /// Of those, SC under some other write order.
    sc_under_another: usize,
}

/// Validates `p`'s runs; false when they were too many to enumerate.
fn validate(p: &Program, c: &mut Counts) -> bool {
    let (Some(sc_runs), Some(tso_runs)) =
        (runs(p, explore::Model::Sc), runs(p, explore::Model::Tso))
    else {
        return false;
    };
    for (_, r) in sc_runs {
        c.sc_runs += 1;
        assert!(
            consistent(&r, Model::Sc, WriteOrder::Simple),
            "{}: an SC run that is not SC:\n{}",
            p.name,
            r.to_yaml()
        );
    }
    let mut some_not_sc = false;
    for (issued, r) in tso_runs {
        c.tso_runs += 1;
        assert!(
            consistent(&r, Model::Tso, WriteOrder::Simple),
            "{}: a TSO run that is not TSO:\n{}",
            p.name,
            r.to_yaml()
        );
        let sc = consistent(&r, Model::Sc, WriteOrder::Simple);
        assert_eq!(
            !sc,
            hb_cyclic(p, explore::Model::Tso, &issued),
            "{}: SC under its write order and the robustness check disagree:\n{}",
            p.name,
            r.to_yaml()
        );
        if !sc {
            c.not_sc += 1;
            some_not_sc = true;
            if consistent(&r, Model::Sc, WriteOrder::Any) {
                c.sc_under_another += 1;
            }
        }
    }
    // The program is robust exactly when no TSO run is not SC.
    let cfg = explore::Config::new(explore::Model::Tso).unroll(UNROLL);
    let rob = robust::robust(p, &cfg).expect("small programs fit");
    assert_eq!(rob.robust, Some(!some_not_sc), "{}", p.name);
    true
}

#[test]
fn explorer_runs_are_consistent_and_not_sc_exactly_when_not_robust() {
    let mut c = Counts::default();
    let mut programs = 0;
    for family in gen::Family::ALL {
        for seed in 0..40u64 {
            let mut shape = gen::Shape::new(family);
            shape.threads = 2 + (seed % 2) as usize;
            shape.vars = 1 + (seed % 3) as usize;
            shape.len = 2 + (seed % 2) as usize;
            let p = gen::generate(&shape, seed);
            programs += usize::from(validate(&p, &mut c));
        }
    }
    for name in [
        "sb",
        "mp",
        "sb-fenced",
        "thm2-left",
        "thm2-right",
        "burnim-fig6",
    ] {
        let path = format!("examples/programs/{name}.prog");
        let p = tsoser::program::read_program(std::path::Path::new(&path)).unwrap();
        assert!(validate(&p, &mut c), "{name}: too many runs");
        programs += 1;
    }
    eprintln!("{programs} programs: {c:?}");
    // Not vacuous: many TSO runs are not SC.
    assert!(
        programs > 120 && c.not_sc > 100 && c.tso_runs > c.sc_runs,
        "{programs}: {c:?}"
    );
}

use crate::common;

#[test]
fn explore_emits_runs_that_consistent_reads_back() {
    let dir = std::env::temp_dir().join(format!("tsoser-emit-runs-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let d = dir.to_str().unwrap();
    let o = common::tsoser(&[
        "explore",
        "examples/programs/sb.prog",
        "--model",
        "tso",
        "--emit-runs",
        d,
    ]);
    assert!(
        common::stderr(&o).contains("runs with values to"),
        "{}",
        common::stderr(&o)
    );
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert!(files.len() >= 4, "{files:?}");
    let mut not_sc = 0;
    for f in &files {
        let f = f.to_str().unwrap();
        assert!(f.ends_with("-run.yaml"), "{f}");
        common::tsoser_exits(&["consistent", f, "--model", "tso"], 0);
        let o = common::tsoser(&["consistent", f, "--write-order", "any"]);
        not_sc += usize::from(o.status.code() == Some(1));
    }
    // Store buffering's relaxed outcome (both reads 0) is among them, and only it.
    assert_eq!(
        not_sc,
        files
            .iter()
            .filter(|f| {
                let t = std::fs::read_to_string(f).unwrap();
                t.contains("P0 rd y 0") && t.contains("P1 rd x 0")
            })
            .count()
    );
    assert!(not_sc >= 1);
    // The whole folder at once: one line per file and a summary.
    let o = common::tsoser_exits(&["consistent", d, "--model", "tso"], 0);
    let n = files.len();
    let out = common::stdout(&o);
    assert!(out.contains(&format!("{n} files: {n} ok")), "{out}");
    assert_eq!(
        out.lines().count(),
        n + 1,
        "a line per file and the summary"
    );
    let o = common::tsoser_exits(&["consistent", d, "--write-order", "any", "--json"], 1);
    let records: Vec<serde_json::Value> = common::stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(records.len(), n + 1, "a record per file and the summary");
    let no = records.iter().filter(|r| r["consistent"] == false).count();
    assert_eq!(no, not_sc);
    std::fs::remove_dir_all(&dir).unwrap();
}
