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
use tsoser::graph::{exact::ExactGraph, paper::PaperGraph};
use tsoser::output::dot;
use tsoser::output::witness::{self, Stats};
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

impl CheckConfig {
    /// The semantics asked for (exact for `--model sc`, which has only one).
    fn semantics(&self) -> Semantics {
        match self.question {
            Question::Tso(s) => s,
            Question::Sc => Semantics::Exact,
        }
    }
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
    let mut cfg = checked(&a)?;
    let inputs = crate::inputs::expand(&a.files)?;
    if let Some(dot) = &a.dot {
        let files: Vec<&Path> = inputs.files.iter().map(PathBuf::as_path).collect();
        out::refuse_clobber(&[("--dot", dot)], &files)?;
    }
    if inputs.single {
        return check_single(&a, &cfg, &inputs.files[0]);
    }
    if a.dot.is_some() {
        bail!("--dot draws the graph of one trace: name one file");
    }
    if a.jobs.is_none() {
        // The files run in parallel, one core each.
        cfg.budget.jobs = 1;
    }
    if !a.json && (a.stats || a.witness.is_some()) {
        bail!("with several files, --stats and --witness apply to --json only (the text is one line a file)");
    }
    crate::inputs::batch(&inputs, a.json, |f| check_one(&a, &cfg, f))
}

/// One file of a batch: read, decided within `--timeout` (counted from the start of
/// this file), summed up in one line or one JSON line.
fn check_one(a: &CheckArgs, cfg: &CheckConfig, file: &Path) -> crate::inputs::FileOutcome {
    let started = Instant::now();
    let fname = file.display().to_string();
    let trace = match load(file) {
        Ok(t) => t,
        Err(e) => return crate::inputs::error_outcome(file, &e, a.json, USAGE),
    };
    let mut stats = Stats::default();
    stats
        .phases
        .push(("parse".into(), started.elapsed().as_secs_f64()));
    let budget = Budget {
        deadline: cfg.timeout.and_then(|t| started.checked_add(t)),
        cancel: Arc::new(std::sync::atomic::AtomicBool::new(false)),
        ..cfg.budget.clone()
    };
    let t = Instant::now();
    let d = match decide::decide(&trace, cfg.question, cfg.algo, &budget) {
        Ok(d) => d,
        Err(e) => {
            let code = if e.is_internal() { INTERNAL } else { USAGE };
            return crate::inputs::error_outcome(file, &anyhow::Error::new(e), a.json, code);
        }
    };
    stats
        .phases
        .push(("decide".into(), t.elapsed().as_secs_f64()));
    add_decider_stats(&mut stats, &d, &trace);
    let code = out::verdict_code(&d.verdict);
    let text = if a.json {
        let ans = Answer {
            file: &fname,
            trace: Some(&trace),
            verdict: &d.verdict,
            realizable: d.realizable,
            stats: &stats,
            chains: None,
        };
        let report = check_report(a, cfg, &ans);
        match serde_json::to_string(&report) {
            Ok(s) => s,
            Err(e) => return crate::inputs::error_outcome(file, &e.into(), true, INTERNAL),
        }
    } else {
        let secs = started.elapsed().as_secs_f64();
        match &d.verdict {
            Verdict::Serializable => format!("{fname}: serializable ({secs:.3} s)"),
            Verdict::Unknown { reason } => format!("{fname}: unknown — {reason}"),
            Verdict::Violation(w) => {
                let mut names: Vec<&str> = w
                    .cycle()
                    .iter()
                    .map(|e| trace.txns[TxnId::new(e.from)].name.as_str())
                    .collect();
                let len = names.len();
                names.extend(names.first().copied());
                // A long cycle (the reduction's run through every gadget) shows its
                // ends: the line stays a line.
                let shown = if len > 8 {
                    format!(
                        "of {len} transactions {} → … → {}",
                        names[..3].join(" → "),
                        names[len - 2..].join(" → ")
                    )
                } else {
                    names.join(" → ")
                };
                format!(
                    "{fname}: violation — cycle {} ({secs:.3} s)",
                    tsoser::text::escaped(&shown)
                )
            }
        }
    };
    crate::inputs::FileOutcome { code, text }
}

/// The decider's phases and counters, and the trace's size, into `stats`.
fn add_decider_stats(stats: &mut Stats, d: &Decision, trace: &Trace) {
    for (k, v) in d.stats.phases() {
        stats.add_phase(&format!("  {k}"), v);
    }
    for (k, v) in d.stats.counts() {
        stats.count(k, v);
    }
    stats.count("events", trace.len() as u64);
    stats.count("transactions", trace.txns.len() as u64);
}

/// `check` on one file, with the whole witness, `--dot`, and `--timeout` bounding the
/// reading too.
fn check_single(a: &CheckArgs, cfg: &CheckConfig, file: &Path) -> Result<u8> {
    let started = Instant::now();
    let deadline = cfg.timeout.and_then(|t| started.checked_add(t));
    let fname = file.display().to_string();
    let (rx, cancel) = start_worker(
        file.to_path_buf(),
        cfg,
        deadline,
        a.dot
            .is_some()
            .then_some(a.witness.unwrap_or(WitnessArg::Cycle)),
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
            let ans = Answer {
                file: &fname,
                trace: None,
                verdict: &unknown,
                realizable: None,
                stats: &stats,
                chains: None,
            };
            print_verdict(a, cfg, &ans)?;
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
    add_decider_stats(&mut stats, &decided, &trace);
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
    let ans = Answer {
        file: &fname,
        trace: Some(&trace),
        verdict: &decided.verdict,
        realizable: decided.realizable,
        stats: &stats,
        chains: chains.as_deref(),
    };
    print_verdict(a, cfg, &ans)?;
    Ok(out::verdict_code(&decided.verdict))
}

/// One file's answer, as printed: `trace` is `None` when the timeout came before the
/// trace was read; `chains` are fpt's (with `--stats`).
#[derive(Clone, Copy)]
struct Answer<'a> {
    file: &'a str,
    trace: Option<&'a Trace>,
    verdict: &'a Verdict,
    realizable: Option<bool>,
    stats: &'a Stats,
    chains: Option<&'a [fpt::profile::ChainProfile]>,
}

/// The `--json` object of one file's answer.
fn check_report(
    a: &CheckArgs,
    cfg: &CheckConfig,
    ans: &Answer,
) -> tsoser::output::json::CheckReport {
    let Answer {
        file: fname,
        trace,
        verdict,
        realizable,
        stats,
        chains,
    } = *ans;
    let sc = cfg.question == Question::Sc;
    let (algo_name, solver, profiles) = match (sc, cfg.algo) {
        (true, _) => ("sc", None, None),
        (_, decide::Algo::Auto { solver: s, .. }) => ("auto", Some(solver_name(s)), None),
        (_, decide::Algo::Sat(s)) => ("sat", Some(solver_name(s)), None),
        (_, decide::Algo::Fpt { fig4 }) => ("fpt", None, Some(if fig4 { "fig4" } else { "exact" })),
        (_, decide::Algo::Brute) => ("brute", None, None),
    };
    let stats_json = a.stats.then(|| {
        let mut v = stats.to_json();
        if let Some(c) = chains {
            v["chains"] = serde_json::to_value(c).unwrap_or_default();
        }
        v
    });
    tsoser::output::json::CheckReport {
        schema: tsoser::output::json::schema(),
        file: fname.to_string(),
        trace: trace.map(tsoser::output::json::TraceInfo::of),
        model: if sc { "sc" } else { "tso" },
        algo: algo_name,
        solver,
        profiles,
        semantics: semantics_name(cfg.semantics()),
        verdict: verdict.name(),
        reason: match verdict {
            Verdict::Unknown { reason } => Some(reason.clone()),
            _ => None,
        },
        paper_realizable: realizable,
        witness: trace.and_then(|t| {
            let detail = a.witness.map_or(witness::Detail::Full, WitnessArg::lib);
            witness::witness_json_with(t, verdict, detail)
        }),
        stats: stats_json,
    }
}

/// Prints the answer of `check` (text or `--json`).
fn print_verdict(a: &CheckArgs, cfg: &CheckConfig, ans: &Answer) -> Result<()> {
    let Answer {
        file: fname,
        trace,
        verdict,
        realizable,
        stats,
        chains,
    } = *ans;
    let (sc, semantics) = (cfg.question == Question::Sc, cfg.semantics());
    if a.json {
        let report = check_report(a, cfg, ans);
        crate::out::json_out(serde_json::to_value(report)?)?;
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
            out!(
                "{}",
                witness::witness_text_with(trace, w, a.witness.unwrap_or(WitnessArg::Cycle).lib())
            );
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

/// `tsoser encode`: the formula on standard output. `--timeout` is polled between the
/// phases (reading, encoding, writing the text) and inside the eager closure, on this
/// one thread: past it no formula is printed and the answer is unknown (exit 3).
pub(crate) fn cmd_encode(
    file: &Path,
    format: Format,
    semantics: Semantics,
    timeout: Option<f64>,
) -> Result<u8> {
    let timeout = timeout_arg(timeout)?;
    let stop = tsoser::check::Stop::after(timeout);
    // Standard output is for the formula: the unknown goes to standard error.
    let unknown = |when: &str| {
        warn(&format!(
            "tsoser: {}: unknown — --timeout of {:.3} s reached {when}",
            file.display(),
            timeout.unwrap_or_default().as_secs_f64()
        ));
        Ok(out::UNKNOWN)
    };
    let trace = load(file)?;
    if stop.expired() {
        return unknown("while reading the trace");
    }
    use satcheck::encode::ExportError;
    let built = match (format, semantics) {
        // Exact SMT: integer positions need no cuts; otherwise the eagerly closed formula.
        (Format::Smt2, Semantics::Exact) => {
            satcheck::encode::whole_formula_until(&trace, semantics, &stop)
        }
        _ => satcheck::encode::export_formula_until(&trace, semantics, &stop),
    };
    let f = match built {
        Ok(f) => f,
        Err(ExportError::Stopped) => return unknown("while encoding"),
        Err(ExportError::TooLarge(e)) if format == Format::Dimacs => bail!(
            "{}: the exact formula is too large to write ({e}); decide it with `tsoser check --algo sat`",
            file.display()
        ),
        Err(ExportError::TooLarge(e)) => {
            bail!("{}: the formula is too large to write ({e})", file.display())
        }
    };
    let text = match format {
        Format::Dimacs => satcheck::export::to_dimacs(&trace, &f),
        Format::Smt2 => satcheck::export::to_smt2(&trace, &f, semantics),
    };
    if stop.expired() {
        return unknown("while writing the formula");
    }
    out!("{text}");
    Ok(out::OK)
}

pub(crate) fn cmd_check_exec(file: &Path, as_json: bool) -> Result<u8> {
    // An STD file has no commits to check (bug: check_exec_on_std_names_the_format: it
    // answered with a YAML syntax error).
    // Its first 4 KiB tell (the reader reads the whole file after).
    let head = |f: &Path| -> std::io::Result<Vec<u8>> {
        use std::io::Read;
        let mut b = Vec::new();
        std::fs::File::open(f)?.take(4096).read_to_end(&mut b)?;
        Ok(b)
    };
    let std = tsoser::trace::is_std_file(file)
        || head(file).is_ok_and(|b| tsoser::trace::looks_like_std(&String::from_utf8_lossy(&b)));
    if std {
        anyhow::bail!(
            "{}: check-exec reads an execution in YAML (a trace with `commit` events); this is an STD trace, which has no commits (check it with `tsoser check`)",
            file.display()
        );
    }
    let (trace, exec) = tsoser::trace::yaml::read_execution(file)?;
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
                    .map(|e| tsoser::output::json::ExecEdge {
                        from: named.then(|| trace.txns[TxnId::new(e.from)].name.clone()),
                        to: named.then(|| trace.txns[TxnId::new(e.to)].name.clone()),
                        src: witness::node_text(&trace, e.src),
                        dst: witness::node_text(&trace, e.dst),
                        src_step: exec.pos(e.src) + 1,
                        dst_step: exec.pos(e.dst) + 1,
                        rule: e.rule,
                        explain: named.then(|| e.rule.explain()),
                    })
                    .collect::<Vec<_>>()
            })
        };
        let out = serde_json::to_value(tsoser::output::json::ExecReport {
            schema: tsoser::output::json::schema(),
            file: fname,
            trace: tsoser::output::json::TraceInfo::of(&trace),
            tso_serializable: cycle.is_none(),
            cycle: edges(&cycle, true),
            sc_equivalent: contraction.is_none(),
            contraction_cycle: edges(&contraction, false),
            commits: witness::placement_json(&trace, &exec),
        })?;
        crate::out::json_out(out)?;
    } else {
        match &cycle {
            None => outln!("{fname}: execution is TSO-serializable: yes"),
            Some(c) => {
                outln!("{fname}: execution is TSO-serializable: NO\ntransaction cycle:");
                out!("{}", witness::cycle_text(&trace, c, Some(&exec)));
            }
        }
        match &contraction {
            None => outln!("SC-equivalent (write-contraction acyclic): yes"),
            Some(c) => {
                outln!("SC-equivalent (write-contraction acyclic): NO — cycle of units (a write with its commit is one unit):");
                for e in c {
                    outln!(
                        "  {} @{} → {} @{}  [{:?}]",
                        witness::node_text(&trace, e.src),
                        exec.pos(e.src) + 1,
                        witness::node_text(&trace, e.dst),
                        exec.pos(e.dst) + 1,
                        e.rule
                    );
                }
            }
        }
    }
    Ok(if cycle.is_some() { 1 } else { 0 })
}

/// What `graph` finds on one trace.
enum GraphAnswer {
    /// The graph would pass the memory budget: why.
    TooBig(String),
    Built {
        report: Box<tsoser::output::json::GraphReport>,
        stats: Stats,
        dot: Option<String>,
    },
}

fn graph_answer(
    file: &Path,
    semantics: Semantics,
    as_dot: bool,
    max: u64,
    want_stats: bool,
) -> Result<GraphAnswer> {
    let mut stats = Stats::default();
    let trace = stats.time("parse", || load(file))?;
    // The undirected pairs can be quadratic in the threads: bounded as the deciders' are.
    let budget = tsoser::mem::default_budget();
    let too_big = tsoser::graph::forced::within_memory(&trace, budget).err().or_else(|| {
        tsoser::analysis::varying_pairs_within(&trace, tsoser::analysis::max_pairs(budget))
            .err()
            .map(|n| format!("more than {n} pairs of events whose order varies would pass the memory budget ({})", tsoser::mem::DEFAULT_BUDGET))
    });
    if let Some(why) = too_big {
        return Ok(GraphAnswer::TooBig(why));
    }
    let (nodes, directed, undirected, forced_cycle, dot) = match semantics {
        Semantics::Exact => {
            let g = stats.time("build exact graph", || ExactGraph::new(&trace));
            let cycle = stats.time("forced cycle check", || g.forced.find_cycle());
            stats.count("forced edges", g.forced.edges().len() as u64);
            let dot = as_dot.then(|| {
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
                dot,
            )
        }
        Semantics::Paper => {
            let g = stats.time("build paper graph", || PaperGraph::new(&trace));
            let cycle = stats.time("forced cycle check", || {
                g.directed_conflicts(&trace).find_cycle()
            });
            let dot = as_dot.then(|| {
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
                dot,
            )
        }
    };
    let report = tsoser::output::json::GraphReport {
        schema: tsoser::output::json::schema(),
        file: file.display().to_string(),
        semantics: semantics_name(semantics),
        trace: tsoser::output::json::TraceInfo::of(&trace),
        nodes,
        directed_edges: directed,
        undirected_edges: undirected,
        forced_cycle,
        stats: want_stats.then(|| stats.to_json()),
    };
    Ok(GraphAnswer::Built {
        report: Box::new(report),
        stats,
        dot,
    })
}

/// The text line of `graph`.
fn graph_line(r: &tsoser::output::json::GraphReport) -> String {
    format!(
        "{}: {} semantics: {} nodes, {} directed edges, {} undirected edges; forced conflicts {}",
        r.file,
        r.semantics,
        r.nodes,
        r.directed_edges,
        r.undirected_edges,
        if r.forced_cycle {
            "have a cycle: NOT serializable"
        } else {
            "are acyclic"
        }
    )
}

pub(crate) fn cmd_graph(
    files: &[PathBuf],
    semantics: Semantics,
    as_dot: bool,
    max: u64,
    as_json: bool,
    want_stats: bool,
) -> Result<u8> {
    let inputs = crate::inputs::expand(files)?;
    if !inputs.single {
        if as_dot {
            bail!("--dot draws the graph of one trace: name one file");
        }
        if want_stats && !as_json {
            bail!(
                "with several files, --stats applies to --json only (the text is one line a file)"
            );
        }
        return crate::inputs::batch(&inputs, as_json, |f| {
            match graph_answer(f, semantics, false, max, want_stats) {
                Err(e) => crate::inputs::error_outcome(f, &e, as_json, USAGE),
                Ok(GraphAnswer::TooBig(why)) => {
                    crate::inputs::short_outcome(f, "unknown", &why, as_json, out::UNKNOWN)
                }
                Ok(GraphAnswer::Built { report, .. }) => crate::inputs::FileOutcome {
                    code: if report.forced_cycle {
                        out::VIOLATION
                    } else {
                        out::OK
                    },
                    text: if as_json {
                        serde_json::to_string(&report).unwrap_or_default()
                    } else {
                        graph_line(&report)
                    },
                },
            }
        });
    }
    let file = &inputs.files[0];
    match graph_answer(file, semantics, as_dot, max, want_stats)? {
        GraphAnswer::TooBig(why) => {
            outln!("{}: unknown — {why}", file.display());
            Ok(out::UNKNOWN)
        }
        GraphAnswer::Built {
            stats,
            dot: Some(d),
            ..
        } => {
            out!("{d}");
            if want_stats {
                warn_raw(&stats.to_text());
            }
            Ok(out::OK)
        }
        GraphAnswer::Built { report, stats, .. } => {
            let code = if report.forced_cycle {
                out::VIOLATION
            } else {
                out::OK
            };
            if as_json {
                crate::out::json_out(serde_json::to_value(report)?)?;
            } else {
                outln!("{}", graph_line(&report));
                if want_stats {
                    out!("{}", stats.to_text());
                }
            }
            Ok(code)
        }
    }
}
