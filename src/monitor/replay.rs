//! Replays a report of `monitor_TSO` / `monitor_PSO` into the run it stands for (the
//! proofs of Burnim et al. Thms. 3, 4, Figs. 9, 10): the events up to `e_i` with every
//! commit where the monitor made it, the stores still buffered committed after `e_i`.
//! [`check_run`] re-checks such a run from the definitions alone: that it is a TSO / PSO
//! run of the prefix, that every read but `e_i`'s reads what it read in the SC run, and
//! that its happens-before has a cycle (it is not SC).

use super::burnim::{Burnim, BurnimReport, Model};
use super::hb::HbKind;
use super::unconfirmed::Unconfirmed;
use crate::trace::exec::Step;
use crate::trace::ThreadId;
use crate::trace::TiVec;
use crate::trace::VarId;
use crate::trace::{EventId, Op, Trace};
use std::collections::VecDeque;

/// The run behind a report: steps over events `0..=report.ei`.
pub fn replay(trace: &Trace, report: &BurnimReport) -> Vec<Step> {
    let mut m = Burnim::new(report.model, trace.threads.len(), trace.vars.len()).logging();
    for e in &trace.events[..report.ei] {
        m.step(e.thread, e.op, e.var);
    }
    let log = m.commits.take().unwrap_or_default();
    let mut steps = Vec::new();
    let mut committed = vec![false; trace.len()];
    let mut log = log.into_iter().peekable();
    let (ei, pi) = (report.ei, trace.events[report.ei].thread);
    for e in 0..=ei {
        while let Some(&(w, at)) = log.peek() {
            if at > e {
                break;
            }
            steps.push(Step::Commit(w));
            committed[w] = true;
            log.next();
        }
        if e == ei {
            // A fence or rmw e_i waits for its own thread's buffer (TSO; PSO: a fence
            // for all of it, an rmw for its address): those stores commit just before
            // it. None of them is `e`, which belongs to another thread, so the cycle
            // `e →*hb prev →po e_i → e` stays (bug: monitor_tso_rmw_at_ei_drains_first).
            let ev = &trace.events[ei];
            let drains = |w: EventId| match (report.model, ev.op) {
                (_, Op::Fence) | (Model::Tso, Op::Rmw) => true,
                (Model::Pso, Op::Rmw) => trace.events[w].var == ev.var,
                _ => false,
            };
            for (w, x) in trace.events[..ei].iter().enumerate() {
                if x.thread == pi && x.op == Op::Wr && !committed[w] && drains(w) {
                    steps.push(Step::Commit(w));
                    committed[w] = true;
                }
            }
        }
        steps.push(Step::Event(e));
    }
    // Figs. 9, 10: e_i's thread drains first (so a store e_i commits before e), then
    // every other buffer.
    let pending = |w: &EventId| trace.events[*w].op == Op::Wr && !committed[*w];
    let mine = (0..=ei).filter(|w| trace.events[*w].thread == pi && pending(w));
    let others = (0..=ei).filter(|w| trace.events[*w].thread != pi && pending(w));
    steps.extend(mine.chain(others).map(Step::Commit));
    steps
}

/// The SC source of each read: the latest earlier write of its variable.
fn sc_sources(trace: &Trace, upto: usize) -> Vec<Option<EventId>> {
    let mut last = trace.per_var(None);
    let mut src = vec![None; upto];
    for (i, e) in trace.events[..upto].iter().enumerate() {
        if let Some(x) = e.var {
            if matches!(e.op, Op::Rd | Op::Rmw) {
                src[i] = last[x];
            }
            if matches!(e.op, Op::Wr | Op::Rmw) {
                last[x] = Some(i);
            }
        }
    }
    src
}

/// Checks that `steps` is a run of the prefix `0..=ei` under `model` (commits after
/// issue, in FIFO order per buffer; a fence drains the thread, an rmw drains the thread
/// under TSO and its variable under PSO; every write committed), that every read but
/// `ei` reads from the same write as in the SC run, and returns a `→hb` cycle of it
/// (program order, reads-from, commit order, from-read) through the report's store `e`.
pub fn check_run(
    trace: &Trace,
    report: &BurnimReport,
    steps: &[Step],
) -> Result<Vec<(EventId, EventId, HbKind)>, Unconfirmed> {
    let (model, ei) = (report.model, report.ei);
    let upto = ei + 1;
    let mut next = 0;
    // Pending stores: per thread (TSO) or per thread and variable (PSO), in issue order.
    let mut pending: TiVec<ThreadId, VecDeque<EventId>> = trace.per_thread(VecDeque::new());
    let mut memory: TiVec<VarId, Option<EventId>> = trace.per_var(None);
    let mut committed = vec![false; upto];
    let mut src: Vec<Option<EventId>> = vec![None; upto];
    // Commit order per variable.
    let mut co: TiVec<VarId, Vec<EventId>> = trace.per_var(Vec::new());
    let var_of = |w: EventId| trace.events[w].var.expect("writes have a variable");
    for (i, s) in steps.iter().enumerate() {
        match *s {
            Step::Event(e) => {
                if e != next || e >= upto {
                    return Err(Unconfirmed::OutOfOrder { step: i, event: e });
                }
                next += 1;
                let ev = &trace.events[e];
                let blocks = |q: &VecDeque<EventId>| match (model, ev.op) {
                    (_, Op::Fence) | (Model::Tso, Op::Rmw) => !q.is_empty(),
                    (Model::Pso, Op::Rmw) => q.iter().any(|&w| trace.events[w].var == ev.var),
                    _ => false,
                };
                if blocks(&pending[ev.thread]) {
                    return Err(Unconfirmed::NotDrained { step: i, event: e });
                }
                if let Some(x) = ev.var {
                    if matches!(ev.op, Op::Rd | Op::Rmw) {
                        let own = pending[ev.thread]
                            .iter()
                            .rev()
                            .find(|&&w| trace.events[w].var == Some(x));
                        src[e] = own.copied().or(memory[x]);
                    }
                    match ev.op {
                        Op::Wr => pending[ev.thread].push_back(e),
                        Op::Rmw => {
                            memory[x] = Some(e);
                            co[x].push(e);
                        }
                        _ => {}
                    }
                }
            }
            Step::Commit(w) => {
                if w >= next || trace.events[w].op != Op::Wr || committed[w] {
                    return Err(Unconfirmed::NotPending { step: i, write: w });
                }
                let q = &mut pending[trace.events[w].thread];
                let pos = q
                    .iter()
                    .position(|&v| v == w)
                    .ok_or(Unconfirmed::NotPending { step: i, write: w })?;
                let older = q.iter().take(pos);
                let fifo = match model {
                    Model::Sc | Model::Tso => pos == 0,
                    Model::Pso => older.clone().all(|&v| var_of(v) != var_of(w)),
                };
                if !fifo {
                    return Err(Unconfirmed::Overtakes { step: i, write: w });
                }
                q.remove(pos);
                committed[w] = true;
                memory[var_of(w)] = Some(w);
                co[var_of(w)].push(w);
            }
        }
    }
    if next != upto || pending.iter().any(|q| !q.is_empty()) {
        return Err(Unconfirmed::Unfinished);
    }
    let sc = sc_sources(trace, upto);
    if let Some(r) = (0..ei).find(|&r| src[r] != sc[r]) {
        return Err(Unconfirmed::OtherSource {
            read: r,
            found: src[r],
            sc: sc[r],
        });
    }
    // The happens-before graph of the run.
    let mut succ: Vec<Vec<(EventId, HbKind)>> = vec![Vec::new(); upto];
    let mut last_of: TiVec<ThreadId, Option<EventId>> = trace.per_thread(None);
    let mut co_pos = vec![usize::MAX; upto];
    for order in &co {
        for (i, &w) in order.iter().enumerate() {
            co_pos[w] = i;
            if i > 0 {
                succ[order[i - 1]].push((w, HbKind::Co));
            }
        }
    }
    for (e, ev) in trace.events[..upto].iter().enumerate() {
        if let Some(p) = last_of[ev.thread] {
            succ[p].push((e, HbKind::Po));
        }
        last_of[ev.thread] = Some(e);
        if let (Some(x), Op::Rd | Op::Rmw) = (ev.var, ev.op) {
            if let Some(w) = src[e] {
                if w != e {
                    succ[w].push((e, HbKind::Rf));
                }
            }
            // from-read: to the first write after the source in commit order.
            let after = src[e].map_or(0, |w| co_pos[w] + 1);
            if let Some(&w) = co[x].get(after) {
                if w != e {
                    succ[e].push((w, HbKind::Fr));
                }
            }
        }
    }
    cycle_through(&succ, report.e).ok_or(Unconfirmed::NoHbCycle { store: report.e })
}

/// A shortest cycle through `start` of a graph given by successor lists, as edges.
fn cycle_through(
    succ: &[Vec<(EventId, HbKind)>],
    start: EventId,
) -> Option<Vec<(EventId, EventId, HbKind)>> {
    let n = succ.len();
    {
        // BFS from start's successors back to start.
        let mut pred: Vec<Option<(EventId, HbKind)>> = vec![None; n];
        let mut queue = VecDeque::new();
        for &(v, kind) in &succ[start] {
            if pred[v].is_none() {
                pred[v] = Some((start, kind));
                queue.push_back(v);
            }
        }
        while let Some(u) = queue.pop_front() {
            if u == start {
                let mut out = Vec::new();
                let mut v = start;
                loop {
                    let (p, kind) = pred[v].expect("on the BFS tree");
                    out.push((p, v, kind));
                    v = p;
                    if v == start {
                        break;
                    }
                }
                out.reverse();
                return Some(out);
            }
            for &(v, kind) in &succ[u] {
                if pred[v].is_none() {
                    pred[v] = Some((u, kind));
                    queue.push_back(v);
                }
            }
        }
    }
    None
}
