//! Every run of a program under SC, TSO or PSO (docs/semantics.md §7), explored with state
//! memoisation.
//!
//! - SC: a store writes memory at once.
//! - TSO: one FIFO store buffer per thread; a load reads the thread's latest buffered
//!   store to its address, else memory; a *commit* step moves the oldest buffered
//!   store to memory; `fence` and locked instructions wait for an empty buffer.
//! - PSO: one FIFO per thread and address (Burnim et al. Fig. 3): a commit moves the
//!   oldest store of one address; `fence` waits for all of the thread's buffers, a
//!   locked instruction for its own address's.
//!
//! Register-only instructions (`Assign`, `Branch`, `Assume`, `Assert`, `Begin`, `End`)
//! commute with every other step, so they run at once after each step; a run is a
//! sequence of memory steps and commits. A backward branch taken more than the
//! unrolling bound cuts the run, as does a false `assume`.

use super::*;
use rustc_hash::FxHashMap as HashMap;

/// The longest store buffer the searches follow; a run that buffers more stores
/// leaves the answer unknown (exit 3) instead of using memory without bound.
pub const MAX_BUFFER: usize = 64;

/// The memory model of an exploration (the crate's one [`MemoryModel`]).
pub use crate::trace::model::MemoryModel;
pub use crate::trace::model::MemoryModel as Model;

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
    /// Bytes the search may hold ([`crate::mem::default_budget`] by default).
    pub max_memory: usize,
    /// When the searches stop with *unknown* (`--timeout`), polled cooperatively.
    pub deadline: Option<std::time::Instant>,
}

impl Config {
    /// `model` with `--unroll 4`, 2·10⁶ states and the default memory budget.
    pub fn new(model: Model) -> Config {
        Config {
            model,
            unroll: 4,
            max_states: 2_000_000,
            max_executions: 10_000_000,
            max_memory: crate::mem::default_budget(),
            deadline: None,
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

/// A machine state (after the register-only steps have run).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct State {
    pub pc: Vec<u32>,

    /// All threads' registers, thread after thread.
    pub regs: Vec<Val>,
    pub mem: Vec<Val>,
    /// Per thread: its buffered stores in issue order (PSO: the per-address FIFOs
    /// interleaved; the oldest entry of an address is the head of its FIFO).
    pub buf: Vec<Vec<(Loc, Val)>>,
    /// Per thread: backward branches taken (bounded by the unrolling bound).
    pub jumps: Vec<u32>,
    /// Per thread: transaction nesting depth and the number of transactions begun.
    pub depth: Vec<u16>,
    pub txns: Vec<u32>,
}

impl State {
    /// Bytes this state holds on the heap, with its own size.
    pub fn bytes(&self) -> usize {
        use crate::mem::vec_bytes;
        std::mem::size_of::<State>()
            + vec_bytes(&self.pc)
            + vec_bytes(&self.regs)
            + vec_bytes(&self.mem)
            + vec_bytes(&self.buf)
            + self.buf.iter().map(vec_bytes).sum::<usize>()
            + vec_bytes(&self.jumps)
            + vec_bytes(&self.depth)
            + vec_bytes(&self.txns)
    }
}

/// One step of a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Step {
    /// Thread t runs its next memory instruction.
    Exec(usize),
    /// Thread t commits its oldest buffered store to the location (TSO: its only FIFO).
    Commit(usize, Loc),
}

/// What a step did, for traces and happens-before.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Effect {
    /// `r = [x]`, reading `val`; `forwarded` when from the thread's own buffer (the
    /// index of the entry read).
    Load {
        t: usize,
        x: Loc,
        val: Val,
        forwarded: Option<usize>,
    },
    /// A store issued (SC: and committed).
    Store {
        t: usize,
        x: Loc,
        val: Val,
    },
    Fence {
        t: usize,
    },
    /// `join` in thread t of thread `of`, which has finished.
    Join {
        t: usize,
        of: usize,
    },
    /// A locked read-modify-write, reading `old`, writing `new`. A failed CAS writes
    /// the old value back, as x86's `LOCK CMPXCHG` does (Intel SDM: "the destination
    /// operand receives a write cycle without regard to the result of the comparison").
    Rmw {
        t: usize,
        x: Loc,
        old: Val,
        new: Val,
        /// Whether it waited for all the thread's buffers (a `lock`/`unlock`; under
        /// TSO every locked instruction), not only (PSO) its own location's.
        drained: bool,
    },
    /// Entry `index` of thread t's buffer committed to x.
    Commit {
        t: usize,
        x: Loc,
        index: usize,
    },
}

impl Effect {
    /// The thread whose step (or whose buffered store, for a commit) this is.
    pub fn thread(&self) -> usize {
        match *self {
            Effect::Load { t, .. }
            | Effect::Store { t, .. }
            | Effect::Fence { t }
            | Effect::Join { t, .. }
            | Effect::Rmw { t, .. }
            | Effect::Commit { t, .. } => t,
        }
    }
}

/// How the register-only steps after a step ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Settled {
    Ok,
    /// A false `assume` (or a `lock` found taken) in thread t at instruction pc: the
    /// run is dropped.
    Cut(usize, usize),
    /// A backward branch past the unrolling bound: the run is dropped, and the
    /// exploration is complete only up to the bound.
    Bound,
    /// `assert` failed in thread t at instruction pc (or an array index there was out
    /// of bounds).
    Failed(usize, usize),
    /// More than [`MAX_LOCAL_STEPS`] register-only steps in a row (a register-only loop
    /// under a huge `--unroll`): the search cannot say what follows.
    Spin,
}

/// Register-only steps one thread may take in a row before the search gives up.
pub const MAX_LOCAL_STEPS: u64 = 1 << 22;

/// Why an exploration (or robustness search) did not finish: its answer is unknown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Incomplete {
    /// `--max-states` distinct states.
    MaxStates,
    /// A store buffer grew past [`MAX_BUFFER`] entries (a loop of stores).
    BufferLimit,
    /// A register-only loop ran [`MAX_LOCAL_STEPS`] steps without a memory access.
    Spin,
    /// The states held passed the memory budget.
    Memory,
    /// `--max-executions` executions (the DPOR engine).
    MaxExecutions,
    /// `--timeout` passed.
    Timeout,
}

impl Incomplete {
    /// The cause, as the reports print it.
    pub fn describe(self) -> String {
        match self {
            Incomplete::MaxStates => "the --max-states budget ran out".into(),
            Incomplete::BufferLimit => format!(
                "a store buffer grew past {MAX_BUFFER} entries (a loop of stores; --max-states does not help, a smaller --unroll does)"
            ),
            Incomplete::Spin => format!(
                "a register-only loop ran {MAX_LOCAL_STEPS} steps without touching memory (lower --unroll)"
            ),
            Incomplete::MaxExecutions => "the --max-executions budget ran out".into(),
            Incomplete::Timeout => "the --timeout ran out".into(),
            Incomplete::Memory => {
                format!(
                    "the states held passed the memory budget (--max-memory; {})",
                    crate::mem::DEFAULT_BUDGET
                )
            }
        }
    }
}

/// A program with a model and an unrolling bound: the transition system.
pub struct Machine<'p> {
    pub p: &'p Program,
    pub model: Model,
    pub unroll: u32,
    offset: Vec<usize>,
}

impl<'p> Machine<'p> {
    pub fn new(p: &'p Program, model: Model, unroll: u32) -> Machine<'p> {
        let mut offset = Vec::new();
        let mut n = 0;
        for t in &p.threads {
            offset.push(n);
            n += t.regs.len();
        }
        Machine {
            p,
            model,
            unroll,
            offset,
        }
    }

    /// The initial state, settled: the first thread's failed assertion if any, else
    /// the first spin, else the first cut (every thread settles, so the answer does not
    /// depend on the threads' order).
    pub fn initial(&self) -> (State, Settled) {
        let k = self.p.threads.len();
        let mut s = State {
            pc: vec![0; k],
            regs: self
                .p
                .threads
                .iter()
                .flat_map(|t| t.reg_init.iter().copied())
                .collect(),
            mem: self.p.init.clone(),
            buf: vec![Vec::new(); k],
            jumps: vec![0; k],
            depth: vec![0; k],
            txns: vec![0; k],
        };
        let each: Vec<Settled> = (0..k).map(|t| self.settle(&mut s, t)).collect();
        let first = |f: fn(&Settled) -> bool| each.iter().copied().find(f);
        let st = first(|s| matches!(s, Settled::Failed(..)))
            .or(first(|s| *s == Settled::Spin))
            .or(first(|s| matches!(s, Settled::Cut(..))))
            .or(first(|s| *s == Settled::Bound))
            .unwrap_or(Settled::Ok);
        (s, st)
    }

    pub fn reg(&self, s: &State, t: usize, r: Reg) -> Val {
        s.regs[self.offset[t] + r]
    }

    /// The location a memory operand of thread t names in s (its index in bounds:
    /// [`Machine::settle`] stops the thread before an index out of bounds).
    pub fn loc(&self, s: &State, t: usize, a: &Addr) -> Loc {
        match a.index {
            None => a.base,
            Some((r, _)) => a.base + self.reg(s, t, r) as usize,
        }
    }

    fn operand(&self, s: &State, t: usize, o: &Operand) -> Val {
        match o {
            Operand::Const(v) => *v,
            Operand::Reg(r) => s.regs[self.offset[t] + r],
        }
    }

    fn eval(&self, s: &State, t: usize, e: &Expr) -> Val {
        match e {
            Expr::Op(o) => self.operand(s, t, o),
            Expr::Bin(b, x, y) => b.apply(self.operand(s, t, x), self.operand(s, t, y)),
        }
    }

    /// Runs thread t's register-only instructions.
    pub fn settle(&self, s: &mut State, t: usize) -> Settled {
        let code = &self.p.threads[t].code;
        let mut local = 0u64;
        loop {
            local += 1;
            if local > MAX_LOCAL_STEPS {
                return Settled::Spin;
            }
            let pc = s.pc[t] as usize;
            let Some(i) = code.get(pc) else {
                return Settled::Ok;
            };
            match i {
                Instr::Assign(r, e) => {
                    let v = self.eval(s, t, e);
                    s.regs[self.offset[t] + r] = v;
                }
                Instr::Branch(e, to) => {
                    if self.eval(s, t, e) != 0 {
                        if *to <= pc {
                            s.jumps[t] += 1;
                            if s.jumps[t] > self.unroll {
                                return Settled::Bound;
                            }
                        }
                        s.pc[t] = *to as u32;
                        continue;
                    }
                }
                Instr::Assume(e) => {
                    if self.eval(s, t, e) == 0 {
                        return Settled::Cut(t, pc);
                    }
                }
                Instr::Assert(e) => {
                    if self.eval(s, t, e) == 0 {
                        return Settled::Failed(t, pc);
                    }
                }
                Instr::Begin => {
                    if s.depth[t] == 0 {
                        s.txns[t] += 1;
                    }
                    s.depth[t] += 1;
                }
                Instr::End => s.depth[t] = s.depth[t].saturating_sub(1),
                Instr::Load(_, a)
                | Instr::Store(a, _)
                | Instr::Rmw(_, a, ..)
                | Instr::Lock(a)
                | Instr::Unlock(a) => {
                    return match a.index {
                        Some((r, len)) if !(0..len as Val).contains(&self.reg(s, t, r)) => {
                            Settled::Failed(t, pc)
                        }
                        _ => Settled::Ok,
                    }
                }
                Instr::Fence | Instr::Join(_) => return Settled::Ok,
            }
            s.pc[t] += 1;
        }
    }

    /// Whether every thread is done and every buffer empty.
    pub fn is_final(&self, s: &State) -> bool {
        s.buf.iter().all(|b| b.is_empty())
            && s.pc
                .iter()
                .enumerate()
                .all(|(t, &pc)| pc as usize == self.p.threads[t].code.len())
    }

    /// Whether thread t has a memory instruction next that the model lets run in s
    /// (`fence` and locked instructions wait for the buffer to drain: all of it, or
    /// under PSO a locked instruction for its own location's).
    pub fn can_exec(&self, s: &State, t: usize) -> bool {
        let Some(i) = self.p.threads[t].code.get(s.pc[t] as usize) else {
            return false;
        };
        match (self.model, i) {
            (_, Instr::Join(u)) => {
                s.pc[*u] as usize == self.p.threads[*u].code.len() && s.buf[*u].is_empty()
            }
            (Model::Sc, _) => true,
            (_, Instr::Fence | Instr::Lock(_) | Instr::Unlock(_))
            | (Model::Tso, Instr::Rmw(..)) => s.buf[t].is_empty(),
            (Model::Pso, Instr::Rmw(_, a, ..)) => {
                let x = self.loc(s, t, a);
                s.buf[t].iter().all(|e| e.0 != x)
            }
            _ => true,
        }
    }

    /// Whether `step` is enabled in s (one of [`Machine::enabled`]'s steps).
    pub fn is_enabled(&self, s: &State, step: Step) -> bool {
        match step {
            Step::Exec(t) => t < s.pc.len() && self.can_exec(s, t),
            Step::Commit(t, x) => {
                let Some(b) = s.buf.get(t) else {
                    return false;
                };
                match self.model {
                    Model::Sc => false,
                    Model::Tso => b.first().is_some_and(|e| e.0 == x),
                    Model::Pso => b.iter().any(|e| e.0 == x),
                }
            }
        }
    }

    /// The steps enabled in s, in a fixed order (threads, then commits).
    pub fn enabled(&self, s: &State, out: &mut Vec<Step>) {
        out.clear();
        out.extend(
            (0..self.p.threads.len())
                .filter(|&t| self.can_exec(s, t))
                .map(Step::Exec),
        );
        for (t, b) in s.buf.iter().enumerate() {
            match self.model {
                Model::Sc => {}
                Model::Tso => {
                    if let Some(&(x, _)) = b.first() {
                        out.push(Step::Commit(t, x));
                    }
                }
                Model::Pso => {
                    for (i, &(x, _)) in b.iter().enumerate() {
                        if b[..i].iter().all(|e| e.0 != x) {
                            out.push(Step::Commit(t, x));
                        }
                    }
                }
            }
        }
    }

    /// Applies an enabled step to s (then settles the thread).
    pub fn apply(&self, s: &mut State, step: Step) -> (Effect, Settled) {
        match step {
            Step::Commit(t, x) => {
                let index = s.buf[t]
                    .iter()
                    .position(|e| e.0 == x)
                    .expect("a buffered store of x");
                let (_, v) = s.buf[t].remove(index);
                s.mem[x] = v;
                (Effect::Commit { t, x, index }, Settled::Ok)
            }
            Step::Exec(t) => {
                let pc = s.pc[t] as usize;
                // A `lock` that finds its mutex taken.
                let mut taken = false;
                let eff = match self.p.threads[t].code[pc] {
                    Instr::Load(r, a) => {
                        let x = self.loc(s, t, &a);
                        let fwd = s.buf[t].iter().rposition(|e| e.0 == x);
                        let val = fwd.map_or(s.mem[x], |i| s.buf[t][i].1);
                        s.regs[self.offset[t] + r] = val;
                        Effect::Load {
                            t,
                            x,
                            val,
                            forwarded: fwd,
                        }
                    }
                    Instr::Store(a, v) => {
                        let x = self.loc(s, t, &a);
                        let val = self.operand(s, t, &v);
                        if self.model == Model::Sc {
                            s.mem[x] = val;
                        } else {
                            s.buf[t].push((x, val));
                        }
                        Effect::Store { t, x, val }
                    }
                    Instr::Fence => Effect::Fence { t },
                    Instr::Join(of) => Effect::Join { t, of },
                    i @ (Instr::Lock(a) | Instr::Unlock(a)) => {
                        let x = self.loc(s, t, &a);
                        let (old, new) = (s.mem[x], matches!(i, Instr::Lock(_)) as Val);
                        taken = new == 1 && old != 0;
                        s.mem[x] = new;
                        Effect::Rmw {
                            t,
                            x,
                            old,
                            new,
                            drained: true,
                        }
                    }
                    Instr::Rmw(r, a, k, flag) => {
                        let x = self.loc(s, t, &a);
                        let old = s.mem[x];
                        let new = match k {
                            RmwKind::Xchg(v) => self.operand(s, t, &v),
                            RmwKind::FetchAdd(v) => old.wrapping_add(self.operand(s, t, &v)),
                            RmwKind::Cas(e, n) => {
                                let hit = old == self.operand(s, t, &e);
                                if let Some(f) = flag {
                                    s.regs[self.offset[t] + f] = hit as Val;
                                }
                                if hit {
                                    self.operand(s, t, &n)
                                } else {
                                    old
                                }
                            }
                        };
                        s.mem[x] = new;
                        s.regs[self.offset[t] + r] = old;
                        Effect::Rmw {
                            t,
                            x,
                            old,
                            new,
                            drained: self.model == Model::Tso,
                        }
                    }
                    _ => unreachable!("register-only instructions are settled"),
                };
                s.pc[t] += 1;
                if taken {
                    return (eff, Settled::Cut(t, pc));
                }
                (eff, self.settle(s, t))
            }
        }
    }

    /// The values of `places` in a final state.
    pub fn observe(&self, s: &State, places: &[Place]) -> Vec<Val> {
        places
            .iter()
            .map(|p| match p {
                Place::Reg(t, r) => self.reg(s, *t, *r),
                Place::Mem(x) => s.mem[*x],
            })
            .collect()
    }
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
    };
    let (s, st) = m.initial();
    let root = x.visit_settled(s, st);
    let mut outcomes: Vec<(Vec<Val>, u64)> = root
        .iter()
        .map(|&(o, n)| (x.outcome_vals[o as usize].clone(), n))
        .collect();
    outcomes.sort();
    let (states, incomplete, failure) = (x.memo.len(), x.incomplete, x.failure);
    let (cut, bound, cut_at) = (x.cut, x.bound, x.cut_at);
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
                let (_, st) = self.m.apply(&mut next, step);
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

/// Describes a step of a run from state s (before it), for schedules.
pub fn describe_step(m: &Machine, s: &State, step: Step) -> String {
    let p = m.p;
    match step {
        Step::Exec(t) => format!(
            "{}: {}",
            p.threads[t].name,
            p.show_instr(t, s.pc[t] as usize)
        ),
        Step::Commit(t, x) => {
            let v = s.buf[t].iter().find(|e| e.0 == x).map_or(0, |e| e.1);
            format!("{}: commit [{}] = {v}", p.threads[t].name, p.locs[x])
        }
    }
}

/// A schedule as text: `P0 P1 c:P0:x …` (`c:` marks a commit); [`parse_schedule`] reads it back.
pub fn schedule_text(p: &Program, steps: &[Step]) -> String {
    steps
        .iter()
        .map(|s| match s {
            Step::Exec(t) => p.threads[*t].name.clone(),
            Step::Commit(t, x) => format!("c:{}:{}", p.threads[*t].name, p.locs[*x]),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Reads a schedule written by [`schedule_text`].
pub fn parse_schedule(p: &Program, text: &str) -> Result<Vec<Step>, String> {
    text.split_whitespace()
        .map(|w| {
            let th = |n: &str| {
                p.thread_ix(n)
                    .ok_or_else(|| format!("unknown thread `{n}` in the schedule"))
            };
            match w.strip_prefix("c:") {
                Some(rest) => {
                    let (t, x) = rest
                        .split_once(':')
                        .ok_or_else(|| format!("`{w}`: a commit is `c:THREAD:LOCATION`"))?;
                    let x = p
                        .locs
                        .iter()
                        .position(|l| l == x)
                        .ok_or_else(|| format!("unknown location `{x}` in the schedule"))?;
                    Ok(Step::Commit(th(t)?, x))
                }
                None => Ok(Step::Exec(th(w)?)),
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
    sc: bool,
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
            sc: m.model == Model::Sc,
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
            Effect::Store { x, .. } => {
                if self.sc {
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
            Effect::Fence { .. } | Effect::Join { .. } => {}
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
pub fn replay(m: &Machine, steps: &[Step]) -> Result<Run, String> {
    replay_with(m, steps, true)
}

/// [`replay`] without the steps' and events' text (left empty): for deciding, not showing.
pub fn replay_bare(m: &Machine, steps: &[Step]) -> Result<Run, String> {
    replay_with(m, steps, false)
}

fn replay_with(m: &Machine, steps: &[Step], describe: bool) -> Result<Run, String> {
    // The register-only steps may end the run before any step (an `assert 0` first).
    let (mut s, mut last) = m.initial();
    let mut run = RunBuilder::new(m);
    for (i, &step) in steps.iter().enumerate() {
        if last != Settled::Ok {
            return Err(format!("step {} comes after the run ended", i + 1));
        }
        if !m.is_enabled(&s, step) {
            return Err(format!(
                "step {} (`{}`) is not enabled",
                i + 1,
                schedule_text(m.p, &[step])
            ));
        }
        let text = if describe {
            let text = describe_step(m, &s, step);
            run.run.steps.push(text.clone());
            text
        } else {
            String::new()
        };
        let t = match step {
            Step::Exec(t) | Step::Commit(t, _) => t,
        };
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
