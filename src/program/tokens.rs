//! The tokens and cursors that both program formats read with (`.prog` in
//! [`super::parse`], herd's litmus in [`super::litmus`]), and the pieces they share:
//! final conditions and the places and locations they name.

use super::*;
use crate::error::Error;

/// Resolves a condition atom's (thread, name) to a place.
pub(crate) type Resolve<'a> = dyn FnMut(Option<&str>, &str) -> Result<Place, String> + 'a;
/// A token of a line.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Tok {
    Ident(String),
    Num(Val),
    Sym(&'static str),
}

const SYMS: [&str; 28] = [
    "/\\", "\\/", "==", "!=", "<=", ">=", "<<", ">>", "[", "]", ",", "{", "}", ":", "(", ")", "<",
    ">", "+", "-", "*", "/", "%", "&", "|", "^", "=", "~",
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

/// The array named `name`.
pub(crate) fn array<'a>(p: &'a Program, name: &str) -> Result<&'a Array, String> {
    p.arrays
        .iter()
        .find(|a| a.name == name)
        .ok_or_else(|| format!("`{name}` is not an array (declare it: `array {name}[N]`)"))
}

/// `name`, or `name[i]` (an array element) when a constant index follows.
pub(crate) fn element_name(c: &mut Cur, name: &str) -> Result<String, Error> {
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
pub(crate) fn location(p: &mut Program, name: &str) -> Result<Loc, String> {
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
