//! A chain partition of a directed acyclic graph (Dilworth, Enea & Farzan Thm. 8) with
//! reachability clocks over the chains, so `x ≤ y` (a path from x to y) is one lookup.
//!
//! [`Chains::greedy`] works in a topological order: a node extends a chain whose last
//! node reaches it (the chain of the same hint — its thread — first), else it opens a
//! new chain; O((V + E) · W) time and O(V · W) memory for W chains. It need not be
//! minimum. [`Chains::minimum`] makes it minimum (Dilworth: a minimum chain partition
//! of the order is a maximum matching in the bipartite graph of `x < y`, Fulkerson
//! 1956): the greedy chains are a matching (each node matched to its chain
//! successor), augmented by alternating paths while one exists. The clocks list the
//! nodes `x` reaches on a chain as a suffix of it, so one search visits each node
//! once: O(V · W) per augmentation, and one more to prove the matching maximum.

/// No node.
const NONE: u32 = u32::MAX;

/// A chain partition with clocks; nodes are `0..n`.
pub struct Chains {
    pub chain_of: Vec<u32>,
    pub pos: Vec<u32>,
    pub chains: Vec<Vec<u32>>,
    /// `down[v][j]`: the last position of chain j that reaches v (reflexive), or -1;
    /// may be shorter than W (missing entries: -1).
    down: Vec<Vec<i32>>,
    /// `up[v * W + j]`: the first position of chain j that v reaches (reflexive), or `u32::MAX`.
    up: Vec<u32>,
    /// Whether no partition has fewer chains (proven by [`Chains::minimum`]).
    pub minimum: bool,
}

impl Chains {
    /// The greedy partition (see the module text). `order` lists all nodes
    /// topologically; `preds[v]` are v's direct predecessors; `hint[v]` is the chain
    /// family v prefers (its thread).
    pub fn greedy(order: &[u32], preds: &[Vec<u32>], hint: &[u32]) -> Chains {
        let n = preds.len();
        let mut chain_of = vec![u32::MAX; n];
        let mut chains: Vec<Vec<u32>> = Vec::new();
        let mut chain_hint: Vec<u32> = Vec::new();
        let mut pos = vec![0u32; n];
        let mut down: Vec<Vec<i32>> = vec![Vec::new(); n];
        for &v in order {
            let vi = v as usize;
            let clock = join(&down, &preds[vi]);
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
            down[vi] = with_own(clock, j, pos[vi]);
        }
        Chains::assemble(order, preds, chain_of, pos, chains, down, false)
    }

    /// A minimum chain partition (see the module text), or, when the search takes more
    /// than about `max_work` steps, the fewest chains found by then ([`Chains::minimum`]
    /// says which).
    pub fn minimum(order: &[u32], preds: &[Vec<u32>], hint: &[u32], max_work: u64) -> Chains {
        let mut g = Chains::greedy(order, preds, hint);
        let n = preds.len();
        if g.width() <= 1 {
            g.minimum = true;
            return g;
        }
        let mut next = vec![NONE; n];
        let mut prev = vec![NONE; n];
        for c in &g.chains {
            for w in c.windows(2) {
                next[w[0] as usize] = w[1];
                prev[w[1] as usize] = w[0];
            }
        }
        let mut search = Augment::new(&g);
        let mut ends: Vec<u32> = (0..n as u32)
            .filter(|&v| next[v as usize] == NONE)
            .collect();
        // Kuhn: marks stay across failed searches until one augments.
        let mut progress = true;
        let mut proven = false;
        while progress && search.work <= max_work {
            progress = false;
            search.reset();
            ends.retain(|&v| {
                if search.work > max_work {
                    return true;
                }
                if search.augment(&g, v, &mut next, &mut prev) {
                    progress = true;
                    search.reset();
                    false
                } else {
                    true
                }
            });
            // A round without an augmenting path, done within the budget: maximum.
            proven = !progress && search.work <= max_work;
        }
        // Each chain: from a node nothing is matched to, along `next`.
        let mut chain_of = vec![NONE; n];
        let mut pos = vec![0u32; n];
        let mut chains: Vec<Vec<u32>> = Vec::new();
        for &s in order {
            if prev[s as usize] != NONE {
                continue;
            }
            let mut c = Vec::new();
            let mut v = s;
            while v != NONE {
                chain_of[v as usize] = chains.len() as u32;
                pos[v as usize] = c.len() as u32;
                c.push(v);
                v = next[v as usize];
            }
            chains.push(c);
        }
        let mut down: Vec<Vec<i32>> = vec![Vec::new(); n];
        for &v in order {
            let vi = v as usize;
            down[vi] = with_own(join(&down, &preds[vi]), chain_of[vi] as usize, pos[vi]);
        }
        Chains::assemble(order, preds, chain_of, pos, chains, down, proven)
    }

    /// The partition with its `up` clocks computed from the rest.
    fn assemble(
        order: &[u32],
        preds: &[Vec<u32>],
        chain_of: Vec<u32>,
        pos: Vec<u32>,
        chains: Vec<Vec<u32>>,
        down: Vec<Vec<i32>>,
        minimum: bool,
    ) -> Chains {
        let up = up_clocks(order, preds, &chain_of, &pos, chains.len());
        Chains {
            chain_of,
            pos,
            chains,
            down,
            up,
            minimum,
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

/// The pointwise maximum of the predecessors' `down` clocks.
fn join(down: &[Vec<i32>], preds: &[u32]) -> Vec<i32> {
    let mut clock: Vec<i32> = Vec::new();
    for &p in preds {
        let d = &down[p as usize];
        if clock.len() < d.len() {
            clock.resize(d.len(), -1);
        }
        for (c, &x) in clock.iter_mut().zip(d) {
            *c = (*c).max(x);
        }
    }
    clock
}

/// `clock` with chain j's entry set to p: a node's own position (reflexive).
fn with_own(mut clock: Vec<i32>, j: usize, p: u32) -> Vec<i32> {
    if clock.len() <= j {
        clock.resize(j + 1, -1);
    }
    clock[j] = p as i32;
    clock
}

/// `up[v * w + j]`, the first position of chain j that v reaches, in reverse
/// topological order.
fn up_clocks(
    order: &[u32],
    preds: &[Vec<u32>],
    chain_of: &[u32],
    pos: &[u32],
    w: usize,
) -> Vec<u32> {
    let n = preds.len();
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
    up
}

/// One alternating-path search of [`Chains::minimum`], over the greedy chains' clocks.
struct Augment {
    /// Per greedy chain, `skip[j][p]`: the first unvisited position ≥ p (path-halving
    /// union–find; one past the end when none).
    skip: Vec<Vec<u32>>,
    /// Left nodes reached, each with the (left, right) edge it was reached by.
    from: Vec<(u32, u32)>,
    queue: Vec<u32>,
    /// Steps taken, over all searches.
    work: u64,
}

impl Augment {
    fn new(g: &Chains) -> Augment {
        Augment {
            skip: g
                .chains
                .iter()
                .map(|c| (0..=c.len() as u32).collect())
                .collect(),
            from: vec![(NONE, NONE); g.chain_of.len()],
            queue: Vec::new(),
            work: 0,
        }
    }

    fn reset(&mut self) {
        self.work += self.from.len() as u64;
        for s in &mut self.skip {
            for (p, x) in s.iter_mut().enumerate() {
                *x = p as u32;
            }
        }
        self.from.fill((NONE, NONE));
    }

    /// Marks position p of chain j visited and returns the first unvisited ≥ p.
    fn first_unvisited(skip: &mut [u32], mut p: u32) -> u32 {
        while skip[p as usize] != p {
            let up = skip[skip[p as usize] as usize];
            skip[p as usize] = up;
            p = up;
        }
        p
    }

    /// From the chain end `v` (nothing matched after it): an alternating path to a node
    /// nothing is matched to (a chain start); flips the matching along it.
    fn augment(&mut self, g: &Chains, v: u32, next: &mut [u32], prev: &mut [u32]) -> bool {
        if self.from[v as usize].0 != NONE {
            return false; // reached by an earlier, failed search
        }
        self.from[v as usize] = (v, NONE);
        self.queue.clear();
        self.queue.push(v);
        let mut head = 0;
        while head < self.queue.len() {
            let x = self.queue[head];
            head += 1;
            self.work += g.width() as u64;
            for j in 0..g.width() {
                let Some(mut p) = g.first_reached(x, j) else {
                    continue;
                };
                if j == g.chain_of[x as usize] as usize {
                    p += 1; // x < u: not x itself, whose right copy others may reach
                }
                let len = g.chains[j].len() as u32;
                loop {
                    p = Self::first_unvisited(&mut self.skip[j], p);
                    if p >= len {
                        break;
                    }
                    self.skip[j][p as usize] = p + 1;
                    self.work += 1;
                    let u = g.chains[j][p as usize];
                    let m = prev[u as usize];
                    if m == NONE {
                        // Flip: x → u, then back along the edges that reached each left node.
                        let (mut l, mut r) = (x, u);
                        loop {
                            let old = next[l as usize];
                            next[l as usize] = r;
                            prev[r as usize] = l;
                            if l == v {
                                return true;
                            }
                            let (pl, _) = self.from[l as usize];
                            r = old;
                            l = pl;
                            debug_assert_ne!(r, NONE);
                        }
                    }
                    if self.from[m as usize].0 == NONE {
                        self.from[m as usize] = (x, u);
                        self.queue.push(m);
                    }
                }
            }
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    type Dag = (Vec<u32>, Vec<Vec<u32>>, Vec<Vec<bool>>);

    /// A random DAG on n nodes: a topological order, direct predecessors, and the
    /// reflexive transitive closure.
    #[allow(clippy::needless_range_loop)]
    fn random_dag(rng: &mut ChaCha8Rng, n: usize, p: f64) -> Dag {
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
                if rng.random_bool(p) {
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
        (order, preds, reach)
    }

    #[allow(clippy::needless_range_loop)]
    fn check_clocks(c: &Chains, reach: &[Vec<bool>]) {
        let n = reach.len();
        let mut seen = vec![0; n];
        for ch in &c.chains {
            for &v in ch {
                seen[v as usize] += 1;
            }
            for w in ch.windows(2) {
                assert!(reach[w[0] as usize][w[1] as usize], "chains are ordered");
            }
        }
        assert!(seen.iter().all(|&k| k == 1), "a partition");
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
    }

    /// Random DAGs: the clocks answer exactly what a transitive closure says.
    #[test]
    fn clocks_match_the_transitive_closure() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        for _ in 0..300 {
            let n = rng.random_range(1..30usize);
            let (order, preds, reach) = random_dag(&mut rng, n, 0.15);
            let hint: Vec<u32> = (0..n).map(|_| rng.random_range(0..3)).collect();
            check_clocks(&Chains::greedy(&order, &preds, &hint), &reach);
        }
    }

    /// Brute force: the fewest chains covering a small order (its largest antichain,
    /// by Dilworth; here found directly over subsets).
    fn largest_antichain(reach: &[Vec<bool>]) -> usize {
        let n = reach.len();
        (0u32..1 << n)
            .filter(|&s| {
                (0..n).all(|a| {
                    (0..n).all(|b| a == b || s >> a & 1 == 0 || s >> b & 1 == 0 || !reach[a][b])
                })
            })
            .map(|s| s.count_ones() as usize)
            .max()
            .unwrap_or(0)
    }

    /// Random DAGs: the minimum partition has as many chains as the largest antichain
    /// has nodes, its chains are ordered, and its clocks are exact.
    #[test]
    #[allow(clippy::needless_range_loop)]
    fn the_minimum_partition_is_minimum() {
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        let mut improved = 0;
        for round in 0..400 {
            let n = rng.random_range(1..13usize);
            let (order, preds, reach) =
                random_dag(&mut rng, n, if round % 2 == 0 { 0.15 } else { 0.3 });
            let hint: Vec<u32> = (0..n).map(|_| rng.random_range(0..3)).collect();
            let g = Chains::greedy(&order, &preds, &hint);
            let m = Chains::minimum(&order, &preds, &hint, u64::MAX);
            assert!(m.minimum);
            assert_eq!(m.width(), largest_antichain(&reach), "round {round}");
            improved += usize::from(m.width() < g.width());
            check_clocks(&m, &reach);
        }
        // The greedy partition is not always minimum, so the matching is exercised.
        assert!(improved > 10, "{improved}");
    }

    /// A budget of no work keeps the greedy partition, not proven minimum.
    #[test]
    fn a_spent_budget_keeps_the_chains_found() {
        // 0 → 2, 1 → 2, 1 → 3, in the order 0 1 2 3 with hints that make greedy put
        // 2 after 1 and leave 0 and 3 alone: three chains where two suffice.
        let preds = vec![vec![], vec![], vec![0, 1], vec![1]];
        let order = [0, 1, 2, 3];
        let hint = [0, 1, 1, 2];
        let g = Chains::greedy(&order, &preds, &hint);
        assert_eq!(g.width(), 3);
        let m = Chains::minimum(&order, &preds, &hint, 0);
        assert_eq!((m.width(), m.minimum), (3, false));
        let m = Chains::minimum(&order, &preds, &hint, u64::MAX);
        assert_eq!((m.width(), m.minimum), (2, true));
    }
}
