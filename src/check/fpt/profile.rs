//! Profiles of a chain (Enea & Farzan Fig. 4), for `--stats` and for measuring what
//! the paper's abstraction keeps.
//!
//! Fig. 4 summarises a chain π by its *classes* of entry/exit events — an operation and
//! a variable: `(a)` for each class on π, and `(a, b)` when some b of class y lies in
//! `pair(a)` for some a of class x (`pair(a)`: b in a's transaction or in a later
//! transaction of the chain). With m variables that is at most (2m)² + 2m profiles a
//! chain, so ((2m)²)^{2k} combinations — the c^k of the O(n + c^k) claim.
//!
//! The abstraction is not exact: which *event* of a class enters or leaves decides
//! whether the jump exists (fence separation, buffered reads) and whether the cycle is
//! valid (Fig. 3 must still check the orientation). `tests/fpt.rs` pins a trace where
//! keeping one representative event per class misses the only violation
//! (`fig4_representatives_miss_a_violation`). The search therefore enumerates exact
//! entry/exit events; the class counts are reported next to the exact counts.

use super::search::Instance;
use crate::trace::conflict::{access, Access};
use crate::trace::exec::Node;
use crate::trace::{TxnId, VarId};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// An entry/exit class: the access (`r`, `w`) and the variable (`None` for a fence).
pub type Class = (char, Option<VarId>);

/// The class of an entry/exit node: its access (`r`, `w`) and variable.
pub fn class(trace: &crate::trace::Trace, n: Node) -> Class {
    let (a, v) = access(trace, n);
    let op = match a {
        Access::Read => 'r',
        _ => 'w',
    };
    (op, v)
}

/// What `--stats` reports of one chain.
#[derive(Clone, Debug, Serialize)]
pub struct ChainProfile {
    pub transactions: usize,
    /// Threads of its transactions.
    pub threads: Vec<String>,
    /// Events where a jump enters / leaves the chain.
    pub entries: usize,
    pub exits: usize,
    /// Fig. 4 profiles: single classes plus class pairs (x, y) with some y in pair(x).
    pub fig4_profiles: usize,
    /// Exact profiles: (entry, exit) event pairs with the exit in pair(entry).
    pub exact_profiles: u64,
}

/// The profiles of every chain of an instance.
pub fn profiles(inst: &Instance) -> Vec<ChainProfile> {
    let trace = inst.trace;
    let ch = &inst.chains;
    let w = ch.width();
    // Per chain: entry/exit nodes with their chain position.
    let mut entries: Vec<Vec<(u32, Node)>> = vec![Vec::new(); w];
    let mut exits: Vec<Vec<(u32, Node)>> = vec![Vec::new(); w];
    for j in &inst.jumps {
        let (cf, ct) = (ch.chain_of[j.from as usize], ch.chain_of[j.to as usize]);
        exits[cf as usize].push((ch.pos[j.from as usize], j.src));
        entries[ct as usize].push((ch.pos[j.to as usize], j.dst));
    }
    (0..w)
        .map(|c| {
            let dedup = |v: &mut Vec<(u32, Node)>| {
                v.sort_unstable();
                v.dedup();
            };
            dedup(&mut entries[c]);
            dedup(&mut exits[c]);
            // Class → (first entry position, last exit position).
            let mut first: BTreeMap<Class, u32> = BTreeMap::new();
            let mut last: BTreeMap<Class, u32> = BTreeMap::new();
            for &(p, n) in &entries[c] {
                first.entry(class(trace, n)).or_insert(p);
            }
            for &(p, n) in &exits[c] {
                last.insert(class(trace, n), p);
            }
            let singles: BTreeSet<_> = first.keys().chain(last.keys()).collect();
            let pairs = first
                .values()
                .map(|&f| last.values().filter(|&&l| f <= l).count())
                .sum::<usize>();
            // Exits at or after each entry's position (same transaction included).
            let exact = entries[c]
                .iter()
                .map(|&(p, _)| (exits[c].len() - exits[c].partition_point(|&(q, _)| q < p)) as u64)
                .sum();
            let mut threads: Vec<String> = ch.chains[c]
                .iter()
                .map(|&t| {
                    trace.threads[trace.txns[TxnId::new(inst.txns[t as usize])].thread].clone()
                })
                .collect();
            threads.sort();
            threads.dedup();
            ChainProfile {
                transactions: ch.chains[c].len(),
                threads,
                entries: entries[c].len(),
                exits: exits[c].len(),
                fig4_profiles: singles.len() + pairs,
                exact_profiles: exact,
            }
        })
        .collect()
}
