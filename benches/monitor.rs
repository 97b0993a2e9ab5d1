//! Every monitor of `tsoser monitor` on the same generated trace (8 threads, 1,000
//! variables, 10⁵ events, serial, transaction-fenced, no read after a write inside a
//! transaction: robust and serializable, so each monitor reads it to the end), and the
//! STD reading the stream does before them (the same trace written as STD), and the
//! readers that build the trace in memory for `check` (STD on one thread and with a
//! lexing thread, and YAML in both forms).
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use tsoser::monitor::{run, Kind};
use tsoser::trace::gen::{generate, Shape};
use tsoser::trace::std_format::lex::{stream_not_utf8, Line, MAX_LINE};
use tsoser::trace::std_format::{lower::Lowering, split::lexed, to_std};

const EVENTS: usize = 100_000;

fn trace() -> tsoser::trace::Trace {
    let shape = Shape {
        serial: true,
        txn_fenced: true,
        reads_first: true,
        ..Shape::realistic(EVENTS)
    };
    generate(&shape, 3)
}

fn monitors(c: &mut Criterion) {
    let trace = trace();
    let mut group = c.benchmark_group("monitor");
    group.throughput(Throughput::Elements(EVENTS as u64));
    group.sample_size(20);
    for kind in Kind::ALL {
        assert!(!run(&trace, &[kind])[0].1.is_violation() || kind == Kind::Fenced);
        group.bench_function(kind.name(), |b| b.iter(|| run(&trace, &[kind])));
    }
    group.finish();
}

/// The stream's reading on the STD text in memory, as `tsoser monitor FILE.std` reads
/// (the scanner's windows, the lexer and the lowering on one thread): lines per second.
fn std_reading(c: &mut Criterion) {
    let text = to_std(&trace()).expect("a generated trace is written as STD");
    let mut group = c.benchmark_group("std");
    group.throughput(Throughput::Elements(text.lines().count() as u64));
    group.sample_size(20);
    group.bench_function("scan+lower", |b| {
        b.iter(|| {
            let mut lowering = Lowering::default();
            let mut events = Vec::with_capacity(4096);
            lexed(
                text.as_bytes(),
                MAX_LINE,
                stream_not_utf8,
                0,
                |line: &Line<'_>| {
                    lowering.lower_line(line, &mut events)?;
                    if events.len() >= 4096 {
                        events.clear();
                    }
                    Ok(true)
                },
            )
            .expect("the text is well-formed");
            lowering.vars()
        })
    });
    group.finish();
}

/// The readers that build a trace in memory (what `check` does first), on the same
/// trace written as STD and as YAML in both forms: events per second.
fn trace_reading(c: &mut Criterion) {
    use tsoser::trace::yaml::{parse_trace, write, Form};
    let trace = trace();
    let std = to_std(&trace).expect("a generated trace is written as STD");
    let mut group = c.benchmark_group("read");
    group.throughput(Throughput::Elements(EVENTS as u64));
    group.sample_size(20);
    group.bench_function("std", |b| {
        b.iter(|| tsoser::trace::std_format::build(std.as_bytes()).map(|t| t.len()))
    });
    // Its 1 MiB blocks lexed on another thread (wall time: the split's gain and cost).
    group.bench_function("std-1-lexer", |b| {
        b.iter(|| tsoser::trace::std_format::build_on(std.as_bytes(), 1).map(|t| t.len()))
    });
    for (name, form) in [
        ("yaml-compact", Form::Compact),
        ("yaml-canonical", Form::Canonical),
    ] {
        let text = write(&trace, form);
        group.bench_function(name, |b| b.iter(|| parse_trace(&text).map(|t| t.len())));
    }
    group.finish();
}

criterion_group!(benches, monitors, std_reading, trace_reading);
criterion_main!(benches);
