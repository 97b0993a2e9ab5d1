//! What every decider shares, derived from the definitions (docs/semantics.md §5): each
//! node's time window (an event at 2p+1, the commit of store w anywhere in 2w+2 … 2h),
//! which orders are fixed ([`fixed_order`]), the *varying pairs* whose order depends on
//! the commit placement, the graph of possible conflicts and its components, what a
//! conflict requires of a placement ([`requirement`]), and the topological sort that
//! turns chosen orders into an execution (`sort`). `--algo sat` and `--algo fpt` build
//! on it; the `brute` oracle does not (it enumerates executions from the definitions).

mod grouped;
pub(crate) mod sort;

pub use grouped::{Grouped, PartsGrouped};

use crate::graph::forced::{commit_times, event_time};
use crate::graph::paper::PaperGraph;
use crate::graph::{packed_event, unpack, ConflictGraph, Packed};
use crate::trace::conflict::{access, txn, Access, Rule};
use crate::trace::exec::{Node, Step};
use crate::trace::TiVec;
use crate::trace::VarId;
use crate::trace::{EventId, Op, Trace};

/// Earliest and latest time of a node (see [`crate::graph::forced`]).
pub fn times(trace: &Trace, n: Node) -> (u64, u64) {
    match n {
        Step::Event(e) => (event_time(e), event_time(e)),
        Step::Commit(w) => commit_times(trace, w),
    }
}

/// The span of times in which a node's conflicts vary: its own interval, widened for
/// a buffered read to its store's issue and latest commit (exception (i)).
pub fn span(trace: &Trace, n: Node) -> (u64, u64) {
    match n {
        Step::Event(r) if trace.events[r].op == Op::Rd => match trace.buffered_by(r) {
            Some(w) => (event_time(w), commit_times(trace, w).1),
            None => times(trace, n),
        },
        _ => times(trace, n),
    }
}

/// Cross-thread pairs (reads, commits, rmws of one variable, not two reads) whose
/// conflict is not the same in every execution: their spans meet. A sweep per variable
/// with the open spans of each thread (reads apart): O(n log n + n·k + pairs). (The
/// first version scanned every later span that met, same thread included: quadratic on
/// one thread's writes without fences.) Pairs come out per variable in the order of
/// the spans sorted by (start, end), so encodings are stable.
pub fn varying_pairs(trace: &Trace) -> Vec<(Node, Node)> {
    varying_pairs_within(trace, usize::MAX).expect("no bound")
}

/// Bytes a decider holds per varying pair (the pair, its conflict literals, clauses
/// and jumps), for the memory bound of [`max_pairs`].
pub const BYTES_PER_PAIR: usize = 256;

/// The varying pairs a memory budget of `bytes` allows.
pub fn max_pairs(bytes: usize) -> usize {
    bytes / BYTES_PER_PAIR
}

/// [`varying_pairs`], or `Err(n)` as soon as more than `max` pairs exist (`n` found so
/// far): a trace whose possible conflicts would not fit in memory (thousands of
/// unfenced threads on one variable) ends as *unknown*, not in an allocator abort.
pub fn varying_pairs_within(trace: &Trace, max: usize) -> Result<Vec<(Node, Node)>, usize> {
    /// A node's span with what the sweep asks of it, so it reads no event: 16 bytes
    /// (times fit a `u32` below [`crate::trace::MAX_EVENTS`]; the node packed; its
    /// thread's index and whether it is a read in one word: at 10⁸ events the lists
    /// are 1.6 GB of fresh pages, where 20 bytes a span made 2 GB).
    #[derive(Clone)]
    struct Span {
        lo: u32,
        hi: u32,
        node: u32,
        /// Thread index · 2 + 1 for a read.
        who: u32,
    }
    impl Span {
        fn thread(&self) -> crate::trace::ThreadId {
            crate::trace::ThreadId::new((self.who >> 1) as usize)
        }
        fn read(&self) -> usize {
            (self.who & 1) as usize
        }
    }
    const _: () = assert!(std::mem::size_of::<Span>() == 16);
    // Each list made at its size first: growing it would copy it into fresh pages.
    let mut sizes = trace.per_var(0usize);
    for e in &trace.events {
        if let (Some(x), false) = (e.var, e.op == Op::Fence) {
            sizes[x] += 1;
        }
    }
    let mut by_var: TiVec<VarId, Vec<Span>> =
        sizes.raw.iter().map(|&n| Vec::with_capacity(n)).collect();
    for (i, e) in trace.events.iter().enumerate() {
        let node = match e.op {
            Op::Wr => Step::Commit(i),
            Op::Rd | Op::Rmw => Step::Event(i),
            Op::Fence => continue,
        };
        let (lo, hi) = span(trace, node);
        by_var[e.var.unwrap()].push(Span {
            lo: lo as u32,
            hi: hi as u32,
            node: crate::graph::pack(node),
            who: u32::try_from(e.thread.index() << 1 | usize::from(e.op == Op::Rd))
                .expect("fewer than 2^31 threads"),
        });
    }
    use rayon::prelude::*;
    use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
    // Each list is in trace order, so sorted by `lo` but for buffered reads (whose span
    // starts at their store): a stable sort merges such runs in about linear time
    // (an unstable one took 7% of a 10⁷-event check), and keeps ties in trace order.
    by_var
        .raw
        .par_iter_mut()
        .for_each(|list| list.sort_by_key(|x| (x.lo, x.hi)));
    // The variables' sweeps in parallel, in runs of about equal spans, each run's pairs
    // then appended in order: the same pairs in the same order as one sweep. `done`:
    // the pairs of the variables swept so far, for the bound.
    let done = AtomicUsize::new(0);
    let parts: Vec<Result<Vec<(Node, Node)>, usize>> =
        crate::graph::forced::runs(&by_var.raw, Vec::len)
            .into_par_iter()
            .map(|run| {
                let mut out = Vec::new();
                // Open spans per thread: [thread][0 = not a read, 1 = read] → indices into
                // the list; `active`: the threads with open spans, so a step visits only those.
                let mut open = trace.per_thread([Vec::<usize>::new(), Vec::new()]);
                let mut active: Vec<crate::trace::ThreadId> = Vec::new();
                let mut found: Vec<(usize, usize)> = Vec::new();
                for list in &by_var.raw[run] {
                    found.clear();
                    for (j, b) in list.iter().enumerate() {
                        let (read, thread) = (b.read(), b.thread());
                        let mut k = 0;
                        while k < active.len() {
                            let t = active[k];
                            let o = &mut open[t];
                            for spans in o.iter_mut() {
                                spans.retain(|&i| list[i].hi >= b.lo);
                            }
                            if o[0].is_empty() && o[1].is_empty() {
                                active.swap_remove(k);
                                continue;
                            }
                            k += 1;
                            if t == thread {
                                continue;
                            }
                            // A read pairs with non-reads only; the rest with both.
                            for spans in o.iter().take(2 - read) {
                                found.extend(spans.iter().map(|&i| (i, j)));
                            }
                            let n = done.load(Relaxed).saturating_add(found.len());
                            if n > max {
                                return Err(n);
                            }
                        }
                        let o = &mut open[thread];
                        if o[0].is_empty() && o[1].is_empty() {
                            active.push(thread);
                        }
                        o[read].push(j);
                    }
                    for t in active.drain(..) {
                        open[t] = Default::default();
                    }
                    found.sort_unstable();
                    done.fetch_add(found.len(), Relaxed);
                    out.extend(
                        found
                            .iter()
                            .map(|&(i, j)| (unpack(list[i].node), unpack(list[j].node))),
                    );
                }
                Ok(out)
            })
            .collect();
    let mut out = Vec::with_capacity(parts.iter().flatten().map(Vec::len).sum());
    for part in parts {
        out.extend(part?);
    }
    Ok(out)
}

/// Each event's transaction, as a column (4 bytes an event, where an event takes
/// more than 40): what [`Packed::arc_in`] and [`Buckets::new`] look up at random.
pub fn txn_column(trace: &Trace) -> Vec<crate::trace::TxnId> {
    // Read at random by the pruning: huge pages ([`crate::mem::advise_huge`]).
    crate::mem::collect_huge(trace.events.iter().map(|e| e.txn))
}

/// Components of the graph of every conflict some execution may have: the forced
/// edges plus each varying pair in each direction its order allows (it contains every
/// execution's graph). `txn_of`: [`txn_column`].
pub fn possible_components(
    trace: &Trace,
    txn_of: &[crate::trace::TxnId],
    forced: &[Packed],
    pairs: &[(Node, Node)],
) -> (Vec<Vec<usize>>, CompOf) {
    let extra = possible_arcs(trace, pairs);
    let groups = trace.txns.len();
    let comps = strong_components_of_packed(groups, txn_of, forced, &extra);
    let of = comp_index(groups, &comps);
    (comps, of)
}

/// The components of the transactions' graph with the arcs of `forced` (their events'
/// transactions in `txn_of`) and then those of `extra`: the forced edges read in
/// order, each event's transaction prefetched some edges ahead
/// ([`crate::graph::strong_components_indexed`]).
pub fn strong_components_of_packed(
    groups: usize,
    txn_of: &[crate::trace::TxnId],
    forced: &[Packed],
    extra: &[(u32, u32)],
) -> Vec<Vec<usize>> {
    let n = forced.len();
    let source = |i: usize| match forced.get(i) {
        Some(e) => e.src_in(txn_of),
        None => extra[i - n].0 as usize,
    };
    let target = |i: usize| match forced.get(i) {
        Some(e) => txn_of[packed_event(e.dst_node())].index(),
        None => extra[i - n].1 as usize,
    };
    let hint = |i: usize| {
        if let Some(e) = forced.get(i) {
            crate::mem::prefetch(txn_of, packed_event(e.src_node()));
            crate::mem::prefetch(txn_of, packed_event(e.dst_node()));
        }
    };
    crate::graph::strong_components_indexed(groups, n + extra.len(), source, target, hint)
}

/// The varying pairs as arcs between transactions (from, to), each direction the
/// times allow (the part of [`possible_components`]' graph beyond the forced edges):
/// 8 bytes an arc, where a [`crate::graph::Edge`] would take 56.
pub fn possible_arcs(trace: &Trace, pairs: &[(Node, Node)]) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    for &(a, b) in pairs {
        let ((ea, la), (eb, lb)) = (times(trace, a), times(trace, b));
        let (ta, tb) = (txn(trace, a).index() as u32, txn(trace, b).index() as u32);
        if ta != tb {
            if ea <= lb {
                out.push((ta, tb));
            }
            if eb <= la {
                out.push((tb, ta));
            }
        }
    }
    out
}

/// The group holding both `x` and `y`, if they share one (`comp_of`: each one's
/// group, or [`NONE`]: a transaction's component, or a transaction's or an event's
/// run).
pub(crate) fn shared_component(comp_of: &[u32], x: usize, y: usize) -> Option<usize> {
    let c = comp_of[x];
    (c != NONE && comp_of[y] == c).then_some(c as usize)
}

/// Forced edges (packed) and varying pairs bucketed by the component holding both
/// ends (built once, in place; each component's encoding then reads only its own
/// bucket, unpacked with [`crate::graph::unpack_edges`]).
pub struct Buckets {
    pub forced: Grouped<Packed>,
    pub pairs: Grouped<(Node, Node)>,
}

impl Buckets {
    /// `kept[c]`: the bucket of component c, if it is kept; the rest is dropped.
    /// `txn_of`: each event's transaction ([`Packed::arc_in`]).
    pub fn new(
        txn_of: &[crate::trace::TxnId],
        forced: Vec<Packed>,
        pairs: Vec<(Node, Node)>,
        kept: &[Option<usize>],
        comp_of: &[u32],
    ) -> Buckets {
        let buckets = kept.iter().flatten().count();
        // Each event's bucket, or NONE, in one pass in order: then two look-ups an
        // edge where its transactions and their components would take four.
        let bucket_of: Vec<u32> =
            crate::mem::collect_huge(txn_of.iter().map(|t| match comp_of[t.index()] {
                NONE => NONE,
                c => kept[c as usize].map_or(NONE, |k| k as u32),
            }));
        let shared = |x: usize, y: usize| {
            let b = bucket_of[x];
            (b != NONE && bucket_of[y] == b).then_some(b as usize)
        };
        let ahead = |e: &Packed| {
            crate::mem::prefetch(&bucket_of, packed_event(e.src_node()));
            crate::mem::prefetch(&bucket_of, packed_event(e.dst_node()));
        };
        let key = |e: &Packed| shared(packed_event(e.src_node()), packed_event(e.dst_node()));
        Buckets {
            forced: Grouped::new_ahead(forced, buckets, key, ahead),
            pairs: Grouped::new(pairs, buckets, |&(x, y)| shared(x.event(), y.event())),
        }
    }
}

/// What "x precedes y and they conflict" asks of the commit placement: an order that
/// is not fixed (`order`), and, when the pair can be parallel (exception (i)), one of
/// `not_parallel` (each "u precedes v"). `None`: never a conflict this way.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Requirement {
    pub rule: Rule,
    pub order: Option<(Node, Node)>,
    pub not_parallel: Vec<(Node, Node)>,
}

/// Whether `a` precedes `b` in every execution (`Some(true)`), in none (`Some(false)`),
/// or depending on the placement (`None`).
pub fn fixed_order(trace: &Trace, a: Node, b: Node) -> Option<bool> {
    let (ea, la) = times(trace, a);
    let (eb, lb) = times(trace, b);
    if la < eb {
        return Some(true);
    }
    if lb < ea {
        return Some(false);
    }
    match (a, b) {
        (Step::Commit(w1), Step::Commit(w2))
            if trace.events[w1].thread == trace.events[w2].thread =>
        {
            Some(w1 < w2) // FIFO
        }
        (Step::Event(x), Step::Event(y)) => Some(x < y),
        _ => None,
    }
}

/// The [`Requirement`] of the conflict `x → y` (Eq. 1 with docs/semantics.md §3).
pub fn requirement(trace: &Trace, x: Node, y: Node) -> Option<Requirement> {
    let (kx, _) = access(trace, x);
    let (ky, _) = access(trace, y);
    let rule = match (kx, ky) {
        (Access::MemWrite, Access::MemWrite) => Rule::WriteWrite,
        (Access::MemWrite, Access::Read) => Rule::WriteRead,
        (Access::Read, Access::MemWrite) => Rule::ReadWrite,
        _ => return None,
    };
    let order = match fixed_order(trace, x, y) {
        Some(false) => return None,
        Some(true) => None,
        None => Some((x, y)),
    };
    // Parallel (i): the read r reads from its buffer (store w pending), m between w and c(w).
    let mut not_parallel = Vec::new();
    let read = match (kx, x, y) {
        (Access::Read, Step::Event(r), _) => Some((r, y)),
        (_, _, Step::Event(r)) if ky == Access::Read => Some((r, x)),
        _ => None,
    };
    if let Some((w, re, m)) = read.and_then(|(re, m)| trace.buffered_by(re).map(|w| (w, re, m))) {
        let (r, cw) = (Step::Event(re), Step::Commit(w));
        let conds = [(r, cw), (Step::Event(w), m), (m, cw)];
        let fixed: Vec<Option<bool>> = conds
            .iter()
            .map(|&(u, v)| fixed_order(trace, u, v))
            .collect();
        if !fixed.contains(&Some(false)) {
            not_parallel = conds
                .iter()
                .zip(&fixed)
                .filter(|(_, f)| f.is_none())
                .map(|(&(u, v), _)| (v, u))
                .collect();
            if not_parallel.is_empty() {
                return None; // always parallel when ordered this way
            }
        }
    }
    Some(Requirement {
        rule,
        order,
        not_parallel,
    })
}

/// Def. 4's edges bucketed by component: directed conflict edges, and undirected
/// edges between different transactions with whether directed edges already order them.
pub struct PaperBuckets {
    pub directed: Grouped<Packed>,
    pub undirected: Grouped<((EventId, EventId), bool)>,
}

impl PaperBuckets {
    pub fn new(g: &PaperGraph, trace: &Trace, comps: usize, comp_of: &[u32]) -> PaperBuckets {
        let comp = |x: usize, y: usize| shared_component(comp_of, x, y);
        let undirected: Vec<((EventId, EventId), bool)> = g
            .undirected
            .iter()
            .copied()
            .zip(g.ordered_undirected())
            .collect();
        let txns = |&((a, c), _): &((EventId, EventId), bool)| {
            (trace.events[a].txn.index(), trace.events[c].txn.index())
        };
        PaperBuckets {
            directed: Grouped::new(
                g.directed_conflicts(trace)
                    .into_edges()
                    .into_iter()
                    .map(|e| Packed::new(e.src, e.dst, e.rule))
                    .collect(),
                comps,
                |e| {
                    let (from, to) = e.arc(trace);
                    comp(from, to)
                },
            ),
            undirected: Grouped::new(undirected, comps, |u| {
                let (ta, tc) = txns(u);
                comp(ta, tc).filter(|_| ta != tc)
            }),
        }
    }
}

/// Components of a graph with more than one node, and each node's component index.
pub fn components(g: &ConflictGraph) -> (Vec<Vec<usize>>, CompOf) {
    components_of(g.group_count(), g.edges().iter().map(|e| (e.from, e.to)))
}

/// For each node, its component's index ([`NONE`]: in none).
pub type CompOf = Vec<u32>;

/// No component.
pub const NONE: u32 = u32::MAX;

/// Components of the graph over `groups` nodes with `arcs` (from, to).
pub fn components_of(
    groups: usize,
    arcs: impl Iterator<Item = (usize, usize)> + Clone,
) -> (Vec<Vec<usize>>, CompOf) {
    let comps = crate::graph::strong_components(groups, arcs);
    let of = comp_index(groups, &comps);
    (comps, of)
}

/// Each of `groups`' component in `comps`, or [`NONE`].
fn comp_index(groups: usize, comps: &[Vec<usize>]) -> CompOf {
    let mut of = vec![NONE; groups];
    for (i, c) in comps.iter().enumerate() {
        for &t in c {
            of[t] = i as u32;
        }
    }
    of
}

/// For each transaction (by index): whether it has two events or more. Every cycle of
/// an execution's conflict graph goes through one (docs/semantics.md §5.6), so a
/// component without one is serializable and a cycle set must meet them.
pub fn multi_event(trace: &Trace) -> Vec<bool> {
    let mut size = trace.per_txn(0u32);
    for e in &trace.events {
        size[e.txn] += 1;
    }
    size.iter().map(|&s| s >= 2).collect()
}
