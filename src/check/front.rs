//! What `--algo sat`, `fpt` and `auto` do before any search, in one place: the forced
//! conflicts (a cycle among them is the answer), then the strongly connected
//! components of the graph of all possible conflicts (only they can hold a cycle),
//! each with its forced edges and its varying pairs (exact) or undirected edges (paper).
//! Exact semantics hands them over a run of transactions at a time ([`exact_each`]),
//! so that a violation found early ends the check.

use super::{Unknown, Verdict, Witness};
use crate::analysis::{self as encode, Grouped, PaperBuckets, PartsGrouped, NONE};
use crate::graph::forced::{forced_parts, Among, ForcedParts};
use crate::graph::paper::PaperGraph;
use crate::graph::{strong_components, ConflictGraph, Edge, Packed};
use crate::trace::exec::{Execution, Node};
use crate::trace::{EventId, Trace, TxnId};
use crate::Stop;
use fixedbitset::FixedBitSet;
use std::time::Instant;

/// An undirected edge of Def. 4 `{a, b}` (a before b), with whether the directed edges
/// already order a before b.
pub type Undirected = ((EventId, EventId), bool);

/// Phase times, summed by name.
pub type Phases = Vec<(String, f64)>;

/// Runs `f`, adding its wall time to phase `name`.
pub fn timed<T>(phases: &mut Phases, name: &str, f: impl FnOnce() -> T) -> T {
    let t = Instant::now();
    let out = f();
    let s = t.elapsed().as_secs_f64();
    match phases.iter_mut().find(|(k, _)| k == name) {
        Some((_, v)) => *v += s,
        None => phases.push((name.to_string(), s)),
    }
    out
}

/// `front`'s phases, then `rest`'s (summed by name): a decider that times its own
/// phases while [`exact_each`] times the front's keeps them in the order they began.
pub fn merged(mut front: Phases, rest: Phases) -> Phases {
    for (name, s) in rest {
        match front.iter_mut().find(|(k, _)| *k == name) {
            Some((_, v)) => *v += s,
            None => front.push((name, s)),
        }
    }
    front
}

/// The components and, per component, its forced edges and its varying part.
pub struct Front<V> {
    pub comps: Vec<Vec<usize>>,
    /// Per component, its forced edges, packed ([`crate::graph::unpack_edges`] gives them whole).
    pub forced: Grouped<Packed>,
    pub varying: Grouped<V>,
    /// Sizes, for `--stats`: forced edges and varying pairs (undirected edges) in all.
    pub forced_edges: u64,
    pub varying_count: u64,
    /// Components dropped because none of their transactions has two events (exact
    /// semantics; docs/semantics.md §5.6: no cycle can lie among them).
    pub single_event: u64,
    /// Exact semantics: for each transaction, whether it has two events or more
    /// ([`encode::multi_event`]); empty in paper semantics. Shared by the pieces of
    /// [`exact_each`].
    pub multi: std::sync::Arc<Vec<bool>>,
}

impl<V> Front<V> {
    pub fn largest(&self) -> u64 {
        self.comps.iter().map(|c| c.len() as u64).max().unwrap_or(0)
    }

    /// Its components' indices, in order.
    pub fn all(&self) -> Vec<usize> {
        (0..self.comps.len()).collect()
    }
}

/// What `--stats` counts of the fronts a decider saw: the edges and pairs of the whole
/// trace, and the components of the pieces of [`exact_each`] added up (those of the
/// pieces up to the answer, when a violation answers before the last).
#[derive(Clone, Copy, Debug, Default)]
pub struct Seen {
    pub forced_edges: u64,
    pub varying: u64,
    pub components: u64,
    pub single_event: u64,
    pub largest: u64,
}

impl Seen {
    pub fn add<V>(&mut self, f: &Front<V>) {
        self.forced_edges = f.forced_edges;
        self.varying = f.varying_count;
        self.components += f.comps.len() as u64;
        self.single_event += f.single_event;
        self.largest = self.largest.max(f.largest());
    }
}

/// Exact semantics, piece by piece: the components of the possible graph in the order
/// of their least transaction, handed to `each` a *run* of transactions at a time as
/// soon as that run's are found, until `each` answers anything but serializable (that
/// answer is returned; serializable when every run is). A violation of forced edges
/// alone is the answer of its run (witness: the SC run); the budget's unknown that of
/// the whole.
///
/// Runs: transactions are numbered in the order they first appear; a cycle must
/// use an arc from a later transaction to an earlier one, so it lies inside one
/// maximal run of transactions that such backward arcs overlap. The runs lie within
/// stretches found before any forced edge is built ([`may_share_a_cycle`]), slices
/// of the trace; the forced edges are built a few stretches at a time (a slice of
/// at least 2¹⁶ events), bucketed by run, and each run's components found on its own
/// arcs (a table the size of the run, in cache, where one walk over all transactions
/// missed at random). A violation near the start of a trace is answered without
/// building the rest's forced edges.
///
/// `stop` is polled between the phases and pieces, and while the forced edges are
/// built; so is the heap, against `stop`'s memory budget (`--max-memory`) or else the
/// default one. (No estimate is made first: the bound of
/// [`crate::graph::forced::within_memory`] is for the unreduced edges: 50 GiB on a
/// 10⁸-event trace whose check holds 10.6.)
pub fn exact_each<E>(
    trace: &Trace,
    phases: &mut Phases,
    seen: &mut Seen,
    stop: &Stop,
    each: impl FnMut(&Front<(Node, Node)>) -> Result<Verdict, E>,
) -> Result<Verdict, E> {
    exact_each_sliced(trace, phases, seen, stop, slice_size(trace), each)
}

/// [`exact_each`] with the forced edges built in slices of at least `slice` events.
fn exact_each_sliced<E>(
    trace: &Trace,
    phases: &mut Phases,
    seen: &mut Seen,
    stop: &Stop,
    slice: usize,
    mut each: impl FnMut(&Front<(Node, Node)>) -> Result<Verdict, E>,
) -> Result<Verdict, E> {
    let given = stop.max_memory.is_some();
    let budget = stop.max_memory.unwrap_or_else(crate::mem::default_budget);
    // A stop of its own under the default budget: being past it must not mark the
    // caller's stop, which has no budget to name.
    let own = Stop {
        max_memory: Some(budget),
        over: Default::default(),
        ..stop.clone()
    };
    let stop = if given { stop } else { &own };
    let why = || match stop.why() {
        Unknown::Memory {
            why: crate::mem::OverBudget::Held { budget },
        } if !given => Unknown::Memory {
            why: crate::mem::OverBudget::HeldDefault { budget },
        },
        other => other,
    };
    let stopped = || Ok(Verdict::Unknown(why()));
    if stop.expired() {
        return stopped();
    }
    // The varying pairs first: their sweep's spans (20 bytes an access) are freed
    // before the forced edges (9 bytes each, 3 an event) are built, not held beside them.
    let max = encode::max_pairs(budget);
    let pairs = timed(phases, "varying pairs", || {
        encode::varying_pairs_within(trace, max)
    });
    if stop.expired() {
        return stopped();
    }
    let forced_cycle = |cycle: Vec<Edge>| {
        Verdict::Violation(Box::new(Witness::Execution {
            execution: Execution::sc(trace),
            cycle,
        }))
    };
    let txn_of = encode::txn_column(trace);
    let pairs = match pairs {
        Ok(p) => p,
        Err(n) => {
            // Too many to encode; a forced cycle still answers.
            let forced = timed(phases, "forced edges", || {
                forced_parts(trace, stop, &Among::all(trace))
            });
            let Some(forced) = forced else {
                return stopped();
            };
            let all = (0, trace.txns.len());
            let find = || forced_cycle_in(trace, &txn_of, all, &forced.parts.concat());
            if let Some(cycle) = timed(phases, "forced cycle", find) {
                return Ok(forced_cycle(cycle));
            }
            return Ok(Verdict::Unknown(Unknown::Memory {
                why: crate::mem::OverBudget::VaryingPairs { max: n },
            }));
        }
    };
    // The forced edges of the transactions that may share a cycle only, a slice of
    // the trace at a time: each slice's are grouped by run and decided, then dropped.
    let extra = timed(phases, "varying pairs", || {
        encode::possible_arcs(trace, &pairs)
    });
    let stretches = timed(phases, "forced edges", || may_share_a_cycle(trace, &extra));
    let slices = slices(&stretches, slice);
    let varying_count = pairs.len() as u64;
    seen.varying = varying_count;
    let (pairs, extra) = timed(phases, "pruning (components)", || {
        let slice_of = |t: usize| {
            let i = slices.partition_point(|s| s.txns.end <= t);
            (i < slices.len() && slices[i].txns.contains(&t)).then_some(i)
        };
        let shared = |a: usize, b: usize| slice_of(a).filter(|&i| slices[i].txns.contains(&b));
        let txn = |x: Node| txn_of[x.event()].index();
        let pairs = Grouped::new(pairs, slices.len(), |&(x, y)| shared(txn(x), txn(y)));
        let extra = Grouped::new(extra, slices.len(), |&(a, b)| {
            shared(a as usize, b as usize)
        });
        (pairs, extra)
    });
    let multi = std::sync::Arc::new(encode::multi_event(trace));
    let mut forced_edges = 0;
    for (i, among) in slices.iter().enumerate() {
        if stop.expired() {
            return stopped();
        }
        let forced = timed(phases, "forced edges", || forced_parts(trace, stop, among));
        let Some(forced) = forced else {
            return stopped();
        };
        forced_edges += forced.parts.iter().map(Vec::len).sum::<usize>() as u64;
        seen.forced_edges = forced_edges;
        let pieces = timed(phases, "pruning (components)", || {
            Pieces::new(&txn_of, among, forced, pairs[i].to_vec(), extra[i].to_vec())
        });
        for s in 0..pieces.runs.len() {
            if stop.expired() {
                return stopped();
            }
            let (comps, forced, varying, single_event) =
                timed(phases, "pruning (components)", || {
                    pieces.components(&txn_of, s, &multi)
                });
            let run = pieces.runs[s];
            let cycle = timed(phases, "forced cycle", || {
                forced_cycle_in(trace, &txn_of, run, forced.all())
            });
            if let Some(cycle) = cycle {
                return Ok(forced_cycle(cycle));
            }
            let front = Front {
                single_event,
                comps,
                forced,
                varying,
                forced_edges,
                varying_count,
                multi: multi.clone(),
            };
            seen.add(&front);
            match each(&front)? {
                Verdict::Serializable => {}
                v => return Ok(v),
            }
        }
    }
    Ok(Verdict::Serializable)
}

/// The possible graph's arcs bucketed by run of transactions (see [`exact_each`]).
struct Pieces {
    /// Each run: its first transaction and how many (two or more).
    runs: Vec<(usize, usize)>,
    forced: PartsGrouped<Packed>,
    pairs: Grouped<(Node, Node)>,
    /// The varying pairs' arcs between transactions ([`encode::possible_arcs`]).
    extra: Grouped<(u32, u32)>,
}

impl Pieces {
    /// The runs of a slice of the trace (its forced edges, and its varying pairs and
    /// their arcs between transactions, [`encode::possible_arcs`]).
    fn new(
        txn_of: &[TxnId],
        slice: &Among,
        forced: ForcedParts,
        pairs: Vec<(Node, Node)>,
        extra: Vec<(u32, u32)>,
    ) -> Pieces {
        let (events, first) = (slice.events.clone(), slice.txns.start);
        // `back[t - first]`: the furthest tail of an arc with head t.
        let ForcedParts { parts, mut back } = forced;
        let n = back.len();
        backward_arcs(&mut back, first, &extra);
        let runs = covered(&back, first);
        drop(back);
        let mut run_of = vec![NONE; n];
        for (r, &(start, len)) in runs.iter().enumerate() {
            run_of[start - first..start - first + len]
                .iter_mut()
                .for_each(|x| *x = r as u32);
        }
        let groups = runs.len();
        let same = |x: usize, y: usize| encode::shared_component(&run_of, x - first, y - first);
        // Each event's run, in one pass in order: two look-ups an edge, not four.
        let run_of_event: Vec<u32> = txn_of[events.clone()]
            .iter()
            .map(|t| run_of[t.index() - first])
            .collect();
        let at = events.start;
        let same_event =
            |x: usize, y: usize| encode::shared_component(&run_of_event, x - at, y - at);
        let ahead = |e: &Packed| {
            let (x, y) = (e.src_node(), e.dst_node());
            crate::mem::prefetch(&run_of_event, crate::graph::packed_event(x) - at);
            crate::mem::prefetch(&run_of_event, crate::graph::packed_event(y) - at);
        };
        let key = |e: &Packed| {
            same_event(
                crate::graph::packed_event(e.src_node()),
                crate::graph::packed_event(e.dst_node()),
            )
        };
        let forced = PartsGrouped::new(parts, groups, key, ahead);
        let pairs = Grouped::new(pairs, groups, |&(x, y)| same_event(x.event(), y.event()));
        let extra = Grouped::new(extra, groups, |&(a, b)| same(a as usize, b as usize));
        Pieces {
            runs,
            forced,
            pairs,
            extra,
        }
    }

    /// Run `s`'s components with a transaction of two events or more (docs/semantics.md
    /// §5.6: a cycle needs one; so does a forced one), sorted, with their forced edges
    /// and varying pairs; and how many components were dropped for having none.
    #[allow(clippy::type_complexity)]
    fn components(
        &self,
        txn_of: &[TxnId],
        s: usize,
        multi: &[bool],
    ) -> (Vec<Vec<usize>>, Grouped<Packed>, Grouped<(Node, Node)>, u64) {
        let (lo, len) = self.runs[s];
        let run_forced = self.forced.gathered(s);
        let (forced, extra) = (&run_forced[..], &self.extra[s]);
        let n = forced.len();
        let source = |i: usize| match forced.get(i) {
            Some(e) => e.src_in(txn_of) - lo,
            None => extra[i - n].0 as usize - lo,
        };
        let target = |i: usize| match forced.get(i) {
            Some(e) => e.arc_in(txn_of).1 - lo,
            None => extra[i - n].1 as usize - lo,
        };
        let comps =
            crate::graph::strong_components_indexed(len, n + extra.len(), source, target, |_| {});
        let found = comps.len();
        let comps: Vec<Vec<usize>> = comps
            .into_iter()
            .map(|c| c.into_iter().map(|t| t + lo).collect::<Vec<usize>>())
            .filter(|c| c.iter().any(|&t| multi[t]))
            .collect();
        let single_event = (found - comps.len()) as u64;
        let mut comp_of = vec![NONE; len];
        for (c, comp) in comps.iter().enumerate() {
            comp.iter().for_each(|&t| comp_of[t - lo] = c as u32);
        }
        let shared = |x: usize, y: usize| encode::shared_component(&comp_of, x - lo, y - lo);
        let txn = |e: EventId| txn_of[e].index();
        let forced = Grouped::new(run_forced, comps.len(), |e: &Packed| {
            let (a, b) = e.arc_in(txn_of);
            shared(a, b)
        });
        let varying = Grouped::new(self.pairs[s].to_vec(), comps.len(), |&(x, y)| {
            shared(txn(x.event()), txn(y.event()))
        });
        (comps, forced, varying, single_event)
    }
}

/// Notes in `back` the backward arcs of `arcs` among transactions numbered from
/// `first`: `back[b - first]`, the furthest `a` of an arc `(a, b)` with `b < a`.
fn backward_arcs(back: &mut [u32], first: usize, arcs: &[(u32, u32)]) {
    for &(a, b) in arcs {
        if b < a {
            let x = &mut back[b as usize - first];
            *x = (*x).max(a);
        }
    }
}

/// The runs `back` covers, each its first transaction and how many (two or more):
/// entry `i` of `back` is transaction `first + i`, and `back[t - first] > t` covers
/// the transactions `t..=back[t - first]`; a run is a maximal stretch covered without
/// a gap (stretches that share a transaction are one run).
fn covered(back: &[u32], first: usize) -> Vec<(usize, usize)> {
    let mut runs = Vec::new();
    // The run being swept: its first transaction and how far it reaches so far.
    let mut open: Option<(usize, usize)> = None;
    for t in first..=first + back.len() {
        if let Some((start, end)) = open {
            if t > end {
                runs.push((start, end + 1 - start));
                open = None;
            }
        }
        let reach = back.get(t - first).map_or(0, |&a| a as usize);
        if reach > t {
            open = Some(open.map_or((t, reach), |(start, end)| (start, end.max(reach))));
        }
    }
    runs
}

/// The stretches of transactions that may lie on a cycle (with another), and which
/// they are; `keep` is `None` (every transaction may) when the trace's transactions
/// are not numbered in the order they first appear.
struct Stretches {
    /// Each stretch's transactions and its events: the events of the trace from the
    /// stretch's first to the last of its transactions' are all its own.
    each: Vec<Among<'static>>,
    keep: Option<FixedBitSet>,
}

/// The transactions that may lie on a cycle (with another): the runs covered by the
/// varying pairs' backward arcs (`extra`) and by the transactions that overlap in the
/// trace, of which a forced edge's run is one.
///
/// Why the forced backward arcs need not be known: if `a` in `ta` is forced before `b`
/// in `tb` with `tb < ta`, then `a`'s latest time is below `b`'s earliest (the
/// convention of [`crate::graph::forced`]), which is at most just after `b`'s own event
/// (a commit's earliest follows its write; a read's span begins no later than its
/// event), while `a`'s latest is no earlier than `ta`'s first event (a buffered read's
/// span ends at its write's latest commit, after the read). So `ta` begins before `tb`
/// ends: every transaction numbered from `tb` to `ta` begins while `tb` is under way,
/// and they are all in the stretch `tb` overlaps. A cycle needs a backward arc over
/// each gap between its least and greatest transaction, so it lies in one such run.
/// Passing over the other transactions' events keeps every run's forced edges
/// reachability-preserving among its events: a path between two of them leaves the
/// run only by an arc that would join the run to another. And as a transaction that
/// begins or ends among a stretch's events overlaps one of its own, each stretch's
/// events are a slice of the trace.
fn may_share_a_cycle(trace: &Trace, extra: &[(u32, u32)]) -> Stretches {
    let n = trace.txns.len();
    let whole = || Stretches {
        each: vec![Among::all(trace)],
        keep: None,
    };
    // `reach[t]`: the greatest transaction begun by `t`'s last event (`NONE`: `t` not
    // begun yet); `first` and `last`: its first and last event.
    let mut reach = vec![NONE; n];
    let (mut first, mut last) = (vec![0u32; n], vec![0u32; n]);
    let mut top: Option<u32> = None;
    for (i, e) in trace.events.iter().enumerate() {
        let t = e.txn.index();
        if reach[t] == NONE {
            // `t`'s first event: it must come after every transaction begun so far.
            if top.is_some_and(|top| (t as u32) < top) {
                return whole();
            }
            top = Some(t as u32);
            first[t] = i as u32;
        }
        reach[t] = top.unwrap_or(t as u32);
        last[t] = i as u32;
    }
    for r in &mut reach {
        if *r == NONE {
            *r = 0;
        }
    }
    backward_arcs(&mut reach, 0, extra);
    let mut keep = FixedBitSet::with_capacity(n);
    let mut each: Vec<Among<'static>> = Vec::new();
    for (start, len) in covered(&reach, 0) {
        keep.insert_range(start..start + len);
        let txns = start..start + len;
        let end = txns
            .clone()
            .map(|t| last[t] as usize + 1)
            .max()
            .unwrap_or(0);
        let events = first[start] as usize..end;
        if each.last().is_some_and(|s| s.events.end > events.start) {
            return whole();
        }
        each.push(Among {
            events,
            txns,
            keep: None,
        });
    }
    Stretches {
        each,
        keep: Some(keep),
    }
}

/// The events a slice of the trace holds at least ([`slices`]): 2¹⁶, and enough that
/// the tables [`forced_parts`] makes for each, an entry a variable (and a thread), do
/// not outweigh it.
fn slice_size(trace: &Trace) -> usize {
    let (k, m) = (trace.threads.len(), trace.vars.len());
    (1 << 16)
        .max(4 * m)
        .max(k.saturating_mul(m).min(1 << 24) / 4)
}

/// The stretches put together into slices of the trace of at least `least` events
/// (but the last), each with the stretches' transactions to keep.
fn slices(stretches: &Stretches, least: usize) -> Vec<Among<'_>> {
    let mut out: Vec<Among<'_>> = Vec::new();
    for s in &stretches.each {
        match out.last_mut() {
            Some(last) if last.events.len() < least => {
                last.events.end = s.events.end;
                last.txns.end = s.txns.end;
            }
            _ => out.push(Among {
                events: s.events.clone(),
                txns: s.txns.clone(),
                keep: stretches.keep.as_ref(),
            }),
        }
    }
    out
}

/// A cycle of forced edges among transactions `lo..lo + len` (`run`): in the first of
/// their components (by least transaction), found among that component's edges
/// alone, unpacked.
fn forced_cycle_in(
    trace: &Trace,
    txn_of: &[TxnId],
    (lo, len): (usize, usize),
    forced: &[Packed],
) -> Option<Vec<Edge>> {
    let local = |(a, b): (usize, usize)| (a - lo, b - lo);
    let scc = strong_components(len, forced.iter().map(|e| local(e.arc_in(txn_of))))
        .into_iter()
        .next()?;
    let mut member = vec![false; len];
    scc.iter().for_each(|&t| member[t] = true);
    let within = forced
        .iter()
        .map(|e| e.edge(trace))
        .filter(|e| member[e.from - lo] && member[e.to - lo]);
    ConflictGraph::from_edges(trace.txns.len(), within).find_cycle()
}

/// Paper semantics on Def. 4's graph `g`: `Err` is the violation of a cycle of directed
/// edges (they all point forward in the trace, so any orientation is a witness).
pub fn paper(
    trace: &Trace,
    g: &PaperGraph,
    phases: &mut Phases,
) -> Result<Front<Undirected>, Verdict> {
    let directed = g.directed_conflicts(trace);
    if let Some(cycle) = timed(phases, "forced cycle", || directed.find_cycle()) {
        let w = Witness::Orientation {
            oriented: g.undirected.clone(),
            cycle,
        };
        return Err(Verdict::Violation(Box::new(w)));
    }
    timed(phases, "pruning (components)", || {
        let (comps, comp_of) = encode::components(&g.both_ways(trace));
        let b = PaperBuckets::new(g, trace, comps.len(), &comp_of);
        Ok(Front {
            comps,
            forced: b.directed,
            varying: b.undirected,
            forced_edges: directed.edges().len() as u64,
            varying_count: g.undirected.len() as u64,
            single_event: 0,
            multi: Default::default(),
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::Buckets;
    use crate::graph::forced::forced_packed;
    use crate::trace::gen::{generate, Shape};

    /// A component, the pairs of its transactions its forced edges join by a path (the
    /// edges themselves may differ: the pieces build them among the transactions that
    /// may share a cycle only), and its varying pairs.
    type Piece = (Vec<usize>, Vec<(usize, usize)>, Vec<(Node, Node)>);

    /// [`Piece`] of a component and its edges.
    fn piece(
        txn_of: &[TxnId],
        comp: &[usize],
        forced: &[Packed],
        varying: &[(Node, Node)],
    ) -> Piece {
        // Transactions by their place in the (sorted) component.
        let at = |t: usize| comp.binary_search(&t).expect("edges within the component");
        let mut next = vec![Vec::new(); comp.len()];
        for e in forced {
            let (a, b) = e.arc_in(txn_of);
            next[at(a)].push(at(b));
        }
        let mut reach = Vec::new();
        for i in 0..comp.len() {
            let mut seen = fixedbitset::FixedBitSet::with_capacity(comp.len());
            let mut todo = vec![i];
            while let Some(u) = todo.pop() {
                for &v in &next[u] {
                    if !seen.put(v) {
                        todo.push(v);
                    }
                }
            }
            reach.extend(seen.ones().map(|v| (comp[i], comp[v])));
        }
        (comp.to_vec(), reach, varying.to_vec())
    }

    /// The pieces of `exact_each` put together are the front of one pass over the
    /// whole possible graph: the same components in the same order, each with forced
    /// edges that join the same pairs of its transactions by a path and the same
    /// varying pairs in the same order, and the same components dropped for single
    /// events; no more forced edges in all, fewer on most traces (those of
    /// transactions that can share no cycle are not built). Three shapes of generated
    /// trace (short fenced transactions with rmw, serial schedules over many
    /// variables, longer fenced transactions), 20 to 12,000 events; about a quarter of
    /// them (69 of 300) split into several runs, and the test asks that more than 40
    /// do; the forced edges are built in slices of the trace from one stretch of
    /// transactions to the whole, and more than 40 traces are in several slices.
    #[test]
    fn the_pieces_are_the_whole_front() {
        let (mut runs, mut kept_fewer, mut sliced) = (0, 0, 0);
        for seed in 0..300u64 {
            let events = [20, 60, 200, 800, 3000][seed as usize % 5];
            let shape = match seed % 3 {
                0 => Shape {
                    threads: 2 + seed as usize % 7,
                    vars: 10 + seed as usize % 50,
                    txn_len: 2,
                    fence_every: 2 + seed as usize % 5,
                    rmw: 0.1,
                    ..Shape::realistic(events)
                },
                1 => Shape {
                    serial: true,
                    vars: 100 + 10 * (seed as usize % 90),
                    ..Shape::realistic(events * 4)
                },
                _ => Shape {
                    vars: 20 + seed as usize % 200,
                    txn_len: 2 + seed as usize % 4,
                    fence_every: 4 + seed as usize % 8,
                    ..Shape::realistic(events)
                },
            };
            let trace = generate(&shape, seed);
            // The one pass.
            let pairs = encode::varying_pairs_within(&trace, usize::MAX).unwrap();
            let forced = forced_packed(&trace, &Stop::default()).unwrap();
            let txn_of = encode::txn_column(&trace);
            let multi = encode::multi_event(&trace);
            let counts = (forced.len() as u64, pairs.len() as u64);
            let stretches = may_share_a_cycle(&trace, &encode::possible_arcs(&trace, &pairs));
            let (comps, comp_of) = encode::possible_components(&trace, &txn_of, &forced, &pairs);
            let kept: Vec<Option<usize>> = comps
                .iter()
                .scan(0, |next, c| {
                    Some(c.iter().any(|&t| multi[t]).then(|| {
                        *next += 1;
                        *next - 1
                    }))
                })
                .collect();
            let single = kept.iter().filter(|k| k.is_none()).count() as u64;
            let b = Buckets::new(&txn_of, forced, pairs, &kept, &comp_of);
            let want: Vec<Piece> = comps
                .into_iter()
                .zip(&kept)
                .filter_map(|(c, k)| k.map(|k| piece(&txn_of, &c, &b.forced[k], &b.pairs[k])))
                .collect();
            // The pieces.
            let mut got = Vec::new();
            let mut dropped = 0;
            let mut pieces = 0;
            let mut seen = Seen::default();
            // Slices of the trace from one stretch to the whole.
            let slice = [1, 50, 400, usize::MAX][seed as usize % 4];
            sliced += usize::from(slices(&stretches, slice).len() > 1);
            let v = exact_each_sliced::<()>(
                &trace,
                &mut Vec::new(),
                &mut seen,
                &Stop::default(),
                slice,
                |f| {
                    pieces += usize::from(!f.comps.is_empty());
                    dropped += f.single_event;
                    for i in 0..f.comps.len() {
                        got.push(piece(&txn_of, &f.comps[i], &f.forced[i], &f.varying[i]));
                    }
                    Ok(Verdict::Serializable)
                },
            )
            .unwrap();
            if let Verdict::Violation(_) = v {
                // A forced cycle: answered by its piece, the pieces before it agree.
                assert!(
                    got.len() <= want.len() && want[..got.len()] == got[..],
                    "seed {seed}"
                );
                continue;
            }
            assert!(matches!(v, Verdict::Serializable));
            assert_eq!(got, want, "seed {seed}");
            assert_eq!(dropped, single, "seed {seed}");
            let largest = want.iter().map(|w| w.0.len() as u64).max().unwrap_or(0);
            assert_eq!(
                (seen.varying, seen.components, seen.single_event),
                (counts.1, want.len() as u64, single),
                "seed {seed}"
            );
            assert!(seen.forced_edges <= counts.0, "seed {seed}");
            kept_fewer += usize::from(seen.forced_edges < counts.0);
            assert_eq!(seen.largest, largest, "seed {seed}");
            runs += usize::from(pieces > 1);
        }
        assert!(runs > 40, "{runs} traces in several pieces");
        assert!(
            kept_fewer > 100,
            "{kept_fewer} traces with fewer forced edges"
        );
        assert!(sliced > 40, "{sliced} traces in several slices");
    }
}
