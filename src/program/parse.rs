//! tsoser's program text format (`.prog`), documented in docs/explore.md ("Program format").
//! One statement per line; `#` or `//` start a comment. Errors carry the line.

use super::*;
use crate::error::Error;

/// Resolves a condition atom's (thread, name) to a place.
pub(crate) type Resolve<'a> = dyn FnMut(Option<&str>, &str) -> Result<Place, String> + 'a;

/// A thread being parsed: its code, pending jumps (instruction, label, line), labels.
type Open = (Thread, Vec<(usize, String, usize)>, Vec<(String, usize)>);

/// A token of a line.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Tok {
    Ident(String),
    Num(Val),
    Sym(&'static str),
}

const SYMS: [&str; 24] = [
    "/\\", "\\/", "==", "!=", "<=", ">=", "[", "]", ",", "{", "}", ":", "(", ")", "<", ">", "+",
    "-", "*", "&", "|", "^", "=", "~",
];

/// Splits a line into tokens; `$` before a number (herd's immediates) is skipped.
pub(crate) fn tokens(s: &str, line: usize) -> Result<Vec<Tok>, Error> {
    let mut out = Vec::new();
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i] as char;
        if c.is_whitespace() || c == '$' {
            i += 1;
        } else if c.is_ascii_digit() {
            let j = (i..b.len())
                .find(|&j| !(b[j] as char).is_ascii_alphanumeric())
                .unwrap_or(b.len());
            let text = &s[i..j];
            let v = if let Some(h) = text.strip_prefix("0x") {
                Val::from_str_radix(h, 16)
            } else {
                text.parse::<Val>()
            };
            out.push(Tok::Num(
                v.map_err(|_| fmt_err(line, format!("bad number `{text}`")))?,
            ));
            i = j;
        } else if c.is_ascii_alphabetic() || c == '_' {
            let j = (i..b.len())
                .find(|&j| {
                    !((b[j] as char).is_ascii_alphanumeric() || b[j] == b'_' || b[j] == b'.')
                })
                .unwrap_or(b.len());
            out.push(Tok::Ident(s[i..j].to_string()));
            i = j;
        } else if let Some(sym) = SYMS.iter().find(|p| s[i..].starts_with(**p)) {
            out.push(Tok::Sym(sym));
            i += sym.len();
        } else {
            return Err(fmt_err(line, format!("unexpected character `{c}`")));
        }
    }
    Ok(out)
}

pub(crate) fn fmt_err(line: usize, message: String) -> Error {
    Error::Format { line, message }
}

/// Strips a `#` or `//` comment.
fn strip_comment(l: &str) -> &str {
    let a = l.find('#').unwrap_or(l.len());
    let b = l.find("//").unwrap_or(l.len());
    &l[..a.min(b)]
}

/// A cursor over one line's tokens.
pub(crate) struct Cur<'a> {
    pub toks: &'a [Tok],
    pub i: usize,
    pub line: usize,
    /// Nesting of `(` and `~` in a condition (bounded: [`MAX_NESTING`]).
    depth: usize,
}

/// How deep `(` and `~` may nest in a condition: deeper is an input error with its
/// line, never a stack overflow (bug: deeply_nested_conditions_are_input_errors).
pub const MAX_NESTING: usize = 200;

impl<'a> Cur<'a> {
    pub fn new(toks: &'a [Tok], line: usize) -> Cur<'a> {
        Cur {
            toks,
            i: 0,
            line,
            depth: 0,
        }
    }
    fn nest(&mut self) -> Result<(), Error> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            return Err(self.err(format!(
                "the condition nests `(` and `~` more than {MAX_NESTING} deep"
            )));
        }
        Ok(())
    }
    pub fn peek(&self) -> Option<&'a Tok> {
        self.toks.get(self.i)
    }
    pub fn next(&mut self) -> Option<&'a Tok> {
        let t = self.toks.get(self.i);
        self.i += 1;
        t
    }
    pub fn eat(&mut self, sym: &str) -> bool {
        if matches!(self.peek(), Some(Tok::Sym(s)) if *s == sym) {
            self.i += 1;
            true
        } else {
            false
        }
    }
    pub fn expect(&mut self, sym: &str) -> Result<(), Error> {
        if self.eat(sym) {
            Ok(())
        } else {
            Err(self.err(format!("expected `{sym}`")))
        }
    }
    pub fn ident(&mut self) -> Result<&'a str, Error> {
        match self.next() {
            Some(Tok::Ident(s)) => Ok(s),
            _ => Err(self.err("expected a name".into())),
        }
    }
    pub fn done(&self) -> bool {
        self.i >= self.toks.len()
    }
    pub fn end(&self) -> Result<(), Error> {
        if self.done() {
            Ok(())
        } else {
            Err(self.err(format!("unexpected `{}`", show(&self.toks[self.i]))))
        }
    }
    pub fn err(&self, m: String) -> Error {
        fmt_err(self.line, m)
    }
    /// An integer, possibly negative.
    pub fn num(&mut self) -> Result<Val, Error> {
        let neg = self.eat("-");
        match self.next() {
            Some(Tok::Num(v)) if neg => v
                .checked_neg()
                .ok_or_else(|| self.err("the number is out of range".into())),
            Some(Tok::Num(v)) => Ok(*v),
            _ => Err(self.err("expected a number".into())),
        }
    }
}

pub(crate) fn show(t: &Tok) -> String {
    match t {
        Tok::Ident(s) => s.clone(),
        Tok::Num(v) => v.to_string(),
        Tok::Sym(s) => s.to_string(),
    }
}

/// A condition: atoms `T:r = v`, `x = v` (or `[x] = v`), `true`, `~`, `/\`, `\/`,
/// parentheses. `place` resolves the name of an atom.
pub(crate) fn cond(c: &mut Cur, place: &mut Resolve) -> Result<Cond, Error> {
    let mut a = vec![cond_and(c, place)?];
    while c.eat("\\/") {
        a.push(cond_and(c, place)?);
    }
    Ok(if a.len() == 1 {
        a.pop().expect("one")
    } else {
        Cond::Or(a)
    })
}

fn cond_and(c: &mut Cur, place: &mut Resolve) -> Result<Cond, Error> {
    let mut a = vec![cond_atom(c, place)?];
    while c.eat("/\\") {
        a.push(cond_atom(c, place)?);
    }
    Ok(if a.len() == 1 {
        a.pop().expect("one")
    } else {
        Cond::And(a)
    })
}

fn cond_atom(c: &mut Cur, place: &mut Resolve) -> Result<Cond, Error> {
    if c.eat("~") {
        c.nest()?;
        let a = cond_atom(c, place)?;
        c.depth -= 1;
        return Ok(Cond::Not(Box::new(a)));
    }
    if c.eat("(") {
        c.nest()?;
        let a = cond(c, place)?;
        c.expect(")")?;
        c.depth -= 1;
        return Ok(a);
    }
    let bracket = c.eat("[");
    let (thread, name) = match c.next() {
        Some(Tok::Ident(s)) if s == "true" && !bracket => return Ok(Cond::True),
        Some(Tok::Ident(s)) => {
            if !bracket && c.eat(":") {
                (Some(s.as_str()), c.ident()?.to_string())
            } else {
                (None, element_name(c, s)?)
            }
        }
        Some(Tok::Num(n)) if !bracket && c.eat(":") => {
            // herd's `0:EAX`: thread by number.
            let t = format!("{n}");
            let r = c.ident()?;
            let p = place(Some(&t), r).map_err(|m| c.err(m))?;
            c.expect("=")?;
            return Ok(Cond::Atom(p, c.num()?));
        }
        _ => return Err(c.err("expected a condition atom (`T:r = v` or `x = v`)".into())),
    };
    if bracket {
        c.expect("]")?;
    }
    let p = place(thread, &name).map_err(|m| c.err(m))?;
    c.expect("=")?;
    Ok(Cond::Atom(p, c.num()?))
}

/// Parses a quantifier word and the condition after it (the rest of the text).
pub(crate) fn final_cond(
    toks: &[Tok],
    line: usize,
    text: &str,
    place: &mut Resolve,
) -> Result<Final, Error> {
    let mut c = Cur::new(toks, line);
    let quantifier = if c.eat("~") {
        match c.ident()? {
            "exists" => Quantifier::NotExists,
            w => return Err(c.err(format!("expected `exists` after `~`, found `{w}`"))),
        }
    } else {
        match c.ident()? {
            "exists" => Quantifier::Exists,
            "forall" => Quantifier::Forall,
            w => return Err(c.err(format!("unknown quantifier `{w}`"))),
        }
    };
    let cond = cond(&mut c, place)?;
    c.end()?;
    Ok(Final {
        quantifier,
        cond,
        text: text.trim().to_string(),
        line,
    })
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

/// The array named `name`.
fn array<'a>(p: &'a Program, name: &str) -> Result<&'a Array, String> {
    p.arrays
        .iter()
        .find(|a| a.name == name)
        .ok_or_else(|| format!("`{name}` is not an array (declare it: `array {name}[N]`)"))
}

/// `name`, or `name[i]` (an array element) when a constant index follows.
fn element_name(c: &mut Cur, name: &str) -> Result<String, Error> {
    if matches!(c.peek(), Some(Tok::Sym("["))) && matches!(c.toks.get(c.i + 1), Some(Tok::Num(_))) {
        c.i += 1;
        let i = c.num()?;
        c.expect("]")?;
        return Ok(format!("{name}[{i}]"));
    }
    Ok(name.to_string())
}

/// The location a name (`x` or `a[3]`) denotes: a scalar, declared on first use, or
/// an element of a declared array.
fn location(p: &mut Program, name: &str) -> Result<Loc, String> {
    if let Some(open) = name.find('[') {
        let array = &name[..open];
        let a = self::array(p, array)?;
        return p.locs[a.base..a.base + a.len as usize]
            .iter()
            .position(|n| n == name)
            .map(|i| a.base + i)
            .ok_or_else(|| format!("`{name}` is outside `{array}[0..{}]`", a.len));
    }
    if p.arrays.iter().any(|a| a.name == name) {
        return Err(format!(
            "`{name}` is an array: name an element, `{name}[i]`"
        ));
    }
    Ok(p.loc(name))
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

fn parse_lines(text: &str) -> Result<Program, Error> {
    let mut p = Program::new("program");
    let mut cur: Option<Open> = None;
    // The line of the open thread's `thread … {` (an unclosed thread is an error there).
    let mut opened = 0;
    let mut unroll_line: Option<usize> = None;
    let mut atomic_depth = 0usize;
    // `begin`/`end` nesting in the text of the current thread.
    let mut txn_depth = 0usize;
    // `thread T[N] {`: the copies' base name, their number, the copy being read, and
    // the index of the body's first line (read again for each copy).
    let mut group: Option<(String, usize, usize, usize)> = None;
    // `join T`: (thread, instruction, name, line), resolved once every thread is read.
    let mut joins: Vec<(usize, usize, String, usize)> = Vec::new();
    // Condition lines: everything from the quantifier to the end of the file.
    let lines: Vec<&str> = text.lines().collect();
    let mut n = 0;
    while n < lines.len() {
        let line = n + 1;
        let raw = strip_comment(lines[n]);
        n += 1;
        // `program NAME`: the name is one word of any characters (litmus names have
        // `+` and digits first), so it is not tokenised.
        if cur.is_none() && raw.split_whitespace().next() == Some("program") {
            let name = raw.trim().trim_start_matches("program").trim();
            if name.is_empty() || name.contains(char::is_whitespace) {
                return Err(fmt_err(line, "expected `program NAME` (one word)".into()));
            }
            p.name = name.to_string();
            continue;
        }
        let toks = tokens(raw, line)?;
        if toks.is_empty() {
            continue;
        }
        let mut c = Cur::new(&toks, line);
        let Some((th, fixups, labels)) = cur.as_mut() else {
            // Top level.
            let word = match &toks[0] {
                Tok::Ident(w) => w.as_str(),
                Tok::Sym("~") => "~",
                t => return Err(c.err(format!("unexpected `{}` at top level", show(t)))),
            };
            match word {
                "init" => {
                    c.i = 1;
                    loop {
                        if c.eat("[") {
                            let x = c.ident()?.to_string();
                            let x = element_name(&mut c, &x)?;
                            c.expect("]")?;
                            c.expect("=")?;
                            let v = c.num()?;
                            let x = location(&mut p, &x).map_err(|m| c.err(m))?;
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
                                let a = element_name(&mut c, &a)?;
                                c.expect("=")?;
                                let v = c.num()?;
                                let x = location(&mut p, &a).map_err(|m| c.err(m))?;
                                p.init[x] = v;
                            }
                        }
                        if c.done() {
                            break;
                        }
                        if !c.eat(",") && !c.eat(";") {
                            return Err(c.err("expected `,` between initial values".into()));
                        }
                        if c.done() {
                            break;
                        }
                    }
                }
                "thread" => {
                    c.i = 1;
                    let base = c.ident()?.to_string();
                    // `thread T[N] {`: N copies T0 … T(N-1), with `tid` = 0 … N-1.
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
                        Some(_) => new_thread(&p, &format!("{base}0"), Some(0)),
                        None => new_thread(&p, &base, None),
                    }
                    .map_err(|m| c.err(m))?;
                    if let Some(copies) = copies {
                        // `n` is the index of the body's first line.
                        group = Some((base, copies, 0, n));
                    }
                    cur = Some((th, Vec::new(), Vec::new()));
                    opened = line;
                }
                "array" => {
                    c.i = 1;
                    let name = c.ident()?.to_string();
                    c.expect("[")?;
                    let n = c.num()?;
                    c.expect("]")?;
                    c.end()?;
                    if !(1..=MAX_ARRAY as Val).contains(&n) {
                        return Err(c.err(format!("an array has 1 to {MAX_ARRAY} elements")));
                    }
                    if p.arrays.iter().any(|a| a.name == name) || p.locs.contains(&name) {
                        return Err(c.err(format!("`{name}` is declared twice")));
                    }
                    p.array(&name, n as u32);
                }
                "unroll" => {
                    c.i = 1;
                    let n = c.num()?;
                    c.end()?;
                    if !(0..=u32::MAX as Val).contains(&n) {
                        return Err(c.err("`unroll` takes 0 to 2^32-1".into()));
                    }
                    if let Some(first) = unroll_line {
                        return Err(c.err(format!(
                            "a second `unroll` (the first is on line {first}): a program has one bound"
                        )));
                    }
                    unroll_line = Some(line);
                    p.unroll = Some(n as u32);
                }
                "exists" | "forall" | "~" => {
                    let rest = lines[n - 1..].iter().map(|l| strip_comment(l)).collect::<Vec<_>>().join(" ");
                    let toks = tokens(&rest, line)?;
                    let threads: Vec<String> = p.threads.iter().map(|t| t.name.clone()).collect();
                    let f = final_cond(&toks, line, &rest, &mut place_resolver(&mut p, &threads))?;
                    p.final_cond = Some(f);
                    n = lines.len();
                }
                w => return Err(c.err(format!("unknown top-level statement `{w}` (expected program, init, thread, exists, ~exists or forall)"))),
            }
            continue;
        };
        // Inside a thread: optional label, then one statement.
        if let (Some(Tok::Ident(l)), Some(Tok::Sym(":"))) = (c.toks.first(), c.toks.get(1)) {
            if labels.iter().any(|(n, _)| n == l) {
                return Err(c.err(format!("label `{l}` defined twice")));
            }
            labels.push((l.clone(), th.code.len()));
            c.i = 2;
            if c.done() {
                continue;
            }
        }
        let instr = match c.peek() {
            Some(Tok::Sym("}")) => {
                c.i += 1;
                c.end()?;
                if atomic_depth > 0 {
                    atomic_depth -= 1;
                    th.push(Instr::End, line);
                    continue;
                }
                if txn_depth > 0 {
                    return Err(c.err("a `begin` of this thread has no `end`".into()));
                }
                let (mut th, fixups, labels) = cur.take().unwrap();
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
                p.threads.push(th);
                // The next copy of a `thread T[N]`: the body again, with the next `tid`.
                if let Some((base, copies, copy, body)) = group.as_mut() {
                    *copy += 1;
                    if *copy == *copies {
                        group = None;
                    } else {
                        let th = new_thread(&p, &format!("{base}{copy}"), Some(*copy as Val))
                            .map_err(|m| c.err(m))?;
                        cur = Some((th, Vec::new(), Vec::new()));
                        n = *body;
                    }
                }
                continue;
            }
            Some(Tok::Sym("[")) => {
                let x = mem(&mut c, &mut p, th)?;
                c.expect("=")?;
                Instr::Store(x, operand(&mut c, th)?)
            }
            Some(Tok::Ident(w)) => match w.as_str() {
                "fence" | "mfence" => {
                    c.i += 1;
                    Instr::Fence
                }
                "begin" => {
                    c.i += 1;
                    txn_depth += 1;
                    Instr::Begin
                }
                "end" => {
                    c.i += 1;
                    if txn_depth == 0 {
                        return Err(c.err("`end` without a `begin`".into()));
                    }
                    txn_depth -= 1;
                    Instr::End
                }
                "atomic" => {
                    c.i += 1;
                    c.expect("{")?;
                    atomic_depth += 1;
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
                    let e = expr(&mut c, th)?;
                    if c.ident()? != "goto" {
                        return Err(c.err("expected `goto` after the condition of `if`".into()));
                    }
                    let l = c.ident()?.to_string();
                    fixups.push((th.code.len(), l, line));
                    Instr::Branch(e, usize::MAX)
                }
                "assume" => {
                    c.i += 1;
                    Instr::Assume(expr(&mut c, th)?)
                }
                "lock" | "unlock" if c.toks.get(c.i + 1) == Some(&Tok::Sym("[")) => {
                    let unlock = w == "unlock";
                    c.i += 1;
                    let x = mem(&mut c, &mut p, th)?;
                    if unlock {
                        Instr::Unlock(x)
                    } else {
                        Instr::Lock(x)
                    }
                }
                "join" if matches!(c.toks.get(c.i + 1), Some(Tok::Ident(_))) => {
                    c.i += 1;
                    let name = c.ident()?.to_string();
                    joins.push((p.threads.len(), th.code.len(), name, line));
                    Instr::Join(usize::MAX)
                }
                "assert" => {
                    c.i += 1;
                    Instr::Assert(expr(&mut c, th)?)
                }
                _ => {
                    let r = th.reg(c.ident()?);
                    c.expect("=")?;
                    match c.peek() {
                        Some(Tok::Sym("[")) => Instr::Load(r, mem(&mut c, &mut p, th)?),
                        Some(Tok::Ident(f))
                            if matches!(f.as_str(), "xchg" | "fadd" | "cas")
                                && c.toks.get(c.i + 1) == Some(&Tok::Sym("[")) =>
                        {
                            c.i += 1;
                            let x = mem(&mut c, &mut p, th)?;
                            c.expect(",")?;
                            let a = operand(&mut c, th)?;
                            let mut flag = None;
                            let k = match f.as_str() {
                                "xchg" => RmwKind::Xchg(a),
                                "fadd" => RmwKind::FetchAdd(a),
                                _ => {
                                    c.expect(",")?;
                                    let n = operand(&mut c, th)?;
                                    // `cas [x], e, n, f`: f = 1 when it stored, else 0.
                                    if c.eat(",") {
                                        flag = Some(th.reg(c.ident()?));
                                    }
                                    RmwKind::Cas(a, n)
                                }
                            };
                            Instr::Rmw(r, x, k, flag)
                        }
                        _ => Instr::Assign(r, expr(&mut c, th)?),
                    }
                }
            },
            Some(t) => return Err(c.err(format!("unexpected `{}`", show(t)))),
            None => unreachable!("empty lines are skipped"),
        };
        c.end()?;
        th.push(instr, line);
    }
    if let Some((th, _, _)) = cur {
        return Err(fmt_err(
            opened,
            format!("thread `{}` is not closed with `}}`", th.name),
        ));
    }
    if p.threads.is_empty() {
        return Err(fmt_err(1, "a program needs at least one thread".into()));
    }
    resolve_joins(&mut p, &joins)?;
    Ok(p)
}

/// How many copies `thread T[N]` may make, and how long an array may be.
pub const MAX_COPIES: usize = 64;
pub const MAX_ARRAY: usize = 1 << 16;

/// Points each `join T` at thread T; a thread may not join itself, nor threads that
/// (through their joins) join it: such a program could never finish.
fn resolve_joins(p: &mut Program, joins: &[(usize, usize, String, usize)]) -> Result<(), Error> {
    for (t, at, name, line) in joins {
        let u = p
            .thread_ix(name)
            .ok_or_else(|| fmt_err(*line, format!("`join {name}`: no thread `{name}`")))?;
        p.threads[*t].code[*at] = Instr::Join(u);
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

/// Resolves `T:r` to a thread's register and `x` to a location (both must exist).
pub(crate) fn place_resolver<'a>(
    p: &'a mut Program,
    threads: &'a [String],
) -> impl FnMut(Option<&str>, &str) -> Result<Place, String> + 'a {
    move |t, name| match t {
        Some(t) => {
            let ti = threads
                .iter()
                .position(|n| n == t || n.strip_prefix('P') == Some(t))
                .ok_or_else(|| format!("unknown thread `{t}` in the condition"))?;
            let th = &mut p.threads[ti];
            // A register the code never names reads as its initial value (0).
            Ok(Place::Reg(ti, th.reg(name)))
        }
        None => location(p, name).map(Place::Mem),
    }
}

/// Reads a program file: `.litmus` files as herd X86 litmus tests, others as `.prog`.
pub fn read_program(path: &std::path::Path) -> Result<Program, crate::error::FileError> {
    let file = path.display().to_string();
    let wrap = |error| crate::error::FileError {
        file: file.clone(),
        error,
    };
    let text = std::fs::read_to_string(path).map_err(|e| wrap(Error::Io(e)))?;
    if path.extension().is_some_and(|e| e == "litmus") {
        super::litmus::parse_litmus(&text).map_err(wrap)
    } else {
        parse_program(&text).map_err(wrap)
    }
}
