//! A line fast path for the layout tsoser writes: `name:` (optional), `events:`, then
//! one item a line, `  - "compact event"` or `  - {key: name, …}` with plain names.
//! It answers only a file it reads whole; anything else (comments, another layout,
//! quotes with escapes, an event the full reader would refuse) goes to the full YAML
//! reader, so both give the same trace, the same lines and the same errors. Tests
//! hold the two against each other on generated and fuzzed files.

use super::read::{compact_fields_in, op_of, RawOp};
use super::write::is_plain;
use crate::error::Error;
use crate::trace::split::{pipeline, Lexer, Span, BLOCK, MAX_SPLIT_LINE};
use crate::trace::{Op, Trace, TraceBuilder};

/// The trace of `src`, or `None` when the fast path does not read it whole.
pub(super) fn parse_trace(src: &str) -> Option<Result<Trace, Error>> {
    read_trace(src.as_bytes(), 0)
}

/// The trace read line by line from `input` (a file is never held whole: only a
/// buffer of lines), or `None` when the fast path does not read it whole, also when
/// a line is not UTF-8 or reading fails: the full reader, reading it again, then
/// gives the answer and the error. With `lexers` > 0 the lines are parsed on that
/// many threads and built in order here ([`crate::trace::split`]).
pub(super) fn read_trace(
    input: impl std::io::Read + Send,
    lexers: usize,
) -> Option<Result<Trace, Error>> {
    read_in_blocks(input, lexers, BLOCK)
}

/// [`read_trace`] reading blocks of `block` bytes (the tests cut files into small ones).
pub(super) fn read_in_blocks(
    input: impl std::io::Read + Send,
    lexers: usize,
    block: usize,
) -> Option<Result<Trace, Error>> {
    let mut read = Reading {
        b: TraceBuilder::new(),
        at: At::Name,
        items: 0,
    };
    let not_utf8 = |line| Error::Format {
        line,
        message: String::new(),
    };
    // Whether every line so far is one the fast path reads.
    let mut fast = true;
    let scanned = if lexers == 0 {
        crate::trace::std_format::lex::scan_raw(input, MAX_SPLIT_LINE, not_utf8, |i, l| {
            fast = read.line(i, l, || item(l));
            Ok(fast)
        })
    } else {
        let take = |text: &str, recs: &[Rec], base: usize| {
            fast = recs.iter().all(|r| {
                let item = || r.item.map(|f| f.get(text));
                read.line(base + r.line as usize, r.text.get(text), item)
            });
            Ok(fast)
        };
        pipeline(
            input,
            (MAX_SPLIT_LINE, not_utf8),
            lexers,
            block,
            &Items,
            take,
        )
    };
    // Any error, or a line the fast path does not read: the full reader decides.
    if scanned.is_err() || !fast {
        return None;
    }
    // `events:` with no item is YAML's null: left to the full reader.
    (read.items > 0).then(|| read.b.build())
}

/// Where the scan is: before `name:`, before `events:`, among the items.
enum At {
    Name,
    Events,
    Items,
}

/// The fast path's state: the trace built so far and where it is.
struct Reading {
    b: TraceBuilder,
    at: At,
    items: usize,
}

impl Reading {
    /// Line `i`, `l` (its item's fields from `item` when it is one): whether the fast
    /// path reads it.
    fn line<'a>(&mut self, i: usize, l: &str, item: impl FnOnce() -> Option<Fields<'a>>) -> bool {
        let ok = match self.at {
            At::Name => match l.strip_prefix("name: ") {
                Some(v) => scalar(v).map(|v| {
                    self.b.set_name(Some(v.to_string()));
                    self.at = At::Events;
                }),
                None => (l == "events:").then(|| self.at = At::Items),
            },
            At::Events => (l == "events:").then(|| self.at = At::Items),
            At::Items => item().map(|(thread, txn, op, var, val)| {
                self.b.push_at(thread, txn, op, var, val, i);
                self.items += 1;
            }),
        };
        ok.is_some()
    }
}

/// The lexer of [`read_trace`]'s blocks: each line's item parsed, if it is one.
struct Items;

/// A line of a block: its number in the block, its text, and its item's fields.
struct Rec {
    line: u32,
    text: Span,
    item: Option<ItemRec>,
}

/// An item's fields, placed in their block.
#[derive(Clone, Copy)]
struct ItemRec {
    thread: Span,
    txn: Option<Span>,
    op: Op,
    var: Option<Span>,
    val: Option<Span>,
}

impl ItemRec {
    fn get(self, text: &str) -> Fields<'_> {
        let get = |s: Option<Span>| s.map(|s| s.get(text));
        (
            self.thread.get(text),
            get(self.txn),
            self.op,
            get(self.var),
            get(self.val),
        )
    }
}

impl Lexer for Items {
    type Rec = Rec;

    fn line(
        &self,
        block: &str,
        number: usize,
        line: &str,
        recs: &mut Vec<Rec>,
    ) -> Result<(), Error> {
        let span = |s: &str| Span::of(block, s);
        let item = item(line).map(|(thread, txn, op, var, val)| ItemRec {
            thread: span(thread),
            txn: txn.map(span),
            op,
            var: var.map(span),
            val: val.map(span),
        });
        recs.push(Rec {
            // A block's lines are fewer than its bytes: the number fits.
            line: number as u32,
            text: span(line),
            item,
        });
        Ok(())
    }
}

/// One line `  - …` among the events: a compact event or a flow mapping.
fn item(l: &str) -> Option<Fields<'_>> {
    let item = l.strip_prefix("  - ")?;
    if let Some(text) = quoted(item) {
        // Printable ASCII: its only white space is `' '`, so these are the words of
        // the full reader's `split_whitespace`.
        let words = text.split(' ').filter(|w| !w.is_empty());
        let c = compact_fields_in(text, words).ok()?;
        let RawOp::Trace(op) = c.op else { return None };
        Some((c.thread, c.txn, op, c.var, c.val))
    } else {
        mapping(item)
    }
}

/// The text of a double-quoted scalar with no escape and no quote inside, in printable
/// ASCII (what YAML reads as the text between the quotes).
fn quoted(s: &str) -> Option<&str> {
    let inner = s.strip_prefix('"')?.strip_suffix('"')?;
    printable(inner.as_bytes()).then_some(inner)
}

/// Whether every byte is printable ASCII (`' '..='~'`) other than `"` and `\`: eight
/// bytes a step, each test the exact "some byte is zero" of a word (a byte at a time
/// was 15 % of reading a 10⁷-event file).
fn printable(b: &[u8]) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let zero = |x: u64| x.wrapping_sub(ONES) & !x & HIGH != 0;
    let byte = |c: u8| (b' '..=b'~').contains(&c) && c != b'"' && c != b'\\';
    let mut words = b.chunks_exact(8);
    for w in &mut words {
        let x = u64::from_le_bytes(w.try_into().expect("8 bytes"));
        let below_space = x.wrapping_sub(ONES * 0x20) & !x & HIGH != 0;
        if x & HIGH != 0
            || below_space
            || zero(x ^ (ONES * 0x7F))
            || zero(x ^ (ONES * b'"' as u64))
            || zero(x ^ (ONES * b'\\' as u64))
        {
            return false;
        }
    }
    words.remainder().iter().all(|&c| byte(c))
}

/// A name as the writer writes it: plain, or double-quoted with no escape.
fn scalar(s: &str) -> Option<&str> {
    quoted(s).or_else(|| plain(s))
}

/// A plain scalar the writer leaves unquoted (so YAML reads it as this text), ASCII.
fn plain(s: &str) -> Option<&str> {
    (s.is_ascii() && is_plain(s)).then_some(s)
}

type Fields<'a> = (
    &'a str,
    Option<&'a str>,
    Op,
    Option<&'a str>,
    Option<&'a str>,
);

/// `s` cut at its first `c` followed by a space (`", "`, `": "`), as `split_once` on
/// the two bytes (a plain loop: the general string searcher, and `memchr`, took longer
/// to set up than these fields are long).
fn split_at(s: &str, c: u8) -> Option<(&str, &str)> {
    let i = s.as_bytes().windows(2).position(|w| w == [c, b' '])?;
    // `c` and the space are ASCII: both cuts are on character boundaries.
    Some((&s[..i], &s[i + 2..]))
}

/// A flow mapping `{thread: a, txn: t, op: wr, var: x, val: v}` of names as the
/// writer writes them, each key at most once, fields as the full reader requires
/// them (names not blank). A quoted name holds no quote, so `, ` splits only fields.
fn mapping(s: &str) -> Option<Fields<'_>> {
    let inner = s.strip_prefix('{')?.strip_suffix('}')?;
    let (mut thread, mut txn, mut op, mut var, mut val) = (None, None, None, None, None);
    let mut rest = Some(inner);
    while let Some(now) = rest {
        let (field, next) = match split_at(now, b',') {
            Some((f, n)) => (f, Some(n)),
            None => (now, None),
        };
        rest = next;
        let (key, value) = split_at(field, b':')?;
        let value = scalar(value)?;
        let slot = match key {
            "thread" => &mut thread,
            "txn" => &mut txn,
            "op" => &mut op,
            "var" => &mut var,
            "val" => &mut val,
            _ => return None,
        };
        if key != "val" && value.trim().is_empty() {
            return None;
        }
        if slot.replace(value).is_some() {
            return None;
        }
    }
    let Some(RawOp::Trace(op)) = op_of(op?) else {
        return None;
    };
    ((op == Op::Fence) == var.is_none()).then_some((thread?, txn, op, var, val))
}

#[cfg(test)]
mod tests {
    use super::parse_trace;

    /// The byte search cuts where `split_once` on the two bytes does.
    #[test]
    fn split_at_is_split_once() {
        for s in [
            "a: b", "a:b: c", ",, x", "a, b, c", "", ",", ", ", "x,", "k: : v",
        ] {
            assert_eq!(super::split_at(s, b','), s.split_once(", "), "{s:?}");
            assert_eq!(super::split_at(s, b':'), s.split_once(": "), "{s:?}");
        }
    }

    /// The word-at-a-time test is the byte-at-a-time one: every byte at every place
    /// of a word and of the tail, among printable neighbours.
    #[test]
    fn printable_is_byte_by_byte() {
        let byte = |c: u8| (b' '..=b'~').contains(&c) && c != b'"' && c != b'\\';
        for len in 1..=17 {
            for at in 0..len {
                for c in 0..=255u8 {
                    let mut b = vec![b'a'; len];
                    b[at] = c;
                    assert_eq!(super::printable(&b), byte(c), "{len} {at} {c}");
                }
            }
        }
    }

    #[test]
    fn the_written_layout_takes_the_fast_path() {
        let src = "name: t\nevents:\n  - \"a T wr x\"\n  - {thread: b, txn: U, op: rd, var: x, val: \"1\"}\n  - {thread: b, op: fence}\n  - \"a rd x 7\"\n";
        let fast = parse_trace(src).expect("fast path").expect("a trace");
        let full = super::super::parse_trace_general(src).expect("a trace");
        assert_eq!(fast.name.as_deref(), Some("t"));
        assert_eq!(
            (&fast.threads, &fast.txns, &fast.vars),
            (&full.threads, &full.txns, &full.vars)
        );
        assert_eq!((&fast.events, &fast.values), (&full.events, &full.values));
        let lines: Vec<u32> = fast.events.iter().map(|e| e.line).collect();
        assert_eq!(lines, [3, 4, 5, 6]);
    }

    #[test]
    fn anything_else_goes_to_the_full_reader() {
        for src in [
            "events:\n  - \"a T wr x\"\n# a comment\n",
            "events:\n  - \"a T wr x\"\r\n",
            "events:\n  - \"a T wr \\x78\"\n",
            "events: []\n",
            "events:\n",
            "events:\n  - \"a T commit x\"\n",
            "events:\n  - \"a T wrr x\"\n",
            "events:\n  - {thread: a, op: fence, var: x}\n",
            "events:\n  - {thread: a, op: rd, op: rd, var: x}\n",
            "events:\n  - {thread: \"a\\x\", op: rd, var: x}\n",
            "events:\n  - {thread: \" \", op: rd, var: x}\n",
            "events:\n  - {thread: yes, op: rd, var: x}\n",
            "name: a: b\nevents:\n  - \"a T wr x\"\n",
            "- \"a T wr x\"\n",
            "events:\n- \"a T wr x\"\n",
        ] {
            assert!(parse_trace(src).is_none(), "{src:?}");
        }
    }
}
