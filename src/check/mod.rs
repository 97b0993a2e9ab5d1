//! Deciders of trace TSO-serializability (docs/semantics.md §4) and the polynomial
//! execution-level checks. Every violation carries a witness that [`verify`] re-checks
//! from scratch.

pub mod auto;
pub mod brute;
pub mod decide;
pub mod execution;
pub mod fpt;
pub(crate) mod front;
pub mod relax;
pub mod sat;
pub mod sc;
mod verify;

pub use verify::{verify, verify_execution_cycle, Rejected};

use crate::graph::Edge;
use crate::trace::exec::Execution;

/// Which question is decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Semantics {
    /// docs/semantics.md §4: every TSO execution is conflict-serializable (commit placement).
    Exact,
    /// The paper's Thm. 5 on its Def. 4 graph (over-approximates, docs/semantics.md §5).
    Paper,
}

/// A violation witness.
#[derive(Clone, Debug)]
pub enum Witness {
    /// An execution (where each write commits) and a cycle of its conflict graph.
    Execution {
        execution: Execution,
        cycle: Vec<Edge>,
    },
    /// Paper mode: an acyclic orientation of EG_τ's undirected edges (each pair as
    /// oriented, `a → b`) and a cycle of the induced conflict graph.
    Orientation {
        oriented: Vec<(usize, usize)>,
        cycle: Vec<Edge>,
    },
    /// SC-serializability: a cycle of the ⊙SC conflict graph of the trace read as an SC run.
    Sc { cycle: Vec<Edge> },
}

impl Witness {
    pub fn cycle(&self) -> &[Edge] {
        match self {
            Witness::Execution { cycle, .. }
            | Witness::Orientation { cycle, .. }
            | Witness::Sc { cycle } => cycle,
        }
    }
}

/// The answer of a decider.
#[derive(Clone, Debug)]
pub enum Verdict {
    Serializable,
    Violation(Box<Witness>),
    /// No answer within the budget: which part of it ran out.
    Unknown(Unknown),
}

pub use crate::stop::Unknown;

impl Verdict {
    pub fn is_serializable(&self) -> bool {
        matches!(self, Verdict::Serializable)
    }

    pub fn is_violation(&self) -> bool {
        matches!(self, Verdict::Violation(_))
    }

    pub fn name(&self) -> &'static str {
        match self {
            Verdict::Serializable => "serializable",
            Verdict::Violation(_) => "violation",
            Verdict::Unknown(_) => "unknown",
        }
    }
}
