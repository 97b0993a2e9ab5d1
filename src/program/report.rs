//! What `tsoser explore` prints: outcomes, the final condition, assertion failures and
//! robustness, as text and as the stable JSON documented in docs/json.md.

use super::dpor::{explore_dpor, DporStats};
use super::explore::{
    explore, replay, schedule_text, Config, Effect, Exploration, Failure, Machine, Model, Settled,
    Step,
};
use super::robust::{check_witness, hb_cycle, robust, Robustness};
use super::{Instr, Program};
use serde_json::{json, Value};

/// How the runs are explored.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Engine {
    /// Every interleaving, states memoised ([`super::explore`], [`super::robust`]).
    #[default]
    States,
    /// Source-DPOR over chronological traces ([`super::dpor`]).
    Dpor,
}

impl Engine {
    pub fn name(self) -> &'static str {
        match self {
            Engine::States => "states",
            Engine::Dpor => "dpor",
        }
    }
}

/// Options of an exploration.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// The model and the bounds.
    pub config: Config,
    /// Also decide robustness (TSO/PSO).
    pub robustness: bool,
    pub engine: Engine,
    /// Whether a program's own bound (`unroll N`) replaces `config.unroll` (when the
    /// user gave none).
    pub program_unroll: bool,
}

impl Options {
    /// The options for `p`: its own unrolling bound when it has one and
    /// `program_unroll` allows.
    pub fn for_program(self, p: &Program) -> Options {
        match (self.program_unroll, p.unroll) {
            (true, Some(u)) => Options {
                config: self.config.unroll(u),
                ..self
            },
            _ => self,
        }
    }
}

/// An explored program, ready to print.
pub struct Report {
    pub exploration: Exploration,
    pub robustness: Option<Robustness>,
    /// The witness's run described step by step, and its cycle, re-checked.
    pub witness_text: Vec<String>,
    pub cycle_text: Vec<String>,
    pub failure_text: Vec<String>,
    /// Why robustness is unknown, when not for the budget.
    pub robustness_note: Option<String>,
    /// Robustness found no cycle, but only over runs cut short (by the unrolling bound,
    /// or no run completes): the answer is unknown, `robustness_note` says why.
    pub robust_cut: bool,
    /// A thread that takes a lock it holds itself: it waits forever.
    pub deadlock: Option<Deadlock>,
    /// Why no run completes, when none does and no assertion fails: where they stop.
    pub no_run: Option<String>,
    /// The dpor engine's counts.
    pub dpor: Option<DporStats>,
    /// The unrolling bound the exploration used.
    pub unroll: u32,
    pub exit: u8,
}

/// A self-deadlock: `thread` takes, at `line`, a lock it took itself at `held_since`
/// and has not released; the run `schedule` reaches it.
#[derive(Clone, Debug)]
pub struct Deadlock {
    pub thread: usize,
    pub line: usize,
    pub held_since: usize,
    pub schedule: Vec<Step>,
    /// The schedule's steps, numbered, then the lock that waits.
    pub steps: Vec<String>,
}

/// If the cut `c` is a `lock` its own thread holds (its last write in memory is that
/// thread's `lock`, which found it free): the line of that `lock`.
fn self_held(m: &Machine, c: &Failure) -> Option<usize> {
    if !matches!(m.p.threads[c.thread].code[c.pc], Instr::Lock(_)) {
        return None;
    }
    let (mut s, _) = m.initial();
    // Per location, the last write in memory: (thread, line, a `lock` taking it).
    let mut last: Vec<Option<(usize, usize, bool)>> = vec![None; m.p.locs.len()];
    // Per thread, the lines of its buffered stores (aligned with its buffer).
    let mut buffered: Vec<Vec<usize>> = vec![Vec::new(); m.p.threads.len()];
    for (i, &step) in c.schedule.iter().enumerate() {
        let here = match step {
            Step::Exec(t) => {
                let pc = s.pc[t] as usize;
                Some((m.p.threads[t].lines[pc], m.p.threads[t].code[pc]))
            }
            Step::Commit(..) => None,
        };
        let (eff, _) = m.apply(&mut s, step);
        match (eff, here) {
            (Effect::Rmw { t, x, old, .. }, Some((line, instr))) => {
                if i + 1 == c.schedule.len() {
                    return match last[x] {
                        Some((u, l, true)) if u == t && t == c.thread => Some(l),
                        _ => None,
                    };
                }
                last[x] = Some((t, line, matches!(instr, Instr::Lock(_)) && old == 0));
            }
            (Effect::Store { t, x, .. }, Some((line, _))) => {
                if m.model == Model::Sc {
                    last[x] = Some((t, line, false));
                } else {
                    buffered[t].push(line);
                }
            }
            (Effect::Commit { t, x, index }, _) => {
                let line = buffered[t].remove(index);
                last[x] = Some((t, line, false));
            }
            _ => {}
        }
    }
    None
}

/// Where runs stop when none completes: each cut instruction, and the bound.
fn why_no_run(p: &Program, e: &Exploration, unroll: u32) -> String {
    let mut at: Vec<String> = e
        .cut_at
        .iter()
        .take(3)
        .map(|c| {
            let how = match p.threads[c.thread].code[c.pc] {
                Instr::Lock(_) => "finds the lock taken",
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
        at.push(format!("the unrolling bound (--unroll {unroll}) is hit"));
    }
    format!(
        "no run completes: every run is cut where {}",
        at.join(", or ")
    )
}

/// Explores and checks every piece of evidence; Err for an internal inconsistency
/// (a witness that does not re-check) or a robustness search too wide.
pub fn run(p: &Program, o: Options) -> Result<Report, String> {
    let c = &o.config;
    let mut robustness_note = None;
    let mut dpor = None;
    let (exploration, robustness) = match o.engine {
        Engine::Dpor => {
            let d = explore_dpor(p, c, o.robustness && c.model != Model::Sc);
            robustness_note = d
                .robustness
                .as_ref()
                .and_then(|r| r.incomplete)
                .map(|i| i.describe());
            dpor = Some(d.stats);
            (d.exploration, d.robustness)
        }
        Engine::States => {
            let exploration = explore(p, c);
            let robustness = if o.robustness && c.model != Model::Sc {
                match robust(p, c) {
                    Ok(r) => {
                        robustness_note = r.incomplete.map(|i| i.describe());
                        Some(r)
                    }
                    // Too wide for the frontier matrix: robustness stays unknown (exit 3).
                    Err(e) => {
                        robustness_note = Some(e.to_string());
                        Some(Robustness {
                            robust: None,
                            witness: None,
                            states: 0,
                            incomplete: None,
                        })
                    }
                }
            } else {
                None
            };
            (exploration, robustness)
        }
    };
    let m = Machine::new(p, o.config.model, o.config.unroll);
    let mut witness_text = Vec::new();
    let mut cycle_text = Vec::new();
    if let Some(w) = robustness.as_ref().and_then(|r| r.witness.as_ref()) {
        let (run, cyc) = check_witness(p, o.config.model, o.config.unroll, w).map_err(|e| {
            format!("internal error: the robustness witness does not re-check: {e}")
        })?;
        witness_text = numbered(&run);
        for (a, b, k) in &cyc {
            cycle_text.push(format!(
                "e{} {}  --{}-->  e{} {}",
                a + 1,
                run.events[*a].text,
                k.name(),
                b + 1,
                run.events[*b].text
            ));
        }
    }
    let deadlock = exploration.cut_at.iter().find_map(|c| {
        let held_since = self_held(&m, c)?;
        Some((c, held_since))
    });
    let deadlock = match deadlock {
        None => None,
        Some((c, held_since)) => {
            let mut steps = steps_text(&m, &c.schedule)?;
            steps.push(format!(
                "{}: `{}` waits forever ({}): {} took it at {}",
                p.threads[c.thread].name,
                p.show_instr(c.thread, c.pc),
                line_text(c.line),
                p.threads[c.thread].name,
                line_text(held_since),
            ));
            Some(Deadlock {
                thread: c.thread,
                line: c.line,
                held_since,
                schedule: c.schedule.clone(),
                steps,
            })
        }
    };
    let no_run =
        (exploration.complete && exploration.outcomes.is_empty() && exploration.failure.is_none())
            .then(|| why_no_run(p, &exploration, c.unroll));
    // A robustness search over cut runs only sees them up to the cut: not a "yes".
    let robust_cut = robustness.as_ref().is_some_and(|r| r.robust == Some(true))
        && (exploration.bound > 0 || exploration.outcomes.is_empty());
    if robust_cut {
        robustness_note = Some(if exploration.outcomes.is_empty() {
            "no run completes: only run prefixes were searched".to_string()
        } else {
            format!(
                "{} runs were cut by the unrolling bound (--unroll {}): longer runs are not explored",
                exploration.bound, c.unroll
            )
        });
    }
    let mut failure_text = Vec::new();
    if let Some(f) = &exploration.failure {
        let mut steps = steps_text(&m, &f.schedule)?;
        steps.push(format!(
            "{}: {} ({})",
            p.threads[f.thread].name,
            p.failure_reason(f.thread, f.pc),
            line_text(f.line)
        ));
        failure_text = steps;
    }
    let not_robust = robustness.as_ref().is_some_and(|r| r.robust == Some(false));
    let unknown = !exploration.complete
        || robust_cut
        || robustness.as_ref().is_some_and(|r| r.robust.is_none());
    let exit = if exploration.failure.is_some() || deadlock.is_some() || not_robust {
        1
    } else if unknown {
        3
    } else {
        0
    };
    Ok(Report {
        exploration,
        robustness,
        witness_text,
        cycle_text,
        failure_text,
        robustness_note,
        robust_cut,
        deadlock,
        no_run,
        dpor,
        unroll: c.unroll,
        exit,
    })
}

/// `line N`; a program built in memory has no source lines (0): never "line 0".
fn line_text(line: usize) -> String {
    match line {
        0 => "no source line".into(),
        l => format!("line {l}"),
    }
}

/// Each step of a schedule, numbered, as the replay saw it.
fn steps_text(m: &Machine, steps: &[Step]) -> Result<Vec<String>, String> {
    Ok(numbered(&replay(m, steps)?))
}

/// A replayed run's steps, numbered.
fn numbered(run: &super::explore::Run) -> Vec<String> {
    run.steps
        .iter()
        .enumerate()
        .map(|(i, t)| format!("{:>3}. {t}", i + 1))
        .collect()
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
            Some(i) => format!(" — unknown: {}; results partial", i.describe()),
        }
    );
    if let Some(why) = &r.no_run {
        s += &format!("{why}\n");
    }
    for (vals, runs) in &e.outcomes {
        let mark = match holds(p, e, vals) {
            Some(true) => "  *",
            _ => "",
        };
        let count = match (*runs, r.dpor.is_some()) {
            (1, false) => "1 run".to_string(),
            (u64::MAX, false) => "≥ 2⁶⁴−1 runs: the count saturated".to_string(),
            (n, false) => format!("{n} runs"),
            (1, true) => "1 execution explored".to_string(),
            (n, true) => format!("{n} executions explored"),
        };
        s += &format!("  {}  ({count}){mark}\n", outcome_text(p, e, vals));
    }
    if let Some(f) = &p.final_cond {
        let verdict = match e.condition(p) {
            Some(true) => "holds",
            Some(false) => "does not hold",
            None => "unknown (the exploration did not finish)",
        };
        s += &format!(
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
    }
    let what = if r.dpor.is_some() {
        "executions"
    } else {
        "runs"
    };
    if e.cut > 0 {
        s += &format!("{what} cut by assume (or a lock found taken): {}\n", e.cut);
    }
    if e.bound > 0 {
        s += &format!(
            "BOUND HIT: {} {what} cut by the unrolling bound (--unroll {}): the answers hold up to it\n",
            e.bound, r.unroll
        );
    }
    if r.failure_text.is_empty() {
        if p.threads
            .iter()
            .any(|t| t.code.iter().any(|i| matches!(i, super::Instr::Assert(_))))
        {
            s += "assertions: none fails\n";
        }
    } else {
        let f = e.failure.as_ref().unwrap();
        s += &format!(
            "assertion FAILS: replay with --replay \"{}\"\n",
            schedule_text(p, &f.schedule)
        );
        for l in &r.failure_text {
            s += &format!("  {l}\n");
        }
    }
    if let Some(d) = &r.deadlock {
        s += &format!(
            "DEADLOCK: {} takes a lock it holds: replay with --replay \"{}\"\n",
            p.threads[d.thread].name,
            schedule_text(p, &d.schedule)
        );
        for l in &d.steps {
            s += &format!("  {l}\n");
        }
    }
    if let Some(rb) = &r.robustness {
        match rb.robust {
            Some(true) if r.robust_cut => {
                s += &format!(
                    "robust: unknown — no {model} run or run prefix searched has a happens-before cycle, but {} ({})\n",
                    r.robustness_note.as_deref().unwrap_or("runs were cut"),
                    searched(r, rb)
                )
            }
            Some(true) => {
                s += &format!(
                    "robust: yes — every {model} run is SC ({})\n",
                    searched(r, rb)
                )
            }
            None => {
                let why = r.robustness_note.as_deref().unwrap_or("budget exhausted");
                s += &format!("robust: unknown ({why})\n")
            }
            Some(false) => {
                let w = rb.witness.as_ref().unwrap();
                s += &format!(
                    "robust: NO — a {}{model} run whose happens-before has a cycle ({} steps; replay with --replay \"{}\"):\n",
                    if r.dpor.is_some() { "" } else { "shortest " },
                    w.len(),
                    schedule_text(p, w)
                );
                for l in &r.witness_text {
                    s += &format!("  {l}\n");
                }
                s += "  cycle (events numbered in issue order):\n";
                for l in &r.cycle_text {
                    s += &format!("    {l}\n");
                }
            }
        }
    }
    s
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

/// The litmus test's own answer for this model (`with tso: ~exists;`), and whether
/// the exploration agrees (the condition is then an `exists` condition).
pub fn stated(p: &Program, e: &Exploration) -> Option<(super::Quantifier, Option<bool>)> {
    let (_, q) = p.expect.iter().find(|(m, _)| m == e.model.name())?;
    let reachable = e.condition(p);
    let agrees = reachable.map(|r| r == (*q == super::Quantifier::Exists));
    Some((*q, agrees))
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

/// The JSON report (docs/json.md, "`explore --json`").
pub fn json(p: &Program, file: &str, r: &Report) -> Value {
    use crate::output::json::*;
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
        steps: r.failure_text.clone(),
    });
    let deadlock = r.deadlock.as_ref().map(|d| DeadlockJson {
        thread: p.threads[d.thread].name.clone(),
        line: d.line,
        held_since: d.held_since,
        schedule: schedule_text(p, &d.schedule),
        steps: d.steps.clone(),
    });
    let robustness = r.robustness.as_ref().map(|rb| RobustnessJson {
        robust: rb.robust.filter(|_| !r.robust_cut),
        states: rb.states,
        note: r.robustness_note.clone(),
        witness: rb.witness.as_ref().map(|w| RobustnessWitness {
            schedule: schedule_text(p, w),
            steps: r.witness_text.clone(),
            cycle: r.cycle_text.clone(),
        }),
    });
    serde_json::to_value(ExploreReport {
        schema: schema(),
        file: file.to_string(),
        program: p.name.clone(),
        model: e.model.name(),
        complete: e.complete,
        incomplete: e.incomplete.map(|i| i.describe()),
        engine: if r.dpor.is_some() { "dpor" } else { "states" },
        states: e.states,
        dpor: r.dpor.map(|d| DporJson {
            executions: d.executions,
            sleep_blocked: d.sleep_blocked,
        }),
        outcomes,
        condition,
        cut: e.cut,
        bound_hit: e.bound,
        unroll: r.unroll,
        assertion_failure,
        deadlock,
        no_run: r.no_run.clone(),
        robustness,
        exit: r.exit,
    })
    .expect("plain data")
}

/// Replays a schedule: each step, the final state's observed values, and, under
/// TSO/PSO, the happens-before cycle if the run has one.
pub fn replay_text(
    p: &Program,
    model: Model,
    unroll: u32,
    steps: &[Step],
) -> Result<String, String> {
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
            for (a, b, k) in c {
                s += &format!(
                    "  e{} {}  --{}-->  e{} {}\n",
                    a + 1,
                    run.events[a].text,
                    k.name(),
                    b + 1,
                    run.events[b].text
                );
            }
        }
        None => s += "happens-before: acyclic (the run is SC)\n",
    }
    Ok(s)
}
