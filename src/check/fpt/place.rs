//! Exact mode: can one commit placement realise a set of conflict edges?
//!
//! Each edge asks for an order that varies and, when the read may be parallel with the
//! write (exception (i)), one of up to three further orders
//! ([`crate::check::sat::encode::Requirement`]). Every order is "u precedes v" between
//! a commit (a free point) and a trace event (fixed at time 2p + 1) or another commit.
//! A commit c(w) lies strictly between w and the next fence/rmw of its thread, and the
//! commits of a thread keep FIFO order (SEMANTICS.md §2). Over real-valued positions
//! such strict orders are satisfiable iff the commit-to-commit part is acyclic and each
//! commit's lowest upper bound exceeds its highest lower bound after propagation along
//! it; the commits the edges do not mention can always be placed around them (right
//! after their write or their FIFO predecessor). So the check is exact, and small: it
//! involves only the commits the candidate cycle names.

use crate::check::sat::encode::Requirement;
use crate::graph::forced::event_time;
use crate::trace::exec::{Node, Step};
use crate::trace::Trace;

/// Whether the orders `cons` ("u precedes v") hold together in some execution.
pub fn consistent(trace: &Trace, cons: &[(Node, Node)]) -> bool {
    let mut commits: Vec<usize> = Vec::new();
    for &(u, v) in cons {
        for n in [u, v] {
            if let Step::Commit(w) = n {
                commits.push(w);
            }
        }
    }
    commits.sort_unstable();
    commits.dedup();
    let k = commits.len();
    let ix = |w: usize| commits.binary_search(&w).unwrap();
    let mut lo: Vec<u64> = commits.iter().map(|&w| event_time(w)).collect();
    let mut hi: Vec<u64> = commits
        .iter()
        .map(|&w| event_time(trace.commit_bound(w)))
        .collect();
    let mut succ: Vec<Vec<usize>> = vec![Vec::new(); k];
    // FIFO between the named commits of one thread (sorted by write, so in issue order).
    for a in 0..k {
        let t = trace.events[commits[a]].thread;
        if let Some(b) = (a + 1..k).find(|&b| trace.events[commits[b]].thread == t) {
            succ[a].push(b);
        }
    }
    for &(u, v) in cons {
        match (u, v) {
            (Step::Event(p), Step::Event(q)) if p >= q => return false,
            (Step::Event(_), Step::Event(_)) => {}
            (Step::Event(p), Step::Commit(w)) => {
                let i = ix(w);
                lo[i] = lo[i].max(event_time(p));
            }
            (Step::Commit(w), Step::Event(p)) => {
                let i = ix(w);
                hi[i] = hi[i].min(event_time(p));
            }
            (Step::Commit(a), Step::Commit(b)) => succ[ix(a)].push(ix(b)),
        }
    }
    // Kahn on the few named commits; then propagate bounds both ways.
    let mut indeg = vec![0usize; k];
    for s in &succ {
        for &b in s {
            indeg[b] += 1;
        }
    }
    let mut order: Vec<usize> = (0..k).filter(|&i| indeg[i] == 0).collect();
    let mut i = 0;
    while i < order.len() {
        let a = order[i];
        i += 1;
        for &b in &succ[a] {
            indeg[b] -= 1;
            if indeg[b] == 0 {
                order.push(b);
            }
        }
    }
    if order.len() < k {
        return false;
    }
    for &a in &order {
        for &b in &succ[a] {
            lo[b] = lo[b].max(lo[a]);
        }
    }
    for &a in order.iter().rev() {
        for &b in &succ[a] {
            hi[a] = hi[a].min(hi[b]);
        }
    }
    (0..k).all(|i| lo[i] < hi[i])
}

/// Picks, for each requirement, its order and one "not parallel" disjunct so that all
/// hold together (backtracking over at most 3 choices per edge); the chosen orders, or
/// `None` when no placement realises every edge.
pub fn realise(trace: &Trace, reqs: &[&Requirement]) -> Option<Vec<(Node, Node)>> {
    let mut cons: Vec<(Node, Node)> = reqs.iter().filter_map(|r| r.order).collect();
    if !consistent(trace, &cons) {
        return None;
    }
    let choices: Vec<&[(Node, Node)]> = reqs
        .iter()
        .map(|r| r.not_parallel.as_slice())
        .filter(|c| !c.is_empty())
        .collect();
    fn pick(trace: &Trace, choices: &[&[(Node, Node)]], cons: &mut Vec<(Node, Node)>) -> bool {
        let Some((first, rest)) = choices.split_first() else {
            return true;
        };
        for &c in first.iter() {
            cons.push(c);
            if consistent(trace, cons) && pick(trace, rest, cons) {
                return true;
            }
            cons.pop();
        }
        false
    }
    pick(trace, &choices, &mut cons).then_some(cons)
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
