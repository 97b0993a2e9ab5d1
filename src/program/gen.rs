//! Seeded random programs (`tsoser gen-prog`), in families that make the theorems
//! bite: the same seed and shape give the same program.
//!
//! - [`Family::Random`]: loads, stores, fences, locked operations, forward branches on
//!   loaded values, counted loops, optional transactions.
//! - [`Family::StoreBuffering`]: each thread stores to its own locations, then loads
//!   the others' (Burnim et al. Fig. 1, Enea & Farzan's SB): not robust under TSO
//!   unless a fence or a locked operation separates the two.
//! - [`Family::MessagePassing`]: one thread writes data, then a flag; the others read
//!   the flag, then the data: robust under TSO, not under PSO without a fence.
//! - [`Family::TxnFenced`]: every transaction ends with a fence (Enea & Farzan §6.3,
//!   the premise of Theorem 3).

use super::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The program families of `gen-prog --family`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    Random,
    StoreBuffering,
    MessagePassing,
    TxnFenced,
}

impl Family {
    pub const ALL: [Family; 4] = [
        Family::Random,
        Family::StoreBuffering,
        Family::MessagePassing,
        Family::TxnFenced,
    ];

    /// The name in file names and `--family`: `random`, `sb`, `mp`, `fenced`.
    pub fn name(self) -> &'static str {
        match self {
            Family::Random => "random",
            Family::StoreBuffering => "sb",
            Family::MessagePassing => "mp",
            Family::TxnFenced => "fenced",
        }
    }
}

/// The shape of a generated program.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Shape {
    pub family: Family,
    pub threads: usize,
    /// Shared locations.
    pub vars: usize,
    /// Memory accesses per thread, at most (at least 1).
    pub len: usize,
    /// Probability of a fence, and of a locked operation, at each access.
    pub fences: f64,
    pub locked: f64,
    /// Cut threads into transactions (`begin … end`); always for `TxnFenced`.
    pub txns: bool,
    /// Iterations of a counted loop, at most (0: no loops). Explore with `--unroll`
    /// at least this, or the loop's runs are cut.
    pub loops: u32,
}

impl Shape {
    pub fn new(family: Family) -> Shape {
        Shape {
            family,
            threads: 2,
            vars: 2,
            len: 3,
            fences: 0.1,
            locked: 0.1,
            txns: true,
            loops: 0,
        }
    }
}

/// Builds one thread's code, with fresh registers and labels resolved at once.
struct Code<'a> {
    th: Thread,
    rng: &'a mut ChaCha8Rng,
    regs: usize,
    /// The register of the last load, for branches.
    last: Option<Reg>,
}

impl Code<'_> {
    fn fresh(&mut self) -> Reg {
        self.regs += 1;
        self.th.reg(&format!("r{}", self.regs))
    }
    fn push(&mut self, i: Instr) {
        self.th.push(i, 0);
    }
    fn load(&mut self, x: Loc) {
        let r = self.fresh();
        self.push(Instr::Load(r, x.into()));
        self.last = Some(r);
    }
    fn store(&mut self, x: Loc, v: Val) {
        self.push(Instr::Store(x.into(), Operand::Const(v)));
    }
    fn rmw(&mut self, x: Loc, v: Val) {
        let r = self.fresh();
        let k = match self.rng.random_range(0..3) {
            0 => RmwKind::Xchg(Operand::Const(v)),
            1 => RmwKind::FetchAdd(Operand::Const(1)),
            _ => RmwKind::Cas(Operand::Const(0), Operand::Const(v)),
        };
        self.push(Instr::Rmw(r, x.into(), k, None));
        self.last = Some(r);
    }
    /// A load, store or (with probability `locked`) a locked operation on `x`.
    fn access(&mut self, s: &Shape, x: Loc, v: Val, write: bool) {
        if self.rng.random_bool(s.locked) {
            self.rmw(x, v)
        } else if write {
            self.store(x, v)
        } else {
            self.load(x)
        }
    }
    fn maybe_fence(&mut self, s: &Shape) {
        if self.rng.random_bool(s.fences) {
            self.push(Instr::Fence);
        }
    }
}

/// Generates the program of `shape` for `seed`, named `FAMILY-SEED`.
pub fn generate(shape: &Shape, seed: u64) -> Program {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let s = Shape {
        threads: shape.threads.max(1),
        vars: shape.vars.max(1),
        len: shape.len.max(1),
        fences: shape.fences.clamp(0.0, 1.0),
        locked: shape.locked.clamp(0.0, 1.0),
        txns: shape.txns || shape.family == Family::TxnFenced,
        ..*shape
    };
    let mut p = Program::new(&format!("{}-{seed}", s.family.name()));
    for x in 0..s.vars {
        p.loc(&format!("x{x}"));
    }
    for t in 0..s.threads {
        let mut c = Code {
            th: Thread::new(&format!("P{t}")),
            rng: &mut rng,
            regs: 0,
            last: None,
        };
        let n = c.rng.random_range(1..=s.len);
        // The accesses of the thread's body, as (location, write).
        let body: Vec<(Loc, bool)> = match s.family {
            Family::Random | Family::TxnFenced => (0..n)
                .map(|_| (c.rng.random_range(0..s.vars), c.rng.random_bool(0.5)))
                .collect(),
            Family::StoreBuffering => {
                // Own location(s) written first, then the others read.
                let own = t % s.vars;
                let mut b = vec![(own, true)];
                for i in 1..n {
                    let other = (own + i) % s.vars;
                    b.push((other, other == own));
                }
                if b.len() == 1 {
                    b.push(((own + 1) % s.vars, false));
                }
                b
            }
            Family::MessagePassing => {
                // Location 0 is the flag; the producer (thread 0) writes data then
                // the flag, consumers read the flag then the data.
                let data: Vec<Loc> = (0..n.max(1))
                    .map(|_| {
                        if s.vars > 1 {
                            c.rng.random_range(1..s.vars)
                        } else {
                            0
                        }
                    })
                    .collect();
                if t == 0 {
                    let mut b: Vec<(Loc, bool)> = data.iter().map(|&x| (x, true)).collect();
                    b.push((0, true));
                    b
                } else {
                    let mut b = vec![(0, false)];
                    b.extend(data.iter().map(|&x| (x, false)));
                    b
                }
            }
        };
        // Transaction cuts: after which accesses a transaction ends.
        let cut = if s.txns && body.len() > 1 {
            c.rng.random_range(0..body.len())
        } else {
            body.len()
        };
        let looped = s.loops > 0 && c.rng.random_bool(0.3);
        let top = c.th.code.len();
        if s.txns {
            c.push(Instr::Begin);
        }
        for (i, &(x, write)) in body.iter().enumerate() {
            let v = (t as Val + 1) * 10 + i as Val;
            if s.family == Family::Random && c.rng.random_bool(0.15) {
                if let Some(r) = c.last {
                    // Skip this access (one instruction) when the last value read is 0.
                    let to = c.th.code.len() + 2;
                    c.push(Instr::Branch(
                        Expr::Bin(BinOp::Eq, Operand::Reg(r), Operand::Const(0)),
                        to,
                    ));
                }
            }
            c.access(&s, x, v, write);
            let closes = s.txns && (i == cut || i + 1 == body.len());
            if closes {
                if s.family == Family::TxnFenced {
                    c.push(Instr::Fence);
                } else {
                    c.maybe_fence(&s);
                }
                c.push(Instr::End);
                if i + 1 < body.len() {
                    c.push(Instr::Begin);
                }
            } else if s.family != Family::TxnFenced && i + 1 < body.len() {
                c.maybe_fence(&s);
            }
        }
        if looped {
            // for r in 0..k: the body again (r declared here, where it is first named).
            let r = c.fresh();
            let k = c.rng.random_range(s.loops.min(2)..=s.loops) as Val;
            c.push(Instr::Assign(
                r,
                Expr::Bin(BinOp::Add, Operand::Reg(r), Operand::Const(1)),
            ));
            c.push(Instr::Branch(
                Expr::Bin(BinOp::Lt, Operand::Reg(r), Operand::Const(k)),
                top,
            ));
        }
        p.threads.push(c.th);
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_seed_gives_the_same_program() {
        for f in Family::ALL {
            let s = Shape::new(f);
            assert_eq!(generate(&s, 7), generate(&s, 7));
            assert_ne!(
                (0..20).map(|i| generate(&s, i)).collect::<Vec<_>>(),
                vec![generate(&s, 0); 20]
            );
        }
    }
}
