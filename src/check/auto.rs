//! `--algo auto`, the default: the shared front end once (forced cycle, components of
//! the graph of possible conflicts), then each component to the decider that is
//! strong on its shape — fpt when its forced order has at most [`FPT_MAX_CHAINS`]
//! chains (Fig. 3 is exponential in the chains only), sat otherwise. The rule and the
//! figures behind it are in the README ("`--algo auto`"). Paper semantics goes to sat
//! whole (a reproduction mode, not a performance one).

use super::fpt::{self, FptError, FptOptions, FptStats};
use super::sat::{self, SatError, SatStats, SolverKind};
use super::{Semantics, Verdict};
use crate::trace::Trace;
use std::time::Instant;

/// Components whose forced order has at most this many chains go to fpt: measured
/// 4–30× faster than varisat there on dense traces, comparable at 5, slower from 6
/// (README, "`--algo fpt`" and "`--algo auto`").
pub const FPT_MAX_CHAINS: usize = 4;

/// What each part of an `auto` run did.
#[derive(Clone, Debug, Default)]
pub struct AutoStats {
    pub phases: Vec<(String, f64)>,
    pub forced_edges: u64,
    pub varying_pairs: u64,
    pub components: u64,
    pub largest_component: u64,
    /// Components given to fpt and to sat.
    pub by_fpt: u64,
    pub by_sat: u64,
    /// The widest component's chain count.
    pub chains: u64,
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
/// `max_chains` is the rule's threshold ([`FPT_MAX_CHAINS`] by default; 0 sends every
/// component to sat, `usize::MAX` every one to fpt).
pub fn check_auto(
    trace: &Trace,
    semantics: Semantics,
    solver: SolverKind,
    max_chains: usize,
    opts: FptOptions,
) -> Result<(Verdict, AutoStats), AutoError> {
    let mut st = AutoStats::default();
    if semantics == Semantics::Paper {
        let (v, s) = sat::check_sat(trace, semantics, solver, opts.timeout)?;
        st.by_sat = s.components;
        st.sat = s;
        return Ok((v, st));
    }
    let deadline = opts.timeout.and_then(|t| Instant::now().checked_add(t));
    let front = match super::front::exact(trace, &mut st.phases) {
        Ok(f) => f,
        Err(v) => return Ok((v, st)),
    };
    st.forced_edges = front.forced_edges;
    st.varying_pairs = front.varying_count;
    st.components = front.comps.len() as u64;
    st.largest_component = front.largest();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(opts.jobs)
        .build()
        .map_err(|e| FptError::Threads(opts.jobs, e.to_string()))?;
    for (i, comp) in front.comps.iter().enumerate() {
        let width = super::front::timed(&mut st.phases, "chain partition", || {
            fpt::width(trace, comp, &front.forced[i])
        });
        st.chains = st.chains.max(width as u64);
        let v = if width <= max_chains {
            st.by_fpt += 1;
            let fst = &mut st.fpt;
            pool.install(|| fpt::exact_components(trace, &front, &[i], &opts, deadline, fst))?
        } else {
            st.by_sat += 1;
            sat::exact_components(trace, &front, &[i], solver, deadline, &mut st.sat)?
        };
        if !matches!(v, Verdict::Serializable) {
            return Ok((v, st));
        }
    }
    Ok((Verdict::Serializable, st))
}
