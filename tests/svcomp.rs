//! SV-COMP's pthread-atomic and pthread-wmm tasks (`unreach-call`), read from their `.i`
//! files as published, when the suites are beside the checkout (skipped with a note
//! otherwise): under SC, SV-COMP's model, every verdict tsoser gives equals the
//! MANIFEST's; unknowns (a cut nondet range, a budget) are listed with their reason and
//! count as neither. Under TSO and PSO, which mutual-exclusion tasks break is pinned,
//! each break's shortest run replayed to its failing assertion.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use tsoser::explore::machine::{Machine, Settled, UNBOUNDED};
use tsoser::explore::reach::reach;
use tsoser::explore::{Config, Exploration, Model};
use tsoser::program::{read_program, Program};

/// The suite `name` beside the checkout.
fn suite(name: &str) -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/external")
        .join(name);
    if dir.join("MANIFEST.csv").is_file() {
        Some(dir)
    } else {
        eprintln!(
            "note: {} is not beside the checkout: skipped",
            dir.display()
        );
        None
    }
}

/// The MANIFEST's unreach-call tasks: (task, input file, expected verdict).
fn tasks(dir: &Path) -> Vec<(String, PathBuf, bool)> {
    let text = std::fs::read_to_string(dir.join("MANIFEST.csv")).unwrap();
    text.lines()
        .skip(1)
        .filter_map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (f.len() == 4 && f[2] == "unreach-call").then(|| {
                assert!(
                    f[3] == "true" || f[3] == "false",
                    "a verdict is true or false: {l}"
                );
                (f[0].to_string(), dir.join(f[1]), f[3] == "true")
            })
        })
        .collect()
}

/// The reach engine on `p` under `model` within `secs`.
fn explore(p: &Program, model: Model, secs: u64) -> Exploration {
    let c = Config::new(model).deadline(Some(Instant::now() + Duration::from_secs(secs)));
    reach(p, &c)
}

/// The verdict of an exploration: false when an assertion fails, true when every
/// state was reached with every nondet value, else unknown with its reason.
fn verdict(e: &Exploration) -> Result<bool, String> {
    if e.failure.is_some() {
        Ok(false)
    } else if let Some(i) = e.incomplete {
        Err(format!("{i:?}"))
    } else if let Some(line) = e.nondet_cut {
        Err(format!("nondet range cut (line {line})"))
    } else {
        Ok(true)
    }
}

/// A failure's schedule replays, with no bound, to the failing assertion.
fn replays(p: &Program, model: Model, e: &Exploration) {
    let f = e.failure.as_ref().expect("a failure");
    let m = Machine::new(p, model, UNBOUNDED);
    let (mut s, mut last) = m.initial();
    for &step in &f.schedule {
        assert_eq!(last, Settled::Ok, "{}: the run ended early", p.name);
        assert!(m.is_enabled(&s, step), "{}: {step:?} not enabled", p.name);
        last = m.apply(&mut s, step).1;
    }
    assert_eq!(last, Settled::Failed(f.thread, f.pc), "{}", p.name);
}

/// Under SC every answer equals the MANIFEST's, and at least the tasks decided today
/// are decided (14 of the 21 read in well under a second each).
#[test]
fn svcomp_verdicts_under_sc_equal_the_manifests() {
    let mut decided = 0;
    let mut unknown = Vec::new();
    for name in ["svcomp-pthread-atomic", "svcomp-pthread-wmm-sample"] {
        let Some(dir) = suite(name) else {
            return;
        };
        for (task, input, expected) in tasks(&dir) {
            let p = read_program(&input).unwrap_or_else(|e| panic!("{task}: {e}"));
            let e = explore(&p, Model::Sc, 10);
            match verdict(&e) {
                Ok(v) => {
                    assert_eq!(v, expected, "{task}: tsoser says {v}, SV-COMP {expected}");
                    if !v {
                        replays(&p, Model::Sc, &e);
                    }
                    decided += 1;
                }
                Err(why) => unknown.push(format!("{task}: {why}")),
            }
        }
    }
    eprintln!("decided {decided}; unknown: {unknown:?}");
    assert!(decided >= 17, "decided {decided}; unknown: {unknown:?}");
}

/// The pthread-atomic tasks under TSO and PSO: which break (an assertion fails) and
/// which hold. SV-COMP's atomic blocks drain the store buffers as locked instructions
/// do, so the tasks that publish their flags inside one (dekker, peterson) hold under
/// TSO; every break is a shortest run, replayed.
#[test]
fn svcomp_mutual_exclusion_under_tso_and_pso() {
    let Some(dir) = suite("svcomp-pthread-atomic") else {
        return;
    };
    // (task, breaks under TSO, breaks under PSO)
    let want = [
        ("dekker", false, true),
        ("lamport", true, true),
        ("peterson", false, true),
        ("read_write_lock-1", false, true),
        ("szymanski", false, true),
        ("time_var_mutex", false, false),
    ];
    for (task, tso, pso) in want {
        let p = read_program(&dir.join(format!("{task}.i"))).unwrap();
        for (model, breaks) in [(Model::Tso, tso), (Model::Pso, pso)] {
            let e = explore(&p, model, 20);
            assert_eq!(
                verdict(&e),
                Ok(!breaks),
                "{task} under {model:?}: {:?}",
                e.incomplete
            );
            if breaks {
                replays(&p, model, &e);
            }
        }
    }
}
