//! Chosen orders to an execution: a topological sort of the exact event graph with the
//! orders a decider picked (or the literals of a cycle among them, to block), and the
//! same for the paper's Def. 4 graph.

use crate::graph::csr::Csr;
use crate::graph::paper::PaperGraph;
use crate::solver::Lit;
use crate::trace::exec::{Execution, Node, Step};
use crate::trace::ThreadId;
use crate::trace::Trace;
use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap, HashMap};

/// Topologically sorts the exact event graph with the oriented atoms: the execution,
/// or the true atom literals on a cycle (to block). The graph is held in compressed
/// rows (a witness of a 10⁶-event trace sorts 2·10⁶ nodes).
pub fn sort_exact(trace: &Trace, orient: &[(Node, Node, Lit)]) -> Result<Execution, Vec<Lit>> {
    let n = trace.len();
    let writes: Vec<usize> = trace.writes().collect();
    let index = |x: Node| match x {
        Step::Event(e) => e,
        Step::Commit(w) => n + writes.binary_search(&w).unwrap(),
    };
    let nodes = n + writes.len();
    let g = Csr::from_fn(nodes, |f| {
        for i in 1..n {
            f(i - 1, i, 0);
        }
        let mut last: HashMap<ThreadId, usize> = HashMap::new();
        for (k, &w) in writes.iter().enumerate() {
            let c = n + k;
            f(w, c, 0);
            let h = trace.commit_bound(w);
            if h < n {
                f(c, h, 0);
            }
            if let Some(prev) = last.insert(trace.events[w].thread, c) {
                f(prev, c, 0);
            }
        }
        for &(x, y, l) in orient {
            f(index(x), index(y), l);
        }
    });
    let mut indeg = vec![0u32; nodes];
    for u in 0..nodes {
        for &(v, _) in g.succ(u) {
            indeg[v as usize] += 1;
        }
    }
    // Kahn, least node first (trace events before commits): commits as late as the
    // constraints allow.
    let mut ready: BinaryHeap<Reverse<u32>> = (0..nodes as u32)
        .filter(|&v| indeg[v as usize] == 0)
        .map(Reverse)
        .collect();
    let mut order = Vec::with_capacity(nodes);
    while let Some(Reverse(v)) = ready.pop() {
        order.push(v);
        for &(s, _) in g.succ(v as usize) {
            indeg[s as usize] -= 1;
            if indeg[s as usize] == 0 {
                ready.push(Reverse(s));
            }
        }
    }
    if order.len() == nodes {
        let steps = order
            .into_iter()
            .map(|v| {
                let v = v as usize;
                if v < n {
                    Step::Event(v)
                } else {
                    Step::Commit(writes[v - n])
                }
            })
            .collect();
        return Ok(Execution::new(trace, steps)
            .expect("a topological sort of the exact graph is an execution"));
    }
    Err(cycle_lits(nodes, |u| g.succ(u), |v| indeg[v] > 0))
}

/// A cycle among the nodes Kahn could not sort (`left`); the non-zero literals on it.
fn cycle_lits<'a>(
    nodes: usize,
    succ: impl Fn(usize) -> &'a [(u32, Lit)],
    left: impl Fn(usize) -> bool,
) -> Vec<Lit> {
    // Every unsorted node has an unsorted predecessor; walk successors inside the
    // unsorted set until a node repeats.
    let mut pred_edge: Vec<Option<(usize, Lit)>> = vec![None; nodes];
    for u in (0..nodes).filter(|&u| left(u)) {
        for &(v, l) in succ(u) {
            let v = v as usize;
            if left(v) && pred_edge[v].is_none() {
                pred_edge[v] = Some((u, l));
            }
        }
    }
    let mut at = (0..nodes).find(|&v| left(v)).expect("a cycle exists");
    let mut seen = HashMap::new();
    let mut walk = Vec::new();
    loop {
        if let Some(&i) = seen.get(&at) {
            let lits: Vec<Lit> = walk[i..]
                .iter()
                .map(|&(_, l)| l)
                .filter(|&l| l != 0)
                .collect();
            return lits;
        }
        seen.insert(at, walk.len());
        let (p, l) = pred_edge[at].expect("unsorted nodes have unsorted predecessors");
        walk.push((at, l));
        at = p;
    }
}

/// Extends the used edges to a full acyclic orientation of EG_τ (by a topological
/// order of the directed edges plus the used ones), or returns the literals of the
/// used edges on a cycle.
pub fn orient_paper(
    g: &PaperGraph,
    n: usize,
    used: &[(usize, usize, Lit)],
) -> Result<Vec<(usize, usize)>, Vec<Lit>> {
    let adj = Csr::from_fn(n, |f| {
        for &(a, b) in &g.directed {
            f(a, b, 0);
        }
        for &(a, b, l) in used {
            f(a, b, l);
        }
    });
    let mut indeg = vec![0usize; n];
    for u in 0..n {
        for &(v, _) in adj.succ(u) {
            indeg[v as usize] += 1;
        }
    }
    let mut ready: BTreeSet<usize> = (0..n).filter(|&v| indeg[v] == 0).collect();
    let mut rank = vec![0usize; n];
    let mut k = 0;
    while let Some(v) = ready.pop_first() {
        rank[v] = k;
        k += 1;
        for &(s, _) in adj.succ(v) {
            let s = s as usize;
            indeg[s] -= 1;
            if indeg[s] == 0 {
                ready.insert(s);
            }
        }
    }
    if k < n {
        return Err(cycle_lits(n, |u| adj.succ(u), |v| indeg[v] > 0));
    }
    Ok(g.undirected
        .iter()
        .map(|&(a, b)| if rank[a] < rank[b] { (a, b) } else { (b, a) })
        .collect())
}
