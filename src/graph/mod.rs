//! Conflict graphs over transactions (Def. 2) with labelled edges, cycle search,
//! and the two event graphs of a trace: the paper's (Def. 4) and the exact one
//! (docs/semantics.md §5).

pub(crate) mod csr;
pub mod exact;
pub mod forced;
pub mod paper;
pub(crate) mod path;

use crate::trace::conflict::Rule;
use crate::trace::exec::{Node, Step};
use serde::Serialize;

/// One conflict edge between two groups (transactions), with the two nodes behind it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Edge {
    pub from: usize,
    pub to: usize,
    pub src: Node,
    pub dst: Node,
    pub rule: Rule,
}

/// A conflict edge between the transactions of its two nodes, in 9 bytes (an
/// [`Edge`] takes 56; aligned, these fields would take 12): what the check keeps of
/// the forced edges of a large trace, 3 an event, unpacked per component. A node is a
/// u32 (an event `e` as 2e, the commit of `w` as 2w + 1): every event of a trace fits
/// ([`crate::trace::MAX_EVENTS`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C, packed)]
pub struct Packed {
    src: u32,
    dst: u32,
    rule: Rule,
}

impl Packed {
    pub fn new(src: Node, dst: Node, rule: Rule) -> Packed {
        Packed {
            src: pack(src),
            dst: pack(dst),
            rule,
        }
    }

    pub fn src(self) -> Node {
        unpack(self.src)
    }

    pub fn dst(self) -> Node {
        unpack(self.dst)
    }

    /// The transactions it joins, (from, to).
    pub fn arc(self, trace: &crate::trace::Trace) -> (usize, usize) {
        use crate::trace::conflict::txn;
        (
            txn(trace, self.src()).index(),
            txn(trace, self.dst()).index(),
        )
    }

    /// The transaction of its source, in `txn_of` ([`Packed::arc_in`]).
    pub fn src_in(self, txn_of: &[crate::trace::TxnId]) -> usize {
        txn_of[packed_event(self.src)].index()
    }

    /// Its source node as packed ([`pack`]).
    pub(crate) fn src_node(self) -> u32 {
        self.src
    }

    /// Its target node as packed ([`pack`]).
    pub(crate) fn dst_node(self) -> u32 {
        self.dst
    }

    /// [`Packed::arc`] with each event's transaction in `txn_of` (a column of 4 bytes
    /// an event, where the trace's events take 56: fewer cache misses on a large trace).
    pub fn arc_in(self, txn_of: &[crate::trace::TxnId]) -> (usize, usize) {
        let at = |x: u32| txn_of[packed_event(x)].index();
        (at(self.src), at(self.dst))
    }

    /// The edge with its transactions.
    pub fn edge(self, trace: &crate::trace::Trace) -> Edge {
        let (from, to) = self.arc(trace);
        Edge {
            from,
            to,
            src: self.src(),
            dst: self.dst(),
            rule: self.rule,
        }
    }
}

/// A node as a u32: an event `e` as 2e, the commit of `w` as 2w + 1 ([`Step::pack`]).
pub(crate) fn pack(n: Node) -> u32 {
    n.pack()
}

/// The trace event of a node packed by [`pack`] (a commit's write).
pub(crate) fn packed_event(x: u32) -> crate::trace::EventId {
    (x >> 1) as crate::trace::EventId
}

/// The node of [`pack`].
pub(crate) fn unpack(x: u32) -> Node {
    Step::unpack(x)
}

/// The edges of `packed`, with their transactions.
pub fn unpack_edges(trace: &crate::trace::Trace, packed: &[Packed]) -> Vec<Edge> {
    packed.iter().map(|p| p.edge(trace)).collect()
}

/// A directed graph over groups (transactions, or contraction units) whose edges
/// remember the nodes that cause them. Self-edges are dropped on insertion.
#[derive(Clone, Debug, Default)]
pub struct ConflictGraph {
    groups: usize,
    edges: Vec<Edge>,
}

impl ConflictGraph {
    pub fn new(groups: usize) -> ConflictGraph {
        ConflictGraph {
            groups,
            edges: Vec::new(),
        }
    }

    /// The graph over `groups` with `edges` (self-edges dropped).
    pub fn from_edges(groups: usize, edges: impl IntoIterator<Item = Edge>) -> ConflictGraph {
        ConflictGraph {
            groups,
            edges: edges.into_iter().filter(|e| e.from != e.to).collect(),
        }
    }

    /// Adds edge `from → to` caused by `src → dst` (ignored when `from == to`).
    pub fn add(
        &mut self,
        from: impl Into<usize>,
        to: impl Into<usize>,
        src: Node,
        dst: Node,
        rule: Rule,
    ) {
        let (from, to) = (from.into(), to.into());
        if from != to {
            self.edges.push(Edge {
                from,
                to,
                src,
                dst,
                rule,
            });
        }
    }

    pub fn edges(&self) -> &[Edge] {
        &self.edges
    }

    /// The edges, taking the graph apart.
    pub fn into_edges(self) -> Vec<Edge> {
        self.edges
    }

    pub fn group_count(&self) -> usize {
        self.groups
    }

    /// A shortest cycle through some node of a non-trivial strongly connected
    /// component (Kosaraju: iterative, so a chain of 10⁵ transactions does not overflow the
    /// stack as recursive Tarjan did), or `None` when the graph is acyclic (Theorem 1).
    pub fn find_cycle(&self) -> Option<Vec<Edge>> {
        let scc = strong_components(self.groups, self.edges.iter().map(|e| (e.from, e.to)))
            .into_iter()
            .next()?;
        let mut adj: Vec<Vec<usize>> = vec![Vec::new(); self.groups];
        for (i, e) in self.edges.iter().enumerate() {
            adj[e.from].push(i);
        }
        let mut comp = vec![false; self.groups];
        for &n in &scc {
            comp[n] = true;
        }
        let start = scc[0];
        // BFS from `start` inside the component until an edge returns to it.
        let mut via: Vec<Option<usize>> = vec![None; self.groups];
        let mut seen = vec![false; self.groups];
        seen[start] = true;
        let mut queue = std::collections::VecDeque::from([start]);
        while let Some(u) = queue.pop_front() {
            for &ei in &adj[u] {
                let e = &self.edges[ei];
                if !comp[e.to] {
                    continue;
                }
                if e.to == start {
                    let mut cycle = vec![*e];
                    let mut at = u;
                    while at != start {
                        let back = self.edges[via[at].unwrap()];
                        cycle.push(back);
                        at = back.from;
                    }
                    cycle.reverse();
                    return Some(cycle);
                }
                if !seen[e.to] {
                    seen[e.to] = true;
                    via[e.to] = Some(ei);
                    queue.push_back(e.to);
                }
            }
        }
        unreachable!("a strongly connected component with two nodes has a cycle")
    }

    /// Whether the graph has a cycle.
    pub fn is_cyclic(&self) -> bool {
        self.find_cycle().is_some()
    }
}

/// The strongly connected components of more than one node of the graph over
/// `0..nodes` with the arcs (from, to) (self-edges never make one), each sorted, in order of their
/// least node. Tarjan's algorithm, one pass over adjacency arrays built by counting,
/// with an explicit stack: petgraph's `tarjan_scc` recurses (a chain of 10⁵
/// transactions overflows the stack: `long_transaction_chains_do_not_overflow_the_stack`)
/// and its `kosaraju_scc` needs the reverse edges and two passes (35 % of a 10⁶-event
/// run under `perf`).
pub fn strong_components(
    nodes: usize,
    arcs: impl Iterator<Item = (usize, usize)> + Clone,
) -> Vec<Vec<usize>> {
    let arcs = arcs.filter(|(a, b)| a != b);
    // Adjacency by counting: targets of v are next[first[v]..first[v + 1]].
    let mut first = vec![0u32; nodes + 1];
    let mut total = 0u64;
    for (from, _) in arcs.clone() {
        first[from + 1] += 1;
        total += 1;
    }
    assert!(total < u64::from(u32::MAX), "fewer than 2^32 - 1 arcs");
    for v in 0..nodes {
        first[v + 1] += first[v];
    }
    let mut fill = first.clone();
    let mut next = vec![0u32; first[nodes] as usize];
    for (from, to) in arcs {
        next[fill[from] as usize] = to as u32;
        fill[from] += 1;
    }
    drop(fill);
    tarjan(&first, &next)
}

/// [`strong_components`] of the arcs `0..n`, arc i from `source(i)` to `target(i)`,
/// for large graphs whose arcs are computed from large tables: `hint(i)` is called
/// some arcs before arc i is read (the caller prefetches what `source` and `target`
/// will look up, [`crate::mem::prefetch`]), and the adjacency's own tables are
/// prefetched a few arcs ahead too: at 10⁸ events none of them fits the caches, and
/// misses that overlap cost a fraction of misses taken in turn. Self-arcs may be given;
/// they change nothing.
pub fn strong_components_indexed(
    nodes: usize,
    n: usize,
    source: impl Fn(usize) -> usize,
    target: impl Fn(usize) -> usize,
    hint: impl Fn(usize),
) -> Vec<Vec<usize>> {
    use crate::mem::prefetch_address;
    // Every table here is read or written at random: huge pages (fewer TLB misses).
    use crate::mem::{collect_huge, filled_huge};
    assert!(n < u32::MAX as usize, "fewer than 2^32 - 1 arcs");
    let mut first = filled_huge(nodes + 1, 0u32);
    each_source(n, &source, &hint, |_, from, later| {
        if let Some(later) = later {
            prefetch_address(first.as_ptr().wrapping_add(later + 1));
        }
        first[from + 1] += 1;
    });
    for v in 0..nodes {
        first[v + 1] += first[v];
    }
    let mut fill = collect_huge(first.iter().copied());
    let mut next = filled_huge(n, 0u32);
    each_source(n, &source, &hint, |i, from, later| {
        if let Some(later) = later {
            prefetch_address(fill.as_ptr().wrapping_add(later));
        }
        next[fill[from] as usize] = target(i) as u32;
        fill[from] += 1;
    });
    drop(fill);
    tarjan(&first, &next)
}

/// How many arcs ahead [`strong_components_indexed`] prefetches the adjacency's tables;
/// its `hint` goes twice as far, so that `source` and `target` find their tables cached.
const AHEAD: usize = 16;

/// `visit(i, source(i), later)` for the arcs `0..n` in order, `later` the source of the
/// arc [`AHEAD`] places on (to prefetch against), each source computed once (kept in a
/// ring of [`AHEAD`] until its turn), `hint(i + 2·AHEAD)` called before arc i.
fn each_source(
    n: usize,
    source: &impl Fn(usize) -> usize,
    hint: &impl Fn(usize),
    mut visit: impl FnMut(usize, usize, Option<usize>),
) {
    let mut ring = [0usize; AHEAD];
    for (i, slot) in ring.iter_mut().enumerate().take(n) {
        *slot = source(i);
    }
    for i in 0..n {
        hint(i + 2 * AHEAD);
        let from = ring[i % AHEAD];
        let later = (i + AHEAD < n).then(|| source(i + AHEAD));
        if let Some(later) = later {
            ring[i % AHEAD] = later;
        }
        visit(i, from, later);
    }
}

/// Tarjan's walk over the adjacency `first`, `next` (the targets of v are
/// `next[first[v]..first[v + 1]]`), with an explicit stack: the components of more
/// than one node, each sorted, in order of their least node.
fn tarjan(first: &[u32], next: &[u32]) -> Vec<Vec<usize>> {
    const UNSEEN: u32 = u32::MAX;
    /// The index of a node whose component is found (no longer on the stack).
    const DONE: u32 = u32::MAX - 1;
    let nodes = first.len() - 1;
    struct Walk {
        /// Each node's (index, low link), side by side: one cache line an arc looks at.
        /// Index [`UNSEEN`] before the walk enters it, [`DONE`] once its component is out.
        node: Vec<[u32; 2]>,
        stack: Vec<u32>,
        /// The depth-first path: (node, position of its next edge).
        path: Vec<(u32, u32)>,
        counter: u32,
    }
    impl Walk {
        fn enter(&mut self, v: u32, at: u32) {
            self.node[v as usize] = [self.counter; 2];
            self.counter += 1;
            self.stack.push(v);
            self.path.push((v, at));
        }
    }
    let mut t = Walk {
        node: crate::mem::filled_huge(nodes, [UNSEEN, 0]),
        stack: Vec::new(),
        path: Vec::new(),
        counter: 0,
    };
    assert!(nodes < DONE as usize, "fewer than 2^32 - 2 nodes");
    let mut comps: Vec<Vec<usize>> = Vec::new();
    for root in 0..nodes {
        if t.node[root][0] != UNSEEN {
            continue;
        }
        t.enter(root as u32, first[root]);
        while let Some(&(v, at)) = t.path.last() {
            let vi = v as usize;
            if at < first[vi + 1] {
                t.path.last_mut().expect("not empty").1 += 1;
                let w = next[at as usize] as usize;
                match t.node[w][0] {
                    UNSEEN => t.enter(w as u32, first[w]),
                    DONE => {}
                    // On the stack.
                    index => t.node[vi][1] = t.node[vi][1].min(index),
                }
                continue;
            }
            t.path.pop();
            let low = t.node[vi][1];
            if let Some(&(p, _)) = t.path.last() {
                let p = &mut t.node[p as usize][1];
                *p = (*p).min(low);
            }
            if low == t.node[vi][0] {
                let mut comp = Vec::new();
                loop {
                    let w = t.stack.pop().expect("v is on the stack");
                    t.node[w as usize][0] = DONE;
                    comp.push(w as usize);
                    if w == v {
                        break;
                    }
                }
                if comp.len() > 1 {
                    comp.sort_unstable();
                    comps.push(comp);
                }
            }
        }
    }
    comps.sort_unstable();
    comps
}

/// Checks that `cycle` is a closed walk: each edge starts where the previous ended.
pub fn is_closed(cycle: &[Edge]) -> bool {
    !cycle.is_empty()
        && cycle
            .iter()
            .zip(cycle.iter().cycle().skip(1))
            .all(|(a, b)| a.to == b.from)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::exec::Step;
    use rand::{Rng, SeedableRng};

    #[test]
    fn a_packed_edge_takes_nine_bytes_and_keeps_its_parts() {
        assert_eq!(std::mem::size_of::<Packed>(), 9);
        let big = (crate::trace::MAX_EVENTS - 1) as crate::trace::EventId;
        for (src, dst, rule) in [
            (Step::Commit(big), Step::Event(0), Rule::WriteRead),
            (Step::Event(big), Step::Commit(3), Rule::PaperOriented),
        ] {
            let p = Packed::new(src, dst, rule);
            assert_eq!((p.src(), p.dst(), { p.rule }), (src, dst, rule));
        }
    }

    fn edge(from: usize, to: usize) -> Edge {
        Edge {
            from,
            to,
            src: Step::Event(0),
            dst: Step::Event(0),
            rule: Rule::WriteWrite,
        }
    }

    /// Random graphs: two nodes share a component iff each reaches the other.
    #[test]
    #[allow(clippy::needless_range_loop)]
    fn strong_components_match_mutual_reachability() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        for _ in 0..300 {
            let n = rng.random_range(1..25usize);
            let mut edges = Vec::new();
            let mut reach = vec![vec![false; n]; n];
            for a in 0..n {
                reach[a][a] = true;
                for b in 0..n {
                    if rng.random_bool(0.08) {
                        edges.push(edge(a, b));
                        reach[a][b] = true;
                    }
                }
            }
            for k in 0..n {
                for a in 0..n {
                    for b in 0..n {
                        reach[a][b] |= reach[a][k] && reach[k][b];
                    }
                }
            }
            let comps = strong_components(n, edges.iter().map(|e| (e.from, e.to)));
            // Self-arcs given to the indexed variant change nothing.
            let (from, to) = (|i: usize| edges[i].from, |i: usize| edges[i].to);
            let indexed = strong_components_indexed(n, edges.len(), from, to, |_| {});
            assert_eq!(indexed, comps);
            let mut of = vec![usize::MAX; n];
            for (i, c) in comps.iter().enumerate() {
                assert!(c.len() > 1 && c.windows(2).all(|w| w[0] < w[1]));
                c.iter().for_each(|&v| of[v] = i);
            }
            for a in 0..n {
                for b in (0..n).filter(|&b| b != a) {
                    let together = reach[a][b] && reach[b][a];
                    assert_eq!(together, of[a] != usize::MAX && of[a] == of[b], "{a} {b}");
                }
            }
        }
    }

    /// A cycle through 10⁶ nodes: one component, and no recursion to overflow.
    #[test]
    fn a_long_cycle_is_one_component() {
        let n = 1_000_000;
        let edges: Vec<Edge> = (0..n).map(|i| edge(i, (i + 1) % n)).collect();
        let comps = strong_components(n, edges.iter().map(|e| (e.from, e.to)));
        assert_eq!(comps.len(), 1);
        assert_eq!(comps[0].len(), n);
    }
}
