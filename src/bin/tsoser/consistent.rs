//! `tsoser consistent`: is an observed run with values SC (or TSO)? (Qadeer 2001.)

use crate::args::ConsistentArgs;
use crate::args::Solver;
use crate::check::timeout_arg;
use crate::inputs::{batch, error_outcome, expand, short_outcome, FileOutcome};
use crate::out::{self, json_out, USAGE};
use anyhow::{bail, Result};
use std::path::Path;
use tsoser::consistency::{self, Label, Model, ValueRun, Verdict, WriteOrder};
use tsoser::error::FileError;
use tsoser::output::json::{ConsistentEdge, ConsistentReport, LocationOrder};
use tsoser::output::witness::unknown_text;
use tsoser::solver::SolverKind;
use tsoser::stop::Stop;

/// The command's options, checked.
pub(crate) struct Config {
    pub(crate) model: Model,
    pub(crate) write_order: WriteOrder,
    pub(crate) solver: Option<Solver>,
    pub(crate) timeout: Option<f64>,
    pub(crate) show_order: bool,
    pub(crate) as_json: bool,
}

pub(crate) fn cmd_consistent(a: &ConsistentArgs) -> Result<u8> {
    let files = &a.files;
    let cfg = &Config {
        model: a.model.into(),
        write_order: a.write_order.into(),
        solver: a.solver,
        timeout: a.timeout,
        show_order: a.order,
        as_json: a.json,
    };
    if cfg.write_order == WriteOrder::Simple && (cfg.solver.is_some() || cfg.timeout.is_some()) {
        bail!("--solver and --timeout apply to --write-order any only");
    }
    let timeout = timeout_arg(cfg.timeout)?;
    let inputs = expand(files)?;
    if !inputs.single {
        // One line (or JSON record) per file.
        return batch(&inputs, cfg.as_json, |f| match answer(f, cfg, timeout) {
            Err(e) => error_outcome(f, &e, cfg.as_json, USAGE),
            Ok(Answer::Internal(why)) => {
                short_outcome(f, "internal error", &why, cfg.as_json, out::INTERNAL)
            }
            Ok(Answer::Done { code, json, text }) => FileOutcome {
                code,
                text: if cfg.as_json {
                    json.to_string()
                } else {
                    one_line(&text)
                }
                .into(),
            },
        });
    }
    match answer(&inputs.files[0], cfg, timeout)? {
        Answer::Internal(why) => {
            out::warn(&format!("tsoser: {why}"));
            Ok(out::INTERNAL)
        }
        Answer::Done { code, json, text } => {
            if cfg.as_json {
                json_out(json)?;
            } else {
                out::emit(&text);
            }
            Ok(code)
        }
    }
}

/// The text on one line: the headline, then the other lines joined by `; `.
fn one_line(text: &str) -> String {
    let mut lines = text.lines().map(str::trim);
    let head = lines.next().unwrap_or_default().to_string();
    let rest: Vec<&str> = lines.collect();
    if rest.is_empty() {
        head
    } else {
        format!("{head} {}", rest.join("; "))
    }
}

/// One file's answer: its exit code, JSON and text, or an internal error's message.
enum Answer {
    Done {
        code: u8,
        json: serde_json::Value,
        text: String,
    },
    Internal(String),
}

fn answer(file: &Path, cfg: &Config, timeout: Option<std::time::Duration>) -> Result<Answer> {
    let stop = Stop::after(timeout);
    let solver = cfg.solver.map_or(SolverKind::DEFAULT, Solver::lib);
    let trace = out::load(file)?;
    let run = ValueRun::from_trace(&trace).map_err(|error| FileError {
        file: file.display().to_string(),
        error,
    })?;
    let (verdict, stats) = match consistency::check(&run, cfg.model, cfg.write_order, solver, &stop)
    {
        Ok(v) => v,
        Err(consistency::CheckError::Solver(e)) => return Err(e.into()),
        Err(e) => return Ok(Answer::Internal(e.to_string())),
    };
    let fname = file.display().to_string();
    let text = text(&run, cfg, &fname, &verdict);
    let json = serde_json::to_value(report(&run, cfg, fname, &verdict, stats))?;
    let code = match verdict {
        Verdict::Consistent { .. } => out::OK,
        Verdict::Cycle { .. } | Verdict::NoWriteOrder => out::VIOLATION,
        Verdict::Unknown(_) => out::UNKNOWN,
    };
    Ok(Answer::Done { code, json, text })
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
        schema: tsoser::output::json::schema(),
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
        Verdict::Unknown(why) => r.unknown = Some(unknown_text(why)),
    }
    r
}

/// The answer as text: a headline, then the order or the cycle, one item a line.
fn text(run: &ValueRun, cfg: &Config, fname: &str, verdict: &Verdict) -> String {
    let any = cfg.write_order == WriteOrder::Any;
    use std::fmt::Write;
    let mut out = String::new();
    // Writing to a String cannot fail.
    macro_rules! outln {
        ($($t:tt)*) => { let _ = writeln!(out, $($t)*); };
    }
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
            outln!("{fname}: {m}: NO — not {m} under any write order (refuted by the solver)");
        }
        Verdict::Unknown(why) => {
            outln!("{fname}: {m}: unknown — {}", unknown_text(why));
        }
    }
    out
}
