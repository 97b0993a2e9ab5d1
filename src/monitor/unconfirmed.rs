//! Why a monitor's report did not re-check from the definitions (a bug of tsoser's).

use crate::trace::EventId;

/// Why a report's evidence does not re-check: the rule it breaks, at a 0-based step of
/// its replayed run or at an event.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Unconfirmed {
    #[error("the prefix has no ⊙SC cycle")]
    NoScCycle,
    /// The ⊙SC witness of an sc-ser report does not re-check.
    #[error(transparent)]
    Witness(#[from] crate::check::Rejected),
    #[error("no hb path from #{from} to #{to}")]
    NoHbPath { from: EventId, to: EventId },
    #[error(transparent)]
    Path(#[from] super::hb::BrokenPath),
    #[error("step {step}: event #{event} out of order")]
    OutOfOrder { step: usize, event: EventId },
    #[error("step {step}: #{event} with its buffer not drained")]
    NotDrained { step: usize, event: EventId },
    #[error("step {step}: commit of #{write} is not a pending store")]
    NotPending { step: usize, write: EventId },
    #[error("step {step}: commit of #{write} overtakes an older store")]
    Overtakes { step: usize, write: EventId },
    #[error("the run does not issue the prefix and commit every store")]
    Unfinished,
    /// A read's source in the replayed run differs from the SC run's.
    #[error("#{read} reads from {found:?}, not {sc:?} as in the SC run")]
    OtherSource {
        read: EventId,
        found: Option<EventId>,
        sc: Option<EventId>,
    },
    #[error("no happens-before cycle of the run goes through #{store}")]
    NoHbCycle { store: EventId },
    #[error("a monitor_TSO/PSO report cannot come from an SC automaton")]
    ScAutomaton,
}
