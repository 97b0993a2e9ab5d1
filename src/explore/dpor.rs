//! `explore --engine dpor`: source-DPOR (Abdulla, Aronis, Jonsson & Sagonas, POPL'14,
//! Algorithm 1) over the happens-before of *chronological traces* (Abdulla, Aronis,
//! Atig, Jonsson, Leonardsson & Sagonas, TACAS'15, §3 and App. 0.B–0.C), for SC, TSO
//! and PSO.
//!
//! A run is a sequence of events of *processes*: the threads and, under TSO, one
//! auxiliary process upd(t) per thread that commits t's stores in order (PSO: one
//! upd(t, x) per thread and location). Each event gets a vector clock as App. 0.B
//! computes it:
//! - a load from memory follows the last write to its location (a commit, a locked
//!   instruction, an SC store) unless that write is a commit of its own thread (no
//!   src-ct edge); a load forwarded from the buffer waits in its entry and is seen by
//!   the commits after that entry's;
//! - a commit follows its store (su), the previous write to the location (uu) and the
//!   latest load of each other thread that read the location (cf-ct);
//! - a fence (and a locked instruction, which drains the same way) follows its
//!   thread's commits (uf).
//!
//! Two events *race* when one is a direct src-ct, uu or cf-ct predecessor of the other,
//! from another process, with no event between them in happens-before. Each race adds
//! an initial of the reversed run to the backtrack set where it begins (source sets);
//! sleep sets skip what a sibling explored. Threads stopped by a false `assume` or the
//! unrolling bound are blocked (the others go on); such executions give no outcome,
//! and a failed assertion counts only when no stopped thread lies in its past (the
//! states engine drops a run at its first cut).

use super::machine::{Effect, Machine, Model, Settled, State, Step};
use super::replay::{replay_bare, RunBuilder};
use super::robust::{hb_cyclic, Robustness};
use super::states::{Config, Exploration, Failure, Incomplete};
use crate::program::{Instr, Place, Program, Val};
use rustc_hash::FxHashMap as HashMap;
use smallvec::SmallVec;

/// What the DPOR engine counts besides the exploration's answers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DporStats {
    /// Maximal executions explored (complete, cut or failed; not sleep-set blocked).
    pub executions: u64,
    /// Executions that ended with every enabled process asleep (sleep-set blocked).
    pub sleep_blocked: u64,
    /// Complete executions: every thread ran to its end (each gives an outcome).
    pub complete: u64,
    /// Maximal executions with a thread stopped by `assume` (or a `lock` found taken).
    pub cut: u64,
    /// Maximal executions with a thread stopped by the unrolling bound.
    pub bound: u64,
    /// Maximal executions with a thread stopped at a `lock` it found taken. Nidhugg's
    /// thread waits there for the unlock instead, and the run taking the lock after it
    /// is the same trace, so it counts the other executions (TACAS'15's indexer: 53
    /// executions, 34 of them stopped at a taken mutex, 19 traces).
    pub lock_waits: u64,
    /// Events executed, over all executions.
    pub events: u64,
}

/// The processes of a model: threads `0..k`, then the auxiliary committers.
#[derive(Clone, Copy)]
struct Procs {
    k: usize,
    m: usize,
    model: Model,
}

impl Procs {
    fn count(self) -> usize {
        match self.model {
            Model::Sc => self.k,
            Model::Tso => 2 * self.k,
            Model::Pso => self.k + self.k * self.m,
        }
    }

    /// The committer of thread t's stores to x.
    fn upd(self, t: usize, x: usize) -> usize {
        match self.model {
            Model::Pso => self.k + t * self.m + x,
            _ => self.k + t,
        }
    }

    /// The thread a process is, or whose stores it commits.
    fn owner(self, p: usize) -> usize {
        match (p < self.k, self.model) {
            (true, _) => p,
            (false, Model::Pso) => (p - self.k) / self.m,
            (false, _) => p - self.k,
        }
    }

    /// The step process p takes in state s, if it is enabled.
    fn step(self, s: &State, aux: &Aux, m: &Machine, p: usize) -> Option<Step> {
        self.next(s, aux, m, p).filter(|_| m.free(s, self.owner(p)))
    }

    /// [`Procs::step`], were no other thread in an exclusive block (the step a
    /// process takes next, for sleep sets).
    fn next(self, s: &State, aux: &Aux, m: &Machine, p: usize) -> Option<Step> {
        if p < self.k {
            return (aux.blocked[p].is_none() && m.ready(s, p)).then(|| m.next_step(s, p));
        }
        let t = self.owner(p);
        match self.model {
            Model::Sc => None,
            Model::Tso => s.buf[t].first().map(|&(x, _)| Step::Commit(t, x)),
            Model::Pso => {
                let x = (p - self.k) % self.m;
                s.buf[t]
                    .iter()
                    .any(|e| e.0 == x)
                    .then_some(Step::Commit(t, x))
            }
        }
    }
}

/// Why a thread stopped for good.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Block {
    /// A false `assume` (or a `lock` found taken).
    Cut,
    /// The unrolling bound.
    Bound,
    Failed,
    Spin,
}

/// An event's direct predecessors other than program order: (event, whether it can race).
type Preds = SmallVec<[(u32, bool); 8]>;
/// The earlier events an event races with.
type Races = SmallVec<[u32; 4]>;

/// An event of the current execution.
struct Event {
    proc: u32,
    /// Its number among its process's events, from 1.
    idx: u32,
    step: Step,
    effect: Effect,
    clock: Box<[u32]>,
    /// Inside an exclusive block: the event that began it. The block runs as one
    /// step, so a race with this event is reversed before the block.
    block: Option<u32>,
}

/// What the clocks need beside the machine state (App. 0.B's auxiliary configuration).
#[derive(Clone)]
struct Aux {
    /// Per process: its last event.
    last: Vec<Option<u32>>,
    /// Per thread, aligned with the machine's buffer: each store's event and the latest
    /// load forwarded from it.
    buf: Vec<Vec<(u32, Option<u32>)>>,
    /// Per location: the last write to memory, and each thread's latest load of it
    /// that memory has seen (from memory, or forwarded from an entry since committed).
    writer: Vec<Option<u32>>,
    /// Location x's, thread t's entry at x·k + t.
    readers: Vec<Option<u32>>,
    /// Per thread: why and after which of its events it stopped.
    blocked: Vec<Option<(Block, u32)>>,
    /// The event that began the exclusive block being run, if any.
    exclusive: Option<u32>,
    /// Whether a thread stopped at a `lock` it found taken.
    lock_wait: bool,
}

impl Aux {
    fn bytes(&self) -> usize {
        use crate::mem::vec_bytes;
        vec_bytes(&self.last)
            + vec_bytes(&self.buf)
            + self.buf.iter().map(vec_bytes).sum::<usize>()
            + vec_bytes(&self.writer)
            + vec_bytes(&self.readers)
            + vec_bytes(&self.blocked)
    }
}

/// A set of processes.
#[derive(Clone, Default)]
struct Procset(Vec<u64>);

impl Procset {
    fn contains(&self, p: usize) -> bool {
        self.0.get(p / 64).is_some_and(|w| w >> (p % 64) & 1 == 1)
    }
    fn insert(&mut self, p: usize) {
        if self.0.len() <= p / 64 {
            self.0.resize(p / 64 + 1, 0);
        }
        self.0[p / 64] |= 1 << (p % 64);
    }
    fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.0.iter().enumerate().flat_map(|(i, &w)| {
            (0..64)
                .filter(move |b| w >> b & 1 == 1)
                .map(move |b| i * 64 + b)
        })
    }
}

/// A point of the current execution: the state before its next event.
struct Level {
    state: State,
    aux: Aux,
    backtrack: Procset,
    sleep: Procset,
    /// A thread whose `nondet` was explored here with some of its values: the thread
    /// and the next value, taken before any other process (a `nondet` is local: each
    /// value is its own branch, and the thread sleeps only after the last).
    choice: Option<(usize, Val)>,
}

/// The memory access of a process's next event, for sleep sets.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Access {
    /// Reads location x from memory.
    Read(usize),
    /// Writes location x in memory (a commit, an SC store, a locked instruction).
    Write(usize),
    /// Reads location x from its own thread's buffer.
    Forward(usize),
    /// Touches no memory: a buffered store, a fence, a join.
    Own,
    /// Begins an exclusive block, whose accesses are not known before it runs: taken
    /// as dependent with every memory access.
    Exclusive,
}

/// What [`explore_dpor`] found.
#[derive(Clone, Debug)]
pub struct Dpored {
    pub exploration: Exploration,
    pub stats: DporStats,
    /// Under TSO/PSO when asked: whether every run is SC, with a run whose
    /// happens-before has a cycle (not always a shortest one: the first execution found
    /// with a cycle, cut to its shortest cyclic prefix, each step it does without dropped).
    pub robustness: Option<Robustness>,
}

/// Explores `p` under `c.model` with source-DPOR: the outcomes of complete executions,
/// the first assertion failure found, the counts, and robustness when `robustness`
/// (each execution's run checked for a happens-before cycle, [`hb_cyclic`], until one
/// is found).
pub fn explore_dpor(p: &Program, c: &Config, robustness: bool) -> Dpored {
    let m = Machine::new(p, c.model, c.unroll);
    let mut x = Dpor {
        m: &m,
        procs: Procs {
            k: p.threads.len(),
            m: p.locs.len(),
            model: c.model,
        },
        places: p.observed(),
        levels: Vec::new(),
        events: Vec::new(),
        outcomes: HashMap::default(),
        failure: None,
        cut_at: Vec::new(),
        stats: DporStats::default(),
        incomplete: None,
        max_executions: c.max_executions,
        stop_at_failure: c.stop_at_failure,
        max_memory: c.max_memory,
        deadline: c.deadline,
        bytes: 0,
        robustness: robustness && c.model != Model::Sc,
        witness: None,
        nondet_cut: None,
    };
    x.run();
    let mut outcomes: Vec<(Vec<Val>, u64)> = x.outcomes.into_iter().collect();
    outcomes.sort();
    let exploration = Exploration {
        model: c.model,
        places: x.places,
        outcomes,
        states: x.stats.events as usize,
        complete: x.incomplete.is_none(),
        incomplete: x.incomplete,
        failure: x.failure,
        cut: x.stats.cut,
        cut_at: x.cut_at,
        bound: x.stats.bound,
        nondet_cut: x.nondet_cut,
    };
    let robustness = robustness.then(|| Robustness {
        robust: match (&x.witness, c.model) {
            (_, Model::Sc) | (Some(_), _) => Some(x.witness.is_none()),
            (None, _) => x.incomplete.is_none().then_some(true),
        },
        witness: x.witness,
        states: x.stats.executions as usize,
        incomplete: x.incomplete,
    });
    Dpored {
        exploration,
        stats: x.stats,
        robustness,
    }
}

struct Dpor<'a, 'p> {
    m: &'a Machine<'p>,
    procs: Procs,
    places: Vec<Place>,
    levels: Vec<Level>,
    /// The current execution: event i leads from level i to level i + 1.
    events: Vec<Event>,
    outcomes: HashMap<Vec<Val>, u64>,
    failure: Option<Failure>,
    /// Each instruction that cut a run, with the first such run found.
    cut_at: Vec<Failure>,
    stats: DporStats,
    incomplete: Option<Incomplete>,
    max_executions: u64,
    stop_at_failure: bool,
    max_memory: usize,
    deadline: Option<std::time::Instant>,
    /// Bytes held by the levels and events.
    bytes: usize,
    /// Whether to look for a happens-before cycle, and the run found with one.
    robustness: bool,
    witness: Option<Vec<Step>>,
    /// The line of the first cut `nondet` reached.
    nondet_cut: Option<usize>,
}

impl Dpor<'_, '_> {
    fn run(&mut self) {
        let (k, n, nl) = (self.procs.k, self.procs.count(), self.procs.m);
        let (state, settled) = self.m.initial();
        match settled {
            Settled::Ok => {}
            Settled::Failed(t, pc) => {
                self.failure = Some(Failure {
                    thread: t,
                    pc,
                    line: self.m.p.threads[t].lines[pc],
                    schedule: Vec::new(),
                });
                return;
            }
            Settled::Spin => {
                self.incomplete = Some(Incomplete::Spin);
                return;
            }
            Settled::Cut(t, pc) => {
                self.stats.cut += 1;
                self.cut_at.push(Failure {
                    thread: t,
                    pc,
                    line: self.m.p.threads[t].lines[pc],
                    schedule: Vec::new(),
                });
                return;
            }
            Settled::Bound => {
                self.stats.bound += 1;
                return;
            }
        }
        let aux = Aux {
            last: vec![None; n],
            buf: vec![Vec::new(); k],
            writer: vec![None; nl],
            readers: vec![None; k * nl],
            blocked: vec![None; k],
            exclusive: None,
            lock_wait: false,
        };
        self.push_level(state, aux, Procset::default());
        let mut ticks = 0u32;
        while let Some(top) = self.levels.last() {
            ticks = ticks.wrapping_add(1);
            if ticks.is_multiple_of(16)
                && self
                    .deadline
                    .is_some_and(|d| std::time::Instant::now() >= d)
            {
                self.incomplete.get_or_insert(Incomplete::Timeout);
            }
            let next = top
                .choice
                .map(|c| c.0)
                .or_else(|| top.backtrack.iter().find(|&q| !top.sleep.contains(q)));
            let Some(q) = next else {
                let level = self.levels.pop().expect("a level");
                self.bytes -= level_bytes(&level);
                if let Some(e) = self.events.pop() {
                    self.bytes -= event_bytes(&e);
                    let parent = self.levels.last_mut().expect("the event's level");
                    let more = match e.step {
                        Step::Choose(t, v) => self
                            .m
                            .nondet(&parent.state, t)
                            .is_some_and(|(_, hi)| v < hi)
                            .then_some((t, v + 1)),
                        _ => None,
                    };
                    match more {
                        Some(c) => parent.choice = Some(c),
                        None => parent.sleep.insert(e.proc as usize),
                    }
                }
                continue;
            };
            if self.incomplete.is_some() {
                // Out of budget: unwind without exploring more.
                let top = self.levels.last_mut().expect("a level");
                top.backtrack = Procset::default();
                top.choice = None;
                continue;
            }
            self.take(q);
        }
    }

    /// Runs process q from the top level, records the races of its event, and pushes
    /// the level after it.
    fn take(&mut self, q: usize) {
        let top = self.levels.len() - 1;
        let level = &mut self.levels[top];
        let step = match level.choice.take() {
            Some((t, v)) => Step::Choose(t, v),
            None => self
                .procs
                .step(&level.state, &level.aux, self.m, q)
                .expect("a backtrack process is enabled"),
        };
        let level = &self.levels[top];
        let mut state = level.state.clone();
        let mut aux = level.aux.clone();
        // Sleep set of the next level: the sleeping processes independent of q here.
        // A process about to begin an exclusive block wakes at any step: which
        // locations the block touches depends on the values it reads, so moving it
        // later can make it another event, which no sibling explored.
        let a = self.access(&level.state, &level.aux, q);
        let mut sleep = Procset::default();
        for r in level.sleep.iter() {
            let b = self.access(&level.state, &level.aux, r);
            if b != Some(Access::Exclusive) && !self.dependent(q, a, r, b) {
                sleep.insert(r);
            }
        }
        let (effect, settled) = self.m.apply(&mut state, step);
        if self.nondet_cut.is_none() {
            self.nondet_cut = self.m.cut_line(&level.state, effect);
        }
        let (mut event, races) = self.clock(&mut aux, q, step, effect);
        let level_was_exclusive = level.state.exclusive.is_some();
        if level_was_exclusive {
            event.block = aux.exclusive;
        } else if state.exclusive.is_some() {
            aux.exclusive = Some(self.events.len() as u32);
            event.block = aux.exclusive;
        }
        self.stats.events += 1;
        // Every race is reversed, those of events after a stop too: a run that
        // stops can lead, by later reversals, to one that does not.
        for &r in &races {
            self.reverse(r as usize, &event);
        }
        let t = self.procs.owner(q);
        let idx = event.idx;
        // A thread that stops inside an exclusive block lets the others go on.
        if settled != Settled::Ok && self.m.holds(&state, t) {
            state.exclusive = None;
        }
        match settled {
            Settled::Ok => {}
            Settled::Cut(t, pc) => {
                self.cut(&aux, &event, t, pc);
                aux.blocked[t] = Some((Block::Cut, idx));
                aux.lock_wait |= matches!(self.m.p.threads[t].code[pc], Instr::Lock(_));
            }
            Settled::Bound => aux.blocked[t] = Some((Block::Bound, idx)),
            Settled::Spin => {
                self.incomplete.get_or_insert(Incomplete::Spin);
                aux.blocked[t] = Some((Block::Spin, idx));
            }
            Settled::Failed(t, pc) => {
                aux.blocked[t] = Some((Block::Failed, idx));
                self.failed(&aux, &event, t, pc);
            }
        }
        self.bytes += event_bytes(&event);
        self.events.push(event);
        if level_was_exclusive && state.exclusive.is_none() {
            self.join_block();
        }
        self.push_level(state, aux, sleep);
    }

    /// The exclusive block that the last event ended runs as one step: each of its
    /// events gets the block's clock (its events are its thread's, in program order,
    /// so the last one's clock is the block's).
    fn join_block(&mut self) {
        let last = self.events.len() - 1;
        let Some(b) = self.events[last].block else {
            return;
        };
        let clock = self.events[last].clock.clone();
        for e in &mut self.events[b as usize..last] {
            e.clock.copy_from_slice(&clock);
        }
    }

    /// A new level: its first process to explore, or the end of the execution.
    fn push_level(&mut self, state: State, aux: Aux, sleep: Procset) {
        let mut level = Level {
            state,
            aux,
            backtrack: Procset::default(),
            sleep,
            choice: None,
        };
        let n = self.procs.count();
        let mut enabled = (0..n).filter(|&p| {
            self.procs
                .step(&level.state, &level.aux, self.m, p)
                .is_some()
        });
        let first = enabled.next();
        match first
            .into_iter()
            .chain(enabled)
            .find(|&p| !level.sleep.contains(p))
        {
            Some(p) => level.backtrack.insert(p),
            None if first.is_some() => self.stats.sleep_blocked += 1,
            None => self.end(&level),
        }
        // Nidhugg's way: the execution in which an assertion failed ends the search.
        let last = level.backtrack.iter().next().is_none();
        if last && self.stop_at_failure && self.failure.is_some() {
            self.incomplete.get_or_insert(Incomplete::StoppedAtFailure);
        }
        if self.stats.executions + self.stats.sleep_blocked >= self.max_executions {
            self.incomplete.get_or_insert(Incomplete::MaxExecutions);
        }
        self.bytes += level_bytes(&level);
        if self.bytes > self.max_memory {
            self.incomplete.get_or_insert(Incomplete::Memory);
        }
        self.levels.push(level);
    }

    /// A maximal execution ends: its outcome, unless a thread stopped; and, for
    /// robustness, its run checked for a happens-before cycle.
    fn end(&mut self, level: &Level) {
        self.stats.executions += 1;
        if self.robustness && self.witness.is_none() {
            self.witness = self.cycle(&level.aux);
        }
        let blocked = &level.aux.blocked;
        let stopped = |why| blocked.iter().flatten().any(|b| b.0 == why);
        if stopped(Block::Cut) {
            self.stats.cut += 1;
        }
        if stopped(Block::Bound) {
            self.stats.bound += 1;
        }
        if level.aux.lock_wait {
            self.stats.lock_waits += 1;
        }
        if blocked.iter().all(Option::is_none) {
            debug_assert!(
                self.m.is_final(&level.state),
                "no process enabled, yet not final"
            );
            let vals = self.m.observe(&level.state, &self.places);
            *self.outcomes.entry(vals).or_insert(0) += 1;
            self.stats.complete += 1;
        }
    }

    /// A short run with a happens-before cycle (a prefix of, then steps dropped from,
    /// the run made of the events with no stopped thread in their past (the runs the states engine follows, which
    /// end at a thread's first stop), if that run has a cycle.
    fn cycle(&self, aux: &Aux) -> Option<Vec<Step>> {
        // The whole run acyclic: so is the part of it kept below (fewer edges).
        let mut whole = RunBuilder::new(self.m);
        for (i, e) in self.events.iter().enumerate() {
            whole.push(i, e.effect, None, String::new());
        }
        if !hb_cyclic(&whole.finish()) {
            return None;
        }
        let steps: Vec<Step> = self
            .events
            .iter()
            .filter(|e| !stopped_before(aux, e, |_| true))
            .map(|e| e.step)
            .collect();
        // Whether a schedule is a run with a cycle (a step out of place: no).
        let cyclic = |w: &[Step]| replay_bare(self.m, w).is_ok_and(|run| hb_cyclic(&run));
        if !cyclic(&steps) {
            return None;
        }
        // A cycle stays when the run goes on: the shortest cyclic prefix, by halving;
        // then each step the cycle does without, dropped (up to 200 steps).
        let (mut lo, mut hi) = (0, steps.len());
        while lo + 1 < hi {
            let mid = (lo + hi) / 2;
            if cyclic(&steps[..mid]) {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        let mut w = steps[..hi].to_vec();
        if w.len() <= 200 {
            let mut i = w.len();
            while i > 0 {
                i -= 1;
                let mut shorter = w.clone();
                shorter.remove(i);
                if cyclic(&shorter) {
                    w = shorter;
                }
            }
        }
        Some(w)
    }

    /// A failed assertion after `event`: the first one whose past holds no stopped
    /// thread is the failure, with its past as the schedule.
    fn failed(&mut self, aux: &Aux, event: &Event, t: usize, pc: usize) {
        if self.failure.is_some() {
            return;
        }
        // A failure in its past was found first (its own past is in this one's).
        if stopped_before(aux, event, |why| why != Block::Failed) {
            return;
        }
        let schedule = self.past_schedule(event);
        self.failure = Some(Failure {
            thread: t,
            pc,
            line: self.m.p.threads[t].lines[pc],
            schedule,
        });
    }

    /// The steps in `event`'s past, then `event`'s: a schedule that replays to it.
    fn past_schedule(&self, event: &Event) -> Vec<Step> {
        let mut schedule: Vec<Step> = self
            .events
            .iter()
            .filter(|e| event.clock[e.proc as usize] >= e.idx)
            .map(|e| e.step)
            .collect();
        schedule.push(event.step);
        schedule
    }

    /// A thread cut after `event` (a false `assume`, a `lock` found taken): the first
    /// run cut there whose past holds no stopped thread, with that past as the schedule.
    fn cut(&mut self, aux: &Aux, event: &Event, t: usize, pc: usize) {
        if self.cut_at.iter().any(|c| (c.thread, c.pc) == (t, pc))
            || stopped_before(aux, event, |_| true)
        {
            return;
        }
        let schedule = self.past_schedule(event);
        self.cut_at.push(Failure {
            thread: t,
            pc,
            line: self.m.p.threads[t].lines[pc],
            schedule,
        });
    }

    /// The clock of process q's event (App. 0.B), the auxiliary state after it, and the
    /// earlier events it races with.
    fn clock(&self, aux: &mut Aux, q: usize, step: Step, effect: Effect) -> (Event, Races) {
        let n = self.events.len() as u32;
        let procs = self.procs;
        let k = procs.k;
        // The clock of q's previous event (program order).
        let base: &[u32] = match aux.last[q] {
            Some(e) => &self.events[e as usize].clock,
            None => &[],
        };
        let idx = base.get(q).map_or(1, |i| i + 1);
        // Direct predecessors other than program order: (event, whether it can race).
        let mut preds: Preds = SmallVec::new();
        // A fence or locked instruction: after its thread's commits (uf).
        let drain = |preds: &mut Preds, aux: &Aux, t: usize| match procs.model {
            Model::Sc => {}
            Model::Tso => preds.extend(aux.last[procs.upd(t, 0)].map(|e| (e, false))),
            Model::Pso => {
                for x in 0..procs.m {
                    preds.extend(aux.last[procs.upd(t, x)].map(|e| (e, false)));
                }
            }
        };
        // A write to memory: after the last write and other threads' loads.
        let write = |preds: &mut Preds, aux: &mut Aux, t: usize, x: usize| {
            preds.extend(aux.writer[x].map(|e| (e, true)));
            for (u, r) in aux.readers[x * k..][..k].iter().enumerate() {
                if u != t {
                    preds.extend(r.map(|e| (e, true)));
                }
            }
            aux.writer[x] = Some(n);
        };
        match effect {
            Effect::Load {
                t,
                forwarded: Some(i),
                ..
            } => aux.buf[t][i].1 = Some(n),
            Effect::Load { t, x, .. } => {
                if let Some(w) = aux.writer[x] {
                    let wp = self.events[w as usize].proc as usize;
                    if wp < procs.k || procs.owner(wp) != t {
                        preds.push((w, true));
                    }
                }
                aux.readers[x * k + t] = Some(n);
            }
            Effect::Store { t, x, buffered, .. } => {
                if !buffered {
                    write(&mut preds, aux, t, x);
                } else {
                    aux.buf[t].push((n, None));
                }
            }
            Effect::Fence { t } => drain(&mut preds, aux, t),
            // Drains like a fence; the child's first event follows it in program order.
            Effect::Spawn { t, of } => {
                drain(&mut preds, aux, t);
                aux.last[of] = Some(n);
            }
            // A choice touches no memory.
            Effect::Choose { .. } => {}
            // After every event of the joined thread and its commits.
            Effect::Join { of, .. } => {
                preds.extend(aux.last[of].map(|e| (e, false)));
                drain(&mut preds, aux, of);
            }
            Effect::Rmw { t, x, drained, .. } => {
                match procs.model {
                    Model::Pso if !drained => {
                        preds.extend(aux.last[procs.upd(t, x)].map(|e| (e, false)))
                    }
                    _ => drain(&mut preds, aux, t),
                }
                write(&mut preds, aux, t, x);
            }
            Effect::Commit { t, x, index } => {
                let (store, forwarded) = aux.buf[t].remove(index);
                preds.push((store, false));
                write(&mut preds, aux, t, x);
                if let Some(l) = forwarded {
                    aux.readers[x * k + t] = Some(l);
                }
            }
        }
        let mut clock = vec![0; procs.count()];
        clock[..base.len()].copy_from_slice(base);
        clock[q] = idx;
        for &(e, _) in &preds {
            for (c, &d) in clock.iter_mut().zip(self.events[e as usize].clock.iter()) {
                *c = (*c).max(d);
            }
        }
        // A race: a racing predecessor of another process that no other direct
        // predecessor already follows.
        let mut races = Races::new();
        for (i, &(e, racy)) in preds.iter().enumerate() {
            let ev = &self.events[e as usize];
            let ep = ev.proc as usize;
            // A thread's events and its own commits never race: they are ordered by
            // the buffer (a commit before the fence or locked instruction that waits
            // for it; a load and its own thread's commits are unrelated).
            if !racy || procs.owner(ep) == procs.owner(q) || races.contains(&e) {
                continue;
            }
            // An event inside an exclusive block stands for the block, begun by event
            // b: covered when another predecessor, not of the block, follows b.
            let (cp, ci) = match ev.block {
                Some(b) => (
                    self.events[b as usize].proc as usize,
                    self.events[b as usize].idx,
                ),
                None => (ep, ev.idx),
            };
            let covered = base.get(cp).is_some_and(|&c| c >= ci)
                || preds.iter().enumerate().any(|(j, &(d, _))| {
                    let de = &self.events[d as usize];
                    j != i
                        && d != e
                        && (ev.block.is_none() || de.block != ev.block)
                        && de.clock[cp] >= ci
                });
            if !covered {
                races.push(e);
            }
        }
        aux.last[q] = Some(n);
        let event = Event {
            proc: q as u32,
            idx,
            step,
            effect,
            clock: clock.into_boxed_slice(),
            block: None,
        };
        (event, races)
    }

    /// Race of event `r` with the new `event`: unless an initial of the reversed run
    /// (the events after `r` not after it in happens-before, then `event`) is already
    /// in the backtrack set where `r` was taken, add one (POPL'14 Alg. 1, lines 6–10).
    fn reverse(&mut self, r: usize, event: &Event) {
        // An event inside an exclusive block: the reversed run goes before the block.
        let r = self.events[r].block.map_or(r, |b| b as usize);
        let (rp, ri) = (self.events[r].proc as usize, self.events[r].idx);
        let n = self.procs.count();
        // Each process's first event in the reversed run (its number), and the
        // exclusive block that event begins, if any.
        let mut first: SmallVec<[(u32, Option<u32>); 32]> =
            SmallVec::from_elem((u32::MAX, None), n);
        let mut initials: SmallVec<[usize; 8]> = SmallVec::new();
        let rest = self.events[r + 1..]
            .iter()
            .filter(|e| e.clock[rp] < ri)
            .chain(std::iter::once(event));
        for e in rest {
            let p = e.proc as usize;
            let after =
                || (0..n).any(|u| u != p && first[u].0 != u32::MAX && e.clock[u] >= first[u].0);
            if first[p].0 != u32::MAX {
                // A block is one step: it is not an initial if any of its events
                // follows another process's first event (the block running now has no
                // joined clock yet).
                if e.block.is_some() && e.block == first[p].1 && after() {
                    initials.retain(|&mut q| q != p);
                }
                continue;
            }
            let is_after = after();
            first[p] = (e.idx, e.block);
            if !is_after {
                initials.push(p);
            }
        }
        let level = &mut self.levels[r];
        if initials.iter().any(|&p| level.backtrack.contains(p)) {
            return;
        }
        let pick = initials
            .iter()
            .copied()
            .find(|&p| !level.sleep.contains(p))
            .or(initials.first().copied());
        if let Some(p) = pick {
            level.backtrack.insert(p);
        }
    }

    /// The memory access of process p's next event in state s.
    fn access(&self, s: &State, aux: &Aux, p: usize) -> Option<Access> {
        let step = self.procs.next(s, aux, self.m, p)?;
        Some(match step {
            Step::Commit(_, x) => Access::Write(x),
            Step::Choose(..) => Access::Own,
            Step::Exec(t) => {
                let at = |a| self.m.loc(s, t, a);
                match &self.m.p.threads[t].code[s.pc[t] as usize] {
                    Instr::Load(_, a) if s.buf[t].iter().any(|e| e.0 == at(a)) => {
                        Access::Forward(at(a))
                    }
                    Instr::Load(_, a) => Access::Read(at(a)),
                    Instr::Store(a, _) if self.procs.model == Model::Sc => Access::Write(at(a)),
                    Instr::Rmw(_, a, ..) | Instr::Lock(a) | Instr::Unlock(a) => {
                        Access::Write(at(a))
                    }
                    Instr::ExclusiveBegin if !self.m.holds(s, t) => Access::Exclusive,
                    _ => Access::Own,
                }
            }
        })
    }

    /// Whether the next events of p and q may not commute. One thread's processes
    /// commute: its commits of different locations (PSO), and a commit with the
    /// thread's next event — a load of x forwarded from the buffer reads the same
    /// value from memory once its entry is committed, with the same trace (no src-ct
    /// edge from its own commit), and events that wait for the buffer to drain are not
    /// enabled beside a commit.
    fn dependent(&self, p: usize, a: Option<Access>, q: usize, b: Option<Access>) -> bool {
        if self.procs.owner(p) == self.procs.owner(q) {
            return p == q;
        }
        use Access::*;
        match (a, b) {
            (Some(Write(x)), Some(Write(y) | Read(y))) | (Some(Read(x)), Some(Write(y))) => x == y,
            (Some(Exclusive), Some(Exclusive | Read(_) | Write(_)))
            | (Some(Read(_) | Write(_)), Some(Exclusive)) => true,
            _ => false,
        }
    }
}

/// Whether a thread stopped (for a reason `counts`) at or before `e` in happens-before.
fn stopped_before(aux: &Aux, e: &Event, counts: impl Fn(Block) -> bool) -> bool {
    aux.blocked
        .iter()
        .enumerate()
        .any(|(u, b)| b.is_some_and(|(why, c)| counts(why) && e.clock[u] >= c))
}

fn level_bytes(l: &Level) -> usize {
    std::mem::size_of::<Level>() + l.state.bytes() + l.aux.bytes() + 16
}

fn event_bytes(e: &Event) -> usize {
    std::mem::size_of::<Event>() + 4 * e.clock.len()
}
