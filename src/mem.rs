//! Memory bounds: searches count the bytes they hold and end as *unknown* past a
//! budget, before the allocator aborts the process.

/// The default memory budget of a search: `TSOSER_MAX_MEMORY_MIB` when set, else half
/// of the memory available when asked (`MemAvailable` of `/proc/meminfo`), or 4 GiB
/// where that is unknown.
pub fn default_budget() -> usize {
    if let Some(mib) = std::env::var("TSOSER_MAX_MEMORY_MIB")
        .ok()
        .and_then(|s| s.trim().parse::<usize>().ok())
    {
        return mib.saturating_mul(1 << 20);
    }
    let kib = std::fs::read_to_string("/proc/meminfo").ok().and_then(|s| {
        s.lines()
            .find(|l| l.starts_with("MemAvailable:"))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|n| n.parse::<usize>().ok())
    });
    kib.map_or(4 << 30, |k| k.saturating_mul(1024) / 2)
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
