//! STD's lowering (the table of [`super`]): lexed lines to tsoser events in thread
//! and variable indices, with no allocation per line — names are interned as they
//! first appear, transaction names kept in reused buffers. The reader ([`super::build`])
//! and the stream (`tsoser monitor FILE.std`) both lower with it; the stream learns
//! where transactions begin from it ([`IdEvent::begins`]), the reader from the open
//! blocks ([`Lowering::block`]).

use super::lex::{lex, Line, StdOp};
use crate::trace::names::{numbered, short};
use crate::trace::{Op, ThreadId, TiVec, VarId};
use crate::Error;
use rustc_hash::FxHashMap;

/// One event in indices: its thread, operation and variable (none for a fence),
/// whether it starts a new transaction of its thread, and whether an `end` closing its
/// block comes next among the events (so it is the last of its transaction unless the
/// thread's next block has the same name: [`crate::monitor::Monitor::end`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IdEvent {
    pub thread: ThreadId,
    pub op: Op,
    pub var: Option<VarId>,
    pub begins: bool,
    pub ends: bool,
}

/// The transaction a thread's events are in: an outermost block's name (given, or
/// the reader's `T.bN`), or none (each event its own).
#[derive(Default)]
struct Thread {
    /// Its index, given at its first event (names on lines without events — a `begin`,
    /// a `req` — get none yet, as in the reader).
    id: Option<ThreadId>,
    /// Block nesting depth, and the open block's name and number (a count of the
    /// thread's outermost blocks).
    depth: usize,
    name: String,
    /// Whether the open block's name was given (`begin(NAME)`), not made up.
    named: bool,
    block: u64,
    /// The open block's name split as `X.N` (X's place in `threads`, N a number written
    /// without leading zeros), when it has that shape. Such names are not hashed: each
    /// X's numbers must come in increasing order (the names `convert` writes do), so a
    /// reuse shows as a number not above the last ([`Thread::last_number`]).
    numbered: Option<(usize, u64)>,
    /// The highest N of the names `X.N` (this thread's name for X) that began a
    /// transaction.
    last_number: Option<u64>,
    /// The transaction of the thread's last event: the block it was in (its number,
    /// name and whether the name was given), or `None` outside a block. Two blocks in a row with the same name are one
    /// transaction, as in the reader; the names are compared once a block.
    current: Option<u64>,
    current_name: String,
    current_named: bool,
}

impl Thread {
    /// Whether the thread's next event begins a transaction, when no block name is
    /// needed to tell: outside a block it does (and the thread's last transaction is
    /// none), in the block of its last event it does not.
    #[inline(always)]
    fn begins_at_once(&mut self) -> Option<bool> {
        if self.depth == 0 {
            self.current = None;
            Some(true)
        } else if self.current == Some(self.block) {
            Some(false)
        } else {
            None
        }
    }
}

/// Names and their indices: names `P` + a number (`x915`; one prefix P, that of the
/// first such name) in a table by number, other short names as integers ([`short`]),
/// long ones as strings.
#[derive(Default)]
pub(super) struct Names {
    /// P, as [`short`] gives it, and its bytes.
    prefix: Option<u128>,
    prefix_text: ([u8; 16], usize),
    /// Per number: the index of P + number (`u32::MAX`: not seen).
    by_number: Vec<u32>,
    numbered: usize,
    short: FxHashMap<u128, u32>,
    long: FxHashMap<Box<str>, u32>,
}

/// The numbers [`Names`]' table holds: below 2^20 (a table of at most 4 MiB).
const NUMBERED: u32 = 1 << 20;

/// `name` as P + N: P as [`short`] gives it (at most 15 bytes) and N, a number of at
/// most 7 digits below [`NUMBERED`] written without leading zeros.
#[inline(always)]
fn split_numbered(name: &str) -> Option<(u128, u32)> {
    let b = name.as_bytes();
    let (mut p, mut number, mut scale) = (b.len(), 0u32, 1u32);
    while p > 0 && b[p - 1].is_ascii_digit() {
        p -= 1;
        number += (b[p] - b'0') as u32 * scale;
        scale = scale.saturating_mul(10);
        if scale > 10_000_000 {
            return None;
        }
    }
    let d = b.len() - p;
    if d == 0 || (d > 1 && b[p] == b'0') || number >= NUMBERED {
        return None;
    }
    // P ends before an ASCII digit: a `str` boundary.
    Some((short(&name[..p])?, number))
}

/// The number of decimal digits of `n`.
fn digits(mut n: u32) -> usize {
    let mut d = 1;
    while n >= 10 {
        n /= 10;
        d += 1;
    }
    d
}

impl Names {
    fn len(&self) -> usize {
        self.numbered + self.short.len() + self.long.len()
    }

    /// N when `name` is P + N, P the known prefix: [`split_numbered`]'s answer when it
    /// has that prefix, found in one forward pass without packing P (`None` sends the
    /// name to [`split_numbered`]).
    #[inline(always)]
    fn known_prefix(&self, name: &[u8]) -> Option<u32> {
        self.prefix?;
        let (text, p) = (&self.prefix_text.0, self.prefix_text.1);
        let digits = name.get(p..)?;
        for i in 0..p {
            if name[i] != text[i] {
                return None;
            }
        }
        // P never ends with a digit, so the digits after it are all of the name's last
        // ones, as `split_numbered` takes them.
        let n = crate::trace::names::decimal(digits, 7)?;
        (n < NUMBERED as u64).then_some(n as u32)
    }

    /// `name`'s slot in the table by number, when it is P + a number.
    #[inline]
    fn numbered_slot(&mut self, name: &str) -> Option<&mut u32> {
        let n = match self.known_prefix(name.as_bytes()) {
            Some(n) => n,
            None => {
                let (prefix, n) = split_numbered(name)?;
                if self.prefix.is_none() {
                    let p = name.len() - digits(n);
                    self.prefix_text.0[..p].copy_from_slice(&name.as_bytes()[..p]);
                    self.prefix_text.1 = p;
                }
                if *self.prefix.get_or_insert(prefix) != prefix {
                    return None;
                }
                n
            }
        };
        let n = n as usize;
        if n >= self.by_number.len() {
            self.by_number.resize((n + 1).next_power_of_two(), u32::MAX);
        }
        Some(&mut self.by_number[n])
    }

    fn get(&self, name: &str) -> Option<usize> {
        if let (Some((prefix, n)), Some(p)) = (split_numbered(name), self.prefix) {
            if prefix == p {
                return self
                    .by_number
                    .get(n as usize)
                    .filter(|&&i| i != u32::MAX)
                    .map(|&i| i as usize);
            }
        }
        match short(name) {
            Some(s) => self.short.get(&s),
            None => self.long.get(name),
        }
        .map(|&i| i as usize)
    }

    /// Every name, by index.
    fn into_vec(self) -> Vec<String> {
        let mut names = vec![String::new(); self.len()];
        // A short name's text: its bytes, as many as its last byte says.
        let text = |s: u128| {
            let b = s.to_le_bytes();
            std::str::from_utf8(&b[..b[15] as usize])
                .expect("a name's own bytes")
                .to_string()
        };
        if let Some(p) = self.prefix {
            for (n, &i) in self.by_number.iter().enumerate() {
                if i != u32::MAX {
                    let mut name = text(p);
                    push_number(&mut name, n as u64);
                    names[i as usize] = name;
                }
            }
        }
        for (s, i) in self.short {
            names[i as usize] = text(s);
        }
        for (s, i) in self.long {
            names[i as usize] = s.into();
        }
        names
    }

    /// `name`'s index, `next` (which the caller gives as the number of names) if new.
    pub(super) fn intern(&mut self, name: &str, next: usize) -> usize {
        if let Some(slot) = self.numbered_slot(name) {
            if *slot != u32::MAX {
                return *slot as usize;
            }
            *slot = next as u32;
            self.numbered += 1;
            return next;
        }
        let i = match short(name) {
            Some(s) => *self.short.entry(s).or_insert(next as u32),
            None => match self.long.get(name) {
                Some(&i) => i,
                None => *self.long.entry(name.into()).or_insert(next as u32),
            },
        };
        i as usize
    }
}

/// Lowers STD lines to [`IdEvent`]s, interning thread and variable names in order of
/// first appearance (the indices of the trace the reader builds).
#[derive(Default)]
pub struct Lowering {
    /// Every thread named, by name: its place in `threads`.
    thread_ids: Names,
    var_ids: Names,
    threads: Vec<Thread>,
    /// The place in `threads` of each thread with an index.
    places: TiVec<ThreadId, u32>,
    blocks: usize,
    scratch: String,
    /// The last thread looked up, if its name is short (lines of one thread often come
    /// in runs).
    last: Option<(u128, usize)>,
    /// Hashes of the given block names that began a transaction, except those of the
    /// shape `X.N` (see [`Thread::numbered`]); whether a block without a name was seen;
    /// whether a given name looks made up (`X.bN`).
    names: rustc_hash::FxHashSet<u64>,
    bare: bool,
    made_up_shape: bool,
    /// Set when the file might break the reader's rules on transaction names (a name
    /// reused or given to two threads, or one that could collide with a made-up `X.bN`
    /// or `@N`): the lowering cannot tell in constant memory, so the caller must read
    /// the file with the reader, which decides (a 64-bit hash collision only sends a
    /// well-formed file down that slower path).
    pub ambiguous: bool,
}

/// An open outermost atomic block, as [`Lowering::block`] gives it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Block<'a> {
    /// Counts the thread's outermost blocks: it tells a block from the next.
    pub number: u64,
    /// `begin(NAME)`'s NAME, or the made-up `T.bN` (N counts the file's outermost
    /// blocks).
    pub name: &'a str,
    /// Whether the name was given.
    pub named: bool,
}

/// Appends `n` in decimal (what `write!` gives, without its formatting machinery).
pub(super) fn push_number(s: &mut String, mut n: u64) {
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    loop {
        i -= 1;
        digits[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    s.push_str(std::str::from_utf8(&digits[i..]).expect("ASCII digits"));
}

/// Whether `name` has the shape of a made-up block name `X.bN`.
fn made_up(name: &str) -> bool {
    name.rsplit_once(".b")
        .is_some_and(|(_, n)| !n.is_empty() && n.bytes().all(|c| c.is_ascii_digit()))
}

impl Lowering {
    /// Threads and variables seen so far.
    pub fn threads(&self) -> usize {
        self.places.len()
    }
    pub fn vars(&self) -> usize {
        self.var_ids.len()
    }

    /// The open outermost block of thread `t`: the transaction of its events, or `None`
    /// (each event a transaction of its own).
    pub fn block(&self, t: ThreadId) -> Option<Block<'_>> {
        let th = &self.threads[self.places[t] as usize];
        (th.depth > 0).then_some(Block {
            number: th.block,
            name: &th.name,
            named: th.named,
        })
    }

    /// The names of the threads and variables seen, by index.
    pub fn into_names(self) -> (TiVec<ThreadId, String>, TiVec<VarId, String>) {
        let mut names = self.thread_ids.into_vec();
        let threads = self
            .places
            .iter()
            .map(|&p| std::mem::take(&mut names[p as usize]))
            .collect();
        (threads, self.var_ids.into_vec().into())
    }

    /// `name`'s place in `threads`; `key` is its [`short`] form when the lexer gave it
    /// ([`Line::key`]; 0: not).
    #[inline(always)]
    fn thread_keyed(&mut self, name: &str, key: u128) -> usize {
        match self.last {
            Some((last, t)) if key != 0 && last == key => t,
            _ => self.thread_general(name, key),
        }
    }

    #[inline(never)]
    fn thread_general(&mut self, name: &str, key: u128) -> usize {
        debug_assert!(key == 0 || Some(key) == short(name), "{name}");
        let short = if key != 0 { Some(key) } else { short(name) };
        if let (Some((n, t)), Some(s)) = (self.last, short) {
            if n == s {
                return t;
            }
        }
        let t = self.thread_ids.intern(name, self.threads.len());
        if t == self.threads.len() {
            self.threads.push(Thread::default());
        }
        self.last = short.map(|s| (s, t));
        t
    }

    fn thread(&mut self, name: &str) -> usize {
        self.thread_keyed(name, 0)
    }

    /// `name`'s index: at once when it is P + N and N is in the table, else interned.
    #[inline(always)]
    fn var(&mut self, name: &str) -> VarId {
        let ids = &self.var_ids;
        if let Some(n) = ids.known_prefix(name.as_bytes()) {
            if let Some(&i) = ids.by_number.get(n as usize).filter(|&&i| i != u32::MAX) {
                return VarId::new(i as usize);
            }
        }
        self.new_var(name)
    }

    #[inline(never)]
    fn new_var(&mut self, name: &str) -> VarId {
        let n = self.var_ids.len();
        VarId::new(self.var_ids.intern(name, n))
    }

    /// The event of thread `t` with `op` on `var`: at once when the thread has its
    /// index and the event is outside a block or in the block of its last event.
    #[inline(always)]
    fn event(&mut self, t: usize, op: Op, var: Option<VarId>, out: &mut Vec<IdEvent>) {
        let th = &mut self.threads[t];
        if let (Some(thread), Some(begins)) = (th.id, th.begins_at_once()) {
            out.push(IdEvent {
                thread,
                op,
                var,
                begins,
                ends: false,
            });
            return;
        }
        self.event_general(t, op, var, out)
    }

    /// [`Self::event`] in general: whether it begins a transaction.
    #[inline(never)]
    fn event_general(&mut self, t: usize, op: Op, var: Option<VarId>, out: &mut Vec<IdEvent>) {
        let th = &mut self.threads[t];
        let id = *th
            .id
            .get_or_insert_with(|| self.places.push_and_get_key(t as u32));
        let begins = if let Some(begins) = th.begins_at_once() {
            begins
        } else {
            // A new block: a new transaction unless the previous event was in a block
            // of the same name.
            // A made-up `T.bN` is not the user's block of that name (bug:
            // streaming_keeps_an_unnamed_block_apart_from_its_made_up_name).
            let same =
                th.current.is_some() && th.current_named == th.named && th.current_name == th.name;
            th.current_named = th.named;
            th.current = Some(th.block);
            th.current_name.clear();
            th.current_name.push_str(&th.name);
            let at = th.name.starts_with('@');
            match (same, th.named, th.numbered) {
                (true, ..) => {}
                (false, true, Some((x, n))) => {
                    let last = &mut self.threads[x].last_number;
                    if last.is_some_and(|l| n <= l) || at {
                        self.ambiguous = true;
                    }
                    *last = Some(n);
                }
                (false, true, None) => {
                    use std::hash::BuildHasher;
                    let h = rustc_hash::FxBuildHasher.hash_one(th.name.as_str());
                    let shape = made_up(&th.name);
                    self.made_up_shape |= shape;
                    if !self.names.insert(h) || at || (shape && self.bare) {
                        self.ambiguous = true;
                    }
                }
                (false, false, _) => {
                    self.bare = true;
                    if self.made_up_shape {
                        self.ambiguous = true;
                    }
                }
            }
            !same
        };
        out.push(IdEvent {
            thread: id,
            op,
            var,
            begins,
            ends: false,
        });
    }

    /// Lexes line `number`, `text`, and appends its events to `out`.
    pub fn lower(
        &mut self,
        number: usize,
        text: &str,
        out: &mut Vec<IdEvent>,
    ) -> Result<(), Error> {
        self.lower_line(&lex(text, number)?, out)
    }

    /// Lowers one lexed line, appending its events to `out`: reads and writes here, the
    /// rest out of line.
    #[inline(always)]
    pub fn lower_line(&mut self, l: &Line<'_>, out: &mut Vec<IdEvent>) -> Result<(), Error> {
        match l.op {
            StdOp::Read(x) => {
                self.access((l.thread, l.key), false, x, out);
                Ok(())
            }
            StdOp::Write(x) => {
                self.access((l.thread, l.key), true, x, out);
                Ok(())
            }
            _ => self.lower_other(l, out),
        }
    }

    /// A read (`write`: a write) of `var` by `thread` (with its key, as
    /// [`Line::key`]), lowered: the stream's lines `T|r(X)|LOC` and `T|w(X)|LOC` come
    /// here from the scanner without a [`Line`] ([`super::lex::OnLine::access`]).
    #[inline(always)]
    pub fn access(
        &mut self,
        (thread, key): (&str, u128),
        write: bool,
        var: &str,
        out: &mut Vec<IdEvent>,
    ) {
        let t = self.thread_keyed(thread, key);
        let x = self.var(var);
        self.event(t, if write { Op::Wr } else { Op::Rd }, Some(x), out);
    }

    /// [`Self::lower_line`] of the other lines.
    #[inline(never)]
    fn lower_other(&mut self, l: &Line<'_>, out: &mut Vec<IdEvent>) -> Result<(), Error> {
        let (line, thread, op, key) = (l.number, l.thread, l.op, l.key);
        let t = self.thread_keyed(thread, key);
        match op {
            StdOp::Read(x) => {
                let x = self.var(x);
                self.event(t, Op::Rd, Some(x), out)
            }
            StdOp::Write(x) => {
                let x = self.var(x);
                self.event(t, Op::Wr, Some(x), out)
            }
            StdOp::Acquire(l) | StdOp::Release(l) => {
                // `fence:T` of its own thread T (compared as integers when short: no
                // `memcmp` call).
                let key = if key != 0 { Some(key) } else { short(thread) };
                let own = match (l.strip_prefix("fence:"), key) {
                    (Some(u), Some(t)) => short(u) == Some(t),
                    (u, _) => u == Some(thread),
                };
                if own {
                    self.event(t, Op::Fence, None, out)
                } else {
                    let x = self.var(l);
                    self.event(t, Op::Rmw, Some(x), out)
                }
            }
            StdOp::Request(_) => {}
            StdOp::Fork(u) | StdOp::Join(u) => {
                if u == thread {
                    return Err(Error::Format {
                        line,
                        message: format!("thread {thread} cannot fork or join itself"),
                    });
                }
                let fork = matches!(op, StdOp::Fork(_));
                // The other thread's block depth, without making it a thread yet (the
                // reader interns it when its event is pushed).
                let inside = self
                    .thread_ids
                    .get(u)
                    .is_some_and(|v| self.threads[v].depth > 0);
                if inside {
                    return Err(Error::Format {
                        line,
                        message: format!(
                            "thread {u} is inside an atomic block when forked or joined"
                        ),
                    });
                }
                let mut name = std::mem::take(&mut self.scratch);
                name.clear();
                name.push_str(if fork { "fork:" } else { "join:" });
                name.push_str(u);
                let x = self.var(&name);
                self.scratch = name;
                if fork {
                    self.event(t, Op::Rmw, Some(x), out);
                    let v = self.thread(u);
                    self.event(v, Op::Rmw, Some(x), out);
                } else {
                    let v = self.thread(u);
                    self.event(v, Op::Rmw, Some(x), out);
                    self.event(t, Op::Rmw, Some(x), out);
                }
            }
            StdOp::Begin(name) => {
                let outermost = self.threads[t].depth == 0;
                // A name `X.N` of another thread's X makes X a thread entry (without an
                // index) to keep X's numbers.
                let own = |x: &str| match (key, short(x)) {
                    (1.., Some(x)) => x == key,
                    _ => x == thread,
                };
                let numbered = match name.and_then(numbered).filter(|_| outermost) {
                    Some((x, n)) if own(x) => Some((t, n)),
                    Some((x, n)) => Some((self.thread(x), n)),
                    None => None,
                };
                let th = &mut self.threads[t];
                if outermost {
                    self.blocks += 1;
                    th.block += 1;
                    th.named = name.is_some();
                    th.numbered = numbered;
                    th.name.clear();
                    match name {
                        Some(n) => th.name.push_str(n),
                        None => {
                            th.name.push_str(thread);
                            th.name.push_str(".b");
                            push_number(&mut th.name, self.blocks as u64);
                        }
                    }
                }
                th.depth += 1;
            }
            StdOp::End => {
                let th = &mut self.threads[t];
                if th.depth == 0 {
                    return Err(Error::Format {
                        line,
                        message: format!("`end` of thread {thread} without a `begin`"),
                    });
                }
                th.depth -= 1;
                // The block's last event, when it is the last one lowered (a batch
                // handed on, or another thread's event since, leaves it unmarked).
                if th.depth == 0 && th.current == Some(th.block) {
                    if let Some(e) = out.last_mut().filter(|e| Some(e.thread) == th.id) {
                        e.ends = true;
                    }
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Names get the indices a map of their text gives them, whether they go to the
    /// table by number, to the integers or to the strings; `get` finds them again and
    /// `into_vec` gives them back whole: numbered names of the first prefix and of
    /// others, leading zeros, numbers too long for the table, digits alone, long names.
    #[test]
    fn names_are_their_text() {
        use rand::{Rng, SeedableRng};
        let stems = ["x", "y", "", "t0.", "a_long_prefix_of_many_bytes_"];
        let tails = [
            "0", "00", "7", "07", "12", "999999", "1048575", "1048576", "12345678", "x",
        ];
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(25);
        for _ in 0..200 {
            let mut names = Names::default();
            let mut want: std::collections::HashMap<String, usize> = Default::default();
            for _ in 0..rng.random_range(1..60) {
                let name = format!(
                    "{}{}",
                    stems[rng.random_range(0..stems.len())],
                    tails[rng.random_range(0..tails.len())]
                );
                let next = want.len();
                let i = *want.entry(name.clone()).or_insert(next);
                assert_eq!(names.intern(&name, next), i, "{name}");
                assert_eq!(names.get(&name), Some(i), "{name}");
                assert_eq!(names.len(), want.len());
            }
            assert_eq!(names.get("never"), None);
            let back = names.into_vec();
            for (name, i) in want {
                assert_eq!(back[i], name);
            }
        }
    }

    #[test]
    fn numbers_are_written_as_write_writes_them() {
        for n in [0, 1, 9, 10, 99, 100, 12345, u64::MAX] {
            let mut s = String::from("t.b");
            push_number(&mut s, n);
            assert_eq!(s, format!("t.b{n}"));
        }
    }
}
