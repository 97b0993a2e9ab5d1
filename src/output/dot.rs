//! Graphviz output: threads and transactions as clusters, directed edges solid,
//! undirected edges dashed, a witness cycle in bold red.

use crate::graph::exact::ExactGraph;
use crate::graph::paper::PaperGraph;
use crate::graph::Edge;
use crate::trace::exec::{Node, Step};
use crate::trace::Trace;
use crate::trace::TxnId;
use std::fmt::Write;

fn id(n: Node) -> String {
    match n {
        Step::Event(e) => format!("e{e}"),
        Step::Commit(w) => format!("c{w}"),
    }
}

fn esc(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

fn event_label(trace: &Trace, e: usize) -> String {
    let ev = &trace.events[e];
    let mut s = format!("#{e} {}", ev.op);
    if let Some(v) = ev.var {
        s.push(' ');
        s.push_str(&trace.vars[v]);
    }
    if trace.is_buffered(e) {
        s.push_str(" (buffered)");
    }
    esc(&s)
}

/// Writes the clusters; `commits` are drawn inside their write's transaction.
fn clusters(out: &mut String, trace: &Trace, commits: &[usize]) {
    for (t, tname) in trace.threads.iter_enumerated() {
        let _ = writeln!(
            out,
            "  subgraph cluster_t{t} {{\n    label=\"thread {}\"; style=rounded;",
            esc(tname)
        );
        for (x, txn) in trace.txns.iter_enumerated().filter(|(_, x)| x.thread == t) {
            let _ = writeln!(
                out,
                "    subgraph cluster_x{x} {{\n      label=\"{}\"; style=dashed;",
                esc(&txn.name)
            );
            for (e, _) in trace
                .events
                .iter()
                .enumerate()
                .filter(|(_, ev)| ev.txn == x)
            {
                let _ = writeln!(out, "      e{e} [label=\"{}\"];", event_label(trace, e));
                if commits.binary_search(&e).is_ok() {
                    let v = &trace.vars[trace.events[e].var.unwrap()];
                    let _ = writeln!(
                        out,
                        "      c{e} [label=\"c(#{e} wr {})\", shape=ellipse];",
                        esc(v)
                    );
                }
            }
            out.push_str("    }\n");
        }
        out.push_str("  }\n");
    }
}

fn cycle_edges(out: &mut String, cycle: &[Edge]) {
    for e in cycle {
        let _ = writeln!(
            out,
            "  {} -> {} [color=red, penwidth=2.5, constraint=false, label=\"{:?}\", fontcolor=red];",
            id(e.src),
            id(e.dst),
            e.rule
        );
    }
}

const HEADER: &str = "  rankdir=TB;\n  node [shape=box, fontname=\"monospace\", fontsize=10];\n  edge [fontname=\"monospace\", fontsize=9];\n";

/// A legend cluster: what each kind of edge means.
fn legend(out: &mut String, rows: &[(&str, &str)]) {
    out.push_str("  subgraph cluster_legend {\n    label=\"legend\"; style=rounded; fontsize=9;\n");
    for (i, (style, meaning)) in rows.iter().enumerate() {
        let _ = writeln!(
            out,
            "    lg{i}a [label=\"\", shape=point]; lg{i}b [label=\"{}\", shape=plaintext];\n    lg{i}a -> lg{i}b [{style}];",
            esc(meaning)
        );
    }
    out.push_str("  }\n");
}

const CYCLE_ROW: (&str, &str) = (
    "color=red, penwidth=2.5",
    "witness cycle (label: the rule of Eq. 1)",
);

/// The exact event graph (docs/semantics.md §5) in DOT.
pub fn exact_dot(trace: &Trace, g: &ExactGraph, cycle: Option<&[Edge]>) -> String {
    let mut out = format!(
        "digraph \"{}\" {{\n{HEADER}",
        esc(trace.name.as_deref().unwrap_or("trace"))
    );
    legend(
        &mut out,
        &[
            ("color=gray", "trace order"),
            ("color=black", "fixed commit order (window, FIFO)"),
            (
                "dir=none, style=dashed, color=blue",
                "order varies with the placement",
            ),
            CYCLE_ROW,
        ],
    );
    clusters(&mut out, trace, &g.commits);
    for (a, b) in g.directed_edges(trace) {
        let style = if matches!((a, b), (Step::Event(_), Step::Event(_))) {
            "color=gray"
        } else {
            "color=black"
        };
        let _ = writeln!(out, "  {} -> {} [{style}];", id(a), id(b));
    }
    for &(w, o) in &g.undirected {
        let _ = writeln!(
            out,
            "  {} -> {} [dir=none, style=dashed, color=blue, constraint=false];",
            id(Step::Commit(w)),
            id(o)
        );
    }
    if let Some(c) = cycle {
        cycle_edges(&mut out, c);
    }
    out.push_str("}\n");
    out
}

/// The paper's trace event graph (Def. 4) in DOT.
pub fn paper_dot(trace: &Trace, g: &PaperGraph, cycle: Option<&[Edge]>) -> String {
    let mut out = format!(
        "digraph \"{}\" {{\n{HEADER}",
        esc(trace.name.as_deref().unwrap_or("trace"))
    );
    legend(
        &mut out,
        &[
            ("color=black", "directed edge of Def. 4"),
            (
                "dir=none, style=dashed, color=blue",
                "undirected edge of Def. 4",
            ),
            CYCLE_ROW,
        ],
    );
    clusters(&mut out, trace, &[]);
    for &(a, b) in &g.directed {
        let _ = writeln!(out, "  e{a} -> e{b};");
    }
    for &(a, b) in &g.undirected {
        let _ = writeln!(
            out,
            "  e{a} -> e{b} [dir=none, style=dashed, color=blue, constraint=false];"
        );
    }
    if let Some(c) = cycle {
        cycle_edges(&mut out, c);
    }
    out.push_str("}\n");
    out
}

/// Only a witness cycle's transactions, as Elle draws anomalies: one node per
/// transaction of the cycle (its thread and the events the cycle uses) and one edge per
/// conflict, labelled with its rule and its two events (and their execution steps).
pub fn cycle_dot(trace: &Trace, cycle: &[Edge], step_of: &dyn Fn(Node) -> Option<usize>) -> String {
    let mut out = format!(
        "digraph \"{}\" {{\n{HEADER}",
        esc(trace.name.as_deref().unwrap_or("trace"))
    );
    legend(
        &mut out,
        &[(
            "color=red, penwidth=2",
            "conflict of the cycle: rule, the two events, @ their steps",
        )],
    );
    let mut txns: Vec<TxnId> = cycle
        .iter()
        .flat_map(|e| [e.from, e.to])
        .map(TxnId::new)
        .collect();
    txns.sort_unstable();
    txns.dedup();
    for &x in &txns {
        let t = &trace.txns[x];
        let _ = writeln!(
            out,
            "  x{x} [label=\"{}\\nthread {}\", shape=box, style=rounded];",
            esc(&t.name),
            esc(&trace.threads[t.thread])
        );
    }
    for e in cycle {
        let at = |n: Node| step_of(n).map_or(String::new(), |s| format!(" @{s}"));
        let label = format!(
            "{:?}\\n{}{}\\n→ {}{}",
            e.rule,
            esc(&crate::trace::exec::node_text(trace, e.src)),
            at(e.src),
            esc(&crate::trace::exec::node_text(trace, e.dst)),
            at(e.dst)
        );
        let _ = writeln!(
            out,
            "  x{} -> x{} [color=red, penwidth=2, label=\"{label}\", fontcolor=red];",
            e.from, e.to
        );
    }
    out.push_str("}\n");
    out
}
