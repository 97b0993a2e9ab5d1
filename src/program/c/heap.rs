//! The bounded heap: `malloc`, `calloc` and `free` of fixed-size objects.
//!
//! Each allocation site gives each thread a pool of `--heap` objects, laid out when
//! the program is read. A register of the thread counts the objects taken, so an
//! allocation touches no memory and orders nothing (it is no fence). A run that asks
//! a pool for one object more is cut there by a `bound`, as a loop past the
//! unrolling bound is (BOUND HIT). Freed objects are never handed out again.
//!
//! When the program calls `free`, each object has a liveness cell after its own
//! cells, initially 0: `free` reads it (1: a double free fails the run) and writes 1,
//! and every access through a pointer into the object reads it first (1: a use after
//! free fails the run). These are memory accesses like the program's own.

use super::error::{err, R};
use super::lower::{Lower, Pool, PoolKey, Value};
use super::types::Type;
use crate::program::{BinOp, Expr, Instr, Loc, Operand};
use lang_c::ast::*;
use lang_c::span::{Node, Span};

impl<'a> Lower<'a> {
    /// `malloc(size)` or `calloc(n, size)` (the caller checked the arity): a pointer
    /// to the next object of this site's pool for the thread.
    pub fn malloc(&mut self, name: &str, args: &'a [Node<Expression>], span: Span) -> R<Value> {
        let (elem, n) = if name == "calloc" {
            let n = self.types.constant(&args[0])?;
            let (elem, m) = self.sized(&args[1])?;
            if n < 1 {
                return err(args[0].span, "`calloc` of no elements");
            }
            (elem, n.saturating_mul(m))
        } else {
            self.sized(&args[0])?
        };
        let cells = (self.types.cells(&elem) as i64).saturating_mul(n);
        if cells < 1 || cells > u16::MAX as i64 {
            return err(
                span,
                format!("an allocation of {cells} cells (1 to 65,535 are supported)"),
            );
        }
        let ty = if n == 1 {
            elem.clone()
        } else {
            Type::Array(Box::new(elem.clone()), n as u32)
        };
        let pool = self.pool(ty, span);
        let (base, stride) = (self.pools[pool].base, self.pools[pool].stride);
        let taken = match self.taken.get(&pool) {
            Some(r) => *r,
            None => {
                let r = self.b.fresh_reg("heap");
                self.taken.insert(pool, r);
                r
            }
        };
        let room = Expr::Bin(
            BinOp::Lt,
            Operand::Reg(taken),
            Operand::Const(self.heap as i64),
        );
        self.b.emit(Instr::Bound(room));
        let off = self.bin(
            BinOp::Mul,
            Operand::Reg(taken),
            Operand::Const(stride as i64),
        );
        let p = self.add(off, Operand::Const(base as i64 + 1));
        let next = Expr::Bin(BinOp::Add, Operand::Reg(taken), Operand::Const(1));
        self.b.emit(Instr::Assign(taken, next));
        Ok(Value {
            op: p,
            ty: Type::Ptr(Box::new(elem)),
        })
    }

    /// The type and count an allocation's size names: `sizeof(T)`, `sizeof x`, or a
    /// constant times one of them.
    fn sized(&mut self, e: &'a Node<Expression>) -> R<(Type, i64)> {
        match &e.node {
            Expression::SizeOfTy(t) => Ok((self.types.type_name(&t.node.0)?, 1)),
            Expression::SizeOfVal(v) => Ok((self.type_of(&v.node.0)?, 1)),
            Expression::BinaryOperator(b) if b.node.operator.node == BinaryOperator::Multiply => {
                let (l, r) = (&b.node.lhs, &b.node.rhs);
                let (sized, count) = match (&l.node, &r.node) {
                    (Expression::SizeOfTy(_) | Expression::SizeOfVal(_), _) => (l, r),
                    _ => (r, l),
                };
                let (t, m) = self.sized(sized)?;
                let n = self.types.constant(count)?;
                if n < 1 {
                    return err(count.span, "an allocation of no elements");
                }
                Ok((t, m.saturating_mul(n)))
            }
            _ => err(
                e.span,
                "an allocation's size must be `sizeof(T)`, `sizeof x`, or a constant times one of them (the heap holds objects of a type)",
            ),
        }
    }

    /// The type of `sizeof x`'s operand: a name, or a dereference of one.
    fn type_of(&mut self, e: &'a Node<Expression>) -> R<Type> {
        match &e.node {
            Expression::Identifier(_) => Ok(self.place(e)?.ty().clone()),
            Expression::UnaryOperator(u) if u.node.operator.node == UnaryOperator::Indirection => {
                match self.type_of(&u.node.operand)? {
                    Type::Ptr(t) if *t != Type::Void => Ok(*t),
                    _ => err(e.span, "`sizeof *p` where `p` is not a pointer to a type"),
                }
            }
            _ => err(
                e.span,
                "`sizeof` of an expression other than a name or `*name`",
            ),
        }
    }

    /// The pool of this site for the thread being lowered (laid out on first use).
    fn pool(&mut self, ty: Type, span: Span) -> usize {
        // Looked up by its place only: a pool laid out from the plan has the type as
        // the first pass numbered its structs.
        let (thread, site) = (self.cur_thread, span.start);
        if let Some(i) = self
            .pools
            .iter()
            .position(|p| p.key.thread == thread && p.key.site == site)
        {
            return i;
        }
        let name = format!(
            "malloc{}.{}",
            self.line_of(span),
            self.prog.threads[thread].name
        );
        self.lay_out_pool(PoolKey {
            thread,
            site,
            ty,
            name,
        })
    }

    /// Lays out a pool's objects (escaped: only pointers reach them), each followed by
    /// its liveness cell when the program frees; its index.
    pub fn lay_out_pool(&mut self, key: PoolKey) -> usize {
        let base = self.prog.locs.len();
        let cells = self.types.cells(&key.ty) as usize;
        for k in 0..self.heap {
            let name = format!("{}.{k}", key.name);
            let o = self.lay_out(&name, &key.ty);
            self.in_pool.push(true);
            self.escape(o);
            if self.live_cells {
                self.prog.locs.push(format!("{name}.freed"));
                self.prog.init.push(0);
            }
        }
        let stride = cells + self.live_cells as usize;
        self.pools.push(Pool {
            key,
            base,
            stride,
            cells,
        });
        self.pools.len() - 1
    }

    /// `free(p)`: p's object dies (p null: nothing; p not from `malloc`, or freed
    /// already: the run fails).
    pub fn free(&mut self, arg: &'a Node<Expression>) -> R<Value> {
        self.frees = true;
        let v = self.rvalue(arg)?;
        let void = Value {
            op: Operand::Const(0),
            ty: Type::Void,
        };
        let op = self.b.resolve(v.op);
        if op == Operand::Const(0) || !self.live_cells {
            return Ok(void);
        }
        let objects: Vec<(Loc, Loc)> = self
            .pools
            .iter()
            .flat_map(|p| (0..self.heap as usize).map(move |k| (p.base + k * p.stride, p.cells)))
            .map(|(at, cells)| (at, at + cells))
            .collect();
        let done = self.b.label();
        if let Operand::Const(c) = op {
            if let Some(&(_, live)) = objects.iter().find(|o| o.0 as i64 + 1 == c) {
                self.kill(live);
                return Ok(void);
            }
        } else {
            self.b
                .branch(Expr::Bin(BinOp::Eq, op, Operand::Const(0)), done);
            for (at, live) in objects {
                let next = self.b.label();
                self.b.branch(
                    Expr::Bin(BinOp::Ne, op, Operand::Const(at as i64 + 1)),
                    next,
                );
                self.kill(live);
                self.b.jump(done);
                self.b.place(next);
            }
        }
        self.b.assert_because(
            Expr::Op(Operand::Const(0)),
            "`free` of a pointer `malloc` did not return",
        );
        self.b.known = None;
        self.b.place(done);
        Ok(void)
    }

    /// Marks an object dead through its liveness cell (dead already: a double free).
    fn kill(&mut self, live: Loc) {
        let t = self.b.temp();
        self.b.emit(Instr::Load(t, live.into()));
        self.b.assert_because(
            Expr::Bin(BinOp::Eq, Operand::Reg(t), Operand::Const(0)),
            "double free",
        );
        self.b.emit(Instr::Store(live.into(), Operand::Const(1)));
    }

    /// Before an access to cell x: if x lies in a heap object with a liveness cell,
    /// the run fails when the object is dead.
    pub fn check_live(&mut self, x: Loc) {
        if !self.live_cells {
            return;
        }
        // The pools lie in the order of their first cells: the last one starting at or
        // before x is the only one that may hold it.
        let i = self.pools.partition_point(|p| p.base <= x);
        let Some(p) = i.checked_sub(1).map(|i| &self.pools[i]) else {
            return;
        };
        if x >= p.base + p.stride * self.heap as usize {
            return;
        }
        let live = p.base + (x - p.base) / p.stride * p.stride + p.cells;
        let t = self.b.temp();
        self.b.emit(Instr::Load(t, live.into()));
        self.b.assert_because(
            Expr::Bin(BinOp::Eq, Operand::Reg(t), Operand::Const(0)),
            "use after free",
        );
    }
}
