//! Conflicts that every execution of a trace has, in the same direction
//! ("forced" edges), built in O(n·k·log n) for n events and k threads.
//!
//! Times: event `p` is at `2p+1`; gap `g` (between events `g-1` and `g`) is at `2g`.
//! A commit of write `w` with bound `h` lies in gaps `w+1 ..= h`: times `2w+2 ..= 2h`.
//! Two memory writes are ordered in every execution iff the latest time of one is
//! below the earliest of the other; commits sharing a gap may go either way.
//!
//! Only a reachability-preserving subset of edges is built. Within a thread, the
//! latest event of each class that conflicts. Across threads, per variable: a
//! thread's accesses of one variable form a chain of same-thread conflicts between
//! their transactions, in issue order (writes chain, reads follow the fences and
//! writes before them). So an access gets at most one edge from each other thread,
//! from that thread's latest access that conflicts with it in every execution, and
//! none when an earlier access of its own chain already has one from there or later.
//! Tests compare reachability with the all-pairs definition.

use super::{ConflictGraph, Packed};
use crate::trace::conflict::Rule;
use crate::trace::exec::{Node, Step};
use crate::trace::{EventId, Op, Trace};
use crate::trace::{ThreadId, TiVec, TxnId, VarId};
use fixedbitset::FixedBitSet;

/// Same-thread conflicts among trace events (Eq. 1 (2)), as a reachability-preserving
/// subset: `f(a, b)` for `a` before `b`. Same-thread conflicts of commits add nothing
/// at the level of transactions: each is implied by a conflict of its write issue.
pub fn same_thread_edges(trace: &Trace, f: impl FnMut(EventId, EventId)) {
    same_thread_edges_among(trace, &Among::all(trace), f)
}

/// [`same_thread_edges`] among the events of `among`, the others passed over: within a
/// stretch of consecutive kept transactions the edges are those of all events; an
/// edge from one stretch into a later one may jump over the transactions passed.
fn same_thread_edges_among(trace: &Trace, among: &Among, mut f: impl FnMut(EventId, EventId)) {
    #[derive(Clone, Default)]
    struct State {
        /// Latest fence, rmw or non-buffered read: a conflict chain.
        last_f: Option<EventId>,
        /// Latest write: writes form a conflict chain.
        last_w: Option<EventId>,
        /// Buffered reads not yet followed by a write, fence or rmw.
        pending_b: Vec<EventId>,
    }
    let mut st = trace.per_thread(State::default());
    // Latest write or buffered read per (thread, var): a conflict chain per variable.
    let mut last_wb: rustc_hash::FxHashMap<(ThreadId, VarId), EventId> = Default::default();
    for (i, e) in among.events(trace) {
        let s = &mut st[e.thread];
        match e.op {
            Op::Fence | Op::Rmw | Op::Wr => {
                // Conflicts with every earlier event of the thread.
                s.last_f.into_iter().chain(s.last_w).for_each(|a| f(a, i));
                s.pending_b.drain(..).for_each(|a| f(a, i));
                if e.op == Op::Wr {
                    s.last_w = Some(i);
                    last_wb.insert((e.thread, e.var.unwrap()), i);
                } else {
                    s.last_f = Some(i);
                }
            }
            Op::Rd if trace.is_buffered(i) => {
                // Excepted (iii): earlier writes and buffered reads of other variables.
                let key = (e.thread, e.var.unwrap());
                s.last_f
                    .into_iter()
                    .chain(last_wb.get(&key).copied())
                    .for_each(|a| f(a, i));
                s.pending_b.push(i);
                last_wb.insert(key, i);
            }
            Op::Rd => {
                // Non-buffered: every earlier write of its variable is behind a fence/rmw.
                if let Some(a) = s.last_f {
                    f(a, i);
                }
                s.last_f = Some(i);
            }
        }
    }
}

/// An access of one variable in [`forced_cross_edges`]: its times, its node (packed,
/// [`super::pack`]) and its transaction, so the search by variable reads no event.
/// 16 bytes: times fit a `u32` below [`crate::trace::MAX_EVENTS`] (at most 2·n).
#[derive(Clone, Copy)]
struct Access {
    /// Memory writes: earliest and latest time; reads: `cut` and `cut_after`.
    lo: u32,
    hi: u32,
    node: u32,
    txn: TxnId,
}

impl Access {
    fn node(self) -> Node {
        super::unpack(self.node)
    }

    /// The trace event (a commit's write).
    fn issue(self) -> EventId {
        super::packed_event(self.node)
    }
}

/// The accesses of one variable, per thread (a slot each, in the order the threads
/// first access it), as ranges of one vector of every access ([`Accesses`]).
#[derive(Default)]
struct VarLists {
    /// Memory writes per slot, FIFO order (`lo`, `hi`: earliest and latest time,
    /// both monotone).
    mw: Vec<std::ops::Range<usize>>,
    /// Reads per slot, program order (`lo`, `hi`: cut and cut_after, both monotone).
    rd: Vec<std::ops::Range<usize>>,
    threads: Vec<ThreadId>,
}

impl VarLists {
    fn len(&self) -> usize {
        self.mw
            .iter()
            .chain(&self.rd)
            .map(ExactSizeIterator::len)
            .sum()
    }
}

/// Every access of a variable in one vector, grouped by variable and slot (one block:
/// given back whole once the passes are done), and each variable's lists.
struct Accesses {
    all: Vec<Access>,
    vars: TiVec<VarId, VarLists>,
}

/// Each (variable, thread)'s slot in its variable's [`VarLists`]: a flat table when
/// it is small, else a hash map.
enum Slots {
    Flat { k: usize, slot: Vec<u32> },
    Map(rustc_hash::FxHashMap<(VarId, ThreadId), u32>),
}

impl Slots {
    fn new(trace: &Trace) -> Slots {
        let (k, m) = (trace.threads.len(), trace.vars.len());
        match k.checked_mul(m).filter(|&n| n <= 1 << 24) {
            Some(n) => Slots::Flat {
                k,
                slot: vec![u32::MAX; n],
            },
            None => Slots::Map(Default::default()),
        }
    }

    /// The slot of `t` in `x`'s lists, made (empty) on its first access.
    fn get(&mut self, x: VarId, t: ThreadId, vl: &mut VarLists) -> usize {
        let s = match self {
            Slots::Flat { k, slot } => &mut slot[x.index() * *k + t.index()],
            Slots::Map(map) => map.entry((x, t)).or_insert(u32::MAX),
        };
        if *s == u32::MAX {
            *s = vl.threads.len() as u32;
            vl.threads.push(t);
            vl.mw.push(0..0);
            vl.rd.push(0..0);
        }
        *s as usize
    }
}

/// An upper estimate of the cross-thread edges the sparse constructions keep (each
/// access gets at most one edge to each other thread that writes its variable, each
/// write one to each other thread that touches it), for a memory bound before building.
pub fn estimated_cross_edges(trace: &Trace) -> u128 {
    let mut accesses = trace.per_var(0u128);
    let mut writes = trace.per_var(0u128);
    let mut touch: rustc_hash::FxHashSet<(VarId, ThreadId)> = Default::default();
    let mut write_threads: rustc_hash::FxHashSet<(VarId, ThreadId)> = Default::default();
    for e in &trace.events {
        if let Some(x) = e.var {
            accesses[x] += 1;
            touch.insert((x, e.thread));
            if matches!(e.op, crate::trace::Op::Wr | crate::trace::Op::Rmw) {
                writes[x] += 1;
                write_threads.insert((x, e.thread));
            }
        }
    }
    let mut threads = trace.per_var(0u128);
    let mut writers = trace.per_var(0u128);
    for &(x, _) in &touch {
        threads[x] += 1;
    }
    for &(x, _) in &write_threads {
        writers[x] += 1;
    }
    trace
        .vars
        .keys()
        .map(|x| accesses[x] * writers[x] + writes[x] * threads[x])
        .sum()
}

/// Bytes the event graphs keep per edge, for [`estimated_cross_edges`].
pub const BYTES_PER_EDGE: u128 = 48;

/// `Err` when the estimated edges would pass `budget` bytes.
pub fn within_memory(trace: &Trace, budget: usize) -> Result<(), crate::mem::OverBudget> {
    let bytes = estimated_cross_edges(trace) * BYTES_PER_EDGE;
    if bytes > budget as u128 {
        return Err(crate::mem::OverBudget::ConflictGraph {
            bytes,
            threads: trace.threads.len(),
            budget,
        });
    }
    Ok(())
}

/// Time of trace event `p`.
pub fn event_time(p: usize) -> u64 {
    2 * p as u64 + 1
}

/// Earliest and latest time of the commit of write `w`.
pub fn commit_times(trace: &Trace, w: EventId) -> (u64, u64) {
    (2 * w as u64 + 2, 2 * trace.commit_bound(w) as u64)
}

/// Cross-thread conflicts present, in this direction, in every execution:
/// `f((a, its transaction), (b, its transaction), rule)`.
pub fn forced_cross_edges(trace: &Trace, mut f: impl FnMut((Node, TxnId), (Node, TxnId), Rule)) {
    let a = var_lists(trace);
    for vl in &a.vars {
        cross_edges_of(&a.all, vl, &mut f);
    }
}

/// Each variable's accesses, per thread, in two passes over the trace: one counts each
/// list's accesses, the other writes them in place in one vector (lists grown one by
/// one were copied into fresh pages, and stayed resident in the heap once freed).
fn var_lists(trace: &Trace) -> Accesses {
    var_lists_with(trace, Slots::new(trace), &Among::all(trace))
}

/// [`var_lists`] with the slots kept in `slots`, of the events of `among`.
fn var_lists_with(trace: &Trace, mut slots: Slots, among: &Among) -> Accesses {
    let mut vars: TiVec<VarId, VarLists> = trace.vars.keys().map(|_| VarLists::default()).collect();
    // Accesses per list, `[memory writes, reads]`, by variable and slot.
    let mut sizes: TiVec<VarId, Vec<[usize; 2]>> = trace.per_var(Vec::new());
    for (_, e) in among.events(trace) {
        let Some(x) = e.var else { continue };
        let s = slots.get(x, e.thread, &mut vars[x]);
        if sizes[x].len() <= s {
            sizes[x].push([0, 0]);
        }
        sizes[x][s][usize::from(e.op == Op::Rd)] += 1;
    }
    // The lists' places, one after the other; `next`: where each list's next access goes.
    let mut at = 0;
    for (vl, sizes) in vars.raw.iter_mut().zip(&sizes.raw) {
        for (s, &[w, r]) in sizes.iter().enumerate() {
            vl.mw[s] = at..at + w;
            vl.rd[s] = at + w..at + w + r;
            at += w + r;
        }
    }
    drop(sizes);
    let mut next: TiVec<VarId, Vec<[usize; 2]>> = vars
        .iter()
        .map(|vl| {
            vl.mw
                .iter()
                .zip(&vl.rd)
                .map(|(w, r)| [w.start, r.start])
                .collect()
        })
        .collect();
    let mut all: Vec<Access> = Vec::with_capacity(at);
    let room = all.spare_capacity_mut();
    for (p, e) in among.events(trace) {
        let Some(x) = e.var else { continue };
        let s = slots.get(x, e.thread, &mut vars[x]);
        let access = |(lo, hi): (u64, u64), node: Node| Access {
            lo: u32::try_from(lo).expect("times below 2^32 (MAX_EVENTS)"),
            hi: u32::try_from(hi).expect("times below 2^32 (MAX_EVENTS)"),
            node: super::pack(node),
            txn: e.txn,
        };
        let a = match e.op {
            Op::Wr => access(commit_times(trace, p), Step::Commit(p)),
            Op::Rmw => access((event_time(p), event_time(p)), Step::Event(p)),
            Op::Rd => {
                // A buffered read may be parallel with memory writes after its write and
                // before that write's commit (exception (i)).
                let cuts = match trace.buffered_by(p) {
                    Some(w) => (event_time(w), commit_times(trace, w).1),
                    None => (event_time(p), event_time(p)),
                };
                access(cuts, Step::Event(p))
            }
            Op::Fence => unreachable!(),
        };
        let to = &mut next[x][s][usize::from(e.op == Op::Rd)];
        room[*to].write(a);
        *to += 1;
    }
    // SAFETY: every place 0..at was written once: each list's count is its accesses.
    unsafe { all.set_len(at) };
    Accesses { all, vars }
}

/// [`forced_cross_edges`] of one variable: the passes of the variables are independent.
fn cross_edges_of(
    all: &[Access],
    vl: &VarLists,
    f: &mut impl FnMut((Node, TxnId), (Node, TxnId), Rule),
) {
    let k = vl.threads.len();
    let lists = |l: &[std::ops::Range<usize>]| -> Vec<&[Access]> {
        l.iter().map(|r| &all[r.clone()]).collect()
    };
    let (mws, rds) = (lists(&vl.mw), lists(&vl.rd));
    // linked[o]: the latest access of thread o already linked into s's chain.
    let mut linked: Vec<Option<EventId>> = vec![None; k];
    // Per other thread, how many of its memory writes (reads) lie before the
    // current memory write of s, and how many of its memory writes before the
    // current read: each only grows, as the targets' times do.
    let (mut ww, mut rw, mut wr) = (vec![0; k], vec![0; k], vec![0; k]);
    for s in 0..k {
        linked.iter_mut().for_each(|l| *l = None);
        for v in [&mut ww, &mut rw, &mut wr] {
            v.iter_mut().for_each(|p| *p = 0);
        }
        // s's accesses of the variable in issue order: memory writes and reads merged.
        let (mw, rd) = (mws[s], rds[s]);
        let (mut i, mut j) = (0, 0);
        while i < mw.len() || j < rd.len() {
            let write_next = j == rd.len() || (i < mw.len() && mw[i].issue() < rd[j].issue());
            let target = if write_next { mw[i] } else { rd[j] };
            let early = target.lo;
            for o in (0..k).filter(|&o| o != s) {
                // The latest memory write of o before the target, and for a memory
                // write also the latest read: both conflict with it in every
                // execution, and the earlier reaches the later through o's chain.
                let before = |list: &[Access], p: &mut usize| {
                    while *p < list.len() && list[*p].hi < early {
                        *p += 1;
                    }
                    *p
                };
                let w = before(mws[o], if write_next { &mut ww[o] } else { &mut wr[o] });
                let mut from = (w > 0).then(|| (mws[o][w - 1], Rule::WriteWrite));
                if write_next {
                    let r = before(rds[o], &mut rw[o]);
                    let read = r.checked_sub(1).map(|r| rds[o][r]);
                    if let Some(read) =
                        read.filter(|rd| from.is_none_or(|(m, _)| m.issue() < rd.issue()))
                    {
                        from = Some((read, Rule::ReadWrite));
                    }
                } else if let Some((_, rule)) = from.as_mut() {
                    *rule = Rule::WriteRead;
                }
                // An access of o no later than one already linked reaches the
                // target through o's chain, that link and s's chain.
                if let Some((a, rule)) = from {
                    if linked[o].is_none_or(|l| l < a.issue()) {
                        linked[o] = Some(a.issue());
                        f((a.node(), a.txn), (target.node(), target.txn), rule);
                    }
                }
            }
            if write_next {
                i += 1;
            } else {
                j += 1;
            }
        }
    }
}

/// The transaction graph of [`same_thread_edges`]: fixed in every execution.
pub fn same_thread_graph(trace: &Trace) -> ConflictGraph {
    let mut g = ConflictGraph::new(trace.txns.len());
    same_thread_edges(trace, |a, b| {
        g.add(
            trace.events[a].txn.index(),
            trace.events[b].txn.index(),
            Step::Event(a),
            Step::Event(b),
            Rule::ProgramOrder,
        )
    });
    g
}

/// The conflict graph of forced edges: if it has a cycle, every execution has it.
pub fn forced_graph(trace: &Trace) -> ConflictGraph {
    let packed = forced_packed(trace, &crate::Stop::default()).expect("no memory budget");
    ConflictGraph::from_edges(trace.txns.len(), super::unpack_edges(trace, &packed))
}

/// The edges of [`forced_graph`] packed, or `None` once the heap passes `stop`'s
/// memory budget (polled every 2¹⁶ edges; past it, the rest are not stored). The
/// trace's events fit a packed node ([`crate::trace::MAX_EVENTS`]).
pub fn forced_packed(trace: &Trace, stop: &crate::Stop) -> Option<Vec<Packed>> {
    forced_parts(trace, stop, &Among::all(trace)).map(|f| f.parts.concat())
}

/// The events among which [`forced_parts`] builds the forced edges: those in `events`
/// of the transactions in `keep` (all when `None`), which are numbered within `txns`.
/// `check::front` passes stretches of consecutive transactions that every forced
/// backward arc lies within, found before the edges are built, a slice of the trace
/// at a time.
pub struct Among<'a> {
    pub events: std::ops::Range<usize>,
    pub txns: std::ops::Range<usize>,
    pub keep: Option<&'a FixedBitSet>,
}

impl Among<'_> {
    /// Every event of the trace.
    pub fn all(trace: &Trace) -> Among<'static> {
        Among {
            events: 0..trace.len(),
            txns: 0..trace.txns.len(),
            keep: None,
        }
    }

    /// The events, with their places in the trace.
    fn events<'t>(
        &self,
        trace: &'t Trace,
    ) -> impl Iterator<Item = (EventId, &'t crate::trace::Event)> + use<'t, '_> {
        let keep = self.keep;
        let start = self.events.start;
        trace.events[self.events.clone()]
            .iter()
            .enumerate()
            .map(move |(i, e)| (start + i, e))
            .filter(move |(_, e)| keep.is_none_or(|k| k.contains(e.txn.index())))
    }
}

/// [`forced_packed`] in the parts the passes made, in order (what is read once in
/// order needs no copy into one vector), and how far back edges reach.
pub struct ForcedParts {
    /// The same-thread edges, then the variables' runs.
    pub parts: Vec<Vec<Packed>>,
    /// Per transaction t of [`Among::txns`] (at `t - txns.start`), the latest
    /// transaction with a forced edge into t, if later than t (else 0): the backward
    /// arcs, noted as the edges are made, so that finding the runs they cover
    /// (`check::front`) reads no edge again.
    pub back: Vec<u32>,
}

/// The edges of [`forced_packed`] as [`ForcedParts`], or `None` once the heap passes
/// `stop`'s memory budget. Among a part of the trace ([`Among`]), the edges are
/// forced conflicts that preserve the reachability among the events of each stretch
/// of consecutive kept transactions that no forced backward arc leaves, not among
/// all events.
pub fn forced_parts(trace: &Trace, stop: &crate::Stop, among: &Among) -> Option<ForcedParts> {
    use rayon::prelude::*;
    use std::sync::atomic::{AtomicU32, Ordering::Relaxed};
    let back: Vec<AtomicU32> = among.txns.clone().map(|_| AtomicU32::new(0)).collect();
    let first = among.txns.start;
    /// Polls the heap every 2¹⁶ edges; past the budget, stores no more.
    fn adder<'a>(
        out: &'a mut Vec<Packed>,
        back: &'a [AtomicU32],
        first: usize,
        stop: &'a crate::Stop,
    ) -> impl FnMut((Node, TxnId), (Node, TxnId), Rule) + 'a {
        move |(a, ta), (b, tb), rule| {
            if out.len().is_multiple_of(1 << 16) && stop.over_memory() {
                return;
            }
            if ta != tb {
                out.push(Packed::new(a, b, rule));
                // A backward arc: rare beside the edges, and seldom the furthest yet.
                let (from, to) = (ta.index() as u32, tb.index() - first);
                if (tb.index() as u32) < from && back[to].load(Relaxed) < from {
                    back[to].fetch_max(from, Relaxed);
                }
            }
        }
    }
    let mut out = Vec::new();
    let at = |e: EventId| (Step::Event(e), trace.events[e].txn);
    {
        let mut add = adder(&mut out, &back, first, stop);
        same_thread_edges_among(trace, among, |a, b| add(at(a), at(b), Rule::ProgramOrder));
    }
    // The variables' passes in parallel, in runs of about equal accesses, each run's
    // edges then appended in order: the same edges in the same order as one pass.
    let a = var_lists_with(trace, Slots::new(trace), among);
    let mut parts: Vec<Vec<Packed>> = runs(&a.vars.raw, VarLists::len)
        .into_par_iter()
        .map(|run| {
            let mut part = Vec::new();
            {
                let mut add = adder(&mut part, &back, first, stop);
                for vl in &a.vars.raw[run] {
                    cross_edges_of(&a.all, vl, &mut add);
                }
            }
            part
        })
        .collect();
    drop(a);
    parts.insert(0, out);
    let back = back.into_iter().map(AtomicU32::into_inner).collect();
    (!stop.over_memory()).then_some(ForcedParts { parts, back })
}

/// `items` cut into consecutive runs of about equal `size`, several per thread of the
/// pool (what a pass per variable splits among the threads).
pub(crate) fn runs<T>(items: &[T], size: impl Fn(&T) -> usize) -> Vec<std::ops::Range<usize>> {
    let total: usize = items.iter().map(&size).sum();
    let per_run = total / (8 * rayon::current_num_threads()) + 1;
    let mut out = Vec::new();
    let (mut start, mut held) = (0, 0);
    for (i, x) in items.iter().enumerate() {
        held += size(x);
        if held >= per_run || i + 1 == items.len() {
            out.push(start..i + 1);
            (start, held) = (i + 1, 0);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The flat table of slots and the hash map (taken past 2²⁴ variable-thread
    /// pairs) give the same lists, slot by slot, in the same order.
    #[test]
    fn both_slot_tables_give_the_same_lists() {
        use crate::trace::gen::{generate, Shape};
        for seed in 0..40 {
            let shape = Shape {
                threads: 2 + seed as usize % 6,
                vars: 3 + seed as usize % 20,
                ..Shape::realistic(400)
            };
            let t = generate(&shape, seed);
            let flat = var_lists_with(&t, Slots::new(&t), &Among::all(&t));
            assert!(matches!(Slots::new(&t), Slots::Flat { .. }));
            let map = var_lists_with(&t, Slots::Map(Default::default()), &Among::all(&t));
            let key = |a: &Accesses| -> Vec<_> {
                let acc = |x: &Access| (x.lo, x.hi, x.node, x.txn);
                a.vars
                    .raw
                    .iter()
                    .map(|vl| {
                        let lists = |l: &Vec<std::ops::Range<usize>>| -> Vec<Vec<_>> {
                            l.iter()
                                .map(|r| a.all[r.clone()].iter().map(acc).collect())
                                .collect()
                        };
                        (vl.threads.clone(), lists(&vl.mw), lists(&vl.rd))
                    })
                    .collect()
            };
            assert_eq!(key(&flat), key(&map), "seed {seed}");
            assert!(flat.vars.raw.iter().any(|vl| vl.threads.len() > 1));
        }
    }
}
