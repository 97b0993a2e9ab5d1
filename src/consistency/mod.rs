//! Observed runs with values (Qadeer 2001): is a run — each read with the value it
//! returned — sequentially consistent, or a legal x86-TSO run?
//!
//! For an unambiguous run ([`run`]) a *witness* is a total order of each location's
//! writes; the run is SC under it iff the constraint graph of §5 is acyclic
//! (Theorem 5.3), and a cycle shrinks to a *nice* one (§6, Theorem 6.1). The *simple*
//! write order is the writes' order in the run (§5's end): with it the question is
//! a linear-time graph search (`graph`, [`cycle`]). "Yes" answers carry a serial
//! order (SC) or commit order (TSO), re-checked by running it (`replay`); "no"
//! answers a cycle, re-checked edge by edge against the relations' definitions.
//! With *any* write order the question is NP-complete and goes to a SAT solver
//! (`any`); its "yes" is the write order found, checked as a given one.
//! [`brute`] searches the machines themselves: the oracle of the tests.

pub(crate) mod any;
pub mod brute;
pub mod cycle;
pub mod gen;
pub(crate) mod graph;
pub(crate) mod replay;
pub mod run;

pub use cycle::Edge;
pub use graph::Label;
pub use run::ValueRun;

pub use any::SatStats;
pub use graph::Which;

use crate::solver::SolverKind;
use crate::stop::Stop;

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
    /// Any write order: some order per location under which the run is consistent.
    Any,
}

/// The answer.
#[derive(Clone, Debug)]
pub enum Verdict {
    /// Consistent: `order` is a serial order (SC) or a commit order (TSO), re-checked,
    /// under the write order `co` (per location, its writes in order).
    Consistent {
        order: Vec<usize>,
        co: Vec<Vec<usize>>,
    },
    /// Not consistent under the write order: a cycle of the constraint graph named by
    /// `graph`, shortened (nice: one edge per processor and location at most) and
    /// re-checked.
    Cycle {
        graph: Graph,
        edges: Vec<Edge>,
        nice: bool,
    },
    /// No write order makes the run consistent (the solver refuted every one: no
    /// cycle is a proof of that, so none is given).
    NoWriteOrder,
    /// Undecided within the budget; why.
    Unknown(crate::stop::Unknown),
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
    /// The search of `--write-order any`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sat: Option<any::SatStats>,
}

/// A witness or cycle that did not re-check: a bug of tsoser's.
#[derive(Debug, thiserror::Error)]
#[error("internal error: the {what} did not re-check ({why}); please report this run")]
pub struct Unverified {
    pub what: &'static str,
    pub why: Rejected,
}

/// Why a cycle or an order does not re-check: the rule it breaks. Edges are numbered
/// from 1; events are named by index, or as the run shows them.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Rejected {
    #[error("the cycle is empty")]
    EmptyCycle,
    #[error("edge {edge} ends at #{end} but the next starts at #{next}")]
    NotClosed {
        edge: usize,
        end: usize,
        next: usize,
    },
    #[error("event #{event} is visited twice")]
    VisitedTwice { event: usize },
    #[error("edge {edge} (#{from} → #{to}) is not in the relation its label names")]
    NotInRelation { edge: usize, from: usize, to: usize },
    #[error("a step of the graph's cycle is in neither relation")]
    InNeitherRelation,
    /// The solver's write order closes a cycle of the constraint graph.
    #[error("its constraint graph has a cycle")]
    CyclicConstraints,
    #[error("the order has {order} events, the run {run}")]
    WrongLength { order: usize, run: usize },
    #[error("event #{event} is missing from the run or placed twice")]
    MissingOrTwice { event: usize },
    #[error("#{event} is placed after #{later}, which follows it in its thread")]
    OutOfProgramOrder { event: usize, later: usize },
    #[error("{event} reads {read}, but {there} is the value there")]
    WrongValue {
        event: String,
        read: String,
        there: String,
    },
    /// x86-TSO: a write commits before an earlier event of its thread executes.
    #[error("{write} leaves the buffer before {earlier} executes")]
    CommitsEarly { write: String, earlier: String },
    /// x86-TSO: a fence or rmw executes while its thread's buffer holds a write.
    #[error("{event} executes while {write} is still in its buffer")]
    BufferNotDrained { event: String, write: String },
}

/// Why a check gave no answer.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CheckError {
    #[error(transparent)]
    Unverified(#[from] Unverified),
    #[error(transparent)]
    Solver(#[from] crate::solver::SolverError),
}

/// Decides whether `run` is consistent with `model` under the write order; for `Any`
/// with the solver `solver` until `stop` (then [`Verdict::Unknown`]).
pub fn check(
    run: &ValueRun,
    model: Model,
    order: WriteOrder,
    solver: SolverKind,
    stop: &Stop,
) -> Result<(Verdict, Stats), CheckError> {
    match order {
        WriteOrder::Simple => Ok(check_order(run, model, &run.writes)?),
        WriteOrder::Any => {
            let mut sat = any::SatStats::default();
            let found = any::find(run, model, solver, stop, &mut sat)?;
            let (verdict, mut stats) = match found {
                any::Found::Order(co) => match check_order(run, model, &co)? {
                    (Verdict::Cycle { .. }, _) => {
                        return Err(Unverified {
                            what: "solver's write order",
                            why: Rejected::CyclicConstraints,
                        }
                        .into())
                    }
                    v => v,
                },
                any::Found::NoOrder => (Verdict::NoWriteOrder, Stats::default()),
                any::Found::Unknown(why) => (Verdict::Unknown(why), Stats::default()),
            };
            stats.events = run.events.len();
            stats.sat = Some(sat);
            Ok((verdict, stats))
        }
    }
}

/// Decides whether `run` is consistent with `model` under the write order `co` (per
/// location, its writes in order).
pub fn check_order(
    run: &ValueRun,
    model: Model,
    co: &[Vec<usize>],
) -> Result<(Verdict, Stats), Unverified> {
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
                let edges = rel.shorten(&vertices).ok_or(Unverified {
                    what: "cycle",
                    why: Rejected::InNeitherRelation,
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
    Ok((
        Verdict::Consistent {
            order,
            co: co.to_vec(),
        },
        stats,
    ))
}
