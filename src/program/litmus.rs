//! herd's X86 litmus format, read into a [`Program`]: the `X86 name` header (and any
//! doc/key lines after it), the `{ … }` init block, the `P0 | P1 ;` columns, a
//! `locations […]` line, and the condition (`exists`, `~exists`, `forall`, or the old
//! `final (…); with tso: …;` form, read as `exists` — as herd and Dat3M do; required, as
//! herd requires it). `(* … *)` comments (nested) and `<< … >>` blocks are skipped and
//! `"…"` strings are allowed in the header lines; any of them left open, or a bracket
//! from the init block on that does not pair up, is an error at the line where it opens.
//!
//! Instructions: `MOV` (store, load, register moves), `MFENCE`, `XCHG` (always locked),
//! `LOCK ADD|SUB|INC|DEC|XADD|CMPXCHG` on memory, `ADD|SUB|INC|DEC|AND|OR|XOR` on
//! registers, `CMP` (sets the zero flag `ZF`), `JE|JZ|JNE|JNZ|JMP` to labels.

use super::tokens::{final_cond, fmt_err, place_resolver, tokens, Cur, Tok};
use super::*;
use crate::error::Error;

/// Blanks `(* … *)` comments (nested, as herd's OCaml lexer nests them), `<< … >>`
/// blocks and the text of `"…"` strings (their quotes stay, so a string anywhere but
/// in the ignored header lines is an unexpected character), keeping line breaks. One
/// left open is an error at the line where it opens: it would swallow the rest.
fn strip(text: &str) -> Result<String, Error> {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let (mut i, mut copied, mut line) = (0, 0, 1);
    while i < b.len() {
        let (open, close, what) = match &b[i..] {
            [b'(', b'*', ..] => ("(*", "*)", "comment"),
            [b'<', b'<', ..] => ("<<", ">>", "block"),
            [b'"', ..] => ("\"", "\"", "string"),
            [c, ..] => {
                line += (*c == b'\n') as usize;
                i += 1;
                continue;
            }
            [] => unreachable!("i < len"),
        };
        out.push_str(&text[copied..i]);
        out.push_str(if open == "\"" { "\"" } else { " " });
        let opened = line;
        let mut depth = 1;
        let mut j = i + open.len();
        while depth > 0 {
            let rest = &b[j.min(b.len())..];
            if rest.is_empty() {
                return Err(fmt_err(
                    opened,
                    format!("the {what} opened with `{open}` is not closed with `{close}`"),
                ));
            }
            if open == "(*" && rest.starts_with(b"(*") {
                depth += 1;
                j += 2;
            } else if rest.starts_with(close.as_bytes()) {
                depth -= 1;
                j += close.len();
            } else {
                if rest[0] == b'\n' {
                    line += 1;
                    out.push('\n');
                }
                j += 1;
            }
        }
        if open == "\"" {
            out.push('"');
        }
        i = j;
        copied = j;
    }
    out.push_str(&text[copied..]);
    Ok(out)
}

/// Checks that `{ }`, `[ ]` and `( )` pair up in `text` from byte `from` on: one left
/// open is an error at the line where it opens, a stray closer at its own line.
fn balanced(text: &str, from: usize) -> Result<(), Error> {
    let mut line = 1 + text[..from].matches('\n').count();
    let mut open: Vec<(u8, usize)> = Vec::new();
    let closer = |c: u8| match c {
        b'{' => '}',
        b'[' => ']',
        _ => ')',
    };
    for &c in &text.as_bytes()[from..] {
        match c {
            b'\n' => line += 1,
            b'{' | b'[' | b'(' => open.push((c, line)),
            b'}' | b']' | b')' => match open.pop() {
                Some((o, _)) if closer(o) == c as char => {}
                Some((o, l)) => {
                    return Err(fmt_err(
                        l,
                        format!(
                            "`{}` is closed by `{}` on line {line}, not by `{}`",
                            o as char,
                            c as char,
                            closer(o)
                        ),
                    ))
                }
                None => return Err(fmt_err(line, format!("`{}` closes nothing", c as char))),
            },
            _ => {}
        }
    }
    match open.first() {
        Some(&(o, l)) => Err(fmt_err(
            l,
            format!("`{}` is not closed with `{}`", o as char, closer(o)),
        )),
        None => Ok(()),
    }
}

/// Parses an X86 litmus test.
pub fn parse_litmus(text: &str) -> Result<Program, Error> {
    let text = strip(text)?;
    let lines: Vec<&str> = text.lines().collect();
    let (mut p, n) = header(&lines)?;
    let (init, init_line, after_init) = init_block(&text, &lines, n)?;
    let (names, n) = thread_names(&mut p, &lines, after_init)?;
    let n = table(&mut p, &lines, n, &names)?;
    init_items(&mut p, &init, init_line)?;
    let cond_at = locations_line(&mut p, &lines, n, &names)?;
    condition(&mut p, &lines, cond_at, &names)?;
    Ok(p)
}

/// The `X86 name` header: the program, and the header's line index.
fn header(lines: &[&str]) -> Result<(Program, usize), Error> {
    let n = lines
        .iter()
        .position(|l| !l.trim().is_empty())
        .ok_or_else(|| fmt_err(1, "empty litmus file".into()))?;
    let mut words = lines[n].split_whitespace();
    let arch = words.next().unwrap_or("");
    if !arch.eq_ignore_ascii_case("X86") {
        return Err(fmt_err(
            n + 1,
            format!(
                "expected an `X86 <name>` header, found `{arch}` (only X86 litmus tests are read)"
            ),
        ));
    }
    Ok((Program::new(words.next().unwrap_or("litmus")), n))
}

/// The init block, from the first `{` after the header (line index `n`) to its `}`:
/// its text, its first line, and the index of the line after it. From the block on,
/// every bracket must pair up (the header lines are free text).
fn init_block(text: &str, lines: &[&str], n: usize) -> Result<(String, usize, usize), Error> {
    let open = (n..lines.len())
        .find(|&i| lines[i].contains('{'))
        .ok_or_else(|| fmt_err(n + 1, "missing the `{ … }` init block".into()))?;
    let line_start: usize = text.split_inclusive('\n').take(open).map(str::len).sum();
    balanced(text, line_start + lines[open].find('{').expect("found"))?;
    let mut init = String::new();
    let mut i = open;
    loop {
        let l = lines[i];
        let from = if i == open {
            l.find('{').unwrap() + 1
        } else {
            0
        };
        if let Some(close) = l[from..].find('}') {
            init.push_str(&l[from..from + close]);
            let rest = l[from + close + 1..].trim();
            if !rest.is_empty() && rest != ";" {
                return Err(fmt_err(
                    i + 1,
                    format!("unexpected `{rest}` after the init block's `}}`"),
                ));
            }
            return Ok((init, open + 1, i + 1));
        }
        init.push_str(&l[from..]);
        init.push(' ');
        i += 1;
        if i == lines.len() {
            return Err(fmt_err(
                open + 1,
                "the init block is not closed with `}`".into(),
            ));
        }
    }
}

/// The column header `P0 | P1 ;` (the first line from `from` on), whose threads it
/// adds to `p`: their names, and the index of the line after it.
fn thread_names(
    p: &mut Program,
    lines: &[&str],
    from: usize,
) -> Result<(Vec<String>, usize), Error> {
    let n = (from..lines.len())
        .find(|&i| !lines[i].trim().is_empty())
        .ok_or_else(|| fmt_err(from, "missing the `P0 | P1 ;` thread header".into()))?;
    let names: Vec<String> = lines[n]
        .trim()
        .trim_end_matches(';')
        .split('|')
        .map(|s| s.trim().to_string())
        .collect();
    if names
        .iter()
        .any(|s| s.is_empty() || s.contains(char::is_whitespace))
    {
        return Err(fmt_err(
            n + 1,
            format!(
                "expected thread names `P0 | P1 | … ;`, found `{}`",
                lines[n].trim()
            ),
        ));
    }
    for name in &names {
        p.threads.push(Thread::new(name));
    }
    Ok((names, n + 1))
}

/// Whether a line starts the part after the program table.
fn is_cond(l: &str) -> bool {
    let l = l.trim_start();
    [
        "exists",
        "~exists",
        "~ exists",
        "forall",
        "final",
        "locations",
        "~",
    ]
    .iter()
    .any(|k| l.starts_with(k))
}

/// The program table's rows from line index `n` on, one cell a thread, with each jump
/// pointed at its label: the index of the line after the table.
fn table(p: &mut Program, lines: &[&str], mut n: usize, names: &[String]) -> Result<usize, Error> {
    let mut labels: Vec<Vec<(String, usize)>> = vec![Vec::new(); names.len()];
    let mut fixups: Vec<Vec<(usize, String, usize)>> = vec![Vec::new(); names.len()];
    while n < lines.len() && !is_cond(lines[n]) {
        let line = n + 1;
        let row = lines[n].trim();
        n += 1;
        if row.is_empty() {
            continue;
        }
        let cells: Vec<&str> = row.trim_end_matches(';').split('|').collect();
        if cells.len() > names.len() {
            return Err(fmt_err(
                line,
                format!("{} columns, but {} threads", cells.len(), names.len()),
            ));
        }
        for (t, cell) in cells.iter().enumerate() {
            instr(p, t, cell, line, &mut labels[t], &mut fixups[t])?;
        }
    }
    for t in 0..names.len() {
        for (at, name, line) in std::mem::take(&mut fixups[t]) {
            let target = labels[t]
                .iter()
                .find(|(l, _)| *l == name)
                .map(|x| x.1)
                .ok_or_else(|| fmt_err(line, format!("unknown label `{name}` in {}", names[t])))?;
            if let Instr::Branch(_, to) = &mut p.threads[t].code[at] {
                *to = target;
            }
        }
    }
    Ok(n)
}

/// The init block's items: `x = 0; 0:EAX = 1; P1:EBX = 2; int y = 3;`.
fn init_items(p: &mut Program, init: &str, init_line: usize) -> Result<(), Error> {
    for item in init.split(';').map(str::trim).filter(|s| !s.is_empty()) {
        let toks = tokens(item, init_line)?;
        let mut c = Cur::new(&toks, init_line);
        if matches!(c.peek(), Some(Tok::Ident(w)) if matches!(w.as_str(), "int" | "uint64_t" | "int64_t" | "uint32_t" | "int32_t"))
        {
            c.i += 1;
        }
        let thread = match (c.peek(), c.toks.get(c.i + 1)) {
            (Some(Tok::Num(t)), Some(Tok::Sym(":"))) => {
                c.i += 2;
                Some(format!("P{t}"))
            }
            (Some(Tok::Ident(t)), Some(Tok::Sym(":"))) => {
                c.i += 2;
                Some(t.clone())
            }
            _ => None,
        };
        let bracket = c.eat("[");
        let name = c.ident()?.to_string();
        if bracket {
            c.expect("]")?;
        }
        c.expect("=")?;
        let v = c.num()?;
        c.end()?;
        match thread {
            Some(t) => {
                let ti = p.thread_ix(&t).ok_or_else(|| {
                    fmt_err(init_line, format!("unknown thread `{t}` in the init block"))
                })?;
                let th = &mut p.threads[ti];
                let r = th.reg(&name.to_ascii_uppercase());
                th.reg_init[r] = v;
            }
            None => {
                let x = p.loc(&name);
                p.init[x] = v;
            }
        }
    }
    Ok(())
}

/// `locations [x; 0:EAX; …]` (possibly over several lines), if the first non-blank
/// line from index `n` on is one: where the condition starts (line index, column),
/// after the list's `]` (on the same line or a later one).
fn locations_line(
    p: &mut Program,
    lines: &[&str],
    mut n: usize,
    threads: &[String],
) -> Result<(usize, usize), Error> {
    while n < lines.len() && lines[n].trim().is_empty() {
        n += 1;
    }
    if n >= lines.len() || !lines[n].trim_start().starts_with("locations") {
        return Ok((n, 0));
    }
    let (list, end) = locations(lines, n)?;
    for (line, item) in list {
        let toks = tokens(&item, line)?;
        let mut c = Cur::new(&toks, line);
        let bracket = c.eat("[");
        let thread = match (c.peek(), c.toks.get(c.i + 1)) {
            (Some(Tok::Num(t)), Some(Tok::Sym(":"))) if !bracket => Some(t.to_string()),
            (Some(Tok::Ident(t)), Some(Tok::Sym(":"))) if !bracket => Some(t.clone()),
            _ => None,
        };
        if thread.is_some() {
            c.i += 2;
        }
        let name = c.ident()?;
        let name = match thread {
            Some(_) => name.to_ascii_uppercase(),
            None => name.to_string(),
        };
        if bracket {
            c.expect("]")?;
        }
        c.end()?;
        let place =
            place_resolver(p, threads)(thread.as_deref(), &name).map_err(|m| fmt_err(line, m))?;
        p.show.push(place);
    }
    let mut cond_at = end;
    if lines[end.0][end.1..].trim().is_empty() {
        cond_at = (end.0 + 1, 0);
        while cond_at.0 < lines.len() && lines[cond_at.0].trim().is_empty() {
            cond_at.0 += 1;
        }
    }
    Ok(cond_at)
}

/// The final condition, from line index `n` and column `col` on, up to a `with` block
/// (the test's own answers, kept in `p.expect`); `final (…);` is read as `exists`.
fn condition(
    p: &mut Program,
    lines: &[&str],
    (n, col): (usize, usize),
    threads: &[String],
) -> Result<(), Error> {
    // herd requires a condition; so does tsoser, so that a test cut short is an error.
    if n >= lines.len() {
        return Err(fmt_err(
            lines.len(),
            "missing the final condition (`exists`, `~exists`, `forall` or `final`): a litmus test ends with one".into(),
        ));
    }
    let line = n + 1;
    let mut text = String::new();
    for (i, l) in lines[n..].iter().enumerate() {
        let l = if i == 0 { &l[col..] } else { l };
        let t = l.trim();
        if let Some(rest) = t.strip_prefix("with") {
            if rest.is_empty() || rest.starts_with(char::is_whitespace) {
                with_block(p, lines, n + i, rest)?;
                break;
            }
        }
        text.push_str(t);
        text.push(' ');
    }
    let mut body = text.trim().trim_end_matches(';').trim().to_string();
    if let Some(rest) = body.strip_prefix("final") {
        body = format!("exists {rest}");
    }
    let toks = tokens(&body, line)?;
    // Registers in conditions are upper case, like the code's.
    let toks: Vec<Tok> = toks
        .iter()
        .enumerate()
        .map(|(i, t)| match t {
            Tok::Ident(s) if i > 0 && toks[i - 1] == Tok::Sym(":") => {
                Tok::Ident(s.to_ascii_uppercase())
            }
            t => t.clone(),
        })
        .collect();
    let f = final_cond(&toks, line, &body, &mut place_resolver(p, threads))?;
    p.final_cond = Some(f);
    Ok(())
}

/// The `with` block that starts at line index `w` (`first` is the rest of its line):
/// `model: exists;` or `model: ~exists;` per line.
fn with_block(p: &mut Program, lines: &[&str], w: usize, first: &str) -> Result<(), Error> {
    let rest = std::iter::once(first).chain(lines[w + 1..].iter().copied());
    for (i, l) in rest.enumerate() {
        let l = l.trim();
        if l.is_empty() {
            continue;
        }
        let bad = |what: String| fmt_err(w + i + 1, what);
        let Some((model, q)) = l.trim_end_matches(';').split_once(':') else {
            return Err(bad(format!(
                "expected `MODEL: exists;` or `MODEL: ~exists;` in the `with` block, found `{l}`"
            )));
        };
        let q = match q.trim() {
            "exists" => Quantifier::Exists,
            "~exists" | "~ exists" => Quantifier::NotExists,
            other => {
                return Err(bad(format!(
                    "expected `{}: exists;` or `~exists;`, found `{other}`",
                    model.trim()
                )))
            }
        };
        p.expect.push((model.trim().to_ascii_lowercase(), q));
    }
    Ok(())
}

/// The items of a `locations` list, each with its line.
type Items = Vec<(usize, String)>;

/// The items of the `locations [ … ]` list that starts on line index `n`, and where
/// the list ends (line index, byte after `]`).
fn locations(lines: &[&str], n: usize) -> Result<(Items, (usize, usize)), Error> {
    let l = lines[n];
    let after = l.find("locations").expect("starts with it") + "locations".len();
    let rest = &l[after..];
    if !rest.trim_start().starts_with('[') {
        return Err(fmt_err(
            n + 1,
            "expected `[` after `locations` (`locations [x; 0:EAX;]`)".into(),
        ));
    }
    let mut at = (n, after + rest.find('[').expect("starts with it") + 1);
    let mut items = Vec::new();
    let mut item = (n + 1, String::new());
    let mut depth = 0usize;
    loop {
        let l = lines[at.0];
        for (k, ch) in l[at.1..].char_indices() {
            match ch {
                ']' if depth == 0 => {
                    items.push(item);
                    let items = items
                        .into_iter()
                        .filter(|(_, s)| !s.trim().is_empty())
                        .collect();
                    return Ok((items, (at.0, at.1 + k + 1)));
                }
                ';' => {
                    items.push(std::mem::replace(&mut item, (at.0 + 1, String::new())));
                    continue;
                }
                '[' => depth += 1,
                ']' => depth -= 1,
                _ => {}
            }
            if item.1.trim().is_empty() {
                item.0 = at.0 + 1;
            }
            item.1.push(ch);
        }
        item.1.push(' ');
        at = (at.0 + 1, 0);
        if at.0 == lines.len() {
            return Err(fmt_err(
                n + 1,
                "`locations [` is not closed with `]`".into(),
            ));
        }
    }
}

/// One cell of the program table: an optional label, then at most one instruction.
fn instr(
    p: &mut Program,
    t: usize,
    cell: &str,
    line: usize,
    labels: &mut Vec<(String, usize)>,
    fixups: &mut Vec<(usize, String, usize)>,
) -> Result<(), Error> {
    let toks = tokens(cell, line)?;
    let mut c = Cur::new(&toks, line);
    if let (Some(Tok::Ident(l)), Some(Tok::Sym(":"))) = (c.toks.first(), c.toks.get(1)) {
        labels.push((l.clone(), p.threads[t].code.len()));
        c.i = 2;
    }
    if c.done() {
        return Ok(());
    }
    let mut op = c.ident()?.to_ascii_uppercase();
    let locked = op == "LOCK";
    if locked {
        op = c.ident()?.to_ascii_uppercase();
    }
    let args = operands(&mut c, p, t)?;
    let th_name = p.threads[t].name.clone();
    let bad = |m: &str| fmt_err(line, format!("{th_name}: `{}`: {m}", cell.trim()));
    use Arg::*;
    let tmp = |p: &mut Program| p.threads[t].reg("_tmp");
    let zf = |p: &mut Program| p.threads[t].reg("ZF");
    let mut out: Vec<Instr> = Vec::new();
    match (op.as_str(), args.as_slice()) {
        ("MOV", [Mem(x), v @ (Imm(_) | R(_))]) => out.push(Instr::Store((*x).into(), v.operand())),
        ("MOV", [R(r), Mem(x)]) => out.push(Instr::Load(*r, (*x).into())),
        ("MOV", [R(r), v @ (Imm(_) | R(_))]) => out.push(Instr::Assign(*r, Expr::Op(v.operand()))),
        ("MFENCE", []) => out.push(Instr::Fence),
        ("XCHG", [Mem(x), R(r)]) | ("XCHG", [R(r), Mem(x)]) => {
            out.push(Instr::Rmw(*r, (*x).into(), RmwKind::Xchg(Operand::Reg(*r)), None))
        }
        ("XCHG", [R(a), R(b)]) => {
            let tm = tmp(p);
            out.push(Instr::Assign(tm, Expr::Op(Operand::Reg(*a))));
            out.push(Instr::Assign(*a, Expr::Op(Operand::Reg(*b))));
            out.push(Instr::Assign(*b, Expr::Op(Operand::Reg(tm))));
        }
        ("ADD" | "SUB" | "INC" | "DEC" | "XADD" | "CMPXCHG", [Mem(_), ..]) if !locked => {
            return Err(bad("a read-modify-write on memory needs the LOCK prefix (without it, it is not atomic)"))
        }
        ("ADD" | "SUB", [Mem(x), v @ (Imm(_) | R(_))]) => {
            let tm = tmp(p);
            let v = match (op.as_str(), v) {
                ("SUB", Imm(k)) => match k.checked_neg() {
                    Some(k) => Operand::Const(k),
                    None => return Err(bad("the constant of LOCK SUB is out of range")),
                },
                ("SUB", R(_)) => return Err(bad("LOCK SUB with a register operand is not supported; negate the register and use LOCK ADD")),
                (_, v) => v.operand(),
            };
            out.push(Instr::Rmw(tm, (*x).into(), RmwKind::FetchAdd(v), None))
        }
        ("INC" | "DEC", [Mem(x)]) => {
            let tm = tmp(p);
            let d = if op == "INC" { 1 } else { -1 };
            out.push(Instr::Rmw(tm, (*x).into(), RmwKind::FetchAdd(Operand::Const(d)), None))
        }
        ("XADD", [Mem(x), R(r)]) => out.push(Instr::Rmw(*r, (*x).into(), RmwKind::FetchAdd(Operand::Reg(*r)), None)),
        ("CMPXCHG", [Mem(x), R(r)]) => {
            let eax = p.threads[t].reg("EAX");
            let z = zf(p);
            out.push(Instr::Rmw(eax, (*x).into(), RmwKind::Cas(Operand::Reg(eax), Operand::Reg(*r)), Some(z)))
        }
        (o @ ("ADD" | "SUB" | "AND" | "OR" | "XOR"), [R(r), v @ (Imm(_) | R(_))]) => {
            let b = match o {
                "ADD" => BinOp::Add,
                "SUB" => BinOp::Sub,
                "AND" => BinOp::And,
                "OR" => BinOp::Or,
                _ => BinOp::Xor,
            };
            out.push(Instr::Assign(*r, Expr::Bin(b, Operand::Reg(*r), v.operand())))
        }
        ("INC" | "DEC", [R(r)]) => {
            let b = if op == "INC" { BinOp::Add } else { BinOp::Sub };
            out.push(Instr::Assign(*r, Expr::Bin(b, Operand::Reg(*r), Operand::Const(1))))
        }
        ("CMP", [a, b]) => {
            let a = match a {
                Mem(x) => {
                    let tm = tmp(p);
                    out.push(Instr::Load(tm, (*x).into()));
                    Operand::Reg(tm)
                }
                Label(l) => return Err(bad(&format!("CMP compares a register or memory with a register or constant, not the label `{l}`"))),
                v => v.operand(),
            };
            let b = match b {
                Mem(_) => return Err(bad("CMP with a memory second operand is not supported")),
                Label(l) => return Err(bad(&format!("CMP compares with a register or constant, not the label `{l}`"))),
                v => v.operand(),
            };
            let z = zf(p);
            out.push(Instr::Assign(z, Expr::Bin(BinOp::Eq, a, b)))
        }
        (j @ ("JE" | "JZ" | "JNE" | "JNZ" | "JMP"), [Label(l)]) => {
            let z = zf(p);
            let e = match j {
                "JMP" => Expr::Op(Operand::Const(1)),
                "JE" | "JZ" => Expr::Op(Operand::Reg(z)),
                _ => Expr::Bin(BinOp::Eq, Operand::Reg(z), Operand::Const(0)),
            };
            fixups.push((p.threads[t].code.len(), l.clone(), line));
            out.push(Instr::Branch(e, usize::MAX));
        }
        _ => return Err(bad("unsupported instruction or operands")),
    }
    for i in out {
        p.threads[t].push(i, line);
    }
    Ok(())
}

/// An operand of an x86 instruction.
#[derive(Clone, Debug)]
enum Arg {
    Mem(Loc),
    Imm(Val),
    R(Reg),
    /// A name that is not a register (a jump target).
    Label(String),
}

impl Arg {
    fn operand(&self) -> Operand {
        match self {
            Arg::Imm(v) => Operand::Const(*v),
            Arg::R(r) => Operand::Reg(*r),
            _ => unreachable!("matched as a register or an immediate"),
        }
    }
}

const X86_REGS: [&str; 16] = [
    "EAX", "EBX", "ECX", "EDX", "ESI", "EDI", "EBP", "ESP", "RAX", "RBX", "RCX", "RDX", "RSI",
    "RDI", "R8", "R9",
];

fn operands(c: &mut Cur, p: &mut Program, t: usize) -> Result<Vec<Arg>, Error> {
    let mut out = Vec::new();
    while !c.done() {
        if !out.is_empty() {
            c.expect(",")?;
        }
        let a = if c.eat("[") {
            let x = c.ident()?.to_string();
            c.expect("]")?;
            Arg::Mem(p.loc(&x))
        } else {
            match c.peek() {
                Some(Tok::Num(_)) | Some(Tok::Sym("-")) => Arg::Imm(c.num()?),
                Some(Tok::Ident(s)) => {
                    c.i += 1;
                    let u = s.to_ascii_uppercase();
                    if X86_REGS.contains(&u.as_str()) {
                        Arg::R(p.threads[t].reg(&u))
                    } else {
                        Arg::Label(s.clone())
                    }
                }
                _ => return Err(c.err("expected an operand".into())),
            }
        };
        out.push(a);
    }
    Ok(out)
}
