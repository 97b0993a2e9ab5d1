//! Constraint graphs over a run's events, for a given write order per location.
//!
//! SC: Qadeer's G(Ω)(τ) (§5): each processor's order M and, per location, Ω^e — the
//! write order extended to reads (a read after the write it reads and every write
//! before it, before every write after it). Ω^e is kept as a chain whose
//! reachability is Ω^e: w₁ → w₂ → …, each write to its readers, each reader to the
//! next write. An rmw is one node, a reader of its source and a write of its own: a
//! write ordered between them closes a cycle through it (atomicity).
//!
//! TSO (x86-TSO, as herd's x86tso.cat): the global order ppo ∪ rfe ∪ co ∪ fr, where
//! ppo is program order without write → read pairs (a fence or rmw is both a read and
//! a write, so it keeps them), and per location po-loc ∪ rf ∪ co ∪ fr (uniproc). A read
//! of its own thread's write (rfi) is no edge of the first: it may come from the buffer.

use super::run::{Kind, ValueRun};
use crate::graph::csr::Csr;

/// What an edge of a constraint graph comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(tag = "kind", content = "of", rename_all = "lowercase")]
pub enum Label {
    /// Program order (SC) or preserved program order (TSO) of a thread.
    Processor(usize),
    /// The write order of a location, extended to its reads.
    Location(usize),
}

/// A constraint graph over a run's events.
pub type Graph = Csr<Label>;

/// Which graph to build.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Which {
    /// Qadeer's G(Ω)(τ).
    Sc,
    /// x86-TSO's global order ppo ∪ rfe ∪ co ∪ fr.
    TsoGlobal,
    /// x86-TSO's per-location order po-loc ∪ rf ∪ co ∪ fr.
    TsoUniproc,
}

/// The constraint graph of `run` for the write order `co` (per location, its writes
/// and rmws in order).
pub fn build(run: &ValueRun, co: &[Vec<usize>], which: Which) -> Graph {
    let n = run.events.len();
    let mut edges: Vec<(usize, usize, Label)> = Vec::with_capacity(3 * n);
    let e = |a: usize, b: usize, l| (a, b, l);
    // Processor edges.
    let mut by_thread: Vec<Vec<usize>> = vec![Vec::new(); run.threads.len()];
    for (i, ev) in run.events.iter().enumerate() {
        by_thread[ev.thread].push(i);
    }
    for (t, evs) in by_thread.iter().enumerate() {
        let l = Label::Processor(t);
        match which {
            Which::Sc => edges.extend(evs.windows(2).map(|w| e(w[0], w[1], l))),
            Which::TsoGlobal => {
                // Each event to the next write-like event; a read-like one also to
                // the next read-like event (fences and rmws are both).
                let (mut next_w, mut next_r) = (None, None);
                for &i in evs.iter().rev() {
                    let k = run.events[i].kind;
                    if let Some(w) = next_w {
                        edges.push(e(i, w, l));
                    }
                    let read_like = k != Kind::Write;
                    if read_like {
                        if let Some(r) = next_r {
                            if Some(r) != next_w {
                                edges.push(e(i, r, l));
                            }
                        }
                    }
                    if k != Kind::Read {
                        next_w = Some(i);
                    }
                    if read_like {
                        next_r = Some(i);
                    }
                }
            }
            Which::TsoUniproc => {
                let mut last = vec![None; run.locs.len()];
                for &i in evs {
                    if let Some(x) = run.events[i].loc {
                        if let Some(p) = last[x] {
                            edges.push(e(p, i, l));
                        }
                        last[x] = Some(i);
                    }
                }
            }
        }
    }
    // Location edges: w₁ → w₂ → …, each write to its readers, each reader to the next write.
    let mut readers: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut init_readers: Vec<Vec<usize>> = vec![Vec::new(); run.locs.len()];
    for (i, ev) in run.events.iter().enumerate() {
        if ev.kind.reads() {
            match ev.rf {
                Some(w) => readers[w].push(i),
                None => init_readers[ev.loc.unwrap()].push(i),
            }
        }
    }
    for (x, ws) in co.iter().enumerate() {
        let l = Label::Location(x);
        for &r in &init_readers[x] {
            if let Some(&w) = ws.first() {
                if w != r {
                    edges.push(e(r, w, l));
                }
            }
        }
        for (k, &w) in ws.iter().enumerate() {
            let next = ws.get(k + 1).copied();
            if let Some(nw) = next {
                edges.push(e(w, nw, l));
            }
            for &r in &readers[w] {
                let internal = run.events[r].thread == run.events[w].thread;
                if !(which == Which::TsoGlobal && internal) {
                    edges.push(e(w, r, l));
                }
                if let Some(nw) = next {
                    if nw != r {
                        edges.push(e(r, nw, l));
                    }
                }
            }
        }
    }
    Csr::from_edges(n, &edges)
}
