//! Traces (docs/semantics.md §1): events in issue order, with the static facts every
//! checker needs (buffered reads, commit windows).

pub mod conflict;
pub mod exec;
pub mod gen;
pub(crate) mod model;
pub(crate) mod names;
pub mod split;
pub mod std_format;
#[cfg(feature = "proptest")]
pub mod strategy;
mod values;
pub mod yaml;

use std::fmt;
pub use typed_index_collections::{TiSlice, TiVec};
pub use values::{Val, Values};

/// Index of an event in its trace (issue order).
pub type EventId = usize;

/// Declares a dense index type: a `u32` (half an event's ids, at 10⁸ events) the
/// compiler tells apart from other indices, stored plus one so that `Option` of it
/// takes no more room (an event's variable and value). A trace has fewer than
/// 2³² − 1 threads, transactions, variables and values: it would not fit in memory
/// otherwise.
macro_rules! dense_id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(std::num::NonZeroU32);

        impl $name {
            /// The id of index `i`.
            pub const fn new(i: usize) -> $name {
                assert!(i < u32::MAX as usize, "fewer than 2^32 - 1 ids");
                match std::num::NonZeroU32::new(i as u32 + 1) {
                    Some(n) => $name(n),
                    None => unreachable!(),
                }
            }

            /// The index, for a vector kept per id.
            pub const fn index(self) -> usize {
                self.0.get() as usize - 1
            }
        }

        impl Default for $name {
            fn default() -> $name {
                $name::new(0)
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_u32(self.index() as u32)
            }
        }

        impl From<usize> for $name {
            fn from(i: usize) -> $name {
                $name::new(i)
            }
        }

        impl From<$name> for usize {
            fn from(id: $name) -> usize {
                id.index()
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.index().fmt(f)
            }
        }
    };
}

dense_id!(
    /// Dense thread index; names are in [`Trace::threads`].
    ThreadId
);
dense_id!(
    /// Dense transaction index; names are in [`Trace::txns`].
    TxnId
);
dense_id!(
    /// Dense variable index; names are in [`Trace::vars`].
    VarId
);
dense_id!(
    /// Index of an event's value in [`Trace::values`].
    ValId
);

/// The operation of a trace event.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Op {
    /// `rd x`: load.
    Rd,
    /// `wr x`: store, issued into the thread's buffer.
    Wr,
    /// `fence`: MFENCE, waits for the buffer to drain.
    Fence,
    /// `rmw x`: locked read-modify-write: drains the buffer, then reads and writes memory at once.
    Rmw,
}

impl Op {
    /// The spelling used in trace files.
    pub fn name(self) -> &'static str {
        match self {
            Op::Rd => "rd",
            Op::Wr => "wr",
            Op::Fence => "fence",
            Op::Rmw => "rmw",
        }
    }

    /// Whether the op names a variable.
    pub fn has_var(self) -> bool {
        self != Op::Fence
    }

    /// Fence and rmw wait for the thread's buffer to be empty (docs/semantics.md §2 rule 3).
    pub fn drains(self) -> bool {
        matches!(self, Op::Fence | Op::Rmw)
    }
}

impl fmt::Display for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One event of a trace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Event {
    pub thread: ThreadId,
    pub txn: TxnId,
    pub op: Op,
    /// `None` exactly for fences.
    pub var: Option<VarId>,
    /// The value, if the input gave one ([`Trace::val`] gives its text); ignored by
    /// the checkers.
    pub val: Option<ValId>,
    /// 1-based line in the source file (0 when the trace was built in memory; a line
    /// past 2³² − 1 is shown as that).
    pub line: u32,
}

/// An event is 24 bytes: a 10⁸-event trace holds 2.4 GB of them.
const _: () = assert!(std::mem::size_of::<Event>() == 24);

/// A source line as an event keeps it (saturating at `u32::MAX`).
pub fn line_u32(line: usize) -> u32 {
    u32::try_from(line).unwrap_or(u32::MAX)
}

/// A transaction: a name and the thread that runs it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Txn {
    /// The name as written, or for an anonymous transaction the name it is shown by
    /// (`@i`, `i` its first event; `T.bN` for STD's N-th unnamed block of thread T).
    /// Names of up to 24 bytes are held inline: no allocation per transaction.
    pub name: compact_str::CompactString,
    pub thread: ThreadId,
    /// Made by the reader (an event given without `txn`, an unnamed STD block): never
    /// the same transaction as a named one, whatever its shown name (bug:
    /// a_made_up_transaction_name_never_merges_with_the_users).
    pub anonymous: bool,
}

/// Per (thread, variable), the latest write still pending ([`NO_FACT`]: none): a table
/// of k·m entries when that is at most one an event (a look-up then reads one entry,
/// where hashing took 5% of reading a 10⁷-event trace), else a hash map.
enum Latest {
    Table { m: usize, at: Vec<Facts> },
    Map(rustc_hash::FxHashMap<(ThreadId, VarId), Facts>),
}

impl Latest {
    fn new(k: usize, m: usize, n: usize) -> Latest {
        match k.checked_mul(m) {
            Some(km) if km <= n.max(1 << 16) => Latest::Table {
                m,
                at: vec![NO_FACT; km],
            },
            _ => Latest::Map(Default::default()),
        }
    }

    /// Sets the write of (t, x); true if it had none.
    fn insert(&mut self, t: ThreadId, x: VarId, w: Facts) -> bool {
        match self {
            Latest::Table { m, at } => {
                std::mem::replace(&mut at[t.index() * *m + x.index()], w) == NO_FACT
            }
            Latest::Map(map) => map.insert((t, x), w).is_none(),
        }
    }

    fn get(&self, t: ThreadId, x: VarId) -> Facts {
        match self {
            Latest::Table { m, at } => at[t.index() * m + x.index()],
            Latest::Map(map) => map.get(&(t, x)).copied().unwrap_or(NO_FACT),
        }
    }

    fn remove(&mut self, t: ThreadId, x: VarId) {
        match self {
            Latest::Table { m, at } => at[t.index() * *m + x.index()] = NO_FACT,
            Latest::Map(map) => {
                map.remove(&(t, x));
            }
        }
    }
}

/// The name an anonymous transaction is shown by, `@i` with `i` its first event
/// (every reader's; made in place, without `format!` or an allocation).
pub(crate) fn shown_at(first: usize) -> compact_str::CompactString {
    use compact_str::ToCompactString;
    let mut name = (first as u64).to_compact_string();
    name.insert(0, '@');
    name
}

/// A well-formed trace with its static facts.
#[derive(Clone, Debug)]
pub struct Trace {
    pub name: Option<String>,
    pub events: Vec<Event>,
    pub threads: TiVec<ThreadId, String>,
    pub txns: TiVec<TxnId, Txn>,
    pub vars: TiVec<VarId, String>,
    /// The events' values.
    pub values: Values,
    facts: Vec<Facts>,
}

/// Static facts of events, one word each, computed once: for a read, the write that
/// makes it *buffered* (docs/semantics.md §1: the latest earlier `wr` of the same
/// thread and variable with no fence/rmw of the thread between; [`NO_FACT`]: none);
/// for a write, the trace position before which its commit must happen (the
/// thread's next fence/rmw, or the trace length).
type Facts = u32;

/// A read that no write makes buffered; the word of fences and rmws.
const NO_FACT: Facts = Facts::MAX;

/// The most events a trace holds (2³¹ − 1): event ids and the trace length fit a
/// static facts' `u32` word below its "none", and an execution's steps and the checks' times
/// (twice an event id, plus two) fit a `u32`.
pub const MAX_EVENTS: usize = (1 << 31) - 1;

impl Trace {
    /// Builds a trace from parts, checking well-formedness (docs/semantics.md §1).
    pub fn new(
        name: Option<String>,
        events: Vec<Event>,
        threads: impl Into<TiVec<ThreadId, String>>,
        txns: impl Into<TiVec<TxnId, Txn>>,
        vars: impl Into<TiVec<VarId, String>>,
        values: Values,
    ) -> Result<Trace, crate::Error> {
        if events.len() > MAX_EVENTS {
            return Err(crate::Error::Malformed {
                event: MAX_EVENTS,
                line: events[MAX_EVENTS].line as usize,
                message: format!("a trace holds at most {MAX_EVENTS} events"),
            });
        }
        let trace = Trace {
            name,
            events,
            threads: threads.into(),
            txns: txns.into(),
            vars: vars.into(),
            values,
            facts: Vec::new(),
        };
        trace.check_well_formed()?;
        Ok(trace.with_facts())
    }

    fn check_well_formed(&self) -> Result<(), crate::Error> {
        let bad = |i: usize, msg: String| crate::Error::Malformed {
            event: i,
            line: self.events[i].line as usize,
            message: msg,
        };
        let mut current: TiVec<ThreadId, Option<TxnId>> = vec![None; self.threads.len()].into();
        let mut seen: TiVec<TxnId, bool> = vec![false; self.txns.len()].into();
        for (i, e) in self.events.iter().enumerate() {
            if self.threads.get(e.thread).is_none() || self.txns.get(e.txn).is_none() {
                return Err(bad(i, "thread or transaction index out of range".into()));
            }
            if e.op.has_var() != e.var.is_some()
                || e.var.is_some_and(|v| self.vars.get(v).is_none())
            {
                return Err(bad(
                    i,
                    format!(
                        "`{}` needs {} variable",
                        e.op,
                        if e.op.has_var() { "a" } else { "no" }
                    ),
                ));
            }
            let owner = self.txns[e.txn].thread;
            if owner != e.thread {
                return Err(bad(
                    i,
                    format!(
                        "transaction `{}` belongs to thread `{}` but this event is on thread `{}`",
                        self.txns[e.txn].name, self.threads[owner], self.threads[e.thread]
                    ),
                ));
            }
            if current[e.thread] != Some(e.txn) {
                if seen[e.txn] {
                    return Err(bad(
                        i,
                        format!(
                            "transaction `{}` resumes after transaction `{}` of thread `{}`: a transaction's events must be contiguous in its thread and its id never reused",
                            self.txns[e.txn].name,
                            current[e.thread].map_or("?", |t| self.txns[t].name.as_str()),
                            self.threads[e.thread]
                        ),
                    ));
                }
                seen[e.txn] = true;
                current[e.thread] = Some(e.txn);
            }
        }
        Ok(())
    }

    fn with_facts(mut self) -> Trace {
        let n = self.events.len();
        let mut facts: Vec<Facts> = vec![NO_FACT; n];
        // Forward pass: the pending (uncommitted-at-worst) latest write per (thread, var),
        // and per thread the variables it holds one of (each once: a thread that never
        // drains keeps at most one entry a variable, not one a write).
        let mut latest = Latest::new(self.threads.len(), self.vars.len(), n);
        let mut since_drain: TiVec<ThreadId, Vec<VarId>> =
            vec![Vec::new(); self.threads.len()].into();
        for (i, e) in self.events.iter().enumerate() {
            match e.op {
                Op::Wr => {
                    let v = e.var.unwrap();
                    if latest.insert(e.thread, v, i as Facts) {
                        since_drain[e.thread].push(v);
                    }
                }
                Op::Rd => facts[i] = latest.get(e.thread, e.var.unwrap()),
                Op::Fence | Op::Rmw => {
                    for v in since_drain[e.thread].drain(..) {
                        latest.remove(e.thread, v);
                    }
                }
            }
        }
        // Backward pass: the next draining event of each thread.
        let mut next_drain: TiVec<ThreadId, Facts> = vec![n as Facts; self.threads.len()].into();
        for (i, e) in self.events.iter().enumerate().rev() {
            if e.op.drains() {
                next_drain[e.thread] = i as Facts;
            } else if e.op == Op::Wr {
                facts[i] = next_drain[e.thread];
            }
        }
        self.facts = facts;
        self
    }

    pub fn len(&self) -> usize {
        self.events.len()
    }

    pub fn is_empty(&self) -> bool {
        self.events.is_empty()
    }

    /// For a read, the write it may read from the buffer (docs/semantics.md §1), if any.
    pub fn buffered_by(&self, e: EventId) -> Option<EventId> {
        let f = self.facts[e];
        (f != NO_FACT && self.events[e].op == Op::Rd).then_some(f as EventId)
    }

    /// Whether event `e` is a buffered read (paper §4.1).
    pub fn is_buffered(&self, e: EventId) -> bool {
        self.buffered_by(e).is_some()
    }

    /// For a write, the position of the fence/rmw its commit must precede (or the trace length).
    /// Its commit lies in one of the gaps `e+1 ..= commit_bound(e)`, gap `g` being
    /// between events `g-1` and `g`.
    pub fn commit_bound(&self, e: EventId) -> EventId {
        match self.events[e].op {
            Op::Wr => self.facts[e] as EventId,
            _ => 0,
        }
    }

    /// Writes (store issues) in trace order; each has one commit.
    pub fn writes(&self) -> impl Iterator<Item = EventId> + '_ {
        self.events
            .iter()
            .enumerate()
            .filter(|(_, e)| e.op == Op::Wr)
            .map(|(i, _)| i)
    }

    /// The value of event `e`, if it has one.
    pub fn val(&self, e: EventId) -> Option<Val<'_>> {
        self.events[e].val.map(|v| self.values.get(v))
    }

    /// The thread's name of event `e`.
    pub fn thread_name(&self, e: EventId) -> &str {
        &self.threads[self.events[e].thread]
    }

    /// The transaction's name of event `e`.
    pub fn txn_name(&self, e: EventId) -> &str {
        &self.txns[self.events[e].txn].name
    }

    /// The compact spelling of event `e`: `thread txn op [var]`.
    pub fn describe(&self, e: EventId) -> String {
        let ev = &self.events[e];
        let mut s = format!(
            "{} {} {}",
            self.threads[ev.thread], self.txns[ev.txn].name, ev.op
        );
        if let Some(v) = ev.var {
            s.push(' ');
            s.push_str(&self.vars[v]);
        }
        s
    }

    /// One `init` per thread, indexed by [`ThreadId`].
    pub fn per_thread<T: Clone>(&self, init: T) -> TiVec<ThreadId, T> {
        vec![init; self.threads.len()].into()
    }

    /// One `init` per transaction, indexed by [`TxnId`].
    pub fn per_txn<T: Clone>(&self, init: T) -> TiVec<TxnId, T> {
        vec![init; self.txns.len()].into()
    }

    /// One `init` per variable, indexed by [`VarId`].
    pub fn per_var<T: Clone>(&self, init: T) -> TiVec<VarId, T> {
        vec![init; self.vars.len()].into()
    }

    /// Number of distinct threads that have events.
    pub fn thread_count(&self) -> usize {
        self.threads.len()
    }

    /// The transaction names a YAML writer gives: `None` for an anonymous transaction
    /// of one event (written without `txn`, it reads back as one), the name of a named
    /// one, and for an anonymous one of several events (an unnamed STD block) its shown
    /// name, made unique among the trace's names by a `'` suffix.
    pub fn written_txn_names(&self) -> TiVec<TxnId, Option<compact_str::CompactString>> {
        let mut size = self.per_txn(0usize);
        for e in &self.events {
            size[e.txn] += 1;
        }
        // The names taken, gathered only when an anonymous block needs one (most traces
        // have none: no set of every name on each write).
        let mut taken: Option<rustc_hash::FxHashSet<compact_str::CompactString>> = None;
        let mut out: TiVec<TxnId, Option<compact_str::CompactString>> = self.per_txn(None);
        for (x, t) in self.txns.iter_enumerated() {
            out[x] = match (t.anonymous, size[x]) {
                (false, _) => Some(t.name.clone()),
                (true, 0 | 1) => None,
                (true, _) => {
                    let taken = taken.get_or_insert_with(|| {
                        self.txns
                            .iter()
                            .filter(|t| !t.anonymous)
                            .map(|t| t.name.clone())
                            .collect()
                    });
                    let mut name = t.name.clone();
                    while taken.contains(&name) {
                        name.push('\'');
                    }
                    taken.insert(name.clone());
                    Some(name)
                }
            };
        }
        out
    }

    /// Whether every transaction ends with a fence or rmw (Enea & Farzan §4.2, footnote 3).
    pub fn is_transaction_fenced(&self) -> bool {
        let mut last: TiVec<TxnId, Option<Op>> = vec![None; self.txns.len()].into();
        for e in &self.events {
            last[e.txn] = Some(e.op);
        }
        last.iter().all(|op| op.is_none_or(Op::drains))
    }
}

/// Incremental builder that interns names; used by the parser, generators and tests.
#[derive(Default, Debug)]
pub struct TraceBuilder {
    name: Option<String>,
    events: Vec<Event>,
    threads: TiVec<ThreadId, String>,
    txns: TiVec<TxnId, Txn>,
    vars: TiVec<VarId, String>,
    values: Values,
    // Fx: names are hashed once per event (a trace file is not an adversary of the
    // hash table's worst case; SipHash was 8 % of reading a 10⁶-event run).
    thread_ix: rustc_hash::FxHashMap<String, ThreadId>,
    /// Names of up to 24 bytes held inline: no allocation per transaction.
    txn_ix: rustc_hash::FxHashMap<compact_str::CompactString, TxnId>,
    var_ix: rustc_hash::FxHashMap<String, VarId>,
    /// Per thread, the named transaction its last lookup gave, with its name as an
    /// integer when short ([`names::short`]): a thread's events mostly come in runs of
    /// one transaction, whose name is then compared, not hashed (at 10⁸ events the
    /// table of 1.25·10⁷ names is a cache miss per lookup).
    recent: Vec<Option<(TxnId, Option<u128>)>>,
    /// For each prefix X, the highest N of the names `X.N` ([`names::numbered`]) that
    /// began a transaction: while each X's numbers only grow, such a name is new
    /// exactly when its number is above X's highest, and it is kept out of `txn_ix`
    /// (a table entry a transaction was a third of reading a 10⁷-event file).
    numbered: rustc_hash::FxHashMap<String, u64>,
    /// Set once a name `X.N` came whose number was not above X's highest: from then on
    /// every named transaction is in `txn_ix`.
    all_in_table: bool,
}

impl TraceBuilder {
    pub fn new() -> TraceBuilder {
        TraceBuilder::default()
    }

    pub fn name(mut self, name: impl Into<String>) -> TraceBuilder {
        self.name = Some(name.into());
        self
    }

    pub fn set_name(&mut self, name: Option<String>) {
        self.name = name;
    }

    /// Interns a thread name.
    pub fn thread(&mut self, name: &str) -> ThreadId {
        intern(&mut self.thread_ix, &mut self.threads, name)
    }

    /// Interns a variable name.
    pub fn var(&mut self, name: &str) -> VarId {
        intern(&mut self.var_ix, &mut self.vars, name)
    }

    /// Interns a transaction name; its thread is the thread of its first event.
    pub fn txn(&mut self, name: &str, thread: ThreadId) -> TxnId {
        let th = thread.index();
        let short = names::short(name);
        if let Some(&Some((t, k))) = self.recent.get(th) {
            if k == short && (short.is_some() || self.txns[t].name == name) {
                return t;
            }
        }
        if self.recent.len() <= th {
            self.recent.resize(th + 1, None);
        }
        let t = self.txn_looked_up(name, thread);
        self.recent[th] = Some((t, short));
        t
    }

    /// [`TraceBuilder::txn`] past the thread's recent transaction.
    fn txn_looked_up(&mut self, name: &str, thread: ThreadId) -> TxnId {
        if !self.all_in_table {
            if let Some((x, n)) = names::numbered(name) {
                match self.numbered.get_mut(x) {
                    Some(last) if n <= *last => {
                        // Perhaps a name seen before: every name to the table.
                        for (i, t) in self.txns.iter().enumerate() {
                            if !t.anonymous && names::numbered(&t.name).is_some() {
                                self.txn_ix.insert(t.name.clone(), TxnId::new(i));
                            }
                        }
                        self.all_in_table = true;
                    }
                    Some(last) => {
                        *last = n;
                        return self.new_txn(name, thread);
                    }
                    None => {
                        self.numbered.insert(x.to_string(), n);
                        return self.new_txn(name, thread);
                    }
                }
            }
        }
        if let Some(&t) = self.txn_ix.get(name) {
            return t;
        }
        let t = self.new_txn(name, thread);
        self.txn_ix.insert(name.into(), t);
        t
    }

    fn new_txn(&mut self, name: &str, thread: ThreadId) -> TxnId {
        self.txns.push_and_get_key(Txn {
            name: name.into(),
            thread,
            anonymous: false,
        })
    }

    /// Room for `n` more events, so a reader that knows its count grows the event
    /// list once (doubling would briefly hold it twice over).
    pub fn reserve(&mut self, n: usize) {
        self.events.reserve_exact(n);
    }

    /// A new anonymous transaction shown as `shown`: it is distinct from every named
    /// one, even one of the same name.
    pub fn anonymous_txn(&mut self, thread: ThreadId, shown: String) -> TxnId {
        self.anonymous_shown(thread, shown.into())
    }

    fn anonymous_shown(&mut self, thread: ThreadId, name: compact_str::CompactString) -> TxnId {
        self.txns.push_and_get_key(Txn {
            name,
            thread,
            anonymous: true,
        })
    }

    /// A new anonymous transaction for an event given without one, shown as `@i`.
    pub fn fresh_txn(&mut self, thread: ThreadId) -> TxnId {
        self.anonymous_shown(thread, shown_at(self.events.len()))
    }

    /// Appends an event to a transaction already made (by [`TraceBuilder::txn`] or
    /// [`TraceBuilder::anonymous_txn`]).
    pub fn push_in(
        &mut self,
        txn: TxnId,
        op: Op,
        var: Option<&str>,
        val: Option<&str>,
        line: usize,
    ) {
        let thread = self.txns[txn].thread;
        self.push_event(thread, txn, op, var, val, line);
    }

    fn push_event(
        &mut self,
        thread: ThreadId,
        txn: TxnId,
        op: Op,
        var: Option<&str>,
        val: Option<&str>,
        line: usize,
    ) {
        let var = var.map(|v| self.var(v));
        let val = val.map(|v| self.values.push(v));
        self.events.push(Event {
            thread,
            txn,
            op,
            var,
            val,
            line: line_u32(line),
        });
    }

    /// Appends an event by names (`txn: None` makes it a transaction of its own).
    pub fn push(
        &mut self,
        thread: &str,
        txn: Option<&str>,
        op: Op,
        var: Option<&str>,
    ) -> &mut Self {
        self.push_at(thread, txn, op, var, None, 0);
        self
    }

    /// Appends an event with its value and source line.
    pub fn push_at(
        &mut self,
        thread: &str,
        txn: Option<&str>,
        op: Op,
        var: Option<&str>,
        val: Option<&str>,
        line: usize,
    ) {
        let th = self.thread(thread);
        let tx = match txn {
            Some(name) => self.txn(name, th),
            None => self.fresh_txn(th),
        };
        self.push_event(th, tx, op, var, val, line);
    }

    pub fn len(&self) -> usize {
        self.events.len()
    }

    pub fn is_empty(&self) -> bool {
        self.events.is_empty()
    }

    pub fn build(self) -> Result<Trace, crate::Error> {
        let mut values = self.values;
        values.shrink_to_fit();
        let mut events = self.events;
        // A reader that does not know the count grows the list by doubling.
        events.shrink_to_fit();
        Trace::new(
            self.name,
            events,
            self.threads,
            self.txns,
            self.vars,
            values,
        )
    }
}

fn intern<K: Copy + From<usize>>(
    ix: &mut rustc_hash::FxHashMap<String, K>,
    names: &mut TiVec<K, String>,
    name: &str,
) -> K {
    if let Some(&i) = ix.get(name) {
        return i;
    }
    let i = names.push_and_get_key(name.to_string());
    ix.insert(name.to_string(), i);
    i
}

/// Whether a trace file is RAPID's STD (a `.std` file) rather than YAML.
pub fn is_std_file(path: &std::path::Path) -> bool {
    path.extension().is_some_and(|e| e == "std")
}

/// Reads a trace file: RAPID's STD for a `.std` file, YAML otherwise; `-` is standard
/// input ([`read_stdin`]).
pub fn read_file(path: &std::path::Path) -> Result<Trace, crate::FileError> {
    read_file_on(path, 0)
}

/// [`read_file`] with the lines lexed on `lexers` threads ([`split`]; 0: none;
/// [`split::lexers`] is the cores left): an STD file, or a YAML file in the layout
/// tsoser writes.
pub fn read_file_on(path: &std::path::Path, lexers: usize) -> Result<Trace, crate::FileError> {
    if path == std::path::Path::new("-") {
        read_stdin_on(lexers)
    } else if is_std_file(path) {
        std_format::read_std_on(path, lexers)
    } else {
        yaml::read_trace_on(path, lexers)
    }
}

/// Whether a text is RAPID's STD rather than YAML: its first line that is neither
/// blank nor a `#` comment has the STD shape `thread|op(arg)…` (a YAML trace's first
/// line is `events:`, `name:`, a `-` item or a bracket).
pub fn looks_like_std(text: &str) -> bool {
    let Some(line) = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with('#'))
    else {
        return false;
    };
    let Some((thread, rest)) = line.split_once('|') else {
        return false;
    };
    let thread = thread.trim();
    let op = rest.trim_start();
    let name_len = op.bytes().take_while(u8::is_ascii_alphabetic).count();
    let after = op[name_len..].trim_start();
    !thread.is_empty()
        && !thread.contains(|c: char| c.is_whitespace() || c == ':')
        && !line.starts_with(['-', '[', '{'])
        && name_len > 0
        && (after.is_empty() || after.starts_with(['(', '|']))
}

/// The trace in a text, STD or YAML as [`looks_like_std`] tells.
pub fn parse_text(text: &str) -> Result<Trace, crate::Error> {
    if looks_like_std(text) {
        std_format::build(text.as_bytes())
    } else {
        yaml::parse_trace(text)
    }
}

/// Reads a trace from standard input (named `-` in errors), STD or YAML as
/// [`looks_like_std`] tells its first line.
pub fn read_stdin() -> Result<Trace, crate::FileError> {
    read_stdin_on(0)
}

/// [`read_stdin`] with the lines lexed on `lexers` threads, as [`read_file_on`]: STD is
/// read as it comes, never held whole, as a `.std` file is (the same trace and the
/// same errors); YAML is read whole, then parsed as [`yaml::parse_trace`] does.
pub fn read_stdin_on(lexers: usize) -> Result<Trace, crate::FileError> {
    read_input_on(std::io::stdin(), lexers).map_err(|error| crate::FileError {
        file: "-".into(),
        error,
    })
}

/// The trace of `input`, STD or YAML as [`looks_like_std`] tells from its first line
/// that is neither blank nor a comment (read before anything is decided), the lines
/// lexed on `lexers` threads ([`read_stdin_on`]).
pub fn read_input_on<R: std::io::Read + Send>(
    mut input: R,
    lexers: usize,
) -> Result<Trace, crate::Error> {
    use std::io::Read;
    let mut head = Vec::new();
    let mut chunk = vec![0u8; 1 << 16];
    // How far `head` has been searched for its first meaningful line.
    let mut searched = 0;
    let std = loop {
        let n = loop {
            match input.read(&mut chunk) {
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                r => break r.map_err(crate::Error::Io)?,
            }
        };
        head.extend_from_slice(&chunk[..n]);
        match first_line(&head, &mut searched, n == 0) {
            Some(line) => break std::str::from_utf8(line).is_ok_and(looks_like_std),
            None if n == 0 => break false,
            None => {}
        }
    };
    if std {
        return std_format::build_on(std::io::Cursor::new(head).chain(input), lexers);
    }
    input.read_to_end(&mut head).map_err(crate::Error::Io)?;
    yaml::parse_trace_on(&crate::text::utf8(head)?, lexers)
}

/// The first line of `head` that is neither blank nor a `#` comment, once it is whole
/// (ended by `\n`, or by the end of the input when `end`); `searched`: where the lines
/// not yet looked at begin.
fn first_line<'a>(head: &'a [u8], searched: &mut usize, end: bool) -> Option<&'a [u8]> {
    loop {
        let rest = &head[*searched..];
        let (line, whole) = match memchr::memchr(b'\n', rest) {
            Some(i) => (&rest[..i], i + 1),
            None if end && !rest.is_empty() => (rest, rest.len()),
            None => return None,
        };
        // Skipped as `looks_like_std` skips it (a line that is not UTF-8 is not).
        let skipped = std::str::from_utf8(line).is_ok_and(|l| {
            let l = l.trim();
            l.is_empty() || l.starts_with('#')
        });
        if !skipped {
            return Some(line);
        }
        *searched += whole;
    }
}

/// Builds a trace from compact lines `thread txn op [var]` (test and doc helper).
/// Panics on malformed input; use [`yaml`] for files.
pub fn compact(lines: &[&str]) -> Trace {
    let mut b = TraceBuilder::new();
    for l in lines {
        let item = yaml::parse_compact(l).unwrap_or_else(|e| panic!("{l}: {e}"));
        let op = match item.op {
            yaml::RawOp::Trace(op) => op,
            yaml::RawOp::Commit => panic!("{l}: commit in a trace"),
        };
        b.push(&item.thread, item.txn.as_deref(), op, item.var.as_deref());
    }
    b.build().expect("well-formed")
}

#[cfg(test)]
mod sniff_tests {
    use super::looks_like_std;

    #[test]
    fn std_and_yaml_texts_are_told_apart() {
        for std in [
            "T0|r(x)|1\n",
            "# a comment\n\nT1|begin|3\nT1|w(V12)|4\n",
            "main|fork(t1)|Foo.java:12\n",
            "T0|end\n",
        ] {
            assert!(looks_like_std(std), "{std:?}");
        }
        for yaml in [
            "events:\n  - \"t0 T0.1 rd x\"\n",
            "name: a|b\nevents: []\n",
            "- t0 T0.1 wr x|y\n",
            "events: [\"t0|r(x)\"]\n",
            "",
            "# nothing\n",
        ] {
            assert!(!looks_like_std(yaml), "{yaml:?}");
        }
    }
}

#[cfg(test)]
mod latest_tests {
    use super::{Latest, ThreadId, VarId, NO_FACT};

    /// The table and the hash map hold the same writes through inserts, look-ups and
    /// removals (the map is taken when k·m exceeds the events, which generated traces
    /// rarely reach).
    #[test]
    fn the_table_of_latest_writes_is_the_map() {
        let (k, m) = (5, 7);
        let mut table = Latest::new(k, m, 0);
        let mut map = Latest::Map(Default::default());
        assert!(matches!(table, Latest::Table { .. }));
        let mut rng = 0x2545f4914f6cdd1du64;
        let mut next = |n: u64| {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            (rng % n) as usize
        };
        let mut some = 0;
        for i in 0..20_000u32 {
            let (t, x) = (ThreadId::new(next(k as u64)), VarId::new(next(m as u64)));
            match next(3) {
                0 => assert_eq!(table.insert(t, x, i), map.insert(t, x, i)),
                1 => {
                    table.remove(t, x);
                    map.remove(t, x);
                }
                _ => {
                    let got = table.get(t, x);
                    assert_eq!(got, map.get(t, x));
                    some += usize::from(got != NO_FACT);
                }
            }
        }
        assert!(some > 1000, "look-ups found writes: {some}");
        assert!(matches!(Latest::new(1 << 10, 1 << 10, 10), Latest::Map(_)));
    }
}
