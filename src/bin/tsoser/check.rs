//! `tsoser check`, `check-exec`, `graph`, `encode`.

use crate::args::{Algo, CheckArgs, Format, Model, Profiles, SemanticsArg, Solver, WitnessArg};
use crate::out::{self, load, warn, warn_raw, INTERNAL, USAGE};
use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tsoser::check::decide::{self, Budget, DecideError, DeciderStats, Decision, Question};
use tsoser::check::sat::{self as satcheck, SolverKind};
use tsoser::check::{brute, execution, fpt, Semantics, Verdict};
use tsoser::graph::{dot, exact::ExactGraph, paper::PaperGraph};
use tsoser::report::{self, Stats};
use tsoser::trace::{Trace, TxnId};

/// Seconds `--timeout` accepts: positive, at most about 31 years.
pub(crate) const MAX_TIMEOUT: f64 = 1e9;
/// `--jobs` at most.
pub(crate) const MAX_JOBS: usize = 1024;

/// The checked configuration: the library's question, decider and budget.
struct CheckConfig {
    question: Question,
    algo: decide::Algo,
    budget: Budget,
    timeout: Option<Duration>,
}

/// `--timeout SECONDS`: positive, finite, at most [`MAX_TIMEOUT`].
pub(crate) fn timeout_arg(t: Option<f64>) -> Result<Option<Duration>> {
    match t {
        None => Ok(None),
        Some(t) if t > 0.0 && t <= MAX_TIMEOUT => Ok(Some(Duration::from_secs_f64(t))),
        Some(_) => bail!("--timeout takes a positive number of seconds, at most {MAX_TIMEOUT:e}"),
    }
}

/// Raw flags → a checked configuration; an option that does not apply to the chosen
/// question or decider is a usage error naming it.
fn checked(a: &CheckArgs) -> Result<CheckConfig> {
    let algo = a.algo.unwrap_or(Algo::Auto);
    let not_for = |given: bool, flag: &str, of: &str, what: &str| -> Result<()> {
        if given {
            bail!("{flag} is an option of {of}; it does not apply to {what}");
        }
        Ok(())
    };
    if a.model == Model::Sc {
        let sc = "--model sc (SC-serializability has one polynomial check)";
        not_for(a.algo.is_some(), "--algo", "--model tso", sc)?;
        not_for(a.semantics.is_some(), "--semantics", "--model tso", sc)?;
    }
    let what = match (a.model, algo) {
        (Model::Sc, _) => "--model sc",
        (_, Algo::Brute) => "--algo brute",
        (_, Algo::Sat) => "--algo sat",
        (_, Algo::Fpt) => "--algo fpt",
        (_, Algo::Auto) => "--algo auto",
    };
    let tso = a.model == Model::Tso;
    let brute = tso && algo == Algo::Brute;
    let sat = tso && matches!(algo, Algo::Sat | Algo::Auto);
    let fpt_ = tso && matches!(algo, Algo::Fpt | Algo::Auto);
    let (b, s, f) = ("--algo brute", "--algo sat or auto", "--algo fpt or auto");
    not_for(
        a.max_executions.is_some() && !brute,
        "--max-executions",
        b,
        what,
    )?;
    not_for(a.solver.is_some() && !sat, "--solver", s, what)?;
    not_for(a.jobs.is_some() && !fpt_, "--jobs", f, what)?;
    not_for(a.max_jumps.is_some() && !fpt_, "--max-jumps", f, what)?;
    let fig = tso && algo == Algo::Fpt;
    not_for(
        a.profiles.is_some() && !fig,
        "--profiles",
        "--algo fpt",
        what,
    )?;
    let jobs = a.jobs.unwrap_or(0);
    if jobs > MAX_JOBS {
        bail!("--jobs takes 0 (one per core) to {MAX_JOBS}");
    }
    let timeout = timeout_arg(a.timeout)?;
    let semantics = a.semantics.map_or(Semantics::Exact, SemanticsArg::lib);
    let fig4 = a.profiles == Some(Profiles::Fig4);
    let question = match a.model {
        Model::Sc => Question::Sc,
        Model::Tso => Question::Tso(semantics),
    };
    let solver = a.solver.map_or(SolverKind::DEFAULT, Solver::lib);
    let algo = match algo {
        Algo::Auto => decide::Algo::Auto {
            solver,
            first_jumps: tsoser::check::auto::FPT_FIRST_JUMPS,
        },
        Algo::Brute => decide::Algo::Brute,
        Algo::Sat => decide::Algo::Sat(solver),
        Algo::Fpt => decide::Algo::Fpt { fig4 },
    };
    let budget = Budget {
        max_executions: a.max_executions.unwrap_or(brute::DEFAULT_MAX),
        max_jumps: a.max_jumps.unwrap_or(fpt::DEFAULT_MAX),
        jobs,
        ..Budget::default()
    };
    Ok(CheckConfig {
        question,
        algo,
        budget,
        timeout,
    })
}

/// How long past the deadline a step that cannot be interrupted mid-call (reading the
/// file, a single varisat solve, drawing the DOT text) may run before the command
/// answers *unknown* without it.
const GRACE: Duration = Duration::from_millis(150);

/// What the worker running a `check` reports, step by step.
enum Progress {
    /// The trace was read (or not), with the seconds it took.
    Loaded(Result<Arc<Trace>>, f64),
    /// The decider's answer, with the seconds it took.
    Decided(std::result::Result<Decision, DecideError>, f64),
    /// The DOT text of `--dot`.
    Drawn(String),
}

/// Why the main thread stopped waiting for the worker.
enum Wait {
    /// `--timeout` (plus [`GRACE`]) passed.
    Deadline,
    /// The worker ended without reporting (it panicked).
    Gone,
}

/// Runs the whole command — reading, deciding, drawing — on a worker, so `--timeout`
/// bounds all of it: the deciders stop cooperatively at the budget's deadline, and a
/// step that overruns it (reading a huge file, one solver call) is left behind when the
/// process exits.
fn start_worker(
    file: PathBuf,
    cfg: &CheckConfig,
    deadline: Option<Instant>,
    dot: Option<WitnessArg>,
) -> Result<(Receiver<Progress>, Arc<std::sync::atomic::AtomicBool>)> {
    let mut budget = cfg.budget.clone();
    budget.deadline = deadline;
    let cancel = budget.cancel.clone();
    let (q, algo) = (cfg.question, cfg.algo);
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::Builder::new()
        .name("check".into())
        .spawn(move || {
            let t = Instant::now();
            let trace = load(&file).map(Arc::new);
            let ok = trace.as_ref().ok().cloned();
            if tx
                .send(Progress::Loaded(trace, t.elapsed().as_secs_f64()))
                .is_err()
            {
                return;
            }
            let Some(trace) = ok else { return };
            let t = Instant::now();
            let decided = decide::decide(&trace, q, algo, &budget);
            let dot = match (&decided, dot) {
                (Ok(d), Some(w)) => Some(dot_text(&trace, &d.verdict, w, q)),
                _ => None,
            };
            let secs = t.elapsed().as_secs_f64();
            if tx.send(Progress::Decided(decided, secs)).is_err() {
                return;
            }
            if let Some(text) = dot {
                let _ = tx.send(Progress::Drawn(text));
            }
        })
        .context("cannot start the worker thread")?;
    Ok((rx, cancel))
}

/// The next report of the worker, waiting at most until `deadline` plus [`GRACE`].
fn next(rx: &Receiver<Progress>, deadline: Option<Instant>) -> std::result::Result<Progress, Wait> {
    match deadline {
        Some(d) => rx
            .recv_timeout(d.saturating_duration_since(Instant::now()) + GRACE)
            .map_err(|e| match e {
                RecvTimeoutError::Timeout => Wait::Deadline,
                RecvTimeoutError::Disconnected => Wait::Gone,
            }),
        None => rx.recv().map_err(|_| Wait::Gone),
    }
}

/// `--dot`: the witness's cycle (`--witness cycle|none`), else the whole graph of the
/// question's semantics with the cycle, if any, marked.
fn dot_text(trace: &Trace, verdict: &Verdict, witness: WitnessArg, q: Question) -> String {
    let cycle = match verdict {
        Verdict::Violation(w) => Some(w.cycle()),
        _ => None,
    };
    match (verdict, witness) {
        (Verdict::Violation(w), WitnessArg::Cycle | WitnessArg::None) => {
            let exec = match &**w {
                tsoser::check::Witness::Execution { execution, .. } => Some(execution),
                _ => None,
            };
            dot::cycle_dot(trace, w.cycle(), &|n| exec.map(|x| x.pos(n) + 1))
        }
        _ if q == Question::Tso(Semantics::Paper) => {
            dot::paper_dot(trace, &PaperGraph::new(trace), cycle)
        }
        _ => dot::exact_dot(trace, &ExactGraph::new(trace), cycle),
    }
}

fn semantics_name(s: Semantics) -> &'static str {
    match s {
        Semantics::Exact => "exact",
        Semantics::Paper => "paper",
    }
}

fn solver_name(s: SolverKind) -> &'static str {
    match s {
        SolverKind::Varisat => "varisat",
        SolverKind::Z3 => "z3",
        SolverKind::Cadical => "cadical",
    }
}

pub(crate) fn cmd_check(a: CheckArgs) -> Result<u8> {
    let cfg = checked(&a)?;
    let started = Instant::now();
    let deadline = cfg.timeout.and_then(|t| started.checked_add(t));
    let fname = a.file.display().to_string();
    let (rx, cancel) = start_worker(
        a.file.clone(),
        &cfg,
        deadline,
        a.dot.is_some().then_some(a.witness),
    )?;
    let timed_out = |when: &str| Verdict::Unknown {
        reason: format!(
            "--timeout of {:.3} s reached{when}",
            cfg.timeout.unwrap_or_default().as_secs_f64()
        ),
    };
    let gone = || {
        warn("tsoser: internal error: the checking thread stopped without an answer");
        Ok(INTERNAL)
    };
    let mut stats = Stats::default();
    let trace = match next(&rx, deadline) {
        Ok(Progress::Loaded(trace, secs)) => {
            stats.phases.push(("parse".into(), secs));
            trace?
        }
        Ok(_) | Err(Wait::Gone) => return gone(),
        Err(Wait::Deadline) => {
            cancel.store(true, Ordering::Relaxed);
            let unknown = timed_out(" while reading the trace");
            print_verdict(&a, &cfg, &fname, None, &unknown, None, &stats, None)?;
            return Ok(out::UNKNOWN);
        }
    };
    let mut drawing = a.dot.is_some();
    let decided = match next(&rx, deadline) {
        Ok(Progress::Decided(d, secs)) => {
            stats.phases.push(("decide".into(), secs));
            drawing &= d.is_ok();
            d
        }
        Ok(_) | Err(Wait::Gone) => return gone(),
        Err(Wait::Deadline) => {
            cancel.store(true, Ordering::Relaxed);
            drawing = false;
            Ok(Decision {
                verdict: timed_out(""),
                realizable: None,
                stats: DeciderStats::None,
                seconds: cfg.timeout.unwrap_or_default().as_secs_f64(),
            })
        }
    };
    let decided = match decided {
        Ok(d) => d,
        Err(e) if e.is_internal() => {
            warn(&format!("tsoser: {e}"));
            return Ok(INTERNAL);
        }
        Err(e) => {
            warn(&format!("tsoser: {e}"));
            return Ok(USAGE);
        }
    };
    for (k, v) in decided.stats.phases() {
        stats.add_phase(&format!("  {k}"), v);
    }
    for (k, v) in decided.stats.counts() {
        stats.count(k, v);
    }
    stats.count("events", trace.len() as u64);
    stats.count("transactions", trace.txns.len() as u64);
    let chains = match &decided.stats {
        DeciderStats::Fpt(s) => Some(s.chains.clone()),
        _ => None,
    };
    if let (Some(path), true) = (&a.dot, drawing) {
        match next(&rx, deadline) {
            Ok(Progress::Drawn(text)) => std::fs::write(path, text)
                .with_context(|| format!("cannot write {}", path.display()))?,
            Ok(_) | Err(Wait::Gone) => return gone(),
            Err(Wait::Deadline) => {
                cancel.store(true, Ordering::Relaxed);
                warn(&format!(
                    "tsoser: --timeout reached while drawing the graph: {} not written",
                    path.display()
                ));
            }
        }
    }
    print_verdict(
        &a,
        &cfg,
        &fname,
        Some(&trace),
        &decided.verdict,
        decided.realizable,
        &stats,
        chains.as_deref(),
    )?;
    Ok(out::verdict_code(&decided.verdict))
}

/// Prints the answer of `check` (text or `--json`); `trace` is `None` when the
/// timeout came before the trace was read.
#[allow(clippy::too_many_arguments)]
fn print_verdict(
    a: &CheckArgs,
    cfg: &CheckConfig,
    fname: &str,
    trace: Option<&Trace>,
    verdict: &Verdict,
    realizable: Option<bool>,
    stats: &Stats,
    chains: Option<&[fpt::profile::ChainProfile]>,
) -> Result<()> {
    let semantics = match cfg.question {
        Question::Tso(s) => s,
        Question::Sc => Semantics::Exact,
    };
    let sc = cfg.question == Question::Sc;
    let (algo_name, solver, profiles) = match (sc, cfg.algo) {
        (true, _) => ("sc", None, None),
        (_, decide::Algo::Auto { solver: s, .. }) => ("auto", Some(solver_name(s)), None),
        (_, decide::Algo::Sat(s)) => ("sat", Some(solver_name(s)), None),
        (_, decide::Algo::Fpt { fig4 }) => ("fpt", None, Some(if fig4 { "fig4" } else { "exact" })),
        (_, decide::Algo::Brute) => ("brute", None, None),
    };
    if a.json {
        let stats_json = if a.stats {
            let mut v = stats.to_json();
            if let Some(c) = chains {
                v["chains"] = serde_json::to_value(c)?;
            }
            Some(v)
        } else {
            None
        };
        let out = serde_json::to_value(tsoser::json::CheckReport {
            schema: tsoser::json::schema(),
            file: fname.to_string(),
            trace: trace.map(tsoser::json::TraceInfo::of),
            model: if sc { "sc" } else { "tso" },
            algo: algo_name,
            solver,
            profiles,
            semantics: semantics_name(semantics),
            verdict: verdict.name(),
            reason: match verdict {
                Verdict::Unknown { reason } => Some(reason.clone()),
                _ => None,
            },
            paper_realizable: realizable,
            witness: trace.and_then(|t| report::witness_json(t, verdict)),
            stats: stats_json,
        })?;
        crate::out::json_out(out)?;
        return Ok(());
    }
    let what = if sc {
        "SC-serializable (trace read as an SC run)".to_string()
    } else {
        let algo = match cfg.algo {
            decide::Algo::Auto { solver: s, .. } => {
                format!("auto: fpt + sat/{}", solver_name(s))
            }
            decide::Algo::Sat(s) => format!("sat/{}", solver_name(s)),
            decide::Algo::Fpt { fig4: true } => {
                "fpt, Fig. 4 profiles: a yes may be wrong".to_string()
            }
            decide::Algo::Fpt { fig4: false } => "fpt".to_string(),
            decide::Algo::Brute => "brute".to_string(),
        };
        format!(
            "TSO-serializable [{} semantics, {algo}]",
            semantics_name(semantics)
        )
    };
    let name = trace
        .and_then(|t| t.name.as_deref())
        .map(|n| format!("{} ({fname})", tsoser::text::escaped(n)))
        .unwrap_or_else(|| fname.to_string());
    match (verdict, trace) {
        (Verdict::Serializable, _) => outln!("{name}: {what}: yes"),
        (Verdict::Unknown { reason }, _) => outln!("{name}: {what}: unknown — {reason}"),
        (Verdict::Violation(w), Some(trace)) => {
            outln!("{name}: {what}: NO");
            out!("{}", report::witness_text_with(trace, w, a.witness.lib()));
            match realizable {
                Some(true) => {
                    outln!("an execution has a violation too (exact semantics agrees)")
                }
                Some(false) => outln!(
                    "no TSO execution of this trace has a violation: the paper's graph over-approximates here (docs/semantics.md §5)"
                ),
                None => {}
            }
        }
        (Verdict::Violation(_), None) => outln!("{name}: {what}: NO"),
    }
    if a.stats {
        warn_raw(&stats.to_text());
        if let Some(c) = chains {
            warn_raw(&chains_text(c));
        }
    }
    Ok(())
}

/// The chain partition of `--algo fpt --stats`: one line a chain (at most 32).
fn chains_text(chains: &[fpt::profile::ChainProfile]) -> String {
    let mut s = format!(
        "chain partition of the widest component (Thm. 8): {} chains\n",
        chains.len()
    );
    for (i, c) in chains.iter().enumerate().take(32) {
        s += &format!(
            "  chain {i}: {} transactions [{}], {} entries, {} exits, profiles: {} (Fig. 4 classes), {} (exact)\n",
            c.transactions,
            c.threads.join(" "),
            c.entries,
            c.exits,
            c.fig4_profiles,
            c.exact_profiles
        );
    }
    if chains.len() > 32 {
        s += &format!("  … {} more (all in --json)\n", chains.len() - 32);
    }
    s
}

pub(crate) fn cmd_encode(file: &Path, format: Format, semantics: Semantics) -> Result<u8> {
    let trace = load(file)?;
    match format {
        Format::Dimacs => {
            let f = satcheck::encode::export_formula(&trace, semantics).map_err(|e| {
                anyhow::anyhow!(
                    "{}: the exact formula is too large to write ({e}); decide it with `tsoser check --algo sat`",
                    file.display()
                )
            })?;
            out!("{}", satcheck::export::to_dimacs(&trace, &f))
        }
        Format::Smt2 => {
            // Exact: integer positions need no cuts; paper: the eagerly closed formula.
            let f = match semantics {
                Semantics::Exact => satcheck::encode::whole_formula(&trace, semantics),
                Semantics::Paper => {
                    satcheck::encode::export_formula(&trace, semantics).map_err(|e| {
                        anyhow::anyhow!(
                            "{}: the formula is too large to write ({e})",
                            file.display()
                        )
                    })?
                }
            };
            out!("{}", satcheck::export::to_smt2(&trace, &f, semantics))
        }
    }
    Ok(out::OK)
}

pub(crate) fn cmd_check_exec(file: &Path, as_json: bool) -> Result<u8> {
    let (trace, exec) = tsoser::trace::parse::read_execution(file)?;
    if let Err(why) = tsoser::graph::forced::within_memory(&trace, tsoser::mem::default_budget()) {
        outln!("{}: unknown — {why}", file.display());
        return Ok(out::UNKNOWN);
    }
    let cycle = execution::tso_cycle(&trace, &exec);
    let contraction = execution::sc_equivalence_cycle(&trace, &exec);
    if let Some(c) = &cycle {
        if let Err(why) = tsoser::check::verify_execution_cycle(&trace, exec.steps(), c) {
            warn(&format!("tsoser: internal error: the cycle found does not re-check ({why}); please report this execution"));
            return Ok(INTERNAL);
        }
    }
    let fname = file.display().to_string();
    if as_json {
        let edges = |c: &Option<Vec<tsoser::graph::Edge>>, named: bool| {
            c.as_ref().map(|c| {
                c.iter()
                    .map(|e| tsoser::json::ExecEdge {
                        from: named.then(|| trace.txns[TxnId::new(e.from)].name.clone()),
                        to: named.then(|| trace.txns[TxnId::new(e.to)].name.clone()),
                        src: report::node_text(&trace, e.src),
                        dst: report::node_text(&trace, e.dst),
                        src_step: exec.pos(e.src) + 1,
                        dst_step: exec.pos(e.dst) + 1,
                        rule: e.rule,
                        explain: named.then(|| e.rule.explain()),
                    })
                    .collect::<Vec<_>>()
            })
        };
        let out = serde_json::to_value(tsoser::json::ExecReport {
            schema: tsoser::json::schema(),
            file: fname,
            trace: tsoser::json::TraceInfo::of(&trace),
            tso_serializable: cycle.is_none(),
            cycle: edges(&cycle, true),
            sc_equivalent: contraction.is_none(),
            contraction_cycle: edges(&contraction, false),
            commits: report::placement_json(&trace, &exec),
        })?;
        crate::out::json_out(out)?;
    } else {
        match &cycle {
            None => outln!("{fname}: execution is TSO-serializable: yes"),
            Some(c) => {
                outln!("{fname}: execution is TSO-serializable: NO\ntransaction cycle:");
                out!("{}", report::cycle_text(&trace, c, Some(&exec)));
            }
        }
        match &contraction {
            None => outln!("SC-equivalent (write-contraction acyclic): yes"),
            Some(c) => {
                outln!("SC-equivalent (write-contraction acyclic): NO — cycle of units (a write with its commit is one unit):");
                for e in c {
                    outln!(
                        "  {} @{} → {} @{}  [{:?}]",
                        report::node_text(&trace, e.src),
                        exec.pos(e.src) + 1,
                        report::node_text(&trace, e.dst),
                        exec.pos(e.dst) + 1,
                        e.rule
                    );
                }
            }
        }
    }
    Ok(if cycle.is_some() { 1 } else { 0 })
}

pub(crate) fn cmd_graph(
    file: &Path,
    semantics: Semantics,
    as_dot: bool,
    max: u64,
    as_json: bool,
    want_stats: bool,
) -> Result<u8> {
    let mut stats = Stats::default();
    let trace = stats.time("parse", || load(file))?;
    // The undirected pairs can be quadratic in the threads: bounded as the deciders' are.
    let budget = tsoser::mem::default_budget();
    let too_big = tsoser::graph::forced::within_memory(&trace, budget).err().or_else(|| {
        tsoser::analysis::varying_pairs_within(&trace, tsoser::analysis::max_pairs(budget))
            .err()
            .map(|n| format!("more than {n} pairs of events whose order varies would pass the memory budget (half the available memory)"))
    });
    if let Some(why) = too_big {
        outln!("{}: unknown — {why}", file.display());
        return Ok(out::UNKNOWN);
    }
    let (nodes, directed, undirected, forced_cycle, dot_text) = match semantics {
        Semantics::Exact => {
            let g = stats.time("build exact graph", || ExactGraph::new(&trace));
            let cycle = stats.time("forced cycle check", || g.forced.find_cycle());
            stats.count("forced edges", g.forced.edges().len() as u64);
            let dot_text = as_dot.then(|| {
                let c = cycle
                    .clone()
                    .or_else(|| match brute::check_exact(&trace, max).0 {
                        Verdict::Violation(w) => Some(w.cycle().to_vec()),
                        _ => None,
                    });
                dot::exact_dot(&trace, &g, c.as_deref())
            });
            (
                g.node_count(),
                g.directed_count(),
                g.undirected.len(),
                cycle.is_some(),
                dot_text,
            )
        }
        Semantics::Paper => {
            let g = stats.time("build paper graph", || PaperGraph::new(&trace));
            let cycle = stats.time("forced cycle check", || {
                g.directed_conflicts(&trace).find_cycle()
            });
            let dot_text = as_dot.then(|| {
                let c = cycle
                    .clone()
                    .or_else(|| match brute::check_paper(&trace, max).0 {
                        Verdict::Violation(w) => Some(w.cycle().to_vec()),
                        _ => None,
                    });
                dot::paper_dot(&trace, &g, c.as_deref())
            });
            (
                g.node_count(),
                g.directed.len(),
                g.undirected.len(),
                cycle.is_some(),
                dot_text,
            )
        }
    };
    if let Some(d) = dot_text {
        out!("{d}");
        if want_stats {
            warn_raw(&stats.to_text());
        }
        return Ok(0);
    }
    if as_json {
        let out = serde_json::to_value(tsoser::json::GraphReport {
            schema: tsoser::json::schema(),
            file: file.display().to_string(),
            semantics: semantics_name(semantics),
            trace: tsoser::json::TraceInfo::of(&trace),
            nodes,
            directed_edges: directed,
            undirected_edges: undirected,
            forced_cycle,
            stats: want_stats.then(|| stats.to_json()),
        })?;
        crate::out::json_out(out)?;
    } else {
        outln!(
            "{}: {} semantics: {nodes} nodes, {directed} directed edges, {undirected} undirected edges; forced conflicts {}",
            file.display(),
            semantics_name(semantics),
            if forced_cycle { "have a cycle: NOT serializable" } else { "are acyclic" }
        );
        if want_stats {
            out!("{}", stats.to_text());
        }
    }
    Ok(if forced_cycle { 1 } else { 0 })
}
