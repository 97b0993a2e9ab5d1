//! `tsoser consistent`: is an observed run with values SC (or TSO)? (Qadeer 2001.)

use crate::out::{self, json_out};
use anyhow::Result;
use std::path::Path;
use tsoser::consistency::{self, Label, Model, ValueRun, Verdict, WriteOrder};
use tsoser::error::FileError;

pub(crate) fn cmd_consistent(
    file: &Path,
    model: Model,
    write_order: WriteOrder,
    show_order: bool,
    as_json: bool,
) -> Result<u8> {
    let trace = out::load(file)?;
    let run = ValueRun::from_trace(&trace).map_err(|error| FileError {
        file: file.display().to_string(),
        error,
    })?;
    let (verdict, stats) = match consistency::check(&run, model, write_order) {
        Ok(v) => v,
        Err(e) => {
            out::warn(&format!("tsoser: {e}"));
            return Ok(out::INTERNAL);
        }
    };
    let fname = file.display().to_string();
    let name = |l: Label| match l {
        Label::Processor(t) => ("processor", run.threads[t].clone()),
        Label::Location(x) => ("location", run.locs[x].clone()),
    };
    let model_name = match model {
        Model::Sc => "SC",
        Model::Tso => "TSO",
    };
    if as_json {
        let (order, graph, cycle, nice) = match &verdict {
            Verdict::Consistent { order } => (show_order.then(|| order.clone()), None, None, None),
            Verdict::Cycle { graph, edges, nice } => {
                let edges = edges
                    .iter()
                    .map(|e| {
                        let (kind, of) = name(e.label);
                        tsoser::json::ConsistentEdge {
                            kind,
                            of,
                            from: e.from,
                            to: e.to,
                            from_event: run.show(e.from),
                            to_event: run.show(e.to),
                        }
                    })
                    .collect();
                (None, Some(*graph), Some(edges), Some(*nice))
            }
        };
        json_out(serde_json::to_value(tsoser::json::ConsistentReport {
            schema: tsoser::json::schema(),
            file: fname,
            model,
            write_order,
            consistent: matches!(verdict, Verdict::Consistent { .. }),
            order,
            graph,
            cycle,
            nice,
            stats,
        })?)?;
    } else {
        match &verdict {
            Verdict::Consistent { order } => {
                let what = match model {
                    Model::Sc => "serial order",
                    Model::Tso => "commit order",
                };
                outln!(
                    "{fname}: {model_name}: yes — a {what} of its {} events re-checked",
                    run.events.len()
                );
                if show_order {
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
                    consistency::Graph::TsoGlobal => {
                        "TSO's preserved program order, rfe, co and fr"
                    }
                    consistency::Graph::TsoUniproc => {
                        "one location's program order, rf, co and fr (coherence)"
                    }
                };
                outln!(
                    "{fname}: {model_name}: NO — with the write order of the run, a {}cycle of {} edges in {graph}:",
                    if *nice { "nice " } else { "" },
                    edges.len()
                );
                for e in edges {
                    let (kind, of) = name(e.label);
                    outln!(
                        "  {} → {}   [{kind} {of}]",
                        run.show(e.from),
                        run.show(e.to)
                    );
                }
            }
        }
    }
    Ok(match verdict {
        Verdict::Consistent { .. } => out::OK,
        Verdict::Cycle { .. } => out::VIOLATION,
    })
}
