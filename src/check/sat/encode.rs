//! The two encodings of `--algo sat` (written down in `encodings/`).
//!
//! **exact** (docs/semantics.md §5, commit placement): an *order atom* per pair of the exact
//! event graph that a conflict or a parallel exception depends on — "commit c(w)
//! precedes event p" for p in c(w)'s window, "c(w1) precedes c(w2)" for commits of one
//! variable whose windows meet. A conflict literal per possible conflict (pair and
//! direction) implies its order atom and the negation of the parallel condition (i).
//! For SAT the atoms are an order encoding (per commit, monotone in p), tied by FIFO and
//! commit-pair clauses on shared breakpoints; the remaining transitivity is kept lazily
//! (a model whose orientation is cyclic is blocked). For SMT each atom is a comparison of
//! integer positions (difference logic), consistent by construction.
//!
//! **paper** (Def. 4): per undirected edge two literals "used forward/backward"
//! (not both); acyclicity of the used edges with the directed ones is checked lazily.
//!
//! Both: the conflict graph has a cycle iff some non-empty set S of transactions has,
//! for every member, a successor in S (one clause per transaction).

use crate::analysis::{
    components, fixed_order, multi_event, possible_components, requirement, txn_column,
    varying_pairs, Buckets, PaperBuckets,
};
use crate::graph::forced::commit_times;
use crate::graph::paper::PaperGraph;
use crate::graph::{unpack_edges, Edge};
use crate::stop::Stop;
use crate::trace::conflict::{txn, Rule};
use crate::trace::exec::{Node, Step};
use crate::trace::ThreadId;
use crate::trace::{EventId, Trace};
use std::collections::HashMap;

use crate::solver::Lit;

/// A comparison of two positions in the execution.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Atom {
    /// c(w) precedes trace event p (p inside c(w)'s window).
    CommitBeforeEvent(EventId, EventId),
    /// c(w1) precedes c(w2) (w1 < w2, other threads, one variable, windows meeting).
    CommitBeforeCommit(EventId, EventId),
}

/// Candidate ways to realise each transaction edge: a literal (`None`: always) and the conflict.
type EdgeWays = HashMap<(usize, usize), Vec<(Option<Lit>, Edge)>>;

/// A successor choice of the cycle constraint: (T, U, its `Succ` variable, the ways
/// T → U can hold, each with its literal, 0 meaning always).
pub type SuccChoice = (usize, usize, Lit, Vec<(Lit, Edge)>);

/// Why a variable exists, for the DIMACS variable table and witnesses.
#[derive(Clone, Debug)]
pub enum VarRole {
    Atom(Atom),
    /// Transaction in the cycle set S.
    InSet(usize),
    /// Edge T → U used by the cycle (and U in S).
    Succ(usize, usize),
    /// The conflict `src → dst` holds.
    Conflict(Node, Node, Rule),
    /// Paper mode: undirected edge (a, b) of EG_τ used as a → b.
    Used(EventId, EventId),
    /// Paper mode, eager export: event a precedes event b in a topological order of
    /// the directed edges and the used ones.
    Precedes(EventId, EventId),
}

/// A propositional formula with order atoms and a variable table.
#[derive(Clone, Debug, Default)]
pub struct Formula {
    pub roles: Vec<VarRole>,
    /// Clauses every backend asserts.
    pub clauses: Vec<Vec<Lit>>,
    /// Clauses that give atoms their meaning in pure SAT (order encoding, FIFO,
    /// commit pairs); an SMT backend replaces them by arithmetic.
    pub order_clauses: Vec<Vec<Lit>>,
    pub atoms: HashMap<Atom, Lit>,
    /// Transactions of the encoded components, each with its `InSet` variable.
    pub in_set: Vec<(usize, Lit)>,
    /// (T, U, `Succ` variable, edge witnesses): a constant-true witness when the edge is forced.
    pub succ: Vec<SuccChoice>,
    /// For each conflict variable: its order literal and the disjuncts of "not parallel".
    pub conflict_deps: HashMap<Lit, (Option<Lit>, Vec<Lit>)>,
}

impl Formula {
    fn var(&mut self, role: VarRole) -> Lit {
        self.roles.push(role);
        self.roles.len() as Lit
    }

    pub fn num_vars(&self) -> usize {
        self.roles.len()
    }

    /// The literal of `pos(a) < pos(b)` for an order that varies ([`fixed_order`] is `None`).
    fn lit_before(&mut self, trace: &Trace, a: Node, b: Node) -> Lit {
        match self.before(trace, a, b) {
            Ok(l) => l,
            Err(_) => unreachable!("lit_before on a fixed order"),
        }
    }

    /// The literal of `pos(a) < pos(b)`, or a constant when the order is fixed.
    /// Returns `Ok(lit)` or `Err(bool)` for a constant.
    fn before(&mut self, trace: &Trace, a: Node, b: Node) -> Result<Lit, bool> {
        if let Some(c) = fixed_order(trace, a, b) {
            return Err(c);
        }
        let (atom, sign) = match (a, b) {
            (Step::Commit(w), Step::Event(p)) => (Atom::CommitBeforeEvent(w, p), 1),
            (Step::Event(p), Step::Commit(w)) => (Atom::CommitBeforeEvent(w, p), -1),
            (Step::Commit(w1), Step::Commit(w2)) if w1 < w2 => {
                (Atom::CommitBeforeCommit(w1, w2), 1)
            }
            (Step::Commit(w1), Step::Commit(w2)) => (Atom::CommitBeforeCommit(w2, w1), -1),
            (Step::Event(_), Step::Event(_)) => unreachable!("events have fixed order"),
        };
        let lit = match self.atoms.get(&atom) {
            Some(&l) => l,
            None => {
                let l = self.var(VarRole::Atom(atom));
                self.atoms.insert(atom, l);
                l
            }
        };
        Ok(sign * lit)
    }

    /// Gives each commit the breakpoints of the commits it is compared with (commit
    /// pairs, FIFO neighbours) that lie inside its own window, so the tie clauses of
    /// [`Formula::finish_order`] cover those comparisons eagerly (one pass).
    fn share_breakpoints(&mut self, trace: &Trace, stop: &Stop) -> Result<(), ExportError> {
        let mut bp: HashMap<EventId, Vec<EventId>> = HashMap::new();
        let mut pairs: Vec<(EventId, EventId)> = Vec::new();
        for &a in self.atoms.keys() {
            match a {
                Atom::CommitBeforeEvent(w, p) => bp.entry(w).or_default().push(p),
                Atom::CommitBeforeCommit(w1, w2) => pairs.push((w1, w2)),
            }
        }
        let mut commits: Vec<EventId> = bp
            .keys()
            .copied()
            .chain(pairs.iter().flat_map(|&(a, b)| [a, b]))
            .collect();
        commits.sort_unstable();
        commits.dedup();
        let mut last: HashMap<ThreadId, EventId> = HashMap::new();
        for &w in &commits {
            if let Some(prev) = last.insert(trace.events[w].thread, w) {
                pairs.push((prev, w));
            }
        }
        pairs.sort_unstable();
        let mut extra: Vec<(EventId, EventId)> = Vec::new();
        for &(a, b) in &pairs {
            poll(stop)?;
            for (x, y) in [(a, b), (b, a)] {
                for &p in bp.get(&y).map(|v| v.as_slice()).unwrap_or(&[]) {
                    if x < p && p < trace.commit_bound(x) {
                        extra.push((x, p));
                    }
                }
            }
        }
        extra.sort_unstable();
        extra.dedup();
        for (k, (w, p)) in extra.into_iter().enumerate() {
            if k % 1024 == 0 {
                poll(stop)?;
            }
            let _ = self.before(trace, Step::Commit(w), Step::Event(p));
        }
        Ok(())
    }

    /// The order encoding of the atoms for pure SAT (see module doc); `Err` once
    /// `stop` expired (polled per commit and per commit pair).
    fn finish_order(&mut self, trace: &Trace, stop: &Stop) -> Result<(), ExportError> {
        self.share_breakpoints(trace, stop)?;
        // Per commit: its breakpoints, ascending, with "c(w) before p" literals.
        let mut bp: HashMap<EventId, Vec<(EventId, Lit)>> = HashMap::new();
        for (&a, &l) in &self.atoms {
            if let Atom::CommitBeforeEvent(w, p) = a {
                bp.entry(w).or_default().push((p, l));
            }
        }
        let mut keys: Vec<EventId> = bp.keys().copied().collect();
        keys.sort_unstable();
        for w in &keys {
            poll(stop)?;
            let list = bp.get_mut(w).unwrap();
            list.sort_unstable();
            // before p ⇒ before any later p'.
            for k in 1..list.len() {
                self.order_clauses.push(vec![-list[k - 1].1, list[k].1]);
            }
        }
        let lookup = |bp: &HashMap<EventId, Vec<(EventId, Lit)>>, w: EventId, p: EventId| {
            bp.get(&w)
                .and_then(|l| l.binary_search_by_key(&p, |x| x.0).ok().map(|i| l[i].1))
        };
        // FIFO: c(w1) < c(w2) in one thread: c(w2) before p ⇒ c(w1) before p.
        let mut last: HashMap<ThreadId, EventId> = HashMap::new();
        let mut commits: Vec<EventId> = bp.keys().copied().collect();
        commits.sort_unstable();
        for &w2 in &commits {
            poll(stop)?;
            if let Some(w1) = last.insert(trace.events[w2].thread, w2) {
                for &(p, l2) in &bp[&w2] {
                    if let Some(l1) = lookup(&bp, w1, p) {
                        self.order_clauses.push(vec![-l2, l1]);
                    }
                }
            }
        }
        // Commit pairs: c1 < c2 ∧ c2 before p ⇒ c1 before p; c1 before p ∧ ¬(c2 before p) ⇒ c1 < c2.
        let mut pairs: Vec<(EventId, EventId, Lit)> = self
            .atoms
            .iter()
            .filter_map(|(&a, &l)| match a {
                Atom::CommitBeforeCommit(w1, w2) => Some((w1, w2, l)),
                _ => None,
            })
            .collect();
        pairs.sort_unstable();
        for (w1, w2, cc) in pairs {
            poll(stop)?;
            for &(p, l2) in bp.get(&w2).map(|v| v.as_slice()).unwrap_or(&[]) {
                if let Some(l1) = lookup(&bp, w1, p) {
                    self.order_clauses.push(vec![-cc, -l2, l1]);
                    self.order_clauses.push(vec![cc, -l1, l2]);
                    self.order_clauses.push(vec![-l1, l2, cc]);
                    self.order_clauses.push(vec![-l2, l1, -cc]);
                }
            }
        }
        Ok(())
    }
}

/// A budget of the eager closure: clauses it may add before giving up.
pub const EAGER_MAX_CLAUSES: usize = 50_000_000;

/// Why an exported formula was not built.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ExportError {
    /// The eager closure would pass [`EAGER_MAX_CLAUSES`].
    TooLarge(String),
    /// The [`Stop`] expired (a deadline) before the formula was done.
    Stopped,
}

impl std::fmt::Display for ExportError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ExportError::TooLarge(why) => write!(f, "{why}"),
            ExportError::Stopped => write!(f, "stopped before the formula was built"),
        }
    }
}

/// `Err(Stopped)` once `stop` expired.
fn poll(stop: &Stop) -> Result<(), ExportError> {
    if stop.expired() {
        Err(ExportError::Stopped)
    } else {
        Ok(())
    }
}

impl Formula {
    /// Atoms for the eager closure ([`Formula::close_eagerly`]), before the order
    /// encoding is finished: every varying "c(w) before p" for p in c(w)'s window, and
    /// every varying order of two commits whose windows meet (any variables), for the
    /// commits `C` the formula already mentions.
    fn eager_atoms(&mut self, trace: &Trace, stop: &Stop) -> Result<Vec<EventId>, ExportError> {
        let mut c: Vec<EventId> = self
            .atoms
            .keys()
            .flat_map(|a| match *a {
                Atom::CommitBeforeEvent(w, _) => [Some(w), None],
                Atom::CommitBeforeCommit(a, b) => [Some(a), Some(b)],
            })
            .flatten()
            .collect();
        c.sort_unstable();
        c.dedup();
        for &w in &c {
            poll(stop)?;
            for p in w + 1..trace.commit_bound(w) {
                let _ = self.before(trace, Step::Commit(w), Step::Event(p));
            }
        }
        for (i, &a) in c.iter().enumerate() {
            poll(stop)?;
            for &b in &c[i + 1..] {
                if b >= trace.commit_bound(a) {
                    break; // windows sorted by start: later ones start past a's end
                }
                let _ = self.before(trace, Step::Commit(a), Step::Commit(b));
            }
        }
        Ok(c)
    }

    /// Makes the formula exact without lazy cuts (what `tsoser encode` writes, so an
    /// external solver's answer is the verdict): ties of every commit pair with the
    /// events one of them is fixed against, and no 3-cycle among commits whose windows
    /// meet. With the full order encoding each commit has a gap; commits in one gap
    /// form a tournament (their windows meet), acyclic iff it has no 3-cycle; orders
    /// across gaps follow from the ties — so every model is an execution
    /// (`encodings/README.md`, "Exact without cuts").
    fn close_eagerly(
        &mut self,
        trace: &Trace,
        c: &[EventId],
        stop: &Stop,
    ) -> Result<(), ExportError> {
        let lit = |f: &Formula, a: Node, b: Node| -> Result<Lit, bool> {
            if let Some(k) = fixed_order(trace, a, b) {
                return Err(k);
            }
            let (atom, sign) = match (a, b) {
                (Step::Commit(w), Step::Event(p)) => (Atom::CommitBeforeEvent(w, p), 1),
                (Step::Event(p), Step::Commit(w)) => (Atom::CommitBeforeEvent(w, p), -1),
                (Step::Commit(x), Step::Commit(y)) if x < y => (Atom::CommitBeforeCommit(x, y), 1),
                (Step::Commit(x), Step::Commit(y)) => (Atom::CommitBeforeCommit(y, x), -1),
                _ => unreachable!("events have fixed order"),
            };
            Ok(sign * f.atoms[&atom])
        };
        let budget = self.clauses.len() + self.order_clauses.len() + EAGER_MAX_CLAUSES;
        let mut extra: Vec<Vec<Lit>> = Vec::new();
        // Ties with fixed events: for a varying pair (a, b) and p varying for one of
        // them and fixed for the other.
        for (i, &a) in c.iter().enumerate() {
            poll(stop)?;
            for &b in &c[i + 1..] {
                if b >= trace.commit_bound(a) {
                    break;
                }
                poll(stop)?;
                let Ok(cc) = lit(self, Step::Commit(a), Step::Commit(b)) else {
                    continue;
                };
                for (x, y, sign) in [(a, b, 1), (b, a, -1)] {
                    // p varying for y, fixed for x; cc·sign is "x before y".
                    for p in y + 1..trace.commit_bound(y) {
                        let Ok(yp) = lit(self, Step::Commit(y), Step::Event(p)) else {
                            continue;
                        };
                        match fixed_order(trace, Step::Commit(x), Step::Event(p)) {
                            // x < p: y after p ⇒ x before y.
                            Some(true) => extra.push(vec![yp, sign * cc]),
                            // p < x: y before p ⇒ y before x.
                            Some(false) => extra.push(vec![-yp, -sign * cc]),
                            None => {}
                        }
                    }
                }
                if extra.len() > budget {
                    return Err(ExportError::TooLarge(format!(
                        "more than {EAGER_MAX_CLAUSES} clauses"
                    )));
                }
            }
        }
        // No 3-cycle among commits whose windows pairwise meet.
        let meet = |a: EventId, b: EventId| {
            let (ea, la) = commit_times(trace, a);
            let (eb, lb) = commit_times(trace, b);
            !(la < eb || lb < ea)
        };
        for (i, &a) in c.iter().enumerate() {
            poll(stop)?;
            for (j, &b) in c.iter().enumerate().skip(i + 1) {
                if b >= trace.commit_bound(a) {
                    break;
                }
                poll(stop)?;
                for &d in &c[j + 1..] {
                    if d >= trace.commit_bound(a) {
                        break;
                    }
                    if !meet(b, d) {
                        continue;
                    }
                    for (x, y, z) in [(a, b, d), (a, d, b)] {
                        // forbid x < y < z < x
                        let mut clause = Vec::new();
                        let mut possible = true;
                        for (u, v) in [(x, y), (y, z), (z, x)] {
                            match lit(self, Step::Commit(u), Step::Commit(v)) {
                                Ok(l) => clause.push(-l),
                                Err(true) => {}
                                Err(false) => possible = false,
                            }
                        }
                        if possible {
                            extra.push(clause);
                        }
                    }
                }
                if extra.len() > budget {
                    return Err(ExportError::TooLarge(format!(
                        "more than {EAGER_MAX_CLAUSES} clauses"
                    )));
                }
            }
        }
        self.order_clauses.extend(extra);
        Ok(())
    }
}

/// The cycle constraint over `txns` with candidate edges: `edges[(T, U)]` lists the
/// literals (with their conflict) that make T → U; a `None` literal means "always".
/// With `must`, the set must also contain a transaction `must` marks (exact semantics:
/// one of two events or more, docs/semantics.md §5.6).
fn cycle_constraint(f: &mut Formula, txns: &[usize], edges: EdgeWays, must: Option<&[bool]>) {
    let mut s = HashMap::new();
    for &t in txns {
        let v = f.var(VarRole::InSet(t));
        s.insert(t, v);
        f.in_set.push((t, v));
    }
    f.clauses.push(
        txns.iter()
            .filter(|&&t| must.is_none_or(|m| m[t]))
            .map(|t| s[t])
            .collect(),
    );
    let mut out: HashMap<usize, Vec<Lit>> = HashMap::new();
    let mut keys: Vec<_> = edges.keys().copied().collect();
    keys.sort_unstable();
    for (t, u) in keys {
        let (true, Some(&su)) = (s.contains_key(&t), s.get(&u)) else {
            continue;
        };
        let y = f.var(VarRole::Succ(t, u));
        f.clauses.push(vec![-y, su]);
        let ways = &edges[&(t, u)];
        let witnesses: Vec<(Lit, Edge)> = ways.iter().map(|(l, e)| (l.unwrap_or(0), *e)).collect();
        if ways.iter().all(|(l, _)| l.is_some()) {
            let mut c = vec![-y];
            c.extend(ways.iter().map(|(l, _)| l.unwrap()));
            f.clauses.push(c);
        }
        f.succ.push((t, u, y, witnesses));
        out.entry(t).or_default().push(y);
    }
    for &t in txns {
        let mut c = vec![-s[&t]];
        c.extend(out.get(&t).cloned().unwrap_or_default());
        f.clauses.push(c);
    }
}

/// The exact encoding for the transactions `txns`, given the forced edges and
/// varying pairs among them; `multi` marks the transactions of two events or more
/// ([`multi_event`]), one of which the cycle set must contain.
pub fn encode_exact(
    trace: &Trace,
    forced: &[Edge],
    pairs: &[(Node, Node)],
    txns: &[usize],
    multi: &[bool],
) -> Formula {
    encode_exact_with(trace, forced, pairs, txns, false, multi, &Stop::default())
        .expect("lazy encoding has no budget")
}

/// [`encode_exact`], and with `eager` exact without lazy cuts (`Formula::close_eagerly`;
/// `Err` past [`EAGER_MAX_CLAUSES`], or once `stop` expired, polled by the closure).
pub fn encode_exact_with(
    trace: &Trace,
    forced: &[Edge],
    pairs: &[(Node, Node)],
    txns: &[usize],
    eager: bool,
    multi: &[bool],
    stop: &Stop,
) -> Result<Formula, ExportError> {
    let mut f = Formula::default();
    let mut edges: EdgeWays = HashMap::new();
    for e in forced {
        edges.entry((e.from, e.to)).or_default().push((None, *e));
    }
    for &(a, b) in pairs {
        for (x, y) in [(a, b), (b, a)] {
            let Some((lit, rule)) = conflict_lit(&mut f, trace, x, y) else {
                continue;
            };
            let e = Edge {
                from: txn(trace, x).index(),
                to: txn(trace, y).index(),
                src: x,
                dst: y,
                rule,
            };
            edges.entry((e.from, e.to)).or_default().push((lit, e));
        }
    }
    cycle_constraint(&mut f, txns, edges, Some(multi));
    let closed = eager.then(|| f.eager_atoms(trace, stop)).transpose()?;
    f.finish_order(trace, stop)?;
    if let Some(c) = closed {
        f.close_eagerly(trace, &c, stop)?;
    }
    Ok(f)
}

/// A literal for "x precedes y and they conflict" (`None` inside: always), or `None` if never.
fn conflict_lit(f: &mut Formula, trace: &Trace, x: Node, y: Node) -> Option<(Option<Lit>, Rule)> {
    let req = requirement(trace, x, y)?;
    if req.order.is_none() && req.not_parallel.is_empty() {
        return Some((None, req.rule));
    }
    let order = req.order.map(|(u, v)| f.lit_before(trace, u, v));
    let not_parallel: Vec<Lit> = req
        .not_parallel
        .iter()
        .map(|&(u, v)| -f.lit_before(trace, v, u))
        .collect();
    let k = f.var(VarRole::Conflict(x, y, req.rule));
    if let Some(o) = order {
        f.clauses.push(vec![-k, o]);
    }
    if !not_parallel.is_empty() {
        let mut c = vec![-k];
        c.extend(not_parallel.iter().copied());
        f.clauses.push(c);
    }
    f.conflict_deps.insert(k, (order, not_parallel));
    Some((Some(k), req.rule))
}

/// The paper encoding (Def. 4) for `txns`, given its directed conflict edges and its
/// undirected edges (with whether directed edges already order them).
pub fn encode_paper(
    trace: &Trace,
    directed: &[Edge],
    undirected: &[((EventId, EventId), bool)],
    txns: &[usize],
) -> Formula {
    let mut f = Formula::default();
    let mut edges: EdgeWays = HashMap::new();
    for e in directed {
        edges.entry((e.from, e.to)).or_default().push((None, *e));
    }
    for &((a, b), ordered) in undirected {
        let fwd = f.var(VarRole::Used(a, b));
        // Already ordered a ⇝ b by directed edges: b → a would close a cycle.
        let mut ways = vec![(fwd, a, b)];
        if !ordered {
            let bwd = f.var(VarRole::Used(b, a));
            f.clauses.push(vec![-fwd, -bwd]);
            ways.push((bwd, b, a));
        }
        for (l, x, y) in ways {
            let e = Edge {
                from: trace.events[x].txn.index(),
                to: trace.events[y].txn.index(),
                src: Step::Event(x),
                dst: Step::Event(y),
                rule: Rule::PaperOriented,
            };
            edges.entry((e.from, e.to)).or_default().push((Some(l), e));
        }
    }
    cycle_constraint(&mut f, txns, edges, None);
    f
}

/// Paper mode made exact without lazy cuts (what `tsoser encode` writes): a total
/// order of the endpoints of the undirected edges (one variable a pair, no 3-cycle),
/// the directed edges' reachability between them as fixed orders, and every used edge
/// agreeing with the order. The used edges and the directed ones are acyclic iff such
/// an order exists, which is what the lazy check asks of a model.
/// `Err` past [`EAGER_MAX_CLAUSES`], or once `stop` expired (polled).
pub fn close_paper_eagerly(
    f: &mut Formula,
    g: &PaperGraph,
    n: usize,
    stop: &Stop,
) -> Result<(), ExportError> {
    let used: Vec<(Lit, EventId, EventId)> = f
        .roles
        .iter()
        .enumerate()
        .filter_map(|(i, r)| match *r {
            VarRole::Used(a, b) => Some((i as Lit + 1, a, b)),
            _ => None,
        })
        .collect();
    let mut nodes: Vec<EventId> = used.iter().flat_map(|&(_, a, b)| [a, b]).collect();
    nodes.sort_unstable();
    nodes.dedup();
    let k = nodes.len();
    if k.saturating_mul(k).saturating_mul(k) / 3 > EAGER_MAX_CLAUSES {
        return Err(ExportError::TooLarge(format!(
            "more than {EAGER_MAX_CLAUSES} clauses"
        )));
    }
    let index: HashMap<EventId, usize> = nodes.iter().enumerate().map(|(i, &e)| (e, i)).collect();
    let mut adj: Vec<Vec<EventId>> = vec![Vec::new(); n];
    for &(a, b) in &g.directed {
        adj[a].push(b);
    }
    // reach[i][j]: node i reaches node j by directed edges (i ≠ j).
    let mut reach = vec![vec![false; k]; k];
    let mut seen = vec![usize::MAX; n];
    for (i, &u) in nodes.iter().enumerate() {
        poll(stop)?;
        let mut stack = vec![u];
        seen[u] = i;
        while let Some(x) = stack.pop() {
            for &y in &adj[x] {
                if y == u {
                    reach[i][i] = true; // a directed cycle: no orientation is acyclic
                }
                if seen[y] != i {
                    seen[y] = i;
                    if let Some(&j) = index.get(&y) {
                        reach[i][j] = true;
                    }
                    stack.push(y);
                }
            }
        }
    }
    if (0..k).any(|i| reach[i][i]) {
        let x = f.var(VarRole::Precedes(nodes[0], nodes[0]));
        f.order_clauses.push(vec![x]);
        f.order_clauses.push(vec![-x]);
        return Ok(());
    }
    let mut var = vec![vec![0 as Lit; k]; k];
    for i in 0..k {
        for j in i + 1..k {
            if !reach[i][j] && !reach[j][i] {
                var[i][j] = f.var(VarRole::Precedes(nodes[i], nodes[j]));
            }
        }
    }
    // The literal of "i precedes j", or a constant.
    let ord = |i: usize, j: usize| -> Result<Lit, bool> {
        if reach[i][j] {
            Err(true)
        } else if reach[j][i] {
            Err(false)
        } else if i < j {
            Ok(var[i][j])
        } else {
            Ok(-var[j][i])
        }
    };
    for &(l, a, b) in &used {
        match ord(index[&a], index[&b]) {
            Ok(o) => f.order_clauses.push(vec![-l, o]),
            Err(false) => f.order_clauses.push(vec![-l]),
            Err(true) => {}
        }
    }
    for i in 0..k {
        poll(stop)?;
        for j in i + 1..k {
            for m in j + 1..k {
                for (x, y, z) in [(i, j, m), (i, m, j)] {
                    let mut clause = Vec::new();
                    let mut possible = true;
                    for (u, v) in [(x, y), (y, z), (z, x)] {
                        match ord(u, v) {
                            Ok(o) => clause.push(-o),
                            Err(true) => {}
                            Err(false) => possible = false,
                        }
                    }
                    if possible {
                        f.order_clauses.push(clause);
                    }
                }
            }
        }
    }
    Ok(())
}

/// The formula over every component at once: satisfiable iff some component has a
/// cycle, modulo the lazy cuts the solver loop adds (see [`export_formula`]); given up
/// (`Err(Stopped)`) once `stop` expired, polled between its phases.
pub fn whole_formula(
    trace: &Trace,
    semantics: crate::check::Semantics,
    stop: &Stop,
) -> Result<Formula, ExportError> {
    whole(trace, semantics, false, stop)
}

/// What `tsoser encode` writes: the whole formula made exact without lazy cuts, so
/// any external solver's answer is the verdict (satisfiable iff not serializable).
/// `Err` when the eager closure would pass [`EAGER_MAX_CLAUSES`], or once `stop`
/// expired (polled between its phases and inside the eager closure).
pub fn export_formula(
    trace: &Trace,
    semantics: crate::check::Semantics,
    stop: &Stop,
) -> Result<Formula, ExportError> {
    whole(trace, semantics, true, stop)
}

fn whole(
    trace: &Trace,
    semantics: crate::check::Semantics,
    eager: bool,
    stop: &Stop,
) -> Result<Formula, ExportError> {
    match semantics {
        crate::check::Semantics::Exact => {
            let forced = crate::graph::forced::forced_packed(trace, &Stop::default())
                .expect("no memory budget");
            poll(stop)?;
            let pairs = varying_pairs(trace);
            poll(stop)?;
            let txn_of = txn_column(trace);
            let (comps, comp_of) = possible_components(trace, &txn_of, &forced, &pairs);
            let all: Vec<Option<usize>> = (0..comps.len()).map(Some).collect();
            let b = Buckets::new(&txn_of, forced, pairs, &all, &comp_of);
            poll(stop)?;
            encode_exact_with(
                trace,
                &unpack_edges(trace, b.forced.all()),
                b.pairs.all(),
                &comps.concat(),
                eager,
                &multi_event(trace),
                stop,
            )
        }
        crate::check::Semantics::Paper => {
            let g = PaperGraph::new(trace);
            poll(stop)?;
            let (comps, comp_of) = components(&g.both_ways(trace));
            let b = PaperBuckets::new(&g, trace, comps.len(), &comp_of);
            poll(stop)?;
            let directed = unpack_edges(trace, b.directed.all());
            let mut f = encode_paper(trace, &directed, b.undirected.all(), &comps.concat());
            if eager {
                close_paper_eagerly(&mut f, &g, trace.len(), stop)?;
            }
            Ok(f)
        }
    }
}
