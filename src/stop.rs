//! When a search must stop — a deadline and flags other threads may set; cheap to
//! clone and `'static`, so a solver's own callback (CaDiCaL's terminator) can poll it —
//! and why it stopped without an answer ([`Unknown`]).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A deadline, cancellation flags and a memory budget, polled cooperatively: the run
/// stops when the deadline passes, any flag is set, or the heap holds more than
/// `max_memory` bytes ([`crate::mem::held`]).
#[derive(Clone, Debug, Default)]
pub struct Stop {
    pub deadline: Option<Instant>,
    pub cancel: Vec<Arc<AtomicBool>>,
    pub max_memory: Option<usize>,
    /// Set once the heap was seen past `max_memory` (shared by clones): the run
    /// stays stopped, and says why, after it frees what it held.
    pub over: Arc<AtomicBool>,
}

impl Stop {
    /// Stops at `deadline` (never when `None`).
    pub fn at(deadline: Option<Instant>) -> Stop {
        Stop {
            deadline,
            cancel: Vec::new(),
            max_memory: None,
            over: Arc::default(),
        }
    }

    /// Stops at `deadline`, or once [`Stop::cancel`] is called on it or on any clone.
    pub fn cancellable(deadline: Option<Instant>) -> Stop {
        Stop {
            deadline,
            cancel: vec![Arc::new(AtomicBool::new(false))],
            max_memory: None,
            over: Arc::default(),
        }
    }

    /// Sets every flag: the run polling this stop, or any clone of it, stops.
    pub fn cancel(&self) {
        for c in &self.cancel {
            c.store(true, Ordering::Relaxed);
        }
    }

    /// Stops `timeout` from now (never when `None`).
    pub fn after(timeout: Option<Duration>) -> Stop {
        Stop::at(timeout.and_then(|t| Instant::now().checked_add(t)))
    }

    /// This stop, and also when `flag` is set (a portfolio's "the other one answered").
    pub fn or_flag(&self, flag: &Arc<AtomicBool>) -> Stop {
        let mut s = self.clone();
        s.cancel.push(flag.clone());
        s
    }

    /// Whether a flag was set.
    pub fn cancelled(&self) -> bool {
        self.cancel.iter().any(|c| c.load(Ordering::Relaxed))
    }

    /// This stop, and also once the heap holds more than `bytes` (`None`: no bound).
    pub fn with_memory(self, bytes: Option<usize>) -> Stop {
        Stop {
            max_memory: bytes,
            ..self
        }
    }

    /// Whether the heap holds, or held, more than the memory budget.
    pub fn over_memory(&self) -> bool {
        if self.over.load(Ordering::Relaxed) {
            return true;
        }
        let over = self.max_memory.is_some_and(|m| crate::mem::held() > m);
        if over {
            self.over.store(true, Ordering::Relaxed);
        }
        over
    }

    /// Whether the deadline passed, a flag was set, or the memory budget is passed.
    pub fn expired(&self) -> bool {
        self.cancelled() || self.over_memory() || self.deadline.is_some_and(|d| Instant::now() >= d)
    }

    /// Why the run stopped, once [`Stop::expired`]: the budget that ran out.
    pub fn why(&self) -> Unknown {
        if self.cancelled() {
            Unknown::Cancelled
        } else if let Some(budget) = self.max_memory.filter(|_| self.over_memory()) {
            Unknown::Memory {
                why: crate::mem::OverBudget::Held { budget },
            }
        } else {
            Unknown::Deadline
        }
    }

    /// Whether it can ever stop (a deadline, a flag or a memory budget).
    pub fn can_stop(&self) -> bool {
        self.deadline.is_some() || !self.cancel.is_empty() || self.max_memory.is_some()
    }

    /// Time left before the deadline (`None`: no deadline).
    pub fn left(&self) -> Option<Duration> {
        self.deadline
            .map(|d| d.saturating_duration_since(Instant::now()))
    }
}

/// Why a search answered *unknown*: the part of its budget that ran out. The command
/// line words each (`tsoser::output::witness::unknown_text`).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
#[non_exhaustive]
pub enum Unknown {
    /// The budget's deadline passed.
    Deadline,
    /// The budget's cancel flag was set.
    Cancelled,
    /// Brute force visited `max` execution prefixes without an answer.
    MaxExecutions { max: u64 },
    /// The paper's graph has `undirected` edges: their 2^`undirected` orientations
    /// exceed `max`.
    Orientations { undirected: usize, max: u64 },
    /// fpt's jump budget ran out.
    MaxJumps,
    /// The SAT solver stopped without an answer (its deadline or cancellation).
    SolverGaveUp,
    /// A graph or an encoding would pass the memory budget (in JSON, `why` in words).
    Memory { why: crate::mem::OverBudget },
    /// `consistent --write-order any`: more pairs of writes to order than `max`.
    WritePairs { pairs: usize, max: usize },
}
