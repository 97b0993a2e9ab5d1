//! What `--algo sat` and `--algo fpt` do before any search, in one place: the forced
//! conflicts (a cycle among them is the answer), then the strongly connected
//! components of the graph of all possible conflicts (only they can hold a cycle),
//! each with its forced edges and its varying pairs (exact) or undirected edges (paper).

use super::{Unknown, Verdict, Witness};
use crate::analysis::{self as encode, Buckets, Grouped, PaperBuckets};
use crate::graph::forced::forced_packed;
use crate::graph::paper::PaperGraph;
use crate::graph::{strong_components, ConflictGraph, Edge, Packed};
use crate::trace::exec::{Execution, Node};
use crate::trace::{EventId, Trace, TxnId};
use crate::Stop;
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
    /// ([`encode::multi_event`]); empty in paper semantics.
    pub multi: Vec<bool>,
}

impl<V> Front<V> {
    pub fn largest(&self) -> u64 {
        self.comps.iter().map(|c| c.len() as u64).max().unwrap_or(0)
    }
}

/// Exact semantics: `Err` is the violation of a forced cycle (witness: the SC run).
///
/// One pass finds both the forced cycle and the components: a forced cycle is a cycle
/// of the possible graph, so it lies inside one of its strongly connected components,
/// and the search for it reads only the forced edges inside them.
///
/// `stop` is polled between the phases and while the forced edges are built; so is
/// the heap, against `stop`'s memory budget (`--max-memory`) or else the default one.
/// (No estimate is made first: the bound of [`crate::graph::forced::within_memory`]
/// is for the unreduced edges: 50 GiB on a 10⁸-event trace whose check holds 10.6.)
pub fn exact(
    trace: &Trace,
    phases: &mut Phases,
    stop: &Stop,
) -> Result<Front<(Node, Node)>, Verdict> {
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
    let poll = || match stop.expired() {
        true => Err(Verdict::Unknown(why())),
        false => Ok(()),
    };
    poll()?;
    // The varying pairs first: their sweep's spans (20 bytes an access) are freed
    // before the forced edges (9 bytes each, 3 an event) are built, not held beside them.
    let max = encode::max_pairs(budget);
    let pairs = timed(phases, "varying pairs", || {
        encode::varying_pairs_within(trace, max)
    });
    poll()?;
    let forced = timed(phases, "forced edges", || forced_packed(trace, stop));
    let forced = forced.ok_or_else(|| Verdict::Unknown(why()))?;
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
            let find = || forced_cycle_of(trace, &txn_of, &forced);
            if let Some(cycle) = timed(phases, "forced cycle", find) {
                return Err(forced_cycle(cycle));
            }
            return Err(Verdict::Unknown(Unknown::Memory {
                why: crate::mem::OverBudget::VaryingPairs { max: n },
            }));
        }
    };
    poll()?;
    let forced_edges = forced.len() as u64;
    let varying_count = pairs.len() as u64;
    let multi = encode::multi_event(trace);
    let (comps, b, single_event) = timed(phases, "pruning (components)", || {
        let (comps, comp_of) = encode::possible_components(trace, &txn_of, &forced, &pairs);
        // §5.6: a cycle needs a transaction of two or more events; so does a forced one.
        let mut kept: Vec<Option<usize>> = vec![None; comps.len()];
        let mut next = 0;
        for (c, comp) in comps.iter().enumerate() {
            if comp.iter().any(|&t| multi[t]) {
                kept[c] = Some(next);
                next += 1;
            }
        }
        let b = Buckets::new(&txn_of, forced, pairs, &kept, &comp_of);
        let single_event = (comps.len() - next) as u64;
        let comps: Vec<Vec<usize>> = comps
            .into_iter()
            .zip(&kept)
            .filter_map(|(comp, k)| k.map(|_| comp))
            .collect();
        (comps, b, single_event)
    });
    poll()?;
    let cycle = timed(phases, "forced cycle", || {
        forced_cycle_of(trace, &txn_of, b.forced.all())
    });
    if let Some(cycle) = cycle {
        return Err(forced_cycle(cycle));
    }
    let front = Front {
        single_event,
        comps,
        forced: b.forced,
        varying: b.pairs,
        forced_edges,
        varying_count,
        multi,
    };
    Ok(front)
}

/// A cycle of forced edges: in the first of their components (by least transaction),
/// found among that component's edges alone, unpacked.
fn forced_cycle_of(trace: &Trace, txn_of: &[TxnId], forced: &[Packed]) -> Option<Vec<Edge>> {
    let n = trace.txns.len();
    let scc = strong_components(n, forced.iter().map(|e| e.arc_in(txn_of)))
        .into_iter()
        .next()?;
    let mut member = vec![false; n];
    scc.iter().for_each(|&t| member[t] = true);
    let within = forced
        .iter()
        .map(|e| e.edge(trace))
        .filter(|e| member[e.from] && member[e.to]);
    ConflictGraph::from_edges(n, within).find_cycle()
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
            multi: Vec::new(),
        })
    })
}
