//! `tsoser consistent`: is an observed run with values SC (or TSO)? (Qadeer 2001.)

use crate::args::Solver;
use crate::check::timeout_arg;
use crate::out::{self, json_out};
use anyhow::{bail, Result};
use std::path::Path;
use tsoser::check::sat::SolverKind;
use tsoser::check::Stop;
use tsoser::consistency::{self, Label, Model, ValueRun, Verdict, WriteOrder};
use tsoser::error::FileError;
use tsoser::json::{ConsistentEdge, ConsistentReport, LocationOrder};

/// The command's options, checked.
pub(crate) struct Config {
    pub(crate) model: Model,
    pub(crate) write_order: WriteOrder,
    pub(crate) solver: Option<Solver>,
    pub(crate) timeout: Option<f64>,
    pub(crate) show_order: bool,
    pub(crate) as_json: bool,
}

pub(crate) fn cmd_consistent(file: &Path, cfg: &Config) -> Result<u8> {
    if cfg.write_order == WriteOrder::Simple && (cfg.solver.is_some() || cfg.timeout.is_some()) {
        bail!("--solver and --timeout apply to --write-order any only");
    }
    let stop = Stop::after(timeout_arg(cfg.timeout)?);
    let solver = cfg.solver.map_or(SolverKind::DEFAULT, Solver::lib);
    let trace = out::load(file)?;
    let run = ValueRun::from_trace(&trace).map_err(|error| FileError {
        file: file.display().to_string(),
        error,
    })?;
    let (verdict, stats) =
        match consistency::check_until(&run, cfg.model, cfg.write_order, solver, &stop) {
            Ok(v) => v,
            Err(consistency::CheckError::Solver(e)) => return Err(e.into()),
            Err(e) => {
                out::warn(&format!("tsoser: {e}"));
                return Ok(out::INTERNAL);
            }
        };
    let fname = file.display().to_string();
    let any = cfg.write_order == WriteOrder::Any;
    if cfg.as_json {
        json_out(serde_json::to_value(report(
            &run, cfg, fname, &verdict, stats,
        ))?)?;
    } else {
        print_text(&run, cfg, &fname, &verdict, any);
    }
    Ok(match verdict {
        Verdict::Consistent { .. } => out::OK,
        Verdict::Cycle { .. } | Verdict::NoWriteOrder => out::VIOLATION,
        Verdict::Unknown(_) => out::UNKNOWN,
    })
}

fn label(run: &ValueRun, l: Label) -> (&'static str, String) {
    match l {
        Label::Processor(t) => ("processor", run.threads[t].clone()),
        Label::Location(x) => ("location", run.locs[x].clone()),
    }
}

fn model_name(m: Model) -> &'static str {
    match m {
        Model::Sc => "SC",
        Model::Tso => "TSO",
    }
}

fn report(
    run: &ValueRun,
    cfg: &Config,
    file: String,
    verdict: &Verdict,
    stats: consistency::Stats,
) -> ConsistentReport {
    let mut r = ConsistentReport {
        schema: tsoser::json::schema(),
        file,
        model: cfg.model,
        write_order: cfg.write_order,
        consistent: None,
        unknown: None,
        order: None,
        write_orders: None,
        graph: None,
        cycle: None,
        nice: None,
        stats,
    };
    match verdict {
        Verdict::Consistent { order, co } => {
            r.consistent = Some(true);
            if cfg.show_order {
                r.order = Some(order.clone());
                if cfg.write_order == WriteOrder::Any {
                    r.write_orders = Some(
                        co.iter()
                            .enumerate()
                            .map(|(x, ws)| LocationOrder {
                                location: run.locs[x].clone(),
                                writes: ws.clone(),
                            })
                            .collect(),
                    );
                }
            }
        }
        Verdict::Cycle { graph, edges, nice } => {
            r.consistent = Some(false);
            r.graph = Some(*graph);
            r.nice = Some(*nice);
            r.cycle = Some(
                edges
                    .iter()
                    .map(|e| {
                        let (kind, of) = label(run, e.label);
                        ConsistentEdge {
                            kind,
                            of,
                            from: e.from,
                            to: e.to,
                            from_event: run.show(e.from),
                            to_event: run.show(e.to),
                        }
                    })
                    .collect(),
            );
        }
        Verdict::NoWriteOrder => r.consistent = Some(false),
        Verdict::Unknown(why) => r.unknown = Some(why.clone()),
    }
    r
}

fn print_text(run: &ValueRun, cfg: &Config, fname: &str, verdict: &Verdict, any: bool) {
    let m = model_name(cfg.model);
    match verdict {
        Verdict::Consistent { order, co } => {
            let what = match cfg.model {
                Model::Sc => "serial order",
                Model::Tso => "commit order",
            };
            let under = if any {
                ", under the write order the solver found"
            } else {
                ""
            };
            outln!(
                "{fname}: {m}: yes — a {what} of its {} events re-checked{under}",
                run.events.len()
            );
            if cfg.show_order {
                if any {
                    outln!("write order:");
                    for (x, ws) in co.iter().enumerate().filter(|(_, ws)| !ws.is_empty()) {
                        let ws: Vec<String> = ws.iter().map(|&w| run.show(w)).collect();
                        outln!("  {}: {}", run.locs[x], ws.join(" < "));
                    }
                    outln!("{what}:");
                }
                for &e in order {
                    outln!("  {}", run.show(e));
                }
            }
        }
        Verdict::Cycle { graph, edges, nice } => {
            let graph = match graph {
                consistency::Graph::Sc => {
                    "program order and the write order (Qadeer's constraint graph)"
                }
                consistency::Graph::TsoGlobal => "TSO's preserved program order, rfe, co and fr",
                consistency::Graph::TsoUniproc => {
                    "one location's program order, rf, co and fr (coherence)"
                }
            };
            outln!(
                "{fname}: {m}: NO — with the write order of the run, a {}cycle of {} edges in {graph}:",
                if *nice { "nice " } else { "" },
                edges.len()
            );
            for e in edges {
                let (kind, of) = label(run, e.label);
                outln!(
                    "  {} → {}   [{kind} {of}]",
                    run.show(e.from),
                    run.show(e.to)
                );
            }
        }
        Verdict::NoWriteOrder => {
            outln!("{fname}: {m}: NO — not {m} under any write order (refuted by the solver)")
        }
        Verdict::Unknown(why) => outln!("{fname}: {m}: unknown — {why}"),
    }
}
