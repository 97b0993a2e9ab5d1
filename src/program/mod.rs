//! Concurrent programs (docs/semantics.md §7), the language: threads of loads, stores,
//! fences, locked read-modify-writes, register arithmetic, branches, `assume`/`assert`
//! and transaction boundaries, with an initial state and a litmus-style final condition.
//! Their runs are [`crate::explore`]'s.
//!
//! - [`parse`]: tsoser's own program text format (`.prog`).
//! - [`litmus`]: herd's X86 litmus format, imported into the same [`Program`].
//! - [`c`]: C programs (`.c`, `.i`), lowered to the same [`Program`].
//! - [`read_program`]: a file in any of these formats, by its extension.
//! - [`print`](mod@print): a program as `.prog` text; [`gen`]: seeded program families;
//!   `strategy`: proptest strategies (feature `proptest`).

pub mod c;
pub mod gen;
pub mod litmus;
pub mod parse;
pub mod print;
#[cfg(feature = "proptest")]
pub mod strategy;
mod tokens;

use std::fmt;

/// Dense index of a shared variable (a memory location).
pub type Loc = usize;
/// Dense index of a register, per thread.
pub type Reg = usize;
/// Values are machine integers.
pub type Val = i64;

/// A constant or a register.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Operand {
    Const(Val),
    Reg(Reg),
}

/// Binary register operations; comparisons give 1 or 0. Division and remainder by 0
/// give 0 (the C front end asserts a divisor is not 0 first); shifts take the amount
/// modulo 64, and `>>` is arithmetic.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Shl,
    Shr,
    And,
    Or,
    Xor,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl BinOp {
    pub fn apply(self, a: Val, b: Val) -> Val {
        match self {
            BinOp::Add => a.wrapping_add(b),
            BinOp::Sub => a.wrapping_sub(b),
            BinOp::Mul => a.wrapping_mul(b),
            BinOp::Div => a
                .checked_div(b)
                .unwrap_or(if b == 0 { 0 } else { a.wrapping_div(b) }),
            BinOp::Rem => a.checked_rem(b).unwrap_or(0),
            BinOp::Shl => a.wrapping_shl(b as u32),
            BinOp::Shr => a.wrapping_shr(b as u32),
            BinOp::And => a & b,
            BinOp::Or => a | b,
            BinOp::Xor => a ^ b,
            BinOp::Eq => (a == b) as Val,
            BinOp::Ne => (a != b) as Val,
            BinOp::Lt => (a < b) as Val,
            BinOp::Le => (a <= b) as Val,
            BinOp::Gt => (a > b) as Val,
            BinOp::Ge => (a >= b) as Val,
        }
    }

    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Rem => "%",
            BinOp::Shl => "<<",
            BinOp::Shr => ">>",
            BinOp::And => "&",
            BinOp::Or => "|",
            BinOp::Xor => "^",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
        }
    }

    pub fn parse(s: &str) -> Option<BinOp> {
        Some(match s {
            "+" => BinOp::Add,
            "-" => BinOp::Sub,
            "*" => BinOp::Mul,
            "/" => BinOp::Div,
            "%" => BinOp::Rem,
            "<<" => BinOp::Shl,
            ">>" => BinOp::Shr,
            "&" => BinOp::And,
            "|" => BinOp::Or,
            "^" => BinOp::Xor,
            "==" => BinOp::Eq,
            "!=" => BinOp::Ne,
            "<" => BinOp::Lt,
            "<=" => BinOp::Le,
            ">" => BinOp::Gt,
            ">=" => BinOp::Ge,
            _ => return None,
        })
    }
}

/// A register expression: an operand or one binary operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Expr {
    Op(Operand),
    Bin(BinOp, Operand, Operand),
}

/// The locked read-modify-writes; each returns the old value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RmwKind {
    /// `xchg`: store the operand.
    Xchg(Operand),
    /// `fadd`: store old + operand (x86 `LOCK XADD`, `LOCK ADD/INC/DEC`).
    FetchAdd(Operand),
    /// `cas`: if old = expected, store new (x86 `LOCK CMPXCHG`). Always locked: a
    /// failing CAS still drains and orders like any locked instruction on x86.
    Cas(Operand, Operand),
}

/// A memory operand: a location `[x]`, or an element `[a[r]]` of an array chosen by a
/// register's value (the array's elements are consecutive locations from `base`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Addr {
    pub base: Loc,
    /// The index register and the array's length; an index outside `0..len` fails the
    /// run at that instruction, as a failed assertion does.
    pub index: Option<(Reg, u32)>,
}

impl From<Loc> for Addr {
    fn from(base: Loc) -> Addr {
        Addr { base, index: None }
    }
}

/// An array: `len` consecutive locations named `name[0]`, … from `base`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Array {
    pub name: String,
    pub base: Loc,
    pub len: u32,
}

/// One instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Instr {
    /// `r = [x]`
    Load(Reg, Addr),
    /// `[x] = v`
    Store(Addr, Operand),
    /// `fence` (MFENCE)
    Fence,
    /// `r = xchg|fadd|cas [x], …` (a flag register, if any, gets old = expected for cas)
    Rmw(Reg, Addr, RmwKind, Option<Reg>),
    /// `lock [m]`: waits for the thread's buffers to drain, then atomically sets m from
    /// 0 to 1; a run that finds m ≠ 0 is cut, as `assume` cuts (the run where the lock
    /// is taken later is another run).
    Lock(Addr),
    /// `unlock [m]`: waits for the thread's buffers to drain, then atomically sets m to 0.
    Unlock(Addr),
    /// `join T`: waits until thread T has run its last instruction and its buffers have
    /// drained (at once if T has not been started: pthread_join's `ESRCH`).
    Join(usize),
    /// `spawn T`: waits for the thread's buffers to drain (a fence, as Nidhugg treats
    /// `pthread_create`), then starts thread T. A thread some `spawn` names does not
    /// start with the program; a second `spawn` of a started thread fails the run.
    Spawn(usize),
    /// `r = e`
    Assign(Reg, Expr),
    /// `if e goto L` (taken when e ≠ 0); `goto L` is `Branch(Op(Const(1)), L)`.
    Branch(Expr, usize),
    /// `assume e`: runs where e = 0 are cut (not counted).
    Assume(Expr),
    /// `assert e`: a run reaching it with e = 0 is an assertion failure.
    Assert(Expr),
    /// `bound e`: a run reaching it with e = 0 is cut and reported as BOUND HIT, as a
    /// backward branch past the unrolling bound is: the C front end's per-entry loop
    /// bound ([`Program::loop_bound`]) and its heap pools when exhausted.
    Bound(Expr),
    /// Transaction boundaries.
    Begin,
    End,
    /// `exclusive_begin`: waits for the thread's buffers to drain (a fence), then runs
    /// the thread alone until the matching `exclusive_end`: no other thread steps, no
    /// other thread's store commits, and the thread's own stores write memory at once
    /// (SV-COMP's `__VERIFIER_atomic_begin`: the block is one atomic step). Nested
    /// blocks count; inside one, `exclusive_begin` only deepens it.
    ExclusiveBegin,
    /// `exclusive_end`: the outermost one lets the other threads run again. Outside a
    /// block it does nothing; a thread that ends inside one leaves it there.
    ExclusiveEnd,
    /// `r = nondet lo, hi`: r gets any value of `lo..=hi`, each its own run (at most
    /// [`MAX_NONDET`] values). `cut`: the range leaves out values the source could
    /// take (a C `__VERIFIER_nondet_int` read over `--nondet`), so an exploration that
    /// reaches it is complete only for the values in the range.
    Nondet {
        reg: Reg,
        lo: Val,
        hi: Val,
        cut: bool,
    },
}

/// The most values one `nondet` may take.
pub const MAX_NONDET: Val = 256;

/// A thread: its instructions (with their source lines) and registers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Thread {
    pub name: String,
    pub code: Vec<Instr>,
    /// 1-based source line of each instruction (0 when built in memory).
    pub lines: Vec<usize>,
    pub regs: Vec<String>,
    pub reg_init: Vec<Val>,
    /// Why a run fails at an `assert` the C front end adds (a use after free, a
    /// null dereference), by the instruction's index; other asserts just fail.
    pub reasons: Vec<(usize, &'static str)>,
}

impl Thread {
    pub fn new(name: &str) -> Thread {
        Thread {
            name: name.to_string(),
            code: Vec::new(),
            lines: Vec::new(),
            regs: Vec::new(),
            reg_init: Vec::new(),
            reasons: Vec::new(),
        }
    }

    /// The register named `name`, declared on first use (initially 0).
    pub fn reg(&mut self, name: &str) -> Reg {
        if let Some(r) = self.regs.iter().position(|n| n == name) {
            return r;
        }
        self.regs.push(name.to_string());
        self.reg_init.push(0);
        self.regs.len() - 1
    }

    pub fn push(&mut self, i: Instr, line: usize) {
        self.code.push(i);
        self.lines.push(line);
    }
}

/// What a condition's atom names.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Place {
    /// `T:r`: register r of thread T (thread index, register index).
    Reg(usize, Reg),
    /// `x`: the final value of a location.
    Mem(Loc),
}

/// A propositional condition over final values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Cond {
    True,
    Atom(Place, Val),
    Not(Box<Cond>),
    /// Conjunction and disjunction, n-ary (a long `/\\` chain stays flat).
    And(Vec<Cond>),
    Or(Vec<Cond>),
}

impl Cond {
    pub fn eval(&self, get: &dyn Fn(&Place) -> Val) -> bool {
        match self {
            Cond::True => true,
            Cond::Atom(p, v) => get(p) == *v,
            Cond::Not(c) => !c.eval(get),
            Cond::And(cs) => cs.iter().all(|c| c.eval(get)),
            Cond::Or(cs) => cs.iter().any(|c| c.eval(get)),
        }
    }

    /// The places the condition mentions, in first-mention order.
    pub fn places(&self, out: &mut Vec<Place>) {
        match self {
            Cond::True => {}
            Cond::Atom(p, _) => {
                if !out.contains(p) {
                    out.push(p.clone())
                }
            }
            Cond::Not(c) => c.places(out),
            Cond::And(cs) | Cond::Or(cs) => {
                for c in cs {
                    c.places(out);
                }
            }
        }
    }
}

/// The three litmus quantifiers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Quantifier {
    /// Some final state satisfies the condition.
    Exists,
    /// No final state satisfies it.
    NotExists,
    /// Every final state satisfies it.
    Forall,
}

impl Quantifier {
    pub fn name(self) -> &'static str {
        match self {
            Quantifier::Exists => "exists",
            Quantifier::NotExists => "~exists",
            Quantifier::Forall => "forall",
        }
    }
}

/// The final condition of a program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Final {
    pub quantifier: Quantifier,
    pub cond: Cond,
    /// The source text of the condition, for printing.
    pub text: String,
    pub line: usize,
}

/// A concurrent program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Program {
    pub name: String,
    pub locs: Vec<String>,
    pub init: Vec<Val>,
    pub threads: Vec<Thread>,
    pub final_cond: Option<Final>,
    /// Places to show in outcomes besides those of the condition (litmus `locations`).
    pub show: Vec<Place>,
    /// A litmus test's stated answers per model (old `final … with tso: ~exists;`).
    pub expect: Vec<(String, Quantifier)>,
    /// The arrays (`array a[N]`), whose elements are among `locs`.
    pub arrays: Vec<Array>,
    /// The program's own unrolling bound (`unroll N`), used when `--unroll` is not given.
    pub unroll: Option<u32>,
    /// `loop_bound N`: the program bounds its loops itself with [`Instr::Bound`], each
    /// to N backward jumps per entry to it (`--loop-bound entry`), so the explorer's
    /// per-thread unrolling bound does not apply.
    pub loop_bound: Option<u32>,
    /// The objects a C program's heap pools give a thread (`--heap`), when it
    /// allocates: runs may also stop at a `bound` of an exhausted pool.
    pub heap: Option<u32>,
}

impl Program {
    pub fn new(name: &str) -> Program {
        Program {
            name: name.to_string(),
            locs: Vec::new(),
            init: Vec::new(),
            threads: Vec::new(),
            final_cond: None,
            show: Vec::new(),
            expect: Vec::new(),
            arrays: Vec::new(),
            unroll: None,
            loop_bound: None,
            heap: None,
        }
    }

    /// Declares array `name` of `len` elements, initially 0 (the caller checks that the
    /// name is new).
    pub fn array(&mut self, name: &str, len: u32) -> &Array {
        let base = self.locs.len();
        for i in 0..len {
            self.locs.push(format!("{name}[{i}]"));
            self.init.push(0);
        }
        self.arrays.push(Array {
            name: name.to_string(),
            base,
            len,
        });
        self.arrays.last().expect("pushed")
    }

    /// A memory operand as the program text writes it (`x`, `a[3]`, `a[r]`).
    pub fn addr_name(&self, t: usize, a: &Addr) -> String {
        match a.index {
            None => self.locs[a.base].clone(),
            Some((r, _)) => {
                let arr = self
                    .arrays
                    .iter()
                    .find(|x| x.base == a.base)
                    .expect("an indexed operand names an array");
                format!("{}[{}]", arr.name, self.threads[t].regs[r])
            }
        }
    }

    /// What goes wrong at instruction `pc` of thread `t` when a run fails there.
    pub fn failure_reason(&self, t: usize, pc: usize) -> String {
        let th = &self.threads[t];
        if let Some((_, why)) = th.reasons.iter().find(|r| r.0 == pc) {
            return (*why).into();
        }
        match th.code[pc] {
            Instr::Assert(_) => "assert fails".into(),
            Instr::Spawn(u) => format!("`spawn {}`: already started", self.threads[u].name),
            _ => format!("`{}`: index out of bounds", self.show_instr(t, pc)),
        }
    }

    /// The location named `name`, declared on first use (initially 0).
    pub fn loc(&mut self, name: &str) -> Loc {
        if let Some(x) = self.locs.iter().position(|n| n == name) {
            return x;
        }
        self.locs.push(name.to_string());
        self.init.push(0);
        self.locs.len() - 1
    }

    /// Per thread, whether some `spawn` names it (it does not start with the program).
    pub fn spawned(&self) -> Vec<bool> {
        let mut out = vec![false; self.threads.len()];
        for th in &self.threads {
            for i in &th.code {
                if let Instr::Spawn(u) = i {
                    out[*u] = true;
                }
            }
        }
        out
    }

    /// A spawned thread that could stop before its first memory instruction (at a
    /// reachable `assume`, `assert`, `bound`, backward branch, or indexed memory operand): its
    /// index and that instruction's. A `spawn` starts its thread in one step, which
    /// must not fail, cut or bound the run.
    pub fn spawn_error(&self) -> Option<(usize, usize)> {
        let spawned = self.spawned();
        for (t, th) in self.threads.iter().enumerate().filter(|(t, _)| spawned[*t]) {
            let mut seen = vec![false; th.code.len() + 1];
            let mut todo = vec![0];
            while let Some(pc) = todo.pop() {
                if std::mem::replace(&mut seen[pc], true) {
                    continue;
                }
                let next = match th.code.get(pc) {
                    None => continue,
                    Some(Instr::Assign(..) | Instr::Begin | Instr::End) => pc + 1,
                    Some(Instr::Branch(_, to)) if *to > pc => {
                        todo.push(*to);
                        pc + 1
                    }
                    Some(
                        Instr::Load(_, a)
                        | Instr::Store(a, _)
                        | Instr::Rmw(_, a, ..)
                        | Instr::Lock(a)
                        | Instr::Unlock(a),
                    ) if a.index.is_none() => continue,
                    Some(
                        Instr::Fence
                        | Instr::Join(_)
                        | Instr::Spawn(_)
                        | Instr::ExclusiveBegin
                        | Instr::ExclusiveEnd,
                    ) => continue,
                    Some(_) => return Some((t, pc)),
                };
                todo.push(next);
            }
        }
        None
    }

    /// A `join` that may run inside an exclusive block: its thread and index. Such a
    /// join could only wait for a thread that cannot run, so the readers refuse it;
    /// whether a join lies inside a block is followed along every branch, with the
    /// nesting depth (up to 64).
    pub fn join_in_exclusive(&self) -> Option<(usize, usize)> {
        const DEEP: u8 = 64;
        for (t, th) in self.threads.iter().enumerate() {
            let n = th.code.len();
            let mut seen = vec![[false; DEEP as usize + 1]; n + 1];
            let mut todo = vec![(0usize, 0u8)];
            while let Some((pc, d)) = todo.pop() {
                if pc >= n || std::mem::replace(&mut seen[pc][d as usize], true) {
                    continue;
                }
                match th.code[pc] {
                    Instr::Join(_) if d > 0 => return Some((t, pc)),
                    Instr::ExclusiveBegin => todo.push((pc + 1, (d + 1).min(DEEP))),
                    Instr::ExclusiveEnd => todo.push((pc + 1, d.saturating_sub(1))),
                    Instr::Branch(Expr::Op(Operand::Const(c)), to) if c != 0 => todo.push((to, d)),
                    Instr::Branch(_, to) => {
                        todo.push((to, d));
                        todo.push((pc + 1, d));
                    }
                    _ => todo.push((pc + 1, d)),
                }
            }
        }
        None
    }

    /// The thread named `name`, if any.
    pub fn thread_ix(&self, name: &str) -> Option<usize> {
        self.threads.iter().position(|t| t.name == name)
    }

    /// The places an outcome shows: those of the final condition and `show`, or, with
    /// neither, every register and every location.
    pub fn observed(&self) -> Vec<Place> {
        let mut out = Vec::new();
        if let Some(f) = &self.final_cond {
            f.cond.places(&mut out);
        }
        for p in &self.show {
            if !out.contains(p) {
                out.push(p.clone());
            }
        }
        if out.is_empty() {
            for (t, th) in self.threads.iter().enumerate() {
                out.extend((0..th.regs.len()).map(|r| Place::Reg(t, r)));
            }
            out.extend((0..self.locs.len()).map(Place::Mem));
        }
        out
    }

    pub fn place_name(&self, p: &Place) -> String {
        match p {
            Place::Reg(t, r) => format!("{}:{}", self.threads[*t].name, self.threads[*t].regs[*r]),
            Place::Mem(x) => self.locs[*x].clone(),
        }
    }

    /// A short description of instruction `pc` of thread `t`, for schedules.
    pub fn show_instr(&self, t: usize, pc: usize) -> String {
        let th = &self.threads[t];
        let op = |o: &Operand| match o {
            Operand::Const(v) => v.to_string(),
            Operand::Reg(r) => th.regs[*r].clone(),
        };
        let ex = |e: &Expr| match e {
            Expr::Op(o) => op(o),
            Expr::Bin(b, x, y) => format!("{} {} {}", op(x), b.symbol(), op(y)),
        };
        let addr = |a: &Addr| self.addr_name(t, a);
        match &th.code[pc] {
            Instr::Load(r, x) => format!("{} = [{}]", th.regs[*r], addr(x)),
            Instr::Store(x, v) => format!("[{}] = {}", addr(x), op(v)),
            Instr::Fence => "fence".into(),
            Instr::Lock(x) => format!("lock [{}]", addr(x)),
            Instr::Unlock(x) => format!("unlock [{}]", addr(x)),
            Instr::Join(u) => format!("join {}", self.threads[*u].name),
            Instr::Spawn(u) => format!("spawn {}", self.threads[*u].name),
            Instr::Rmw(r, x, k, _) => match k {
                RmwKind::Xchg(v) => {
                    format!("{} = xchg [{}], {}", th.regs[*r], addr(x), op(v))
                }
                RmwKind::FetchAdd(v) => {
                    format!("{} = fadd [{}], {}", th.regs[*r], addr(x), op(v))
                }
                RmwKind::Cas(e, n) => format!(
                    "{} = cas [{}], {}, {}{}",
                    th.regs[*r],
                    addr(x),
                    op(e),
                    op(n),
                    match &th.code[pc] {
                        Instr::Rmw(_, _, _, Some(f)) => format!(", {}", th.regs[*f]),
                        _ => String::new(),
                    }
                ),
            },
            Instr::Assign(r, e) => format!("{} = {}", th.regs[*r], ex(e)),
            Instr::Branch(e, l) => format!("if {} goto @{l}", ex(e)),
            Instr::Assume(e) => format!("assume {}", ex(e)),
            Instr::Assert(e) => format!("assert {}", ex(e)),
            Instr::Bound(e) => format!("bound {}", ex(e)),
            Instr::Begin => "begin".into(),
            Instr::End => "end".into(),
            Instr::ExclusiveBegin => "exclusive_begin".into(),
            Instr::ExclusiveEnd => "exclusive_end".into(),
            Instr::Nondet { reg, lo, hi, .. } => format!("{} = nondet {lo}, {hi}", th.regs[*reg]),
        }
    }
}

impl fmt::Display for Quantifier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How to read a program file: what `-D` and `-I` pass to the C preprocessor, and the
/// values C's `__VERIFIER_nondet_*` calls take.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadOptions {
    /// `NAME` or `NAME=VALUE`.
    pub defines: Vec<String>,
    pub includes: Vec<std::path::PathBuf>,
    /// The values (`lo..=hi`) of a nondet call whose type has more: such a call's
    /// range is cut (see [`Instr::Nondet`]).
    pub nondet: (Val, Val),
    /// The objects each `malloc`/`calloc` call site may give each thread (docs/c.md,
    /// *The heap*); a run asking for more is cut at the bound (BOUND HIT).
    pub heap: u32,
    /// How C loops are bounded.
    pub loop_bound: LoopBound,
}

/// The objects a C allocation site gives each thread unless `--heap` says otherwise.
pub const DEFAULT_HEAP: u32 = 4;

/// The most objects `--heap` may give a site.
pub const MAX_HEAP: u32 = 64;

impl Default for ReadOptions {
    fn default() -> ReadOptions {
        ReadOptions {
            defines: Vec::new(),
            includes: Vec::new(),
            nondet: (-1, 2),
            heap: DEFAULT_HEAP,
            loop_bound: LoopBound::Thread,
        }
    }
}

/// How the C front end bounds loops.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LoopBound {
    /// The explorer's unrolling bound: backward branches per thread (`--unroll`).
    #[default]
    Thread,
    /// Each loop left after at most N backward jumps since it was entered, counted in
    /// the program itself ([`Program::loop_bound`]), for Nidhugg's `--unroll=N`
    /// (Abdulla et al., TACAS'15, Table 1's LB; docs/c.md says how they compare); a
    /// backward `goto` at most N times. None: the file's `/* BOUND N */`, else 4.
    Entry(Option<u32>),
}

/// Reads a program file: `.litmus` files as herd X86 litmus tests, `.c` files through
/// the C preprocessor and `.i` files as they are as C, others as `.prog`.
pub fn read_program(path: &std::path::Path) -> Result<Program, crate::error::FileError> {
    read_program_with(path, &ReadOptions::default())
}

/// [`read_program`] with options for C files.
pub fn read_program_with(
    path: &std::path::Path,
    options: &ReadOptions,
) -> Result<Program, crate::error::FileError> {
    use crate::error::{Error, FileError};
    match path.extension().and_then(|e| e.to_str()) {
        Some("c") => return c::read_c(path, options, false),
        Some("i") => return c::read_c(path, options, true),
        _ => {}
    }
    let file = path.display().to_string();
    let wrap = |error| FileError {
        file: file.clone(),
        error,
    };
    let bytes = std::fs::read(path).map_err(|e| wrap(Error::Io(e)))?;
    let text = crate::text::utf8(bytes).map_err(wrap)?;
    if path.extension().is_some_and(|e| e == "litmus") {
        litmus::parse_litmus(&text).map_err(wrap)
    } else {
        parse::parse_program(&text).map_err(wrap)
    }
}
