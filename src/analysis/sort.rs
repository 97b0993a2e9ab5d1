//! Chosen orders to an execution: a topological sort of the exact event graph with the
//! orders a decider picked (or the literals of a cycle among them, to block), and the
//! same for the paper's Def. 4 graph.

use crate::graph::csr::Csr;
use crate::graph::paper::PaperGraph;
use crate::solver::Lit;
use crate::trace::exec::{Execution, Node, Step};
use crate::trace::Trace;
use fixedbitset::FixedBitSet;
use std::collections::{BTreeSet, HashMap};

/// No next commit.
const NONE: u32 = u32::MAX;

/// Topologically sorts the exact event graph with the oriented atoms: the execution,
/// or the true atom literals on a cycle (to block).
///
/// Nodes are the events `0..n` in trace order, then the commits `n..` in the order of
/// their writes. The graph's own edges are not stored: an event's successors are the
/// next event and, for a write, its commit; a commit's are its thread's next commit
/// and, for the thread's last write before a drain, the drain it must precede
/// ([`Trace::commit_bound`]; the earlier commits reach it through the next ones, so
/// the order is that of every commit's edge). Only the oriented atoms
/// are held, sorted by source (a witness of a 10⁶-event trace sorts 1.4·10⁶ nodes,
/// with the orders of one component).
pub fn sort_exact(trace: &Trace, orient: &[(Node, Node, Lit)]) -> Result<Execution, Vec<Lit>> {
    let n = trace.len();
    let writes: Vec<u32> = trace.writes().map(|w| w as u32).collect();
    let rank = Rank::new(n, &writes);
    let commit_of = |w: usize| n + rank.of(w);
    let index = |x: Node| match x {
        Step::Event(e) => e,
        Step::Commit(w) => commit_of(w),
    };
    let nodes = n + writes.len();
    // Each commit's next commit of the same thread (`NONE`: the thread's last), and
    // the commits with an edge to the drain they must precede: the thread's last
    // before that drain (the others reach it through the FIFO chain, and the sort's
    // order is the same), found here once rather than from two commits' bounds at
    // each visit.
    let mut next_commit = vec![NONE; writes.len()];
    let mut to_drain = FixedBitSet::with_capacity(writes.len());
    // Per thread, its latest commit and that commit's bound.
    let mut last: Vec<(u32, usize)> = vec![(NONE, n); trace.threads.len()];
    for (k, &w) in writes.iter().enumerate() {
        let h = trace.commit_bound(w as usize);
        let (prev, bound) = std::mem::replace(
            &mut last[trace.events[w as usize].thread.index()],
            (k as u32, h),
        );
        if prev != NONE {
            next_commit[prev as usize] = k as u32;
            if bound < n && bound != h {
                to_drain.insert(prev as usize);
            }
        }
    }
    for &(k, bound) in &last {
        if k != NONE && bound < n {
            to_drain.insert(k as usize);
        }
    }
    let mut extra: Vec<(u32, u32, Lit)> = orient
        .iter()
        .map(|&(x, y, l)| (index(x) as u32, index(y) as u32, l))
        .collect();
    // Stable: a node's atoms keep their order, so a cycle's literals are the same.
    extra.sort_by_key(|&(a, _, _)| a);
    let with_atoms: FixedBitSet = extra.iter().map(|&(a, _, _)| a as usize).collect();
    let g = Graph {
        trace,
        n,
        writes: &writes,
        rank: &rank,
        next_commit: &next_commit,
        to_drain: &to_drain,
        extra: &extra,
        with_atoms: &with_atoms,
    };
    // In-degrees in a byte a node (a quarter of u32s: 0.4 GB less at 10⁸ events): the
    // graph's edges give a node at most two (the event before it or its write; its
    // thread's previous commit or the last commit its drain waits for), counted here
    // from their rules, plus one while atoms into it remain, which are counted apart
    // for the few nodes they enter.
    let mut atoms_in: rustc_hash::FxHashMap<u32, u32> = Default::default();
    for &(_, b, _) in &extra {
        *atoms_in.entry(b).or_default() += 1;
    }
    let mut indeg = vec![0u8; nodes];
    indeg[1.min(n)..n].fill(1);
    for (k, &w) in writes.iter().enumerate() {
        indeg[n + k] += 1;
        if next_commit[k] != NONE {
            indeg[n + next_commit[k] as usize] += 1;
        }
        if to_drain.contains(k) {
            indeg[trace.commit_bound(w as usize)] += 1;
        }
    }
    debug_assert!({
        let mut d = vec![0u8; nodes];
        (0..nodes).for_each(|u| g.succ(u, |v, _, atom| d[v] += u8::from(!atom)));
        d == indeg
    });
    for &v in atoms_in.keys() {
        indeg[v as usize] += 1;
    }
    // Kahn, least node first (trace events before commits): commits as late as the
    // constraints allow. Each event's predecessors include the event before it, so at
    // most one event is ready at a time: it is kept apart, and only commits go
    // through the heap (the same order, without a heap operation per event).
    let mut ready_event: Option<u32> = None;
    let mut ready = Ready::new(writes.len());
    let make_ready = |v: usize, event: &mut Option<u32>, commits: &mut Ready| {
        if v < n {
            debug_assert!(event.is_none(), "one event ready at a time");
            *event = Some(v as u32);
        } else {
            commits.push(v - n);
        }
    };
    for v in (0..nodes).filter(|&v| indeg[v] == 0) {
        make_ready(v, &mut ready_event, &mut ready);
    }
    // Packed as the execution keeps them: 4 bytes a step; each step's position
    // indexed as it is placed.
    let mut steps: Vec<u32> = Vec::with_capacity(nodes);
    let (mut event_pos, mut commit_pos) = (vec![u32::MAX; n], vec![u32::MAX; n]);
    while let Some(v) = ready_event
        .take()
        .or_else(|| ready.pop().map(|k| (n + k) as u32))
    {
        let v = v as usize;
        let p = steps.len() as u32;
        steps.push(if v < n {
            event_pos[v] = p;
            Step::Event(v).pack()
        } else {
            let w = writes[v - n] as usize;
            commit_pos[w] = p;
            Step::Commit(w).pack()
        });
        g.succ(v, |s, _, atom| {
            if atom {
                let left = atoms_in.get_mut(&(s as u32)).expect("counted above");
                *left -= 1;
                if *left > 0 {
                    return;
                }
            }
            indeg[s] -= 1;
            if indeg[s] == 0 {
                make_ready(s, &mut ready_event, &mut ready);
            }
        });
    }
    if steps.len() == nodes {
        // Drawn by the rules (the graph's edges are the rules of docs/semantics.md §2),
        // so not walked again here; the witness is re-checked before it is printed.
        // Positions fit u32s: fewer than 2·MAX_EVENTS < 2³² steps.
        drop((
            indeg,
            atoms_in,
            extra,
            next_commit,
            to_drain,
            with_atoms,
            rank,
        ));
        let execution = Execution::placed(steps, event_pos, commit_pos);
        debug_assert_eq!(execution.recheck(trace), Ok(()), "a sort is an execution");
        return Ok(execution);
    }
    drop(steps);
    Err(cycle_lits(nodes, |u, f| g.succ(u, f), |v| indeg[v] > 0))
}

/// The exact event graph of [`sort_exact`] with its oriented atoms.
struct Graph<'a> {
    trace: &'a Trace,
    n: usize,
    writes: &'a [u32],
    rank: &'a Rank,
    next_commit: &'a [u32],
    to_drain: &'a FixedBitSet,
    /// The atoms (source, target, literal), sorted by source.
    extra: &'a [(u32, u32, Lit)],
    /// The nodes that have atoms, a bit each: the others skip the binary search.
    with_atoms: &'a FixedBitSet,
}

impl Graph<'_> {
    /// `f(v, literal, atom)` for each successor v of u: the graph's edges, then the
    /// atoms (a closure of its own type, so the sort's loop inlines it).
    #[inline]
    fn succ(&self, u: usize, mut f: impl FnMut(usize, Lit, bool)) {
        let n = self.n;
        if u < n {
            if u + 1 < n {
                f(u + 1, 0, false);
            }
            if self.trace.events[u].op == crate::trace::Op::Wr {
                f(n + self.rank.of(u), 0, false);
            }
        } else {
            let k = u - n;
            if self.to_drain.contains(k) {
                f(self.trace.commit_bound(self.writes[k] as usize), 0, false);
            }
            let next = self.next_commit[k];
            if next != NONE {
                f(n + next as usize, 0, false);
            }
        }
        if !self.with_atoms.contains(u) {
            return;
        }
        let from = self.extra.partition_point(|&(a, _, _)| (a as usize) < u);
        for &(a, b, l) in &self.extra[from..] {
            if a as usize != u {
                break;
            }
            f(b as usize, l, true);
        }
    }
}

/// The commits ready to be placed, least first: a bit a commit, and a place no set
/// bit lies below (a binary heap held every store issued since the last drain, and
/// its pushes and pops missed the caches at 10⁸ events). Commits made ready by their
/// write or by their thread's previous commit come after every commit placed, so the
/// search for the least goes back only for those an atom makes ready.
struct Ready {
    bits: FixedBitSet,
    /// No commit below it is ready.
    from: usize,
    len: usize,
}

impl Ready {
    fn new(commits: usize) -> Ready {
        Ready {
            bits: FixedBitSet::with_capacity(commits),
            from: 0,
            len: 0,
        }
    }

    fn push(&mut self, k: usize) {
        debug_assert!(!self.bits.contains(k), "ready once");
        self.bits.insert(k);
        self.from = self.from.min(k);
        self.len += 1;
    }

    /// The least ready commit, no longer ready.
    fn pop(&mut self) -> Option<usize> {
        if self.len == 0 {
            return None;
        }
        const BLOCK: usize = usize::BITS as usize;
        let words = self.bits.as_slice();
        let mut i = self.from / BLOCK;
        let mut word = words[i] & (usize::MAX << (self.from % BLOCK));
        // A ready commit lies at or after `from`, so the search ends in bounds.
        while word == 0 {
            i += 1;
            word = words[i];
        }
        let k = i * BLOCK + word.trailing_zeros() as usize;
        self.bits.set(k, false);
        (self.from, self.len) = (k + 1, self.len - 1);
        Some(k)
    }
}

/// Each write's place among the writes in constant time (a binary search a look-up
/// was 45 % of sorting a 10⁷-event witness): a bit an event, and a count of the
/// writes before every block of bits.
struct Rank {
    bits: FixedBitSet,
    before: Vec<u32>,
}

impl Rank {
    fn new(n: usize, writes: &[u32]) -> Rank {
        let mut bits = FixedBitSet::with_capacity(n);
        bits.extend(writes.iter().map(|&w| w as usize));
        let mut count = 0;
        let before = bits
            .as_slice()
            .iter()
            .map(|b| {
                let c = count;
                count += b.count_ones();
                c
            })
            .collect();
        Rank { bits, before }
    }

    /// The place of write `w` among the writes (`w` must be one).
    fn of(&self, w: usize) -> usize {
        const BLOCK: usize = usize::BITS as usize;
        let (i, j) = (w / BLOCK, w % BLOCK);
        debug_assert!(self.bits.contains(w), "event {w} is a write");
        let below = self.bits.as_slice()[i] & ((1usize << j) - 1);
        (self.before[i] + below.count_ones()) as usize
    }
}

/// A cycle among the nodes Kahn could not sort (`left`); the non-zero literals on it.
fn cycle_lits(
    nodes: usize,
    succ: impl Fn(usize, &mut dyn FnMut(usize, Lit, bool)),
    left: impl Fn(usize) -> bool,
) -> Vec<Lit> {
    // Every unsorted node has an unsorted predecessor; walk successors inside the
    // unsorted set until a node repeats.
    let mut pred_edge: Vec<Option<(usize, Lit)>> = vec![None; nodes];
    for u in (0..nodes).filter(|&u| left(u)) {
        succ(u, &mut |v, l, _| {
            if left(v) && pred_edge[v].is_none() {
                pred_edge[v] = Some((u, l));
            }
        });
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
        let succ = |u: usize, f: &mut dyn FnMut(usize, Lit, bool)| {
            adj.succ(u)
                .iter()
                .for_each(|&(v, l)| f(v as usize, l, l != 0))
        };
        return Err(cycle_lits(n, succ, |v| indeg[v] > 0));
    }
    Ok(g.undirected
        .iter()
        .map(|&(a, b)| if rank[a] < rank[b] { (a, b) } else { (b, a) })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::Rank;

    /// The rank is the place a binary search finds, across words and at their edges.
    #[test]
    fn a_writes_rank_is_its_place_among_the_writes() {
        for n in [1, 63, 64, 65, 200] {
            for step in [1, 2, 3, 7, 64, 65] {
                let writes: Vec<u32> = (0..n as u32).filter(|w| w % step == step - 1).collect();
                let rank = Rank::new(n, &writes);
                for (k, &w) in writes.iter().enumerate() {
                    assert_eq!(rank.of(w as usize), k, "n {n} step {step} w {w}");
                }
            }
        }
    }
}
