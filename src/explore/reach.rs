//! `explore --engine reach`: breadth-first search over the reachable states, with no
//! loop bound. A loop is followed until its states repeat, so a program whose state
//! space is finite is explored completely however long its runs: a spin loop that
//! waits forever is a cycle of states, not a cut run. The first assertion failure found
//! has a shortest schedule (fewest steps). Outcomes are counted as distinct final
//! states, not runs: with cycles there can be infinitely many runs. A program that
//! bounds its own loops (`bound`, [`crate::program::Program::loop_bound`]) still stops
//! at those bounds.

use super::machine::{Machine, Settled, State, Step, MAX_BUFFER, UNBOUNDED};
use super::states::{Config, Exploration, Failure, Incomplete};
use crate::program::{Program, Val};
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::collections::VecDeque;
use std::rc::Rc;

/// Every state of `p` reachable under `c.model` (`c.unroll` is not used), within the
/// budgets of `c`.
pub fn reach(p: &Program, c: &Config) -> Exploration {
    let m = Machine::new(p, c.model, UNBOUNDED);
    let places = p.observed();
    let mut x = Reach {
        m: &m,
        seen: HashSet::default(),
        links: Vec::new(),
        queue: VecDeque::new(),
        outcomes: HashMap::default(),
        failure: None,
        cut: 0,
        cut_at: Vec::new(),
        bound: 0,
        incomplete: None,
        bytes: 0,
        nondet_cut: None,
    };
    let (s0, st) = m.initial();
    if x.settled(st, None, 0) {
        x.visit(s0, None, 0, c);
    }
    let mut ticks = 0u32;
    let mut steps = Vec::new();
    while let Some((s, at)) = x.queue.pop_front() {
        ticks = ticks.wrapping_add(1);
        if ticks.is_multiple_of(64) && c.expired() {
            x.incomplete.get_or_insert(Incomplete::Timeout);
        }
        if x.incomplete.is_some_and(|i| i != Incomplete::Spin) {
            break;
        }
        if m.is_final(&s) {
            *x.outcomes.entry(m.observe(&s, &places)).or_insert(0) += 1;
            continue;
        }
        m.enabled(&s, &mut steps);
        for &step in &steps {
            let mut s2 = (*s).clone();
            let (eff, st) = m.apply(&mut s2, step);
            if x.nondet_cut.is_none() {
                x.nondet_cut = m.cut_line(&s, eff);
            }
            if x.settled(st, Some(step), at) {
                x.visit(s2, Some(step), at, c);
            }
        }
    }
    let mut outcomes: Vec<(Vec<Val>, u64)> = x.outcomes.into_iter().collect();
    outcomes.sort();
    Exploration {
        model: c.model,
        places,
        outcomes,
        states: x.seen.len(),
        complete: x.incomplete.is_none(),
        incomplete: x.incomplete,
        failure: x.failure,
        cut: x.cut,
        cut_at: x.cut_at,
        bound: x.bound,
        nondet_cut: x.nondet_cut,
    }
}

struct Reach<'a, 'p> {
    m: &'a Machine<'p>,
    seen: HashSet<Rc<State>>,
    /// Per visited state, in visiting order: its parent's index and the step from it.
    links: Vec<(usize, Option<Step>)>,
    /// States to expand, with their index in `links`.
    queue: VecDeque<(Rc<State>, usize)>,
    /// Distinct final states per outcome.
    outcomes: HashMap<Vec<Val>, u64>,
    failure: Option<Failure>,
    cut: u64,
    cut_at: Vec<Failure>,
    /// Steps that stopped at a false `bound` (a C loop's per-entry bound, an
    /// exhausted heap pool).
    bound: u64,
    incomplete: Option<Incomplete>,
    bytes: usize,
    /// The line of the first cut `nondet` reached.
    nondet_cut: Option<usize>,
}

impl Reach<'_, '_> {
    /// The schedule to the state at `at`, then `step`.
    fn schedule(&self, step: Option<Step>, at: usize) -> Vec<Step> {
        let mut out: Vec<Step> = step.into_iter().collect();
        let mut cur = at;
        while let Some(&(parent, Some(s))) = self.links.get(cur) {
            out.push(s);
            cur = parent;
        }
        out.reverse();
        out
    }

    /// Records how a step settled; whether its state goes on.
    fn settled(&mut self, st: Settled, step: Option<Step>, at: usize) -> bool {
        let stop = |t: usize, pc: usize, schedule| Failure {
            thread: t,
            pc,
            line: self.m.p.threads[t].lines[pc],
            schedule,
        };
        match st {
            Settled::Ok => return true,
            Settled::Failed(t, pc) if self.failure.is_none() => {
                self.failure = Some(stop(t, pc, self.schedule(step, at)));
            }
            Settled::Failed(..) => {}
            Settled::Cut(t, pc) => {
                self.cut += 1;
                if !self.cut_at.iter().any(|c| (c.thread, c.pc) == (t, pc)) {
                    let f = stop(t, pc, self.schedule(step, at));
                    self.cut_at.push(f);
                }
            }
            // No unrolling bound: only the program's own `bound` stops a run here.
            Settled::Bound => self.bound += 1,
            Settled::Spin => {
                self.incomplete.get_or_insert(Incomplete::Spin);
            }
        }
        false
    }

    /// A state reached by `step` from the state at `at`: queued unless seen.
    fn visit(&mut self, s: State, step: Option<Step>, at: usize, c: &Config) {
        if s.buf.iter().any(|b| b.len() > MAX_BUFFER) {
            self.incomplete.get_or_insert(Incomplete::BufferLimit);
            return;
        }
        if self.seen.contains(&s) {
            return;
        }
        if self.seen.len() >= c.max_states {
            self.incomplete.get_or_insert(Incomplete::MaxStates);
            return;
        }
        // The state (in the set and the queue, shared), its link and the slots.
        let size = s.bytes() + 64;
        if self.bytes + size > c.max_memory {
            self.incomplete.get_or_insert(Incomplete::Memory);
            return;
        }
        self.bytes += size;
        let s = Rc::new(s);
        self.seen.insert(s.clone());
        self.links.push((at, step));
        self.queue.push_back((s, self.links.len() - 1));
    }
}
