//! A sound polynomial test that proves a component serializable or says *maybe*
//! (docs/hardness.md, "Proving serializable in polynomial time"); a *maybe* goes on to
//! fpt and sat.
//!
//! Every cycle passes through a transaction of two events or more (docs/semantics.md
//! §5.6), so a cycle of the component is a ring of *segments*, each leaving one such
//! transaction Tᵢ at some point (an event, or the commit of one of its writes) and
//! entering the next Tⱼ at some point, through single-event transactions only. For each
//! way out of Tᵢ and each way in, [`prove`] computes earliest arrival times over the
//! graph of *possible* conflicts (Eq. (1) in every order that some execution could give,
//! the parallel exception (i) left out), with events at fixed times and each commit at
//! the earliest time the path allows. A jump `c(w) → w` carries the commit's time on to
//! the events after `w`, as §5.6's proof does. A label is never later than the time of
//! its node on a real segment (docs/hardness.md, Theorem 2), so when the segments found
//! close no ring, no execution has a cycle in the component.
//!
//! Deciding these components exactly is coNP-complete even with one transaction of two
//! events (docs/hardness.md, Theorem 1): the test drops the FIFO order between two
//! commits met inside a segment, and the timing between segments, so it cannot be exact.

use super::execution::tso_cycle;
use super::Witness;
use crate::stop::Stop;
use crate::trace::conflict::{access, same_thread_conflict, Access};
use crate::trace::exec::{Execution, Node, Step};
use crate::trace::{EventId, Op, ThreadId, Trace, VarId};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// What [`prove`] found for a component.
#[derive(Debug)]
pub enum Relax {
    /// No execution has a cycle inside the component.
    Serializable,
    /// An execution and a cycle of its conflict graph: a ring whose commits the cuts
    /// pinned, placed as they were pinned (not yet re-checked: [`super::verify`] does).
    Violation(Box<Witness>),
    /// Relaxed segments close a ring: the component may be serializable or not.
    Maybe,
    /// Not tried: the component has no transaction of two events or over
    /// [`MAX_MULTI`], its graph is over [`MAX_WORK`], or the run was stopped.
    Skipped,
}

/// The most edge visits [`prove`] spends on one component (about a second).
pub const MAX_WORK: u64 = 200_000_000;

/// Where a segment leaves Tᵢ: an event of Tᵢ, or the commit of one of its writes.
type Exit = Node;

/// The first step out of a buffered read of Tᵢ, split because a step to another thread's
/// memory write must come after the commit of the read's buffering write (rule (X) of
/// docs/hardness.md).
#[derive(Clone, Copy, PartialEq, Eq)]
enum First {
    Any,
    /// To a later event of its thread.
    SameThread,
    /// To another thread's memory write, after `c(wb)`.
    Cross(EventId),
}

/// Where a segment enters Tⱼ: any event of any Tⱼ, or the commit of write `y` of one.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Entry {
    Events,
    Commit(EventId),
}

/// The most transactions of two events or more a component may have for [`prove`].
pub const MAX_MULTI: usize = 64;

/// The most cases [`prove`] splits a component into (see there).
pub const MAX_CASES: usize = 256;

/// Decides component `comp` (transaction indices) of `trace`, whose transactions of two
/// events or more (`multi`, per transaction) are T₁ … T_m, m ≤ [`MAX_MULTI`]. A cycle
/// is a ring of *segments*, each from one Tᵢ to the next through single-event
/// transactions only; if the segments found (an over-approximation) close no ring, no
/// execution has a cycle.
///
/// When they close one, the widest commit window on the ring is cut in two halves, and
/// each case (with FIFO's consequences for the thread's other windows) is tried again,
/// up to [`MAX_CASES`] cases: every execution lies in one case, and the ring may not
/// survive in either, since the cut orders that commit against the others.
pub fn prove(trace: &Trace, comp: &[usize], multi: &[bool], stop: &Stop) -> Relax {
    let big: Vec<usize> = comp.iter().copied().filter(|&t| multi[t]).collect();
    if big.is_empty() || big.len() > MAX_MULTI {
        return Relax::Skipped;
    }
    let mut g = Graph::new(trace, comp, &big);
    let runs: Vec<_> = (0..big.len()).flat_map(|i| g.runs(i)).collect();
    let per_case = g.work().saturating_mul(runs.len() as u64);
    if per_case > MAX_WORK {
        return Relax::Skipped;
    }
    let cases = MAX_CASES.min((MAX_WORK / per_case).max(1) as usize);
    let mut scratch = Scratch {
        labels: vec![u64::MAX; 2 * trace.len()],
        parent: vec![usize::MAX; 2 * trace.len()],
    };
    let mut todo = vec![(g.lo.clone(), g.hi.clone())];
    let (mut tried, mut open) = (0, false);
    while let Some((lo, hi)) = todo.pop() {
        tried += 1;
        if tried > cases {
            return Relax::Maybe;
        }
        (g.lo, g.hi) = (lo, hi);
        let ring = match g.ring(big.len(), &runs, &mut scratch, stop) {
            None => return Relax::Skipped,
            Some(None) => continue,
            Some(Some(ring)) => ring,
        };
        let widest = ring
            .into_iter()
            .filter(|&w| g.hi[w] > g.lo[w])
            .max_by_key(|&w| g.hi[w] - g.lo[w]);
        let Some(w) = widest else {
            // Every commit on the ring has one place: try the execution it describes;
            // if it has no cycle, this case stays open, and the others may still hold
            // a violation.
            match g.realize() {
                Some(witness) => return Relax::Violation(Box::new(witness)),
                None => open = true,
            }
            continue;
        };
        let mid = g.lo[w] + (g.hi[w] - g.lo[w]) / 4 * 2;
        todo.extend(
            [g.cut(w, mid, true), g.cut(w, mid, false)]
                .into_iter()
                .flatten(),
        );
    }
    if open {
        Relax::Maybe
    } else {
        Relax::Serializable
    }
}

/// Per-run arrays, reused.
struct Scratch {
    labels: Vec<u64>,
    /// The node each label came from (`usize::MAX`: the way out).
    parent: Vec<usize>,
}

/// [`prove`] on the whole trace as one component.
pub fn prove_trace(trace: &Trace, stop: &Stop) -> Relax {
    let all: Vec<usize> = (0..trace.txns.len()).collect();
    prove(trace, &all, &crate::analysis::multi_event(trace), stop)
}

/// Event `p` at time `2p+1`; gap `g`, just before event `g`, at time `2g` (§5.5).
fn time(e: EventId) -> u64 {
    2 * e as u64 + 1
}

/// The earliest time a commit after time `l` can take: commits sharing a gap are ordered
/// freely, so after a gap the same gap will do; after an event, the next gap.
fn after(l: u64) -> u64 {
    l + (l & 1)
}

fn index(n: Node) -> usize {
    match n {
        Step::Event(e) => 2 * e,
        Step::Commit(w) => 2 * w + 1,
    }
}

/// No transaction of two events: [`Graph::multi_of`] of an event of a single-event one.
const SINGLE: usize = usize::MAX;

/// The component's events, by thread and by variable.
struct Graph<'a> {
    trace: &'a Trace,
    /// Per event: the index of its transaction among T₁ … T_m, or [`SINGLE`].
    multi_of: Vec<usize>,
    threads: Vec<Vec<EventId>>,
    /// Per event of the component: its place in its thread's list.
    place: Vec<usize>,
    reads: Vec<Vec<EventId>>,
    writes: Vec<Vec<EventId>>,
    rmws: Vec<Vec<EventId>>,
    /// Per write: the earliest and latest time its commit may take in this case (§5.5's
    /// window, `[2w+2, 2h]`, narrowed by [`prove`]'s cuts).
    lo: Vec<u64>,
    hi: Vec<u64>,
}

impl<'a> Graph<'a> {
    fn new(trace: &'a Trace, comp: &[usize], big: &[usize]) -> Graph<'a> {
        let mut member = vec![SINGLE; trace.txns.len()];
        comp.iter().for_each(|&c| member[c] = SINGLE - 1);
        big.iter().enumerate().for_each(|(i, &t)| member[t] = i);
        let nvars = trace.vars.len();
        let mut g = Graph {
            trace,
            multi_of: vec![SINGLE; trace.len()],
            threads: vec![Vec::new(); trace.threads.len()],
            place: vec![0; trace.len()],
            reads: vec![Vec::new(); nvars],
            writes: vec![Vec::new(); nvars],
            rmws: vec![Vec::new(); nvars],
            lo: (0..trace.len()).map(|w| time(w) + 1).collect(),
            hi: (0..trace.len())
                .map(|w| 2 * trace.commit_bound(w) as u64)
                .collect(),
        };
        for (i, e) in trace.events.iter().enumerate() {
            let m = member[e.txn.index()];
            if m == SINGLE {
                continue;
            }
            if m != SINGLE - 1 {
                g.multi_of[i] = m;
            }
            let list = &mut g.threads[e.thread.index()];
            g.place[i] = list.len();
            list.push(i);
            if let Some(v) = e.var {
                match e.op {
                    Op::Rd => g.reads[v.index()].push(i),
                    Op::Wr => g.writes[v.index()].push(i),
                    Op::Rmw => g.rmws[v.index()].push(i),
                    Op::Fence => {}
                }
            }
        }
        g
    }

    fn is_multi(&self, e: EventId) -> bool {
        self.multi_of[e] != SINGLE
    }

    /// Edge visits of one run, at most.
    fn work(&self) -> u64 {
        let sq = |n: usize| (n as u64) * (n as u64);
        let po: u64 = self.threads.iter().map(|l| sq(l.len())).sum();
        let cross: u64 = (0..self.reads.len())
            .map(|v| {
                let mem = self.writes[v].len() + self.rmws[v].len();
                2 * (self.reads[v].len() as u64) * mem as u64 + sq(mem)
            })
            .sum();
        po + cross + 1
    }

    /// The commits inside the segments of one ring, if the runs close one (`None`:
    /// stopped).
    #[allow(clippy::type_complexity)]
    fn ring(
        &self,
        m: usize,
        runs: &[(usize, Exit, First, Entry)],
        scratch: &mut Scratch,
        stop: &Stop,
    ) -> Option<Option<Vec<EventId>>> {
        // segment[i][j]: the commits inside one segment from Tᵢ to Tⱼ, if one was found.
        let mut segment: Vec<Vec<Option<Vec<EventId>>>> = vec![vec![None; m]; m];
        for &(from, exit, first, entry) in runs {
            if let Entry::Commit(y) = entry {
                if segment[from][self.multi_of[y]].is_some() {
                    continue;
                }
            }
            for (to, commits) in self.reaches(exit, first, entry, scratch, stop)? {
                segment[from][to].get_or_insert(commits);
            }
        }
        // A ring: depth-first search for a transaction reaching itself.
        for a in 0..m {
            let mut prev = vec![usize::MAX; m];
            let mut stack = vec![a];
            while let Some(i) = stack.pop() {
                for j in 0..m {
                    if segment[i][j].is_none() || (j != a && prev[j] != usize::MAX) {
                        continue;
                    }
                    prev[j] = i;
                    if j != a {
                        stack.push(j);
                        continue;
                    }
                    let mut commits = Vec::new();
                    let mut to = a;
                    loop {
                        let from = prev[to];
                        commits.extend(segment[from][to].iter().flatten());
                        to = from;
                        if to == a {
                            return Some(Some(commits));
                        }
                    }
                }
            }
        }
        Some(None)
    }

    /// The execution with every commit at the earliest time of its window, after its
    /// FIFO predecessor (commits sharing a gap by trace order), if that has a cycle.
    fn realize(&self) -> Option<Witness> {
        let tr = self.trace;
        let mut at = vec![0u64; tr.len()];
        let mut last = vec![0u64; tr.threads.len()];
        let mut commits: Vec<EventId> = tr.writes().collect();
        for &w in &commits {
            let th = self.thread(w).index();
            at[w] = self.lo[w].max(last[th]);
            if at[w] > self.hi[w] {
                return None;
            }
            last[th] = at[w];
        }
        commits.sort_by_key(|&w| (at[w], w));
        let mut steps = Vec::with_capacity(tr.len() + commits.len());
        let mut next = commits.iter().peekable();
        for g in 0..=tr.len() {
            while let Some(&&w) = next.peek().filter(|&&&w| at[w] <= 2 * g as u64) {
                steps.push(Step::Commit(w));
                next.next();
            }
            if g < tr.len() {
                steps.push(Step::Event(g));
            }
        }
        let execution = Execution::new(tr, steps).ok()?;
        let cycle = tso_cycle(tr, &execution)?;
        Some(Witness::Execution { execution, cycle })
    }

    /// The windows with `c(w)` at or before `mid` (`early`) or after it, FIFO carried
    /// to the thread's other writes; `None` if a window is then empty.
    fn cut(&self, w: EventId, mid: u64, early: bool) -> Option<(Vec<u64>, Vec<u64>)> {
        let (mut lo, mut hi) = (self.lo.clone(), self.hi.clone());
        let tr = self.trace;
        let own = self.threads[self.thread(w).index()]
            .iter()
            .copied()
            .filter(|&q| tr.events[q].op == Op::Wr);
        for q in own {
            if early && q <= w {
                hi[q] = hi[q].min(mid);
            } else if !early && q >= w {
                lo[q] = lo[q].max(mid + 2);
            }
            if lo[q] > hi[q] {
                return None;
            }
        }
        Some((lo, hi))
    }

    /// Every (way out, first step, way in) to try from Tᵢ (docs/hardness.md, the
    /// runs), with `i`.
    fn runs(&self, i: usize) -> Vec<(usize, Exit, First, Entry)> {
        let tr = self.trace;
        let events: Vec<EventId> = (0..tr.len()).filter(|&e| self.multi_of[e] == i).collect();
        let is_write = |e: &EventId| tr.events[*e].op == Op::Wr;
        let commits: Vec<EventId> = events.iter().copied().filter(is_write).collect();
        let entries: Vec<Entry> = std::iter::once(Entry::Events)
            .chain(
                (0..tr.len())
                    .filter(|&e| self.is_multi(e) && is_write(&e))
                    .map(Entry::Commit),
            )
            .collect();
        let mut exits: Vec<(Exit, First)> = Vec::new();
        for &x in &events {
            match tr.buffered_by(x) {
                Some(b) if tr.events[x].op == Op::Rd => {
                    exits.push((Step::Event(x), First::SameThread));
                    exits.push((Step::Event(x), First::Cross(b)));
                }
                _ => exits.push((Step::Event(x), First::Any)),
            }
        }
        exits.extend(commits.iter().map(|&x| (Step::Commit(x), First::Any)));
        let mut runs = Vec::new();
        for &(exit, first) in &exits {
            for &entry in &entries {
                if let Entry::Commit(y) = entry {
                    let mine = |x: EventId| self.thread(x) == self.thread(y) && y <= x;
                    // (F1) a way in of the exit's thread is a commit after the way out,
                    // by FIFO; (X) after leaving to c' > c(wb), so is c(y).
                    if matches!(exit, Step::Commit(x) if mine(x))
                        || matches!(first, First::Cross(b) if mine(b))
                    {
                        continue;
                    }
                }
                runs.push((i, exit, first, entry));
            }
        }
        runs
    }

    fn thread(&self, e: EventId) -> ThreadId {
        self.trace.events[e].thread
    }

    /// Under entry at `c(y)`: a read of y's thread buffered by a write at or after `y`
    /// reads its buffer until `c(y)` or later, the end of the segment: (P1), (P2).
    fn shielded(&self, entry: Entry, r: EventId) -> Option<EventId> {
        let Entry::Commit(y) = entry else {
            return None;
        };
        let b = self.trace.buffered_by(r)?;
        (self.thread(r) == self.thread(y) && b >= y).then_some(b)
    }

    /// The possible conflicts out of node `n` at time `l`, as (node, earliest time).
    fn edges(&self, n: Node, l: u64, entry: Entry, out: &mut Vec<(Node, u64)>) {
        out.clear();
        let tr = self.trace;
        let e = n.event();
        let th = self.thread(e);
        let (kind, var) = access(tr, n);
        if let Step::Event(e) = n {
            // Program order (§3.2): every later event of the thread it conflicts with.
            for &q in &self.threads[th.index()][self.place[e] + 1..] {
                if same_thread_conflict(tr, n, Step::Event(q)).is_some() {
                    out.push((Step::Event(q), l.max(time(q))));
                }
            }
            if tr.events[e].op == Op::Wr {
                out.push((Step::Commit(e), after(l)));
            }
        } else {
            // FIFO: the thread's later commits; and the jump back to the write.
            for &q in &self.threads[th.index()][self.place[e] + 1..] {
                if tr.events[q].op == Op::Wr {
                    out.push((Step::Commit(q), l));
                }
            }
            out.push((Step::Event(e), l.max(time(e))));
        }
        let Some(v) = var else { return };
        let other = |q: &&EventId| self.thread(**q) != th;
        match kind {
            Access::Read => {
                if self.shielded(entry, e).is_some() {
                    return;
                }
                self.to_memory(v, l, &other, out);
            }
            Access::MemWrite => {
                for &r in self.reads[v.index()].iter().filter(other) {
                    // (P2): a read shielded until c(y) is reached only from a memory
                    // write before its buffering write.
                    let late = self.shielded(entry, r).is_some_and(|b| l >= time(b));
                    if time(r) > l && !late {
                        out.push((Step::Event(r), time(r)));
                    }
                }
                self.to_memory(v, l, &other, out);
            }
            Access::None => {}
        }
    }

    /// Conflicts with the memory writes of `v` by other threads, from time `l`.
    fn to_memory(
        &self,
        v: VarId,
        l: u64,
        other: &dyn Fn(&&EventId) -> bool,
        out: &mut Vec<(Node, u64)>,
    ) {
        for &w in self.writes[v.index()].iter().filter(other) {
            out.push((Step::Commit(w), after(l)));
        }
        for &g in self.rmws[v.index()].iter().filter(other) {
            if time(g) > l {
                out.push((Step::Event(g), time(g)));
            }
        }
    }

    /// The transactions Tⱼ a segment reaches from the way out `exit` (first step
    /// `first`) by the way in `entry`, each with the commits inside one such segment;
    /// `None` when stopped.
    fn reaches(
        &self,
        exit: Exit,
        first: First,
        entry: Entry,
        scratch: &mut Scratch,
        stop: &Stop,
    ) -> Option<Vec<(usize, Vec<EventId>)>> {
        let Scratch { labels, parent } = scratch;
        labels.iter_mut().for_each(|l| *l = u64::MAX);
        // The commits inside the segment that ends at `node`.
        let inside = |node: usize, parent: &[usize]| {
            // The way out and the way in, when commits, count too: their windows
            // are cut as well.
            let mut commits: Vec<EventId> = [exit, Step::Event(usize::MAX)]
                .into_iter()
                .chain(match entry {
                    Entry::Commit(y) => Some(Step::Commit(y)),
                    Entry::Events => None,
                })
                .filter_map(|n| match n {
                    Step::Commit(w) => Some(w),
                    Step::Event(_) => None,
                })
                .collect();
            let mut i = node;
            while i != usize::MAX {
                if i % 2 == 1 {
                    commits.push(i / 2);
                }
                i = parent[i];
            }
            commits
        };
        let x0 = exit.event();
        let (home, mine) = (self.multi_of[x0], self.thread(x0));
        let start = match exit {
            Step::Event(x) => time(x),
            Step::Commit(x) => self.lo[x],
        };
        let mut reached = Vec::new();
        let mut heap = BinaryHeap::new();
        let mut out = Vec::new();
        let mut node = exit;
        let mut l = start;
        let mut pops = 0u64;
        loop {
            self.edges(node, l, entry, &mut out);
            for &(to, nl) in &out {
                let q = match to {
                    Step::Event(q) | Step::Commit(q) => q,
                };
                if node == exit {
                    let same = self.thread(q) == mine;
                    match first {
                        First::SameThread if !same => continue,
                        First::Cross(_) if same => continue,
                        _ => {}
                    }
                }
                let nl = match to {
                    Step::Commit(w) => nl.max(self.lo[w]),
                    Step::Event(_) => nl,
                };
                if let Step::Commit(w) = to {
                    if nl > self.hi[w] {
                        continue;
                    }
                }
                if self.is_multi(q) {
                    // The segment's end (never inside it).
                    let j = self.multi_of[q];
                    if node == exit && j == home {
                        continue;
                    }
                    let here = if node == exit {
                        usize::MAX
                    } else {
                        index(node)
                    };
                    match entry {
                        Entry::Events
                            if matches!(to, Step::Event(_))
                                && !reached.iter().any(|(k, _)| *k == j) =>
                        {
                            reached.push((j, inside(here, parent)))
                        }
                        Entry::Commit(y) if to == Step::Commit(y) => {
                            return Some(vec![(j, inside(here, parent))])
                        }
                        _ => {}
                    }
                    continue;
                }
                if let Step::Commit(q) = to {
                    let th = self.thread(q);
                    // (F2) no commit of y's thread after the way in c(y); (X) none of
                    // the exit's thread at or before wb after leaving to c' > c(wb);
                    // (F1) none of its thread before the way out c(x).
                    let f2 = matches!(entry, Entry::Commit(y) if th == self.thread(y) && q > y);
                    let x = matches!(first, First::Cross(b) if th == mine && q <= b);
                    let f1 = matches!(exit, Step::Commit(x) if th == mine && q < x);
                    if f2 || x || f1 {
                        continue;
                    }
                }
                let i = index(to);
                if nl < labels[i] {
                    labels[i] = nl;
                    parent[i] = if node == exit {
                        usize::MAX
                    } else {
                        index(node)
                    };
                    heap.push(Reverse((nl, i)));
                }
            }
            // The next node to settle.
            loop {
                let Some(Reverse((nl, i))) = heap.pop() else {
                    return Some(reached);
                };
                if nl != labels[i] {
                    continue;
                }
                pops += 1;
                if pops.is_multiple_of(4096) && stop.expired() {
                    return None;
                }
                node = if i % 2 == 0 {
                    Step::Event(i / 2)
                } else {
                    Step::Commit(i / 2)
                };
                l = nl;
                break;
            }
        }
    }
}
