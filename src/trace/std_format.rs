//! RAPID's STD trace format: one event a line, `THREAD|OP(ARG)|LOC`, e.g. `T0|r(V12)|45`.
//!
//! | STD | tsoser |
//! |---|---|
//! | `r(x)`, `w(x)` | `rd x`, `wr x` |
//! | `acq(l)`, `rel(l)` | `rmw l` (a lock operation is an interlocked read-modify-write of the lock) |
//! | `acq(fence:T)`, `rel(fence:T)` by thread T | `fence` (what [`to_std`] writes for a fence) |
//! | `fork(u)` | `rmw fork:u` by the parent, then `rmw fork:u` by u: u's events come after |
//! | `join(u)` | `rmw join:u` by u (it has finished), then `rmw join:u` by the joiner |
//! | `begin`, `end` (with or without `()`) | atomic blocks; the outermost block of a thread is one transaction |
//! | `req(l)` | lock request: no memory effect, skipped |
//!
//! Events outside blocks are transactions of their own. `LOC` (a source location) is
//! kept as the event's value. [`StdReader`] parses line by line without holding the
//! file (the monitors can consume it as a stream); [`read_std`] builds a [`Trace`].
//! [`to_std`] writes a trace back: `rmw x` as `acq(x)`, a fence as `acq(fence:T)` on a
//! location of its own (STD has no fence; under TSO that is the same conflicts and the
//! same buffer drain, docs/semantics.md §6, and it is read back as a fence, which also drains
//! every PSO buffer), transactions of more than one event as `begin`/`end` blocks.

use super::ThreadId;
use super::TiVec;
use super::TxnId;
use super::{Op, Trace, TraceBuilder};
use crate::{Error, FileError};
use std::io::BufRead;

/// What an STD line does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StdOp {
    Read(String),
    Write(String),
    Acquire(String),
    Release(String),
    Fork(String),
    Join(String),
    Request(String),
    /// `begin` or `begin(NAME)`: NAME names the transaction of an outermost block.
    Begin(Option<String>),
    End,
}

/// One parsed line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StdEvent {
    pub line: usize,
    pub thread: String,
    pub op: StdOp,
    pub loc: String,
}

/// What an STD line does, borrowing its names from the line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StdOpRef<'a> {
    Read(&'a str),
    Write(&'a str),
    Acquire(&'a str),
    Release(&'a str),
    Fork(&'a str),
    Join(&'a str),
    Request(&'a str),
    Begin(Option<&'a str>),
    End,
}

impl StdOpRef<'_> {
    fn to_owned(self) -> StdOp {
        match self {
            StdOpRef::Read(x) => StdOp::Read(x.into()),
            StdOpRef::Write(x) => StdOp::Write(x.into()),
            StdOpRef::Acquire(x) => StdOp::Acquire(x.into()),
            StdOpRef::Release(x) => StdOp::Release(x.into()),
            StdOpRef::Fork(x) => StdOp::Fork(x.into()),
            StdOpRef::Join(x) => StdOp::Join(x.into()),
            StdOpRef::Request(x) => StdOp::Request(x.into()),
            StdOpRef::Begin(x) => StdOp::Begin(x.map(String::from)),
            StdOpRef::End => StdOp::End,
        }
    }
}

/// Parses one line without copying it: (thread, operation, location), or the error
/// naming `line` (1-based).
pub fn parse_borrowed(text: &str, line: usize) -> Result<(&str, StdOpRef<'_>, &str), Error> {
    if let Some(ok) = parse_plain(text) {
        return Ok(ok);
    }
    let bad = |message: String| Error::Format { line, message };
    let mut parts = text.trim().split('|');
    let (Some(thread), Some(opx), loc) = (parts.next(), parts.next(), parts.next()) else {
        return Err(bad(format!(
            "expected THREAD|OP(ARG)|LOC, found `{}`",
            text.trim()
        )));
    };
    if parts.next().is_some() {
        return Err(bad("more than three `|`-separated fields".into()));
    }
    let thread = thread.trim();
    if thread.is_empty() {
        return Err(bad("empty thread name".into()));
    }
    let opx = opx.trim();
    let (name, arg) = match opx.find('(') {
        Some(i) if opx.ends_with(')') => (&opx[..i], opx[i + 1..opx.len() - 1].trim()),
        Some(_) => return Err(bad(format!("unclosed `(` in `{opx}`"))),
        None => (opx, ""),
    };
    let need = |what: &str| -> Result<&str, Error> {
        if arg.is_empty() {
            Err(bad(format!("`{name}` needs {what} in parentheses")))
        } else {
            Ok(arg)
        }
    };
    let op = match name {
        "r" => StdOpRef::Read(need("a variable")?),
        "w" => StdOpRef::Write(need("a variable")?),
        "acq" => StdOpRef::Acquire(need("a lock")?),
        "rel" => StdOpRef::Release(need("a lock")?),
        "fork" => StdOpRef::Fork(need("a thread")?),
        "join" => StdOpRef::Join(need("a thread")?),
        "req" => StdOpRef::Request(need("a lock")?),
        "begin" => StdOpRef::Begin((!arg.is_empty()).then_some(arg)),
        "end" => StdOpRef::End,
        other => {
            return Err(bad(format!(
                "unknown operation `{other}` (r, w, acq, rel, fork, join, req, begin, end)"
            )))
        }
    };
    Ok((thread, op, loc.unwrap_or("").trim()))
}

/// Whether a text starting (or ending) with byte `c` surely keeps it under
/// `str::trim`: a printable ASCII byte (white space, control bytes and the bytes of
/// non-ASCII characters, U+00A0 say, may be trimmed).
pub fn untrimmed_end(c: u8) -> bool {
    (b'!'..=b'~').contains(&c)
}

/// [`parse_borrowed`]'s answer for the common line — `T|op(arg)|loc` or `T|op|loc`
/// with no white space around any field, no empty field and a known
/// operation — found with a byte scan; `None` sends every other line (and every
/// error) to the general parser.
fn parse_plain(text: &str) -> Option<(&str, StdOpRef<'_>, &str)> {
    let b = text.as_bytes();
    // A field the general parser would not trim ([`untrimmed_end`]; other ends take
    // the general path, which trims as `str::trim` does — `\x0B` and U+00A0 too).
    let plain = |s: &[u8]| !s.is_empty() && untrimmed_end(s[0]) && untrimmed_end(s[s.len() - 1]);
    let i = memchr::memchr(b'|', b)?;
    let j = i + 1 + memchr::memchr(b'|', &b[i + 1..])?;
    if memchr::memchr(b'|', &b[j + 1..]).is_some() {
        return None;
    }
    let (thread, opx, loc) = (&b[..i], &b[i + 1..j], &b[j + 1..]);
    if !plain(thread) || !plain(opx) || !(loc.is_empty() || plain(loc)) {
        return None;
    }
    let (name, arg) = match memchr::memchr(b'(', opx) {
        Some(k) if opx[opx.len() - 1] == b')' => {
            let arg = &opx[k + 1..opx.len() - 1];
            if !plain(arg) {
                return None;
            }
            (&opx[..k], arg)
        }
        Some(_) => return None,
        None => (opx, &b""[..]),
    };
    // Every slice starts after and ends before an ASCII byte of a UTF-8 `text` (or at
    // its ends): valid `str`s.
    let s = |x: &[u8]| {
        let off = x.as_ptr() as usize - b.as_ptr() as usize;
        &text[off..off + x.len()]
    };
    let need = (!arg.is_empty()).then(|| s(arg));
    let op = match name {
        b"r" => StdOpRef::Read(need?),
        b"w" => StdOpRef::Write(need?),
        b"acq" => StdOpRef::Acquire(need?),
        b"rel" => StdOpRef::Release(need?),
        b"fork" => StdOpRef::Fork(need?),
        b"join" => StdOpRef::Join(need?),
        b"req" => StdOpRef::Request(need?),
        b"begin" => StdOpRef::Begin(need),
        b"end" => StdOpRef::End,
        _ => return None,
    };
    let loc = if loc.is_empty() { "" } else { s(loc) };
    Some((s(thread), op, loc))
}

/// Parses one line (1-based `line` for errors).
pub fn parse_line(text: &str, line: usize) -> Result<StdEvent, Error> {
    let (thread, op, loc) = parse_borrowed(text, line)?;
    Ok(StdEvent {
        line,
        thread: thread.to_string(),
        op: op.to_owned(),
        loc: loc.to_string(),
    })
}

/// Streams the events of an STD file; blank lines and lines starting with `#` are skipped.
pub struct StdReader<R> {
    input: R,
    line: usize,
    buf: String,
}

impl<R: BufRead> StdReader<R> {
    pub fn new(input: R) -> StdReader<R> {
        StdReader {
            input,
            line: 0,
            buf: String::new(),
        }
    }
}

impl<R: BufRead> Iterator for StdReader<R> {
    type Item = Result<StdEvent, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            self.buf.clear();
            match self.input.read_line(&mut self.buf) {
                Ok(0) => return None,
                Ok(_) => {}
                Err(e) => return Some(Err(Error::Io(e))),
            }
            self.line += 1;
            let t = self.buf.trim();
            if t.is_empty() || t.starts_with('#') {
                continue;
            }
            return Some(parse_line(t, self.line));
        }
    }
}

/// The transaction of an event inside an atomic block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Block {
    /// `begin(NAME)`: the transaction NAME.
    Named(String),
    /// The N-th outermost `begin` without a name (counted over the file): a
    /// transaction of its own, distinct from every named one.
    Unnamed(usize),
}

/// One tsoser event an STD line stands for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lowered {
    pub thread: String,
    /// The atomic block's transaction, or `None`: a transaction of its own.
    pub txn: Option<Block>,
    pub op: Op,
    pub var: String,
}

/// Turns STD lines into tsoser events (the module table), keeping each thread's block
/// depth; one line gives zero to two events.
#[derive(Default)]
pub struct Lowering {
    open: std::collections::HashMap<String, (usize, Block)>,
    blocks: usize,
}

impl Lowering {
    fn txn(&self, t: &str) -> Option<Block> {
        self.open.get(t).filter(|o| o.0 > 0).map(|o| o.1.clone())
    }

    pub fn lower(&mut self, ev: &StdEvent) -> Result<Vec<Lowered>, Error> {
        let (line, t) = (ev.line, ev.thread.as_str());
        let one = |thread: &str, txn: Option<Block>, op: Op, var: &str| Lowered {
            thread: thread.to_string(),
            txn,
            op,
            var: var.to_string(),
        };
        Ok(match &ev.op {
            StdOp::Read(x) => vec![one(t, self.txn(t), Op::Rd, x)],
            StdOp::Write(x) => vec![one(t, self.txn(t), Op::Wr, x)],
            StdOp::Acquire(l) | StdOp::Release(l) => {
                let fence = l.strip_prefix("fence:") == Some(t);
                let op = if fence { Op::Fence } else { Op::Rmw };
                vec![one(t, self.txn(t), op, l)]
            }
            StdOp::Request(_) => vec![],
            StdOp::Fork(u) | StdOp::Join(u) => {
                if u == t {
                    return Err(Error::Format {
                        line,
                        message: format!("thread {t} cannot fork or join itself"),
                    });
                }
                if self.txn(u).is_some() {
                    return Err(Error::Format {
                        line,
                        message: format!(
                            "thread {u} is inside an atomic block when forked or joined"
                        ),
                    });
                }
                let fork = matches!(ev.op, StdOp::Fork(_));
                let var = format!("{}:{u}", if fork { "fork" } else { "join" });
                let mine = one(t, self.txn(t), Op::Rmw, &var);
                let theirs = one(u, None, Op::Rmw, &var);
                if fork {
                    vec![mine, theirs]
                } else {
                    vec![theirs, mine]
                }
            }
            StdOp::Begin(name) => {
                let e = self
                    .open
                    .entry(t.to_string())
                    .or_insert((0, Block::Unnamed(0)));
                if e.0 == 0 {
                    self.blocks += 1;
                    e.1 = match name {
                        Some(n) => Block::Named(n.clone()),
                        None => Block::Unnamed(self.blocks),
                    };
                }
                e.0 += 1;
                vec![]
            }
            StdOp::End => match self.open.get_mut(t) {
                Some(e) if e.0 > 0 => {
                    e.0 -= 1;
                    vec![]
                }
                _ => {
                    return Err(Error::Format {
                        line,
                        message: format!("`end` of thread {t} without a `begin`"),
                    })
                }
            },
        })
    }
}

/// Builds a trace from STD events (see the module table).
pub fn build<I: Iterator<Item = Result<StdEvent, Error>>>(events: I) -> Result<Trace, Error> {
    build_prefix(events, usize::MAX)
}

/// [`build`] of the first `n` events, reading no further input.
pub fn build_prefix<I: Iterator<Item = Result<StdEvent, Error>>>(
    events: I,
    n: usize,
) -> Result<Trace, Error> {
    let mut b = TraceBuilder::new();
    let mut lowering = Lowering::default();
    // The transaction of each unnamed block, made at its first event.
    let mut unnamed: std::collections::HashMap<usize, TxnId> = Default::default();
    'lines: for ev in events {
        let ev = ev?;
        let loc = (!ev.loc.is_empty()).then(|| ev.loc.clone());
        for l in lowering.lower(&ev)? {
            if b.len() >= n {
                break 'lines;
            }
            let var = (l.op != Op::Fence).then_some(l.var.as_str());
            match &l.txn {
                Some(Block::Unnamed(k)) => {
                    let th = b.thread(&l.thread);
                    let x = *unnamed
                        .entry(*k)
                        .or_insert_with(|| b.anonymous_txn(th, format!("{}.b{k}", l.thread)));
                    b.push_in(x, l.op, var, loc.clone(), ev.line);
                }
                Some(Block::Named(name)) => {
                    b.push_at(&l.thread, Some(name), l.op, var, loc.clone(), ev.line)
                }
                None => b.push_at(&l.thread, None, l.op, var, loc.clone(), ev.line),
            }
        }
    }
    b.build()
}

/// Opens an STD file as a stream of events; errors name the file.
pub fn open_std(
    path: &std::path::Path,
) -> Result<StdReader<std::io::BufReader<std::fs::File>>, FileError> {
    let f = std::fs::File::open(path).map_err(|e| FileError {
        file: path.display().to_string(),
        error: Error::Io(e),
    })?;
    Ok(StdReader::new(std::io::BufReader::new(f)))
}

/// The trace of the first `n` events of an STD file (event indices as in
/// [`read_std`]), reading no further: what explaining a streamed report needs.
pub fn read_std_prefix(path: &std::path::Path, n: usize) -> Result<Trace, FileError> {
    build_prefix(open_std(path)?, n).map_err(|error| FileError {
        file: path.display().to_string(),
        error,
    })
}

/// Reads an STD file into a trace; errors name the file and line.
pub fn read_std(path: &std::path::Path) -> Result<Trace, FileError> {
    build(open_std(path)?).map_err(|error| FileError {
        file: path.display().to_string(),
        error,
    })
}

/// Why a trace cannot be written in STD without changing it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("event #{event}: {message}")]
pub struct StdWriteError {
    pub event: usize,
    pub message: String,
}

/// Whether STD carries `name` unchanged in a field: non-empty, no `|`, `(`, `)`, no
/// control character, no white space at either end (the reader trims fields).
fn carries(name: &str) -> bool {
    !name.is_empty()
        && name.trim() == name
        && !name.contains(['|', '(', ')'])
        && !name.chars().any(char::is_control)
}

/// Writes a trace in STD (see the module text for rmw and fences). The value of an
/// event, if any, becomes its location field (else its index). A named transaction is
/// a `begin(NAME)` … `end` block, an anonymous one of several events a bare `begin` …
/// `end` block, and an anonymous single event stands outside blocks, so transactions
/// survive a round trip. Names STD cannot carry
/// (a `|`, parentheses, control characters, a thread starting with `#`, white space at
/// either end) and a variable `fence:T` used by an rmw of thread T (it would read back
/// as a fence) are refused with the event they occur in (bug:
/// convert_to_std_is_faithful_or_refuses).
pub fn to_std(trace: &Trace) -> Result<String, StdWriteError> {
    let mut s = String::with_capacity(trace.len() * 16);
    let mut size = trace.per_txn(0usize);
    for e in &trace.events {
        size[e.txn] += 1;
    }
    // A block unless the event is a transaction of its own without a name.
    let block: TiVec<TxnId, bool> = trace
        .txns
        .iter_enumerated()
        .map(|(x, txn)| size[x] > 1 || !txn.anonymous)
        .collect();
    let refuse = |event: usize, message: String| StdWriteError { event, message };
    let mut current: TiVec<ThreadId, Option<TxnId>> = trace.per_thread(None);
    for (i, e) in trace.events.iter().enumerate() {
        let t = &trace.threads[e.thread];
        if !carries(t) || t.starts_with('#') {
            return Err(refuse(i, format!("STD cannot carry the thread name {t:?}")));
        }
        if current[e.thread] != Some(e.txn) {
            if current[e.thread].is_some_and(|x| block[x]) {
                s.push_str(&format!("{t}|end|{i}\n"));
            }
            if block[e.txn] && trace.txns[e.txn].anonymous {
                s.push_str(&format!("{t}|begin|{i}\n"));
            } else if block[e.txn] {
                let name = &trace.txns[e.txn].name;
                if !carries(name) {
                    return Err(refuse(
                        i,
                        format!("STD cannot carry the transaction name {name:?}"),
                    ));
                }
                s.push_str(&format!("{t}|begin({name})|{i}\n"));
            }
            current[e.thread] = Some(e.txn);
        }
        let var = e.var.map(|v| trace.vars[v].as_str()).unwrap_or("");
        if e.var.is_some() && !carries(var) {
            return Err(refuse(
                i,
                format!("STD cannot carry the variable name {var:?}"),
            ));
        }
        let op = match e.op {
            Op::Rd => format!("r({var})"),
            Op::Wr => format!("w({var})"),
            Op::Rmw if var.strip_prefix("fence:") == Some(t.as_str()) => {
                return Err(refuse(
                    i,
                    format!(
                    "an rmw of thread {t} on a variable named {var:?} would read back as a fence"
                ),
                ))
            }
            Op::Rmw => format!("acq({var})"),
            Op::Fence => format!("acq(fence:{t})"),
        };
        let loc = e.val.clone().unwrap_or_else(|| i.to_string());
        let loc_ok = !loc.is_empty()
            && loc.trim() == loc
            && !loc.contains('|')
            && !loc.chars().any(char::is_control);
        if !loc_ok {
            return Err(refuse(
                i,
                format!("STD cannot carry the value {loc:?} in its location field"),
            ));
        }
        s.push_str(&format!("{t}|{op}|{loc}\n"));
    }
    for (th, c) in current.iter_enumerated() {
        if c.is_some_and(|x| block[x]) {
            s.push_str(&format!("{}|end|{}\n", trace.threads[th], trace.len()));
        }
    }
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(src: &str) -> Result<Trace, Error> {
        build(StdReader::new(src.as_bytes()))
    }

    #[test]
    fn operations_map_as_documented() {
        let t = parse(
            "T0|begin|1\nT0|r(x)|2\nT0|w(y)|3\nT0|end|4\nT0|fork(T1)|5\nT1|acq(l)|6\nT1|rel(l)|7\nT0|join(T1)|8\n",
        )
        .unwrap();
        assert_eq!(
            t.events[0].val.as_deref(),
            Some("2"),
            "the location is kept"
        );
        let lines: Vec<String> = (0..t.len()).map(|i| t.describe(i)).collect();
        assert_eq!(
            lines,
            [
                "T0 T0.b1 rd x",
                "T0 T0.b1 wr y",
                "T0 @2 rmw fork:T1",
                "T1 @3 rmw fork:T1",
                "T1 @4 rmw l",
                "T1 @5 rmw l",
                "T1 @6 rmw join:T1",
                "T0 @7 rmw join:T1",
            ]
        );
    }

    #[test]
    fn bad_lines_name_their_line() {
        for (src, line, words) in [
            ("T0|r(x)|1\nT0|x(y)|2\n", 2, "unknown operation"),
            ("T0|r()|1\n", 1, "needs a variable"),
            ("T0|r(x|1\n", 1, "unclosed"),
            ("T0\n", 1, "expected THREAD|OP(ARG)|LOC"),
            ("\n# c\nT0|end|3\n", 3, "without a `begin`"),
            ("T0|fork(T0)|1\n", 1, "itself"),
            ("T1|begin|1\nT0|join(T1)|2\n", 2, "inside an atomic block"),
        ] {
            let e = parse(src).unwrap_err();
            assert_eq!(e.line(), Some(line), "{src}: {e}");
            assert!(e.to_string().contains(words), "{src}: {e}");
        }
    }

    #[test]
    fn nested_blocks_make_one_transaction() {
        let t =
            parse("T0|begin|1\nT0|begin|2\nT0|r(x)|3\nT0|end|4\nT0|w(x)|5\nT0|end|6\n").unwrap();
        assert_eq!(t.txns.len(), 1);
    }
}
