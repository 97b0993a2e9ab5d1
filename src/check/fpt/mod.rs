//! `--algo fpt`: the fixed-parameter algorithm of Enea & Farzan §6.2 (Figs. 3–4,
//! Props. 3–5, Thms. 7–9), made exact.
//!
//! Pipeline, shared with `--algo sat` up to the components:
//! 1. forced conflicts (exact: the same direction in every execution; paper: Def. 4's
//!    directed edges); a cycle there is a violation at once;
//! 2. varying conflicts (exact) or undirected edges (paper); the possible graph and its
//!    strongly connected components — a cycle lies inside one;
//! 3. per component: the chain partition of the forced order ≤τ (Thm. 8,
//!    `chains`), the jumps, and the enumeration of simple cycles of Fig. 3
//!    (`search`), each candidate checked for validity — by a commit placement in
//!    exact mode (`place`), by acyclicity of the used orientation in paper mode.
//!
//! What changed from the paper, and why, is written down in `encodings/fpt.md`.

pub(crate) mod chains;
pub(crate) mod place;
pub(crate) mod profile;
pub(crate) mod search;

pub use profile::ChainProfile;

use super::{verify, verify_execution_cycle, Semantics, Unknown, Verdict, Witness};
use crate::analysis::requirement;
use crate::graph::paper::PaperGraph;
use crate::graph::Edge;
use crate::solver::Lit;
use crate::stop::Stop;
use crate::trace::conflict::{conflict, txn, Rule};
use crate::trace::exec::{Node, Step};
use crate::trace::TiVec;
use crate::trace::Trace;
use crate::trace::TxnId;
use chains::Chains;
use rayon::prelude::*;
pub(crate) use search::Instance;
use search::{ByChains, Counters, Found, Jump, Stopped, Validity};
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::Ordering;
use std::time::Duration;

/// Steps the minimum chain partition may take per component (about 0.1 s); past them
/// the fewest chains found so far are used (still exact: any chain partition is).
pub const MINIMUM_WORK: u64 = 50_000_000;

/// Default budget: jumps tried (partial cycles extended) before answering unknown.
pub const DEFAULT_MAX: u64 = 1_000_000_000;

/// How `--algo fpt` runs.
#[derive(Clone, Copy, Debug)]
pub struct FptOptions {
    /// Worker threads for the enumeration (0: one per core).
    pub jobs: usize,
    /// Budget of jumps tried; beyond it the answer is unknown.
    pub max_jumps: u64,
    /// Time the enumeration of each component may take from its start (the chain
    /// partition and the jumps before it are not counted): `auto`'s first phase.
    pub search_time: Option<Duration>,
    /// Keep only one entry and one exit event per (operation, variable) class and chain,
    /// as Fig. 4 taken literally does: *not exact* (see `profile`); for measurement.
    pub fig4_representatives: bool,
}

impl Default for FptOptions {
    fn default() -> Self {
        FptOptions {
            jobs: 0,
            max_jumps: DEFAULT_MAX,
            search_time: None,
            fig4_representatives: false,
        }
    }
}

/// Counters, phase times and the chain partition of one run (the counters are
/// `stats.counts` of `check --json`, docs/json.md; the chains are `stats.chains`).
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct FptStats {
    #[serde(skip)]
    pub phases: Vec<(String, f64)>,
    pub forced_edges: u64,
    pub varying: u64,
    pub components: u64,
    /// Components of the possible graph left out: no transaction of two events
    /// (docs/semantics.md §5.6).
    pub single_event_components: u64,
    pub largest_component: u64,
    /// Chains of the widest component (W).
    pub width: u64,
    pub jumps: u64,
    /// Outer loop of Fig. 3: first jumps searched.
    pub first_jumps: u64,
    /// Jumps tried (extensions of a partial jump sequence, Fig. 3).
    #[serde(rename = "jumps_tried")]
    pub extended: u64,
    /// Extensions pruned: the sequence is not simple, or not valid.
    #[serde(rename = "pruned_not_simple")]
    pub pruned_simple: u64,
    #[serde(rename = "pruned_not_valid")]
    pub pruned_invalid: u64,
    /// Chain profiles of the component with the most chains.
    #[serde(skip)]
    pub chains: Vec<profile::ChainProfile>,
}

impl FptStats {
    fn time<T>(&mut self, name: &str, f: impl FnOnce() -> T) -> T {
        super::front::timed(&mut self.phases, name, f)
    }

    fn record(&mut self, seen: &super::front::Seen) {
        self.forced_edges = seen.forced_edges;
        self.varying = seen.varying;
        self.components = seen.components;
        self.single_event_components = seen.single_event;
        self.largest_component = seen.largest;
    }
}

/// Why `--algo fpt` could not answer.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FptError {
    #[error(
        "internal error: a cycle found did not re-check on its witness ({0}); please report this trace"
    )]
    Unverified(crate::check::Rejected),
    #[error("cannot start {0} worker threads: {1}")]
    Threads(usize, String),
}

/// Decides trace TSO-serializability by Fig. 3's enumeration (exact: docs/semantics.md §4;
/// paper: Thm. 5), until `stop` says so (its flags polled every jump, its clock every 64).
pub fn check_fpt(
    trace: &Trace,
    semantics: Semantics,
    opts: FptOptions,
    stop: &Stop,
) -> Result<(Verdict, FptStats), FptError> {
    let pool = pool(opts.jobs)?;
    let mut st = FptStats::default();
    let v = pool.install(|| match semantics {
        Semantics::Exact => exact(trace, &opts, stop, &mut st),
        Semantics::Paper => paper(trace, &opts, stop, &mut st),
    })?;
    Ok((v, st))
}

/// A pool of `jobs` worker threads for the enumeration (0: one per core).
pub(crate) fn pool(jobs: usize) -> Result<rayon::ThreadPool, FptError> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .build()
        .map_err(|e| FptError::Threads(jobs, e.to_string()))
}

/// Local transaction indices of a component, its forced predecessors, a topological
/// order and its chain partition.
fn partition(trace: &Trace, comp: &[usize], forced: &[Edge]) -> (HashMap<usize, u32>, Chains) {
    let local: HashMap<usize, u32> = comp
        .iter()
        .enumerate()
        .map(|(i, &t)| (t, i as u32))
        .collect();
    let n = comp.len();
    let mut preds: Vec<Vec<u32>> = vec![Vec::new(); n];
    for e in forced {
        if e.from != e.to {
            preds[local[&e.to] as usize].push(local[&e.from]);
        }
    }
    for p in &mut preds {
        p.sort_unstable();
        p.dedup();
    }
    // Kahn, smallest transaction first (forced edges are acyclic here).
    let mut indeg: Vec<usize> = preds.iter().map(|p| p.len()).collect();
    let mut succs: Vec<Vec<u32>> = vec![Vec::new(); n];
    for (v, ps) in preds.iter().enumerate() {
        for &p in ps {
            succs[p as usize].push(v as u32);
        }
    }
    let mut ready: VecDeque<u32> = (0..n as u32).filter(|&v| indeg[v as usize] == 0).collect();
    let mut order = Vec::with_capacity(n);
    while let Some(v) = ready.pop_front() {
        order.push(v);
        for &s in &succs[v as usize] {
            indeg[s as usize] -= 1;
            if indeg[s as usize] == 0 {
                ready.push_back(s);
            }
        }
    }
    debug_assert_eq!(order.len(), n, "the forced order is acyclic");
    let hint: Vec<u32> = comp
        .iter()
        .map(|&t| trace.txns[TxnId::new(t)].thread.index() as u32)
        .collect();
    (local, Chains::minimum(&order, &preds, &hint, MINIMUM_WORK))
}

/// Finishes an instance: drops jumps along ≤τ (never in a simple cycle), optionally
/// keeps only Fig. 4 representatives, and indexes the jumps by their source's chain.
fn instance<'a>(
    trace: &'a Trace,
    comp: &[usize],
    chains: Chains,
    mut jumps: Vec<Jump>,
    validity: Validity,
    opts: &FptOptions,
) -> Instance<'a> {
    jumps.retain(|j| !chains.reaches(j.from, j.to));
    if opts.fig4_representatives {
        // One entry and one exit node per (chain, class): the first entry and the last
        // exit in chain order, so every class pair with some b ∈ pair(a) keeps one.
        type Key = (u32, profile::Class);
        let mut first_in: HashMap<Key, (u32, Node)> = HashMap::new();
        let mut last_out: HashMap<Key, (u32, Node)> = HashMap::new();
        let key_in = |j: &Jump| (chains.chain_of[j.to as usize], profile::class(trace, j.dst));
        let key_out = |j: &Jump| {
            (
                chains.chain_of[j.from as usize],
                profile::class(trace, j.src),
            )
        };
        for j in &jumps {
            let pi = (chains.pos[j.to as usize], j.dst);
            let po = (chains.pos[j.from as usize], j.src);
            let fi = first_in.entry(key_in(j)).or_insert(pi);
            *fi = (*fi).min(pi);
            let lo = last_out.entry(key_out(j)).or_insert(po);
            *lo = (*lo).max(po);
        }
        for j in &mut jumps {
            j.fig4 = (
                last_out[&key_out(j)].1 == j.src,
                first_in[&key_in(j)].1 == j.dst,
            );
        }
    }
    let by_chains = ByChains::new(&chains, &jumps);
    Instance {
        trace,
        txns: comp.to_vec(),
        chains,
        jumps,
        by_chains,
        validity,
        fig4: opts.fig4_representatives,
    }
}

/// Runs Fig. 3 on one instance: the outer loop (first jumps) in parallel; the first
/// cycle found stops every worker (with one worker: the first cycle in jump order).
fn enumerate(
    inst: &Instance,
    opts: &FptOptions,
    stop: &Stop,
    st: &mut FptStats,
) -> Result<Option<Found>, Verdict> {
    let c = Counters::default();
    let budget = opts.max_jumps.saturating_sub(st.extended);
    let stop = &match opts.search_time {
        Some(t) => {
            let until = std::time::Instant::now() + t;
            Stop {
                deadline: Some(stop.deadline.map_or(until, |d| d.min(until))),
                ..stop.clone()
            }
        }
        None => stop.clone(),
    };
    // Why a worker stopped without a cycle; a cycle found by another worker at the same
    // moment still wins.
    let why_stopped = std::sync::Mutex::new(None);
    let found = st.time("enumeration (Fig. 3)", || {
        (0..inst.jumps.len())
            .into_par_iter()
            .map(|i| inst.search_from(i, &c, budget, stop))
            .find_map_any(|r| match r {
                Ok(None) | Err(Stopped::Cancelled) => None,
                Ok(Some(f)) => {
                    // A cycle answers; waiting for the searches of lower first jumps
                    // (to report the first in jump order) could take the whole budget.
                    c.stop.store(true, Ordering::Relaxed);
                    Some(f)
                }
                Err(why) => {
                    c.stop.store(true, Ordering::Relaxed);
                    why_stopped
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .get_or_insert(why);
                    None
                }
            })
    });
    st.first_jumps += inst.jumps.len() as u64;
    st.extended += c.extended.load(Ordering::Relaxed);
    st.pruned_simple += c.pruned_simple.load(Ordering::Relaxed);
    st.pruned_invalid += c.pruned_invalid.load(Ordering::Relaxed);
    let why_stopped = why_stopped.into_inner().unwrap_or_else(|p| p.into_inner());
    match (found, why_stopped) {
        (Some(f), _) => Ok(Some(f)),
        (None, None) => Ok(None),
        (None, Some(Stopped::Budget)) => Err(Verdict::Unknown(Unknown::MaxJumps)),
        (None, Some(_)) => Err(Verdict::Unknown(stopped(stop))),
    }
}

fn note_instance(st: &mut FptStats, inst: &Instance) {
    st.jumps += inst.jumps.len() as u64;
    if inst.chains.width() as u64 > st.width {
        st.width = inst.chains.width() as u64;
        st.chains = profile::profiles(inst);
    }
}

/// The transaction cycle of a found cycle: per segment a forced path (BFS over
/// `forced`, inside the component), then the jump out of it.
fn cycle_edges(
    inst: &Instance,
    forced: &[Edge],
    f: &Found,
    rule: impl Fn(&Jump) -> Rule,
) -> Vec<Edge> {
    let mut adj: HashMap<usize, Vec<&Edge>> = HashMap::new();
    for e in forced {
        adj.entry(e.from).or_default().push(e);
    }
    let path = |from: usize, to: usize| -> Vec<Edge> {
        let mut prev: HashMap<usize, &Edge> = HashMap::new();
        let mut q = VecDeque::from([from]);
        while let Some(u) = q.pop_front() {
            if u == to {
                break;
            }
            for e in adj.get(&u).into_iter().flatten() {
                if e.to != from && !prev.contains_key(&e.to) {
                    prev.insert(e.to, e);
                    q.push_back(e.to);
                }
            }
        }
        let mut out = Vec::new();
        let mut at = to;
        while at != from {
            let e = prev[&at];
            out.push(*e);
            at = e.from;
        }
        out.reverse();
        out
    };
    let m = f.jumps.len();
    let mut edges = Vec::new();
    for i in 0..m {
        // Segment from the entry of jump i-1 to the source of jump i.
        let entry = &inst.jumps[f.jumps[(i + m - 1) % m]];
        let exit = &inst.jumps[f.jumps[i]];
        edges.extend(path(
            inst.txns[entry.to as usize],
            inst.txns[exit.from as usize],
        ));
        edges.push(Edge {
            from: inst.txns[exit.from as usize],
            to: inst.txns[exit.to as usize],
            src: exit.src,
            dst: exit.dst,
            rule: rule(exit),
        });
    }
    edges
}

fn exact(
    trace: &Trace,
    opts: &FptOptions,
    stop: &Stop,
    st: &mut FptStats,
) -> Result<Verdict, FptError> {
    let (mut phases, mut seen) = (Vec::new(), super::front::Seen::default());
    let v = super::front::exact_each(trace, &mut phases, &mut seen, stop, |b| {
        exact_components(trace, b, &b.all(), opts, stop, st)
    });
    st.phases = super::front::merged(phases, std::mem::take(&mut st.phases));
    st.record(&seen);
    v
}

/// Fig. 3 on the components `which` of `b`: a violation in the first component that
/// has one, else serializable (or unknown past the budget).
pub(crate) fn exact_components(
    trace: &Trace,
    b: &super::front::Front<(Node, Node)>,
    which: &[usize],
    opts: &FptOptions,
    stop: &Stop,
    st: &mut FptStats,
) -> Result<Verdict, FptError> {
    for &i in which {
        if stop.expired() {
            return Ok(Verdict::Unknown(stopped(stop)));
        }
        let inst = prepare(trace, b, i, opts, st);
        match decide_instance(trace, b, i, &inst, opts, stop, st)? {
            Verdict::Serializable => continue,
            v => return Ok(v),
        }
    }
    Ok(Verdict::Serializable)
}

/// Why a search stopped by `stop` is unknown.
pub(crate) fn stopped(stop: &Stop) -> Unknown {
    if stop.cancelled() {
        Unknown::Cancelled
    } else {
        Unknown::Deadline
    }
}

/// Component `i` of `b` ready for Fig. 3: its chains (Thm. 8) and jumps. Built once,
/// it serves every search on the component (`auto` runs fpt alone, then in a race).
pub(crate) fn prepare<'a>(
    trace: &'a Trace,
    b: &super::front::Front<(Node, Node)>,
    i: usize,
    opts: &FptOptions,
    st: &mut FptStats,
) -> Instance<'a> {
    let comp = &b.comps[i];
    let inst = st.time("chains and jumps", || {
        let (local, chains) = partition(
            trace,
            comp,
            &crate::graph::unpack_edges(trace, &b.forced[i]),
        );
        let mut jumps = Vec::new();
        for &(a, c) in &b.varying[i] {
            for (x, y) in [(a, c), (c, a)] {
                let (tx, ty) = (txn(trace, x).index(), txn(trace, y).index());
                if tx == ty {
                    continue;
                }
                if let Some(req) = requirement(trace, x, y) {
                    jumps.push(Jump {
                        from: local[&tx],
                        to: local[&ty],
                        src: x,
                        dst: y,
                        req: Some(req),
                        fig4: (true, true),
                    });
                }
            }
        }
        instance(trace, comp, chains, jumps, Validity::Exact, opts)
    });
    note_instance(st, &inst);
    inst
}

/// Fig. 3 on component `i` of `b`, prepared as `inst`: a verified violation,
/// serializable, or unknown past the budget.
pub(crate) fn decide_instance(
    trace: &Trace,
    b: &super::front::Front<(Node, Node)>,
    i: usize,
    inst: &Instance,
    opts: &FptOptions,
    stop: &Stop,
    st: &mut FptStats,
) -> Result<Verdict, FptError> {
    let found = match enumerate(inst, opts, stop, st) {
        Ok(f) => f,
        Err(v) => return Ok(v),
    };
    let Some(f) = found else {
        return Ok(Verdict::Serializable);
    };
    // The witness: the whole trace's execution, sorted and re-checked (at 10⁸ events
    // seconds of their own, so timed apart).
    st.time("witness (sort, re-check)", || {
        let orient: Vec<(Node, Node, Lit)> = f.orders.iter().map(|&(u, v)| (u, v, 0)).collect();
        let execution = crate::analysis::sort::sort_exact(trace, &orient)
            .map_err(|_| FptError::Unverified(crate::check::Rejected::CyclicPlacementOrders))?;
        let mut cycle = cycle_edges(
            inst,
            &crate::graph::unpack_edges(trace, &b.forced[i]),
            &f,
            |_| Rule::WriteWrite,
        );
        for e in &mut cycle {
            e.rule = conflict(trace, &execution, e.src, e.dst).unwrap_or(e.rule);
        }
        verify_execution_cycle(trace, &execution, &cycle).map_err(FptError::Unverified)?;
        Ok(Verdict::Violation(Box::new(Witness::Execution {
            execution,
            cycle,
        })))
    })
}

fn paper(
    trace: &Trace,
    opts: &FptOptions,
    stop: &Stop,
    st: &mut FptStats,
) -> Result<Verdict, FptError> {
    let g = st.time("paper graph", || PaperGraph::new(trace));
    let b = match super::front::paper(trace, &g, &mut st.phases) {
        Ok(f) => f,
        Err(v) => return Ok(v),
    };
    let mut seen = super::front::Seen::default();
    seen.add(&b);
    st.record(&seen);
    let comps = &b.comps;
    // Events of each transaction, and EG_τ's directed edges out of each event.
    let mut events_of: TiVec<TxnId, Vec<usize>> = trace.per_txn(Vec::new());
    for (i, e) in trace.events.iter().enumerate() {
        events_of[e.txn].push(i);
    }
    let mut dpreds: Vec<Vec<usize>> = vec![Vec::new(); trace.len()];
    for &(a, c) in &g.directed {
        dpreds[c].push(a);
    }
    for (i, comp) in comps.iter().enumerate() {
        let inst = st.time("chains and jumps", || {
            let (local, chains) = partition(
                trace,
                comp,
                &crate::graph::unpack_edges(trace, &b.forced[i]),
            );
            // Event chains over the component's events (trace order is topological).
            let mut evs: Vec<usize> = comp
                .iter()
                .flat_map(|&t| events_of[TxnId::new(t)].iter().copied())
                .collect();
            evs.sort_unstable();
            let preds: Vec<Vec<u32>> = evs
                .iter()
                .map(|&e| {
                    dpreds[e]
                        .iter()
                        .filter_map(|p| evs.binary_search(p).ok().map(|k| k as u32))
                        .collect()
                })
                .collect();
            let order: Vec<u32> = (0..evs.len() as u32).collect();
            let hint: Vec<u32> = evs
                .iter()
                .map(|&e| trace.events[e].thread.index() as u32)
                .collect();
            let ev_chains = Chains::minimum(&order, &preds, &hint, MINIMUM_WORK);
            let mut jumps = Vec::new();
            for &((a, c), ord) in &b.varying[i] {
                let ways: &[(usize, usize)] = if ord { &[(a, c)] } else { &[(a, c), (c, a)] };
                for &(x, y) in ways {
                    let (tx, ty) = (trace.events[x].txn.index(), trace.events[y].txn.index());
                    jumps.push(Jump {
                        from: local[&tx],
                        to: local[&ty],
                        src: Step::Event(x),
                        dst: Step::Event(y),
                        req: None,
                        fig4: (true, true),
                    });
                }
            }
            let validity = Validity::Paper {
                chains: ev_chains,
                events: evs,
            };
            instance(trace, comp, chains, jumps, validity, opts)
        });
        note_instance(st, &inst);
        let found = match enumerate(&inst, opts, stop, st) {
            Ok(f) => f,
            Err(v) => return Ok(v),
        };
        let Some(f) = found else { continue };
        let used: Vec<(usize, usize, Lit)> = f
            .jumps
            .iter()
            .map(|&j| match (inst.jumps[j].src, inst.jumps[j].dst) {
                (Step::Event(x), Step::Event(y)) => (x, y, 0),
                _ => unreachable!("paper jumps join events"),
            })
            .collect();
        let oriented = crate::analysis::sort::orient_paper(&g, trace.len(), &used)
            .map_err(|_| FptError::Unverified(crate::check::Rejected::CyclicOrientation))?;
        let cycle = cycle_edges(
            &inst,
            &crate::graph::unpack_edges(trace, &b.forced[i]),
            &f,
            |_| Rule::PaperOriented,
        );
        let w = Witness::Orientation { oriented, cycle };
        verify(trace, &w).map_err(FptError::Unverified)?;
        return Ok(Verdict::Violation(Box::new(w)));
    }
    Ok(Verdict::Serializable)
}
