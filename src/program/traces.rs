//! Runs as traces (`explore --emit-traces`): an SC run is an SC trace for the monitors
//! (events in run order); a TSO/PSO run gives the trace of its issue order, for
//! `tsoser check` (stores at issue; SEMANTICS.md §1). Outermost `begin … end` blocks are
//! transactions; an event outside them is a transaction of its own.

use super::explore::{replay, Effect, Machine, Model, Settled, Step};
use super::Program;
use crate::trace::{Op, Trace, TraceBuilder};
use std::collections::HashSet;

/// The trace of a replayed run.
pub fn run_trace(p: &Program, run: &super::explore::Run) -> Result<Trace, crate::Error> {
    let mut b = TraceBuilder::new().name(p.name.clone());
    for e in &run.events {
        let (t, op, x, val) = match e.effect {
            Effect::Load { t, x, val, .. } => (t, Op::Rd, Some(x), Some(val)),
            Effect::Store { t, x, val } => (t, Op::Wr, Some(x), Some(val)),
            Effect::Fence { t } => (t, Op::Fence, None, None),
            Effect::Rmw { t, x, old, .. } => (t, Op::Rmw, Some(x), Some(old)),
            Effect::Commit { .. } => continue,
        };
        let th = &p.threads[t].name;
        let txn = e.txn.map(|n| format!("{th}.t{n}"));
        b.push_at(
            th,
            txn.as_deref(),
            op,
            x.map(|x| p.locs[x].as_str()),
            val.map(|v| v.to_string()),
            0,
        );
    }
    b.build()
}

/// Up to `limit` distinct traces of complete runs of `p` under `model`, depth-first.
pub fn traces(p: &Program, model: Model, unroll: u32, limit: usize) -> Vec<Trace> {
    let m = Machine::new(p, model, unroll);
    let (s0, st) = m.initial();
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    if st != Settled::Ok {
        return out;
    }
    let mut path: Vec<Step> = Vec::new();
    // Depth-first over schedules; each frame holds the steps left to try.
    let mut stack: Vec<(super::explore::State, Vec<Step>)> = Vec::new();
    let mut steps = Vec::new();
    m.enabled(&s0, &mut steps);
    stack.push((s0, steps.clone()));
    while let Some((s, todo)) = stack.last_mut() {
        if out.len() >= limit {
            break;
        }
        let Some(step) = todo.pop() else {
            stack.pop();
            path.pop();
            continue;
        };
        let mut s2 = s.clone();
        let (_, st) = m.apply(&mut s2, step);
        if st != Settled::Ok || s2.buf.iter().any(|b| b.len() > super::explore::MAX_BUFFER) {
            continue;
        }
        path.push(step);
        if m.is_final(&s2) {
            if let Ok(run) = replay(&m, &path) {
                if let Ok(t) = run_trace(p, &run) {
                    let key = crate::trace::parse::to_yaml(&t);
                    if seen.insert(key) {
                        out.push(t);
                    }
                }
            }
            path.pop();
            continue;
        }
        m.enabled(&s2, &mut steps);
        stack.push((s2, steps.clone()));
    }
    out
}
