//! The translation unit lowered: globals become locations with their initial values,
//! `main` becomes the thread `main`, and each `pthread_create` a thread of its own,
//! lowered after the thread that creates it. The code builder (`Builder`) tracks the
//! registers known to hold constants, so that pointers and loop counters known when
//! the program is read stay constants.

use super::error::{err, R};
use super::preprocess::SourceMap;
use super::types::{declarator_name, Type, Types};
use crate::program::{
    Expr, Instr, Loc, Operand, Place as Shown, Program, ReadOptions, Reg, Thread, Val,
};
use lang_c::ast::*;
use lang_c::span::{Node, Span};
use std::collections::{HashMap, VecDeque};

/// Threads a program may create.
pub const MAX_THREADS: usize = 64;

/// A value: an operand and its C type. Pointers are cell numbers plus one (0 is NULL).
#[derive(Clone, Debug)]
pub struct Value {
    pub op: Operand,
    pub ty: Type,
}

impl Value {
    pub fn int(v: Val) -> Value {
        Value {
            op: Operand::Const(v),
            ty: Type::Int,
        }
    }
}

/// An object in memory: a global, a `static` local, or a local whose address is taken.
#[derive(Clone, Debug)]
pub struct Object {
    pub base: Loc,
    pub ty: Type,
}

/// What a name denotes in a function.
#[derive(Clone, Debug)]
pub enum Local {
    Reg(Reg, Type),
    Obj(usize),
}

/// A label of the code being built.
#[derive(Clone, Debug, Default)]
struct Label {
    pc: Option<usize>,
    /// The registers known on every jump to it so far (None: no jump yet).
    incoming: Option<HashMap<Reg, Val>>,
}

/// One thread's code under construction.
pub struct Builder {
    pub th: Thread,
    /// Registers known to hold a constant here; None where the code is unreachable.
    pub known: Option<HashMap<Reg, Val>>,
    labels: Vec<Label>,
    fixups: Vec<(usize, usize)>,
    pub line: usize,
    temps: usize,
}

impl Builder {
    fn new(name: &str) -> Builder {
        Builder {
            th: Thread::new(name),
            known: Some(HashMap::new()),
            labels: Vec::new(),
            fixups: Vec::new(),
            line: 0,
            temps: 0,
        }
    }

    pub fn emit(&mut self, i: Instr) {
        if let Some(k) = &mut self.known {
            match i {
                Instr::Assign(r, e) => match fold(k, &e) {
                    Some(v) => {
                        k.insert(r, v);
                    }
                    None => {
                        k.remove(&r);
                    }
                },
                Instr::Load(r, _) | Instr::Nondet { reg: r, .. } => {
                    k.remove(&r);
                }
                Instr::Rmw(r, _, _, f) => {
                    k.remove(&r);
                    if let Some(f) = f {
                        k.remove(&f);
                    }
                }
                _ => {}
            }
        }
        self.th.push(i, self.line);
    }

    /// `assert e`, whose failure says `why`.
    pub fn assert_because(&mut self, e: Expr, why: &'static str) {
        self.th.reasons.push((self.th.code.len(), why));
        self.emit(Instr::Assert(e));
    }

    /// A register named `base` (or `base.2`, … when taken).
    pub fn fresh_reg(&mut self, base: &str) -> Reg {
        let mut name = base.to_string();
        let mut n = 1;
        while self.th.regs.contains(&name) {
            n += 1;
            name = format!("{base}.{n}");
        }
        self.th.reg(&name)
    }

    pub fn temp(&mut self) -> Reg {
        self.temps += 1;
        let name = format!("_{}", self.temps);
        self.fresh_reg(&name)
    }

    /// The operand with a known register replaced by its constant.
    pub fn resolve(&self, o: Operand) -> Operand {
        match (o, &self.known) {
            (Operand::Reg(r), Some(k)) => k.get(&r).map_or(o, |v| Operand::Const(*v)),
            _ => o,
        }
    }

    pub fn label(&mut self) -> usize {
        self.labels.push(Label::default());
        self.labels.len() - 1
    }

    fn arrive(&mut self, l: usize) {
        let Some(k) = &self.known else { return };
        let inc = &mut self.labels[l].incoming;
        *inc = Some(match inc.take() {
            None => k.clone(),
            Some(old) => meet(&old, k),
        });
    }

    /// `goto l`.
    pub fn jump(&mut self, l: usize) {
        if self.known.is_none() {
            return;
        }
        self.arrive(l);
        self.fixups.push((self.th.code.len(), l));
        self.emit(Instr::Branch(Expr::Op(Operand::Const(1)), usize::MAX));
        self.known = None;
    }

    /// `if e goto l` (a constant condition jumps or not when read).
    pub fn branch(&mut self, e: Expr, l: usize) {
        match e {
            Expr::Op(Operand::Const(0)) => {}
            Expr::Op(Operand::Const(_)) => self.jump(l),
            _ => {
                if self.known.is_none() {
                    return;
                }
                self.arrive(l);
                self.fixups.push((self.th.code.len(), l));
                self.emit(Instr::Branch(e, usize::MAX));
            }
        }
    }

    /// Places a label that only forward jumps reach.
    pub fn place(&mut self, l: usize) {
        self.labels[l].pc = Some(self.th.code.len());
        let inc = self.labels[l].incoming.take();
        self.known = match (self.known.take(), inc) {
            (None, x) | (x, None) => x,
            (Some(a), Some(b)) => Some(meet(&a, &b)),
        };
    }

    /// Places a label that backward jumps may reach (a loop head, a C label): nothing
    /// is known there.
    pub fn place_head(&mut self, l: usize) {
        self.labels[l].pc = Some(self.th.code.len());
        self.known = Some(HashMap::new());
    }

    pub fn is_placed(&self, l: usize) -> bool {
        self.labels[l].pc.is_some()
    }

    pub fn reachable(&self) -> bool {
        self.known.is_some()
    }

    fn finish(mut self) -> Thread {
        for (pc, l) in self.fixups {
            let to = self.labels[l].pc.expect("every label jumped to is placed");
            if let Instr::Branch(_, t) = &mut self.th.code[pc] {
                *t = to;
            }
        }
        self.th
    }
}

/// The registers two paths agree on.
fn meet(a: &HashMap<Reg, Val>, b: &HashMap<Reg, Val>) -> HashMap<Reg, Val> {
    a.iter()
        .filter(|(r, v)| b.get(r) == Some(v))
        .map(|(r, v)| (*r, *v))
        .collect()
}

/// The value of a register expression whose operands are known.
fn fold(k: &HashMap<Reg, Val>, e: &Expr) -> Option<Val> {
    let op = |o: &Operand| match o {
        Operand::Const(v) => Some(*v),
        Operand::Reg(r) => k.get(r).copied(),
    };
    match e {
        Expr::Op(o) => op(o),
        Expr::Bin(b, x, y) => Some(b.apply(op(x)?, op(y)?)),
    }
}

/// A function being inlined.
pub struct Frame {
    pub name: String,
    pub scopes: Vec<HashMap<String, Local>>,
    /// The register of the returned value and its type (None for `void`).
    pub ret: Option<(Reg, Type)>,
    pub end: usize,
    /// C labels of the function, by name.
    pub labels: HashMap<String, usize>,
    /// The `goto`s lowered, with their places (each must find its label).
    pub gotos: Vec<(String, Span)>,
    /// Per enclosing loop (or `switch`): where `break` and `continue` go.
    pub loops: Vec<(usize, Option<usize>)>,
    /// Per enclosing `switch`: the label of each of its `case`s and its `default`, by
    /// the label's offset in the text.
    pub cases: Vec<HashMap<usize, usize>>,
    /// Names whose address the function takes (they live in memory).
    pub addressed: Vec<String>,
}

/// A heap pool: the objects one allocation site gives one thread, laid out one
/// after the other, each followed by its liveness cell when the program frees.
#[derive(Clone, Debug)]
pub struct Pool {
    pub key: PoolKey,
    /// The first object's cell, and the cells from one object to the next.
    pub base: Loc,
    pub stride: usize,
    /// The cells of one object (its liveness cell, if any, comes after them).
    pub cells: usize,
}

/// Where a pool comes from: the thread, the call's offset in the text, and the
/// object's type; the name its cells take.
#[derive(Clone, Debug, PartialEq)]
pub struct PoolKey {
    pub thread: usize,
    pub site: usize,
    pub ty: Type,
    pub name: String,
}

/// What one lowering pass learned for the next: what escaped, the heap's pools,
/// and whether the program frees.
#[derive(Clone, Debug, Default)]
pub struct Plan {
    /// Per object that is not in a pool, in the order laid out: whether it escaped.
    pub seed: Vec<bool>,
    pub pools: Vec<PoolKey>,
    pub frees: bool,
}

/// What a global name denotes.
#[derive(Clone, Debug)]
pub enum Global {
    Obj(usize),
    /// Declared `extern` and defined nowhere: using it is an error.
    Extern,
}

/// The whole lowering: the unit's tables, the program built, the thread being built.
pub struct Lower<'a> {
    pub types: Types<'a>,
    pub prog: Program,
    pub map: &'a SourceMap,
    pub globals: HashMap<String, Global>,
    pub funcs: HashMap<String, &'a Node<FunctionDefinition>>,
    pub objects: Vec<Object>,
    /// Objects whose address was taken: what a pointer known only at run time may
    /// point into.
    pub escaped: Vec<bool>,
    pub escaped_count: usize,
    /// What the first pass learned (objects are laid out in the same order on
    /// every pass).
    pub plan: Plan,
    /// Objects laid out outside pools so far (their index in the plan's seed).
    plain: usize,
    /// Per object: whether it is in a heap pool.
    pub in_pool: Vec<bool>,
    /// Whether the objects being freed have liveness cells (the plan says the
    /// program frees).
    pub live_cells: bool,
    /// The heap's pools (in the order laid out, so by their first cell), and whether
    /// a `free` was lowered.
    pub pools: Vec<Pool>,
    pub frees: bool,
    /// The objects a pool gives a thread (`--heap`).
    pub heap: u32,
    /// The thread being lowered, and its register counting each pool's objects
    /// taken, by pool.
    pub cur_thread: usize,
    pub taken: HashMap<usize, Reg>,
    /// The fewest escaped objects a run-time dereference was lowered with.
    pub deref_seen: Option<usize>,
    pub statics: HashMap<(String, String), usize>,
    /// `pthread_t` cells and the threads they name.
    pub handles: HashMap<Loc, usize>,
    queue: VecDeque<(usize, String, Val, Span)>,
    pub b: Builder,
    pub frames: Vec<Frame>,
    /// The end of the current thread (`pthread_exit`).
    pub thread_end: usize,
    /// Loops of backward branches around the code being lowered.
    pub runtime_loops: usize,
    /// SV-COMP atomic blocks open around the code being lowered, in the text.
    pub atomic_depth: usize,
    /// The values of a `__VERIFIER_nondet_*` call whose type has more (`--nondet`).
    pub nondet: (Val, Val),
    /// Each loop's backward jumps per entry, when bounded in the program
    /// (`--loop-bound entry`).
    pub per_entry: Option<u32>,
}

/// Lowers a translation unit: `main` and the threads it creates.
pub fn lower(
    unit: &TranslationUnit,
    name: &str,
    map: &SourceMap,
    options: &ReadOptions,
    per_entry: Option<u32>,
) -> R<Program> {
    let first = Lower::run(
        unit,
        name,
        map,
        Plan::default(),
        options,
        per_entry,
        Types::default(),
    )?;
    // A run-time dereference lowered before the last object escaped, or a heap: again,
    // with every escaped object and every pool known from the start (and liveness
    // cells if the program frees).
    let late = matches!(first.deref_seen, Some(n) if n < first.escaped_count);
    if !late && first.pools.is_empty() && !first.frees {
        return Ok(first.prog);
    }
    let plan = Plan {
        seed: first.seed(),
        pools: first.pools.iter().map(|p| p.key.clone()).collect(),
        frees: first.frees,
    };
    // The pools' types as the first pass resolved them (a pool is laid out before
    // the code that names its type is lowered).
    let mut second = Lower::run(unit, name, map, plan, options, per_entry, first.types)?;
    if !second.pools.is_empty() {
        second.prog.heap = Some(options.heap);
    }
    Ok(second.prog)
}

impl<'a> Lower<'a> {
    fn run(
        unit: &'a TranslationUnit,
        name: &str,
        map: &'a SourceMap,
        plan: Plan,
        options: &ReadOptions,
        per_entry: Option<u32>,
        types: Types<'a>,
    ) -> R<Lower<'a>> {
        let live_cells = plan.frees;
        let mut l = Lower {
            types,
            prog: Program::new(name),
            map,
            globals: HashMap::new(),
            funcs: HashMap::new(),
            objects: Vec::new(),
            escaped: Vec::new(),
            escaped_count: 0,
            plan,
            plain: 0,
            in_pool: Vec::new(),
            live_cells,
            pools: Vec::new(),
            frees: false,
            heap: options.heap,
            cur_thread: 0,
            taken: HashMap::new(),
            deref_seen: None,
            statics: HashMap::new(),
            handles: HashMap::new(),
            queue: VecDeque::new(),
            b: Builder::new("main"),
            frames: Vec::new(),
            thread_end: 0,
            runtime_loops: 0,
            atomic_depth: 0,
            nondet: options.nondet,
            per_entry,
        };
        for d in &unit.0 {
            match &d.node {
                ExternalDeclaration::Declaration(decl) => l.global_decl(decl)?,
                ExternalDeclaration::FunctionDefinition(f) => {
                    if let Some(n) = declarator_name(&f.node.declarator.node) {
                        l.funcs.insert(n, f);
                    }
                }
                ExternalDeclaration::StaticAssert(_) => {}
            }
        }
        let Some(main) = l.funcs.get("main").copied() else {
            return err(Span::none(), "no `main` function");
        };
        for key in l.plan.pools.clone() {
            l.lay_out_pool(key);
        }
        l.prog.threads.push(Thread::new("main"));
        l.thread(0, main, None)?;
        while let Some((u, f, arg, span)) = l.queue.pop_front() {
            let Some(def) = l.funcs.get(&f).copied() else {
                return err(
                    span,
                    format!("`pthread_create` of `{f}`, which has no definition"),
                );
            };
            l.thread(u, def, Some(arg))?;
        }
        // A thread that could stop before its first memory instruction starts with a
        // fence: its buffer is empty then, so the fence changes no run, and starting
        // stays one step that cannot fail (docs/semantics.md §7.1).
        while let Some((t, _)) = l.prog.spawn_error() {
            let th = &mut l.prog.threads[t];
            for i in th.code.iter_mut() {
                if let Instr::Branch(_, to) = i {
                    *to += 1;
                }
            }
            th.code.insert(0, Instr::Fence);
            let line = th.lines.first().copied().unwrap_or(0);
            th.lines.insert(0, line);
            for r in th.reasons.iter_mut() {
                r.0 += 1;
            }
        }
        if let Some((t, pc)) = l.prog.join_in_exclusive() {
            let th = &l.prog.threads[t];
            return err(
                Span::none(),
                format!(
                    "line {}: a `pthread_join` in `{}` may run inside an atomic block, where it would wait for a thread that cannot run",
                    th.lines[pc], th.name
                ),
            );
        }
        l.prog.show = l.shown();
        Ok(l)
    }

    /// Lowers thread u: the function `def` with its argument.
    fn thread(&mut self, u: usize, def: &'a Node<FunctionDefinition>, arg: Option<Val>) -> R<()> {
        self.b = Builder::new(&self.prog.threads[u].name);
        self.cur_thread = u;
        self.taken.clear();
        self.thread_end = self.b.label();
        let args = match arg {
            Some(v) => vec![Value {
                op: Operand::Const(v),
                ty: Type::Ptr(Box::new(Type::Void)),
            }],
            None => Vec::new(),
        };
        self.inline(def, args, def.span)?;
        let end = self.thread_end;
        self.b.place(end);
        let b = std::mem::replace(&mut self.b, Builder::new(""));
        self.prog.threads[u] = b.finish();
        Ok(())
    }

    /// Records a thread to lower: `f` started with `arg`; its index.
    pub fn new_thread(&mut self, f: &str, arg: Val, span: Span) -> R<usize> {
        let u = self.prog.threads.len();
        if u >= MAX_THREADS {
            return err(span, format!("more than {MAX_THREADS} threads"));
        }
        let mut name = f.to_string();
        let mut n = 1;
        while self.prog.thread_ix(&name).is_some() {
            n += 1;
            name = format!("{f}.{n}");
        }
        self.prog.threads.push(Thread::new(&name));
        self.queue.push_back((u, f.to_string(), arg, span));
        Ok(u)
    }

    /// The source line of a span.
    pub fn line_of(&self, span: Span) -> usize {
        if span.is_none() {
            return 0;
        }
        self.map.locate(span.start).1
    }

    /// Lays out an object of type `ty` named `name` outside the heap: its cells,
    /// initially 0.
    pub fn object(&mut self, name: &str, ty: &Type) -> usize {
        let id = self.lay_out(name, ty);
        self.in_pool.push(false);
        let seeded = self.plan.seed.get(self.plain).copied().unwrap_or(false);
        self.plain += 1;
        if seeded {
            self.escape(id);
        }
        id
    }

    /// Lays out an object's cells, initially 0 (not yet escaped).
    pub fn lay_out(&mut self, name: &str, ty: &Type) -> usize {
        let base = self.prog.locs.len();
        match ty {
            Type::Array(e, n) if e.is_scalar() => {
                let mut nm = name.to_string();
                let mut k = 1;
                while self.prog.arrays.iter().any(|a| a.name == nm) {
                    k += 1;
                    nm = format!("{name}.{k}");
                }
                self.prog.array(&nm, *n);
            }
            _ => self.cells(name, ty),
        }
        self.objects.push(Object {
            base,
            ty: ty.clone(),
        });
        self.escaped.push(false);
        self.objects.len() - 1
    }

    /// Per object outside the heap's pools, in the order laid out: whether it
    /// escaped (the next pass's seed).
    pub fn seed(&self) -> Vec<bool> {
        let plain = self.in_pool.iter().map(|p| !p);
        self.escaped
            .iter()
            .zip(plain)
            .filter(|x| x.1)
            .map(|x| *x.0)
            .collect()
    }

    pub fn cells(&mut self, name: &str, ty: &Type) {
        match ty {
            Type::Array(e, n) => {
                for i in 0..*n {
                    self.cells(&format!("{name}[{i}]"), e);
                }
            }
            Type::Struct(s) => {
                for (f, t, _) in self.types.structs[*s].fields.clone() {
                    self.cells(&format!("{name}.{f}"), &t);
                }
            }
            Type::Void | Type::Func(_) => {}
            _ => {
                self.prog.locs.push(name.to_string());
                self.prog.init.push(0);
            }
        }
    }

    /// Marks an object as escaped (its address is taken).
    pub fn escape(&mut self, obj: usize) {
        if !self.escaped[obj] {
            self.escaped[obj] = true;
            self.escaped_count += 1;
        }
    }

    /// The object holding cell `loc`.
    pub fn object_at(&self, loc: Loc) -> Option<usize> {
        self.objects
            .iter()
            .position(|o| (o.base..o.base + self.types.cells(&o.ty) as usize).contains(&loc))
    }

    /// The places outcomes show: the globals' cells, but not `pthread_t` handles.
    fn shown(&self) -> Vec<Shown> {
        let mut out = Vec::new();
        for g in self.globals.values() {
            if let Global::Obj(o) = g {
                let o = &self.objects[*o];
                if o.ty != Type::Handle
                    && !matches!(&o.ty, Type::Array(e, _) if **e == Type::Handle)
                {
                    out.extend((o.base..o.base + self.types.cells(&o.ty) as usize).map(Shown::Mem));
                }
            }
        }
        out.sort();
        out
    }

    /// A file-scope declaration: typedefs, struct tags, and global objects with their
    /// initial values.
    fn global_decl(&mut self, d: &'a Node<Declaration>) -> R<()> {
        let specs = &d.node.specifiers;
        let storage = |s: StorageClassSpecifier| {
            specs
                .iter()
                .any(|x| matches!(&x.node, DeclarationSpecifier::StorageClass(c) if c.node == s))
        };
        if storage(StorageClassSpecifier::Typedef) {
            self.types.note_tags(specs);
            self.types.typedef(&d.node);
            return Ok(());
        }
        self.types.note_tags(specs);
        let is_extern = storage(StorageClassSpecifier::Extern);
        for i in &d.node.declarators {
            let decl = &i.node.declarator.node;
            let Some(name) = declarator_name(decl) else {
                continue;
            };
            // Function declarations: calls find the definition (or a builtin).
            if decl.derived.iter().any(|x| {
                matches!(
                    x.node,
                    DerivedDeclarator::Function(_) | DerivedDeclarator::KRFunction(_)
                )
            }) && !matches!(decl.kind.node, DeclaratorKind::Declarator(_))
            {
                continue;
            }
            if is_extern && i.node.initializer.is_none() {
                self.globals.entry(name).or_insert(Global::Extern);
                continue;
            }
            if let Some(Global::Obj(_)) = self.globals.get(&name) {
                if i.node.initializer.is_none() {
                    continue;
                }
            }
            let base = self.types.declaration_base(specs, d.span)?;
            let (_, ty) = self.types.declared(base, decl)?;
            if self.types.cells(&ty) == 0 {
                return err(
                    i.span,
                    format!("`{name}` has no cells (a `void`, empty or unsized type)"),
                );
            }
            let obj = match self.globals.get(&name) {
                Some(Global::Obj(o)) => *o,
                _ => {
                    let o = self.object(&name, &ty);
                    self.globals.insert(name.clone(), Global::Obj(o));
                    o
                }
            };
            if let Some(init) = &i.node.initializer {
                let base = self.objects[obj].base;
                self.global_init(base, &ty, init)?;
            }
        }
        Ok(())
    }

    /// Initial values of a global's cells from its initializer (constants only).
    fn global_init(&mut self, base: Loc, ty: &Type, init: &'a Node<Initializer>) -> R<()> {
        match (&init.node, ty) {
            (Initializer::Expression(e), t) if t.is_scalar() => {
                let v = self.global_const(e)?;
                self.prog.init[base] = if *t.plain() == Type::Bool {
                    (v != 0) as Val
                } else {
                    v
                };
                Ok(())
            }
            (Initializer::List(items), Type::Array(e, n)) => {
                let c = self.types.cells(e) as usize;
                for (k, it) in items.iter().enumerate() {
                    if !it.node.designation.is_empty() {
                        return err(it.span, "designated initializers are not supported");
                    }
                    if k as u32 >= *n {
                        return err(it.span, "more initializers than elements");
                    }
                    self.global_init(base + k * c, e, &it.node.initializer)?;
                }
                Ok(())
            }
            (Initializer::List(items), Type::Struct(s)) => {
                let fields = self.types.structs[*s].fields.clone();
                for (k, it) in items.iter().enumerate() {
                    if !it.node.designation.is_empty() {
                        return err(it.span, "designated initializers are not supported");
                    }
                    let Some((_, t, off)) = fields.get(k) else {
                        return err(it.span, "more initializers than fields");
                    };
                    self.global_init(base + *off as usize, t, &it.node.initializer)?;
                }
                Ok(())
            }
            // `PTHREAD_MUTEX_INITIALIZER` and other all-zero braces for a scalar.
            (Initializer::List(items), t) if t.is_scalar() => {
                if self.all_zero(items)? {
                    Ok(())
                } else {
                    err(
                        init.span,
                        "a braced initializer for a scalar that is not all zeros",
                    )
                }
            }
            _ => err(init.span, "an initializer that does not fit its type"),
        }
    }

    fn all_zero(&mut self, items: &'a [Node<InitializerListItem>]) -> R<bool> {
        for it in items {
            let zero = match &it.node.initializer.node {
                Initializer::Expression(e) => self.global_const(e)? == 0,
                Initializer::List(l) => self.all_zero(l)?,
            };
            if !zero {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// A constant a global may start with: an integer constant, or the address of a
    /// global (a cell number plus one).
    fn global_const(&mut self, e: &'a Node<Expression>) -> R<Val> {
        match &e.node {
            Expression::Cast(c) => self.global_const(&c.node.expression),
            Expression::UnaryOperator(u) if u.node.operator.node == UnaryOperator::Address => {
                let (obj, off) = self.global_address(&u.node.operand)?;
                self.escape(obj);
                Ok((self.objects[obj].base + off) as Val + 1)
            }
            Expression::Identifier(i) => match self.globals.get(&i.node.name) {
                Some(Global::Obj(o)) if matches!(self.objects[*o].ty, Type::Array(..)) => {
                    let o = *o;
                    self.escape(o);
                    Ok(self.objects[o].base as Val + 1)
                }
                _ => self.types.constant(e),
            },
            _ => self.types.constant(e),
        }
    }

    /// The object and cell offset of a constant lvalue (`x`, `s.f`, `a[3]`).
    fn global_address(&mut self, e: &'a Node<Expression>) -> R<(usize, usize)> {
        match &e.node {
            Expression::Identifier(i) => match self.globals.get(&i.node.name) {
                Some(Global::Obj(o)) => Ok((*o, 0)),
                _ => err(
                    e.span,
                    format!("`{}` is not a global variable", i.node.name),
                ),
            },
            _ => err(e.span, "an address that is not constant"),
        }
    }
}
