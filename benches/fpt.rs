//! `--algo fpt` against `--algo sat` (varisat) on the same traces: realistic serial
//! traces (8 threads, 1,000 variables; violations inside components) against n, and
//! the hard regime against k: dense 40-event traces (2 variables, no fences) of
//! single-event transactions but one pair (`gen --pairs 1`, seed 1: serializable; with
//! single events only they are serializable by docs/semantics.md §5.6 at once).
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use tsoser::solver::SolverKind;
use tsoser::trace::gen::{generate, pair_first, Shape};
use tsoser::trace::Trace;
use tsoser::{decide, Algo, Budget, Question, Semantics};

/// One decider through the library's front door (the witness re-check included).
fn violation(t: &Trace, algo: Algo) -> bool {
    let q = Question::Tso(Semantics::Exact);
    decide(t, q, algo, &Budget::default())
        .unwrap()
        .verdict
        .is_violation()
}

fn both(
    group: &mut criterion::BenchmarkGroup<criterion::measurement::WallTime>,
    id: usize,
    t: &Trace,
) {
    group.bench_with_input(BenchmarkId::new("fpt", id), t, |b, t| {
        b.iter(|| violation(t, Algo::Fpt { fig4: false }))
    });
    group.bench_with_input(BenchmarkId::new("sat-varisat", id), t, |b, t| {
        b.iter(|| violation(t, Algo::Sat(SolverKind::DEFAULT)))
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
    let mut group = c.benchmark_group("fpt-dense-pairs1");
    group.sample_size(10);
    for k in [2usize, 3, 4] {
        both(
            &mut group,
            k,
            &pair_first(&generate(&Shape::dense(40, k, 2), 1), 1),
        );
    }
    group.finish();
}

criterion_group!(benches, serial, hard);
criterion_main!(benches);
