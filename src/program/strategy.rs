//! Proptest strategies for small random programs (feature `proptest`): straight-line
//! threads of loads, stores, fences and locked operations over a few locations, with
//! optional forward branches on loaded values — every run prefix extends to a complete
//! run, so run enumeration is an exact oracle.

use super::*;
use proptest::prelude::*;

/// The shape of random programs.
#[derive(Clone, Copy, Debug)]
pub struct ProgParams {
    pub threads: usize,
    pub locs: usize,
    pub max_len: usize,
    /// Relative weights of load, store, fence, rmw, forward branch.
    pub weights: [u32; 5],
    /// Cut each thread into one or two transactions (`begin … end`).
    pub txns: bool,
    /// With `txns`: end every transaction with a fence (transaction-fenced).
    pub fenced: bool,
    /// Weight of each control instruction on the last loaded register: `assume`,
    /// `assert`, and a retry (`if r == v goto` that load, bounded by `--unroll`). 0:
    /// none, so every run prefix extends to a complete run.
    pub control: u32,
    /// Weight of each synchronisation instruction: `lock`/`unlock` of one mutex `m`,
    /// `join` of an earlier thread, `spawn` of a later one, and a load or store of `a[r]`
    /// (an array of two, indexed by the last loaded register: out of bounds when it is
    /// not 0 or 1). 0: none.
    pub sync: u32,
    /// Weight of `exclusive_begin` and of `exclusive_end` (not always matched: an end
    /// outside a block does nothing, a thread's end closes its block). 0: none.
    pub exclusive: u32,
    /// Weight of `r = nondet lo, hi` (one to three values; r becomes the last loaded
    /// register). 0: none.
    pub nondet: u32,
}

impl Default for ProgParams {
    fn default() -> ProgParams {
        ProgParams {
            threads: 2,
            locs: 2,
            max_len: 3,
            weights: [5, 5, 1, 1, 1],
            txns: false,
            fenced: false,
            control: 0,
            sync: 0,
            exclusive: 0,
            nondet: 0,
        }
    }
}

#[derive(Clone, Debug)]
enum Gen {
    Load(usize),
    Store(usize, i64),
    Fence,
    Rmw(usize, u8, i64),
    /// Skip the next instruction when the last loaded register equals the value.
    Skip(i64),
    /// `assume` / `assert` that the last loaded register differs from the value.
    Assume(i64),
    Assert(i64),
    /// Run the last load again while its register equals the value.
    Retry(i64),
    Lock,
    Unlock,
    /// `join` thread u, when it comes before this one and no thread spawns it.
    Join(usize),
    /// `spawn` thread u, when it comes after this one and no thread spawns it yet.
    Spawn(usize),
    /// Load or store (the value) `a[r]`, r the last loaded register (`a[0]` without one).
    LoadIdx,
    StoreIdx(i64),
    ExclusiveBegin,
    ExclusiveEnd,
    Nondet(i64, i64),
}

fn gen_instr(p: ProgParams) -> impl Strategy<Value = Gen> {
    let l = p.locs;
    let w = p.weights;
    // Two unions of at most ten (proptest's larger unions refuse a weight of 0).
    let plain = prop_oneof![
        w[0] => (0..l).prop_map(Gen::Load),
        w[1] => (0..l, 1..3i64).prop_map(|(x, v)| Gen::Store(x, v)),
        w[2] => Just(Gen::Fence),
        w[3] => (0..l, 0..3u8, 0..3i64).prop_map(|(x, k, v)| Gen::Rmw(x, k, v)),
        w[4] => (0..2i64).prop_map(Gen::Skip),
        p.control => (0..3i64).prop_map(Gen::Assume),
        p.control => (0..3i64).prop_map(Gen::Assert),
        p.control => (0..2i64).prop_map(Gen::Retry),
    ];
    let sync = prop_oneof![
        Just(Gen::Lock),
        Just(Gen::Unlock),
        (0..p.threads).prop_map(Gen::Join),
        (0..p.threads).prop_map(Gen::Spawn),
        Just(Gen::LoadIdx),
        (1..3i64).prop_map(Gen::StoreIdx),
    ];
    prop_oneof![
        w.iter().sum::<u32>() + 3 * p.control => plain,
        5 * p.sync => sync,
        p.exclusive => Just(Gen::ExclusiveBegin),
        p.exclusive => Just(Gen::ExclusiveEnd),
        p.nondet => (-1..2i64, 0..3i64).prop_map(|(lo, n)| Gen::Nondet(lo, lo + n)),
    ]
}

/// Random programs of the given shape; the condition-free outcome lists every register
/// and location.
pub fn programs(p: ProgParams) -> impl Strategy<Value = Program> {
    let thread = (
        proptest::collection::vec(gen_instr(p), 1..=p.max_len),
        0..=p.max_len,
    );
    proptest::collection::vec(thread, p.threads..=p.threads).prop_map(move |ths| build(p, &ths))
}

fn build(p: ProgParams, ths: &[(Vec<Gen>, usize)]) -> Program {
    let mut prog = Program::new("random");
    for x in 0..p.locs {
        prog.loc(&format!("x{x}"));
    }
    let (m, a) = if p.sync > 0 {
        let m = prog.loc("m");
        (m, prog.array("a", 2).base)
    } else {
        (0, 0)
    };
    // Threads some `spawn` names (each at most once).
    let mut spawned = vec![false; p.threads];
    for (t, (gens, cut)) in ths.iter().enumerate() {
        let mut th = Thread::new(&format!("P{t}"));
        // Transaction boundaries: before the first instruction and at `cut`.
        let close = |th: &mut Thread, line: usize| {
            if p.fenced {
                th.push(Instr::Fence, line);
            }
            th.push(Instr::End, line);
        };
        if p.txns {
            th.push(Instr::Begin, 0);
        }
        // The last loaded register and the index of its load.
        let mut last: Option<Reg> = None;
        let mut last_at = 0;
        let mut n = 0;
        for (i, g) in gens.iter().enumerate() {
            if p.txns && i == *cut && i > 0 {
                close(&mut th, i + 1);
                th.push(Instr::Begin, i + 1);
            }
            let fresh = |th: &mut Thread, n: &mut usize| {
                *n += 1;
                th.reg(&format!("r{n}"))
            };
            match *g {
                Gen::Load(x) => {
                    let r = fresh(&mut th, &mut n);
                    last_at = th.code.len();
                    th.push(Instr::Load(r, x.into()), i + 1);
                    last = Some(r);
                }
                Gen::Store(x, v) => th.push(Instr::Store(x.into(), Operand::Const(v)), i + 1),
                Gen::Fence => th.push(Instr::Fence, i + 1),
                Gen::Rmw(x, k, v) => {
                    let r = fresh(&mut th, &mut n);
                    let kind = match k {
                        0 => RmwKind::Xchg(Operand::Const(v)),
                        1 => RmwKind::FetchAdd(Operand::Const(1)),
                        _ => RmwKind::Cas(Operand::Const(v), Operand::Const(2)),
                    };
                    last_at = th.code.len();
                    th.push(Instr::Rmw(r, x.into(), kind, None), i + 1);
                    last = Some(r);
                }
                Gen::Assume(v) | Gen::Assert(v) | Gen::Retry(v) => {
                    if let Some(r) = last {
                        let e = |op| Expr::Bin(op, Operand::Reg(r), Operand::Const(v));
                        let i2 = match *g {
                            Gen::Assume(_) => Instr::Assume(e(BinOp::Ne)),
                            Gen::Assert(_) => Instr::Assert(e(BinOp::Ne)),
                            _ => Instr::Branch(e(BinOp::Eq), last_at),
                        };
                        th.push(i2, i + 1);
                    }
                }
                Gen::Nondet(lo, hi) => {
                    let reg = fresh(&mut th, &mut n);
                    last_at = th.code.len();
                    th.push(
                        Instr::Nondet {
                            reg,
                            lo,
                            hi,
                            cut: false,
                        },
                        i + 1,
                    );
                    last = Some(reg);
                }
                Gen::ExclusiveBegin => th.push(Instr::ExclusiveBegin, i + 1),
                Gen::ExclusiveEnd => th.push(Instr::ExclusiveEnd, i + 1),
                Gen::Lock => th.push(Instr::Lock(m.into()), i + 1),
                Gen::Unlock => th.push(Instr::Unlock(m.into()), i + 1),
                Gen::Join(u) => {
                    if u < t && !spawned[u] {
                        th.push(Instr::Join(u), i + 1);
                    }
                }
                Gen::Spawn(u) => {
                    if u > t && !spawned[u] {
                        spawned[u] = true;
                        th.push(Instr::Spawn(u), i + 1);
                    }
                }
                Gen::LoadIdx | Gen::StoreIdx(_) => {
                    let addr = Addr {
                        base: a,
                        index: last.map(|r| (r, 2)),
                    };
                    match *g {
                        Gen::StoreIdx(v) => th.push(Instr::Store(addr, Operand::Const(v)), i + 1),
                        _ => {
                            let r = fresh(&mut th, &mut n);
                            last_at = th.code.len();
                            th.push(Instr::Load(r, addr), i + 1);
                            last = Some(r);
                        }
                    }
                }
                Gen::Skip(v) => {
                    if let Some(r) = last {
                        let to = th.code.len() + 2;
                        th.push(
                            Instr::Branch(
                                Expr::Bin(BinOp::Eq, Operand::Reg(r), Operand::Const(v)),
                                to,
                            ),
                            i + 1,
                        );
                    }
                }
            }
        }
        if p.txns {
            close(&mut th, gens.len());
        }
        // A branch past the end lands on the end.
        let len = th.code.len();
        for i in th.code.iter_mut() {
            if let Instr::Branch(_, to) = i {
                *to = (*to).min(len);
            }
        }
        prog.threads.push(th);
    }
    // A join that may run inside an exclusive block (which readers refuse) becomes a fence.
    while let Some((t, pc)) = prog.join_in_exclusive() {
        prog.threads[t].code[pc] = Instr::Fence;
    }
    // A thread that could stop before its first memory instruction starts with the
    // program: its `spawn` becomes a fence.
    while let Some((u, _)) = prog.spawn_error() {
        for th in &mut prog.threads {
            for i in th.code.iter_mut() {
                if *i == Instr::Spawn(u) {
                    *i = Instr::Fence;
                }
            }
        }
    }
    prog
}
