//! `--algo fpt` against `--algo sat` (varisat) on the same traces: realistic serial
//! traces (8 threads, 1,000 variables; violations inside components) against n, and
//! the hard regime (blocks of 40 events, 2 variables, single-event transactions, no
//! fences, each block closed by a fence in every thread) against k.
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use tsoser::check::fpt::{check_fpt, FptOptions};
use tsoser::check::sat::{check_sat, SolverKind};
use tsoser::check::Semantics;
use tsoser::trace::gen::{blocks, generate, Shape};
use tsoser::trace::Trace;

fn both(
    group: &mut criterion::BenchmarkGroup<criterion::measurement::WallTime>,
    id: usize,
    t: &Trace,
) {
    group.bench_with_input(BenchmarkId::new("fpt", id), t, |b, t| {
        b.iter(|| {
            check_fpt(t, Semantics::Exact, FptOptions::default())
                .unwrap()
                .0
                .is_violation()
        })
    });
    group.bench_with_input(BenchmarkId::new("sat-varisat", id), t, |b, t| {
        b.iter(|| {
            check_sat(t, Semantics::Exact, SolverKind::Varisat, None)
                .unwrap()
                .0
                .is_violation()
        })
    });
}

fn serial(c: &mut Criterion) {
    let mut group = c.benchmark_group("fpt-serial-k4");
    group.sample_size(10);
    for n in [10_000usize, 100_000] {
        let shape = Shape {
            threads: 4,
            serial: true,
            ..Shape::realistic(n)
        };
        both(&mut group, n, &generate(&shape, 0));
    }
    group.finish();
}

fn hard(c: &mut Criterion) {
    let mut group = c.benchmark_group("fpt-blocks-1000");
    group.sample_size(10);
    for k in [2usize, 3] {
        let block = Shape::dense(40, k, 2);
        both(&mut group, k, &blocks(&block, 1000 / (40 + k), 0));
    }
    group.finish();
}

criterion_group!(benches, serial, hard);
criterion_main!(benches);
