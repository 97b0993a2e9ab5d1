//! Statements and local declarations. Loops are backward branches, bounded by the
//! unrolling bound, except a `for` loop counting a local from a constant to a
//! constant that its body does not assign: it is unrolled when read (at most
//! [`MAX_PASSES`] passes), with the counter a constant in each pass. Under a per-entry
//! loop bound (Nidhugg's `--unroll=N`) each loop counts its passes in a register set
//! to 0 at its entry, and `bound` stops a run past N.

use super::error::{err, R};
use super::expr::Place;
use super::lower::{Local, Lower, Value};
use super::types::{declarator_name, Type};
use crate::program::{BinOp, Expr, Instr, Operand, Reg};
use lang_c::ast::*;
use lang_c::span::{Node, Span};
use lang_c::visit::{self, Visit};
use std::collections::HashMap;

/// The most passes of a counted `for` loop unrolled when read.
pub const MAX_PASSES: i64 = 64;

impl<'a> Lower<'a> {
    /// Lowers a statement; the value of an expression statement (for `({ … })`).
    pub fn stmt(&mut self, s: &'a Node<Statement>) -> R<Option<Value>> {
        // Code no path reaches (after a jump, before any label) is not lowered.
        if !self.b.reachable() && !has_label(s) {
            return Ok(None);
        }
        self.b.line = self.line_of(s.span);
        match &s.node {
            Statement::Compound(items) => {
                self.frame().scopes.push(HashMap::new());
                let mut last = None;
                for it in items {
                    last = match &it.node {
                        BlockItem::Declaration(d) => {
                            // Its initializers' instructions are on its line.
                            self.b.line = self.line_of(d.span);
                            self.local_decl(d)?;
                            None
                        }
                        BlockItem::Statement(st) => self.stmt(st)?,
                        BlockItem::StaticAssert(_) => None,
                    };
                }
                self.frame().scopes.pop();
                Ok(last)
            }
            Statement::Expression(None) => Ok(None),
            Statement::Expression(Some(e)) => Ok(Some(self.value(e)?)),
            Statement::If(i) => {
                let (els, end) = (self.b.label(), self.b.label());
                self.jump_if(&i.node.condition, false, els)?;
                self.stmt(&i.node.then_statement)?;
                if let Some(e) = &i.node.else_statement {
                    self.b.jump(end);
                    self.b.place(els);
                    self.stmt(e)?;
                } else {
                    self.b.place(els);
                }
                self.b.place(end);
                Ok(None)
            }
            Statement::While(w) => {
                let (head, end) = (self.b.label(), self.b.label());
                let passes = self.loop_entry();
                self.b.place_head(head);
                self.loop_pass(passes, 1);
                self.jump_if(&w.node.expression, false, end)?;
                self.body(&w.node.statement, end, Some(head), true)?;
                self.b.jump(head);
                self.b.place(end);
                Ok(None)
            }
            Statement::DoWhile(d) => {
                let (head, cont, end) = (self.b.label(), self.b.label(), self.b.label());
                let passes = self.loop_entry();
                self.b.place_head(head);
                self.loop_pass(passes, 1);
                self.body(&d.node.statement, end, Some(cont), true)?;
                self.b.place(cont);
                self.jump_if(&d.node.expression, true, head)?;
                self.b.place(end);
                Ok(None)
            }
            Statement::For(f) => {
                self.frame().scopes.push(HashMap::new());
                self.for_loop(f)?;
                self.frame().scopes.pop();
                Ok(None)
            }
            Statement::Goto(id) => {
                self.frame().gotos.push((id.node.name.clone(), s.span));
                let l = self.c_label(&id.node.name);
                if self.b.is_placed(l) {
                    // A backward `goto`: at most N taken in a run (per thread, as
                    // `--unroll` counts them), under a per-entry loop bound.
                    let taken = self.loop_entry_at_start();
                    self.loop_pass(taken, 0);
                }
                self.b.jump(l);
                Ok(None)
            }
            Statement::Continue => match self.frame().loops.last().and_then(|l| l.1) {
                Some(l) => {
                    self.b.jump(l);
                    Ok(None)
                }
                None => err(s.span, "`continue` outside a loop"),
            },
            Statement::Break => match self.frame().loops.last().map(|l| l.0) {
                Some(l) => {
                    self.b.jump(l);
                    Ok(None)
                }
                None => err(s.span, "`break` outside a loop"),
            },
            Statement::Return(e) => {
                if let Some(e) = e {
                    let v = self.value(e)?;
                    if let Some((r, t)) = self.frame().ret.clone() {
                        if v.ty != Type::Void {
                            let op = self.convert(&v, &t);
                            self.b.emit(Instr::Assign(r, Expr::Op(op)));
                        }
                    }
                }
                let end = self.frame().end;
                self.b.jump(end);
                Ok(None)
            }
            Statement::Labeled(l) => match &l.node.label.node {
                Label::Identifier(id) => {
                    let lab = self.c_label(&id.node.name);
                    if self.b.is_placed(lab) {
                        return err(
                            s.span,
                            format!("the label `{}` is defined twice", id.node.name),
                        );
                    }
                    self.b.place_head(lab);
                    self.stmt(&l.node.statement)
                }
                Label::Case(_) | Label::Default => {
                    let Some(&lab) = self
                        .frame()
                        .cases
                        .last()
                        .and_then(|c| c.get(&l.node.label.span.start))
                    else {
                        return err(s.span, "`case` or `default` outside a `switch`");
                    };
                    self.b.place(lab);
                    self.stmt(&l.node.statement)
                }
                Label::CaseRange(_) => {
                    err(s.span, "case ranges (`case A ... B`) are not supported")
                }
            },
            Statement::Switch(sw) => {
                self.switch(&sw.node.expression, &sw.node.statement)?;
                Ok(None)
            }
            Statement::Asm(a) => {
                let text = match &a.node {
                    AsmStatement::GnuBasic(t) => t.node.concat(),
                    AsmStatement::GnuExtended(x) => {
                        if !x.outputs.is_empty() || !x.inputs.is_empty() {
                            return err(s.span, "inline assembly with operands is not supported");
                        }
                        x.template.node.concat()
                    }
                };
                match text.trim_matches('"').trim() {
                    "mfence" => self.b.emit(Instr::Fence),
                    // A compiler barrier: no instruction.
                    "" => {}
                    other => {
                        return err(s.span, format!("inline assembly `{other}` (only `mfence`)"))
                    }
                }
                Ok(None)
            }
        }
    }

    /// Under a per-entry loop bound (`--loop-bound entry`): a new pass counter, set to
    /// 0 here where the loop is entered.
    fn loop_entry(&mut self) -> Option<Reg> {
        let r = self.loop_entry_at_start()?;
        self.b.emit(Instr::Assign(r, Expr::Op(Operand::Const(0))));
        Some(r)
    }

    /// Under a per-entry loop bound: a new counter, 0 when its thread starts.
    fn loop_entry_at_start(&mut self) -> Option<Reg> {
        self.per_entry?;
        Some(self.b.fresh_reg("_pass"))
    }

    /// One pass through a loop's head (before its condition; `extra` 1) or one backward
    /// `goto` (0): counted, and a run past N + `extra` stops there (BOUND HIT). A loop
    /// is thus left after at most N backward jumps since it was entered: a loop entered
    /// once is bounded as `--unroll N` bounds it per thread, which gives Nidhugg's
    /// trace counts with `--unroll=N` on the TACAS'15 suite (docs/c.md).
    fn loop_pass(&mut self, passes: Option<Reg>, extra: i64) {
        let (Some(r), Some(n), true) = (passes, self.per_entry, self.b.reachable()) else {
            return;
        };
        let (pass, most) = (Operand::Reg(r), Operand::Const(i64::from(n) + extra));
        self.b.emit(Instr::Assign(
            r,
            Expr::Bin(BinOp::Add, pass, Operand::Const(1)),
        ));
        self.b.emit(Instr::Bound(Expr::Bin(BinOp::Le, pass, most)));
    }

    /// `switch (e) body`: a branch to each `case` whose constant equals e's value, else
    /// to `default` (or past the body); `break` leaves it, `continue` goes to the
    /// enclosing loop's, and a case falls through to the next.
    fn switch(&mut self, e: &'a Node<Expression>, body: &'a Node<Statement>) -> R<()> {
        let v = self.rvalue(e)?;
        let v = self.b.resolve(v.op);
        let end = self.b.label();
        let mut labels: HashMap<usize, usize> = HashMap::new();
        let mut values: HashMap<i64, Span> = HashMap::new();
        let mut default = None;
        for (label, span) in switch_labels(body) {
            let lab = self.b.label();
            labels.insert(span.start, lab);
            match label {
                Some(k) => {
                    let c = self.rvalue(k)?;
                    let Operand::Const(c) = self.b.resolve(c.op) else {
                        return err(k.span, "a `case` label must be a constant");
                    };
                    if values.insert(c, span).is_some() {
                        return err(span, format!("`case {c}` appears twice in one `switch`"));
                    }
                    let test = match v {
                        Operand::Const(x) => Expr::Op(Operand::Const((x == c) as i64)),
                        _ => Expr::Bin(BinOp::Eq, v, Operand::Const(c)),
                    };
                    self.b.branch(test, lab);
                }
                None if default.is_some() => {
                    return err(span, "a second `default` in one `switch`");
                }
                None => default = Some(lab),
            }
        }
        self.b.jump(default.unwrap_or(end));
        let cont = self.frame().loops.last().and_then(|l| l.1);
        self.frame().cases.push(labels);
        self.body(body, end, cont, false)?;
        self.frame().cases.pop();
        self.b.place(end);
        Ok(())
    }

    /// A loop body, with `break` and `continue` going to `end` and `cont`.
    /// `runtime`: a loop of backward branches (not unrolled when read).
    fn body(
        &mut self,
        s: &'a Node<Statement>,
        end: usize,
        cont: Option<usize>,
        runtime: bool,
    ) -> R<()> {
        self.frame().loops.push((end, cont));
        self.runtime_loops += runtime as usize;
        self.stmt(s)?;
        self.runtime_loops -= runtime as usize;
        self.frame().loops.pop();
        Ok(())
    }

    fn for_loop(&mut self, f: &'a Node<ForStatement>) -> R<()> {
        let f = &f.node;
        match &f.initializer.node {
            ForInitializer::Empty => {}
            ForInitializer::Expression(e) => {
                self.value(e)?;
            }
            ForInitializer::Declaration(d) => self.local_decl(d)?,
            ForInitializer::StaticAssert(_) => {}
        }
        let end = self.b.label();
        if let Some(passes) = self.counted(f)? {
            // Pass k evaluates the condition with the counter known; the last finds
            // it false (after evaluating the other conjuncts, as C does).
            for _ in 0..=passes {
                if let Some(c) = &f.condition {
                    self.jump_if(c, false, end)?;
                }
                if !self.b.reachable() {
                    break;
                }
                let cont = self.b.label();
                self.body(&f.statement, end, Some(cont), false)?;
                self.b.place(cont);
                if let Some(st) = &f.step {
                    if self.b.reachable() {
                        self.value(st)?;
                    }
                }
            }
            self.b.place(end);
            return Ok(());
        }
        let (head, cont) = (self.b.label(), self.b.label());
        let passes = self.loop_entry();
        self.b.place_head(head);
        self.loop_pass(passes, 1);
        if let Some(c) = &f.condition {
            self.jump_if(c, false, end)?;
        }
        self.body(&f.statement, end, Some(cont), true)?;
        self.b.place(cont);
        if let Some(st) = &f.step {
            if self.b.reachable() {
                self.value(st)?;
            }
        }
        self.b.jump(head);
        self.b.place(end);
        Ok(())
    }

    /// The passes of a counted loop `for (i = A; … i < B …; i++)` (the counter a local
    /// known to be A after the initializer, B a constant, the body not assigning i).
    fn counted(&mut self, f: &'a ForStatement) -> R<Option<i64>> {
        let Some(i) = (match &f.initializer.node {
            ForInitializer::Declaration(d) if d.node.declarators.len() == 1 => {
                declarator_name(&d.node.declarators[0].node.declarator.node)
            }
            ForInitializer::Expression(e) => match &e.node {
                Expression::BinaryOperator(b) if b.node.operator.node == BinaryOperator::Assign => {
                    match &b.node.lhs.node {
                        Expression::Identifier(id) => Some(id.node.name.clone()),
                        _ => None,
                    }
                }
                _ => None,
            },
            _ => None,
        }) else {
            return Ok(None);
        };
        let Some(Local::Reg(r, _)) = self
            .frame()
            .scopes
            .iter()
            .rev()
            .find_map(|s| s.get(&i).cloned())
        else {
            return Ok(None);
        };
        let Operand::Const(a) = self.b.resolve(Operand::Reg(r)) else {
            return Ok(None);
        };
        let (Some(cond), Some(step)) = (&f.condition, &f.step) else {
            return Ok(None);
        };
        if !increments(step, &i) || assigns(&f.statement, &i) {
            return Ok(None);
        }
        let Some((op, bound)) = self.counter_test(cond, &i) else {
            return Ok(None);
        };
        let n = match op {
            BinaryOperator::Less | BinaryOperator::NotEquals => bound - a,
            BinaryOperator::LessOrEqual => bound - a + 1,
            _ => return Ok(None),
        };
        Ok((0..=MAX_PASSES).contains(&n).then_some(n))
    }

    /// `i < B` (or `<=`, `!=`) among the conjuncts of a condition.
    fn counter_test(&mut self, c: &Node<Expression>, i: &str) -> Option<(BinaryOperator, i64)> {
        let Expression::BinaryOperator(b) = &c.node else {
            return None;
        };
        match b.node.operator.node.clone() {
            BinaryOperator::LogicalAnd => self
                .counter_test(&b.node.lhs, i)
                .or_else(|| self.counter_test(&b.node.rhs, i)),
            op @ (BinaryOperator::Less
            | BinaryOperator::LessOrEqual
            | BinaryOperator::NotEquals) => match &b.node.lhs.node {
                Expression::Identifier(id) if id.node.name == i => {
                    self.types.constant(&b.node.rhs).ok().map(|v| (op, v))
                }
                _ => None,
            },
            _ => None,
        }
    }

    /// A declaration in a function: locals in registers, or in memory when they are
    /// arrays or structs or their address is taken; `static` locals once per function.
    pub fn local_decl(&mut self, d: &'a Node<Declaration>) -> R<()> {
        let specs = &d.node.specifiers;
        let storage: Vec<StorageClassSpecifier> = specs
            .iter()
            .filter_map(|s| match &s.node {
                DeclarationSpecifier::StorageClass(c) => Some(c.node.clone()),
                _ => None,
            })
            .collect();
        if storage.contains(&StorageClassSpecifier::Typedef) {
            self.types.note_tags(specs);
            self.types.typedef(&d.node);
            return Ok(());
        }
        if storage.contains(&StorageClassSpecifier::Extern) {
            return err(
                d.span,
                "`extern` declarations inside functions are not supported",
            );
        }
        self.types.note_tags(specs);
        for i in &d.node.declarators {
            let decl = &i.node.declarator.node;
            if decl
                .derived
                .iter()
                .any(|x| matches!(x.node, DerivedDeclarator::Function(_)))
            {
                continue;
            }
            let base = self.types.declaration_base(specs, d.span)?;
            let (name, ty) = self.types.declared(base, decl)?;
            let name = name.unwrap_or_default();
            if self.types.cells(&ty) == 0 {
                return err(
                    i.span,
                    format!("`{name}` has no cells (a `void`, empty or unsized type)"),
                );
            }
            let fname = self.frame().name.clone();
            if storage.contains(&StorageClassSpecifier::Static) {
                let key = (fname.clone(), name.clone());
                let obj = match self.statics.get(&key) {
                    Some(o) => *o,
                    None => {
                        let o = self.object(&format!("{fname}.{name}"), &ty);
                        if let Some(init) = &i.node.initializer {
                            let base = self.objects[o].base;
                            self.static_init(base, &ty, init)?;
                        }
                        self.statics.insert(key, o);
                        o
                    }
                };
                self.bind(name, Local::Obj(obj));
                continue;
            }
            let in_memory = !ty.is_scalar() || self.frame().addressed.contains(&name);
            if in_memory {
                let obj = self.object(&format!("{fname}.{name}"), &ty);
                self.bind(name, Local::Obj(obj));
                if let Some(init) = &i.node.initializer {
                    let base = self.objects[obj].base;
                    self.local_init(Place::Mem(base.into(), ty.clone()), init)?;
                }
            } else {
                let r = self.b.fresh_reg(&name);
                self.bind(name, Local::Reg(r, ty.clone()));
                match &i.node.initializer {
                    Some(init) => self.local_init(Place::Reg(r, ty), init)?,
                    // A new local starts unknown (C: indeterminate).
                    None => {
                        if let Some(k) = &mut self.b.known {
                            k.remove(&r);
                        }
                    }
                }
            }
        }
        Ok(())
    }

    fn bind(&mut self, name: String, l: Local) {
        self.frame()
            .scopes
            .last_mut()
            .expect("a scope")
            .insert(name, l);
    }

    /// A `static` local's initial value (constants only), as a global's.
    fn static_init(&mut self, base: usize, ty: &Type, init: &'a Node<Initializer>) -> R<()> {
        match &init.node {
            Initializer::Expression(e) if ty.is_scalar() => {
                let v = self.types.constant(e)?;
                self.prog.init[base] = v;
                Ok(())
            }
            _ => err(
                init.span,
                "a `static` local initialized with other than a constant",
            ),
        }
    }

    /// A local's initializer, as stores (or assignments) in order.
    fn local_init(&mut self, p: Place, init: &'a Node<Initializer>) -> R<()> {
        match (&init.node, p.ty().clone()) {
            (Initializer::Expression(e), t) if t.is_scalar() => {
                let v = self.rvalue(e)?;
                self.store(&p, &v, init.span)
            }
            (Initializer::List(items), Type::Array(elem, n)) => {
                let Place::Mem(a, _) = p else {
                    return err(init.span, "an array initializer");
                };
                let c = self.types.cells(&elem) as usize;
                for (k, it) in items.iter().enumerate() {
                    if !it.node.designation.is_empty() || k as u32 >= n {
                        return err(
                            it.span,
                            "designated or extra initializers are not supported",
                        );
                    }
                    let q = Place::Mem((a.base + k * c).into(), (*elem).clone());
                    self.local_init(q, &it.node.initializer)?;
                }
                Ok(())
            }
            (Initializer::List(items), Type::Struct(s)) => {
                let Place::Mem(a, _) = p else {
                    return err(init.span, "a struct initializer");
                };
                let fields = self.types.structs[s].fields.clone();
                for (k, it) in items.iter().enumerate() {
                    let Some((_, t, off)) = fields.get(k).cloned() else {
                        return err(it.span, "more initializers than fields");
                    };
                    if !it.node.designation.is_empty() {
                        return err(it.span, "designated initializers are not supported");
                    }
                    let q = Place::Mem((a.base + off as usize).into(), t);
                    self.local_init(q, &it.node.initializer)?;
                }
                Ok(())
            }
            _ => err(init.span, "an initializer that does not fit its type"),
        }
    }

    /// The label of a C label name in the current function.
    fn c_label(&mut self, name: &str) -> usize {
        if let Some(l) = self.frame().labels.get(name) {
            return *l;
        }
        let l = self.b.label();
        self.frame().labels.insert(name.to_string(), l);
        l
    }

    pub fn frame(&mut self) -> &mut super::lower::Frame {
        self.frames.last_mut().expect("inside a function")
    }
}

/// Whether a statement holds a label (code after a jump is reachable through it).
fn has_label(s: &Node<Statement>) -> bool {
    struct Find(bool);
    impl<'ast> Visit<'ast> for Find {
        fn visit_labeled_statement(&mut self, _: &'ast LabeledStatement, _: &'ast Span) {
            self.0 = true;
        }
    }
    let mut f = Find(false);
    f.visit_statement(&s.node, &s.span);
    f.0
}

/// Whether an expression is `i++`, `++i`, `i += 1` or `i = i + 1`.
fn increments(e: &Node<Expression>, i: &str) -> bool {
    let is_i =
        |e: &Node<Expression>| matches!(&e.node, Expression::Identifier(id) if id.node.name == i);
    let one = |e: &Node<Expression>| matches!(&e.node, Expression::Constant(c) if matches!(&c.node, Constant::Integer(n) if &*n.number == "1"));
    match &e.node {
        Expression::UnaryOperator(u) => {
            matches!(
                u.node.operator.node,
                UnaryOperator::PostIncrement | UnaryOperator::PreIncrement
            ) && is_i(&u.node.operand)
        }
        Expression::BinaryOperator(b) => match b.node.operator.node {
            BinaryOperator::AssignPlus => is_i(&b.node.lhs) && one(&b.node.rhs),
            BinaryOperator::Assign => {
                is_i(&b.node.lhs)
                    && matches!(&b.node.rhs.node, Expression::BinaryOperator(s)
                        if s.node.operator.node == BinaryOperator::Plus && is_i(&s.node.lhs) && one(&s.node.rhs))
            }
            _ => false,
        },
        _ => false,
    }
}

/// Whether a statement may assign the local `i` (or take its address).
fn assigns(s: &Node<Statement>, i: &str) -> bool {
    struct Find<'n>(&'n str, bool);
    impl<'ast> Visit<'ast> for Find<'_> {
        fn visit_binary_operator_expression(
            &mut self,
            b: &'ast BinaryOperatorExpression,
            span: &'ast Span,
        ) {
            use BinaryOperator as B;
            let assign = !matches!(
                b.operator.node,
                B::Index
                    | B::Multiply
                    | B::Divide
                    | B::Modulo
                    | B::Plus
                    | B::Minus
                    | B::ShiftLeft
                    | B::ShiftRight
                    | B::Less
                    | B::Greater
                    | B::LessOrEqual
                    | B::GreaterOrEqual
                    | B::Equals
                    | B::NotEquals
                    | B::BitwiseAnd
                    | B::BitwiseXor
                    | B::BitwiseOr
                    | B::LogicalAnd
                    | B::LogicalOr
            );
            if assign && matches!(&b.lhs.node, Expression::Identifier(id) if id.node.name == self.0)
            {
                self.1 = true;
            }
            visit::visit_binary_operator_expression(self, b, span);
        }
        fn visit_unary_operator_expression(
            &mut self,
            u: &'ast UnaryOperatorExpression,
            span: &'ast Span,
        ) {
            use UnaryOperator as U;
            if matches!(
                u.operator.node,
                U::PostIncrement
                    | U::PostDecrement
                    | U::PreIncrement
                    | U::PreDecrement
                    | U::Address
            ) && matches!(&u.operand.node, Expression::Identifier(id) if id.node.name == self.0)
            {
                self.1 = true;
            }
            visit::visit_unary_operator_expression(self, u, span);
        }
    }
    let mut f = Find(i, false);
    f.visit_statement(&s.node, &s.span);
    f.1
}

/// The names whose address a function body takes (`&x`, `&x.f`, `&x[i]`).
pub fn addressed(s: &Node<Statement>) -> Vec<String> {
    struct Find(Vec<String>);
    impl<'ast> Visit<'ast> for Find {
        fn visit_unary_operator_expression(
            &mut self,
            u: &'ast UnaryOperatorExpression,
            span: &'ast Span,
        ) {
            if u.operator.node == UnaryOperator::Address {
                let mut e = &u.operand.node;
                loop {
                    match e {
                        Expression::Member(m) if m.node.operator.node == MemberOperator::Direct => {
                            e = &m.node.expression.node
                        }
                        Expression::BinaryOperator(b)
                            if b.node.operator.node == BinaryOperator::Index =>
                        {
                            e = &b.node.lhs.node
                        }
                        Expression::Identifier(id) => {
                            self.0.push(id.node.name.clone());
                            break;
                        }
                        _ => break,
                    }
                }
            }
            visit::visit_unary_operator_expression(self, u, span);
        }
    }
    let mut f = Find(Vec::new());
    f.visit_statement(&s.node, &s.span);
    f.0
}

/// The `case` (with its constant) and `default` labels of a `switch` body, in text
/// order, not those of a `switch` inside it.
fn switch_labels(body: &Node<Statement>) -> Vec<(Option<&Node<Expression>>, Span)> {
    fn walk<'a>(s: &'a Node<Statement>, out: &mut Vec<(Option<&'a Node<Expression>>, Span)>) {
        match &s.node {
            Statement::Labeled(l) => {
                match &l.node.label.node {
                    Label::Case(k) => out.push((Some(k), l.node.label.span)),
                    Label::Default => out.push((None, l.node.label.span)),
                    _ => {}
                }
                walk(&l.node.statement, out);
            }
            Statement::Compound(items) => {
                for it in items {
                    if let BlockItem::Statement(st) = &it.node {
                        walk(st, out);
                    }
                }
            }
            Statement::If(i) => {
                walk(&i.node.then_statement, out);
                if let Some(e) = &i.node.else_statement {
                    walk(e, out);
                }
            }
            Statement::While(w) => walk(&w.node.statement, out),
            Statement::DoWhile(d) => walk(&d.node.statement, out),
            Statement::For(f) => walk(&f.node.statement, out),
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(body, &mut out);
    out
}
