//! Memory bounds: searches count the bytes they hold and end as *unknown* past a
//! budget, before the allocator aborts the process.

/// The default budget of the heap the process holds in all, what it holds now
/// ([`held`]) and [`default_room`]: what a run already holds (a trace read, 3 GiB at
/// 10⁸ events) is not available memory, but it is not room taken from the run either
/// (bug: the_default_budget_counts_what_the_run_holds: the check, which asks for the
/// budget after reading the trace, compared its whole heap with the room left beside
/// the trace, and a 10⁸-event check answered *unknown* under a 16 GiB limit).
pub fn default_budget() -> usize {
    budget_of(held(), default_room())
}

/// A budget: what the process holds and the room it has left.
fn budget_of(held: usize, room: usize) -> usize {
    held.saturating_add(room)
}

/// The default room of what a search is about to allocate: `TSOSER_MAX_MEMORY_MIB`
/// when set, else the least of three quarters of the memory available when asked
/// (`MemAvailable` of `/proc/meminfo`, 4 GiB where that is unknown), three quarters of
/// the room left under the process's cgroup memory limit (less the cgroup's usage),
/// and half the address space left under `ulimit -v` (`RLIMIT_AS`, less what is
/// already mapped).
/// The quarter left of physical memory is for what the count does not see (the
/// allocator's slack, CaDiCaL's and z3's heaps, the system); half of the address
/// space, because a buffer that grows reserves its new room before it gives back the
/// old (bug: the_memory_budget_heeds_ulimit_v: under `ulimit -v` the monitors aborted
/// in an allocation instead of answering *unknown*). A large block grows in place
/// (`mremap`) and only its touched pages are resident, so physical memory needs no
/// such half: with it, a 10⁸-event check (9 GiB) answered *unknown* by default on a
/// machine of 16 GB. Estimates made before allocating are held to it.
pub fn default_room() -> usize {
    if let Some(mib) = std::env::var("TSOSER_MAX_MEMORY_MIB")
        .ok()
        .and_then(|s| s.trim().parse::<usize>().ok())
    {
        return mib.saturating_mul(1 << 20);
    }
    let available = meminfo_kib("/proc/meminfo", "MemAvailable:")
        .map_or(4 << 30, |k| three_quarters(k.saturating_mul(1024)));
    [Some(available), address_space_room(), cgroup_room()]
        .into_iter()
        .flatten()
        .min()
        .unwrap_or(available)
}

fn three_quarters(bytes: usize) -> usize {
    bytes / 4 * 3
}

/// How messages name the default budget ([`default_budget`]).
pub const DEFAULT_BUDGET: &str =
    "by default three quarters of the available memory, within ulimit -v and the cgroup limit";

/// Why a search answers *unknown* before it allocates: what it would hold passes the
/// memory budget (bytes, estimated).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum OverBudget {
    /// The conflict graph's cross-thread edges (`graph::forced::within_memory`).
    #[error("its conflict graph would need about {} ({threads} threads), more than the memory budget of {} ({DEFAULT_BUDGET})", gib(*bytes), gib(*budget as u128))]
    ConflictGraph {
        bytes: u128,
        threads: usize,
        budget: usize,
    },
    /// The monitors' state (`monitor::check_memory`).
    #[error("the monitors would need {} for {threads} threads and {vars} variables, more than the memory budget of {} ({DEFAULT_BUDGET})", gib(*bytes), gib(*budget as u128))]
    Monitors {
        bytes: u128,
        threads: usize,
        vars: usize,
        budget: usize,
    },
    /// The heap held more than `--max-memory` ([`crate::Stop::over_memory`]).
    #[error("the heap passed the memory budget of {} MiB (--max-memory)", budget >> 20)]
    Held { budget: usize },
    /// The heap held more than the default budget ([`default_budget`]).
    #[error("the heap passed the memory budget of {} MiB ({DEFAULT_BUDGET}; --max-memory sets another)", budget >> 20)]
    HeldDefault { budget: usize },
    /// The SAT encoding's varying pairs: more than `max` of them.
    #[error("more than {max} pairs of events whose order varies: their encoding would pass the memory budget ({DEFAULT_BUDGET})")]
    VaryingPairs { max: usize },
}

/// In JSON, the sentence the error displays.
impl serde::Serialize for OverBudget {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// Bytes in GiB, to one decimal.
fn gib(bytes: u128) -> String {
    format!("{:.1} GiB", bytes as f64 / (1u64 << 30) as f64)
}

/// A `Key:  N kB` line of a `/proc` file, in KiB.
fn meminfo_kib(path: &str, key: &str) -> Option<usize> {
    std::fs::read_to_string(path).ok()?.lines().find_map(|l| {
        l.strip_prefix(key)?
            .split_whitespace()
            .next()?
            .parse::<usize>()
            .ok()
    })
}

/// Half the address space left under `RLIMIT_AS`, if the process has such a limit.
fn address_space_room() -> Option<usize> {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes the struct it is given and nothing else.
    if unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut lim) } != 0
        || lim.rlim_cur == libc::RLIM_INFINITY
    {
        return None;
    }
    let mapped = meminfo_kib("/proc/self/status", "VmSize:").unwrap_or(0) as u64 * 1024;
    Some(lim.rlim_cur.saturating_sub(mapped) as usize / 2)
}

/// Three quarters of the memory left under the process's cgroup limit (v2
/// `memory.max`, or v1 `memory.limit_in_bytes`: the lesser where a hybrid system has
/// both), if it has one. (Bug: a_v1_memory_cgroup_bounds_the_budget: the v1 limit was
/// read only where no v2 line was present, and a hybrid system shows one.)
fn cgroup_room() -> Option<usize> {
    let read = |p: &str| std::fs::read_to_string(p).ok()?.trim().parse::<u64>().ok();
    let own = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let room = |limit: u64, used: u64| {
        // v1 writes "no limit" as a huge number.
        (limit < 1 << 60).then(|| three_quarters(limit.saturating_sub(used) as usize))
    };
    let v2 = own
        .lines()
        .find_map(|l| l.strip_prefix("0::"))
        .and_then(|path| {
            let dir = format!("/sys/fs/cgroup{}", path.trim_end_matches('/'));
            room(
                read(&format!("{dir}/memory.max"))?,
                read(&format!("{dir}/memory.current")).unwrap_or(0),
            )
        });
    // The process's own directory, else the hierarchy's root (a container that
    // mounts its own cgroup there while its `/proc/self/cgroup` names the host's path).
    let root = "/sys/fs/cgroup/memory".to_string();
    let v1 = v1_memory_dir(&own)
        .into_iter()
        .chain([root])
        .find_map(|dir| {
            Some((
                read(&format!("{dir}/memory.limit_in_bytes"))?,
                read(&format!("{dir}/memory.usage_in_bytes")).unwrap_or(0),
            ))
        })
        .and_then(|(limit, used)| room(limit, used));
    v2.into_iter().chain(v1).min()
}

/// The directory of the process's v1 memory cgroup, from its `/proc/self/cgroup` text
/// (a line `N:…memory…:/path`; the hierarchy mounted at `/sys/fs/cgroup/memory`).
fn v1_memory_dir(own: &str) -> Option<String> {
    own.lines().find_map(|l| {
        let mut parts = l.splitn(3, ':');
        let (_, controllers, path) = (parts.next()?, parts.next()?, parts.next()?);
        controllers
            .split(',')
            .any(|c| c == "memory")
            .then(|| format!("/sys/fs/cgroup/memory{}", path.trim_end_matches('/')))
    })
}

/// Heap bytes of a vector's buffer.
pub fn vec_bytes<T>(v: &Vec<T>) -> usize {
    v.capacity() * std::mem::size_of::<T>()
}

/// Resets the process's peak resident set (`VmHWM`) to its current size, through
/// `/proc/self/clear_refs` (Linux ≥ 4.0); false where that is refused.
pub fn reset_peak_rss() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}

/// The process's peak resident set in bytes (`VmHWM` of `/proc/self/status`): what the
/// Rust heap, CaDiCaL's and z3's C++ heaps and the stacks held at most.
pub fn peak_rss() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let kib = s
        .lines()
        .find(|l| l.starts_with("VmHWM:"))?
        .split_whitespace()
        .nth(1)?
        .parse::<u64>()
        .ok()?;
    Some(kib * 1024)
}

/// Bytes the Rust heap holds now, counted by [`Counting`].
static HELD: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// The system allocator, counting the bytes it holds, so that a run can keep to a
/// budget (`--max-memory`; [`crate::Stop::over_memory`]). The binary installs it as
/// its global allocator; where it is not installed, [`held`] is 0 and only the
/// estimates made before building a graph bound the memory. C++ heaps (CaDiCaL, z3)
/// are not counted.
pub struct Counting;

// SAFETY: every call is passed to `System` unchanged; the counter is only arithmetic.
unsafe impl std::alloc::GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        let p = std::alloc::System.alloc(layout);
        if !p.is_null() {
            HELD.fetch_add(layout.size(), std::sync::atomic::Ordering::Relaxed);
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: std::alloc::Layout) -> *mut u8 {
        let p = std::alloc::System.alloc_zeroed(layout);
        if !p.is_null() {
            HELD.fetch_add(layout.size(), std::sync::atomic::Ordering::Relaxed);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: std::alloc::Layout) {
        std::alloc::System.dealloc(ptr, layout);
        HELD.fetch_sub(layout.size(), std::sync::atomic::Ordering::Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: std::alloc::Layout, new: usize) -> *mut u8 {
        let p = std::alloc::System.realloc(ptr, layout, new);
        if !p.is_null() {
            HELD.fetch_add(new, std::sync::atomic::Ordering::Relaxed);
            HELD.fetch_sub(layout.size(), std::sync::atomic::Ordering::Relaxed);
        }
        p
    }
}

/// Bytes the Rust heap holds now (0 unless [`Counting`] is the global allocator).
pub fn held() -> usize {
    HELD.load(std::sync::atomic::Ordering::Relaxed)
}

/// Asks the system to back the whole 2 MiB pages of `v`'s room with transparent huge
/// pages (`madvise(MADV_HUGEPAGE)`), before they are first touched: for the tables a
/// pass reads at random, 10⁸ entries and more, whose every access would otherwise miss
/// the TLB's 4 KiB entries (the pruning at 10⁸: 34.5 → 21–26 s with every large block
/// huge, docs/performance.md). Not for blocks that grow or are given back in part: a
/// huge page is resident whole once touched.
pub fn advise_huge<T>(v: &Vec<T>) {
    #[cfg(target_os = "linux")]
    {
        const TWO: usize = 2 << 20;
        let p = v.as_ptr() as usize;
        let (lo, hi) = (p.next_multiple_of(TWO), (p + vec_bytes(v)) / TWO * TWO);
        if hi > lo {
            // SAFETY: advice only, on whole pages inside the vector's own block.
            unsafe { libc::madvise(lo as *mut libc::c_void, hi - lo, libc::MADV_HUGEPAGE) };
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = v;
}

/// The items of `iter` (of known length) in a vector whose pages are huge
/// ([`advise_huge`]).
pub fn collect_huge<T>(iter: impl ExactSizeIterator<Item = T>) -> Vec<T> {
    let mut v = Vec::with_capacity(iter.len());
    advise_huge(&v);
    v.extend(iter);
    v
}

/// `n` copies of `x` in a vector whose pages are huge ([`advise_huge`]).
pub fn filled_huge<T: Clone>(n: usize, x: T) -> Vec<T> {
    collect_huge(std::iter::repeat_n(x, n))
}

/// Asks the processor to bring `items[i]` into its caches, if `i` is in bounds (no
/// effect on what a program computes): a loop that reads a large table at random
/// names the entry it will read some iterations ahead, so that the misses overlap
/// instead of each stalling in turn.
#[inline(always)]
pub fn prefetch<T>(items: &[T], i: usize) {
    if i < items.len() {
        prefetch_address(items.as_ptr().wrapping_add(i));
    }
}

/// [`prefetch`] of an address, which need not be valid: a prefetch never faults, and
/// nothing is read through the pointer. (A table being written in the same loop can
/// be named only this way.)
#[inline(always)]
pub fn prefetch_address<T>(at: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `prefetcht0` only hints the caches; it reads nothing into the program
    // and does not fault, whatever the address.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>(at.cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = at;
}

/// The page size [`forget_pages`] rounds to.
pub const PAGE: usize = 4096;

/// Gives back to the system the whole pages inside `bytes` bytes from `start`, which
/// the caller has read for the last time: the block stays allocated (its later drop
/// frees it as usual), but those pages are no longer resident. Moving a large vector
/// into another one stream by stream with it holds each item once, not twice
/// ([`crate::analysis::Grouped::new`]). Elsewhere than on Linux it does nothing.
///
/// # Safety
/// The range must lie inside one live allocation whose contents there are never read
/// again (on Linux they read as zeros afterwards).
pub unsafe fn forget_pages(start: *const u8, bytes: usize) {
    #[cfg(target_os = "linux")]
    {
        let lo = (start as usize).div_ceil(PAGE) * PAGE;
        let hi = (start as usize + bytes) / PAGE * PAGE;
        if hi > lo {
            // SAFETY: whole pages inside the caller's range (rounded inwards, so no
            // allocator header beside it is touched); the advice only drops them.
            unsafe {
                libc::madvise(lo as *mut libc::c_void, hi - lo, libc::MADV_DONTNEED);
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (start, bytes);
}

/// Has glibc's malloc give large blocks back to the system when they are freed.
/// By default, after such a block is freed, glibc raises its threshold for mapping
/// blocks of their own (up to 32 MiB) and keeps later blocks below it in a heap that
/// rarely shrinks: a whole-trace check held a quarter more than it used (m6.yaml,
/// docs/performance.md: 225 MiB resident, 169 MiB with a fixed 1 MiB threshold).
/// Elsewhere it does nothing. The binary calls it first.
pub fn return_large_blocks() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets a parameter of the allocator, before any thread runs.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 1 << 20);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bug the_default_budget_counts_what_the_run_holds: what the run holds is added
    /// to the room left, never taken from it.
    #[test]
    fn the_default_budget_counts_what_the_run_holds() {
        assert_eq!(budget_of(3 << 30, 9 << 30), 12 << 30);
        assert_eq!(budget_of(usize::MAX, 1), usize::MAX);
        // Without the counting allocator (this test binary) nothing is held.
        assert_eq!(held(), 0);
        assert_eq!(default_budget(), default_room());
    }

    /// Bug a_v1_memory_cgroup_bounds_the_budget: a hybrid system lists the v1 memory
    /// controller beside the v2 line, and the v1 directory is found.
    #[test]
    fn a_v1_memory_cgroup_bounds_the_budget() {
        let own = "9:name=systemd:/\n4:memory:/jobs/a/\n1:cpu,cpuacct:/\n0::/\n";
        assert_eq!(
            v1_memory_dir(own).as_deref(),
            Some("/sys/fs/cgroup/memory/jobs/a")
        );
        assert_eq!(
            v1_memory_dir("3:cpu,memory:/\n").as_deref(),
            Some("/sys/fs/cgroup/memory")
        );
        assert_eq!(v1_memory_dir("0::/\n1:cpu:/x\n"), None);
    }

    /// Where no limit of the process is lower, the default budget is three quarters of
    /// the available memory (within what other tests allocate meanwhile), not half.
    #[test]
    fn the_default_budget_is_three_quarters_of_the_available_memory() {
        let Some(avail) = meminfo_kib("/proc/meminfo", "MemAvailable:").map(|k| k * 1024) else {
            return;
        };
        let lower = [address_space_room(), cgroup_room()]
            .into_iter()
            .flatten()
            .any(|room| room < avail);
        if std::env::var_os("TSOSER_MAX_MEMORY_MIB").is_some() || lower {
            return;
        }
        let b = default_room();
        assert!(
            b > avail / 8 * 5 && b <= avail / 8 * 7,
            "{b} of {avail} available"
        );
    }
}
