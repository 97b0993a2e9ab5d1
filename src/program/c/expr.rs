//! Expressions: places (what an lvalue names), values, loads and stores. Operands are
//! evaluated left to right, the right side of an assignment before its left (clang's
//! order). A pointer known only at run time is dereferenced by comparing it with each
//! cell of a matching type whose address the program takes.

use super::error::{err, R};
use super::lower::{Global, Local, Lower, Value};
use super::types::{literal, Type};
use crate::program::{Addr, BinOp, Expr, Instr, Operand, Reg, RmwKind};
use lang_c::ast::*;
use lang_c::span::{Node, Span};

/// Why a run fails at a dereference of a pointer to no cell of its type.
const NO_OBJECT: &str = "a dereference of a null pointer (or of one to no object of its type)";

/// What an lvalue names.
#[derive(Clone, Debug)]
pub enum Place {
    /// A local in a register.
    Reg(Reg, Type),
    /// Memory known when the program is read (a scalar array's element may be chosen
    /// by a register).
    Mem(Addr, Type),
    /// Memory through a pointer (a cell number plus one).
    Ptr(Operand, Type),
}

impl Place {
    pub fn ty(&self) -> &Type {
        match self {
            Place::Reg(_, t) | Place::Mem(_, t) | Place::Ptr(_, t) => t,
        }
    }
}

/// A cell a run-time pointer may point at: one cell, or a scalar array's elements.
enum Target {
    Cell(usize),
    Range(usize, u32),
}

impl<'a> Lower<'a> {
    /// What a name denotes here: a local of the current function, else a global.
    fn lookup(&self, name: &str) -> Option<Local> {
        if let Some(f) = self.frames.last() {
            for s in f.scopes.iter().rev() {
                if let Some(l) = s.get(name) {
                    return Some(l.clone());
                }
            }
        }
        match self.globals.get(name) {
            Some(Global::Obj(o)) => Some(Local::Obj(*o)),
            _ => None,
        }
    }

    /// The place an lvalue expression names.
    pub fn place(&mut self, e: &'a Node<Expression>) -> R<Place> {
        match &e.node {
            Expression::Identifier(i) => {
                let name = &i.node.name;
                match self.lookup(name) {
                    Some(Local::Reg(r, t)) => Ok(Place::Reg(r, t)),
                    Some(Local::Obj(o)) => {
                        let o = &self.objects[o];
                        Ok(Place::Mem(o.base.into(), o.ty.clone()))
                    }
                    None => match self.globals.get(name) {
                        Some(Global::Extern) => err(
                            e.span,
                            format!("`{name}` is declared `extern` and defined nowhere"),
                        ),
                        _ => err(e.span, format!("`{name}` is not declared")),
                    },
                }
            }
            Expression::UnaryOperator(u) if u.node.operator.node == UnaryOperator::Indirection => {
                let v = self.rvalue(&u.node.operand)?;
                match v.ty {
                    Type::Ptr(t) if *t == Type::Void => {
                        err(e.span, "dereferencing a `void *` (cast it first)")
                    }
                    Type::Ptr(t) => Ok(Place::Ptr(v.op, *t)),
                    _ => err(e.span, "dereferencing a value that is not a pointer"),
                }
            }
            Expression::Member(m) => {
                let base = match m.node.operator.node {
                    MemberOperator::Direct => self.place(&m.node.expression)?,
                    MemberOperator::Indirect => {
                        let v = self.rvalue(&m.node.expression)?;
                        match v.ty {
                            Type::Ptr(t) => Place::Ptr(v.op, *t),
                            _ => return err(e.span, "`->` on a value that is not a pointer"),
                        }
                    }
                };
                let Type::Struct(s) = base.ty().clone() else {
                    return err(e.span, "a member of a value that is not a struct");
                };
                let name = &m.node.identifier.node.name;
                let Some((_, t, off)) = self.types.structs[s]
                    .fields
                    .iter()
                    .find(|f| f.0 == *name)
                    .cloned()
                else {
                    return err(
                        e.span,
                        format!(
                            "struct `{}` has no member `{name}`",
                            self.types.structs[s].name
                        ),
                    );
                };
                match base {
                    Place::Mem(a, _) if a.index.is_none() => {
                        Ok(Place::Mem((a.base + off as usize).into(), t))
                    }
                    Place::Ptr(p, _) => {
                        let q = self.add(p, Operand::Const(off as i64));
                        Ok(Place::Ptr(q, t))
                    }
                    _ => err(e.span, "a member of a struct in a register"),
                }
            }
            Expression::BinaryOperator(b) if b.node.operator.node == BinaryOperator::Index => {
                self.index(&b.node.lhs, &b.node.rhs, e.span)
            }
            Expression::Cast(c) => {
                // `(T) x` as an lvalue only through a pointer: `*(int *) p` is handled
                // above; a cast place is the place with another type.
                let t = self.types.type_name(&c.node.type_name)?;
                let p = self.place(&c.node.expression)?;
                Ok(match p {
                    Place::Reg(r, _) => Place::Reg(r, t),
                    Place::Mem(a, _) => Place::Mem(a, t),
                    Place::Ptr(o, _) => Place::Ptr(o, t),
                })
            }
            _ => err(e.span, "not an lvalue the front end supports"),
        }
    }

    /// `a[i]`: an element chosen by a register when `a` is a scalar array laid out as
    /// one, else through pointer arithmetic.
    fn index(&mut self, a: &'a Node<Expression>, i: &'a Node<Expression>, span: Span) -> R<Place> {
        let ap = match &a.node {
            Expression::Identifier(_) | Expression::Member(_) => Some(self.place(a)?),
            _ => None,
        };
        if let Some(Place::Mem(addr, Type::Array(elem, n))) = &ap {
            let iv = self.rvalue(i)?;
            let c = self.types.cells(elem) as i64;
            match iv.op {
                Operand::Const(k) if (0..*n as i64).contains(&k) => {
                    return Ok(Place::Mem(
                        (addr.base + (k * c) as usize).into(),
                        (**elem).clone(),
                    ))
                }
                Operand::Const(k) => {
                    return err(
                        span,
                        format!("index {k} is out of bounds of an array of {n}"),
                    )
                }
                Operand::Reg(r)
                    if elem.is_scalar()
                        && addr.index.is_none()
                        && self
                            .prog
                            .arrays
                            .iter()
                            .any(|x| x.base == addr.base && x.len == *n) =>
                {
                    return Ok(Place::Mem(
                        Addr {
                            base: addr.base,
                            index: Some((r, *n)),
                        },
                        (**elem).clone(),
                    ))
                }
                Operand::Reg(_) => {
                    let p = self.decay(ap.expect("a place"), span)?;
                    return self.offset_place(p, iv, span);
                }
            }
        }
        let p = match ap {
            Some(pl) => self.decay(pl, span)?,
            None => self.rvalue(a)?,
        };
        let iv = self.rvalue(i)?;
        self.offset_place(p, iv, span)
    }

    fn offset_place(&mut self, p: Value, i: Value, span: Span) -> R<Place> {
        let Some(elem) = p.ty.pointee().cloned() else {
            return err(span, "indexing a value that is not a pointer or array");
        };
        let q = self.pointer_add(&p, i.op, BinOp::Add);
        Ok(Place::Ptr(q, elem))
    }

    /// An array place as a pointer to its first element; other places loaded.
    fn decay(&mut self, p: Place, span: Span) -> R<Value> {
        match p {
            Place::Mem(a, Type::Array(e, _)) if a.index.is_none() => {
                if let Some(o) = self.object_at(a.base) {
                    self.escape(o);
                }
                Ok(Value {
                    op: Operand::Const(a.base as i64 + 1),
                    ty: Type::Ptr(e),
                })
            }
            Place::Ptr(o, Type::Array(e, _)) => Ok(Value {
                op: o,
                ty: Type::Ptr(e),
            }),
            p => self.load(&p, span),
        }
    }

    /// p ± i·cells(*p), as an operand.
    fn pointer_add(&mut self, p: &Value, i: Operand, op: BinOp) -> Operand {
        let c = p.ty.pointee().map_or(1, |t| self.types.cells(t).max(1)) as i64;
        let scaled = self.bin(BinOp::Mul, i, Operand::Const(c));
        self.bin(op, p.op, scaled)
    }

    /// a + b as an operand (folded when both are known).
    pub fn add(&mut self, a: Operand, b: Operand) -> Operand {
        self.bin(BinOp::Add, a, b)
    }

    /// `a op b` into a new register, or its value when both are known.
    pub fn bin(&mut self, op: BinOp, a: Operand, b: Operand) -> Operand {
        let (a, b) = (self.b.resolve(a), self.b.resolve(b));
        match (op, a, b) {
            (_, Operand::Const(x), Operand::Const(y)) => Operand::Const(op.apply(x, y)),
            (BinOp::Add | BinOp::Sub, x, Operand::Const(0))
            | (BinOp::Mul, x, Operand::Const(1)) => x,
            _ => {
                let t = self.b.temp();
                self.b.emit(Instr::Assign(t, Expr::Bin(op, a, b)));
                Operand::Reg(t)
            }
        }
    }

    /// The address of a place.
    fn address(&mut self, p: Place, span: Span) -> R<Value> {
        match p {
            Place::Reg(..) => err(span, "the address of a register variable"),
            Place::Mem(a, t) => {
                if let Some(o) = self.object_at(a.base) {
                    self.escape(o);
                }
                let base = Operand::Const(a.base as i64 + 1);
                let op = match a.index {
                    None => base,
                    Some((r, _)) => self.add(base, Operand::Reg(r)),
                };
                Ok(Value {
                    op,
                    ty: Type::Ptr(Box::new(t)),
                })
            }
            Place::Ptr(o, t) => Ok(Value {
                op: o,
                ty: Type::Ptr(Box::new(t)),
            }),
        }
    }

    /// Runs `f` on the address a memory place names: through a run-time pointer, on
    /// each cell it may point at (a dereference of no such cell fails the run).
    pub fn access(&mut self, p: &Place, span: Span, mut f: impl FnMut(&mut Self, Addr)) -> R<()> {
        let (op, ty) = match p {
            Place::Mem(a, _) => {
                self.check_live(a.base);
                f(self, *a);
                return Ok(());
            }
            Place::Reg(..) => return err(span, "a register has no address"),
            Place::Ptr(op, ty) => (self.b.resolve(*op), ty.clone()),
        };
        if !ty.is_scalar() {
            return err(span, "copying a struct or array is not supported");
        }
        match op {
            Operand::Const(c) if c >= 1 && ((c - 1) as usize) < self.prog.locs.len() => {
                self.check_live((c - 1) as usize);
                f(self, ((c - 1) as usize).into());
            }
            Operand::Const(_) => {
                // NULL (or no cell at all): every run reaching it fails.
                self.b
                    .assert_because(Expr::Op(Operand::Const(0)), NO_OBJECT);
                self.b.known = None;
            }
            Operand::Reg(r) => {
                let seen = self
                    .deref_seen
                    .map_or(self.escaped_count, |s| s.min(self.escaped_count));
                self.deref_seen = Some(seen);
                let done = self.b.label();
                for t in self.targets(&ty) {
                    let next = self.b.label();
                    match t {
                        Target::Cell(x) => {
                            let e =
                                Expr::Bin(BinOp::Ne, Operand::Reg(r), Operand::Const(x as i64 + 1));
                            self.b.branch(e, next);
                            self.check_live(x);
                            f(self, x.into());
                        }
                        Target::Range(base, n) => {
                            let i = self.bin(
                                BinOp::Sub,
                                Operand::Reg(r),
                                Operand::Const(base as i64 + 1),
                            );
                            let Operand::Reg(i) = i else {
                                unreachable!("r is not known")
                            };
                            self.b.branch(
                                Expr::Bin(BinOp::Lt, Operand::Reg(i), Operand::Const(0)),
                                next,
                            );
                            self.b.branch(
                                Expr::Bin(BinOp::Ge, Operand::Reg(i), Operand::Const(n as i64)),
                                next,
                            );
                            self.check_live(base);
                            f(
                                self,
                                Addr {
                                    base,
                                    index: Some((i, n)),
                                },
                            );
                        }
                    }
                    self.b.jump(done);
                    self.b.place(next);
                }
                self.b
                    .assert_because(Expr::Op(Operand::Const(0)), NO_OBJECT);
                self.b.known = None;
                self.b.place(done);
            }
        }
        Ok(())
    }

    /// The cells of escaped objects a pointer to `ty` may point at.
    fn targets(&self, ty: &Type) -> Vec<Target> {
        let mut out = Vec::new();
        for (o, obj) in self.objects.iter().enumerate() {
            if self.escaped[o] {
                self.walk(obj.base, &obj.ty, ty, &mut out);
            }
        }
        out
    }

    fn walk(&self, base: usize, t: &Type, want: &Type, out: &mut Vec<Target>) {
        match t {
            Type::Array(e, n)
                if e.is_scalar()
                    && e.same_kind(want)
                    && self
                        .prog
                        .arrays
                        .iter()
                        .any(|a| a.base == base && a.len == *n) =>
            {
                out.push(Target::Range(base, *n));
            }
            Type::Array(e, n) => {
                let c = self.types.cells(e) as usize;
                for i in 0..*n as usize {
                    self.walk(base + i * c, e, want, out);
                }
            }
            Type::Struct(s) => {
                for (_, ft, off) in &self.types.structs[*s].fields {
                    self.walk(base + *off as usize, ft, want, out);
                }
            }
            t if t.is_scalar() && t.same_kind(want) => out.push(Target::Cell(base)),
            _ => {}
        }
    }

    /// The value of a place (a new register for memory).
    pub fn load(&mut self, p: &Place, span: Span) -> R<Value> {
        let ty = p.ty().plain().clone();
        if let Place::Reg(r, _) = p {
            return Ok(Value {
                op: self.b.resolve(Operand::Reg(*r)),
                ty,
            });
        }
        if !ty.is_scalar() {
            return err(span, "copying a struct or array is not supported");
        }
        let t = self.b.temp();
        self.access(p, span, |l, a| l.b.emit(Instr::Load(t, a)))?;
        Ok(Value {
            op: Operand::Reg(t),
            ty,
        })
    }

    /// Stores v into a place (`_Bool` places get 0 or 1).
    pub fn store(&mut self, p: &Place, v: &Value, span: Span) -> R<()> {
        let op = self.convert(v, p.ty());
        match p {
            Place::Reg(r, _) => {
                self.b.emit(Instr::Assign(*r, Expr::Op(op)));
                Ok(())
            }
            _ => {
                if !p.ty().is_scalar() {
                    return err(span, "copying a struct or array is not supported");
                }
                if p.ty().is_atomic() {
                    // A sequentially consistent store: `xchg`, as clang compiles it.
                    let t = self.b.temp();
                    let x = RmwKind::Xchg(op);
                    return self.access(p, span, |l, a| l.b.emit(Instr::Rmw(t, a, x, None)));
                }
                self.access(p, span, |l, a| l.b.emit(Instr::Store(a, op)))
            }
        }
    }

    /// One `LOCK XADD` (`fadd`) of delta to the object at p: the old value. With
    /// `scale` (C's `+=`, `-=`, `++`, `--` on an `_Atomic` object) the object must be an
    /// integer or a pointer, and a pointer's delta counts its pointee's cells; without
    /// it (the `__sync`/`__atomic` builtins, which GCC does not scale) delta is added
    /// as it is.
    pub fn fetch_add(&mut self, p: &Place, delta: Operand, scale: bool, span: Span) -> R<Value> {
        let ty = p.ty().plain().clone();
        let delta = match &ty {
            _ if !scale => delta,
            Type::Ptr(t) => {
                let c = self.types.cells(t) as i64;
                self.bin(BinOp::Mul, delta, Operand::Const(c))
            }
            Type::Int => delta,
            _ => {
                return err(
                    span,
                    "arithmetic on an `_Atomic` object that is not an integer or a pointer",
                )
            }
        };
        let t = self.b.temp();
        let x = RmwKind::FetchAdd(delta);
        self.access(p, span, |l, a| l.b.emit(Instr::Rmw(t, a, x, None)))?;
        Ok(Value {
            op: Operand::Reg(t),
            ty,
        })
    }

    /// A value converted to type t (`_Bool`: 0 or 1).
    pub fn convert(&mut self, v: &Value, t: &Type) -> Operand {
        if *t.plain() == Type::Bool && *v.ty.plain() != Type::Bool {
            self.bin(BinOp::Ne, v.op, Operand::Const(0))
        } else {
            self.b.resolve(v.op)
        }
    }

    /// The value of an expression (arrays decay to pointers).
    pub fn rvalue(&mut self, e: &'a Node<Expression>) -> R<Value> {
        let v = self.value(e)?;
        if v.ty == Type::Void {
            return err(e.span, "a `void` expression used as a value");
        }
        Ok(v)
    }

    /// The value of an expression, which may be `void`.
    pub fn value(&mut self, e: &'a Node<Expression>) -> R<Value> {
        use BinaryOperator as B;
        match &e.node {
            Expression::Constant(c) => Ok(Value::int(literal(c)?)),
            Expression::Identifier(i) => {
                let name = &i.node.name;
                if self.lookup(name).is_none() {
                    if let Some(v) = self.types.enums.get(name) {
                        return Ok(Value::int(*v));
                    }
                    if self.funcs.contains_key(name) {
                        return Ok(Value {
                            op: Operand::Const(0),
                            ty: Type::Func(name.clone()),
                        });
                    }
                }
                let p = self.place(e)?;
                self.decay(p, e.span)
            }
            Expression::StringLiteral(_) => err(e.span, "string literals are not supported here"),
            Expression::Member(_) => {
                let p = self.place(e)?;
                self.decay(p, e.span)
            }
            Expression::Call(c) => self.call(c, e.span),
            Expression::UnaryOperator(u) => self.unary(u, e),
            Expression::Cast(c) => {
                let t = self.types.type_name(&c.node.type_name)?;
                if t == Type::Void {
                    // `(void) sizeof (…)` (glibc's `assert`) is never evaluated.
                    if !matches!(
                        c.node.expression.node,
                        Expression::SizeOfVal(_) | Expression::SizeOfTy(_)
                    ) {
                        self.value(&c.node.expression)?;
                    }
                    return Ok(Value {
                        op: Operand::Const(0),
                        ty: Type::Void,
                    });
                }
                let v = self.rvalue(&c.node.expression)?;
                let op = self.convert(&v, &t);
                Ok(Value { op, ty: t })
            }
            Expression::BinaryOperator(b) => match b.node.operator.node.clone() {
                B::Index => {
                    let p = self.place(e)?;
                    self.decay(p, e.span)
                }
                B::Assign => {
                    let v = self.rvalue(&b.node.rhs)?;
                    let p = self.place(&b.node.lhs)?;
                    self.store(&p, &v, e.span)?;
                    let op = self.convert(&v, p.ty());
                    Ok(Value {
                        op,
                        ty: p.ty().plain().clone(),
                    })
                }
                B::LogicalAnd | B::LogicalOr => self.logical(e),
                op => {
                    if let Some(arith) = compound(&op) {
                        let v = self.rvalue(&b.node.rhs)?;
                        let p = self.place(&b.node.lhs)?;
                        if p.ty().is_atomic() && !matches!(p, Place::Reg(..)) {
                            // `+=` and `-=` are one locked instruction; C11 makes every
                            // compound assignment atomic, which x86 has no one
                            // instruction for.
                            let delta = match arith {
                                BinOp::Add => self.b.resolve(v.op),
                                BinOp::Sub => self.bin(BinOp::Sub, Operand::Const(0), v.op),
                                _ => return err(
                                    e.span,
                                    "a compound assignment other than `+=` and `-=` to an `_Atomic` object",
                                ),
                            };
                            let old = self.fetch_add(&p, delta, true, e.span)?;
                            return self.arith(BinOp::Add, &old, &Value { op: delta, ty: Type::Int }, e.span);
                        }
                        let old = self.load(&p, e.span)?;
                        let new = self.arith(arith, &old, &v, e.span)?;
                        self.store(&p, &new, e.span)?;
                        let op = self.convert(&new, p.ty());
                        return Ok(Value {
                            op,
                            ty: p.ty().plain().clone(),
                        });
                    }
                    let x = self.rvalue(&b.node.lhs)?;
                    let y = self.rvalue(&b.node.rhs)?;
                    let arith = plain(&op).ok_or_else(|| {
                        super::error::CErr::new(
                            e.span,
                            format!("the operator {op:?} is not supported"),
                        )
                    })?;
                    self.arith(arith, &x, &y, e.span)
                }
            },
            Expression::Conditional(c) => {
                let (els, end) = (self.b.label(), self.b.label());
                self.jump_if(&c.node.condition, false, els)?;
                let r = self.b.temp();
                let a = self.value(&c.node.then_expression)?;
                if a.ty != Type::Void {
                    self.b.emit(Instr::Assign(r, Expr::Op(a.op)));
                }
                self.b.jump(end);
                self.b.place(els);
                let bv = self.value(&c.node.else_expression)?;
                if bv.ty != Type::Void {
                    self.b.emit(Instr::Assign(r, Expr::Op(bv.op)));
                }
                self.b.place(end);
                Ok(Value {
                    op: self.b.resolve(Operand::Reg(r)),
                    ty: if a.ty == Type::Void { bv.ty } else { a.ty },
                })
            }
            Expression::Comma(es) => {
                let mut last = Value::int(0);
                for x in es.iter() {
                    last = self.value(x)?;
                }
                Ok(last)
            }
            Expression::Statement(s) => Ok(self.stmt(s)?.unwrap_or(Value {
                op: Operand::Const(0),
                ty: Type::Void,
            })),
            Expression::SizeOfTy(_) | Expression::SizeOfVal(_) | Expression::AlignOf(_) => err(
                e.span,
                "`sizeof` is supported only as an allocation's size (`malloc(sizeof(T))`): sizes here are cells, not bytes",
            ),
            Expression::GenericSelection(_) => err(e.span, "`_Generic` is not supported"),
            Expression::CompoundLiteral(_) => err(e.span, "compound literals are not supported"),
            Expression::OffsetOf(_) => err(e.span, "`offsetof` is not supported"),
            Expression::VaArg(_) => err(e.span, "`va_arg` is not supported"),
        }
    }

    fn unary(&mut self, u: &'a Node<UnaryOperatorExpression>, e: &'a Node<Expression>) -> R<Value> {
        use UnaryOperator as U;
        let span = e.span;
        match u.node.operator.node {
            U::Address => {
                if let Expression::Identifier(i) = &u.node.operand.node {
                    if self.lookup(&i.node.name).is_none() && self.funcs.contains_key(&i.node.name)
                    {
                        return Ok(Value {
                            op: Operand::Const(0),
                            ty: Type::Func(i.node.name.clone()),
                        });
                    }
                }
                let p = self.place(&u.node.operand)?;
                self.address(p, span)
            }
            U::Indirection => {
                let p = self.place(e)?;
                self.decay(p, span)
            }
            U::Plus => self.rvalue(&u.node.operand),
            U::Minus => {
                let v = self.rvalue(&u.node.operand)?;
                let op = self.bin(BinOp::Sub, Operand::Const(0), v.op);
                Ok(Value { op, ty: Type::Int })
            }
            U::Complement => {
                let v = self.rvalue(&u.node.operand)?;
                let op = self.bin(BinOp::Xor, v.op, Operand::Const(-1));
                Ok(Value { op, ty: Type::Int })
            }
            U::Negate => {
                let v = self.rvalue(&u.node.operand)?;
                let op = self.bin(BinOp::Eq, v.op, Operand::Const(0));
                Ok(Value { op, ty: Type::Int })
            }
            U::PreIncrement | U::PreDecrement | U::PostIncrement | U::PostDecrement => {
                let p = self.place(&u.node.operand)?;
                let up = matches!(u.node.operator.node, U::PreIncrement | U::PostIncrement);
                let pre = matches!(u.node.operator.node, U::PreIncrement | U::PreDecrement);
                if p.ty().is_atomic() && !matches!(p, Place::Reg(..)) {
                    let d = if up { 1 } else { -1 };
                    let old = self.fetch_add(&p, Operand::Const(d), true, span)?;
                    let op = if up { BinOp::Add } else { BinOp::Sub };
                    let new = self.arith(op, &old, &Value::int(1), span)?;
                    return Ok(if pre { new } else { old });
                }
                let old = self.load(&p, span)?;
                // Keep the old value in a register of its own: a store may change it.
                let old = match (old.op, &p) {
                    (Operand::Reg(r), Place::Reg(..)) => {
                        let t = self.b.temp();
                        self.b.emit(Instr::Assign(t, Expr::Op(Operand::Reg(r))));
                        Value {
                            op: Operand::Reg(t),
                            ty: old.ty,
                        }
                    }
                    _ => old,
                };
                let op = if up { BinOp::Add } else { BinOp::Sub };
                let new = self.arith(op, &old, &Value::int(1), span)?;
                self.store(&p, &new, span)?;
                Ok(if pre { new } else { old })
            }
        }
    }

    /// `x op y` with C's pointer arithmetic; `/` and `%` assert a divisor is not 0.
    fn arith(&mut self, op: BinOp, x: &Value, y: &Value, span: Span) -> R<Value> {
        let px = matches!(x.ty, Type::Ptr(_));
        let py = matches!(y.ty, Type::Ptr(_));
        match op {
            BinOp::Add | BinOp::Sub if px && !py => {
                let o = self.pointer_add(x, y.op, op);
                return Ok(Value {
                    op: o,
                    ty: x.ty.clone(),
                });
            }
            BinOp::Add if py && !px => {
                let o = self.pointer_add(y, x.op, op);
                return Ok(Value {
                    op: o,
                    ty: y.ty.clone(),
                });
            }
            BinOp::Sub if px && py => {
                let d = self.bin(BinOp::Sub, x.op, y.op);
                let c = x.ty.pointee().map_or(1, |t| self.types.cells(t).max(1)) as i64;
                let o = self.bin(BinOp::Div, d, Operand::Const(c));
                return Ok(Value {
                    op: o,
                    ty: Type::Int,
                });
            }
            BinOp::Div | BinOp::Rem => match self.b.resolve(y.op) {
                Operand::Const(0) => return err(span, "division by 0"),
                Operand::Const(_) => {}
                d => self
                    .b
                    .emit(Instr::Assert(Expr::Bin(BinOp::Ne, d, Operand::Const(0)))),
            },
            _ => {}
        }
        if (px || py) && !is_comparison(op) {
            return err(span, format!("pointer arithmetic with `{}`", op.symbol()));
        }
        let o = self.bin(op, x.op, y.op);
        Ok(Value {
            op: o,
            ty: Type::Int,
        })
    }

    /// `a && b`, `a || b` as 0 or 1.
    fn logical(&mut self, e: &'a Node<Expression>) -> R<Value> {
        let end = self.b.label();
        let r = self.b.temp();
        self.b.emit(Instr::Assign(r, Expr::Op(Operand::Const(0))));
        self.jump_if(e, false, end)?;
        self.b.emit(Instr::Assign(r, Expr::Op(Operand::Const(1))));
        self.b.place(end);
        Ok(Value {
            op: self.b.resolve(Operand::Reg(r)),
            ty: Type::Int,
        })
    }

    /// Jumps to `l` when the condition's truth is `truth` (`&&`, `||` and `!` as jumps).
    pub fn jump_if(&mut self, c: &'a Node<Expression>, truth: bool, l: usize) -> R<()> {
        use BinaryOperator as B;
        match &c.node {
            Expression::UnaryOperator(u) if u.node.operator.node == UnaryOperator::Negate => {
                self.jump_if(&u.node.operand, !truth, l)
            }
            Expression::BinaryOperator(b)
                if matches!(b.node.operator.node, B::LogicalAnd | B::LogicalOr) =>
            {
                let and = b.node.operator.node == B::LogicalAnd;
                if and != truth {
                    // a && b false: a false or b false; a || b true: a true or b true.
                    self.jump_if(&b.node.lhs, truth, l)?;
                    if self.b.reachable() {
                        self.jump_if(&b.node.rhs, truth, l)?;
                    }
                } else {
                    let skip = self.b.label();
                    self.jump_if(&b.node.lhs, !truth, skip)?;
                    if self.b.reachable() {
                        self.jump_if(&b.node.rhs, truth, l)?;
                    }
                    self.b.place(skip);
                }
                Ok(())
            }
            Expression::BinaryOperator(b)
                if plain(&b.node.operator.node).is_some_and(is_comparison) =>
            {
                let op = plain(&b.node.operator.node).expect("a comparison");
                let x = self.rvalue(&b.node.lhs)?;
                let y = self.rvalue(&b.node.rhs)?;
                let op = if truth { op } else { negate(op) };
                let (x, y) = (self.b.resolve(x.op), self.b.resolve(y.op));
                let e = match (x, y) {
                    (Operand::Const(a), Operand::Const(b)) => {
                        Expr::Op(Operand::Const(op.apply(a, b)))
                    }
                    _ => Expr::Bin(op, x, y),
                };
                self.b.branch(e, l);
                Ok(())
            }
            // Only a nondet call's truth matters here: 0 or 1 stands for every value,
            // so the range is never cut.
            Expression::Call(call)
                if call.node.arguments.is_empty()
                    && matches!(&call.node.callee.node, Expression::Identifier(id)
                        if id.node.name.strip_prefix("__VERIFIER_nondet_")
                            .is_some_and(|t| super::types::nondet_domain(t).is_some())
                            && !self.funcs.contains_key(&id.node.name)) =>
            {
                let r = self.nondet_value(0, 1, false);
                self.b.branch(
                    if truth {
                        Expr::Op(r)
                    } else {
                        Expr::Bin(BinOp::Eq, r, Operand::Const(0))
                    },
                    l,
                );
                Ok(())
            }
            _ => {
                let v = self.rvalue(c)?;
                let v = self.b.resolve(v.op);
                let e = match (v, truth) {
                    (Operand::Const(a), _) => Expr::Op(Operand::Const(((a != 0) == truth) as i64)),
                    (_, true) => Expr::Op(v),
                    (_, false) => Expr::Bin(BinOp::Eq, v, Operand::Const(0)),
                };
                self.b.branch(e, l);
                Ok(())
            }
        }
    }
}

fn is_comparison(op: BinOp) -> bool {
    matches!(
        op,
        BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge
    )
}

fn negate(op: BinOp) -> BinOp {
    match op {
        BinOp::Eq => BinOp::Ne,
        BinOp::Ne => BinOp::Eq,
        BinOp::Lt => BinOp::Ge,
        BinOp::Le => BinOp::Gt,
        BinOp::Gt => BinOp::Le,
        BinOp::Ge => BinOp::Lt,
        o => o,
    }
}

/// The register operation of a C binary operator.
fn plain(op: &BinaryOperator) -> Option<BinOp> {
    use BinaryOperator as B;
    Some(match op {
        B::Multiply => BinOp::Mul,
        B::Divide => BinOp::Div,
        B::Modulo => BinOp::Rem,
        B::Plus => BinOp::Add,
        B::Minus => BinOp::Sub,
        B::ShiftLeft => BinOp::Shl,
        B::ShiftRight => BinOp::Shr,
        B::Less => BinOp::Lt,
        B::Greater => BinOp::Gt,
        B::LessOrEqual => BinOp::Le,
        B::GreaterOrEqual => BinOp::Ge,
        B::Equals => BinOp::Eq,
        B::NotEquals => BinOp::Ne,
        B::BitwiseAnd => BinOp::And,
        B::BitwiseXor => BinOp::Xor,
        B::BitwiseOr => BinOp::Or,
        _ => return None,
    })
}

/// The operation of a compound assignment (`+=` …).
fn compound(op: &BinaryOperator) -> Option<BinOp> {
    use BinaryOperator as B;
    Some(match op {
        B::AssignMultiply => BinOp::Mul,
        B::AssignDivide => BinOp::Div,
        B::AssignModulo => BinOp::Rem,
        B::AssignPlus => BinOp::Add,
        B::AssignMinus => BinOp::Sub,
        B::AssignShiftLeft => BinOp::Shl,
        B::AssignShiftRight => BinOp::Shr,
        B::AssignBitwiseAnd => BinOp::And,
        B::AssignBitwiseXor => BinOp::Xor,
        B::AssignBitwiseOr => BinOp::Or,
        _ => return None,
    })
}
