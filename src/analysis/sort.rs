//! Chosen orders to an execution: a topological sort of the exact event graph with the
//! orders a decider picked (or the literals of a cycle among them, to block), and the
//! same for the paper's Def. 4 graph.

use crate::graph::paper::PaperGraph;
use crate::solver::Lit;
use crate::trace::exec::{Execution, Node, Step};
use crate::trace::ThreadId;
use crate::trace::Trace;
use std::collections::{BTreeSet, HashMap};

/// Topologically sorts the exact event graph with the oriented atoms: the execution,
/// or the true atom literals on a cycle (to block).
pub fn sort_exact(trace: &Trace, orient: &[(Node, Node, Lit)]) -> Result<Execution, Vec<Lit>> {
    let n = trace.len();
    let writes: Vec<usize> = trace.writes().collect();
    let index = |x: Node| match x {
        Step::Event(e) => e,
        Step::Commit(w) => n + writes.binary_search(&w).unwrap(),
    };
    let nodes = n + writes.len();
    let mut adj: Vec<Vec<(usize, Lit)>> = vec![Vec::new(); nodes];
    for i in 1..n {
        adj[i - 1].push((i, 0));
    }
    let mut last: HashMap<ThreadId, usize> = HashMap::new();
    for &w in &writes {
        let c = index(Step::Commit(w));
        adj[w].push((c, 0));
        let h = trace.commit_bound(w);
        if h < n {
            adj[c].push((h, 0));
        }
        if let Some(prev) = last.insert(trace.events[w].thread, c) {
            adj[prev].push((c, 0));
        }
    }
    for &(x, y, l) in orient {
        adj[index(x)].push((index(y), l));
    }
    let mut indeg = vec![0usize; nodes];
    for list in &adj {
        for &(v, _) in list {
            indeg[v] += 1;
        }
    }
    // Kahn, trace events first: commits as late as the constraints allow.
    let mut ready: BTreeSet<usize> = (0..nodes).filter(|&v| indeg[v] == 0).collect();
    let mut order = Vec::with_capacity(nodes);
    while let Some(v) = ready.pop_first() {
        order.push(v);
        for &(s, _) in &adj[v] {
            indeg[s] -= 1;
            if indeg[s] == 0 {
                ready.insert(s);
            }
        }
    }
    if order.len() == nodes {
        let steps = order
            .into_iter()
            .map(|v| {
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
    Err(cycle_lits(&adj, &indeg))
}

/// A cycle among the nodes Kahn could not sort; the non-zero literals on it.
fn cycle_lits(adj: &[Vec<(usize, Lit)>], indeg: &[usize]) -> Vec<Lit> {
    let left = |v: usize| indeg[v] > 0;
    // Every unsorted node has an unsorted predecessor; walk successors inside the
    // unsorted set until a node repeats.
    let mut pred_edge: Vec<Option<(usize, Lit)>> = vec![None; adj.len()];
    for (u, list) in adj.iter().enumerate() {
        if !left(u) {
            continue;
        }
        for &(v, l) in list {
            if left(v) && pred_edge[v].is_none() {
                pred_edge[v] = Some((u, l));
            }
        }
    }
    let mut at = (0..adj.len()).find(|&v| left(v)).expect("a cycle exists");
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
    let mut adj: Vec<Vec<(usize, Lit)>> = vec![Vec::new(); n];
    for &(a, b) in &g.directed {
        adj[a].push((b, 0));
    }
    for &(a, b, l) in used {
        adj[a].push((b, l));
    }
    let mut indeg = vec![0usize; n];
    for list in &adj {
        for &(v, _) in list {
            indeg[v] += 1;
        }
    }
    let mut ready: BTreeSet<usize> = (0..n).filter(|&v| indeg[v] == 0).collect();
    let mut rank = vec![0usize; n];
    let mut k = 0;
    while let Some(v) = ready.pop_first() {
        rank[v] = k;
        k += 1;
        for &(s, _) in &adj[v] {
            indeg[s] -= 1;
            if indeg[s] == 0 {
                ready.insert(s);
            }
        }
    }
    if k < n {
        return Err(cycle_lits(&adj, &indeg));
    }
    Ok(g.undirected
        .iter()
        .map(|&(a, b)| if rank[a] < rank[b] { (a, b) } else { (b, a) })
        .collect())
}
