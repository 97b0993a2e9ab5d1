//! `--algo sat` and `tsoser encode` end to end: verdicts per solver, golden exports,
//! DIMACS/SMT-LIB round trips, timeouts.

use crate::common;

use common::tsoser;
use proptest::prelude::*;
use tsoser::check::sat::asp::to_asp;
use tsoser::check::sat::encode::{export_formula, whole_formula};
use tsoser::check::sat::export::{parse_dimacs, to_dimacs};
use tsoser::check::{brute, Semantics};
use tsoser::trace::strategy::{traces, Params};
use tsoser::trace::Trace;
use varisat::ExtendFormula;

fn solvers() -> Vec<&'static str> {
    let mut v = vec!["varisat"];
    if cfg!(feature = "z3") {
        v.push("z3");
    }
    if cfg!(feature = "cadical") {
        v.push("cadical");
    }
    v
}

/// The solver `--algo sat` uses when none is named.
const DEFAULT_SOLVER: &str = if cfg!(feature = "cadical") {
    "cadical"
} else {
    "varisat"
};

const EXAMPLES: &[&str] = &[
    "task-pool",
    "task-pool-fenced",
    "thm2-left",
    "thm2-right",
    "flaw1-buffered-read",
    "flaw2-commit-point",
    "rmw-sb",
    "rmw-lock",
    "forced-cycle",
    "fig4-profiles-miss",
];

#[test]
fn sat_gives_brute_verdicts_on_every_example() {
    for e in EXAMPLES {
        let f = format!("examples/{e}.yaml");
        for sem in ["exact", "paper"] {
            let want = tsoser(&["check", &f, "--semantics", sem]).status.code();
            for s in solvers() {
                let o = tsoser(&[
                    "check",
                    &f,
                    "--algo",
                    "sat",
                    "--solver",
                    s,
                    "--semantics",
                    sem,
                    "--json",
                ]);
                assert_eq!(
                    o.status.code(),
                    want,
                    "{e} {sem} {s}: {}",
                    String::from_utf8_lossy(&o.stderr)
                );
                let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
                assert_eq!(v["algo"], "sat");
                assert_eq!(v["solver"], s);
            }
        }
    }
}

#[test]
fn sat_text_output_names_the_solver_and_stats() {
    let o = tsoser(&[
        "check",
        "examples/task-pool.yaml",
        "--algo",
        "sat",
        "--stats",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains(&format!("[exact semantics, sat/{DEFAULT_SOLVER}]: NO")),
        "{out}"
    );
    assert!(out.contains("transaction cycle"));
    let err = String::from_utf8_lossy(&o.stderr);
    for k in [
        "variables",
        "clauses",
        "solver calls",
        "lazy cuts",
        "largest component",
        "encoding",
        "solving",
    ] {
        assert!(err.contains(k), "--stats shows {k}: {err}");
    }
}

#[test]
fn timeout_answers_unknown() {
    let dir = std::env::temp_dir().join(format!("tsoser-timeout-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("big.yaml");
    let f = f.to_str().unwrap();
    let g = tsoser(&[
        "gen",
        "--events",
        "60000",
        "--seed",
        "3",
        "--schedule",
        "serial",
        "-o",
        f,
    ]);
    assert_eq!(g.status.code(), Some(0));
    for algo in ["sat", "brute"] {
        let o = tsoser(&["check", f, "--algo", algo, "--timeout", "0.001", "--json"]);
        assert_eq!(o.status.code(), Some(3), "{algo}");
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(v["verdict"], "unknown");
        assert!(v["reason"].as_str().unwrap().contains("timeout"));
    }
    let o = tsoser(&["check", f, "--timeout", "-1"]);
    assert_eq!(o.status.code(), Some(2));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn golden_exports_are_stable() {
    let mut checked = 0;
    for entry in
        std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/encodings/golden")).unwrap()
    {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_str().unwrap().to_string();
        let parts: Vec<&str> = name.split('.').collect();
        let (example, sem, ext) = (parts[0], parts[1], parts[2]);
        let format = match ext {
            "cnf" => "dimacs",
            "smt2" => "smt2",
            "lp" => "asp",
            _ => panic!("{name}: not an export"),
        };
        let o = tsoser(&[
            "encode",
            &format!("examples/{example}.yaml"),
            "--semantics",
            sem,
            "--format",
            format,
        ]);
        assert_eq!(o.status.code(), Some(0));
        let want = std::fs::read_to_string(&path).unwrap();
        assert_eq!(
            String::from_utf8_lossy(&o.stdout),
            want,
            "{name} changed: regenerate it if the change is intended"
        );
        checked += 1;
    }
    assert!(checked >= 8);
}

fn solve_dimacs(text: &str) -> bool {
    let (vars, clauses) = parse_dimacs(text).unwrap();
    let mut s = varisat::Solver::new();
    for c in &clauses {
        assert!(c.iter().all(|l| l.unsigned_abs() as usize <= vars));
        let c: Vec<varisat::Lit> = c
            .iter()
            .map(|&l| varisat::Lit::from_dimacs(l as isize))
            .collect();
        s.add_clause(&c);
    }
    s.solve().unwrap()
}

/// DIMACS round trip: the clauses read back are the clauses written; unsatisfiable
/// means serializable, a violation means satisfiable.
fn dimacs_round_trip(trace: &Trace) -> Result<(), TestCaseError> {
    for sem in [Semantics::Exact, Semantics::Paper] {
        let f = export_formula(trace, sem, &tsoser::Stop::default()).unwrap();
        let text = to_dimacs(trace, &f);
        let (vars, clauses) = parse_dimacs(&text).unwrap();
        prop_assert_eq!(vars, f.num_vars());
        let written: Vec<Vec<i32>> = f.clauses.iter().chain(&f.order_clauses).cloned().collect();
        prop_assert_eq!(&clauses, &written);
        let violation = match sem {
            Semantics::Exact => brute::check_exact(trace, u64::MAX, &tsoser::Stop::default())
                .0
                .is_violation(),
            Semantics::Paper => {
                brute::check_paper(trace, brute::DEFAULT_MAX, &tsoser::Stop::default())
                    .0
                    .is_violation()
            }
        };
        // The exported formula is exact: satisfiable iff a violation (bug:
        // dimacs_export_is_equisatisfiable — it used to need the lazy cuts).
        prop_assert_eq!(violation, solve_dimacs(&text), "{:?}", sem);
        // The lazy formula the solver loop starts from only over-approximates.
        let lazy = to_dimacs(
            trace,
            &whole_formula(trace, sem, &tsoser::Stop::default()).unwrap(),
        );
        prop_assert!(!violation || solve_dimacs(&lazy));
    }
    #[cfg(feature = "z3")]
    {
        // SMT-LIB 2 (written without z3) read back by z3: exact with integer positions
        // (no cuts), paper with the eager closure; satisfiable iff a violation.
        for sem in [Semantics::Exact, Semantics::Paper] {
            let f = match sem {
                Semantics::Exact => whole_formula(trace, sem, &tsoser::Stop::default()).unwrap(),
                Semantics::Paper => export_formula(trace, sem, &tsoser::Stop::default()).unwrap(),
            };
            let smt = tsoser::check::sat::export::to_smt2(trace, &f, sem);
            let s = z3::Solver::new();
            s.from_string(smt);
            let sat = s.check() == z3::SatResult::Sat;
            let want = match sem {
                Semantics::Exact => brute::check_exact(trace, u64::MAX, &tsoser::Stop::default())
                    .0
                    .is_violation(),
                Semantics::Paper => {
                    brute::check_paper(trace, brute::DEFAULT_MAX, &tsoser::Stop::default())
                        .0
                        .is_violation()
                }
            };
            prop_assert_eq!(sat, want, "{:?}", sem);
        }
    }
    Ok(())
}

#[test]
fn examples_round_trip() {
    for e in EXAMPLES {
        let t = tsoser::trace::yaml::read_trace(std::path::Path::new(&format!(
            "{}/examples/{e}.yaml",
            env!("CARGO_MANIFEST_DIR")
        )))
        .unwrap();
        dimacs_round_trip(&t).unwrap();
    }
}

proptest! {
    #![proptest_config(common::config(600))]

    #[test]
    fn encodings_round_trip(trace in traces(Params { min_events: 4, max_events: 9, ..Params::default() })) {
        dimacs_round_trip(&trace)?;
    }
}

/// Whether a test's optional tool is `absent`: then it fails if CI's `require`
/// variable is set, and otherwise says `SKIPPED:` past the harness's capture (so a
/// plain `cargo test` shows it) and how to install the tool.
fn missing(absent: bool, require: &str, what: &str, install: &str) -> bool {
    if absent {
        assert!(
            std::env::var_os(require).is_none(),
            "{what} (docs/testing.md: Prerequisites)"
        );
        use std::io::Write;
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED: {what}; {install} runs this test"
        );
    }
    absent
}

/// The same small generated traces (4–10 events) for every run.
fn small_traces() -> (
    proptest::test_runner::TestRunner,
    impl proptest::strategy::Strategy<Value = tsoser::trace::Trace>,
) {
    use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
    let rng = TestRng::deterministic_rng(RngAlgorithm::ChaCha);
    let strat = traces(Params {
        min_events: 4,
        max_events: 10,
        ..Params::default()
    });
    (TestRunner::new_with_rng(Config::default(), rng), strat)
}

/// An external DIMACS solver from Debian (`apt-get install picosat` or `minisat`), if
/// installed: `Some(satisfiable)`. CI installs picosat and sets
/// `TSOSER_REQUIRE_EXTERNAL_SOLVER=1`, which turns its absence into a failure.
fn external_solve(cnf: &std::path::Path) -> Option<bool> {
    for (solver, args) in [("picosat", vec![]), ("minisat", vec!["-verb=0"])] {
        let Ok(o) = std::process::Command::new(solver)
            .args(&args)
            .arg(cnf)
            .output()
        else {
            continue;
        };
        let out = String::from_utf8_lossy(&o.stdout);
        if out.contains("UNSATISFIABLE") {
            return Some(false);
        }
        if out.contains("SATISFIABLE") {
            return Some(true);
        }
        panic!("{solver} answered neither: {out}");
    }
    None
}

/// Bug dimacs_export_is_equisatisfiable: `encode --format dimacs` said SATISFIABLE to
/// minisat on serializable traces (the lazy cuts were missing). Now an external
/// solver's answer on 1,000 exported formulas is brute's verdict, in both semantics.
#[test]
fn external_solver_agrees_with_brute_on_exported_formulas() {
    use proptest::strategy::{Strategy, ValueTree};
    let dir = std::env::temp_dir().join(format!("tsoser-dimacs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let probe = dir.join("probe.cnf");
    std::fs::write(&probe, "p cnf 1 1\n1 0\n").unwrap();
    if missing(
        external_solve(&probe).is_none(),
        "TSOSER_REQUIRE_EXTERNAL_SOLVER",
        "no picosat or minisat on PATH",
        "`apt-get install picosat`",
    ) {
        return;
    }
    let (mut runner, strat) = small_traces();
    let (mut sat, mut unsat) = (0, 0);
    for i in 0..1000 {
        let t = strat.new_tree(&mut runner).unwrap().current();
        for sem in [Semantics::Exact, Semantics::Paper] {
            let cnf = dir.join("t.cnf");
            std::fs::write(
                &cnf,
                to_dimacs(
                    &t,
                    &export_formula(&t, sem, &tsoser::Stop::default()).unwrap(),
                ),
            )
            .unwrap();
            let want = match sem {
                Semantics::Exact => brute::check_exact(&t, u64::MAX, &tsoser::Stop::default()).0,
                Semantics::Paper => {
                    brute::check_paper(&t, brute::DEFAULT_MAX, &tsoser::Stop::default()).0
                }
            };
            assert!(
                !matches!(want, tsoser::check::Verdict::Unknown(_)),
                "brute's budget"
            );
            let want = want.is_violation();
            let got = external_solve(&cnf).unwrap();
            assert_eq!(
                got,
                want,
                "trace {i} ({sem:?}):\n{}",
                tsoser::trace::yaml::write(&t, tsoser::trace::yaml::Form::Canonical)
            );
            if got {
                sat += 1
            } else {
                unsat += 1
            }
        }
    }
    assert!(sat > 100 && unsat > 100, "{sat} satisfiable, {unsat} not");
    std::fs::remove_dir_all(&dir).ok();
}

/// Solves each program with clingo's Python module (`pip install clingo`) in one
/// interpreter: `Some(answers)`, true where the program has an answer set; `None` when
/// the module is not there. One process for all: each `python3 -m clingo` costs 0.15 s
/// of start-up.
fn clingo_all(programs: &[String]) -> Option<Vec<bool>> {
    use std::io::Write;
    const SOLVE: &str = r#"
import sys, clingo
for p in sys.stdin.read().split("\n%%%%\n"):
    c = clingo.Control(["--warn=none"])
    c.add("base", [], p)
    c.ground([("base", [])])
    r = c.solve()
    print("SATISFIABLE" if r.satisfiable else "UNSATISFIABLE" if r.unsatisfiable else "UNKNOWN")
"#;
    let mut child = std::process::Command::new("python3")
        .args(["-c", SOLVE])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .ok()?;
    let input = programs.join("\n%%%%\n");
    child.stdin.take()?.write_all(input.as_bytes()).ok()?;
    let o = child.wait_with_output().ok()?;
    if !o.status.success() {
        return None;
    }
    let answers: Vec<bool> = String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(|l| match l {
            "SATISFIABLE" => true,
            "UNSATISFIABLE" => false,
            other => panic!("clingo answered {other}"),
        })
        .collect();
    assert_eq!(answers.len(), programs.len(), "one answer per program");
    Some(answers)
}

/// `encode --format asp` is exact: clingo finds an answer set iff brute finds a
/// violation, on 200 generated traces in both semantics. Skipped, with a note, where
/// clingo's Python module is not installed; CI installs it and sets
/// `TSOSER_REQUIRE_CLINGO=1`, which turns its absence into a failure.
#[test]
fn clingo_agrees_with_brute_on_asp_programs() {
    use proptest::strategy::{Strategy, ValueTree};
    let probe = ["a.".to_string(), ":- not a. a :- not a.".to_string()];
    if missing(
        clingo_all(&probe) != Some(vec![true, false]),
        "TSOSER_REQUIRE_CLINGO",
        "no clingo Python module",
        "`pip install clingo`",
    ) {
        return;
    }
    let (mut runner, strat) = small_traces();
    let stop = tsoser::Stop::default();
    let mut cases = Vec::new();
    for i in 0..200 {
        let t = strat.new_tree(&mut runner).unwrap().current();
        for sem in [Semantics::Exact, Semantics::Paper] {
            let program = to_asp(&t, &whole_formula(&t, sem, &stop).unwrap(), sem);
            let want = match sem {
                Semantics::Exact => brute::check_exact(&t, u64::MAX, &stop).0,
                Semantics::Paper => brute::check_paper(&t, brute::DEFAULT_MAX, &stop).0,
            };
            assert!(
                !matches!(want, tsoser::check::Verdict::Unknown(_)),
                "brute's budget"
            );
            cases.push((i, t.clone(), sem, program, want.is_violation()));
        }
    }
    let programs: Vec<String> = cases.iter().map(|c| c.3.clone()).collect();
    let answers = clingo_all(&programs).expect("clingo ran on the probe");
    for ((i, t, sem, program, want), got) in cases.iter().zip(&answers) {
        assert_eq!(
            got,
            want,
            "trace {i} ({sem:?}):\n{}\n{program}",
            tsoser::trace::yaml::write(t, tsoser::trace::yaml::Form::Canonical)
        );
    }
    let sat = answers.iter().filter(|&&a| a).count();
    let unsat = answers.len() - sat;
    assert!(sat > 40 && unsat > 40, "{sat} satisfiable, {unsat} not");
}

/// `--timeout` covers reading the trace too: a named pipe nobody writes to blocks the
/// reader forever, and the command still answers *unknown* at the deadline.
#[cfg(unix)]
#[test]
fn timeout_covers_reading_the_trace() {
    let dir = std::env::temp_dir().join(format!("tsoser-fifo-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("never-written.yaml");
    let made = std::process::Command::new("mkfifo").arg(&f).status();
    if !matches!(made, Ok(s) if s.success()) {
        eprintln!("skipped: mkfifo is not available");
        return;
    }
    for json in [false, true] {
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_tsoser"));
        cmd.args(["check", f.to_str().unwrap(), "--timeout", "0.3"]);
        if json {
            cmd.arg("--json");
        }
        let mut child = cmd.stdout(std::process::Stdio::piped()).spawn().unwrap();
        let start = std::time::Instant::now();
        let status = loop {
            if let Some(s) = child.try_wait().unwrap() {
                break s;
            }
            if start.elapsed() > std::time::Duration::from_secs(120) {
                child.kill().ok();
                panic!("check --timeout 0.3 is still reading a named pipe after 120 s");
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        };
        let mut out = String::new();
        std::io::Read::read_to_string(&mut child.stdout.take().unwrap(), &mut out).unwrap();
        assert_eq!(status.code(), Some(3), "{out}");
        assert!(out.contains("while reading the trace"), "{out}");
        if json {
            let v: serde_json::Value = serde_json::from_str(&out).unwrap();
            assert_eq!(v["verdict"], "unknown");
            assert!(v["trace"].is_null());
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// Bug: `encode` had no `--timeout` (its eager closure can run for minutes). Now
/// `encode --timeout` gives up cooperatively, on the one thread: no formula on
/// standard output, *unknown* with the cause, exit 3; within it, the same formula.
#[test]
fn encode_timeout_answers_unknown_without_a_formula() {
    let dir = std::env::temp_dir().join(format!("tsoser-enc-timeout-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("dense.yaml");
    let f = f.to_str().unwrap();
    // Without a budget: about 50 s in a debug build (its eager closure).
    let gen = [
        "gen",
        "--events",
        "1000",
        "--threads",
        "4",
        "--vars",
        "4",
        "--txn-len",
        "1",
        "--fence-every",
        "0",
        "--write",
        "0.5",
        "-o",
        f,
    ];
    assert_eq!(tsoser(&gen).status.code(), Some(0));
    let start = std::time::Instant::now();
    let o = tsoser(&["encode", f, "--timeout", "0.2"]);
    let e = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(3), "{e}");
    assert!(o.stdout.is_empty(), "a formula after the timeout");
    assert!(
        e.contains("dense.yaml: unknown — --timeout of 0.200 s reached"),
        "{e}"
    );
    assert!(start.elapsed().as_secs() < 30, "{:?}", start.elapsed());
    let o = tsoser(&["encode", f, "--timeout", "0"]);
    assert_eq!(o.status.code(), Some(2));
    // Within the budget, the formula is the one written without it.
    let sb = "examples/sb-borderline.yaml";
    let plain = tsoser(&["encode", sb]);
    let timed = tsoser(&["encode", sb, "--timeout", "60"]);
    assert_eq!(timed.status.code(), Some(0));
    assert!(!plain.stdout.is_empty() && plain.stdout == timed.stdout);
    std::fs::remove_dir_all(&dir).ok();
}
