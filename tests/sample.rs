//! `tsoser crosscheck --runs N`: the monitors on random SC runs (Burnim et al.'s
//! evaluation). Violations are keyed by the source lines the monitors blame, every
//! weak-model violation is confirmed by the explorer, the same seed draws the same
//! runs, and a monitor that reports on a robust program is caught as a disagreement.

use crate::common;

use common::{stdout, tsoser_exits};
use std::path::Path;
use tsoser::crosscheck::{sample, SampleConfig, SampleReport, SampleRow};
use tsoser::monitor::burnim::{BurnimReport, Model};
use tsoser::monitor::{new_monitor, Kind, Monitor, Outcome};
use tsoser::program::parse::parse_program;
use tsoser::program::{read_program, Program};
use tsoser::trace::{EventId, Op, ThreadId, VarId};

fn example(name: &str) -> Program {
    read_program(
        &Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("examples/programs")
            .join(name),
    )
    .unwrap()
}

fn row(r: &SampleReport, k: Option<Kind>) -> &SampleRow {
    r.rows.iter().find(|x| x.kind == k).unwrap()
}

fn runs(n: usize, seed: u64) -> SampleConfig {
    SampleConfig {
        runs: n,
        seed,
        ..SampleConfig::default()
    }
}

/// Store buffering: SOBER, monitor_TSO and monitor_PSO report on some runs, each
/// blaming only the program's four lines, and the explorer confirms them; sc-ser
/// never reports (every event is a transaction of its own).
#[test]
fn store_buffering_is_reported_by_its_lines_and_confirmed() {
    let r = sample(&example("sb.prog"), &runs(200, 0));
    assert_eq!((r.runs, r.dropped, r.failed), (200, 0, 0));
    assert_eq!(r.mean_events, 4.0);
    assert_eq!(row(&r, Some(Kind::ScSer)).violations, 0);
    for k in [Kind::Sober, Kind::Tso, Kind::Pso] {
        let x = row(&r, Some(k));
        assert!(x.violations > 0 && x.violations < 200, "{k:?}: {x:?}");
        assert_eq!(x.distinct.values().sum::<usize>(), x.violations, "{k:?}");
        for lines in x.distinct.keys() {
            assert!(
                lines.iter().all(|l| [6, 7, 10, 11].contains(l)),
                "{k:?}: {lines:?}"
            );
        }
        assert_eq!(x.confirmed, Some(true), "{k:?}");
    }
    // A run reports iff both stores come before both loads; monitor_TSO blames the
    // store, the load before the other thread's load, and that load.
    let tso = row(&r, Some(Kind::Tso));
    assert!(
        tso.distinct.keys().all(|k| k.len() == 3),
        "{:?}",
        tso.distinct
    );
}

/// With a fence between each store and load, no monitor of a weak model reports.
#[test]
fn fenced_store_buffering_has_no_weak_violation() {
    let r = sample(&example("sb-fenced.prog"), &runs(200, 1));
    assert_eq!(r.runs, 200);
    for k in [Kind::Sober, Kind::Tso, Kind::Pso] {
        let x = row(&r, Some(k));
        assert_eq!((x.violations, x.confirmed), (0, None), "{k:?}");
    }
}

/// The same seed draws the same runs; another seed draws others.
#[test]
fn the_seed_fixes_the_runs() {
    let p = example("dekker.prog");
    let strip = |mut r: SampleReport| {
        r.seconds = 0.0;
        for x in &mut r.rows {
            x.seconds = 0.0;
        }
        r
    };
    let a = strip(sample(&p, &runs(100, 7)));
    assert_eq!(a, strip(sample(&p, &runs(100, 7))));
    let others = (0..4u64)
        .map(|s| strip(sample(&p, &runs(100, s))))
        .filter(|b| b.mean_events != a.mean_events || b.rows != a.rows)
        .count();
    assert!(others > 0, "four other seeds drew the runs of seed 7");
}

/// monitor_TSO mutated to report at a thread's first load after a store of its own,
/// whatever the other threads did.
struct Eager {
    stored: Vec<Option<EventId>>,
    report: Option<BurnimReport>,
}

impl Monitor for Eager {
    fn kind(&self) -> Kind {
        Kind::Tso
    }
    fn step(&mut self, e: EventId, t: ThreadId, op: Op, _var: Option<VarId>) {
        let t = usize::from(t);
        if self.stored.len() <= t {
            self.stored.resize(t + 1, None);
        }
        match op {
            Op::Wr => self.stored[t] = Some(e),
            Op::Rd if self.report.is_none() => {
                if let Some(w) = self.stored[t] {
                    self.report = Some(BurnimReport {
                        model: Model::Tso,
                        e: w,
                        prev: w,
                        ei: e,
                    });
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
        self.report.clone().map_or(Outcome::Clean, Outcome::Burnim)
    }
}

fn eager(kind: Kind, k: usize, m: usize) -> Box<dyn Monitor> {
    match kind {
        Kind::Tso => Box::new(Eager {
            stored: Vec::new(),
            report: None,
        }),
        _ => new_monitor(kind, k, m),
    }
}

/// A program robust under TSO (no thread stores what another loads before it stores)
/// on which the eager monitor reports: the explorer's confirmation catches it.
#[test]
fn a_monitor_that_reports_on_a_robust_program_is_a_disagreement() {
    let p = parse_program("thread P0 {\n  [x] = 1\n  r0 = [y]\n}\nthread P1 {\n  r1 = [x]\n}\n")
        .unwrap();
    let real = sample(&p, &runs(50, 0));
    assert_eq!(row(&real, Some(Kind::Tso)).violations, 0);
    let mutated = sample(
        &p,
        &SampleConfig {
            monitors: eager,
            ..runs(50, 0)
        },
    );
    let tso = row(&mutated, Some(Kind::Tso));
    assert_eq!(tso.violations, 50);
    assert_eq!(tso.distinct.keys().collect::<Vec<_>>(), [&vec![2, 3]]);
    assert_eq!(tso.confirmed, Some(false), "the explorer finds it robust");
}

/// A program whose every run is cut stops short: no runs, and the command says so
/// with exit 3.
#[test]
fn a_sample_whose_runs_are_all_cut_stops_short() {
    let p = parse_program("thread P0 {\n  r0 = [x]\n  assume r0 == 1\n}\n").unwrap();
    let r = sample(
        &p,
        &SampleConfig {
            max_draws: 5,
            ..runs(10, 0)
        },
    );
    assert_eq!((r.runs, r.dropped), (0, 5));
    let dir = std::env::temp_dir().join(format!("tsoser-sample-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("cut.prog");
    std::fs::write(&f, "thread P0 {\n  r0 = [x]\n  assume r0 == 1\n}\n").unwrap();
    let o = tsoser_exits(&["crosscheck", f.to_str().unwrap(), "--runs", "3"], 3);
    assert!(
        stdout(&o).contains("0 random SC runs (of 3 asked"),
        "{}",
        stdout(&o)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The command: a table a program, a JSON object with `--json`, and usage errors.
#[test]
fn the_command_line_samples_runs() {
    let o = tsoser_exits(
        &[
            "crosscheck",
            "examples/programs/sb.prog",
            "--runs",
            "40",
            "--seed",
            "3",
        ],
        0,
    );
    let out = stdout(&o);
    assert!(
        out.starts_with("examples/programs/sb.prog: 40 random SC runs, 0 dropped"),
        "{out}"
    );
    assert!(out.contains("\n  tso "), "{out}");
    assert!(out.contains("yes"), "{out}");
    let o = tsoser_exits(
        &[
            "crosscheck",
            "examples/programs/sb.prog",
            "--runs",
            "40",
            "--seed",
            "3",
            "--json",
        ],
        0,
    );
    let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(v["schema"], 2);
    assert_eq!(v["runs"], 40);
    assert_eq!(v["seed"], 3);
    let monitors: Vec<&str> = v["monitors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["monitor"].as_str().unwrap())
        .collect();
    assert_eq!(
        monitors,
        ["sc-ser", "sober", "tso", "pso", "fenced", "check"]
    );
    for bad in [
        &["crosscheck", "examples/programs/sb.prog", "--runs", "0"][..],
        &[
            "crosscheck",
            "examples/programs/sb.prog",
            "--runs",
            "5",
            "--model",
            "tso",
        ],
        &["crosscheck", "examples/programs/sb.prog", "--seed", "5"],
        &[
            "crosscheck",
            "examples/programs/sb.prog",
            "--runs",
            "5",
            "--max-traces",
            "9",
        ],
    ] {
        tsoser_exits(bad, 2);
    }
}

/// The harnesses of `examples/c/burnim/` (Burnim et al.'s Table 1, in our own words):
/// Dekker's and the bakery lock have TSO and PSO violations, Harris's set only PSO
/// ones (no TSO violation, as in the paper), each confirmed by the explorer.
#[test]
fn burnims_harnesses_have_the_shape_of_table_1() {
    let read = |name: &str| {
        read_program(
            &Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("examples/c/burnim")
                .join(name),
        )
        .unwrap()
    };
    for (name, tso) in [
        ("dekker.c", true),
        ("bakery.c", true),
        ("harris.c", false),
        ("msn.c", false),
        ("ms2.c", false),
        ("lazylist.c", false),
    ] {
        let r = sample(&read(name), &runs(300, 0));
        assert_eq!((r.runs, r.failed), (300, 0), "{name}");
        for k in [Kind::Sober, Kind::Tso] {
            let x = row(&r, Some(k));
            assert_eq!(x.violations > 0, tso, "{name} {k:?}: {x:?}");
            assert_eq!(x.confirmed, tso.then_some(true), "{name} {k:?}");
        }
        let pso = row(&r, Some(Kind::Pso));
        assert!(pso.violations > 0, "{name}: {pso:?}");
        assert_eq!(pso.confirmed, Some(true), "{name}");
        // No line is unknown: every blamed event comes from a line of the C file.
        assert!(
            r.rows
                .iter()
                .all(|x| x.distinct.keys().flatten().all(|&l| l > 0)),
            "{name}"
        );
    }
}
