//! The monitors, the explorer and the theorems against each other on one program, over
//! all of its runs (`tsoser crosscheck`):
//! - ground truth from the explorer: robustness under TSO and PSO, with the length of
//!   a shortest witness ([`crate::explore::robust`]);
//! - each monitor on every distinct SC run (its trace, docs/semantics.md §6): on how
//!   many it reports, one example, and whether that agrees with the ground truth —
//!   monitor_TSO / monitor_PSO report on some SC run iff the program is not robust under
//!   TSO / PSO (Burnim et al. Thms. 3–6: sound and complete); SOBER reports only on
//!   programs that are not robust under TSO (sound; its misses, Burnim et al. §4 and
//!   Fig. 6, are a sensitivity, not a disagreement); the transaction-fenced monitor
//!   reports only on programs that are not TSO-serializable (Enea & Farzan Thm. 3);
//! - the sc-ser monitor against `check --model sc` on every SC trace;
//! - Enea & Farzan Theorem 2 (robust and SC-serializable ⟹ TSO-serializable) and
//!   Theorem 3 (transaction-fenced: TSO-serializable ⟺ robust and SC-serializable),
//!   where a program is TSO-serializable when every TSO *run* is, as an execution —
//!   not every TSO trace: with branches on values read, a trace's executions include
//!   some that are no run of the program;
//! - Enea & Farzan Proposition 2 (a TSO run that is not TSO-serializable as an
//!   execution has a trace that is not TSO-serializable): every TSO run is checked as
//!   an execution by the polynomial execution checker ([`crate::check::execution`])
//!   against the deciders' verdict on its trace;
//! - brute, sat and fpt on every distinct TSO trace: the same verdict.
//!
//! [`Config::model`] restricts the questions to those of one model.
//!
//! [`sample()`] asks the monitors instead on random SC runs, as Burnim et al. do.
//!
//! Runs are deduplicated by their trace (a program has far fewer distinct traces than
//! runs); every budget gives *unknown*, never a hang.

pub mod sample;

pub use sample::{sample, SampleConfig, SampleReport, SampleRow};

use crate::check::decide::{decide, Algo, Budget, Question};
use crate::check::execution::tso_cycle;
use crate::check::{sc, Semantics, Verdict};
use crate::explore::robust::robust;
use crate::explore::traces::{run_execution, traces_with, EmitStop, Emitted};
use crate::explore::{Config as ExploreConfig, Model};
use crate::monitor::{self, Kind};
use crate::program::Program;
use crate::solver::SolverKind;
use crate::trace::exec::Step;
use crate::trace::Trace;
use std::time::Duration;

/// The bounds of a cross-check.
#[derive(Clone, Debug)]
pub struct Config {
    /// Loop bound of the explorer.
    pub unroll: u32,
    /// States of the robustness search, per model.
    pub max_states: usize,
    /// Distinct traces per model, and schedule steps to find them.
    pub max_traces: usize,
    pub max_steps: usize,
    /// Each decider call on a TSO trace.
    pub timeout: Duration,
    /// The deciders compared on every TSO trace (the first is the program's answer).
    pub deciders: Vec<Algo>,
    /// Builds the monitors ([`monitor::new_monitor`]; a test passes a mutant).
    pub monitors: monitor::MonitorFactory,
    /// fpt's worker threads per decider call (programs run in parallel already).
    pub jobs: usize,
    /// Only the questions of this model (TSO: robustness under TSO, SOBER,
    /// monitor_TSO, the fenced monitor, the theorems, Proposition 2, the deciders;
    /// PSO: robustness under PSO and monitor_PSO); `None`: both.
    pub model: Option<Model>,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            unroll: 4,
            max_states: 1_000_000,
            max_traces: 10_000,
            max_steps: 10_000_000,
            timeout: Duration::from_secs(10),
            deciders: vec![
                Algo::Brute,
                Algo::Sat(SolverKind::DEFAULT),
                Algo::Fpt { fig4: false },
            ],
            monitors: monitor::new_monitor,
            jobs: 1,
            model: None,
        }
    }
}

/// The answer to one question: it holds, it fails (a disagreement, with its evidence),
/// not known within the bounds, or its premise is false.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Check {
    Holds,
    Fails(String),
    Unknown(String),
    NotApplicable,
}

impl Check {
    /// The name in tables and JSON: `agree`, `DISAGREE`, `unknown`, `n/a`.
    pub fn name(&self) -> &'static str {
        match self {
            Check::Holds => "agree",
            Check::Fails(_) => "DISAGREE",
            Check::Unknown(_) => "unknown",
            Check::NotApplicable => "n/a",
        }
    }
}

/// What one monitor did on the program's SC runs.
#[derive(Clone, Debug)]
pub struct MonitorRow {
    pub kind: Kind,
    /// The distinct SC traces it reports on (see also [`Report::sc_reports`]).
    pub reports: usize,
    /// The index (in [`Report::sc_traces`]) of one it reports on.
    pub example: Option<usize>,
    /// It reports on some SC run of every program that is not robust (for SOBER and
    /// the fenced monitor a miss is [`Check::Fails`] but not a disagreement: see
    /// [`Report::disagreements`]).
    pub complete: Check,
    /// It reports only on programs that are not robust (not TSO-serializable for the
    /// fenced monitor).
    pub sound: Check,
}

/// The cross-check of one program.
#[derive(Clone, Debug)]
pub struct Report {
    pub program: String,
    /// The distinct traces of its SC runs, and whether they are all of them.
    pub sc_traces: Vec<Trace>,
    pub sc_complete: bool,
    /// The distinct traces of its TSO runs (issue order), and whether all.
    pub tso_traces: usize,
    pub tso_complete: bool,
    /// Robust under TSO / PSO (`None`: not known within the bounds), and the steps of
    /// a shortest witness when not.
    pub robust_tso: Option<bool>,
    pub robust_pso: Option<bool>,
    pub witness_tso: Option<usize>,
    pub witness_pso: Option<usize>,
    /// Every SC run SC-serializable (an SC run is its trace's only execution).
    pub sc_serializable: Option<bool>,
    /// Every TSO run TSO-serializable as an execution: the program is TSO-serializable
    /// (the notion of Enea & Farzan's Theorems 2 and 3).
    pub tso_serializable: Option<bool>,
    /// Every distinct TSO trace TSO-serializable (Def. 3: over *all* executions of the
    /// trace). Stricter than [`Report::tso_serializable`] when control flow depends on
    /// values read: a trace's executions need not all be runs of the program (bug:
    /// theorem_2_is_about_runs_not_traces).
    pub tso_traces_serializable: Option<bool>,
    /// Every run's transactions end with a fence or rmw (Theorem 3's premise; `None`:
    /// the traces found are, but the bounds cut them).
    pub transaction_fenced: Option<bool>,
    /// The monitors of the model asked (SOBER, monitor_TSO, monitor_PSO, fenced).
    pub monitors: Vec<MonitorRow>,
    /// Per distinct SC trace, which of [`Report::monitors`] report on it (bit j for
    /// `monitors[j]`): the per-run sensitivity of each monitor.
    pub sc_reports: Vec<u8>,
    /// The TSO runs checked as executions, and how many are not TSO-serializable.
    pub tso_runs: usize,
    pub tso_runs_unserializable: usize,
    /// The sc-ser monitor and `check --model sc` on every SC trace.
    pub sc_ser_monitor: Check,
    pub theorem_2: Check,
    pub theorem_3: Check,
    pub proposition_2: Check,
    /// The deciders on every TSO trace.
    pub deciders: Check,
}

impl Report {
    /// Every failed check that contradicts a theorem or another checker (SOBER's and
    /// the fenced monitor's misses are sensitivities the papers state, not bugs), as
    /// (question, evidence).
    pub fn disagreements(&self) -> Vec<(String, String)> {
        self.answers(|c| match c {
            Check::Fails(why) => Some(why),
            _ => None,
        })
    }

    /// Every question left unknown within the bounds, as (question, why).
    pub fn unknowns(&self) -> Vec<(String, String)> {
        self.answers(|c| match c {
            Check::Unknown(why) => Some(why),
            _ => None,
        })
    }

    /// The questions whose answer `pick` keeps, with what it keeps (a miss of SOBER or
    /// the fenced monitor counts as neither a disagreement nor an unknown).
    fn answers(&self, pick: impl Fn(&Check) -> Option<&String>) -> Vec<(String, String)> {
        let mut d = Vec::new();
        let mut push = |q: &str, c: &Check| {
            if let Some(why) = pick(c) {
                d.push((q.to_string(), why.clone()));
            }
        };
        for m in &self.monitors {
            if !matches!(m.kind, Kind::Sober | Kind::Fenced) {
                push(&format!("{} complete", m.kind.name()), &m.complete);
            }
            push(&format!("{} sound", m.kind.name()), &m.sound);
        }
        push("sc-ser monitor", &self.sc_ser_monitor);
        push("theorem 2", &self.theorem_2);
        push("theorem 3", &self.theorem_3);
        push("proposition 2", &self.proposition_2);
        push("deciders", &self.deciders);
        d
    }
}

/// The program's answer from a list of per-trace answers: `Some(true)` when every one
/// is yes and the list is complete, `Some(false)` when one is no.
fn all_of(answers: &[Option<bool>], complete: bool) -> Option<bool> {
    if answers.contains(&Some(false)) {
        Some(false)
    } else if complete && answers.iter().all(|a| *a == Some(true)) {
        Some(true)
    } else {
        None
    }
}

fn stop_reason(stop: EmitStop) -> &'static str {
    match stop {
        EmitStop::Complete => "complete",
        EmitStop::MaxTraces => "more distinct traces than --max-traces",
        EmitStop::MaxSteps => "more schedule steps than the bound",
        EmitStop::Spin => "a loop spins past the explorer's bound",
    }
}

/// Cross-checks `p` within `c`'s bounds.
pub fn crosscheck(p: &Program, c: &Config) -> Report {
    let asks = |m: Model| c.model.is_none_or(|x| x == m);
    let (tso_q, pso_q) = (asks(Model::Tso), asks(Model::Pso));
    let rob = |m: Model| {
        let config = ExploreConfig::new(m)
            .unroll(c.unroll)
            .max_states(c.max_states);
        match robust(p, &config) {
            Ok(r) => (r.robust, r.witness.map(|w| w.len())),
            Err(_) => (None, None),
        }
    };
    let (robust_tso, witness_tso) = if tso_q { rob(Model::Tso) } else { (None, None) };
    let (robust_pso, witness_pso) = if pso_q { rob(Model::Pso) } else { (None, None) };
    // Runs are told apart by their events, not the values they read: neither the
    // monitors nor the deciders look at values.
    let sc = traces_with(
        p,
        Model::Sc,
        c.unroll,
        c.max_traces,
        c.max_steps,
        false,
        &mut |_, _, _| {},
    );
    let (tso, runs) = if tso_q {
        tso_runs(p, c)
    } else {
        (Emitted::default(), TsoRuns::default())
    };
    let sc_complete = sc.stop == EmitStop::Complete;
    let tso_complete = tso.stop == EmitStop::Complete;
    // No complete run: the robustness search saw only prefixes, so "robust" is not
    // known (as `explore` says).
    let (robust_tso, robust_pso) = if sc.traces.is_empty() {
        let cut = |r: Option<bool>| r.filter(|&robust| !robust);
        (cut(robust_tso), cut(robust_pso))
    } else {
        (robust_tso, robust_pso)
    };

    let kinds: Vec<Kind> = [Kind::ScSer, Kind::Sober, Kind::Tso, Kind::Pso, Kind::Fenced]
        .into_iter()
        .filter(|k| match k {
            Kind::ScSer => true,
            Kind::Pso => pso_q,
            _ => tso_q,
        })
        .collect();
    let on_sc = monitors_on_sc(&sc, &kinds, c);
    let sc_serializable = all_of(&on_sc.sc_ser, sc_complete);
    let transaction_fenced = if !sc
        .traces
        .iter()
        .chain(&tso.traces)
        .all(Trace::is_transaction_fenced)
    {
        Some(false)
    } else if tso_complete && sc_complete {
        Some(true)
    } else {
        None
    };
    let (tso_ser, deciders) = deciders_on_tso(&tso, c);
    let tso_traces_serializable = all_of(&tso_ser, tso_complete);
    let tso_serializable = if runs.broken.is_some() {
        None
    } else if runs.unserializable > 0 {
        Some(false)
    } else if tso_complete {
        Some(true)
    } else {
        None
    };
    let proposition_2 = if tso_q {
        proposition_2(&runs, &tso_ser, &tso)
    } else {
        Check::NotApplicable
    };
    let truth = Truth {
        robust_tso,
        robust_pso,
        tso_serializable,
        transaction_fenced,
        sc_complete,
        sc_stop: sc.stop,
    };
    let monitors = kinds
        .iter()
        .enumerate()
        .skip(1)
        .map(|(j, &k)| monitor_row(j, k, &on_sc.reports, &truth))
        .collect();
    let (theorem_2, theorem_3) = if tso_q {
        (
            theorem_2(robust_tso, sc_serializable, tso_serializable),
            theorem_3(
                transaction_fenced,
                robust_tso,
                sc_serializable,
                tso_serializable,
            ),
        )
    } else {
        (Check::NotApplicable, Check::NotApplicable)
    };
    Report {
        program: p.name.clone(),
        sc_traces: sc.traces,
        sc_complete,
        tso_traces: tso.traces.len(),
        tso_complete,
        robust_tso,
        robust_pso,
        witness_tso,
        witness_pso,
        sc_serializable,
        tso_serializable,
        tso_traces_serializable,
        transaction_fenced,
        monitors,
        sc_reports: on_sc.reports,
        tso_runs: runs.runs,
        tso_runs_unserializable: runs.unserializable,
        sc_ser_monitor: on_sc.sc_ser_monitor,
        theorem_2,
        theorem_3,
        proposition_2,
        deciders: if tso_q {
            deciders
        } else {
            Check::NotApplicable
        },
    }
}

/// Every TSO run as an execution (Proposition 2).
#[derive(Default)]
struct TsoRuns {
    runs: usize,
    /// The runs that are not TSO-serializable as executions.
    unserializable: usize,
    /// Per distinct trace, the first run found that is not TSO-serializable, with its
    /// cycle.
    bad: Vec<Option<String>>,
    /// A run that is not an execution of its trace (a bug of the explorer).
    broken: Option<String>,
}

/// The distinct TSO traces of `p`, each of its runs checked as an execution.
fn tso_runs(p: &Program, c: &Config) -> (Emitted, TsoRuns) {
    let mut r = TsoRuns::default();
    let emitted = traces_with(
        p,
        Model::Tso,
        c.unroll,
        c.max_traces,
        c.max_steps,
        false,
        &mut |i, t, run| {
            r.runs += 1;
            if r.bad.len() <= i {
                r.bad.resize(i + 1, None);
            }
            match run_execution(t, run) {
                Ok(e) => {
                    if let Some(cycle) = tso_cycle(t, &e) {
                        r.unserializable += 1;
                        let n = r.runs;
                        r.bad[i].get_or_insert_with(|| {
                            let txns: Vec<&str> = cycle
                                .iter()
                                .map(|e| match e.src {
                                    Step::Event(x) | Step::Commit(x) => t.txn_name(x),
                                })
                                .collect();
                            format!("run {n} has the cycle {} → {}", txns.join(" → "), txns[0])
                        });
                    }
                }
                Err(m) => {
                    r.broken.get_or_insert(format!("TSO run {}: {m}", r.runs));
                }
            }
        },
    );
    (emitted, r)
}

/// The monitors and `check --model sc` on every SC trace.
struct OnSc {
    /// Per SC trace, bit j − 1 set when `kinds[j]` reports on it.
    reports: Vec<u8>,
    /// Per SC trace, whether it is SC-serializable.
    sc_ser: Vec<Option<bool>>,
    /// The sc-ser monitor (`kinds[0]`) against the SC check.
    sc_ser_monitor: Check,
}

fn monitors_on_sc(sc: &Emitted, kinds: &[Kind], c: &Config) -> OnSc {
    let mut on = OnSc {
        reports: Vec::new(),
        sc_ser: Vec::new(),
        sc_ser_monitor: Check::Holds,
    };
    for (i, t) in sc.traces.iter().enumerate() {
        let suite = monitor::Suite::with(kinds, t.threads.len(), t.vars.len(), c.monitors);
        let outcomes = monitor::run_suite(suite, t, &crate::stop::Stop::default())
            .expect("a run without a stop ends");
        let bits = outcomes
            .iter()
            .enumerate()
            .skip(1)
            .filter(|(_, (_, o))| o.is_violation())
            .fold(0u8, |b, (j, _)| b | 1 << (j - 1));
        on.reports.push(bits);
        let by_check = !sc::check_sc(t).is_violation();
        on.sc_ser.push(Some(by_check));
        if by_check == outcomes[0].1.is_violation() && on.sc_ser_monitor == Check::Holds {
            on.sc_ser_monitor = Check::Fails(format!(
                "SC trace {i}: check --model sc says {}, the sc-ser monitor {}",
                if by_check { "serializable" } else { "not" },
                if by_check { "reports" } else { "does not" }
            ));
        }
    }
    if on.sc_ser_monitor == Check::Holds && sc.stop != EmitStop::Complete {
        on.sc_ser_monitor = Check::Unknown(stop_reason(sc.stop).into());
    }
    on
}

/// `c.deciders` on every distinct TSO trace: per trace the first known verdict
/// (serializable or not), and whether they all agree.
fn deciders_on_tso(tso: &Emitted, c: &Config) -> (Vec<Option<bool>>, Check) {
    let mut tso_ser = Vec::new();
    let mut deciders = Check::Holds;
    for (i, t) in tso.traces.iter().enumerate() {
        let mut answers: Vec<(&'static str, Option<bool>)> = Vec::new();
        for &algo in &c.deciders {
            let budget = Budget {
                jobs: c.jobs,
                ..Budget::with_timeout(c.timeout)
            };
            let v = match decide(t, Question::Tso(Semantics::Exact), algo, &budget) {
                Ok(d) => match d.verdict {
                    Verdict::Serializable => Some(true),
                    Verdict::Violation(_) => Some(false),
                    Verdict::Unknown(_) => None,
                },
                // An internal error (a witness that does not re-check, the two sides
                // of `auto` disagreeing) is a disagreement; a refused resource is not.
                Err(e) if e.is_internal() => {
                    deciders = Check::Fails(format!("TSO trace {i}: {}: {e}", algo.name()));
                    None
                }
                Err(_) => None,
            };
            answers.push((algo.name(), v));
        }
        let known: Vec<&(&str, Option<bool>)> = answers.iter().filter(|a| a.1.is_some()).collect();
        if known.windows(2).any(|w| w[0].1 != w[1].1)
            && matches!(deciders, Check::Holds | Check::Unknown(_))
        {
            let said: Vec<String> = answers
                .iter()
                .map(|(n, v)| {
                    format!(
                        "{n}: {}",
                        v.map_or("unknown", |s| if s { "serializable" } else { "violation" })
                    )
                })
                .collect();
            deciders = Check::Fails(format!("TSO trace {i}: {}", said.join(", ")));
        } else if known.len() < answers.len() && deciders == Check::Holds {
            deciders = Check::Unknown(format!("TSO trace {i}: a decider ran out of its budget"));
        }
        tso_ser.push(known.first().and_then(|a| a.1));
    }
    if deciders == Check::Holds && tso.stop != EmitStop::Complete {
        deciders = Check::Unknown(stop_reason(tso.stop).into());
    }
    (tso_ser, deciders)
}

/// Proposition 2: a run that is not TSO-serializable has a trace that is not.
fn proposition_2(runs: &TsoRuns, tso_ser: &[Option<bool>], tso: &Emitted) -> Check {
    let complete = tso.stop == EmitStop::Complete;
    let mut answer = match &runs.broken {
        Some(why) => Check::Fails(why.clone()),
        None if runs.unserializable == 0 && complete => Check::NotApplicable,
        None => Check::Holds,
    };
    for (i, why) in runs.bad.iter().enumerate() {
        let Some(why) = why else { continue };
        match tso_ser.get(i).copied().flatten() {
            Some(false) => {}
            Some(true) if !matches!(answer, Check::Fails(_)) => {
                answer = Check::Fails(format!(
                    "TSO trace {i}: {why}, yet the deciders say its trace is TSO-serializable"
                ));
            }
            _ if answer == Check::Holds => {
                answer = Check::Unknown(format!("TSO trace {i}: no verdict within the budget"));
            }
            _ => {}
        }
    }
    if answer == Check::Holds && !complete {
        answer = Check::Unknown(stop_reason(tso.stop).into());
    }
    answer
}

/// What the monitors are held against.
struct Truth {
    robust_tso: Option<bool>,
    robust_pso: Option<bool>,
    tso_serializable: Option<bool>,
    transaction_fenced: Option<bool>,
    sc_complete: bool,
    sc_stop: EmitStop,
}

fn unknown(what: &str) -> Check {
    Check::Unknown(format!("{what} is not known within the bounds"))
}

/// Monitor `kinds[j]` against the ground truth: robustness under its model, or for
/// the fenced monitor TSO-serializability (Enea & Farzan Thm. 3, under its premise).
fn monitor_row(j: usize, kind: Kind, sc_reports: &[u8], t: &Truth) -> MonitorRow {
    // The SC traces it reports on, from the per-trace bits.
    let on = |b: &u8| b & (1 << (j - 1)) != 0;
    let reports = sc_reports.iter().filter(|b| on(b)).count();
    let example = sc_reports.iter().position(on);
    let truth = match kind {
        Kind::Pso => t.robust_pso,
        Kind::Fenced => t.tso_serializable,
        _ => t.robust_tso,
    };
    let property = if kind == Kind::Fenced {
        "TSO-serializable"
    } else {
        "robust"
    };
    let reported = reports > 0;
    let sound = match (reported, truth) {
        (false, _) => Check::Holds,
        (true, Some(false)) => Check::Holds,
        (true, Some(true)) => Check::Fails(format!(
            "it reports on SC trace {} of a program that is {property}",
            example.unwrap_or(0),
        )),
        (true, None) => unknown("the ground truth"),
    };
    let complete = match (reported, truth) {
        (true, _) | (false, Some(true)) => Check::Holds,
        (false, Some(false)) if t.sc_complete => Check::Fails(format!(
            "no SC run reports, yet the program is not {property}"
        )),
        (false, Some(false)) => Check::Unknown(stop_reason(t.sc_stop).into()),
        (false, None) => unknown("the ground truth"),
    };
    let premise = if kind == Kind::Fenced {
        t.transaction_fenced
    } else {
        Some(true)
    };
    let (complete, sound) = match premise {
        Some(true) => (complete, sound),
        Some(false) => (Check::NotApplicable, Check::NotApplicable),
        None => (
            unknown("transaction-fencedness"),
            unknown("transaction-fencedness"),
        ),
    };
    MonitorRow {
        kind,
        reports,
        example,
        complete,
        sound,
    }
}

/// Enea & Farzan Theorem 2: robust ∧ SC-serializable ⟹ TSO-serializable.
fn theorem_2(robust: Option<bool>, sc_ser: Option<bool>, tso_ser: Option<bool>) -> Check {
    match (robust, sc_ser, tso_ser) {
        (Some(true), Some(true), Some(true)) => Check::Holds,
        (Some(true), Some(true), Some(false)) => Check::Fails(
            "robust under TSO and SC-serializable, yet a TSO run is not TSO-serializable".into(),
        ),
        (Some(false), _, _) | (_, Some(false), _) => Check::NotApplicable,
        _ => unknown("robustness, SC- or TSO-serializability"),
    }
}

/// Enea & Farzan Theorem 3: transaction-fenced ⟹ (TSO-serializable ⟺ robust ∧
/// SC-serializable).
fn theorem_3(
    fenced: Option<bool>,
    robust: Option<bool>,
    sc_ser: Option<bool>,
    tso_ser: Option<bool>,
) -> Check {
    match fenced {
        Some(false) => Check::NotApplicable,
        None => unknown("transaction-fencedness"),
        Some(true) => match (robust, sc_ser, tso_ser) {
            (Some(r), Some(s), Some(t)) if t == (r && s) => Check::Holds,
            (Some(r), Some(s), Some(t)) => Check::Fails(format!(
                "transaction-fenced, robust {r}, SC-serializable {s}, yet TSO-serializable {t}"
            )),
            _ => unknown("robustness, SC- or TSO-serializability"),
        },
    }
}
