//! Monitors on a trace read as an SC execution (docs/semantics.md §6).
//!
//! - [`sc_ser`]: SC-serializability in one pass with vector clocks.
//! - [`sober`]: SOBER's store-buffer-safety monitor (Burckhardt & Musuvathi Figs. 2, 3).
//! - [`burnim`]: `monitor_TSO` / `monitor_PSO` (Burnim, Sen & Stergiou Figs. 4, 5), with
//!   [`replay`] turning a report into the TSO / PSO run behind it.
//! - the transaction-fenced monitor (Enea & Farzan §6.3, Theorem 3): whether every
//!   transaction ends with a fence or rmw, SOBER for robustness and SC-serializability.
//! - [`hb`]: happens-before on the SC run, its vector clock and witness paths.
//!
//! [`Suite`] runs any set of them in one pass over the events, in memory ([`run`]) or
//! streamed from an STD file ([`stream`]).

pub mod burnim;
pub mod explain;
pub mod hb;
pub mod replay;
pub mod sc_ser;
pub mod sober;

use crate::check::{Verdict, Witness};
use crate::trace::{EventId, Op, Trace};
use burnim::{Burnim, BurnimReport, Model};
use sober::{Sober, SoberReport};

/// The monitors of `tsoser monitor`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    ScSer,
    Sober,
    Tso,
    Pso,
    Fenced,
}

impl Kind {
    pub const ALL: [Kind; 5] = [Kind::ScSer, Kind::Sober, Kind::Tso, Kind::Pso, Kind::Fenced];

    /// The name on the command line and in JSON.
    pub fn name(self) -> &'static str {
        match self {
            Kind::ScSer => "sc-ser",
            Kind::Sober => "sober",
            Kind::Tso => "tso",
            Kind::Pso => "pso",
            Kind::Fenced => "fenced",
        }
    }
}

/// What one monitor found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Nothing reported.
    Clean,
    /// SC-serializability fails from this event on.
    ScSer(EventId),
    Sober(SoberReport),
    Burnim(BurnimReport),
    /// The transaction-fenced monitor: its two parts, and the last event of the first
    /// transaction that does not end with a fence or rmw (`None`: transaction-fenced).
    Fenced {
        unfenced: Option<EventId>,
        sc_ser: Option<EventId>,
        sober: Option<SoberReport>,
    },
}

impl Outcome {
    pub fn is_violation(&self) -> bool {
        match self {
            Outcome::Clean => false,
            Outcome::Fenced { sc_ser, sober, .. } => sc_ser.is_some() || sober.is_some(),
            _ => true,
        }
    }

    /// The event the report is made at (the first of the two parts for `fenced`).
    pub fn at(&self) -> Option<EventId> {
        match self {
            Outcome::Clean => None,
            Outcome::ScSer(i) => Some(*i),
            Outcome::Sober(r) => Some(r.load),
            Outcome::Burnim(r) => Some(r.ei),
            Outcome::Fenced { sc_ser, sober, .. } => match (sc_ser, sober) {
                (Some(i), Some(r)) => Some((*i).min(r.load)),
                (Some(i), None) => Some(*i),
                (None, r) => r.as_ref().map(|r| r.load),
            },
        }
    }
}

/// Several monitors fed the same SC run, event by event; each stops at its first report.
pub struct Suite {
    kinds: Vec<Kind>,
    sc_ser: Option<(sc_ser::ScSer, Option<EventId>)>,
    sober: Option<(Sober, Option<SoberReport>)>,
    tso: Option<(Burnim, Option<BurnimReport>)>,
    pso: Option<(Burnim, Option<BurnimReport>)>,
    /// Per thread: the op and index of the latest event of its current transaction.
    txn_last: Vec<Option<(Op, EventId)>>,
    unfenced: Option<EventId>,
    next: EventId,
}

impl Suite {
    /// The monitors `kinds` for k threads and m variables.
    pub fn new(kinds: &[Kind], k: usize, m: usize) -> Suite {
        let has = |ks: &[Kind]| ks.iter().any(|x| kinds.contains(x));
        Suite {
            kinds: kinds.to_vec(),
            sc_ser: has(&[Kind::ScSer, Kind::Fenced]).then(|| (sc_ser::ScSer::new(k, m), None)),
            sober: has(&[Kind::Sober, Kind::Fenced]).then(|| (Sober::new(k, m), None)),
            tso: has(&[Kind::Tso]).then(|| (Burnim::new(Model::Tso, k, m), None)),
            pso: has(&[Kind::Pso]).then(|| (Burnim::new(Model::Pso, k, m), None)),
            txn_last: vec![None; k],
            unfenced: None,
            next: 0,
        }
    }

    /// Thread t starts a new transaction.
    pub fn begin(&mut self, t: usize) {
        if let Some((m, None)) = &mut self.sc_ser {
            m.begin(t);
        }
        if let Some((op, e)) = self.txn_last[t].take() {
            if !op.drains() && self.unfenced.is_none_or(|u| e < u) {
                self.unfenced = Some(e);
            }
        }
    }

    /// Thread t's next event.
    pub fn step(&mut self, t: usize, op: Op, var: Option<usize>) {
        let e = self.next;
        self.next += 1;
        self.txn_last[t] = Some((op, e));
        if let Some((m, found @ None)) = &mut self.sc_ser {
            if var.is_some_and(|x| m.access(t, op, x)) {
                *found = Some(e);
            }
        }
        if let Some((m, found @ None)) = &mut self.sober {
            *found = m.step(t, op, var);
        }
        for b in [&mut self.tso, &mut self.pso].into_iter().flatten() {
            if b.1.is_none() {
                b.1 = b.0.step(t, op, var);
            }
        }
    }

    /// Whether every monitor has reported (nothing more to learn from the run).
    pub fn all_reported(&self) -> bool {
        self.sc_ser.as_ref().is_none_or(|m| m.1.is_some())
            && self.sober.as_ref().is_none_or(|m| m.1.is_some())
            && self.tso.as_ref().is_none_or(|m| m.1.is_some())
            && self.pso.as_ref().is_none_or(|m| m.1.is_some())
            && !self.kinds.contains(&Kind::Fenced)
    }

    /// The outcome of each requested monitor, in the order asked, after the last event.
    pub fn finish(mut self) -> Vec<(Kind, Outcome)> {
        for t in 0..self.txn_last.len() {
            self.begin(t);
        }
        let or_clean = |o: Option<Outcome>| o.unwrap_or(Outcome::Clean);
        let sc = self.sc_ser.as_ref().and_then(|m| m.1);
        let so = self.sober.as_ref().and_then(|m| m.1.clone());
        self.kinds
            .iter()
            .map(|&k| {
                let o = match k {
                    Kind::ScSer => or_clean(sc.map(Outcome::ScSer)),
                    Kind::Sober => or_clean(so.clone().map(Outcome::Sober)),
                    Kind::Tso => or_clean(
                        self.tso
                            .as_ref()
                            .and_then(|m| m.1.clone())
                            .map(Outcome::Burnim),
                    ),
                    Kind::Pso => or_clean(
                        self.pso
                            .as_ref()
                            .and_then(|m| m.1.clone())
                            .map(Outcome::Burnim),
                    ),
                    Kind::Fenced => Outcome::Fenced {
                        unfenced: self.unfenced,
                        sc_ser: sc,
                        sober: so.clone(),
                    },
                };
                (k, o)
            })
            .collect()
    }
}

/// Runs the monitors `kinds` on a trace in memory.
pub fn run(trace: &Trace, kinds: &[Kind]) -> Vec<(Kind, Outcome)> {
    run_suite(
        Suite::new(kinds, trace.threads.len(), trace.vars.len()),
        trace,
    )
}

/// [`run`] with a suite built beforehand (so a caller can time the pass alone).
pub fn run_suite(mut s: Suite, trace: &Trace) -> Vec<(Kind, Outcome)> {
    let mut current: Vec<Option<usize>> = vec![None; trace.threads.len()];
    for e in &trace.events {
        if current[e.thread] != Some(e.txn) {
            current[e.thread] = Some(e.txn);
            s.begin(e.thread);
        }
        s.step(e.thread, e.op, e.var);
        if s.all_reported() {
            break;
        }
    }
    s.finish()
}

/// SC-serializability by the vector-clock monitor; a violation carries the cycle of
/// the ⊙SC conflict graph of the prefix that ends at the event the monitor stopped at.
pub fn check_sc_ser(trace: &Trace) -> (Verdict, Option<usize>) {
    let Some(i) = sc_ser::first_violation(trace) else {
        return (Verdict::Serializable, None);
    };
    let v = sc_ser_witness(trace, i).expect("the monitor stops only where the prefix has a cycle");
    (v, Some(i))
}

/// The ⊙SC cycle of the prefix that ends at event `at`, as a violation.
pub fn sc_ser_witness(trace: &Trace, at: EventId) -> Option<Verdict> {
    let cycle = crate::check::sc::sc_graph_upto(trace, at + 1).find_cycle()?;
    Some(Verdict::Violation(Box::new(Witness::Sc { cycle })))
}

/// What a streaming run saw.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Streamed {
    pub events: usize,
    pub threads: usize,
    pub variables: usize,
    pub transactions: usize,
    /// Each monitor's outcome; event indices are those of the trace `read_std` builds.
    pub outcomes: Vec<(Kind, Outcome)>,
}

/// The monitors `kinds` on an STD file in two streaming passes — the names, then the
/// monitors — never holding the trace: sc-ser keeps O(k·(k + m + k·m)) integers for k
/// threads and m variables; SOBER also one record per write (Fig. 2 walks back over the
/// writes of a variable); `monitor_TSO` / `monitor_PSO` the stores still buffered.
pub fn stream(path: &std::path::Path, kinds: &[Kind]) -> Result<Streamed, crate::FileError> {
    use crate::trace::std_format::{open_std, Lowering};
    use std::collections::HashMap;
    let named = |error| crate::FileError {
        file: path.display().to_string(),
        error,
    };
    let mut threads: HashMap<String, usize> = HashMap::new();
    let mut vars: HashMap<String, usize> = HashMap::new();
    let mut lowering = Lowering::default();
    for ev in open_std(path)? {
        for l in lowering.lower(&ev.map_err(named)?).map_err(named)? {
            let n = threads.len();
            threads.entry(l.thread).or_insert(n);
            if l.op != Op::Fence {
                let n = vars.len();
                vars.entry(l.var).or_insert(n);
            }
        }
    }
    let mut suite = Suite::new(kinds, threads.len(), vars.len());
    let mut current: Vec<Option<String>> = vec![None; threads.len()];
    let mut out = Streamed {
        threads: threads.len(),
        variables: vars.len(),
        ..Streamed::default()
    };
    let mut lowering = Lowering::default();
    'lines: for ev in open_std(path)? {
        let ev = ev.map_err(named)?;
        for l in lowering.lower(&ev).map_err(named)? {
            let t = threads[&l.thread];
            let x = (l.op != Op::Fence).then(|| vars[&l.var]);
            if l.txn.is_none() || current[t] != l.txn {
                current[t] = l.txn;
                suite.begin(t);
                out.transactions += 1;
            }
            suite.step(t, l.op, x);
            out.events += 1;
            if suite.all_reported() {
                break 'lines;
            }
        }
    }
    out.outcomes = suite.finish();
    Ok(out)
}
