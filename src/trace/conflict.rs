//! The TSO conflict relation of Enea & Farzan, Eq. (1), as fixed by docs/semantics.md §3,
//! and the SC relation ⊙SC (paper §3). Written once here; every checker uses it.

use super::{ThreadId, TxnId, VarId};
use crate::trace::exec::{Execution, Node, Step};
use crate::trace::{EventId, Op, Trace};
use serde::Serialize;

/// Why two nodes conflict: the rule of Eq. (1) (or of ⊙SC) that relates them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Rule {
    /// Same thread, two trace events not excepted by (iii).
    ProgramOrder,
    /// Same thread: a commit and a later fence/rmw of its thread (or a fence/rmw and a later commit).
    CommitFence,
    /// Same thread: two commits, in FIFO order.
    CommitOrder,
    /// Other threads: a commit/rmw reaches memory, then a read (or rmw) of the variable.
    WriteRead,
    /// Other threads: a read, then a commit/rmw of the variable (not parallel).
    ReadWrite,
    /// Other threads: two commits/rmws of the variable.
    WriteWrite,
    /// ⊙SC: same thread.
    ScProgramOrder,
    /// ⊙SC: a write, then a read of the variable by another thread.
    ScWriteRead,
    /// ⊙SC: a read, then a write of the variable by another thread.
    ScReadWrite,
    /// ⊙SC: two writes of the variable by different threads.
    ScWriteWrite,
    /// Paper Def. 4: a directed edge of EG_τ.
    PaperDirected,
    /// Paper Def. 4: an undirected edge of EG_τ, oriented this way.
    PaperOriented,
}

impl Rule {
    /// One line a person can check against the definition.
    pub fn explain(self) -> &'static str {
        match self {
            Rule::ProgramOrder => "same thread, program order (Eq. 1 (2), not excepted by (iii))",
            Rule::CommitFence => "same thread, commit ordered with a fence/rmw (Eq. 1 (2), (ii) does not apply)",
            Rule::CommitOrder => "same thread, commits in FIFO order (Eq. 1 (2))",
            Rule::WriteRead => "other thread reads the variable after the write reached memory (Eq. 1 (1))",
            Rule::ReadWrite => "other thread's write reaches memory after the read, not parallel (Eq. 1 (1), (i) does not apply)",
            Rule::WriteWrite => "two writes of the variable reach memory in this order (Eq. 1 (1))",
            Rule::ScProgramOrder => "same thread (⊙SC)",
            Rule::ScWriteRead => "write then read of the variable (⊙SC)",
            Rule::ScReadWrite => "read then write of the variable (⊙SC)",
            Rule::ScWriteWrite => "write then write of the variable (⊙SC)",
            Rule::PaperDirected => "directed edge of the trace event graph (Def. 4)",
            Rule::PaperOriented => "undirected edge of the trace event graph, oriented (Def. 4)",
        }
    }
}

/// How a node touches memory, for the cross-thread part of Eq. (1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// A load (`rd`).
    Read,
    /// A write reaching memory: a commit, or an rmw (read + write + commit at one point).
    MemWrite,
    /// Write issues and fences: no cross-thread conflicts.
    None,
}

/// The access of a node and its variable.
pub fn access(trace: &Trace, n: Node) -> (Access, Option<VarId>) {
    match n {
        Step::Commit(w) => (Access::MemWrite, trace.events[w].var),
        Step::Event(e) => {
            let ev = &trace.events[e];
            let a = match ev.op {
                Op::Rd => Access::Read,
                Op::Rmw => Access::MemWrite,
                Op::Wr | Op::Fence => Access::None,
            };
            (a, ev.var)
        }
    }
}

/// The thread of a node.
pub fn thread(trace: &Trace, n: Node) -> ThreadId {
    trace.events[n.event()].thread
}

/// The transaction of a node (a commit belongs to its write's transaction).
pub fn txn(trace: &Trace, n: Node) -> TxnId {
    trace.events[n.event()].txn
}

/// Same-thread part of Eq. (1) for `a` before `b` (both of one thread).
/// Fixed in every execution: program order, FIFO and fences fix their order.
pub fn same_thread_conflict(trace: &Trace, a: Node, b: Node) -> Option<Rule> {
    match (a, b) {
        (Step::Event(x), Step::Event(y)) => {
            let (ex, ey) = (&trace.events[x], &trace.events[y]);
            // (iii): wr x before rd y, and buffered rd x before rd y, x ≠ y.
            let excepted = ey.op == Op::Rd
                && ex.var != ey.var
                && (ex.op == Op::Wr || (ex.op == Op::Rd && trace.is_buffered(x)));
            (!excepted).then_some(Rule::ProgramOrder)
        }
        (Step::Commit(_), Step::Commit(_)) => Some(Rule::CommitOrder),
        // (ii): a commit and a read/write issue other than its own write.
        (Step::Commit(w), Step::Event(e)) | (Step::Event(e), Step::Commit(w)) => {
            if e == w {
                Some(Rule::ProgramOrder)
            } else if trace.events[e].op.drains() {
                Some(Rule::CommitFence)
            } else {
                None
            }
        }
    }
}

/// Eq. (1) for nodes `a` before `b` of an execution, given an order oracle
/// `before(x, y)` ("x precedes y"), which decides the parallel exception (i).
pub fn conflict_by(
    trace: &Trace,
    a: Node,
    b: Node,
    before: &dyn Fn(Node, Node) -> bool,
) -> Option<Rule> {
    if thread(trace, a) == thread(trace, b) {
        return same_thread_conflict(trace, a, b);
    }
    let (ka, va) = access(trace, a);
    let (kb, vb) = access(trace, b);
    if va != vb || va.is_none() {
        return None;
    }
    let rule = match (ka, kb) {
        (Access::MemWrite, Access::MemWrite) => return Some(Rule::WriteWrite),
        (Access::MemWrite, Access::Read) => Rule::WriteRead,
        (Access::Read, Access::MemWrite) => Rule::ReadWrite,
        _ => return None,
    };
    let (r, m) = if ka == Access::Read { (a, b) } else { (b, a) };
    let Step::Event(re) = r else { unreachable!() };
    // (i): r reads from its buffer (pending w) and m lies between w and c(w).
    if let Some(w) = trace.buffered_by(re) {
        let cw = Step::Commit(w);
        if before(r, cw) && before(Step::Event(w), m) && before(m, cw) {
            return None;
        }
    }
    Some(rule)
}

/// Eq. (1) for `a` before `b` in execution `exec`.
pub fn conflict(trace: &Trace, exec: &Execution, a: Node, b: Node) -> Option<Rule> {
    conflict_by(trace, a, b, &|x, y| exec.pos(x) < exec.pos(y))
}

/// ⊙SC for events `a` before `b` of a trace read as an SC execution.
pub fn sc_conflict(trace: &Trace, a: EventId, b: EventId) -> Option<Rule> {
    let (ea, eb) = (&trace.events[a], &trace.events[b]);
    if ea.thread == eb.thread {
        return Some(Rule::ScProgramOrder);
    }
    if ea.var.is_none() || ea.var != eb.var {
        return None;
    }
    let writes = |op: Op| matches!(op, Op::Wr | Op::Rmw);
    match (writes(ea.op), writes(eb.op)) {
        (true, true) => Some(Rule::ScWriteWrite),
        (true, false) => Some(Rule::ScWriteRead),
        (false, true) => Some(Rule::ScReadWrite),
        (false, false) => None,
    }
}
