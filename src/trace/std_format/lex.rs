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

/// One lexed line: its 1-based number, thread, operation and location (and the
/// thread's name packed, when the lexer had it at hand: not part of what the line says,
/// so neither compared nor shown).
#[derive(Clone, Copy)]
pub struct Line<'a> {
    pub number: usize,
    pub thread: &'a str,
    pub op: StdOp<'a>,
    pub loc: &'a str,
    /// The thread's name packed in an integer (its bytes, then its length in the last
    /// byte), when the lexer had them at hand (0 when it had not; no name packs to 0).
    pub key: u128,
}

impl PartialEq for Line<'_> {
    fn eq(&self, other: &Self) -> bool {
        (self.number, self.thread, self.op, self.loc)
            == (other.number, other.thread, other.op, other.loc)
    }
}

impl Eq for Line<'_> {}

impl std::fmt::Debug for Line<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Line")
            .field("number", &self.number)
            .field("thread", &self.thread)
            .field("op", &self.op)
            .field("loc", &self.loc)
            .finish()
    }
}

/// What is done with each lexed line, in order ([`super::split::lexed`]): `Ok(false)`
/// stops. A closure does; a type of its own whose `line` is `#[inline(always)]` is
/// compiled into the scanner's loop (a closure called from the scanner and from the
/// split reader's loop stays a call, its line passed through memory).
pub trait OnLine {
    fn line(&mut self, line: &Line<'_>) -> Result<bool, Error>;

    /// Line `number`, a plain `T|r(X)|LOC` (`write`: `T|w(X)|LOC`) of printable ASCII
    /// bytes, as its pieces: `thread` T, `key` as [`Line::key`], `var` X. By default
    /// the [`Line`] of it; the stream lowers it without making one.
    #[inline(always)]
    fn access(
        &mut self,
        number: usize,
        (thread, key): (&str, u128),
        write: bool,
        var: &str,
        loc: &str,
    ) -> Result<bool, Error> {
        let op = if write {
            StdOp::Write(var)
        } else {
            StdOp::Read(var)
        };
        self.line(&Line {
            number,
            thread,
            op,
            loc,
            key,
        })
    }
}

impl<F: FnMut(&Line<'_>) -> Result<bool, Error>> OnLine for F {
    #[inline(always)]
    fn line(&mut self, line: &Line<'_>) -> Result<bool, Error> {
        self(line)
    }
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
            key: 0,
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
        key: 0,
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
#[inline(always)]
fn lex_plain(text: &str) -> Option<(&str, StdOp<'_>, &str)> {
    let b = text.as_bytes();
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
    plain_fields(text, i, j, open, false)
}

/// [`lex_plain`]'s answer for a line whose only two `|` are at `i` < `j` and whose
/// first `(` between them is at `open`; `printable` when every byte of it is printable
/// ASCII (no field can then be trimmed).
#[inline(always)]
fn plain_fields(
    text: &str,
    i: usize,
    j: usize,
    open: Option<usize>,
    printable: bool,
) -> Option<(&str, StdOp<'_>, &str)> {
    let b = text.as_bytes();
    // A field the general lexer would not trim ([`untrimmed_end`]; other ends take
    // the general path, which trims as `str::trim` does — `\x0B` and U+00A0 too).
    let plain = |s: &[u8]| {
        !s.is_empty() && (printable || untrimmed_end(s[0]) && untrimmed_end(s[s.len() - 1]))
    };
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
    let s = |x: &[u8]| {
        let off = x.as_ptr() as usize - b.as_ptr() as usize;
        // SAFETY: `x` is a piece of `text`'s bytes that starts after and ends before
        // an ASCII byte (a separator, a parenthesis or a printable end) or at `text`'s
        // ends, so both ends are char boundaries of the UTF-8 `text`.
        unsafe { text.get_unchecked(off..off + x.len()) }
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

/// Bytes [`window`] looks at once: a line shorter than this is lexed from the masks.
const WINDOW: usize = 32;

/// Where `\n`, `|` and `(` lie in 32 bytes, and the bytes that are not printable
/// ASCII, a bit each (SSE2's byte compares).
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[inline(always)]
fn window(b: &[u8; WINDOW]) -> (u32, u32, u32, u32) {
    // SAFETY: the build targets SSE2 (the `cfg` above), so every machine it runs on
    // has the instructions.
    unsafe { window_sse2(b) }
}

#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[target_feature(enable = "sse2")]
#[inline]
fn window_sse2(b: &[u8; WINDOW]) -> (u32, u32, u32, u32) {
    use std::arch::x86_64::{
        _mm_cmpeq_epi8, _mm_cmpgt_epi8, _mm_cmplt_epi8, _mm_movemask_epi8, _mm_or_si128,
        _mm_set1_epi8, _mm_set_epi64x,
    };
    let word = |at: usize| i64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"));
    let (lo, hi) = (
        _mm_set_epi64x(word(8), word(0)),
        _mm_set_epi64x(word(24), word(16)),
    );
    let mask = |c: u8| {
        let c = _mm_set1_epi8(c as i8);
        let lo = _mm_movemask_epi8(_mm_cmpeq_epi8(lo, c)) as u32 & 0xffff;
        let hi = _mm_movemask_epi8(_mm_cmpeq_epi8(hi, c)) as u32 & 0xffff;
        lo | hi << 16
    };
    // Signed bytes: below `!` are the control bytes, space and every byte ≥ 0x80;
    // above `~` only DEL.
    let (low, high) = (_mm_set1_epi8(b'!' as i8), _mm_set1_epi8(b'~' as i8));
    let outside = |x| {
        _mm_movemask_epi8(_mm_or_si128(
            _mm_cmplt_epi8(x, low),
            _mm_cmpgt_epi8(x, high),
        )) as u32
            & 0xffff
    };
    let odd = outside(lo) | outside(hi) << 16;
    (mask(b'\n'), mask(b'|'), mask(b'('), odd)
}

/// Where `\n`, `|` and `(` lie in 32 bytes, and the bytes that are not printable
/// ASCII, a bit each.
#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
#[inline(always)]
fn window(b: &[u8; WINDOW]) -> (u32, u32, u32, u32) {
    let mask = |c: u8| (0..WINDOW).fold(0u32, |m, i| m | ((b[i] == c) as u32) << i);
    let odd = (0..WINDOW).fold(0u32, |m, i| m | (!untrimmed_end(b[i]) as u32) << i);
    (mask(b'\n'), mask(b'|'), mask(b'('), odd)
}

/// The line at byte `p` of `text` lexed from one [`window`] of its bytes, and where the
/// next line starts: when the window holds the line's `\n` and the line is plain
/// ([`lex_plain`]; not a comment). `None` leaves the line to [`text_line`] and [`lex`].
#[inline(always)]
fn window_line(text: &str, p: usize, number: usize) -> Option<(Windowed<'_>, usize)> {
    let b = text.as_bytes().get(p..p + WINDOW)?;
    let (nl, pipe, open, odd) = window(b.try_into().expect("a window"));
    let e = nl.trailing_zeros() as usize;
    if e == 32 || b[0] == b'#' {
        return None;
    }
    let within = (1u32 << e) - 1;
    // Exactly two `|` (without `count_ones`, a call on the baseline x86-64).
    let pipes = pipe & within;
    let second = pipes & pipes.wrapping_sub(1);
    if second == 0 || second & (second - 1) != 0 {
        return None;
    }
    let i = pipes.trailing_zeros() as usize;
    let j = second.trailing_zeros() as usize;
    // The first `(` after the first `|` and before the second.
    let between = open & (1u32 << j).wrapping_sub(1) & !((1u32 << i << 1).wrapping_sub(1));
    let open = (between != 0).then(|| between.trailing_zeros() as usize);
    // The thread's name is the window's first i bytes: as `short` packs them.
    let key = if i < 16 {
        let head = u128::from_le_bytes(b[..16].try_into().expect("16 bytes"));
        head & ((1u128 << (8 * i)) - 1) | (i as u128) << 120
    } else {
        0
    };
    let printable = odd & within == 0;
    // `T|r(X)|LOC` or `T|w(X)|LOC`: T and X not empty, the name's `(` the first one.
    if printable
        && i > 0
        && open == Some(i + 2)
        && j >= i + 5
        && b[j - 1] == b')'
        && matches!(b[i + 1], b'r' | b'w')
    {
        // SAFETY: every byte of the line is printable ASCII: any cut is a char
        // boundary.
        let s = |a: usize, z: usize| unsafe { text.get_unchecked(p + a..p + z) };
        let access = Windowed::Access {
            thread: (s(0, i), key),
            write: b[i + 1] == b'w',
            var: s(i + 3, j - 1),
            loc: s(j + 1, e),
        };
        return Some((access, p + e + 1));
    }
    // SAFETY: the line starts at `text`'s start or after a `\n`, and ends before one:
    // char boundaries.
    let line = unsafe { text.get_unchecked(p..p + e) };
    let (thread, op, loc) = plain_fields(line, i, j, open, printable)?;
    let line = Line {
        number,
        thread,
        op,
        loc,
        key,
    };
    Some((Windowed::Line(line), p + e + 1))
}

/// What [`window_line`] makes of a line: a read or a write as its pieces
/// ([`OnLine::access`]), or another plain line lexed.
enum Windowed<'a> {
    Access {
        thread: (&'a str, u128),
        write: bool,
        var: &'a str,
        loc: &'a str,
    },
    Line(Line<'a>),
}

/// Calls `f` on every lexed line of `text` (whole lines, the last one ending with `\n`
/// or the text) that is neither blank nor a comment, numbered after `before` lines;
/// the number of lines, or `None` when `f` stopped. Plain lines are lexed from windows
/// of their bytes ([`window_line`]), the others as [`text_line`] and [`lex`] do.
///
/// `f` is called from one place, and this is not inlined into its two callers.
#[inline(never)]
fn lex_lines(text: &str, before: usize, f: &mut impl OnLine) -> Result<Option<usize>, Error> {
    let (b, mut p, mut line) = (text.as_bytes(), 0, before);
    while p < b.len() {
        line += 1;
        let l = match window_line(text, p, line) {
            Some((
                Windowed::Access {
                    thread,
                    write,
                    var,
                    loc,
                },
                next,
            )) => {
                p = next;
                if !f.access(line, thread, write, var, loc)? {
                    return Ok(None);
                }
                continue;
            }
            Some((Windowed::Line(l), next)) => {
                p = next;
                l
            }
            None => {
                let e = memchr::memchr(b'\n', &b[p..]).map_or(b.len(), |n| p + n);
                let t = &text[p..e];
                p = e + 1;
                match content(t) {
                    Some(t) => lex(t, line)?,
                    None => continue,
                }
            }
        };
        if !f.line(&l)? {
            return Ok(None);
        }
    }
    Ok(Some(line - before))
}

/// [`lex_lines`] on a whole text, its lines numbered from 1 (a split reader's block).
pub(super) fn lex_block(
    text: &str,
    mut f: impl FnMut(&Line<'_>) -> Result<bool, Error>,
) -> Result<(), Error> {
    lex_lines(text, 0, &mut f).map(|_| ())
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
    input: R,
    max_line: usize,
    not_utf8: impl Fn(usize) -> Error,
    mut f: impl FnMut(usize, &str) -> Result<bool, Error>,
) -> Result<(), Error> {
    scan_buf(input, max_line, |before, region| {
        // Validated as UTF-8 at once (line by line only to name the line of an error).
        let whole = std::str::from_utf8(region).ok();
        let (mut line, mut from) = (before, 0);
        let ends = memchr::memchr_iter(b'\n', region)
            .chain((region.last() != Some(&b'\n')).then_some(region.len()));
        for n in ends {
            line += 1;
            let more = match whole {
                Some(text) => f(line, &text[from..n])?,
                None => one(line, &region[from..n], &not_utf8, &mut f)?,
            };
            if !more {
                return Ok(None);
            }
            from = n + 1;
        }
        Ok(Some(line - before))
    })
}

/// [`lex`] on every line of `input` that is neither blank nor a `#` comment, as
/// [`scan`] cuts them, in one pass over each buffer ([`lex_lines`]); stops early when
/// `f` returns `Ok(false)`.
pub(super) fn scan_lexed<R: Read>(
    input: R,
    max_line: usize,
    not_utf8: impl Fn(usize) -> Error,
    mut f: impl OnLine,
) -> Result<(), Error> {
    scan_buf(
        input,
        max_line,
        |before, region| match std::str::from_utf8(region) {
            Ok(text) => lex_lines(text, before, &mut f),
            Err(e) => {
                // The whole lines before the first byte that is not UTF-8, then the error
                // of its line.
                let cut = memchr::memrchr(b'\n', &region[..e.valid_up_to()]).map_or(0, |n| n + 1);
                let text = std::str::from_utf8(&region[..cut]).expect("UTF-8 up to the error");
                match lex_lines(text, before, &mut f)? {
                    None => Ok(None),
                    Some(n) => Err(not_utf8(before + n + 1)),
                }
            }
        },
    )
}

/// The buffer loop of the scanners: `region(before, bytes)` on each run of whole lines
/// read (ending with `\n`, or the input's last line without one), numbered after
/// `before` lines, which gives how many lines it took, or `None` to stop. A line of
/// `max_line` bytes or more is an error however the input is cut: the buffer grows up
/// to `max_line` bytes, no further.
fn scan_buf<R: Read>(
    mut input: R,
    max_line: usize,
    mut region: impl FnMut(usize, &[u8]) -> Result<Option<usize>, Error>,
) -> Result<(), Error> {
    let mut buf = vec![0u8; (1 << 20).clamp(1, max_line.max(1))];
    let (mut start, mut end, mut line, mut eof) = (0usize, 0usize, 0usize, false);
    loop {
        if let Some(last) = memchr::memrchr(b'\n', &buf[start..end]) {
            let lines = region(line, &buf[start..start + last + 1])?;
            start += last + 1;
            match lines {
                Some(n) => line += n,
                None => return Ok(()),
            }
        }
        if eof {
            if start < end {
                region(line, &buf[start..end])?;
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
    match content(text) {
        Some(t) => f(line, t),
        None => Ok(true),
    }
}

/// A line's text trimmed, unless it is blank or a comment.
#[inline]
fn content(text: &str) -> Option<&str> {
    // Most lines start and end with a printable ASCII byte: nothing to trim.
    let b = text.as_bytes();
    let t = match (b.first(), b.last()) {
        (Some(&x), Some(&y)) if untrimmed_end(x) && untrimmed_end(y) => text,
        _ => text.trim(),
    };
    (!t.is_empty() && !t.starts_with('#')).then_some(t)
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
                    key: 0,
                };
                assert_eq!(lex_general(&text, 1).ok(), Some(want), "{text:?}");
            }
        }
        assert!(taken > 20_000, "{taken} lines on the fast path");
    }

    /// The thread's name packed from the window (`Line::key`, which line equality
    /// ignores) is `names::short` of the name, 0 for one of 16 bytes or more: names of
    /// every length to 20, in reads, writes and other lines.
    #[test]
    fn a_window_packs_the_thread_as_short_does() {
        use crate::trace::names::short;
        let letters = "Tabcdefghijklmnopqrst";
        for n in 1..=20 {
            let name = &letters[..n];
            for rest in ["r(x1)|7", "w(x1)|7", "acq(l)|7", "begin(T.1)|7"] {
                let text = format!("{name}|{rest}\n{}", " ".repeat(40));
                let Some((windowed, _)) = window_line(&text, 0, 1) else {
                    // Too long for one window: the general lexer (key 0) takes it.
                    assert!(n + rest.len() + 2 > WINDOW, "{text:?}");
                    continue;
                };
                let key = match windowed {
                    Windowed::Access { thread, .. } => thread.1,
                    Windowed::Line(l) => l.key,
                };
                assert_eq!(key, short(name).unwrap_or(0), "{name:?} in {text:?}");
            }
        }
    }

    /// Lines lexed from windows of their bytes ([`lex_lines`]) are the lines cut at
    /// `\n` and lexed one by one ([`text_line`], [`lex`]): the same lines, numbers and
    /// first error, on random texts of the bytes that matter, lines around the
    /// window's 32 bytes among them.
    #[test]
    fn lines_lexed_in_windows_are_lexed_lines() {
        let pieces = [
            "t0",
            "|",
            "|",
            "(",
            ")",
            "x12",
            "w",
            "r",
            "acq",
            "begin",
            "end",
            "fence:t0",
            "#",
            " ",
            "\r",
            "\u{a0}",
            "é",
            "aaaaaaaaaaaaaaa",
            "1",
            "\n",
        ];
        let plain = ["t0|w(x1)|2", "t1|r(y)|", "t0|begin(t0.1)|3", "t0|end|4"];
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(25);
        let mut windows = 0;
        for _ in 0..20_000 {
            let mut text = String::new();
            for _ in 0..rng.random_range(0..12) {
                if rng.random_range(0..3) == 0 {
                    for _ in 0..rng.random_range(0..14) {
                        text.push_str(pieces[rng.random_range(0..pieces.len())]);
                    }
                } else {
                    if rng.random_range(0..8) == 0 {
                        text.push('#');
                    }
                    text.push_str(plain[rng.random_range(0..plain.len())]);
                    // Long names: lines near 32 bytes.
                    if rng.random_range(0..3) == 0 {
                        let at = text.rfind('|').unwrap_or(0);
                        text.insert_str(at, &"z".repeat(rng.random_range(0..30)));
                    }
                }
                text.push('\n');
            }
            if rng.random_range(0..4) == 0 {
                text.pop();
            }
            let mut want = Vec::new();
            let mut one = |n: usize, t: &str| {
                let l = lex(t, n)?;
                want.push(format!("{}:{}|{:?}|{}", l.number, l.thread, l.op, l.loc));
                Ok(true)
            };
            let mut want_end = Ok(());
            let mut count = 0;
            for (i, t) in text.split_terminator('\n').enumerate() {
                count = i + 1;
                if let Err(e) = text_line(i + 1, t, &mut one) {
                    want_end = Err(e.to_string());
                    break;
                }
            }
            let mut got = Vec::new();
            let got_end = lex_lines(&text, 0, &mut |l: &Line<'_>| {
                got.push(format!("{}:{}|{:?}|{}", l.number, l.thread, l.op, l.loc));
                Ok(true)
            });
            assert_eq!(got, want, "{text:?}");
            match got_end {
                Ok(n) => {
                    assert_eq!(want_end, Ok(()), "{text:?}");
                    assert_eq!(n, Some(count), "{text:?}");
                }
                Err(e) => assert_eq!(Err(e.to_string()), want_end, "{text:?}"),
            }
            windows += usize::from(text.len() >= WINDOW);
        }
        assert!(windows > 5_000, "{windows} texts of a window or more");
    }
}
