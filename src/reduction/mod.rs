//! Hard instances by construction: a polynomial reduction from CNF satisfiability to
//! *non*-serializability of a trace under the exact semantics (docs/semantics.md §4),
//! re-deriving the hardness of Enea & Farzan's Thm. 6 for that semantics
//! (non-serializability is NP-complete, serializability coNP-complete). The
//! construction, its size and the proof of both directions are in `docs/hardness.md`.

pub(crate) mod sat;

pub use crate::cnf::{Cnf, Lit};
pub use sat::{decode, one_transaction, sat_to_trace, Reduction};
