//! Items grouped by a small key, kept in one vector: what a vector per group costs in
//! copies and allocations (each component's forced edges and varying pairs), without
//! them. Built in place, so grouping a vector never holds it twice.

use std::ops::Index;

/// Items grouped by a key in `0..groups`, each group in the items' original order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Grouped<T> {
    items: Vec<T>,
    /// Group g is `items[starts[g]..starts[g + 1]]`.
    starts: Vec<usize>,
}

impl<T> Grouped<T> {
    /// Groups `items` by `key` (`None`: dropped) in place: the only extra memory is
    /// one `u32` per item, its key and then its place. `key` is called once an item
    /// (it may look up a large table at random).
    pub fn new(mut items: Vec<T>, groups: usize, key: impl Fn(&T) -> Option<usize>) -> Grouped<T> {
        const DROPPED: u32 = u32::MAX;
        let mut dest: Vec<u32> = items
            .iter()
            .map(|x| match key(x) {
                Some(g) if g < groups => u32::try_from(g).expect("fewer than 2^32 groups"),
                _ => DROPPED,
            })
            .collect();
        let mut at = 0;
        items.retain(|_| {
            at += 1;
            dest[at - 1] != DROPPED
        });
        dest.retain(|&g| g != DROPPED);
        // A vector grown by pushes has up to twice its length in capacity.
        items.shrink_to_fit();
        dest.shrink_to_fit();
        let mut starts = vec![0usize; groups + 1];
        for &g in &dest {
            starts[g as usize + 1] += 1;
        }
        for g in 0..groups {
            starts[g + 1] += starts[g];
        }
        // Where each item goes (stable: by group, then by position), then the cycles of
        // that permutation followed in place.
        let mut next = starts.clone();
        for d in dest.iter_mut() {
            let g = *d as usize;
            *d = u32::try_from(next[g]).expect("fewer than 2^32 items");
            next[g] += 1;
        }
        for i in 0..items.len() {
            while dest[i] as usize != i {
                let d = dest[i] as usize;
                items.swap(i, d);
                dest.swap(i, d);
            }
        }
        Grouped { items, starts }
    }

    /// Number of groups.
    pub fn len(&self) -> usize {
        self.starts.len().saturating_sub(1)
    }

    /// Whether there is no group.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Every item, group after group.
    pub fn all(&self) -> &[T] {
        &self.items
    }

    /// The groups in order.
    pub fn iter(&self) -> impl Iterator<Item = &[T]> + '_ {
        (0..self.len()).map(|g| &self[g])
    }
}

impl<T> Index<usize> for Grouped<T> {
    type Output = [T];

    fn index(&self, g: usize) -> &[T] {
        &self.items[self.starts[g]..self.starts[g + 1]]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// Against a vector per group, on random keys (some dropped).
    #[test]
    fn groups_in_place_as_a_vector_per_group_would() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        for _ in 0..200 {
            let groups = rng.random_range(0..6);
            let n = rng.random_range(0..60);
            let items: Vec<(usize, u32)> = (0..n)
                .map(|i| (rng.random_range(0..groups + 2), i as u32))
                .collect();
            let key = |x: &(usize, u32)| (x.0 <= groups).then_some(x.0);
            let mut want: Vec<Vec<(usize, u32)>> = vec![Vec::new(); groups];
            for &x in &items {
                if x.0 < groups {
                    want[x.0].push(x);
                }
            }
            let got = Grouped::new(items, groups, key);
            assert_eq!(got.len(), groups);
            let got: Vec<Vec<(usize, u32)>> = got.iter().map(|g| g.to_vec()).collect();
            assert_eq!(got, want);
        }
    }
}
