//! Every monitor of `tsoser monitor` on the same generated trace (8 threads, 1,000
//! variables, 10⁵ events, serial, transaction-fenced, no read after a write inside a
//! transaction: robust and serializable, so each monitor reads it to the end).
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use tsoser::monitor::{run, Kind};
use tsoser::trace::gen::{generate, Shape};

fn monitors(c: &mut Criterion) {
    let n = 100_000;
    let shape = Shape {
        serial: true,
        txn_fenced: true,
        reads_first: true,
        ..Shape::realistic(n)
    };
    let trace = generate(&shape, 3);
    let mut group = c.benchmark_group("monitor");
    group.throughput(Throughput::Elements(n as u64));
    group.sample_size(20);
    for kind in Kind::ALL {
        assert!(!run(&trace, &[kind])[0].1.is_violation() || kind == Kind::Fenced);
        group.bench_function(kind.name(), |b| b.iter(|| run(&trace, &[kind])));
    }
    group.finish();
}

criterion_group!(benches, monitors);
criterion_main!(benches);
