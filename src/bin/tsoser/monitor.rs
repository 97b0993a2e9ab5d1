//! `tsoser monitor`: the monitors on a trace read as an SC run.

use crate::args::MonitorArgs;
use crate::args::MonitorKind;
use crate::inputs::{batch, error_outcome, expand, short_outcome, FileOutcome};
use crate::out::{load_on, warn, warn_raw, TraceFormat, INTERNAL, OK, UNKNOWN, USAGE, VIOLATION};
use anyhow::{bail, Result};
use serde_json::json;
use std::path::Path;
use tsoser::monitor;
use tsoser::output::json::{schema, MonitorAll, MonitorEntry, MonitorOne, TraceInfo};
use tsoser::output::monitor::Explained;
use tsoser::output::witness::Stats;
use tsoser::stop::Stop;
use tsoser::trace::Trace;

/// Threads that lex the file: for a stream (beside its lowering and monitors) and for
/// a trace read whole first (beside its reader).
#[derive(Clone, Copy)]
struct Lexers {
    stream: usize,
    whole: usize,
}

/// What the monitors found on one trace.
enum Answer {
    /// Their state would not fit in memory, or the time limit passed: why (unknown,
    /// exit 3).
    TooBig(String),
    /// Evidence that does not re-check: a bug (exit 4).
    Internal(String),
    Done {
        code: u8,
        json: serde_json::Value,
        /// Every monitor's headline and details.
        text: String,
        /// Every monitor's headline on one line.
        line: String,
        stats: Stats,
    },
}

pub(crate) fn cmd_monitor(a: &MonitorArgs) -> Result<u8> {
    let timeout = crate::check::timeout_arg(a.timeout)?;
    let (which, as_json, want_stats) = (a.monitor, a.json, a.stats);
    let inputs = expand(&a.files)?;
    let lexers = Lexers {
        // Beside the lowering and the monitors (docs/monitors.md, "Streaming").
        stream: crate::out::read_threads(a.read_threads, 2, inputs.single)?,
        // Beside the reader, before the monitors run.
        whole: crate::out::read_threads(a.read_threads, 1, inputs.single)?,
    };
    if !inputs.single {
        if want_stats && !as_json {
            bail!(
                "with several files, --stats applies to --json only (the text is one line a file)"
            );
        }
        return batch(&inputs, as_json, |f| {
            match answer(f, which, timeout, want_stats, lexers) {
                Err(e) => error_outcome(f, &e, as_json, USAGE),
                Ok(Answer::TooBig(why)) => short_outcome(f, "unknown", &why, as_json, UNKNOWN),
                Ok(Answer::Internal(why)) => {
                    short_outcome(f, "internal error", &why, as_json, INTERNAL)
                }
                Ok(Answer::Done {
                    code, json, line, ..
                }) => FileOutcome {
                    code,
                    text: if as_json { json.to_string() } else { line }.into(),
                },
            }
        });
    }
    let file = &inputs.files[0];
    match answer(file, which, timeout, want_stats, lexers)? {
        Answer::TooBig(why) => {
            outln!("{}: unknown — {why}", file.display());
            Ok(UNKNOWN)
        }
        Answer::Internal(why) => {
            warn(&format!("tsoser: internal error: {why}"));
            Ok(INTERNAL)
        }
        Answer::Done {
            code,
            json,
            text,
            stats,
            ..
        } => {
            if as_json {
                crate::out::json_out(json)?;
            } else {
                out!("{text}");
                if want_stats {
                    warn_raw(&stats.to_text());
                }
            }
            Ok(code)
        }
    }
}

/// The monitors' outcomes on one trace, with the trace (or the prefix of it) their
/// explanations need, what the trace holds and how many events they read.
struct Ran {
    outcomes: Vec<(monitor::Kind, monitor::Outcome)>,
    trace: Option<Trace>,
    info: TraceInfo,
    seen: usize,
}

fn answer(
    file: &Path,
    which: MonitorKind,
    timeout: Option<std::time::Duration>,
    want_stats: bool,
    lexers: Lexers,
) -> Result<Answer> {
    let kinds = which.kinds();
    // The clock runs from the start of this file, reading included.
    let stop = tsoser::stop::Stop::after(timeout);
    let mut stats = Stats::default();
    // An STD file is streamed (one pass, no trace in memory); the trace is built only
    // to explain a report, and then the in-memory run must agree with the streamed one.
    // A named pipe too, through a temporary copy (`monitor::Input`).
    let ran = if TraceFormat::of(file) == TraceFormat::Std {
        streamed(file, &kinds, &stop, &mut stats, lexers.stream)?
    } else {
        in_memory(file, &kinds, &stop, &mut stats, lexers.whole)?
    };
    match ran {
        Ok(ran) => render(file, ran, stats, want_stats),
        Err(answer) => Ok(answer),
    }
}

/// The monitors on an STD file streamed; the prefix up to the last event a report
/// names is then read again to explain it, and the in-memory monitors must agree.
fn streamed(
    file: &Path,
    kinds: &[monitor::Kind],
    stop: &Stop,
    stats: &mut Stats,
    lexers: usize,
) -> Result<Result<Ran, Answer>> {
    let budget = tsoser::mem::default_room();
    let mut input = monitor::Input::open(file)?.with_lexers(lexers);
    let s = match stats.time("monitor (streaming)", || {
        monitor::stream_input(&mut input, kinds, budget, stop)
    }) {
        Ok(s) => s,
        Err(monitor::StreamError::Memory(why)) => return Ok(Err(Answer::TooBig(why.to_string()))),
        Err(monitor::StreamError::Stopped(why)) => return Ok(Err(Answer::TooBig(why))),
        Err(monitor::StreamError::Input(e)) => return Err(e.into()),
        Err(e) => return Err(e.into()),
    };
    // The explanation needs the events up to the last one a report names: only that
    // prefix is built, never the whole trace.
    let last = s
        .outcomes
        .iter()
        .filter_map(|(_, o)| match o {
            // Every part's report, not the first (bug:
            // the_fenced_monitor_rechecks_the_later_part_of_a_stream).
            monitor::Outcome::Fenced {
                unfenced,
                sc_ser,
                sober,
            } => [*unfenced, *sc_ser, sober.as_ref().map(|r| r.load)]
                .into_iter()
                .flatten()
                .max(),
            o => o.at(),
        })
        .max();
    let info = TraceInfo {
        name: None,
        events: s.events,
        threads: s.threads,
        transactions: s.transactions,
        variables: s.variables,
        transaction_fenced: None,
    };
    let Some(last) = last else {
        return Ok(Ok(Ran {
            outcomes: s.outcomes,
            trace: None,
            info,
            seen: s.monitored,
        }));
    };
    let trace = input.prefix(last + 1)?;
    // The in-memory monitors on the prefix must report the same (the fenced
    // monitor's two parts: a prefix may cut a transaction).
    let again = monitor::run(&trace, kinds);
    let parts = |o: &monitor::Outcome| match o {
        monitor::Outcome::Fenced { sc_ser, sober, .. } => monitor::Outcome::Fenced {
            unfenced: None,
            sc_ser: *sc_ser,
            sober: sober.clone(),
        },
        o => o.clone(),
    };
    let same = again.len() == s.outcomes.len()
        && again
            .iter()
            .zip(&s.outcomes)
            .all(|(a, b)| parts(&a.1) == parts(&b.1));
    if !same {
        return Ok(Err(Answer::Internal(format!("the streamed monitors found {:?}, the in-memory ones {again:?}; please report this trace", s.outcomes))));
    }
    Ok(Ok(Ran {
        outcomes: s.outcomes,
        trace: Some(trace),
        info,
        seen: s.monitored,
    }))
}

/// The monitors on a trace read into memory.
fn in_memory(
    file: &Path,
    kinds: &[monitor::Kind],
    stop: &Stop,
    stats: &mut Stats,
    lexers: usize,
) -> Result<Result<Ran, Answer>> {
    let trace = stats.time("parse", || load_on(file, lexers))?;
    let (k, m) = (trace.threads.len(), trace.vars.len());
    if let Err(why) = monitor::check_memory(kinds, k, m, tsoser::mem::default_room()) {
        return Ok(Err(Answer::TooBig(why.to_string())));
    }
    // Set-up (allocating the state) is timed apart: right after a large parse, the
    // allocator's deferred clean-up lands on the first allocations.
    let suite = stats.time("set-up", || monitor::Suite::new(kinds, k, m));
    let outcomes = match stats.time("monitor", || monitor::run_suite(suite, &trace, stop)) {
        Ok(outcomes) => outcomes,
        Err(events) => return Ok(Err(Answer::TooBig(monitor::stopped(events)))),
    };
    let seen = monitor::events_read(&outcomes, trace.len());
    let info = TraceInfo::of(&trace);
    Ok(Ok(Ran {
        outcomes,
        trace: Some(trace),
        info,
        seen,
    }))
}

/// Each outcome explained, as text (one block and one line) and JSON, with the exit
/// code: 1 if any monitor reports a violation, else 3 if one is unknown, else 0.
fn render(file: &Path, ran: Ran, mut stats: Stats, want_stats: bool) -> Result<Answer> {
    let empty = Trace::new(None, vec![], vec![], vec![], vec![], Default::default())?;
    let t = ran.trace.as_ref().unwrap_or(&empty);
    let mut explained = Vec::new();
    for (kind, o) in &ran.outcomes {
        match tsoser::output::monitor::explain(t, *kind, o) {
            Ok(x) => explained.push(x),
            Err(why) => {
                return Ok(Answer::Internal(format!(
                    "the {} monitor's evidence does not re-check ({why}); please report this trace",
                    kind.name()
                )));
            }
        }
    }
    let secs: f64 = stats
        .phases
        .iter()
        .filter(|p| p.0.starts_with("monitor"))
        .map(|p| p.1)
        .sum();
    stats.count("events", ran.seen as u64);
    stats.count(
        "events per second",
        (ran.seen as f64 / secs.max(1e-9)) as u64,
    );
    let code = explained
        .iter()
        .map(|x| match x.answer {
            monitor::Answer::Clean => OK,
            monitor::Answer::Violation => VIOLATION,
            monitor::Answer::Unknown => UNKNOWN,
        })
        .fold(OK, |a, b| {
            if a == VIOLATION || b == VIOLATION {
                VIOLATION
            } else {
                a.max(b)
            }
        });
    let fname = file.display().to_string();
    let one = |x: &Explained| MonitorEntry {
        monitor: x.kind.name(),
        verdict: x.verdict,
        stopped_at: x
            .stopped_at
            .map(|i| json!({"event": i, "line": t.events[i].line, "text": t.describe(i)})),
        report: x.report.clone(),
        witness: (x.kind == monitor::Kind::ScSer).then(|| x.report.clone()),
    };
    let stats_json = want_stats.then(|| stats.to_json());
    let json = if let [x] = explained.as_slice() {
        serde_json::to_value(MonitorOne {
            schema: schema(),
            file: fname.clone(),
            trace: ran.info,
            entry: one(x),
            stats: stats_json,
        })?
    } else {
        serde_json::to_value(MonitorAll {
            schema: schema(),
            file: fname.clone(),
            trace: ran.info,
            monitors: explained.iter().map(one).collect(),
            stats: stats_json,
        })?
    };
    let mut text = String::new();
    for x in &explained {
        text += &format!("{fname}: {}\n{}", x.headline, x.details);
    }
    let headlines: Vec<&str> = explained.iter().map(|x| x.headline.as_str()).collect();
    let line = format!("{fname}: {}", headlines.join("; "));
    Ok(Answer::Done {
        code,
        json,
        text,
        line,
        stats,
    })
}
