//! The command line end to end: verdicts and exit codes on the examples, every input
//! error path (file:line, exit 2, no panic), JSON shape, DOT, check-exec, gen.

use crate::common;

use common::{stderr, stdout, tsoser, tsoser_exits};
use std::path::Path;

/// (example, exit code exact, exit code paper, exit code --model sc)
const EXAMPLES: &[(&str, i32, i32, i32)] = &[
    ("task-pool", 1, 1, 0),
    ("task-pool-fenced", 0, 0, 0),
    ("thm2-left", 0, 0, 0),
    ("thm2-right", 0, 0, 1),
    ("flaw1-buffered-read", 0, 1, 0),
    ("flaw2-commit-point", 0, 1, 0),
    ("rmw-sb", 1, 1, 0),
    ("rmw-lock", 0, 0, 0),
    ("fig4-profiles-miss", 1, 1, 0),
];

#[test]
fn examples_have_their_stated_verdicts() {
    for &(name, exact, paper, sc) in EXAMPLES {
        let f = format!("examples/{name}.yaml");
        for (args, want) in [
            (vec!["check", &f], exact),
            (vec!["check", &f, "--semantics", "paper"], paper),
            (vec!["check", &f, "--model", "sc"], sc),
        ] {
            tsoser_exits(&args, want);
        }
    }
}

#[test]
fn paper_false_alarms_are_labelled() {
    for f in [
        "examples/flaw1-buffered-read.yaml",
        "examples/flaw2-commit-point.yaml",
    ] {
        let o = tsoser(&["check", f, "--semantics", "paper"]);
        assert!(
            stdout(&o).contains("no TSO execution of this trace has a violation"),
            "{}",
            stdout(&o)
        );
        let o = tsoser(&["check", f, "--semantics", "paper", "--json"]);
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(v["paper_realizable"], false);
        assert_eq!(v["witness"]["kind"], "orientation");
    }
}

#[test]
fn transaction_fenced_example_is_fenced() {
    let o = tsoser(&["check", "examples/task-pool-fenced.yaml", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["trace"]["transaction_fenced"], true);
    let o = tsoser(&["check", "examples/task-pool.yaml", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["trace"]["transaction_fenced"], false);
}

#[test]
fn json_witness_has_the_documented_shape() {
    let o = tsoser(&[
        "check",
        "examples/task-pool.yaml",
        "--json",
        "--stats",
        "--algo",
        "brute",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["verdict"], "violation");
    assert_eq!(v["algo"], "brute");
    assert_eq!(v["semantics"], "exact");
    assert_eq!(v["model"], "tso");
    let w = &v["witness"];
    assert_eq!(w["kind"], "execution");
    let steps = w["execution"].as_array().unwrap();
    assert_eq!(steps.len(), 12 + 4, "12 events and 4 commits");
    assert_eq!(w["commits"].as_array().unwrap().len(), 4);
    let cycle = w["cycle"].as_array().unwrap();
    assert!(cycle.len() >= 2);
    for (i, e) in cycle.iter().enumerate() {
        let next = &cycle[(i + 1) % cycle.len()];
        assert_eq!(e["to"], next["from"], "the cycle closes");
        assert!(e["src"]["step"].as_u64() < e["dst"]["step"].as_u64());
        assert!(e["rule"].is_string() && e["explain"].is_string());
    }
    assert!(v["stats"]["seconds"]["parse"].is_number());
    assert!(v["stats"]["counts"]["visited"].is_number());
}

#[test]
fn serializable_json_has_null_witness() {
    let o = tsoser(&["check", "examples/thm2-left.yaml", "--json"]);
    assert_eq!(o.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["verdict"], "serializable");
    assert!(v["witness"].is_null());
}

#[test]
fn budget_exhaustion_answers_unknown() {
    let o = tsoser(&[
        "check",
        "examples/task-pool.yaml",
        "--algo",
        "brute",
        "--max-executions",
        "3",
    ]);
    assert_eq!(o.status.code(), Some(3), "{}", stdout(&o));
    assert!(stdout(&o).contains("unknown"));
    let o = tsoser(&[
        "check",
        "examples/task-pool.yaml",
        "--algo",
        "brute",
        "--max-executions",
        "3",
        "--json",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["verdict"], "unknown");
    assert!(v["reason"].as_str().unwrap().contains("--max-executions"));
}

/// (input, command, expected line in the message, words the message must contain)
const ERRORS: &[(&str, &str, &str, &str)] = &[
    // The parser points past the end of this 2-line file; the error names line 2.
    ("syntax", "check", ":2:", "YAML syntax"),
    ("unknown-op", "check", ":4:", "unknown op `load`"),
    ("missing-var", "check", ":3:", "`rd` needs a `var`"),
    ("fence-var", "check", ":2:", "`fence` takes no `var`"),
    (
        "txn-two-threads",
        "check",
        ":3:",
        "transaction `T` belongs to thread `a`",
    ),
    (
        "txn-resumed",
        "check",
        ":4:",
        "transaction `T1` resumes after transaction `T2`",
    ),
    ("unknown-field", "check", ":2:", "unknown field `colour`"),
    ("missing-thread", "check", ":2:", "missing field `thread`"),
    ("top-key", "check", ":1:", "unknown top-level key `event`"),
    (
        "events-not-list",
        "check",
        ":1:",
        "expected `events` as a list",
    ),
    (
        "commit-in-trace",
        "check",
        ":3:",
        "`commit` events belong in executions",
    ),
    (
        "compact-short",
        "check",
        ":2:",
        "needs at least `thread op`",
    ),
    ("compact-long", "check", ":2:", "too many words"),
    (
        "thread-list",
        "check",
        ":2:",
        "expected a plain name for `thread`",
    ),
    (
        "exec-fence-pending",
        "check-exec",
        ":3:",
        "waits for an empty buffer",
    ),
    (
        "exec-empty-buffer",
        "check-exec",
        ":3:",
        "store buffer is empty",
    ),
    ("exec-fifo", "check-exec", ":4:", "buffers are FIFO"),
];

#[test]
fn every_input_error_names_file_line_and_event_and_exits_2() {
    for &(name, cmd, line, words) in ERRORS {
        let f = format!("tests/inputs/{name}.yaml");
        assert!(Path::new(env!("CARGO_MANIFEST_DIR")).join(&f).exists());
        let o = tsoser(&[cmd, &f]);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{name}: {err}");
        assert!(
            err.starts_with(&format!("tsoser: {f}{line}")),
            "{name}: {err}"
        );
        assert!(err.contains(words), "{name}: {err}");
        assert!(!err.contains("panicked"), "{name}: {err}");
        assert_eq!(err.lines().count(), 1, "one line, no repeated cause: {err}");
        if !matches!(name, "syntax" | "top-key" | "events-not-list") {
            assert!(err.contains("event #"), "{name} names the event: {err}");
        }
    }
}

#[test]
fn missing_file_and_bad_usage_exit_2() {
    let o = tsoser(&["check", "no/such/file.yaml"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("no/such/file.yaml: cannot read"));
    let o = tsoser(&["check", "examples/task-pool.yaml", "--algo", "magic"]);
    assert_eq!(o.status.code(), Some(2));
    let o = tsoser(&["frobnicate"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn check_exec_reports_serializability_and_sc_equivalence() {
    let o = tsoser(&["check-exec", "examples/task-pool-execution.yaml"]);
    assert_eq!(o.status.code(), Some(1), "{}{}", stdout(&o), stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("TSO-serializable: NO")
            && out.contains("SC-equivalent (write-contraction acyclic): NO"),
        "{out}"
    );
    let o = tsoser(&["check-exec", "examples/sb-sc-run.yaml", "--json"]);
    assert_eq!(o.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["tso_serializable"], true);
    assert_eq!(v["sc_equivalent"], true);
    let o = tsoser(&["check-exec", "examples/sb-tso-run.yaml", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["tso_serializable"], true, "thm2-left: serializable");
    assert_eq!(
        v["sc_equivalent"], false,
        "but not SC-equivalent: not robust"
    );
}

#[test]
fn printed_witness_replays_through_check_exec() {
    // The witness of `check` written as an execution file re-checks with `check-exec`.
    let trace = tsoser::trace::yaml::read_trace(Path::new(&format!(
        "{}/examples/task-pool.yaml",
        env!("CARGO_MANIFEST_DIR")
    )))
    .unwrap();
    let (v, _) = tsoser::check::brute::check_exact(&trace, u64::MAX, &tsoser::Stop::default());
    let tsoser::check::Verdict::Violation(w) = v else {
        panic!("violation expected")
    };
    let tsoser::check::Witness::Execution { execution, .. } = &*w else {
        panic!()
    };
    let dir = std::env::temp_dir().join(format!("tsoser-replay-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("witness.yaml");
    std::fs::write(&f, tsoser::trace::yaml::write_execution(&trace, execution)).unwrap();
    let o = tsoser(&["check-exec", f.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn graph_dot_draws_clusters_dashed_pairs_and_the_witness() {
    let o = tsoser(&["graph", "examples/task-pool.yaml", "--dot"]);
    assert_eq!(o.status.code(), Some(0));
    let d = stdout(&o);
    assert!(d.starts_with("digraph"));
    assert!(d.contains("subgraph cluster_t0") && d.contains("label=\"alpha\""));
    assert!(
        d.contains("style=dashed, color=blue"),
        "undirected pairs dashed"
    );
    assert!(d.contains("color=red"), "witness cycle highlighted");
    let o = tsoser(&[
        "graph",
        "examples/flaw1-buffered-read.yaml",
        "--dot",
        "--semantics",
        "paper",
    ]);
    let d = stdout(&o);
    assert!(d.contains("e0 -> e2 [dir=none, style=dashed"), "{d}");
    assert!(
        d.contains("color=red"),
        "the paper's (false) cycle is drawn"
    );
}

#[test]
fn graph_summary_reports_forced_cycles() {
    let o = tsoser(&["graph", "examples/task-pool.yaml", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["nodes"], 16);
    assert_eq!(v["forced_cycle"], false);
    let o = tsoser(&["graph", "examples/forced-cycle.yaml"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).contains("have a cycle"));
}

#[test]
fn check_writes_dot_alongside() {
    let dir = std::env::temp_dir().join(format!("tsoser-dot-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("g.dot");
    for algo in ["brute", "sat", "fpt"] {
        std::fs::remove_file(&f).ok();
        let o = tsoser(&[
            "check",
            "examples/rmw-sb.yaml",
            "--algo",
            algo,
            "--dot",
            f.to_str().unwrap(),
        ]);
        assert_eq!(o.status.code(), Some(1), "{algo}");
        assert!(
            std::fs::read_to_string(&f).unwrap().contains("color=red"),
            "{algo}"
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// Bug gen_writes_std_to_a_std_file: `gen -o t.std` wrote YAML into it, which `check
/// t.std` refused as STD. Now `.std` gets STD, and it is the trace the YAML file holds
/// (a realistic trace and a formula's).
#[test]
fn gen_writes_std_to_a_std_file() {
    let dir = std::env::temp_dir().join(format!("tsoser-gen-std-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let shapes: [&[&str]; 2] = [
        &["gen", "--events", "300", "--seed", "7"],
        &[
            "gen", "--family", "sat", "--random", "--vars", "4", "--seed", "1",
        ],
    ];
    for (i, shape) in shapes.into_iter().enumerate() {
        let written = |ext: &str| {
            let f = dir.join(format!("t{i}.{ext}"));
            let mut args = shape.to_vec();
            args.extend(["-o", f.to_str().unwrap()]);
            assert_eq!(tsoser(&args).status.code(), Some(0), "{args:?}");
            f
        };
        let (std_file, yaml_file) = (written("std"), written("yaml"));
        let text = std::fs::read_to_string(&std_file).unwrap();
        assert!(!text.starts_with("name:"), "STD, not YAML: {text:.40}");
        let (a, b) = (
            tsoser::trace::read_file(&std_file).unwrap(),
            tsoser::trace::read_file(&yaml_file).unwrap(),
        );
        assert!(!a.is_empty());
        let std_of = |t| tsoser::trace::std_format::to_std(t).unwrap();
        assert_eq!(std_of(&a), std_of(&b), "{shape:?}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn gen_is_deterministic_and_parses() {
    let a = tsoser(&["gen", "--events", "300", "--seed", "7"]);
    let b = tsoser(&["gen", "--events", "300", "--seed", "7"]);
    assert_eq!(a.stdout, b.stdout);
    let t = tsoser::trace::yaml::parse_trace(&stdout(&a)).unwrap();
    assert_eq!(t.len(), 300);
    let o = tsoser(&["gen", "--threads", "0"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn monitor_sc_ser_agrees_with_check_model_sc_on_every_example() {
    for &(name, _, _, sc) in EXAMPLES {
        let f = format!("examples/{name}.yaml");
        let o = tsoser(&["monitor", &f, "--monitor", "sc-ser", "--json", "--stats"]);
        assert_eq!(o.status.code(), Some(sc), "{name}: {}", stderr(&o));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(v["monitor"], "sc-ser");
        assert_eq!(v["verdict"] == "violation", sc == 1, "{name}");
        assert_eq!(v["stopped_at"].is_null(), sc == 0, "{name}");
        assert!(v["stats"]["counts"]["events_per_second"].as_u64().is_some());
    }
    let o = tsoser(&["monitor", "examples/thm2-right.yaml"]);
    assert!(
        stdout(&o).contains("NO — from event #3 on"),
        "{}",
        stdout(&o)
    );
    assert!(
        stdout(&o).contains("⊙SC conflict-graph cycle"),
        "{}",
        stdout(&o)
    );
    let o = tsoser(&["monitor", "examples/no-such-file.yaml"]);
    assert_eq!(o.status.code(), Some(2));
    let o = tsoser(&["monitor", "examples/task-pool.yaml", "--monitor", "sobre"]);
    assert_eq!(o.status.code(), Some(2), "unknown monitor: a usage error");
}

/// Each paper example through the command line, every monitor at once: the exit code,
/// which monitors report, and the evidence in the paper's terms.
#[test]
fn monitor_all_on_the_paper_examples() {
    // name, exit, reports of sc-ser, sober, tso, pso, and the fenced verdict
    let cases: &[(&str, i32, [bool; 4], &str)] = &[
        (
            "burnim-fig7-sc-run",
            1,
            [false, false, true, true],
            "unknown",
        ),
        ("burnim-fig8", 1, [false, true, false, false], "unknown"),
        ("sb-borderline", 1, [false, true, true, true], "unknown"),
        ("task-pool-serial", 1, [false, true, true, true], "unknown"),
        ("task-pool-fenced-serial", 0, [false; 4], "no-report"),
        ("thm2-left", 3, [false; 4], "unknown"),
        ("thm2-right", 1, [true, false, false, false], "unknown"),
    ];
    for &(name, code, reports, fenced) in cases {
        let f = format!("examples/{name}.yaml");
        let o = tsoser(&["monitor", &f, "--monitor", "all", "--json"]);
        assert_eq!(o.status.code(), Some(code), "{name}: {}", stderr(&o));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        let ms = v["monitors"].as_array().unwrap();
        let names: Vec<&str> = ms.iter().map(|m| m["monitor"].as_str().unwrap()).collect();
        assert_eq!(names, ["sc-ser", "sober", "tso", "pso", "fenced"]);
        for (m, want) in ms.iter().zip(reports) {
            assert_eq!(m["verdict"] == "violation", want, "{name} {}", m["monitor"]);
            assert_eq!(m["report"].is_null(), !want, "{name} {}", m["monitor"]);
        }
        assert_eq!(ms[4]["verdict"], fenced, "{name}");
    }
    // SOBER names e_k, write(E,a,c) and Lemma 1's conditions.
    let o = tsoser(&["monitor", "examples/burnim-fig8.yaml", "--monitor", "sober"]);
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    for s in [
        "e_k = #4",
        "write(E, a, 1) = #0",
        "(1) holds",
        "(2) fails",
        "-po->",
        "-fr->",
    ] {
        assert!(out.contains(s), "{s}: {out}");
    }
    let o = tsoser(&[
        "monitor",
        "examples/burnim-fig8.yaml",
        "--monitor",
        "sober",
        "--json",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["monitor"], "sober");
    assert_eq!(v["report"]["load"]["event"], 4);
    assert_eq!(v["report"]["write"]["event"], 0);
    assert_eq!(v["report"]["index"], 1);
    assert_eq!(v["report"]["lemma1"]["2i"], false);
    // monitor_TSO names e, prev, e_i, the run and its cycle.
    let o = tsoser(&[
        "monitor",
        "examples/burnim-fig7-sc-run.yaml",
        "--monitor",
        "tso",
        "--json",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let r = &v["report"];
    assert_eq!(
        (
            r["e"]["event"].as_u64(),
            r["prev"]["event"].as_u64(),
            r["ei"]["event"].as_u64()
        ),
        (Some(0), Some(3), Some(4))
    );
    assert_eq!(
        r["cycle"].as_array().unwrap().last().unwrap()["to"]["event"],
        0
    );
    assert!(r["run"]
        .as_array()
        .unwrap()
        .iter()
        .any(|s| s["kind"] == "commit"));
    // The fenced monitor: transaction-fenced or not, and which part reports.
    let o = tsoser(&["monitor", "examples/thm2-right.yaml", "--monitor", "fenced"]);
    assert_eq!(
        o.status.code(),
        Some(3),
        "not transaction-fenced: Theorem 3 does not apply"
    );
    let out = stdout(&o);
    assert!(
        out.contains("transaction-fenced: no — transaction A1"),
        "{out}"
    );
    assert!(
        out.contains("part 1, SC-serializability (monitor sc-ser) — sc-ser: reports"),
        "{out}"
    );
    let o = tsoser(&[
        "monitor",
        "examples/task-pool-fenced-serial.yaml",
        "--monitor",
        "fenced",
        "--json",
    ]);
    assert_eq!(o.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["report"]["transaction_fenced"], true);
}

/// A transaction-fenced trace on which the SC-serializability part reports: a
/// violation of TSO-serializability by Theorem 3, exit 1.
#[test]
fn monitor_fenced_reports_a_violation_on_a_fenced_trace() {
    let dir = std::env::temp_dir().join(format!("tsoser-fenced-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("t.yaml");
    std::fs::write(
        &f,
        "events:\n  - \"t1 A rd x\"\n  - \"t2 B wr x\"\n  - \"t2 B fence\"\n  - \"t1 A wr x\"\n  - \"t1 A fence\"\n",
    )
    .unwrap();
    let o = tsoser(&[
        "monitor",
        f.to_str().unwrap(),
        "--monitor",
        "fenced",
        "--json",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["verdict"], "violation");
    assert_eq!(v["report"]["implies_tso_violation"], true);
    assert!(v["report"]["sc_ser"].is_object());
    // ... and the deciders agree that the trace is not TSO-serializable.
    let o = tsoser(&["check", f.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn monitor_streams_std_files_and_prints_the_witness() {
    let dir = std::env::temp_dir().join(format!("tsoser-mon-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("t.std");
    let o = tsoser(&[
        "convert",
        "examples/thm2-right.yaml",
        "-o",
        f.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0));
    let o = tsoser(&["monitor", f.to_str().unwrap(), "--json"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["stopped_at"]["event"], 3);
    assert_eq!(v["witness"]["kind"], "sc");
    let bad = dir.join("bad.std");
    std::fs::write(&bad, "T0|r(x)|1\nT0|zap(x)|2\n").unwrap();
    let o = tsoser(&["monitor", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("bad.std:2:"), "{}", stderr(&o));
    std::fs::remove_dir_all(&dir).ok();
}

/// Bug: `monitor examples/task-pool.yaml --monitor fenced` printed "TSO-serializable
/// (…Thm. 3…): yes", exit 0, on a trace that is not transaction-fenced and that `check`
/// proves not serializable. Theorem 3 says nothing there; on a transaction-fenced trace
/// a quiet run is not a "yes" either.
#[test]
fn fenced_monitor_answers_only_what_theorem_3_allows() {
    let o = tsoser(&["monitor", "examples/task-pool.yaml", "--monitor", "fenced"]);
    assert_eq!(o.status.code(), Some(3), "{}", stdout(&o));
    let out = stdout(&o);
    assert!(
        out.contains("unknown — the trace is not transaction-fenced, so Theorem 3 does not apply"),
        "{out}"
    );
    assert!(!out.contains(": yes"), "{out}");
    assert_eq!(
        tsoser(&["check", "examples/task-pool.yaml"]).status.code(),
        Some(1)
    );
    let o = tsoser(&[
        "monitor",
        "examples/task-pool-fenced-serial.yaml",
        "--monitor",
        "fenced",
        "--json",
    ]);
    assert_eq!(o.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["verdict"], "no-report");
    let o = tsoser(&[
        "monitor",
        "examples/task-pool-fenced-serial.yaml",
        "--monitor",
        "fenced",
    ]);
    assert!(
        stdout(&o).contains("no violation found on this SC run"),
        "{}",
        stdout(&o)
    );
    assert!(
        !stdout(&o).lines().next().unwrap().ends_with(": yes"),
        "{}",
        stdout(&o)
    );
}

/// `check` picks a decider by itself: `--algo auto` is the default, and says which
/// parts decided (`--stats`).
#[test]
fn check_defaults_to_auto() {
    let o = tsoser(&["check", "examples/task-pool.yaml", "--json", "--stats"]);
    assert_eq!(o.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["algo"], "auto");
    assert_eq!(
        v["solver"],
        if cfg!(feature = "cadical") {
            "cadical"
        } else {
            "varisat"
        }
    );
    assert!(v["stats"]["counts"]["components_by_fpt"].is_number(), "{v}");
    let o = tsoser(&["check", "examples/task-pool.yaml"]);
    assert!(
        stdout(&o).contains(&format!(
            "[exact semantics, auto: fpt + sat/{}]: NO",
            if cfg!(feature = "cadical") {
                "cadical"
            } else {
                "varisat"
            }
        )),
        "{}",
        stdout(&o)
    );
}

/// Bug: options that do not apply to the chosen decider or model were ignored
/// silently (`--solver z3` with brute, `--model sc` with `--semantics paper`,
/// `--max-executions` with sat). Each is now a usage error naming the option.
#[test]
fn options_that_do_not_apply_are_usage_errors() {
    for (args, flag) in [
        (&["--algo", "brute", "--solver", "z3"][..], "--solver"),
        (&["--model", "sc", "--algo", "sat"][..], "--algo"),
        (
            &["--model", "sc", "--semantics", "paper"][..],
            "--semantics",
        ),
        (
            &["--algo", "sat", "--max-executions", "5"][..],
            "--max-executions",
        ),
        (&["--algo", "sat", "--jobs", "2"][..], "--jobs"),
        (&["--algo", "brute", "--max-jumps", "2"][..], "--max-jumps"),
        (&["--algo", "auto", "--profiles", "fig4"][..], "--profiles"),
        (&["--jobs", "100000"][..], "--jobs"),
        (&["--timeout", "1e20"][..], "--timeout"),
        (&["--timeout", "nan"][..], "--timeout"),
        (&["--timeout", "0"][..], "--timeout"),
    ] {
        let mut a = vec!["check", "examples/task-pool.yaml"];
        a.extend_from_slice(args);
        let o = tsoser(&a);
        assert_eq!(o.status.code(), Some(2), "{a:?}: {}", stdout(&o));
        assert!(stderr(&o).contains(flag), "{a:?}: {}", stderr(&o));
        assert!(!stderr(&o).contains("panicked"), "{a:?}: {}", stderr(&o));
    }
    for args in [
        &["gen", "--threads", "18446744073709551615"][..],
        &["gen", "--txn-len", "18446744073709551615"][..],
    ] {
        let o = tsoser(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(!stderr(&o).contains("panicked"), "{args:?}: {}", stderr(&o));
    }
}

/// Bug: writing to a closed standard error panicked (exit 101), and a closed standard
/// output turned verdict 1 into exit 0.
#[test]
fn closed_outputs_keep_the_exit_code() {
    use std::process::{Command, Stdio};
    let bin = env!("CARGO_BIN_EXE_tsoser");
    let dir = env!("CARGO_MANIFEST_DIR");
    // Standard output closed before tsoser writes: the pipe is broken.
    let mut c = Command::new(bin)
        .args(["check", "examples/task-pool.yaml"])
        .current_dir(dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(c.stdout.take());
    assert_eq!(
        c.wait().unwrap().code(),
        Some(1),
        "the verdict survives a closed pipe"
    );
    // Standard error closed (a usage error writes to it): no panic, exit 2.
    let out = Command::new("sh")
        .args([
            "-c",
            &format!("{bin} check no-such-file.yaml 2>&-; echo $?"),
        ])
        .current_dir(dir)
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "2");
}

/// Large witnesses stay readable: by default the cycle first and only the steps it
/// touches; `--witness full` adds every step, `none` only the verdict line; `--dot`
/// draws only the cycle's transactions, with a legend.
#[test]
fn large_witnesses_stay_readable() {
    let dir = std::env::temp_dir().join(format!("tsoser-witness-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("big.yaml");
    let f = f.to_str().unwrap();
    let o = tsoser(&[
        "gen",
        "--events",
        "20000",
        "--schedule",
        "serial",
        "--seed",
        "4",
        "-o",
        f,
    ]);
    assert_eq!(o.status.code(), Some(0));
    let o = tsoser(&["check", f]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.lines().count() < 80, "{} lines", out.lines().count());
    assert!(
        out.lines().nth(1).unwrap().starts_with("transaction cycle"),
        "{out}"
    );
    let full = stdout(&tsoser(&["check", f, "--witness", "full"]));
    assert!(
        full.lines().count() > 20_000,
        "{} lines",
        full.lines().count()
    );
    let none = stdout(&tsoser(&["check", f, "--witness", "none"]));
    assert_eq!(none.lines().count(), 1, "{none}");
    let d = dir.join("c.dot");
    let o = tsoser(&["check", f, "--dot", d.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let dot = std::fs::read_to_string(&d).unwrap();
    // The text of the same run: auto races its deciders, and another run may find
    // another cycle first.
    let cycle = stdout(&o)
        .lines()
        .skip(2)
        .take_while(|l| l.starts_with("  "))
        .filter(|l| l.contains(" → ") && !l.starts_with("      "))
        .count();
    assert_eq!(dot.matches("style=rounded];").count(), cycle, "{dot}");
    assert!(dot.contains("cluster_legend"));
    std::fs::remove_dir_all(&dir).ok();
}

/// The `check --json` sample of docs/json.md names exactly the top-level fields the
/// command prints, and the witness fields of an execution witness.
#[test]
fn docs_json_sample_matches_the_output() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/json.md")).unwrap();
    let start = readme
        .find("```json\n{\n  \"schema\"")
        .expect("the check --json sample");
    let block = &readme[start..start + readme[start..].find("\n```\n").unwrap()];
    let keys = |indent: &str| -> std::collections::BTreeSet<String> {
        block
            .lines()
            .filter_map(|l| l.strip_prefix(indent))
            .filter(|l| l.starts_with('"'))
            .map(|l| l[1..].split('"').next().unwrap().to_string())
            .collect()
    };
    let o = tsoser(&["check", "examples/task-pool.yaml", "--json", "--stats"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let got: std::collections::BTreeSet<String> = v.as_object().unwrap().keys().cloned().collect();
    assert_eq!(keys("  "), got, "docs/json.md top-level fields vs output");
    assert_eq!(v["schema"], 2);
    let w: std::collections::BTreeSet<String> =
        v["witness"].as_object().unwrap().keys().cloned().collect();
    let documented = keys("    ");
    assert!(w.is_subset(&documented), "{w:?} ⊄ {documented:?}");
    for k in ["execution", "commits", "cycle", "kind"] {
        assert!(w.contains(k), "{k}");
    }
}

/// Bug: a 700 KB trace of 40,000 single-event threads made `monitor` ask for many GB
/// (vector clocks over threads: sc-ser keeps threads² × variables integers) and abort.
/// The monitors' state is sized first: past the memory budget the answer is
/// unknown (exit 3) with what it would need.
#[test]
fn monitors_too_big_for_memory_answer_unknown() {
    let dir = std::env::temp_dir().join(format!("tsoser-wide-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("wide.yaml");
    let events: String = (0..40_000)
        .map(|i| format!("  - \"t{i} rd x\"\n"))
        .collect();
    std::fs::write(&f, format!("events:\n{events}")).unwrap();
    let std_file = dir.join("wide.std");
    assert_eq!(
        tsoser(&[
            "convert",
            f.to_str().unwrap(),
            "-o",
            std_file.to_str().unwrap()
        ])
        .status
        .code(),
        Some(0)
    );
    for file in [&f, &std_file] {
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_tsoser"))
            .args(["monitor", file.to_str().unwrap(), "--monitor", "all"])
            .env("TSOSER_MAX_MEMORY_MIB", "1024")
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(3), "{}{}", stdout(&o), stderr(&o));
        assert!(
            stdout(&o).contains("unknown — the monitors would need"),
            "{}",
            stdout(&o)
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// Bug: a trace of 40,000 single-event threads made `graph`, `check-exec` and `check`
/// ask for 9–15 GB (the conflict graph is quadratic in the threads here). Past the
/// memory budget (here `TSOSER_MAX_MEMORY_MIB=1024`) the answer is unknown, exit 3:
/// `graph` and `check-exec` estimate the graph first, `check` polls its heap while it
/// builds the forced edges.
#[test]
fn graphs_too_big_for_memory_answer_unknown() {
    let dir = std::env::temp_dir().join(format!("tsoser-wide-graph-{}", std::process::id()));
    let f = wide_graph(&dir);
    for cmd in GRAPH_COMMANDS {
        let mut cmd = cmd.to_vec();
        cmd.push(f.to_str().unwrap());
        let mut run = std::process::Command::new(env!("CARGO_BIN_EXE_tsoser"));
        run.args(&cmd).env("TSOSER_MAX_MEMORY_MIB", "1024");
        answers_unknown_for_memory(run, &cmd);
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// The commands whose conflict graph is bounded by the memory budget.
const GRAPH_COMMANDS: [&[&str]; 5] = [
    &["graph"],
    &["check-exec"],
    &["check"],
    &["check", "--algo", "sat"],
    &["check", "--algo", "fpt"],
];

/// A trace of 40,000 single-event threads over 3 variables in `dir`: its conflict
/// graph is quadratic in the threads.
fn wide_graph(dir: &Path) -> std::path::PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let f = dir.join("wide.yaml");
    let events: String = (0..40_000)
        .map(|i| {
            let op = if i % 2 == 1 { "wr" } else { "rd" };
            format!("  - \"t{i} {op} x{}\"\n", i % 3)
        })
        .collect();
    std::fs::write(&f, format!("events:\n{events}")).unwrap();
    f
}

/// Runs `run` (showing `args`): exit 3, with the memory budget named — never a signal.
fn answers_unknown_for_memory(mut run: std::process::Command, args: &[&str]) {
    let o = run.output().unwrap();
    assert_eq!(
        o.status.code(),
        Some(3),
        "{args:?} ended by {:?}: {}{}",
        o.status,
        stdout(&o),
        stderr(&o)
    );
    assert!(
        stdout(&o).contains("memory budget"),
        "{args:?}: {}",
        stdout(&o)
    );
}

/// Bug the_memory_budget_heeds_ulimit_v: under `ulimit -v 4000000`, `monitor --monitor
/// tso` on 100,000 single-event threads aborted (SIGABRT, "memory allocation of
/// 2553887296 bytes failed" in `monitor::hb::widen`): the default budget, half of
/// MemAvailable, ignored `RLIMIT_AS`. Now every command here answers unknown (exit 3)
/// with its cause under the limit, with no budget given.
#[test]
fn the_memory_budget_heeds_ulimit_v() {
    let dir = std::env::temp_dir().join(format!("tsoser-ulimit-{}", std::process::id()));
    let graph = wide_graph(&dir);
    let wide = dir.join("wide.std");
    let lines: String = (0..100_000).map(|i| format!("t{i}|w(x)|{i}\n")).collect();
    std::fs::write(&wide, lines).unwrap();
    let (wide, graph) = (wide.to_str().unwrap(), graph.to_str().unwrap());
    let monitors: [&[&str]; 2] = [
        &["monitor", "--monitor", "tso"],
        &["monitor", "--monitor", "all"],
    ];
    for (cmd, file) in monitors
        .iter()
        .map(|c| (c, wide))
        .chain(GRAPH_COMMANDS.iter().map(|c| (c, graph)))
    {
        let mut args = cmd.to_vec();
        args.push(file);
        let mut run = std::process::Command::new("sh");
        run.args(["-c", "ulimit -v 4000000 && exec \"$0\" \"$@\""])
            .arg(env!("CARGO_BIN_EXE_tsoser"))
            .args(&args)
            .env_remove("TSOSER_MAX_MEMORY_MIB");
        answers_unknown_for_memory(run, &args);
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// `check-exec x.std` answered with a YAML syntax error: an STD trace has no commits.
#[test]
fn check_exec_on_std_names_the_format() {
    let dir = std::env::temp_dir().join(format!("tsoser-exec-std-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for name in ["x.std", "x.yaml"] {
        let f = dir.join(name);
        std::fs::write(&f, "T0|w(x)|1\nT1|r(x)|2\n").unwrap();
        let o = tsoser_exits(&["check-exec", f.to_str().unwrap()], 2);
        let err = stderr(&o);
        assert!(err.contains("this is an STD trace"), "{err}");
        assert!(!err.contains("YAML syntax"), "{err}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// `monitor` had no `--timeout`: a 10⁹-line stream could not be bounded. Now the time
/// limit ends it as unknown (exit 3), streamed or read into memory, with how far it got.
#[test]
fn monitor_takes_a_timeout() {
    let dir = std::env::temp_dir().join(format!("tsoser-mon-timeout-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let std_file = dir.join("long.std");
    let lines: String = (0..20_000)
        .map(|i| format!("t{}|r(x{})|{i}\n", i % 4, i % 7))
        .collect();
    std::fs::write(&std_file, lines).unwrap();
    let yaml = dir.join("long.yaml");
    tsoser_exits(
        &[
            "convert",
            std_file.to_str().unwrap(),
            "-o",
            yaml.to_str().unwrap(),
        ],
        0,
    );
    for f in [&std_file, &yaml] {
        let f = f.to_str().unwrap();
        let o = tsoser_exits(&["monitor", f, "--monitor", "all", "--timeout", "1e-9"], 3);
        assert!(
            stdout(&o).contains("unknown — the time limit passed"),
            "{}",
            stdout(&o)
        );
        tsoser_exits(&["monitor", f, "--monitor", "sober", "--timeout", "600"], 0);
    }
    tsoser_exits(
        &["monitor", "examples/sb-sc-run.yaml", "--timeout", "-1"],
        2,
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// Bug: `check --dot FILE` overwrote FILE even when it was the input trace. No output
/// of any command may name one of its inputs — however spelled (`./x`, a hard link, a
/// symbolic link) — nor, for a directory output, a file it would write over; the
/// input is left as it was (exit 2, both named).
#[test]
fn no_output_overwrites_an_input_of_the_command() {
    let dir = std::env::temp_dir().join(format!("tsoser-clobber-{}", std::process::id()));
    std::fs::remove_dir_all(&dir).ok();
    std::fs::create_dir_all(&dir).unwrap();
    let at = |name: &str| dir.join(name).to_str().unwrap().to_string();
    let trace = at("t.yaml");
    std::fs::copy("examples/sb-borderline.yaml", &trace).unwrap();
    std::fs::hard_link(&trace, at("hard.yaml")).unwrap();
    std::os::unix::fs::symlink(&trace, at("soft.yaml")).unwrap();
    let dotted = format!("{}/./t.yaml", dir.display());
    let prog = at("sb-tso-0001.yaml");
    std::fs::copy("examples/programs/sb.prog", &prog).unwrap();
    let cnf = at("f.cnf");
    tsoser_exits(
        &["gen", "--family", "sat", "--random", "--write-cnf", &cnf],
        0,
    );
    let records = at("table.csv");
    std::fs::copy("tests/inputs/experiment-records.jsonl", &records).unwrap();
    let before: Vec<Vec<u8>> = [&trace, &prog, &cnf, &records]
        .iter()
        .map(|f| std::fs::read(f).unwrap())
        .collect();
    let d = dir.to_str().unwrap();
    let (hard, soft) = (at("hard.yaml"), at("soft.yaml"));
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["check", &trace, "--dot", &trace], "--dot"),
        (vec!["check", &trace, "--dot", &dotted], "--dot"),
        (vec!["check", &trace, "--dot", &hard], "--dot"),
        (vec!["check", &soft, "--dot", &trace], "--dot"),
        (vec!["convert", &trace, "-o", &hard], "-o"),
        (
            vec!["gen", "--family", "sat", "--cnf", &cnf, "-o", &cnf],
            "-o",
        ),
        (
            vec!["gen", "--family", "sat", "--cnf", &cnf, "--write-cnf", &cnf],
            "--write-cnf",
        ),
        (vec!["explore", &prog, "--emit-traces", d], "--emit-traces"),
        (vec!["report", &records, "-o", d], "-o"),
    ];
    for (args, flag) in &cases {
        let o = tsoser_exits(args, 2);
        let e = stderr(&o);
        assert!(
            e.contains(&format!("{flag} ")) && e.contains("is the input"),
            "{args:?}: {e}"
        );
    }
    let after: Vec<Vec<u8>> = [&trace, &prog, &cnf, &records]
        .iter()
        .map(|f| std::fs::read(f).unwrap())
        .collect();
    assert!(before == after, "an input was overwritten");
    // Two outputs naming one file.
    let o = tsoser_exits(
        &[
            "gen",
            "--family",
            "sat",
            "--random",
            "--write-cnf",
            &cnf,
            "-o",
            &format!("{d}/./f.cnf"),
        ],
        2,
    );
    assert!(stderr(&o).contains("name one file"), "{}", stderr(&o));
    // Another file is written as before.
    tsoser_exits(&["check", &trace, "--dot", &at("t.dot")], 0);
    assert!(std::fs::read_to_string(at("t.dot"))
        .unwrap()
        .starts_with("digraph"));
    std::fs::remove_dir_all(&dir).ok();
}

/// The pages whose commands `every_documented_command_runs` runs: the README, the
/// changelog, `docs/`, `encodings/` and `benchexec/README.md`.
fn documented_pages() -> Vec<std::path::PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut pages = vec![root.join("README.md"), root.join("CHANGELOG.md")];
    for dir in ["docs", "encodings"] {
        let mut md: Vec<_> = std::fs::read_dir(root.join(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "md"))
            .collect();
        md.sort();
        pages.extend(md);
    }
    pages.push(root.join("benchexec/README.md"));
    pages
}

/// A command shown in a page: its line, the block it is in, the exit code the page
/// states (`# exit N` at the end of the line), and whether its block is `no-run`.
struct DocCommand {
    page: String,
    line: usize,
    block: usize,
    command: String,
    exit: Option<i32>,
    run: bool,
}

/// The commands of a page, by the convention of docs/testing.md ("Commands in the
/// docs"): in a fenced block, a line that starts with `$ ` is a command.
fn documented_commands(page: &Path) -> Vec<DocCommand> {
    let text = std::fs::read_to_string(page).unwrap();
    let name = page
        .strip_prefix(env!("CARGO_MANIFEST_DIR"))
        .unwrap()
        .display()
        .to_string();
    let (mut fence, mut block, mut out) = (None::<String>, 0, Vec::new());
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        if let Some(info) = trimmed.strip_prefix("```") {
            if fence.is_none() {
                fence = Some(info.to_string());
                block += 1;
            } else if info.trim().is_empty() {
                fence = None;
            }
            continue;
        }
        let (Some(info), Some(command)) = (&fence, trimmed.strip_prefix("$ ")) else {
            continue;
        };
        let exit = command
            .rsplit_once("# exit ")
            .map(|(_, n)| n.trim().parse().expect("`# exit N` names a number"));
        out.push(DocCommand {
            page: name.clone(),
            line: i + 1,
            block,
            command: command.to_string(),
            exit,
            run: !info.split_whitespace().any(|w| w == "no-run"),
        });
    }
    assert!(fence.is_none(), "{name}: a fenced block is not closed");
    out
}

/// Copies a directory tree (the examples the documented commands read).
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_tree(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), &target).unwrap();
        }
    }
}

/// Every `$ tsoser …` command shown in a fenced block of the README or a docs page runs
/// and ends as the page says: with the exit code it states (`# exit N`), else with 0, 1
/// or 3 — never a usage or input error (2), an internal error (4), a panic or a signal.
/// Each block runs, in order, in a scratch folder of its own holding a copy of
/// `examples/`, with the built binary first on `PATH`, so the files a command writes
/// land there. Blocks marked `no-run` (experiments, 10⁶-event runs, external tools)
/// are only checked to be marked; a `$` command of another program outside such a
/// block is an error, so that nothing shown goes untried unnoticed.
#[test]
fn every_documented_command_runs() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let scratch = std::env::temp_dir().join(format!("tsoser-doc-commands-{}", std::process::id()));
    let bin = scratch.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_tsoser"), bin.join("tsoser")).unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let (mut ran, mut skipped, mut failures) = (0, 0, Vec::new());
    let mut readme_commands = 0;
    for page in documented_pages() {
        let commands = documented_commands(&page);
        if page.ends_with("README.md") && page.parent() == Some(root) {
            readme_commands = commands.iter().filter(|c| c.run).count();
        }
        let mut folder = None;
        for c in commands {
            let at = format!("{}:{}: `{}`", c.page, c.line, c.command);
            if !c.run {
                skipped += 1;
                continue;
            }
            if !c.command.starts_with("tsoser ") {
                failures.push(format!("{at}: not a tsoser command; mark its block no-run"));
                continue;
            }
            let key = (c.page.clone(), c.block);
            let dir = scratch.join(format!("{}-{}", c.page.replace('/', "_"), c.block));
            if folder.as_ref() != Some(&key) {
                copy_tree(&root.join("examples"), &dir.join("examples"));
                folder = Some(key);
            }
            let started = std::time::Instant::now();
            let o = std::process::Command::new("sh")
                .arg("-c")
                .arg(&c.command)
                .current_dir(&dir)
                .env("PATH", &path)
                .stdin(std::process::Stdio::null())
                .output()
                .unwrap();
            ran += 1;
            let code = o.status.code();
            let ok = match c.exit {
                Some(want) => code == Some(want),
                None => matches!(code, Some(0 | 1 | 3)),
            };
            let panicked = stderr(&o).contains("panicked");
            if !ok || panicked {
                failures.push(format!(
                    "{at}: exit {code:?} (want {}){}\n{}",
                    c.exit.map_or("0, 1 or 3".to_string(), |n| n.to_string()),
                    if panicked { ", panicked" } else { "" },
                    stderr(&o)
                ));
            }
            let took = started.elapsed();
            assert!(
                took.as_secs() < 20,
                "{at} took {took:?}: mark its block no-run"
            );
        }
    }
    std::fs::remove_dir_all(&scratch).ok();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(readme_commands >= 4, "the README shows its quick start");
    eprintln!("{ran} documented commands run, {skipped} in no-run blocks");
}

/// Every page of `docs/` is linked from the README, and no page names a path outside
/// the repository (a sibling checkout, a scratch folder): a newcomer's clone has none.
#[test]
fn docs_pages_are_linked_from_the_readme_and_stay_inside_the_repository() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    for page in documented_pages() {
        let name = page.strip_prefix(root).unwrap().display().to_string();
        let text = std::fs::read_to_string(&page).unwrap();
        if name.starts_with("docs/") {
            assert!(
                readme.contains(&format!("]({name})")),
                "README does not link {name}"
            );
        }
        for outside in ["../shared", "/work/", "/tmp/"] {
            assert!(!text.contains(outside), "{name} names {outside}");
        }
    }
}

/// Issue 34: `check --max-memory` on a 10⁶-event, 8-thread trace (the README's serial
/// recipe). At 512 MiB it answers, and its peak resident set stays under that, where
/// the check before issue 34 peaked at 826 MiB; at 64 MiB it answers unknown (exit 3),
/// naming the budget.
#[test]
fn a_check_of_a_million_events_keeps_to_its_memory_budget() {
    let dir = std::env::temp_dir().join(format!("tsoser-max-memory-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("serial.yaml");
    let file = file.to_str().unwrap();
    tsoser_exits(
        &[
            "gen",
            "--events",
            "1000000",
            "--threads",
            "8",
            "--schedule",
            "serial",
            "--seed",
            "0",
            "-o",
            file,
        ],
        0,
    );
    let o = tsoser_exits(
        &["check", file, "--max-memory", "512", "--json", "--stats"],
        1,
    );
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let peak = v["stats"]["peak_memory_kib"]
        .as_u64()
        .expect("a peak (Linux)");
    assert!(peak <= 512 << 10, "peak {peak} KiB over the 512 MiB budget");
    let o = tsoser_exits(&["check", file, "--max-memory", "32"], 3);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("memory budget of 32 MiB (--max-memory)"),
        "{out}"
    );
    tsoser_exits(&["check", file, "--max-memory", "0"], 2);
    std::fs::remove_dir_all(&dir).ok();
}
