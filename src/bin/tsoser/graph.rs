//! `tsoser graph`.

use crate::args::GraphArgs;
use crate::check::semantics_name;
use crate::out::{self, load, warn_raw, USAGE};
use anyhow::{bail, Result};
use std::path::Path;
use tsoser::check::{brute, Semantics, Verdict};
use tsoser::graph::{exact::ExactGraph, paper::PaperGraph};
use tsoser::output::dot;
use tsoser::output::witness::Stats;

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
    let budget = tsoser::mem::default_room();
    let too_big = tsoser::graph::forced::within_memory(&trace, budget)
        .err()
        .or_else(|| {
            tsoser::analysis::varying_pairs_within(&trace, tsoser::analysis::max_pairs(budget))
                .err()
                .map(|max| tsoser::mem::OverBudget::VaryingPairs { max })
        });
    if let Some(why) = too_big {
        return Ok(GraphAnswer::TooBig(why.to_string()));
    }
    let (nodes, directed, undirected, forced_cycle, dot) = match semantics {
        Semantics::Exact => {
            let g = stats.time("build exact graph", || ExactGraph::new(&trace));
            let cycle = stats.time("forced cycle check", || g.forced.find_cycle());
            stats.count("forced edges", g.forced.edges().len() as u64);
            let dot = as_dot.then(|| {
                let c = cycle.clone().or_else(|| {
                    match brute::check_exact(&trace, max, &tsoser::Stop::default()).0 {
                        Verdict::Violation(w) => Some(w.cycle().to_vec()),
                        _ => None,
                    }
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
                let c = cycle.clone().or_else(|| {
                    match brute::check_paper(&trace, max, &tsoser::Stop::default()).0 {
                        Verdict::Violation(w) => Some(w.cycle().to_vec()),
                        _ => None,
                    }
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

pub(crate) fn cmd_graph(a: &GraphArgs) -> Result<u8> {
    let (semantics, as_dot, max) = (a.semantics.lib(), a.dot, a.max_executions);
    let (as_json, want_stats) = (a.json, a.stats);
    let inputs = crate::inputs::expand(&a.files)?;
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
                    }
                    .into(),
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
