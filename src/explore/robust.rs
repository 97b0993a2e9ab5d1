//! Robustness (docs/semantics.md §7): is every TSO (PSO) run of a program SC, i.e. is its
//! happens-before — program order, reads-from, coherence (commit order) and
//! from-read — acyclic?
//!
//! [`hb_cycle`] decides it for one replayed run from the definitions. [`robust`]
//! decides it for every run: a breadth-first search over pairs (machine state,
//! *frontier*), where the frontier is happens-before projected onto the events that
//! can still gain an edge — each thread's last event, each location's last committed
//! write, each thread's latest read of that write, the buffered stores and each one's
//! latest forwarded read — as a reachability matrix. Every later edge touches one of
//! these events, and only a commit adds an edge into an event that already has
//! successors, so a cycle forms exactly when a committed store already reaches one of
//! its new predecessors. Search by breadth gives a shortest run with a cycle.

use super::machine::{Effect, Machine, Model, Settled, State, Step, MAX_BUFFER};
use super::replay::{replay, NotReplayable, Run};
use super::states::{Config, Incomplete};
use crate::program::Program;
pub use crate::trace::model::HbKind;
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::collections::VecDeque;
use std::rc::Rc;

/// A happens-before cycle: edges (from, to, kind) between run events.
pub type Cycle = Vec<(usize, usize, HbKind)>;

/// The happens-before edges of a replayed run, between indices of `run.events`.
pub fn hb_edges(run: &Run) -> Vec<(usize, usize, HbKind)> {
    let mut out = Vec::new();
    let mut last: HashMap<usize, usize> = HashMap::default();
    for (i, e) in run.events.iter().enumerate() {
        let t = e.effect.thread();
        if let Some(&j) = last.get(&t) {
            out.push((j, i, HbKind::Po));
        }
        last.insert(t, i);
        // A spawned thread's first event follows its spawn.
        if let Effect::Spawn { of, .. } = e.effect {
            last.insert(of, i);
        }
    }
    for co in &run.co {
        for w in co.windows(2) {
            out.push((w[0], w[1], HbKind::Co));
        }
    }
    for (i, e) in run.events.iter().enumerate() {
        let x = match e.effect {
            Effect::Load { x, .. } | Effect::Rmw { x, .. } => x,
            _ => continue,
        };
        if let Some(w) = e.rf {
            out.push((w, i, HbKind::Rf));
        }
        // From-read: to every write coherence-after the one read (all, for the initial value).
        let co = &run.co[x];
        let from = match e.rf {
            Some(w) => co.iter().position(|&c| c == w).map_or(co.len(), |p| p + 1),
            None => 0,
        };
        for &w in &co[from..] {
            if w != i {
                out.push((i, w, HbKind::Fr));
            }
        }
    }
    out
}

/// Whether the run's happens-before has a cycle: Kahn's topological sort, linear in
/// the edges (a quick test before [`hb_cycle`]'s search for a shortest one).
pub fn hb_cyclic(run: &Run) -> bool {
    crate::graph::csr::Csr::from_edges(run.events.len(), &hb_edges(run)).is_cyclic()
}

/// A shortest happens-before cycle of the run, as edges, if there is one.
pub fn hb_cycle(run: &Run) -> Option<Cycle> {
    let n = run.events.len();
    let edges = hb_edges(run);
    let mut succ: Vec<Vec<(usize, HbKind)>> = vec![Vec::new(); n];
    for &(a, b, k) in &edges {
        succ[a].push((b, k));
    }
    let mut best: Option<Cycle> = None;
    for start in 0..n {
        let cyc =
            crate::graph::path::shortest(n, start, start, |u, out| out.extend_from_slice(&succ[u]));
        if let Some(c) = cyc {
            if best.as_ref().is_none_or(|b| c.len() < b.len()) {
                best = Some(c);
            }
        }
    }
    best
}

/// The answer of [`robust`].
#[derive(Clone, Debug)]
pub struct Robustness {
    /// Some(true) robust, Some(false) not, None unknown (budget).
    pub robust: Option<bool>,
    /// A shortest run whose happens-before has a cycle.
    pub witness: Option<Vec<Step>>,
    /// Distinct (state, frontier) pairs visited.
    pub states: usize,
    /// Why the search did not finish, when `robust` is `None` for that reason.
    pub incomplete: Option<Incomplete>,
}

type Node = u8;
const MAX_NODES: usize = 128;

/// Happens-before projected onto the events that can still gain edges.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Frontier {
    /// reach[a]: the nodes a reaches (strictly), a bit each.
    reach: Vec<u128>,
    last: Vec<Option<Node>>,
    latest: Vec<Option<Node>>,
    /// Per location × thread: that thread's latest read of the location's last commit.
    readers: Vec<Option<Node>>,
    /// Per thread, aligned with its buffer: the store's node and its latest forwarded read.
    pending: Vec<Vec<(Node, Option<Node>)>>,
}

impl Frontier {
    /// Bytes the frontier holds on the heap, with its own size.
    fn bytes(&self) -> usize {
        use crate::mem::vec_bytes;
        std::mem::size_of::<Frontier>()
            + vec_bytes(&self.reach)
            + vec_bytes(&self.last)
            + vec_bytes(&self.latest)
            + vec_bytes(&self.readers)
            + vec_bytes(&self.pending)
            + self.pending.iter().map(vec_bytes).sum::<usize>()
    }

    fn new(k: usize, m: usize) -> Frontier {
        Frontier {
            reach: Vec::new(),
            last: vec![None; k],
            latest: vec![None; m],
            readers: vec![None; m * k],
            pending: vec![Vec::new(); k],
        }
    }

    fn bits(srcs: &[Option<Node>]) -> u128 {
        srcs.iter().flatten().fold(0, |b, &n| b | (1u128 << n))
    }

    /// A new event with edges from `srcs` (it has no successors yet: no cycle).
    fn add_node(&mut self, srcs: &[Option<Node>]) -> Result<Node, TooMany> {
        let n = self.reach.len();
        if n >= MAX_NODES {
            return Err(TooMany);
        }
        let s = Self::bits(srcs);
        for r in self.reach.iter_mut().enumerate() {
            if s & (1 << r.0) != 0 || *r.1 & s != 0 {
                *r.1 |= 1 << n;
            }
        }
        self.reach.push(0);
        Ok(n as Node)
    }

    /// Edges from `srcs` into the existing node n; true when one closes a cycle.
    fn add_edges(&mut self, srcs: &[Option<Node>], n: Node) -> bool {
        let s = Self::bits(srcs);
        if self.reach[n as usize] & s != 0 {
            return true;
        }
        let add = self.reach[n as usize] | (1 << n);
        for (a, r) in self.reach.iter_mut().enumerate() {
            if s & (1 << a) != 0 || *r & s != 0 {
                *r |= add;
            }
        }
        false
    }

    /// Renumbers the live nodes in role order and drops the others.
    fn canonical(&self) -> Frontier {
        let mut map: Vec<Option<Node>> = vec![None; self.reach.len()];
        let mut order: Vec<usize> = Vec::new();
        let mut visit = |n: &Option<Node>| {
            if let Some(n) = *n {
                if map[n as usize].is_none() {
                    map[n as usize] = Some(order.len() as Node);
                    order.push(n as usize);
                }
            }
        };
        self.last.iter().for_each(&mut visit);
        self.latest.iter().for_each(&mut visit);
        self.readers.iter().for_each(&mut visit);
        for p in &self.pending {
            for (a, b) in p {
                visit(&Some(*a));
                visit(b);
            }
        }
        let m = |n: &Option<Node>| n.map(|n| map[n as usize].expect("live"));
        let reach = order
            .iter()
            .map(|&old| {
                let r = self.reach[old];
                order
                    .iter()
                    .enumerate()
                    .filter(|(_, &o)| r & (1 << o) != 0)
                    .fold(0u128, |b, (new, _)| b | (1 << new))
            })
            .collect();
        Frontier {
            reach,
            last: self.last.iter().map(m).collect(),
            latest: self.latest.iter().map(m).collect(),
            readers: self.readers.iter().map(m).collect(),
            pending: self
                .pending
                .iter()
                .map(|p| {
                    p.iter()
                        .map(|(a, b)| (m(&Some(*a)).unwrap(), m(b)))
                        .collect()
                })
                .collect(),
        }
    }

    /// Applies a step's effect; Ok(true) when it closes a happens-before cycle.
    fn step(&mut self, eff: Effect) -> Result<bool, TooMany> {
        let k = self.last.len();
        match eff {
            Effect::Load {
                t, x, forwarded, ..
            } => {
                let src = match forwarded {
                    Some(i) => Some(self.pending[t][i].0),
                    None => self.latest[x],
                };
                let n = self.add_node(&[self.last[t], src])?;
                match forwarded {
                    Some(i) => self.pending[t][i].1 = Some(n),
                    None => self.readers[x * k + t] = Some(n),
                }
                self.last[t] = Some(n);
            }
            Effect::Store {
                t, buffered: true, ..
            } => {
                let n = self.add_node(&[self.last[t]])?;
                self.pending[t].push((n, None));
                self.last[t] = Some(n);
            }
            // A join orders the joined thread's events before the joiner's next ones;
            // such an edge is never on a cycle (nothing after the join reaches back into
            // a thread that has finished and drained), so it is left out.
            Effect::Fence { .. } | Effect::Join { .. } | Effect::Choose { .. } => {}
            // The child's first event follows the parent's events so far.
            Effect::Spawn { t, of } => self.last[of] = self.last[t],
            // A store written at once (inside an exclusive block) is its own commit.
            Effect::Rmw { t, x, .. } | Effect::Store { t, x, .. } => {
                let mut srcs = vec![self.last[t], self.latest[x]];
                srcs.extend_from_slice(&self.readers[x * k..(x + 1) * k]);
                let n = self.add_node(&srcs)?;
                self.latest[x] = Some(n);
                self.readers[x * k..(x + 1) * k]
                    .iter_mut()
                    .for_each(|r| *r = None);
                self.last[t] = Some(n);
            }
            Effect::Commit { t, x, index } => {
                let (n, fwd) = self.pending[t].remove(index);
                let mut srcs = vec![self.latest[x]];
                srcs.extend_from_slice(&self.readers[x * k..(x + 1) * k]);
                if self.add_edges(&srcs, n) {
                    return Ok(true);
                }
                self.latest[x] = Some(n);
                self.readers[x * k..(x + 1) * k]
                    .iter_mut()
                    .for_each(|r| *r = None);
                self.readers[x * k + t] = fwd;
            }
        }
        Ok(false)
    }
}

/// More frontier events than the matrix holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TooMany;

impl std::fmt::Display for TooMany {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the robustness search holds at most {MAX_NODES} frontier events (threads, locations, reads and buffered stores)")
    }
}

/// Whether every run of `p` under `model` (TSO or PSO) is SC; at most `max_states`
/// (state, frontier) pairs. SC is robust by definition.
pub fn robust(p: &Program, c: &Config) -> Result<Robustness, TooMany> {
    let (model, unroll, max_states) = (c.model, c.unroll, c.max_states);
    let mut bytes = 0usize;
    if model == Model::Sc {
        return Ok(Robustness {
            robust: Some(true),
            witness: None,
            states: 0,
            incomplete: None,
        });
    }
    let m = Machine::new(p, model, unroll);
    let (s0, st) = m.initial();
    // The set and the queue share each (state, frontier) pair.
    let mut seen: HashSet<Rc<(State, Frontier)>> = HashSet::default();
    // Parent links for the witness: (parent index, step).
    let mut links: Vec<(usize, Option<Step>)> = vec![(0, None)];
    let mut q: VecDeque<(Rc<(State, Frontier)>, usize)> = VecDeque::new();
    if st == Settled::Ok {
        let f = Frontier::new(p.threads.len(), p.locs.len());
        let key = Rc::new((s0, f));
        seen.insert(key.clone());
        q.push_back((key, 0));
    }
    let mut steps = Vec::new();
    let mut incomplete = (st == Settled::Spin).then_some(Incomplete::Spin);
    'search: while let Some((key, at)) = q.pop_front() {
        // A pop expands every enabled step: polling the clock each time is cheap.
        if c.expired() {
            incomplete.get_or_insert(Incomplete::Timeout);
            break;
        }
        let (s, f) = &*key;
        m.enabled(s, &mut steps);
        for &step in &steps {
            let mut s2 = s.clone();
            let mut f2 = f.clone();
            let (eff, st) = m.apply(&mut s2, step);
            if f2.step(eff)? {
                let mut witness = vec![step];
                let mut cur = at;
                while let (parent, Some(st)) = links[cur] {
                    witness.push(st);
                    cur = parent;
                }
                witness.reverse();
                return Ok(Robustness {
                    robust: Some(false),
                    witness: Some(witness),
                    states: seen.len(),
                    incomplete: None,
                });
            }
            if st == Settled::Spin {
                incomplete.get_or_insert(Incomplete::Spin);
            }
            if st != Settled::Ok {
                continue;
            }
            let f2 = f2.canonical();
            if s2.buf.iter().any(|b| b.len() > MAX_BUFFER) {
                incomplete.get_or_insert(Incomplete::BufferLimit);
                continue;
            }
            // Past a budget the answer is unknown: stop, so the budget bounds the work.
            if seen.len() >= max_states {
                incomplete.get_or_insert(Incomplete::MaxStates);
                break 'search;
            }
            // The pair, its frontier matrix, the set's and queue's slots, the parent link.
            let pair = s2.bytes() + f2.bytes() + 96;
            if bytes + pair > c.max_memory {
                incomplete.get_or_insert(Incomplete::Memory);
                break 'search;
            }
            let key = Rc::new((s2, f2));
            if seen.insert(key.clone()) {
                bytes += pair;
                links.push((at, Some(step)));
                q.push_back((key, links.len() - 1));
            }
        }
    }
    Ok(Robustness {
        robust: incomplete.is_none().then_some(true),
        witness: None,
        states: seen.len(),
        incomplete,
    })
}

/// Replays a witness and returns its run and happens-before cycle (re-checked from the
/// definitions by [`hb_cycle`]).
pub fn check_witness(
    p: &Program,
    model: Model,
    unroll: u32,
    steps: &[Step],
) -> Result<(Run, Cycle), NotReplayable> {
    let m = Machine::new(p, model, unroll);
    let run = replay(&m, steps)?;
    let cyc = hb_cycle(&run).ok_or(NotReplayable::Acyclic)?;
    Ok((run, cyc))
}
