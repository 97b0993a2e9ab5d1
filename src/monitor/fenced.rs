//! The transaction-fenced monitor (Enea & Farzan §6.3) and what Theorem 3 lets it
//! conclude on one SC run.

use super::{Kind, Monitor, Outcome};
use crate::trace::{EventId, Op, ThreadId, TiVec, VarId};

/// What Theorem 3 concludes from the fenced monitor's run: it speaks only of
/// transaction-fenced programs, and a "yes" of it needs every SC run, so one quiet run
/// is no verdict (bug: fenced_monitor_answers_only_what_theorem_3_allows).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Theorem3 {
    /// A transaction does not end with a fence or rmw: the theorem does not apply
    /// (whether or not a part reports).
    NotFenced,
    /// Transaction-fenced and a part reports: the program is not TSO-serializable.
    NotTsoSerializable,
    /// Transaction-fenced and neither part reports: no violation on this run.
    NothingFound,
}

/// Theorem 3 on a run: `unfenced`, the last event of the first transaction without a
/// closing fence or rmw, and whether a part (SC-serializability, SOBER) `reported`.
pub fn theorem3(unfenced: Option<EventId>, reported: bool) -> Theorem3 {
    match (unfenced, reported) {
        (Some(_), _) => Theorem3::NotFenced,
        (None, true) => Theorem3::NotTsoSerializable,
        (None, false) => Theorem3::NothingFound,
    }
}

/// The transaction-fenced monitor (Enea & Farzan §6.3, Theorem 3): whether every
/// transaction ends with a fence or rmw. Its two parts, SC-serializability and SOBER,
/// are the suite's own monitors of those kinds ([`Suite`] adds them when not asked
/// for, and fills them in at the end), so `--monitor all` runs each once. It reads the
/// whole run (fencedness is a property of every transaction).
pub(super) struct FencedMonitor {
    /// Per thread: the op and index of the latest event of its current transaction.
    txn_last: TiVec<ThreadId, Option<(Op, EventId)>>,
    unfenced: Option<EventId>,
}

impl FencedMonitor {
    pub(super) fn new(k: usize) -> FencedMonitor {
        FencedMonitor {
            txn_last: vec![None; k].into(),
            unfenced: None,
        }
    }
}

impl Monitor for FencedMonitor {
    fn kind(&self) -> Kind {
        Kind::Fenced
    }
    fn begin(&mut self, t: ThreadId) {
        if let Some((op, e)) = self.txn_last[t].take() {
            if !op.drains() && self.unfenced.is_none_or(|u| e < u) {
                self.unfenced = Some(e);
            }
        }
    }
    fn step(&mut self, e: EventId, t: ThreadId, op: Op, _var: Option<VarId>) {
        self.txn_last[t] = Some((op, e));
    }
    fn grow(&mut self, k: usize, _m: usize) {
        self.txn_last.resize(k, None);
    }
    fn done(&self) -> bool {
        false
    }
    fn finish(&mut self) -> Outcome {
        for t in self.txn_last.keys() {
            self.begin(t);
        }
        Outcome::Fenced {
            unfenced: self.unfenced,
            sc_ser: None,
            sober: None,
        }
    }
}
