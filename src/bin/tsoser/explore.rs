//! `tsoser explore` and `tsoser suite`: programs and litmus tests.

use crate::args::{Bounds, ExploreFormat};
use crate::args::{ExploreArgs, LoopBoundArg};
use crate::out::{warn, INTERNAL, OK, UNKNOWN, VIOLATION};
use anyhow::{bail, Context, Result};
use serde_json::json;
use std::path::Path;
use tsoser::explore::replay::parse_schedule;
use tsoser::explore::traces::{self, EmitStop};
use tsoser::explore::{Config, EngineKind, Incomplete, Options, RunError, Status};
use tsoser::output::explore as report;
use tsoser::output::witness::Stats;
use tsoser::program::print::to_prog;
use tsoser::program::{self, Program};
use tsoser::trace;

/// The most states `--max-states` may allow (the memory budget ends a search sooner).
pub(crate) const MAX_STATES: usize = 1_000_000_000;
/// The most executions `--max-executions` may allow.
const MAX_EXECUTIONS: u64 = 1_000_000_000_000;
/// The most traces (files) `--max-traces` may write.
const MAX_TRACES: usize = 100_000;

/// The explorer's bounds from the flags; `--max-memory` is in MiB (default: half the
/// memory available).
pub(crate) fn config(b: &Bounds) -> Result<Config> {
    if !(1..=MAX_STATES).contains(&b.max_states) {
        bail!("--max-states takes 1 to {MAX_STATES}");
    }
    if b.max_executions
        .is_some_and(|n| !(1..=MAX_EXECUTIONS).contains(&n))
    {
        bail!("--max-executions takes 1 to {MAX_EXECUTIONS}");
    }
    let timeout = crate::check::timeout_arg(b.timeout)?;
    let mut c = Config::new(b.model.model())
        .unroll(b.unroll.unwrap_or(4))
        .max_states(b.max_states)
        .deadline(timeout.and_then(|t| std::time::Instant::now().checked_add(t)));
    match (b.max_executions, b.engine) {
        (Some(n), crate::args::EngineArg::Dpor) => c = c.max_executions(n),
        (Some(_), _) => bail!("--max-executions bounds the dpor engine: add --engine dpor"),
        (None, _) => {}
    }
    match (b.stop_at_failure, b.engine) {
        (true, crate::args::EngineArg::Dpor) => c = c.stop_at_failure(true),
        (true, _) => {
            bail!("--stop-at-failure ends the dpor engine's exploration: add --engine dpor")
        }
        (false, _) => {}
    }
    if b.unroll.is_some() && b.engine == crate::args::EngineArg::Reach {
        bail!("--unroll bounds loops, and the reach engine follows them without a bound: drop one");
    }
    if let Some(mib) = b.max_memory {
        if mib == 0 || mib > 1 << 30 {
            bail!("--max-memory takes 1 to 2^30 MiB");
        }
        c = c.max_memory(mib << 20);
    }
    Ok(c)
}

/// The engine of `--engine`.
pub(crate) fn engine(b: &Bounds) -> EngineKind {
    match b.engine {
        crate::args::EngineArg::States => EngineKind::States,
        crate::args::EngineArg::Dpor => EngineKind::Dpor,
        crate::args::EngineArg::Reach => EngineKind::Reach,
    }
}

/// The exit code of an explored program.
fn status_code(s: Status) -> u8 {
    match s {
        Status::Violation => VIOLATION,
        Status::Unknown => UNKNOWN,
        Status::Clean => OK,
    }
}

/// Where `explore` writes what it finds: `--emit-traces DIR`, `--emit-runs DIR`, and
/// `--max-traces`.
pub(crate) struct Emit<'a> {
    pub(crate) traces: Option<&'a Path>,
    pub(crate) runs: Option<&'a Path>,
    pub(crate) max_traces: Option<usize>,
}

pub(crate) fn cmd_explore(
    file: &Path,
    read: &program::ReadOptions,
    o: Options,
    replay: Option<&str>,
    emit_to: &Emit,
    format: ExploreFormat,
    want_stats: bool,
) -> Result<u8> {
    let emitting = emit_to.traces.or(emit_to.runs);
    if emitting.is_none() && emit_to.max_traces.is_some() {
        bail!("--max-traces bounds --emit-traces and --emit-runs: add one of them");
    }
    let max_traces = emit_to.max_traces.unwrap_or(1000);
    if !(1..=MAX_TRACES).contains(&max_traces) {
        bail!("--max-traces takes 1 to {MAX_TRACES} (each trace is a file)");
    }
    let p = program::read_program_with(file, read)?;
    let o = o.for_program(&p);
    if format == ExploreFormat::Prog {
        if replay.is_some() || emitting.is_some() || want_stats {
            bail!("--format prog prints the program: --replay, --emit-traces, --emit-runs and --stats do not apply");
        }
        out!("{}", to_prog(&p));
        return Ok(OK);
    }
    let as_json = format == ExploreFormat::Json;
    if format == ExploreFormat::Herd {
        if replay.is_some() || emitting.is_some() || want_stats {
            bail!("--format herd prints herd7's report: --replay, --emit-traces, --emit-runs and --stats do not apply");
        }
        let o = Options {
            robustness: false,
            ..o
        };
        let t0 = std::time::Instant::now();
        let r =
            tsoser::explore::run(&p, o).map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))?;
        return match tsoser::output::herd::herd(&p, &r.exploration, t0.elapsed().as_secs_f64()) {
            Ok(text) => {
                out!("{text}");
                Ok(status_code(r.status()))
            }
            Err(e) => {
                warn(&format!("tsoser: {}: {e}", file.display()));
                Ok(crate::out::UNKNOWN)
            }
        };
    }
    let fname = file.display().to_string();
    if replay.is_some() && (emitting.is_some() || want_stats || as_json) {
        bail!("--replay prints one run as text: --emit-traces, --emit-runs, --stats and --json do not apply");
    }
    if let Some(text) = replay {
        let steps = parse_schedule(&p, text).map_err(|e| anyhow::anyhow!("--replay: {e}"))?;
        let unroll = match o.engine.unbounded() {
            true => tsoser::explore::machine::UNBOUNDED,
            false => o.config.unroll,
        };
        let out = report::replay_text(&p, o.config.model, unroll, &steps)
            .map_err(|e| anyhow::anyhow!("--replay: {e}"))?;
        out!("{out}");
        return Ok(0);
    }
    let mut stats = Stats::default();
    let r = stats.time("explore", || tsoser::explore::run(&p, o));
    let r = match r {
        Ok(r) => r,
        Err(e @ RunError::Witness(_)) => {
            warn(&format!("tsoser: {e}; please report this program"));
            return Ok(INTERNAL);
        }
        Err(e) => bail!("{fname}: {e}"),
    };
    let (emitted, emitted_runs) = {
        let mut to = |what, dir| emit(what, file, &p, &o, dir, max_traces, &mut stats, as_json);
        let traces = emit_to
            .traces
            .map(|d| to(Emitting::Traces, d))
            .transpose()?;
        let runs = emit_to.runs.map(|d| to(Emitting::Runs, d)).transpose()?;
        (traces, runs)
    };
    let secs: f64 = stats
        .phases
        .iter()
        .filter(|p| p.0 == "explore")
        .map(|p| p.1)
        .sum();
    let states = r.exploration.states + r.robustness.as_ref().map_or(0, |x| x.states);
    stats.count("states (outcomes + robustness)", states as u64);
    stats.count("states per second", (states as f64 / secs.max(1e-9)) as u64);
    let exit = status_code(r.status());
    if as_json {
        let mut v = report::json(&p, &fname, &r, exit);
        if let Some((n, stop)) = emitted {
            v["emitted"] = json!({"traces": n, "complete": stop == EmitStop::Complete,
                                  "stop": stop.name()});
        }
        if let Some((n, stop)) = emitted_runs {
            v["emitted_runs"] = json!({"runs": n, "complete": stop == EmitStop::Complete,
                                       "stop": stop.name()});
        }
        if want_stats {
            v["stats"] = stats.to_json();
        }
        crate::out::json_out(v)?;
    } else {
        out!("{}", report::text(&p, &fname, &r));
        if want_stats {
            out!("{}", stats.to_text());
        }
    }
    Ok(exit)
}

/// Why an enumeration stopped, as the end of the "wrote …" line.
fn stop_text(stop: EmitStop, n: usize, max_traces: usize, max_states: usize) -> String {
    match stop {
        EmitStop::Complete if n == 0 => {
            " (no run of the program completes: nothing to emit)".to_string()
        }
        EmitStop::Complete => " (all distinct ones)".to_string(),
        EmitStop::MaxTraces => {
            format!(" — truncated at --max-traces {max_traces}: more may exist")
        }
        EmitStop::Spin => {
            format!(" — stopped: {}", report::incomplete_text(Incomplete::Spin))
        }
        EmitStop::MaxSteps => format!(
            " — truncated: the schedule enumeration reached --max-states {max_states} steps; more may exist"
        ),
    }
}

/// What `--emit-traces` and `--emit-runs` write.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Emitting {
    Traces,
    Runs,
}

/// Writes the distinct traces (or runs with values, for `tsoser consistent`) of
/// complete runs to `dir`; the count and why the enumeration stopped.
#[allow(clippy::too_many_arguments)]
fn emit(
    what: Emitting,
    input: &Path,
    p: &Program,
    o: &Options,
    dir: &Path,
    max_traces: usize,
    stats: &mut Stats,
    as_json: bool,
) -> Result<(usize, EmitStop)> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot write {}", dir.display()))?;
    let (model, unroll, max_states) = (o.config.model, o.config.unroll, o.config.max_states);
    let (files, stop): (Vec<String>, _) = match what {
        Emitting::Traces => {
            let em = stats.time("emit traces", || {
                traces::traces(p, model, unroll, max_traces, max_states)
            });
            (
                em.traces
                    .iter()
                    .map(|t| trace::yaml::write(t, trace::yaml::Form::Canonical))
                    .collect(),
                em.stop,
            )
        }
        Emitting::Runs => {
            let (runs, stop) = stats.time("emit runs", || {
                traces::value_runs(p, model, unroll, max_traces, max_states)
            });
            (runs.iter().map(|r| r.to_yaml()).collect(), stop)
        }
    };
    let paths: Vec<std::path::PathBuf> = (1..=files.len())
        .map(|i| {
            let name = traces::file_name(&p.name, model, i);
            dir.join(match what {
                Emitting::Traces => name,
                Emitting::Runs => name.replace(".yaml", "-run.yaml"),
            })
        })
        .collect();
    let flag = match what {
        Emitting::Traces => "--emit-traces",
        Emitting::Runs => "--emit-runs",
    };
    for path in &paths {
        crate::out::refuse_clobber(&[(flag, path)], &[input])?;
    }
    for (path, text) in paths.iter().zip(&files) {
        std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))?;
    }
    let n = files.len();
    if !as_json {
        let why = stop_text(stop, n, max_traces, max_states);
        let noun = match (what, n) {
            (Emitting::Traces, 1) => "trace",
            (Emitting::Traces, _) => "traces",
            (Emitting::Runs, 1) => "run with values",
            (Emitting::Runs, _) => "runs with values",
        };
        warn(&format!("wrote {n} {noun} to {}{why}", dir.display()));
    }
    Ok((n, stop))
}

/// `tsoser explore`: its flags checked into the explorer's options.
pub(crate) fn explore_args(mut a: ExploreArgs) -> Result<u8> {
    let format = match (a.json, a.format) {
        (false, f) => f,
        (true, ExploreFormat::Text) => ExploreFormat::Json,
        (true, _) => bail!("--json and --format herd|prog exclude each other"),
    };
    let read = match a.c.loop_bound {
        LoopBoundArg::Thread => a.c.options(None),
        _ if !a.file.extension().is_some_and(|e| e == "c" || e == "i") => {
            bail!("--loop-bound entry bounds the loops of a C file (`.c`, `.i`)")
        }
        // The C front end bounds each loop; the explorer's per-thread bound is off.
        LoopBoundArg::Entry => a.c.options(a.bounds.unroll.take()),
    };
    let o = Options {
        config: config(&a.bounds)?,
        robustness: !a.no_robustness,
        engine: engine(&a.bounds),
        program_unroll: a.bounds.unroll.is_none(),
    };
    let emit = Emit {
        traces: a.emit_traces.as_deref(),
        runs: a.emit_runs.as_deref(),
        max_traces: a.max_traces,
    };
    cmd_explore(
        &a.file,
        &read,
        o,
        a.replay.as_deref(),
        &emit,
        format,
        a.stats,
    )
}
