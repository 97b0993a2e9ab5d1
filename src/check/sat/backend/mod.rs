//! Solver backends behind one small trait: varisat (pure Rust, the fallback), CaDiCaL
//! (feature `cadical`, on by default: the bundled C++ sources, interruptible), z3
//! (feature `z3`, SMT with integer positions for the order atoms). A new backend is one
//! file here, one [`super::SolverKind`] and one line in the conformance suite.

#[cfg(feature = "cadical")]
mod cadical;
mod varisat;
#[cfg(feature = "z3")]
mod z3;

#[cfg(feature = "cadical")]
pub use self::cadical::Cadical;
pub use self::varisat::Varisat;
#[cfg(feature = "z3")]
pub use self::z3::Z3;

use super::encode::Lit;

/// The answer of one solver call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Answer {
    Sat,
    Unsat,
    Unknown,
}

/// An incremental solver: clauses can be added between calls (lazy cuts).
pub trait Backend {
    /// Adds a clause over the formula's variables.
    fn add_clause(&mut self, clause: &[Lit]);
    /// Solves; `Unknown` when the solver gave up (its time limit, or the run's
    /// [`crate::stop::Stop`]).
    fn solve(&mut self) -> Answer;
    /// The value of a variable in the last model.
    fn value(&self, var: Lit) -> bool;
    fn name(&self) -> &'static str;
    /// A hint: try `lit` first when deciding its variable (ignored by backends
    /// without phases).
    fn phase(&mut self, lit: Lit) {
        let _ = lit;
    }
    /// Cycles of order atoms refuted during search (an external propagator's clauses).
    fn propagated_cuts(&self) -> u64 {
        0
    }
    /// Conflicts of all calls so far, if the solver tells (varisat does not).
    fn conflicts(&self) -> Option<u64> {
        None
    }
}
