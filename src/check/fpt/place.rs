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
use crate::trace::Trace;

/// Buffers reused across checks (the search calls them millions of times).
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
}
