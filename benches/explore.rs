//! The explorer: the Dat3M x86 suite under TSO (outcomes and conditions, as `tsoser
//! suite`), the bakery under PSO with and without the robustness search, and three
//! committed C programs by each engine.
use criterion::{criterion_group, criterion_main, Criterion};
use std::path::Path;
use tsoser::explore::robust::robust;
use tsoser::explore::states::explore;
use tsoser::explore::{Config, Model};
use tsoser::program::read_program;

fn suite(c: &mut Criterion) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/external/dat3m-x86/litmus");
    let mut progs = Vec::new();
    if let Ok(rd) = std::fs::read_dir(&dir) {
        for e in rd.flatten() {
            progs.push(read_program(&e.path()).unwrap());
        }
    }
    let mut g = c.benchmark_group("explore");
    g.sample_size(10);
    if !progs.is_empty() {
        g.bench_function("dat3m-487-tso", |b| {
            b.iter(|| {
                progs
                    .iter()
                    .filter(|p| {
                        explore(p, &Config::new(Model::Tso).unroll(4).max_states(1_000_000))
                            .condition(p)
                            == Some(true)
                    })
                    .count()
            })
        });
    }
    let bakery =
        read_program(&Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/programs/bakery.prog"))
            .unwrap();
    g.bench_function("bakery-pso-unroll8", |b| {
        b.iter(|| {
            explore(
                &bakery,
                &Config::new(Model::Pso).unroll(8).max_states(10_000_000),
            )
            .states
        })
    });
    let fenced = read_program(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/programs/bakery-fenced.prog"),
    )
    .unwrap();
    g.bench_function("bakery-fenced-pso-robustness", |b| {
        b.iter(|| {
            robust(
                &fenced,
                &Config::new(Model::Pso).unroll(8).max_states(10_000_000),
            )
            .unwrap()
            .states
        })
    });
    g.finish();
}

/// Three committed C programs (Dekker's and the bakery lock, Burnim et al.'s harnesses,
/// and a test-and-set counter) under TSO, by each engine: the states engine (outcomes,
/// assertions) and the dpor engine (the same answers). The TACAS'15 benchmarks
/// themselves are not committed (docs/c.md).
fn c_programs(c: &mut Criterion) {
    use tsoser::explore::dpor::explore_dpor;
    let mut g = c.benchmark_group("c-tso");
    g.sample_size(10);
    for name in ["burnim/dekker", "burnim/bakery", "counter"] {
        let p = read_program(
            &Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("examples/c/{name}.c")),
        )
        .unwrap();
        let config = Config::new(Model::Tso);
        g.bench_function(format!("{name}/states"), |b| {
            b.iter(|| explore(&p, &config).states)
        });
        g.bench_function(format!("{name}/dpor"), |b| {
            b.iter(|| explore_dpor(&p, &config, false).stats.executions)
        });
    }
    g.finish();
}

criterion_group!(benches, suite, c_programs);
criterion_main!(benches);
