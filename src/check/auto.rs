//! `--algo auto`, the default: the shared front end once (forced cycle, components of
//! the graph of possible conflicts), then per component fpt first within
//! [`FPT_FIRST_JUMPS`] jumps — it finds violations in a handful of jumps and refutes
//! components of few chains outright — and sat on what fpt leaves open (many chains
//! and no violation: the exponential regime, where CDCL learns). The rule and the
//! figures behind it are in the README ("`--algo auto`"). Paper semantics goes to sat
//! whole (a reproduction mode, not a performance one).

use super::fpt::{self, FptError, FptOptions, FptStats};
use super::sat::{self, SatError, SatStats, SolverKind};
use super::{Semantics, Stop, Verdict};
use crate::trace::Trace;

/// Jumps fpt may try on a component before sat takes it over: about 0.7 s of search.
/// Measured (README, "`--algo auto`"): dense 40-event traces up to 4 threads and 5 of
/// them on one seed finish within it (3–18× faster than varisat); realistic
/// violations need under 30 jumps; the components it gives up on are those where
/// varisat is faster.
pub const FPT_FIRST_JUMPS: u64 = 1_000_000;

/// What each part of an `auto` run did.
#[derive(Clone, Debug, Default)]
pub struct AutoStats {
    pub phases: Vec<(String, f64)>,
    pub forced_edges: u64,
    pub varying_pairs: u64,
    pub components: u64,
    /// Components of the possible graph left out: no transaction of two events
    /// (docs/semantics.md §5.6).
    pub single_event_components: u64,
    pub largest_component: u64,
    /// Components fpt decided, and those sat took over.
    pub by_fpt: u64,
    pub by_sat: u64,
    pub fpt: FptStats,
    pub sat: SatStats,
}

/// Why `auto` gave no verdict.
#[derive(Debug, thiserror::Error)]
pub enum AutoError {
    #[error(transparent)]
    Fpt(#[from] FptError),
    #[error(transparent)]
    Sat(#[from] SatError),
}

/// Decides with fpt and sat by component shape (see the module text).
/// `first_jumps` is fpt's share of each component ([`FPT_FIRST_JUMPS`] by default; 0
/// sends every component to sat, `u64::MAX` leaves every one to fpt).
pub fn check_auto(
    trace: &Trace,
    semantics: Semantics,
    solver: SolverKind,
    first_jumps: u64,
    opts: FptOptions,
    stop: &Stop,
) -> Result<(Verdict, AutoStats), AutoError> {
    let mut st = AutoStats::default();
    if semantics == Semantics::Paper {
        let (v, s) = sat::check_sat_until(trace, semantics, solver, stop)?;
        st.by_sat = s.components;
        st.sat = s;
        return Ok((v, st));
    }
    let deadline = stop.deadline;
    let front = match super::front::exact(trace, &mut st.phases) {
        Ok(f) => f,
        Err(v) => return Ok((v, st)),
    };
    st.forced_edges = front.forced_edges;
    st.varying_pairs = front.varying_count;
    st.components = front.comps.len() as u64;
    st.single_event_components = front.single_event;
    st.largest_component = front.largest();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(opts.jobs)
        .build()
        .map_err(|e| FptError::Threads(opts.jobs, e.to_string()))?;
    let fpt_opts = FptOptions {
        max_jumps: first_jumps.min(opts.max_jumps),
        ..opts
    };
    let expired = || stop.expired();
    for i in 0..front.comps.len() {
        let mut v = Verdict::Unknown {
            reason: String::new(),
        };
        if first_jumps > 0 {
            let fst = &mut st.fpt;
            v = pool
                .install(|| fpt::exact_components(trace, &front, &[i], &fpt_opts, deadline, fst))?;
        }
        if matches!(v, Verdict::Unknown { .. }) && !expired() {
            st.by_sat += 1;
            v = sat::exact_components(trace, &front, &[i], solver, stop, &mut st.sat)?;
        } else {
            st.by_fpt += 1;
        }
        if !matches!(v, Verdict::Serializable) {
            return Ok((v, st));
        }
    }
    Ok((Verdict::Serializable, st))
}
