//! The benchmarks of Table 1 of Abdulla et al., *Stateless Model Checking for TSO and
//! PSO* (TACAS'15), written in tsoser's language (`examples/tacas15/`): the dpor engine
//! finds an assertion failure exactly where the table marks one (`*`), for every
//! benchmark, fence variant and model; and on the robust ones it explores as many
//! complete executions under TSO and PSO as under SC (the paper's §5).

use std::path::Path;
use tsoser::explore::dpor::explore_dpor;
use tsoser::explore::{Config, Model};
use tsoser::program::read_program;

/// File, then whether Table 1 marks an error (`*`) under SC, TSO and PSO (Nidhugg's
/// columns; the fence column is the file's `.tso`/`.pso` suffix).
pub(crate) const TABLE: &[(&str, [bool; 3])] = &[
    ("dcl_singleton", [false, false, true]),
    ("dcl_singleton.pso", [false, false, false]),
    ("dekker", [false, true, true]),
    ("dekker.tso", [false, false, true]),
    ("dekker.pso", [false, false, false]),
    ("fib_false", [true, true, true]),
    ("fib_false_join", [true, true, true]),
    ("fib_true", [false, false, false]),
    ("fib_true_join", [false, false, false]),
    ("indexer", [false, false, false]),
    ("lamport", [false, true, true]),
    ("lamport.tso", [false, false, true]),
    ("lamport.pso", [false, false, false]),
    ("parker", [false, true, true]),
    ("parker.pso", [false, false, false]),
    ("peterson", [false, true, true]),
    ("peterson.tso", [false, false, true]),
    ("peterson.pso", [false, false, false]),
    ("pgsql", [false, false, true]),
    ("pgsql.pso", [false, false, false]),
    ("pgsql_bnd.pso", [false, false, false]),
    ("stack_safe", [false, false, false]),
    ("stack_unsafe", [true, true, true]),
    ("szymanski", [false, true, true]),
    ("szymanski.tso", [false, false, true]),
    ("szymanski.pso", [false, false, false]),
];

const MODELS: [Model; 3] = [Model::Sc, Model::Tso, Model::Pso];

fn program(name: &str) -> tsoser::program::Program {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples/tacas15")
        .join(format!("{name}.prog"));
    read_program(&path).unwrap_or_else(|e| panic!("{e}"))
}

/// The dpor engine's verdicts against the table's stars, and, where a benchmark is
/// robust under TSO or PSO, its complete executions there against SC's.
fn check(names: &[&str]) {
    for &(name, stars) in TABLE.iter().filter(|(n, _)| names.contains(n)) {
        let p = program(name);
        let unroll = p.unroll.unwrap_or(4);
        let mut sc_complete = 0;
        for (model, star) in MODELS.into_iter().zip(stars) {
            // (pgsql_bnd's 335,923 executions are not checked for cycles here: slow.)
            let robustness = !star && name != "pgsql_bnd.pso";
            let d = explore_dpor(&p, &Config::new(model).unroll(unroll), robustness);
            assert!(
                d.exploration.complete,
                "{name} under {model:?}: not finished"
            );
            assert_eq!(
                d.exploration.failure.is_some(),
                star,
                "{name} under {model:?}: Table 1 says {}",
                if star { "an error" } else { "no error" }
            );
            // Robust: its Shasha–Snir traces are the SC ones, one execution each.
            match (model, d.robustness.and_then(|r| r.robust)) {
                (Model::Sc, _) => sc_complete = d.stats.complete,
                (_, Some(true)) => assert_eq!(
                    d.stats.complete, sc_complete,
                    "{name} is robust under {model:?}: complete executions as under SC"
                ),
                _ => {}
            }
        }
    }
}

#[test]
fn every_benchmark_is_listed() {
    let mut files: Vec<String> =
        std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/tacas15"))
            .unwrap()
            .map(|e| {
                e.unwrap()
                    .file_name()
                    .to_string_lossy()
                    .trim_end_matches(".prog")
                    .to_string()
            })
            .collect();
    files.sort();
    let mut listed: Vec<String> = TABLE.iter().map(|(n, _)| n.to_string()).collect();
    listed.sort();
    assert_eq!(files, listed);
}

#[test]
fn mutual_exclusion() {
    check(&[
        "dekker",
        "dekker.tso",
        "dekker.pso",
        "lamport",
        "lamport.tso",
        "lamport.pso",
    ]);
    check(&[
        "peterson",
        "peterson.tso",
        "peterson.pso",
        "szymanski",
        "szymanski.tso",
        "szymanski.pso",
    ]);
}

#[test]
fn fibonacci() {
    check(&["fib_false", "fib_false_join", "fib_true", "fib_true_join"]);
}

#[test]
fn locks_and_latches() {
    check(&[
        "dcl_singleton",
        "dcl_singleton.pso",
        "parker",
        "parker.pso",
        "indexer",
    ]);
    check(&[
        "stack_safe",
        "stack_unsafe",
        "pgsql",
        "pgsql.pso",
        "pgsql_bnd.pso",
    ]);
}
