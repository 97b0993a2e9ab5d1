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
