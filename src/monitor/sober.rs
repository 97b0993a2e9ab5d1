//! SOBER's store-buffer-safety monitor (Burckhardt & Musuvathi, CAV'08): Fig. 2, with
//! the relaxed happens-before `→*rhb` decided by the generalized vector clock of Fig. 3
//! (2N-wide timestamps, Theorem 5) and `→*hb` by the classic one.
//!
//! Events map to the paper's as docs/semantics.md §6 says: `rd` is `ld`, `wr` is `st`, `rmw`
//! is `il`, and a fence is `il` on a location of its own (footnote 1). Coherence index of
//! a load = the number of earlier writes of its variable (it reads the latest).

use super::hb::HbClock;
use super::row::{copy, join, join_array};
use crate::mem::prefetch_address;
use crate::trace::{EventId, Op};
use crate::trace::{ThreadId, VarId};

/// The clocks of Fig. 3. Timestamps have 2N entries: `2p` counts p's loads (and
/// interlocked operations), `2p + 1` its stores (and interlocked operations). Addresses
/// are the trace's variables, then one private fence location per thread.
///
/// `mc1[q][a]` (the join of the stores to `a` of the other threads and of every
/// interlocked operation on `a`) is kept as at most two timestamps of `a`: the latest
/// store or interlocked operation, and the latest one by another writer (a thread's
/// stores are one writer, interlocked operations another). Each such timestamp
/// includes every earlier one of `a` (it includes `mc2[a]`, which every one of them
/// joins), so `mc1[q][a]` is the first when q is not its writer, else the second; and
/// memory grows with the addresses stored to, two timestamps at most each.
pub struct Rhb {
    n: usize,
    m: usize,
    lc: Vec<u32>,
    sc: Vec<u32>,
    mc2: Vec<u32>,
    /// Per address: the writer of its latest store or interlocked operation (the
    /// thread, or [`INTERLOCKED`]) and the arena offset of its timestamp.
    latest: Vec<Option<(u32, u32)>>,
    /// Per address: the arena offset of the latest timestamp by another writer than
    /// `latest`'s.
    other: Vec<Option<u32>>,
    arena: Vec<u32>,
}

/// The writer of interlocked operations in [`Rhb::latest`] (never a thread's own).
const INTERLOCKED: u32 = u32::MAX;

/// The paper's operation of an event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SoberOp {
    Ld,
    St,
    Il,
}

impl SoberOp {
    pub fn of(op: Op) -> SoberOp {
        match op {
            Op::Rd => SoberOp::Ld,
            Op::Wr => SoberOp::St,
            Op::Rmw | Op::Fence => SoberOp::Il,
        }
    }
}

impl Rhb {
    /// Clocks for `n` threads and `m` variables.
    pub fn new(n: usize, m: usize) -> Rhb {
        let w = 2 * n;
        let addrs = m + n;
        Rhb {
            n,
            m,
            lc: vec![0; n * w],
            sc: vec![0; n * w],
            mc2: vec![0; addrs * w],
            latest: vec![None; addrs],
            other: vec![None; addrs],
            arena: Vec::new(),
        }
    }

    /// The address of an event: its variable, or thread p's fence location.
    pub fn address(&self, p: usize, var: Option<usize>) -> usize {
        var.unwrap_or(self.m + p)
    }

    /// Room for `n2 ≥ n` threads and `m2 ≥ m` variables: timestamps widened with zeros
    /// (entries `2p`, `2p + 1` keep their places), the fence locations moved behind the
    /// new variables, the new ones untouched.
    pub fn grow(&mut self, n2: usize, m2: usize) {
        use super::hb::widen;
        let (n, m) = (self.n, self.m);
        assert!(n2 >= n && m2 >= m, "threads and variables only grow");
        let (w, w2) = (2 * n, 2 * n2);
        self.lc = widen(&self.lc, w, w2, n2);
        self.sc = widen(&self.sc, w, w2, n2);
        // Addresses: variable x stays x, fence location m + p becomes m2 + p.
        let addr = |a: usize| if a < m { a } else { a - m + m2 };
        let old = widen(&self.mc2, w, w2, m + n);
        let mut mc2 = vec![0; (m2 + n2) * w2];
        for a in 0..m + n {
            let b = addr(a);
            mc2[b * w2..(b + 1) * w2].copy_from_slice(&old[a * w2..(a + 1) * w2]);
        }
        self.mc2 = mc2;
        // Arena offsets are multiples of w: chunk i moves to i·w2.
        let off = |o: u32| (o as usize).checked_div(w).map_or(o, |i| (i * w2) as u32);
        let mut latest = vec![None; m2 + n2];
        let mut other = vec![None; m2 + n2];
        for a in 0..m + n {
            latest[addr(a)] = self.latest[a].map(|(q, o)| (q, off(o)));
            other[addr(a)] = self.other[a].map(off);
        }
        (self.latest, self.other) = (latest, other);
        let chunks = self.arena.len().checked_div(w).unwrap_or(0);
        self.arena = widen(&self.arena, w, w2, chunks);
        (self.n, self.m) = (n2, m2);
    }

    /// A new timestamp's room in the arena.
    fn slot(&mut self) -> u32 {
        let o = self.arena.len() as u32;
        self.arena.extend(std::iter::repeat_n(0, 2 * self.n));
        o
    }

    /// Where p's store (interlocked: `il`) to address `a` records its timestamp in the
    /// arena: lines 20–21 / 28–29, into mc1[q][a] (see the type). The same writer again
    /// replaces its timestamp; another makes the latest the other one.
    #[inline(always)]
    fn record(&mut self, p: usize, il: bool, a: usize) -> u32 {
        let writer = if il { INTERLOCKED } else { p as u32 };
        let off = match self.latest[a] {
            Some((q, o)) if q == writer => o,
            latest => {
                let o = match self.other[a] {
                    Some(o) => o,
                    None => self.slot(),
                };
                self.other[a] = latest.map(|(_, o)| o);
                o
            }
        };
        self.latest[a] = Some((writer, off));
        off
    }

    /// `process_event` of Fig. 3 for p's next event on address `a`; returns its timestamp.
    /// It is built in place, in `lc[p]` for a load and `sc[p]` for a store or
    /// interlocked operation (each the event's timestamp afterwards: lines 15, 23 / 32).
    pub fn process(&mut self, p: usize, op: SoberOp, a: usize) -> &[u32] {
        if self.n == 8 {
            return self.process_rows::<16>(p, op, a);
        }
        let w = 2 * self.n;
        let (me, at) = (p * w..(p + 1) * w, a * w..(a + 1) * w);
        match op {
            SoberOp::Ld => {
                // line 13: ts := merge(lc[p], mc1[p][a])
                let ts = &mut self.lc[me];
                let mc1 = match self.latest[a] {
                    Some((q, o)) if q as usize != p => Some(o),
                    _ => self.other[a],
                };
                if let Some(o) = mc1 {
                    join(ts, &self.arena[o as usize..o as usize + w]);
                }
                ts[2 * p] += 1; // line 14; line 15: lc[p] := ts
                join(&mut self.mc2[at], ts); // line 16
                ts
            }
            SoberOp::St | SoberOp::Il => {
                let off = self.record(p, op == SoberOp::Il, a);
                // lines 18 / 25: ts := merge(sc[p], lc[p], mc2[a])
                let ts = &mut self.sc[me.clone()];
                join(ts, &self.lc[me.clone()]);
                join(ts, &self.mc2[at.clone()]);
                if op == SoberOp::Il {
                    ts[2 * p] += 1; // line 26
                }
                // lines 19 / 27; lines 23 / 32: sc[p] := ts
                ts[2 * p + 1] += 1;
                // The timestamp into the arena, and lines 22 / 30: mc2[a] := ts (ts ⊇
                // mc2[a]).
                copy(&mut self.arena[off as usize..off as usize + w], ts);
                copy(&mut self.mc2[at], ts);
                if op == SoberOp::Il {
                    self.lc[me].copy_from_slice(ts); // line 31
                }
                ts
            }
        }
    }

    /// [`Self::process`] for timestamps of W = 2n entries, each an array (no slice and no
    /// bounds a row, no dispatch a join or a copy).
    #[inline(always)]
    fn process_rows<const W: usize>(&mut self, p: usize, op: SoberOp, a: usize) -> &[u32] {
        match op {
            SoberOp::Ld => {
                // line 13: ts := merge(lc[p], mc1[p][a])
                let mc1 = match self.latest[a] {
                    Some((q, o)) if q as usize != p => Some(o),
                    _ => self.other[a],
                };
                let ts = &mut self.lc.as_chunks_mut::<W>().0[p];
                if let Some(o) = mc1 {
                    join_array(ts, &self.arena.as_chunks::<W>().0[o as usize / W]);
                }
                ts[2 * p] += 1; // line 14; line 15: lc[p] := ts
                join_array(&mut self.mc2.as_chunks_mut::<W>().0[a], ts); // line 16
                ts
            }
            SoberOp::St | SoberOp::Il => {
                let il = op == SoberOp::Il;
                let off = self.record(p, il, a);
                // lines 18 / 25: ts := merge(sc[p], lc[p], mc2[a])
                let ts = &mut self.sc.as_chunks_mut::<W>().0[p];
                let lc = &mut self.lc.as_chunks_mut::<W>().0[p];
                let mc2 = &mut self.mc2.as_chunks_mut::<W>().0[a];
                join_array(ts, lc);
                join_array(ts, mc2);
                if il {
                    ts[2 * p] += 1; // line 26
                }
                // lines 19 / 27; lines 23 / 32: sc[p] := ts
                ts[2 * p + 1] += 1;
                // The timestamp into the arena, and lines 22 / 30: mc2[a] := ts.
                self.arena.as_chunks_mut::<W>().0[off as usize / W] = *ts;
                *mc2 = *ts;
                if il {
                    *lc = *ts; // line 31
                }
                ts
            }
        }
    }

    /// Thread p's latest load (or interlocked) timestamp: `lc[p]` (Fig. 3 line 15/31).
    /// Asks the cache for address `a`'s records (a hint).
    #[inline(always)]
    pub fn prefetch(&self, a: usize) {
        prefetch_address(self.mc2.as_ptr().wrapping_add(a * 2 * self.n));
        prefetch_address(self.latest.as_ptr().wrapping_add(a));
        prefetch_address(self.other.as_ptr().wrapping_add(a));
    }

    pub fn last_read(&self, p: usize) -> &[u32] {
        &self.lc[p * 2 * self.n..(p + 1) * 2 * self.n]
    }
}

/// What SOBER reports (Fig. 2, line 13): at load `load` = e_k of thread p on variable a,
/// reading write number `c(e_k)`, the write `write` = write(E, a, c) with
/// `write →*hb last(E, p)` (Lemma 1 (1) holds for a load reading value c − 1) while
/// neither (2)(i) `write →*rhb lastR(E, p)` nor (2)(ii) a write of p to a with index ≥ c
/// holds: E ∪ {ld(p, a, c − 1)} is a TSO trace that is not SC, E is borderline.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SoberReport {
    pub load: EventId,
    /// The coherence index the load reads (1-based, 0 = the initial value).
    pub reads: usize,
    pub write: EventId,
    /// c: the coherence index of `write`.
    pub index: usize,
    /// last(E, p).
    pub last: EventId,
    /// lastR(E, p), if p has read.
    pub last_read: Option<EventId>,
}

#[derive(Clone, Copy)]
struct WriteRec {
    thread: u32,
    /// Timestamp entry 2p + 1 of the write (its store count): by Theorem 5 and the
    /// total order of p's stores (Def. 7 VC2), `w →*rhb e` iff `ts(e)[2p+1] ≥` this.
    rhb: u32,
    /// Its epoch in the classic vector clock for `→*hb`.
    hb: u32,
    event: EventId,
}

/// Records of a variable kept before its first pruning.
const PRUNE_FIRST: usize = 64;

/// Fig. 2 as an online monitor.
pub struct Sober {
    rhb: Rhb,
    hb: HbClock,
    /// Per variable: its write records, but for the `dropped` oldest ones — those below
    /// every thread's frontier (see [`Sober::prune`]).
    writes: Vec<Vec<WriteRec>>,
    dropped: Vec<usize>,
    /// Per variable: the number of records at which to prune next.
    prune_at: Vec<usize>,
    /// Whether a record was ever dropped, and whether the monitor is still exact: a
    /// thread that first appears after a drop ([`Sober::grow`]) could have needed it.
    pruned: bool,
    exact: bool,
    /// Whether every thread of the run is known from the start (built for them, never
    /// grown): then a thread that has not run yet holds the pruning back. A grown
    /// monitor prunes for the threads that have run, and is no longer exact if another
    /// one runs after a pruning.
    known: bool,
    last: Vec<Option<EventId>>,
    last_read: Vec<Option<EventId>>,
    next: EventId,
}

impl Sober {
    pub fn new(n: usize, m: usize) -> Sober {
        Sober {
            rhb: Rhb::new(n, m),
            hb: HbClock::new(n, m),
            writes: vec![Vec::new(); m],
            dropped: vec![0; m],
            prune_at: vec![PRUNE_FIRST; m],
            pruned: false,
            exact: true,
            known: true,
            last: vec![None; n],
            last_read: vec![None; n],
            next: 0,
        }
    }

    /// Room for `n2 ≥ n` threads and `m2 ≥ m` variables (see [`Rhb::grow`]).
    pub fn grow(&mut self, n2: usize, m2: usize) {
        self.rhb.grow(n2, m2);
        self.hb.grow(n2, m2);
        let m2 = m2.max(self.writes.len());
        self.writes.resize(m2, Vec::new());
        self.dropped.resize(m2, 0);
        let fill = if self.prune_at.first() == Some(&usize::MAX) {
            usize::MAX
        } else {
            PRUNE_FIRST
        };
        self.prune_at.resize(m2, fill);
        self.known = false;
        self.last.resize(n2, None);
        self.last_read.resize(n2, None);
    }

    /// [`Sober::new`] that keeps every write record (the reference of the pruning's test).
    pub fn unpruned(n: usize, m: usize) -> Sober {
        let mut s = Sober::new(n, m);
        s.prune_at = vec![usize::MAX; m];
        s
    }

    /// Write records held (all variables).
    pub fn records(&self) -> usize {
        self.writes.iter().map(Vec::len).sum()
    }

    /// Whether the answer is still exact: false once, in a grown monitor, a thread ran
    /// for the first time after write records were dropped (a stream then runs again
    /// knowing every thread).
    pub fn exact(&self) -> bool {
        self.exact
    }

    /// Drops variable `a`'s records below every thread's frontier. Thread p's walk
    /// (Fig. 2 lines 5–15) stops at the first record, from the newest, that is p's own
    /// (lines 8–9) or rhb-before p's last read (lines 10–11); both stay true as the run
    /// goes on (p's `lc` only grows), so p never walks past the newest such record
    /// again. Records older than every thread's are dropped; a thread with none (one
    /// that has not run, say) keeps them all — in a grown monitor, only the threads
    /// that have run count ([`Sober::exact`]).
    fn prune(&mut self, a: usize) {
        let recs = &self.writes[a];
        let mut cut = recs.len();
        for p in 0..self.last.len() {
            if !self.known && self.last[p].is_none() {
                continue;
            }
            let lr = self.rhb.last_read(p);
            let stop = recs
                .iter()
                .rposition(|w| w.thread as usize == p || lr[2 * w.thread as usize + 1] >= w.rhb);
            match stop {
                Some(j) => cut = cut.min(j),
                None => {
                    cut = 0;
                    break;
                }
            }
        }
        if cut > 0 {
            self.writes[a].drain(..cut);
            self.dropped[a] += cut;
            self.pruned = true;
        }
        self.prune_at[a] = (2 * self.writes[a].len()).max(PRUNE_FIRST);
    }

    /// The next event of the SC run; `Some` when Fig. 2 returns false at it.
    /// Asks the cache for what an access of `var` will read (a hint: the stream asks a
    /// few events ahead).
    #[inline]
    pub fn prefetch(&self, var: VarId) {
        let x = var.index();
        self.rhb.prefetch(x);
        self.hb.prefetch(x);
        prefetch_address(self.writes.as_ptr().wrapping_add(x));
        prefetch_address(self.dropped.as_ptr().wrapping_add(x));
    }

    pub fn step(&mut self, p: ThreadId, op: Op, var: Option<VarId>) -> Option<SoberReport> {
        let (p, var) = (p.index(), var.map(VarId::index));
        if !self.known && self.pruned && self.last[p].is_none() {
            self.exact = false;
        }
        let e = self.next;
        self.next += 1;
        let mut report = None;
        if let (Op::Rd, Some(a)) = (op, var) {
            // lines 5–15
            let base = self.dropped[a];
            let reads = base + self.writes[a].len();
            let lr = self.rhb.last_read(p);
            // Every thread's walk stops at or above the oldest record kept.
            for c in (base + 1..=reads).rev() {
                let w = self.writes[a][c - 1 - base];
                if w.thread as usize == p {
                    break; // lines 8–9 (the paper's `i(write(E,a,c))` is its processor)
                }
                if lr[2 * w.thread as usize + 1] >= w.rhb {
                    break; // lines 10–11
                }
                if self.hb.seen(p, w.thread as usize, w.hb) {
                    // lines 12–13
                    report = Some(SoberReport {
                        load: e,
                        reads,
                        write: w.event,
                        index: c,
                        last: self.last[p].expect("hb-after something means p has run"),
                        last_read: self.last_read[p],
                    });
                    break;
                }
            }
        }
        // line 17: E := E ∪ e_k
        let a = self.rhb.address(p, var);
        let ts = self.rhb.process(p, SoberOp::of(op), a);
        let rhb = ts[2 * p + 1];
        let hb = self.hb.step(p, op, var);
        if let (Op::Wr | Op::Rmw, Some(x)) = (op, var) {
            self.writes[x].push(WriteRec {
                thread: p as u32,
                rhb,
                hb,
                event: e,
            });
            if self.writes[x].len() >= self.prune_at[x] {
                self.prune(x);
            }
        }
        if op != Op::Wr {
            self.last_read[p] = Some(e);
        }
        self.last[p] = Some(e);
        report
    }
}
