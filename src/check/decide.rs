//! One front door for every decider of a trace: [`decide`] takes the trace, the
//! question, the decider and a [`Budget`], and gives a [`Decision`] whose witness has
//! been re-checked from the definitions ([`super::verify`]), with typed statistics, or a
//! typed [`DecideError`]. The command line, the tests and the benches all call it.
//!
//! ```
//! use tsoser::check::decide::{decide, Algo, Budget, Question};
//! use tsoser::check::{Semantics, Verdict};
//! // Store buffering with one transaction per thread: both loads may read 0, so the
//! // conflict graph of that execution has the cycle A → B → A.
//! let t = tsoser::trace::compact(&["t1 A wr x", "t1 A rd y", "t2 B wr y", "t2 B rd x"]);
//! let d = decide(&t, Question::Tso(Semantics::Exact), Algo::Brute, &Budget::default()).unwrap();
//! assert!(matches!(d.verdict, Verdict::Violation(_)));
//! ```

use super::fpt::{self, FptOptions, FptStats};
use super::sat::{self, SatStats};
use super::{brute, sc, verify, Semantics, Verdict};
use crate::solver::SolverKind;
use crate::stop::Stop;
use crate::trace::Trace;
use std::time::{Duration, Instant};

/// The question asked of a trace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Question {
    /// Is every TSO execution conflict-serializable (docs/semantics.md §4), in the exact
    /// semantics or the paper's Thm. 5?
    Tso(Semantics),
    /// Is the trace, read as an SC run, conflict-serializable (docs/semantics.md §6)?
    Sc,
}

/// Which decider answers a [`Question::Tso`] (an SC question has one polynomial check).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Algo {
    /// Per component, fpt alone within `first_jumps` jumps, then fpt and sat with
    /// `solver` racing on what it leaves open ([`super::auto`]); paper semantics: sat.
    Auto {
        solver: SolverKind,
        first_jumps: u64,
    },
    /// Enumerate the executions: the definition, and the oracle of every test.
    Brute,
    /// SAT/SMT encoding of commit placements, with this solver.
    Sat(SolverKind),
    /// Enea & Farzan's Fig. 3 made exact; `fig4`: Fig. 4's profiles taken literally
    /// (not exact: a "yes" may be wrong).
    Fpt { fig4: bool },
}

impl Algo {
    /// `auto` with the measured rule ([`super::auto::FPT_FIRST_JUMPS`]) and the default
    /// solver ([`SolverKind::DEFAULT`]).
    pub const AUTO: Algo = Algo::Auto {
        solver: SolverKind::DEFAULT,
        first_jumps: super::auto::FPT_FIRST_JUMPS,
    };

    /// The name in reports: `brute`, `sat`, `fpt`.
    pub fn name(self) -> &'static str {
        match self {
            Algo::Auto { .. } => "auto",
            Algo::Brute => "brute",
            Algo::Sat(_) => "sat",
            Algo::Fpt { .. } => "fpt",
        }
    }
}

/// Limits every decider polls cooperatively: when to stop (a deadline, and a flag that
/// [`Stop::cancel`] on any clone of the budget sets), and each decider's own step
/// limit.
#[derive(Clone, Debug)]
pub struct Budget {
    pub stop: Stop,
    /// Brute force: execution prefixes (paper mode: orientations) visited.
    pub max_executions: u64,
    /// fpt: jumps tried.
    pub max_jumps: u64,
    /// fpt: worker threads (0: one per core).
    pub jobs: usize,
}

impl Default for Budget {
    fn default() -> Budget {
        Budget {
            stop: Stop::cancellable(None),
            max_executions: brute::DEFAULT_MAX,
            max_jumps: fpt::DEFAULT_MAX,
            jobs: 0,
        }
    }
}

impl Budget {
    /// A budget that ends `timeout` from now.
    pub fn with_timeout(timeout: Duration) -> Budget {
        Budget {
            stop: Stop::cancellable(Instant::now().checked_add(timeout)),
            ..Budget::default()
        }
    }
}

/// What one run counted, by decider.
#[derive(Clone, Debug, Default, serde::Serialize)]
#[serde(untagged)]
pub enum DeciderStats {
    #[default]
    None,
    Brute(brute::BruteStats),
    Sat(SatStats),
    Fpt(FptStats),
    Auto(Box<super::auto::AutoStats>),
}

/// A decider's answer: the verdict (its witness re-checked), whether the paper's
/// violation is realised by some execution (paper semantics only; `None`: not asked or
/// not known within the budget), and what the run counted.
#[derive(Clone, Debug)]
pub struct Decision {
    pub verdict: Verdict,
    pub realizable: Option<bool>,
    pub stats: DeciderStats,
    /// Wall time of the whole decision.
    pub seconds: f64,
}

impl DeciderStats {
    /// Phase times (name, seconds), in order.
    pub fn phases(&self) -> Vec<(String, f64)> {
        match self {
            DeciderStats::Sat(s) => s.phases.clone(),
            DeciderStats::Fpt(s) => s.phases.clone(),
            DeciderStats::Auto(s) => {
                let mut p = s.phases.clone();
                p.extend(s.fpt.phases.iter().map(|(k, v)| (format!("fpt: {k}"), *v)));
                p.extend(s.sat.phases.iter().map(|(k, v)| (format!("sat: {k}"), *v)));
                p
            }
            _ => Vec::new(),
        }
    }

    /// The counters as (name, value), the names of `--stats` and `--json`; a
    /// solver's conflicts only where it counts them.
    pub fn counts(&self) -> Vec<(&'static str, u64)> {
        let mut counts = self.fixed_counts();
        let conflicts = match self {
            DeciderStats::Sat(s) => s.conflicts,
            DeciderStats::Auto(s) => s.sat.conflicts,
            _ => None,
        };
        counts.extend(conflicts.map(|n| ("conflicts", n)));
        counts
    }

    fn fixed_counts(&self) -> Vec<(&'static str, u64)> {
        match self {
            DeciderStats::None => vec![],
            DeciderStats::Brute(s) => vec![
                ("visited", s.visited),
                ("complete", s.complete),
                ("slept", s.slept),
            ],
            DeciderStats::Sat(s) => vec![
                ("variables", s.variables),
                ("clauses", s.clauses),
                ("order clauses", s.order_clauses),
                ("solver calls", s.solver_calls),
                ("lazy cuts", s.lazy_cuts),
                ("propagated cuts", s.propagated_cuts),
                ("components", s.components),
                ("components of single events", s.single_event_components),
                ("largest component", s.largest_component),
                ("varying pairs", s.varying_pairs),
                ("forced edges", s.forced_edges),
            ],
            DeciderStats::Auto(s) => vec![
                ("forced edges", s.forced_edges),
                ("varying pairs", s.varying_pairs),
                ("components", s.components),
                ("components of single events", s.single_event_components),
                ("largest component", s.largest_component),
                ("components by relax", s.by_relax),
                ("components by fpt", s.by_fpt),
                ("components by sat", s.by_sat),
                ("components raced", s.raced),
                ("jumps tried", s.fpt.extended),
                ("solver calls", s.sat.solver_calls),
                ("lazy cuts", s.sat.lazy_cuts),
                ("propagated cuts", s.sat.propagated_cuts),
                ("variables", s.sat.variables),
                ("clauses", s.sat.clauses),
            ],
            DeciderStats::Fpt(s) => vec![
                ("forced edges", s.forced_edges),
                ("varying", s.varying),
                ("components", s.components),
                ("components of single events", s.single_event_components),
                ("largest component", s.largest_component),
                ("chains", s.width),
                ("jumps", s.jumps),
                ("first jumps", s.first_jumps),
                ("jumps tried", s.extended),
                ("pruned (not simple)", s.pruned_simple),
                ("pruned (not valid)", s.pruned_invalid),
            ],
        }
    }
}

/// Why a decider gave no verdict. An *unknown* within the budget is not an error: it is
/// [`Verdict::Unknown`].
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DecideError {
    /// A witness failed its re-check from the definitions: a bug, never printed.
    #[error("internal error: the witness found does not re-check ({0}); please report this trace")]
    Unverified(super::Rejected),
    /// Two deciders of a portfolio answered differently: a bug, never printed as a verdict.
    #[error("{0}")]
    Disagree(String),
    /// The chosen solver is not in this build (cargo feature `z3`).
    #[error("{0}")]
    Unavailable(String),
    /// The environment refused a resource (threads).
    #[error("{0}")]
    Resource(String),
}

impl DecideError {
    /// A bug in tsoser (exit 4), not a problem of the input or the environment.
    pub fn is_internal(&self) -> bool {
        matches!(self, DecideError::Unverified(_) | DecideError::Disagree(_))
    }
}

impl From<sat::SatError> for DecideError {
    fn from(e: sat::SatError) -> DecideError {
        match e {
            sat::SatError::Solver(e) => DecideError::Unavailable(e.to_string()),
            sat::SatError::Unverified(why) => DecideError::Unverified(why),
        }
    }
}

impl From<super::auto::AutoError> for DecideError {
    fn from(e: super::auto::AutoError) -> DecideError {
        match e {
            super::auto::AutoError::Fpt(e) => e.into(),
            super::auto::AutoError::Sat(e) => e.into(),
            e @ super::auto::AutoError::Disagree { .. } => DecideError::Disagree(e.to_string()),
        }
    }
}

impl From<fpt::FptError> for DecideError {
    fn from(e: fpt::FptError) -> DecideError {
        match e {
            fpt::FptError::Unverified(why) => DecideError::Unverified(why),
            fpt::FptError::Threads(..) => DecideError::Resource(e.to_string()),
        }
    }
}

fn fpt_options(budget: &Budget, fig4: bool) -> FptOptions {
    FptOptions {
        jobs: budget.jobs,
        max_jumps: budget.max_jumps,
        search_time: None,
        fig4_representatives: fig4,
    }
}

/// The verdict of one decider, before the witness re-check.
fn run(
    trace: &Trace,
    semantics: Semantics,
    algo: Algo,
    budget: &Budget,
) -> Result<(Verdict, DeciderStats), DecideError> {
    Ok(match algo {
        Algo::Brute => {
            let stop = budget.stop.clone();
            let (v, s) = match semantics {
                Semantics::Exact => brute::check_exact(trace, budget.max_executions, &stop),
                Semantics::Paper => brute::check_paper(trace, budget.max_executions, &stop),
            };
            (v, DeciderStats::Brute(s))
        }
        Algo::Sat(solver) => {
            let (v, s) = sat::check_sat(trace, semantics, solver, &budget.stop)?;
            (v, DeciderStats::Sat(s))
        }
        Algo::Fpt { fig4 } => {
            let o = fpt_options(budget, fig4);
            let (v, s) = fpt::check_fpt(trace, semantics, o, &budget.stop)?;
            (v, DeciderStats::Fpt(s))
        }
        Algo::Auto {
            solver,
            first_jumps,
        } => {
            let o = fpt_options(budget, false);
            let stop = budget.stop.clone();
            let (v, s) = super::auto::check_auto(trace, semantics, solver, first_jumps, o, &stop)?;
            (v, DeciderStats::Auto(Box::new(s)))
        }
    })
}

/// Decides `question` on `trace` with `algo` within `budget`. A violation's witness has
/// been re-checked by [`super::verify`]; in paper semantics a violation also says
/// whether some execution has one (decided again, exactly, by the same algorithm in the
/// time left). A deadline or cancellation gives [`Verdict::Unknown`].
pub fn decide(
    trace: &Trace,
    question: Question,
    algo: Algo,
    budget: &Budget,
) -> Result<Decision, DecideError> {
    let started = Instant::now();
    let (verdict, stats, realizable) = match question {
        Question::Sc => (sc::check_sc(trace), DeciderStats::None, None),
        Question::Tso(semantics) => {
            let (verdict, stats) = run(trace, semantics, algo, budget)?;
            let realizable = if semantics == Semantics::Paper && verdict.is_violation() {
                let exact_algo = match algo {
                    Algo::Fpt { .. } => Algo::Fpt { fig4: false },
                    a => a,
                };
                match run(trace, Semantics::Exact, exact_algo, budget)?.0 {
                    Verdict::Violation(_) => Some(true),
                    Verdict::Serializable => Some(false),
                    Verdict::Unknown(_) => None,
                }
            } else {
                None
            };
            (verdict, stats, realizable)
        }
    };
    if let Verdict::Violation(w) = &verdict {
        verify(trace, w).map_err(DecideError::Unverified)?;
    }
    let verdict = match verdict {
        Verdict::Unknown(_) if budget.stop.cancelled() || budget.stop.over_memory() => {
            Verdict::Unknown(budget.stop.why())
        }
        v => v,
    };
    Ok(Decision {
        verdict,
        realizable,
        stats,
        seconds: started.elapsed().as_secs_f64(),
    })
}
