//! The monitors on an STD file streamed in one pass ([`stream`]): one thread scans,
//! lexes and lowers the lines ([`crate::trace::std_format::lex`],
//! [`crate::trace::std_format::lower`]) while another runs the monitors on the
//! events, handed over in batches.

use super::{check_memory, events_read, Kind, Outcome, StreamError, Suite};
use crate::stop::Stop;
use crate::trace::std_format::lex::{stream_not_utf8, Line, OnLine, MAX_LINE};
use crate::trace::std_format::lower::{IdEvent, Lowering};
use crate::trace::std_format::split::lexed;

/// What a streaming run saw.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Streamed {
    /// Events in the file (the rest of it is still read and checked after the monitors
    /// have all reported: a malformed line is an input error wherever it is).
    pub events: usize,
    /// Events fed to the monitors before they all reported.
    pub monitored: usize,
    pub threads: usize,
    pub variables: usize,
    pub transactions: usize,
    /// Each monitor's outcome; event indices are those of the trace `read_std` builds.
    pub outcomes: Vec<(Kind, Outcome)>,
}

/// The monitors `kinds` on an STD file in one streaming pass, never holding the trace
/// ([`crate::trace::std_format::lower`]: no allocation per line). Names are interned as they
/// come and the monitors grow with them ([`super::Monitor::grow`]: threads by a
/// quarter, variables by doubling). Their state is O(k·(k + m + k·m)) integers for k
/// threads and m variables for sc-ser; SOBER's write records are pruned below every
/// thread's frontier (a thread that first appears after a pruning makes the stream run
/// again, knowing every thread from a first pass over the names); `monitor_TSO` /
/// `monitor_PSO` hold the stores still buffered. Past the memory budget: *unknown*.
/// The pass ends at `stop` (polled once a batch of 4,096 events) with
/// [`StreamError::Stopped`].
pub fn stream(
    path: &std::path::Path,
    kinds: &[Kind],
    max_memory: usize,
    stop: &Stop,
) -> Result<Streamed, StreamError> {
    let mut input = Input::open(path).map_err(StreamError::Input)?;
    stream_input(&mut input, kinds, max_memory, stop)
}

/// [`stream`] on an [`Input`] already open, which can then give the prefix a report's
/// explanation needs ([`Input::prefix`]).
pub fn stream_input(
    input: &mut Input,
    kinds: &[Kind],
    max_memory: usize,
    stop: &Stop,
) -> Result<Streamed, StreamError> {
    let parallel = std::thread::available_parallelism().is_ok_and(|n| n.get() > 1);
    stream_on(input, kinds, max_memory, stop, parallel)
}

/// An STD input for [`stream_input`]. A regular file is opened again by each pass and
/// to explain a report. Anything else (a named pipe, `/dev/stdin`) reads once: the
/// first pass copies what it reads to an unnamed temporary file (in `TMPDIR`, deleted
/// when this is dropped), and every later read comes from that copy. Memory stays
/// flat either way; a pipe takes disk space as large as its text.
pub struct Input {
    path: std::path::PathBuf,
    spool: Option<Spool>,
    /// Threads that lex its lines beside the lowering ([`Input::with_lexers`]).
    lexers: usize,
}

/// A pipe and its copy.
struct Spool {
    pipe: std::fs::File,
    copy: std::fs::File,
    /// Whether a reader has begun the pipe: the copy then holds what it read, and the
    /// rest is copied before the copy is read.
    begun: bool,
    /// Bytes read from the pipe: the copy must hold as many before it is read.
    read: u64,
}

impl Input {
    /// Opens `path` (a pipe: opens it and makes the copy, still empty).
    pub fn open(path: &std::path::Path) -> Result<Input, crate::FileError> {
        let input = |e: std::io::Error| Self::named(path, crate::Error::Io(e));
        let regular = std::fs::metadata(path).map_err(input)?.is_file();
        let spool = match regular {
            true => None,
            false => Some(Spool {
                pipe: std::fs::File::open(path).map_err(input)?,
                copy: tempfile::tempfile().map_err(|e| input(Self::copying(e)))?,
                begun: false,
                read: 0,
            }),
        };
        Ok(Input {
            path: path.to_path_buf(),
            spool,
            lexers: 0,
        })
    }

    /// Its lines lexed on `lexers` threads beside the one that names and lowers them
    /// ([`crate::trace::std_format::split`]; 0, the default: on that one).
    pub fn with_lexers(mut self, lexers: usize) -> Input {
        self.lexers = lexers;
        self
    }

    fn named(path: &std::path::Path, error: crate::Error) -> crate::FileError {
        crate::FileError {
            file: path.display().to_string(),
            error,
        }
    }

    /// An error of the temporary copy, said so.
    fn copying(e: std::io::Error) -> std::io::Error {
        std::io::Error::new(
            e.kind(),
            format!("copying the input to a temporary file: {e}"),
        )
    }

    /// A reader from the input's first byte: the file, the pipe as it is copied (the
    /// first time), or the copy (the pipe's rest copied first: a pass that stops early,
    /// at a time limit say, leaves the rest unread until it is needed).
    fn reader(&mut self) -> Result<Box<dyn std::io::Read + Send + '_>, crate::FileError> {
        use std::io::{Seek, Write};
        let named = |e| Self::named(&self.path, crate::Error::Io(e));
        let Some(spool) = &mut self.spool else {
            return Ok(Box::new(std::fs::File::open(&self.path).map_err(named)?));
        };
        let copy = spool
            .copy
            .try_clone()
            .map_err(|e| named(Self::copying(e)))?;
        let mut to = std::io::BufWriter::with_capacity(1 << 20, copy);
        if !spool.begun {
            spool.begun = true;
            return Ok(Box::new(Tee {
                from: &mut spool.pipe,
                to,
                read: &mut spool.read,
            }));
        }
        spool.read += std::io::copy(&mut spool.pipe, &mut to).map_err(named)?;
        let mut copy = to
            .into_inner()
            .map_err(|e| named(Self::copying(e.into_error())))?;
        copy.flush().map_err(|e| named(Self::copying(e)))?;
        // A write the first reader's drop could not report (its buffer's last flush)
        // shows as a short copy: an error, never a shorter trace.
        let held = copy.metadata().map_err(|e| named(Self::copying(e)))?.len();
        if held != spool.read {
            let short =
                std::io::Error::other(format!("it holds {held} of the {} bytes read", spool.read));
            return Err(named(Self::copying(short)));
        }
        copy.rewind().map_err(|e| named(Self::copying(e)))?;
        Ok(Box::new(copy))
    }

    /// The trace of the input's first `n` events ([`crate::trace::std_format::read_std_prefix`]).
    pub fn prefix(&mut self, n: usize) -> Result<crate::trace::Trace, crate::FileError> {
        let lexers = self.lexers;
        let r = self.reader()?;
        let built = crate::trace::std_format::build_prefix(r, n, lexers);
        built.map_err(|e| Self::named(&self.path, e))
    }
}

/// Reads `from` and writes what it read to `to` (flushed when dropped), counting it in
/// `read`.
struct Tee<'a> {
    from: &'a mut std::fs::File,
    to: std::io::BufWriter<std::fs::File>,
    read: &'a mut u64,
}

impl std::io::Read for Tee<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.from.read(buf)?;
        std::io::Write::write_all(&mut self.to, &buf[..n]).map_err(Input::copying)?;
        *self.read += n as u64;
        Ok(n)
    }
}

/// [`stream`], with the lowering on a thread of its own or not.
fn stream_on(
    input: &mut Input,
    kinds: &[Kind],
    max_memory: usize,
    stop: &Stop,
    parallel: bool,
) -> Result<Streamed, StreamError> {
    // The reader decides when the lowering cannot (its errors, or the trace in memory).
    let by_reader = |input: &mut Input| -> Result<Streamed, StreamError> {
        let trace = input.prefix(usize::MAX)?;
        let (k, m) = (trace.threads.len(), trace.vars.len());
        check_memory(kinds, k, m, max_memory).map_err(StreamError::Memory)?;
        let suite = super::Suite::new(kinds, k, m);
        let outcomes = super::run_suite(suite, &trace, stop)
            .map_err(|events| StreamError::Stopped(stopped(events)))?;
        let monitored = events_read(&outcomes, trace.len());
        Ok(Streamed {
            events: trace.len(),
            monitored,
            threads: k,
            variables: m,
            transactions: trace.txns.len(),
            outcomes,
        })
    };
    let (path, lexers) = (input.path.clone(), input.lexers);
    let first = stream_pass(
        input.reader()?,
        kinds,
        max_memory,
        stop,
        None,
        parallel,
        lexers,
    );
    match first.map_err(|e| Input::named(&path, e))? {
        Pass::Done(out) => Ok(out),
        Pass::TooBig(why) => Err(StreamError::Memory(why)),
        Pass::Stopped(why) => Err(StreamError::Stopped(why)),
        Pass::Ambiguous => by_reader(input),
        Pass::Inexact => {
            // Every name first, then the monitors built for all of them.
            let mut lowering = Lowering::default();
            let mut events = Vec::new();
            lexed(
                input.reader()?,
                MAX_LINE,
                stream_not_utf8,
                lexers,
                |line: &Line<'_>| {
                    events.clear();
                    lowering.lower_line(line, &mut events)?;
                    Ok(!lowering.ambiguous)
                },
            )
            .map_err(|e| Input::named(&path, e))?;
            if lowering.ambiguous {
                return by_reader(input);
            }
            let size = (lowering.threads(), lowering.vars());
            let second = stream_pass(
                input.reader()?,
                kinds,
                max_memory,
                stop,
                Some(size),
                parallel,
                lexers,
            );
            match second.map_err(|e| Input::named(&path, e))? {
                Pass::Done(out) => Ok(out),
                Pass::TooBig(why) => Err(StreamError::Memory(why)),
                Pass::Stopped(why) => Err(StreamError::Stopped(why)),
                Pass::Ambiguous => by_reader(input),
                Pass::Inexact => unreachable!("no monitor grows when built for every name"),
            }
        }
    }
}

/// Why a stop ended the monitors after `events` events.
pub fn stopped(events: usize) -> String {
    format!("the time limit passed after {events} events")
}

/// How a streaming pass ended.
enum Pass {
    Done(Streamed),
    TooBig(crate::mem::OverBudget),
    /// The stop came first.
    Stopped(String),
    /// A monitor grew after forgetting what a new thread could need.
    Inexact,
    /// The file might break the reader's rules on transaction names
    /// ([`Lowering::ambiguous`]).
    Ambiguous,
}

/// Events handed from the lowering to the monitors at a time.
const BATCH: usize = 4096;

/// One pass of [`stream`]: the monitors built for `size` (threads, variables), or
/// grown as names come when `None`. When `parallel`, the lowering runs on a thread of
/// its own, a few batches ahead of the monitors (joined before returning); the lines
/// are lexed on `lexers` threads beside it.
fn stream_pass(
    file: impl std::io::Read + Send,
    kinds: &[Kind],
    max_memory: usize,
    stop: &Stop,
    size: Option<(usize, usize)>,
    parallel: bool,
    lexers: usize,
) -> Result<Pass, crate::Error> {
    let (k, m) = size.unwrap_or((0, 0));
    if let Err(why) = check_memory(kinds, k, m, max_memory) {
        return Ok(Pass::TooBig(why));
    }
    let mut monitors = Monitors {
        suite: Suite::new(kinds, k, m),
        kinds,
        max_memory,
        k,
        m,
        out: Streamed::default(),
        reported: false,
        stop: None,
        deadline: stop,
    };
    let lowered = if parallel {
        let (full_tx, full_rx) = std::sync::mpsc::sync_channel::<Vec<IdEvent>>(4);
        let (empty_tx, empty_rx) = std::sync::mpsc::sync_channel::<Vec<IdEvent>>(8);
        std::thread::scope(|scope| {
            let lowering = scope.spawn(move || {
                lower(file, lexers, &mut |batch| {
                    let next = empty_rx
                        .try_recv()
                        .unwrap_or_else(|_| Vec::with_capacity(BATCH));
                    // A closed channel: the monitors have stopped.
                    full_tx.send(std::mem::replace(batch, next)).is_ok()
                })
            });
            for mut batch in full_rx {
                if !monitors.take(&batch) {
                    break;
                }
                batch.clear();
                let _ = empty_tx.try_send(batch);
            }
            // Dropping the receiver (at the end of the loop's scope) stops the lowering.
            lowering.join().expect("the lowering thread does not panic")
        })
    } else {
        lower(file, lexers, &mut |batch| {
            let more = monitors.take(batch);
            batch.clear();
            more
        })
    };
    // The monitors' stop comes first: it was at an event before any later error.
    if let Some(p) = monitors.stop {
        return Ok(p);
    }
    let lowered = lowered?;
    if lowered.ambiguous {
        return Ok(Pass::Ambiguous);
    }
    let mut out = monitors.out;
    (out.threads, out.variables) = (lowered.threads, lowered.vars);
    out.outcomes = monitors.suite.finish();
    Ok(Pass::Done(out))
}

/// What [`lower`] found at the end of the file (or where it stopped).
struct Lowered {
    threads: usize,
    vars: usize,
    /// It stopped at a line that might break the reader's rules (that line's events
    /// are not handed over).
    ambiguous: bool,
}

/// Scans and lowers `file`, handing full batches of events to `take` (which leaves an
/// empty batch in their place and says whether to go on) and the last one at the end.
fn lower(
    file: impl std::io::Read + Send,
    lexers: usize,
    take: &mut dyn FnMut(&mut Vec<IdEvent>) -> bool,
) -> Result<Lowered, crate::Error> {
    let mut sink = Batches {
        lowering: Lowering::default(),
        batch: Vec::with_capacity(BATCH),
        stopped: false,
        take,
    };
    lexed(file, MAX_LINE, stream_not_utf8, lexers, &mut sink)?;
    let Batches {
        lowering,
        mut batch,
        stopped,
        take,
    } = sink;
    if !stopped && !batch.is_empty() {
        take(&mut batch);
    }
    Ok(Lowered {
        threads: lowering.threads(),
        vars: lowering.vars(),
        ambiguous: lowering.ambiguous,
    })
}

/// [`lower`]'s lines lowered into batches, each full one handed to `take`.
struct Batches<'a> {
    lowering: Lowering,
    batch: Vec<IdEvent>,
    /// `take` said to stop.
    stopped: bool,
    take: &'a mut dyn FnMut(&mut Vec<IdEvent>) -> bool,
}

impl OnLine for &mut Batches<'_> {
    /// Inlined into the scanner's loop (a closure was a call a line).
    #[inline(always)]
    fn line(&mut self, line: &Line<'_>) -> Result<bool, crate::Error> {
        let before = self.batch.len();
        self.lowering.lower_line(line, &mut self.batch)?;
        if self.lowering.ambiguous {
            self.batch.truncate(before);
            return Ok(false);
        }
        Ok(self.handed())
    }

    #[inline(always)]
    fn access(
        &mut self,
        _: usize,
        thread: (&str, u128),
        write: bool,
        var: &str,
        _: &str,
    ) -> Result<bool, crate::Error> {
        let before = self.batch.len();
        self.lowering.access(thread, write, var, &mut self.batch);
        // (The first event of a block checks the block's name.)
        if self.lowering.ambiguous {
            self.batch.truncate(before);
            return Ok(false);
        }
        Ok(self.handed())
    }
}

impl Batches<'_> {
    /// Hands the batch on when full: whether to go on.
    #[inline(always)]
    fn handed(&mut self) -> bool {
        if self.batch.len() >= BATCH && !(self.take)(&mut self.batch) {
            self.stopped = true;
            return false;
        }
        true
    }
}

/// The monitors' side of a pass: the suite, grown as events name new threads and
/// variables, and what it saw.
struct Monitors<'a> {
    suite: Suite,
    kinds: &'a [Kind],
    max_memory: usize,
    /// The threads and variables the suite has room for.
    k: usize,
    m: usize,
    out: Streamed,
    /// Every monitor has reported: the rest of the file is only counted.
    reported: bool,
    stop: Option<Pass>,
    /// Polled once a batch.
    deadline: &'a Stop,
}

impl Monitors<'_> {
    /// Runs the monitors on `batch`; false when the pass must stop ([`Self::stop`]).
    fn take(&mut self, batch: &[IdEvent]) -> bool {
        if self.deadline.expired() {
            self.stop = Some(Pass::Stopped(stopped(self.out.events)));
            return false;
        }
        self.out.events += batch.len();
        if self.reported {
            return true;
        }
        let mut rest = batch;
        while let Some(e) = rest.first() {
            // Indices come in order of first appearance: an index past the room is the
            // next name. The events before the first such one go to the monitors whole.
            let (k, m) = (self.k, self.m);
            let past = |e: &IdEvent| e.thread.index() >= k || e.var.is_some_and(|x| x.index() >= m);
            let fit = rest.iter().position(past).unwrap_or(rest.len());
            if fit == 0 {
                let need = e.var.map_or(0, |x| x.index() + 1);
                if !self.grow(e.thread.index() + 1, need) {
                    return false;
                }
                continue;
            }
            let read = self.suite.feed(&rest[..fit]);
            self.out.monitored += read;
            self.out.transactions += rest[..read].iter().filter(|e| e.begins).count();
            if read < fit || self.suite.all_reported() {
                self.reported = true;
                break;
            }
            rest = &rest[fit..];
        }
        true
    }

    /// Room for `have` threads and `need` variables: threads with a quarter of slack
    /// (each costs every clock an entry), variables with as many again (they cost
    /// memory only); exactly what is needed when the slack would not fit. False (and
    /// [`Self::stop`] set) past the budget or when a monitor turns inexact.
    fn grow(&mut self, have: usize, need: usize) -> bool {
        let (k, m, kinds) = (self.k, self.m, self.kinds);
        // The state now stays until its wider copy is made (bug:
        // the_memory_budget_heeds_ulimit_v).
        let now = super::bytes_needed(kinds, k, m);
        let budget = self
            .max_memory
            .saturating_sub(now.min(usize::MAX as u128) as usize);
        let mut k2 = if have > k { have.max(k + k / 4 + 1) } else { k };
        let mut m2 = if need > m { need.max(2 * m).max(16) } else { m };
        if check_memory(kinds, k2, m2, budget).is_err() {
            // As many threads as fit beside the variables needed (near the budget,
            // growing one thread at a time would copy the state once a thread).
            m2 = need.max(m);
            let (mut lo, mut hi) = (have.max(k), k2);
            while lo < hi {
                let mid = lo + (hi - lo).div_ceil(2);
                if check_memory(kinds, mid, m2, budget).is_ok() {
                    lo = mid;
                } else {
                    hi = mid - 1;
                }
            }
            k2 = lo;
        }
        if let Err(why) = check_memory(kinds, k2, m2, budget) {
            self.stop = Some(Pass::TooBig(why));
            return false;
        }
        self.suite.grow(k2, m2);
        (self.k, self.m) = (k2, m2);
        if !self.suite.exact() {
            self.stop = Some(Pass::Inexact);
            return false;
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// A random STD file of `n` lines on up to `k` threads (thread `i` first appears
    /// around line 1000·i when `late`, on 3 variables: SOBER prunes before it does):
    /// accesses, fences, locks, blocks (named `T.N` in order, named freely, or not);
    /// `junk` 1 adds a malformed line now and then, 2 reuses a block name.
    fn text(rng: &mut rand_chacha::ChaCha8Rng, n: usize, k: usize, late: bool, junk: u8) -> String {
        let mut s = String::new();
        let mut depth = vec![0usize; k];
        let mut blocks = vec![0usize; k];
        for i in 0..n {
            let t = rng.random_range(0..if late { k.min(1 + i / 1000) } else { k });
            let x = rng.random_range(0..if late { 3 } else { 12 });
            let line = match rng.random_range(0..14) {
                0..=4 => format!("t{t}|r(x{x})|{i}"),
                5..=8 => format!("t{t}|w(x{x})|{i}"),
                9 => format!("t{t}|acq(fence:t{t})|{i}"),
                10 if depth[t] == 0 => {
                    depth[t] += 1;
                    blocks[t] += 1;
                    match rng.random_range(0..3) {
                        0 => format!("t{t}|begin|{i}"),
                        1 => format!("t{t}|begin(t{t}.{})|{i}", blocks[t]),
                        _ if junk == 2 && rng.random_range(0..50) == 0 => {
                            format!("t{t}|begin(b)|{i}")
                        }
                        _ => format!("t{t}|begin(b{t}-{})|{i}", blocks[t]),
                    }
                }
                11 | 12 if depth[t] > 0 => {
                    depth[t] -= 1;
                    format!("t{t}|end|{i}")
                }
                13 if junk == 1 && rng.random_range(0..200) == 0 => format!("t{t}|frob(x)|{i}"),
                _ => format!("t{t}|acq(l{})|{i}", x % 3),
            };
            s.push_str(&line);
            s.push('\n');
        }
        s
    }

    /// The file `f` streamed through a named pipe (in `dir`), and then the pipe's prefix of
    /// half its events (all of them after an error), read from the input's copy.
    fn through_a_pipe(
        f: &std::path::Path,
        dir: &std::path::Path,
        kinds: &[Kind],
        budget: usize,
    ) -> (
        Result<Streamed, StreamError>,
        Result<crate::trace::Trace, crate::FileError>,
    ) {
        let fifo = dir.join("pipe.std");
        let _ = std::fs::remove_file(&fifo);
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a path made above, NUL-terminated.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let text = std::fs::read(f).unwrap();
        let fifo2 = fifo.clone();
        // A reader that stops early closes the pipe: the writer gets an error and ends.
        let writer = std::thread::spawn(move || {
            let _ = std::fs::write(&fifo2, text);
        });
        let mut input = Input::open(&fifo).unwrap();
        assert!(input.spool.is_some(), "a pipe is copied");
        let out = stream_on(&mut input, kinds, budget, &Stop::default(), true);
        let n = out.as_ref().map_or(usize::MAX, |s| s.events / 2);
        let prefix = input.prefix(n).map_err(|e| crate::FileError {
            file: f.display().to_string(),
            ..e
        });
        let out = out.map_err(|e| match e {
            StreamError::Input(e) => StreamError::Input(crate::FileError {
                file: f.display().to_string(),
                ..e
            }),
            e => e,
        });
        drop(input);
        writer.join().unwrap();
        (out, prefix)
    }

    /// A copy shorter than what was read from the pipe (a write lost at the first
    /// reader's drop) is an error naming the pipe, not a shorter trace.
    #[test]
    fn a_short_copy_of_a_pipe_is_an_error() {
        let dir = std::env::temp_dir().join(format!("tsoser-short-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let fifo = dir.join("p.std");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a path made above, NUL-terminated.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let writer = {
            let fifo = fifo.clone();
            std::thread::spawn(move || std::fs::write(&fifo, "t|w(x)|1\nu|r(x)|2\n").unwrap())
        };
        let mut input = Input::open(&fifo).unwrap();
        let mut whole = String::new();
        std::io::Read::read_to_string(&mut input.reader().unwrap(), &mut whole).unwrap();
        writer.join().unwrap();
        assert_eq!(
            input.prefix(usize::MAX).unwrap().len(),
            2,
            "the copy reads back"
        );
        input.spool.as_mut().unwrap().copy.set_len(9).unwrap();
        let e = input.prefix(usize::MAX).unwrap_err().to_string();
        assert!(
            e.contains("p.std") && e.contains("holds 9 of the 18 bytes read"),
            "{e}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// The lowering on a thread of its own (batches handed over) and in line give the
    /// same outcomes, counts and errors — on files of several batches, with violations
    /// early and late, input errors, reused names, budgets that stop the pass, and
    /// SOBER turning inexact as threads appear.
    #[test]
    fn the_lowering_thread_changes_nothing() {
        let dir = std::env::temp_dir().join(format!("tsoser-stream-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let all = [Kind::ScSer, Kind::Sober, Kind::Tso, Kind::Pso, Kind::Fenced];
        // How the first passes ended: the test must see every way.
        let mut seen = std::collections::BTreeSet::new();
        for round in 0..40 {
            let n = [10, 3000, 9000, 20000][round % 4];
            let k = [2, 8, 40][round % 3];
            let f = dir.join(format!("{round}.std"));
            let (late, junk) = (round % 2 == 1, [0, 0, 0, 1, 2][round % 5]);
            std::fs::write(&f, text(&mut rng, n, k, late, junk)).unwrap();
            for kinds in [&all[..1], &all[1..2], &all[..]] {
                for budget in [1 << 30, 20_000] {
                    let file = std::fs::File::open(&f).unwrap();
                    seen.insert(
                        match stream_pass(file, kinds, budget, &Stop::default(), None, true, 0) {
                            Ok(Pass::Done(_)) => "done",
                            Ok(Pass::TooBig(_) | Pass::Stopped(_)) => "too big",
                            Ok(Pass::Inexact) => "inexact",
                            Ok(Pass::Ambiguous) => "ambiguous",
                            Err(_) => "error",
                        },
                    );
                    let [a, b] = [true, false].map(|parallel| {
                        let mut input = Input::open(&f).unwrap();
                        stream_on(&mut input, kinds, budget, &Stop::default(), parallel)
                    });
                    assert_eq!(format!("{a:?}"), format!("{b:?}"), "round {round}");
                    if kinds.len() > 1 {
                        let (c, prefix) = through_a_pipe(&f, &dir, kinds, budget);
                        assert_eq!(format!("{a:?}"), format!("{c:?}"), "round {round}, a pipe");
                        let n = a.as_ref().map_or(usize::MAX, |s| s.events / 2);
                        let want = crate::trace::std_format::read_std_prefix(&f, n);
                        assert_eq!(format!("{want:?}"), format!("{prefix:?}"), "round {round}");
                    }
                }
            }
        }
        std::fs::remove_dir_all(&dir).unwrap();
        let want = ["ambiguous", "done", "error", "inexact", "too big"];
        assert_eq!(seen.into_iter().collect::<Vec<_>>(), want);
    }

    /// Lexing threads change nothing either: files of several blocks
    /// ([`crate::trace::split::BLOCK`]), with violations early and late,
    /// input errors, reused names and budgets, streamed and their prefixes read.
    #[test]
    fn the_lexing_threads_change_nothing() {
        let dir = std::env::temp_dir().join(format!("tsoser-lexers-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(34);
        let all = [Kind::ScSer, Kind::Sober, Kind::Tso, Kind::Pso, Kind::Fenced];
        for round in 0..6 {
            let k = [2, 8, 40][round % 3];
            let f = dir.join(format!("{round}.std"));
            let (late, junk) = (round % 2 == 1, [0, 1, 2][round % 3]);
            let text = text(&mut rng, 200_000, k, late, junk);
            assert!(text.len() > 2 * crate::trace::split::BLOCK);
            std::fs::write(&f, text).unwrap();
            for budget in [1 << 30, 20_000] {
                let [a, b, c] = [0, 1, 3].map(|lexers| {
                    let mut input = Input::open(&f).unwrap().with_lexers(lexers);
                    let streamed = stream_on(&mut input, &all, budget, &Stop::default(), true);
                    let n = streamed.as_ref().map_or(70_000, |s| s.events / 2);
                    (format!("{streamed:?}"), format!("{:?}", input.prefix(n)))
                });
                assert_eq!(a, b, "round {round}, one lexer");
                assert_eq!(a, c, "round {round}, three lexers");
            }
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
