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
//! kept as the event's value. [`lex`] cuts a file into lines and lexes each, [`lower`]
//! turns them into events; both the reader ([`read_std`] builds a [`Trace`]) and the
//! monitors' stream (which never holds the trace) use them.
//! [`to_std`] writes a trace back: `rmw x` as `acq(x)`, a fence as `acq(fence:T)` on a
//! location of its own (STD has no fence; under TSO that is the same conflicts and the
//! same buffer drain, docs/semantics.md §6, and it is read back as a fence, which also drains
//! every PSO buffer), transactions of more than one event as `begin`/`end` blocks.

pub mod lex;
pub mod lower;
pub mod split;
mod write;

pub use write::{to_std, StdWriteError};

use super::{Event, ThreadId, TiVec, Trace, Txn, TxnId};
use crate::{Error, FileError};
use compact_str::CompactString;
use std::io::Read;

/// Builds a trace from an STD text (see the module table), on the caller's thread.
pub fn build<R: Read + Send>(input: R) -> Result<Trace, Error> {
    build_on(input, 0)
}

/// [`build`] with the lines lexed on `lexers` threads ([`split`]; 0: none): the same
/// trace, or the same first error.
pub fn build_on<R: Read + Send>(input: R, lexers: usize) -> Result<Trace, Error> {
    build_with(input, usize::MAX, false, lexers)
}

/// [`build`] of the first `n` events, reading no line past the one that gives event
/// `n` + 1 (with `lexers` > 0 a few blocks beyond it are read and lexed, unused).
/// Transactions are named as the table says: an outermost block's given name, else
/// `T.bN`, an event outside blocks `@i`.
pub fn build_prefix<R: Read + Send>(input: R, n: usize, lexers: usize) -> Result<Trace, Error> {
    build_with(input, n, false, lexers)
}

/// [`build`] looking every given block name up in a table of names, as the reader did
/// before it trusted the lowering's [`lower::Lowering::ambiguous`]: the oracle the
/// tests hold [`build`] to.
#[doc(hidden)]
pub fn build_looking_up<R: Read + Send>(input: R) -> Result<Trace, Error> {
    build_with(input, usize::MAX, true, 0)
}

/// The reader. A block's given name is looked up (one hash table entry a transaction,
/// 19 % of reading a 10⁷-event file) only once the lowering finds the names ambiguous
/// or `look_up` asks for it: until then every given name that began a transaction was
/// new, so a block continues its thread's previous transaction exactly when the
/// lowering says its first event begins none.
fn build_with<R: Read + Send>(
    input: R,
    n: usize,
    look_up: bool,
    lexers: usize,
) -> Result<Trace, Error> {
    let mut lowering = lower::Lowering::default();
    let mut looked_up = false;
    let mut lowered = Vec::with_capacity(2);
    let mut events: Vec<Event> = Vec::new();
    let mut values = super::Values::default();
    let mut txns: TiVec<TxnId, Txn> = TiVec::new();
    // Given block names, by the index of their transaction.
    let mut named = lower::Names::default();
    // Each thread's open block (its number) and transaction.
    let mut open: TiVec<ThreadId, Option<(u64, TxnId)>> = TiVec::new();
    let (mut threads, mut vars) = (0, 0);
    // Lexed here or on `lexers` threads ([`split`]), named and built here in order.
    let max_line = crate::trace::split::MAX_SPLIT_LINE;
    split::lexed(
        input,
        max_line,
        lex::stream_not_utf8,
        lexers,
        |line: &lex::Line<'_>| {
            let number = line.number;
            lowered.clear();
            lowering.lower_line(line, &mut lowered)?;
            for e in &lowered {
                if events.len() >= n {
                    return Ok(false);
                }
                let t = e.thread;
                threads = threads.max(t.index() + 1);
                vars = vars.max(e.var.map_or(0, |x| x.index() + 1));
                if open.len() < threads {
                    open.resize(threads, None);
                }
                let next = txns.len();
                // Names of up to 24 bytes are made in place (no allocation).
                let new = |txns: &mut TiVec<TxnId, Txn>, name: &str, anonymous: bool| {
                    txns.push_and_get_key(Txn {
                        name: CompactString::new(name),
                        thread: t,
                        anonymous,
                    })
                };
                let txn = match lowering.block(t) {
                    None => new(&mut txns, &super::shown_at(events.len()), true),
                    Some(b) => match open[t] {
                        Some((k, x)) if k == b.number => x,
                        previous => {
                            let x = if !b.named {
                                new(&mut txns, b.name, true)
                            } else if !look_up && !lowering.ambiguous {
                                match previous {
                                    Some((_, x)) if !e.begins => x,
                                    _ => new(&mut txns, b.name, false),
                                }
                            } else {
                                if !looked_up {
                                    // The given names so far, each one transaction's.
                                    for (i, x) in txns.iter().enumerate() {
                                        if !x.anonymous {
                                            named.intern(&x.name, i);
                                        }
                                    }
                                    looked_up = true;
                                }
                                match named.intern(b.name, next) {
                                    x if x == next => new(&mut txns, b.name, false),
                                    x => TxnId::new(x),
                                }
                            };
                            open[t] = Some((b.number, x));
                            x
                        }
                    },
                };
                events.push(Event {
                    thread: t,
                    txn,
                    op: e.op,
                    var: e.var,
                    val: (!line.loc.is_empty()).then(|| values.push(line.loc)),
                    line: super::line_u32(number),
                });
            }
            Ok(true)
        },
    )?;
    // A line cut off by `n` may have named a thread or variable no event kept uses.
    let (mut thread_names, mut var_names) = lowering.into_names();
    thread_names.truncate(threads);
    var_names.truncate(vars);
    values.shrink_to_fit();
    Trace::new(None, events, thread_names, txns, var_names, values)
}

/// Opens an STD file; errors name the file.
fn open_std(path: &std::path::Path) -> Result<std::fs::File, FileError> {
    std::fs::File::open(path).map_err(|e| FileError {
        file: path.display().to_string(),
        error: Error::Io(e),
    })
}

/// The trace of the first `n` events of an STD file (event indices as in
/// [`read_std`]), reading no further: what explaining a streamed report needs.
pub fn read_std_prefix(path: &std::path::Path, n: usize) -> Result<Trace, FileError> {
    build_prefix(open_std(path)?, n, 0).map_err(|error| FileError {
        file: path.display().to_string(),
        error,
    })
}

/// Reads an STD file into a trace; errors name the file and line.
pub fn read_std(path: &std::path::Path) -> Result<Trace, FileError> {
    read_std_on(path, 0)
}

/// [`read_std`] with the lines lexed on `lexers` threads ([`build_on`]).
pub fn read_std_on(path: &std::path::Path, lexers: usize) -> Result<Trace, FileError> {
    build_on(open_std(path)?, lexers).map_err(|error| FileError {
        file: path.display().to_string(),
        error,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(src: &str) -> Result<Trace, Error> {
        build(src.as_bytes())
    }

    #[test]
    fn operations_map_as_documented() {
        let t = parse(
            "T0|begin|1\nT0|r(x)|2\nT0|w(y)|3\nT0|end|4\nT0|fork(T1)|5\nT1|acq(l)|6\nT1|rel(l)|7\nT0|join(T1)|8\n",
        )
        .unwrap();
        assert_eq!(t.val(0).as_deref(), Some("2"), "the location is kept");
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
