//! Every run of a program (docs/semantics.md §7) under SC, TSO or PSO, by one of two
//! engines behind one trait ([`Engine`]), and what a run shows.
//!
//! - [`machine`]: the transition system — states, steps, store buffers.
//! - [`states`]: every run explored with state memoisation and a budget.
//! - [`dpor`]: the same answers by source-DPOR over chronological traces (Abdulla et al.).
//! - [`reach`]: every reachable state by breadth-first search, with no loop bound.
//! - [`robust`]: robustness — a TSO/PSO run whose happens-before has a cycle.
//! - [`replay`]: schedules as text and their replay, step by step.
//! - [`traces`]: runs as traces and as runs with values, for the other commands.
//! - [`suite`]: a directory of litmus tests against expected verdicts.
//!
//! [`run`] explores a program with the engine chosen and checks every piece of
//! evidence it returns ([`Report`]); printing it is `crate::output`'s.

pub mod dpor;
pub mod machine;
pub mod reach;
pub mod replay;
pub mod robust;
pub mod states;
pub mod suite;
pub mod traces;

pub use machine::Model;
pub use states::{Config, Exploration, Incomplete};

use crate::program::{Instr, Program, Quantifier};
use dpor::{explore_dpor, DporStats};
use machine::{Effect, Machine, Step};
use replay::Run;
use robust::{check_witness, Cycle, Robustness};
use states::Failure;

/// What an engine found besides its answers.
#[derive(Clone, Debug)]
pub struct Explored {
    pub exploration: Exploration,
    /// The DPOR engine's counts.
    pub dpor: Option<DporStats>,
}

/// An exploration engine: every run's outcomes, and robustness.
pub trait Engine {
    /// Every run of `p` within the bounds of `c`.
    fn explore(&self, p: &Program, c: &Config) -> Explored;
    /// Whether every run of `p` under `c.model` is SC, with a run whose happens-before
    /// has a cycle when not.
    fn robustness(&self, p: &Program, c: &Config) -> Robustness;
    /// Both; an engine that finds both in one pass answers with that pass.
    fn explore_robust(&self, p: &Program, c: &Config) -> (Explored, Robustness) {
        (self.explore(p, c), self.robustness(p, c))
    }
}

/// Every interleaving, states memoised ([`states`], [`robust`]).
pub struct States;

impl Engine for States {
    fn explore(&self, p: &Program, c: &Config) -> Explored {
        Explored {
            exploration: states::explore(p, c),
            dpor: None,
        }
    }

    fn robustness(&self, p: &Program, c: &Config) -> Robustness {
        // Too wide for the frontier matrix: robustness stays unknown.
        robust::robust(p, c).unwrap_or(Robustness {
            robust: None,
            witness: None,
            states: 0,
            incomplete: Some(Incomplete::Frontier),
        })
    }
}

/// Source-DPOR over chronological traces ([`dpor`]); robustness checks each
/// execution's run in the same pass.
pub struct Dpor;

impl Engine for Dpor {
    fn explore(&self, p: &Program, c: &Config) -> Explored {
        let d = explore_dpor(p, c, false);
        Explored {
            exploration: d.exploration,
            dpor: Some(d.stats),
        }
    }

    fn robustness(&self, p: &Program, c: &Config) -> Robustness {
        self.explore_robust(p, c).1
    }

    fn explore_robust(&self, p: &Program, c: &Config) -> (Explored, Robustness) {
        let d = explore_dpor(p, c, true);
        let explored = Explored {
            exploration: d.exploration,
            dpor: Some(d.stats),
        };
        (explored, d.robustness.expect("asked for"))
    }
}

/// Every reachable state by breadth-first search, with no loop bound ([`reach`]);
/// robustness by the same search over (state, frontier) pairs ([`robust`]), unbounded.
pub struct Reach;

impl Engine for Reach {
    fn explore(&self, p: &Program, c: &Config) -> Explored {
        Explored {
            exploration: reach::reach(p, c),
            dpor: None,
        }
    }

    fn robustness(&self, p: &Program, c: &Config) -> Robustness {
        States.robustness(p, &c.unroll(machine::UNBOUNDED))
    }
}

/// Which engine explores.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum EngineKind {
    #[default]
    States,
    Dpor,
    Reach,
}

impl EngineKind {
    pub fn name(self) -> &'static str {
        match self {
            EngineKind::States => "states",
            EngineKind::Dpor => "dpor",
            EngineKind::Reach => "reach",
        }
    }

    /// The engine.
    pub fn engine(self) -> &'static dyn Engine {
        match self {
            EngineKind::States => &States,
            EngineKind::Dpor => &Dpor,
            EngineKind::Reach => &Reach,
        }
    }

    /// Whether it follows loops without a bound (its runs are never cut by one).
    pub fn unbounded(self) -> bool {
        self == EngineKind::Reach
    }
}

/// Options of an exploration.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// The model and the bounds.
    pub config: Config,
    /// Also decide robustness (TSO/PSO).
    pub robustness: bool,
    pub engine: EngineKind,
    /// Whether a program's own bound (`unroll N`) replaces `config.unroll` (when the
    /// user gave none).
    pub program_unroll: bool,
}

impl Options {
    /// The options for `p`: its own unrolling bound when it has one and
    /// `program_unroll` allows.
    pub fn for_program(self, p: &Program) -> Options {
        match (self.program_unroll, p.unroll) {
            (true, Some(u)) => Options {
                config: self.config.unroll(u),
                ..self
            },
            _ => self,
        }
    }
}

/// An explored program with its evidence re-checked, ready to print.
#[derive(Clone, Debug)]
pub struct Report {
    pub exploration: Exploration,
    pub robustness: Option<Robustness>,
    /// The robustness witness replayed, with its happens-before cycle re-checked.
    pub witness: Option<(Run, Cycle)>,
    /// The assertion failure's schedule replayed.
    pub failure: Option<Run>,
    /// Robustness found no cycle, but only over runs cut short (by the unrolling bound,
    /// or no run completes): the answer is unknown.
    pub robust_cut: bool,
    /// A thread that takes a lock it holds itself: it waits forever.
    pub deadlock: Option<Deadlock>,
    /// No run completes and no assertion fails (`exploration.cut_at` says where they stop).
    pub no_run: bool,
    /// The dpor engine's counts.
    pub dpor: Option<DporStats>,
    /// The unrolling bound the exploration used (None: the reach engine, which has none,
    /// or a program that bounds its loops itself, [`Program::loop_bound`]).
    pub unroll: Option<u32>,
    pub engine: EngineKind,
}

/// A self-deadlock: `thread` takes, at instruction `pc` (on `line`), a lock it took
/// itself at `held_since` and has not released; the run `schedule` reaches it.
#[derive(Clone, Debug)]
pub struct Deadlock {
    pub thread: usize,
    pub pc: usize,
    pub line: usize,
    pub held_since: usize,
    pub schedule: Vec<Step>,
    /// The schedule replayed.
    pub run: Run,
}

/// What a report found, as a whole.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// An assertion fails, a thread deadlocks on its own lock, or a run is not robust.
    Violation,
    /// None of those found, but the exploration or the robustness search did not
    /// finish, or searched cut runs only.
    Unknown,
    /// Every run explored; nothing found.
    Clean,
}

impl Report {
    /// Whether every run is SC, as the reports say it: unknown when searched over cut runs.
    pub fn robust(&self) -> Option<bool> {
        self.robustness
            .as_ref()
            .and_then(|r| r.robust)
            .filter(|_| !self.robust_cut)
    }

    pub fn status(&self) -> Status {
        let not_robust = self
            .robustness
            .as_ref()
            .is_some_and(|r| r.robust == Some(false));
        let unknown = !self.exploration.complete
            || self.robust_cut
            || self.robustness.as_ref().is_some_and(|r| r.robust.is_none());
        if self.exploration.failure.is_some() || self.deadlock.is_some() || not_robust {
            Status::Violation
        } else if unknown {
            Status::Unknown
        } else {
            Status::Clean
        }
    }
}

/// Why [`run`] could not report.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RunError {
    /// The robustness witness does not re-check: a bug of the search.
    #[error("internal error: the robustness witness does not re-check: {0}")]
    Witness(replay::NotReplayable),
    /// A schedule the exploration returned does not replay.
    #[error("{0}")]
    Replay(replay::NotReplayable),
}

/// Explores `p` with the engine of `o` and checks every piece of evidence.
pub fn run(p: &Program, o: Options) -> Result<Report, RunError> {
    // The reach engine follows loops without a bound: so do the replays below.
    let c = &match o.engine.unbounded() {
        true => o.config.unroll(machine::UNBOUNDED),
        false => o.config,
    };
    let engine = o.engine.engine();
    let (explored, robustness) = if o.robustness && c.model != Model::Sc {
        let (e, r) = engine.explore_robust(p, c);
        (e, Some(r))
    } else {
        (engine.explore(p, c), None)
    };
    let Explored { exploration, dpor } = explored;
    let m = Machine::new(p, c.model, c.unroll);
    let witness = match robustness.as_ref().and_then(|r| r.witness.as_ref()) {
        Some(w) => Some(check_witness(p, c.model, c.unroll, w).map_err(RunError::Witness)?),
        None => None,
    };
    let deadlock = exploration
        .cut_at
        .iter()
        .find_map(|f| Some((f, self_held(&m, f)?)));
    let deadlock = match deadlock {
        None => None,
        Some((f, held_since)) => Some(Deadlock {
            thread: f.thread,
            pc: f.pc,
            line: f.line,
            held_since,
            schedule: f.schedule.clone(),
            run: replay::replay(&m, &f.schedule).map_err(RunError::Replay)?,
        }),
    };
    let no_run =
        exploration.complete && exploration.outcomes.is_empty() && exploration.failure.is_none();
    // A robustness search over cut runs only sees them up to the cut: not a "yes".
    let robust_cut = robustness.as_ref().is_some_and(|r| r.robust == Some(true))
        && (exploration.bound > 0
            || exploration.nondet_cut.is_some()
            || exploration.outcomes.is_empty());
    let failure = match &exploration.failure {
        Some(f) => Some(replay::replay(&m, &f.schedule).map_err(RunError::Replay)?),
        None => None,
    };
    Ok(Report {
        exploration,
        robustness,
        witness,
        failure,
        robust_cut,
        deadlock,
        no_run,
        dpor,
        unroll: (!o.engine.unbounded() && p.loop_bound.is_none()).then_some(c.unroll),
        engine: o.engine,
    })
}

/// If the cut `c` is a `lock` its own thread holds (its last write in memory is that
/// thread's `lock`, which found it free): the line of that `lock`.
fn self_held(m: &Machine, c: &Failure) -> Option<usize> {
    if !matches!(m.p.threads[c.thread].code[c.pc], Instr::Lock(_)) {
        return None;
    }
    let (mut s, _) = m.initial();
    // Per location, the last write in memory: (thread, line, a `lock` taking it).
    let mut last: Vec<Option<(usize, usize, bool)>> = vec![None; m.p.locs.len()];
    // Per thread, the lines of its buffered stores (aligned with its buffer).
    let mut buffered: Vec<Vec<usize>> = vec![Vec::new(); m.p.threads.len()];
    for (i, &step) in c.schedule.iter().enumerate() {
        let here = match step {
            Step::Exec(t) | Step::Choose(t, _) => {
                let pc = s.pc[t] as usize;
                Some((m.p.threads[t].lines[pc], m.p.threads[t].code[pc]))
            }
            Step::Commit(..) => None,
        };
        let (eff, _) = m.apply(&mut s, step);
        match (eff, here) {
            (Effect::Rmw { t, x, old, .. }, Some((line, instr))) => {
                if i + 1 == c.schedule.len() {
                    return match last[x] {
                        Some((u, l, true)) if u == t && t == c.thread => Some(l),
                        _ => None,
                    };
                }
                last[x] = Some((t, line, matches!(instr, Instr::Lock(_)) && old == 0));
            }
            (
                Effect::Store {
                    t, buffered: true, ..
                },
                Some((line, _)),
            ) => buffered[t].push(line),
            (Effect::Store { t, x, .. }, Some((line, _))) => last[x] = Some((t, line, false)),
            (Effect::Commit { t, x, index }, _) => {
                let line = buffered[t].remove(index);
                last[x] = Some((t, line, false));
            }
            _ => {}
        }
    }
    None
}

/// The litmus test's own answer for this model (`with tso: ~exists;`), and whether
/// the exploration agrees (the condition is then an `exists` condition).
pub fn stated(p: &Program, e: &Exploration) -> Option<(Quantifier, Option<bool>)> {
    let (_, q) = p.expect.iter().find(|(m, _)| m == e.model.name())?;
    let reachable = e.condition(p);
    let agrees = reachable.map(|r| r == (*q == Quantifier::Exists));
    Some((*q, agrees))
}
