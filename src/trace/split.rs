//! Reading split at line boundaries (issue 34, item 3), for any line format: one
//! thread reads the input in blocks cut after their last `\n`, `lexers` threads
//! validate the blocks as UTF-8 and make records of their lines (block `i` on lexer
//! `i mod lexers`, with a `Lexer`), and the caller's thread takes the records in
//! file order and does what must be done in order (interning names in order of first
//! appearance, rules that run across lines, building the events). The STD reader
//! (`std_format::split`) and the YAML fast path (`yaml::fast`) use it.
//!
//! The lines, their numbers and the first error come in the order one thread reading
//! line by line gives them ([`super::std_format::lex`]'s scanner). Memory stays
//! bounded: each lexer holds at most two blocks waiting and two lexed.

use crate::Error;
use std::io::Read;
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};

/// The bytes a block is read in (a block grows while a line does not end in it).
pub const BLOCK: usize = 1 << 20;

/// The most lexing threads used by default ([`lexers`]).
pub const MAX_LEXERS: usize = 8;

/// The longest line a split reading takes (a block's places fit a `u32`): a longer
/// one is an error, also for the readers on one thread, which must give the same.
pub const MAX_SPLIT_LINE: usize = u32::MAX as usize;

/// The error of line `line` (1-based) that is not UTF-8.
pub type NotUtf8 = fn(usize) -> Error;

/// Lexing threads worth starting beside `busy` threads already at work (the caller's,
/// the monitors'): the cores this process may run on beyond those, at most
/// [`MAX_LEXERS`]. On two cores the reader gets one, the stream none.
pub fn lexers(busy: usize) -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    cores.saturating_sub(busy).min(MAX_LEXERS)
}

/// What the lexers make of the lines of a block.
pub(crate) trait Lexer: Sync {
    /// A line's record: where its fields lie in the block ([`Span`]).
    type Rec: Send;
    /// Line `number` (1-based in the block) of `block`, `line` (without its `\n`):
    /// its records pushed onto `recs`, or the error that ends the block there.
    fn line(
        &self,
        block: &str,
        number: usize,
        line: &str,
        recs: &mut Vec<Self::Rec>,
    ) -> Result<(), Error>;

    /// Every line of `block`, numbered from 1: [`Lexer::line`] on each by default,
    /// until the first error.
    fn block(&self, block: &str, recs: &mut Vec<Self::Rec>) -> Result<(), Error> {
        each_line(block, |number, line| self.line(block, number, line, recs))
    }
}

/// Where a piece of a line lies in its block's text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Span {
    at: u32,
    len: u32,
}

impl Span {
    /// The place of `s`, a piece of `block` (an empty piece needs no place).
    pub(crate) fn of(block: &str, s: &str) -> Span {
        match s.is_empty() {
            true => Span::default(),
            false => Span {
                // A block is at most `MAX_SPLIT_LINE` bytes: its places fit.
                at: (s.as_ptr() as usize - block.as_ptr() as usize) as u32,
                len: s.len() as u32,
            },
        }
    }

    /// The piece again.
    pub(crate) fn get(self, block: &str) -> &str {
        &block[self.at as usize..(self.at + self.len) as usize]
    }
}

/// Reads `input` split at line boundaries: each block's lines made into records by
/// `lexer` on `lexers` (≥ 1) threads, then `take(block, records, base)` on the caller's
/// thread in file order (`base`: the lines of the blocks before), until it returns
/// `Ok(false)` or an error, or a block's error comes (numbered after `base`): a line of
/// `max_line` bytes or more (at most [`MAX_SPLIT_LINE`]), a line that is not UTF-8
/// (`not_utf8`), the lexer's, or a failed read. An input of one block is lexed on the
/// caller's thread.
pub(crate) fn pipeline<R: Read + Send, L: Lexer>(
    input: R,
    (max_line, not_utf8): (usize, NotUtf8),
    lexers: usize,
    block: usize,
    lexer: &L,
    mut take: impl FnMut(&str, &[L::Rec], usize) -> Result<bool, Error>,
) -> Result<(), Error> {
    let lexers = lexers.max(1);
    let mut blocks = Blocks::new(input, max_line.min(MAX_SPLIT_LINE), block);
    // An input of one block is lexed here: no thread is worth starting.
    let (first, second) = match blocks.next() {
        Some(Job::Text(text)) => match blocks.next() {
            Some(second) => (Job::Text(text), second),
            None => return alone(Job::Text(text), not_utf8, lexer, &mut take),
        },
        Some(job) => return alone(job, not_utf8, lexer, &mut take),
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
            let (done_tx, done_rx) = sync_channel::<(Lexed, Vec<L::Rec>)>(2);
            let (spare_tx, spare_rx) = sync_channel::<Vec<L::Rec>>(4);
            // Those started stop when `jobs` is dropped, on any return.
            let work = move || lex_jobs(job_rx, done_tx, spare_rx, not_utf8, lexer);
            start("lexer").spawn_scoped(scope, work).map_err(cannot)?;
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
            if !taken(&mut lexed, &recs, &mut base, &mut take)? {
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
fn alone<L: Lexer>(
    job: Job,
    not_utf8: NotUtf8,
    lexer: &L,
    take: &mut impl FnMut(&str, &[L::Rec], usize) -> Result<bool, Error>,
) -> Result<(), Error> {
    let mut recs = Vec::new();
    let mut lexed = lex_job(job, not_utf8, lexer, &mut recs);
    taken(&mut lexed, &recs, &mut 0, take).map(|_| ())
}

/// A piece of the input for a lexer: whole lines (the last line of the file perhaps
/// without its `\n`), or where the reading failed.
enum Job {
    Text(Vec<u8>),
    /// A line of `max_line` bytes or more begins after the lines already given.
    TooLong(usize),
    Io(std::io::Error),
}

/// The input read in blocks cut after their last `\n` (as the one-thread scanner reads it).
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

    /// A block of at least `len` bytes to read into (a spent one when there is one: its
    /// old bytes are overwritten before they are read, so only its new room is zeroed).
    fn fresh(&self, len: usize) -> Vec<u8> {
        let mut b = self
            .spent
            .as_ref()
            .and_then(|r| r.try_recv().ok())
            .unwrap_or_default();
        if b.len() < len.max(self.block) {
            b.resize(len.max(self.block), 0);
        }
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

/// A lexed block: its text, how many lines it has, and the error that ends it (its
/// line counted in the block). Its records are given beside it.
struct Lexed {
    text: String,
    lines: usize,
    error: Option<Error>,
}

/// A lexer's thread: lexes each job it gets and hands it on, until either side closes.
fn lex_jobs<L: Lexer>(
    jobs: Receiver<Job>,
    done: SyncSender<(Lexed, Vec<L::Rec>)>,
    spares: Receiver<Vec<L::Rec>>,
    not_utf8: NotUtf8,
    lexer: &L,
) {
    for job in jobs {
        let mut recs = spares.try_recv().unwrap_or_default();
        let lexed = lex_job(job, not_utf8, lexer, &mut recs);
        if done.send((lexed, recs)).is_err() {
            return;
        }
    }
}

/// Validates and lexes a piece, its lines numbered from 1.
fn lex_job<L: Lexer>(job: Job, not_utf8: NotUtf8, lexer: &L, recs: &mut Vec<L::Rec>) -> Lexed {
    let failed = |error| Lexed {
        text: String::new(),
        lines: 0,
        error: Some(error),
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
    let error = lexer.block(&text, recs).err();
    Lexed {
        error: error.or_else(|| bad.map(not_utf8)),
        text,
        lines,
    }
}

/// `f(number, line)` on every line of `text` (whole lines, the last perhaps without
/// its `\n`), numbered from 1, until the first error.
fn each_line(text: &str, mut f: impl FnMut(usize, &str) -> Result<(), Error>) -> Result<(), Error> {
    let mut from = 0;
    let mut number = 0;
    for end in memchr::memchr_iter(b'\n', text.as_bytes()) {
        number += 1;
        f(number, &text[from..end])?;
        from = end + 1;
    }
    if from < text.len() {
        f(number + 1, &text[from..])?;
    }
    Ok(())
}

/// The caller's side of a lexed block: `take` on its records, numbered after the
/// `base` lines before it (which then counts this block's), then its error.
fn taken<T>(
    lexed: &mut Lexed,
    recs: &[T],
    base: &mut usize,
    take: &mut impl FnMut(&str, &[T], usize) -> Result<bool, Error>,
) -> Result<bool, Error> {
    if !take(&lexed.text, recs, *base)? {
        return Ok(false);
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
