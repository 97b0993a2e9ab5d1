//! The worker thread that reads, decides and draws, so `--timeout` bounds all of it.

use super::config::CheckConfig;
use crate::args::WitnessArg;
use crate::out::load_on;
use anyhow::{Context, Result};
use std::path::PathBuf;
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tsoser::check::decide::{self, DecideError, Decision, Question};
use tsoser::check::{Semantics, Verdict};
use tsoser::graph::{exact::ExactGraph, paper::PaperGraph};
use tsoser::output::dot;
use tsoser::stop::Stop;
use tsoser::trace::Trace;

/// answers *unknown* without it.
/// How long past the deadline a step that cannot be interrupted mid-call (reading the
/// file, a single varisat solve, drawing the DOT text) may run before the command
pub(super) const GRACE: Duration = Duration::from_millis(150);

/// What the worker running a `check` reports, step by step.
pub(super) enum Progress {
    /// The trace was read (or not), with the seconds it took.
    Loaded(Result<Arc<Trace>>, f64),
    /// The decider's answer, with the seconds it took.
    Decided(std::result::Result<Decision, DecideError>, f64),
    /// The DOT text of `--dot`.
    Drawn(String),
}

/// Why the main thread stopped waiting for the worker.
pub(super) enum Wait {
    /// `--timeout` (plus [`GRACE`]) passed.
    Deadline,
    /// The worker ended without reporting (it panicked).
    Gone,
}

/// Runs the whole command — reading, deciding, drawing — on a worker, so `--timeout`
/// bounds all of it: the deciders stop cooperatively at the budget's deadline, and a
/// step that overruns it (reading a huge file, one solver call) is left behind when the
/// process exits.
pub(super) fn start_worker(
    file: PathBuf,
    cfg: &CheckConfig,
    deadline: Option<Instant>,
    dot: Option<WitnessArg>,
) -> Result<(Receiver<Progress>, Stop)> {
    let mut budget = cfg.budget.clone();
    budget.stop = Stop::cancellable(deadline).with_memory(cfg.max_memory);
    let cancel = budget.stop.clone();
    let (q, algo, lexers) = (cfg.question, cfg.algo, cfg.lexers);
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::Builder::new()
        .name("check".into())
        .spawn(move || {
            let t = Instant::now();
            let trace = load_on(&file, lexers).map(Arc::new);
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
pub(super) fn next(
    rx: &Receiver<Progress>,
    deadline: Option<Instant>,
) -> std::result::Result<Progress, Wait> {
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
pub(super) fn dot_text(
    trace: &Trace,
    verdict: &Verdict,
    witness: WitnessArg,
    q: Question,
) -> String {
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
