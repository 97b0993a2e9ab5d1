//! The memory models and the happens-before edge kinds every part of tsoser shares
//! (docs/semantics.md §6–§7).

use std::fmt;

/// A memory model: SC, x86-TSO (one FIFO store buffer per thread), PSO (one per thread
/// and address).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MemoryModel {
    Sc,
    Tso,
    Pso,
}

impl MemoryModel {
    /// `sc`, `tso`, `pso`.
    pub fn name(self) -> &'static str {
        match self {
            MemoryModel::Sc => "sc",
            MemoryModel::Tso => "tso",
            MemoryModel::Pso => "pso",
        }
    }
}

/// The kind of a happens-before edge (`→hb` = po ∪ rf ∪ co ∪ fr).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HbKind {
    /// Program order: same thread, earlier.
    Po,
    /// Reads-from: a write and a read of its value.
    Rf,
    /// Coherence: a write and a later write of the same variable.
    Co,
    /// From-read: a read and a later write of its variable.
    Fr,
}

impl HbKind {
    /// `po`, `rf`, `co`, `fr`.
    pub fn name(self) -> &'static str {
        match self {
            HbKind::Po => "po",
            HbKind::Rf => "rf",
            HbKind::Co => "co",
            HbKind::Fr => "fr",
        }
    }
}

impl fmt::Display for HbKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
