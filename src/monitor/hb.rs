//! Happens-before of a trace read as an SC run (Burckhardt & Musuvathi §2, Burnim et
//! al. Defs. 4–6): `→hb = →p ∪ →c`, program order and conflict order (reads-from,
//! coherence, from-read), with every read reading the latest earlier write of its
//! variable (docs/semantics.md §6). A fence is an interlocked operation on a location no one
//! else touches, so it has program-order edges only.
//!
//! [`HbClock`] decides `→*hb` online with the classic vector clock (O(k) per event);
//! [`path`] finds a shortest `→hb` path in a prefix for a witness and [`holds`] re-checks
//! one edge from the definitions, independently of both.

use super::row::{copy, join, join_array, update};
use crate::mem::prefetch_address;
use crate::trace::TiVec;
use crate::trace::VarId;
use crate::trace::{EventId, Op, Trace};

pub use crate::trace::model::HbKind;

/// Rows of width `k` widened to `k2` (zeros after), `rows2` rows (zero rows after).
pub(crate) fn widen(v: &[u32], k: usize, k2: usize, rows2: usize) -> Vec<u32> {
    let mut out = vec![0; rows2 * k2];
    if k > 0 {
        for (r, row) in v.chunks_exact(k).enumerate() {
            out[r * k2..r * k2 + k].copy_from_slice(row);
        }
    }
    out
}

fn writes(op: Op) -> bool {
    matches!(op, Op::Wr | Op::Rmw)
}

fn reads(op: Op) -> bool {
    matches!(op, Op::Rd | Op::Rmw)
}

/// The classic vector clock for `→*hb` on an SC run: thread clocks, and per variable
/// the clock of its last write and the join of the reads since (earlier reads are
/// ordered before that write).
pub struct HbClock {
    k: usize,
    m: usize,
    threads: Vec<u32>,
    last_write: Vec<u32>,
    reads_since: Vec<u32>,
}

impl HbClock {
    pub fn new(k: usize, m: usize) -> HbClock {
        HbClock {
            k,
            m,
            threads: vec![0; k * k],
            last_write: vec![0; m * k],
            reads_since: vec![0; m * k],
        }
    }

    /// Room for `k2 ≥ k` threads and `m2 ≥ m` variables: every clock widened with
    /// zeros (the new threads have done nothing), the new variables unwritten, unread.
    pub fn grow(&mut self, k2: usize, m2: usize) {
        let (k, m) = (self.k, self.m);
        assert!(k2 >= k && m2 >= m, "threads and variables only grow");
        self.threads = widen(&self.threads, k, k2, k2);
        self.last_write = widen(&self.last_write, k, k2, m2);
        self.reads_since = widen(&self.reads_since, k, k2, m2);
        (self.k, self.m) = (k2, m2);
    }

    /// Asks the cache for variable `x`'s clocks (a hint).
    #[inline(always)]
    pub fn prefetch(&self, x: usize) {
        prefetch_address(self.last_write.as_ptr().wrapping_add(x * self.k));
        prefetch_address(self.reads_since.as_ptr().wrapping_add(x * self.k));
    }

    /// Processes t's next event and returns its epoch (t's own entry after it).
    pub fn step(&mut self, t: usize, op: Op, var: Option<usize>) -> u32 {
        if self.k == 8 {
            return self.step_rows::<8>(t, op, var);
        }
        let k = self.k;
        let (me, x) = (t * k..(t + 1) * k, var.map(|x| x * k..(x + 1) * k));
        if let Some(x) = &x {
            if reads(op) || writes(op) {
                join(&mut self.threads[me.clone()], &self.last_write[x.clone()]);
            }
            if writes(op) {
                join(&mut self.threads[me.clone()], &self.reads_since[x.clone()]);
            }
        }
        self.threads[t * k + t] += 1;
        if let Some(x) = x {
            let now = &self.threads[me];
            if writes(op) {
                // The write's clock, and the reads since it: none, or the rmw itself
                // (no call to `memcpy` and `memset` for a row of 8).
                let rd = reads(op);
                copy(&mut self.last_write[x.clone()], now);
                update(&mut self.reads_since[x], now, |_, v| if rd { v } else { 0 });
            } else if reads(op) {
                join(&mut self.reads_since[x], now);
            }
        }
        self.threads[t * k + t]
    }

    /// [`Self::step`] for k = K threads, each clock an array (no slice and no bounds a
    /// row, no dispatch a join).
    #[inline(always)]
    fn step_rows<const K: usize>(&mut self, t: usize, op: Op, var: Option<usize>) -> u32 {
        let me = &mut self.threads.as_chunks_mut::<K>().0[t];
        if let Some(x) = var {
            let lw = &mut self.last_write.as_chunks_mut::<K>().0[x];
            let rs = &mut self.reads_since.as_chunks_mut::<K>().0[x];
            let (rd, wr) = (reads(op), writes(op));
            if rd || wr {
                join_array(me, lw);
            }
            if wr {
                join_array(me, rs);
            }
            me[t] += 1;
            if wr {
                *lw = *me;
                *rs = if rd { *me } else { [0; K] };
            } else if rd {
                join_array(rs, me);
            }
        } else {
            me[t] += 1;
        }
        me[t]
    }

    /// Whether u's event with epoch `epoch` happens before (or is) t's latest event.
    pub fn seen(&self, t: usize, u: usize, epoch: u32) -> bool {
        epoch > 0 && self.threads[t * self.k + u] >= epoch
    }
}

/// Whether `a → b` is a `→hb` edge of kind `kind`, from the definitions: `a` before `b`
/// in the SC run, and program order (same thread), reads-from (b reads a's value: a is
/// the latest write of the variable before b), coherence (both write the variable) or
/// from-read (a reads it, b writes it).
pub fn holds(trace: &Trace, a: EventId, b: EventId, kind: HbKind) -> bool {
    if a >= b || b >= trace.len() {
        return false;
    }
    let (ea, eb) = (&trace.events[a], &trace.events[b]);
    if kind == HbKind::Po {
        return ea.thread == eb.thread;
    }
    let Some(x) = ea.var.filter(|x| eb.var == Some(*x)) else {
        return false;
    };
    match kind {
        HbKind::Rf => {
            writes(ea.op)
                && reads(eb.op)
                && trace.events[..b]
                    .iter()
                    .rposition(|e| e.var == Some(x) && writes(e.op))
                    == Some(a)
        }
        HbKind::Co => writes(ea.op) && writes(eb.op),
        HbKind::Fr => reads(ea.op) && writes(eb.op),
        HbKind::Po => unreachable!(),
    }
}

/// A shortest `→hb` path from `from` to `to` among the events before `upto`, as edges;
/// empty when `from == to`. Uses the immediate edges only (next event of the thread,
/// reads-from, next write, the first write after a read), which reach what `→*hb` does.
pub fn path(
    trace: &Trace,
    upto: usize,
    from: EventId,
    to: EventId,
) -> Option<Vec<(EventId, EventId, HbKind)>> {
    if from >= upto || to >= upto {
        return None;
    }
    let evs = &trace.events[..upto];
    // Backward pass: next event of the thread, next write of each variable.
    let mut next_po = vec![None; upto];
    let mut next_wr = vec![None; upto];
    let mut thread_next = trace.per_thread(None);
    let mut var_next = trace.per_var(None);
    for (i, e) in evs.iter().enumerate().rev() {
        next_po[i] = thread_next[e.thread];
        thread_next[e.thread] = Some(i);
        if let Some(x) = e.var {
            next_wr[i] = var_next[x];
            if writes(e.op) {
                var_next[x] = Some(i);
            }
        }
    }
    // Forward pass: the reads of each write.
    let mut readers: Vec<Vec<EventId>> = vec![Vec::new(); upto];
    let mut var_last: TiVec<VarId, Option<EventId>> = trace.per_var(None);
    for (i, e) in evs.iter().enumerate() {
        if let Some(x) = e.var {
            if reads(e.op) {
                if let Some(w) = var_last[x] {
                    readers[w].push(i);
                }
            }
            if writes(e.op) {
                var_last[x] = Some(i);
            }
        }
    }
    if from == to {
        return Some(Vec::new());
    }
    crate::graph::path::shortest(upto, from, to, |u, succ| {
        let e = &evs[u];
        if let Some(v) = next_po[u] {
            succ.push((v, HbKind::Po));
        }
        if let Some(v) = next_wr[u] {
            let kind = if writes(e.op) { HbKind::Co } else { HbKind::Fr };
            succ.push((v, kind));
        }
        succ.extend(readers[u].iter().map(|&v| (v, HbKind::Rf)));
    })
}

/// Why a path is not a `→hb` path between its ends.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum BrokenPath {
    #[error("the path breaks at #{at}")]
    Breaks { at: EventId },
    #[error("#{from} -{kind}-> #{to} is not an hb edge of that kind")]
    NotHbEdge {
        from: EventId,
        to: EventId,
        kind: HbKind,
    },
    #[error("the path ends at #{end}, not #{to}")]
    Ends { end: EventId, to: EventId },
}

/// Re-checks a path: consecutive, each edge a `→hb` edge of its stated kind ([`holds`]).
pub fn check_path(
    trace: &Trace,
    from: EventId,
    to: EventId,
    path: &[(EventId, EventId, HbKind)],
) -> Result<(), BrokenPath> {
    let mut at = from;
    for &(a, b, kind) in path {
        if a != at {
            return Err(BrokenPath::Breaks { at: a });
        }
        let ok = holds(trace, a, b, kind);
        if !ok {
            return Err(BrokenPath::NotHbEdge {
                from: a,
                to: b,
                kind,
            });
        }
        at = b;
    }
    if at != to {
        return Err(BrokenPath::Ends { end: at, to });
    }
    Ok(())
}
