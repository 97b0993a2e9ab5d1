//! Rows of vector clocks, entry by entry: joins, copies, comparisons. A row of 8 or 16
//! entries (8 threads; SOBER's two entries a thread) is handled whole, without a loop
//! or a call, so it compiles to a few vector instructions.

/// `a` and `b` as arrays of `N` entries, if both have `N`.
#[inline(always)]
fn fixed<'a, const N: usize>(a: &'a [u32], b: &'a [u32]) -> Option<(&'a [u32; N], &'a [u32; N])> {
    Some((a.try_into().ok()?, b.try_into().ok()?))
}

/// [`fixed`] with `a` mutable.
#[inline(always)]
fn fixed_mut<'a, const N: usize>(
    a: &'a mut [u32],
    b: &'a [u32],
) -> Option<(&'a mut [u32; N], &'a [u32; N])> {
    Some((a.try_into().ok()?, b.try_into().ok()?))
}

/// `a[i] := f(a[i], b[i])` for every entry of rows of the same width.
#[inline(always)]
pub(super) fn update(a: &mut [u32], b: &[u32], f: impl Fn(u32, u32) -> u32) {
    // The new row built whole, then stored whole: entry-by-entry stores let the
    // compiler merge the code for 8 and 16 entries into one scalar tail.
    #[inline(always)]
    fn whole<const N: usize>(a: &mut [u32; N], b: &[u32; N], f: impl Fn(u32, u32) -> u32) {
        *a = std::array::from_fn(|i| f(a[i], b[i]));
    }
    if let Some((a, b)) = fixed_mut::<8>(a, b) {
        return whole(a, b, f);
    }
    if let Some((a, b)) = fixed_mut::<16>(a, b) {
        return whole(a, b, f);
    }
    debug_assert_eq!(a.len(), b.len());
    for (a, &b) in a.iter_mut().zip(b) {
        *a = f(*a, b);
    }
}

/// `a := a ⊔ b` for rows of a width known when compiled: built whole, stored whole.
#[inline(always)]
pub(super) fn join_array<const N: usize>(a: &mut [u32; N], b: &[u32; N]) {
    *a = std::array::from_fn(|i| a[i].max(b[i]));
}

/// `a := a ⊔ b` (rows of the same width).
#[inline(always)]
pub(super) fn join(a: &mut [u32], b: &[u32]) {
    update(a, b, u32::max);
}

/// `a := b` (rows of the same width), without a `memcpy` call for a row of 8 or 16.
#[inline(always)]
pub(super) fn copy(a: &mut [u32], b: &[u32]) {
    update(a, b, |_, y| y);
}

/// Whether `f(a[i], b[i])` holds for every entry of rows `a` and `b` (of the same
/// width), 8 entries at a time, their results combined without a branch.
#[inline(always)]
fn every(a: &[u32], b: &[u32], f: impl Fn(u32, u32) -> bool) -> bool {
    #[inline(always)]
    fn whole(a: &[u32; 8], b: &[u32; 8], f: impl Fn(u32, u32) -> bool) -> bool {
        let mut all = true;
        for i in 0..8 {
            all &= f(a[i], b[i]);
        }
        all
    }
    if let Some((a, b)) = fixed::<8>(a, b) {
        return whole(a, b, f);
    }
    debug_assert_eq!(a.len(), b.len());
    let (ca, cb) = (a.chunks_exact(8), b.chunks_exact(8));
    let rest = ca.remainder().iter().zip(cb.remainder());
    ca.zip(cb)
        .all(|(a, b)| whole(a.try_into().unwrap(), b.try_into().unwrap(), &f))
        && rest.fold(true, |all, (&x, &y)| all & f(x, y))
}

/// Whether `a ≤ b` entry by entry.
#[inline]
pub(super) fn below(a: &[u32], b: &[u32]) -> bool {
    every(a, b, |x, y| x <= y)
}

/// Whether rows `a` and `b` are equal.
#[inline]
pub(super) fn same(a: &[u32], b: &[u32]) -> bool {
    every(a, b, |x, y| x == y)
}

/// A bit per entry y < 64 of `vals` with `vals[y] ≥ open[y]`, for rows of any width
/// (entries past 64 are not looked at); a row of 8 in one vector compare and a mask.
#[inline(always)]
pub(super) fn at_least(open: &[u32], vals: &[u32]) -> u64 {
    if let Some((o, v)) = fixed::<8>(open, vals) {
        let mut m = 0u8;
        for i in 0..8 {
            m |= u8::from(v[i] >= o[i]) << i;
        }
        return u64::from(m);
    }
    open.iter()
        .zip(vals)
        .take(64)
        .enumerate()
        .fold(0, |has, (y, (&o, &v))| has | u64::from(v >= o) << y)
}

/// The positions of the set bits of `word`, lowest first.
#[inline(always)]
pub(super) fn ones(mut word: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (word != 0).then(|| {
            let y = word.trailing_zeros() as usize;
            word &= word - 1;
            y
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each operation on rows of 8 and 16 (whole) and of other widths (the loop)
    /// against its definition entry by entry.
    #[test]
    fn rows_of_every_width_follow_the_definitions() {
        for w in [1usize, 3, 8, 9, 16, 24, 70] {
            for seed in 0..50u32 {
                let a: Vec<u32> = (0..w as u32).map(|i| (i * 7 + seed * 13) % 5).collect();
                let b: Vec<u32> = (0..w as u32).map(|i| (i * 3 + seed * 11) % 5).collect();
                let mut j = a.clone();
                join(&mut j, &b);
                assert_eq!(
                    j,
                    a.iter().zip(&b).map(|(x, y)| *x.max(y)).collect::<Vec<_>>()
                );
                let mut c = a.clone();
                copy(&mut c, &b);
                assert_eq!(c, b);
                assert_eq!(below(&a, &b), a.iter().zip(&b).all(|(x, y)| x <= y));
                assert!(below(&a, &j));
                assert_eq!(same(&a, &b), a == b);
                let mask = (0..w.min(64))
                    .filter(|&y| b[y] >= a[y])
                    .fold(0u64, |m, y| m | 1 << y);
                assert_eq!(at_least(&a, &b), mask);
                assert_eq!(
                    ones(mask).collect::<Vec<_>>(),
                    (0..64).filter(|y| mask >> y & 1 == 1).collect::<Vec<_>>()
                );
            }
        }
    }
}
