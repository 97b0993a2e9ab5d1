//! `tsoser crosscheck`: the library's cross-check ([`tsoser::crosscheck`]) on every
//! program named, in parallel; a table (or JSON lines), a summary per column, and any
//! disagreement with its evidence. Exit: the worst over the programs, internal error
//! (4) over input error (2) over disagreement (1) over unknown (3, a cell left unknown
//! within the bounds) over 0.

use crate::args::CrosscheckArgs;
use crate::args::WeakModel;
use crate::inputs::{expand_with, map_files, worst};
use crate::out::{self, warn, INTERNAL, OK, UNKNOWN, USAGE, VIOLATION};
use anyhow::{bail, Result};
use serde_json::json;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;
use tsoser::crosscheck::{crosscheck, Check, Config, Report};
use tsoser::explore::Model;
use tsoser::monitor::Kind;
use tsoser::program::{read_program_with, ReadOptions};

/// The columns of the table after the program and its runs: (title, the model it
/// needs, the cell).
type Column = (&'static str, Option<Model>, fn(&Report) -> (String, Check));

fn robust_cell(r: Option<bool>, witness: Option<usize>) -> (String, Check) {
    match r {
        Some(true) => ("yes".into(), Check::Holds),
        Some(false) => (format!("no ({} steps)", witness.unwrap_or(0)), Check::Holds),
        None => ("?".into(), Check::Unknown("unknown".into())),
    }
}

fn monitor_cell(r: &Report, kind: Kind) -> (String, Check) {
    let Some(m) = r.monitors.iter().find(|m| m.kind == kind) else {
        return ("-".into(), Check::NotApplicable);
    };
    let check = [&m.sound, &m.complete]
        .into_iter()
        .find(|c| !matches!(c, Check::Holds))
        .cloned()
        .unwrap_or(Check::Holds);
    let miss = matches!(m.kind, Kind::Sober | Kind::Fenced)
        && matches!(m.complete, Check::Fails(_))
        && !matches!(m.sound, Check::Fails(_));
    let mark = if miss { "misses" } else { check.name() };
    // A miss SOBER and the fenced monitor are known for is counted apart.
    let check = if miss {
        Check::Unknown("misses".into())
    } else {
        check
    };
    (
        format!("{}/{} {mark}", m.reports, r.sc_reports.len()),
        check,
    )
}

fn cell(c: &Check) -> (String, Check) {
    (c.name().into(), c.clone())
}

const TSO: Option<Model> = Some(Model::Tso);
const PSO: Option<Model> = Some(Model::Pso);

const COLUMNS: [Column; 11] = [
    ("robust TSO", TSO, |r| {
        robust_cell(r.robust_tso, r.witness_tso)
    }),
    ("robust PSO", PSO, |r| {
        robust_cell(r.robust_pso, r.witness_pso)
    }),
    ("SOBER", TSO, |r| monitor_cell(r, Kind::Sober)),
    ("monitor_TSO", TSO, |r| monitor_cell(r, Kind::Tso)),
    ("monitor_PSO", PSO, |r| monitor_cell(r, Kind::Pso)),
    ("fenced", TSO, |r| monitor_cell(r, Kind::Fenced)),
    ("sc-ser", None, |r| cell(&r.sc_ser_monitor)),
    ("Thm 2", TSO, |r| cell(&r.theorem_2)),
    ("Thm 3", TSO, |r| cell(&r.theorem_3)),
    ("Prop 2", TSO, |r| cell(&r.proposition_2)),
    ("deciders", TSO, |r| cell(&r.deciders)),
];

/// A monitor's column title.
fn title(k: Kind) -> &'static str {
    match k {
        Kind::Sober => "SOBER",
        Kind::Tso => "monitor_TSO",
        Kind::Pso => "monitor_PSO",
        Kind::Fenced => "fenced",
        Kind::ScSer => "sc-ser",
    }
}

/// Per-run sensitivity over every program: SC runs (distinct traces) each monitor
/// reports on, and the pairs of monitors that differ on a run (the fenced monitor's
/// reports counted on transaction-fenced programs only).
#[derive(Default)]
struct Sensitivity {
    runs: usize,
    reports: BTreeMap<&'static str, usize>,
    /// (a, b) → runs a reports on and b does not.
    only: BTreeMap<(&'static str, &'static str), usize>,
}

impl Sensitivity {
    fn add(&mut self, r: &Report) {
        self.runs += r.sc_reports.len();
        // The fenced monitor's reports mean something on transaction-fenced programs only.
        let fenced = r.transaction_fenced == Some(true);
        for &bits in &r.sc_reports {
            for (i, a) in r.monitors.iter().enumerate() {
                let on = |j: usize| {
                    bits & (1 << j) != 0 && (fenced || r.monitors[j].kind != Kind::Fenced)
                };
                if on(i) {
                    *self.reports.entry(title(a.kind)).or_default() += 1;
                }
                for (j, b) in r.monitors.iter().enumerate() {
                    if i != j && on(i) && !on(j) {
                        *self.only.entry((title(a.kind), title(b.kind))).or_default() += 1;
                    }
                }
            }
        }
    }
}

/// Advances the progress bar when a program is done, panicked or not.
struct Tick<'a>(&'a indicatif::ProgressBar);

impl Drop for Tick<'_> {
    fn drop(&mut self) {
        self.0.inc(1);
    }
}

pub(crate) fn cmd_crosscheck(a: &CrosscheckArgs) -> Result<u8> {
    if !(a.timeout > 0.0 && a.timeout <= crate::check::MAX_TIMEOUT) {
        bail!("--timeout takes a positive number of seconds");
    }
    if let Some(runs) = a.runs {
        return crate::sample::cmd_sample(a, runs);
    }
    // Count flags are capped, as explore's are (bug: count_flags_are_capped).
    use crate::explore::MAX_STATES;
    if a.max_states > MAX_STATES || a.max_traces > MAX_STATES {
        bail!("--max-states and --max-traces take at most {MAX_STATES}");
    }
    let inputs = program_inputs(a)?;
    let model = a.model.map(|m| match m {
        WeakModel::Tso => Model::Tso,
        WeakModel::Pso => Model::Pso,
    });
    let config = Config {
        unroll: a.unroll.unwrap_or(4),
        max_states: a.max_states,
        max_traces: a.max_traces,
        timeout: Duration::from_secs_f64(a.timeout),
        model,
        ..Config::default()
    };
    let columns: Vec<&Column> = COLUMNS
        .iter()
        .filter(|c| c.1.is_none() || model.is_none() || c.1 == model)
        .collect();
    let mut code = if inputs.errors.is_empty() { OK } else { USAGE };
    let (results, panicked) = run_all(&inputs.files, &a.c.options(a.unroll), &config);
    if panicked {
        code = worst(code, INTERNAL);
    }
    // Per column: agree, disagree, unknown, n/a (a SOBER or fenced miss is unknown's
    // neighbour: counted as "misses").
    let mut summary: BTreeMap<usize, [usize; 5]> = BTreeMap::new();
    let width = results.iter().map(|r| r.0.len()).max().unwrap_or(7).max(7);
    if !a.json {
        let mut head = format!("{:<width$}  {:>9}", "program", "SC/TSO");
        for (title, _, _) in &columns {
            head += &format!("  {title:<14}");
        }
        outln!("{}", head.trim_end());
    }
    let mut disagreements = Vec::new();
    let mut sensitivity = Sensitivity::default();
    for (name, r) in &results {
        let r = match r {
            Ok(r) => r,
            Err(e) => {
                code = worst(code, USAGE);
                if a.json {
                    outln!(
                        "{}",
                        json!({"schema": tsoser::output::json::schema(), "program": name, "error": e})
                    );
                } else {
                    outln!("{name}: error — {e}");
                }
                continue;
            }
        };
        sensitivity.add(r);
        let cells: Vec<(String, Check)> = columns.iter().map(|(_, _, f)| f(r)).collect();
        for (i, (_, c)) in cells.iter().enumerate() {
            // An answer owed and not given within the bounds (a known miss is an answer).
            if matches!(c, Check::Unknown(u) if u != "misses") {
                code = worst(code, UNKNOWN);
            }
            let s = summary.entry(i).or_default();
            s[match c {
                Check::Holds => 0,
                Check::Fails(_) => 1,
                Check::Unknown(u) if u == "misses" => 4,
                Check::Unknown(_) => 2,
                Check::NotApplicable => 3,
            }] += 1;
        }
        for (q, why) in r.disagreements() {
            disagreements.push(format!("{name}: {q}: {why}"));
        }
        let runs = format!(
            "{}{}/{}{}",
            r.sc_reports.len(),
            if r.sc_complete { "" } else { "+" },
            if model == Some(Model::Pso) {
                "-".to_string()
            } else {
                r.tso_traces.to_string()
            },
            if r.tso_complete { "" } else { "+" }
        );
        if a.json {
            outln!("{}", row_json(name, r));
        } else {
            let mut row = format!("{name:<width$}  {runs:>9}");
            for (cell, _) in &cells {
                row += &format!("  {cell:<14}");
            }
            outln!("{}", row.trim_end());
        }
    }
    print_summary(
        a.json,
        inputs.files.len(),
        &columns,
        &summary,
        &sensitivity,
        disagreements.len(),
    );
    for d in &disagreements {
        warn(&format!("tsoser: disagreement: {d}"));
    }
    if !disagreements.is_empty() {
        code = worst(code, VIOLATION);
    }
    out::flush();
    Ok(code)
}

/// The programs named (files and directories of them), each argument that named none
/// warned of.
pub(crate) fn program_inputs(a: &CrosscheckArgs) -> Result<crate::inputs::Inputs> {
    let inputs = expand_with(
        &a.programs,
        &["prog", "litmus", "c", "i"],
        "program (.prog, .litmus, .c, .i)",
    )?;
    for e in &inputs.errors {
        warn(&format!("tsoser: {e}"));
    }
    Ok(inputs)
}

/// A program's file name and its report, or why there is none.
type Row = (String, Result<Report, String>);

/// Cross-checks every program in parallel, with a progress bar on a terminal; `true`
/// when one panicked (its row says so).
fn run_all(files: &[PathBuf], read: &ReadOptions, config: &Config) -> (Vec<Row>, bool) {
    let mut panicked = false;
    // Progress on standard error when it is a terminal (indicatif draws nothing else).
    let bar = indicatif::ProgressBar::new(files.len() as u64);
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{bar:30} {pos}/{len} programs, {elapsed_precise} elapsed, about {eta} left",
        )
        .expect("a valid template"),
    );
    if files.len() < 2 {
        bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    }
    let results: Vec<Row> = map_files(files, |f| {
        let _tick = Tick(&bar);
        read_program_with(f, read)
            .map(|p| {
                // Only their number is printed: a corpus of thousands of programs
                // must not hold every SC trace until the table is printed.
                let mut r = crosscheck(&p, config);
                r.sc_traces = Vec::new();
                r
            })
            .map_err(|e| tsoser::text::message(&e.to_string()))
    })
    .into_iter()
    .zip(files)
    .map(|(r, f)| {
        let r = r.unwrap_or_else(|| {
            panicked = true;
            Err("internal error: the cross-check panicked; please report this program".into())
        });
        (f.display().to_string(), r)
    })
    .collect();
    bar.finish_and_clear();
    (results, panicked)
}

/// A program's JSON line.
fn row_json(name: &str, r: &Report) -> serde_json::Value {
    let monitors: Vec<_> = r
        .monitors
        .iter()
        .map(|m| {
            // A miss SOBER and the fenced monitor are known for is no disagreement.
            let missed = monitor_cell(r, m.kind).0.ends_with("misses");
            json!({"monitor": m.kind.name(), "reports": m.reports, "example": m.example,
                   "complete": if missed { "misses" } else { m.complete.name() },
                   "sound": m.sound.name()})
        })
        .collect();
    let v = json!({
        "schema": tsoser::output::json::schema(),
        "program": name,
        "sc_traces": r.sc_reports.len(), "sc_complete": r.sc_complete,
        "tso_traces": r.tso_traces, "tso_complete": r.tso_complete,
        "robust_tso": r.robust_tso, "robust_pso": r.robust_pso,
        "witness_tso_steps": r.witness_tso, "witness_pso_steps": r.witness_pso,
        "sc_serializable": r.sc_serializable, "tso_serializable": r.tso_serializable,
        "tso_traces_serializable": r.tso_traces_serializable,
        "transaction_fenced": r.transaction_fenced,
        "monitors": monitors,
        "sc_ser_monitor": r.sc_ser_monitor.name(),
        "theorem_2": r.theorem_2.name(), "theorem_3": r.theorem_3.name(),
        "proposition_2": r.proposition_2.name(),
        "tso_runs": r.tso_runs, "tso_runs_unserializable": r.tso_runs_unserializable,
        "deciders": r.deciders.name(),
        "disagreements": r.disagreements().iter().map(|(q, w)| json!({"question": q, "evidence": w})).collect::<Vec<_>>(),
        "unknown": r.unknowns().iter().map(|(q, w)| json!({"question": q, "reason": w})).collect::<Vec<_>>(),
    });
    v
}

/// The summary: per column the programs by answer, the monitors' sensitivity.
fn print_summary(
    json: bool,
    programs: usize,
    columns: &[&Column],
    summary: &BTreeMap<usize, [usize; 5]>,
    sensitivity: &Sensitivity,
    disagreements: usize,
) {
    if json {
        let cols: serde_json::Map<String, serde_json::Value> = summary
            .iter()
            .map(|(i, s)| {
                (
                    columns[*i].0.to_string(),
                    json!({"agree": s[0], "disagree": s[1], "unknown": s[2], "n/a": s[3], "misses": s[4]}),
                )
            })
            .collect();
        outln!(
            "{}",
            json!({"schema": tsoser::output::json::schema(), "summary": {
                "programs": programs, "columns": cols,
                "disagreements": disagreements,
                "sc_runs": sensitivity.runs, "sc_runs_reported": sensitivity.reports,
                "sc_runs_only": sensitivity.only.iter().map(|((a, b), n)| json!({"reports": a, "silent": b, "runs": n})).collect::<Vec<_>>(),
            }})
        );
    } else {
        outln!("summary ({} programs):", programs);
        for (i, s) in summary {
            let mut line = format!(
                "  {:<12} {} agree, {} disagree, {} unknown, {} n/a",
                columns[*i].0, s[0], s[1], s[2], s[3]
            );
            if s[4] > 0 {
                line += &format!(", {} misses", s[4]);
            }
            outln!("{line}");
        }
        let reports: Vec<String> = sensitivity
            .reports
            .iter()
            .map(|(m, n)| format!("{m} {n}"))
            .collect();
        outln!(
            "SC runs (distinct traces): {}; reported by {}",
            sensitivity.runs,
            if reports.is_empty() {
                "none".into()
            } else {
                reports.join(", ")
            }
        );
        for ((a, b), n) in &sensitivity.only {
            outln!("  {a} reports and {b} does not: {n} runs");
        }
    }
}
