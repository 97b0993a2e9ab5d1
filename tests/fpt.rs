//! `--algo fpt` end to end, and what Fig. 4's abstraction loses. Agreement with brute
//! and sat on generated traces is in `tests/conformance.rs`.

use crate::common;

use common::{config, stderr, stdout, tsoser};
use proptest::prelude::*;
use tsoser::check::fpt::{check_fpt, FptOptions};
use tsoser::check::{brute, Semantics, Verdict};
use tsoser::trace::compact;
use tsoser::trace::strategy::{traces, Params};

/// The example traces (not the execution files).
fn examples() -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/examples"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|f| f.ends_with(".yaml") && !f.ends_with("-run.yaml") && !f.contains("execution"))
        .map(|f| format!("examples/{f}"))
        .collect();
    v.sort();
    assert!(v.len() >= 9, "{v:?}");
    v
}

#[test]
fn fpt_gives_brute_verdicts_on_every_example() {
    for f in examples() {
        for sem in ["exact", "paper"] {
            let want = tsoser(&["check", &f, "--semantics", sem, "--json"]);
            let want_v: serde_json::Value = serde_json::from_slice(&want.stdout).unwrap();
            for jobs in ["1", "0"] {
                let o = tsoser(&[
                    "check",
                    &f,
                    "--algo",
                    "fpt",
                    "--semantics",
                    sem,
                    "--jobs",
                    jobs,
                    "--json",
                ]);
                assert_eq!(
                    o.status.code(),
                    want.status.code(),
                    "{f} {sem}: {}",
                    stderr(&o)
                );
                let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
                assert_eq!(v["algo"], "fpt");
                assert_eq!(v["semantics"], sem);
                // Paper mode says whether an execution stands behind the violation.
                assert_eq!(
                    v["paper_realizable"], want_v["paper_realizable"],
                    "{f} {sem}"
                );
            }
        }
    }
}

#[test]
fn fpt_text_names_the_algorithm_and_prints_the_chain_partition() {
    let o = tsoser(&[
        "check",
        "examples/task-pool.yaml",
        "--algo",
        "fpt",
        "--stats",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    assert!(out.contains("[exact semantics, fpt]: NO"), "{out}");
    assert!(out.contains("witness execution"), "{out}");
    assert!(out.contains("transaction cycle"), "{out}");
    let err = stderr(&o);
    for k in [
        "enumeration (Fig. 3)",
        "chains",
        "jumps tried",
        "pruned (not simple)",
        "pruned (not valid)",
        "chain partition of the widest component (Thm. 8): 2 chains",
        "profiles:",
    ] {
        assert!(err.contains(k), "missing {k}: {err}");
    }
    let o = tsoser(&[
        "check",
        "examples/task-pool.yaml",
        "--algo",
        "fpt",
        "--stats",
        "--json",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let chains = v["stats"]["chains"].as_array().unwrap();
    assert_eq!(chains.len(), 2);
    for c in chains {
        for k in [
            "transactions",
            "threads",
            "entries",
            "exits",
            "fig4_profiles",
            "exact_profiles",
        ] {
            assert!(c.get(k).is_some(), "{k} in {c}");
        }
    }
    assert!(v["stats"]["counts"]["jumps"].as_u64().unwrap() > 0);
}

#[test]
fn paper_mode_says_when_no_execution_stands_behind_the_cycle() {
    let o = tsoser(&[
        "check",
        "examples/flaw2-commit-point.yaml",
        "--algo",
        "fpt",
        "--semantics",
        "paper",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stdout(&o).contains("the paper's graph over-approximates here"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn a_spent_budget_answers_unknown() {
    // flaw 2 is serializable in exact mode only after trying jumps.
    let o = tsoser(&[
        "check",
        "examples/flaw2-commit-point.yaml",
        "--algo",
        "fpt",
        "--max-jumps",
        "0",
        "--json",
    ]);
    assert_eq!(o.status.code(), Some(3), "{}", stdout(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["verdict"], "unknown");
    assert!(v["reason"].as_str().unwrap().contains("--max-jumps"));
}

#[test]
fn a_bad_jobs_value_is_a_usage_error() {
    let o = tsoser(&[
        "check",
        "examples/task-pool.yaml",
        "--algo",
        "fpt",
        "--jobs",
        "x",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--jobs"), "{}", stderr(&o));
}

/// `--profiles fig4` runs Fig. 4 literally, labels its answer, and is an fpt option only.
#[test]
fn profiles_fig4_reproduces_the_paper_and_says_it_may_be_wrong() {
    let f = "examples/fig4-profiles-miss.yaml";
    for sem in ["exact", "paper"] {
        let o = tsoser(&[
            "check",
            f,
            "--algo",
            "fpt",
            "--semantics",
            sem,
            "--profiles",
            "fig4",
        ]);
        assert_eq!(o.status.code(), Some(0), "{sem}: Fig. 4 misses it");
        assert!(
            stdout(&o).contains("Fig. 4 profiles: a yes may be wrong"),
            "{}",
            stdout(&o)
        );
        let o = tsoser(&["check", f, "--algo", "fpt", "--semantics", sem]);
        assert_eq!(o.status.code(), Some(1), "{sem}: the exact search finds it");
    }
    let o = tsoser(&["check", f, "--algo", "fpt", "--profiles", "fig4", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["profiles"], "fig4");
    let o = tsoser(&["check", f, "--algo", "sat", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["profiles"], serde_json::Value::Null);
    let o = tsoser(&["check", f, "--profiles", "fig4"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--algo fpt"), "{}", stderr(&o));
}

/// Fig. 4 taken literally answers serializable where the exact search (and brute) find
/// a violation.
fn fig4_misses(sem: Semantics, lines: &[&str]) {
    let t = compact(lines);
    let exact = FptOptions {
        jobs: 1,
        ..FptOptions::default()
    };
    let literal = FptOptions {
        fig4_representatives: true,
        ..exact
    };
    let full = check_fpt(&t, sem, exact, &tsoser::Stop::default())
        .unwrap()
        .0;
    let want = match sem {
        Semantics::Exact => brute::check_exact(&t, u64::MAX, &tsoser::Stop::default()).0,
        Semantics::Paper => brute::check_paper(&t, u64::MAX, &tsoser::Stop::default()).0,
    };
    assert_eq!(full.name(), want.name());
    assert!(full.is_violation());
    assert!(check_fpt(&t, sem, literal, &tsoser::Stop::default())
        .unwrap()
        .0
        .is_serializable());
}

/// Fig. 4 keeps one single-event profile (a) per class and chain. Here the cycle
/// T0.2 → T2.3 → T0.2 must enter and leave t2's chain at its *last* write of x1 (#7,
/// after the fence); the representative entry of the class w(x1) on that chain is an
/// earlier write (the first in chain order), and no valid cycle goes through it. The paper's Fig. 3 with these
/// profiles answers "serializable"; the graph of Def. 4 says otherwise.
#[test]
fn fig4_representatives_miss_a_violation() {
    fig4_misses(
        Semantics::Paper,
        &[
            "t0 T0.1 wr x1",
            "t2 T2.1 rd x0",
            "t2 T2.1 rmw x1",
            "t2 T2.2 wr x1",
            "t2 T2.3 fence",
            "t0 T0.2 rd x1",
            "t0 T0.2 rd x1",
            "t2 T2.3 wr x1",
        ],
    );
}

/// The same loss in exact mode (jumps are varying conflicts with commits).
#[test]
fn fig4_representatives_miss_an_exact_violation() {
    fig4_misses(
        Semantics::Exact,
        &[
            "t0 T0.1 wr x0",
            "t2 T2.1 fence",
            "t1 T1.1 wr x1",
            "t2 T2.1 rmw x1",
            "t0 T0.1 fence",
            "t1 T1.2 wr x0",
            "t2 T2.2 wr x1",
            "t1 T1.2 wr x1",
            "t1 T1.2 wr x1",
        ],
    );
}

proptest! {
    #![proptest_config(config(3000))]

    /// The literal Fig. 4 variant only drops cycles: it never reports a violation the
    /// exact search does not, and its witnesses re-check.
    #[test]
    fn fig4_representatives_are_sound_but_incomplete(trace in traces(Params { min_events: 3, max_events: 9, ..Params::default() })) {
        for sem in [Semantics::Exact, Semantics::Paper] {
            let o = FptOptions { jobs: 1, ..FptOptions::default() };
            let full = check_fpt(&trace, sem, o, &tsoser::Stop::default()).unwrap().0;
            let lit = check_fpt(&trace, sem, FptOptions { fig4_representatives: true, ..o }, &tsoser::Stop::default()).unwrap().0;
            prop_assert!(!lit.is_violation() || full.is_violation());
            if let Verdict::Violation(w) = &lit {
                prop_assert_eq!(tsoser::check::verify(&trace, w), Ok(()));
            }
        }
    }
}
