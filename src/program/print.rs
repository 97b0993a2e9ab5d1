//! Programs back to the `.prog` text format ([`super::parse`]): `parse_program(&to_prog(p))`
//! gives `p` again (up to source lines, and names that are not words of the format,
//! which are renamed). Litmus tests and generated programs are written this way
//! (`tsoser gen-prog`, `tsoser explore --format prog`).

use super::*;
use std::fmt::Write;

/// Words that start a statement or a condition: a register, location or thread with
/// one of these names would read as something else.
/// (`lock`, `unlock` and `join` start a statement only before `[` or a name, so
/// registers and locations keep those names.)
const KEYWORDS: [&str; 21] = [
    "program",
    "init",
    "thread",
    "exists",
    "forall",
    "fence",
    "mfence",
    "begin",
    "end",
    "atomic",
    "exclusive_begin",
    "exclusive_end",
    "nondet",
    "goto",
    "if",
    "assume",
    "assert",
    "bound",
    "true",
    "xchg",
    "fadd",
];

/// `name` if the format reads it back as that name, else `fallback`.
fn word(name: &str, fallback: String) -> String {
    let mut cs = name.chars();
    let ok = cs
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && cs.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
        && !KEYWORDS.contains(&name)
        && name != "cas";
    if ok {
        name.to_string()
    } else {
        fallback
    }
}

/// Each name as [`word`] keeps it (else `PREFIX<i>`), made distinct by suffixes (the
/// condition finds `0:r` as thread `P0` too, so thread names must not collide).
fn distinct<'a>(names: impl Iterator<Item = &'a str>, prefix: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for (i, name) in names.enumerate() {
        let mut n = word(name, format!("{prefix}{i}"));
        while out.contains(&n) {
            n = format!("{n}_{i}");
        }
        out.push(n);
    }
    out
}

/// The names a printed program uses: threads, per-thread registers, locations.
struct Names {
    threads: Vec<String>,
    regs: Vec<Vec<String>>,
    locs: Vec<String>,
}

impl Names {
    fn new(p: &Program) -> Names {
        let threads = distinct(p.threads.iter().map(|t| t.name.as_str()), "T");
        let regs = p
            .threads
            .iter()
            .map(|th| distinct(th.regs.iter().map(String::as_str), "r_"))
            .collect();
        // Scalars and arrays share one namespace; an array's elements are `a[i]`.
        let in_array = |x: usize| {
            p.arrays
                .iter()
                .find(|a| (a.base..a.base + a.len as usize).contains(&x))
        };
        let mut bases: Vec<&str> = Vec::new();
        for (x, name) in p.locs.iter().enumerate() {
            match in_array(x) {
                Some(a) if a.base == x => bases.push(&a.name),
                Some(_) => {}
                None => bases.push(name),
            }
        }
        let mut base_names = distinct(bases.into_iter(), "m_").into_iter();
        let mut locs = Vec::new();
        let mut x = 0;
        while x < p.locs.len() {
            let name = base_names.next().expect("a name per scalar and array");
            match in_array(x) {
                Some(a) => {
                    locs.extend((0..a.len).map(|i| format!("{name}[{i}]")));
                    x += a.len as usize;
                }
                None => {
                    locs.push(name);
                    x += 1;
                }
            }
        }
        Names {
            threads,
            regs,
            locs,
        }
    }

    /// A memory operand (without its brackets).
    fn addr(&self, t: usize, a: &Addr) -> String {
        match a.index {
            None => self.locs[a.base].clone(),
            Some((r, _)) => {
                let element = &self.locs[a.base];
                let array = &element[..element.rfind('[').expect("an element")];
                format!("{array}[{}]", self.regs[t][r])
            }
        }
    }

    fn operand(&self, t: usize, o: &Operand) -> String {
        match o {
            Operand::Const(v) => v.to_string(),
            Operand::Reg(r) => self.regs[t][*r].clone(),
        }
    }

    fn expr(&self, t: usize, e: &Expr) -> String {
        match e {
            Expr::Op(o) => self.operand(t, o),
            Expr::Bin(b, x, y) => format!(
                "{} {} {}",
                self.operand(t, x),
                b.symbol(),
                self.operand(t, y)
            ),
        }
    }

    fn place(&self, p: &Place) -> String {
        match p {
            Place::Reg(t, r) => format!("{}:{}", self.threads[*t], self.regs[*t][*r]),
            Place::Mem(x) => format!("[{}]", self.locs[*x]),
        }
    }

    fn cond(&self, c: &Cond) -> String {
        match c {
            Cond::True => "true".into(),
            Cond::Atom(p, v) => format!("{} = {v}", self.place(p)),
            Cond::Not(c) => format!("~({})", self.cond(c)),
            Cond::And(cs) => self.join(cs, " /\\ "),
            Cond::Or(cs) => self.join(cs, " \\/ "),
        }
    }

    fn join(&self, cs: &[Cond], sep: &str) -> String {
        let parts: Vec<String> = cs.iter().map(|c| format!("({})", self.cond(c))).collect();
        parts.join(sep)
    }
}

/// The program in the `.prog` format. Every branch target gets a label `L<pc>`.
pub fn to_prog(p: &Program) -> String {
    let names = Names::new(p);
    let mut s = String::new();
    // The name is one word; `#` and `//` would start a comment.
    let name: String = p
        .name
        .replace("//", "__")
        .chars()
        .map(|c| {
            if c.is_whitespace() || c == '#' {
                '_'
            } else {
                c
            }
        })
        .collect();
    let _ = writeln!(
        s,
        "program {}",
        if name.is_empty() { "program" } else { &name }
    );
    if let Some(n) = p.unroll {
        let _ = writeln!(s, "unroll {n}");
    }
    if let Some(n) = p.loop_bound {
        let _ = writeln!(s, "loop_bound {n}");
    }
    // Every location, in order (so they keep their indices: an array's elements come
    // with its declaration); registers' initial values after the threads that declare
    // them.
    let mut mem: Vec<String> = Vec::new();
    let mut elements: Vec<String> = Vec::new();
    let mut x = 0;
    while x < p.locs.len() {
        match p.arrays.iter().find(|a| a.base == x) {
            Some(a) => {
                if !mem.is_empty() {
                    let _ = writeln!(s, "init {}", mem.join(", "));
                    mem.clear();
                }
                let name = &names.locs[x][..names.locs[x].rfind('[').expect("an element")];
                let _ = writeln!(s, "array {name}[{}]", a.len);
                for y in x..x + a.len as usize {
                    if p.init[y] != 0 {
                        elements.push(format!("[{}] = {}", names.locs[y], p.init[y]));
                    }
                }
                x += a.len as usize;
            }
            None => {
                mem.push(format!("[{}] = {}", names.locs[x], p.init[x]));
                x += 1;
            }
        }
    }
    mem.extend(elements);
    if !mem.is_empty() {
        let _ = writeln!(s, "init {}", mem.join(", "));
    }
    let mut init = Vec::new();
    for (t, th) in p.threads.iter().enumerate() {
        let _ = writeln!(s, "thread {} {{", names.threads[t]);
        let mut targets: Vec<usize> = th
            .code
            .iter()
            .filter_map(|i| match i {
                Instr::Branch(_, to) => Some(*to),
                _ => None,
            })
            .collect();
        targets.sort_unstable();
        targets.dedup();
        for (pc, i) in th.code.iter().enumerate() {
            let label = if targets.binary_search(&pc).is_ok() {
                format!("L{pc}:")
            } else {
                String::new()
            };
            let reg = |r: &Reg| names.regs[t][*r].clone();
            let op = |o: &Operand| names.operand(t, o);
            let text = match i {
                Instr::Load(r, x) => format!("{} = [{}]", reg(r), names.addr(t, x)),
                Instr::Store(x, v) => format!("[{}] = {}", names.addr(t, x), op(v)),
                Instr::Fence => "fence".into(),
                Instr::Lock(x) => format!("lock [{}]", names.addr(t, x)),
                Instr::Unlock(x) => format!("unlock [{}]", names.addr(t, x)),
                Instr::Join(u) => format!("join {}", names.threads[*u]),
                Instr::Spawn(u) => format!("spawn {}", names.threads[*u]),
                Instr::Rmw(r, x, k, flag) => {
                    let (f, args) = match k {
                        RmwKind::Xchg(v) => ("xchg", op(v)),
                        RmwKind::FetchAdd(v) => ("fadd", op(v)),
                        RmwKind::Cas(e, n) => ("cas", format!("{}, {}", op(e), op(n))),
                    };
                    let flag = flag.map(|f| format!(", {}", reg(&f))).unwrap_or_default();
                    format!("{} = {f} [{}], {args}{flag}", reg(r), names.addr(t, x))
                }
                Instr::Assign(r, e) => format!("{} = {}", reg(r), names.expr(t, e)),
                Instr::Branch(Expr::Op(Operand::Const(c)), to) if *c != 0 => format!("goto L{to}"),
                Instr::Branch(e, to) => format!("if {} goto L{to}", names.expr(t, e)),
                Instr::Assume(e) => format!("assume {}", names.expr(t, e)),
                Instr::Assert(e) => format!("assert {}", names.expr(t, e)),
                Instr::Bound(e) => format!("bound {}", names.expr(t, e)),
                Instr::Begin => "begin".into(),
                Instr::End => "end".into(),
                Instr::ExclusiveBegin => "exclusive_begin".into(),
                Instr::ExclusiveEnd => "exclusive_end".into(),
                Instr::Nondet {
                    reg: r,
                    lo,
                    hi,
                    cut,
                } => {
                    let cut = if *cut { ", cut" } else { "" };
                    format!("{} = nondet {lo}, {hi}{cut}", reg(r))
                }
            };
            let _ = writeln!(s, "{label:<4} {text}");
        }
        if targets.last() == Some(&th.code.len()) {
            let _ = writeln!(s, "L{}:", th.code.len());
        }
        s.push_str("}\n");
        for (r, v) in th.reg_init.iter().enumerate() {
            if *v != 0 {
                init.push(format!("{}:{} = {v}", names.threads[t], names.regs[t][r]));
            }
        }
    }
    if !init.is_empty() {
        let _ = writeln!(s, "init {}", init.join(", "));
    }
    if let Some(f) = &p.final_cond {
        let _ = writeln!(s, "{} {}", f.quantifier, names.cond(&f.cond));
    }
    s
}
