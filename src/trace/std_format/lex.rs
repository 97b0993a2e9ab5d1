//! STD's lines: the scanner that cuts a file into lines on one thread ([`for_each_line`];
//! the reader and the stream go through [`super::split::lexed`], which also lexes on
//! several) and the lexer of one line ([`lex`]), which borrows its names from the line.

use crate::Error;
use std::io::Read;

/// What an STD line does, borrowing its names from the line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StdOp<'a> {
    Read(&'a str),
    Write(&'a str),
    Acquire(&'a str),
    Release(&'a str),
    Fork(&'a str),
    Join(&'a str),
    Request(&'a str),
    /// `begin` or `begin(NAME)`: NAME names the transaction of an outermost block.
    Begin(Option<&'a str>),
    End,
}

/// One lexed line: its 1-based number, thread, operation and location.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Line<'a> {
    pub number: usize,
    pub thread: &'a str,
    pub op: StdOp<'a>,
    pub loc: &'a str,
}

/// Lexes one line without copying it, or gives the error naming line `number`.
#[inline]
pub fn lex(text: &str, number: usize) -> Result<Line<'_>, Error> {
    match lex_plain(text) {
        Some((thread, op, loc)) => Ok(Line {
            number,
            thread,
            op,
            loc,
        }),
        None => lex_general(text, number),
    }
}

/// [`lex`] of a line [`lex_plain`] leaves (white space to trim, or an error).
#[cold]
#[inline(never)]
fn lex_general(text: &str, number: usize) -> Result<Line<'_>, Error> {
    let line = |(thread, op, loc)| Line {
        number,
        thread,
        op,
        loc,
    };
    let bad = |message: String| Error::Format {
        line: number,
        message,
    };
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
        "r" => StdOp::Read(need("a variable")?),
        "w" => StdOp::Write(need("a variable")?),
        "acq" => StdOp::Acquire(need("a lock")?),
        "rel" => StdOp::Release(need("a lock")?),
        "fork" => StdOp::Fork(need("a thread")?),
        "join" => StdOp::Join(need("a thread")?),
        "req" => StdOp::Request(need("a lock")?),
        "begin" => StdOp::Begin((!arg.is_empty()).then_some(arg)),
        "end" => StdOp::End,
        other => {
            return Err(bad(format!(
                "unknown operation `{other}` (r, w, acq, rel, fork, join, req, begin, end)"
            )))
        }
    };
    Ok(line((thread, op, loc.unwrap_or("").trim())))
}

/// Whether a text starting (or ending) with byte `c` surely keeps it under
/// `str::trim`: a printable ASCII byte (white space, control bytes and the bytes of
/// non-ASCII characters, U+00A0 say, may be trimmed).
#[inline]
fn untrimmed_end(c: u8) -> bool {
    (b'!'..=b'~').contains(&c)
}

/// [`lex`]'s answer for the common line — `T|op(arg)|loc` or `T|op|loc` with no white
/// space around any field, no empty field and a known operation — found in one forward
/// scan of the bytes; `None` sends every other line (and every error) to the general
/// lexer.
#[inline]
fn lex_plain(text: &str) -> Option<(&str, StdOp<'_>, &str)> {
    let b = text.as_bytes();
    // A field the general lexer would not trim ([`untrimmed_end`]; other ends take
    // the general path, which trims as `str::trim` does — `\x0B` and U+00A0 too).
    let plain = |s: &[u8]| !s.is_empty() && untrimmed_end(s[0]) && untrimmed_end(s[s.len() - 1]);
    // The two `|` and the operation's first `(`; fields are a few bytes, shorter than
    // a `memchr` call takes to start.
    let i = b.iter().position(|&c| c == b'|')?;
    let mut j = i + 1;
    let mut open = None;
    loop {
        match *b.get(j)? {
            b'|' => break,
            b'(' if open.is_none() => open = Some(j),
            _ => {}
        }
        j += 1;
    }
    if b[j + 1..].contains(&b'|') {
        return None;
    }
    let (thread, opx, loc) = (&b[..i], &b[i + 1..j], &b[j + 1..]);
    if !plain(thread) || !plain(opx) || !(loc.is_empty() || plain(loc)) {
        return None;
    }
    let (name, arg) = match open {
        Some(k) if b[j - 1] == b')' => {
            let arg = &b[k + 1..j - 1];
            if !plain(arg) {
                return None;
            }
            (&b[i + 1..k], arg)
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
        b"r" => StdOp::Read(need?),
        b"w" => StdOp::Write(need?),
        b"acq" => StdOp::Acquire(need?),
        b"rel" => StdOp::Release(need?),
        b"fork" => StdOp::Fork(need?),
        b"join" => StdOp::Join(need?),
        b"req" => StdOp::Request(need?),
        b"begin" => StdOp::Begin(need),
        b"end" => StdOp::End,
        _ => return None,
    };
    let loc = if loc.is_empty() { "" } else { s(loc) };
    Some((s(thread), op, loc))
}

/// The longest line the stream reads (a file without newlines is not an STD trace).
pub const MAX_LINE: usize = 1 << 20;

/// Calls `f(line, text)` on every line of `input` that is neither blank nor a `#`
/// comment, with its 1-based number and its text trimmed; stops early when `f` returns
/// `Ok(false)`. The stream's scanner: a line longer than [`MAX_LINE`] or not UTF-8 is
/// an error naming its line.
pub fn for_each_line<R: Read>(
    input: R,
    f: impl FnMut(usize, &str) -> Result<bool, Error>,
) -> Result<(), Error> {
    scan(input, MAX_LINE, stream_not_utf8, f)
}

/// The error of a line that is not UTF-8 (every reader's): it names the line.
pub fn stream_not_utf8(line: usize) -> Error {
    crate::text::not_utf8(line)
}

/// The lines of `input` scanned in a large buffer: [`for_each_line`] with lines of at
/// most `max_line` bytes and `not_utf8(line)` the error of a line that is not UTF-8.
pub(super) fn scan<R: Read>(
    input: R,
    max_line: usize,
    not_utf8: impl Fn(usize) -> Error,
    mut f: impl FnMut(usize, &str) -> Result<bool, Error>,
) -> Result<(), Error> {
    scan_raw(input, max_line, not_utf8, |line, text| {
        text_line(line, text, &mut f)
    })
}

/// Calls `f(line, text)` on every line of `input` as it is (blank lines too, without
/// its `\n`; a last line without one too), scanned in a large buffer; stops early when
/// `f` returns `Ok(false)`. A line longer than `max_line` bytes is an error, and
/// `not_utf8(line)` that of a line that is not UTF-8.
pub(crate) fn scan_raw<R: Read>(
    mut input: R,
    max_line: usize,
    not_utf8: impl Fn(usize) -> Error,
    mut f: impl FnMut(usize, &str) -> Result<bool, Error>,
) -> Result<(), Error> {
    // A line of `max_line` bytes or more is an error however the file is cut: the buffer
    // grows up to `max_line` bytes, no further.
    let mut buf = vec![0u8; (1 << 20).clamp(1, max_line.max(1))];
    let (mut start, mut end, mut line, mut eof) = (0usize, 0usize, 0usize, false);
    loop {
        // Every complete line in buf[start..end], validated as UTF-8 at once (line by
        // line only to name the line of an error).
        if let Some(last) = memchr::memrchr(b'\n', &buf[start..end]) {
            let region = &buf[start..start + last + 1];
            start += last + 1;
            let whole = std::str::from_utf8(region).ok();
            let mut from = 0;
            for n in memchr::memchr_iter(b'\n', region) {
                line += 1;
                let more = match whole {
                    Some(text) => f(line, &text[from..n])?,
                    None => one(line, &region[from..n], &not_utf8, &mut f)?,
                };
                if !more {
                    return Ok(());
                }
                from = n + 1;
            }
        }
        if eof {
            if start < end {
                line += 1;
                one(line, &buf[start..end], &not_utf8, &mut f)?;
            }
            return Ok(());
        }
        // Keep the partial line, then read more behind it.
        buf.copy_within(start..end, 0);
        end -= start;
        start = 0;
        if end == buf.len() {
            if buf.len() >= max_line {
                return Err(Error::Format {
                    line: line + 1,
                    message: format!("a line longer than {max_line} bytes"),
                });
            }
            buf.resize(buf.len().saturating_mul(2).min(max_line), 0);
        }
        let n = loop {
            match input.read(&mut buf[end..]) {
                Ok(n) => break n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(Error::Io(e)),
            }
        };
        eof = n == 0;
        end += n;
    }
}

/// `f` on a line's bytes, `not_utf8(line)` if they are not UTF-8.
fn one(
    line: usize,
    bytes: &[u8],
    not_utf8: &impl Fn(usize) -> Error,
    f: &mut impl FnMut(usize, &str) -> Result<bool, Error>,
) -> Result<bool, Error> {
    let text = std::str::from_utf8(bytes).map_err(|_| not_utf8(line))?;
    f(line, text)
}

/// `f` on `text` trimmed, unless it is blank or a comment.
#[inline]
pub(super) fn text_line(
    line: usize,
    text: &str,
    f: &mut impl FnMut(usize, &str) -> Result<bool, Error>,
) -> Result<bool, Error> {
    // Most lines start and end with a printable ASCII byte: nothing to trim.
    let b = text.as_bytes();
    let t = match (b.first(), b.last()) {
        (Some(&x), Some(&y)) if untrimmed_end(x) && untrimmed_end(y) => text,
        _ => text.trim(),
    };
    if t.is_empty() || t.starts_with('#') {
        return Ok(true);
    }
    f(line, t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// The fast path gives the general lexer's line on every line it takes: random
    /// lines of the operations and of the bytes that matter (separators, parentheses,
    /// white space `str::trim` removes, non-ASCII), a random piece put in now and then.
    #[test]
    fn the_fast_path_is_the_general_lexer() {
        let pieces = [
            "T0", "x", "x", "t1.2", ".", "1", "fence:T0", "|", "(", ")", " ", "\x0B", "\u{a0}",
            "é", "#",
        ];
        let ops = [
            "r", "w", "acq", "rel", "fork", "join", "req", "begin", "end", "frob", "",
        ];
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(34);
        let field = |rng: &mut rand_chacha::ChaCha8Rng| {
            let n = rng.random_range(0..4).min(2);
            let mut f = String::new();
            for _ in 0..n {
                // Mostly names, sometimes a byte that breaks the plain shape.
                let i = if rng.random_range(0..4) == 0 {
                    rng.random_range(0..pieces.len())
                } else {
                    rng.random_range(0..4)
                };
                f.push_str(pieces[i]);
            }
            f
        };
        let mut taken = 0;
        for _ in 0..100_000 {
            let mut text = field(&mut rng);
            text.push('|');
            text.push_str(ops[rng.random_range(0..ops.len())]);
            if rng.random_range(0..3) > 0 {
                let arg = field(&mut rng);
                text.push('(');
                text.push_str(&arg);
                text.push(')');
            }
            text.push('|');
            text.push_str(&field(&mut rng));
            if rng.random_range(0..4) == 0 {
                let at = rng.random_range(0..=text.len());
                if text.is_char_boundary(at) {
                    text.insert_str(at, pieces[rng.random_range(0..pieces.len())]);
                }
            }
            if let Some((thread, op, loc)) = lex_plain(&text) {
                taken += 1;
                let want = Line {
                    number: 1,
                    thread,
                    op,
                    loc,
                };
                assert_eq!(lex_general(&text, 1).ok(), Some(want), "{text:?}");
            }
        }
        assert!(taken > 20_000, "{taken} lines on the fast path");
    }
}
