//! TSO executions of a trace (docs/semantics.md §2): the trace's events in order,
//! interleaved with one commit per write.

use super::ThreadId;
use super::TiVec;
use super::{EventId, Op, Trace};
use serde::Serialize;

/// One step of an execution. In JSON: `{"kind": "event"|"commit", "event": index}`
/// (for a commit, the index of its write).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(tag = "kind", content = "event", rename_all = "lowercase")]
pub enum Step {
    /// Trace event `e` (issue of a write, a read, a fence or an rmw).
    Event(EventId),
    /// The commit `c(w)` of write `w` (given by the write's event index).
    Commit(EventId),
}

impl Step {
    /// The trace event of a step: itself, or the write a commit commits.
    pub fn event(self) -> EventId {
        match self {
            Step::Event(e) | Step::Commit(e) => e,
        }
    }

    /// The step in a `u32`: event e as 2e, the commit of w as 2w + 1 (an event id
    /// below [`crate::trace::MAX_EVENTS`] fits).
    pub fn pack(self) -> u32 {
        let (e, commit) = match self {
            Step::Event(e) => (e, 0),
            Step::Commit(w) => (w, 1),
        };
        debug_assert!(e <= crate::trace::MAX_EVENTS);
        (e as u32) << 1 | commit
    }

    /// The step of [`Step::pack`].
    pub fn unpack(x: u32) -> Step {
        let e = (x >> 1) as EventId;
        if x & 1 == 0 {
            Step::Event(e)
        } else {
            Step::Commit(e)
        }
    }
}

/// Why steps are not an execution of a trace: the rule of docs/semantics.md §2 they
/// break, at a 0-based step. Events are named by index, or by their description.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum NotAnExecution {
    #[error("step {step}: event #{event} out of trace order (expected #{expected})")]
    OutOfTraceOrder {
        step: usize,
        event: EventId,
        expected: EventId,
    },
    /// A fence or rmw issued while its thread's buffer holds writes.
    #[error("step {step}: `{event}` with a non-empty buffer")]
    DrainsNonEmptyBuffer { step: usize, event: String },
    #[error("step {step}: commit of #{event}, which is not a write")]
    CommitOfNonWrite { step: usize, event: EventId },
    #[error("step {step}: commit of `{write}` out of FIFO order or before its issue")]
    CommitOutOfFifoOrder { step: usize, write: String },
    #[error("the execution stops after {issued} of {events} events")]
    Incomplete { issued: usize, events: usize },
    #[error("`{write}` never commits")]
    NeverCommits { write: String },
    #[error("{steps} steps: an execution has fewer than 2^32")]
    TooLong { steps: usize },
    /// [`Execution::recheck`]: the execution indexes another trace.
    #[error("the execution indexes {events} events, not the trace's")]
    OtherTrace { events: usize },
    /// [`Execution::recheck`]: a step's indexed position is not where it stands.
    #[error("step {step}: its indexed position is elsewhere")]
    Misplaced { step: usize },
}

/// A node of an execution's event graph: an event or a commit. Same shape as [`Step`].
pub type Node = Step;

/// A TSO execution with each step's position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Execution {
    /// The steps, packed ([`Step::pack`]): 4 bytes a step where a [`Step`] takes 16.
    steps: Vec<u32>,
    /// Positions as `u32` (a trace has fewer than 2³¹ events, so fewer than 2³² steps).
    event_pos: Vec<u32>,
    /// Position of the commit of write `w`, indexed by event (unused for non-writes).
    commit_pos: Vec<u32>,
}

/// Walks `steps` by the rules of docs/semantics.md §2, calling `at(position, step)` on
/// each step that keeps them.
fn walk(
    trace: &Trace,
    steps: impl Iterator<Item = Step>,
    mut at: impl FnMut(usize, Step) -> Result<(), NotAnExecution>,
) -> Result<(), NotAnExecution> {
    let n = trace.len();
    let mut next = 0;
    let mut pending: TiVec<ThreadId, std::collections::VecDeque<EventId>> =
        trace.per_thread(Default::default());
    for (p, s) in steps.enumerate() {
        match s {
            Step::Event(e) => {
                if e != next {
                    return Err(NotAnExecution::OutOfTraceOrder {
                        step: p,
                        event: e,
                        expected: next,
                    });
                }
                next += 1;
                let ev = &trace.events[e];
                if ev.op.drains() && !pending[ev.thread].is_empty() {
                    return Err(NotAnExecution::DrainsNonEmptyBuffer {
                        step: p,
                        event: trace.describe(e),
                    });
                }
                if ev.op == Op::Wr {
                    pending[ev.thread].push_back(e);
                }
            }
            Step::Commit(w) => {
                if w >= n || trace.events[w].op != Op::Wr {
                    return Err(NotAnExecution::CommitOfNonWrite { step: p, event: w });
                }
                let t = trace.events[w].thread;
                if pending[t].front() != Some(&w) {
                    return Err(NotAnExecution::CommitOutOfFifoOrder {
                        step: p,
                        write: trace.describe(w),
                    });
                }
                pending[t].pop_front();
            }
        }
        at(p, s)?;
    }
    if next != n {
        return Err(NotAnExecution::Incomplete {
            issued: next,
            events: n,
        });
    }
    if let Some(w) = pending.iter().find_map(|q| q.front()) {
        return Err(NotAnExecution::NeverCommits {
            write: trace.describe(*w),
        });
    }
    Ok(())
}

impl Execution {
    /// Checks the rules of docs/semantics.md §2 and indexes positions.
    pub fn new(trace: &Trace, steps: Vec<Step>) -> Result<Execution, NotAnExecution> {
        let positions = Execution::positions(trace, steps.iter().copied(), steps.len())?;
        let steps = steps.into_iter().map(Step::pack).collect();
        Ok(Execution::indexed(steps, positions))
    }

    /// [`Execution::new`] of packed steps ([`Step::pack`]): checked by the rules
    /// without holding them as [`Step`]s.
    pub fn from_packed(trace: &Trace, steps: Vec<u32>) -> Result<Execution, NotAnExecution> {
        let unpacked = steps.iter().map(|&x| Step::unpack(x));
        let positions = Execution::positions(trace, unpacked, steps.len())?;
        Ok(Execution::indexed(steps, positions))
    }

    /// Packed steps whose positions their maker indexed as it placed them, not checked
    /// here: for a sort that places every step by the rules (`analysis::sort`), whose
    /// witness is re-checked ([`Execution::recheck`]) before anyone sees it — the walk
    /// of [`Execution::from_packed`] would check it a second time (a fifth of a 10⁷-event
    /// witness's time).
    pub(crate) fn placed(steps: Vec<u32>, event_pos: Vec<u32>, commit_pos: Vec<u32>) -> Execution {
        Execution::indexed(steps, (event_pos, commit_pos))
    }

    fn indexed(steps: Vec<u32>, (event_pos, commit_pos): (Vec<u32>, Vec<u32>)) -> Execution {
        Execution {
            steps,
            event_pos,
            commit_pos,
        }
    }

    /// The rules checked, each event's and each commit's position.
    fn positions(
        trace: &Trace,
        steps: impl Iterator<Item = Step>,
        len: usize,
    ) -> Result<(Vec<u32>, Vec<u32>), NotAnExecution> {
        let n = trace.len();
        if len >= u32::MAX as usize {
            return Err(NotAnExecution::TooLong { steps: len });
        }
        let mut event_pos = vec![u32::MAX; n];
        let mut commit_pos = vec![u32::MAX; n];
        walk(trace, steps, |p, s| {
            match s {
                Step::Event(e) => event_pos[e] = p as u32,
                Step::Commit(w) => commit_pos[w] = p as u32,
            }
            Ok(())
        })?;
        Ok((event_pos, commit_pos))
    }

    /// Checks the steps again by the rules of docs/semantics.md §2, and that each
    /// step's position is the one indexed: a witness re-checked before it is printed,
    /// without a second copy of a whole-trace execution.
    pub fn recheck(&self, trace: &Trace) -> Result<(), NotAnExecution> {
        if self.event_pos.len() != trace.len() || self.commit_pos.len() != trace.len() {
            return Err(NotAnExecution::OtherTrace {
                events: self.event_pos.len(),
            });
        }
        walk(trace, self.steps(), |p, s| match self.pos(s) == p {
            true => Ok(()),
            false => Err(NotAnExecution::Misplaced { step: p }),
        })
    }

    /// The steps in order.
    pub fn steps(&self) -> impl ExactSizeIterator<Item = Step> + DoubleEndedIterator + Clone + '_ {
        self.steps.iter().map(|&x| Step::unpack(x))
    }

    /// The step at position `p`.
    pub fn step(&self, p: usize) -> Step {
        Step::unpack(self.steps[p])
    }

    /// The number of steps.
    pub fn len(&self) -> usize {
        self.steps.len()
    }

    /// Whether the execution has no step (of an empty trace).
    pub fn is_empty(&self) -> bool {
        self.steps.is_empty()
    }

    /// Position of a node in the execution.
    pub fn pos(&self, n: Node) -> usize {
        match n {
            Step::Event(e) => self.event_pos[e] as usize,
            Step::Commit(w) => self.commit_pos[w] as usize,
        }
    }

    /// Position of the commit of write `w`.
    pub fn commit_pos(&self, w: EventId) -> usize {
        self.commit_pos[w] as usize
    }

    /// Number of trace events before the commit of `w` (the gap it lies in: between
    /// events `gap-1` and `gap`).
    pub fn commit_gap(&self, w: EventId) -> usize {
        // Events keep trace order, so their positions increase: O(log n).
        let p = self.commit_pos[w];
        self.event_pos.partition_point(|&q| q < p)
    }

    /// Whether read `r` reads from its own buffer in this execution (docs/semantics.md §2):
    /// its buffering write commits after it.
    pub fn reads_from_buffer(&self, trace: &Trace, r: EventId) -> bool {
        trace
            .buffered_by(r)
            .is_some_and(|w| self.commit_pos[w] > self.event_pos[r])
    }

    /// The SC execution of a trace: every write commits right after its issue.
    pub fn sc(trace: &Trace) -> Execution {
        let writes = trace.events.iter().filter(|e| e.op == Op::Wr).count();
        let mut steps = Vec::with_capacity(trace.len() + writes);
        for (i, e) in trace.events.iter().enumerate() {
            steps.push(Step::Event(i));
            if e.op == Op::Wr {
                steps.push(Step::Commit(i));
            }
        }
        Execution::new(trace, steps).expect("the SC execution is valid")
    }

    /// Completes a valid prefix into an execution: remaining events in order, each
    /// fence/rmw preceded by its thread's pending commits, the rest committed at the end.
    pub fn complete(trace: &Trace, prefix: &[Step]) -> Execution {
        let mut steps = prefix.to_vec();
        let mut pending: TiVec<ThreadId, std::collections::VecDeque<EventId>> =
            trace.per_thread(Default::default());
        let mut next = 0;
        for s in prefix {
            match *s {
                Step::Event(e) => {
                    next = e + 1;
                    if trace.events[e].op == Op::Wr {
                        pending[trace.events[e].thread].push_back(e);
                    }
                }
                Step::Commit(w) => {
                    pending[trace.events[w].thread].pop_front();
                }
            }
        }
        for e in next..trace.len() {
            let ev = &trace.events[e];
            if ev.op.drains() {
                steps.extend(pending[ev.thread].drain(..).map(Step::Commit));
            }
            steps.push(Step::Event(e));
            if ev.op == Op::Wr {
                pending[ev.thread].push_back(e);
            }
        }
        for q in pending {
            steps.extend(q.into_iter().map(Step::Commit));
        }
        Execution::new(trace, steps).expect("completion of a valid prefix is valid")
    }
}

/// Enumerates every execution of a trace literally (docs/semantics.md §2), calling `f` on
/// each; stops early when `f` returns `false`. Exponential: the reference that the
/// optimised deciders are tested against.
pub fn for_each_execution(trace: &Trace, mut f: impl FnMut(&[Step]) -> bool) {
    let mut pending: TiVec<ThreadId, std::collections::VecDeque<EventId>> =
        trace.per_thread(Default::default());
    let mut steps = Vec::new();
    fn go(
        trace: &Trace,
        next: usize,
        pending: &mut TiVec<ThreadId, std::collections::VecDeque<EventId>>,
        steps: &mut Vec<Step>,
        f: &mut dyn FnMut(&[Step]) -> bool,
    ) -> bool {
        let mut any = false;
        if next < trace.len() {
            let ev = &trace.events[next];
            if !ev.op.drains() || pending[ev.thread].is_empty() {
                any = true;
                steps.push(Step::Event(next));
                if ev.op == Op::Wr {
                    pending[ev.thread].push_back(next);
                }
                let go_on = go(trace, next + 1, pending, steps, f);
                if ev.op == Op::Wr {
                    pending[ev.thread].pop_back();
                }
                steps.pop();
                if !go_on {
                    return false;
                }
            }
        }
        for t in pending.keys() {
            if let Some(w) = pending[t].pop_front() {
                any = true;
                steps.push(Step::Commit(w));
                let go_on = go(trace, next, pending, steps, f);
                steps.pop();
                pending[t].push_front(w);
                if !go_on {
                    return false;
                }
            }
        }
        if !any {
            return f(steps);
        }
        true
    }
    go(trace, 0, &mut pending, &mut steps, &mut f);
}

/// A node as text: `#3 b delta rd head` or `c(#1 a alpha wr head)`.
pub fn node_text(trace: &Trace, n: Node) -> String {
    match n {
        Step::Event(e) => format!("#{e} {}", trace.describe(e)),
        Step::Commit(w) => format!("c(#{w} {})", trace.describe(w)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::compact;

    /// `recheck` accepts every execution `new` made, and refuses one whose indexed
    /// positions disagree with its steps or that indexes another trace.
    #[test]
    fn recheck_refuses_misplaced_steps_and_other_traces() {
        let t = compact(&["t0 A wr x", "t1 B rd x", "t0 A fence"]);
        let mut n = 0;
        for_each_execution(&t, |steps| {
            let e = Execution::new(&t, steps.to_vec()).unwrap();
            assert_eq!(e.recheck(&t), Ok(()));
            n += 1;
            true
        });
        assert!(n >= 2, "{n} executions");
        let mut e = Execution::sc(&t);
        e.event_pos.swap(0, 1);
        assert!(matches!(
            e.recheck(&t),
            Err(NotAnExecution::Misplaced { .. })
        ));
        let other = compact(&["t0 A wr x", "t1 B rd x"]);
        assert!(matches!(
            Execution::sc(&t).recheck(&other),
            Err(NotAnExecution::OtherTrace { events: 3 })
        ));
    }

    /// `commit_gap` (a binary search since it became quadratic in `--json` output on
    /// 10⁶-event witnesses) counts the events before the commit, in every execution.
    #[test]
    fn commit_gap_counts_the_events_before_the_commit() {
        let t = compact(&[
            "t0 A wr x",
            "t1 B rd x",
            "t0 A wr y",
            "t1 B wr x",
            "t0 A fence",
            "t1 C rd y",
        ]);
        let mut seen = 0;
        for_each_execution(&t, |steps| {
            let e = Execution::new(&t, steps.to_vec()).unwrap();
            for w in t.writes() {
                let p = e.commit_pos(w);
                let naive = steps[..p]
                    .iter()
                    .filter(|s| matches!(s, Step::Event(_)))
                    .count();
                assert_eq!(e.commit_gap(w), naive);
            }
            seen += 1;
            true
        });
        assert!(seen > 10);
    }
}
