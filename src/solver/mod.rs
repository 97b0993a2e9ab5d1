//! SAT and SMT backends behind one [`Solver`] trait: varisat (pure Rust, the fallback),
//! CaDiCaL (feature `cadical`, on by default: the bundled C++ sources, interruptible,
//! with an external propagator that keeps [`OrderGraph`]s acyclic during search), z3
//! (feature `z3`, SMT with the order atoms as integer [`Positions`]). A backend sees
//! clauses over numbered variables and, optionally, what its order atoms mean; the
//! encodings on top (`check::sat`, `consistency::any`) give the variables their sense.
//! A new backend is one file here, one [`SolverKind`] and one line in the conformance
//! suite (`tests/solver.rs`).

#[cfg(feature = "cadical")]
mod cadical;
mod order;
mod varisat;
#[cfg(feature = "z3")]
mod z3;

pub use order::{Node, OrderGraph};

use crate::stop::Stop;

/// A literal in DIMACS convention (`v` or `-v`, `v ≥ 1`; 0: constant true), as the
/// deciders name the orders they choose.
pub type Lit = i32;

/// The answer of one solver call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Answer {
    Sat,
    Unsat,
    Unknown,
}

/// An incremental solver: clauses can be added between calls (lazy cuts).
pub trait Solver {
    /// Adds a clause over the formula's variables.
    fn add_clause(&mut self, clause: &[Lit]);
    /// Solves; `Unknown` when the solver gave up (its time limit, or the run's [`Stop`]).
    fn solve(&mut self) -> Answer;
    /// The value of a variable in the last model.
    fn value(&self, var: Lit) -> bool;
    fn name(&self) -> &'static str;
    /// Makes the variables `1..=vars` known, so a model gives each a value of the
    /// solver's choice (varisat learns a variable only from a clause; the others know
    /// them all from the start).
    fn declare(&mut self, vars: usize) {
        let _ = vars;
    }
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

/// Which solver answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SolverKind {
    /// varisat, pure Rust CDCL (the default without `cadical`); stopped mid-call through
    /// its proof output.
    Varisat,
    /// z3 SMT, integer positions in difference logic (cargo feature `z3`).
    Z3,
    /// CaDiCaL, C++ CDCL built from the sources `cadical-sys` ships (cargo feature
    /// `cadical`, on by default); interruptible mid-call.
    Cadical,
}

impl SolverKind {
    /// CaDiCaL when built in (faster on the hard regime, and interruptible;
    /// docs/performance.md, "The hard regime"), else varisat.
    pub const DEFAULT: SolverKind = if cfg!(feature = "cadical") {
        SolverKind::Cadical
    } else {
        SolverKind::Varisat
    };

    /// Whether the backend keeps a [`Problem`]'s order graphs acyclic during search.
    pub fn propagates_order(self) -> bool {
        self == SolverKind::Cadical
    }

    /// Whether the backend reads a [`Problem`]'s order atoms as integer positions.
    pub fn uses_positions(self) -> bool {
        self == SolverKind::Z3
    }
}

/// Why no solver could be made.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SolverError {
    #[error("tsoser was built without the z3 backend (cargo feature `z3`)")]
    NoZ3,
    #[error("tsoser was built without the CaDiCaL backend (cargo feature `cadical`)")]
    NoCadical,
}

/// What a solver starts from: clauses over the variables `1..=vars`, and what the
/// order atoms among them mean, for the backends that use it.
#[derive(Default)]
pub struct Problem<'a> {
    pub vars: usize,
    pub clauses: &'a [Vec<Lit>],
    /// Clauses that keep the order atoms an order (transitivity); a backend with
    /// [`Problem::positions`] leaves them out, its positions order the atoms already.
    pub order_clauses: &'a [Vec<Lit>],
    /// Graphs whose atoms CaDiCaL keeps acyclic during search (each on its own: an
    /// assignment is refuted when it closes a cycle in any of them). The other
    /// backends ignore them: their caller checks each model and cuts the cycles.
    pub graphs: Vec<OrderGraph>,
    /// The order atoms as comparisons of integer positions (z3; ignored by the others).
    pub positions: Option<Positions>,
}

/// Order atoms as comparisons of integer positions (difference logic): fixed
/// positions, and free points each strictly inside its window and after the point it
/// follows.
#[derive(Clone, Debug, Default)]
pub struct Positions {
    /// The atoms in the order the solver is told them: variable `lit` means `x < y`.
    pub atoms: Vec<(Lit, Term, Term)>,
    /// The free points, constrained in this order.
    pub points: Vec<Point>,
}

/// One side of an atom's comparison.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Term {
    /// A fixed position.
    At(i64),
    /// The free point of this index in [`Positions::points`].
    Point(usize),
}

/// A free integer position.
#[derive(Clone, Debug)]
pub struct Point {
    /// Its name in the solver.
    pub name: String,
    /// Strictly after `after` and strictly before `before`.
    pub after: i64,
    pub before: i64,
    /// The point (index) it is strictly after, if any.
    pub follows: Option<usize>,
}

/// A solver of `kind` on `problem`, that gives up when `stop` says so (polled inside
/// each call: CaDiCaL's terminator, varisat's proof output, z3's watcher).
pub fn new(
    kind: SolverKind,
    problem: Problem<'_>,
    stop: &Stop,
) -> Result<Box<dyn Solver>, SolverError> {
    match kind {
        SolverKind::Varisat => Ok(Box::new(varisat::Varisat::new(&problem, stop))),
        #[cfg(feature = "z3")]
        SolverKind::Z3 => Ok(Box::new(z3::Z3::new(&problem, stop))),
        #[cfg(not(feature = "z3"))]
        SolverKind::Z3 => Err(SolverError::NoZ3),
        #[cfg(feature = "cadical")]
        SolverKind::Cadical => Ok(Box::new(cadical::Cadical::new(problem, stop))),
        #[cfg(not(feature = "cadical"))]
        SolverKind::Cadical => Err(SolverError::NoCadical),
    }
}
