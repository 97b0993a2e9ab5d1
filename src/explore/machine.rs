//! The transition system of a program under SC, TSO or PSO (docs/semantics.md §7).
//!
//! - SC: a store writes memory at once.
//! - TSO: one FIFO store buffer per thread; a load reads the thread's latest buffered
//!   store to its address, else memory; a *commit* step moves the oldest buffered
//!   store to memory; `fence` and locked instructions wait for an empty buffer.
//! - PSO: one FIFO per thread and address (Burnim et al. Fig. 3): a commit moves the
//!   oldest store of one address; `fence` waits for all of the thread's buffers, a
//!   locked instruction for its own address's.
//!
//! Register-only instructions (`Assign`, `Branch`, `Assume`, `Assert`, `Bound`, `Begin`, `End`)
//! commute with every other step, so they run at once after each step; a run is a
//! sequence of memory steps and commits. A backward branch taken more than the
//! unrolling bound cuts the run, as does a false `assume`.

use crate::program::*;
use rustc_hash::FxHashSet as HashSet;

/// The longest store buffer the searches follow; a run that buffers more stores
/// leaves the answer unknown instead of using memory without bound.
pub const MAX_BUFFER: usize = 64;

/// The unrolling bound of a machine with none ([`super::reach`]): backward branches are
/// not counted, so a loop's states repeat.
pub const UNBOUNDED: u32 = u32::MAX;

/// The unrolling bound of a machine whose program bounds its own loops
/// ([`Program::loop_bound`]): backward branches are not counted.
pub const SELF_BOUNDED: u32 = u32::MAX - 1;

/// The program counter of a thread that a `spawn` has not started yet.
pub const NOT_STARTED: u32 = u32::MAX;

/// The program counter of a thread caught, with no loop bound ([`UNBOUNDED`]), in a
/// loop of register-only instructions that repeats its state: it never takes another
/// step (nor finishes), and the other threads go on.
pub const STUCK: u32 = u32::MAX - 1;

/// The memory model of an exploration (the crate's one [`MemoryModel`]).
pub use crate::trace::model::MemoryModel;
pub use crate::trace::model::MemoryModel as Model;

/// A machine state (after the register-only steps have run).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct State {
    /// Per thread: its next instruction ([`NOT_STARTED`] before its `spawn`).
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
    /// The thread running an exclusive block alone, and the block's nesting depth.
    pub exclusive: Option<(u32, u32)>,
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
    /// Thread t's next instruction, a `nondet`, gives its register the value.
    Choose(usize, Val),
    /// Thread t commits its oldest buffered store to the location (TSO: its only FIFO).
    Commit(usize, Loc),
}

impl Step {
    /// The thread whose step (or whose buffered store, for a commit) this is.
    pub fn thread(self) -> usize {
        match self {
            Step::Exec(t) | Step::Choose(t, _) | Step::Commit(t, _) => t,
        }
    }
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
    /// A store issued; `buffered` unless it wrote memory at once (under SC, and
    /// inside an exclusive block).
    Store {
        t: usize,
        x: Loc,
        val: Val,
        buffered: bool,
    },
    Fence {
        t: usize,
    },
    /// `join` in thread t of thread `of`, which has finished (or not started).
    Join {
        t: usize,
        of: usize,
    },
    /// `spawn` in thread t of thread `of`, after t's buffers drained.
    Spawn {
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
    /// A `nondet` in thread t gave `val`; `cut` when its range leaves values out.
    Choose {
        t: usize,
        val: Val,
        cut: bool,
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
            | Effect::Spawn { t, .. }
            | Effect::Rmw { t, .. }
            | Effect::Commit { t, .. }
            | Effect::Choose { t, .. } => t,
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
    /// A backward branch past the unrolling bound, or a false `bound`: the run is
    /// dropped, and the exploration is complete only up to the bound.
    Bound,
    /// `assert` failed in thread t at instruction pc (or an array index there was out
    /// of bounds, or a `spawn` there named a started thread).
    Failed(usize, usize),
    /// More than [`MAX_LOCAL_STEPS`] register-only steps in a row (a register-only loop
    /// under a huge `--unroll`): the search cannot say what follows.
    Spin,
}

/// Register-only steps one thread may take in a row before the search gives up.
pub const MAX_LOCAL_STEPS: u64 = 1 << 22;

/// A program with a model and an unrolling bound: the transition system.
pub struct Machine<'p> {
    pub p: &'p Program,
    pub model: Model,
    pub unroll: u32,
    offset: Vec<usize>,
    spawned: Vec<bool>,
}

impl<'p> Machine<'p> {
    /// The machine of `p` under `model`; `unroll` bounds backward branches per thread
    /// unless the program bounds its loops itself ([`SELF_BOUNDED`]).
    pub fn new(p: &'p Program, model: Model, unroll: u32) -> Machine<'p> {
        let unroll = match p.loop_bound {
            Some(_) if unroll != UNBOUNDED => SELF_BOUNDED,
            _ => unroll,
        };
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
            spawned: p.spawned(),
        }
    }

    /// The initial state, settled: the first thread's failed assertion if any, else
    /// the first spin, else the first cut (every thread settles, so the answer does not
    /// depend on the threads' order).
    pub fn initial(&self) -> (State, Settled) {
        let k = self.p.threads.len();
        let mut s = State {
            pc: self
                .spawned
                .iter()
                .map(|&w| if w { NOT_STARTED } else { 0 })
                .collect(),
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
            exclusive: None,
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
        // With no bound: the targets of backward branches taken, with the registers.
        let mut back: HashSet<(usize, Vec<Val>)> = HashSet::default();
        loop {
            local += 1;
            if local > MAX_LOCAL_STEPS {
                return Settled::Spin;
            }
            if s.pc[t] == STUCK {
                return Settled::Ok;
            }
            let pc = s.pc[t] as usize;
            let Some(i) = code.get(pc) else {
                // A thread that ends inside an exclusive block leaves it.
                if self.holds(s, t) {
                    s.exclusive = None;
                }
                return Settled::Ok;
            };
            match i {
                Instr::Assign(r, e) => {
                    let v = self.eval(s, t, e);
                    s.regs[self.offset[t] + r] = v;
                }
                Instr::Branch(e, to) => {
                    if self.eval(s, t, e) != 0 {
                        if *to <= pc && self.unroll == UNBOUNDED {
                            let regs = &s.regs[self.offset[t]..][..self.p.threads[t].regs.len()];
                            if !back.insert((*to, regs.to_vec())) {
                                s.pc[t] = STUCK;
                                return Settled::Ok;
                            }
                        } else if *to <= pc && self.unroll != SELF_BOUNDED {
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
                Instr::Bound(e) => {
                    if self.eval(s, t, e) == 0 {
                        return Settled::Bound;
                    }
                }
                Instr::Begin => {
                    if s.depth[t] == 0 {
                        s.txns[t] += 1;
                    }
                    s.depth[t] += 1;
                }
                Instr::End => s.depth[t] = s.depth[t].saturating_sub(1),
                Instr::ExclusiveBegin | Instr::ExclusiveEnd => match (i, s.exclusive) {
                    // A nested block: only its depth changes.
                    (Instr::ExclusiveBegin, Some((u, d))) if u as usize == t => {
                        s.exclusive = Some((u, d + 1))
                    }
                    (Instr::ExclusiveEnd, Some((u, d))) if u as usize == t && d > 1 => {
                        s.exclusive = Some((u, d - 1))
                    }
                    // The outermost begin and end drain the buffers: memory steps.
                    (Instr::ExclusiveBegin, _) | (Instr::ExclusiveEnd, Some(_)) => {
                        return Settled::Ok
                    }
                    // An end outside any block.
                    _ => {}
                },
                // A join inside an exclusive block of a thread that has not finished
                // would wait forever (the other thread cannot run): the run is cut.
                Instr::Join(u)
                    if self.holds(s, t)
                        && !(self.done(s, *u) && s.buf[*u].is_empty())
                        && s.pc[*u] != NOT_STARTED =>
                {
                    return Settled::Cut(t, pc)
                }
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
                Instr::Fence | Instr::Join(_) | Instr::Spawn(_) | Instr::Nondet { .. } => {
                    return Settled::Ok
                }
            }
            s.pc[t] += 1;
        }
    }

    /// Whether thread t runs an exclusive block.
    pub fn holds(&self, s: &State, t: usize) -> bool {
        s.exclusive.is_some_and(|(u, _)| u as usize == t)
    }

    /// Whether thread t may step in s: no other thread runs an exclusive block.
    pub fn free(&self, s: &State, t: usize) -> bool {
        s.exclusive.is_none_or(|(u, _)| u as usize == t)
    }

    /// Whether every thread is done (or was never started) and every buffer empty.
    pub fn is_final(&self, s: &State) -> bool {
        s.buf.iter().all(|b| b.is_empty())
            && s.pc
                .iter()
                .enumerate()
                .all(|(t, &pc)| self.done(s, t) || pc == NOT_STARTED)
    }

    /// Whether thread t has run its last instruction.
    fn done(&self, s: &State, t: usize) -> bool {
        s.pc[t] as usize == self.p.threads[t].code.len()
    }

    /// Whether thread t has a memory instruction next that the model lets run in s
    /// (`fence` and locked instructions wait for the buffer to drain: all of it, or
    /// under PSO a locked instruction for its own location's), and no other thread
    /// runs an exclusive block.
    pub fn can_exec(&self, s: &State, t: usize) -> bool {
        self.free(s, t) && self.ready(s, t)
    }

    /// [`Machine::can_exec`], were no other thread in an exclusive block.
    pub fn ready(&self, s: &State, t: usize) -> bool {
        let Some(i) = self.p.threads[t].code.get(s.pc[t] as usize) else {
            return false;
        };
        match (self.model, i) {
            (_, Instr::Join(u)) => {
                (self.done(s, *u) && s.buf[*u].is_empty()) || s.pc[*u] == NOT_STARTED
            }
            (Model::Sc, _) => true,
            (
                _,
                Instr::Fence
                | Instr::Lock(_)
                | Instr::Unlock(_)
                | Instr::Spawn(_)
                | Instr::ExclusiveBegin
                | Instr::ExclusiveEnd,
            )
            | (Model::Tso, Instr::Rmw(..)) => s.buf[t].is_empty(),
            (Model::Pso, Instr::Rmw(_, a, ..)) => {
                let x = self.loc(s, t, a);
                s.buf[t].iter().all(|e| e.0 != x)
            }
            _ => true,
        }
    }

    /// The `nondet` thread t runs next, if it does: its values.
    pub fn nondet(&self, s: &State, t: usize) -> Option<(Val, Val)> {
        match self.p.threads[t].code.get(s.pc[t] as usize) {
            Some(Instr::Nondet { lo, hi, .. }) => Some((*lo, *hi)),
            _ => None,
        }
    }

    /// Thread t's next step, for a thread that [`Machine::can_exec`]: a `nondet`'s
    /// first value, else `Exec(t)`.
    pub fn next_step(&self, s: &State, t: usize) -> Step {
        match self.nondet(s, t) {
            Some((lo, _)) => Step::Choose(t, lo),
            None => Step::Exec(t),
        }
    }

    /// For the effect of a step from s that took a value of a cut `nondet`: its line.
    pub fn cut_line(&self, s: &State, e: Effect) -> Option<usize> {
        match e {
            Effect::Choose { t, cut: true, .. } => Some(self.p.threads[t].lines[s.pc[t] as usize]),
            _ => None,
        }
    }

    /// Whether `step` is enabled in s (one of [`Machine::enabled`]'s steps).
    pub fn is_enabled(&self, s: &State, step: Step) -> bool {
        match step {
            Step::Exec(t) => t < s.pc.len() && self.can_exec(s, t) && self.nondet(s, t).is_none(),
            Step::Choose(t, v) => {
                t < s.pc.len()
                    && self.can_exec(s, t)
                    && self
                        .nondet(s, t)
                        .is_some_and(|(lo, hi)| (lo..=hi).contains(&v))
            }
            Step::Commit(t, x) => {
                let Some(b) = s.buf.get(t).filter(|_| self.free(s, t)) else {
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
        for t in (0..self.p.threads.len()).filter(|&t| self.can_exec(s, t)) {
            match self.nondet(s, t) {
                Some((lo, hi)) => out.extend((lo..=hi).map(|v| Step::Choose(t, v))),
                None => out.push(Step::Exec(t)),
            }
        }
        for (t, b) in s.buf.iter().enumerate().filter(|(t, _)| self.free(s, *t)) {
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
            Step::Choose(t, val) => {
                let Instr::Nondet { reg, cut, .. } = self.p.threads[t].code[s.pc[t] as usize]
                else {
                    unreachable!("a choice at a `nondet`")
                };
                s.regs[self.offset[t] + reg] = val;
                s.pc[t] += 1;
                (Effect::Choose { t, val, cut }, self.settle(s, t))
            }
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
                        let buffered = self.model != Model::Sc && !self.holds(s, t);
                        if buffered {
                            s.buf[t].push((x, val));
                        } else {
                            s.mem[x] = val;
                        }
                        Effect::Store {
                            t,
                            x,
                            val,
                            buffered,
                        }
                    }
                    Instr::Fence => Effect::Fence { t },
                    // An exclusive block's bounds drain the buffers as a fence does.
                    Instr::ExclusiveBegin => {
                        s.exclusive = Some((t as u32, 1));
                        Effect::Fence { t }
                    }
                    Instr::ExclusiveEnd => {
                        s.exclusive = None;
                        Effect::Fence { t }
                    }
                    Instr::Join(of) => Effect::Join { t, of },
                    Instr::Spawn(of) => {
                        if s.pc[of] != NOT_STARTED {
                            return (Effect::Spawn { t, of }, Settled::Failed(t, pc));
                        }
                        Effect::Spawn { t, of }
                    }
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
                if let Effect::Spawn { of, .. } = eff {
                    s.pc[of] = 0;
                    // Never stops: [`Program::spawn_error`] holds for the program.
                    let started = self.settle(s, of);
                    debug_assert_eq!(started, Settled::Ok, "a spawned thread's start stops");
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
