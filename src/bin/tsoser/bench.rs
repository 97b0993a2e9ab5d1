//! `tsoser bench dense|scale`: the library's harness ([`tsoser::bench`]) printed as CSV.

use crate::args::{DenseArgs, ScaleArgs};
use crate::out::warn;
use anyhow::{bail, Result};
use std::collections::BTreeMap;
use std::time::Duration;
use tsoser::bench;
use tsoser::check::{Semantics, Verdict};
use tsoser::trace::gen;

/// `bench dense`: the deciders on dense traces for each thread count and seed.
pub(crate) fn dense(a: &DenseArgs) -> Result<u8> {
    let (min_threads, max_threads, events, vars) = (a.min_threads, a.max_threads, a.events, a.vars);
    let (seeds, txn_len, write, timeout) = (a.seeds, a.txn_len, a.write, a.timeout);
    let deciders = &a.deciders;
    if min_threads == 0 || vars == 0 || min_threads > max_threads {
        bail!("need 1 ≤ --min-threads ≤ --max-threads and --vars ≥ 1");
    }
    let timeout = crate::check::timeout_arg(Some(timeout))?.expect("given");
    if !(0.0..=1.0).contains(&write) {
        bail!("--write is a probability");
    }
    let base = gen::Shape {
        txn_len,
        write,
        ..gen::Shape::dense(events, min_threads, vars)
    };
    outln!(
        "threads,events,vars,txn_len,pairs,seed,{}",
        bench::Run::COLUMNS
    );
    for k in min_threads..=max_threads {
        for seed in 0..seeds {
            let shape = gen::Shape { threads: k, ..base };
            let mut trace = gen::generate(&shape, seed);
            if a.pairs > 0 {
                trace = gen::pair_first(&trace, a.pairs);
            }
            for d in deciders.iter().map(|d| d.lib()).filter(|d| d.available()) {
                let run = bench::run(&trace, d, Semantics::Exact, timeout)?;
                outln!(
                    "{k},{},{},{},{},{seed},{}",
                    shape.events,
                    shape.vars,
                    shape.txn_len,
                    a.pairs,
                    run.csv()
                );
            }
        }
    }
    Ok(0)
}

/// `bench scale`: fpt against sat on the same traces, for each length and thread count;
/// the fitted exponent of time in n on standard error.
pub(crate) fn scale(a: &ScaleArgs) -> Result<u8> {
    let (events, threads, family, vars) = (&a.events, &a.threads, a.family, a.vars);
    let (seeds, semantics, timeout, deciders) = (a.seeds, a.semantics, a.timeout, &a.deciders);
    if threads.contains(&0) || vars == 0 {
        bail!("need --threads ≥ 1 and --vars ≥ 1");
    }
    let timeout: Duration = crate::check::timeout_arg(Some(timeout))?.expect("given");
    let (family, semantics) = (family.lib(), semantics.lib());
    outln!(
        "family,semantics,events,threads,seed,{}",
        bench::Run::COLUMNS
    );
    // (decider, k) → (n, seconds) of answered runs.
    let mut fit: BTreeMap<(&'static str, usize), Vec<(f64, f64)>> = BTreeMap::new();
    for &k in threads {
        for &n in events {
            for seed in 0..seeds {
                let trace = family.trace(n, k, vars, seed);
                for d in deciders.iter().map(|d| d.lib()).filter(|d| d.available()) {
                    let run = bench::run(&trace, d, semantics, timeout)?;
                    outln!(
                        "{},{},{n},{k},{seed},{}",
                        family.name(),
                        match semantics {
                            Semantics::Exact => "exact",
                            Semantics::Paper => "paper",
                        },
                        run.csv()
                    );
                    if !matches!(run.verdict, Verdict::Unknown { .. }) {
                        fit.entry((d.name(), k))
                            .or_default()
                            .push((n as f64, run.seconds));
                    }
                }
            }
        }
    }
    for ((name, k), pts) in &fit {
        if let Some(e) = bench::fitted_exponent(pts) {
            warn(&format!(
                "fitted exponent of time in n: {name} k={k}: {e:.2}"
            ));
        }
    }
    Ok(0)
}
