//! What `tsoser explore` and `tsoser suite` print: outcomes, the final condition,
//! assertion failures, deadlocks and robustness, as text and as the stable JSON
//! documented in docs/json.md; a replayed schedule; why a search stopped.

use super::json::*;
use crate::explore::machine::{Machine, Model, Settled, Step, MAX_BUFFER, MAX_LOCAL_STEPS};
use crate::explore::replay::{replay, schedule_text, Run};
use crate::explore::robust::{hb_cycle, Cycle, Robustness, TooMany};
use crate::explore::suite::{Row, Summary};
use crate::explore::{stated, Exploration, Incomplete, Report};
use crate::program::{Instr, Program};
use serde_json::{json, Value};

/// Why a search stopped with *unknown*, naming the flag that moves the bound.
pub fn incomplete_text(i: Incomplete) -> String {
    match i {
        Incomplete::MaxStates => "the --max-states budget ran out".into(),
        Incomplete::BufferLimit => format!(
            "a store buffer grew past {MAX_BUFFER} entries (a loop of stores; --max-states does not help, a smaller --unroll does)"
        ),
        Incomplete::Spin => format!(
            "a register-only loop ran {MAX_LOCAL_STEPS} steps without touching memory (lower --unroll)"
        ),
        Incomplete::MaxExecutions => "the --max-executions budget ran out".into(),
        Incomplete::Timeout => "the --timeout ran out".into(),
        Incomplete::StoppedAtFailure => {
            "the exploration ended at the first failed assertion (--stop-at-failure)".into()
        }
        Incomplete::Memory => {
            format!(
                "the states held passed the memory budget (--max-memory; {})",
                crate::mem::DEFAULT_BUDGET
            )
        }
        Incomplete::Frontier => TooMany.to_string(),
    }
}

/// The bounds that cut runs: the program's own per-entry loop bound, else `--unroll`;
/// and the heap's pools when the program allocates.
fn bound_text(p: &Program, unroll: Option<u32>) -> String {
    let loops = match p.loop_bound {
        Some(n) => format!("the loop bound (--unroll {n} per loop entry)"),
        None => format!(
            "the unrolling bound (--unroll {})",
            unroll.unwrap_or_default()
        ),
    };
    match p.heap {
        Some(k) => format!("{loops} or the heap bound (--heap {k})"),
        None => loops,
    }
}

/// Where runs stop when none completes: each cut instruction, and the bound.
fn why_no_run(p: &Program, e: &Exploration, unroll: Option<u32>) -> String {
    let mut at: Vec<String> = e
        .cut_at
        .iter()
        .take(3)
        .map(|c| {
            let how = match p.threads[c.thread].code[c.pc] {
                Instr::Lock(_) => "finds the lock taken",
                Instr::Join(_) => "waits, inside an exclusive block, for a thread that cannot run",
                _ => "is false",
            };
            format!(
                "{}'s `{}` ({}) {how}",
                p.threads[c.thread].name,
                p.show_instr(c.thread, c.pc),
                line_text(c.line)
            )
        })
        .collect();
    if e.cut_at.len() > 3 {
        at.push(format!("{} more", e.cut_at.len() - 3));
    }
    if e.bound > 0 {
        at.push(format!("{} is hit", bound_text(p, unroll)));
    }
    format!(
        "no run completes: every run is cut where {}",
        at.join(", or ")
    )
}

/// Why robustness is unknown, when not for the budget.
fn robustness_note(p: &Program, r: &Report) -> Option<String> {
    let e = &r.exploration;
    if r.robust_cut {
        return Some(if e.outcomes.is_empty() {
            "no run completes: only run prefixes were searched".to_string()
        } else if e.bound == 0 {
            "a `nondet` takes only part of its type's values: the other values are not explored"
                .to_string()
        } else {
            format!(
                "{} runs were cut by {}: longer runs are not explored",
                e.bound,
                bound_text(p, r.unroll)
            )
        });
    }
    r.robustness
        .as_ref()
        .and_then(|rb| rb.incomplete)
        .map(incomplete_text)
}

/// `line N`; a program built in memory has no source lines (0): never "line 0".
fn line_text(line: usize) -> String {
    match line {
        0 => "no source line".into(),
        l => format!("line {l}"),
    }
}

/// A replayed run's steps, numbered.
fn numbered(run: &Run) -> Vec<String> {
    run.steps
        .iter()
        .enumerate()
        .map(|(i, t)| format!("{:>3}. {t}", i + 1))
        .collect()
}

/// The run to the assertion failure, step by step, then the failure.
fn failure_lines(p: &Program, r: &Report) -> Vec<String> {
    let (Some(f), Some(run)) = (&r.exploration.failure, &r.failure) else {
        return Vec::new();
    };
    let mut steps = numbered(run);
    steps.push(format!(
        "{}: {} ({})",
        p.threads[f.thread].name,
        p.failure_reason(f.thread, f.pc),
        line_text(f.line)
    ));
    steps
}

/// The run to the self-deadlock, step by step, then the lock that waits.
fn deadlock_lines(p: &Program, r: &Report) -> Vec<String> {
    let Some(d) = &r.deadlock else {
        return Vec::new();
    };
    let mut steps = numbered(&d.run);
    steps.push(format!(
        "{}: `{}` waits forever ({}): {} took it at {}",
        p.threads[d.thread].name,
        p.show_instr(d.thread, d.pc),
        line_text(d.line),
        p.threads[d.thread].name,
        line_text(d.held_since),
    ));
    steps
}

/// A happens-before cycle's edges, one a line.
fn cycle_lines(run: &Run, cycle: &Cycle) -> Vec<String> {
    cycle
        .iter()
        .map(|(a, b, k)| {
            format!(
                "e{} {}  --{}-->  e{} {}",
                a + 1,
                run.events[*a].text,
                k.name(),
                b + 1,
                run.events[*b].text
            )
        })
        .collect()
}

/// The robustness witness's steps and its cycle.
fn witness_lines(r: &Report) -> (Vec<String>, Vec<String>) {
    match &r.witness {
        Some((run, cycle)) => (numbered(run), cycle_lines(run, cycle)),
        None => (Vec::new(), Vec::new()),
    }
}

/// The outcome as `name=value` pairs.
fn outcome_text(p: &Program, e: &Exploration, vals: &[i64]) -> String {
    e.places
        .iter()
        .zip(vals)
        .map(|(pl, v)| format!("{}={v}", p.place_name(pl)))
        .collect::<Vec<_>>()
        .join(" ")
}

fn holds(p: &Program, e: &Exploration, vals: &[i64]) -> Option<bool> {
    let f = p.final_cond.as_ref()?;
    Some(
        f.cond
            .eval(&|pl| vals[e.places.iter().position(|q| q == pl).expect("observed")]),
    )
}

/// The text report.
pub fn text(p: &Program, file: &str, r: &Report) -> String {
    let e = &r.exploration;
    let model = e.model.name().to_uppercase();
    let explored = match &r.dpor {
        None if r.engine.unbounded() => format!("{} states reached, no loop bound", e.states),
        None => format!("{} states", e.states),
        Some(d) => format!(
            "{} execution{} explored by DPOR ({} sleep-set blocked, {} events)",
            d.executions,
            if d.executions == 1 { "" } else { "s" },
            d.sleep_blocked,
            d.events
        ),
    };
    let mut s = format!(
        "{} ({file}) under {model}: {} outcome{}, {explored}{}\n",
        p.name,
        e.outcomes.len(),
        if e.outcomes.len() == 1 { "" } else { "s" },
        match e.incomplete {
            None => String::new(),
            Some(i) => format!(" — unknown: {}; results partial", incomplete_text(i)),
        }
    );
    if r.no_run {
        s += &format!("{}\n", why_no_run(p, e, r.unroll));
    }
    for (vals, runs) in &e.outcomes {
        let mark = match holds(p, e, vals) {
            Some(true) => "  *",
            _ => "",
        };
        let count = match (*runs, r.dpor.is_some()) {
            (1, false) if r.engine.unbounded() => "1 final state".to_string(),
            (n, false) if r.engine.unbounded() => format!("{n} final states"),
            (1, false) => "1 run".to_string(),
            (u64::MAX, false) => "≥ 2⁶⁴−1 runs: the count saturated".to_string(),
            (n, false) => format!("{n} runs"),
            (1, true) => "1 execution explored".to_string(),
            (n, true) => format!("{n} executions explored"),
        };
        s += &format!("  {}  ({count}){mark}\n", outcome_text(p, e, vals));
    }
    s += &condition_text(p, e, &model);
    let what = if r.dpor.is_some() {
        "executions"
    } else {
        "runs"
    };
    if e.cut > 0 {
        s += &format!("{what} cut by assume (or a lock found taken): {}\n", e.cut);
    }
    if let Some(d) = r.dpor.filter(|d| d.lock_waits > 0) {
        s += &format!(
            "executions stopped at a lock found taken: {} (a Nidhugg thread waits there instead: it counts the other {} as traces)\n",
            d.lock_waits,
            d.executions - d.lock_waits
        );
    }
    if e.bound > 0 {
        s += &format!(
            "BOUND HIT: {} {what} cut by {}: the answers hold up to it\n",
            e.bound,
            bound_text(p, r.unroll)
        );
    }
    if let Some(line) = e.nondet_cut {
        s += &format!(
            "NONDET CUT: a `nondet` ({}) takes only part of its type's values: the answers hold for those values only\n",
            line_text(line)
        );
    }
    s += &failures_text(p, r);
    if let Some(rb) = &r.robustness {
        s += &robustness_text(p, r, rb, &model);
    }
    s
}

/// The final condition's answer, and the test's own answer when it states one.
fn condition_text(p: &Program, e: &Exploration, model: &str) -> String {
    let Some(f) = &p.final_cond else {
        return String::new();
    };
    let verdict = match e.condition(p) {
        Some(true) => "holds",
        Some(false) => "does not hold",
        None => "unknown (the exploration did not finish)",
    };
    let mut s = format!(
        "condition: {} {}: {verdict}   (* marks outcomes satisfying it)\n",
        f.quantifier,
        cond_body(&f.text)
    );
    if let Some((q, agrees)) = stated(p, e) {
        let word = match agrees {
            Some(true) => "agrees",
            Some(false) => "DISAGREES",
            None => "unknown",
        };
        s += &format!("the test states under {model}: {q} — {word}\n");
    }
    s
}

/// The assertions' answer and a self-deadlock, each with a run to replay.
fn failures_text(p: &Program, r: &Report) -> String {
    let mut s = String::new();
    match &r.exploration.failure {
        None => {
            if p.threads
                .iter()
                .any(|t| t.code.iter().any(|i| matches!(i, Instr::Assert(_))))
            {
                s += "assertions: none fails\n";
            }
        }
        Some(f) => {
            s += &format!(
                "assertion FAILS: replay with --replay \"{}\"\n",
                schedule_text(p, &f.schedule)
            );
            for l in failure_lines(p, r) {
                s += &format!("  {l}\n");
            }
        }
    }
    if let Some(d) = &r.deadlock {
        s += &format!(
            "DEADLOCK: {} takes a lock it holds: replay with --replay \"{}\"\n",
            p.threads[d.thread].name,
            schedule_text(p, &d.schedule)
        );
        for l in deadlock_lines(p, r) {
            s += &format!("  {l}\n");
        }
    }
    s
}

/// The robustness answer, with a witness run and its cycle when not robust.
fn robustness_text(p: &Program, r: &Report, rb: &Robustness, model: &str) -> String {
    let note = robustness_note(p, r);
    match rb.robust {
        Some(true) if r.robust_cut => format!(
            "robust: unknown — no {model} run or run prefix searched has a happens-before cycle, but {} ({})\n",
            note.as_deref().unwrap_or("runs were cut"),
            searched(r, rb)
        ),
        Some(true) => format!(
            "robust: yes — every {model} run is SC ({})\n",
            searched(r, rb)
        ),
        None => {
            let why = note.as_deref().unwrap_or("budget exhausted");
            format!("robust: unknown ({why})\n")
        }
        Some(false) => {
            let w = rb.witness.as_ref().unwrap();
            let mut s = format!(
                "robust: NO — a {}{model} run whose happens-before has a cycle ({} steps; replay with --replay \"{}\"):\n",
                if r.dpor.is_some() { "" } else { "shortest " },
                w.len(),
                schedule_text(p, w)
            );
            let (steps, cycle) = witness_lines(r);
            for l in &steps {
                s += &format!("  {l}\n");
            }
            s += "  cycle (events numbered in issue order):\n";
            for l in &cycle {
                s += &format!("    {l}\n");
            }
            s
        }
    }
}

/// What the robustness search went through.
fn searched(r: &Report, rb: &Robustness) -> String {
    match r.dpor {
        Some(_) => format!(
            "{} executions checked for a happens-before cycle",
            rb.states
        ),
        None => format!("{} states with happens-before", rb.states),
    }
}

fn cond_body(text: &str) -> &str {
    let t = text.trim();
    for q in ["~exists", "exists", "forall"] {
        if let Some(rest) = t.strip_prefix(q) {
            return rest.trim();
        }
    }
    t.strip_prefix('~').map_or(t, |r| {
        r.trim_start().strip_prefix("exists").unwrap_or(r).trim()
    })
}

/// The JSON report (docs/json.md, "`explore --json`"), with the exit code the
/// command ends with.
pub fn json(p: &Program, file: &str, r: &Report, exit: u8) -> Value {
    let e = &r.exploration;
    let outcomes = e
        .outcomes
        .iter()
        .map(|(vals, runs)| {
            let mut values = serde_json::Map::new();
            for (pl, v) in e.places.iter().zip(vals) {
                values.insert(p.place_name(pl), json!(v));
            }
            OutcomeJson {
                values,
                runs: *runs,
                satisfies: holds(p, e, vals),
            }
        })
        .collect();
    let condition = p.final_cond.as_ref().map(|f| ConditionJson {
        quantifier: f.quantifier.name(),
        text: f.text.clone(),
        holds: e.condition(p),
        stated: stated(p, e).map(|(q, agrees)| json!({"quantifier": q.name(), "agrees": agrees})),
    });
    let assertion_failure = e.failure.as_ref().map(|f| FailureJson {
        thread: p.threads[f.thread].name.clone(),
        line: f.line,
        schedule: schedule_text(p, &f.schedule),
        steps: failure_lines(p, r),
    });
    let deadlock = r.deadlock.as_ref().map(|d| DeadlockJson {
        thread: p.threads[d.thread].name.clone(),
        line: d.line,
        held_since: d.held_since,
        schedule: schedule_text(p, &d.schedule),
        steps: deadlock_lines(p, r),
    });
    let robustness = r.robustness.as_ref().map(|rb| RobustnessJson {
        robust: r.robust(),
        states: rb.states,
        note: robustness_note(p, r),
        witness: rb.witness.as_ref().map(|w| {
            let (steps, cycle) = witness_lines(r);
            RobustnessWitness {
                schedule: schedule_text(p, w),
                steps,
                cycle,
            }
        }),
    });
    serde_json::to_value(ExploreReport {
        schema: schema(),
        file: file.to_string(),
        program: p.name.clone(),
        model: e.model.name(),
        complete: e.complete,
        incomplete: e.incomplete.map(incomplete_text),
        engine: r.engine.name(),
        states: e.states,
        dpor: r.dpor.map(|d| DporJson {
            executions: d.executions,
            sleep_blocked: d.sleep_blocked,
            lock_waits: d.lock_waits,
        }),
        outcomes,
        condition,
        cut: e.cut,
        bound_hit: e.bound,
        unroll: r.unroll,
        nondet_cut: e.nondet_cut,
        assertion_failure,
        deadlock,
        no_run: r.no_run.then(|| why_no_run(p, e, r.unroll)),
        robustness,
        exit,
    })
    .expect("plain data")
}

/// Replays a schedule: each step, the final state's observed values, and, under
/// TSO/PSO, the happens-before cycle if the run has one; Err says why it does not replay.
pub fn replay_text(
    p: &Program,
    model: Model,
    unroll: u32,
    steps: &[Step],
) -> Result<String, crate::explore::replay::NotReplayable> {
    let m = Machine::new(p, model, unroll);
    let run = replay(&m, steps)?;
    let mut s = format!(
        "replay of {} steps under {}:\n",
        steps.len(),
        model.name().to_uppercase()
    );
    for l in numbered(&run) {
        s += &format!("  {l}\n");
    }
    let at = |t: usize, pc: usize| (&p.threads[t].name, p.threads[t].lines[pc]);
    match run.stop {
        Some(Settled::Failed(t, pc)) => {
            let (name, line) = at(t, pc);
            s += &format!(
                "the run stops: {name}: {} ({})\n",
                p.failure_reason(t, pc),
                line_text(line)
            );
        }
        Some(Settled::Cut(t, pc)) => {
            let (name, line) = at(t, pc);
            s += &format!(
                "the run is cut: {name}: `{}` ({})\n",
                p.show_instr(t, pc),
                line_text(line)
            );
        }
        Some(Settled::Bound) if p.loop_bound.is_some() => {
            s += &format!("the run is cut by {}\n", bound_text(p, None))
        }
        Some(Settled::Bound) => s += "the run is cut by the unrolling bound\n",
        Some(Settled::Spin) => s += "the run spins in a register-only loop\n",
        Some(Settled::Ok) | None => {}
    }
    let end = run.end.as_ref().expect("replayed");
    s += &format!(
        "state: {}\n",
        p.observed()
            .iter()
            .map(|pl| format!(
                "{}={}",
                p.place_name(pl),
                m.observe(end, std::slice::from_ref(pl))[0]
            ))
            .collect::<Vec<_>>()
            .join(" ")
    );
    match hb_cycle(&run) {
        Some(c) => {
            s += "happens-before cycle:\n";
            for l in cycle_lines(&run, &c) {
                s += &format!("  {l}\n");
            }
        }
        None => s += "happens-before: acyclic (the run is SC)\n",
    }
    Ok(s)
}

/// One test of a suite as JSON (milliseconds rounded to µs).
pub fn suite_row(r: &Row) -> SuiteRow {
    let ms = (r.ms * 1e3).round() / 1e3;
    match &r.error {
        Some(e) => SuiteRow::Error {
            test: r.test.clone(),
            error: e.clone(),
            ms,
        },
        None => SuiteRow::Done {
            test: r.test.clone(),
            asks: if r.assertion {
                "assertion"
            } else {
                "condition"
            },
            holds: r.holds,
            expected: r.expected,
            matches: r.matches(),
            outcomes: r.outcomes,
            states: r.states,
            robust: r.robust,
            ms,
        },
    }
}

/// `tsoser suite --json`: the directory `dir` explored under `model`.
pub fn suite_json(dir: &str, model: Model, sum: &Summary) -> SuiteReport {
    SuiteReport {
        schema: schema(),
        dir: dir.to_string(),
        model: model.name(),
        tests: sum.rows.len(),
        mismatches: sum.mismatches(),
        errors: sum.errors(),
        unknown: sum.unknown(),
        without_expectation: sum.without_expectation(),
        not_robust: sum.not_robust(),
        seconds: sum.seconds,
        results: sum.rows.iter().map(suite_row).collect(),
    }
}
