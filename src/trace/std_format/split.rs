//! STD's lines lexed in pieces on several threads (issue 34, item 3: a reader split at
//! line boundaries). One thread reads the file in blocks cut after their last `\n`,
//! `lexers` threads validate and lex the blocks (the block `i` on lexer `i mod
//! lexers`), and the caller's thread takes the lexed lines in file order and does
//! what must be done in order: naming threads, variables and transactions, and
//! building the events ([`super::lower`]). A line is lexed exactly as [`super::lex`]
//! lexes it, and the lines, their numbers and the first error come in the same order
//! as one thread gives them ([`lexed`] with no lexer is that thread).
//!
//! Memory stays bounded: each lexer holds at most two blocks waiting and two lexed.

use super::lex::{lex, scan, text_line, Line, StdOp};
use crate::Error;
use std::io::Read;
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};

/// The bytes a block is read in (a block grows while a line does not end in it).
pub const BLOCK: usize = 1 << 20;

/// The most lexing threads used.
pub const MAX_LEXERS: usize = 8;

/// The error of line `line` (1-based) that is not UTF-8.
pub type NotUtf8 = fn(usize) -> Error;

/// Lexing threads worth starting beside `busy` threads already at work (the caller's,
/// the monitors'): the cores this process may run on beyond those, at most
/// [`MAX_LEXERS`]. On two cores the reader gets one, the stream none.
pub fn lexers(busy: usize) -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    cores.saturating_sub(busy).min(MAX_LEXERS)
}

/// Calls `f` on every lexed line of `input` that is neither blank nor a `#` comment,
/// in order, and stops early when `f` returns `Ok(false)`; the first error (a line of
/// `max_line` bytes or more, a line that is not UTF-8 — `not_utf8(line)` —, a line
/// that does not lex, or `f`'s) ends it. With `lexers` > 0 the lines are lexed on that
/// many threads (an input of one block is lexed on the caller's).
pub fn lexed<R: Read + Send>(
    input: R,
    max_line: usize,
    not_utf8: NotUtf8,
    lexers: usize,
    f: impl FnMut(&Line<'_>) -> Result<bool, Error>,
) -> Result<(), Error> {
    lexed_in_blocks(input, max_line, not_utf8, lexers, BLOCK, f)
}

/// [`lexed`] reading blocks of `block` bytes (the tests cut files into small ones).
#[doc(hidden)]
pub fn lexed_in_blocks<R: Read + Send>(
    input: R,
    max_line: usize,
    not_utf8: NotUtf8,
    lexers: usize,
    block: usize,
    mut f: impl FnMut(&Line<'_>) -> Result<bool, Error>,
) -> Result<(), Error> {
    if lexers == 0 {
        return scan(input, max_line, not_utf8, |number, text| {
            f(&lex(text, number)?)
        });
    }
    let mut blocks = Blocks::new(input, max_line, block);
    // An input of one block is lexed here: no thread is worth starting.
    let (first, second) = match blocks.next() {
        Some(Job::Text(text)) => match blocks.next() {
            Some(second) => (Job::Text(text), second),
            None => return alone(Job::Text(text), not_utf8, &mut f),
        },
        Some(job) => return alone(job, not_utf8, &mut f),
        None => return Ok(()),
    };
    let start = |name: &str| std::thread::Builder::new().name(name.into());
    let cannot = |e: std::io::Error| {
        Error::Io(std::io::Error::new(
            e.kind(),
            format!("cannot start a thread to lex the lines: {e}"),
        ))
    };
    std::thread::scope(|scope| {
        let mut jobs = Vec::with_capacity(lexers);
        let mut done = Vec::with_capacity(lexers);
        let (spent_tx, spent_rx) = sync_channel::<Vec<u8>>(2 * lexers + 2);
        let mut spares = Vec::with_capacity(lexers);
        for _ in 0..lexers {
            let (job_tx, job_rx) = sync_channel::<Job>(2);
            let (done_tx, done_rx) = sync_channel::<(Lexed, Vec<Rec>)>(2);
            let (spare_tx, spare_rx) = sync_channel::<Vec<Rec>>(4);
            // Those started stop when `jobs` is dropped, on any return.
            start("lexer")
                .spawn_scoped(scope, move || lexer(job_rx, done_tx, spare_rx, not_utf8))
                .map_err(cannot)?;
            jobs.push(job_tx);
            done.push(done_rx);
            spares.push(spare_tx);
        }
        blocks.spent = Some(spent_rx);
        let reading = move || {
            let pieces = [first, second]
                .into_iter()
                .chain(std::iter::from_fn(|| blocks.next()));
            for (job, lexer) in pieces.zip(jobs.iter().cycle()) {
                // A closed channel: the caller has stopped, and so does the reading.
                if lexer.send(job).is_err() {
                    return;
                }
            }
        };
        start("reader")
            .spawn_scoped(scope, reading)
            .map_err(cannot)?;
        let mut base = 0;
        for (lexer, spare) in done.iter().zip(&spares).cycle() {
            // A lexer's channel closed: the reading ended, every block is taken.
            let Ok((mut lexed, mut recs)) = lexer.recv() else {
                break;
            };
            if !take(&mut lexed, &recs, &mut base, &mut f)? {
                break;
            }
            recs.clear();
            let _ = spare.try_send(recs);
            let _ = spent_tx.try_send(lexed.text.into_bytes());
        }
        Ok(())
    })
}

/// An input of one piece, lexed on the caller's thread.
fn alone(
    job: Job,
    not_utf8: NotUtf8,
    f: &mut impl FnMut(&Line<'_>) -> Result<bool, Error>,
) -> Result<(), Error> {
    let mut recs = Vec::new();
    let mut lexed = lex_job(job, not_utf8, &mut recs);
    take(&mut lexed, &recs, &mut 0, f).map(|_| ())
}

/// A piece of the input for a lexer: whole lines (the last line of the file perhaps
/// without its `\n`), or where the reading failed.
enum Job {
    Text(Vec<u8>),
    /// A line of `max_line` bytes or more begins after the lines already given.
    TooLong(usize),
    Io(std::io::Error),
}

/// The input read in blocks cut after their last `\n` (as [`scan`] reads it).
struct Blocks<R> {
    input: R,
    max_line: usize,
    /// The bytes read and not yet given, in `buf[..filled]`; the block's size.
    buf: Vec<u8>,
    filled: usize,
    size: usize,
    block: usize,
    done: bool,
    /// Blocks the caller is done with, to read into again.
    spent: Option<Receiver<Vec<u8>>>,
}

impl<R: Read> Blocks<R> {
    fn new(input: R, max_line: usize, block: usize) -> Blocks<R> {
        let size = block.clamp(1, max_line.max(1));
        Blocks {
            input,
            max_line,
            buf: vec![0; size],
            filled: 0,
            size,
            block,
            done: false,
            spent: None,
        }
    }

    /// An empty block of at least `len` bytes (a spent one when there is one).
    fn fresh(&self, len: usize) -> Vec<u8> {
        let mut b = self
            .spent
            .as_ref()
            .and_then(|r| r.try_recv().ok())
            .unwrap_or_default();
        b.clear();
        b.resize(len.max(self.block), 0);
        b
    }

    /// The next piece: whole lines, or the end (`None`), or an error after the lines
    /// before it.
    fn next(&mut self) -> Option<Job> {
        while !self.done {
            if self.filled == self.size {
                // A full block with no `\n`: a line this long, or a bigger block.
                if self.size >= self.max_line {
                    self.done = true;
                    return Some(Job::TooLong(self.max_line));
                }
                self.size = self.size.saturating_mul(2).min(self.max_line);
                self.buf.resize(self.size, 0);
            }
            let n = match self.input.read(&mut self.buf[self.filled..self.size]) {
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    // Every whole line read was given already: the rest is part of one.
                    self.done = true;
                    return Some(Job::Io(e));
                }
            };
            if n == 0 {
                // The last line, without its `\n`.
                self.done = true;
                return self.cut(self.filled).map(Job::Text);
            }
            self.filled += n;
            let at = self.filled - n;
            if let Some(last) = memchr::memrchr(b'\n', &self.buf[at..self.filled]) {
                return self.cut(at + last + 1).map(Job::Text);
            }
        }
        None
    }

    /// The first `end` bytes as a piece (none if empty); the rest stays, at the front of
    /// a new block.
    fn cut(&mut self, end: usize) -> Option<Vec<u8>> {
        if end == 0 {
            return None;
        }
        let mut next = self.fresh(self.size);
        let rest = self.filled - end;
        next[..rest].copy_from_slice(&self.buf[end..self.filled]);
        let mut piece = std::mem::replace(&mut self.buf, next);
        piece.truncate(end);
        self.filled = rest;
        Some(piece)
    }
}

/// Where a name lies in its block's text.
#[derive(Clone, Copy, Default)]
struct Span {
    at: u32,
    len: u32,
}

/// One lexed line of a block: its number in the block, operation and names.
#[derive(Clone, Copy)]
struct Rec {
    line: u32,
    /// `r`, `w`, `acq`, `rel`, `fork`, `join`, `req`, `begin(NAME)`, `begin`, `end`: 0..=9.
    op: u8,
    thread: Span,
    arg: Span,
    loc: Span,
}

impl Rec {
    /// The record of `line`, whose names lie in `text`.
    fn new(text: &str, line: &Line<'_>) -> Rec {
        // Every name is a piece of `text` (an empty one may not be: it needs no place).
        let span = |s: &str| match s.is_empty() {
            true => Span::default(),
            false => Span {
                at: (s.as_ptr() as usize - text.as_ptr() as usize) as u32,
                len: s.len() as u32,
            },
        };
        let (op, arg) = match line.op {
            StdOp::Read(x) => (0, span(x)),
            StdOp::Write(x) => (1, span(x)),
            StdOp::Acquire(x) => (2, span(x)),
            StdOp::Release(x) => (3, span(x)),
            StdOp::Fork(x) => (4, span(x)),
            StdOp::Join(x) => (5, span(x)),
            StdOp::Request(x) => (6, span(x)),
            StdOp::Begin(Some(x)) => (7, span(x)),
            StdOp::Begin(None) => (8, Span::default()),
            StdOp::End => (9, Span::default()),
        };
        Rec {
            line: line.number as u32,
            op,
            thread: span(line.thread),
            arg,
            loc: span(line.loc),
        }
    }

    /// The line again, numbered after the `base` lines of the blocks before.
    fn line<'a>(&self, text: &'a str, base: usize) -> Line<'a> {
        let s = |p: Span| &text[p.at as usize..(p.at + p.len) as usize];
        let arg = s(self.arg);
        let op = match self.op {
            0 => StdOp::Read(arg),
            1 => StdOp::Write(arg),
            2 => StdOp::Acquire(arg),
            3 => StdOp::Release(arg),
            4 => StdOp::Fork(arg),
            5 => StdOp::Join(arg),
            6 => StdOp::Request(arg),
            7 => StdOp::Begin(Some(arg)),
            8 => StdOp::Begin(None),
            _ => StdOp::End,
        };
        Line {
            number: base + self.line as usize,
            thread: s(self.thread),
            op,
            loc: s(self.loc),
        }
    }
}

/// A lexed block: its text, how many lines it has, and the error that ends it (its
/// line counted in the block). Its records are given beside it.
struct Lexed {
    text: String,
    lines: usize,
    error: Option<Error>,
    /// A block too long for [`Span`]s: the caller lexes it.
    whole: bool,
}

/// A lexer: lexes each job it gets and hands it on, until either side closes.
fn lexer(
    jobs: Receiver<Job>,
    done: SyncSender<(Lexed, Vec<Rec>)>,
    spares: Receiver<Vec<Rec>>,
    not_utf8: NotUtf8,
) {
    for job in jobs {
        let mut recs = spares.try_recv().unwrap_or_default();
        let lexed = lex_job(job, not_utf8, &mut recs);
        if done.send((lexed, recs)).is_err() {
            return;
        }
    }
}

/// Validates and lexes a piece, pushing a record a line (lines numbered from 1).
fn lex_job(job: Job, not_utf8: NotUtf8, recs: &mut Vec<Rec>) -> Lexed {
    let failed = |error| Lexed {
        text: String::new(),
        lines: 0,
        error: Some(error),
        whole: false,
    };
    let bytes = match job {
        Job::Text(bytes) => bytes,
        Job::TooLong(max) => {
            return failed(Error::Format {
                line: 1,
                message: format!("a line longer than {max} bytes"),
            })
        }
        Job::Io(e) => return failed(Error::Io(e)),
    };
    let lines =
        memchr::memchr_iter(b'\n', &bytes).count() + usize::from(bytes.last() != Some(&b'\n'));
    // The lines before the first that is not UTF-8, and that line's number.
    let (text, bad) = match String::from_utf8(bytes) {
        Ok(text) => (text, None),
        Err(e) => {
            let valid = e.utf8_error().valid_up_to();
            let mut bytes = e.into_bytes();
            let start = memchr::memrchr(b'\n', &bytes[..valid]).map_or(0, |i| i + 1);
            let line = memchr::memchr_iter(b'\n', &bytes[..start]).count() + 1;
            bytes.truncate(start);
            let text = String::from_utf8(bytes).expect("the lines before the first bad byte");
            (text, Some(line))
        }
    };
    let whole = text.len() > u32::MAX as usize;
    let mut error = None;
    if !whole {
        let pushed = lex_text(&text, 0, |line| {
            recs.push(Rec::new(&text, line));
            Ok(true)
        });
        error = pushed.err();
    }
    Lexed {
        error: error.or_else(|| bad.map(not_utf8)),
        text,
        lines,
        whole,
    }
}

/// Lexes every line of `text` (whole lines, the last perhaps without its `\n`) that is
/// neither blank nor a comment, numbered from `base + 1`: `f` on each, until the first
/// error or `Ok(false)`.
fn lex_text(
    text: &str,
    base: usize,
    mut f: impl FnMut(&Line<'_>) -> Result<bool, Error>,
) -> Result<bool, Error> {
    let mut go = |number: usize, line: &str| text_line(number, line, &mut |n, t| f(&lex(t, n)?));
    let mut from = 0;
    let mut number = base;
    for end in memchr::memchr_iter(b'\n', text.as_bytes()) {
        number += 1;
        if !go(number, &text[from..end])? {
            return Ok(false);
        }
        from = end + 1;
    }
    if from < text.len() {
        return go(number + 1, &text[from..]);
    }
    Ok(true)
}

/// The caller's side of a lexed block: `f` on its lines, numbered after the `base`
/// lines before it (which then counts this block's), then its error.
fn take(
    lexed: &mut Lexed,
    recs: &[Rec],
    base: &mut usize,
    f: &mut impl FnMut(&Line<'_>) -> Result<bool, Error>,
) -> Result<bool, Error> {
    if lexed.whole {
        if !lex_text(&lexed.text, *base, &mut *f)? {
            return Ok(false);
        }
    } else {
        for r in recs {
            if !f(&r.line(&lexed.text, *base))? {
                return Ok(false);
            }
        }
    }
    if let Some(e) = lexed.error.take() {
        return Err(after(e, *base));
    }
    *base += lexed.lines;
    Ok(true)
}

/// A block's error (its line counted in the block) numbered after the `base` lines
/// before the block.
fn after(e: Error, base: usize) -> Error {
    match e {
        Error::Format { line, message } => Error::Format {
            line: base + line,
            message,
        },
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::std_format::lex::{reader_not_utf8, stream_not_utf8, MAX_LINE};
    use rand::{Rng, SeedableRng};

    /// What a reading gave: each line as owned text, then the end (the error's text
    /// and line, or none).
    type Reading = (Vec<String>, Result<(), (String, Option<usize>)>);

    /// Reads `input` (a fresh copy) with lines of under `max_line` bytes, stopping after
    /// `stop` lines.
    fn read(
        input: &Pieces,
        (max_line, not_utf8): (usize, NotUtf8),
        lexers: usize,
        block: usize,
        stop: usize,
    ) -> Reading {
        let mut lines = Vec::new();
        let end = lexed_in_blocks(input.clone(), max_line, not_utf8, lexers, block, |l| {
            lines.push(format!("{}:{}|{:?}|{}", l.number, l.thread, l.op, l.loc));
            Ok(lines.len() < stop)
        });
        (lines, end.map_err(|e| (e.to_string(), e.line())))
    }

    /// A reader that gives its bytes in pieces of the sizes `chunks` cycles through
    /// (as a pipe does), failing once `fail_at` bytes are given.
    #[derive(Clone)]
    struct Pieces<'a> {
        bytes: &'a [u8],
        at: usize,
        chunks: Vec<usize>,
        turn: usize,
        fail_at: Option<usize>,
    }

    impl Read for Pieces<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            if self.fail_at.is_some_and(|f| self.at >= f) {
                return Err(std::io::Error::other("the disk is gone"));
            }
            let want = self.chunks[self.turn % self.chunks.len()];
            self.turn += 1;
            let end = self
                .bytes
                .len()
                .min(self.at + want.min(buf.len()))
                .min(self.fail_at.unwrap_or(usize::MAX));
            let n = end - self.at;
            buf[..n].copy_from_slice(&self.bytes[self.at..end]);
            self.at = end;
            Ok(n)
        }
    }

    /// Random files of the lines that matter: plain and spaced lines, every
    /// operation, comments, blank and CRLF lines, lines that do not lex, bytes that are
    /// not UTF-8, long lines, a last line with or without its `\n`.
    fn file(rng: &mut rand_chacha::ChaCha8Rng) -> Vec<u8> {
        let lines: [&[u8]; 16] = [
            b"T0|r(x)|1",
            b"T1|w(y)|22",
            b"T0|acq(l)|",
            b"T2|rel(fence:T2)|3",
            b"T1|begin(T1.1)|4",
            b"T1|begin|5",
            b"T1|end|6",
            b"T0|fork(T3)|7",
            b"T3|join(T0)|8",
            b" T0 | r( x ) |9 \r",
            b"# a comment",
            b"",
            b"   \t",
            b"T0|frob(x)|1",
            b"T0|r(\xff)|1",
            b"T0|w(\xc3\xa9t\xc3\xa9)|\xc3\xa9",
        ];
        let mut out = Vec::new();
        for _ in 0..rng.random_range(0..40) {
            match rng.random_range(0..30) {
                0 => out.extend(std::iter::repeat_n(b'a', rng.random_range(20..200))),
                k if k < 4 => out.extend_from_slice(lines[rng.random_range(13..16)]),
                _ => out.extend_from_slice(lines[rng.random_range(0..13)]),
            }
            out.push(b'\n');
        }
        if rng.random_bool(0.5) {
            out.pop();
        }
        out
    }

    /// Bug none yet (the split reader is new): lexed on any number of threads, in
    /// blocks of any size, from a reader giving any pieces, a file gives the lines, the
    /// numbers and the first error one thread gives — a line too long, not UTF-8, that
    /// does not lex, a failed read — and stops where the caller stops.
    #[test]
    fn the_split_reader_is_the_scanner() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(34);
        let mut split = 0;
        for case in 0..3000 {
            let bytes = file(&mut rng);
            let chunks: Vec<usize> = (0..3).map(|_| rng.random_range(1..50)).collect();
            let fail_at = rng
                .random_bool(0.1)
                .then(|| rng.random_range(0..=bytes.len()));
            let (max_line, not_utf8): (usize, NotUtf8) = match case % 3 {
                0 => (usize::MAX, reader_not_utf8),
                1 => (MAX_LINE, stream_not_utf8),
                _ => (rng.random_range(1..120), stream_not_utf8),
            };
            let stop = if rng.random_bool(0.2) {
                rng.random_range(0..10)
            } else {
                usize::MAX
            };
            let input = Pieces {
                bytes: &bytes,
                at: 0,
                chunks: chunks.clone(),
                turn: 0,
                fail_at,
            };
            let one = read(&input, (max_line, not_utf8), 0, BLOCK, stop);
            for _ in 0..3 {
                let lexers = rng.random_range(1..4);
                let block = rng.random_range(1..64);
                let many = read(&input, (max_line, not_utf8), lexers, block, stop);
                assert_eq!(
                    many,
                    one,
                    "{lexers} lexers, blocks of {block}, max_line {max_line}, pieces {chunks:?}, \
                     failing at {fail_at:?}, stop {stop}: {:?}",
                    String::from_utf8_lossy(&bytes)
                );
                split += usize::from(bytes.len() > block);
            }
        }
        assert!(split > 5000, "{split} readings in more than one block");
    }

    /// A piece's lines are numbered after the pieces before it, and so is its error.
    #[test]
    fn errors_name_their_line_across_blocks() {
        let text = "T0|r(x)|1\n\n# c\nT0|w(x)|2\nT0|frob|3\n";
        for block in 1..text.len() + 2 {
            let input = Pieces {
                bytes: text.as_bytes(),
                at: 0,
                chunks: vec![7],
                turn: 0,
                fail_at: None,
            };
            let (lines, end) = read(&input, (usize::MAX, reader_not_utf8), 2, block, usize::MAX);
            assert_eq!(lines.len(), 2, "blocks of {block}");
            assert!(lines[1].starts_with("4:"), "{lines:?}");
            assert_eq!(end.map_err(|e| e.1), Err(Some(5)), "blocks of {block}");
        }
    }
}
