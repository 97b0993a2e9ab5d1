//! A chain partition of a directed acyclic graph (Dilworth, Enea & Farzan Thm. 8) with
//! reachability clocks over the chains, so `x ≤ y` (a path from x to y) is one lookup.
//!
//! The partition is greedy, in a topological order: a node extends a chain whose last
//! node reaches it (the chain of the same hint — its thread — first), else it opens a
//! new chain. Every chain is totally ordered by reachability, which is all the clocks
//! need; the partition need not be minimum, and its size is reported, not assumed.
//! Cost O((V + E) · W) time and O(V · W) memory for W chains.

/// A chain partition with clocks; nodes are `0..n`.
pub struct Chains {
    pub chain_of: Vec<u32>,
    pub pos: Vec<u32>,
    pub chains: Vec<Vec<u32>>,
    /// `down[v][j]`: the last position of chain j that reaches v (reflexive), or -1.
    /// Chains opened after v cannot reach it, so the vector may be shorter than W.
    down: Vec<Vec<i32>>,
    /// `up[v * W + j]`: the first position of chain j that v reaches (reflexive), or `u32::MAX`.
    up: Vec<u32>,
}

impl Chains {
    /// `order` lists all nodes topologically; `preds[v]` are v's direct predecessors;
    /// `hint[v]` is the chain family v prefers (its thread).
    pub fn new(order: &[u32], preds: &[Vec<u32>], hint: &[u32]) -> Chains {
        let n = preds.len();
        let mut chain_of = vec![u32::MAX; n];
        let mut pos = vec![0u32; n];
        let mut chains: Vec<Vec<u32>> = Vec::new();
        let mut chain_hint: Vec<u32> = Vec::new();
        let mut down: Vec<Vec<i32>> = vec![Vec::new(); n];
        for &v in order {
            let vi = v as usize;
            let mut clock: Vec<i32> = Vec::new();
            for &p in &preds[vi] {
                let d = &down[p as usize];
                if clock.len() < d.len() {
                    clock.resize(d.len(), -1);
                }
                for (c, &x) in clock.iter_mut().zip(d) {
                    *c = (*c).max(x);
                }
            }
            // Chains whose last node reaches v; the hinted one first.
            let open = |j: usize| clock.get(j).copied().unwrap_or(-1) == chains[j].len() as i32 - 1;
            let j = (0..chains.len())
                .filter(|&j| open(j))
                .min_by_key(|&j| (chain_hint[j] != hint[vi], j));
            let j = match j {
                Some(j) => j,
                None => {
                    chains.push(Vec::new());
                    chain_hint.push(hint[vi]);
                    chains.len() - 1
                }
            };
            chain_hint[j] = hint[vi];
            pos[vi] = chains[j].len() as u32;
            chain_of[vi] = j as u32;
            chains[j].push(v);
            if clock.len() <= j {
                clock.resize(j + 1, -1);
            }
            clock[j] = pos[vi] as i32;
            down[vi] = clock;
        }
        let w = chains.len();
        let mut succs: Vec<Vec<u32>> = vec![Vec::new(); n];
        for (v, ps) in preds.iter().enumerate() {
            for &p in ps {
                succs[p as usize].push(v as u32);
            }
        }
        let mut up = vec![u32::MAX; n * w];
        for &v in order.iter().rev() {
            let vi = v as usize;
            for &s in &succs[vi] {
                let si = s as usize;
                for j in 0..w {
                    up[vi * w + j] = up[vi * w + j].min(up[si * w + j]);
                }
            }
            up[vi * w + chain_of[vi] as usize] = pos[vi];
        }
        Chains {
            chain_of,
            pos,
            chains,
            down,
            up,
        }
    }

    /// Number of chains W.
    pub fn width(&self) -> usize {
        self.chains.len()
    }

    /// Whether there is a path from x to y (reflexive).
    pub fn reaches(&self, x: u32, y: u32) -> bool {
        let j = self.chain_of[x as usize] as usize;
        self.down[y as usize].get(j).copied().unwrap_or(-1) >= self.pos[x as usize] as i32
    }

    /// Whether x and y are ordered either way (or equal).
    pub fn related(&self, x: u32, y: u32) -> bool {
        self.reaches(x, y) || self.reaches(y, x)
    }

    /// The last position of chain j that reaches x, if any.
    pub fn last_reaching(&self, x: u32, j: usize) -> Option<u32> {
        let d = self.down[x as usize].get(j).copied().unwrap_or(-1);
        (d >= 0).then_some(d as u32)
    }

    /// The first position of chain j that x reaches, if any.
    pub fn first_reached(&self, x: u32, j: usize) -> Option<u32> {
        let p = self.up[x as usize * self.width() + j];
        (p != u32::MAX).then_some(p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// Random DAGs: the clocks answer exactly what a transitive closure says.
    #[test]
    #[allow(clippy::needless_range_loop)]
    fn clocks_match_the_transitive_closure() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        for _ in 0..300 {
            let n = rng.random_range(1..30usize);
            // A random permutation is the topological order.
            let mut order: Vec<u32> = (0..n as u32).collect();
            for i in (1..n).rev() {
                order.swap(i, rng.random_range(0..=i));
            }
            let mut preds: Vec<Vec<u32>> = vec![Vec::new(); n];
            let mut reach = vec![vec![false; n]; n];
            for i in 0..n {
                reach[i][i] = true;
            }
            for b in 0..n {
                for a in 0..b {
                    if rng.random_bool(0.15) {
                        preds[order[b] as usize].push(order[a]);
                    }
                }
            }
            for &v in &order {
                let v = v as usize;
                for p in preds[v].clone() {
                    for x in 0..n {
                        if reach[x][p as usize] {
                            reach[x][v] = true;
                        }
                    }
                }
            }
            let hint: Vec<u32> = (0..n).map(|_| rng.random_range(0..3)).collect();
            let c = Chains::new(&order, &preds, &hint);
            for x in 0..n {
                for y in 0..n {
                    assert_eq!(c.reaches(x as u32, y as u32), reach[x][y], "{x} ≤ {y}");
                }
                for j in 0..c.width() {
                    let first = c.chains[j].iter().position(|&y| reach[x][y as usize]);
                    assert_eq!(c.first_reached(x as u32, j), first.map(|p| p as u32));
                    let last = c.chains[j].iter().rposition(|&y| reach[y as usize][x]);
                    assert_eq!(c.last_reaching(x as u32, j), last.map(|p| p as u32));
                }
            }
            for ch in &c.chains {
                for w in ch.windows(2) {
                    assert!(reach[w[0] as usize][w[1] as usize], "chains are ordered");
                }
            }
        }
    }
}
