//! Monitors on a trace read as an SC execution (docs/semantics.md §6).
//!
//! - [`sc_ser`]: SC-serializability in one pass with vector clocks.
//! - [`sober`]: SOBER's store-buffer-safety monitor (Burckhardt & Musuvathi Figs. 2, 3).
//! - [`burnim`]: `monitor_TSO` / `monitor_PSO` (Burnim, Sen & Stergiou Figs. 4, 5), with
//!   [`replay`] turning a report into the TSO / PSO run behind it.
//! - [`fenced`]: the transaction-fenced monitor (Enea & Farzan §6.3, Theorem 3): whether
//!   every transaction ends with a fence or rmw, SOBER for robustness and
//!   SC-serializability, and what Theorem 3 concludes from them.
//! - [`hb`]: happens-before on the SC run, its vector clock and witness paths.
//! - [`evidence`]: a report's evidence in the paper's terms, re-checked from the
//!   definitions (what `tsoser monitor` prints, `crate::output::monitor`).
//!
//! Each is a [`Monitor`] (begin, step, finish → [`Outcome`]); [`Suite`] runs any list
//! of them in one pass over the events, in memory ([`run`]) or streamed from an STD file
//! ([`stream`]).

pub mod burnim;
pub mod evidence;
pub mod fenced;
pub mod hb;
pub mod replay;
mod row;
pub mod sc_ser;
pub mod sober;
mod stream;
mod unconfirmed;

pub use unconfirmed::Unconfirmed;

pub use stream::{stopped, stream, stream_input, Input, Streamed};

use crate::check::{Verdict, Witness};
use crate::stop::Stop;
use crate::trace::std_format::lower::IdEvent;
use crate::trace::ThreadId;
use crate::trace::TiVec;
use crate::trace::{EventId, Op, Trace};
use crate::trace::{TxnId, VarId};
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

/// What an outcome answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Answer {
    /// Nothing reported (the fenced monitor: transaction-fenced, neither part reports).
    Clean,
    /// A report (the fenced monitor: by Theorem 3, not TSO-serializable).
    Violation,
    /// The fenced monitor on a trace that is not transaction-fenced: Theorem 3 does
    /// not apply.
    Unknown,
}

impl Outcome {
    /// What the outcome answers; the fenced monitor's by Theorem 3 ([`fenced::theorem3`]).
    pub fn answer(&self) -> Answer {
        match self {
            Outcome::Fenced { unfenced, .. } => {
                match fenced::theorem3(*unfenced, self.is_violation()) {
                    fenced::Theorem3::NotFenced => Answer::Unknown,
                    fenced::Theorem3::NotTsoSerializable => Answer::Violation,
                    fenced::Theorem3::NothingFound => Answer::Clean,
                }
            }
            o if o.is_violation() => Answer::Violation,
            _ => Answer::Clean,
        }
    }

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

/// One monitor fed an SC run event by event (docs/semantics.md §6). A new monitor is
/// one implementation plus one line in [`new_monitor`].
pub trait Monitor {
    fn kind(&self) -> Kind;
    /// Thread `t` starts a new transaction.
    fn begin(&mut self, _t: ThreadId) {}
    /// Thread `t`'s current transaction has had its last event, unless an event of `t`
    /// comes before its next `begin` (the same transaction goes on): a hint, which a
    /// monitor may use to end the transaction before the `begin` (sc-ser takes it up
    /// again at its next access).
    fn end(&mut self, _t: ThreadId) {}
    /// Event `e` of thread `t` (its op and variable index).
    fn step(&mut self, e: EventId, t: ThreadId, op: Op, var: Option<VarId>);
    /// From now on threads up to `k` and variables up to `m` (never fewer than
    /// before): a stream meets names as it reads them ([`stream`]).
    fn grow(&mut self, k: usize, m: usize);
    /// Whether its answer is still exact: a monitor that forgets what no known thread
    /// can need (SOBER's write records) is not once a new thread appears.
    fn exact(&self) -> bool {
        true
    }
    /// Whether the rest of the run can change nothing (it has reported).
    fn done(&self) -> bool;
    /// The outcome after the last event read.
    fn finish(&mut self) -> Outcome;
    /// The events of `batch`, numbered from `first`, each with its `begin` and `end`,
    /// until the monitor is [`Monitor::done`]; how many it read. (One call a batch: the
    /// calls per event are the monitor's own, not through the trait object.)
    fn feed(&mut self, first: EventId, batch: &[IdEvent]) -> usize {
        for (i, e) in batch.iter().enumerate() {
            if e.begins {
                self.begin(e.thread);
            }
            self.step(first + i, e.thread, e.op, e.var);
            if e.ends {
                self.end(e.thread);
            }
            if self.done() {
                return i + 1;
            }
        }
        batch.len()
    }
}

impl Kind {
    /// Bytes the monitor's state takes for `k` threads and `m` variables before the run
    /// (vector clocks over threads; sc-ser's read slots come as threads first read
    /// variables, 8 bytes an entry of a row, `sc_ser::width`).
    pub fn bytes_needed(self, k: usize, m: usize) -> u128 {
        let (k, m) = (k as u128, m as u128);
        let hb = 4 * (k * k + 2 * m * k);
        match self {
            // A row (clock and marks) a thread and a variable, the read slots' index,
            // a variable's readers, and a slot's alias.
            Kind::ScSer => {
                8 * (k + m) * sc_ser::width(k as usize) as u128
                    + 4 * k * m
                    + 8 * k.div_ceil(64) * m
                    + 8 * (k + m)
            }
            Kind::Sober => hb + 4 * (2 * k * 2 * k + (m + k) * 2 * k),
            Kind::Tso | Kind::Pso => hb + 32 * m,
            Kind::Fenced => {
                Kind::ScSer.bytes_needed(k as usize, m as usize)
                    + Kind::Sober.bytes_needed(k as usize, m as usize)
            }
        }
    }
}

/// The bytes the monitors `kinds` hold for `k` threads and `m` variables.
pub fn bytes_needed(kinds: &[Kind], k: usize, m: usize) -> u128 {
    kinds.iter().map(|x| x.bytes_needed(k, m)).sum()
}

/// Refuses monitors whose state for `k` threads and `m` variables would pass `budget`
/// bytes: the message says how much they need (the command answers *unknown*, exit 3,
/// instead of letting the allocator abort).
pub fn check_memory(
    kinds: &[Kind],
    k: usize,
    m: usize,
    budget: usize,
) -> Result<(), crate::mem::OverBudget> {
    let bytes = bytes_needed(kinds, k, m);
    if bytes > budget as u128 {
        return Err(crate::mem::OverBudget::Monitors {
            bytes,
            threads: k,
            vars: m,
            budget,
        });
    }
    Ok(())
}

/// Why a streamed run gave no outcome.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StreamError {
    #[error(transparent)]
    Input(#[from] crate::FileError),
    /// The monitors' state would not fit the memory budget ([`check_memory`]).
    #[error(transparent)]
    Memory(crate::mem::OverBudget),
    /// The stop came first (a time limit): how far the monitors got.
    #[error("{0}")]
    Stopped(String),
}

/// What builds a monitor of a kind for `k` threads and `m` variables.
pub type MonitorFactory = fn(Kind, usize, usize) -> Box<dyn Monitor>;

/// The monitor `kind` for `k` threads and `m` variables.
pub fn new_monitor(kind: Kind, k: usize, m: usize) -> Box<dyn Monitor> {
    match kind {
        Kind::ScSer => Box::new(ScSerMonitor::new(k, m)),
        Kind::Sober => Box::new(FirstReport(Sober::new(k, m), None)),
        Kind::Tso => Box::new(FirstReport(Burnim::new(Model::Tso, k, m), None)),
        Kind::Pso => Box::new(FirstReport(Burnim::new(Model::Pso, k, m), None)),
        Kind::Fenced => Box::new(fenced::FencedMonitor::new(k)),
    }
}

/// SC-serializability ([`sc_ser`]): the first event whose prefix has a ⊙SC cycle.
struct ScSerMonitor(sc_ser::ScSer, Option<EventId>);

impl ScSerMonitor {
    fn new(k: usize, m: usize) -> ScSerMonitor {
        ScSerMonitor(sc_ser::ScSer::new(k, m), None)
    }
}

impl Monitor for ScSerMonitor {
    fn kind(&self) -> Kind {
        Kind::ScSer
    }
    fn begin(&mut self, t: ThreadId) {
        if self.1.is_none() {
            self.0.begin(t);
        }
    }
    fn end(&mut self, t: ThreadId) {
        if self.1.is_none() {
            self.0.end(t);
        }
    }
    fn step(&mut self, e: EventId, t: ThreadId, op: Op, var: Option<VarId>) {
        if self.1.is_none() && var.is_some_and(|x| self.0.access(t, op, x)) {
            self.1 = Some(e);
        }
    }
    /// [`Monitor::feed`] as one loop of the monitor's ([`sc_ser::ScSer::feed`]).
    fn feed(&mut self, first: EventId, batch: &[IdEvent]) -> usize {
        if self.1.is_some() {
            return 0;
        }
        match self.0.feed(batch) {
            Some(i) => {
                self.1 = Some(first + i);
                i + 1
            }
            None => batch.len(),
        }
    }
    fn grow(&mut self, k: usize, m: usize) {
        self.0.grow(k, m);
    }
    fn done(&self) -> bool {
        self.1.is_some()
    }
    fn finish(&mut self) -> Outcome {
        self.1.map_or(Outcome::Clean, Outcome::ScSer)
    }
}

/// How many events ahead of the one it steps a batch loop asks the cache for a
/// monitor's state ([`sc_ser::ScSer::feed`], [`FirstReport`]'s `feed`): far enough for
/// a miss to be served before its event comes.
const AHEAD: usize = 8;

/// The thread and variable of the access [`AHEAD`] places after event `i` of `batch`,
/// if there is one.
#[inline(always)]
fn ahead(batch: &[IdEvent], i: usize) -> Option<(ThreadId, VarId)> {
    batch.get(i + AHEAD).and_then(|a| Some((a.thread, a.var?)))
}

/// An online monitor that reports once (SOBER, `monitor_TSO`, `monitor_PSO`).
trait Reports {
    type Report: Clone;
    fn kind(&self) -> Kind;
    /// Asks the cache for what an access of `var` will read (a hint; none by default).
    fn prefetch(&self, _var: VarId) {}
    fn step(&mut self, t: ThreadId, op: Op, var: Option<VarId>) -> Option<Self::Report>;
    fn grow(&mut self, k: usize, m: usize);
    fn exact(&self) -> bool {
        true
    }
    fn outcome(r: Self::Report) -> Outcome;
}

impl Reports for Sober {
    type Report = SoberReport;
    fn kind(&self) -> Kind {
        Kind::Sober
    }
    fn step(&mut self, t: ThreadId, op: Op, var: Option<VarId>) -> Option<SoberReport> {
        Sober::step(self, t, op, var)
    }
    fn prefetch(&self, var: VarId) {
        Sober::prefetch(self, var)
    }
    fn grow(&mut self, k: usize, m: usize) {
        Sober::grow(self, k, m)
    }
    fn exact(&self) -> bool {
        Sober::exact(self)
    }
    fn outcome(r: SoberReport) -> Outcome {
        Outcome::Sober(r)
    }
}

impl Reports for Burnim {
    type Report = BurnimReport;
    fn kind(&self) -> Kind {
        // new_monitor builds it for TSO and PSO only.
        match self.model() {
            Model::Sc | Model::Tso => Kind::Tso,
            Model::Pso => Kind::Pso,
        }
    }
    fn step(&mut self, t: ThreadId, op: Op, var: Option<VarId>) -> Option<BurnimReport> {
        Burnim::step(self, t, op, var)
    }
    fn grow(&mut self, k: usize, m: usize) {
        Burnim::grow(self, k, m)
    }
    fn outcome(r: BurnimReport) -> Outcome {
        Outcome::Burnim(r)
    }
}

/// A [`Reports`] monitor that stops at its first report: SOBER ([`sober`], Figs. 2,
/// 3), `monitor_TSO` / `monitor_PSO` ([`burnim`], Figs. 4, 5).
struct FirstReport<M: Reports>(M, Option<M::Report>);

impl<M: Reports> Monitor for FirstReport<M> {
    fn kind(&self) -> Kind {
        self.0.kind()
    }
    fn step(&mut self, _e: EventId, t: ThreadId, op: Op, var: Option<VarId>) {
        if self.1.is_none() {
            self.1 = self.0.step(t, op, var);
        }
    }
    /// [`Monitor::feed`] asking the cache for the variable of the event 8 ahead
    /// ([`Reports::prefetch`]).
    fn feed(&mut self, _first: EventId, batch: &[IdEvent]) -> usize {
        for (i, e) in batch.iter().enumerate() {
            if let Some((_, x)) = ahead(batch, i) {
                self.0.prefetch(x);
            }
            if self.1.is_none() {
                self.1 = self.0.step(e.thread, e.op, e.var);
            }
            if self.1.is_some() {
                return i + 1;
            }
        }
        batch.len()
    }
    fn grow(&mut self, k: usize, m: usize) {
        self.0.grow(k, m);
    }
    fn exact(&self) -> bool {
        self.0.exact()
    }
    fn done(&self) -> bool {
        self.1.is_some()
    }
    fn finish(&mut self) -> Outcome {
        self.1.clone().map_or(Outcome::Clean, M::outcome)
    }
}

/// Several monitors fed the same SC run, event by event; each stops at its first report.
pub struct Suite {
    monitors: Vec<Box<dyn Monitor>>,
    /// How many of `monitors` were asked for (the rest are the fenced monitor's parts).
    asked: usize,
    next: EventId,
}

impl Suite {
    /// The monitors `kinds` for k threads and m variables.
    pub fn new(kinds: &[Kind], k: usize, m: usize) -> Suite {
        Suite::with(kinds, k, m, new_monitor)
    }

    /// [`Suite::new`] with the monitors `make` builds (a test's mutant in place of the
    /// real one, `tsoser::crosscheck`).
    pub fn with(kinds: &[Kind], k: usize, m: usize, make: MonitorFactory) -> Suite {
        let mut monitors: Vec<Box<dyn Monitor>> =
            kinds.iter().map(|&kind| make(kind, k, m)).collect();
        if kinds.contains(&Kind::Fenced) {
            for part in [Kind::ScSer, Kind::Sober] {
                if !kinds.contains(&part) {
                    monitors.push(make(part, k, m));
                }
            }
        }
        Suite {
            monitors,
            asked: kinds.len(),
            next: 0,
        }
    }

    /// Thread t starts a new transaction.
    pub fn begin(&mut self, t: ThreadId) {
        for m in &mut self.monitors {
            m.begin(t);
        }
    }

    /// Thread t's current transaction has had its last event ([`Monitor::end`]).
    pub fn end(&mut self, t: ThreadId) {
        for m in &mut self.monitors {
            m.end(t);
        }
    }

    /// The events of `batch`, in order ([`Monitor::feed`]): how many were read before
    /// every monitor had reported (all of them if one has not).
    pub fn feed(&mut self, batch: &[IdEvent]) -> usize {
        let first = self.next;
        self.next += batch.len();
        self.monitors
            .iter_mut()
            .filter(|m| !m.done())
            .map(|m| m.feed(first, batch))
            .max()
            .unwrap_or(0)
    }

    /// Thread t's next event.
    pub fn step(&mut self, t: ThreadId, op: Op, var: Option<VarId>) {
        let e = self.next;
        self.next += 1;
        for m in &mut self.monitors {
            m.step(e, t, op, var);
        }
    }

    /// From now on threads up to `k` and variables up to `m` ([`Monitor::grow`]).
    pub fn grow(&mut self, k: usize, m: usize) {
        for x in &mut self.monitors {
            x.grow(k, m);
        }
    }

    /// Whether every monitor's answer is still exact ([`Monitor::exact`]).
    pub fn exact(&self) -> bool {
        self.monitors.iter().all(|m| m.exact())
    }

    /// Whether every monitor has reported (nothing more to learn from the run).
    pub fn all_reported(&self) -> bool {
        self.monitors.iter().all(|m| m.done())
    }

    /// The outcome of each requested monitor, in the order asked, after the last event.
    pub fn finish(self) -> Vec<(Kind, Outcome)> {
        let all: Vec<(Kind, Outcome)> = self
            .monitors
            .into_iter()
            .map(|mut m| (m.kind(), m.finish()))
            .collect();
        let part = |k: Kind| all.iter().find(|x| x.0 == k).map(|x| x.1.clone());
        let sc_ser = match part(Kind::ScSer) {
            Some(Outcome::ScSer(i)) => Some(i),
            _ => None,
        };
        let sober = match part(Kind::Sober) {
            Some(Outcome::Sober(r)) => Some(r),
            _ => None,
        };
        all[..self.asked]
            .iter()
            .map(|(k, o)| match o {
                Outcome::Fenced { unfenced, .. } => (
                    *k,
                    Outcome::Fenced {
                        unfenced: *unfenced,
                        sc_ser,
                        sober: sober.clone(),
                    },
                ),
                o => (*k, o.clone()),
            })
            .collect()
    }
}

/// Runs the monitors `kinds` on a trace in memory.
pub fn run(trace: &Trace, kinds: &[Kind]) -> Vec<(Kind, Outcome)> {
    run_suite(
        Suite::new(kinds, trace.threads.len(), trace.vars.len()),
        trace,
        &Stop::default(),
    )
    .expect("a run without a stop ends")
}

/// [`run`] with a suite built beforehand (so a caller can time the pass alone), until
/// `stop` (polled every 4,096 events; `Err` with the events monitored when it stopped
/// the run).
pub fn run_suite(mut s: Suite, trace: &Trace, stop: &Stop) -> Result<Vec<(Kind, Outcome)>, usize> {
    let last = sc_ser::last_events(trace);
    let mut current: TiVec<ThreadId, Option<TxnId>> = trace.per_thread(None);
    for (i, e) in trace.events.iter().enumerate() {
        if i % 4096 == 4095 && stop.expired() {
            return Err(i);
        }
        if current[e.thread] != Some(e.txn) {
            current[e.thread] = Some(e.txn);
            s.begin(e.thread);
        }
        s.step(e.thread, e.op, e.var);
        if last.contains(i) {
            s.end(e.thread);
        }
        if s.all_reported() {
            break;
        }
    }
    Ok(s.finish())
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

/// How many of a run's `n` events the monitors read before they all stopped (each
/// stops at its report).
pub fn events_read(outcomes: &[(Kind, Outcome)], n: usize) -> usize {
    outcomes
        .iter()
        .map(|(_, o)| o.at().map_or(n, |i| i + 1))
        .max()
        .unwrap_or(0)
}
