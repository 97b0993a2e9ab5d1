//! STD written from a trace (the module text of [`super`] for rmw and fences).

use crate::trace::{Op, ThreadId, TiVec, Trace, TxnId};

/// Why a trace cannot be written in STD without changing it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("event #{event}: {message}")]
pub struct StdWriteError {
    pub event: usize,
    pub message: String,
}

/// Whether STD carries `name` unchanged in a field: non-empty, no `|`, `(`, `)`, no
/// control character, no white space at either end (the reader trims fields).
fn carries(name: &str) -> bool {
    !name.is_empty()
        && name.trim() == name
        && !name.contains(['|', '(', ')'])
        && !name.chars().any(char::is_control)
}

/// Writes a trace in STD (see the module text for rmw and fences). The value of an
/// event, if any, becomes its location field (else its index). A named transaction is
/// a `begin(NAME)` … `end` block, an anonymous one of several events a bare `begin` …
/// `end` block (a block's `end` right after its last event), and an anonymous single
/// event stands outside blocks, so transactions survive a round trip. Names STD cannot carry
/// (a `|`, parentheses, control characters, a thread starting with `#`, white space at
/// either end) and a variable `fence:T` used by an rmw of thread T (it would read back
/// as a fence) are refused with the event they occur in (bug:
/// convert_to_std_is_faithful_or_refuses).
pub fn to_std(trace: &Trace) -> Result<String, StdWriteError> {
    let mut s = String::with_capacity(trace.len() * 16);
    let mut size = trace.per_txn(0usize);
    for e in &trace.events {
        size[e.txn] += 1;
    }
    // A block unless the event is a transaction of its own without a name.
    let block: TiVec<TxnId, bool> = trace
        .txns
        .iter_enumerated()
        .map(|(x, txn)| size[x] > 1 || !txn.anonymous)
        .collect();
    let refuse = |event: usize, message: String| StdWriteError { event, message };
    let mut current: TiVec<ThreadId, Option<TxnId>> = trace.per_thread(None);
    for (i, e) in trace.events.iter().enumerate() {
        let t = &trace.threads[e.thread];
        if !carries(t) || t.starts_with('#') {
            return Err(refuse(i, format!("STD cannot carry the thread name {t:?}")));
        }
        if current[e.thread] != Some(e.txn) {
            if block[e.txn] && trace.txns[e.txn].anonymous {
                s.push_str(&format!("{t}|begin|{i}\n"));
            } else if block[e.txn] {
                let name = &trace.txns[e.txn].name;
                if !carries(name) {
                    return Err(refuse(
                        i,
                        format!("STD cannot carry the transaction name {name:?}"),
                    ));
                }
                s.push_str(&format!("{t}|begin({name})|{i}\n"));
            }
            current[e.thread] = Some(e.txn);
        }
        let var = e.var.map(|v| trace.vars[v].as_str()).unwrap_or("");
        if e.var.is_some() && !carries(var) {
            return Err(refuse(
                i,
                format!("STD cannot carry the variable name {var:?}"),
            ));
        }
        let op = match e.op {
            Op::Rd => format!("r({var})"),
            Op::Wr => format!("w({var})"),
            Op::Rmw if var.strip_prefix("fence:") == Some(t.as_str()) => {
                return Err(refuse(
                    i,
                    format!(
                    "an rmw of thread {t} on a variable named {var:?} would read back as a fence"
                ),
                ))
            }
            Op::Rmw => format!("acq({var})"),
            Op::Fence => format!("acq(fence:{t})"),
        };
        let loc = trace
            .val(i)
            .map_or_else(|| i.to_string(), |v| v.to_string());
        let loc_ok = !loc.is_empty()
            && loc.trim() == loc
            && !loc.contains('|')
            && !loc.chars().any(char::is_control);
        if !loc_ok {
            return Err(refuse(
                i,
                format!("STD cannot carry the value {loc:?} in its location field"),
            ));
        }
        s.push_str(&format!("{t}|{op}|{loc}\n"));
        // A block ends right after its last event (a reader then knows the
        // transaction is over without waiting for the thread's next one).
        size[e.txn] -= 1;
        if size[e.txn] == 0 && block[e.txn] {
            s.push_str(&format!("{t}|end|{}\n", i + 1));
        }
    }
    Ok(s)
}
