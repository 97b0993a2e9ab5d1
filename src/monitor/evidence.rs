//! A monitor's report with its evidence in the paper's terms, re-checked from the
//! definitions before it is shown: hb paths edge by edge ([`super::hb::check_path`]),
//! the TSO / PSO run of a Burnim report replayed and checked
//! ([`super::replay::check_run`]), the ⊙SC cycle by `check::verify`. An `Err` is
//! evidence that does not re-check: an internal error.

use super::burnim::{BurnimReport, Model};
use super::fenced::{theorem3, Theorem3};
use super::hb::{self, HbKind};
use super::sober::SoberReport;
use super::unconfirmed::Unconfirmed;
use super::{replay, Outcome};
use crate::check::{self, Verdict};
use crate::trace::exec::Step;
use crate::trace::{EventId, Trace};

/// A `→hb` path as its edges.
pub type HbPath = Vec<(EventId, EventId, HbKind)>;

/// SC-serializability fails from `at` on: the ⊙SC cycle of the prefix ending there.
pub struct ScSerEvidence {
    pub at: EventId,
    /// A violation with its witness.
    pub violation: Verdict,
}

/// A SOBER report and the hb path of Lemma 1 (1), `write →*hb last`.
pub struct SoberEvidence<'a> {
    pub report: &'a SoberReport,
    pub path: HbPath,
}

/// A `monitor_TSO` / `monitor_PSO` report: `e →*hb prev`, the replayed run (Fig. 10
/// for TSO, Fig. 9 for PSO) and its hb cycle through `e`.
pub struct BurnimEvidence<'a> {
    pub report: &'a BurnimReport,
    pub path: HbPath,
    pub run: Vec<Step>,
    pub cycle: HbPath,
}

/// An outcome with its evidence.
pub enum Evidence<'a> {
    Clean,
    ScSer(ScSerEvidence),
    Sober(SoberEvidence<'a>),
    Burnim(BurnimEvidence<'a>),
    /// The transaction-fenced monitor: the first unfenced transaction's last event, what
    /// Theorem 3 concludes, and each part's report.
    Fenced {
        unfenced: Option<EventId>,
        theorem3: Theorem3,
        sc_ser: Option<ScSerEvidence>,
        sober: Option<SoberEvidence<'a>>,
    },
}

/// The evidence of `outcome` on `trace`, re-checked.
pub fn evidence<'a>(trace: &Trace, outcome: &'a Outcome) -> Result<Evidence<'a>, Unconfirmed> {
    Ok(match outcome {
        Outcome::Clean => Evidence::Clean,
        Outcome::ScSer(at) => Evidence::ScSer(sc_ser(trace, *at)?),
        Outcome::Sober(r) => Evidence::Sober(sober(trace, r)?),
        Outcome::Burnim(r) => Evidence::Burnim(burnim(trace, r)?),
        Outcome::Fenced {
            unfenced,
            sc_ser: at,
            sober: r,
        } => Evidence::Fenced {
            unfenced: *unfenced,
            theorem3: theorem3(*unfenced, outcome.is_violation()),
            sc_ser: at.map(|at| sc_ser(trace, at)).transpose()?,
            sober: r.as_ref().map(|r| sober(trace, r)).transpose()?,
        },
    })
}

/// The ⊙SC cycle of the prefix that ends at `at`, verified.
pub fn sc_ser(trace: &Trace, at: EventId) -> Result<ScSerEvidence, Unconfirmed> {
    let violation = super::sc_ser_witness(trace, at).ok_or(Unconfirmed::NoScCycle)?;
    let Verdict::Violation(w) = &violation else {
        unreachable!("sc_ser_witness gives violations")
    };
    check::verify(trace, w)?;
    Ok(ScSerEvidence { at, violation })
}

/// The hb path of Lemma 1 (1) of a SOBER report, re-checked.
pub fn sober<'a>(trace: &Trace, r: &'a SoberReport) -> Result<SoberEvidence<'a>, Unconfirmed> {
    let path = hb::path(trace, r.load, r.write, r.last).ok_or(Unconfirmed::NoHbPath {
        from: r.write,
        to: r.last,
    })?;
    hb::check_path(trace, r.write, r.last, &path)?;
    Ok(SoberEvidence { report: r, path })
}

/// `e →*hb prev`, the replayed run and its hb cycle of a Burnim report, re-checked.
pub fn burnim<'a>(trace: &Trace, r: &'a BurnimReport) -> Result<BurnimEvidence<'a>, Unconfirmed> {
    let path = hb::path(trace, r.ei, r.e, r.prev).ok_or(Unconfirmed::NoHbPath {
        from: r.e,
        to: r.prev,
    })?;
    hb::check_path(trace, r.e, r.prev, &path)?;
    let run = replay::replay(trace, r);
    let cycle = replay::check_run(trace, r, &run)?;
    if r.model == Model::Sc {
        return Err(Unconfirmed::ScAutomaton);
    }
    Ok(BurnimEvidence {
        report: r,
        path,
        run,
        cycle,
    })
}
