//! The monitors on random SC runs of a program, as Burnim, Sen and Stergiou evaluate
//! theirs (§6 and Table 1): `runs` runs, each a uniformly random schedule under SC;
//! on each, every monitor and the TSO-serializability decider, reporting per monitor
//! the runs with a violation and the distinct violations, keyed by the source lines of
//! the events the report blames (for monitor_TSO / monitor_PSO the paper's e, prev and
//! e_i). A violation of monitor_TSO (SOBER) or monitor_PSO is then confirmed by the
//! explorer: the program is not robust under that model, with a witness that replays.

use crate::check::decide::{decide, Algo, Budget, Question};
use crate::check::{Semantics, Verdict};
use crate::explore::machine::{Machine, Model, Settled, Step};
use crate::explore::robust::{check_witness, robust};
use crate::explore::traces::{in_trace, trace_of, Issued};
use crate::explore::Config as ExploreConfig;
use crate::monitor::{self, Kind, Outcome};
use crate::program::{Instr, Program};
use crate::stop::Stop;
use crate::trace::exec::Step as ExecStep;
use crate::trace::Trace;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

/// The bounds of a sample.
#[derive(Clone, Debug)]
pub struct SampleConfig {
    /// Complete runs wanted.
    pub runs: usize,
    /// Run `i` follows the schedule that stream `i` of this seed draws.
    pub seed: u64,
    /// Loop bound of each run (a run past it is drawn again).
    pub unroll: u32,
    /// Draws per run before the sample stops short: a run is drawn again when it is
    /// cut (a false `assume`, the loop bound, a deadlock).
    pub max_draws: usize,
    /// Steps of one run before it counts as cut.
    pub max_steps: usize,
    /// Each decider call on a run's trace.
    pub timeout: Duration,
    /// The states and time of each robustness search that confirms a violation (its
    /// loop bound: the fewest backward jumps of a thread among the runs with one).
    pub max_states: usize,
    pub confirm_timeout: Duration,
    /// Builds the monitors ([`monitor::new_monitor`]; a test passes a mutant).
    pub monitors: monitor::MonitorFactory,
}

impl Default for SampleConfig {
    fn default() -> SampleConfig {
        SampleConfig {
            runs: 1000,
            seed: 0,
            unroll: 100,
            max_draws: 100,
            max_steps: 1_000_000,
            timeout: Duration::from_secs(10),
            max_states: 1_000_000,
            confirm_timeout: Duration::from_secs(60),
            monitors: monitor::new_monitor,
        }
    }
}

/// What one monitor (or, with `kind` `None`, the decider) found over the runs.
#[derive(Clone, Debug, PartialEq)]
pub struct SampleRow {
    /// `None`: `check`, TSO-serializability of each run's trace.
    pub kind: Option<Kind>,
    /// Runs with a violation.
    pub violations: usize,
    /// The distinct violations: the sorted source lines blamed, and how many runs
    /// blame exactly them.
    pub distinct: BTreeMap<Vec<usize>, usize>,
    /// Runs on which it had no answer (the decider's budget; the fenced monitor on a
    /// trace that is not transaction-fenced).
    pub unknown: usize,
    /// Time spent in it over all runs.
    pub seconds: f64,
    /// The fewest backward jumps (of the thread that jumped most) of a run with a
    /// violation: the loop bound under which the explorer confirms it.
    pub jumps: Option<u32>,
    /// For monitor_TSO, SOBER and monitor_PSO with a violation: whether the explorer
    /// finds the program not robust under the model (with a witness that replays);
    /// `Some(false)`, a disagreement: robust with the loop bound of a run that has a
    /// violation; `None` when not asked or not known within the search's bounds.
    pub confirmed: Option<bool>,
}

/// A sample's answer.
#[derive(Clone, Debug, PartialEq)]
pub struct SampleReport {
    /// Complete runs monitored.
    pub runs: usize,
    /// Draws dropped (cut, deadlocked or past a bound) on the way.
    pub dropped: usize,
    /// Runs that end in a failed assertion under SC (monitored too: the trace up to it).
    pub failed: usize,
    /// Mean events per run.
    pub mean_events: f64,
    /// Time spent drawing runs and building their traces.
    pub seconds: f64,
    /// One row per monitor, in [`Kind::ALL`]'s order, then `check`'s.
    pub rows: Vec<SampleRow>,
}

/// One random SC run: its trace, per trace event the source line of the instruction
/// that issued it, whether it failed an assertion, and the most backward jumps a
/// thread took.
struct Drawn {
    trace: Trace,
    lines: Vec<usize>,
    failed: bool,
    jumps: u32,
}

/// Draws one random SC run of `m` with `rng`: every step chosen uniformly among those
/// enabled, where a `lock` of a taken mutex is not enabled (it would cut the run).
fn draw(p: &Program, m: &Machine, rng: &mut ChaCha8Rng, max_steps: usize) -> Option<Drawn> {
    let (mut s, st) = m.initial();
    let mut run: Vec<Issued> = Vec::new();
    let mut lines = Vec::new();
    let mut failed = matches!(st, Settled::Failed(..));
    if !matches!(st, Settled::Ok | Settled::Failed(..)) {
        return None;
    }
    let mut steps = Vec::new();
    while !failed && !m.is_final(&s) {
        m.enabled(&s, &mut steps);
        // A `nondet` is one step of its thread, its value drawn after.
        steps.retain(|&step| match step {
            Step::Exec(t) => match p.threads[t].code[s.pc[t] as usize] {
                Instr::Lock(a) => s.mem[m.loc(&s, t, &a)] == 0,
                _ => true,
            },
            Step::Choose(t, v) => m.nondet(&s, t).is_some_and(|(lo, _)| v == lo),
            Step::Commit(..) => true,
        });
        if steps.is_empty() || run.len() >= max_steps {
            return None;
        }
        let mut step = steps[rng.random_range(0..steps.len())];
        if let (Step::Choose(t, _), Some((lo, hi))) = (step, m.nondet(&s, step.thread())) {
            step = Step::Choose(t, rng.random_range(lo..=hi));
        }
        let t = step.thread();
        let pc = s.pc[t] as usize;
        let txn = (s.depth[t] > 0).then_some(s.txns[t]);
        let (effect, st) = m.apply(&mut s, step);
        match st {
            Settled::Ok => {}
            Settled::Failed(..) => failed = true,
            Settled::Cut(..) | Settled::Bound | Settled::Spin => return None,
        }
        if in_trace(&effect) {
            lines.push(p.threads[t].lines.get(pc).copied().unwrap_or(0));
        }
        run.push((effect, txn));
    }
    let trace = trace_of(p, &run, false).ok()?;
    Some(Drawn {
        trace,
        lines,
        failed,
        jumps: s.jumps.iter().copied().max().unwrap_or(0),
    })
}

/// The events an outcome blames: monitor_TSO/PSO's e, prev and e_i; SOBER's load, the
/// write it reads and the thread's last event; sc-ser's event where the ⊙SC cycle
/// closes; the fenced monitor's parts.
fn blamed(o: &Outcome) -> Vec<usize> {
    match o {
        Outcome::Clean => Vec::new(),
        Outcome::ScSer(at) => vec![*at],
        Outcome::Sober(r) => vec![r.load, r.write, r.last],
        Outcome::Burnim(r) => vec![r.e, r.prev, r.ei],
        Outcome::Fenced { sc_ser, sober, .. } => {
            let mut v: Vec<usize> = sc_ser.iter().copied().collect();
            if let Some(r) = sober {
                v.extend([r.load, r.write, r.last]);
            }
            v
        }
    }
}

/// The sorted distinct source lines of `events`.
fn key(lines: &[usize], events: impl IntoIterator<Item = usize>) -> Vec<usize> {
    let mut k: Vec<usize> = events.into_iter().map(|e| lines[e]).collect();
    k.sort_unstable();
    k.dedup();
    k
}

fn row(kind: Option<Kind>) -> SampleRow {
    SampleRow {
        kind,
        violations: 0,
        distinct: BTreeMap::new(),
        unknown: 0,
        seconds: 0.0,
        jumps: None,
        confirmed: None,
    }
}

/// Counts a violation of run `d` blaming `events`.
fn count(r: &mut SampleRow, d: &Drawn, events: impl IntoIterator<Item = usize>) {
    r.violations += 1;
    *r.distinct.entry(key(&d.lines, events)).or_default() += 1;
    r.jumps = Some(r.jumps.map_or(d.jumps, |j| j.min(d.jumps)));
}

/// Samples `c.runs` random SC runs of `p` and runs every monitor and the decider on
/// each; then confirms the weak-model violations with the explorer.
pub fn sample(p: &Program, c: &SampleConfig) -> SampleReport {
    let m = Machine::new(p, Model::Sc, c.unroll);
    let mut rows: Vec<SampleRow> = Kind::ALL.iter().map(|&k| row(Some(k))).collect();
    rows.push(row(None));
    let mut report = SampleReport {
        runs: 0,
        dropped: 0,
        failed: 0,
        mean_events: 0.0,
        seconds: 0.0,
        rows: Vec::new(),
    };
    let mut events = 0usize;
    'runs: for i in 0..c.runs {
        let t0 = Instant::now();
        let mut rng = ChaCha8Rng::seed_from_u64(c.seed);
        rng.set_stream(i as u64);
        let mut drawn = None;
        for _ in 0..c.max_draws {
            drawn = draw(p, &m, &mut rng, c.max_steps);
            if drawn.is_some() {
                break;
            }
            report.dropped += 1;
        }
        report.seconds += t0.elapsed().as_secs_f64();
        let Some(d) = drawn else { break 'runs };
        report.runs += 1;
        report.failed += usize::from(d.failed);
        events += d.trace.len();
        monitor_run(&d, c.monitors, &mut rows);
        decide_run(&d, c.timeout, &mut rows[Kind::ALL.len()]);
    }
    report.mean_events = if report.runs == 0 {
        0.0
    } else {
        events as f64 / report.runs as f64
    };
    for r in &mut rows {
        let model = match r.kind {
            Some(Kind::Sober | Kind::Tso) => Model::Tso,
            Some(Kind::Pso) => Model::Pso,
            _ => continue,
        };
        if let Some(unroll) = r.jumps {
            r.confirmed = confirm(p, model, unroll, c);
        }
    }
    report.rows = rows;
    report
}

/// Every monitor on one run, each timed on its own.
fn monitor_run(d: &Drawn, make: monitor::MonitorFactory, rows: &mut [SampleRow]) {
    let (k, vars) = (d.trace.threads.len(), d.trace.vars.len());
    for (j, &kind) in Kind::ALL.iter().enumerate() {
        let t0 = Instant::now();
        let suite = monitor::Suite::with(&[kind], k, vars, make);
        let outcomes =
            monitor::run_suite(suite, &d.trace, &Stop::default()).expect("no stop is set");
        let o = &outcomes[0].1;
        let r = &mut rows[j];
        r.seconds += t0.elapsed().as_secs_f64();
        match o.answer() {
            monitor::Answer::Clean => {}
            monitor::Answer::Unknown => r.unknown += 1,
            monitor::Answer::Violation => count(r, d, blamed(o)),
        }
    }
}

/// TSO-serializability of the run's trace (`check --algo auto`); the key of a violation
/// is the lines of its witness cycle's events.
fn decide_run(d: &Drawn, timeout: Duration, r: &mut SampleRow) {
    let t0 = Instant::now();
    let answer = decide(
        &d.trace,
        Question::Tso(Semantics::Exact),
        Algo::AUTO,
        &Budget::with_timeout(timeout),
    );
    r.seconds += t0.elapsed().as_secs_f64();
    match answer.map(|a| a.verdict) {
        Ok(Verdict::Serializable) => {}
        Ok(Verdict::Violation(w)) => {
            let events = w
                .cycle()
                .iter()
                .flat_map(|e| [e.src, e.dst])
                .map(|s| match s {
                    ExecStep::Event(e) | ExecStep::Commit(e) => e,
                });
            count(r, d, events);
        }
        Ok(Verdict::Unknown(_)) | Err(_) => r.unknown += 1,
    }
}

/// Whether the explorer finds `p` not robust under `model`, with a witness that
/// replays to a happens-before cycle; `None` when its search does not finish.
fn confirm(p: &Program, model: Model, unroll: u32, c: &SampleConfig) -> Option<bool> {
    let mut config = ExploreConfig::new(model)
        .unroll(unroll)
        .max_states(c.max_states);
    config.deadline = Some(Instant::now() + c.confirm_timeout);
    let r = robust(p, &config).ok()?;
    match (r.robust, r.witness) {
        (Some(false), Some(w)) => Some(check_witness(p, model, config.unroll, &w).is_ok()),
        (Some(true), _) => Some(false),
        _ => None,
    }
}
