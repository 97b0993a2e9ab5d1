//! Runs as traces (`explore --emit-traces`): an SC run is an SC trace for the monitors
//! (events in run order); a TSO/PSO run gives the trace of its issue order, for
//! `tsoser check` (stores at issue; docs/semantics.md §1). Outermost `begin … end` blocks are
//! transactions; an event outside them is a transaction of its own.

use super::explore::{replay, Effect, Machine, Model, Settled, Step};
use super::Program;
use crate::trace::exec::{Execution, Step as ExecStep};
use crate::trace::{Op, Trace, TraceBuilder};
use std::collections::HashMap;

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

/// The trace of a replayed TSO or PSO run with the run itself as an execution of it
/// (docs/semantics.md §2): each store's commit placed where the run committed it.
/// Err says why (a bug of the explorer or of the execution rules, never of the input).
pub fn run_execution(p: &Program, run: &super::explore::Run) -> Result<(Trace, Execution), String> {
    let trace = run_trace(p, run).map_err(|e| e.to_string())?;
    let mut pending: Vec<Vec<usize>> = vec![Vec::new(); p.threads.len()];
    let mut steps = Vec::with_capacity(run.events.len());
    let mut next = 0;
    for e in &run.events {
        match e.effect {
            Effect::Commit { t, index, .. } => {
                let w = pending[t].remove(index);
                steps.push(ExecStep::Commit(w));
            }
            Effect::Store { t, .. } => {
                pending[t].push(next);
                steps.push(ExecStep::Event(next));
                next += 1;
            }
            _ => {
                steps.push(ExecStep::Event(next));
                next += 1;
            }
        }
    }
    // An SC run commits each store at its issue.
    if run
        .events
        .iter()
        .all(|e| !matches!(e.effect, Effect::Commit { .. }))
    {
        let exec = Execution::sc(&trace);
        return Ok((trace, exec));
    }
    let exec = Execution::new(&trace, steps)
        .map_err(|m| format!("the run is not an execution of its trace: {m}"))?;
    Ok((trace, exec))
}

/// Why [`traces`] stopped.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum EmitStop {
    /// Every schedule was enumerated: these are all the distinct traces.
    #[default]
    Complete,
    /// `limit` traces were found; more may exist.
    MaxTraces,
    /// The schedule enumeration took `max_steps` steps; more traces may exist.
    MaxSteps,
    /// A register-only loop ran past [`super::explore::MAX_LOCAL_STEPS`] steps.
    Spin,
}

impl EmitStop {
    /// The name in `--json`: `complete`, `max-traces`, `max-steps`.
    pub fn name(self) -> &'static str {
        match self {
            EmitStop::Complete => "complete",
            EmitStop::MaxTraces => "max-traces",
            EmitStop::MaxSteps => "max-steps",
            EmitStop::Spin => "spin",
        }
    }
}

/// The distinct traces of complete runs found, and why the enumeration stopped.
#[derive(Default)]
pub struct Emitted {
    pub traces: Vec<Trace>,
    pub stop: EmitStop,
    /// Steps applied while enumerating schedules.
    pub steps: usize,
}

/// Up to `limit` distinct traces of complete runs of `p` under `model`, depth-first
/// over schedules, within `max_steps` applied steps (a program whose loops spin on
/// each other has exponentially many cut runs: bug emit_traces_stops_on_spinning_programs).
pub fn traces(p: &Program, model: Model, unroll: u32, limit: usize, max_steps: usize) -> Emitted {
    traces_with(p, model, unroll, limit, max_steps, &mut |_, _, _| {})
}

/// [`traces`], calling `on_run(i, trace, run)` on every complete run found, with the
/// index of its trace among the distinct ones.
pub fn traces_with(
    p: &Program,
    model: Model,
    unroll: u32,
    limit: usize,
    max_steps: usize,
    on_run: &mut dyn FnMut(usize, &Trace, &super::explore::Run),
) -> Emitted {
    let m = Machine::new(p, model, unroll);
    let (s0, st) = m.initial();
    let mut out = Emitted {
        traces: Vec::new(),
        stop: EmitStop::Complete,
        steps: 0,
    };
    let mut seen = HashMap::new();
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
        if out.traces.len() >= limit {
            out.stop = EmitStop::MaxTraces;
            break;
        }
        let Some(step) = todo.pop() else {
            stack.pop();
            path.pop();
            continue;
        };
        if out.steps >= max_steps {
            out.stop = EmitStop::MaxSteps;
            break;
        }
        out.steps += 1;
        let mut s2 = s.clone();
        let (_, st) = m.apply(&mut s2, step);
        if st == Settled::Spin {
            out.stop = EmitStop::Spin;
            break;
        }
        if st != Settled::Ok || s2.buf.iter().any(|b| b.len() > super::explore::MAX_BUFFER) {
            continue;
        }
        path.push(step);
        if m.is_final(&s2) {
            if let Ok(run) = replay(&m, &path) {
                if let Ok(t) = run_trace(p, &run) {
                    let key = crate::trace::parse::to_yaml(&t);
                    let i = match seen.get(&key) {
                        Some(&i) => i,
                        None => {
                            seen.insert(key, out.traces.len());
                            out.traces.push(t);
                            out.traces.len() - 1
                        }
                    };
                    on_run(i, &out.traces[i], &run);
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

/// The file name of the `i`-th emitted trace (1-based): the program's name with every
/// character but ASCII letters, digits, `-` and `_` replaced by `_` (at most 64), so a
/// hostile name (`../../x`, control characters) cannot leave the folder or make a file
/// tsoser cannot read back (bug: emit_traces_stays_inside_its_folder).
pub fn file_name(program: &str, model: Model, i: usize) -> String {
    let mut stem = crate::text::file_stem(program.chars().take(64), &['-', '_']);
    if stem.is_empty() {
        stem = "program".into();
    }
    format!("{stem}-{}-{i:04}.yaml", model.name())
}
