//! `tsoser crosscheck`: the library's cross-check ([`tsoser::crosscheck`]) on every
//! program named, in parallel; a table (or JSON lines), a summary per column, and any
//! disagreement with its evidence (exit 1).

use crate::args::CrosscheckArgs;
use crate::inputs::{expand_with, map_files, worst};
use crate::out::{self, warn, INTERNAL, OK, USAGE, VIOLATION};
use anyhow::{bail, Result};
use serde_json::json;
use std::collections::BTreeMap;
use std::time::Duration;
use tsoser::crosscheck::{crosscheck, Check, Config, Report};

/// The columns of the table after the program and its runs: (title, the cell).
type Column = (&'static str, fn(&Report) -> (String, Check));

fn robust_cell(r: Option<bool>, witness: Option<usize>) -> (String, Check) {
    match r {
        Some(true) => ("yes".into(), Check::Holds),
        Some(false) => (format!("no ({} steps)", witness.unwrap_or(0)), Check::Holds),
        None => ("?".into(), Check::Unknown("unknown".into())),
    }
}

fn monitor_cell(r: &Report, i: usize) -> (String, Check) {
    let m = &r.monitors[i];
    let check = [&m.sound, &m.complete]
        .into_iter()
        .find(|c| !matches!(c, Check::Holds))
        .cloned()
        .unwrap_or(Check::Holds);
    let miss = matches!(
        m.kind,
        tsoser::monitor::Kind::Sober | tsoser::monitor::Kind::Fenced
    ) && matches!(m.complete, Check::Fails(_))
        && !matches!(m.sound, Check::Fails(_));
    let mark = if miss { "misses" } else { check.name() };
    // A miss SOBER and the fenced monitor are known for is counted apart.
    let check = if miss {
        Check::Unknown("misses".into())
    } else {
        check
    };
    (format!("{}/{} {mark}", m.reports, r.sc_traces.len()), check)
}

const COLUMNS: [Column; 10] = [
    ("robust TSO", |r| robust_cell(r.robust_tso, r.witness_tso)),
    ("robust PSO", |r| robust_cell(r.robust_pso, r.witness_pso)),
    ("SOBER", |r| monitor_cell(r, 0)),
    ("monitor_TSO", |r| monitor_cell(r, 1)),
    ("monitor_PSO", |r| monitor_cell(r, 2)),
    ("fenced", |r| monitor_cell(r, 3)),
    ("sc-ser", |r| {
        (r.sc_ser_monitor.name().into(), r.sc_ser_monitor.clone())
    }),
    ("Thm 2", |r| {
        (r.theorem_2.name().into(), r.theorem_2.clone())
    }),
    ("Thm 3", |r| {
        (r.theorem_3.name().into(), r.theorem_3.clone())
    }),
    ("deciders", |r| {
        (r.deciders.name().into(), r.deciders.clone())
    }),
];

pub(crate) fn cmd_crosscheck(a: &CrosscheckArgs) -> Result<u8> {
    if !(a.timeout > 0.0 && a.timeout <= crate::check::MAX_TIMEOUT) {
        bail!("--timeout takes a positive number of seconds");
    }
    let inputs = expand_with(&a.programs, &["prog", "litmus"], "program (.prog, .litmus)")?;
    for e in &inputs.errors {
        warn(&format!("tsoser: {e}"));
    }
    let config = Config {
        unroll: a.unroll,
        max_states: a.max_states,
        max_traces: a.max_traces,
        timeout: Duration::from_secs_f64(a.timeout),
        ..Config::default()
    };
    let mut code = if inputs.errors.is_empty() { OK } else { USAGE };
    let results: Vec<(String, Result<Report, String>)> = map_files(&inputs.files, |f| {
        tsoser::program::parse::read_program(f)
            .map(|p| crosscheck(&p, &config))
            .map_err(|e| tsoser::text::message(&e.to_string()))
    })
    .into_iter()
    .zip(&inputs.files)
    .map(|(r, f)| {
        let r = r.unwrap_or_else(|| {
            code = worst(code, INTERNAL);
            Err("internal error: the cross-check panicked; please report this program".into())
        });
        (f.display().to_string(), r)
    })
    .collect();
    // Per column: agree, disagree, unknown, n/a (a SOBER or fenced miss is unknown's
    // neighbour: counted as "misses").
    let mut summary: BTreeMap<usize, [usize; 5]> = BTreeMap::new();
    let width = results.iter().map(|r| r.0.len()).max().unwrap_or(7).max(7);
    if !a.json {
        let mut head = format!("{:<width$}  {:>9}", "program", "SC/TSO");
        for (title, _) in COLUMNS {
            head += &format!("  {title:<14}");
        }
        outln!("{}", head.trim_end());
    }
    let mut disagreements = Vec::new();
    for (name, r) in &results {
        let r = match r {
            Ok(r) => r,
            Err(e) => {
                code = worst(code, USAGE);
                if a.json {
                    outln!(
                        "{}",
                        json!({"schema": tsoser::json::schema(), "program": name, "error": e})
                    );
                } else {
                    outln!("{name}: error — {e}");
                }
                continue;
            }
        };
        let cells: Vec<(String, Check)> = COLUMNS.iter().map(|(_, f)| f(r)).collect();
        for (i, (_, c)) in cells.iter().enumerate() {
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
            r.sc_traces.len(),
            if r.sc_complete { "" } else { "+" },
            r.tso_traces,
            if r.tso_complete { "" } else { "+" }
        );
        if a.json {
            let monitors: Vec<_> = r
                .monitors
                .iter()
                .enumerate()
                .map(|(i, m)| {
                    // A miss SOBER and the fenced monitor are known for is no disagreement.
                    let missed = monitor_cell(r, i).0.ends_with("misses");
                    json!({"monitor": m.kind.name(), "reports": m.reports, "example": m.example,
                           "complete": if missed { "misses" } else { m.complete.name() },
                           "sound": m.sound.name()})
                })
                .collect();
            let v = json!({
                "schema": tsoser::json::schema(),
                "program": name,
                "sc_traces": r.sc_traces.len(), "sc_complete": r.sc_complete,
                "tso_traces": r.tso_traces, "tso_complete": r.tso_complete,
                "robust_tso": r.robust_tso, "robust_pso": r.robust_pso,
                "witness_tso_steps": r.witness_tso, "witness_pso_steps": r.witness_pso,
                "sc_serializable": r.sc_serializable, "tso_serializable": r.tso_serializable,
                "transaction_fenced": r.transaction_fenced,
                "monitors": monitors,
                "sc_ser_monitor": r.sc_ser_monitor.name(),
                "theorem_2": r.theorem_2.name(), "theorem_3": r.theorem_3.name(),
                "deciders": r.deciders.name(),
                "disagreements": r.disagreements().iter().map(|(q, w)| json!({"question": q, "evidence": w})).collect::<Vec<_>>(),
            });
            outln!("{v}");
        } else {
            let mut row = format!("{name:<width$}  {runs:>9}");
            for (cell, _) in &cells {
                row += &format!("  {cell:<14}");
            }
            outln!("{}", row.trim_end());
        }
    }
    if a.json {
        let cols: serde_json::Map<String, serde_json::Value> = summary
            .iter()
            .map(|(i, s)| {
                (
                    COLUMNS[*i].0.to_string(),
                    json!({"agree": s[0], "disagree": s[1], "unknown": s[2], "n/a": s[3], "misses": s[4]}),
                )
            })
            .collect();
        outln!(
            "{}",
            json!({"schema": tsoser::json::schema(), "summary": {"programs": inputs.files.len(), "columns": cols, "disagreements": disagreements.len()}})
        );
    } else {
        outln!("summary ({} programs):", inputs.files.len());
        for (i, s) in &summary {
            let mut line = format!(
                "  {:<12} {} agree, {} disagree, {} unknown, {} n/a",
                COLUMNS[*i].0, s[0], s[1], s[2], s[3]
            );
            if s[4] > 0 {
                line += &format!(", {} misses", s[4]);
            }
            outln!("{line}");
        }
    }
    for d in &disagreements {
        warn(&format!("tsoser: disagreement: {d}"));
    }
    if !disagreements.is_empty() {
        code = worst(code, VIOLATION);
    }
    out::flush();
    Ok(code)
}
