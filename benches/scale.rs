//! Scale benchmarks (issue "part 1", item 9): build the exact event graph and decide
//! its forced (directed-only) part on generated realistic traces.
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use tsoser::graph::exact::ExactGraph;
use tsoser::trace::gen::{generate, Shape};

fn exact_graph(c: &mut Criterion) {
    let mut group = c.benchmark_group("exact-graph+forced-cycle");
    group.sample_size(10);
    for n in [10_000usize, 100_000, 1_000_000] {
        let trace = generate(&Shape::realistic(n), 1);
        group.bench_with_input(BenchmarkId::from_parameter(n), &trace, |b, t| {
            b.iter(|| {
                let g = ExactGraph::new(t);
                g.forced.find_cycle().is_some()
            })
        });
    }
    group.finish();
}

criterion_group!(benches, exact_graph);
criterion_main!(benches);
