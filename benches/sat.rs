//! `--algo sat` benchmarks: realistic traces (8 threads, 1,000 variables) with a
//! serial schedule — transaction-fenced (serializable, decided by pruning) and not
//! (violations, one solver call) — and the hard regime: dense 40-event traces of
//! single-event transactions but one pair (`gen --pairs 1`, seed 1, serializable).
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use tsoser::solver::SolverKind;
use tsoser::trace::gen::{generate, pair_first, Shape};
use tsoser::{decide, Algo, Budget, Question, Semantics};

fn solvers() -> Vec<SolverKind> {
    let mut v = vec![SolverKind::Varisat];
    if cfg!(feature = "z3") {
        v.push(SolverKind::Z3);
    }
    if cfg!(feature = "cadical") {
        v.push(SolverKind::Cadical);
    }
    v
}

/// `--algo sat` through the library's front door (the witness re-check included).
fn sat(t: &tsoser::Trace, s: SolverKind) -> bool {
    let q = Question::Tso(Semantics::Exact);
    decide(t, q, Algo::Sat(s), &Budget::default())
        .unwrap()
        .verdict
        .is_violation()
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
                |b, t| b.iter(|| sat(t, s)),
            );
        }
    }
    group.finish();
}

fn dense(c: &mut Criterion) {
    let mut group = c.benchmark_group("sat-dense");
    group.sample_size(10);
    for k in [2usize, 3, 4] {
        let trace = pair_first(&generate(&Shape::dense(40, k, 2), 1), 1);
        for s in solvers() {
            group.bench_with_input(BenchmarkId::new(format!("{s:?}"), k), &trace, |b, t| {
                b.iter(|| sat(t, s))
            });
        }
    }
    group.finish();
}

criterion_group!(benches, realistic, dense);
criterion_main!(benches);
