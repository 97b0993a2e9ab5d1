//! A directed graph over nodes `0..n` with labelled edges in compressed rows: built by
//! counting, sorted by Kahn's algorithm, a cycle found without recursion.

/// Edges by source node: `succ[start[u]..start[u + 1]]` leave u.
pub struct Csr<K> {
    start: Vec<usize>,
    succ: Vec<(u32, K)>,
}

impl<K: Copy> Csr<K> {
    /// The graph over `0..n` with `edges` (from, to, label).
    pub fn from_edges(n: usize, edges: &[(usize, usize, K)]) -> Csr<K> {
        let mut start = vec![0usize; n + 1];
        for &(a, _, _) in edges {
            start[a + 1] += 1;
        }
        for i in 0..n {
            start[i + 1] += start[i];
        }
        let mut fill = start.clone();
        // The right length; each slot is then written once, in its row.
        let mut succ: Vec<(u32, K)> = edges.iter().map(|&(_, b, k)| (b as u32, k)).collect();
        for &(a, b, k) in edges {
            succ[fill[a]] = (b as u32, k);
            fill[a] += 1;
        }
        Csr { start, succ }
    }

    /// The graph over `0..n` with the edges `edges` emits; it is called twice (to
    /// count, then to fill), so no list of edges is held. Each node keeps its edges
    /// in emission order.
    pub fn from_fn(n: usize, edges: impl Fn(&mut dyn FnMut(usize, usize, K))) -> Csr<K>
    where
        K: Default,
    {
        let mut start = vec![0usize; n + 1];
        edges(&mut |a, _, _| start[a + 1] += 1);
        for i in 0..n {
            start[i + 1] += start[i];
        }
        let mut succ = vec![(0u32, K::default()); start[n]];
        let mut fill = start[..n].to_vec();
        edges(&mut |a, b, k| {
            succ[fill[a]] = (b as u32, k);
            fill[a] += 1;
        });
        Csr { start, succ }
    }

    pub fn nodes(&self) -> usize {
        self.start.len() - 1
    }

    pub fn edges(&self) -> usize {
        self.succ.len()
    }

    /// The edges leaving u: (target, label).
    pub fn succ(&self, u: usize) -> &[(u32, K)] {
        &self.succ[self.start[u]..self.start[u + 1]]
    }

    /// A topological order of the nodes, or Err with a node on a cycle.
    pub fn topological(&self) -> Result<Vec<usize>, usize> {
        let n = self.nodes();
        let mut indeg = vec![0u32; n];
        for &(b, _) in &self.succ {
            indeg[b as usize] += 1;
        }
        let mut stack: Vec<usize> = (0..n).rev().filter(|&i| indeg[i] == 0).collect();
        let mut out = Vec::with_capacity(n);
        while let Some(u) = stack.pop() {
            out.push(u);
            for &(v, _) in self.succ(u) {
                indeg[v as usize] -= 1;
                if indeg[v as usize] == 0 {
                    stack.push(v as usize);
                }
            }
        }
        if out.len() == n {
            return Ok(out);
        }
        // Every node left has a predecessor left: walk back until one repeats.
        let mut pred = vec![u32::MAX; n];
        for u in 0..n {
            for &(v, _) in self.succ(u) {
                if indeg[u] > 0 && indeg[v as usize] > 0 {
                    pred[v as usize] = u as u32;
                }
            }
        }
        let mut seen = vec![false; n];
        let mut u = (0..n).find(|&i| indeg[i] > 0).expect("a node is left");
        while !seen[u] {
            seen[u] = true;
            u = pred[u] as usize;
        }
        Err(u)
    }

    /// Whether the graph has a cycle.
    pub fn is_cyclic(&self) -> bool {
        self.topological().is_err()
    }

    /// A shortest cycle through `u`, as edges.
    pub fn cycle_through(&self, u: usize) -> Option<Vec<(usize, usize, K)>> {
        super::path::shortest(self.nodes(), u, u, |a, out| {
            out.extend(self.succ(a).iter().map(|&(b, l)| (b as usize, l)))
        })
    }
}
