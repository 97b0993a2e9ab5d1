//! SC-serializability as a single pass with vector clocks (in the style of AeroDrome,
//! Mathur & Viswanathan, ASPLOS'20): the trace read as an SC execution, conflicts ⊙SC
//! (docs/semantics.md §6), transactions as the nodes. State: O(k·(k + m + r)) integers for
//! k threads, m variables and the r (thread, variable) pairs that read (a read slot is
//! made on a thread's first read of a variable), plus a k·m index — independent of the
//! trace length.
//!
//! Clocks count transactions: thread t's i-th transaction has index i, and a clock V
//! "has seen" it when V\[t\] ≥ i. Each *slot* — a thread's current clock C_t, a
//! variable's last-write clock W_x, a thread's last-read clock R_{t,x} — holds
//! ancestors (transactions with a path to it) of the transaction it stands for.
//!
//! - begin of t's transaction T: C_t\[t\] := index(T).
//! - an incoming conflict into the current transaction T with clock S (W_x on a read,
//!   W_x ⊔ R_{u,x} on a write — u ≠ t among the threads that read x since its last
//!   write, earlier reads being ancestors of that write — both on an rmw): first
//!   *close* S over the current transactions of all threads — if S has seen Y, add C_y
//!   (Y's ancestors may have grown since S was taken) — until nothing changes; if S
//!   has now seen T, the edge closes a cycle (T reaches the source, the source reaches
//!   T): violation. Else C_t := C_t ⊔ S.
//! - end of T (when t begins its next transaction, or earlier at [`ScSer::end`], after
//!   T's last event): every slot that saw T while T was current (recorded when it was
//!   written) receives C_t, so slots stay complete for ended transactions and only the
//!   current ones need the closure. Ending T at its last event keeps fewer transactions
//!   current, so a slot is recorded with fewer of them; should T go on after all (an
//!   event of t without a `begin`), T is current again: every slot that has seen it is
//!   recorded anew (one pass over the slots, once a thread: its later ends wait for
//!   its next `begin`).
//! - a write of x by t sets W_x := C_t, a read R_{t,x} := C_t: while T is current the
//!   slot *stands for* C_t (a reference, no copy; C_t only grows, and whatever sees the
//!   slot sees T and so closes over C_t anyway); when T ends it receives T's final
//!   clock.
//!
//! The answer is exact (tested against the conflict graph of `check::sc` on every
//! prefix of generated traces): it reports at the first event whose prefix is not
//! SC-serializable.

use super::row::{at_least, below, copy, join, ones, same};
use crate::mem::prefetch_address as prefetch;
use crate::trace::std_format::lower::IdEvent;
use crate::trace::ThreadId;
use crate::trace::TiVec;
use crate::trace::{Op, Trace};
use crate::trace::{TxnId, VarId};

/// The first event at which the trace stops being SC-serializable, if any.
pub fn first_violation(trace: &Trace) -> Option<usize> {
    let last = last_events(trace);
    first_violation_ending(trace, |i| last.contains(i))
}

/// The events that are the last of their transaction, a bit each (the next event of
/// the thread, if any, is another transaction's).
pub fn last_events(trace: &Trace) -> fixedbitset::FixedBitSet {
    let mut last = fixedbitset::FixedBitSet::with_capacity(trace.len());
    let mut next: TiVec<ThreadId, Option<TxnId>> = trace.per_thread(None);
    for (i, e) in trace.events.iter().enumerate().rev() {
        last.set(i, next[e.thread] != Some(e.txn));
        next[e.thread] = Some(e.txn);
    }
    last
}

/// [`first_violation`] with [`ScSer::end`] called after each event `i` for which
/// `ends(i)` holds: after a transaction's last event, or anywhere (a transaction that
/// goes on is taken up again), for the same answer.
pub fn first_violation_ending(trace: &Trace, ends: impl Fn(usize) -> bool) -> Option<usize> {
    let mut m = ScSer::new(trace.threads.len(), trace.vars.len());
    let mut current: TiVec<ThreadId, Option<TxnId>> = trace.per_thread(None);
    for (i, e) in trace.events.iter().enumerate() {
        if current[e.thread] != Some(e.txn) {
            current[e.thread] = Some(e.txn);
            m.begin(e.thread);
        }
        if e.var.is_some_and(|x| m.access(e.thread, e.op, x)) {
            return Some(i);
        }
        if ends(i) {
            m.end(e.thread);
        }
    }
    None
}

/// A slot's row holds [`width`] entries, k rounded up to a multiple of `LANES` (the
/// entries past k stay 0), so that a row of up to 8 threads (or 16) is copied, compared
/// or joined whole ([`super::row`]).
const LANES: usize = 8;

/// Entries a row holds for `k` threads.
pub(crate) fn width(k: usize) -> usize {
    k.div_ceil(LANES).max(1) * LANES
}

/// The monitor state.
pub struct ScSer {
    k: usize,
    m: usize,
    /// The entries of a row ([`width`] of k).
    width: usize,
    /// Slot clocks, flat: slot s is `vals[s*width .. (s+1)*width]`. Slots: threads
    /// 0..k, then W_x (k + x), then the read slots R_{u,x} in the order they are first
    /// needed.
    vals: Vec<u32>,
    /// Per (thread, variable), `u*m + x`: its read slot R_{u,x} (0: none yet).
    rslot: Vec<u32>,
    /// Index of each thread's latest transaction (0: none yet).
    idx: Vec<u32>,
    /// Per thread, `width` of them: the index of its current transaction, `u32::MAX`
    /// when it has none (none yet, ended by [`ScSer::end`], or past k): a clock V has
    /// seen y's current transaction when V\[y\] ≥ open\[y\].
    open: Vec<u32>,
    /// Per thread: whether [`ScSer::end`] ends its transaction (not once one went on
    /// after it).
    early: Vec<bool>,
    /// Per thread: slots that saw its current transaction, in a list, and per slot
    /// ([`ScSer::words`] words) the threads whose list holds it, a bit each (a slot is
    /// listed once; the bits, a word a slot for up to 64 threads, took the place of a
    /// transaction index per slot and thread, as large as the clocks).
    seen: Vec<Vec<u32>>,
    listed: Vec<u64>,
    /// Per variable: the thread of its last write (`u32::MAX`: none).
    last_writer: Vec<u32>,
    /// Per variable, [`ScSer::words`] words: the threads that read it since its last
    /// write, a bit each (reads before a write are ancestors of that write, so W_x
    /// covers them).
    readers: Vec<u64>,
    /// Words of a variable's `readers` and of a slot's `listed` (k / 64 rounded up).
    words: usize,
    /// An incoming clock (`width` entries), and the slots a write's comes from.
    scratch: Vec<u32>,
    from: Vec<usize>,
    joined: Vec<bool>,
    /// Per thread (k ≤ 64): the threads whose current transaction C_t has seen, a bit each.
    has: Vec<u64>,
    /// The ending transaction's clock (a buffer kept across `begin`s).
    fin: Vec<u32>,
    /// The number of slots (threads, variables, read slots).
    slots: usize,
    /// Per slot: the thread and index (`t << 32 | i`) of the transaction whose clock
    /// it stands for while that transaction is current (`open[t] == i`, never for
    /// 0): then its own row is stale and C_t is its clock ([`ScSer::holder`]).
    alias: Vec<u64>,
    /// Per thread: the slots made to stand for its current transaction (some since
    /// given other clocks), which receive its final clock when it ends.
    aliased: Vec<Vec<u32>>,
}

impl ScSer {
    pub fn new(k: usize, m: usize) -> ScSer {
        let slots = k + m;
        let w = width(k);
        ScSer {
            k,
            m,
            width: w,
            vals: vec![0; slots * w],
            rslot: vec![0; k * m],
            idx: vec![0; k],
            open: vec![u32::MAX; w],
            early: vec![true; k],
            listed: vec![0; slots * k.div_ceil(64)],
            // Room up front: the lists are reused, so they rarely grow during the pass.
            seen: (0..k).map(|_| Vec::with_capacity(1024)).collect(),
            last_writer: vec![u32::MAX; m],
            readers: vec![0; m * k.div_ceil(64)],
            words: k.div_ceil(64),
            scratch: vec![0; w],
            from: Vec::with_capacity(k + 1),
            joined: vec![false; w],
            has: vec![0; k],
            fin: Vec::with_capacity(w),
            slots,
            alias: vec![0; slots],
            aliased: (0..k).map(|_| Vec::with_capacity(1024)).collect(),
        }
    }

    /// Room for `k2 ≥ k` threads and `m2 ≥ m` variables (a stream meets names as it
    /// goes): slots renumbered — threads 0..k2, then W_x at k2 + x, then the read
    /// slots in their order — and every clock widened with zeros (the new threads have
    /// no transaction yet, the new variables no access).
    pub fn grow(&mut self, k2: usize, m2: usize) {
        use super::hb::widen;
        let (k, m, w) = (self.k, self.m, self.width);
        assert!(k2 >= k && m2 >= m, "threads and variables only grow");
        if (k2, m2) == (k, m) {
            return;
        }
        let w2 = width(k2);
        let slots = self.slots;
        let reads = slots - (k + m);
        let slots2 = k2 + m2 + reads;
        let at = |s: usize| {
            if s < k {
                s
            } else if s < k + m {
                s - k + k2
            } else {
                s - (k + m) + (k2 + m2)
            }
        };
        // The rows widened, each moved to its slot's new place.
        let wide = widen(&self.vals, w, w2, slots);
        let mut vals = vec![0; slots2 * w2];
        for s in 0..slots {
            let t = at(s);
            vals[t * w2..(t + 1) * w2].copy_from_slice(&wide[s * w2..(s + 1) * w2]);
        }
        self.vals = vals;
        let mut alias = vec![0; slots2];
        for (s, &a) in self.alias.iter().enumerate() {
            alias[at(s)] = a;
        }
        self.alias = alias;
        for list in &mut self.aliased {
            list.iter_mut().for_each(|s| *s = at(*s as usize) as u32);
        }
        self.aliased.resize_with(k2, || Vec::with_capacity(64));
        self.slots = slots2;
        for list in &mut self.seen {
            list.iter_mut().for_each(|s| *s = at(*s as usize) as u32);
        }
        self.seen.resize_with(k2, || Vec::with_capacity(64));
        let words2 = k2.div_ceil(64);
        self.listed = vec![0; slots2 * words2];
        for (y, list) in self.seen.iter().enumerate() {
            for &s in list {
                self.listed[s as usize * words2 + y / 64] |= 1 << (y % 64);
            }
        }
        let mut rslot = vec![0; k2 * m2];
        for t in 0..k {
            for x in 0..m {
                let r = self.rslot[t * m + x];
                rslot[t * m2 + x] = if r == 0 { 0 } else { at(r as usize) as u32 };
            }
        }
        self.rslot = rslot;
        let (words, words2) = (self.words, k2.div_ceil(64));
        let mut readers = vec![0; m2 * words2];
        for x in 0..m {
            readers[x * words2..x * words2 + words]
                .copy_from_slice(&self.readers[x * words..(x + 1) * words]);
        }
        (self.readers, self.words) = (readers, words2);
        self.idx.resize(k2, 0);
        self.open.resize(w2, u32::MAX);
        self.early.resize(k2, true);
        self.last_writer.resize(m2, u32::MAX);
        self.scratch = vec![0; w2];
        self.joined = vec![false; w2];
        self.has.resize(k2, 0);
        (self.k, self.m, self.width) = (k2, m2, w2);
    }

    /// Asks the cache for what an access of `x` by `t` will read (no effect on the
    /// answer): its W_x row, last writer and listed word, and the row of R_{t,x} (whose
    /// index this reads, itself perhaps not in the cache yet).
    #[inline(always)]
    pub fn prefetch(&self, t: ThreadId, x: VarId) {
        let (t, x) = (t.index(), x.index());
        let w = self.k + x;
        // Addresses only (never read through): past the end for a name the monitor has
        // no room for yet, which a prefetch ignores.
        prefetch(self.vals.as_ptr().wrapping_add(w * self.width));
        prefetch(self.last_writer.as_ptr().wrapping_add(x));
        prefetch(self.listed.as_ptr().wrapping_add(w * self.words));
        prefetch(self.alias.as_ptr().wrapping_add(w));
        if let Some(&s) = self.rslot.get(t * self.m + x).filter(|_| x < self.m) {
            prefetch(self.vals.as_ptr().wrapping_add(s as usize * self.width));
        }
    }

    fn w_slot(&self, x: usize) -> usize {
        self.k + x
    }

    /// Slot `s`'s clock.
    fn row(&self, s: usize) -> &[u32] {
        &self.vals[s * self.width..(s + 1) * self.width]
    }

    /// The slot whose row holds slot `s`'s clock: the thread whose current
    /// transaction `s` stands for ([`ScSer::copy_into`]), else `s`.
    #[inline(always)]
    fn holder(&self, s: usize) -> usize {
        let a = self.alias[s];
        let (t, i) = ((a >> 32) as usize, a as u32);
        if i != 0 && self.open[t] == i {
            t
        } else {
            s
        }
    }

    /// R_{u,x}, which exists once u has read x.
    fn r_slot(&self, u: usize, x: usize) -> usize {
        self.rslot[u * self.m + x] as usize
    }

    /// R_{t,x}, made on t's first read of x.
    fn r_slot_made(&mut self, t: usize, x: usize) -> usize {
        let i = t * self.m + x;
        if self.rslot[i] == 0 {
            let s = self.slots;
            self.vals.resize(self.vals.len() + self.width, 0);
            self.listed.resize(self.listed.len() + self.words, 0);
            self.alias.push(0);
            self.slots += 1;
            self.rslot[i] = u32::try_from(s).expect("fewer than 2^32 read slots");
        }
        self.rslot[i] as usize
    }

    /// Records `slot` with every current transaction its clock has seen.
    fn register(&mut self, slot: usize) {
        let w = self.width;
        if self.k <= 64 {
            // Branch-free: a bit per thread whose current transaction the slot has seen
            // (none past k: their `open` is u32::MAX).
            let has = at_least(&self.open, &self.vals[slot * w..(slot + 1) * w]);
            if slot < self.k {
                self.has[slot] = has;
            }
            self.register_mask(slot, has);
        } else {
            let vals = &self.vals[slot * w..(slot + 1) * w];
            for (y, (&i, &v)) in self.open.iter().zip(vals).enumerate() {
                let word = &mut self.listed[slot * self.words + y / 64];
                if v >= i && *word & (1 << (y % 64)) == 0 {
                    *word |= 1 << (y % 64);
                    self.seen[y].push(slot as u32);
                }
            }
        }
    }

    /// Records `slot` with the current transactions of the threads in `has` (k ≤ 64),
    /// once per transaction.
    fn register_mask(&mut self, slot: usize, has: u64) {
        // k ≤ 64: one word a slot.
        let word = &mut self.listed[slot];
        let new = has & !*word;
        *word |= has;
        for y in ones(new) {
            self.seen[y].push(slot as u32);
        }
    }

    fn join_into(&mut self, slot: usize, v: &[u32]) {
        let w = self.width;
        join(&mut self.vals[slot * w..(slot + 1) * w], v);
        self.register(slot);
    }

    /// [`Self::join_into`] of a clock `v` that has seen the current transactions in
    /// `seen` (k ≤ 64): the slot has now seen those besides its own, so they are
    /// recorded without comparing the joined row against every thread's.
    fn join_seen(&mut self, slot: usize, v: &[u32], seen: u64) {
        let w = self.width;
        join(&mut self.vals[slot * w..(slot + 1) * w], v);
        if slot < self.k {
            self.has[slot] |= seen;
        }
        self.register_mask(slot, seen);
        debug_assert!(slot >= self.k || self.has[slot] == at_least(&self.open, self.row(slot)));
    }

    /// Slot := thread clock `from`. While `from`'s transaction is current the slot
    /// stands for it ([`ScSer::alias`]): C_from only grows, and every clock that sees
    /// the slot's content sees that transaction and so closes over C_from anyway, so
    /// the slot's clock is C_from itself until the transaction ends, when it receives
    /// the final clock ([`ScSer::close`]). A write or a read costs no copy, and its
    /// slot no join when the transaction ends (was: a copy now, a comparison and a
    /// join then).
    #[inline(always)]
    fn copy_into(&mut self, slot: usize, from: usize) {
        let i = self.open[from];
        if i != u32::MAX {
            let a = (from as u64) << 32 | u64::from(i);
            if self.alias[slot] != a {
                self.alias[slot] = a;
                self.aliased[from].push(slot as u32);
            }
            return;
        }
        self.alias[slot] = 0;
        self.copy_row(slot, from);
    }

    /// Slot := thread clock `from` in its row, skipped when the slot holds that very
    /// content: it is then recorded with what C_from has seen already, since every
    /// slot that has seen a current transaction is.
    #[inline(never)]
    fn copy_row(&mut self, slot: usize, from: usize) {
        let w = self.width;
        // Rows of distinct slots: split at the later one.
        let (lo, hi) = (slot.min(from), slot.max(from));
        let (a, b) = self.vals.split_at_mut(hi * w);
        let (lo_row, hi_row) = (&mut a[lo * w..(lo + 1) * w], &mut b[..w]);
        let (dst, src) = if slot < from {
            (lo_row, &*hi_row)
        } else {
            (hi_row, &*lo_row)
        };
        if same(dst, src) {
            return;
        }
        copy(dst, src);
        if self.k <= 64 {
            // The slot now holds C_from, so it has seen what C_from has seen.
            self.register_mask(slot, self.has[from]);
        } else {
            self.register(slot);
        }
    }

    /// Thread t starts a new transaction (ending its previous one).
    pub fn begin(&mut self, t: ThreadId) {
        let t = t.index();
        let w = self.width;
        if self.open[t] != u32::MAX {
            self.close(t);
        }
        self.idx[t] += 1;
        self.open[t] = self.idx[t];
        self.vals[t * w + t] = self.idx[t];
        self.register(t);
    }

    /// Thread t's current transaction has had its last event, unless an access of t
    /// comes before its next `begin` (the transaction then goes on: it is current again).
    pub fn end(&mut self, t: ThreadId) {
        let t = t.index();
        if self.early[t] && self.open[t] != u32::MAX {
            self.close(t);
        }
    }

    /// Ends t's current transaction: slots that saw it get its final clock.
    fn close(&mut self, t: usize) {
        let w = self.width;
        let mut fin = std::mem::take(&mut self.fin);
        fin.clear();
        fin.extend_from_slice(self.row(t));
        let i = self.open[t];
        debug_assert!(self.k > 64 || self.has[t] == at_least(&self.open, &fin));
        let mut seen = std::mem::take(&mut self.seen[t]);
        for &slot in &seen {
            let slot = slot as usize;
            // A slot that holds all of C_t already (a copy of it as it is now) is
            // recorded with what C_t has seen: joining would change nothing.
            if slot != t
                && self.vals[slot * w + t] >= i
                && !below(&fin, &self.vals[slot * w..(slot + 1) * w])
            {
                if self.k <= 64 {
                    // C_t has seen the current transactions `has[t]`.
                    self.join_seen(slot, &fin, self.has[t]);
                } else {
                    self.join_into(slot, &fin);
                }
            }
        }
        // (Joins register slots already listed for T: none is listed anew.)
        debug_assert!(self.seen[t].is_empty());
        let (word, bit) = (t / 64, 1u64 << (t % 64));
        for &slot in &seen {
            self.listed[slot as usize * self.words + word] &= !bit;
        }
        seen.clear();
        self.seen[t] = seen;
        self.open[t] = u32::MAX;
        if self.k <= 64 {
            // No clock has seen a current transaction of t now.
            self.has.iter_mut().for_each(|h| *h &= !(1u64 << t));
        }
        // The slots that stood for T take its final clock, as C_t is now, and are
        // recorded with the current transactions it has seen.
        let a = (t as u64) << 32 | u64::from(i);
        let mut aliased = std::mem::take(&mut self.aliased[t]);
        for &slot in &aliased {
            let slot = slot as usize;
            if self.alias[slot] == a {
                self.alias[slot] = 0;
                copy(&mut self.vals[slot * w..(slot + 1) * w], &fin);
                if self.k <= 64 {
                    self.register_mask(slot, self.has[t]);
                } else {
                    self.register(slot);
                }
            }
        }
        aliased.clear();
        self.aliased[t] = aliased;
        self.fin = fin;
    }

    /// t's transaction, ended by [`Self::end`], goes on: current again, with every slot
    /// that has seen it recorded; later `end`s of t wait for its next `begin`.
    fn reopen(&mut self, t: usize) {
        let (w, i) = (self.width, self.idx[t]);
        self.early[t] = false;
        self.open[t] = i;
        debug_assert!(self.seen[t].is_empty());
        for s in 0..self.slots {
            if self.vals[s * w + t] >= i {
                self.listed[s * self.words + t / 64] |= 1 << (t % 64);
                self.seen[t].push(s as u32);
                if s < self.k && self.k <= 64 {
                    self.has[s] |= 1u64 << t;
                }
            }
        }
    }

    /// An incoming conflict from the clocks in the rows of `slots` (the conflicting
    /// slots' [`ScSer::holder`]s) into t's current transaction: their join S, closed
    /// over the current transactions, checked, and joined into C_t. True on a
    /// violation.
    fn incoming_from(&mut self, t: usize, slots: &[usize]) -> bool {
        let w = self.width;
        // A slot stands only for its writer's or reader's transaction, never for the
        // accessing thread's (the conflict is from another thread).
        debug_assert!(!slots.contains(&t), "a conflict from t's own clock");
        // Fast path: S ≤ C_t (every clock of `slots` below it; no S is built). Every
        // current transaction S has seen is already an ancestor of T; closing S could
        // reach T only through a cycle of the prefix before this event, which the
        // monitor would have reported. So only a direct S ⊒ T is a violation, and the
        // join adds nothing C_t needs (the ancestors those current transactions gain
        // reach C_t when they end, as C_t saw them).
        let ct = self.row(t);
        if slots.iter().all(|&s| below(self.row(s), ct)) {
            let i = self.open[t];
            return slots.iter().any(|&s| self.vals[s * w + t] >= i);
        }
        let mut s = std::mem::take(&mut self.scratch);
        match slots {
            [one] => copy(&mut s, self.row(*one)),
            _ => {
                s.iter_mut().for_each(|a| *a = 0);
                for &x in slots {
                    join(&mut s, self.row(x));
                }
            }
        }
        let mut seen = None;
        if self.k <= 64 {
            // The current transactions S has seen, a bit each, joined until none is new.
            let mut joined = 0u64;
            loop {
                let new = at_least(&self.open, &s) & !joined;
                if new == 0 {
                    break;
                }
                joined |= new;
                for y in ones(new) {
                    join(&mut s, &self.vals[y * w..(y + 1) * w]);
                }
            }
            // Each bit joined was seen, and S has seen no other: what S has seen.
            seen = Some(joined);
        } else {
            let mut joined = std::mem::take(&mut self.joined);
            joined.iter_mut().for_each(|j| *j = false);
            loop {
                let mut changed = false;
                for y in 0..self.k {
                    if s[y] >= self.open[y] && !joined[y] {
                        joined[y] = true;
                        join(&mut s, &self.vals[y * w..(y + 1) * w]);
                        changed = true;
                    }
                }
                if !changed {
                    break;
                }
            }
            self.joined = joined;
        }
        let bad = s[t] >= self.open[t];
        if !bad {
            match seen {
                Some(seen) => self.join_seen(t, &s, seen),
                None => self.join_into(t, &s),
            }
        }
        self.scratch = s;
        bad
    }

    /// A stream's batch of events in order, each with its `begin` and `end`
    /// ([`IdEvent`]), asking the cache for the state of the access 8 events on (a
    /// variable's clocks are spread over the state: most accesses missed the L1
    /// cache): the index of the first event at which a violation is found, if any. One
    /// loop, the access compiled into it (a call a step and its dispatch were a tenth
    /// of the monitor).
    pub fn feed(&mut self, batch: &[IdEvent]) -> Option<usize> {
        for (i, e) in batch.iter().enumerate() {
            if let Some((t, x)) = super::ahead(batch, i) {
                self.prefetch(t, x);
            }
            if e.begins {
                self.begin(e.thread);
            }
            if let Some(x) = e.var {
                if self.access_inline(e.thread, e.op, x) {
                    return Some(i);
                }
            }
            if e.ends {
                self.end(e.thread);
            }
        }
        None
    }

    /// An access of x by t (`rd`, `wr` or `rmw`; a fence has no ⊙SC conflict with
    /// another thread); true on a violation.
    pub fn access(&mut self, t: ThreadId, op: Op, x: VarId) -> bool {
        self.access_inline(t, op, x)
    }

    #[inline(always)]
    fn access_inline(&mut self, t: ThreadId, op: Op, x: VarId) -> bool {
        let (t, x) = (t.index(), x.index());
        if self.open[t] == u32::MAX && self.idx[t] > 0 {
            self.reopen(t);
        }
        match op {
            Op::Rd => self.read(t, x),
            Op::Wr => self.write(t, x, false),
            Op::Rmw => self.write(t, x, true),
            Op::Fence => false,
        }
    }

    /// `rd x` by t; true on a violation.
    #[inline]
    fn read(&mut self, t: usize, x: usize) -> bool {
        let u = self.last_writer[x];
        if u != u32::MAX && u as usize != t && self.incoming_from(t, &[self.holder(self.w_slot(x))])
        {
            return true;
        }
        self.note_read(t, x);
        false
    }

    fn note_read(&mut self, t: usize, x: usize) {
        let r = self.r_slot_made(t, x);
        self.copy_into(r, t);
        self.readers[x * self.words + t / 64] |= 1 << (t % 64);
    }

    /// `wr x` (or `rmw x`, which also reads) by t; true on a violation.
    fn write(&mut self, t: usize, x: usize, also_reads: bool) -> bool {
        let u = self.last_writer[x];
        if self.words == 1 && self.readers[x] & !(1u64 << t) == 0 {
            // No other thread read x since its last write (most writes): the conflict
            // comes from W_x alone, if at all.
            self.readers[x] = 0;
            if u != u32::MAX
                && u as usize != t
                && self.incoming_from(t, &[self.holder(self.w_slot(x))])
            {
                return true;
            }
            return self.wrote(t, x, also_reads);
        }
        let mut from = std::mem::take(&mut self.from);
        from.clear();
        if u != u32::MAX && u as usize != t {
            from.push(self.holder(self.w_slot(x)));
        }
        for i in 0..self.words {
            let bits = std::mem::take(&mut self.readers[x * self.words + i]);
            for u in ones(bits).map(|b| i * 64 + b) {
                if u != t {
                    from.push(self.holder(self.r_slot(u, x)));
                }
            }
        }
        let bad = self.incoming_from(t, &from);
        self.from = from;
        if bad {
            return true;
        }
        self.wrote(t, x, also_reads)
    }

    /// After the conflicts into t's write of x: W_x := C_t.
    #[inline(always)]
    fn wrote(&mut self, t: usize, x: usize, also_reads: bool) -> bool {
        let w = self.w_slot(x);
        self.copy_into(w, t);
        self.last_writer[x] = t as u32;
        if also_reads {
            self.note_read(t, x);
        }
        false
    }
}
