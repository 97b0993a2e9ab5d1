//! The enumeration of Fig. 3 (Enea & Farzan §6.2): simple cycles built chain by chain.
//!
//! A simple cycle (Def. 6) is a cyclic sequence of *segments* joined by *jumps*. A
//! segment enters a transaction P at an event a and leaves from a transaction Q with
//! P ≤τ Q (the same transaction or a path of forced edges: `pair(a)` contains the exit
//! event b). A jump is a conflict edge b → a' whose order varies between executions
//! (exact) or an undirected edge of EG_τ used one way (paper). Prop. 3(ii) says the
//! transactions of two different segments are unordered by ≤τ; so the endpoints of all
//! segments are pairwise unordered (checked with the chain clocks) and the cycle
//! visits each chain at most once (Prop. 5): at most W jumps for W chains.
//!
//! The outer loop of Fig. 3 picks the first jump (in parallel, `--jobs`); to count each
//! cycle once, it is the cycle's jump of least index. The inner loops choose, for the
//! current entry P, an exit Q on a chain not yet visited (the first reachable position
//! comes from the clocks) and a jump out of Q; the cycle closes when the entry of a
//! jump reaches the first exit. After each jump the set of jumps must still be
//! *valid* — the check Fig. 3 leaves open ("includes a violation"):
//! - exact: one commit placement realises every jump ([`super::place::Placement`],
//!   pushed and popped with the jumps);
//!   forced segments hold in every execution, so the cycle is then an execution's;
//! - paper: the directed edges plus the used orientations stay acyclic, i.e. no jump's
//!   target reaches (by directed edges) the source of a jump in a way that closes a
//!   loop of jumps — then the used edges extend to a valid orientation (Thm. 5).
//!
//! Cost: at most Σ_{m ≤ W} J^m jump sequences for J jumps — polynomial in the trace for
//! a fixed number of chains, which is what Thm. 9 needs; docs/performance.md gives the measured
//! figures against the paper's O(n + c^k).

use super::chains::Chains;
use super::place;
use crate::analysis::Requirement;
use crate::stop::Stop;
use crate::trace::exec::{Node, Step};
use crate::trace::Trace;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// A jump: a conflict edge `src → dst` between the local transactions `from → to`.
#[derive(Clone, Debug)]
pub struct Jump {
    pub from: u32,
    pub to: u32,
    pub src: Node,
    pub dst: Node,
    /// Exact mode: what the edge asks of the placement.
    pub req: Option<Requirement>,
    /// Fig. 4 taken literally: whether `src` is its chain's representative exit of
    /// its class, and `dst` the representative entry (always true otherwise).
    pub fig4: (bool, bool),
}

/// How a set of jumps is checked for validity.
pub enum Validity {
    Exact,
    /// Paper mode: reachability over EG_τ's directed edges, by event chains.
    /// `events` holds the component's events in trace order (chain node i is `events[i]`).
    Paper {
        chains: Chains,
        events: Vec<usize>,
    },
}

/// One strongly connected component of the possible graph, ready for Fig. 3.
pub struct Instance<'a> {
    pub trace: &'a Trace,
    /// Local transaction → global transaction.
    pub txns: Vec<usize>,
    /// Chain partition of the forced (directed) order ≤τ over `txns`.
    pub chains: Chains,
    pub jumps: Vec<Jump>,
    /// The jumps grouped by source and target chain.
    pub by_chains: ByChains,
    pub validity: Validity,
    /// Fig. 4 taken literally (not exact): the chain of the first jump's source is
    /// searched with exact events, as Fig. 3's outer loops do, the others only through
    /// representatives; every rotation of a cycle is tried.
    pub fig4: bool,
}

/// The jumps grouped by (source chain, target chain), only the pairs that have jumps:
/// O(jumps + W) memory, where a W × W table took 200 MB at 2,882 chains.
pub struct ByChains {
    /// (source position, target position, jump), sorted by source chain, target
    /// chain, then source position.
    list: Vec<(u32, u32, u32)>,
    /// Per source chain: where its jumps start in `list`, and its target chains in
    /// increasing order, each with the end of its run.
    runs: Vec<(u32, Vec<(u32, u32)>)>,
}

impl ByChains {
    pub fn new(chains: &Chains, jumps: &[Jump]) -> ByChains {
        let mut keyed: Vec<(u32, u32, u32, u32, u32)> = jumps
            .iter()
            .enumerate()
            .map(|(i, j)| {
                let (f, t) = (j.from as usize, j.to as usize);
                let (cf, ct) = (chains.chain_of[f], chains.chain_of[t]);
                (cf, ct, chains.pos[f], chains.pos[t], i as u32)
            })
            .collect();
        keyed.sort_unstable();
        let mut runs: Vec<(u32, Vec<(u32, u32)>)> = vec![(0, Vec::new()); chains.width()];
        for (k, &(cf, ct, ..)) in keyed.iter().enumerate() {
            let (start, r) = &mut runs[cf as usize];
            match r.last_mut() {
                Some(last) if last.0 == ct => last.1 = k as u32 + 1,
                Some(_) => r.push((ct, k as u32 + 1)),
                None => {
                    *start = k as u32;
                    r.push((ct, k as u32 + 1));
                }
            }
        }
        let list = keyed.into_iter().map(|(_, _, p, q, i)| (p, q, i)).collect();
        ByChains { list, runs }
    }

    /// The target chains of jumps out of chain `j`, in increasing order, each with its
    /// jumps (source position, target position, jump) by source position.
    pub fn from(&self, j: usize) -> impl Iterator<Item = (usize, &[(u32, u32, u32)])> + '_ {
        let (start, runs) = &self.runs[j];
        let mut lo = *start as usize;
        runs.iter().map(move |&(ct, end)| {
            let run = &self.list[lo..end as usize];
            lo = end as usize;
            (ct as usize, run)
        })
    }
}

/// A half-open interval of chain positions, if not empty.
type Window = Option<(u32, u32)>;

/// Counters shared by the parallel searches.
#[derive(Default)]
pub struct Counters {
    /// Partial cycles extended by a jump (each passed the simplicity test).
    pub extended: AtomicU64,
    /// Jumps rejected because their target is ordered with their source (Prop. 3(ii));
    /// jumps whose ends are ordered with other segments are never tried: the windows
    /// of unordered positions skip them.
    pub pruned_simple: AtomicU64,
    /// Jumps rejected because the set stopped being valid.
    pub pruned_invalid: AtomicU64,
    pub stop: AtomicBool,
}

/// Why a search ended without a cycle.
#[derive(Debug, PartialEq, Eq)]
pub enum Stopped {
    Budget,
    /// The run's [`Stop`]: its deadline, or its cancellation.
    Timeout,
    /// Another search (in parallel) answered.
    Cancelled,
}

/// A valid simple cycle: its jumps in cycle order, and in exact mode the orders a
/// placement must satisfy.
#[derive(Debug)]
pub struct Found {
    pub jumps: Vec<usize>,
    pub orders: Vec<(Node, Node)>,
}

impl Instance<'_> {
    fn requirement(&self, j: usize) -> &Requirement {
        self.jumps[j]
            .req
            .as_ref()
            .expect("exact jumps carry requirements")
    }

    /// Paper mode's validity of the jumps `path` (see the module text).
    fn valid_paper(&self, path: &[usize], chains: &Chains, events: &[usize]) -> bool {
        let ev = |n: Node| match n {
            Step::Event(e) => events.binary_search(&e).expect("a component event") as u32,
            Step::Commit(_) => unreachable!("paper jumps join events"),
        };
        // H: jump i → jump j when i's target reaches j's source.
        let m = path.len();
        let reach = |i: usize, j: usize| {
            chains.reaches(ev(self.jumps[path[i]].dst), ev(self.jumps[path[j]].src))
        };
        let adj: Vec<Vec<usize>> = (0..m)
            .map(|i| (0..m).filter(|&j| reach(i, j)).collect())
            .collect();
        !small_cycle(&adj)
    }

    /// The cycle `path` as found: in exact mode with the orders of a realising
    /// placement ([`place::realise`], run once per cycle found).
    fn found(&self, path: Vec<usize>) -> Found {
        let mut orders = Vec::new();
        if let Validity::Exact = self.validity {
            let mut scratch = place::Scratch::default();
            let reqs = path.iter().map(|&j| self.requirement(j));
            // The incremental check agreed; if `realise` did not, the orders stay
            // empty and the witness re-check reports it.
            if place::realise(self.trace, reqs, &mut scratch) {
                orders = scratch.cons;
            }
        }
        Found {
            jumps: path,
            orders,
        }
    }

    /// Searches the cycles whose least jump is `first`.
    pub fn search_from(
        &self,
        first: usize,
        c: &Counters,
        budget: u64,
        stop: &Stop,
    ) -> Result<Option<Found>, Stopped> {
        // A first jump started after another worker stopped the search, or after the
        // deadline, ends here at once.
        if c.stop.load(Ordering::Relaxed) {
            return Err(Stopped::Cancelled);
        }
        if stop.expired() {
            return Err(Stopped::Timeout);
        }
        let j = &self.jumps[first];
        let mut s = State {
            inst: self,
            first,
            q1: j.from,
            ends: vec![j.from, j.to],
            used: vec![false; self.chains.width()],
            path: Vec::new(),
            c,
            budget,
            stop,
            place: place::Placement::new(self.trace),
        };
        if !s.admit(first) {
            c.pruned_invalid.fetch_add(1, Ordering::Relaxed);
            return Ok(None);
        }
        if self.fig4 && !j.fig4.1 && !self.chains.reaches(j.to, j.from) {
            return Ok(None);
        }
        if self.chains.reaches(j.to, j.from) {
            // One segment: the jump closes a forced path back to its source.
            return Ok(Some(self.found(s.path)));
        }
        s.used[self.chains.chain_of[j.from as usize] as usize] = true;
        s.used[self.chains.chain_of[j.to as usize] as usize] = true;
        s.extend(j.to)
    }
}

struct State<'a, 'b> {
    inst: &'b Instance<'a>,
    first: usize,
    q1: u32,
    /// Segment endpoints so far: Q1, P2, Q2, P3, … (the last is the current entry).
    ends: Vec<u32>,
    used: Vec<bool>,
    path: Vec<usize>,
    c: &'b Counters,
    budget: u64,
    stop: &'b Stop,
    /// Exact mode: the placement realising the jumps of `path`, pushed and popped with them.
    place: place::Placement<'b>,
}

impl State<'_, '_> {
    /// Appends jump `e` to the path; `false` (and nothing appended) when the jumps
    /// stop being valid.
    fn admit(&mut self, e: usize) -> bool {
        let inst = self.inst;
        self.path.push(e);
        let ok = match &inst.validity {
            Validity::Exact => {
                let ok = self.place.push(inst.requirement(e));
                if !ok {
                    self.place.pop();
                }
                ok
            }
            Validity::Paper { chains, events } => inst.valid_paper(&self.path, chains, events),
        };
        if !ok {
            self.path.pop();
        }
        ok
    }

    /// Undoes the last [`State::admit`].
    fn retract(&mut self) {
        if let Validity::Exact = self.inst.validity {
            self.place.pop();
        }
        self.path.pop();
    }

    /// Whether x is unordered with every endpoint so far except `but`.
    fn unordered(&self, x: u32, but: Option<u32>) -> bool {
        let ch = &self.inst.chains;
        self.ends
            .iter()
            .filter(|&&e| Some(e) != but)
            .all(|&e| !ch.related(x, e))
    }

    /// Extends the cycle from the current entry `p` (Fig. 3's inner loops).
    fn extend(&mut self, p: u32) -> Result<Option<Found>, Stopped> {
        let inst = self.inst;
        let ch = &inst.chains;
        let pc = ch.chain_of[p as usize] as usize;
        let w = ch.width();
        // Where a jump may land on each chain: opening a new segment (unordered with
        // every endpoint, on an unvisited chain) or closing the cycle (at or before Q1,
        // unordered with the endpoints of the other segments).
        let targets: Vec<(Window, Window)> = (0..w)
            .map(|j2| {
                let open = if self.used[j2] {
                    None
                } else {
                    self.window(&self.ends, j2, 0, u32::MAX)
                };
                let close = ch
                    .last_reaching(self.q1, j2)
                    .and_then(|last| self.window(&self.ends[1..], j2, 0, last + 1));
                (open, close)
            })
            .collect();
        for j in 0..w {
            if self.used[j] && j != pc {
                continue;
            }
            let Some(start) = ch.first_reached(p, j) else {
                continue;
            };
            // The exit must be unordered with the other segments' endpoints: on a chain
            // that is an open interval of positions (after every endpoint's last
            // predecessor there, before its first successor).
            let Some((lo, hi)) = self.window(&self.ends[..self.ends.len() - 1], j, start, u32::MAX)
            else {
                continue;
            };
            for (j2, list) in inst.by_chains.from(j) {
                let (open, close) = targets[j2];
                if open.is_none() && close.is_none() {
                    continue;
                }
                let from = list.partition_point(|&(pos, _, _)| pos < lo);
                for &(pos, tpos, e) in &list[from..] {
                    if pos >= hi {
                        break;
                    }
                    let inside =
                        |r: Option<(u32, u32)>| r.is_some_and(|(a, b)| a <= tpos && tpos < b);
                    let closes = inside(close);
                    if !closes && !inside(open) {
                        continue;
                    }
                    let e = e as usize;
                    if e == self.first || (e < self.first && !inst.fig4) {
                        continue;
                    }
                    if let Some(found) = self.try_jump(e, closes)? {
                        return Ok(Some(found));
                    }
                }
            }
        }
        Ok(None)
    }

    /// The positions of chain j in `[lo, hi)` unordered with every node of `ends`, as a
    /// half-open interval, if not empty.
    fn window(&self, ends: &[u32], j: usize, mut lo: u32, mut hi: u32) -> Window {
        let ch = &self.inst.chains;
        for &x in ends {
            if let Some(d) = ch.last_reaching(x, j) {
                lo = lo.max(d + 1);
            }
            if let Some(u) = ch.first_reached(x, j) {
                hi = hi.min(u);
            }
        }
        (lo < hi).then_some((lo, hi))
    }

    /// Tries jump `e` out of the current segment (its target closes the cycle or opens
    /// a new segment); the cycle, if one is found below.
    fn try_jump(&mut self, e: usize, closes: bool) -> Result<Option<Found>, Stopped> {
        let inst = self.inst;
        let ch = &inst.chains;
        let n = self.c.extended.fetch_add(1, Ordering::Relaxed);
        if n >= self.budget {
            return Err(Stopped::Budget);
        }
        // The flags every jump (an atomic load each), the clock every 64: on components
        // of thousands of chains a jump costs milliseconds, and polling every 4,096
        // jumps let a lost race run on for seconds (docs/performance.md, "`--algo auto`").
        if self.c.stop.load(Ordering::Relaxed) {
            return Err(Stopped::Cancelled);
        }
        if self.stop.cancelled() || (n.is_multiple_of(64) && self.stop.expired()) {
            return Err(Stopped::Timeout);
        }
        let jump = &inst.jumps[e];
        let (q, nx) = (jump.from, jump.to);
        debug_assert_eq!(closes, ch.reaches(nx, self.q1));
        if inst.fig4 {
            // Fig. 4's profiles here: (a) — leave where the segment entered — or
            // (a, b) with both representatives; the closing entry is exact.
            let entered = inst.jumps[*self.path.last().unwrap()].dst;
            let exit_ok = jump.fig4.0 || jump.src == entered;
            if !(exit_ok && (closes || jump.fig4.1)) {
                return Ok(None);
            }
        }
        debug_assert!(self.ends[..self.ends.len() - 1]
            .iter()
            .all(|&x| !ch.related(q, x)));
        debug_assert!(if closes {
            self.unordered(nx, Some(self.q1))
        } else {
            !self.used[ch.chain_of[nx as usize] as usize] && self.unordered(nx, None)
        });
        if ch.related(nx, q) {
            self.c.pruned_simple.fetch_add(1, Ordering::Relaxed);
            return Ok(None);
        }
        if !self.admit(e) {
            self.c.pruned_invalid.fetch_add(1, Ordering::Relaxed);
            return Ok(None);
        }
        if closes {
            // The search ends here: the state (and this jump's push) is dropped unpopped.
            return Ok(Some(inst.found(self.path.clone())));
        }
        let (cq, cn) = (
            ch.chain_of[q as usize] as usize,
            ch.chain_of[nx as usize] as usize,
        );
        let (was_q, was_n) = (self.used[cq], self.used[cn]);
        self.used[cq] = true;
        self.used[cn] = true;
        self.ends.push(q);
        self.ends.push(nx);
        let found = self.extend(nx)?;
        self.ends.truncate(self.ends.len() - 2);
        self.used[cq] = was_q;
        self.used[cn] = was_n;
        self.retract();
        Ok(found)
    }
}

/// Whether a graph on a few nodes has a cycle (self-loops included).
fn small_cycle(adj: &[Vec<usize>]) -> bool {
    fn visit(v: usize, adj: &[Vec<usize>], color: &mut [u8]) -> bool {
        color[v] = 1;
        for &w in &adj[v] {
            if color[w] == 1 || (color[w] == 0 && visit(w, adj, color)) {
                return true;
            }
        }
        color[v] = 2;
        false
    }
    let mut color = vec![0u8; adj.len()];
    (0..adj.len()).any(|v| color[v] == 0 && visit(v, adj, &mut color))
}
