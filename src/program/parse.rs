//! tsoser's program text format (`.prog`), documented in docs/explore.md ("Program format").
//! One statement per line; `#` or `//` start a comment. Errors carry the line.

use super::tokens::{array, element_name, fmt_err, location, show, tokens, Cur, Tok};
use super::tokens::{final_cond, place_resolver};
use super::*;
use crate::error::Error;

/// A thread being parsed: its code, pending jumps (instruction, label, line), labels.
type Open = (Thread, Vec<(usize, String, usize)>, Vec<(String, usize)>);

/// Strips a `#` or `//` comment.
fn strip_comment(l: &str) -> &str {
    let a = l.find('#').unwrap_or(l.len());
    let b = l.find("//").unwrap_or(l.len());
    &l[..a.min(b)]
}

fn operand(c: &mut Cur, th: &mut Thread) -> Result<Operand, Error> {
    match c.peek() {
        Some(Tok::Num(_)) | Some(Tok::Sym("-")) => Ok(Operand::Const(c.num()?)),
        Some(Tok::Ident(s)) => {
            c.i += 1;
            Ok(Operand::Reg(th.reg(s)))
        }
        _ => Err(c.err("expected a register or a number".into())),
    }
}

fn expr(c: &mut Cur, th: &mut Thread) -> Result<Expr, Error> {
    let a = operand(c, th)?;
    if let Some(Tok::Sym(s)) = c.peek() {
        if let Some(op) = BinOp::parse(s) {
            c.i += 1;
            let b = operand(c, th)?;
            return Ok(Expr::Bin(op, a, b));
        }
    }
    Ok(Expr::Op(a))
}

/// A new thread named `name` (a copy of `thread T[N]`: with `tid` set to its number).
fn new_thread(p: &Program, name: &str, tid: Option<Val>) -> Result<Thread, String> {
    if p.thread_ix(name).is_some() {
        return Err(format!("thread `{name}` declared twice"));
    }
    let mut th = Thread::new(name);
    if let Some(v) = tid {
        let r = th.reg("tid");
        th.reg_init[r] = v;
    }
    Ok(th)
}

/// A memory operand: `[x]`, `[a[3]]`, or `[a[r]]` (an element chosen by register r).
fn mem(c: &mut Cur, p: &mut Program, th: &mut Thread) -> Result<Addr, Error> {
    c.expect("[")?;
    let x = c.ident()?;
    let addr = match (c.peek(), c.toks.get(c.i + 1)) {
        (Some(Tok::Sym("[")), Some(Tok::Ident(r))) => {
            c.i += 2;
            c.expect("]")?;
            let a = array(p, x).map_err(|m| c.err(m))?;
            Addr {
                base: a.base,
                index: Some((th.reg(r), a.len)),
            }
        }
        _ => {
            let name = element_name(c, x)?;
            location(p, &name).map_err(|m| c.err(m))?.into()
        }
    };
    c.expect("]")?;
    Ok(addr)
}

/// Parses a program from text; an error names the line and quotes the statement.
pub fn parse_program(text: &str) -> Result<Program, Error> {
    parse_lines(text).map_err(|e| match e {
        Error::Format { line, message } => {
            let stmt = text
                .lines()
                .nth(line.wrapping_sub(1))
                .map(|l| strip_comment(l).trim())
                .unwrap_or("");
            let message = if stmt.is_empty() || stmt.len() > 60 || message.contains(stmt) {
                message
            } else {
                format!("{message} in `{stmt}`")
            };
            Error::Format { line, message }
        }
        e => e,
    })
}

/// A `.prog` text being read, line by line.
struct Reader<'t> {
    p: Program,
    lines: Vec<&'t str>,
    /// The index of the next line to read.
    n: usize,
    /// The thread being read, if any.
    cur: Option<Open>,
    /// The line of the open thread's `thread … {` (an unclosed thread is an error there).
    opened: usize,
    unroll_line: Option<usize>,
    loop_bound_line: Option<usize>,
    atomic_depth: usize,
    /// `begin`/`end` nesting in the text of the current thread.
    txn_depth: usize,
    /// `thread T[N] {`: the copies' base name, their number, the copy being read, and
    /// the index of the body's first line (read again for each copy).
    group: Option<(String, usize, usize, usize)>,
    /// `join T` and `spawn T`: (thread, instruction, name, line), resolved once every thread is read.
    joins: Vec<(usize, usize, String, usize)>,
}

fn parse_lines(text: &str) -> Result<Program, Error> {
    let mut r = Reader {
        p: Program::new("program"),
        // Condition lines: everything from the quantifier to the end of the file.
        lines: text.lines().collect(),
        n: 0,
        cur: None,
        opened: 0,
        unroll_line: None,
        loop_bound_line: None,
        atomic_depth: 0,
        txn_depth: 0,
        group: None,
        joins: Vec::new(),
    };
    while r.n < r.lines.len() {
        let line = r.n + 1;
        let raw = strip_comment(r.lines[r.n]);
        r.n += 1;
        // `program NAME`: the name is one word of any characters (litmus names have
        // `+` and digits first), so it is not tokenised.
        if r.cur.is_none() && raw.split_whitespace().next() == Some("program") {
            let name = raw.trim().trim_start_matches("program").trim();
            if name.is_empty() || name.contains(char::is_whitespace) {
                return Err(fmt_err(line, "expected `program NAME` (one word)".into()));
            }
            r.p.name = name.to_string();
            continue;
        }
        let toks = tokens(raw, line)?;
        if toks.is_empty() {
            continue;
        }
        let c = Cur::new(&toks, line);
        match r.cur.take() {
            None => r.top_level(c, line)?,
            Some(open) => r.thread_line(c, line, open)?,
        }
    }
    let mut p = r.p;
    if let Some((th, _, _)) = r.cur {
        return Err(fmt_err(
            r.opened,
            format!("thread `{}` is not closed with `}}`", th.name),
        ));
    }
    if p.threads.is_empty() {
        return Err(fmt_err(1, "a program needs at least one thread".into()));
    }
    resolve_joins(&mut p, &r.joins)?;
    if let Some((t, pc)) = p.join_in_exclusive() {
        return Err(fmt_err(
            p.threads[t].lines[pc],
            "a `join` inside an exclusive block would wait for a thread that cannot run".into(),
        ));
    }
    if let Some((t, pc)) = p.spawn_error() {
        return Err(fmt_err(
            p.threads[t].lines[pc],
            format!(
                "thread `{}` is spawned, so its first memory instruction must come before any \
                 `assume`, `assert`, `bound`, backward branch or indexed operand",
                p.threads[t].name
            ),
        ));
    }
    Ok(p)
}

impl Reader<'_> {
    /// A statement outside every thread.
    fn top_level(&mut self, mut c: Cur, line: usize) -> Result<(), Error> {
        let word = match &c.toks[0] {
            Tok::Ident(w) => w.as_str(),
            Tok::Sym("~") => "~",
            t => return Err(c.err(format!("unexpected `{}` at top level", show(t)))),
        };
        c.i = 1;
        match word {
            "init" => self.init(&mut c),
            "thread" => self.thread(&mut c, line),
            "array" => self.array(&mut c),
            "unroll" => self.unroll(&mut c, line),
            "loop_bound" => self.loop_bound(&mut c, line),
            "exists" | "forall" | "~" => self.condition(line),
            w => Err(c.err(format!("unknown top-level statement `{w}` (expected program, init, thread, exists, ~exists or forall)"))),
        }
    }

    /// `init x = 1, T:r = 2, [a[0]] = 3`.
    fn init(&mut self, c: &mut Cur) -> Result<(), Error> {
        let p = &mut self.p;
        loop {
            if c.eat("[") {
                let x = c.ident()?.to_string();
                let x = element_name(c, &x)?;
                c.expect("]")?;
                c.expect("=")?;
                let v = c.num()?;
                let x = location(p, &x).map_err(|m| c.err(m))?;
                p.init[x] = v;
            } else {
                let a = c.ident()?.to_string();
                if c.eat(":") {
                    let r = c.ident()?.to_string();
                    c.expect("=")?;
                    let v = c.num()?;
                    let ti = p.thread_ix(&a).ok_or_else(|| {
                        c.err(format!("unknown thread `{a}` (write a register's initial value after its thread)"))
                    })?;
                    let ri = p.threads[ti].reg(&r);
                    p.threads[ti].reg_init[ri] = v;
                } else {
                    let a = element_name(c, &a)?;
                    c.expect("=")?;
                    let v = c.num()?;
                    let x = location(p, &a).map_err(|m| c.err(m))?;
                    p.init[x] = v;
                }
            }
            if c.done() {
                return Ok(());
            }
            if !c.eat(",") && !c.eat(";") {
                return Err(c.err("expected `,` between initial values".into()));
            }
            if c.done() {
                return Ok(());
            }
        }
    }

    /// `thread T {`, or `thread T[N] {`: N copies T0 … T(N-1), with `tid` = 0 … N-1.
    fn thread(&mut self, c: &mut Cur, line: usize) -> Result<(), Error> {
        let base = c.ident()?.to_string();
        let copies = if c.eat("[") {
            let n = c.num()?;
            c.expect("]")?;
            if !(1..=MAX_COPIES as Val).contains(&n) {
                return Err(c.err(format!("a thread is copied 1 to {MAX_COPIES} times")));
            }
            Some(n as usize)
        } else {
            None
        };
        c.expect("{")?;
        c.end()?;
        let th = match copies {
            Some(_) => new_thread(&self.p, &format!("{base}0"), Some(0)),
            None => new_thread(&self.p, &base, None),
        }
        .map_err(|m| c.err(m))?;
        if let Some(copies) = copies {
            // `n` is the index of the body's first line.
            self.group = Some((base, copies, 0, self.n));
        }
        self.cur = Some((th, Vec::new(), Vec::new()));
        self.opened = line;
        Ok(())
    }

    /// `array a[N]`.
    fn array(&mut self, c: &mut Cur) -> Result<(), Error> {
        let name = c.ident()?.to_string();
        c.expect("[")?;
        let n = c.num()?;
        c.expect("]")?;
        c.end()?;
        if !(1..=MAX_ARRAY as Val).contains(&n) {
            return Err(c.err(format!("an array has 1 to {MAX_ARRAY} elements")));
        }
        let p = &mut self.p;
        if p.arrays.iter().any(|a| a.name == name) || p.locs.contains(&name) {
            return Err(c.err(format!("`{name}` is declared twice")));
        }
        p.array(&name, n as u32);
        Ok(())
    }

    /// `unroll N`: the program's own unrolling bound (one).
    fn unroll(&mut self, c: &mut Cur, line: usize) -> Result<(), Error> {
        let n = c.num()?;
        c.end()?;
        if !(0..=u32::MAX as Val).contains(&n) {
            return Err(c.err("`unroll` takes 0 to 2^32-1".into()));
        }
        if let Some(first) = self.unroll_line {
            return Err(c.err(format!(
                "a second `unroll` (the first is on line {first}): a program has one bound"
            )));
        }
        self.unroll_line = Some(line);
        self.p.unroll = Some(n as u32);
        Ok(())
    }

    /// `loop_bound N`: the program bounds its loops itself with `bound` (one).
    fn loop_bound(&mut self, c: &mut Cur, line: usize) -> Result<(), Error> {
        let n = c.num()?;
        c.end()?;
        if !(0..=u32::MAX as Val).contains(&n) {
            return Err(c.err("`loop_bound` takes 0 to 2^32-1".into()));
        }
        if let Some(first) = self.loop_bound_line.replace(line) {
            return Err(c.err(format!(
                "a second `loop_bound` (the first is on line {first}): a program has one bound"
            )));
        }
        self.p.loop_bound = Some(n as u32);
        Ok(())
    }

    /// The final condition: this line and every one after it.
    fn condition(&mut self, line: usize) -> Result<(), Error> {
        let rest = self.lines[self.n - 1..]
            .iter()
            .map(|l| strip_comment(l))
            .collect::<Vec<_>>()
            .join(" ");
        let toks = tokens(&rest, line)?;
        let p = &mut self.p;
        let threads: Vec<String> = p.threads.iter().map(|t| t.name.clone()).collect();
        let f = final_cond(&toks, line, &rest, &mut place_resolver(p, &threads))?;
        p.final_cond = Some(f);
        self.n = self.lines.len();
        Ok(())
    }

    /// A line inside the thread `open`: an optional label, then one statement.
    fn thread_line(&mut self, mut c: Cur, line: usize, mut open: Open) -> Result<(), Error> {
        let (th, _, labels) = &mut open;
        if let (Some(Tok::Ident(l)), Some(Tok::Sym(":"))) = (c.toks.first(), c.toks.get(1)) {
            if labels.iter().any(|(n, _)| n == l) {
                return Err(c.err(format!("label `{l}` defined twice")));
            }
            labels.push((l.clone(), th.code.len()));
            c.i = 2;
            if c.done() {
                self.cur = Some(open);
                return Ok(());
            }
        }
        if c.peek() == Some(&Tok::Sym("}")) {
            c.i += 1;
            c.end()?;
            return self.close(c, line, open);
        }
        let instr = self.statement(&mut c, line, &mut open)?;
        c.end()?;
        open.0.push(instr, line);
        self.cur = Some(open);
        Ok(())
    }

    /// A `}`: the end of an `atomic` block, or of the thread (whose jumps then find
    /// their labels); a `thread T[N]` goes on with its next copy.
    fn close(&mut self, c: Cur, line: usize, mut open: Open) -> Result<(), Error> {
        if self.atomic_depth > 0 {
            self.atomic_depth -= 1;
            open.0.push(Instr::End, line);
            self.cur = Some(open);
            return Ok(());
        }
        if self.txn_depth > 0 {
            return Err(c.err("a `begin` of this thread has no `end`".into()));
        }
        let (mut th, fixups, labels) = open;
        for (at, name, l) in fixups {
            let target = labels
                .iter()
                .find(|(n, _)| *n == name)
                .map(|x| x.1)
                .ok_or_else(|| fmt_err(l, format!("unknown label `{name}`")))?;
            if let Instr::Branch(_, t) = &mut th.code[at] {
                *t = target;
            }
        }
        self.p.threads.push(th);
        // The next copy of a `thread T[N]`: the body again, with the next `tid`.
        if let Some((base, copies, copy, body)) = self.group.as_mut() {
            *copy += 1;
            if *copy == *copies {
                self.group = None;
            } else {
                let th = new_thread(&self.p, &format!("{base}{copy}"), Some(*copy as Val))
                    .map_err(|m| c.err(m))?;
                self.cur = Some((th, Vec::new(), Vec::new()));
                self.n = *body;
            }
        }
        Ok(())
    }

    /// One statement of a thread (not a `}`).
    fn statement(&mut self, c: &mut Cur, line: usize, open: &mut Open) -> Result<Instr, Error> {
        let (th, fixups, _) = open;
        let p = &mut self.p;
        let w = match c.peek() {
            Some(Tok::Sym("[")) => {
                let x = mem(c, p, th)?;
                c.expect("=")?;
                return Ok(Instr::Store(x, operand(c, th)?));
            }
            Some(Tok::Ident(w)) => w.as_str(),
            Some(t) => return Err(c.err(format!("unexpected `{}`", show(t)))),
            None => unreachable!("empty lines are skipped"),
        };
        Ok(match w {
            "fence" | "mfence" => {
                c.i += 1;
                Instr::Fence
            }
            "begin" => {
                c.i += 1;
                self.txn_depth += 1;
                Instr::Begin
            }
            "end" => {
                c.i += 1;
                if self.txn_depth == 0 {
                    return Err(c.err("`end` without a `begin`".into()));
                }
                self.txn_depth -= 1;
                Instr::End
            }
            // Matched when run, not in the text: see `Instr::ExclusiveEnd`.
            "exclusive_begin" => {
                c.i += 1;
                Instr::ExclusiveBegin
            }
            "exclusive_end" => {
                c.i += 1;
                Instr::ExclusiveEnd
            }
            "atomic" => {
                c.i += 1;
                c.expect("{")?;
                self.atomic_depth += 1;
                Instr::Begin
            }
            "goto" => {
                c.i += 1;
                let l = c.ident()?.to_string();
                fixups.push((th.code.len(), l, line));
                Instr::Branch(Expr::Op(Operand::Const(1)), usize::MAX)
            }
            "if" => {
                c.i += 1;
                let e = expr(c, th)?;
                if c.ident()? != "goto" {
                    return Err(c.err("expected `goto` after the condition of `if`".into()));
                }
                let l = c.ident()?.to_string();
                fixups.push((th.code.len(), l, line));
                Instr::Branch(e, usize::MAX)
            }
            "assume" => {
                c.i += 1;
                Instr::Assume(expr(c, th)?)
            }
            "bound" => {
                c.i += 1;
                Instr::Bound(expr(c, th)?)
            }
            "lock" | "unlock" if c.toks.get(c.i + 1) == Some(&Tok::Sym("[")) => {
                c.i += 1;
                let x = mem(c, p, th)?;
                if w == "unlock" {
                    Instr::Unlock(x)
                } else {
                    Instr::Lock(x)
                }
            }
            "join" | "spawn" if matches!(c.toks.get(c.i + 1), Some(Tok::Ident(_))) => {
                c.i += 1;
                let name = c.ident()?.to_string();
                self.joins
                    .push((p.threads.len(), th.code.len(), name, line));
                if w == "join" {
                    Instr::Join(usize::MAX)
                } else {
                    Instr::Spawn(usize::MAX)
                }
            }
            "assert" => {
                c.i += 1;
                Instr::Assert(expr(c, th)?)
            }
            _ => assignment(c, p, th)?,
        })
    }
}

/// `r = [x]` (a load), `r = xchg|fadd|cas [x], …` (a locked read-modify-write), or
/// `r = e` (register arithmetic).
fn assignment(c: &mut Cur, p: &mut Program, th: &mut Thread) -> Result<Instr, Error> {
    let r = th.reg(c.ident()?);
    c.expect("=")?;
    Ok(match c.peek() {
        Some(Tok::Sym("[")) => Instr::Load(r, mem(c, p, th)?),
        // `r = nondet lo, hi` (`, cut`: the range leaves values out).
        Some(Tok::Ident(f))
            if f == "nondet"
                && matches!(c.toks.get(c.i + 1), Some(Tok::Num(_) | Tok::Sym("-"))) =>
        {
            c.i += 1;
            let lo = c.num()?;
            c.expect(",")?;
            let hi = c.num()?;
            if lo > hi || hi.saturating_sub(lo) >= MAX_NONDET {
                return Err(c.err(format!(
                    "`nondet {lo}, {hi}`: a range of 1 to {MAX_NONDET} values, low first"
                )));
            }
            let cut = c.eat(",") && {
                if c.ident()? != "cut" {
                    return Err(c.err("expected `cut` after the range of `nondet`".into()));
                }
                true
            };
            Instr::Nondet {
                reg: r,
                lo,
                hi,
                cut,
            }
        }
        Some(Tok::Ident(f))
            if matches!(f.as_str(), "xchg" | "fadd" | "cas")
                && c.toks.get(c.i + 1) == Some(&Tok::Sym("[")) =>
        {
            c.i += 1;
            let x = mem(c, p, th)?;
            c.expect(",")?;
            let a = operand(c, th)?;
            let mut flag = None;
            let k = match f.as_str() {
                "xchg" => RmwKind::Xchg(a),
                "fadd" => RmwKind::FetchAdd(a),
                _ => {
                    c.expect(",")?;
                    let n = operand(c, th)?;
                    // `cas [x], e, n, f`: f = 1 when it stored, else 0.
                    if c.eat(",") {
                        flag = Some(th.reg(c.ident()?));
                    }
                    RmwKind::Cas(a, n)
                }
            };
            Instr::Rmw(r, x, k, flag)
        }
        _ => Instr::Assign(r, expr(c, th)?),
    })
}

/// How many copies `thread T[N]` may make, and how long an array may be.
pub const MAX_COPIES: usize = 64;
pub const MAX_ARRAY: usize = 1 << 16;

/// Points each `join T` and `spawn T` at thread T; a thread may not start itself, nor
/// join itself or threads that (through their joins) join it: such a program could
/// never finish.
fn resolve_joins(p: &mut Program, joins: &[(usize, usize, String, usize)]) -> Result<(), Error> {
    for (t, at, name, line) in joins {
        let code = &p.threads[*t].code;
        let what = if matches!(code[*at], Instr::Spawn(_)) {
            "spawn"
        } else {
            "join"
        };
        let u = p
            .thread_ix(name)
            .ok_or_else(|| fmt_err(*line, format!("`{what} {name}`: no thread `{name}`")))?;
        if what == "spawn" {
            if u == *t {
                return Err(fmt_err(
                    *line,
                    format!("`spawn {name}`: a thread cannot start itself"),
                ));
            }
            p.threads[*t].code[*at] = Instr::Spawn(u);
        } else {
            p.threads[*t].code[*at] = Instr::Join(u);
        }
    }
    // A cycle of joins, by depth-first search over "t joins u".
    let k = p.threads.len();
    let edges: Vec<Vec<(usize, usize)>> = p
        .threads
        .iter()
        .map(|th| {
            th.code
                .iter()
                .enumerate()
                .filter_map(|(pc, i)| match i {
                    Instr::Join(u) => Some((*u, th.lines[pc])),
                    _ => None,
                })
                .collect()
        })
        .collect();
    // 0: unvisited, 1: on the path, 2: done.
    let mut mark = vec![0u8; k];
    for root in 0..k {
        if mark[root] != 0 {
            continue;
        }
        let mut stack = vec![(root, 0usize)];
        mark[root] = 1;
        while let Some(&mut (t, ref mut next)) = stack.last_mut() {
            if let Some(&(u, line)) = edges[t].get(*next) {
                *next += 1;
                match mark[u] {
                    0 => {
                        mark[u] = 1;
                        stack.push((u, 0));
                    }
                    1 => {
                        return Err(fmt_err(
                            line,
                            format!(
                            "`join {}` closes a cycle of joins: thread `{}` would wait for itself",
                            p.threads[u].name, p.threads[t].name
                        ),
                        ))
                    }
                    _ => {}
                }
            } else {
                mark[t] = 2;
                stack.pop();
            }
        }
    }
    Ok(())
}
