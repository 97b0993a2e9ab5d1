//! `tsoser consistent` (issue 17's targets): the simple write order on 10⁶-event runs of
//! 8 threads over 1,000 locations (target < 2 s), and any write order on 10³-event runs
//! of 8 threads (target < 10 s) — over 1, 4 and 16 locations (fewer locations, more
//! pairs of writes to order), consistent runs listed in another interleaving and the
//! same runs with two reads changed (not consistent).
use criterion::{criterion_group, criterion_main, Criterion};
use tsoser::consistency::{self, gen, Model, ValueRun, Verdict, WriteOrder};
use tsoser::solver::SolverKind;
use tsoser::stop::Stop;

/// Two reads, half and three quarters in, changed to read an early write.
fn stale(run: &ValueRun) -> ValueRun {
    let mut m = run.clone();
    let reads: Vec<usize> = (0..m.events.len())
        .filter(|&i| m.events[i].kind == consistency::run::Kind::Read)
        .collect();
    for k in [reads.len() / 2, 3 * reads.len() / 4] {
        let r = reads[k];
        let x = m.events[r].loc.unwrap();
        let w = m.writes[x][m.writes[x].len() / 3];
        m.events[r].rf = Some(w);
        m.events[r].val = m.events[w].val.clone();
    }
    m
}

fn simple(c: &mut Criterion) {
    let mut g = c.benchmark_group("consistent-simple");
    g.sample_size(10);
    for (model, name) in [(Model::Sc, "sc"), (Model::Tso, "tso")] {
        let run = gen::run(&gen::Params::new(model, 8, 1000, 125_000), 1);
        assert_eq!(run.events.len(), 1_000_000);
        g.bench_function(format!("{name}-1e6-events-8x1000"), |b| {
            b.iter(|| {
                let (v, _) = consistency::check(
                    &run,
                    model,
                    WriteOrder::Simple,
                    SolverKind::DEFAULT,
                    &tsoser::Stop::default(),
                )
                .unwrap();
                assert!(matches!(v, Verdict::Consistent { .. }));
            })
        });
    }
    g.finish();
}

fn any(c: &mut Criterion) {
    let mut g = c.benchmark_group("consistent-any");
    g.sample_size(10);
    let solvers: &[(SolverKind, &str)] = &[
        #[cfg(feature = "cadical")]
        (SolverKind::Cadical, "cadical"),
        (SolverKind::Varisat, "varisat"),
    ];
    for (model, name) in [(Model::Sc, "sc"), (Model::Tso, "tso")] {
        for locs in [1, 4, 16] {
            let run = gen::relist(&gen::run(&gen::Params::new(model, 8, locs, 125), 7), 3);
            let bad = gen::relist(
                &stale(&gen::run(&gen::Params::new(model, 8, locs, 125), 7)),
                4,
            );
            for &(solver, sname) in solvers {
                for (r, what) in [(&run, "shuffled"), (&bad, "stale")] {
                    g.bench_function(format!("{name}-1e3-{locs}loc-{what}-{sname}"), |b| {
                        b.iter(|| {
                            consistency::check(r, model, WriteOrder::Any, solver, &Stop::default())
                                .unwrap()
                        })
                    });
                }
            }
        }
    }
    g.finish();
}

criterion_group!(benches, simple, any);
criterion_main!(benches);
