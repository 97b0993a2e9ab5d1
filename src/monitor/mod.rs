//! Monitors on a trace read as an SC execution (SEMANTICS.md §6).
//!
//! - [`sc_ser`]: SC-serializability in one pass with vector clocks.

pub mod sc_ser;

use crate::check::{Verdict, Witness};
use crate::trace::Trace;

/// SC-serializability by the vector-clock monitor; a violation carries the cycle of
/// the ⊙SC conflict graph of the prefix that ends at the event the monitor stopped at.
pub fn check_sc_ser(trace: &Trace) -> (Verdict, Option<usize>) {
    let Some(i) = sc_ser::first_violation(trace) else {
        return (Verdict::Serializable, None);
    };
    let cycle = crate::check::sc::sc_graph_upto(trace, i + 1)
        .find_cycle()
        .expect("the monitor stops only where the prefix has a cycle");
    (Verdict::Violation(Box::new(Witness::Sc { cycle })), Some(i))
}
