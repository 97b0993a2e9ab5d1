//! Schedules as text, and their replay: a run's steps described, its events with
//! reads-from and commit orders (the happens-before of [`super::robust`]).

use super::machine::{Effect, Machine, Settled, State, Step};
use crate::program::Program;

/// Describes a step of a run from state s (before it), for schedules.
pub fn describe_step(m: &Machine, s: &State, step: Step) -> String {
    let p = m.p;
    match step {
        Step::Exec(t) => format!(
            "{}: {}",
            p.threads[t].name,
            p.show_instr(t, s.pc[t] as usize)
        ),
        Step::Choose(t, v) => format!(
            "{}: {} → {v}",
            p.threads[t].name,
            p.show_instr(t, s.pc[t] as usize)
        ),
        Step::Commit(t, x) => {
            let v = s.buf[t].iter().find(|e| e.0 == x).map_or(0, |e| e.1);
            format!("{}: commit [{}] = {v}", p.threads[t].name, p.locs[x])
        }
    }
}

/// A schedule as text: `P0 P1=3 c:P0:x …` (`c:` marks a commit, `=v` the value a
/// `nondet` takes); [`parse_schedule`] reads it back.
pub fn schedule_text(p: &Program, steps: &[Step]) -> String {
    steps
        .iter()
        .map(|s| match s {
            Step::Exec(t) => p.threads[*t].name.clone(),
            Step::Choose(t, v) => format!("{}={v}", p.threads[*t].name),
            Step::Commit(t, x) => format!("c:{}:{}", p.threads[*t].name, p.locs[*x]),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Why a schedule's text (`--replay`) does not read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ScheduleError {
    #[error("unknown thread `{0}` in the schedule")]
    UnknownThread(String),
    #[error("`{0}`: a commit is `c:THREAD:LOCATION`")]
    NotACommit(String),
    #[error("unknown location `{0}` in the schedule")]
    UnknownLocation(String),
    #[error("`{0}`: a `nondet` step is `THREAD=VALUE`")]
    NotAValue(String),
}

/// Why a schedule does not replay; steps are numbered from 1.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum NotReplayable {
    #[error("step {step} comes after the run ended")]
    AfterTheEnd { step: usize },
    #[error("step {step} (`{text}`) is not enabled")]
    NotEnabled { step: usize, text: String },
    /// A robustness witness whose run has no happens-before cycle.
    #[error("the run's happens-before is acyclic")]
    Acyclic,
}

/// Reads a schedule written by [`schedule_text`].
pub fn parse_schedule(p: &Program, text: &str) -> Result<Vec<Step>, ScheduleError> {
    text.split_whitespace()
        .map(|w| {
            let th = |n: &str| {
                p.thread_ix(n)
                    .ok_or_else(|| ScheduleError::UnknownThread(n.to_string()))
            };
            match w.strip_prefix("c:") {
                Some(rest) => {
                    let (t, x) = rest
                        .split_once(':')
                        .ok_or_else(|| ScheduleError::NotACommit(w.to_string()))?;
                    let x = p
                        .locs
                        .iter()
                        .position(|l| l == x)
                        .ok_or_else(|| ScheduleError::UnknownLocation(x.to_string()))?;
                    Ok(Step::Commit(th(t)?, x))
                }
                None => match w.split_once('=') {
                    Some((t, v)) => {
                        let v = v
                            .parse()
                            .map_err(|_| ScheduleError::NotAValue(w.to_string()))?;
                        Ok(Step::Choose(th(t)?, v))
                    }
                    None => Ok(Step::Exec(th(w)?)),
                },
            }
        })
        .collect()
}

/// One event of a replayed run, with its happens-before sources.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunEvent {
    /// The index of the step that issued it.
    pub step: usize,
    pub effect: Effect,
    /// For loads and rmws: the event of the write read (None: the initial value).
    pub rf: Option<usize>,
    /// For stores and rmws: the step at which it reached memory (its issue under SC
    /// and for rmws, its commit when buffered; None while still in the buffer).
    pub committed: Option<usize>,
    /// The transaction (per thread, 1-based count) when inside `begin … end`.
    pub txn: Option<u32>,
    pub text: String,
}

/// A replayed run: its events (stores at issue) and the commit order of each location.
#[derive(Clone, Debug, Default)]
pub struct Run {
    pub events: Vec<RunEvent>,
    pub co: Vec<Vec<usize>>,
    /// The state after the run.
    pub end: Option<State>,
    /// How the last step (or, with none, the initial register-only steps) settled.
    pub stop: Option<Settled>,
    /// Each step described from the state before it (commits included).
    pub steps: Vec<String>,
}

/// A run's events, reads-from and commit orders, built from its effects in order.
pub struct RunBuilder {
    run: Run,
    /// The event of each buffered store (aligned with the machine's buffers).
    pending: Vec<Vec<usize>>,
    /// The event of each location's value in memory.
    latest: Vec<Option<usize>>,
}

impl RunBuilder {
    pub fn new(m: &Machine) -> Self {
        RunBuilder {
            run: Run {
                co: vec![Vec::new(); m.p.locs.len()],
                ..Run::default()
            },
            pending: vec![Vec::new(); m.p.threads.len()],
            latest: vec![None; m.p.locs.len()],
        }
    }

    /// The effect of step number `step` (a commit adds no event: it orders its store).
    pub fn push(&mut self, step: usize, eff: Effect, txn: Option<u32>, text: String) {
        let t = eff.thread();
        let id = self.run.events.len();
        let mut rf = None;
        let mut committed = None;
        match eff {
            Effect::Load { x, forwarded, .. } => {
                rf = match forwarded {
                    Some(k) => Some(self.pending[t][k]),
                    None => self.latest[x],
                };
            }
            Effect::Store { x, buffered, .. } => {
                if !buffered {
                    self.run.co[x].push(id);
                    self.latest[x] = Some(id);
                    committed = Some(step);
                } else {
                    self.pending[t].push(id);
                }
            }
            Effect::Rmw { x, .. } => {
                rf = self.latest[x];
                self.run.co[x].push(id);
                self.latest[x] = Some(id);
                committed = Some(step);
            }
            Effect::Commit { x, index, .. } => {
                let w = self.pending[t].remove(index);
                self.run.co[x].push(w);
                self.latest[x] = Some(w);
                self.run.events[w].committed = Some(step);
                return;
            }
            Effect::Fence { .. } | Effect::Join { .. } | Effect::Spawn { .. } => {}
            // A choice touches no memory: no event.
            Effect::Choose { .. } => return,
        }
        self.run.events.push(RunEvent {
            step,
            effect: eff,
            rf,
            committed,
            txn,
            text,
        });
    }

    /// The run (its `end` state unset).
    pub fn finish(self) -> Run {
        self.run
    }
}

/// Replays `steps` from the initial state; Err names the first step that is not enabled.
pub fn replay(m: &Machine, steps: &[Step]) -> Result<Run, NotReplayable> {
    replay_with(m, steps, true)
}

/// [`replay`] without the steps' and events' text (left empty): for deciding, not showing.
pub fn replay_bare(m: &Machine, steps: &[Step]) -> Result<Run, NotReplayable> {
    replay_with(m, steps, false)
}

fn replay_with(m: &Machine, steps: &[Step], describe: bool) -> Result<Run, NotReplayable> {
    // The register-only steps may end the run before any step (an `assert 0` first).
    let (mut s, mut last) = m.initial();
    let mut run = RunBuilder::new(m);
    for (i, &step) in steps.iter().enumerate() {
        if last != Settled::Ok {
            return Err(NotReplayable::AfterTheEnd { step: i + 1 });
        }
        if !m.is_enabled(&s, step) {
            return Err(NotReplayable::NotEnabled {
                step: i + 1,
                text: schedule_text(m.p, &[step]),
            });
        }
        let text = if describe {
            let text = describe_step(m, &s, step);
            run.run.steps.push(text.clone());
            text
        } else {
            String::new()
        };
        let t = step.thread();
        let txn = (s.depth[t] > 0).then_some(s.txns[t]);
        let (eff, st) = m.apply(&mut s, step);
        last = st;
        run.push(i, eff, txn, text);
    }
    let mut run = run.run;
    run.end = Some(s);
    run.stop = Some(last);
    Ok(run)
}
