//! The integration tests, one module a file, in one binary (ripgrep's layout): one
//! link of the library and its solvers instead of one per file. `tests/mem.rs` and
//! `tests/budget.rs` stay binaries of their own: they measure their process (its peak
//! memory; its CPU time once an answer is given). Run one module with
//! `cargo test --all-features --test integration MODULE::`.

mod common;

mod architecture;
mod batch;
mod benchexec;
mod c;
mod cli;
mod conformance;
mod consistent;
mod consistent_runs;
mod crosscheck;
mod dpor;
mod experiment;
mod explore;
mod explore_cli;
mod fpt;
mod fuzz;
mod hardness;
mod heap;
mod monitors;
mod programs;
mod props;
mod qadeer_cache;
mod reach;
mod regressions;
mod relax;
mod sample;
mod sat_cli;
mod solver;
mod std_format;
mod stdatomic;
mod svcomp;
mod tacas15;

/// With one binary, a test file that is not a module here would never run.
#[test]
fn every_test_file_is_a_module_of_this_binary() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests");
    let this = include_str!("tests.rs");
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let Some(m) = name.strip_suffix(".rs") else {
            continue;
        };
        if !["tests", "mem", "budget"].contains(&m) {
            assert!(
                this.contains(&format!("\nmod {m};\n")),
                "tests/{name} is not a module of tests/tests.rs"
            );
        }
    }
}
