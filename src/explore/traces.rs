//! Runs as traces (`explore --emit-traces`): an SC run is an SC trace for the monitors
//! (events in run order); a TSO/PSO run gives the trace of its issue order, for
//! `tsoser check` (stores at issue; docs/semantics.md §1). Outermost `begin … end` blocks are
//! transactions; an event outside them is a transaction of its own.

use super::machine::{Effect, Machine, Model, Settled, State, Step, MAX_BUFFER};
use super::replay::{Run, RunBuilder};
use crate::program::Program;
use crate::trace::exec::{Execution, Step as ExecStep};
use crate::trace::{Op, Trace, TraceBuilder};
use std::collections::HashMap;

/// One memory step of a run: what it did, and the transaction (per thread, 1-based
/// count) it is in, if inside `begin … end`. Commits are steps too.
pub type Issued = (Effect, Option<u32>);

/// Whether a step's effect is an event of the run's trace ([`trace_of`]): every one
/// but commits and joins (a spawn is a fence).
pub fn in_trace(e: &Effect) -> bool {
    !matches!(
        e,
        Effect::Commit { .. } | Effect::Join { .. } | Effect::Choose { .. }
    )
}

/// The trace of a run's steps (commits left out); with `values`, reads and writes
/// carry the values they read and wrote.
pub fn trace_of(p: &Program, run: &[Issued], values: bool) -> Result<Trace, crate::Error> {
    let mut b = TraceBuilder::new().name(p.name.clone());
    for &(effect, txn) in run {
        let (t, op, x, val) = match effect {
            Effect::Load { t, x, val, .. } => (t, Op::Rd, Some(x), Some(val)),
            Effect::Store { t, x, val, .. } => (t, Op::Wr, Some(x), Some(val)),
            // A spawn drains its thread's buffer, as a fence does.
            Effect::Fence { t } | Effect::Spawn { t, .. } => (t, Op::Fence, None, None),
            Effect::Rmw { t, x, old, .. } => (t, Op::Rmw, Some(x), Some(old)),
            Effect::Commit { .. } | Effect::Join { .. } | Effect::Choose { .. } => continue,
        };
        let th = &p.threads[t].name;
        let txn = txn.map(|n| format!("{th}.t{n}"));
        b.push_at(
            th,
            txn.as_deref(),
            op,
            x.map(|x| p.locs[x].as_str()),
            val.filter(|_| values).map(|v| v.to_string()).as_deref(),
            0,
        );
    }
    b.build()
}

/// Why a run is not an execution of its trace (a bug of the explorer or of the
/// execution rules, never of the input).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum NotAnExecutionRun {
    #[error("a commit of thread {thread} with nothing buffered")]
    NothingBuffered { thread: usize },
    #[error("the run is not an execution of its trace: {0}")]
    NotAnExecution(#[from] crate::trace::exec::NotAnExecution),
}

/// A run (with its commits) as an execution of its trace (docs/semantics.md §2): each
/// store's commit placed where the run committed it. Err says why (a bug of the
/// explorer or of the execution rules, never of the input).
pub fn run_execution(trace: &Trace, run: &[Issued]) -> Result<Execution, NotAnExecutionRun> {
    if run.iter().all(|e| !matches!(e.0, Effect::Commit { .. })) {
        // An SC run commits each store at its issue.
        return Ok(Execution::sc(trace));
    }
    // Per program thread, its buffered stores' events, oldest first.
    let mut pending: Vec<Vec<usize>> = Vec::new();
    let mut steps = Vec::with_capacity(run.len());
    let mut next = 0;
    for &(effect, _) in run {
        let buffer = |pending: &mut Vec<Vec<usize>>, t: usize| {
            if pending.len() <= t {
                pending.resize(t + 1, Vec::new());
            }
        };
        match effect {
            Effect::Commit { t, index, .. } => {
                buffer(&mut pending, t);
                if index >= pending[t].len() {
                    return Err(NotAnExecutionRun::NothingBuffered { thread: t });
                }
                steps.push(ExecStep::Commit(pending[t].remove(index)));
            }
            // Joins and nondet choices are no events of the trace.
            e if !in_trace(&e) => {}
            _ => {
                steps.push(ExecStep::Event(next));
                match effect {
                    Effect::Store {
                        t, buffered: true, ..
                    } => {
                        buffer(&mut pending, t);
                        pending[t].push(next);
                    }
                    // Written at once (inside an exclusive block): committed at issue.
                    Effect::Store { .. } => steps.push(ExecStep::Commit(next)),
                    _ => {}
                }
                next += 1;
            }
        }
    }
    Ok(Execution::new(trace, steps)?)
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
    /// A register-only loop ran past [`super::machine::MAX_LOCAL_STEPS`] steps.
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

/// Up to `limit` distinct traces of complete runs of `p` under `model` (with the
/// values read and written), depth-first over schedules, within `max_steps` applied
/// steps (a program whose loops spin on each other has exponentially many cut runs:
/// bug emit_traces_stops_on_spinning_programs).
pub fn traces(p: &Program, model: Model, unroll: u32, limit: usize, max_steps: usize) -> Emitted {
    traces_with(p, model, unroll, limit, max_steps, true, &mut |_, _, _| {})
}

/// [`traces`], telling traces apart by their values only if `values` (without, two
/// runs with the same events in the same order are one trace, without values), and
/// calling `on_run(i, trace, run)` on every complete run found, with the index of its
/// trace among the distinct ones.
pub fn traces_with(
    p: &Program,
    model: Model,
    unroll: u32,
    limit: usize,
    max_steps: usize,
    values: bool,
    on_run: &mut dyn FnMut(usize, &Trace, &[Issued]),
) -> Emitted {
    let m = Machine::new(p, model, unroll);
    let (s0, st) = m.initial();
    let mut out = Emitted {
        traces: Vec::new(),
        stop: EmitStop::Complete,
        steps: 0,
    };
    // Each distinct trace by a compact key: per event, thread, kind, location,
    // transaction and (with `values`) value.
    let mut seen: HashMap<Vec<i64>, usize> = HashMap::new();
    let mut key = Vec::new();
    if st != Settled::Ok {
        return out;
    }
    // The steps of the current path, each with its effect.
    let mut path: Vec<Issued> = Vec::new();
    // Depth-first over schedules; each frame holds the steps left to try.
    let mut stack: Vec<(State, Vec<Step>)> = Vec::new();
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
        let t = step.thread();
        let txn = (s.depth[t] > 0).then_some(s.txns[t]);
        let mut s2 = s.clone();
        let (effect, st) = m.apply(&mut s2, step);
        if st == Settled::Spin {
            out.stop = EmitStop::Spin;
            break;
        }
        if st != Settled::Ok || s2.buf.iter().any(|b| b.len() > MAX_BUFFER) {
            continue;
        }
        path.push((effect, txn));
        if m.is_final(&s2) {
            key.clear();
            for &(e, txn) in &path {
                let (t, kind, x, v) = match e {
                    Effect::Load { t, x, val, .. } => (t, 0, x, val),
                    Effect::Store { t, x, val, .. } => (t, 1, x, val),
                    Effect::Fence { t } | Effect::Spawn { t, .. } => (t, 2, 0, 0),
                    Effect::Rmw { t, x, old, .. } => (t, 3, x, old),
                    Effect::Commit { .. } | Effect::Join { .. } | Effect::Choose { .. } => continue,
                };
                let v = if values { v } else { 0 };
                key.extend([t as i64, kind, x as i64, txn.map_or(-1, i64::from), v]);
            }
            let i = match seen.get(&key) {
                Some(&i) => Some(i),
                None => match trace_of(p, &path, values) {
                    Ok(t) => {
                        seen.insert(key.clone(), out.traces.len());
                        out.traces.push(t);
                        Some(out.traces.len() - 1)
                    }
                    Err(_) => None,
                },
            };
            if let Some(i) = i {
                on_run(i, &out.traces[i], &path);
            }
            path.pop();
            continue;
        }
        m.enabled(&s2, &mut steps);
        stack.push((s2, steps.clone()));
    }
    out
}

/// The distinct runs with values ([`value_run`]) of the complete runs of the first
/// `limit` distinct traces (runs that differ only in when stores committed unseen are
/// one run), and why the enumeration stopped.
pub fn value_runs(
    p: &Program,
    model: Model,
    unroll: u32,
    limit: usize,
    max_steps: usize,
) -> (Vec<crate::consistency::ValueRun>, EmitStop) {
    let mut seen = std::collections::HashSet::new();
    let mut runs = Vec::new();
    let em = traces_with(
        p,
        model,
        unroll,
        limit,
        max_steps,
        true,
        &mut |_, _, run| {
            let r = value_run(p, model, run);
            if seen.insert(r.to_yaml()) {
                runs.push(r);
            }
        },
    );
    (runs, em.stop)
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

/// The steps of a run as a [`Run`] (events with reads-from, commit orders; no text),
/// as the robustness check sees it.
pub fn run_of(m: &Machine, run: &[Issued]) -> Run {
    let mut b = RunBuilder::new(m);
    for (at, &(effect, txn)) in run.iter().enumerate() {
        b.push(at, effect, txn, String::new());
    }
    b.finish()
}

/// A complete run as a *run with values* for `tsoser consistent` (docs/formats.md "Runs
/// with values"): each store listed where it reached memory (SC and rmws: at issue; TSO
/// and PSO: at its commit), every other event where it ran or, if later, after its
/// thread's previous event (program order is the file's order per thread). Values are
/// renamed as Qadeer's Assumption 2 allows: the k-th write of a location in memory's
/// order writes k, the initial value is 0, and each read returns the name of the write
/// it read (a failed CAS, which writes its old value back, gets a name of its own).
///
/// Under TSO the file's write order is memory's (stores of a thread commit in order);
/// under PSO a store may be listed after a later-committed one of its location, held
/// back by an earlier store of its thread to another location.
pub fn value_run(p: &Program, model: Model, run: &[Issued]) -> crate::consistency::ValueRun {
    use crate::consistency::run::{Kind, RunEvent, INIT};
    let Run { events, co, .. } = run_of(&Machine::new(p, model, 0), run);
    // Each event where it ran, a store where it reached memory (a complete run has
    // committed them all).
    let mut placed: Vec<usize> = events
        .iter()
        .map(|e| e.committed.unwrap_or(e.step))
        .collect();
    // A commit moves its store later, and the thread's events after it with it.
    let mut by_thread: Vec<Vec<usize>> = vec![Vec::new(); p.threads.len()];
    for (i, e) in events.iter().enumerate() {
        by_thread[e.effect.thread()].push(i);
    }
    for evs in &by_thread {
        for k in 1..evs.len() {
            placed[evs[k]] = placed[evs[k]].max(placed[evs[k - 1]]);
        }
    }
    // A join is no memory event: it is left out.
    let mut order: Vec<usize> = (0..events.len())
        .filter(|&i| !matches!(events[i].effect, Effect::Join { .. }))
        .collect();
    order.sort_by_key(|&i| (placed[i], i));
    let mut new_id = vec![0; events.len()];
    for (k, &i) in order.iter().enumerate() {
        new_id[i] = k;
    }
    let mut name: Vec<usize> = vec![0; events.len()];
    for ws in &co {
        for (k, &w) in ws.iter().enumerate() {
            name[w] = k + 1;
        }
    }
    let value = |rf: Option<usize>| rf.map_or(INIT.to_string(), |w| name[w].to_string());
    let mut writes: Vec<Vec<usize>> = vec![Vec::new(); p.locs.len()];
    let out: Vec<RunEvent> = order
        .iter()
        .map(|&i| {
            let (e, rf) = (events[i].effect, events[i].rf);
            let (kind, loc, val, old) = match e {
                Effect::Load { x, .. } => (Kind::Read, Some(x), value(rf), None),
                Effect::Store { x, .. } => (Kind::Write, Some(x), name[i].to_string(), None),
                Effect::Rmw { x, .. } => (Kind::Rmw, Some(x), name[i].to_string(), Some(value(rf))),
                _ => (Kind::Fence, None, String::new(), None),
            };
            if let (true, Some(x)) = (kind.writes(), loc) {
                writes[x].push(new_id[i]);
            }
            RunEvent {
                thread: e.thread(),
                kind,
                loc,
                rf: rf.map(|w| new_id[w]),
                val,
                old,
                line: 0,
            }
        })
        .collect();
    crate::consistency::ValueRun {
        name: Some(p.name.clone()),
        threads: p.threads.iter().map(|t| t.name.clone()).collect(),
        locs: p.locs.clone(),
        init: INIT.to_string(),
        events: out,
        writes,
    }
}
