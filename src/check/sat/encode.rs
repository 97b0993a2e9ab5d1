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

use crate::check::conflict::{access, thread, txn, Access, Rule};
use crate::graph::forced::{commit_times, event_time};
use crate::graph::paper::PaperGraph;
use crate::graph::{ConflictGraph, Edge};
use crate::trace::exec::{Node, Step};
use crate::trace::{EventId, Op, Trace};
use std::collections::HashMap;

/// A literal in DIMACS convention: `v` or `-v`, `v ≥ 1`.
pub type Lit = i32;

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
    fn share_breakpoints(&mut self, trace: &Trace) {
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
        let mut last: HashMap<usize, EventId> = HashMap::new();
        for &w in &commits {
            if let Some(prev) = last.insert(trace.events[w].thread, w) {
                pairs.push((prev, w));
            }
        }
        pairs.sort_unstable();
        let mut extra: Vec<(EventId, EventId)> = Vec::new();
        for &(a, b) in &pairs {
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
        for (w, p) in extra {
            let _ = self.before(trace, Step::Commit(w), Step::Event(p));
        }
    }

    /// The order encoding of the atoms for pure SAT (see module doc).
    fn finish_order(&mut self, trace: &Trace) {
        self.share_breakpoints(trace);
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
        let mut last: HashMap<usize, EventId> = HashMap::new();
        let mut commits: Vec<EventId> = bp.keys().copied().collect();
        commits.sort_unstable();
        for &w2 in &commits {
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
            for &(p, l2) in bp.get(&w2).map(|v| v.as_slice()).unwrap_or(&[]) {
                if let Some(l1) = lookup(&bp, w1, p) {
                    self.order_clauses.push(vec![-cc, -l2, l1]);
                    self.order_clauses.push(vec![cc, -l1, l2]);
                    self.order_clauses.push(vec![-l1, l2, cc]);
                    self.order_clauses.push(vec![-l2, l1, -cc]);
                }
            }
        }
    }
}

/// A budget of the eager closure: clauses it may add before giving up.
pub const EAGER_MAX_CLAUSES: usize = 50_000_000;

impl Formula {
    /// Atoms for the eager closure ([`Formula::close_eagerly`]), before the order
    /// encoding is finished: every varying "c(w) before p" for p in c(w)'s window, and
    /// every varying order of two commits whose windows meet (any variables), for the
    /// commits `C` the formula already mentions.
    fn eager_atoms(&mut self, trace: &Trace) -> Vec<EventId> {
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
            for p in w + 1..trace.commit_bound(w) {
                let _ = self.before(trace, Step::Commit(w), Step::Event(p));
            }
        }
        for (i, &a) in c.iter().enumerate() {
            for &b in &c[i + 1..] {
                if b >= trace.commit_bound(a) {
                    break; // windows sorted by start: later ones start past a's end
                }
                let _ = self.before(trace, Step::Commit(a), Step::Commit(b));
            }
        }
        c
    }

    /// Makes the formula exact without lazy cuts (what `tsoser encode` writes, so an
    /// external solver's answer is the verdict): ties of every commit pair with the
    /// events one of them is fixed against, and no 3-cycle among commits whose windows
    /// meet. With the full order encoding each commit has a gap; commits in one gap
    /// form a tournament (their windows meet), acyclic iff it has no 3-cycle; orders
    /// across gaps follow from the ties — so every model is an execution
    /// (`encodings/README.md`, "Exact without cuts").
    fn close_eagerly(&mut self, trace: &Trace, c: &[EventId]) -> Result<(), String> {
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
            for &b in &c[i + 1..] {
                if b >= trace.commit_bound(a) {
                    break;
                }
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
                    return Err(format!("more than {EAGER_MAX_CLAUSES} clauses"));
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
            for (j, &b) in c.iter().enumerate().skip(i + 1) {
                if b >= trace.commit_bound(a) {
                    break;
                }
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
                    return Err(format!("more than {EAGER_MAX_CLAUSES} clauses"));
                }
            }
        }
        self.order_clauses.extend(extra);
        Ok(())
    }
}

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
    let mut by_var: Vec<Vec<(u64, u64, Node)>> = vec![Vec::new(); trace.vars.len()];
    for (i, e) in trace.events.iter().enumerate() {
        let n = match e.op {
            Op::Wr => Step::Commit(i),
            Op::Rd | Op::Rmw => Step::Event(i),
            Op::Fence => continue,
        };
        let (lo, hi) = span(trace, n);
        by_var[e.var.unwrap()].push((lo, hi, n));
    }
    let k = trace.threads.len();
    let mut out = Vec::new();
    // Open spans per thread: [thread][0 = not a read, 1 = read] → indices into the list.
    let mut open: Vec<[Vec<usize>; 2]> = vec![[Vec::new(), Vec::new()]; k];
    let mut found: Vec<(usize, usize)> = Vec::new();
    for list in &mut by_var {
        list.sort_unstable_by_key(|x| (x.0, x.1));
        for o in open.iter_mut() {
            o[0].clear();
            o[1].clear();
        }
        found.clear();
        for (j, &(lo, _, b)) in list.iter().enumerate() {
            let tb = thread(trace, b);
            let read = usize::from(access(trace, b).0 == Access::Read);
            for (t, o) in open.iter_mut().enumerate() {
                if t == tb {
                    continue;
                }
                // A read pairs with non-reads only; the rest with both.
                for spans in o.iter_mut().take(2 - read) {
                    spans.retain(|&i| list[i].1 >= lo);
                    found.extend(spans.iter().map(|&i| (i, j)));
                }
            }
            open[tb][read].push(j);
        }
        found.sort_unstable();
        out.extend(found.iter().map(|&(i, j)| (list[i].2, list[j].2)));
    }
    out
}

/// The graph of every conflict some execution may have: forced edges plus each
/// varying pair in each direction its order allows. Contains every execution's graph.
pub fn possible_graph(
    trace: &Trace,
    forced: &ConflictGraph,
    pairs: &[(Node, Node)],
) -> ConflictGraph {
    let mut g = forced.clone();
    for e in possible_edges(trace, pairs) {
        g.add(e.from, e.to, e.src, e.dst, e.rule);
    }
    g
}

/// The varying pairs as edges, each direction the times allow (the part of
/// [`possible_graph`] beyond the forced edges). Edge labels are not conflict rules.
pub fn possible_edges(trace: &Trace, pairs: &[(Node, Node)]) -> Vec<Edge> {
    let mut out = Vec::new();
    for &(a, b) in pairs {
        let ((ea, la), (eb, lb)) = (times(trace, a), times(trace, b));
        for (x, y, ok) in [(a, b, ea <= lb), (b, a, eb <= la)] {
            let (from, to) = (txn(trace, x), txn(trace, y));
            if ok && from != to {
                out.push(Edge {
                    from,
                    to,
                    src: x,
                    dst: y,
                    rule: Rule::WriteWrite,
                });
            }
        }
    }
    out
}

/// The cycle constraint over `txns` with candidate edges: `edges[(T, U)]` lists the
/// literals (with their conflict) that make T → U; a `None` literal means "always".
fn cycle_constraint(f: &mut Formula, txns: &[usize], edges: EdgeWays) {
    let mut s = HashMap::new();
    for &t in txns {
        let v = f.var(VarRole::InSet(t));
        s.insert(t, v);
        f.in_set.push((t, v));
    }
    f.clauses.push(txns.iter().map(|t| s[t]).collect());
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

/// The component holding both transactions, if they share one.
fn shared_component(comp_of: &HashMap<usize, usize>, x: usize, y: usize) -> Option<usize> {
    comp_of
        .get(&x)
        .filter(|&&c| comp_of.get(&y) == Some(&c))
        .copied()
}

/// Forced edges and varying pairs bucketed by the component holding both ends
/// (built once; each component's encoding then reads only its own bucket).
pub struct Buckets {
    pub forced: Vec<Vec<Edge>>,
    pub pairs: Vec<Vec<(Node, Node)>>,
}

impl Buckets {
    pub fn new(
        trace: &Trace,
        forced: &[Edge],
        pairs: &[(Node, Node)],
        comps: usize,
        comp_of: &HashMap<usize, usize>,
    ) -> Buckets {
        let mut b = Buckets {
            forced: vec![Vec::new(); comps],
            pairs: vec![Vec::new(); comps],
        };
        let comp = |x: usize, y: usize| shared_component(comp_of, x, y);
        for e in forced {
            if let Some(c) = comp(e.from, e.to) {
                b.forced[c].push(*e);
            }
        }
        for &(x, y) in pairs {
            if let Some(c) = comp(txn(trace, x), txn(trace, y)) {
                b.pairs[c].push((x, y));
            }
        }
        b
    }
}

/// The exact encoding for the transactions `txns`, given the forced edges and
/// varying pairs among them.
pub fn encode_exact(
    trace: &Trace,
    forced: &[Edge],
    pairs: &[(Node, Node)],
    txns: &[usize],
) -> Formula {
    encode_exact_with(trace, forced, pairs, txns, false).expect("lazy encoding has no budget")
}

/// [`encode_exact`], and with `eager` exact without lazy cuts (`Formula::close_eagerly`;
/// `Err` past [`EAGER_MAX_CLAUSES`]).
pub fn encode_exact_with(
    trace: &Trace,
    forced: &[Edge],
    pairs: &[(Node, Node)],
    txns: &[usize],
    eager: bool,
) -> Result<Formula, String> {
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
                from: txn(trace, x),
                to: txn(trace, y),
                src: x,
                dst: y,
                rule,
            };
            edges.entry((e.from, e.to)).or_default().push((lit, e));
        }
    }
    cycle_constraint(&mut f, txns, edges);
    let closed = eager.then(|| f.eager_atoms(trace));
    f.finish_order(trace);
    if let Some(c) = closed {
        f.close_eagerly(trace, &c)?;
    }
    Ok(f)
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

/// Def. 4's edges bucketed by component: directed conflict edges, and undirected
/// edges between different transactions with whether directed edges already order them.
pub struct PaperBuckets {
    pub directed: Vec<Vec<Edge>>,
    pub undirected: Vec<Vec<((EventId, EventId), bool)>>,
}

impl PaperBuckets {
    pub fn new(
        g: &PaperGraph,
        trace: &Trace,
        comps: usize,
        comp_of: &HashMap<usize, usize>,
    ) -> PaperBuckets {
        let mut b = PaperBuckets {
            directed: vec![Vec::new(); comps],
            undirected: vec![Vec::new(); comps],
        };
        let comp = |x: usize, y: usize| shared_component(comp_of, x, y);
        for e in g.directed_conflicts(trace).edges() {
            if let Some(c) = comp(e.from, e.to) {
                b.directed[c].push(*e);
            }
        }
        for (&(a, c), ord) in g.undirected.iter().zip(g.ordered_undirected()) {
            let (ta, tc) = (trace.events[a].txn, trace.events[c].txn);
            if let Some(k) = comp(ta, tc).filter(|_| ta != tc) {
                b.undirected[k].push(((a, c), ord));
            }
        }
        b
    }
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
                from: trace.events[x].txn,
                to: trace.events[y].txn,
                src: Step::Event(x),
                dst: Step::Event(y),
                rule: Rule::PaperOriented,
            };
            edges.entry((e.from, e.to)).or_default().push((Some(l), e));
        }
    }
    cycle_constraint(&mut f, txns, edges);
    f
}

/// Paper mode made exact without lazy cuts (what `tsoser encode` writes): a total
/// order of the endpoints of the undirected edges (one variable a pair, no 3-cycle),
/// the directed edges' reachability between them as fixed orders, and every used edge
/// agreeing with the order. The used edges and the directed ones are acyclic iff such
/// an order exists, which is what the lazy check asks of a model.
pub fn close_paper_eagerly(f: &mut Formula, g: &PaperGraph, n: usize) -> Result<(), String> {
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
        return Err(format!("more than {EAGER_MAX_CLAUSES} clauses"));
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

/// Components of a graph with more than one node, and each node's component index.
pub fn components(g: &ConflictGraph) -> (Vec<Vec<usize>>, HashMap<usize, usize>) {
    components_of(g.group_count(), &[g.edges()])
}

/// Components of the graph over `groups` nodes with the union of `edge_lists`.
pub fn components_of(
    groups: usize,
    edge_lists: &[&[Edge]],
) -> (Vec<Vec<usize>>, HashMap<usize, usize>) {
    use petgraph::graph::{DiGraph, NodeIndex};
    let total = edge_lists.iter().map(|l| l.len()).sum();
    let mut pg: DiGraph<(), ()> = DiGraph::with_capacity(groups, total);
    for _ in 0..groups {
        pg.add_node(());
    }
    for e in edge_lists.iter().flat_map(|l| l.iter()) {
        pg.add_edge(NodeIndex::new(e.from), NodeIndex::new(e.to), ());
    }
    let mut comps: Vec<Vec<usize>> = petgraph::algo::kosaraju_scc(&pg)
        .into_iter()
        .filter(|c| c.len() > 1)
        .map(|c| {
            let mut v: Vec<usize> = c.into_iter().map(|n| n.index()).collect();
            v.sort_unstable();
            v
        })
        .collect();
    comps.sort();
    let mut of = HashMap::new();
    for (i, c) in comps.iter().enumerate() {
        for &t in c {
            of.insert(t, i);
        }
    }
    (comps, of)
}

/// The formula over every component at once: satisfiable iff some component has a
/// cycle, modulo the lazy cuts the solver loop adds (see [`export_formula`]).
pub fn whole_formula(trace: &Trace, semantics: crate::check::Semantics) -> Formula {
    whole(trace, semantics, false).expect("lazy encoding has no budget")
}

/// What `tsoser encode` writes: the whole formula made exact without lazy cuts, so
/// any external solver's answer is the verdict (satisfiable iff not serializable).
/// `Err` when the eager closure would pass [`EAGER_MAX_CLAUSES`].
pub fn export_formula(
    trace: &Trace,
    semantics: crate::check::Semantics,
) -> Result<Formula, String> {
    whole(trace, semantics, true)
}

fn whole(
    trace: &Trace,
    semantics: crate::check::Semantics,
    eager: bool,
) -> Result<Formula, String> {
    match semantics {
        crate::check::Semantics::Exact => {
            let forced = crate::graph::forced::forced_graph(trace);
            let pairs = varying_pairs(trace);
            let (comps, comp_of) = components(&possible_graph(trace, &forced, &pairs));
            let b = Buckets::new(trace, forced.edges(), &pairs, comps.len(), &comp_of);
            encode_exact_with(
                trace,
                &b.forced.concat(),
                &b.pairs.concat(),
                &comps.concat(),
                eager,
            )
        }
        crate::check::Semantics::Paper => {
            let g = PaperGraph::new(trace);
            let (comps, comp_of) = components(&g.both_ways(trace));
            let b = PaperBuckets::new(&g, trace, comps.len(), &comp_of);
            let mut f = encode_paper(
                trace,
                &b.directed.concat(),
                &b.undirected.concat(),
                &comps.concat(),
            );
            if eager {
                close_paper_eagerly(&mut f, &g, trace.len())?;
            }
            Ok(f)
        }
    }
}
