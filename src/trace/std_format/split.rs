//! STD's lines lexed on several threads ([`crate::trace::split`]): the caller's thread
//! gets each line as [`super::lex`] lexes it, in file order, and names, lowers and
//! builds the events ([`super::lower`]); [`lexed`] with no lexer is one thread's scan.

use super::lex::{lex, lex_block, scan_lexed, text_line, Line, OnLine, StdOp};
use crate::trace::split::{pipeline, Lexer, NotUtf8, Span, BLOCK};
use crate::Error;
use std::io::Read;

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
    f: impl OnLine,
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
    mut f: impl OnLine,
) -> Result<(), Error> {
    if lexers == 0 {
        return scan_lexed(input, max_line, not_utf8, f);
    }
    let take = |text: &str, recs: &[Rec], base: usize| {
        for r in recs {
            if !f.line(&r.line(text, base))? {
                return Ok(false);
            }
        }
        Ok(true)
    };
    pipeline(input, (max_line, not_utf8), lexers, block, &Std, take)
}

/// The STD lexer of a block's lines: blank lines and comments skipped, the others
/// lexed ([`lex`]) into [`Rec`]s.
struct Std;

impl Lexer for Std {
    type Rec = Rec;

    fn line(
        &self,
        block: &str,
        number: usize,
        line: &str,
        recs: &mut Vec<Rec>,
    ) -> Result<(), Error> {
        text_line(number, line, &mut |n, t| {
            recs.push(Rec::new(block, &lex(t, n)?));
            Ok(true)
        })
        .map(|_| ())
    }

    /// The block's lines as the scanner lexes them, from windows of their bytes
    /// ([`lex_block`]: the same lines and errors as line by line).
    fn block(&self, block: &str, recs: &mut Vec<Rec>) -> Result<(), Error> {
        lex_block(block, |l: &Line<'_>| {
            recs.push(Rec::new(block, l));
            Ok(true)
        })
    }
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
    /// [`Line::key`].
    key: u128,
}

impl Rec {
    /// The record of `line`, whose names lie in `block`.
    fn new(block: &str, line: &Line<'_>) -> Rec {
        let span = |s: &str| Span::of(block, s);
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
            // A block's lines are fewer than its bytes: the number fits.
            line: line.number as u32,
            op,
            thread: span(line.thread),
            arg,
            loc: span(line.loc),
            key: line.key,
        }
    }

    /// The line again, numbered after the `base` lines of the blocks before.
    fn line<'a>(&self, block: &'a str, base: usize) -> Line<'a> {
        let arg = self.arg.get(block);
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
            thread: self.thread.get(block),
            op,
            loc: self.loc.get(block),
            key: self.key,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::std_format::lex::{stream_not_utf8, MAX_LINE};
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
        let end = lexed_in_blocks(
            input.clone(),
            max_line,
            not_utf8,
            lexers,
            block,
            |l: &Line<'_>| {
                lines.push(format!("{}:{}|{:?}|{}", l.number, l.thread, l.op, l.loc));
                Ok(lines.len() < stop)
            },
        );
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
                0 => (usize::MAX, stream_not_utf8),
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
            let (lines, end) = read(&input, (usize::MAX, stream_not_utf8), 2, block, usize::MAX);
            assert_eq!(lines.len(), 2, "blocks of {block}");
            assert!(lines[1].starts_with("4:"), "{lines:?}");
            assert_eq!(end.map_err(|e| e.1), Err(Some(5)), "blocks of {block}");
        }
    }
}
