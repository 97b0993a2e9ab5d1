//! `--algo sat` benchmarks: realistic traces (8 threads, 1,000 variables) with a
//! serial schedule — transaction-fenced (serializable, decided by pruning) and not
//! (violations, one solver call) — and dense single-event traces (the hard regime).
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use tsoser::check::sat::{check_sat, SolverKind};
use tsoser::check::Semantics;
use tsoser::trace::gen::{generate, Shape};

fn solvers() -> Vec<SolverKind> {
    if cfg!(feature = "z3") {
        vec![SolverKind::Varisat, SolverKind::Z3]
    } else {
        vec![SolverKind::Varisat]
    }
}

fn realistic(c: &mut Criterion) {
    let mut group = c.benchmark_group("sat-realistic");
    group.sample_size(10);
    for (label, fenced) in [("fenced", true), ("unfenced", false)] {
        let shape = Shape {
            serial: true,
            txn_fenced: fenced,
            reads_first: false,
            ..Shape::realistic(100_000)
        };
        let trace = generate(&shape, 1);
        for s in solvers() {
            group.bench_with_input(
                BenchmarkId::new(format!("{label}-{s:?}"), 100_000),
                &trace,
                |b, t| {
                    b.iter(|| {
                        check_sat(t, Semantics::Exact, s, None)
                            .unwrap()
                            .0
                            .is_violation()
                    })
                },
            );
        }
    }
    group.finish();
}

fn dense(c: &mut Criterion) {
    let mut group = c.benchmark_group("sat-dense");
    group.sample_size(10);
    for k in [2usize, 3, 4] {
        let shape = Shape::dense(40, k, 2);
        let trace = generate(&shape, 0);
        for s in solvers() {
            group.bench_with_input(BenchmarkId::new(format!("{s:?}"), k), &trace, |b, t| {
                b.iter(|| {
                    check_sat(t, Semantics::Exact, s, None)
                        .unwrap()
                        .0
                        .is_violation()
                })
            });
        }
    }
    group.finish();
}

criterion_group!(benches, realistic, dense);
criterion_main!(benches);
