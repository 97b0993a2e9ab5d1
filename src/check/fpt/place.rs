//! Exact mode: can one commit placement realise a set of conflict edges?
//!
//! Each edge asks for an order that varies and, when the read may be parallel with the
//! write (exception (i)), one of up to three further orders
//! ([`crate::analysis::Requirement`]). Every order is "u precedes v" between
//! a commit (a free point) and a trace event (fixed at time 2p + 1) or another commit.
//! A commit c(w) lies strictly between w and the next fence/rmw of its thread, and the
//! commits of a thread keep FIFO order (docs/semantics.md §2). Over real-valued positions
//! such strict orders are satisfiable iff the commit-to-commit part is acyclic and each
//! commit's lowest upper bound exceeds its highest lower bound after propagation along
//! it; the commits the edges do not mention can always be placed around them (right
//! after their write or their FIFO predecessor). So the check is exact, and small: it
//! involves only the commits the candidate cycle names.

use crate::analysis::Requirement;
use crate::graph::forced::event_time;
use crate::trace::exec::{Node, Step};
use crate::trace::{ThreadId, Trace};

/// Buffers reused across checks (the backtracking of [`realise`] calls `check` often).
#[derive(Default)]
pub struct Scratch {
    commits: Vec<usize>,
    lo: Vec<u64>,
    hi: Vec<u64>,
    edges: Vec<(usize, usize)>,
    indeg: Vec<usize>,
    order: Vec<usize>,
    done: Vec<bool>,
    /// The orders chosen by the last successful [`realise`].
    pub cons: Vec<(Node, Node)>,
}

/// Whether the orders `cons` ("u precedes v") hold together in some execution.
#[cfg(test)]
pub fn consistent(trace: &Trace, cons: &[(Node, Node)]) -> bool {
    check(trace, cons, &mut Scratch::default())
}

fn check(trace: &Trace, cons: &[(Node, Node)], s: &mut Scratch) -> bool {
    s.commits.clear();
    for &(u, v) in cons {
        for n in [u, v] {
            if let Step::Commit(w) = n {
                s.commits.push(w);
            }
        }
    }
    s.commits.sort_unstable();
    s.commits.dedup();
    let k = s.commits.len();
    let commits = &s.commits;
    let ix = |w: usize| commits.binary_search(&w).unwrap();
    s.lo.clear();
    s.lo.extend(commits.iter().map(|&w| event_time(w)));
    s.hi.clear();
    s.hi.extend(commits.iter().map(|&w| event_time(trace.commit_bound(w))));
    s.edges.clear();
    // FIFO between the named commits of one thread (sorted by write, so in issue order).
    for a in 0..k {
        let t = trace.events[commits[a]].thread;
        if let Some(b) = (a + 1..k).find(|&b| trace.events[commits[b]].thread == t) {
            s.edges.push((a, b));
        }
    }
    for &(u, v) in cons {
        match (u, v) {
            (Step::Event(p), Step::Event(q)) if p >= q => return false,
            (Step::Event(_), Step::Event(_)) => {}
            (Step::Event(p), Step::Commit(w)) => {
                let i = ix(w);
                s.lo[i] = s.lo[i].max(event_time(p));
            }
            (Step::Commit(w), Step::Event(p)) => {
                let i = ix(w);
                s.hi[i] = s.hi[i].min(event_time(p));
            }
            (Step::Commit(a), Step::Commit(b)) => s.edges.push((ix(a), ix(b))),
        }
    }
    // Kahn on the few named commits; then propagate bounds both ways.
    s.indeg.clear();
    s.indeg.resize(k, 0);
    for &(_, b) in &s.edges {
        s.indeg[b] += 1;
    }
    s.done.clear();
    s.done.resize(k, false);
    s.order.clear();
    while s.order.len() < k {
        let Some(a) = (0..k).find(|&a| !s.done[a] && s.indeg[a] == 0) else {
            return false; // a cycle among the commits
        };
        s.done[a] = true;
        s.order.push(a);
        for &(x, b) in &s.edges {
            if x == a {
                s.indeg[b] -= 1;
            }
        }
    }
    for &a in &s.order {
        for &(x, b) in &s.edges {
            if x == a {
                s.lo[b] = s.lo[b].max(s.lo[a]);
            }
        }
    }
    for &a in s.order.iter().rev() {
        for &(x, b) in &s.edges {
            if x == a {
                s.hi[a] = s.hi[a].min(s.hi[b]);
            }
        }
    }
    (0..k).all(|i| s.lo[i] < s.hi[i])
}

/// Picks, for each requirement, its order and one "not parallel" disjunct so that all
/// hold together (backtracking over at most 3 choices per edge). On success the
/// chosen orders are in `s.cons`; `false` when no placement realises every edge.
pub fn realise<'r>(
    trace: &Trace,
    reqs: impl Iterator<Item = &'r Requirement> + Clone,
    s: &mut Scratch,
) -> bool {
    let mut cons = std::mem::take(&mut s.cons);
    cons.clear();
    cons.extend(reqs.clone().filter_map(|r| r.order));
    let mut choices: Vec<&[(Node, Node)]> = reqs
        .map(|r| r.not_parallel.as_slice())
        .filter(|c| !c.is_empty())
        .collect();
    // Pairs with a single way to be non-parallel are plain orders.
    choices.retain(|c| {
        if c.len() == 1 {
            cons.push(c[0]);
        }
        c.len() > 1
    });
    fn pick(
        trace: &Trace,
        choices: &[&[(Node, Node)]],
        cons: &mut Vec<(Node, Node)>,
        s: &mut Scratch,
    ) -> bool {
        let Some((first, rest)) = choices.split_first() else {
            return true;
        };
        for &c in first.iter() {
            cons.push(c);
            if check(trace, cons, s) && pick(trace, rest, cons, s) {
                return true;
            }
            cons.pop();
        }
        false
    }
    let ok = check(trace, &cons, s) && pick(trace, &choices, &mut cons, s);
    s.cons = cons;
    ok
}

/// The same question asked incrementally, as the search of Fig. 3 asks it: requirements
/// are pushed one jump at a time and popped on backtracking, so each jump costs the
/// bounds it changes rather than a check of the whole cycle from scratch.
///
/// State: the named commits (slots) with their bounds `lo < x < hi` on the time line
/// of [`event_time`], and the commit-to-commit edges (chosen orders and FIFO between
/// the nearest named commits of a thread). Every order is propagated at once to a
/// fixpoint (`lo` forward along edges, `hi` backward), and a commit-to-commit order is
/// refused when it closes a cycle; so the state is always the propagated bounds that
/// the check from scratch ([`consistent`]) computes, and "feasible" is `lo < hi`
/// everywhere. A trail undoes each change.
///
/// Requirements with several ways to be non-parallel (exception (i)) are kept aside
/// and settled by backtracking after each push ([`Placement::push`]), exactly as
/// [`realise`] does; the definite orders stay in the state.
pub struct Placement<'t> {
    trace: &'t Trace,
    slots: Vec<Slot>,
    succ: Vec<Vec<u32>>,
    pred: Vec<Vec<u32>>,
    trail: Vec<Undo>,
    /// Trail lengths at each [`Placement::push`], for [`Placement::pop`].
    marks: Vec<usize>,
    /// Disjunctive requirements (≥ 2 choices) of the pushed jumps.
    pending: Vec<&'t [(Node, Node)]>,
    /// DFS stamps for the cycle test, per slot.
    seen: Vec<u32>,
    stamp: u32,
    stack: Vec<(u32, u64)>,
}

struct Slot {
    write: usize,
    thread: ThreadId,
    lo: u64,
    hi: u64,
}

enum Undo {
    Bounds { slot: u32, lo: u64, hi: u64 },
    Edge { from: u32, to: u32 },
    Slot,
    Pending,
}

impl<'t> Placement<'t> {
    pub fn new(trace: &'t Trace) -> Self {
        Placement {
            trace,
            slots: Vec::new(),
            succ: Vec::new(),
            pred: Vec::new(),
            trail: Vec::new(),
            marks: Vec::new(),
            pending: Vec::new(),
            seen: Vec::new(),
            stamp: 0,
            stack: Vec::new(),
        }
    }

    /// Adds one jump's requirement; `false` when no placement realises every pushed
    /// requirement together. Either way the push is undone by one [`Placement::pop`].
    pub fn push(&mut self, req: &'t Requirement) -> bool {
        self.marks.push(self.trail.len());
        let definite = match req.not_parallel.len() {
            0 => None,
            1 => Some(req.not_parallel[0]),
            _ => {
                self.pending.push(&req.not_parallel);
                self.trail.push(Undo::Pending);
                None
            }
        };
        if !req.order.into_iter().chain(definite).all(|c| self.order(c)) {
            return false;
        }
        if self.pending.is_empty() {
            return true;
        }
        let pending = std::mem::take(&mut self.pending);
        let ok = self.settle(&pending);
        self.pending = pending;
        ok
    }

    /// Undoes the last [`Placement::push`].
    pub fn pop(&mut self) {
        let mark = self.marks.pop().expect("a push to undo");
        self.undo_to(mark);
    }

    /// Whether one choice per pending disjunction holds together with the state (the
    /// choices are undone before returning: the next push settles them again).
    fn settle(&mut self, pending: &[&[(Node, Node)]]) -> bool {
        let Some((first, rest)) = pending.split_first() else {
            return true;
        };
        first.iter().any(|&c| {
            let mark = self.trail.len();
            let ok = self.order(c) && self.settle(rest);
            self.undo_to(mark);
            ok
        })
    }

    fn undo_to(&mut self, mark: usize) {
        while self.trail.len() > mark {
            match self.trail.pop().expect("above the mark") {
                Undo::Bounds { slot, lo, hi } => {
                    let s = &mut self.slots[slot as usize];
                    (s.lo, s.hi) = (lo, hi);
                }
                Undo::Edge { from, to } => {
                    self.succ[from as usize].pop();
                    self.pred[to as usize].pop();
                }
                Undo::Slot => {
                    self.slots.pop();
                    self.succ.pop();
                    self.pred.pop();
                    self.seen.pop();
                }
                Undo::Pending => {
                    self.pending.pop();
                }
            }
        }
    }

    /// Adds "u precedes v"; `false` when infeasible (the state is then partly changed:
    /// the caller undoes to its mark).
    fn order(&mut self, (u, v): (Node, Node)) -> bool {
        match (u, v) {
            (Step::Event(p), Step::Event(q)) => p < q,
            (Step::Event(p), Step::Commit(w)) => {
                let Some(i) = self.slot(w) else { return false };
                self.raise(i, event_time(p))
            }
            (Step::Commit(w), Step::Event(p)) => {
                let Some(i) = self.slot(w) else { return false };
                self.lower(i, event_time(p))
            }
            (Step::Commit(a), Step::Commit(b)) => {
                let (Some(a), Some(b)) = (self.slot(a), self.slot(b)) else {
                    return false;
                };
                if self.reaches(b, a) {
                    return false; // a cycle among the commits
                }
                self.edge(a, b)
            }
        }
    }

    /// The slot of commit c(w), named now if it was not (with its FIFO edges to the
    /// nearest named commits of its thread); `None` if naming it is already infeasible.
    fn slot(&mut self, w: usize) -> Option<u32> {
        if let Some(i) = self.slots.iter().position(|s| s.write == w) {
            return Some(i as u32);
        }
        let thread = self.trace.events[w].thread;
        let i = self.slots.len() as u32;
        let mine = || {
            self.slots
                .iter()
                .enumerate()
                .filter(|(_, s)| s.thread == thread)
                .map(|(j, s)| (s.write, j as u32))
        };
        let before = mine().filter(|&(x, _)| x < w).max().map(|(_, j)| j);
        let after = mine().filter(|&(x, _)| x > w).min().map(|(_, j)| j);
        self.slots.push(Slot {
            write: w,
            thread,
            lo: event_time(w),
            hi: event_time(self.trace.commit_bound(w)),
        });
        self.succ.push(Vec::new());
        self.pred.push(Vec::new());
        self.seen.push(0);
        self.trail.push(Undo::Slot);
        let s = &self.slots[i as usize];
        if s.lo >= s.hi {
            return None;
        }
        // FIFO: the order of a thread's commits never closes a cycle on its own — the
        // nearest named neighbours were already ordered.
        let ok = before.is_none_or(|b| self.edge(b, i)) && after.is_none_or(|a| self.edge(i, a));
        ok.then_some(i)
    }

    /// Adds the edge a → b (known not to close a cycle) and propagates the bounds.
    fn edge(&mut self, a: u32, b: u32) -> bool {
        self.succ[a as usize].push(b);
        self.pred[b as usize].push(a);
        self.trail.push(Undo::Edge { from: a, to: b });
        let (lo, hi) = (self.slots[a as usize].lo, self.slots[b as usize].hi);
        self.raise(b, lo) && self.lower(a, hi)
    }

    fn save(&mut self, i: u32) {
        let s = &self.slots[i as usize];
        self.trail.push(Undo::Bounds {
            slot: i,
            lo: s.lo,
            hi: s.hi,
        });
    }

    /// `lo[i] ≥ t`, propagated forward along the edges.
    fn raise(&mut self, i: u32, t: u64) -> bool {
        self.propagate(i, t, true)
    }

    /// `hi[i] ≤ t`, propagated backward along the edges.
    fn lower(&mut self, i: u32, t: u64) -> bool {
        self.propagate(i, t, false)
    }

    /// A lower bound (`up`: `lo ≥ t`, along successors) or an upper bound (`hi ≤ t`,
    /// along predecessors) to a fixpoint; `false` once some `lo ≥ hi`.
    fn propagate(&mut self, i: u32, t: u64, up: bool) -> bool {
        self.stack.clear();
        self.stack.push((i, t));
        while let Some((x, t)) = self.stack.pop() {
            let s = &self.slots[x as usize];
            if (up && t <= s.lo) || (!up && t >= s.hi) {
                continue;
            }
            self.save(x);
            let s = &mut self.slots[x as usize];
            if up {
                s.lo = t;
            } else {
                s.hi = t;
            }
            if s.lo >= s.hi {
                return false;
            }
            let next = if up { &self.succ } else { &self.pred };
            self.stack.extend(next[x as usize].iter().map(|&y| (y, t)));
        }
        true
    }

    /// Whether slot `to` is reachable from `from` (itself included) by edges.
    fn reaches(&mut self, from: u32, to: u32) -> bool {
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.seen.fill(0);
            self.stamp = 1;
        }
        self.stack.clear();
        self.stack.push((from, 0));
        self.seen[from as usize] = self.stamp;
        while let Some((x, _)) = self.stack.pop() {
            if x == to {
                return true;
            }
            for &y in &self.succ[x as usize] {
                if self.seen[y as usize] != self.stamp {
                    self.seen[y as usize] = self.stamp;
                    self.stack.push((y, 0));
                }
            }
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::compact;

    #[test]
    fn a_commit_stays_between_its_write_and_the_next_fence() {
        // 0: t0 wr x, 1: t1 rd x, 2: t0 fence, 3: t1 rd x
        let t = compact(&["t0 A wr x", "t1 B rd x", "t0 A fence", "t1 C rd x"]);
        let (c, e) = (Step::Commit(0), Step::Event);
        assert!(consistent(&t, &[(c, e(1))]));
        assert!(consistent(&t, &[(e(1), c)]));
        assert!(!consistent(&t, &[(e(3), c)]), "after the fence");
        assert!(!consistent(&t, &[(c, e(0))]), "before its write");
        assert!(!consistent(&t, &[(e(1), c), (c, e(1))]));
    }

    #[test]
    fn fifo_and_commit_orders_propagate_bounds() {
        // 0: t0 wr x, 1: t0 wr y, 2: t1 rd y, 3: t1 wr x
        let t = compact(&["t0 A wr x", "t0 A wr y", "t1 B rd y", "t1 B wr x"]);
        let (cx, cy, cx1) = (Step::Commit(0), Step::Commit(1), Step::Commit(3));
        // c(wr y) before rd y forces c(wr x) before rd y too (FIFO): fine on its own...
        assert!(consistent(&t, &[(cy, Step::Event(2))]));
        // ...but not together with c(t1's wr x) before c(t0's wr x): c1x comes after event 3.
        assert!(!consistent(&t, &[(cy, Step::Event(2)), (cx1, cx)]));
        assert!(consistent(&t, &[(cx1, cx)]));
        assert!(!consistent(&t, &[(cx1, cx), (cx, cx1)]));
    }

    /// Random pushes and pops (as the search makes them) answer what `realise` answers
    /// on the requirements pushed so far.
    #[test]
    fn pushes_and_pops_answer_what_a_check_from_scratch_answers() {
        use crate::analysis::Requirement;
        use crate::trace::conflict::Rule;
        use crate::trace::gen::{generate, Shape};
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(13);
        let (mut feasible, mut infeasible) = (0, 0);
        for seed in 0..400 {
            let shape = Shape {
                fence_every: rng.random_range(0..4),
                rmw: 0.1,
                ..Shape::dense(rng.random_range(4..14), rng.random_range(2..4), 2)
            };
            let t = generate(&shape, seed);
            let writes: Vec<usize> = t.writes().collect();
            if writes.is_empty() {
                continue;
            }
            let n = t.events.len();
            let node = |rng: &mut rand_chacha::ChaCha8Rng| {
                if rng.random_bool(0.6) {
                    Step::Commit(writes[rng.random_range(0..writes.len())])
                } else {
                    Step::Event(rng.random_range(0..n))
                }
            };
            let reqs: Vec<Requirement> = (0..12)
                .map(|_| Requirement {
                    rule: Rule::WriteWrite,
                    order: rng
                        .random_bool(0.8)
                        .then(|| (node(&mut rng), node(&mut rng))),
                    not_parallel: (0..rng.random_range(0..4))
                        .map(|_| (node(&mut rng), node(&mut rng)))
                        .collect(),
                })
                .collect();
            let mut p = Placement::new(&t);
            let mut stack: Vec<usize> = Vec::new();
            for _ in 0..60 {
                if !stack.is_empty() && (stack.len() >= 6 || rng.random_bool(0.3)) {
                    stack.pop();
                    p.pop();
                    continue;
                }
                let r = rng.random_range(0..reqs.len());
                stack.push(r);
                let fresh = realise(&t, stack.iter().map(|&i| &reqs[i]), &mut Scratch::default());
                assert_eq!(p.push(&reqs[r]), fresh, "seed {seed}, pushed {stack:?}");
                if fresh {
                    feasible += 1;
                } else {
                    infeasible += 1;
                    stack.pop();
                    p.pop();
                }
            }
        }
        assert!(
            feasible > 1000 && infeasible > 1000,
            "{feasible} / {infeasible}"
        );
    }
}
