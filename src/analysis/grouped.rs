//! Items grouped by a small key, kept in one vector: what a vector per group costs in
//! copies and allocations (each component's forced edges and varying pairs), without
//! them. Built by streaming the items into their groups while the pages already read
//! are given back, so grouping a vector never holds it twice.

use crate::mem::{forget_pages, PAGE};
use std::ops::Index;

/// Items grouped by a key in `0..groups`, each group in the items' original order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Grouped<T> {
    items: Vec<T>,
    /// Group g is `items[starts[g]..starts[g + 1]]`.
    starts: Vec<usize>,
}

/// The front of a vector being read once, given back page by page ([`forget_pages`]).
struct Consumed<T> {
    ptr: *mut T,
    len: usize,
    cap: usize,
    /// Bytes from `ptr` up to the page boundary where the next range to give back
    /// starts (every whole page before it was given back).
    given: usize,
}

impl<T: Copy> Consumed<T> {
    fn new(v: Vec<T>) -> Consumed<T> {
        let mut v = std::mem::ManuallyDrop::new(v);
        Consumed {
            ptr: v.as_mut_ptr(),
            len: v.len(),
            cap: v.capacity(),
            given: 0,
        }
    }

    fn get(&self, i: usize) -> T {
        assert!(i < self.len);
        // SAFETY: in bounds; item i lies past every page given back (`give_back(j)`
        // is called with j ≤ i only after the items before j were read).
        unsafe { self.ptr.add(i).read() }
    }

    /// The items before `i` will not be read again.
    fn give_back(&mut self, i: usize) {
        let bytes = i.min(self.len) * std::mem::size_of::<T>();
        if bytes > self.given {
            // SAFETY: inside the vector's block, and never read again.
            unsafe { forget_pages(self.ptr.cast::<u8>().add(self.given), bytes - self.given) };
            // The next range starts where this one's last whole page ended, so the
            // page it left (read only in part) is given back next time.
            let (start, end) = (self.ptr as usize, self.ptr as usize + bytes);
            self.given = (end / PAGE * PAGE).saturating_sub(start).max(self.given);
        }
    }
}

impl<T> Drop for Consumed<T> {
    fn drop(&mut self) {
        // SAFETY: the parts of a vector given up in `new`; its length 0, since its
        // contents may be gone (T: Copy, so nothing is dropped).
        drop(unsafe { Vec::from_raw_parts(self.ptr, 0, self.cap) });
    }
}

/// How many items ahead [`Grouped::new_ahead`] looks.
const AHEAD: usize = 32;
/// An item's group when it is dropped.
const DROPPED: u32 = u32::MAX;
/// Items read between two givings back of the pages read.
const CHUNK: usize = 1 << 16;

impl<T: Copy> Grouped<T> {
    /// Groups `items` by `key` (`None`: dropped). Each item is copied once into its
    /// group's stream (a write at one of `groups` advancing positions), and the input
    /// is given back as it is read: the extra memory is one `u32` per item, its group,
    /// and less than a chunk of both vectors at once. `key` is called once an item
    /// (it may look up a large table at random). (It was an in-place permutation
    /// followed cycle by cycle: each step a cache and TLB miss, 120 s of a 10⁸-event
    /// check; docs/performance.md.)
    pub fn new(items: Vec<T>, groups: usize, key: impl Fn(&T) -> Option<usize>) -> Grouped<T> {
        Grouped::new_ahead(items, groups, key, |_| {})
    }

    /// [`Grouped::new`], calling `ahead(x)` on the item 32 places before the one
    /// `key` is asked about: a `key` that looks a large table up at random prefetches
    /// there ([`crate::mem::prefetch`]).
    pub fn new_ahead(
        items: Vec<T>,
        groups: usize,
        key: impl Fn(&T) -> Option<usize>,
        ahead: impl Fn(&T),
    ) -> Grouped<T> {
        Grouped::from_parts(vec![items], groups, key, ahead)
    }

    /// [`Grouped::new_ahead`] on the items of `parts` in order, as if they were one
    /// vector (without appending the parts first: each is given back as it is read,
    /// then freed). [`PartsGrouped`] groups parts without moving them out.
    pub fn from_parts(
        parts: Vec<Vec<T>>,
        groups: usize,
        key: impl Fn(&T) -> Option<usize>,
        ahead: impl Fn(&T),
    ) -> Grouped<T> {
        let mut starts = vec![0usize; groups + 1];
        let total: usize = parts.iter().map(Vec::len).sum();
        let mut dest: Vec<u32> = Vec::with_capacity(total);
        for items in &parts {
            keys_into(items, groups, &key, &ahead, &mut starts[1..], &mut dest);
        }
        for g in 0..groups {
            starts[g + 1] += starts[g];
        }
        let kept = starts[groups];
        let mut out: Vec<T> = Vec::with_capacity(kept);
        let slots = out.spare_capacity_mut();
        let mut next = starts.clone();
        let mut dest = Consumed::new(dest);
        let mut at = 0;
        for part in parts {
            let mut items = Consumed::new(part);
            for i in 0..items.len {
                let g = dest.get(at + i);
                if g != DROPPED {
                    let to = &mut next[g as usize];
                    slots[*to].write(items.get(i));
                    *to += 1;
                }
                if (i + 1).is_multiple_of(CHUNK) {
                    items.give_back(i + 1);
                    dest.give_back(at + i + 1);
                }
            }
            at += items.len;
        }
        assert!((0..groups).all(|g| next[g] == starts[g + 1]));
        // SAFETY: group g's slots starts[g]..starts[g + 1] were each written once.
        unsafe { out.set_len(kept) };
        Grouped { items: out, starts }
    }
}

/// Items in several parts (what a pass in parallel makes), each part grouped in place
/// by a key: group g is the items of g of part 0, then of part 1, … in their order
/// (as [`Grouped::from_parts`] would hold them, without a copy of them all). Each
/// part's kept items are moved stably into a spare block, which then takes the
/// part's place (its room past them given back), and the part's old block becomes a
/// spare for the next part: the pages a grouping touches are those of the parts and
/// of a spare per thread, not of a second copy of everything (the grouping of
/// 3.25·10⁸ forced edges at 10⁸ events wrote 2.6 GB of fresh pages, and 1.3 GB of
/// keys). With more than 2²² counts (groups × parts) the parts are moved into one
/// vector ([`Grouped::from_parts`]) instead, so the counts stay small.
#[derive(Clone, Debug, Default)]
pub struct PartsGrouped<T> {
    groups: usize,
    parts: Vec<Vec<T>>,
    /// Per part, group g is `parts[p][starts[p][g]..starts[p][g + 1]]`.
    starts: Vec<Vec<usize>>,
}

impl<T: Copy + Send + Sync> PartsGrouped<T> {
    /// Groups each part of `parts` by `key` in `0..groups` (`None`: dropped), the
    /// parts in parallel; `ahead` as in [`Grouped::new_ahead`].
    pub fn new(
        mut parts: Vec<Vec<T>>,
        groups: usize,
        key: impl Fn(&T) -> Option<usize> + Sync,
        ahead: impl Fn(&T) + Sync,
    ) -> PartsGrouped<T> {
        use rayon::prelude::*;
        if parts.len() > 1 && groups.saturating_mul(parts.len()) > 1 << 22 {
            let one = Grouped::from_parts(parts, groups, key, ahead);
            return PartsGrouped {
                groups,
                parts: vec![one.items],
                starts: vec![one.starts],
            };
        }
        // Blocks freed by the parts already grouped, and key buffers: taken by the
        // next part a thread groups (as many as threads at most).
        let spares: std::sync::Mutex<Vec<(Vec<T>, Vec<u32>)>> = Default::default();
        let starts: Vec<Vec<usize>> = parts
            .par_iter_mut()
            .with_max_len(1)
            .map(|part| {
                let taken = spares.lock().unwrap_or_else(|p| p.into_inner()).pop();
                let (mut spare, mut dest) = taken.unwrap_or_default();
                let mut counts = vec![0usize; groups + 1];
                dest.clear();
                keys_into(part, groups, &key, &ahead, &mut counts[1..], &mut dest);
                for g in 0..groups {
                    counts[g + 1] += counts[g];
                }
                let mut next = counts[..groups].to_vec();
                let kept = counts[groups];
                spare.clear();
                spare.reserve(kept);
                let room = &mut spare.spare_capacity_mut()[..kept];
                for (x, &g) in part.iter().zip(dest.iter()) {
                    if g != DROPPED {
                        let to = &mut next[g as usize];
                        room[*to].write(*x);
                        *to += 1;
                    }
                }
                assert!((0..groups).all(|g| next[g] == counts[g + 1]));
                // SAFETY: places 0..kept were each written once (the counts add up).
                unsafe { spare.set_len(kept) };
                std::mem::swap(part, &mut spare);
                // The block may be a larger part's (the same-thread edges are one): its
                // room past this part is given back (in place for a mapped block).
                part.shrink_to_fit();
                spares
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .push((spare, dest));
                counts
            })
            .collect();
        PartsGrouped {
            groups,
            parts,
            starts,
        }
    }
}

impl<T> PartsGrouped<T> {
    /// Number of groups.
    pub fn len(&self) -> usize {
        self.groups
    }

    /// Whether there is no group.
    pub fn is_empty(&self) -> bool {
        self.groups == 0
    }

    /// Group `g`: a slice of each part, in order.
    pub fn group(&self, g: usize) -> impl Iterator<Item = &[T]> + '_ {
        self.parts
            .iter()
            .zip(&self.starts)
            .map(move |(part, s)| &part[s[g]..s[g + 1]])
    }

    /// Group `g` in one vector.
    pub fn gathered(&self, g: usize) -> Vec<T>
    where
        T: Copy,
    {
        let mut out = Vec::with_capacity(self.group(g).map(<[T]>::len).sum());
        self.group(g).for_each(|s| out.extend_from_slice(s));
        out
    }
}

/// Appends each item's group to `dest` (`DROPPED`: none), counted into `counts`.
fn keys_into<T>(
    items: &[T],
    groups: usize,
    key: impl Fn(&T) -> Option<usize>,
    ahead: impl Fn(&T),
    counts: &mut [usize],
    dest: &mut Vec<u32>,
) {
    dest.extend(items.iter().enumerate().map(|(i, x)| {
        if let Some(later) = items.get(i + AHEAD) {
            ahead(later);
        }
        match key(x) {
            Some(g) if g < groups => {
                counts[g] += 1;
                u32::try_from(g).expect("fewer than 2^32 groups")
            }
            _ => DROPPED,
        }
    }));
}

impl<T> Grouped<T> {
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
    fn groups_as_a_vector_per_group_would() {
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

    /// Items in parts, grouped both ways — moved into one vector
    /// (`Grouped::from_parts`) and grouped where they lie (`PartsGrouped`) —, hold
    /// each group as a vector per group of the parts end to end would: each in the
    /// items' order, with dropped items, empty parts and groups, many groups.
    #[test]
    fn parts_group_as_one_vector_would() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(13);
        let mut moved_whole = 0;
        for round in 0..60 {
            let groups = if round % 10 == 9 {
                (1 << 20) + 5 // past 2²² counts with four parts or more
            } else {
                rng.random_range(0..40)
            };
            let parts: Vec<Vec<(usize, u32)>> = (0..rng.random_range(0..9))
                .map(|p| {
                    let n = rng.random_range(0..[50, 3_000, 140_000][round % 3]);
                    (0..n)
                        .map(|i| (rng.random_range(0..groups + 3), (p << 24 | i) as u32))
                        .collect()
                })
                .collect();
            let key = |x: &(usize, u32)| (x.0 < groups).then_some(x.0);
            let mut want: Vec<Vec<(usize, u32)>> = vec![Vec::new(); groups];
            for &x in parts.iter().flatten() {
                if x.0 < groups {
                    want[x.0].push(x);
                }
            }
            let many = parts.len() > 1;
            let in_place = PartsGrouped::new(parts.clone(), groups, key, |_| {});
            moved_whole += usize::from(many && in_place.parts.len() == 1);
            let moved = Grouped::from_parts(parts, groups, key, |_| {});
            assert_eq!((moved.len(), in_place.len()), (groups, groups));
            for (g, w) in want.iter().enumerate() {
                assert_eq!(&moved[g], &w[..], "round {round} group {g}");
                assert_eq!(&in_place.gathered(g), w, "round {round} group {g}");
            }
        }
        assert!(moved_whole > 0, "no round had past 2²² counts");
    }

    /// Across many chunks (each read chunk's pages given back), items of 12 bytes so
    /// chunks do not end at page boundaries: the same groups as a vector per group.
    #[test]
    fn groups_across_given_back_pages_as_a_vector_per_group_would() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        let groups = 37;
        let items: Vec<(u32, u32, u32)> = (0..300_001)
            .map(|i| (rng.random_range(0..groups + 5), i, !i))
            .collect();
        let key = |x: &(u32, u32, u32)| (x.0 < groups).then_some(x.0 as usize);
        let mut want: Vec<Vec<(u32, u32, u32)>> = vec![Vec::new(); groups as usize];
        for &x in &items {
            if let Some(g) = key(&x) {
                want[g].push(x);
            }
        }
        let got = Grouped::new(items, groups as usize, key);
        let got: Vec<Vec<(u32, u32, u32)>> = got.iter().map(|g| g.to_vec()).collect();
        assert_eq!(got, want);
    }

    /// Read chunk by chunk as `Grouped::new` reads (ends off page boundaries), the
    /// block keeps no page resident but the two it shares with its neighbours (a page
    /// read only in part is given back at the next chunk, not left behind).
    #[cfg(target_os = "linux")]
    #[test]
    fn a_block_read_to_its_end_keeps_no_page_resident() {
        let items: Vec<(u32, u32, u32)> = (0..400_000).map(|i| (i, i, i)).collect();
        let (base, bytes) = (items.as_ptr() as usize, items.len() * 12);
        let mut c = Consumed::new(items);
        for i in 0..c.len {
            assert_eq!(c.get(i), (i as u32, i as u32, i as u32));
            if (i + 1) % 65_536 == 0 || i + 1 == c.len {
                c.give_back(i + 1);
            }
        }
        let lo = base.div_ceil(PAGE) * PAGE;
        let pages = ((base + bytes) / PAGE * PAGE - lo) / PAGE;
        let mut resident = vec![0u8; pages];
        // SAFETY: a range of whole pages inside the live block; mincore only reports.
        let r =
            unsafe { libc::mincore(lo as *mut libc::c_void, pages * PAGE, resident.as_mut_ptr()) };
        assert_eq!(r, 0);
        let kept = resident.iter().filter(|&&b| b & 1 == 1).count();
        assert_eq!(kept, 0, "{kept} of {pages} pages still resident");
    }
}
