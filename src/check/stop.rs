//! When a decider must stop: a deadline and a flag another thread may set. Cheap to
//! clone and `'static`, so a solver's own callback (CaDiCaL's terminator) can poll it.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A deadline and a cancellation flag, polled cooperatively.
#[derive(Clone, Debug, Default)]
pub struct Stop {
    pub deadline: Option<Instant>,
    pub cancel: Option<Arc<AtomicBool>>,
}

impl Stop {
    /// Stops at `deadline` (never when `None`).
    pub fn at(deadline: Option<Instant>) -> Stop {
        Stop {
            deadline,
            cancel: None,
        }
    }

    /// Stops `timeout` from now (never when `None`).
    pub fn after(timeout: Option<Duration>) -> Stop {
        Stop::at(timeout.and_then(|t| Instant::now().checked_add(t)))
    }

    /// Whether the deadline passed or the flag was set.
    pub fn expired(&self) -> bool {
        self.cancel
            .as_ref()
            .is_some_and(|c| c.load(Ordering::Relaxed))
            || self.deadline.is_some_and(|d| Instant::now() >= d)
    }

    /// Time left before the deadline (`None`: no deadline).
    pub fn left(&self) -> Option<Duration> {
        self.deadline
            .map(|d| d.saturating_duration_since(Instant::now()))
    }
}
