//! Every run of a program explored with state memoisation: the outcomes, the first
//! assertion failure (depth-first), where runs are cut, within a budget.

use super::machine::{Machine, Model, Settled, State, Step, MAX_BUFFER};
use crate::program::*;
use rustc_hash::FxHashMap as HashMap;

/// The bounds of an exploration, in one place (a builder): the model, the unrolling
/// bound, and the budgets past which the answer is *unknown* with its cause.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    pub model: Model,
    /// Times a backward branch may be taken per thread before the run is cut.
    pub unroll: u32,
    /// Distinct states (with the robustness search: state–frontier pairs).
    pub max_states: usize,
    /// Executions the DPOR engine may explore ([`super::dpor`]).
    pub max_executions: u64,
    /// Bytes the search may hold ([`crate::mem::default_room`] by default).
    pub max_memory: usize,
    /// When the searches stop with *unknown*, polled cooperatively.
    pub deadline: Option<std::time::Instant>,
    /// The DPOR engine ends the exploration with the first execution in which an
    /// assertion fails, as Nidhugg does ([`Incomplete::StoppedAtFailure`]).
    pub stop_at_failure: bool,
}

impl Config {
    /// `model` with the unrolling bound 4, 2·10⁶ states and the default memory budget.
    pub fn new(model: Model) -> Config {
        Config {
            model,
            unroll: 4,
            max_states: 2_000_000,
            max_executions: 10_000_000,
            max_memory: crate::mem::default_room(),
            deadline: None,
            stop_at_failure: false,
        }
    }
    pub fn stop_at_failure(self, stop_at_failure: bool) -> Config {
        Config {
            stop_at_failure,
            ..self
        }
    }
    pub fn deadline(self, deadline: Option<std::time::Instant>) -> Config {
        Config { deadline, ..self }
    }
    /// Whether the deadline has passed.
    pub fn expired(&self) -> bool {
        self.deadline
            .is_some_and(|d| std::time::Instant::now() >= d)
    }
    pub fn unroll(self, unroll: u32) -> Config {
        Config { unroll, ..self }
    }
    pub fn max_states(self, max_states: usize) -> Config {
        Config { max_states, ..self }
    }
    pub fn max_executions(self, max_executions: u64) -> Config {
        Config {
            max_executions,
            ..self
        }
    }
    pub fn max_memory(self, max_memory: usize) -> Config {
        Config { max_memory, ..self }
    }
}

/// Why an exploration (or robustness search) did not finish: its answer is unknown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Incomplete {
    /// As many distinct states as [`Config`] allows (`max_states`).
    MaxStates,
    /// A store buffer grew past [`MAX_BUFFER`] entries (a loop of stores).
    BufferLimit,
    /// A register-only loop ran [`super::machine::MAX_LOCAL_STEPS`] steps without a
    /// memory access.
    Spin,
    /// The states held passed the memory budget.
    Memory,
    /// As many executions as [`Config`] allows (`max_executions`; the DPOR engine).
    MaxExecutions,
    /// The deadline passed.
    Timeout,
    /// The robustness search's frontier matrix is full ([`super::robust::TooMany`]).
    Frontier,
    /// The DPOR engine stopped after the first execution with a failed assertion
    /// ([`Config::stop_at_failure`]).
    StoppedAtFailure,
}

/// An assertion failure with the run that reaches it; also where runs are cut (a
/// false `assume`, a `lock` found taken) with the first run cut there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    pub thread: usize,
    pub pc: usize,
    pub line: usize,
    pub schedule: Vec<Step>,
}

/// The result of exploring every run.
#[derive(Clone, Debug)]
pub struct Exploration {
    pub model: Model,
    /// The places each outcome lists.
    pub places: Vec<Place>,
    /// Each final outcome with the number of runs reaching it, sorted by values.
    pub outcomes: Vec<(Vec<Val>, u64)>,
    /// Distinct states visited.
    pub states: usize,
    /// Whether the exploration finished within the budget (else the answers are partial).
    pub complete: bool,
    /// Why it did not finish (the first cause met).
    pub incomplete: Option<Incomplete>,
    /// The first assertion failure found (depth-first), if any.
    pub failure: Option<Failure>,
    /// Runs cut by `assume` (or a `lock` found taken).
    pub cut: u64,
    /// Each instruction that cut a run, with the first run cut there (schedule order).
    pub cut_at: Vec<Failure>,
    /// Runs cut by the unrolling bound: when not 0, "complete" means complete up to
    /// the bound.
    pub bound: u64,
    /// The line of the first `nondet` reached whose range is cut: when set, "complete"
    /// means complete for the values in the ranges.
    pub nondet_cut: Option<usize>,
}

impl Exploration {
    /// Whether the final condition holds (None without one, or when incomplete and the
    /// outcomes seen do not settle it).
    pub fn condition(&self, p: &Program) -> Option<bool> {
        let f = p.final_cond.as_ref()?;
        let sat = |vals: &Vec<Val>| {
            f.cond.eval(&|pl: &Place| {
                let i = self.places.iter().position(|q| q == pl).expect("observed");
                vals[i]
            })
        };
        let any = self.outcomes.iter().any(|(v, _)| sat(v));
        let all = self.outcomes.iter().all(|(v, _)| sat(v));
        match f.quantifier {
            Quantifier::Exists if any => Some(true),
            Quantifier::NotExists if any => Some(false),
            Quantifier::Forall if !all => Some(false),
            _ if !self.complete => None,
            Quantifier::Exists => Some(false),
            Quantifier::NotExists => Some(true),
            Quantifier::Forall => Some(true),
        }
    }
}

/// Explores every run of `p` within the bounds of `c`.
pub fn explore(p: &Program, c: &Config) -> Exploration {
    let (model, max_states) = (c.model, c.max_states);
    let m = Machine::new(p, model, c.unroll);
    let places = p.observed();
    let mut x = Explorer {
        m: &m,
        places: &places,
        memo: HashMap::default(),
        outcome_ix: HashMap::default(),
        outcome_vals: Vec::new(),
        path: Vec::new(),
        failure: None,
        max_states,
        max_memory: c.max_memory,
        config: c,
        bytes: 0,
        opened: 0,
        incomplete: None,
        cut: 0,
        cut_at: Vec::new(),
        bound: 0,
        nondet_cut: None,
    };
    let (s, st) = m.initial();
    let root = x.visit_settled(s, st);
    let mut outcomes: Vec<(Vec<Val>, u64)> = root
        .iter()
        .map(|&(o, n)| (x.outcome_vals[o as usize].clone(), n))
        .collect();
    outcomes.sort();
    let (states, incomplete, failure) = (x.memo.len(), x.incomplete, x.failure);
    let (cut, bound, cut_at, nondet_cut) = (x.cut, x.bound, x.cut_at, x.nondet_cut);
    Exploration {
        model,
        places,
        outcomes,
        states,
        complete: incomplete.is_none(),
        incomplete,
        failure,
        cut,
        cut_at,
        bound,
        nondet_cut,
    }
}

/// Run counts per outcome id.
type Counts = std::rc::Rc<Vec<(u32, u64)>>;

struct Explorer<'a, 'p> {
    m: &'a Machine<'p>,
    places: &'a [Place],
    memo: HashMap<State, Counts>,
    outcome_ix: HashMap<Vec<Val>, u32>,
    outcome_vals: Vec<Vec<Val>>,
    path: Vec<Step>,
    failure: Option<Failure>,
    max_states: usize,
    max_memory: usize,
    config: &'a Config,
    /// Bytes held by the memo table (states and their counts).
    bytes: usize,
    /// States entered (explored or on the stack).
    opened: usize,
    incomplete: Option<Incomplete>,
    cut: u64,
    cut_at: Vec<Failure>,
    bound: u64,
    nondet_cut: Option<usize>,
}

impl Explorer<'_, '_> {
    /// The run counts from a settled state: depth-first with an explicit stack (runs
    /// can be as long as the unrolling bound allows), each state's counts memoised.
    fn visit_settled(&mut self, s: State, st: Settled) -> Counts {
        let first = match self.enter(s, st) {
            Entered::Done(c) => return c,
            Entered::Open(f) => f,
        };
        let mut stack = vec![first];
        let mut ticks = 0u32;
        loop {
            ticks = ticks.wrapping_add(1);
            if ticks.is_multiple_of(1024) && self.config.expired() {
                self.incomplete.get_or_insert(Incomplete::Timeout);
            }
            let top = stack.last_mut().expect("a frame is open");
            // Past the state or memory budget, or the deadline, the answer is unknown:
            // unwind at once, so the budget bounds the work too (each open frame would
            // try all its steps).
            if matches!(
                self.incomplete,
                Some(Incomplete::MaxStates | Incomplete::Memory | Incomplete::Timeout)
            ) {
                top.next = top.steps.len();
            }
            let done = if let Some(&step) = top.steps.get(top.next) {
                top.next += 1;
                let mut next = top.s.clone();
                let (eff, st) = self.m.apply(&mut next, step);
                if self.nondet_cut.is_none() {
                    self.nondet_cut = self.m.cut_line(&top.s, eff);
                }
                self.path.push(step);
                match self.enter(next, st) {
                    Entered::Done(c) => c,
                    Entered::Open(f) => {
                        stack.push(f);
                        continue;
                    }
                }
            } else {
                let f = stack.pop().expect("a frame is open");
                let c = Counts::new(f.acc);
                self.memo.insert(f.s, c.clone());
                if stack.is_empty() {
                    return c;
                }
                c
            };
            self.path.pop();
            let acc = &mut stack.last_mut().expect("a parent frame").acc;
            for &(o, n) in done.iter() {
                match acc.iter_mut().find(|e| e.0 == o) {
                    Some(e) => e.1 = e.1.saturating_add(n),
                    None => acc.push((o, n)),
                }
            }
        }
    }

    /// A state reached by a step: its counts when known at once (memoised, final, cut,
    /// failed, over budget), else a frame to explore its successors.
    fn enter(&mut self, s: State, st: Settled) -> Entered {
        match st {
            Settled::Ok => {}
            Settled::Cut(t, pc) => {
                self.cut += 1;
                if !self.cut_at.iter().any(|c| (c.thread, c.pc) == (t, pc)) {
                    self.cut_at.push(Failure {
                        thread: t,
                        pc,
                        line: self.m.p.threads[t].lines[pc],
                        schedule: self.path.clone(),
                    });
                }
                return Entered::Done(Counts::default());
            }
            Settled::Bound => {
                self.bound += 1;
                return Entered::Done(Counts::default());
            }
            Settled::Spin => {
                self.incomplete.get_or_insert(Incomplete::Spin);
                return Entered::Done(Counts::default());
            }
            Settled::Failed(t, pc) => {
                if self.failure.is_none() {
                    self.failure = Some(Failure {
                        thread: t,
                        pc,
                        line: self.m.p.threads[t].lines[pc],
                        schedule: self.path.clone(),
                    });
                }
                return Entered::Done(Counts::default());
            }
        }
        if let Some(c) = self.memo.get(&s) {
            return Entered::Done(c.clone());
        }
        // The budget counts the states on the stack too; a buffer past the bound leaves
        // the answer unknown rather than growing without end (a loop of stores).
        if s.buf.iter().any(|b| b.len() > MAX_BUFFER) {
            self.incomplete.get_or_insert(Incomplete::BufferLimit);
            return Entered::Done(Counts::default());
        }
        if self.opened >= self.max_states {
            self.incomplete.get_or_insert(Incomplete::MaxStates);
            return Entered::Done(Counts::default());
        }
        // Each memo entry: the state, its counts and the table's own slot (≈ 64 bytes).
        self.bytes += s.bytes() + 64;
        if self.bytes > self.max_memory {
            self.incomplete.get_or_insert(Incomplete::Memory);
            return Entered::Done(Counts::default());
        }
        self.opened += 1;
        if self.m.is_final(&s) {
            let vals = self.m.observe(&s, self.places);
            let n = self.outcome_vals.len() as u32;
            let id = *self.outcome_ix.entry(vals.clone()).or_insert(n);
            if id == n {
                self.outcome_vals.push(vals);
            }
            let c = Counts::new(vec![(id, 1)]);
            self.memo.insert(s, c.clone());
            return Entered::Done(c);
        }
        let mut steps = Vec::new();
        self.m.enabled(&s, &mut steps);
        Entered::Open(Box::new(Frame {
            s,
            steps,
            next: 0,
            acc: Vec::new(),
        }))
    }
}

/// A state being explored: its successors' steps, the next to take, the counts so far.
struct Frame {
    s: State,
    steps: Vec<Step>,
    next: usize,
    acc: Vec<(u32, u64)>,
}

enum Entered {
    Done(Counts),
    Open(Box<Frame>),
}
