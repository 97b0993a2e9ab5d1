//! `--algo auto`, the default: the shared front end once (forced cycle, components of
//! the graph of possible conflicts, §5.6's single-event components left out), then per
//! component:
//! 0. if at most [`relax::MAX_MULTI`] of its transactions have two events or more, the
//!    polynomial test of [`relax`]: it proves most such components serializable, or
//!    finds a violation once its window cuts pin a ring, where the searches below can
//!    take exponential time (docs/hardness.md);
//! 1. fpt alone within `first_jumps` jumps ([`FPT_FIRST_JUMPS`]) and [`FPT_FIRST_TIME`]
//!    of search — it finds violations in a handful of jumps and refutes components of few chains
//!    outright, without a thread or a formula;
//! 2. then a *portfolio*: fpt (the rest of its jump budget, on all cores but one) and
//!    sat (one core) race on the component; the first answer wins and cancels the
//!    other through a flag both poll ([`Stop::or_flag`]). fpt is strong on few chains,
//!    CaDiCaL where the chains are many (docs/performance.md, "The hard regime").
//!
//! Paper semantics goes to sat whole (a reproduction mode, not a performance one).

use super::fpt::{self, FptError, FptOptions, FptStats};
use super::relax::{self, Relax};
use super::sat::{self, SatError, SatStats};
use super::{Semantics, Unknown, Verdict};
use crate::solver::SolverKind;
use crate::stop::Stop;
use crate::trace::exec::Node;
use crate::trace::Trace;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Jumps fpt tries alone on a component before the portfolio starts: about 10 ms of
/// search on components of a few chains. Realistic violations need under 30 jumps
/// (docs/performance.md, "`--algo auto`").
pub const FPT_FIRST_JUMPS: u64 = 10_000;

/// The time fpt's search tries alone on a component at most (after its chains and
/// jumps are built: on a realistic 10⁵-event component that takes 0.24 s, and then 3
/// jumps find the violation): on components of thousands of chains a jump costs
/// milliseconds, and 10⁴ of them cost 20 s before the race began
/// (the hard family of docs/hardness.md at 100 variables; docs/performance.md, "`--algo auto`").
pub const FPT_FIRST_TIME: std::time::Duration = std::time::Duration::from_millis(50);

/// What each part of an `auto` run did (`stats.counts` of `check --json`, with fpt's
/// and sat's counters as objects of their own; docs/json.md).
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct AutoStats {
    #[serde(skip)]
    pub phases: Vec<(String, f64)>,
    pub forced_edges: u64,
    pub varying_pairs: u64,
    pub components: u64,
    /// Components of the possible graph left out: no transaction of two events
    /// (docs/semantics.md §5.6).
    pub single_event_components: u64,
    pub largest_component: u64,
    /// Components decided by the polynomial test ([`relax`]).
    #[serde(rename = "components_by_relax")]
    pub by_relax: u64,
    /// Components decided by fpt (alone or in the portfolio), and by sat.
    #[serde(rename = "components_by_fpt")]
    pub by_fpt: u64,
    #[serde(rename = "components_by_sat")]
    pub by_sat: u64,
    /// Components the portfolio raced on.
    #[serde(rename = "components_raced")]
    pub raced: u64,
    pub fpt: FptStats,
    pub sat: SatStats,
}

/// Why `auto` gave no verdict.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AutoError {
    #[error(transparent)]
    Fpt(#[from] FptError),
    #[error(transparent)]
    Sat(#[from] SatError),
    /// fpt and sat answered differently on a component: one of them is wrong.
    #[error("internal error: on component {component}, fpt answered {fpt} and sat {sat}; please report this trace")]
    Disagree {
        component: usize,
        fpt: &'static str,
        sat: &'static str,
    },
}

/// Decides with fpt alone, then the fpt ‖ sat portfolio, per component (see the module
/// text). `first_jumps`: fpt's jumps alone on each component ([`FPT_FIRST_JUMPS`] by
/// default; 0 starts the race at once, `u64::MAX` leaves every component to fpt).
/// Threads: fpt alone on `opts.jobs` (0: one per core); in the race fpt on one fewer
/// (at least one) and sat on one more.
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
        let (v, s) = sat::check_sat(trace, semantics, solver, stop)?;
        st.by_sat = s.components;
        st.sat = s;
        return Ok((v, st));
    }
    let jobs = match opts.jobs {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    };
    let alone = fpt::pool(jobs)?;
    let mut racing: Option<rayon::ThreadPool> = None;
    let (mut phases, mut seen) = (Vec::new(), super::front::Seen::default());
    let v = super::front::exact_each(trace, &mut phases, &mut seen, stop, |front| {
        decide_front(
            trace,
            front,
            solver,
            first_jumps,
            &opts,
            stop,
            &alone,
            &mut racing,
            &mut st,
        )
    });
    st.phases = super::front::merged(phases, std::mem::take(&mut st.phases));
    st.forced_edges = seen.forced_edges;
    st.varying_pairs = seen.varying;
    st.components = seen.components;
    st.single_event_components = seen.single_event;
    st.largest_component = seen.largest;
    Ok((v?, st))
}

/// [`check_auto`] on one piece of the front: each component by relax, then fpt alone
/// for a few jumps, then fpt and sat raced; the first answer that is not serializable.
#[allow(clippy::too_many_arguments)]
fn decide_front(
    trace: &Trace,
    front: &super::front::Front<(Node, Node)>,
    solver: SolverKind,
    first_jumps: u64,
    opts: &FptOptions,
    stop: &Stop,
    alone: &rayon::ThreadPool,
    racing: &mut Option<rayon::ThreadPool>,
    st: &mut AutoStats,
) -> Result<Verdict, AutoError> {
    let jobs = alone.current_num_threads();
    for i in 0..front.comps.len() {
        let proved = super::front::timed(&mut st.phases, "relax", || {
            relax::prove(trace, &front.comps[i], &front.multi, stop)
        });
        match proved {
            Relax::Serializable => {
                st.by_relax += 1;
                continue;
            }
            Relax::Violation(w) => {
                st.by_relax += 1;
                return Ok(Verdict::Violation(w));
            }
            Relax::Maybe | Relax::Skipped => {}
        }
        let mut v = Verdict::Unknown(Unknown::Deadline);
        if stop.expired() {
            return Ok(Verdict::Unknown(fpt::stopped(stop)));
        }
        let inst = fpt::prepare(trace, front, i, opts, &mut st.fpt);
        if first_jumps > 0 {
            let o = FptOptions {
                max_jumps: st
                    .fpt
                    .extended
                    .saturating_add(first_jumps.min(opts.max_jumps)),
                search_time: (first_jumps != u64::MAX).then_some(FPT_FIRST_TIME),
                ..*opts
            };
            let fst = &mut st.fpt;
            v = alone.install(|| fpt::decide_instance(trace, front, i, &inst, &o, stop, fst))?;
            if !matches!(v, Verdict::Unknown(_)) {
                st.by_fpt += 1;
            }
        }
        if matches!(v, Verdict::Unknown(_)) && !stop.expired() {
            if first_jumps == u64::MAX {
                return Ok(v);
            }
            // fpt's side of the race leaves one core to sat (built on the first race).
            if racing.is_none() {
                *racing = Some(fpt::pool(jobs.saturating_sub(1).max(1))?);
            }
            let pool = racing.as_ref().expect("built above");
            v = race(trace, front, i, &inst, solver, opts, stop, pool, st)?;
        }
        if !matches!(v, Verdict::Serializable) {
            return Ok(v);
        }
    }
    Ok(Verdict::Serializable)
}

/// fpt (on `pool`) and sat (on a thread of its own: CaDiCaL is not `Send`, so it is
/// built there) on component `i`; the first to answer sets a flag the other polls.
/// Both threads have ended when this returns.
#[allow(clippy::too_many_arguments)]
fn race(
    trace: &Trace,
    front: &super::front::Front<(Node, Node)>,
    i: usize,
    inst: &fpt::Instance,
    solver: SolverKind,
    opts: &FptOptions,
    stop: &Stop,
    pool: &rayon::ThreadPool,
    st: &mut AutoStats,
) -> Result<Verdict, AutoError> {
    st.raced += 1;
    let done = Arc::new(AtomicBool::new(false));
    let side = stop.or_flag(&done);
    // An answer or an error ends the other side.
    let answered = |unknown: bool| {
        if !unknown {
            done.store(true, Ordering::Relaxed);
        }
    };
    let (fst, sst) = (&mut st.fpt, &mut st.sat);
    let (by_fpt, by_sat) = std::thread::scope(|s| {
        let sat_side = s.spawn(|| {
            let r = sat::exact_components(trace, front, &[i], solver, &side, sst);
            answered(matches!(r, Ok(Verdict::Unknown(_))));
            r
        });
        let r = pool.install(|| fpt::decide_instance(trace, front, i, inst, opts, &side, fst));
        answered(matches!(r, Ok(Verdict::Unknown(_))));
        // A panic on sat's side is re-raised here, as the caller's own.
        let s = sat_side
            .join()
            .unwrap_or_else(|p| std::panic::resume_unwind(p));
        (r, s)
    });
    let (by_fpt, by_sat) = (by_fpt?, by_sat?);
    let known = |v: &Verdict| !matches!(v, Verdict::Unknown(_));
    match (known(&by_fpt), known(&by_sat)) {
        (true, true) if by_fpt.name() != by_sat.name() => Err(AutoError::Disagree {
            component: i,
            fpt: by_fpt.name(),
            sat: by_sat.name(),
        }),
        (true, _) => {
            st.by_fpt += 1;
            Ok(by_fpt)
        }
        (false, true) => {
            st.by_sat += 1;
            Ok(by_sat)
        }
        // Neither: say why the run stopped (sat's reason is the run's deadline or
        // cancellation; fpt's may be its jump budget).
        (false, false) if stop.expired() => Ok(by_sat),
        (false, false) => Ok(by_fpt),
    }
}
