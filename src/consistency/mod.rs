//! Observed runs with values (Qadeer 2001): is a run — each read with the value it
//! returned — sequentially consistent, or a legal x86-TSO run?
//!
//! For an unambiguous run ([`run`]) a *witness* is a total order of each location's
//! writes; the run is SC under it iff the constraint graph of §5 is acyclic
//! (Theorem 5.3), and a cycle shrinks to a *nice* one (§6, Theorem 6.1). The *simple*
//! write order is the writes' order in the run (§5's end): with it the question is
//! a linear-time graph search ([`graph`], [`cycle`]). "Yes" answers carry a serial
//! order (SC) or commit order (TSO), re-checked by running it ([`replay`]); "no"
//! answers a cycle, re-checked edge by edge against the relations' definitions.
//! [`brute`] searches the machines themselves: the oracle of the tests.

pub mod brute;
pub mod cycle;
pub mod gen;
pub mod graph;
pub mod replay;
pub mod run;

pub use cycle::Edge;
pub use graph::Label;
pub use run::ValueRun;

use graph::Which;

/// The memory model a run is checked against.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Model {
    Sc,
    Tso,
}

/// Which write orders the check may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum WriteOrder {
    /// The writes' order in the run (Qadeer's simple witness).
    Simple,
}

/// The answer.
#[derive(Clone, Debug)]
pub enum Verdict {
    /// Consistent: `order` is a serial order (SC) or a commit order (TSO), re-checked.
    Consistent { order: Vec<usize> },
    /// Not consistent under the write order: a cycle of the constraint graph named by
    /// `graph`, shortened (nice: one edge per processor and location at most) and
    /// re-checked.
    Cycle {
        graph: Graph,
        edges: Vec<Edge>,
        nice: bool,
    },
}

/// The constraint graph a cycle lies in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Graph {
    /// Qadeer's G(Ω)(τ): program order and Ω^e.
    Sc,
    /// x86-TSO's ppo ∪ rfe ∪ co ∪ fr.
    TsoGlobal,
    /// x86-TSO's po-loc ∪ rf ∪ co ∪ fr (coherence of one location).
    TsoUniproc,
}

/// Figures of one check.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct Stats {
    pub events: usize,
    pub edges: usize,
    /// The cycle as first found, before shortening.
    pub cycle_found: Option<usize>,
}

/// A witness or cycle that did not re-check: a bug of tsoser's.
#[derive(Debug, thiserror::Error)]
#[error("internal error: the {what} did not re-check ({why}); please report this run")]
pub struct Unverified {
    pub what: &'static str,
    pub why: String,
}

/// Decides whether `run` is consistent with `model` under the write order.
pub fn check(
    run: &ValueRun,
    model: Model,
    order: WriteOrder,
) -> Result<(Verdict, Stats), Unverified> {
    let WriteOrder::Simple = order;
    let co = &run.writes;
    let graphs: &[(Which, Graph)] = match model {
        Model::Sc => &[(Which::Sc, Graph::Sc)],
        // Coherence first: its cycles are the shorter story.
        Model::Tso => &[
            (Which::TsoUniproc, Graph::TsoUniproc),
            (Which::TsoGlobal, Graph::TsoGlobal),
        ],
    };
    let mut stats = Stats {
        events: run.events.len(),
        ..Stats::default()
    };
    let mut topo = None;
    for &(which, name) in graphs {
        let g = graph::build(run, co, which);
        stats.edges += g.edges();
        match g.topological() {
            Ok(order) => topo = Some(order),
            Err(on_cycle) => {
                let found = g
                    .cycle_through(on_cycle)
                    .expect("a node on a cycle has one");
                stats.cycle_found = Some(found.len());
                let vertices: Vec<usize> = found.iter().map(|e| e.0).collect();
                let rel = cycle::Relations::new(run, co, which);
                let edges = rel.shorten(&vertices).ok_or_else(|| Unverified {
                    what: "cycle",
                    why: "a step of the graph's cycle is in neither relation".into(),
                })?;
                rel.recheck(&edges)
                    .map_err(|why| Unverified { what: "cycle", why })?;
                let nice = cycle::is_nice(&edges);
                return Ok((
                    Verdict::Cycle {
                        graph: name,
                        edges,
                        nice,
                    },
                    stats,
                ));
            }
        }
    }
    let order = topo.expect("one graph at least");
    let recheck = match model {
        Model::Sc => replay::serial(run, &order),
        Model::Tso => replay::commit_order(run, &order),
    };
    recheck.map_err(|why| Unverified {
        what: match model {
            Model::Sc => "serial order",
            Model::Tso => "commit order",
        },
        why,
    })?;
    Ok((Verdict::Consistent { order }, stats))
}
