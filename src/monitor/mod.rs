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

/// What a streaming run saw.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Streamed {
    pub events: usize,
    pub threads: usize,
    pub variables: usize,
    pub transactions: usize,
    /// The first violating event: its index (as in the trace `read_std` builds) and line.
    pub violation: Option<(usize, usize)>,
}

/// SC-serializability of an STD file in two streaming passes — the names, then the
/// monitor — holding O(k·(k + m + k·m)) integers for k threads and m variables, never
/// the trace.
pub fn sc_ser_stream(path: &std::path::Path) -> Result<Streamed, crate::FileError> {
    use crate::trace::std_format::{open_std, Lowering};
    use std::collections::HashMap;
    let named = |error| crate::FileError {
        file: path.display().to_string(),
        error,
    };
    let mut threads: HashMap<String, usize> = HashMap::new();
    let mut vars: HashMap<String, usize> = HashMap::new();
    let mut lowering = Lowering::default();
    for ev in open_std(path)? {
        for l in lowering.lower(&ev.map_err(named)?).map_err(named)? {
            let n = threads.len();
            threads.entry(l.thread).or_insert(n);
            let n = vars.len();
            vars.entry(l.var).or_insert(n);
        }
    }
    let mut m = sc_ser::ScSer::new(threads.len(), vars.len());
    let mut current: Vec<Option<String>> = vec![None; threads.len()];
    let mut out = Streamed {
        threads: threads.len(),
        variables: vars.len(),
        ..Streamed::default()
    };
    let mut lowering = Lowering::default();
    for ev in open_std(path)? {
        let ev = ev.map_err(named)?;
        for l in lowering.lower(&ev).map_err(named)? {
            let (t, x) = (threads[&l.thread], vars[&l.var]);
            if l.txn.is_none() || current[t] != l.txn {
                current[t] = l.txn;
                m.begin(t);
                out.transactions += 1;
            }
            if m.access(t, l.op, x) {
                out.violation = Some((out.events, ev.line));
                out.events += 1;
                return Ok(out);
            }
            out.events += 1;
        }
    }
    Ok(out)
}
