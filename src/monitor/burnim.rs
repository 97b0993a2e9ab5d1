//! `monitor_TSO` (Fig. 4) and `monitor_PSO` (Fig. 5) of Burnim, Sen & Stergiou: run
//! the TSO / PSO automaton (Figs. 2, 3) alongside the SC run, delaying every commit
//! until an access of another thread to its address forces it, and report when a still
//! buffered store `e` happens before `prev`, the event before `e_i` in `e_i`'s thread —
//! then `e_i` can run before `e` commits and the TSO / PSO run has the `→hb` cycle
//! `e →*hb prev →p e_i →c e`. O(k) per event (the `→*hb` vector clock) plus amortized
//! O(1) buffer work.
//!
//! Events map as in docs/semantics.md §6: `rmw` is `interlocked` (which drains the whole
//! buffer under TSO, only its address's under PSO, Fig. 3), and a fence is
//! `interlocked` on a location of its own under TSO and drains all of the thread's
//! buffers under PSO (docs/semantics.md §7: Fig. 3 would let a fence order nothing).
//!
//! With `log`, the monitor records where each commit happens, so a report can be
//! replayed into the TSO / PSO run it stands for ([`super::replay`]).

use super::hb::HbClock;
use crate::trace::{EventId, Op};
use crate::trace::{ThreadId, VarId};
use std::collections::VecDeque;

/// The memory model of the automaton: TSO or PSO (the crate's one
/// [`crate::trace::model::MemoryModel`]; under SC nothing is buffered and it never reports).
pub use crate::trace::model::MemoryModel as Model;

/// A report of Fig. 4 line 7 / Fig. 5 line 6.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BurnimReport {
    pub model: Model,
    /// The buffered store.
    pub e: EventId,
    /// The event before `e_i` in its thread, with `e →*hb prev`.
    pub prev: EventId,
    /// The event whose access to `e`'s address could run before `e` commits.
    pub ei: EventId,
}

#[derive(Clone, Copy)]
struct Pending {
    event: EventId,
    var: usize,
    hb: u32,
}

/// Fig. 4 / Fig. 5 as an online monitor.
pub struct Burnim {
    model: Model,
    hb: HbClock,
    /// TSO: each thread's FIFO buffer B[p] (stale entries are skipped: see `live`).
    buffers: Vec<VecDeque<Pending>>,
    /// Per variable: the owner and the last buffered store to it (Lemma 1 / Lemma 2:
    /// one thread at a time), and how many stores to it are buffered (TSO).
    last: Vec<Option<(usize, Pending)>>,
    count: Vec<u32>,
    /// PSO: the variables each thread may have a buffered store to.
    dirty: Vec<Vec<usize>>,
    /// Each thread's latest event (`prev` of its next one).
    last_of: Vec<Option<EventId>>,
    dirty_cap: Vec<usize>,
    next: EventId,
    /// Commits in order, each with the number of events issued before it (with `log`).
    pub commits: Option<Vec<(EventId, usize)>>,
}

impl Burnim {
    /// Room for `n2 ≥ n` threads and `m2 ≥ m` variables: empty buffers for the new
    /// threads, no buffered store to the new variables.
    pub fn grow(&mut self, n2: usize, m2: usize) {
        self.hb.grow(n2, m2);
        self.buffers.resize(n2, VecDeque::new());
        self.last.resize(m2.max(self.last.len()), None);
        self.count.resize(m2.max(self.count.len()), 0);
        self.dirty.resize(n2, Vec::new());
        self.last_of.resize(n2, None);
        self.dirty_cap.resize(n2, 64);
    }

    pub fn new(model: Model, n: usize, m: usize) -> Burnim {
        Burnim {
            model,
            hb: HbClock::new(n, m),
            buffers: vec![VecDeque::new(); n],
            last: vec![None; m],
            count: vec![0; m],
            dirty: vec![Vec::new(); n],
            last_of: vec![None; n],
            dirty_cap: vec![64; n],
            next: 0,
            commits: None,
        }
    }

    /// The model the automaton runs.
    pub fn model(&self) -> Model {
        self.model
    }

    /// Records the commit positions (for [`super::replay`]).
    pub fn logging(mut self) -> Burnim {
        self.commits = Some(Vec::new());
        self
    }

    fn committed(&mut self, w: EventId) {
        let at = self.next;
        if let Some(log) = &mut self.commits {
            log.push((w, at));
        }
    }

    /// `store^c_TSO(q)`: commits the oldest store of B[q].
    fn commit_tso(&mut self, q: usize) -> Option<EventId> {
        let s = self.buffers[q].pop_front()?;
        self.count[s.var] -= 1;
        if self.count[s.var] == 0 {
            self.last[s.var] = None;
        }
        self.committed(s.event);
        Some(s.event)
    }

    /// `store^c_PSO(q, a)` until `B_a[q][a]` is empty (it holds at most one store, Lemma 2).
    fn drain_pso(&mut self, q: usize, a: usize) {
        if let Some((owner, s)) = self.last[a] {
            if owner == q {
                self.last[a] = None;
                self.committed(s.event);
            }
        }
    }

    /// The next event of the SC run; `Some` on a report.
    pub fn step(&mut self, p: ThreadId, op: Op, var: Option<VarId>) -> Option<BurnimReport> {
        let (p, var) = (p.index(), var.map(VarId::index));
        let ei = self.next;
        let mut report = None;
        if let Some(a) = var {
            // line 3: a buffered store to a(e_i), in one thread's buffer (Lemmas 1, 2).
            if let Some((q, e)) = self.last[a] {
                // lines 4–7 (TSO) / 3–6 (PSO); `prev` is p's latest event, and the hb
                // clock of p still stands at it.
                if let Some(prev) = self.last_of[p].filter(|_| q != p) {
                    if self.hb.seen(p, q, e.hb) {
                        report = Some(BurnimReport {
                            model: self.model,
                            e: e.event,
                            prev,
                            ei,
                        });
                    }
                }
                match self.model {
                    // lines 8–11: commit B[q] up to and including e.
                    Model::Tso if q != p => loop {
                        let c = self.commit_tso(q).expect("e is in B[q] (Lemma 1)");
                        if c == e.event {
                            break;
                        }
                    },
                    // lines 7–9: drain B_a[q][a].
                    Model::Pso if q != p || matches!(op, Op::Wr | Op::Rmw) => self.drain_pso(q, a),
                    _ => {}
                }
            }
        }
        // lines 12–17 / 10–15: the event itself.
        let hb = self.hb.step(p, op, var);
        match (self.model, op, var) {
            (Model::Tso, Op::Rmw | Op::Fence, _) => while self.commit_tso(p).is_some() {},
            (Model::Pso, Op::Rmw, Some(a)) => self.drain_pso(p, a),
            (Model::Pso, Op::Fence, _) => {
                for a in std::mem::take(&mut self.dirty[p]) {
                    self.drain_pso(p, a);
                }
            }
            (Model::Tso, Op::Wr, Some(a)) => {
                let s = Pending {
                    event: ei,
                    var: a,
                    hb,
                };
                self.buffers[p].push_back(s);
                self.count[a] += 1;
                self.last[a] = Some((p, s));
            }
            (Model::Pso, Op::Wr, Some(a)) => {
                self.last[a] = Some((
                    p,
                    Pending {
                        event: ei,
                        var: a,
                        hb,
                    },
                ));
                self.dirty[p].push(a);
                if self.dirty[p].len() > self.dirty_cap[p] {
                    let last = &self.last;
                    self.dirty[p].retain(|&a| last[a].is_some_and(|(o, _)| o == p));
                    self.dirty[p].sort_unstable();
                    self.dirty[p].dedup();
                    self.dirty_cap[p] = (2 * self.dirty[p].len()).max(64);
                }
            }
            _ => {}
        }
        self.last_of[p] = Some(ei);
        self.next += 1;
        report
    }
}
