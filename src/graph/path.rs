//! Shortest labelled paths by breadth-first search, for witnesses printed edge by edge.

use std::collections::VecDeque;

/// A shortest path `from →+ to` over nodes `0..n` as edges `(a, b, label)`; with
/// `from == to`, a shortest cycle through `from`. `succ(u, out)` pushes u's successors.
pub fn shortest<K: Copy>(
    n: usize,
    from: usize,
    to: usize,
    mut succ: impl FnMut(usize, &mut Vec<(usize, K)>),
) -> Option<Vec<(usize, usize, K)>> {
    let mut pred: Vec<Option<(usize, K)>> = vec![None; n];
    let mut seen = vec![false; n];
    seen[from] = true;
    let mut queue = VecDeque::from([from]);
    let mut out = Vec::new();
    while let Some(u) = queue.pop_front() {
        out.clear();
        succ(u, &mut out);
        for &(v, k) in &out {
            if v == to {
                let mut path = vec![(u, v, k)];
                let mut cur = u;
                while cur != from {
                    let (p, k) = pred[cur].expect("reached nodes have a predecessor");
                    path.push((p, cur, k));
                    cur = p;
                }
                path.reverse();
                return Some(path);
            }
            if !seen[v] {
                seen[v] = true;
                pred[v] = Some((u, k));
                queue.push_back(v);
            }
        }
    }
    None
}
