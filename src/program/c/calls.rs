//! Calls: functions of the program are inlined (recursion is an input error); the
//! pthread, SV-COMP verifier, fence and atomic builtins become instructions. The
//! `__sync_*` and `__atomic_*` read-modify-writes are x86's locked instructions; a
//! sequentially consistent `__atomic_store_n` is `xchg` (clang's choice; GCC's
//! `mov` + `mfence` orders the same under TSO), other atomic loads and stores are
//! plain, and only a sequentially consistent `__atomic_thread_fence` is `mfence`.

use super::error::{err, R};
use super::expr::Place;
use super::lower::{Frame, Local, Lower, Value};
use super::stmt::addressed;
use super::types::{declarator_name, Type};
use crate::program::{BinOp, Expr, Instr, Operand, RmwKind};
use lang_c::ast::*;
use lang_c::span::{Node, Span};
use std::collections::HashMap;

/// `__ATOMIC_SEQ_CST`, as GCC and clang define it.
const SEQ_CST: i64 = 5;

/// How deep inlined calls may nest.
const MAX_INLINED: usize = 64;

/// Calls that are an assertion failure.
const FAILS: [&str; 5] = [
    "__assert_fail",
    "__assert",
    "__assert_perror_fail",
    "reach_error",
    "__VERIFIER_error",
];

/// Calls that end the program without an error: the run is dropped, as a false
/// `assume` drops it (SV-COMP's `unreach-call` is violated only by `reach_error`;
/// its tasks use `if (!c) abort();` as an assumption).
const ENDS: [&str; 1] = ["abort"];

impl<'a> Lower<'a> {
    pub fn call(&mut self, c: &'a Node<CallExpression>, span: Span) -> R<Value> {
        let Expression::Identifier(id) = &c.node.callee.node else {
            return err(span, "calls through function pointers are not supported");
        };
        let name = id.node.name.as_str();
        let args = &c.node.arguments;
        let void = Value {
            op: Operand::Const(0),
            ty: Type::Void,
        };
        let arity = |n: usize| {
            if args.len() == n {
                Ok(())
            } else {
                err(
                    span,
                    format!("`{name}` takes {n} arguments, not {}", args.len()),
                )
            }
        };
        // Before a definition in the file: SV-COMP's tasks define `reach_error() {}`
        // with an empty body, and the call itself is the error.
        if FAILS.contains(&name) || ENDS.contains(&name) {
            let never = Expr::Op(Operand::Const(0));
            self.b.emit(if FAILS.contains(&name) {
                Instr::Assert(never)
            } else {
                Instr::Assume(never)
            });
            self.b.known = None;
            return Ok(void);
        }
        if let Some(def) = self.funcs.get(name).copied() {
            let mut vals = Vec::new();
            for a in args {
                vals.push(self.rvalue(a)?);
            }
            // SV-COMP runs a function named `__VERIFIER_atomic_*` as one step: an
            // exclusive block (its arguments are evaluated before it).
            if !name.starts_with("__VERIFIER_atomic") {
                return self.inline(def, vals, span);
            }
            self.atomic_begin();
            let v = self.inline(def, vals, span)?;
            self.atomic_end();
            return Ok(v);
        }
        if let Some(ty) = name.strip_prefix("__VERIFIER_nondet_") {
            arity(0)?;
            let Some(domain) = super::types::nondet_domain(ty) else {
                return err(
                    span,
                    format!("`{name}`: only the integer and `bool` nondet functions are supported"),
                );
            };
            let (lo, hi) = (self.nondet.0.max(domain.0), self.nondet.1.min(domain.1));
            if lo > hi {
                return err(
                    span,
                    format!(
                        "`{name}`: no value of its type lies in the `--nondet` range {}..{}",
                        self.nondet.0, self.nondet.1
                    ),
                );
            }
            let cut = (lo, hi) != domain;
            return Ok(Value {
                op: self.nondet_value(lo, hi, cut),
                ty: if domain == (0, 1) {
                    Type::Bool
                } else {
                    Type::Int
                },
            });
        }
        match name {
            "__VERIFIER_assume" | "__VERIFIER_assert" | "assert" => {
                arity(1)?;
                let v = self.rvalue(&args[0])?;
                let e = Expr::Op(self.b.resolve(v.op));
                self.b.emit(if name == "__VERIFIER_assume" {
                    Instr::Assume(e)
                } else {
                    Instr::Assert(e)
                });
                Ok(void)
            }
            "__sync_synchronize" => {
                arity(0)?;
                self.b.emit(Instr::Fence);
                Ok(void)
            }
            "__VERIFIER_atomic_begin" => {
                arity(0)?;
                self.atomic_begin();
                Ok(void)
            }
            "__VERIFIER_atomic_end" => {
                arity(0)?;
                self.atomic_end();
                Ok(void)
            }
            "pthread_create" => {
                arity(4)?;
                if self.runtime_loops > 0 {
                    return err(
                        span,
                        "`pthread_create` in a loop not unrolled when read (only a `for` counting a local between constants is): each pass would need a thread of its own",
                    );
                }
                let h = self.rvalue(&args[0])?;
                let (Operand::Const(h @ 1..), Type::Ptr(_)) = (self.b.resolve(h.op), &h.ty) else {
                    return err(
                        args[0].span,
                        "a `pthread_t` not known when the program is read",
                    );
                };
                self.null(&args[1], "thread attributes")?;
                let f = self.value(&args[2])?;
                let Type::Func(f) = f.ty else {
                    return err(
                        args[2].span,
                        "a thread's start routine must be a function's name",
                    );
                };
                let arg = self.rvalue(&args[3])?;
                let Operand::Const(arg) = self.b.resolve(arg.op) else {
                    return err(
                        args[3].span,
                        "a thread's argument not known when the program is read",
                    );
                };
                let u = self.new_thread(&f, arg, span)?;
                self.handles.insert((h - 1) as usize, u);
                self.b.emit(Instr::Spawn(u));
                Ok(Value::int(0))
            }
            "pthread_join" => {
                arity(2)?;
                let p = self.place(&args[0])?;
                let u = match p {
                    Place::Mem(a, Type::Handle) if a.index.is_none() => {
                        self.handles.get(&a.base).copied()
                    }
                    _ => None,
                };
                let Some(u) = u else {
                    return err(
                        args[0].span,
                        "`pthread_join` of a thread not created before it",
                    );
                };
                self.null(&args[1], "a thread's return value")?;
                if self.atomic_depth > 0 {
                    return err(
                        span,
                        "`pthread_join` inside an atomic block would wait for a thread that cannot run",
                    );
                }
                self.b.emit(Instr::Join(u));
                Ok(Value::int(0))
            }
            "pthread_exit" => {
                arity(1)?;
                self.null(&args[0], "a thread's return value")?;
                let end = self.thread_end;
                self.b.jump(end);
                Ok(void)
            }
            "pthread_mutex_init"
            | "pthread_mutex_lock"
            | "pthread_mutex_unlock"
            | "pthread_mutex_destroy" => {
                // Bug a_mutex_call_without_arguments_is_an_error: the mutex was taken
                // before the arity was checked, and `pthread_mutex_init()` panicked.
                arity(if name == "pthread_mutex_init" { 2 } else { 1 })?;
                let p = self.pointee(&args[0], span)?;
                if *p.ty() != Type::Mutex {
                    return err(args[0].span, "not a `pthread_mutex_t`");
                }
                match name {
                    "pthread_mutex_init" => {
                        self.null(&args[1], "mutex attributes")?;
                        self.access(&p, span, |l, a| {
                            l.b.emit(Instr::Store(a, Operand::Const(0)))
                        })?;
                    }
                    "pthread_mutex_lock" => {
                        self.access(&p, span, |l, a| l.b.emit(Instr::Lock(a)))?
                    }
                    "pthread_mutex_unlock" => {
                        self.access(&p, span, |l, a| l.b.emit(Instr::Unlock(a)))?
                    }
                    // Destroying a mutex changes nothing a run can observe.
                    _ => {}
                }
                Ok(Value::int(0))
            }
            "malloc" | "calloc" => {
                arity(if name == "malloc" { 1 } else { 2 })?;
                self.malloc(name, args, span)
            }
            "free" => {
                arity(1)?;
                self.free(&args[0])
            }
            "printf" | "puts" | "putchar" => {
                // Output has no effect on memory; its arguments are still evaluated.
                for a in args {
                    if !matches!(a.node, Expression::StringLiteral(_)) {
                        self.value(a)?;
                    }
                }
                Ok(Value::int(0))
            }
            _ if name.starts_with("__sync_") || name.starts_with("__atomic_") => {
                self.atomic(name, args, span)
            }
            _ => err(
                span,
                format!("call to `{name}`, which has no definition and is not a supported builtin"),
            ),
        }
    }

    /// A register holding any value of `lo..=hi`, each its own run.
    pub fn nondet_value(
        &mut self,
        lo: crate::program::Val,
        hi: crate::program::Val,
        cut: bool,
    ) -> Operand {
        let reg = self.b.temp();
        self.b.emit(Instr::Nondet { reg, lo, hi, cut });
        Operand::Reg(reg)
    }

    /// The start of an SV-COMP atomic block.
    fn atomic_begin(&mut self) {
        self.atomic_depth += 1;
        self.b.emit(Instr::ExclusiveBegin);
    }

    /// The end of an SV-COMP atomic block (one outside any does nothing).
    fn atomic_end(&mut self) {
        self.atomic_depth = self.atomic_depth.saturating_sub(1);
        self.b.emit(Instr::ExclusiveEnd);
    }

    /// An argument that must be NULL (0).
    fn null(&mut self, e: &'a Node<Expression>, what: &str) -> R<()> {
        let v = self.rvalue(e)?;
        match self.b.resolve(v.op) {
            Operand::Const(0) => Ok(()),
            _ => err(e.span, format!("{what} must be NULL")),
        }
    }

    /// The place a pointer argument points at.
    fn pointee(&mut self, e: &'a Node<Expression>, span: Span) -> R<Place> {
        let v = self.rvalue(e)?;
        match v.ty {
            Type::Ptr(t) => Ok(Place::Ptr(v.op, *t)),
            _ => err(span, "an argument that is not a pointer"),
        }
    }

    /// A memory order argument (a constant).
    fn order(&mut self, e: &'a Node<Expression>) -> R<i64> {
        let v = self.rvalue(e)?;
        match self.b.resolve(v.op) {
            Operand::Const(o) => Ok(o),
            _ => err(e.span, "a memory order not known when the program is read"),
        }
    }

    /// The `__sync_*` and `__atomic_*` builtins.
    fn atomic(&mut self, name: &str, args: &'a [Node<Expression>], span: Span) -> R<Value> {
        let n = match name {
            "__atomic_thread_fence" => 1,
            "__atomic_load_n" | "__sync_lock_release" => {
                2 - (name == "__sync_lock_release") as usize
            }
            "__sync_val_compare_and_swap"
            | "__sync_bool_compare_and_swap"
            | "__atomic_store_n"
            | "__atomic_exchange_n"
            | "__atomic_fetch_add"
            | "__atomic_add_fetch"
            | "__atomic_fetch_sub"
            | "__atomic_sub_fetch" => 3,
            "__atomic_compare_exchange_n" => 6,
            _ => 2,
        };
        if args.len() != n {
            return err(
                span,
                format!("`{name}` takes {n} arguments, not {}", args.len()),
            );
        }
        if name == "__atomic_thread_fence" {
            if self.order(&args[0])? == SEQ_CST {
                self.b.emit(Instr::Fence);
            }
            return Ok(Value {
                op: Operand::Const(0),
                ty: Type::Void,
            });
        }
        let p = self.pointee(&args[0], span)?;
        let ty = p.ty().plain().clone();
        let r = self.b.temp();
        let rmw = |l: &mut Self, k: RmwKind, flag| {
            l.access(&p, span, move |l, a| l.b.emit(Instr::Rmw(r, a, k, flag)))
        };
        let old = Value {
            op: Operand::Reg(r),
            ty: ty.clone(),
        };
        match name {
            "__atomic_load_n" => {
                self.order(&args[1])?;
                self.access(&p, span, |l, a| l.b.emit(Instr::Load(r, a)))?;
                Ok(old)
            }
            "__atomic_store_n" | "__sync_lock_release" => {
                let v = if name == "__sync_lock_release" {
                    Operand::Const(0)
                } else {
                    let v = self.rvalue(&args[1])?;
                    self.convert(&v, &ty)
                };
                if name == "__atomic_store_n" && self.order(&args[2])? == SEQ_CST {
                    rmw(self, RmwKind::Xchg(v), None)?;
                } else {
                    self.access(&p, span, |l, a| l.b.emit(Instr::Store(a, v)))?;
                }
                Ok(Value {
                    op: Operand::Const(0),
                    ty: Type::Void,
                })
            }
            "__sync_lock_test_and_set" | "__atomic_exchange_n" => {
                let v = self.rvalue(&args[1])?;
                let v = self.convert(&v, &ty);
                if n == 3 {
                    self.order(&args[2])?;
                }
                rmw(self, RmwKind::Xchg(v), None)?;
                Ok(old)
            }
            "__sync_fetch_and_add"
            | "__sync_add_and_fetch"
            | "__sync_fetch_and_sub"
            | "__sync_sub_and_fetch"
            | "__atomic_fetch_add"
            | "__atomic_add_fetch"
            | "__atomic_fetch_sub"
            | "__atomic_sub_fetch" => {
                let v = self.rvalue(&args[1])?;
                if n == 3 {
                    self.order(&args[2])?;
                }
                let d = if name.contains("sub") {
                    self.bin(BinOp::Sub, Operand::Const(0), v.op)
                } else {
                    self.b.resolve(v.op)
                };
                let old = self.fetch_add(&p, d, false, span)?;
                if name.ends_with("_fetch") && !name.contains("fetch_") {
                    let op = self.bin(BinOp::Add, old.op, d);
                    return Ok(Value { op, ty });
                }
                Ok(old)
            }
            "__sync_val_compare_and_swap" | "__sync_bool_compare_and_swap" => {
                let e = self.rvalue(&args[1])?;
                let v = self.rvalue(&args[2])?;
                let (e, v) = (self.convert(&e, &ty), self.convert(&v, &ty));
                if name == "__sync_val_compare_and_swap" {
                    rmw(self, RmwKind::Cas(e, v), None)?;
                    return Ok(old);
                }
                let f = self.b.temp();
                rmw(self, RmwKind::Cas(e, v), Some(f))?;
                Ok(Value {
                    op: Operand::Reg(f),
                    ty: Type::Int,
                })
            }
            "__atomic_compare_exchange_n" => {
                let ep = self.pointee(&args[1], span)?;
                let e = self.load(&ep, span)?;
                let v = self.rvalue(&args[2])?;
                let (e, v) = (self.convert(&e, &ty), self.convert(&v, &ty));
                for a in &args[3..] {
                    self.rvalue(a)?;
                }
                let f = self.b.temp();
                rmw(self, RmwKind::Cas(e, v), Some(f))?;
                // On failure, `*expected` gets the value found.
                let done = self.b.label();
                self.b.branch(Expr::Op(Operand::Reg(f)), done);
                self.store(&ep, &old, span)?;
                self.b.place(done);
                Ok(Value {
                    op: Operand::Reg(f),
                    ty: Type::Int,
                })
            }
            _ => err(span, format!("the builtin `{name}` is not supported")),
        }
    }

    /// Inlines a call of `def` with the argument values; the returned value.
    pub fn inline(
        &mut self,
        def: &'a Node<FunctionDefinition>,
        args: Vec<Value>,
        span: Span,
    ) -> R<Value> {
        let f = &def.node;
        let name = declarator_name(&f.declarator.node).unwrap_or_default();
        if let Some(i) = self.frames.iter().position(|fr| fr.name == name) {
            let chain: Vec<&str> = self.frames[i..].iter().map(|fr| fr.name.as_str()).collect();
            return err(
                span,
                format!("recursion: `{name}` calls itself ({} → {name}); only non-recursive functions are inlined", chain.join(" → ")),
            );
        }
        if !f.declarations.is_empty() {
            return err(
                def.span,
                "K&R-style parameter declarations are not supported",
            );
        }
        // Each inlined call is a frame of the lowering's own recursion: a chain of
        // thousands of distinct functions would overflow the stack.
        if self.frames.len() >= MAX_INLINED {
            return err(
                span,
                format!(
                    "`{name}`: calls nested more than {MAX_INLINED} deep (each call is inlined)"
                ),
            );
        }
        let base = self.types.declaration_base(&f.specifiers, def.span)?;
        let (_, ret_ty) = self.types.declared(base, &f.declarator.node)?;
        // The parameters: the function declarator's.
        let params = f
            .declarator
            .node
            .derived
            .iter()
            .find_map(|d| match &d.node {
                DerivedDeclarator::Function(fd) => Some(&fd.node.parameters),
                _ => None,
            });
        let mut bound = Vec::new();
        for p in params.into_iter().flatten() {
            let b = self.types.declaration_base(&p.node.specifiers, p.span)?;
            let (pname, t) = match &p.node.declarator {
                Some(d) => self.types.declared(b, &d.node)?,
                None => (None, b),
            };
            if t == Type::Void && pname.is_none() {
                continue;
            }
            // An array parameter is a pointer.
            let t = match t {
                Type::Array(e, _) => Type::Ptr(e),
                t => t,
            };
            bound.push((pname.unwrap_or_default(), t));
        }
        let is_thread_or_main = self.frames.is_empty();
        if args.len() != bound.len() && !is_thread_or_main {
            return err(
                span,
                format!(
                    "`{name}` takes {} arguments, not {}",
                    bound.len(),
                    args.len()
                ),
            );
        }
        // A thread's (or `main`'s) returned value goes nowhere.
        let ret = if ret_ty == Type::Void || is_thread_or_main {
            None
        } else {
            Some((self.b.temp(), ret_ty.clone()))
        };
        let end = self.b.label();
        self.frames.push(Frame {
            name: name.clone(),
            scopes: vec![HashMap::new()],
            ret: ret.clone(),
            end,
            labels: HashMap::new(),
            gotos: Vec::new(),
            loops: Vec::new(),
            cases: Vec::new(),
            addressed: addressed(&f.statement),
        });
        self.b.line = self.line_of(def.span);
        for (k, (pname, t)) in bound.into_iter().enumerate() {
            // `main`'s parameters and a missing thread argument are 0.
            let v = args.get(k).cloned().unwrap_or(Value::int(0));
            let op = self.convert(&v, &t);
            let v = Value { op, ty: t.clone() };
            if self.frame().addressed.contains(&pname) {
                let obj = self.object(&format!("{name}.{pname}"), &t);
                let base = self.objects[obj].base;
                self.store(&Place::Mem(base.into(), t), &v, span)?;
                self.frame().scopes[0].insert(pname, Local::Obj(obj));
            } else {
                let r = self.b.fresh_reg(&pname);
                self.b.emit(Instr::Assign(r, Expr::Op(v.op)));
                self.frame().scopes[0].insert(pname, Local::Reg(r, t));
            }
        }
        self.stmt(&f.statement)?;
        for (l, at) in std::mem::take(&mut self.frame().gotos) {
            let lab = self.frame().labels[&l];
            if !self.b.is_placed(lab) {
                return err(at, format!("`goto {l}`: `{name}` has no label `{l}`"));
            }
        }
        self.b.place(end);
        self.frames.pop();
        Ok(match ret {
            Some((r, t)) => Value {
                op: self.b.resolve(Operand::Reg(r)),
                ty: t,
            },
            None => Value {
                op: Operand::Const(0),
                ty: Type::Void,
            },
        })
    }
}
