//! `tsoser check`: one file with its whole witness, or a batch a line a file.

mod config;
mod print;
mod worker;

use config::{checked, CheckConfig};
pub(crate) use config::{timeout_arg, MAX_TIMEOUT};
pub(crate) use print::semantics_name;
use print::{check_report, print_verdict, reason_of, Answer};
use worker::{next, start_worker, Progress, Wait};

use crate::args::{CheckArgs, WitnessArg};
use crate::out::{self, load_on, warn, INTERNAL, USAGE};
use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};
use std::time::Instant;
use tsoser::check::decide::{self, Budget, DeciderStats, Decision};
use tsoser::check::Unknown;
use tsoser::check::Verdict;
use tsoser::output::witness;
use tsoser::output::witness::Stats;
use tsoser::stop::Stop;
use tsoser::trace::{Trace, TxnId};
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
    cfg.lexers = crate::out::read_threads(a.read_threads, 1, false)?;
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
    let trace = match load_on(file, cfg.lexers) {
        Ok(t) => t,
        Err(e) => return crate::inputs::error_outcome(file, &e, a.json, USAGE),
    };
    let mut stats = Stats::default();
    stats
        .phases
        .push(("parse".into(), started.elapsed().as_secs_f64()));
    let budget = Budget {
        stop: Stop::cancellable(cfg.timeout.and_then(|t| started.checked_add(t)))
            .with_memory(cfg.max_memory),
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
        let reason = reason_of(&d.verdict);
        let ans = Answer {
            file: &fname,
            trace: Some(&trace),
            verdict: &d.verdict,
            reason: reason.as_deref(),
            realizable: d.realizable,
            stats: &stats,
            chains: None,
        };
        let report = check_report(a, cfg, &ans);
        match crate::inputs::Record::json(&report) {
            Ok(r) => r,
            Err(e) => return crate::inputs::error_outcome(file, &e.into(), true, INTERNAL),
        }
    } else {
        let secs = started.elapsed().as_secs_f64();
        match &d.verdict {
            Verdict::Serializable => format!("{fname}: serializable ({secs:.3} s)"),
            Verdict::Unknown(u) => format!("{fname}: unknown — {}", witness::unknown_text(u)),
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
        .into()
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
    let mut counts = match serde_json::to_value(&d.stats) {
        Ok(serde_json::Value::Object(m)) => m,
        _ => serde_json::Map::new(),
    };
    counts.insert("events".into(), trace.len().into());
    counts.insert("transactions".into(), trace.txns.len().into());
    stats.json_counts = Some(counts);
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
    let timed_out = |when: &str| {
        format!(
            "--timeout of {:.3} s reached{when}",
            cfg.timeout.unwrap_or_default().as_secs_f64()
        )
    };
    let deadline_passed = Verdict::Unknown(Unknown::Deadline);
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
            cancel.cancel();
            let reason = timed_out(" while reading the trace");
            let ans = Answer {
                file: &fname,
                trace: None,
                verdict: &deadline_passed,
                reason: Some(&reason),
                realizable: None,
                stats: &stats,
                chains: None,
            };
            print_verdict(a, cfg, &ans)?;
            return Ok(out::UNKNOWN);
        }
    };
    let mut drawing = a.dot.is_some();
    // The words of an unknown that the command, not the decider, answered.
    let mut why = None;
    let decided = match next(&rx, deadline) {
        Ok(Progress::Decided(d, secs)) => {
            stats.phases.push(("decide".into(), secs));
            drawing &= d.is_ok();
            d
        }
        Ok(_) | Err(Wait::Gone) => return gone(),
        Err(Wait::Deadline) => {
            cancel.cancel();
            drawing = false;
            why = Some(timed_out(""));
            Ok(Decision {
                verdict: deadline_passed.clone(),
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
                cancel.cancel();
                warn(&format!(
                    "tsoser: --timeout reached while drawing the graph: {} not written",
                    path.display()
                ));
            }
        }
    }
    let reason = why.or_else(|| reason_of(&decided.verdict));
    let ans = Answer {
        file: &fname,
        trace: Some(&trace),
        verdict: &decided.verdict,
        reason: reason.as_deref(),
        realizable: decided.realizable,
        stats: &stats,
        chains: chains.as_deref(),
    };
    print_verdict(a, cfg, &ans)?;
    Ok(out::verdict_code(&decided.verdict))
}
